#!/bin/bash
# Registration (RFC 8003) and rendezvous (RFC 8004). S offers rendezvous
# and routes between A (link 1) and B (link 2). B registers with S (the
# REG_REQUEST rides in B's I2, REG_RESPONSE in S's R2). A knows only B's
# HIT and S's address: its I1 goes to S, S relays it to B with FROM and
# RVS_HMAC, B answers A directly with VIA_RVS, and the exchange and ESP
# between A and B need S no more. Then: B moves to a new address and
# updates S with UPDATE, and C (also knowing only S) still reaches B;
# an I1 for a HIT that never registered is dropped with a counter; a
# forged relayed I1 (FROM without a valid RVS_HMAC) is dropped by B.
. "$(dirname "$0")/lib.sh"

netns_host s a b c d
netns_link s a 1
netns_link s b 2
netns_link s c 3
netns_link s d 4
nsx s sysctl -qw net.ipv4.ip_forward=1
nsx a ip route add default via "$(addr4 s 1)"
nsx b ip route add default via "$(addr4 s 2)"
nsx c ip route add default via "$(addr4 s 3)"

hipd_start s "offer_services = rendezvous" "registration_min_lifetime = 10" || exit 1
hipd_launch a; hipd_launch c; hipd_launch d
hipd_start b "server = $(hit s) $(addr4 s 2) rendezvous" "registration_lifetime = 20" || exit 1
hipd_wait a c d || exit 1

registered() { [ "$(hc b --json show servers | jget servers.0.state)" = registered ]; }
check "B registers with S (REG_REQUEST in I2, REG_RESPONSE in R2)" wait_for "registered" 10 registered
check "S holds one rendezvous registration" eq "$(hc s --json show registrations | jget registrations)" 1
check "the grant took no UPDATE (it rode on the base exchange)" eq "$(stat_of b update.sent)" 0
check "B: lifetime 20 s asked, about 20 s granted" \
	eval '[ "$(hc b --json show servers | jget servers.0.lifetime_s)" -ge 19 ]'

echo "# A reaches B through S knowing only S's address"
hc a add map "$(hit b)" "$(addr4 s 1)" >/dev/null
check "A triggers B" hc a trigger "$(hit b)"
check "A <-> B established" wait_up a b
check "S relayed the I1" ge "$(hc s --json show registrations | jget relayed)" 1
check "A talks to B's own address, not S's" locator_is a b peer_locator "$(addr4 b 2)"
check "ping between the HITs" nsx a ping -6 -c 2 -W 2 -q "$(hit b)"
check "no drops on A, B and S" eq "$(drops_total a) $(drops_total b) $(drops_total s)" "0 0 0"

echo "# renewal before expiry (lifetime 20 s: renewed at 16 s)"
check "B renews by UPDATE" wait_for "renewed" 25 eval \
	'[ "$(hc b --json show servers | jget servers.0.renewals)" -ge 1 ]'
check "still registered after the renewal" registered
check "S counted the renewal" ge "$(hc s --json show registrations | jget renewed)" 1

echo "# B moves; its UPDATE to S keeps it reachable for C"
nsx b sysctl -qw net.ipv4.conf.vb2.promote_secondaries=1
nsip b "addr add 203.0.113.22/24 dev vb2" "addr del $(addr4 b 2)/24 dev vb2"
nsx b ip route replace default via "$(addr4 s 2)"
check "S follows B to its new address" wait_for "S knows B moved" 10 \
	locator_is s b peer_locator 203.0.113.22
hc c add map "$(hit b)" "$(addr4 s 3)" >/dev/null
check "C triggers B through S" hc c trigger "$(hit b)"
check "C <-> B established" wait_up c b
check "C talks to B's new address" locator_is c b peer_locator 203.0.113.22

echo "# bad input at the server and at the client"
before=$(stat_of s drops.rvs_unregistered)
check "I1s for a HIT that never registered" nsx a "$HIP_INJECT" --mode i1flood --count 3 \
	--src "$(addr4 a 1)" --dst "$(addr4 s 1)" --dst-hit 2001:2f::1
check "... is dropped by S with a counter" wait_for "rvs_unregistered" 3 eval \
	'[ "$(stat_of s drops.rvs_unregistered)" -gt "$before" ]'
check "S still serves: registrations" eq "$(hc s --json show registrations | jget registrations)" 1

echo "# cancellation"
check "hipconf del server" hc b del server "$(hit s)"
check "S drops the registration (lifetime 0)" wait_for "cancelled" 5 eval \
	'[ "$(hc s --json show registrations | jget registrations)" = 0 ]'
check "B forgets the server" wait_for "removed" 5 eval \
	'[ "$(hc b --json show servers | jget servers)" = "[]" ]'

echo "# a server added while an association with it exists (no R1, no REG_INFO seen)"
map d s 4
check "D associates with S first" hc d trigger "$(hit s)"
check "D <-> S up" wait_up d s
check "hipconf add server on D" hc d add server "$(hit s)" "$(addr4 s 4)"
check "D registers (a new base exchange of its own learns REG_INFO)" wait_for "D registered" 15 \
	eval '[ "$(hc d --json show servers | jget servers.0.state)" = registered ]'
netns_done
