#!/bin/bash
# bench/kernel-throughput.sh - TCP throughput between two HITs over hipd's kernel datapath (XFRM,
# ESP BEET) against plain TCP between the same two namespaces, as a ratio (issue 4, Performance:
# "in the VM, report the kernel datapath's throughput relative to plain in the same VM").
#
#   usage: bench/kernel-throughput.sh [SECONDS=5] [SUITE=13] [ROUNDS=2] [RTT_DIR]   (root)
#
# Where this kernel takes no ESP SA (this project's CI machine), the script runs itself inside
# the ESP VM (tools/kvm/run-in-esp-vm.sh: Debian 12's kernel under qemu). Under TCG the CPU is
# emulated, so absolute figures mean little; the ratio is what counts: both paths run in the
# same VM, alternately (plain, kernel, plain, kernel, ...: ROUNDS pairs), and the means are
# compared. iperf3 runs with -O 1 (the first second, slow start, is not counted). The guest runs
# the host's userland, so iperf3 must be installed on the host (tools/install-deps.sh --bench).
# A benchmark, not a test: figures depend on the machine and on whatever else it runs.
#
# Two hipd of BUILD (default build/) with datapath = kernel and only ESP suite SUITE offered,
# HITs mapped to the IPv6 locators, one base exchange (the first ping, through ACQUIRE); the
# kernel's SA counters must show the transfer went through ESP, else the run is not counted.
#
# With RTT_DIR, the round trips too, after the throughput rounds, by bench/datapath-matrix.sh's
# method (bench_rtt of bench/lib.sh): RTT_DIR/plain.{ping,tcprtt} locator to locator and
# RTT_DIR/kernel.{ping,tcprtt} HIT to HIT over the kernel datapath, in the same VM (tools/report
# puts them in section 3 of the experiments report); RTT_DIR/kernel.note says why the kernel
# path's are missing (no ESP packets counted on the SAs during them). RTT_DIR is shared with the
# VM read-write (HIPD_VM_RW).
# Environment: BUILD, PING_N and TCP_N (bench_rtt, default 100), HIPD_VM_* (the VM harness),
# KERNEL_BENCH_IN_VM=1 (force the VM).
set -u
BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SECS=${1:-5}
SUITE=${2:-13}
ROUNDS=${3:-2}
RTT_DIR=${4:-}
if [ -n "$RTT_DIR" ]; then
	mkdir -p "$RTT_DIR" && RTT_DIR=$(cd "$RTT_DIR" && pwd) || exit 1
fi

# --- where to run ---------------------------------------------------------------------------

# bench_kernel_has_esp of bench/lib.sh, in a subshell: lib.sh's namespace framework cleans up
# when that ends, before this script may exec the VM.
kernel_has_esp() {
	bash -c ". '$BENCH_ROOT/bench/lib.sh' >/dev/null 2>&1 && bench_kernel_has_esp"
}

[ "$(id -u)" -eq 0 ] || { echo "kernel-throughput: needs root" >&2; exit 1; }
if [ "${HIPD_VM_GUEST:-}" != 1 ] &&
	{ [ "${KERNEL_BENCH_IN_VM:-0}" = 1 ] || ! kernel_has_esp; }; then
	vm=$BENCH_ROOT/tools/kvm/run-in-esp-vm.sh
	why=$("$vm" --probe) || { echo "kernel-throughput: no ESP here and no VM: $why"; exit 1; }
	echo "# this kernel takes no ESP SA: running in the ESP VM (Debian 12's kernel, qemu)"
	BUILD=${BUILD:-$BENCH_ROOT/build}
	case $BUILD in /*) ;; *) BUILD=$(pwd)/$BUILD;; esac
	export BUILD
	[ -z "$RTT_DIR" ] || export HIPD_VM_RW=${HIPD_VM_RW:+$HIPD_VM_RW:}$RTT_DIR
	export PING_N=${PING_N:-100} TCP_N=${TCP_N:-100}
	export HIPD_VM_ENV="${HIPD_VM_ENV:-} PING_N TCP_N"
	cd "$BENCH_ROOT" || exit 1
	exec "$vm" bash bench/kernel-throughput.sh "$SECS" "$SUITE" "$ROUNDS" "$RTT_DIR"
fi

# --- in a kernel with ESP -------------------------------------------------------------------

. "$BENCH_ROOT/bench/lib.sh"
bench_need
command -v iperf3 >/dev/null ||
	{ echo "kernel-throughput: needs iperf3 (on the host: tools/install-deps.sh --bench)"; exit 1; }
# One modprobe for what the kernel would autoload one by one (each process is slow under TCG).
modprobe -q -a xfrm_user esp4 esp6 veth tun authenc authencesn echainiv seqiv gcm ctr \
	ghash_clmulni_intel 2>/dev/null
[ -c /dev/net/tun ] || { mkdir -p /dev/net && mknod /dev/net/tun c 10 200; } 2>/dev/null
BENCH_RT=0
export BENCH_RT

# esp_packets NAME: packets counted on the SAs of NAME's hipd (ip -s xfrm state).
esp_packets() {
	# (with -s, ip prints "reqid %u(0x%08x)")
	nsx "$1" ip -s xfrm state | awk '/reqid 1212764160[( ]/{ ours = 1 } /^src /{ ours = 0 }
		ours && /\(packets\)/ { sub(/\(packets\).*/, "", $2); n += $2 } END { print n + 0 }'
}

