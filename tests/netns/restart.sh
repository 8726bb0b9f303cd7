#!/bin/bash
# Peer restart (kill -9, so no CLOSE) followed by a new BEX. Expected
# behaviour (RFC 7401 §4.4.2, Table 6; docs/requirements.md S-06):
#  - b restarts with the same key and triggers: a, ESTABLISHED with stale
#    state, answers the I1 with an R1 (stateless) and takes the new I2 as a
#    new exchange that replaces the association (new keys, new SPIs).
#  - b restarts again and a triggers: a's association is ESTABLISHED, so the
#    trigger is a no-op (hipd cannot know the peer lost its state); 'hipconf
#    close' then sends a CLOSE that the fresh b drops (no association), and
#    a trigger from CLOSING starts a new BEX that completes.
. "$(dirname "$0")/lib.sh"

CONF=("ual_seconds = 2" "msl_seconds = 1" "i2_timeout_ms = 200")
netns_host a b
netns_link a b 0
hipd_launch a "${CONF[@]}"; hipd_launch b "${CONF[@]}"
hipd_wait a b || exit 1
map a b
hc a trigger "$(hit b)" >/dev/null
check "first BEX completes" wait_up a b
read -r spi_in spi_out <<<"$(ha_get a "$(hit b)" spi_in spi_out)"
hit_b=$(hit b)

echo "# b crashes, restarts with its key, and starts a BEX"
hipd_kill9 b
hipd_start b "${CONF[@]}" || exit 1
check "b has the same HIT after the restart" eq "$(hit b)" "$hit_b"
check "b has no association" eq "$(ha_count b)" 0
check "a still holds the stale association" state_is a b ESTABLISHED
map b a
check "b triggers" hc b trigger "$(hit a)"
check "the BEX completes" wait_up b a
check "a replaced its association (logged)" grep -q "replaced by a new base exchange" "$NETNS_TMP/a/hipd.log"
check "a has one association, now as the Responder" \
	eq "$(ha_count a) $(ha_get a "$(hit b)" role)" "1 responder"
check "a's SPIs are new" eval '[ "$(ha_get a "$(hit b)" spi_in)" != "$spi_in" ] &&
	[ "$(ha_get a "$(hit b)" spi_out)" != "$spi_out" ]'
check "SPIs pair up" spis_match a b
check "a answered the I1 in ESTABLISHED with an R1" eq "$(stat_of a rx.I1 tx.R1 rx.I2 tx.R2)" "1 1 1 1"

echo "# b crashes again; this time a acts"
wait_for "a confirmed" 10 state_is a b ESTABLISHED
read -r spi_in spi_out <<<"$(ha_get a "$(hit b)" spi_in spi_out)"
i1_before=$(stat_of a tx.I1)
hipd_kill9 b
hipd_start b "${CONF[@]}" || exit 1
check "a's trigger on its (stale) ESTABLISHED association is a no-op" \
	eval 'hc a trigger "$(hit b)" && [ "$(stat_of a tx.I1)" = "$i1_before" ] && state_is a b ESTABLISHED'
check "hipconf close sends a CLOSE" hc a close "$(hit b)"
check "the fresh b drops it (no association)" wait_for "b drops CLOSE" 3 eval '[ "$(stat_of b drops.no_association)" -ge 1 ]'
check "a is CLOSING" state_is a b CLOSING
check "a triggers from CLOSING" hc a trigger "$(hit b)"
check "the new BEX completes" wait_up a b
check "a is the Initiator again, with new SPIs" eval '[ "$(ha_get a "$(hit b)" role)" = initiator ] &&
	[ "$(ha_get a "$(hit b)" spi_in)" != "$spi_in" ] && spis_match a b'
check "b has exactly one association" eq "$(ha_count b)" 1

netns_done
