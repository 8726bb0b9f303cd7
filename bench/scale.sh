#!/bin/bash
# bench/scale.sh [N=10000] - one hipd holding N associations (a benchmark,
# not a test: it prints what one run measured).
#
#   ns i (tools/bench-initiators) 192.0.2.1 ---- 192.0.2.2 ns r (hipd)
#
# tools/bench-initiators plays N Initiators, each with its own ECDSA P-256
# identity (its own HIT) and its own source address in 10.2.0.0/16 (local in
# ns i, routed there from r), completing real base exchanges with hipd r
# (puzzle K=0 fixed, DH group 7: this run is about memory and lookups).
#
# Reported:
#   - hipd r's resident memory (VmRSS) at 1,000 and at N associations, once
#     every association is ESTABLISHED (the R2 kept for a resend is freed
#     then): bytes per association. Target <= 4 KiB.
#   - lookups stay flat: N/10 more exchanges at 1,000 and at N associations,
#     timed by hipd (T1: I1 -> R1, a lookup by HIT pair and the rate limiter;
#     T3: I2 -> R2, lookup, insert, SPI index) and by the Initiators
#     (exchanges per second); and tools/bench-hadb, hipd's association table
#     alone at 1,000 / 10,000 / 100,000 entries.
#
# Environment: BUILD, WINDOW (exchanges in flight, default 64).
set -u
N=${1:-10000}
WINDOW=${WINDOW:-64}
SMALL=1000
[ "$N" -gt "$SMALL" ] || { echo "scale: N must be more than $SMALL" >&2; exit 2; }
EXTRA_SMALL=$((SMALL / 10))
EXTRA=$((N / 10))
[ $((N + EXTRA)) -le 65000 ] || { echo "scale: N too large (sources are one /16)" >&2; exit 2; }
. "$(dirname "$0")/lib.sh"
INI=$BUILD/tools/bench-initiators
HADB=$BUILD/tools/bench-hadb
bench_need "$INI" "$HADB"
OUT=$NETNS_TMP/results
mkdir -p "$OUT"
cpu_r=-; cpu_i=-
if [ "$(nproc)" -ge 2 ]; then cpu_r=0; cpu_i=1; fi

echo "scale: $N associations at one hipd"
netns_host i
netns_host r
netns_link i r 0
nsx i ip route add local 10.2.0.0/16 dev lo
nsx r ip route add 10.2.0.0/16 via 192.0.2.1
# EC timer (R2-SENT -> ESTABLISHED) = i2_timeout_ms x i2_retries: 2 s here.
bench_hipd_start r "$cpu_r" "puzzle_k = 0" "puzzle_auto = no" "dh_groups = 7" \
	"i2_timeout_ms = 1000" "i2_retries = 2"
HR=$(bench_hit r)
PID_R=$(bench_hipd_pid r)

# hipd and its children (with privilege separation, the default, the pid
# file names the privileged parent; the engine, which holds the
# associations, is its child).
rss_kib() {
	local p sum=0
	for p in $PID_R $(pgrep -P "$PID_R"); do
		sum=$((sum + $(awk '/^VmRSS:/ { print $2 }' "/proc/$p/status")))
	done
	echo "$sum"
}
assoc() { hcr r --json show stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["associations"])'; }
# Until the EC timer (2 s) has moved every new association to ESTABLISHED.
settle() { sleep 3; }

# initiators FIRST COUNT TAG: run COUNT Initiators, keep hipd's stats around it.
initiators() {
	local pre=()
	[ "$cpu_i" != - ] && pre+=(taskset -c "$cpu_i")
	bench_stats r "$OUT/$3.before.json"
	nsx i "${pre[@]}" "$INI" --dst 192.0.2.2 --hit-r "$HR" --first "$1" --count "$2" \
		--window "$WINDOW" >"$OUT/$3.ini.json" || { echo "  initiators $3 failed:";
		cat "$OUT/$3.ini.json"; exit 1; }
	bench_stats r "$OUT/$3.after.json"
	settle
}

rss0=$(rss_kib)
echo "  hipd RSS with no association: $rss0 KiB"
initiators 0 "$SMALL" small
rss1=$(rss_kib); a1=$(assoc)
initiators "$SMALL" "$EXTRA_SMALL" extra_small
initiators $((SMALL + EXTRA_SMALL)) $((N - SMALL - EXTRA_SMALL)) big
rss2=$(rss_kib); a2=$(assoc)
initiators "$N" "$EXTRA" extra_big
"$HADB" 1000 10000 100000 >"$OUT/hadb.json"

python3 - "$OUT" "$rss0" "$rss1" "$a1" "$rss2" "$a2" "$N" "$EXTRA_SMALL" "$EXTRA" <<'PY'
import json, sys
out = sys.argv[1]
rss0, rss1, a1, rss2, a2, n, xs, xb = map(int, sys.argv[2:])
def run(tag):
    b = json.load(open("%s/%s.before.json" % (out, tag)))
    a = json.load(open("%s/%s.after.json" % (out, tag)))
    ini = json.load(open("%s/%s.ini.json" % (out, tag)))
    def samples(stage):
        new = a["bex_stages"][stage]["count"] - b["bex_stages"][stage]["count"]
        return sorted(a["bex_stages"][stage]["samples_us"][-min(new, 1024):]) if new > 0 else []
    return ini, samples("t1"), samples("t3")
def med(v):
    return v[len(v) // 2] if v else float("nan")
def p99(v):
    return v[min(len(v) - 1, -(-len(v) * 99 // 100) - 1)] if v else float("nan")
print()
for tag in ("small", "big"):
    ini, _, _ = run(tag)
    print("  %-6s %6d exchanges: %d completed, %d failed, %.0f/s (Initiators' keys: %.1f s)"
          % (tag, ini["completed"] + ini["failed"], ini["completed"], ini["failed"],
             ini["per_s"], ini["keygen_seconds"]))
print()
per1 = (rss1 - rss0) * 1024.0 / a1 if a1 else 0
per2 = (rss2 - rss1) * 1024.0 / (a2 - a1) if a2 > a1 else 0
print("memory: hipd RSS %d KiB empty, %d KiB at %d associations, %d KiB at %d"
      % (rss0, rss1, a1, rss2, a2))
print("  per association: %.0f bytes (first %d), %.0f bytes (from %d to %d)   "
      "(target <= 4096: %s)" % (per1, a1, per2, a1, a2, "met" if per2 <= 4096 else "NOT met"))
print()
print("lookups stay flat: %d / %d more exchanges at %d / %d associations" % (xs, xb, a1, a2))
print("  %-28s %12s %12s" % ("", "at %d" % a1, "at %d" % a2))
(i1, t1a, t3a), (i2, t1b, t3b) = run("extra_small"), run("extra_big")
print("  %-28s %12.1f %12.1f" % ("T1 I1->R1 median us", med(t1a), med(t1b)))
print("  %-28s %12.1f %12.1f" % ("T1 I1->R1 p99 us", p99(t1a), p99(t1b)))
print("  %-28s %12.1f %12.1f" % ("T3 I2->R2 median us", med(t3a), med(t3b)))
print("  %-28s %12.0f %12.0f" % ("exchanges/s (Initiators)", i1["per_s"], i2["per_s"]))
print("  hipd's association table alone (tools/bench-hadb, random keys, ns per lookup):")
for line in open(out + "/hadb.json"):
    h = json.loads(line)
    print("    %7d associations: by HIT pair %.0f ns, by SPI %.0f ns, absent HIT %.0f ns"
          % (h["associations"], h["find_hit_ns"], h["find_spi_ns"], h["find_absent_ns"]))
PY
