#!/bin/bash
# RFC 9028 registrations as a user sees them, on a server S that offers
# rendezvous, the control relay and candidate discovery:
#  - candidate discovery: B, behind a Linux MASQUERADE NAT (n, UDP mapped
#    to ports 20000-20999), registers for CANDIDATE_DISCOVERY only with
#    hipconf add server; S answers with REG_FROM, and B's show servers
#    shows its server-reflexive address: the NAT's public address and the
#    port S sees; B then reaches the public A over the NAT;
#  - failure type 9: A asks S for rendezvous and relay at once (hipd.conf
#    server line); S grants the relay and refuses rendezvous with
#    REG_FAILED type 9 (docs/decisions.md D-8): A's show servers and log
#    name it, S counts it (refused_simultaneous).
#
#   a (198.51.100.2) --- s (router + server) --- (203.0.113.2) n --- b (10.255.10.1)
. "$(dirname "$0")/lib.sh"

netns_host s a n b
netns_link s a 1
netns_link s n 2
netns_link b n 10
nsx s sysctl -qw net.ipv4.ip_forward=1
nsx n sysctl -qw net.ipv4.ip_forward=1
ipt n -t nat -A POSTROUTING -o vn2 -p udp -j MASQUERADE --to-ports 20000-20999
ipt n -t nat -A POSTROUTING -o vn2 -j MASQUERADE
ipt n -A FORWARD -p 139 -j DROP
ipt n -A FORWARD -p 50 -j DROP
nsx a ip route add default via "$(addr4 s 1)"
nsx n ip route add default via "$(addr4 s 2)"
nsx b ip route add default via "$(addr4 n 10)"

hipd_start s "offer_services = rendezvous relay candidate-discovery" "listen_v6 = no" || exit 1
hipd_launch a "listen_v6 = no" "server = $(hit s) $(addr4 s 1) rendezvous relay"
hipd_launch b "listen_v6 = no"
hipd_wait a b || exit 1

srv() { local n=$1; shift; hc "$n" --json show servers | jget "${@/#/servers.0.}"; }
regs() { hc s --json show registrations | jget "$@"; }
srv_settled() { case $(srv "$1" state) in registered|refused) return 0;; esac; return 1; }

echo "# candidate discovery: B behind the NAT learns its reflexive address"
check "hipconf add server ... candidate-discovery on B" \
	hc b add server "$(hit s)" "$(addr4 s 2)" candidate-discovery
check "B registers with S through the NAT" wait_for "B registered" 15 srv_settled b
check "B: registered, candidate-discovery granted, nothing refused" \
	eq "$(srv b state granted)" "registered candidate-discovery"
check "B: no failure" eq "$(hc b --json show servers | jget servers.0.failed)" "[]"
check "B's association with S runs over UDP" eq "$(ha_get b "$(hit s)" transport)" udp
nat_port=$(ha_get s "$(hit b)" peer_port)
check "S sees B at a port of the NAT's range" \
	eval '[ "$nat_port" -ge 20000 ] && [ "$nat_port" -le 20999 ]'
check "B shows its reflexive address: the NAT's public address and that port (REG_FROM)" \
	eq "$(srv b reflexive reflexive_port)" "$(addr4 n 2) $nat_port"
check "B's show servers text names it" eval \
	'hc b show servers | grep -q "seen as $(addr4 n 2) port $nat_port"'
check "S holds B's candidate-discovery registration" \
	eval 'hc s show registrations | grep -q "candidate-discovery (expires in"'
hc b add map "$(hit a)" "$(addr4 a 1)" >/dev/null
check "B triggers the public A" hc b trigger "$(hit a)"
check "A <-> B established over the NAT" wait_up b a 15
check "A reaches B at the NAT's address, over UDP" \
	eq "$(ha_get a "$(hit b)" peer_locator) $(ha_get a "$(hit b)" transport)" "$(addr4 n 2) udp"
check "ping B -> A between the HITs" nsx b ping -6 -c 2 -W 2 -q "$(hit a)"
check "ping A -> B on the same association" nsx a ping -6 -c 2 -W 2 -q "$(hit b)"

echo "# failure type 9: A asks for rendezvous and relay at once"
check "A's registration with S settles" wait_for "A settled" 15 srv_settled a
check "A: registered for the relay only" eq "$(srv a state granted)" "registered relay"
check "A: rendezvous refused with failure type 9 and its reason" \
	eq "$(srv a failed.0.service failed.0.failure_type)" "rendezvous 9"
check "A: the reason" eq "$(srv a failed.0.reason)" "simultaneous rendezvous and relay prohibited"
check "A's show servers text names it" eval 'hc a show servers | grep -q \
	"refused rendezvous: simultaneous rendezvous and relay prohibited (failure type 9)"'
check "A logged the refusal" grep -q \
	"refused rendezvous: simultaneous rendezvous and relay prohibited (failure type 9)" \
	"$NETNS_TMP/a/hipd.log"
n9=$(regs refused_simultaneous)
check "S counted it (refused_simultaneous >= 1, all of its refusals)" \
	eval '[ "$n9" -ge 1 ] && [ "$(regs refused)" = "$n9" ]'
check "S's show registrations text counts it" \
	eval 'hc s show registrations | grep -q "refused $n9 (rendezvous with relay $n9)"'
a_line() { hc s show registrations | grep -F "$(hit a)"; }
check "S holds A's relay registration, not rendezvous" eval \
	'a_line | grep -q "relay (expires" && ! a_line | grep -q "rendezvous (expires"'
check "S granted two registrations in all (B's, A's relay)" eq "$(regs granted)" 2

netns_done
