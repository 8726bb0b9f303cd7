#!/bin/sh
# tests/kernel/smoke.sh - the kernel's ESP BEET (RFC 7402) data plane between two HITs.
#
# Run inside the ESP VM (tools/kvm/run-in-esp-vm.sh, `make check-kernel`), as root. Outside it,
# it runs only if the kernel accepts an ESP SA (else exit 77 = skip).
#
# Two network namespaces joined by a veth pair carry IPv6 and IPv4 outer addresses; each has its
# HIT on lo and a route to the peer's HIT over the veth with src = own HIT. Per scenario (outer
# family x transform), it installs ESP BEET SAs with extended sequence numbers (ESN) and in/out
# policies with `ip xfrm`, pings HIT to HIT both ways and checks:
#   - every ping is answered;
#   - `tcpdump -Q out` on both veth ends sees only ESP packets, with the expected SPI and count,
#     and lengths that prove BEET (no inner IPv6 header: tunnel mode is 32-40 bytes longer);
#   - no captured byte sequence is a HIT;
#   - `ip -s xfrm state` counts the packets on each SA, with no replay or integrity failures;
#   - the 64-bit sequence numbers crossed 2^32 (the SAs start at 0xfffffffd), so both ends
#     inferred the high half (RFC 4303 App. A) and authenticated it;
#   - every /proc/net/xfrm_stat counter is 0 in both namespaces.
# Each process costs 35-110 ms under TCG, so `ip` commands are batched and parsing uses shell
# builtins. Exit: 0 all passed, 1 a scenario failed, 77 skipped.
set -u
set -f

# HITs from docs/protocol.md §3 (2001:20::/28 ORCHIDv2), their bytes for the leak check.
HIT_A=2001:22:f482:7b66:edea:73a8:1796:b6
HIT_B=2001:21:5a6:9f76:e41:6d95:4eb2:decf
HIT_A_RE='\x20\x01\x00\x22\xf4\x82\x7b\x66\xed\xea\x73\xa8\x17\x96\x00\xb6'
HIT_B_RE='\x20\x01\x00\x21\x05\xa6\x9f\x76\x0e\x41\x6d\x95\x4e\xb2\xde\xcf'
NS_A=hipd-smoke-a-$$
NS_B=hipd-smoke-b-$$
# Both veth ends get the same MAC and NOARP: frames reach the peer without ARP or neighbour
# discovery, and NOARP also turns off DAD and solicited-node MLD reports, so nothing but ESP
# is sent on the veth.
MAC=02:00:5e:10:00:01
PINGS_A=3	# A -> B, 56-byte payload
PINGS_B=2	# B -> A, 1000-byte payload
# Each SA carries PINGS_A + PINGS_B = 5 packets from ESN_START: 0xfffffffe .. 0x1_00000002.
ESN_START=0xfffffffd
ESN_END="hi 0x1 lo 0x2"

