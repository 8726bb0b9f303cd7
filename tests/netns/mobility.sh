#!/bin/bash
# Mobility, multihoming and rekeying (issue 5, RFC 8046 / 8047 / 7402 §6)
# on the userspace datapath: a TCP stream between HITs (paced, a fixed
# amount of pseudo-random bytes, SHA-256 on both ends) keeps going, without
# a byte lost or duplicated and without a reset, while
#   1. the Initiator's address changes IPv4 -> IPv4,
#   2. IPv4 -> IPv6,
#   3. IPv6 -> IPv4,
#   4. the Responder's address changes,
#   5. multihoming failover: a second link comes up, the first goes down,
#   6. both hosts move, one after the other,
#   7. hipconf rekey under traffic: new SPIs on both sides, the old ones gone,
#   8. every other HIP packet to the Responder is dropped while the
#      Initiator moves: UPDATE retransmission recovers;
#   8b. hipconf hide locator / del locator move the association as an
#      address change would (and need root);
# and address verification (RFC 8046 §5.4, §5.6): the Responder announces an
# address that belongs to a third namespace (it holds it on a device of its own,
# so its UPDATE can come from there); the Initiator's ESP sent there stays a
# small part of its traffic, bounded by what it received (credit-based
# authorization), as the third namespace counts it.
#
# Addresses change with ip(8) only: hipd learns them through rtnetlink.
. "$(dirname "$0")/lib.sh"
RATE=${MOB_RATE:-262144}        # bytes/s of the stream
SECS=${MOB_SECS:-8}             # seconds per stream
MOVE_WAIT=${MOB_MOVE_WAIT:-10}  # seconds for a readdress to show
# (the stream and the readdress checks: lib.sh, shared with the kernel variant)

# rule_bytes NAME CHAIN [N]: bytes matched by the chain's rule N (default 1).
rule_bytes() { ipt "$1" -L "$2" "${3:-1}" -v -x -n | awk '{ print $2; exit }'; }

netns_host a b c
netns_link a b 0
for n in a b; do
	nsx $n sysctl -q -w net.ipv4.conf.all.promote_secondaries=1 \
		net.ipv4.conf.v${n}0.promote_secondaries=1
done
# ESP bytes a receives, from the start (the most credit it can have)
ipt a -I INPUT -p esp
hipd_launch a; hipd_launch b
hipd_wait a b || exit 1
HA=$(hit a); HB=$(hit b)
map a b 0 4; map a b 0 6; map b a 0 4; map b a 0 6

check "hipd follows its addresses: a's locators listed" \
	eval "hc a show locators | grep -q '^192.0.2.1 .*preferred' && hc a show locators | grep -q '^fd00::1 '"
check "hipconf show locators --json is JSON" eval "hc a --json show locators | python3 -m json.tool"
check "base exchange a -> b (ping6 to b's HIT)" nsx a ping6 -c 1 -W 5 "$HB"
check "both sides up" wait_up a b 10
check "on IPv4 locators" moved a b 192.0.2.1
# without an association nothing below can pass: stop here
both_up a b >/dev/null || { netns_done; exit 1; }

echo "# 1. Initiator IPv4 -> IPv4"
stream_begin a b
nsip a "addr add 192.0.2.11/24 dev va0" "addr del 192.0.2.1/24 dev va0"
check "1: both sides use a's new address 192.0.2.11" wait_moved a b 192.0.2.11
check "1: stream intact (no byte lost or duplicated, no reset)" stream_end

echo "# 2. Initiator IPv4 -> IPv6"
stream_begin a b
nsip a "addr del 192.0.2.11/24 dev va0"
check "2: both sides use a's IPv6 address fd00::1" wait_moved a b fd00::1
check "2: stream intact" stream_end

echo "# 3. Initiator IPv6 -> IPv4"
stream_begin a b
nsip a "addr add 192.0.2.21/24 dev va0" "addr del fd00::1/64 dev va0"
check "3: both sides use a's IPv4 address 192.0.2.21" wait_moved a b 192.0.2.21
check "3: stream intact" stream_end

echo "# 4. Responder moves"
stream_begin a b
nsip b "addr add 192.0.2.32/24 dev vb0" "addr del 192.0.2.2/24 dev vb0"
check "4: both sides use b's new address 192.0.2.32" wait_moved b a 192.0.2.32
check "4: stream intact" stream_end

echo "# 5. Multihoming failover"
netns_link a b 1
hc a add map "$HB" 198.51.100.2 >/dev/null
hc b add map "$HA" 198.51.100.1 >/dev/null
check "5: a's second address is a locator" \
	wait_for "198.51.100.1 listed" 5 eval "hc a show locators | grep -q '^198.51.100.1 '"
