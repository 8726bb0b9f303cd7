#!/bin/bash
# bench/soak.sh [MINUTES=30] - issue 14's soak: everything at once for a
# long time; do hipd's processes grow, does an association get stuck, does
# a sanitizer complain? A benchmark, not a test (not in CI): it prints what
# one run measured.
#
#   a  va0 192.0.2.1 (moves to .11 and back) ---- vb0 192.0.2.2  b
#   f  vf2 203.0.113.1 ------------------------- vb2 203.0.113.2 b
#
# While it runs:
#   - traffic: pings between the HITs both ways (5 a second each), and each
#     minute 4 MB over TCP a -> b, SHA-256 compared (tcp_transfer);
#   - mobility: every 2 minutes a's address changes (UPDATE, RFC 8046);
#   - rekeys: every 90 s `hipconf rekey` on a (RFC 7402 §6.8);
#   - peer restarts: every 5 minutes b's hipd is killed with kill -9 and
#     started again with its key (D-13, D-14 bring the association back);
#   - an I1 flood at b from f, FLOOD_RATE I1/s (default 500) from 65,536
#     spoofed sources (tools/bench-flood; b routes them back to f).
# Each minute: the resident set (VmRSS) of every hipd process (a's two, b's
# two: privileged parent and engine), the associations and their states, and
# whether a ping a -> b is answered within 10 s. At the end hipd is stopped
# with SIGTERM, so a sanitizer build also reports leaks.
#
# Each minute also a's engine heap as glibc sees it (show stats "memory":
# bytes in use, so a leak shows apart from pages held free), and VmRSS split
# into RssAnon (the process's own memory: heap, buffers, stacks) and RssFile
# (pages of the binary and the libraries, read in the first time a code path
# runs -- a rekey, a restart -- shared, and dropped and re-read by the kernel
# at will: not memory the daemon holds).
# Reported: RSS per process and minute; a's growth after the warm-up
# (WARM minutes, default 5; b restarts, so its figure is the growth within
# each life after its first minute); associations stuck (not ESTABLISHED
# at two samples in a row, or pings unanswered for 10 s); transfers intact;
# sanitizer reports in the logs (BUILD=build-asan, configure
# --enable-sanitizers: ASAN_OPTIONS gets a 1 MB quarantine so that freed
# memory held back for checking does not read as growth).
#
# hipd runs with the environment its unit gives it (conf/hipd.service's
# Environment=, GLIBC_TUNABLES), so the soak measures the configuration
# shipped; SOAK_ENV="" runs it without, SOAK_ENV="VAR=value ..." with others.
#
# Environment: BUILD (default build/), WARM, FLOOD_RATE, SOAK_ENV.
set -u
if [ -z "${SOAK_ENV+set}" ]; then
	SOAK_ENV=$(sed -n 's/^Environment=//p' "$(dirname "$0")/../conf/hipd.service" | paste -sd' ')
fi
for kv in $SOAK_ENV; do export "${kv?}"; done
MINUTES=${1:-30}
WARM=${WARM:-5}
FLOOD_RATE=${FLOOD_RATE:-500}
case $MINUTES in ''|*[!0-9]*) echo "usage: $0 [MINUTES]" >&2; exit 2;; esac
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=1:detect_leaks=1:log_path=stderr}
. "$(dirname "$0")/../tests/netns/lib.sh"
FLOOD=$BUILD/tools/bench-flood
[ -x "$FLOOD" ] || { echo "soak: $FLOOD is not built" >&2; exit 1; }

netns_host a b f
netns_link a b 0
netns_link f b 2
nsx b ip route add 10.1.0.0/16 via 203.0.113.1
# a moves by adding the new address and deleting the old one: the new one,
# a secondary, must survive the primary's removal
nsx a sysctl -q -w net.ipv4.conf.all.promote_secondaries=1 net.ipv4.conf.va0.promote_secondaries=1
HIPD_LOG_LEVEL=notice
hipd_launch a; hipd_launch b
hipd_wait a b || exit 1
map a b; map b a
hc a trigger "$(hit b)" >/dev/null
wait_up a b 20 >/dev/null || { echo "soak: no first exchange"; exit 1; }
OUT=$NETNS_TMP/soak
mkdir -p "$OUT"
echo "# $(date -u '+%F %T') UTC, $(nproc) cores, $(uname -r), build $BUILD, $MINUTES min," \
	"hipd's environment: ${SOAK_ENV:-none}," \
	"warm-up $WARM min, I1 flood $FLOOD_RATE/s"

