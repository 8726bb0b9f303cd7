#!/bin/bash
# The data relay (RFC 9028 §4.12, §5.12-5.13; docs/decisions.md D-29): A and B
# sit behind symmetric NATs (MASQUERADE --random-fully: every destination
# gets another public port, so no connectivity check between them can
# work) that forward only TCP, UDP and ICMP; IPv4 only. S offers the
# control relay and the data relay (offer_services = relay relay-esp); A
# and B register for both. A reaches B knowing only B's HIT and S's
# address: the base exchange goes through S, A's and B's candidates include
# their relayed addresses (S's address and a port of S's own), each asks S
# to let the other in (PEER_PERMISSION), and the checks find the pair
# through S. ESP then goes through S, which counts what it passed on.
# Without the data relay the association is closed after the checks fail
# (tests/netns/nat-ice-dual.sh's first part shows the same NATs).
#
#   a (10.255.10.1) -- na --+
#                           s (router; relay on 198.51.100.1, 203.0.113.1)
#   b (10.255.11.1) -- nb --+
. "$(dirname "$0")/lib.sh"

dual_nat_topology || exit 1
CONF=("listen_v6 = no")
hipd_start s "${CONF[@]}" "offer_services = relay relay-esp" "relay_esp_port = 10600" \
	"relay_esp_ports = 4" || exit 1
check "S opened its data relay ports" grep -q "data relay (relay-esp): UDP ports 10600-10603" \
	"$NETNS_TMP/s/hipd.log"
hipd_launch a "${CONF[@]}" "server = $(hit s) $S_PUB relay relay-esp"
hipd_launch b "${CONF[@]}" "server = $(hit s) $S_PUB2 relay relay-esp"
hipd_wait a b || exit 1
both_relayed() {
	hc "$1" --json show servers | python3 -c 'import json,sys
s = json.load(sys.stdin)["servers"][0]
sys.exit(not (s["state"] == "registered" and "relay-esp" in s["granted"]))'
}
check "A and B hold relay and relay-esp at S" wait_for "registered" 15 \
	eval 'both_relayed a && both_relayed b'
check "A learnt its relayed address" grep -q "our relayed address (data relay) is port 1060" \
	"$NETNS_TMP/a/hipd.log"
hc a add map "$(hit b)" "$S_PUB" >/dev/null
check "A triggers B knowing only S's address" hc a trigger "$(hit b)"
check "A <-> B established" wait_up a b 15
data_path() { [ "$(ha_get "$1" "$(hit "$2")" path)" = data-relay ]; }
check "checks done on both sides: show associations says data-relay" wait_for "relayed pair" 25 \
	eval 'data_path a b && data_path b a'
check "A's log names the data relay" grep -q "connectivity checks done in [0-9]* ms: through the data relay" \
	"$NETNS_TMP/a/hipd.log"
if [ -n "${DR_DEBUG:-}" ]; then
	hc s show registrations | tail -3; hc a show associations; hc b show associations
	grep -h "drop" "$NETNS_TMP"/{a,b}/hipd.log | sort | uniq -c | sort -rn | head -20
fi
at_s() { case $(ha_get "$1" "$(hit "$2")" peer_locator) in "$S_PUB"|"$S_PUB2") ;; *) return 1;; esac; }
check "A reaches B at one of S's addresses (a relayed pair)" at_s a b
check "B reaches A at one of S's addresses" at_s b a
check "ping A -> B between HITs" ping_until a "$(hit b)" 10
check "ping B -> A on the same association" nsx b ping -6 -c 2 -W 2 -q "$(hit a)"
check "2 MB TCP A -> B between HITs, checksums equal" tcp_transfer a b 2000000 60
dr() { hc s --json show registrations | jget "data_relay.$1"; }
echo "# S's data relay passed on $(dr forwarded) packets, $(dr bytes) bytes"
check "S passed the stream on (>= 2 MB)" ge "$(dr bytes)" 2000000
check "S's show registrations: one port each held, permissions taken" \
	eq "$(dr used) $(( $(dr permissions) > 0 ))" "2 1"
check "no association closed" eval '! grep -q "closing the association" \
	"$NETNS_TMP/a/hipd.log" "$NETNS_TMP/b/hipd.log"'
netns_done
