#!/bin/bash
# peer_policy = known: b answers only HITs in its hosts map. An unmapped
# HIT's I1 (from c) and I2 (from a, unmapped between its R1 and I2) are
# refused and counted as policy_denied; no association is created. A mapped
# peer, and the same peer once mapped again, gets through.
#
#   a -- b -- c    (a on link 0, c on link 1)
. "$(dirname "$0")/lib.sh"

netns_host a b c
netns_link a b 0; netns_link c b 1
hipd_launch a "i2_timeout_ms = 500"
hipd_launch b "peer_policy = known"
hipd_launch c "i1_timeout_ms = 200" "i1_retries = 1"
hipd_wait a b c || exit 1
map a b 0; map c b 1; map b a 0

echo "# the I1 of an unmapped HIT"
check "c triggers towards b" hc c trigger "$(hit b)"
check "c's BEX fails (E-FAILED after its I1 and one retry)" wait_for "c fails" 5 state_is c b E-FAILED
check "b refused both I1s: policy_denied = 2" eq "$(stat_of b drops.policy_denied)" 2
check "b sent no R1 and holds no association" eq "$(stat_of b tx.R1) $(ha_count b)" "0 0"

echo "# the I2 of a HIT unmapped after its I1 was answered"
lose_first b 3
check "a (mapped) triggers towards b" hc a trigger "$(hit b)"
check "a's first I2 is lost on the way" wait_for "I2 lost" 5 eval '[ "$(rule_pkts b INPUT)" = 1 ]'
hc b del map "$(hit a)" >/dev/null
check "the retransmitted I2 is refused: policy_denied = 3" \
	wait_for "I2 refused" 5 eval '[ "$(stat_of b drops.policy_denied)" = 3 ]'
check "b holds no association, a is still in I2-SENT" \
	eval '[ "$(ha_count b)" = 0 ] && state_is a b I2-SENT'
map b a 0
check "mapped again, the next I2 retransmission gets through" wait_up a b 10
check "SPIs pair up" spis_match a b
check "no further policy drops" eq "$(stat_of b drops.policy_denied)" 3

netns_done
