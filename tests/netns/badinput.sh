#!/bin/bash
# Bad input against a running hipd (b): tools/hip-inject, run in a's
# namespace, sends thousands of truncated, reordered, duplicated,
# wrong-checksum, random, wrong-MAC/signature and replayed packets of every
# type, over IPv4 and IPv6, then floods it with I1s from spoofed sources.
# After each mode: b still runs, the mode's drops show in its counters.
# At the end: no association is left half-open once the timers ran out, and
# a base exchange right after all that completes.
. "$(dirname "$0")/lib.sh"

N=${BADINPUT_COUNT:-1000}
netns_host a b
netns_link a b 0
hipd_launch a
# short timers so what the injector leaves behind expires within seconds
hipd_launch b "ual_seconds = 1" "msl_seconds = 1" "i2_timeout_ms = 200"
hipd_wait a b || exit 1
HB=$(hit b)

# dsum NAME COUNTER...: the sum of these drop counters.
dsum() {
	local n=$1; shift
	hc "$n" --json show stats | python3 -c 'import json,sys
d=json.load(sys.stdin)["drops"]; print(sum(d[k] for k in (sys.argv[1:] or d)))' "$@"
}
# inject FAMILY MODE COUNT: run hip-inject from a at b; its output in inject.out.
inject() {
	local src dst
	if [ "$1" = 4 ]; then src=$(addr4 a); dst=$(addr4 b); else src=$(addr6 a); dst=$(addr6 b); fi
	nsx a "$HIP_INJECT" --mode "$2" --count "$3" --src "$src" --dst "$dst" --dst-hit "$HB" \
		>"$NETNS_TMP/inject.out" 2>&1
}
# at_least GOT WANT: GOT >= WANT (both integers).
at_least() { ge "$1" "$2"; }

# mode_checks FAMILY MODE COUNT COUNTERS MIN: after the mode, the named
# counters (all of them if "all") rose by at least MIN.
mode_checks() {
	local fam=$1 mode=$2 count=$3 counters=$4 min=$5 before after rc
	[ "$counters" = all ] && counters=""
	before=$(dsum b $counters)
	inject "$fam" "$mode" "$count"; rc=$?
	# (badmac also sends its I1, the valid I2 and the valid CLOSE)
	check "IPv$fam $mode: hip-inject sent $count packets (exit 0)" \
		eval "[ $rc = 0 ] && grep -Eq '^$mode: $count packets sent\$|^badmac: $((count + 3)) packets sent\$' \
			'$NETNS_TMP/inject.out' || { cat '$NETNS_TMP/inject.out'; false; }"
	check "IPv$fam $mode: hipd still runs" hipd_alive b
	after=$(dsum b $counters)
	check "IPv$fam $mode: ${counters:-all drop counters} rose by >= $min" at_least $((after - before)) "$min"
}

echo "# malformed packets of every type (IPv4, $N each)"
mode_checks 4 truncate "$N" "bad_length malformed oversize missing_param bad_param" $((N * 8 / 10))
mode_checks 4 reorder "$N" bad_order "$N"
mode_checks 4 duplicate "$N" duplicate_param $((N * 9 / 10))
mode_checks 4 badcsum "$N" bad_checksum "$N"
mode_checks 4 random "$N" all $((N * 9 / 10))
echo "# a real session, then wrong MACs and signatures (exit 0: hipd answered the"
echo "# valid I2 with R2 and the valid CLOSE with CLOSE_ACK)"
mode_checks 4 badmac "$N" bad_mac $((N / 4))
check "IPv4 badmac: bad signatures counted too" at_least "$(dsum b bad_signature)" $((N / 4))

echo "# the same over IPv6 (a fifth as many)"
for m in truncate reorder duplicate badcsum random badmac; do
	mode_checks 6 "$m" $((N / 5)) all $((N / 5 * 7 / 10))
done

