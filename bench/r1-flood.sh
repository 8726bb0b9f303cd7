#!/bin/bash
# bench/r1-flood.sh [SECONDS=10] - a Responder under an I1 flood (a
# benchmark, not a test: it prints what one run measured).
#
#   ns f (flooder) 192.0.2.1 ---- 192.0.2.2 ns r (hipd, Responder)
#   ns c (hipd, legitimate Initiator) 198.51.100.1 ---- 198.51.100.2 ns r
#
# tools/hip-inject --mode i1flood (or tools/bench-flood when hip-inject is
# not built; FLOODER= chooses) sends valid I1s to r's HIT as fast as one
# core can,
# from SOURCES (default 65536) spoofed addresses 10.1.0.0/16, each with its
# own HIT; r routes 10.1.0.0/16 back to f, where the R1s are dropped.
# hipd r is pinned to CPU 0, the flooder (and hipd c) to CPU 1, so hipd
# has one core (SCHED_FIFO, BENCH_RT=0 to turn off). hipd r runs with its
# defaults (per-source R1 limit 10/s
# burst 20, puzzle difficulty raised automatically under load).
#
# Reported: I1s offered, R1s sent per second (hipd's r1_sent delta, and on
# the wire: an iptables-legacy OUTPUT counter in r for protocol 139 to
# 10.1.0.0/16), hipd r's CPU use (/proc/PID/stat utime+stime delta), R1s per
# CPU-second, drops (rate-limited), and the time of a legitimate base
# exchange from c started a third into the flood. Target: >= 50,000 R1/s on
# one core, and the legitimate exchange completes.
#
# Environment: BUILD, SOURCES, RATE (flooder packets/s, 0 = max).
set -u
SECS=${1:-10}
SOURCES=${SOURCES:-65536}
RATE=${RATE:-0}
# hipd r runs SCHED_FIFO (bench/lib.sh) so that on a shared machine it has
# its core; the kernel still leaves 5% of it to others (sched_rt_runtime_us).
. "$(dirname "$0")/lib.sh"
# The flooder: tools/hip-inject --mode i1flood when built, else
# tools/bench-flood (FLOODER=bench-flood or hip-inject to choose).
FLOODER=${FLOODER:-}
if [ -z "$FLOODER" ]; then
	[ -x "$BUILD/tools/hip-inject" ] && FLOODER=hip-inject || FLOODER=bench-flood
fi
FLOOD=$BUILD/tools/$FLOODER
bench_need "$FLOOD"
command -v iptables-legacy >/dev/null || { echo "bench: needs iptables-legacy" >&2; exit 1; }
OUT=$NETNS_TMP/results
mkdir -p "$OUT"
cpu_r=-; cpu_f=-
if [ "$(nproc)" -ge 2 ]; then cpu_r=0; cpu_f=1; fi

echo "r1-flood: $SECS s of I1s from $SOURCES spoofed sources at one hipd (CPU $cpu_r)"
netns_host f
netns_host r
netns_host c
netns_link f r 0
netns_link c r 1
nsx r ip route add 10.1.0.0/16 via 192.0.2.1
bench_hipd_start r "$cpu_r" "dh_groups = 7 8"
bench_hipd_start c "$cpu_f" "dh_groups = 7 8"
HR=$(bench_hit r)
HC=$(bench_hit c)
hcr c add map "$HR" 198.51.100.2 >/dev/null
hcr r add map "$HC" 198.51.100.1 >/dev/null
nsx r iptables-legacy -A OUTPUT -p 139 -d 10.1.0.0/16
PID_R=$(bench_engine_pid r)   # the engine answers the I1s

wire_r1() { nsx r iptables-legacy -L OUTPUT -v -x -n | awk '/10\.1\.0\.0\/16/ { print $1; exit }'; }
# Drops counted on r's raw sockets for protocol 139 (receive buffer full).
sock_drops() { nsx r cat /proc/net/raw /proc/net/raw6 | awk '$2 ~ /:008B$/ { n += $NF } END { print n + 0 }'; }
established() { hcr c --json show associations | grep -q '"state": "ESTABLISHED"'; }

snapshot() { # N: hipd stats, wire counter, socket drops, CPU ticks, time
	bench_stats r "$OUT/r$1.json"
	wire_r1 >"$OUT/w$1"
	sock_drops >"$OUT/s$1"
	cpu_ticks "$PID_R" >"$OUT/c$1"
	date +%s.%N >"$OUT/t$1"
}

