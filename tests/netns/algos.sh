#!/bin/bash
# Every host identity algorithm x DH group: ecdsa-p256, ecdsa-p384 and
# rsa-3072 identities, each with DH groups 7 (NIST P-256), 8 (NIST P-384),
# 4 (MODP-3072) and 3 (MODP-1536). One pair of hosts per combination, all
# running at once: the Initiator offers only the group under test, the
# Responder its default list, so the Responder has to pick it. Two more
# pairs mix algorithms (the HIT suites differ: RHASH is the Responder's).
. "$(dirname "$0")/lib.sh"

algs="ecdsa-p256 ecdsa-p384 rsa-3072"
groups="7 8 4 3"

# Two keys per algorithm, made once (RSA-3072 generation takes a while).
genkey() {
	case $1 in
	ecdsa-p256) openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$2";;
	ecdsa-p384) openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 -out "$2";;
	rsa-3072) openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:3072 -out "$2";;
	esac 2>/dev/null
}
mkdir -p "$NETNS_TMP/keys"
jobs=""
for alg in $algs; do
	for side in i r; do genkey "$alg" "$NETNS_TMP/keys/$alg.$side" & jobs="$jobs $!"; done
done
wait $jobs
chmod 600 "$NETNS_TMP"/keys/*

# pair NAME ALG_I ALG_R GROUP: hosts NAMEi (Initiator) and NAMEr.
pairs=""
pair() {
	local i=$1i r=$1r
	netns_host "$i" "$r"
	netns_link "$i" "$r" 0
	cp "$NETNS_TMP/keys/$2.i" "$NETNS_TMP/$i/hip_host_key.pem"
	cp "$NETNS_TMP/keys/$3.r" "$NETNS_TMP/$r/hip_host_key.pem"
	hipd_launch "$i" "dh_groups = $4"
	hipd_launch "$r"
	pairs="$pairs $1:$2:$3:$4"
}
n=0
for alg in $algs; do
	n=$((n + 1))
	for g in $groups; do pair "k$n$g" "$alg" "$alg" "$g"; done
done
pair m1 ecdsa-p256 rsa-3072 7
pair m2 rsa-3072 ecdsa-p384 8
for p in $pairs; do hipd_wait "${p%%:*}i" "${p%%:*}r" || exit 1; done

# all exchanges at once (wait for the hipconf jobs only: hipd runs in the
# background too)
jobs=""
for p in $pairs; do
	name=${p%%:*}
	map "${name}i" "${name}r"
	hc "${name}i" trigger "$(hit "${name}r")" >/dev/null & jobs="$jobs $!"
done
wait $jobs

# alg_is HOST ALG: the identity hipd loaded is of algorithm ALG.
alg_is() { hc "$1" --json show hi | grep -q "\"algorithm\": \"$2\""; }
# bex_ok NAME ALG_I ALG_R GROUP
bex_ok() {
	local i=$1i r=$1r
	alg_is "$i" "$2" && alg_is "$r" "$3" || { echo "identities are not $2 / $3"; return 1; }
	wait_up "$i" "$r" 20 || return 1
	spis_match "$i" "$r" || return 1
	eq "$(ha_get "$i" "$(hit "$r")" dh_group) $(ha_get "$r" "$(hit "$i")" dh_group)" "$4 $4"
}
for p in $pairs; do
	IFS=: read -r name ai ar g <<<"$p"
	if [ "$ai" = "$ar" ]; then desc="$ai x DH group $g"; else desc="$ai -> $ar, DH group $g"; fi
	check "$desc: BEX completes, SPIs pair up, group $g on both sides" bex_ok "$name" "$ai" "$ar" "$g"
done

netns_done