# pids NAME: the daemon (privileged parent) and its engine child.
pids() {
	local p
	p=$(cat "$NETNS_TMP/$1/hipd.pid" 2>/dev/null) || return 1
	echo "$p $(pgrep -P "$p" | head -1)"
}
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
# anon PID / file PID: its RssAnon / RssFile (KiB)
anon() { awk '/^RssAnon:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
file() { awk '/^RssFile:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }
# heap NAME: the engine's heap bytes in use (0 when it does not answer)
heap() { stat_of "$1" memory.heap_in_use 2>/dev/null || echo 0; }

# background load: pings both ways, the flood
nsx a ping -6 -i 0.2 -W 1 -q "$(hit b)" >/dev/null 2>&1 &
PING_A=$!
nsx b ping -6 -i 0.2 -W 1 -q "$(hit a)" >/dev/null 2>&1 &
PING_B=$!
nsx f "$FLOOD" --dst 203.0.113.2 --hit-r "$(hit b)" --src-base 10.1.0.0 --sources 65536 \
	--rate "$FLOOD_RATE" --seconds $((MINUTES * 60 + 60)) >"$OUT/flood.json" 2>&1 &
FLOOD_PID=$!

stuck=0; prev_bad=""; xfer_ok=0; xfer_bad=0; addr_now=192.0.2.1; b_born=0
echo "min  a-priv a-engine b-priv b-engine (KiB)  a:assoc b:assoc  ping  transfer  a-heap (B)"
for m in $(seq 1 "$MINUTES"); do
	t0=$(date +%s)
	# the events of this minute, spread over it
	if [ $((m % 5)) -eq 0 ]; then
		hipd_kill9 b
		hipd_start b >/dev/null || { echo "soak: b did not restart"; break; }
		b_born=$m
	fi
	if [ $((m % 2)) -eq 0 ]; then
		new=$([ "$addr_now" = 192.0.2.1 ] && echo 192.0.2.11 || echo 192.0.2.1)
		nsip a "addr add $new/24 dev va0" "addr del $addr_now/24 dev va0"
		addr_now=$new
	fi
	if tcp_transfer a b $((4 << 20)) 40 >/dev/null 2>&1; then
		xfer_ok=$((xfer_ok + 1)); xr=ok
	else
		xfer_bad=$((xfer_bad + 1)); xr=FAILED
	fi
	[ $((m % 3)) -eq 0 ] && hc a rekey "$(hit b)" >/dev/null 2>&1
	if ping_until a "$(hit b)" 10 >/dev/null; then pr=ok; else pr=LOST; fi
	# wait out the minute, then sample
	now=$(date +%s)
	[ $((t0 + 60 - now)) -gt 0 ] && sleep $((t0 + 60 - now))
	read -r ap ae <<<"$(pids a)"
	read -r bp be <<<"$(pids b)"
	sa=$(ha_states a | tr ' ' ,); sb=$(ha_states b | tr ' ' ,)
	# stuck: a state other than ESTABLISHED now and a minute ago, or no ping
	bad=""
	[ "$sa" = ESTABLISHED ] || bad="a:$sa"
	[ "$sb" = ESTABLISHED ] || bad="$bad b:$sb"
	if [ -n "$bad" ] && [ "$bad" = "$prev_bad" ]; then stuck=$((stuck + 1)); fi
	[ "$pr" = ok ] || stuck=$((stuck + 1))
	prev_bad=$bad
	ah=$(heap a)
	printf "%3d %8s %8s %7s %8s       %-12s %-12s %-5s %-8s %s\n" "$m" "$(rss "$ap")" \
		"$(rss "$ae")" "$(rss "$bp")" "$(rss "$be")" "${sa:-none}" "${sb:-none}" "$pr" "$xr" \
		"$ah" | tee -a "$OUT/samples.txt"
	echo "$m $(rss "$ap") $(rss "$ae") $(rss "$bp") $(rss "$be") $b_born $ah $(anon "$ap")" \
		"$(anon "$ae") $(file "$ap") $(file "$ae") $(anon "$bp") $(anon "$be")" >>"$OUT/rss.txt"
done

kill "$PING_A" "$PING_B" "$FLOOD_PID" 2>/dev/null
wait "$PING_A" "$PING_B" "$FLOOD_PID" 2>/dev/null
hc a --json show stats >"$OUT/a.json"; hc b --json show stats >"$OUT/b.json"
hipd_stop a; hipd_stop b
sanitizer=$(grep -c -E 'AddressSanitizer|LeakSanitizer|runtime error:' \
	"$NETNS_TMP"/a/hipd.log "$NETNS_TMP"/b/hipd.log | awk -F: '{ s += $2 } END { print s }')
python3 - "$OUT" "$WARM" "$stuck" "$xfer_ok" "$xfer_bad" "$sanitizer" <<'PY'
import json, sys
out, warm, stuck, ok, bad, san = sys.argv[1], int(sys.argv[2]), *map(int, sys.argv[3:])
rows = [list(map(int, l.split())) for l in open(out + "/rss.txt")]
after = [r for r in rows if r[0] >= warm]
print("\nsummary")
if after:
    for i, name in ((1, "a privileged"), (2, "a engine")):
        print("  %-13s RSS at minute %d %6d KiB, at the end %6d KiB: growth %+d KiB (max %d)"
              % (name, after[0][0], after[0][i], after[-1][i], after[-1][i] - after[0][i],
                 max(r[i] for r in after)))
    print("  a engine heap in use at minute %d %d B, at the end %d B: growth %+d B"
          % (after[0][0], after[0][6], after[-1][6], after[-1][6] - after[0][6]))
    # b restarts every 5 minutes and a's heap jumps for a minute each time
    # (the new exchange's transient buffers): single samples depend on the
    # phase. The lowest value of the first and of the last 5 minutes after
    # the warm-up compare the same phase, the steady state between restarts.
    if len(after) >= 10:
        first, last = after[:5], after[-5:]
        for i, unit, name in ((6, "B", "heap in use"), (2, "KiB", "RSS"), (8, "KiB", "RssAnon")):
            lo0, lo1 = min(r[i] for r in first), min(r[i] for r in last)
            print("  a engine %-11s lowest of minutes %d-%d %d %s, of minutes %d-%d %d %s: "
                  "growth %+d %s" % (name, first[0][0], first[-1][0], lo0, unit, last[0][0],
                                     last[-1][0], lo1, unit, lo1 - lo0, unit))
    for i, j, name in ((7, 9, "a privileged"), (8, 10, "a engine")):
        print("  %-13s RssAnon %d -> %d KiB: growth %+d KiB; RssFile (code read in) %+d KiB"
              % (name, after[0][i], after[-1][i], after[-1][i] - after[0][i],
                 after[-1][j] - after[0][j]))
    # b: within each life, from its second sample on
    lives = {}
    for r in rows:
        lives.setdefault(r[5], []).append(r)
    g = [(l[-1][4] - l[1][4], l[-1][3] - l[1][3], l[-1][12] - l[1][12],
          l[-1][11] - l[1][11]) for l in lives.values() if len(l) >= 3]
    if g:
        print("  b (restarted every 5 min): growth within a life, engine max %+d KiB, "
              "privileged max %+d KiB (%d lives); RssAnon: engine max %+d KiB, privileged "
              "max %+d KiB" % (max(x[0] for x in g), max(x[1] for x in g), len(g),
                               max(x[2] for x in g), max(x[3] for x in g)))
a = json.load(open(out + "/a.json")); b = json.load(open(out + "/b.json"))
print("  associations stuck: %d; transfers intact %d of %d" % (stuck, ok, ok + bad))
print("  a: updates sent %s, rekeyed %s, readdressed %s; liveness %s; icmp %s"
      % (a["update"]["sent"], a["update"]["rekeyed"], a["update"]["readdressed"],
         a["liveness"], a.get("icmp")))
print("  b (last life): R1 sent %s, I1 received %s, puzzle K %s"
      % (b.get("r1_sent"), b.get("rx", {}).get("I1"), b.get("puzzle_k")))
print("  sanitizer reports in the logs: %d" % san)
PY
