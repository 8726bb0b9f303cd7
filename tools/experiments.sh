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
#   7 instructions per exchange (bench/bex-cost-arch.sh) and per MB of
#     userspace ESP seal and open (bench/esp-cost-arch.sh), amd64 and, in the
#     full run, armhf and arm64 under qemu-user; per MB of the whole userspace
#     datapath (bench/esp-cost.sh, amd64) and each engine's CPU time per MB (from 4)
# The full run sets up the ARM cross builds itself: tools/cross-build.sh
# --deps-only ARCH (root, apt), then the scripts of 7 configure and build
# build-ARCH (bench/arch.sh); an ARCH that cannot be set up is left out and
# section 7's note says why.
# --quick: the smallest sizes, amd64 only (CI; about 2 minutes on the
# project's 2-core VM); the full run must stay under 45 minutes (bench/README.md
# has its times). With EXP_KERNEL=1 section 3 and 4 add the kernel datapath
# (bench/kernel-throughput.sh: throughput ratio and RTT), which runs itself in
# the ESP VM when this kernel has no ESP: only that step, the rest runs here.
# Exit status: 0 when every section produced data and a plot (--check, accepted
# for clarity, is always on).
# Environment: BUILD (default build), EXP_KERNEL=1, EXP_ARCHES (full run's
# foreign architectures, default "armhf arm64"; BUILD_ARMHF / BUILD_ARM64
# override build-ARCH), PYTHON (default /usr/bin/python3: Debian's
# matplotlib), and each bench script's own.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
QUICK=0
OUT=""
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1;;
	--out) OUT=$2; shift;;
	--check) ;;   # always: the exit status says whether every section has data and a plot
	*) echo "usage: tools/experiments.sh [--quick] [--check] [--out DIR]" >&2; exit 2;;
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
	tools/uesp-pair tools/bench-esp-cost \
	>"$RAW/make.out" 2>&1 || { tail -20 "$RAW/make.out"; exit 1; }

# arm_build ARCH: the cross build for bex-cost-arch.sh (BUILD_ARMHF, BUILD_ARM64, or build-ARCH)
arm_build() {
	local v
	v=BUILD_$(echo "$1" | tr '[:lower:]' '[:upper:]')
	echo "${!v:-$ROOT/build-$1}"
}

# arch_setup ARCH: the cross toolchain and ARCH libraries (tools/cross-build.sh
# --deps-only, root and apt), then the cross build of section 7's two programs
# (bench/arch.sh: configure --host, make, ARCH's valgrind, binfmt_misc); 1 with
# the reason in section 7's note.
arch_setup() {
	local a=$1 log=$RAW/cost/setup-$1.txt t0
	t0=$(date +%s)
	echo "experiments: section 7: setting up $a (cross toolchain, build, valgrind:$a)"
	if [ "$(id -u)" -ne 0 ]; then
		echo "$a: not measured: setting up its cross toolchain needs root" >>"$RAW/notes/s7.txt"
		return 1
	fi
	if ! nice -n 5 "$ROOT/tools/cross-build.sh" --deps-only "$a" >"$log" 2>&1; then
		echo "$a: not measured: tools/cross-build.sh --deps-only $a failed:" \
			"$(grep -v '^ *$' "$log" | tail -1)" >>"$RAW/notes/s7.txt"
		return 1
	fi
	if ! BUILD_ARM=$(arm_build "$a") MAKEFLAGS=-j"$(nproc)" nice -n 5 bash -c \
		". '$ROOT/bench/arch.sh' && arch_prepare $a tools/bench-bex-cost &&
		arch_prepare $a tools/bench-esp-cost" >>"$log" 2>&1; then
		echo "$a: not measured: its cross build failed: $(grep -v '^ *$' "$log" | tail -1)" \
			"(raw/cost/setup-$a.txt)" >>"$RAW/notes/s7.txt"
		return 1
	fi
	echo "section 7: $(($(date +%s) - t0)) s, setup of $a" >>"$RAW/times.txt"
}

if [ $QUICK = 1 ]; then
	BEX_N=10 DHS="7 8" KS="0 4 8 12 16" SWEEP_N=5 SECS=1 SUITES=13 PING_N=50 TCP_N=50 HS_N=5
	MOVES_N=5 TS_SECS=3 TS_MOVES=1 COST_N2=4 ARCHES="" BEX_N_HO=3 ESP_MB="1 2"
	ESP_ARCH_MB=2
else
	BEX_N=100 DHS="7 8 4 3" KS="0 4 8 10 12 14 16 18 20" SWEEP_N=20 SECS=5 SUITES="13 12 8 9 1"
	PING_N=200 TCP_N=200 HS_N=20 MOVES_N=100 TS_SECS=10 TS_MOVES=3 COST_N2=12 BEX_N_HO=10
	ESP_ARCH_MB=4
	ESP_MB="2 10"
	ARCHES=${EXP_ARCHES-armhf arm64}
fi
[ $QUICK = 0 ] ||
	echo "quick mode: amd64 only (armhf and arm64 in the full run, under qemu-user)" \
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
	section 3,4 sh -c "PING_N=$PING_N TCP_N=$TCP_N '$ROOT/bench/kernel-throughput.sh' '$SECS' \
		13 2 '$RAW/kernel' >'$RAW/kernel/kernel-throughput.txt' 2>&1"
	kt=$RAW/kernel/kernel-throughput.txt
	why=$(grep -v '^#' "$kt" 2>/dev/null | grep -v '^ *$' | tail -1)
	if [ -s "$RAW/kernel/kernel.note" ]; then
		echo "kernel datapath RTT: not measured: $(cat "$RAW/kernel/kernel.note")" \
			>>"$RAW/notes/s3.txt"
	elif [ ! -s "$RAW/kernel/kernel.ping" ]; then
		echo "kernel datapath RTT: not measured: ${why:-no output} (raw/kernel/)" \
			>>"$RAW/notes/s3.txt"
	fi
	grep -q '^kernel / plain throughput: [0-9]' "$kt" 2>/dev/null ||
		echo "kernel datapath throughput: not measured: ${why:-no output} (raw/kernel/)" \
			>>"$RAW/notes/s4.txt"
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
section 7 sh -c "MB1=1 MB2=$ESP_ARCH_MB '$ROOT/bench/esp-cost-arch.sh' amd64 \
	>'$RAW/cost/esp-cost-arch.txt' 2>&1"
for a in $ARCHES; do
	arch_setup "$a" || continue
	section 7 sh -c "BUILD_ARM='$(arm_build "$a")' N1=2 N2=$COST_N2 \
		'$ROOT/bench/bex-cost-arch.sh' $a >>'$RAW/cost/bex-cost-arch.txt' 2>&1"
	section 7 sh -c "BUILD_ARM='$(arm_build "$a")' MB1=1 MB2=$ESP_ARCH_MB \
		'$ROOT/bench/esp-cost-arch.sh' $a >>'$RAW/cost/esp-cost-arch.txt' 2>&1"
	for f in bex esp; do
		grep -q "^  $a " "$RAW/cost/$f-cost-arch.txt" ||
			echo "$a: $f-cost-arch.sh measured nothing: $(grep -E '^(arch|[a-z-]+-cost-arch):' \
				"$RAW/cost/$f-cost-arch.txt" | grep -v 'instructions per' | tail -1)" \
				>>"$RAW/notes/s7.txt"
	done
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
