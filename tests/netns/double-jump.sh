#!/bin/bash
# Double jump (RFC 8046 §3.2.3): A and B move at the same moment, so each
# one's readdress UPDATE goes to the other's stale address. B is registered
# with the rendezvous server S (RFC 8003, 8004) and keeps S up to date; A
# learnt S from the VIA_RVS of B's R1. A's unanswered UPDATE also goes to S,
# which relays it to B's new address with FROM and RVS_HMAC; B answers A's
# new address with VIA_RVS in the ACK and sends its own readdress there
# too; both check the other's new address (ECHO_REQUEST_SIGNED) and move
# their SAs. A TCP stream from A to B runs through it: no byte is lost.
# The old addresses become unreachable before either host moves, so
# neither UPDATE can reach the other's old address, whichever is quicker.
#
#   a (198.51.100.2) --- s (198.51.100.1 | 203.0.113.1) --- b (203.0.113.2)
#   then a (10.255.20.1) --- s --- b (10.255.21.1), both at once
. "$(dirname "$0")/lib.sh"

netns_host s a b
netns_link s a 1
netns_link s b 2
nsx s sysctl -qw net.ipv4.ip_forward=1
nsx a ip route add default via "$(addr4 s 1)"
nsx b ip route add default via "$(addr4 s 2)"
C=("listen_v6 = no" "nat_traversal = never")
hipd_start s "${C[@]}" "offer_services = rendezvous" || exit 1
hipd_launch a "${C[@]}"
hipd_launch b "${C[@]}" "server = $(hit s) $(addr4 s 2) rendezvous"
hipd_wait a b || exit 1
registered() { [ "$(hc b --json show servers | jget servers.0.state)" = registered ]; }
check "B registers with S" wait_for "registered" 15 registered

hc a add map "$(hit b)" "$(addr4 s 1)" >/dev/null
check "A reaches B through S (I1 relayed, R1 with VIA_RVS)" hc a trigger "$(hit b)"
check "A <-> B established" wait_up a b 15
check "A reaches B at B's own address" locator_is a b peer_locator "$(addr4 b 2)"

# the new links, up without addresses: each move is one address batch
ip link add va20 netns "$(ns_name a)" type veth peer name vs20 netns "$(ns_name s)"
ip link add vb21 netns "$(ns_name b)" type veth peer name vs21 netns "$(ns_name s)"
nsip s "addr add 10.255.20.2/24 dev vs20" "link set vs20 up" \
	"addr add 10.255.21.2/24 dev vs21" "link set vs21 up"
nsx a ip link set va20 up
nsx b ip link set vb21 up

CAP=$NETNS_TMP/dj.pcap
if command -v tshark >/dev/null; then
	nsx s timeout 60 tcpdump -i any --immediate-mode -U -w "$CAP" ip proto 139 2>/dev/null &
	TCPDUMP=$!
	wait_for "tcpdump running" 5 test -s "$CAP"
fi
echo "# A and B move at the same moment, during a stream A -> B"
check "stream A -> B running" stream_begin a b
# the old networks die first (both hosts leave them): nothing sent to an
# old address arrives any more, whoever moves first
for old in "$(addr4 a 1)" "$(addr4 b 2)"; do
	ipt s -I FORWARD -d "$old" -j DROP
	ipt s -I OUTPUT -d "$old" -j DROP
done
nsip a "addr add 10.255.20.1/24 dev va20" "addr del $(addr4 a 1)/24 dev va1" \
	"route replace default via 10.255.20.2" &
MA=$!
nsip b "addr add 10.255.21.1/24 dev vb21" "addr del $(addr4 b 2)/24 dev vb2" \
	"route replace default via 10.255.21.2" &
MB=$!
wait "$MA" "$MB"     # (a bare wait would wait for lib.sh's reaper too)
check "B tells S where it is now" wait_for "S follows B" 20 locator_is s b peer_locator 10.255.21.1
check "A and B find each other again (double jump)" wait_for "both moved" 30 \
	eval 'moved a b 10.255.20.1 && moved b a 10.255.21.1'
check "A's readdress also went to B's rendezvous server" ge "$(stat_of a update.via_rvs)" 1
check "S relayed it to B (FROM, RVS_HMAC)" ge "$(hc s --json show registrations | jget relayed)" 2
if [ -n "${TCPDUMP:-}" ]; then
	capture_stop "$CAP"; kill "$TCPDUMP" 2>/dev/null; wait "$TCPDUMP" 2>/dev/null
	tlvs() { tshark -r "$CAP" -Y "hip.packet_type == 16 && $1" -T fields -e hip.type \
		2>/dev/null | tr '\n' ' '; }
	check "tshark: S relays A's UPDATE to B with FROM (65498) and RVS_HMAC (65500)" \
		eval 'tlvs "ip.dst == 10.255.21.1 && ip.src != 10.255.20.1" | grep -q "65498,65500"'
	check "tshark: B's ACK to A's new address names S in VIA_RVS (65502)" \
		eval 'tlvs "ip.src == 10.255.21.1 && ip.dst == 10.255.20.1" | grep -q 65502'
fi
check "every byte of the stream arrived" stream_end
check "ping B -> A at the new addresses" nsx b ping -6 -c 2 -W 2 -q "$(hit a)"
check "one association each, ESTABLISHED" eq \
	"$(ha_count a) $(ha_get a "$(hit b)" state) $(ha_get b "$(hit a)" state)" "1 ESTABLISHED ESTABLISHED"
check "no drops on B (the relayed UPDATE was accepted)" eq "$(stat_of b drops.rvs_bad_hmac)" 0
netns_done
