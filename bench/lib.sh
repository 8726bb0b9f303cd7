# bench/lib.sh - shared by the benchmarks in bench/ (sourced, bash).
#
# Reuses the netns test framework (tests/netns/lib.sh: namespaces, veth,
# cleanup of every namespace and process on exit) and adds what benchmarks
# need: hipd with quiet logging, hipconf without `ip netns exec` (the
# control socket is a path, not namespaced), JSON fields, CPU times.
#
# Environment: BUILD (default: build/ at the top of the tree; hipd, hipconf
# and tools/bench-* are taken from it), NETNS_ID (namespace name prefix).
BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$BENCH_ROOT/build}
case $BUILD in /*) ;; *) BUILD=$(pwd)/$BUILD;; esac
NETNS_ID=${NETNS_ID:-b$$}
export BUILD NETNS_ID
# shellcheck source=../tests/netns/lib.sh
. "$BENCH_ROOT/tests/netns/lib.sh"

bench_need() {
	local f
	[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (network namespaces)" >&2; exit 1; }
	for f in "$HIPD" "$HIPCONF" "$@"; do
		[ -x "$f" ] || { echo "bench: $f is not built (make -C $BUILD)" >&2; exit 1; }
	done
	command -v python3 >/dev/null || { echo "bench: needs python3" >&2; exit 1; }
}

# bench_hipd_start NAME CPU [config lines...]: hipd in namespace NAME,
# logging at notice (per-packet log lines would be measured too), pinned to
# CPU when given (a number; "-" for no pinning). With BENCH_RT=1 (default)
# hipd runs SCHED_FIFO (chrt -f 10) so other work on a shared machine does
# not preempt it in the middle of a measurement.
bench_hipd_start() {
	local n=$1 cpu=$2 d; shift 2
	d=$NETNS_TMP/$n
	mkdir -p "$d"
	{
		echo "config_dir = $d"
		echo "control_socket = $d/hipd.sock"
		echo "pid_file = $d/hipd.pid"
		echo "state_dir = $d"
		echo "lsi_file = $d/lsi"
		echo "hosts_file = $d/hosts"
		echo "user = root"
		for line in "$@"; do echo "$line"; done
		case " $* " in *"log_level"*) ;; *) echo "log_level = notice";; esac
	} >"$d/hipd.conf"
	touch "$d/hosts"
	local pre=()
	[ "$cpu" = "-" ] || pre+=(taskset -c "$cpu")
	[ "${BENCH_RT:-1}" = 1 ] && pre+=(chrt -f 10)
	nsx "$n" "${pre[@]}" "$HIPD" --foreground --log-stderr --config "$d/hipd.conf" \
		>"$d/hipd.log" 2>&1 &
	echo $! >"$d/hipd.pid.launch"
	wait_for "hipd $n ready" 10 test -S "$d/hipd.sock" || { tail "$d/hipd.log"; exit 1; }
	wait_for "hipd $n pid file" 5 test -s "$d/hipd.pid" || exit 1
}

# hipd's pid in namespace NAME (the pid file hipd writes).
bench_hipd_pid() { cat "$NETNS_TMP/$1/hipd.pid"; }
# bench_engine_pid NAME: the process that runs the protocol and the
# datapath: with privilege separation (the default) the pid file's child,
# else the daemon itself.
bench_engine_pid() {
	local p
	p=$(bench_hipd_pid "$1")
	pgrep -P "$p" | head -1 | grep . || echo "$p"
}

# hcr NAME ARGS...: hipconf against NAME's daemon, from the root namespace.
hcr() { local n=$1; shift; "$HIPCONF" --socket "$NETNS_TMP/$n/hipd.sock" "$@"; }

# bench_hit NAME: the daemon's HIT.
bench_hit() { hcr "$1" --json show hi | sed -n 's/.*"hit" *: *"\([^"]*\)".*/\1/p' | head -1; }

# bench_stats NAME FILE: hipconf --json show stats into FILE.
bench_stats() { hcr "$1" --json show stats >"$2"; }

# jget FILE EXPR: a Python expression over the JSON value j of FILE.
jget() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# cpu_ticks PID: utime + stime of PID in clock ticks (/proc/PID/stat).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
CLK_TCK=$(getconf CLK_TCK)

