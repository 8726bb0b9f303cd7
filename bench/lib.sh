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
