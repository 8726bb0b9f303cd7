#!/bin/bash
# ICE restart on mobility (RFC 9028 §4.9): A and B each behind a NAT that
# forwards only TCP, UDP and ICMP (as nat2.sh), reach each other through S's
# control relay and connectivity checks. During a TCP stream A -> B, A moves
# from behind NAT na to behind another NAT nc (new private address, new
# public address). A's UPDATE with its new host candidate goes to B directly
# (B's NAT drops it: nothing of B's went to nc yet) and through S, which
# relays it to B with RELAY_FROM (nc's address: A's server-reflexive one);
# B ACKs both ways and restarts its checks, A restarts its own on the ACK,
# the checks punch through nb and nc, and ESP moves to the new pair. The
# stream loses no byte. Then A moves back behind na with its first UPDATEs
# lost (retransmissions carry it), and at last A (to nc) and B (to a third
# NAT nd) move at once: each one's UPDATE reaches the other only through S,
# after S followed both. Last, B alone moves back (the controlled side
# moving: A restarts on B's UPDATE and nominates).
# A move is what DHCP on a new network does: the new address, the default
# route through the new NAT, then the old address goes (hipd re-announces on
# address changes, not on a route change alone).
#
#   a (10.255.10.1) -- na (198.51.100.2) --+
#     (10.255.12.1, after the move)        s (router, relay: 198.51.100.1, 203.0.113.1, 192.0.2.1)
#   a ---------------- nc (192.0.2.2) -----+
#   b (10.255.11.1) -- nb (203.0.113.2) ---+
#   b (10.255.13.1) -- nd (10.255.20.2) ---+   (B's move, phase 3)
. "$(dirname "$0")/lib.sh"

netns_host s a na nc nd b nb
netns_link s na 1
netns_link s nb 2
netns_link s nc 0
netns_link s nd 20
netns_link a na 10
netns_link b nb 11
netns_link a nc 12
netns_link b nd 13
A_NEW=$(addr4 a 12)
B_NEW=$(addr4 b 13)
ND_PUB=$(addr4 nd 20)
nsx a ip addr flush dev va12          # the addresses behind nc and nd come with the moves
nsx b ip addr flush dev vb13
NA_PUB=$(addr4 na 1)
NB_PUB=$(addr4 nb 2)
NC_PUB=$(addr4 nc 0)
S_PUB=$(addr4 s 1)
S_PUB2=$(addr4 s 2)

nsx s sysctl -qw net.ipv4.ip_forward=1
nsx na ip route add default via "$S_PUB"
nsx nb ip route add default via "$S_PUB2"
nsx nc ip route add default via "$(addr4 s 0)"
nsx nd ip route add default via "$(addr4 s 20)"
nsx a ip route add default via "$(addr4 na 10)"
nsx b ip route add default via "$(addr4 nb 11)"
# NAT routers: nat_router in lib.sh (no HIP or ESP forwarded)
nat_router na vna1
nat_router nb vnb2
nat_router nc vnc0
nat_router nd vnd20

ice_relay_up "$S_PUB" "$S_PUB2" || exit 1
check "B reaches A at na" eq "$(ha_get b "$(hit a)" peer_locator transport)" "$NA_PUB udp"
started_a=$(stat_of a nat.ice_started) started_b=$(stat_of b nat.ice_started)

echo "# A moves from behind na to behind nc during a stream A -> B"
check "stream A -> B running" stream_begin a b
nsip a "addr add $A_NEW/24 dev va12" "route replace default via $(addr4 nc 12)" \
	"addr del $(addr4 a 10)/24 dev va10"
t0=$(date +%s.%N)
at_nc() { [ "$(ha_get b "$(hit a)" peer_locator path)" = "$NC_PUB direct" ] &&
	  [ "$(ha_get a "$(hit b)" local_locator path)" = "$A_NEW direct" ]; }
check "B follows A behind nc, direct (new checks nominated a pair)" wait_for "at nc" 20 at_nc
echo "# new pair after $(awk "BEGIN { printf \"%.2f\", $(date +%s.%N) - $t0 }") s"
check "... over UDP, to nc's port 10500" eq "$(ha_get b "$(hit a)" transport peer_port)" "udp 10500"
check "A still sends to B at nb" eq "$(ha_get a "$(hit b)" peer_locator)" "$NB_PUB"
check "every byte of the stream arrived" stream_end
check "both ran their checks again (nat.ice_started)" \
	eval '[ "$(stat_of a nat.ice_started)" -gt "$started_a" ] &&
	      [ "$(stat_of b nat.ice_started)" -gt "$started_b" ]'
check "show stats counts the restarts and A's new pair (nat.ice_restarts_done)" \
	eval '[ "$(stat_of a nat.ice_restarts)" -ge 1 ] && [ "$(stat_of b nat.ice_restarts)" -ge 1 ] &&
	      [ "$(stat_of a nat.ice_restarts_done)" -ge 1 ]'
check "A and B logged the restart" eval 'grep -q "ICE restart (we moved)" "$NETNS_TMP/a/hipd.log" &&
	grep -q "ICE restart (the peer moved" "$NETNS_TMP/b/hipd.log"'
