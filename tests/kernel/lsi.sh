#!/bin/bash
# tests/kernel/lsi.sh - IPv4 programs over LSIs on the kernel datapath (issue 16,
# docs/decisions.md D-22): two hipd with XFRM (and privilege separation). hip0 has each
# host's LSI/32 and the LSI range routed to it; the catch-all policy LSI/32 -> the range makes
# the kernel send ACQUIRE for the first IPv4 packet to a peer's LSI, which is held, starts the
# base exchange and is answered; the association's second SA pair is in the kernel as BEET SAs
# whose selector is the LSI pair (`ip xfrm state`: sel src LSI/32 dst LSI/32, AF_INET, over
# IPv4 and over IPv6 locators), with hipconf's SPIs; ping -4 both ways and TCP over the LSIs
# (20 MB over IPv4 locators, 2 MB over IPv6 ones: TCG is slow) arrive intact;
# /proc/net/xfrm_stat stays all 0; hipconf close removes the LSI SAs and policies. Then a
# third host on the userspace datapath: ping -4 and TCP both ways between the kernel's LSI SAs
# and hipd's own ESP (the same BEET framing).
#
# Run inside the ESP VM as root, with a build made on the host:
#   tools/kvm/run-in-esp-vm.sh 'BUILD=/path/to/build sh tests/kernel/lsi.sh'
# Exit: 0 passed, 1 failed, 77 skipped (no root, no ESP in this kernel, no build).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

KNAME=lsi KTOOLS="ip ping python3"
. "$(dirname "$0")/lib.sh"
[ -c /dev/net/tun ] || skip "no /dev/net/tun"

REQID=1212764160   # HIP_XFRM_REQID_DEFAULT (hipd/datapath/xfrm/xfrm.h)
MB=${LSI_MB:-20}     # over IPv4 locators; over IPv6 ones LSI_MB6 (TCG is slow)
MB6=${LSI_MB6:-2}

netns_host a b
netns_link a b 0
kernel_esp_probe a

hipd_launch a "datapath = kernel"
hipd_launch b "datapath = kernel"
hipd_wait a b || exit 1
own_lsi() { hc "$1" --json show hi | jget identities.0.lsi; }
LA=$(own_lsi a) LB=$(own_lsi b)
echo "# a $(hit a) LSI $LA, b $(hit b) LSI $LB"
check "both hipd run the kernel datapath" \
	eval "grep -q 'datapath: kernel' $NETNS_TMP/a/hipd.log && grep -q 'datapath: kernel' $NETNS_TMP/b/hipd.log"
check "hip0 has a's LSI/32 and the LSI range" \
	eval "nsx a ip -4 addr show dev hip0 | grep -q 'inet $LA/32' &&
	      nsx a ip -4 route show dev hip0 | grep -q '^198.18.0.0/15'"
check "the ACQUIRE policy $LA/32 -> 198.18.0.0/15" \
	eval "nsx a ip xfrm policy | grep -q 'src $LA/32 dst 198.18.0.0/15'"

lsi_spi() { printf '0x%08x' "$(ha_get "$1" "$(hit "$2")" "$3")"; }
# lsi_sas NAME PEER: NAME's kernel SAs of the LSI pair, with hipconf's SPIs, have the IPv4
# selectors (in: PEER's LSI -> ours, out: ours -> PEER's)
lsi_sas() {
	local own=$LA peer=$LB
	[ "$1" = a ] || { own=$LB; peer=$LA; }
	nsx "$1" ip xfrm state | python3 -c '
import re, sys
out_spi, in_spi, own, peer = sys.argv[1:]
text = sys.stdin.read()
bad = 0
for spi, sel in ((out_spi, "sel src %s/32 dst %s/32" % (own, peer)),
                 (in_spi, "sel src %s/32 dst %s/32" % (peer, own))):
    blks = [b for b in re.split(r"\n(?=src )", text) if "proto esp spi %s reqid '"$REQID"' mode beet" % spi in b]
    print(spi, "found" if blks else "missing", "|", sel, "yes" if blks and sel in blks[0] else "no")
    if len(blks) != 1 or sel not in blks[0]:
        bad = 1
sys.exit(bad)' "$(lsi_spi "$1" "$2" lsi_spi_out)" "$(lsi_spi "$1" "$2" lsi_spi_in)" "$own" "$peer"
}
lsi_policies() { # NAME OWN PEER: the LSI pair's out and in policies
	local p
	p=$(nsx "$1" ip xfrm policy)
	grep -q "src $2/32 dst $3/32" <<<"$p" && grep -q "src $3/32 dst $2/32" <<<"$p"
}
no_lsi_state() { ! nsx "$1" ip xfrm state | grep -q "sel src $2/32 dst"; }
stat_zero() { nsx "$1" cat /proc/net/xfrm_stat | awk '$2 != 0 { print; bad = 1 } END { exit bad }'; }
ping4() { nsx "$1" ping -4 -n -c "${3:-1}" -i 0.2 -W 10 "$2"; }

