#!/bin/bash
# bench/floods.sh [SECONDS=20] - a Responder under floods of expensive
# packets, beside a legitimate Initiator (a benchmark, not a test: it prints
# what one run measured).
#
#   ns f (tools/bench-flood2) 192.0.2.1 ---- 192.0.2.2 ns v (hipd, victim)
#   ns l (hipd, legitimate)   198.51.100.1 ---- 198.51.100.2 ns v
#
# For each kind of flood (FLOODS, default all below), hipd v and l start
# afresh (counters, puzzle K, associations), the flooder runs, and for
# SECONDS in the middle of it l runs base exchanges with v one after the
# other (trigger, ESTABLISHED, 3 pings between the HITs through the
# userspace ESP datapath, close, gone; 5 s at most per exchange). Kinds:
#   none          no flood (the reference)
#   i2            I2s with valid puzzle solutions at v's current K, a fresh
#                 identity and a valid signature each (f pays puzzle, ECDH,
#                 a key generation and a signature per I2)
#   i2-badsig     the same with a wrong signature
#   i2-replay     64 such I2s (wrong signatures) solved once, then resent
#   update        UPDATEs with valid HIP_MAC and signature from f's own
#                 association (new SEQ each)
#   update-badmac the same with a wrong HIP_MAC
#   close         CLOSEs with a wrong HIP_MAC for l's and f's associations
#                 from 65,536 spoofed sources
#   close-replay  f's valid CLOSE, sent again and again
# Spoofed sources are 10.1.0.0/16: v routes them back to f, which takes
# them in (a local route), so the flooder gets its R1s.
# hipd v is pinned to CPU 0, the flooder and hipd l to CPU 1 (SCHED_FIFO;
# BENCH_RT=0 to turn off); v runs with its defaults (puzzle K automatic).
#
# Reported per kind: flood packets v received per second (its rx counters),
# v's CPU use, the counters that say where they went, puzzle K, and l's
# exchanges (completed / attempted, median and p95 of l's own I1 -> R2
# time), pings answered, and the ratios against "none".
#
# Environment: BUILD, FLOODS.
set -u
SECS=${1:-20}
FLOODS=${FLOODS:-none i2 i2-badsig i2-replay update update-badmac close close-replay}
. "$(dirname "$0")/lib.sh"
FLOOD=$BUILD/tools/bench-flood2
bench_need "$FLOOD"
OUT=$NETNS_TMP/results
mkdir -p "$OUT"
cpu_v=-; cpu_f=-
if [ "$(nproc)" -ge 2 ]; then cpu_v=0; cpu_f=1; fi
PREP=3   # seconds of flood before the measurement (set-up, K settling)

netns_host f
netns_host v
netns_host l
netns_link f v 0
netns_link l v 1
nsx v ip route add 10.1.0.0/16 via 192.0.2.1
nsx f ip route add local 10.1.0.0/16 dev lo

established() { hcr l --json show associations | grep -q '"state": "ESTABLISHED"'; }
gone() { ! hcr l --json show associations | grep -q '"peer_hit"'; }

start_pair() {
	bench_hipd_start v "$cpu_v" "dh_groups = 7 8" "datapath = userspace"
	bench_hipd_start l "$cpu_f" "dh_groups = 7 8" "datapath = userspace"
	HV=$(bench_hit v)
	HL=$(bench_hit l)
	hcr l del map "$HV" >/dev/null 2>&1; hcr v del map "$HL" >/dev/null 2>&1
	hcr l add map "$HV" 198.51.100.2 >/dev/null
	hcr v add map "$HL" 198.51.100.1 >/dev/null
	PID_V=$(bench_engine_pid v)
}

stop_pair() {
	local id p
	for id in v l; do
		p=$(cat "$NETNS_TMP/$id/hipd.pid.launch" 2>/dev/null) || continue
		# the daemon itself (the launch pid is nsx's wrapper)
		kill "$(bench_hipd_pid "$id")" 2>/dev/null
		wait "$p" 2>/dev/null
		rm -f "$NETNS_TMP/$id/hipd.pid.launch"
		wait_for "hipd $id gone" 10 eval "! pgrep -f '$NETNS_TMP/$id/hipd.conf' >/dev/null"
		rm -f "$NETNS_TMP/$id/hipd.sock" "$NETNS_TMP/$id/hipd.pid"
	done
}

# one_bex: one exchange l -> v; prints "ok US PINGS" or "failed"
one_bex() {
	local us pings
	hcr l trigger "$HV" >/dev/null 2>&1
	if poll_until 5 established; then
		us=$(hcr l --json show stats |
			python3 -c 'import json,sys; print(json.load(sys.stdin)["bex"]["last_us"])')
		pings=$(nsx l ping -6 -q -c 3 -i 0.02 -W 1 "$HV" 2>/dev/null |
			sed -n 's/.* \([0-9]*\) received.*/\1/p')
		echo "ok $us ${pings:-0}"
	else
		echo "failed"
	fi
	hcr l close "$HV" >/dev/null 2>&1
	poll_until 10 gone || true
}

flood_args() {
	case $1 in
	i2) echo "--mode i2";;
	i2-badsig) echo "--mode i2 --badsig 1";;
	i2-replay) echo "--mode i2replay --badsig 1 --window 64";;
	update) echo "--mode update";;
	update-badmac) echo "--mode update --badmac 1";;
	close) echo "--mode close --peer-hit $HL";;
	close-replay) echo "--mode closereplay";;
	*) return 1;;
	esac
}

