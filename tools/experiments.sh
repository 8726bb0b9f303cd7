#!/bin/bash
# tools/experiments.sh [--quick] [--out DIR] - the seed experiments of HIP,
# reproduced on this machine by one command (issue 17; `make experiments`).
# Runs the benchmarks of bench/ in network namespaces (root), keeps their raw
# outputs in DIR/raw and writes DIR/summary.md, CSV files and PNG plots with
# tools/report (python3-matplotlib):
#   1 base exchange stage times T1-T4 per HI type x DH group (bench/bex-matrix.sh)
#   2 puzzle difficulty sweep (bench/bex-matrix.sh with KS, tools/bench-floor)
#   3 RTT and 4 throughput, plain / hipd per ESP suite / strongSwan /
#     wireguard-go (bench/datapath-matrix.sh); the kernel datapath with
#     EXP_KERNEL=1 in the ESP VM (bench/kernel-throughput.sh)
#   5 handover time (bench/handover.sh) and TCP across a move (bench/handover-tcp.sh)
#   6 HIP vs IKEv2 (strongSwan, certificates and PSK) vs wireguard-go (from 1, 3, 4)
#   7 instructions per exchange, amd64 and armhf/arm64 where their cross
#     build exists (bench/bex-cost-arch.sh); per MB of userspace ESP
#     (bench/esp-cost.sh, amd64) and each engine's CPU time per MB (from 4)
# --quick: the smallest sizes (CI; about 2 minutes on the project's 2-core VM);
# the full run about 7 minutes there (armhf included; it must stay under 45).
# Exit status: 0 when every section produced data and a plot.
# Environment: BUILD (default build), EXP_KERNEL=1, EXP_ARCHES (full run's
# foreign architectures, default "armhf arm64", each only if its cross build,
# BUILD_ARMHF / BUILD_ARM64 or build-ARCH, has tools/bench-bex-cost), PYTHON
# (default /usr/bin/python3: Debian's matplotlib), and each bench script's own.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
QUICK=0
OUT=""
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1;;
	--out) OUT=$2; shift;;
	*) echo "usage: tools/experiments.sh [--quick] [--out DIR]" >&2; exit 2;;
	esac
	shift
done
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD;; esac
export BUILD
PYTHON=${PYTHON:-/usr/bin/python3}
export PYTHONDONTWRITEBYTECODE=1   # no __pycache__ in the source tree
[ -x "$PYTHON" ] || PYTHON=python3
[ "$(id -u)" -eq 0 ] || { echo "experiments: needs root (network namespaces)" >&2; exit 1; }
OUT=${OUT:-$BUILD/experiments/$(date -u +%Y%m%dT%H%M%SZ)$([ $QUICK = 1 ] && echo -quick)}
RAW=$OUT/raw
mkdir -p "$RAW"/{bex,sweep,datapath,handover,cost,kernel,conditions,notes}

if ! command -v iperf3 >/dev/null || ! command -v valgrind >/dev/null ||
	! "$PYTHON" -c 'import matplotlib' 2>/dev/null; then
	echo "experiments: installing what bench/ needs (tools/install-deps.sh --bench)"
	"$ROOT/tools/install-deps.sh" --bench >/dev/null || exit 1
fi
make -s -C "$BUILD" -j"$(nproc)" hipd/hipd tools/hipconf tools/bench-floor tools/bench-bex-cost \
	tools/uesp-pair \
	>"$RAW/make.out" 2>&1 || { tail -20 "$RAW/make.out"; exit 1; }

# arm_build ARCH: the cross build for bex-cost-arch.sh (BUILD_ARMHF, BUILD_ARM64, or build-ARCH)
arm_build() {
	local v
	v=BUILD_$(echo "$1" | tr '[:lower:]' '[:upper:]')
	echo "${!v:-$ROOT/build-$1}"
}

if [ $QUICK = 1 ]; then
	BEX_N=10 DHS="7 8" KS="0 4 8 12 16" SWEEP_N=5 SECS=1 SUITES=13 PING_N=50 TCP_N=50 HS_N=5
	MOVES_N=5 TS_SECS=3 TS_MOVES=1 COST_N2=4 ARCHES="" BEX_N_HO=3 ESP_MB="1 2"
else
	BEX_N=100 DHS="7 8 4 3" KS="0 4 8 10 12 14 16 18 20" SWEEP_N=20 SECS=5 SUITES="13 12 8 9 1"
	PING_N=200 TCP_N=200 HS_N=20 MOVES_N=100 TS_SECS=10 TS_MOVES=3 COST_N2=12 BEX_N_HO=10
	ESP_MB="2 10"
	ARCHES=""
	for a in ${EXP_ARCHES:-armhf arm64}; do
		d=$(arm_build "$a")
		if [ -x "$d/tools/bench-bex-cost" ]; then
			ARCHES="$ARCHES $a"
		else
			echo "$a: not measured: no cross build of tools/bench-bex-cost in $d" \
				"(bench/bex-cost-arch.sh $a makes one; tools/cross-build.sh --deps-only $a)" \
				>>"$RAW/notes/s7.txt"
		fi
	done
