#!/bin/bash
# Moving between a NATed and a public network (RFC 8046 over RFC 9028
# §5.1's UDP): A starts behind a Linux MASQUERADE NAT (UDP only through it),
# then during a TCP stream gets a public address (routed by n without
# translation, on a new link) and loses the private one, then moves back
# behind the NAT during a second stream.
# Each move is an UPDATE over UDP from the new address; B checks the address
# (ECHO_REQUEST_SIGNED) at the port the UPDATE came from, and ESP in UDP
# follows. Behind the NAT the UPDATE's source is none of A's locators (A
# lists its private address): B checks the NAT's address and port instead. No byte of either stream is lost.
#
#   a (10.255.10.1) --- n (NAT) --- b (198.51.100.2);  later a (203.0.113.1) --- n (router)
. "$(dirname "$0")/lib.sh"

netns_host a n b
netns_link a n 10
netns_link n b 1
nsx n sysctl -qw net.ipv4.ip_forward=1
ipt n -t nat -A POSTROUTING -s 10.0.0.0/8 -o vn1 -p udp -j MASQUERADE --to-ports 20000-20999
ipt n -A FORWARD -p 139 -j DROP
ipt n -A FORWARD -p 50 -j DROP
nsx a ip route add default via "$(addr4 n 10)"
nsx b ip route add 203.0.113.0/24 via "$(addr4 n 1)"
B4=$(addr4 b 1)

hipd_launch a "listen_v6 = no"
hipd_launch b "listen_v6 = no"
hipd_wait a b || exit 1
hc a add map "$(hit b)" "$B4" >/dev/null
check "A triggers B" hc a trigger "$(hit b)"
check "A <-> B established through the NAT, over UDP" wait_up a b 15
NATPORT=$(ha_get b "$(hit a)" peer_port)
check "B reaches A at the NAT's port" eval '[ "$NATPORT" -ge 20000 ] && [ "$NATPORT" -le 20999 ]'

echo "# A moves to a public address during a stream"
check "stream A -> B running" stream_begin a b
# the new link comes up without an address: the move is one address batch
ip link add va2 netns "$(ns_name a)" type veth peer name vn2 netns "$(ns_name n)"
nsip n "addr add 203.0.113.2/24 dev vn2" "link set vn2 up"
nsx a ip link set va2 up
nsip a "addr add 203.0.113.1/24 dev va2" "addr del $(addr4 a 10)/24 dev va10" \
	"route replace default via 203.0.113.2"
check "B follows A to its public address" wait_for "moved out" 20 \
	locator_is b a peer_locator 203.0.113.1
check "... still over UDP, to A's own port 10500" eq "$(ha_get b "$(hit a)" transport peer_port)" "udp 10500"
check "every byte of the stream arrived" stream_end

echo "# and back behind the NAT"
check "stream A -> B running" stream_begin a b
nsip a "addr add $(addr4 a 10)/24 dev va10" "addr del 203.0.113.1/24 dev va2" \
	"route replace default via $(addr4 n 10)"
check "B follows A behind the NAT again" wait_for "moved back" 20 \
	locator_is b a peer_locator "$(addr4 n 1)"
P=$(ha_get b "$(hit a)" peer_port)
check "... at the NAT's port" eval '[ "$P" -ge 20000 ] && [ "$P" -le 20999 ]'
check "every byte of the stream arrived" stream_end
check "ping B -> A" nsx b ping -6 -c 2 -W 2 -q "$(hit a)"
check "one association each" eq "$(ha_count a) $(ha_count b)" "1 1"
check "the association survived both moves (no CLOSE, no new base exchange)" \
	eval '! grep -q "ESTABLISHED -> CLOSING" "$NETNS_TMP/a/hipd.log" "$NETNS_TMP/b/hipd.log"'
netns_done
