#!/bin/bash
# A host behind a NAT stays reachable through a rendezvous server (RFC 8004
# over RFC 9028 §5.1's UDP): B sits behind a Linux MASQUERADE NAT (n) that
# forwards only TCP, UDP and ICMP. B registers with the public server S
# over UDP (its registration's association keeps the NAT's mapping alive).
# A, public, knows only B's HIT and S's address: S relays A's I1 to B over
# B's UDP path, B answers A directly over UDP (VIA_RVS), and A and B then
# talk over UDP through the NAT without S.
#
#   a (198.51.100.2) --- s (router + server) --- (203.0.113.2) n --- b (10.255.10.1)
. "$(dirname "$0")/lib.sh"

netns_host s a n b
netns_link s a 1
netns_link s n 2
netns_link b n 10
nsx s sysctl -qw net.ipv4.ip_forward=1
nsx n sysctl -qw net.ipv4.ip_forward=1
ipt n -t nat -A POSTROUTING -o vn2 -j MASQUERADE
ipt n -A FORWARD -p 139 -j DROP
ipt n -A FORWARD -p 50 -j DROP
nsx a ip route add default via "$(addr4 s 1)"
nsx n ip route add default via "$(addr4 s 2)"
nsx b ip route add default via "$(addr4 n 10)"

hipd_start s "offer_services = rendezvous" "listen_v6 = no" || exit 1
hipd_launch a "listen_v6 = no"
hipd_launch b "listen_v6 = no" "server = $(hit s) $(addr4 s 2) rendezvous"
hipd_wait a b || exit 1

registered() { [ "$(hc b --json show servers | jget servers.0.state)" = registered ]; }
check "B registers with S through the NAT" wait_for "registered" 15 registered
check "B's association with S runs over UDP" eq "$(ha_get b "$(hit s)" transport)" udp
check "S reaches B at the NAT's address" locator_is s b peer_locator "$(addr4 n 2)"

hc a add map "$(hit b)" "$(addr4 s 1)" >/dev/null
check "A triggers B through S" hc a trigger "$(hit b)"
check "A <-> B established" wait_up a b 15
check "S relayed the I1" ge "$(hc s --json show registrations | jget relayed)" 1
check "A reaches B at the NAT's address, over UDP" \
	eq "$(ha_get a "$(hit b)" peer_locator transport)" "$(addr4 n 2) udp"
check "ping A -> B between the HITs" nsx a ping -6 -c 3 -W 2 -q "$(hit b)"
check "ping B -> A" nsx b ping -6 -c 3 -W 2 -q "$(hit a)"
check "5 MB over TCP A -> B, SHA-256 equal" tcp_transfer a b $((5 << 20))
check "no raw HIP or ESP reached the NAT's drop rules" \
	eq "$(rule_pkts n FORWARD) $(ipt n -L FORWARD 2 -v -x -n | awk '{print $1; exit}')" "0 0"
check "no drops on A, B and S" eq "$(drops_total a) $(drops_total b) $(drops_total s)" "0 0 0"
netns_done