# The flood runs SECS + 2 s; the window measured is SECS s from 1 s in, so
# start-up and the drain at the end are left out.
pre=()
[ "$cpu_f" != - ] && pre+=(taskset -c "$cpu_f")
if [ "$FLOODER" = hip-inject ]; then
	# "i1flood: N I1s from S sources in T s: R packets/s" -> JSON
	{ nsx f "${pre[@]}" "$FLOOD" --mode i1flood --src 10.1.0.0 --dst 192.0.2.2 \
		--dst-hit "$HR" --sources "$SOURCES" --rate "$RATE" --count 0 \
		--duration "$((SECS + 2))" |
		sed -n 's|^i1flood: \([0-9]*\) I1s from \([0-9]*\) sources in \([0-9.]*\) s: \([0-9]*\) packets/s|{"sent": \1, "sources": \2, "seconds": \3, "per_s": \4}|p' \
		>"$OUT/flood.json"; } &
else
	nsx f "${pre[@]}" "$FLOOD" --dst 192.0.2.2 --hit-r "$HR" --sources "$SOURCES" \
		--rate "$RATE" --seconds "$((SECS + 2))" >"$OUT/flood.json" &
fi
fpid=$!
sleep 1
snapshot 0
sleep "$(awk -v s="$SECS" 'BEGIN { print s / 3 }')"
bench_stats r "$OUT/rmid.json"
hcr c trigger "$HR" >/dev/null
legit=failed
if poll_until $((SECS + 60)) established; then
	legit=$(hcr c --json show stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["bex"]["last_us"])')
fi
sleep "$(awk -v s="$SECS" -v t0="$(cat "$OUT/t0")" -v now="$(date +%s.%N)" \
	'BEGIN { d = t0 + s - now; print (d > 0 ? d : 0) }')"
snapshot 1
wait "$fpid"
sleep 1
bench_stats r "$OUT/r2.json"

python3 - "$OUT" "$CLK_TCK" "$legit" "$SOURCES" "$FLOODER" <<'PY'
import json, sys
out, tck, legit, sources, flooder = sys.argv[1:]
rd = lambda f: open(out + "/" + f).read().strip()
t0, t1, c0, c1, w0, w1 = rd("t0"), rd("t1"), rd("c0"), rd("c1"), rd("w0"), rd("w1")
sdrops = int(rd("s1")) - int(rd("s0"))
dt = float(t1) - float(t0)
r0, r1 = json.load(open(out + "/r0.json")), json.load(open(out + "/r1.json"))
mid, r2 = json.load(open(out + "/rmid.json")), json.load(open(out + "/r2.json"))
fl = json.load(open(out + "/flood.json"))
d = lambda k, a=r0, b=r1: b[k] - a[k]
i1 = r1["rx"]["I1"] - r0["rx"]["I1"]
r1s = d("r1_sent")
wire = int(w1) - int(w0)
cpu = (int(c1) - int(c0)) / float(tck)
rl = r1["drops"]["rate_limited"] - r0["drops"]["rate_limited"]
print()
print("flooder (%s): %d I1s in %.2f s = %.0f/s offered, %s sources"
      % (flooder, fl["sent"], fl["seconds"], fl["per_s"], sources))
print("hipd (Responder), over %.2f s in the middle of the flood:" % dt)
print("  I1 received          %9d  (%.0f/s)" % (i1, i1 / dt))
print("  I1 dropped, socket   %9d  (hipd's receive buffer full)" % sdrops)
print("  R1 sent (hipd)       %9d  = %.0f R1/s" % (r1s, r1s / dt))
print("  R1 on the wire       %9d  = %.0f R1/s  (iptables OUTPUT counter)" % (wire, wire / dt))
print("  rate-limited I1s     %9d" % rl)
print("  CPU (utime+stime)    %9.2f s = %.0f%% of one core; %.0f R1 per CPU-second"
      % (cpu, 100 * cpu / dt, r1s / cpu if cpu else 0))
print("  puzzle K during the flood: %d (auto), %d one second after" % (mid["puzzle_k"], r2["puzzle_k"]))
t1s = r1["bex_stages"]["t1"]
print("  T1 (I1 -> R1 inside hipd) over the last %d R1s: median %.1f us, p99 %.1f us"
      % (min(t1s["count"], 1024), t1s["p50_us"], t1s["p99_us"]))
print("  target >= 50,000 R1/s on one core: %s" % ("met" if r1s / dt >= 50000 else "NOT met"))
print()
if legit == "failed":
    print("legitimate base exchange from c during the flood: did NOT complete")
else:
    print("legitimate base exchange from c during the flood: completed in %.1f ms"
          % (int(legit) / 1000.0))
PY
