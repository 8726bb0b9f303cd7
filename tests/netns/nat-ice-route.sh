#!/bin/bash
# A route change alone moves an ICE association (RFC 9028 §4.9): B has two
# uplinks, each behind its own NAT (nb and nd, both forwarding only TCP,
# UDP and ICMP), with an address on each, and its default route through
# nb. A is behind na; both reach each other through S's control relay and
# connectivity checks. During a stream A -> B, B's default route moves to
# nd while its addresses stay: no address event comes, yet nothing of the
# old path is left (A's NAT drops what comes from nd, nb gets nothing of
# B's any more). B re-announces from its address on nd's link, the
# UPDATE reaches A through S, both run their checks again, and ESP moves
# to the new pair. The stream loses no byte. Then the route moves back.
#
#   a (10.255.10.1) -- na (198.51.100.2) --+
#                                          s (router, relay: 198.51.100.1, 203.0.113.1)
#   b (10.255.11.1) -- nb (203.0.113.2) ---+
#   b (10.255.13.1) -- nd (10.255.20.2) ---+
. "$(dirname "$0")/lib.sh"

netns_host s a na b nb nd
netns_link s na 1
netns_link s nb 2
netns_link s nd 20
netns_link a na 10
netns_link b nb 11
netns_link b nd 13
NA_PUB=$(addr4 na 1)
NB_PUB=$(addr4 nb 2)
ND_PUB=$(addr4 nd 20)
S_PUB=$(addr4 s 1)
S_PUB2=$(addr4 s 2)
B_OLD=$(addr4 b 11)
B_NEW=$(addr4 b 13)

nsx s sysctl -qw net.ipv4.ip_forward=1
nsx na ip route add default via "$S_PUB"
nsx nb ip route add default via "$S_PUB2"
nsx nd ip route add default via "$(addr4 s 20)"
nsx a ip route add default via "$(addr4 na 10)"
nsx b ip route add default via "$(addr4 nb 11)"
# NAT routers: nat_router in lib.sh (no HIP or ESP forwarded)
nat_router na vna1
nat_router nb vnb2
nat_router nd vnd20

ice_relay_up "$S_PUB" "$S_PUB2" || exit 1
check "A reaches B at nb" eq "$(ha_get a "$(hit b)" peer_locator)" "$NB_PUB"
check "B sends from its address behind nb" eq "$(ha_get b "$(hit a)" local_locator)" "$B_OLD"

# move_route VIA NAT_PUB B_ADDR: B's default route to VIA, addresses unchanged
move_route() {
	local moves
	moves=$(stat_of b nat.route_moves)
	check "stream A -> B running" stream_begin a b
	nsx b ip route replace default via "$1"
	local t0
	t0=$(date +%s.%N)
	WANT="$2 direct"
	check "A follows B behind $2, direct" wait_for "B at $2" 20 \
		eval '[ "$(ha_get a "$(hit b)" peer_locator path)" = "$WANT" ]'
	echo "# new pair after $(awk "BEGIN { printf \"%.2f\", $(date +%s.%N) - $t0 }") s"
	check "B sends from $3 (its address on the new route's link)" \
		eq "$(ha_get b "$(hit a)" local_locator)" "$3"
	check "every byte of the stream arrived" stream_end
	check "show stats counts the re-announcement (nat.route_moves)" \
		ge "$(stat_of b nat.route_moves)" $((moves + 1))
}

echo "# B's default route moves from nb to nd; both addresses stay"
SECS=5 RATE=262144
move_route "$(addr4 nd 13)" "$ND_PUB" "$B_NEW"
check "B logged the route change" \
	grep -q "the default route changed: re-announcing from $B_NEW" "$NETNS_TMP/b/hipd.log"
check "A restarted its checks on B's UPDATE" grep -q "ICE restart (the peer moved" \
	"$NETNS_TMP/a/hipd.log"
check "ping B -> A" nsx b ping -6 -c 2 -W 2 -q "$(hit a)"

echo "# and back to nb"
move_route "$(addr4 nb 11)" "$NB_PUB" "$B_OLD"
check "ping A -> B" ping_until a "$(hit b)" 10
check "one association each, ESTABLISHED, never closed" \
	eval '! grep -q "ESTABLISHED -> CLOSING" "$NETNS_TMP/a/hipd.log" "$NETNS_TMP/b/hipd.log" &&
	      [ "$(ha_get a "$(hit b)" state) $(ha_get b "$(hit a)" state)" = "ESTABLISHED ESTABLISHED" ]'
grep -h "default route\|ICE restart\|connectivity checks" "$NETNS_TMP"/{a,b}/hipd.log |
	sed 's/^/# /' | head -12
netns_done