say() { printf '%s\n' "$*"; }
# ok, not_ok and the result line (summary)
case $0 in */*) . "${0%/*}/../lib/check.sh" ;; *) . ../lib/check.sh ;; esac

# HIPD_SMOKE_TRACE=1: print the time of each step (guest uptime; read without a spawn).
trace() {
	if [ "${HIPD_SMOKE_TRACE:-0}" = 1 ]; then
		read -r now _ </proc/uptime
		say "  [$now] $*"
	fi
}

skip() {
	say "kernel-smoke: SKIPPED: $*"
	exit 77
}

# --- may we run? ----------------------------------------------------------------------------

[ "$(id -u)" = 0 ] || skip "needs root (run it through tools/kvm/run-in-esp-vm.sh)"
for t in ip tcpdump ping grep; do
	command -v $t >/dev/null 2>&1 || skip "$t not found"
done
if [ "${HIPD_VM_GUEST:-}" != 1 ]; then
	p=hipd-smoke-probe-$$
	ip netns add $p || skip "cannot create a network namespace"
	if ! err=$(ip -n $p xfrm state add src 192.0.2.1 dst 192.0.2.2 proto esp spi 1 \
		enc 'cbc(aes)' 0x000102030405060708090a0b0c0d0e0f \
		auth-trunc 'hmac(sha256)' 0x000102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f \
		128 2>&1); then
		ip netns del $p
		skip "this kernel takes no ESP SA (${err:-?}); use make check-kernel"
	fi
	ip netns del $p
fi

# --- set-up and clean-up --------------------------------------------------------------------

tmp=
helper_a=
helper_b=
cleanup() {
	trap - EXIT INT TERM
	[ -z "$helper_a$helper_b" ] || kill $helper_a $helper_b 2>/dev/null
	printf 'netns del %s\nnetns del %s\n' $NS_A $NS_B | ip -force -batch - 2>/dev/null
	[ -z "$tmp" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

trace "start"
# The kernel autoloads what it needs, but one modprobe for all is cheaper than one per module
# (each process costs 35-110 ms under TCG). The list is what Debian 12's kernel autoloads for
# these SAs, including the stdrng (drbg) behind the IV generators; a module that is missing or
# built in is fine (-a goes on). Template instances such as cbc(aes) are still looked up once.
modprobe -q -a xfrm_user esp4 esp6 veth authenc authencesn echainiv seqiv gcm ctr \
	ghash_clmulni_intel drbg sha3_generic jitterentropy_rng sha512_ssse3 2>/dev/null
trace "modules loaded"
die() {
	say "kernel-smoke: FAIL: $*"
	exit 1
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hipd-smoke.XXXXXX") || die "mktemp failed"
mkfifo "$tmp/tcpdump-a" "$tmp/tcpdump-b" || die "mkfifo failed"

ip -batch - <<EOF || die "namespace set-up"
netns add $NS_A
netns add $NS_B
link add vA netns $NS_A address $MAC type veth peer name vB netns $NS_B address $MAC
EOF
# $1 ns, $2 veth, $3 own outer v6, $4 own outer v4, $5 own HIT, $6 peer HIT
setup_ns() {
	ip -n "$1" -batch - <<EOF
link set lo up
link set $2 addrgenmode none
link set $2 arp off
link set $2 up
addr add $3/64 dev $2 nodad
addr add $4/24 dev $2
addr add $5/128 dev lo nodad
route add $6/128 dev $2 src $5
EOF
}
setup_ns $NS_A vA fd00:beef::1 192.0.2.1 $HIT_A $HIT_B &&
	setup_ns $NS_B vB fd00:beef::2 192.0.2.2 $HIT_B $HIT_A || die "address set-up"

# A process in each namespace, so that its /proc/PID/net/xfrm_stat can be read without a spawn.
ip netns exec $NS_A sleep 3600 &
helper_a=$!
ip netns exec $NS_B sleep 3600 &
helper_b=$!
# Wait until both exec'd sleep (then they are in their namespaces).
for h in $helper_a $helper_b; do
	while :; do
		read -r stat </proc/$h/stat 2>/dev/null || stat=
		case $stat in
		*"(sleep) S"* | *"(sleep) R"*) break ;;
		"" | *") Z"*) die "cannot start a process in a namespace (ip netns exec)" ;;
		esac
	done
done

trace "namespaces ready"

# --- checks ---------------------------------------------------------------------------------

errors=
fail() { errors="$errors
    $*"; }

# Starts tcpdump on $2 in netns $1 writing $3; returns when it is capturing. Sets tcpdump_pid.
# Its stderr goes to FIFO $4, read on fd $5 (kept open until stop_capture). It exits by itself
# after the expected number of packets (-c), so that none is lost to a kill while still queued.
start_capture() {
	ip netns exec "$1" tcpdump -Z root -n -i "$2" -Q out --immediate-mode -U -s 0 \
		-c $((PINGS_A + PINGS_B)) -w "$3" 2>"$4" &
	tcpdump_pid=$!
	eval "exec $5<\"\$4\""
	last=
	while :; do
		if ! eval "read -r line <&$5"; then
			fail "tcpdump on $2 did not start: ${last:-no message}"
			wait $tcpdump_pid
			eval "exec $5<&-"
			return 1
		fi
		last=$line
		case $line in
		*"listening on"*) return 0 ;;
		esac
	done
}

# Stops tcpdump $1 whose stderr is on fd $2 (if it did not see all packets in 2 s, which is a
# failure the checks report); fails unless the kernel dropped nothing.
stop_capture() {
	i=0
	while [ $i -lt 20 ] && kill -0 "$1" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -INT "$1" 2>/dev/null
	wait "$1"
	while eval "read -r line <&$2"; do
		case $line in
		*"dropped by kernel"*)
			[ "${line%% *}" = 0 ] || fail "tcpdump: $line"
			;;
		esac
	done
	eval "exec $2<&-"
}

# Checks the `tcpdump -r` text in $1 (both captures): ESP only, the right SPIs, counts, lengths
# (expectations in wire_oa, wire_ob, wire_spi_ab, wire_spi_ba, wire_len_s, wire_len_l).
check_wire() {
	n_a=0 n_b=0 short=0 long=0 other=0 text=$1
	while read -r l; do
		case $l in
		"reading from file"* | "") continue ;;
		esac
		set -- $l "" "" "" "" "" "" ""
		# IP6 fd00:beef::1 > fd00:beef::2: ESP(spi=0x00001001,seq=0x1), length 120
		src=$2 esp=${5%%,*} len=$7
		case $src:$esp in
		"$wire_oa:ESP(spi=$wire_spi_ab") n_a=$((n_a + 1)) ;;
		"$wire_ob:ESP(spi=$wire_spi_ba") n_b=$((n_b + 1)) ;;
		*)
			other=$((other + 1))
			[ $other -gt 3 ] || fail "unexpected packet: $l"
			continue
			;;
		esac
		case $len in
		"$wire_len_s") short=$((short + 1)) ;;
		"$wire_len_l") long=$((long + 1)) ;;
		*) fail "ESP length $len, expected $wire_len_s or $wire_len_l (BEET): $l" ;;
		esac
	done <"$text"
	[ $other -le 3 ] || fail "... $other unexpected packets in all"
	want=$((PINGS_A + PINGS_B))
	[ $n_a = $want ] || fail "$n_a ESP packets sent by A, expected $want"
	[ $n_b = $want ] || fail "$n_b ESP packets sent by B, expected $want"
	[ $short = $((2 * PINGS_A)) ] ||
		fail "$short ESP packets of $wire_len_s bytes, expected $((2 * PINGS_A))"
	[ $long = $((2 * PINGS_B)) ] ||
		fail "$long ESP packets of $wire_len_l bytes, expected $((2 * PINGS_B))"
	wire_summary="A->B $n_a ESP, B->A $n_b ESP, lengths $wire_len_s/$wire_len_l"
}

# Checks `ip -s xfrm state` of namespace $1 (text in $2): ESN on, $3 packets on each SA, the
# sequence number of outbound SA $4 and of the inbound one past 2^32, no replay or integrity
# failures.
check_sa() {
	nsa=0 spi= next=
	while read -r a b c d e f g h; do
		case $next in
		counts)
			# 1200(bytes), 5(packets)
			next=
			p=${b%(packets)}
			[ "$p" = "$3" ] || fail "$1: SA $spi counted $p packets, expected $3"
			continue
			;;
		esac
		case $a:$b:$c in
		proto:esp:spi) spi=${d%%(*} nsa=$((nsa + 1)) ;;
		replay-window:*)
			case "$a $b $c $d $e $f" in
			"replay-window "*" seq "*" flag esn"*) ;;
			"replay-window 0 replay 0 failed 0") ;;
			"replay-window "*" replay "*) fail "$1: SA $spi stats: $a $b $c $d $e $f" ;;
			*) fail "$1: SA $spi without ESN: $a $b $c $d $e $f" ;;
			esac
			;;
		lifetime:current::) next=counts ;;
		seq-hi:*)
			# seq-hi 0x1, seq 0x2, oseq-hi 0x0, oseq 0x0
			if [ "$spi" = "$4" ]; then
				esn="hi ${f%,} lo ${h%,}"
			else
				esn="hi ${b%,} lo ${d%,}"
			fi
			[ "$esn" = "$ESN_END" ] ||
				fail "$1: SA $spi sequence number $a $b $c $d $e $f $g $h, expected $ESN_END"
			;;
		esac
	done <"$2"
	[ $nsa = 2 ] || fail "$1: $nsa SAs, expected 2"
}

# Every /proc/net/xfrm_stat counter of the namespace of process $2 must be 0.
check_xfrm_stat() {
	while read -r stat val; do
		[ "$val" = 0 ] || fail "$1: /proc/net/xfrm_stat $stat $val"
	done </proc/$2/net/xfrm_stat
}

# SAs and policies of namespace $1: $2 own outer, $3 peer outer, $4 own HIT, $5 peer HIT, $6 out
# SPI, $7 in SPI, $8/$9 out/in reqid. The inner (HIT) addresses of a BEET SA are its selector.
xfrm_batch() {
	if [ "$4" = $HIT_A ]; then
		out_alg=$alg_ab in_alg=$alg_ba
	else
		out_alg=$alg_ba in_alg=$alg_ab
	fi
	ip -n "$1" -batch - <<EOF
xfrm state flush
xfrm policy flush
xfrm state add src $2 dst $3 proto esp spi $6 reqid $8 mode beet \
	flag esn replay-window 64 replay-oseq $ESN_START $out_alg sel src $4/128 dst $5/128
xfrm state add src $3 dst $2 proto esp spi $7 reqid $9 mode beet \
	flag esn replay-window 64 replay-seq $ESN_START $in_alg sel src $5/128 dst $4/128
xfrm policy add src $4/128 dst $5/128 dir out tmpl src $2 dst $3 proto esp reqid $8 mode beet
xfrm policy add src $5/128 dst $4/128 dir in tmpl src $3 dst $2 proto esp reqid $9 mode beet
EOF
}

# --- scenarios ------------------------------------------------------------------------------

index=0

# $1 name, $2 outer family (6|4), $3 transform (cbc-hmac|gcm)
scenario() {
	name=$1 errors=
	index=$((index + 1))
	spi_ab=$(printf '0x%08x' $((0x1000 + index * 16 + 1)))
	spi_ba=$(printf '0x%08x' $((0x1000 + index * 16 + 2)))
	if [ "$2" = 6 ]; then
		oa=fd00:beef::1 ob=fd00:beef::2
	else
		oa=192.0.2.1 ob=192.0.2.2
	fi
	# ESP lengths (RFC 4303) for ICMPv6 echo of 64 and 1008 bytes with no inner header (BEET):
	# CBC: SPI+seq 8, IV 16, payload+2 padded to 16, ICV 16. GCM: 8, IV 8, padded to 4, ICV 16.
	# Tunnel mode would carry the 40-byte inner IPv6 header too (152/1096 and 140/1084 bytes).
	case $3 in
	cbc-hmac)
		alg_ab="enc cbc(aes) 0x000102030405060708090a0b0c0d0e0f"
		alg_ab="$alg_ab auth-trunc hmac(sha256) 0x101112131415161718191a1b1c1d1e1f"
		alg_ab="${alg_ab}202122232425262728292a2b2c2d2e2f 128"
		alg_ba="enc cbc(aes) 0x303132333435363738393a3b3c3d3e3f"
		alg_ba="$alg_ba auth-trunc hmac(sha256) 0x404142434445464748494a4b4c4d4e4f"
		alg_ba="${alg_ba}505152535455565758595a5b5c5d5e5f 128"
		wire_len_s=120 wire_len_l=1064
		;;
	gcm)
		alg_ab="aead rfc4106(gcm(aes)) 0x606162636465666768696a6b6c6d6e6f70717273 128"
		alg_ba="aead rfc4106(gcm(aes)) 0x808182838485868788898a8b8c8d8e8f90919293 128"
		wire_len_s=100 wire_len_l=1044
		;;
	esac
	wire_oa=$oa wire_ob=$ob wire_spi_ab=$spi_ab wire_spi_ba=$spi_ba

	if ! xfrm_batch $NS_A $oa $ob $HIT_A $HIT_B $spi_ab $spi_ba 1 2 ||
		! xfrm_batch $NS_B $ob $oa $HIT_B $HIT_A $spi_ba $spi_ab 2 1; then
		fail "ip xfrm state/policy add failed"
	else
		trace "$name: SAs and policies installed"
		pa=$tmp/$name-a.pcap pb=$tmp/$name-b.pcap cap_a= cap_b=
		start_capture $NS_A vA "$pa" "$tmp/tcpdump-a" 3 && cap_a=$tcpdump_pid &&
			start_capture $NS_B vB "$pb" "$tmp/tcpdump-b" 4 && cap_b=$tcpdump_pid
		trace "$name: capturing"
		if [ -n "$cap_a" ] && [ -n "$cap_b" ]; then
			out=$(ip netns exec $NS_A ping -n -q -c $PINGS_A -i 0.05 -W 5 -s 56 $HIT_B 2>&1) ||
				fail "ping A -> B: $(printf '%s' "$out" | tr '\n' ' ')"
			out=$(ip netns exec $NS_B ping -n -q -c $PINGS_B -i 0.05 -W 5 -s 1000 $HIT_A 2>&1) ||
				fail "ping B -> A: $(printf '%s' "$out" | tr '\n' ' ')"
		fi
		trace "$name: pinged"
		[ -z "$cap_a" ] || stop_capture $cap_a 3
		[ -z "$cap_b" ] || stop_capture $cap_b 4
		if [ -n "$cap_a" ] && [ -n "$cap_b" ]; then
			printf '%s\n%s\n' "$pa" "$pb" >"$tmp/pcaps"
			tcpdump -Z root -n -t -V "$tmp/pcaps" >"$tmp/$name.txt" 2>&1 ||
				fail "tcpdump -r: $(cat "$tmp/$name.txt")"
			trace "$name: captures stopped and read"
			check_wire "$tmp/$name.txt"
			if LC_ALL=C grep -laP "$HIT_A_RE|$HIT_B_RE" "$pa" "$pb" >/dev/null; then
				fail "a HIT appears in the captured bytes (plaintext leak)"
			fi
		fi
		ip -n $NS_A -s xfrm state >"$tmp/sa-a" 2>&1 || fail "ip -s xfrm state: $(cat "$tmp/sa-a")"
		ip -n $NS_B -s xfrm state >"$tmp/sa-b" 2>&1 || fail "ip -s xfrm state: $(cat "$tmp/sa-b")"
		trace "$name: wire checked"
		check_sa A "$tmp/sa-a" $((PINGS_A + PINGS_B)) $spi_ab
		check_sa B "$tmp/sa-b" $((PINGS_A + PINGS_B)) $spi_ba
		check_xfrm_stat A $helper_a
		check_xfrm_stat B $helper_b
	fi
	trace "$name: done"
	if [ -z "$errors" ]; then
		ok "$name: $wire_summary; SA counters ok; ESN past 2^32; xfrm_stat all 0"
	else
		not_ok "$name:$errors"
	fi
}

scenario v6-cbc-hmac 6 cbc-hmac
scenario v6-gcm 6 gcm
scenario v4-cbc-hmac 4 cbc-hmac
scenario v4-gcm 4 gcm

summary kernel-smoke