# tcp DST: iperf3 a -> b (DST) for SECS; prints Mbit/s, or nothing on failure.
tcp() {
	local sp out
	nsx b iperf3 -s -1 -p 5201 >"$NETNS_TMP/iperf3-s.out" 2>&1 &
	sp=$!
	wait_for "iperf3 server" 20 eval "nsx b ss -Hltn 'sport = :5201' | grep -q ." || return 1
	out=$(nsx a timeout $((SECS + 60)) iperf3 -c "$1" -p 5201 -t "$SECS" -O 1 -J 2>&1)
	kill "$sp" 2>/dev/null
	wait "$sp" 2>/dev/null
	echo "$out" | python3 -c 'import json,sys
try: print("%.1f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e6))
except Exception: pass'
}

echo "# $(date -u '+%F %T') UTC, $(uname -r), $(nproc) vCPUs, load $(cut -d' ' -f1-3 /proc/loadavg)," \
	"iperf3 $SECS s, $ROUNDS rounds, ESP suite $SUITE"
[ "${HIPD_VM_GUEST:-}" = 1 ] && echo "# in the ESP VM (qemu; TCG unless KVM works): compare the ratio only"
netns_host a b
netns_link a b 0
bench_hipd_start a - "datapath = kernel" "esp_suites = $SUITE"
bench_hipd_start b - "datapath = kernel" "esp_suites = $SUITE"
wait_for "hipd on the kernel datapath" 30 grep -q "datapath: kernel" "$NETNS_TMP/a/hipd.log" ||
	{ echo "kernel-throughput: hipd is not on the kernel datapath:"; tail -5 "$NETNS_TMP/a/hipd.log"; exit 1; }
HIT_A=$(bench_hit a) HIT_B=$(bench_hit b)
hcr a add map "$HIT_B" "$(addr6 b 0)" >/dev/null && hcr b add map "$HIT_A" "$(addr6 a 0)" >/dev/null ||
	{ echo "kernel-throughput: hipconf add map failed"; exit 1; }
nsx a ping -6 -c 1 -W 30 "$HIT_B" >/dev/null ||
	{ echo "kernel-throughput: no ping between the HITs:"; tail -5 "$NETNS_TMP/a/hipd.log"; exit 1; }
echo "# hipd $("$HIPD" --version | head -1), a $HIT_A -> b $HIT_B over $(addr6 a 0) -> $(addr6 b 0)"

plain_sum=0 kern_sum=0 n_plain=0 n_kern=0
for r in $(seq 1 "$ROUNDS"); do
	m=$(tcp "$(addr6 b 0)")
	if [ -n "$m" ]; then
		echo "round $r: plain  $m Mbit/s"
		plain_sum=$(awk -v a="$plain_sum" -v b="$m" 'BEGIN { print a + b }')
		n_plain=$((n_plain + 1))
	else
		echo "round $r: plain  iperf3 failed"
	fi
	p0=$(esp_packets a)
	m=$(tcp "$HIT_B")
	p1=$(esp_packets a)
	# SECS of TCP at even 1 Mbit/s is hundreds of packets.
	if [ -n "$m" ] && [ $((p1 - p0)) -ge 200 ]; then
		echo "round $r: kernel $m Mbit/s ($((p1 - p0)) packets on a's SAs)"
		kern_sum=$(awk -v a="$kern_sum" -v b="$m" 'BEGIN { print a + b }')
		n_kern=$((n_kern + 1))
	else
		echo "round $r: kernel not measured (iperf3: ${m:-failed}; $((p1 - p0)) packets on a's SAs)"
	fi
done
if [ -n "$RTT_DIR" ]; then
	bench_tcp_echo_server b || echo "kernel-throughput: no TCP echo server in b"
	bench_rtt a "$(addr6 b 0)" "$RTT_DIR/plain"
	p0=$(esp_packets a)
	bench_rtt a "$HIT_B" "$RTT_DIR/kernel"
	p1=$(esp_packets a)
	# each ping and each TCP round trip is at least one packet out on a's SA
	if [ $((p1 - p0)) -lt "${PING_N:-100}" ]; then
		echo "only $((p1 - p0)) packets on a's SAs during the round trips" \
			>"$RTT_DIR/kernel.note"
		rm -f "$RTT_DIR/kernel.ping" "$RTT_DIR/kernel.tcprtt"
	fi
	echo "rtt: plain and kernel datapath ($((p1 - p0)) packets on a's SAs) in $RTT_DIR"
	kill "$(cat "$NETNS_TMP/echo.pid")" 2>/dev/null
	wait "$(cat "$NETNS_TMP/echo.pid")" 2>/dev/null
fi
echo
if [ $n_plain -gt 0 ] && [ $n_kern -gt 0 ]; then
	awk -v p="$plain_sum" -v np=$n_plain -v k="$kern_sum" -v nk=$n_kern 'BEGIN {
		printf "plain           %8.1f Mbit/s (mean of %d)\n", p / np, np
		printf "kernel datapath %8.1f Mbit/s (mean of %d)\n", k / nk, nk
		printf "kernel / plain throughput: %.3f\n", (k / nk) / (p / np) }'
else
	echo "kernel / plain throughput: n/a (a measurement failed)"
	exit 1
fi