echo "# replay of a real exchange (sniffed in a's namespace) and reflection of b's packets"
# replay_start: sniff for 4 s (a loaded machine may take 2 s to start the
# exchange), then replay N packets (the victim's own back to it).
replay_start() {
	nsx a "$HIP_INJECT" --mode replay --capture-ms 4000 --count "$N" --src "$(addr4 a)" \
		--dst "$(addr4 b)" --dst-hit "$HB" >"$NETNS_TMP/replay.out" 2>&1 &
	replay=$!
	wait_for "capture started" 5 grep -q capturing "$NETNS_TMP/replay.out"
	before=$(dsum b); mismatch=$(dsum b hit_mismatch); replays=$(dsum b replay)
}
replay_done() { # WHAT: the number of packets captured at least
	wait $replay
	check "replay $1: captured the exchange, replayed $N packets" \
		eval "grep -Eq 'captured ([$2-9]|[1-9][0-9]+) packets' '$NETNS_TMP/replay.out' &&
			grep -q '^replay: $N packets sent' '$NETNS_TMP/replay.out' ||
			{ cat '$NETNS_TMP/replay.out'; false; }"
	check "replay $1: hipd still runs" hipd_alive b
	check "replay $1: b's own packets reflected back count as hit_mismatch" \
		at_least $(($(dsum b hit_mismatch) - mismatch)) $((N / 3))
	check "replay $1: most replays were dropped" at_least $(($(dsum b) - before)) $((N / 2))
	check "replay $1: the replayed I2 was refused as a replay" \
		at_least $(($(dsum b replay) - replays)) 1
}
map a b
echo "# (1) while the association is ESTABLISHED: the old I2 must not replace it"
replay_start
hc a trigger "$HB" >/dev/null
check "replay 1: the BEX to capture completes" wait_up a b
spis=$(ha_get b "$(hit a)" spi_in spi_out)
replay_done 1 4
check "replay 1: b's association is unchanged (same SPIs)" eq "$(ha_get b "$(hit a)" spi_in spi_out)" "$spis"
check "replay 1: a and b still agree" spis_match a b
echo "# (2) after CLOSE: the old I2 and CLOSE must not revive it"
replay_start
hc a close "$HB" >/dev/null
check "replay 2: the close to capture completes" wait_for "a closed" 3 no_ha a b
hc a trigger "$HB" >/dev/null
check "replay 2: a new BEX to capture completes" wait_up a b
hc a close "$HB" >/dev/null
check "replay 2: and its close" wait_for "a closed" 3 no_ha a b
replay_done 2 6
# (the CLOSED one lasts msl_seconds, 1 s here: it may be gone by now)
states=$(ha_states b)
check "replay 2: not revived: b holds no association with a but perhaps the CLOSED one" \
	eval '[ -z "$states" ] || [ "$states" = CLOSED ]'
echo "# b: [$states]"

echo "# I1 flood from 1000 spoofed sources, 20000 I1/s for a second (the R1s are routed"
echo "# back to a, which drops them)"
nsx b ip route add 10.99.0.0/16 via "$(addr4 a)"
rx0=$(stat_of b rx.I1)
nsx a "$HIP_INJECT" --mode i1flood --rate 20000 --sources 1000 --count 20000 --src 10.99.0.1 \
	--dst "$(addr4 b)" --dst-hit "$HB" >"$NETNS_TMP/flood.out" 2>&1
check "i1flood: 20000 I1s sent" eval "grep -q '^i1flood: 20000 I1s' '$NETNS_TMP/flood.out' ||
	{ cat '$NETNS_TMP/flood.out'; false; }"
sed 's/^/       /' "$NETNS_TMP/flood.out"
check "i1flood: hipd still runs" hipd_alive b
check "i1flood: b received a good part of them" at_least $(($(stat_of b rx.I1) - rx0)) 5000
check "i1flood: the puzzle difficulty went up under load" \
	wait_for "K raised" 3 eval '[ "$(stat_of b puzzle_k)" -ge 1 ]'

echo "# afterwards"
check "no association left once the timers ran out (UAL + 2 MSL, EC)" \
	wait_for "b's associations expire" 10 eval '[ "$(ha_count b)" = 0 ] || { hc b show associations; false; }'
check "a BEX right after completes" eval 'hc a trigger "$HB" >/dev/null && wait_up a b 10'
check "SPIs pair up" spis_match a b
echo "       drops at b: $(hc b --json show stats | python3 -c 'import json,sys
d=json.load(sys.stdin)["drops"]; print(", ".join("%s %d" % (k, v) for k, v in d.items() if v))')"

netns_done
