#!/bin/bash
# bench/bex-matrix.sh OUTDIR [N=20] - base exchange stage times for each Host
# Identity type x DH group x puzzle K, as raw JSON for tools/report (issue 17,
# sections 1 and 2; a benchmark, not a test).
#
#   hipd in ns "a" (Initiator) and ns "b" (Responder) on one veth, one pair
#   per (HI, DH group): hi_algorithm and dh_groups set, puzzle_auto = no, the
#   Responder's per-source R1 limit raised (one source, many exchanges). For
#   each K the Responder's K is set with `hipconf set puzzle K`, then 2
#   warm-up exchanges and N measured ones (bench_bex_once, bench/lib.sh);
#   from K > 14 on, N halves per step of K (at least 3): 2^K work each.
#
# Writes OUTDIR/bex-HI-dhG-kK.json: {"hi", "dh", "k", "n", "conditions",
# "cpu_ns_initiator", "cpu_ns_responder" (all threads of each engine over the
# N exchanges, /proc/PID/task/*/schedstat), "samples_us": {"total", "t1"..
# "t4"}}: the stage samples hipd recorded in that run (hipconf --json show
# stats, "bex_stages"; T1, T3 from the Responder, the rest from the Initiator).
#
# Environment: BUILD, HIS (default "ecdsa-p256 ecdsa-p384 rsa-3072"), DHS
# (default "7 8 4"), KS (default "0"), PIN (1: a on CPUs 0-1, b on CPU 1).
set -u
OUTDIR=${1:?usage: bench/bex-matrix.sh OUTDIR [N]}
N=${2:-20}
HIS=${HIS:-ecdsa-p256 ecdsa-p384 rsa-3072}
DHS=${DHS:-7 8 4}
KS=${KS:-0}
PIN=${PIN:-1}
. "$(dirname "$0")/lib.sh"
. "$BENCH_ROOT/bench/peers.sh"   # peer_hipd_stop
bench_need
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)

cpu_a=-; cpu_b=-
if [ "$PIN" = 1 ] && [ "$(nproc)" -ge 2 ]; then cpu_a=0,1; cpu_b=1; fi
netns_host a b
netns_link a b 0
mkdir -p "$NETNS_TMP/keys"

for hi in $HIS; do
	for dh in $DHS; do
		conf=("hi_algorithm = $hi" "hi_file = $NETNS_TMP/keys/HOST-$hi.pem" "dh_groups = $dh"
			"puzzle_auto = no" "puzzle_k = 0")
		bench_hipd_start a "$cpu_a" "${conf[@]/HOST/a}"
		bench_hipd_start b "$cpu_b" "${conf[@]/HOST/b}" "ratelimit_r1_per_source = 100000" \
			"ratelimit_r1_burst = 100000"
		HA=$(bench_hit a) HB=$(bench_hit b)
		hcr a add map "$HB" 192.0.2.2 >/dev/null && hcr b add map "$HA" 192.0.2.1 >/dev/null ||
			{ echo "bex-matrix: hipconf add map failed" >&2; exit 1; }
		for k in $KS; do
			n=$N
			[ "$k" -le 14 ] || n=$((N >> (k - 14)))
			[ "$n" -ge 3 ] || n=3
			hcr b set puzzle "$k" >/dev/null || { echo "bex-matrix: set puzzle $k failed" >&2; exit 1; }
			echo "bex-matrix: $hi, DH group $dh, K=$k: $n exchanges"
			for i in 1 2; do bench_bex_once a b "$HB" || exit 1; done
			bench_stats a "$NETNS_TMP/a0.json"; bench_stats b "$NETNS_TMP/b0.json"
			ca0=$(bench_cpu_ns "$(bench_engine_pid a)") cb0=$(bench_cpu_ns "$(bench_engine_pid b)")
			for i in $(seq "$n"); do bench_bex_once a b "$HB" || exit 1; done
			ca1=$(bench_cpu_ns "$(bench_engine_pid a)") cb1=$(bench_cpu_ns "$(bench_engine_pid b)")
			bench_stats a "$NETNS_TMP/a1.json"; bench_stats b "$NETNS_TMP/b1.json"
			python3 - "$NETNS_TMP" "$OUTDIR/bex-$hi-dh$dh-k$k.json" "$hi" "$dh" "$k" "$n" \
				"$((ca1 - ca0))" "$((cb1 - cb0))" "$(bench_conditions)" <<-'PY'
			import json, sys
			tmp, out, hi, dh, k, n, ca, cb, cond = sys.argv[1:]
			st = {f: json.load(open("%s/%s.json" % (tmp, f))) for f in ("a0", "a1", "b0", "b1")}
			def run(side, stage):
			    """The samples this run added (hipd keeps the last 1024)."""
			    s0, s1 = st[side + "0"]["bex_stages"][stage], st[side + "1"]["bex_stages"][stage]
			    new = s1["count"] - s0["count"]
			    return s1["samples_us"][-new:] if new > 0 else []
			samples = {"total": run("a", "total"), "t1": run("b", "t1"), "t2": run("a", "t2"),
			           "t3": run("b", "t3"), "t4": run("a", "t4")}
			json.dump({"hi": hi, "dh": int(dh), "k": int(k), "n": int(n),
			           "conditions": json.loads(cond), "cpu_ns_initiator": int(ca),
			           "cpu_ns_responder": int(cb), "samples_us": samples}, open(out, "w"))
			PY
		done
		peer_hipd_stop
	done
done
echo "bex-matrix: done ($OUTDIR)"
