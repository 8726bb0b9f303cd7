#!/bin/bash
# Connectivity checks in both address families (RFC 9028 §4.2, §4.6; RFC
# 8421 §4): A and B are dual-stack hosts behind home routers. Over IPv4
# each router is a symmetric NAT (MASQUERADE --random-fully: every new
# destination gets another public port, so IPv4 hole punching cannot work);
# over IPv6 it routes, with the usual stateful firewall (nothing
# unsolicited from the WAN). Neither forwards HIP (139) or ESP (50). S, the
# relay server, is reached over IPv4 only.
#
#   a (10.255.10.1, fd00:10::1) -- na --+
#                                       s (router; relay on 198.51.100.1, 203.0.113.1)
#   b (10.255.11.1, fd00:11::1) -- nb --+
#
# The base exchange goes through S over IPv4; the candidates in the I2 and
# R2 include each host's IPv6 address; the checks find the IPv6 pair (the
# IPv4 ones fail behind the symmetric NATs) and ESP runs over UDP/IPv6
# straight between A and B. Before both families were checked, the
# association was closed ("no direct path and no data relay").
. "$(dirname "$0")/lib.sh"

dual_nat_topology || exit 1
# what crosses S: UDP over IPv6 between the homes (ESP and checks)
ip6t s -A FORWARD -p udp

echo "# the topology (dual_nat_topology, lib.sh): IPv6 routed, but nothing unsolicited into a home"
check "A reaches S over IPv4 through its NAT" nsx a ping -c 1 -W 2 -q "$S_PUB"
check "A's unsolicited ping to B over IPv6 does not arrive" \
	eval '! nsx a ping -6 -c 1 -W 1 -q "$B6" >/dev/null'
check "B's router dropped it (IPv6 FORWARD, NEW from the WAN)" \
	eq "$(ip6t nb -L FORWARD 3 -v -x -n | awk '{print $1; exit}')" 1
ip6t nb -Z FORWARD

hipd_start s "offer_services = relay" "listen_v6 = no" || exit 1
hipd_launch a "server = $(hit s) $S_PUB relay"
hipd_launch b "server = $(hit s) $S_PUB2 relay"
hipd_wait a b || exit 1
check "A and B register with S for the relay (IPv4)" wait_for "registered" 15 \
	eval 'relay_registered a && relay_registered b'
hc a add map "$(hit b)" "$S_PUB" >/dev/null
check "A triggers B knowing only S's IPv4 address" hc a trigger "$(hit b)"
check "A <-> B established" wait_up a b 15
check "checks done on both sides, direct" wait_for "direct" 20 \
	eval 'ice_direct a b && ice_direct b a'
check "A reaches B at its IPv6 address over UDP" \
	eq "$(ha_get a "$(hit b)" peer_locator transport)" "$B6 udp"
check "B reaches A at its IPv6 address over UDP" \
	eq "$(ha_get b "$(hit a)" peer_locator transport)" "$A6 udp"
check "A sends from its IPv6 address" eq "$(ha_get a "$(hit b)" local_locator)" "$A6"
check "A's log names the IPv6 pair (host candidate)" \
	grep -q "direct over UDP to $B6 port 10500 (host candidate)" "$NETNS_TMP/a/hipd.log"
# the checklist in show associations: the IPv6 pair nominated, B's IPv4
# candidates (its private address, its NAT's as S saw it) never answered
ice_pairs() { hc a --json show associations | python3 -c 'import json,sys
a = [x for x in json.load(sys.stdin)["associations"] if x["peer_hit"] == sys.argv[1]][0]
print(a["ice"]); print("\n".join(a["ice_pairs"]))' "$(hit b)"; }
PAIRS=$(ice_pairs)
echo "$PAIRS" | sed 's/^/# /'
check "show associations: checks completed" eq "$(echo "$PAIRS" | head -1)" completed
check "show associations: the IPv6 pair succeeded and nominated" \
	eval 'echo "$PAIRS" | grep -q -x -F "$A6 -> $B6 port 10500 host succeeded checks 1 nominated" ||
	      echo "$PAIRS" | grep -q -E "^$A6 -> $B6 port 10500 host succeeded checks [0-9]+ nominated\$"'
check "show associations: no IPv4 pair succeeded (symmetric NATs)" \
	eval '! echo "$PAIRS" | grep -E "^[0-9.]+ -> " | grep -q succeeded'
check "hipconf's text lists the pairs" eval 'hc a show associations | grep -q "connectivity checks: completed"'
check "ping A -> B between HITs" ping_until a "$(hit b)" 10
check "2 MB TCP A -> B between HITs, checksums equal" tcp_transfer a b 2000000 60
fwd6=$(ip6t s -L FORWARD 1 -v -x -n | awk '{print $2; exit}')
echo "# S forwarded $fwd6 bytes of UDP over IPv6 between the homes"
check "the data went over IPv6 through S's routing (>= 2 MB of UDP)" ge "$fwd6" 2000000
check "S relayed only the exchange (<= 8 packets)" ge 8 "$(stat_of s nat.relay_forwarded)"
check "no association closed" eval '! grep -q "closing the association" \
	"$NETNS_TMP/a/hipd.log" "$NETNS_TMP/b/hipd.log"'
netns_done