run_kind() {
	local kind=$1 fpid="" end pre=() args p
	start_pair
	one_bex >/dev/null   # warm-up (first contact), not counted
	[ "$cpu_f" != - ] && pre+=(taskset -c "$cpu_f")
	if [ "$kind" != none ]; then
		args=$(flood_args "$kind") || { echo "unknown flood '$kind'"; exit 2; }
		# shellcheck disable=SC2086
		nsx f "${pre[@]}" "$FLOOD" $args --dst 192.0.2.2 --hit-r "$HV" \
			--seconds "$((SECS + PREP + 8))" >"$OUT/$kind.flood" 2>&1 &
		fpid=$!
		sleep "$PREP"
	else
		echo '{}' >"$OUT/$kind.flood"
	fi
	bench_stats v "$OUT/$kind.v0"
	cpu_ticks "$PID_V" >"$OUT/$kind.c0"
	date +%s.%N >"$OUT/$kind.t0"
	: >"$OUT/$kind.bex"
	end=$(($(date +%s) + SECS))
	while [ "$(date +%s)" -lt "$end" ]; do
		one_bex >>"$OUT/$kind.bex"
	done
	bench_stats v "$OUT/$kind.v1"
	cpu_ticks "$PID_V" >"$OUT/$kind.c1"
	date +%s.%N >"$OUT/$kind.t1"
	if [ -n "$fpid" ]; then
		# SIGTERM ends the flooder, which prints its figures (fpid is
		# nsx's wrapper: the flooder is found by v's HIT, unique here)
		for p in $(pgrep -f -- "bench-flood2 .*--hit-r $HV"); do kill "$p"; done
		wait "$fpid" 2>/dev/null
	fi
	stop_pair
	echo "  $kind: $(grep -c ok "$OUT/$kind.bex") of $(wc -l <"$OUT/$kind.bex") exchanges"
}

echo "floods: $SECS s per kind, hipd v on CPU $cpu_v, flooder and hipd l on CPU $cpu_f"
echo "# $(date -u '+%F %T') UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
for kind in $FLOODS; do run_kind "$kind"; done

python3 - "$OUT" "$CLK_TCK" $FLOODS <<'PY'
import json, sys
out, tck, kinds = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rd = lambda f: open(out + "/" + f).read().strip()

def pct(v, p):
    v = sorted(v)
    if not v:
        return float("nan")
    return v[max(1, -(-len(v) * p // 100)) - 1]

WATCH = ["puzzle_failed", "puzzle_stale", "rate_limited", "bad_mac", "bad_signature",
         "hit_mismatch", "replay", "wrong_state", "no_association", "i2_refused",
         "i2_budget", "update_rate"]
rows = {}
for k in kinds:
    v0, v1 = json.load(open(out + "/%s.v0" % k)), json.load(open(out + "/%s.v1" % k))
    dt = float(rd(k + ".t1")) - float(rd(k + ".t0"))
    cpu = (int(rd(k + ".c1")) - int(rd(k + ".c0"))) / tck
    try:
        fl = json.loads(rd(k + ".flood").splitlines()[-1])
    except (IndexError, ValueError):
        fl = {}   # the flooder said nothing usable (its output is in the file)
    rx = {t: v1["rx"].get(t, 0) - v0["rx"].get(t, 0) for t in v1["rx"]}
    drops = {n: v1["drops"][n] - v0["drops"].get(n, 0) for n in v1["drops"]
             if v1["drops"][n] - v0["drops"].get(n, 0)}
    bex = [l.split() for l in open(out + "/%s.bex" % k)]
    ok = [int(b[1]) / 1000.0 for b in bex if b[0] == "ok"]
    pings = sum(int(b[2]) for b in bex if b[0] == "ok")
    rows[k] = dict(dt=dt, cpu=cpu, fl=fl, rx=rx, drops=drops, ok=ok, n=len(bex),
                   pings=pings, k=v1["puzzle_k"], upd=v1["update"]["received"] -
                   v0["update"]["received"])

TYPE = {"none": None, "i2": "I2", "i2-badsig": "I2", "i2-replay": "I2", "update": "UPDATE",
        "update-badmac": "UPDATE", "close": "CLOSE", "close-replay": "CLOSE"}
base = rows.get("none")
print()
print("%-14s %9s %9s %6s %3s %9s %9s %9s %7s %7s" % (
    "flood", "offered/s", "v rx/s", "v CPU", "K", "legit ok", "median ms", "p95 ms",
    "x med", "pings"))
for k in kinds:
    r = rows[k]
    t = TYPE.get(k)
    rxs = r["rx"].get(t, 0) / r["dt"] if t else 0
    med, p95 = pct(r["ok"], 50), pct(r["ok"], 95)
    ratio = med / pct(base["ok"], 50) if base and base["ok"] and r["ok"] else float("nan")
    print("%-14s %9s %9.0f %5.0f%% %3d %4d/%-4d %9.1f %9.1f %7.2f %3d/%-3d" % (
        k, "%.0f" % r["fl"]["per_s"] if "per_s" in r["fl"] else "-", rxs,
        100 * r["cpu"] / r["dt"], r["k"], len(r["ok"]), r["n"], med, p95, ratio,
        r["pings"], 3 * len(r["ok"])))
print()
print("v's counters over the measured window (deltas; drops by reason):")
for k in kinds:
    r = rows[k]
    d = ", ".join("%s %d" % (n, c) for n, c in sorted(r["drops"].items(), key=lambda x: -x[1]))
    print("  %-14s rx I1 %d I2 %d UPDATE %d CLOSE %d; update received %d; drops: %s" % (
        k, r["rx"].get("I1", 0), r["rx"].get("I2", 0), r["rx"].get("UPDATE", 0),
        r["rx"].get("CLOSE", 0), r["upd"], d or "none"))
    if r["fl"]:
        print("  %-14s flooder: %s" % ("", json.dumps(r["fl"])))
PY