stream_begin a b
nsx a ip link set va0 down
check "5: a moved to its second link (198.51.100.1)" wait_moved a b 198.51.100.1
check "5: b moved off its dead link (198.51.100.2)" wait_moved b a 198.51.100.2
check "5: stream intact" stream_end

echo "# 6. Both hosts move, one after the other"
stream_begin a b
nsip a "addr add 198.51.100.11/24 dev va1" "addr del 198.51.100.1/24 dev va1"
check "6: a at 198.51.100.11" wait_moved a b 198.51.100.11
nsip b "addr add 198.51.100.12/24 dev vb1" "addr del 198.51.100.2/24 dev vb1"
check "6: then b at 198.51.100.12" wait_moved b a 198.51.100.12
check "6: stream intact" stream_end

echo "# 7. Rekey under traffic"
spis_remember a b
stream_begin a b
check "7: hipconf rekey" hc a rekey "$HB"
check "7: new SPIs on both sides, matching" wait_for "rekeyed" 10 rekeyed a b
check "7: the old SPIs are gone" wait_for "old SPIs gone" 10 old_spis_gone a b
check "7: stream intact" stream_end
check "7: still ESTABLISHED" both_up a b

echo "# 8. Lost UPDATE packets"
# every other HIP packet b receives is dropped, while a moves
ipt b -I INPUT -p 139 -m statistic --mode nth --every 2 --packet 0 -j DROP
stream_begin a b
nsip a "addr add 198.51.100.21/24 dev va1" "addr del 198.51.100.11/24 dev va1"
check "8: the readdress completes despite the loss" wait_moved a b 198.51.100.21 30
check "8: HIP packets were dropped" ge "$(rule_pkts b INPUT)" 1
check "8: stream intact" stream_end
ipt b -D INPUT 1

echo "# 8b. hipconf hide locator / del locator"
stream_begin a b
check "8b: hipconf hide locator 198.51.100.21" hc a hide locator 198.51.100.21
check "8b: a moved off the hidden address (to fd00:1::1)" wait_moved a b fd00:1::1
check "8b: show locators marks it hidden" \
	eval "hc a show locators | grep -q '^198.51.100.21 .* hidden\$'"
check "8b: hipconf unhide locator" hc a unhide locator 198.51.100.21
check "8b: hipconf del locator fd00:1::1" hc a del locator fd00:1::1
check "8b: a moved back to 198.51.100.21" wait_moved a b 198.51.100.21
check "8b: stream intact" stream_end
check "8b: del of an unknown locator: status 3" \
	fails_with 3 "is not one of our locators" hc a del locator 198.51.100.99
check "8b: changes need root (nobody: status 2)" \
	fails_with 2 "" nsx a setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$HIPCONF" --socket "$NETNS_TMP/a/hipd.sock" hide locator 198.51.100.21

echo "# 9. Address verification: b announces c's address"
netns_link a c 2
ipt c -A INPUT -p esp
ipt c -A INPUT -p 139
ipt a -I OUTPUT -p esp
A_RX0=$(rule_bytes a INPUT)
stream_begin a b
# b holds 203.0.113.2 (c's address) on a device of its own (a veth pair
# inside b) and keeps a way to a (a route from that source; a link-local
# address, never a locator, keeps IPv4 up on vb1); then its own IPv4
# address goes: b "moves" to c's address
nsip b "link add dum0 type veth peer name dum1" "link set dum1 up" "link set dum0 up" \
	"addr add 203.0.113.2/32 dev dum0" \
	"addr add 169.254.9.2/16 dev vb1" \
	"route add 198.51.100.0/24 dev vb1 src 203.0.113.2 metric 50" \
	"addr del 198.51.100.12/24 dev vb1"
sleep 6
A_RX=$(rule_bytes a INPUT); A_TX=$(rule_bytes a OUTPUT); C_RX=$(rule_bytes c INPUT)
echo "# a received $A_RX ESP bytes in all ($((A_RX - A_RX0)) in this phase); sent $A_TX since;" \
	"c received $C_RX"
check "9: a asked c's address to prove itself (HIP packets reached c)" \
	ge "$(ipt c -L INPUT 2 -v -x -n | awk '{ print $1; exit }')" 1
check "9: ESP reaching c stays within the credit (<= bytes a received)" \
	eval "[ ${C_RX:-0} -le ${A_RX:-0} ]"
check "9: most of a's ESP did not go to c" eval "[ $((${C_RX:-0} * 4)) -le ${A_TX:-0} ]"
stream_kill

netns_done
