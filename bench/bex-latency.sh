#!/bin/bash
# bench/bex-latency.sh [N=200] - base exchange latency between two network
# namespaces on veth (a benchmark, not a test: it prints what one run
# measured and exits 0 unless the setup fails).
#
#   hipd in ns "a" (Initiator) and ns "b" (Responder), ECDSA P-256
#   identities, DH group 7 only, puzzle K=10 fixed (puzzle hash = the
#   Responder's RHASH, SHA-384). N base exchanges in sequence: trigger, wait
#   for ESTABLISHED, close, wait until the association is gone.
#
# Reported (median, p95, p99), all measured by hipd itself (hipconf --json
# show stats, "bex_stages"):
#   total  Initiator: I1 sent -> R2 processed
#   T1     Responder: I1 received -> R1 sent
#   T2     Initiator: R1 received -> I2 sent (puzzle, DH, sign)
#   T3     Responder: I2 received -> R2 sent
#   T4     Initiator: R2 received -> processed
# beside the CPU floor measured in the same run (tools/bench-floor:
# 1 DH keygen + 2 derives + 2 signs + 3 verifies + 2^K SHA-384 hashes).
# Target: median total <= 1.5 x floor.
#
# Then strongSwan (charon + swanctl, Debian packages; installed on demand
# with tools/install-deps.sh --bench unless SWAN=0): IKEv2 with ECDSA P-256
# certificates between the same two namespaces, SWAN_N (default 50)
# IKE_SA establishments, timed from charon's log on the initiator (IKE_SA_INIT
# request sent -> IKE_SA established). Target: hipd >= 3x faster (medians).
#
# Environment: BUILD, SWAN (1/0), SWAN_N, PIN (1: hipd a on CPUs 0-1, b on
# CPU 1, the floor measured on CPU 0).
set -u
N=${1:-200}
SWAN=${SWAN:-1}
SWAN_N=${SWAN_N:-50}
PIN=${PIN:-1}
K=10
. "$(dirname "$0")/lib.sh"
FLOOR_TOOL=$BUILD/tools/bench-floor
bench_need "$FLOOR_TOOL"
OUT=$NETNS_TMP/results
mkdir -p "$OUT"

# The Initiator may use both CPUs: its puzzle thread searches beside the
# R1 checks (hipd/engine/assoc/puzzle_worker.h) while the Responder waits for the I2.
cpu_a=-; cpu_b=-; cpu_floor=-
if [ "$PIN" = 1 ] && [ "$(nproc)" -ge 2 ]; then cpu_a=0,1; cpu_b=1; cpu_floor=0; fi

echo "bex-latency: $N base exchanges, ECDSA P-256, DH 7, K=$K (SHA-384 puzzle)"
netns_host a
netns_host b
netns_link a b 0
HIP_CONF=("puzzle_k = $K" "puzzle_auto = no" "dh_groups = 7" "hi_algorithm = ecdsa-p256")
bench_hipd_start a "$cpu_a" "${HIP_CONF[@]}"
# The Responder answers one source address here, faster than the per-source
# R1 limit (10/s) allows: raise it, this run measures latency, not DoS.
bench_hipd_start b "$cpu_b" "${HIP_CONF[@]}" "ratelimit_r1_per_source = 100000" \
	"ratelimit_r1_burst = 100000"
HA=$(bench_hit a)
HB=$(bench_hit b)
hcr a add map "$HB" 192.0.2.2 >/dev/null
hcr b add map "$HA" 192.0.2.1 >/dev/null

established() { hcr a --json show associations | grep -q '"state": "ESTABLISHED"'; }
gone() { ! hcr a --json show associations | grep -q '"peer_hit"'; }

one_bex() {
	hcr a trigger "$HB" >/dev/null || return 1
	sleep 0.004   # about one exchange: fewer hipconf polls competing for CPU
	poll_until 10 established || { echo "  base exchange $1 did not complete"; return 1; }
	hcr a close "$HB" >/dev/null || return 1
	poll_until 10 gone || { echo "  close $1 did not complete"; return 1; }
}

# The CPU floor, on the Initiator's CPU with its scheduling, before and after
# the exchanges (the lower one is used: the machine's best, not its worst).
measure_floor() {
	local pre=()
	[ "$cpu_floor" != - ] && pre+=(taskset -c "$cpu_floor")
	[ "${BENCH_RT:-1}" = 1 ] && pre+=(chrt -f 10)
	"${pre[@]}" "$FLOOR_TOOL" -k "$K" --json >"$1"
}
echo "measuring the CPU floor (tools/bench-floor -k $K)..."
measure_floor "$OUT/floor0.json" || exit 1

# Warm-up (page faults, first-use code paths), not counted.
for i in 1 2 3; do one_bex "warm-up $i" || exit 1; done
bench_stats a "$OUT/a0.json"
bench_stats b "$OUT/b0.json"
tpid=""
if command -v tcpdump >/dev/null && command -v tshark >/dev/null; then
	nsx a tcpdump -i va0 -U -s 96 -w "$OUT/hip.pcap" ip proto 139 >/dev/null 2>&1 &
	tpid=$!
	sleep 0.5
fi
t0=$(date +%s.%N)
for i in $(seq 1 "$N"); do one_bex "$i" || exit 1; done
t1=$(date +%s.%N)
if [ -n "$tpid" ]; then
	sleep 0.2
	kill "$tpid"
	wait "$tpid" 2>/dev/null
	# On a's veth: I1 (type 1) sent -> R2 (type 4) received.
	tshark -r "$OUT/hip.pcap" -T fields -e frame.time_epoch -e hip.packet_type 2>/dev/null |
		awk '$2 == 1 { t0 = $1 } $2 == 4 && t0 { printf "%.1f\n", ($1 - t0) * 1e6; t0 = 0 }' \
		>"$OUT/hip.wire"