fi
[ $QUICK = 0 ] ||
	echo "quick mode: amd64 only (armhf/arm64 in the full run, where their cross build exists)" \
		>>"$RAW/notes/s7.txt"

t_all=$(date +%s)
cond() { "$PYTHON" "$ROOT/tools/report/conditions.py" >>"$RAW/conditions/s$1.json"; }
# section N CMD...: run one step of section(s) N (comma-separated), log and time it
section() {
	local nums=$1 t0 rc n
	shift
	echo "experiments: section $nums: $*"
	for n in ${nums//,/ }; do cond "$n"; done
	t0=$(date +%s)
	nice -n 5 "$@" >>"$RAW/log.txt" 2>&1
	rc=$?
	for n in ${nums//,/ }; do cond "$n"; done
	echo "section $nums: $(($(date +%s) - t0)) s, exit $rc: $*" >>"$RAW/times.txt"
	[ $rc -eq 0 ] || echo "experiments: section $nums step failed ($rc): see $RAW/log.txt" >&2
	return 0
}

section 1 env HIS="ecdsa-p256 ecdsa-p384 rsa-3072" DHS="$DHS" KS=0 \
	"$ROOT/bench/bex-matrix.sh" "$RAW/bex" "$BEX_N"
section 2 sh -c "'$BUILD/tools/bench-floor' -k 0 --json >'$RAW/sweep/floor.json'"
section 2 env HIS=ecdsa-p256 DHS=7 KS="$KS" "$ROOT/bench/bex-matrix.sh" "$RAW/sweep" "$SWEEP_N"
section 3,4,6 env SUITES="$SUITES" PING_N="$PING_N" TCP_N="$TCP_N" HS_N="$HS_N" \
	"$ROOT/bench/datapath-matrix.sh" "$RAW/datapath" "$SECS"
# the kernel datapath (XFRM): only where the kernel has ESP, or in the ESP VM on request
if [ "${EXP_KERNEL:-0}" = 1 ]; then
	section 4 sh -c "'$ROOT/bench/kernel-throughput.sh' '$SECS' 13 2 \
		>'$RAW/kernel/kernel-throughput.txt' 2>&1"
	echo "kernel datapath RTT: not measured (bench/kernel-throughput.sh measures throughput only)" \
		>>"$RAW/notes/s3.txt"
else
	why="this kernel takes no ESP SA (EXP_KERNEL=1 measures it in the ESP VM,"
	why="$why tools/kvm/run-in-esp-vm.sh)"
	bash -c ". '$ROOT/bench/lib.sh' >/dev/null 2>&1; bench_kernel_has_esp" &&
		why="not requested (EXP_KERNEL=1 measures it)"
	for n in 3 4; do echo "kernel datapath: not measured: $why" >>"$RAW/notes/s$n.txt"; done
fi
section 5 sh -c "BEX_N=$BEX_N_HO '$ROOT/bench/handover.sh' '$MOVES_N' \
	>'$RAW/handover/handover.txt' 2>&1"
section 5 "$ROOT/bench/handover-tcp.sh" "$RAW/handover" "$TS_SECS" "$TS_MOVES"
# shellcheck disable=SC2086
section 7 sh -c "N1=2 N2=$COST_N2 '$ROOT/bench/bex-cost-arch.sh' amd64 \
	>'$RAW/cost/bex-cost-arch.txt' 2>&1"
for a in $ARCHES; do
	section 7 sh -c "BUILD_ARM='$(arm_build "$a")' N1=2 N2=$COST_N2 \
		'$ROOT/bench/bex-cost-arch.sh' $a >>'$RAW/cost/bex-cost-arch.txt' 2>&1"
done
section 7 "$ROOT/bench/esp-cost.sh" "$RAW/cost" $ESP_MB

{
	echo "Run: $(date -u '+%F %T') UTC, $([ $QUICK = 1 ] && echo "\`--quick\`" || echo "full run"),"
	echo "$(($(date +%s) - t_all)) s; $("$BUILD/hipd/hipd" --version 2>/dev/null | head -1)"
	echo "($(cd "$ROOT" && git describe --always --dirty 2>/dev/null || echo "no git")). Sizes: $BEX_N"
	echo "exchanges per HI x DH (DH groups $DHS), sweep K = $KS ($SWEEP_N exchanges, fewer"
	echo "above K=14), iperf3 $SECS s per path, ESP suites $SUITES, $PING_N pings, $TCP_N TCP"
	echo "round trips, $HS_N handshakes each, $MOVES_N moves. Raw outputs: \`raw/\` (times per"
	echo "step: \`raw/times.txt\`)."
} >"$RAW/run.txt"
(cd "$ROOT" && "$PYTHON" -m tools.report "$RAW" "$OUT" --check)
rc=$?
echo "experiments: $(($(date +%s) - t_all)) s; report: $OUT/summary.md"
exit $rc