# poll_until SECONDS CMD...: run CMD every 2 ms until it succeeds.
poll_until() {
	local secs=$1 end; shift
	end=$(($(date +%s%N) + secs * 1000000000))
	until "$@" >/dev/null 2>&1; do
		[ "$(date +%s%N)" -lt "$end" ] || return 1
		sleep 0.002
	done
}

# ---- shared by bench/bex-matrix.sh (issue 17; bex-latency.sh has the same loop) ----
# bench_bex_once I R HIT_R: one base exchange I -> R (hipconf trigger, poll for
# ESTABLISHED, close, poll until the association is gone); 1 on a timeout.
bench_bex_once() {
	local i=$1 hr=$3
	hcr "$i" trigger "$hr" >/dev/null || return 1
	sleep 0.004   # about one exchange: fewer hipconf polls competing for CPU
	poll_until 60 eval "hcr $i --json show associations | grep -q '\"state\": \"ESTABLISHED\"'" ||
		{ echo "  base exchange $i -> $2 did not complete" >&2; return 1; }
	hcr "$i" close "$hr" >/dev/null || return 1
	poll_until 10 eval "! hcr $i --json show associations | grep -q '\"peer_hit\"'" ||
		{ echo "  close $i -> $2 did not complete" >&2; return 1; }
}

# bench_cpu_ns PID: CPU time of all of PID's threads in ns (first field of
# /proc/PID/task/*/schedstat: time on a CPU; finer than utime + stime).
bench_cpu_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# bench_conditions: one line of JSON, the machine a figure was measured on.
bench_conditions() { python3 "$BENCH_ROOT/tools/report/conditions.py"; }

# bench_kernel_has_esp: 0 when the running kernel takes an ESP SA (XFRM), in
# a scratch namespace (the probe of bench/kernel-throughput.sh).
bench_kernel_has_esp() {
	local p=hipd-esp-probe-$$ ok=1
	ip netns add $p 2>/dev/null || return 1
	ip -n $p xfrm state add src 192.0.2.1 dst 192.0.2.2 proto esp spi 0x100 \
		enc 'cbc(aes)' 0x000102030405060708090a0b0c0d0e0f \
		auth-trunc 'hmac(sha256)' 0x000102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f \
		128 2>/dev/null || ok=0
	ip netns del $p
	[ $ok = 1 ]
}

# ---- RTT of one path, shared by bench/datapath-matrix.sh and bench/kernel-throughput.sh ----
# bench_tcp_echo_server NS: a TCP echo server on [::]:7001 in namespace NS
# (TCP_NODELAY; serves one connection after another), its pid in
# $NETNS_TMP/echo.pid; 1 if it is not listening within 20 s.
bench_tcp_echo_server() {
	nsx "$1" python3 -c 'import socket
s = socket.socket(socket.AF_INET6); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("::", 7001)); s.listen(1)
while True:
    c, _ = s.accept(); c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while True:
        d = c.recv(64)
        if not d: break
        c.sendall(d)
    c.close()' &
	echo $! >"$NETNS_TMP/echo.pid"
	wait_for "TCP echo server" 20 eval "nsx $1 ss -Hltn 'sport = :7001' | grep -q ."
}

# bench_rtt NS DST OUT: from namespace NS to DST (the echo server's side),
# OUT.ping: ping -c PING_N (default 100) -i 0.01 after 3 pings that fill the
# neighbour and route caches; OUT.tcprtt: TCP_N (default 100) round trips of
# 1 byte on one TCP connection to DST:7001 (TCP_NODELAY, 10 ms apart, after 3
# not counted), one RTT in us a line.
bench_rtt() {
	local ns=$1 dst=$2 out=$3
	nsx "$ns" ping -c 3 -i 0.2 -W 2 "$dst" >/dev/null 2>&1
	nsx "$ns" ping -c "${PING_N:-100}" -i 0.01 -W 2 "$dst" >"$out.ping" 2>&1
	nsx "$ns" timeout 120 python3 -c 'import socket, sys, time
dst, n = sys.argv[1], int(sys.argv[2])
c = socket.create_connection((dst, 7001), timeout=10)
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
for i in range(n + 3):
    t = time.perf_counter_ns(); c.sendall(b"x"); c.recv(1)
    if i >= 3: print("%.1f" % ((time.perf_counter_ns() - t) / 1000))
    time.sleep(0.01)' "$dst" "${TCP_N:-100}" >"$out.tcprtt"
}