fi
bench_stats a "$OUT/a1.json"
bench_stats b "$OUT/b1.json"
awk -v a="$t0" -v b="$t1" -v n="$N" 'BEGIN { printf "  %d exchanges in %.1f s of wall time (with hipconf polling)\n", n, b - a }'

rtt=$(nsx a ping -q -c 50 -i 0.01 192.0.2.2 | sed -n 's|.*= [0-9.]*/\([0-9.]*\)/.*|\1|p')
echo "  ping RTT a -> b (mean of 50): ${rtt:-?} ms"

echo "measuring the CPU floor again (tools/bench-floor -k $K)..."
measure_floor "$OUT/floor1.json" || exit 1

# ---- strongSwan IKEv2 ------------------------------------------------------
swan_ok=0
if [ "$SWAN" = 1 ]; then
	echo "strongSwan IKEv2, ECDSA P-256 certificates, $SWAN_N IKE_SAs..."
	# shellcheck source=swan.sh
	. "$(dirname "$0")/swan.sh"
	if swan_run "$SWAN_N" "$OUT/swan.txt"; then swan_ok=1; fi
fi

python3 - "$N" "$OUT" "$swan_ok" <<'PY'
import json, sys
n, out, swan_ok = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "1"
a0, a1 = json.load(open(out + "/a0.json")), json.load(open(out + "/a1.json"))
b0, b1 = json.load(open(out + "/b0.json")), json.load(open(out + "/b1.json"))
floors = [json.load(open(out + "/floor%d.json" % i)) for i in (0, 1)]
floor = min(floors, key=lambda f: f["floor_us"])

def pct(v, p):
    v = sorted(v)
    if not v:
        return float("nan")
    r = max(1, -(-len(v) * p // 100))
    return v[r - 1]

def run_samples(s0, s1, stage):
    """The samples this run added (the daemon keeps the last 1024)."""
    new = s1["bex_stages"][stage]["count"] - s0["bex_stages"][stage]["count"]
    return s1["bex_stages"][stage]["samples_us"][-new:] if new > 0 else []

rows = [("total (I1 sent -> R2 done, Initiator)", run_samples(a0, a1, "total")),
        ("T1 I1 -> R1 (Responder)", run_samples(b0, b1, "t1")),
        ("T2 R1 -> I2 (Initiator, incl. puzzle)", run_samples(a0, a1, "t2")),
        ("T3 I2 -> R2 (Responder)", run_samples(b0, b1, "t3")),
        ("T4 R2 processing (Initiator)", run_samples(a0, a1, "t4"))]
print()
print("HIP base exchange, %d runs (us)            n   median      p95      p99" % n)
for name, v in rows:
    print("  %-38s %5d %8.1f %8.1f %8.1f" % (name, len(v), pct(v, 50), pct(v, 95), pct(v, 99)))
tot = rows[0][1]
stages = sum(pct(v, 50) for _, v in rows[1:])
print("  sum of stage medians %.1f us; the rest (4 one-way trips, socket and loop) %.1f us"
      % (stages, pct(tot, 50) - stages))
f = floor["floor_us"]
print()
print("CPU floor measured before and after: %.1f / %.1f us; the lower one:"
      % (floors[0]["floor_us"], floors[1]["floor_us"]))
print("CPU floor: %.1f us = DH keygen %.1f + 2 x derive %.1f + 2 x sign %.1f"
      " + 3 x verify %.1f + 2^%d SHA-384 at %.0f/s (%.1f)"
      % (f, floor["dh_keygen_us"], floor["dh_derive_us"], floor["sign_us"],
         floor["verify_us"], floor["k"], floor["puzzle_hashes_per_s"], floor["puzzle_us"]))
med = pct(tot, 50)
print("  median total / floor = %.2f   (target <= 1.50: %s)"
      % (med / f, "met" if med <= 1.5 * f else "NOT met"))
def load(path):
    try:
        return [float(x) for x in open(path).read().split()]
    except OSError:
        return []

hw = load(out + "/hip.wire")
if hw:
    print("  on the wire (tcpdump on a's veth, I1 sent -> R2 received): n %d median %.1f "
          "p95 %.1f p99 %.1f us" % (len(hw), pct(hw, 50), pct(hw, 95), pct(hw, 99)))
if swan_ok:
    sl, sw = load(out + "/swan.txt"), load(out + "/swan.txt.wire")
    print()
    print("strongSwan IKEv2, ECDSA P-256 certificates, ECDH P-256, IKE_SA only (us):")
    print("  %-58s %5s %8s %8s %8s" % ("", "n", "median", "p95", "p99"))
    print("  %-58s %5d %8.0f %8.0f %8.0f" % ("charon log, initiating -> established (1 ms steps)",
          len(sl), pct(sl, 50), pct(sl, 95), pct(sl, 99)))
    if sw:
        print("  %-58s %5d %8.1f %8.1f %8.1f" % ("on the wire, IKE_SA_INIT sent -> IKE_AUTH "
              "response received", len(sw), pct(sw, 50), pct(sw, 95), pct(sw, 99)))
    print("  strongSwan / hipd, medians: daemon-measured %.2f (charon log / hipd total)"
          % (pct(sl, 50) / med), end="")
    if sw and hw:
        print(", on the wire %.2f" % (pct(sw, 50) / pct(hw, 50)), end="")
    best = min(pct(sl, 50) / med, pct(sw, 50) / pct(hw, 50) if sw and hw else 1e9)
    print("   (target >= 3.00: %s)" % ("met" if best >= 3 else "NOT met"))
else:
    print("\nstrongSwan: not measured (see above)")
PY