for fam in 4 6; do
	echo "# IPv4 over LSIs, IPv$fam locators"
	map a b 0 "$fam"; map b a 0 "$fam"
	check "IPv$fam: no association before the first IPv4 packet" no_ha a b
	check "IPv$fam: the first ping -4 to b's never-contacted LSI $LB is answered" ping4 a "$LB"
	check "IPv$fam: both sides up" wait_up a b 10
	check "IPv$fam: a's kernel SAs of the LSI pair carry the IPv4 selectors" lsi_sas a b
	check "IPv$fam: b's too" lsi_sas b a
	check "IPv$fam: the LSI pair policies on both" \
		eval "lsi_policies a $LA $LB && lsi_policies b $LB $LA"
	check "IPv$fam: ping -4 a -> b" ping4 a "$LB" 3
	check "IPv$fam: ping -4 b -> a" ping4 b "$LA" 3
	check "IPv$fam: ping -6 between the HITs beside it" nsx a ping -6 -c 2 -i 0.2 -W 5 "$(hit b)"
	mb=$MB
	[ "$fam" = 4 ] || mb=$MB6
	t0=$SECONDS
	check "IPv$fam: $mb MB over TCP a -> b's LSI, SHA-256 equal" eval \
		'TO_ADDR=$LB tcp_transfer a b $((mb << 20)) 240'
	echo "# IPv$fam: $mb MB in $((SECONDS - t0)) s"
	check "IPv$fam: /proc/net/xfrm_stat all 0 on a" stat_zero a
	check "IPv$fam: /proc/net/xfrm_stat all 0 on b" stat_zero b
	check "IPv$fam: hipconf close" hc a close "$(hit b)"
	check "IPv$fam: no association on a" wait_for "a closed" 20 no_ha a b
	check "IPv$fam: the LSI SAs are gone on both" \
		wait_for "LSI SAs gone" 20 eval "no_lsi_state a $LA && no_lsi_state b $LB"
	check "IPv$fam: the LSI pair policies are gone on both" \
		eval "! lsi_policies a $LA $LB && ! lsi_policies b $LB $LA"
done

echo "# kernel <-> userspace over the LSIs (the same BEET framing, D-22)"
netns_host u
netns_link a u 1
hipd_launch u "datapath = userspace"
hipd_wait u || exit 1
LU=$(own_lsi u)
check "u runs the userspace datapath with its LSI $LU on hip0" \
	eval "grep -q 'datapath: userspace (configured)' $NETNS_TMP/u/hipd.log &&
	      nsx u ip -4 addr show dev hip0 | grep -q 'inet $LU/32'"
map a u 1 4; map u a 1 4
check "the first ping -4 a (kernel) -> u's LSI is answered" ping4 a "$LU"
check "a <-> u up" wait_up a u 10
check "a's kernel SAs of the LSI pair with u carry the IPv4 selectors" eval \
	'LB=$LU lsi_sas a u'
check "ping -4 u (userspace) -> a's LSI" ping4 u "$LA" 3
check "$MB6 MB over TCP a -> u's LSI, SHA-256 equal" eval \
	'TO_ADDR=$LU tcp_transfer a u $((MB6 << 20)) 240'
check "$MB6 MB over TCP u -> a's LSI, SHA-256 equal" eval \
	'TO_ADDR=$LA tcp_transfer u a $((MB6 << 20)) 240'
check "/proc/net/xfrm_stat all 0 on a" stat_zero a

netns_done
