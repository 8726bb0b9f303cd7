#!/bin/bash
# An I2 flood at the current puzzle difficulty (docs/decisions.md D-15,
# docs/requirements.md P-10): tools/bench-flood2 in f solves 64 puzzles
# once (I1s from spoofed sources 10.1.0.0/16, which b routes back to f) and
# resends the 64 I2s, valid but for their signatures, as fast as it can.
#  - b refuses those puzzles before any DH work: i2_refused rises, and
#    once it does, next to no I2 fails at the signature check any more;
#  - a legitimate base exchange from a (on its own link) completes during
#    the flood, and b still runs.
. "$(dirname "$0")/lib.sh"
FLOOD2=$BUILD/tools/bench-flood2

netns_host a b f
netns_link f b 0
netns_link a b 1
nsx b ip route add 10.1.0.0/16 via "$(addr4 f)"
nsx f ip route add local 10.1.0.0/16 dev lo
hipd_launch a
HIPD_LOG_LEVEL=notice hipd_launch b   # no per-packet lines under the flood
hipd_wait a b || exit 1
HB=$(hit b)
map a b 1
map b a 1

echo "# 64 I2s with solved puzzles and wrong signatures, resent for up to 30 s"
# not through nsx: $! must be the flooder itself (SIGTERM ends it early)
ip netns exec "$(ns_name f)" "$FLOOD2" --mode i2replay --badsig 1 --window 64 \
	--dst "$(addr4 b)" --hit-r "$HB" --seconds 30 >"$NETNS_TMP/flood.out" 2>&1 &
fpid=$!
refusing() { [ "$(stat_of b drops.i2_refused)" -ge 1000 ]; }
check "b refuses the flood's puzzles (i2_refused >= 1000)" wait_for "i2_refused" 20 refusing
refused0=$(stat_of b drops.i2_refused)
badsig0=$(stat_of b drops.bad_signature)
hc a trigger "$HB" >/dev/null
check "a legitimate base exchange completes during the flood" wait_up a b 20
sleep 1
refused=$(($(stat_of b drops.i2_refused) - refused0))
badsig=$(($(stat_of b drops.bad_signature) - badsig0))
echo "       b, since it began refusing: $refused I2s refused, $badsig failed at the" \
	"signature check"
check "since then the flood cost b next to no DH work (refused > 20 x failed)" \
	ge "$refused" $((20 * badsig + 1))
kill -TERM "$fpid" 2>/dev/null
wait "$fpid"
check "the flooder ran" eval "grep -q '\"mode\": \"i2replay\", \"ok\": true' '$NETNS_TMP/flood.out' ||
	{ cat '$NETNS_TMP/flood.out'; false; }"
check "hipd b still runs" hipd_alive b
netns_done
