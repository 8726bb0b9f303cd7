#!/bin/bash
# CLOSE / CLOSE_ACK from each side (RFC 7401 §6.14-6.15): hipconf close on
# the Initiator (a1) and on the Responder (b2), and SIGTERM (a3: hipd closes
# its associations on the way out). The closing side forgets the association
# at the CLOSE_ACK; the other side keeps it CLOSED for UAL + 2 MSL (here
# 1 + 2 s), then none is left. A new BEX works while the peer is still in
# CLOSED (Table 8) and after it expired.
. "$(dirname "$0")/lib.sh"

CONF=("ual_seconds = 1" "msl_seconds = 1")
for p in 1 2 3; do
	netns_host "a$p" "b$p"
	netns_link "a$p" "b$p" 0
	hipd_launch "a$p" "${CONF[@]}"; hipd_launch "b$p" "${CONF[@]}"
done
for p in 1 2 3; do hipd_wait "a$p" "b$p" || exit 1; done
for p in 1 2 3; do
	map "a$p" "b$p"; map "b$p" "a$p"
	hc "a$p" trigger "$(hit "b$p")" >/dev/null
done
for p in 1 2 3; do check "pair $p: BEX completes" wait_up "a$p" "b$p"; done
old_spi=$(ha_get a1 "$(hit b1)" spi_in)

echo "# close from the Initiator (a1) and from the Responder (b2)"
check "hipconf close on the Initiator" hc a1 close "$(hit b1)"
check "hipconf close on the Responder" hc b2 close "$(hit a2)"
check "a1 has no association after the CLOSE_ACK" wait_for "a1 closed" 3 no_ha a1 b1
check "b2 has no association after the CLOSE_ACK" wait_for "b2 closed" 3 no_ha b2 a2
check "b1 is CLOSED" state_is b1 a1 CLOSED
check "a2 is CLOSED" state_is a2 b2 CLOSED
check "a1: one CLOSE out, one CLOSE_ACK in" eq "$(stat_of a1 tx.CLOSE rx.CLOSE_ACK)" "1 1"
check "b1: one CLOSE in, one CLOSE_ACK out" eq "$(stat_of b1 rx.CLOSE tx.CLOSE_ACK)" "1 1"
check "b2: one CLOSE out, one CLOSE_ACK in" eq "$(stat_of b2 tx.CLOSE rx.CLOSE_ACK)" "1 1"
check "no drops in pairs 1 and 2" eq "$(drops_total a1) $(drops_total b1) $(drops_total a2) $(drops_total b2)" "0 0 0 0"

echo "# a new BEX while the peer is still CLOSED"
check "a1 triggers again" hc a1 trigger "$(hit b1)"
check "the new BEX completes (b1 answered from CLOSED)" wait_up a1 b1
check "new SPIs" eval '[ "$(ha_get a1 "$(hit b1)" spi_in)" != "$old_spi" ] && spis_match a1 b1'

echo "# SIGTERM closes the associations"
check "hipd a3 exits 0 on SIGTERM" hipd_stop a3
check "b3 got the CLOSE and is CLOSED" wait_for "b3 CLOSED" 2 state_is b3 a3 CLOSED
check "b3 answered it" eq "$(stat_of b3 rx.CLOSE tx.CLOSE_ACK)" "1 1"

echo "# CLOSED expires after UAL + 2 MSL"
check "a2 forgets b2" wait_for "a2 expires" 6 no_ha a2 b2
check "b3 forgets a3" wait_for "b3 expires" 6 no_ha b3 a3
check "b2 (the closer) starts a BEX with a2, now the Initiator" hc b2 trigger "$(hit a2)"
check "it completes" wait_up b2 a2
check "b2 is the Initiator now" eq "$(ha_get b2 "$(hit a2)" role)" initiator

netns_done