check "A logged the new pair" grep -q "connectivity checks done.* after a restart: direct over UDP to $NB_PUB" \
	"$NETNS_TMP/a/hipd.log"
check "S follows A behind nc too (the NAT's address checked)" \
	wait_for "S at nc" 10 locator_is s a peer_locator "$NC_PUB"
reflexive() { [ "$(hc "$1" --json show servers | jget servers.0.reflexive)" = "$2" ]; }
check "A renewed its registration at once: S sees it at nc (its new reflexive address)" \
	wait_for "A's reflexive address at nc" 10 reflexive a "$NC_PUB"
check "A logged the renewal" grep -q "we moved: renewing the registration" "$NETNS_TMP/a/hipd.log"
check "ping B -> A" nsx b ping -6 -c 2 -W 2 -q "$(hit a)"
check "one association A <-> B each, ESTABLISHED" \
	eq "$(ha_get a "$(hit b)" state) $(ha_get b "$(hit a)" state)" "ESTABLISHED ESTABLISHED"
check "no base exchange again: no CLOSE on either side" \
	eval '! grep -q "ESTABLISHED -> CLOSING" "$NETNS_TMP/a/hipd.log" "$NETNS_TMP/b/hipd.log"'

echo "# A moves back behind na; its first UPDATEs to B and to S are lost"
# HIP UPDATE (type 16) over UDP: after the UDP header and the 32 zero bits
upd_u32="0>>22&0x3C@12>>8&0x7F=16"
for dst in "$NB_PUB" "$S_PUB" "$S_PUB"; do
	ipt na -I FORWARD -d "$dst" -p udp -m u32 --u32 "$upd_u32" \
		-m statistic --mode nth --every 1000000000 --packet 0 -j DROP
done
restarts_b=$(grep -c "ICE restart" "$NETNS_TMP/b/hipd.log")
nsip a "addr add $(addr4 a 10)/24 dev va10" "route replace default via $(addr4 na 10)" \
	"addr del $A_NEW/24 dev va12"
check "B follows A behind na again, direct" wait_for "back at na" 20 \
	eval '[ "$(ha_get b "$(hit a)" peer_locator path)" = "$NA_PUB direct" ]'
check "na dropped A's first UPDATEs (to B and to S)" \
	eq "$(ipt na -L FORWARD -v -x -n | awk '$3 == "DROP" && $9 != "0.0.0.0/0" {n += $1} END {print n}')" 3
check "B restarted its checks once more" ge "$(grep -c "ICE restart" "$NETNS_TMP/b/hipd.log")" \
	$((restarts_b + 1))
check "ping A -> B after the move back" ping_until a "$(hit b)" 10

echo "# A (to nc) and B (to nd) move at once during a stream A -> B"
SECS=5 RATE=262144
check "stream A -> B running" stream_begin a b
nsip a "addr add $A_NEW/24 dev va12" "route replace default via $(addr4 nc 12)" \
	"addr del $(addr4 a 10)/24 dev va10" &
nsip b "addr add $B_NEW/24 dev vb13" "route replace default via $(addr4 nd 13)" \
	"addr del $(addr4 b 11)/24 dev vb11"
wait $!
t0=$(date +%s.%N)
both_new() { [ "$(ha_get b "$(hit a)" peer_locator path)" = "$NC_PUB direct" ] &&
	     [ "$(ha_get a "$(hit b)" peer_locator path)" = "$ND_PUB direct" ]; }
check "A and B find each other behind nc and nd, direct" wait_for "both moved" 25 both_new
echo "# new pair after $(awk "BEGIN { printf \"%.2f\", $(date +%s.%N) - $t0 }") s"
check "every byte of the stream arrived" stream_end
check "still one association A <-> B, ESTABLISHED" \
	eq "$(ha_get a "$(hit b)" state) $(ha_get b "$(hit a)" state)" "ESTABLISHED ESTABLISHED"
check "still no CLOSE on either side" \
	eval '! grep -q "ESTABLISHED -> CLOSING" "$NETNS_TMP/a/hipd.log" "$NETNS_TMP/b/hipd.log"'

echo "# B alone (the Responder, controlled side) moves back behind nb"
nsip b "addr add $(addr4 b 11)/24 dev vb11" "route replace default via $(addr4 nb 11)" \
	"addr del $B_NEW/24 dev vb13"
check "A follows B behind nb, direct" wait_for "B back at nb" 20 \
	eval '[ "$(ha_get a "$(hit b)" peer_locator path)" = "$NB_PUB direct" ]'
check "ping A -> B after B's move" ping_until a "$(hit b)" 10
check "still no CLOSE, one association each with the other" \
	eval '! grep -q "ESTABLISHED -> CLOSING" "$NETNS_TMP/a/hipd.log" "$NETNS_TMP/b/hipd.log" &&
	      [ "$(ha_get a "$(hit b)" state) $(ha_get b "$(hit a)" state)" = "ESTABLISHED ESTABLISHED" ]'
grep -h "ICE restart\|connectivity checks\|behind a NAT\|verified" "$NETNS_TMP"/{a,b,s}/hipd.log | sed 's/^/# /' | head -20
netns_done
