#!/bin/bash
# tests/system/privsep.sh - the privilege separation of the real hipd, as the
# kernel shows it in /proc/PID/status (DESIGN.md "Processes"):
#
#   - two processes: priv (the launched pid, the pid file's) with exactly
#     CAP_NET_ADMIN + CAP_NET_RAW, and its child the engine with no
#     capability at all (effective, permitted, bounding, ambient), NoNewPrivs
#     and a seccomp filter (Seccomp: 2); both as the configured user
#   - started as systemd does (setpriv: User=, AmbientCapabilities=): the
#     same, except that the engine keeps the unit's bounding set (0x3000),
#     with nothing permitted and NoNewPrivs
#   - the engine serves the control socket; SIGHUP to priv reloads the engine
#   - SIGTERM to priv stops both cleanly (exit 0, pid file and socket gone)
#   - the engine killed: priv removes what it left and exits non-zero;
#     priv killed: the engine dies with it
#   - --no-privsep: one process, as before
# The boundary itself (invalid requests refused) is tests/unit/check_priv.
#
# Needs root (exit 77 otherwise). Runs hipd as user nobody in network
# namespaces of its own.
# Usage: tests/system/privsep.sh [BUILD_DIR]     (default: build)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-${BUILD:-$ROOT/build}}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD;; esac
HIPD=$BUILD/hipd/hipd
HIPCONF=$BUILD/tools/hipconf
TUSER=nobody

if [ "$(id -u)" -ne 0 ]; then echo "privsep: SKIP: needs root"; exit 77; fi
for t in "$HIPD" "$HIPCONF"; do
	[ -x "$t" ] || { echo "privsep: $t not built"; exit 1; }
done
for t in unshare pgrep; do
	command -v $t >/dev/null || { echo "privsep: SKIP: $t missing"; exit 77; }
done
getent passwd "$TUSER" >/dev/null || { echo "privsep: SKIP: no user $TUSER"; exit 77; }
UID_T=$(id -u "$TUSER")

T=$(mktemp -d /tmp/hipd-privsep.XXXXXX)
chmod 755 "$T"
hipd_pid=""

cleanup() {
	if [ -n "$hipd_pid" ]; then
		pkids=$(pgrep -P "$hipd_pid")
		kill -9 "$hipd_pid" $pkids 2>/dev/null
	fi
	rm -rf "$T"
}
trap cleanup EXIT
CHECK_DIR=$T
. "$ROOT/tests/system/lib.sh"
trap 'exit 130' INT TERM


conf() { # NAME
	mkdir -p "$T/$1"
	cat >"$T/$1/hipd.conf" <<EOF
config_dir = $T/$1
control_socket = $T/$1/run/hipd.sock
pid_file = $T/$1/run/hipd.pid
state_dir = $T/$1/state
lsi_file = $T/$1/run/lsi
user = $TUSER
EOF
}
launch() { # NAME [ARGS...]: hipd_pid = priv (or the only process)
	local n=$1; shift
	unshare -n ${WRAP:+"$WRAP"} "$HIPD" --foreground -c "$T/$n/hipd.conf" "$@" >"$T/$n/log" 2>&1 &
	hipd_pid=$!
	wait_for "$n: control socket" 30 test -S "$T/$n/run/hipd.sock" &&
		wait_for "$n: hipconf show hi" 10 "$HIPCONF" --socket "$T/$n/run/hipd.sock" show hi >/dev/null 2>&1 || {
		not_ok "$n: hipd started"; cat "$T/$n/log"; return 1; }
}
engine_of() { pgrep -P "$1" | head -1; }

echo "# default: priv and engine"
conf split
if launch split; then
	p=$hipd_pid
	e=$(engine_of "$p")
	expect "split: the engine is priv's only child" 1 "$(pgrep -P "$p" | wc -l)"
	expect "split: the pid file names priv" "$p" "$(cat "$T/split/run/hipd.pid")"
	expect "priv: CapEff" 0000000000003000 "$(field CapEff "$p")"
	expect "priv: CapPrm" 0000000000003000 "$(field CapPrm "$p")"
	expect "priv: CapBnd" 0000000000003000 "$(field CapBnd "$p")"
	expect "priv: NoNewPrivs" 1 "$(field NoNewPrivs "$p")"
	expect "priv: Uid" "$UID_T" "$(field Uid "$p" | awk '{ print $2 }')"
	if [ -n "$e" ]; then
		expect "engine: CapEff" 0000000000000000 "$(field CapEff "$e")"
		expect "engine: CapPrm" 0000000000000000 "$(field CapPrm "$e")"
		expect "engine: CapBnd" 0000000000000000 "$(field CapBnd "$e")"
		expect "engine: CapInh" 0000000000000000 "$(field CapInh "$e")"
		expect "engine: CapAmb" 0000000000000000 "$(field CapAmb "$e")"
		expect "engine: NoNewPrivs" 1 "$(field NoNewPrivs "$e")"
		expect "engine: Seccomp (filter)" 2 "$(field Seccomp "$e")"
		expect "engine: Uid" "$UID_T" "$(field Uid "$e" | awk '{ print $2 }')"
		# its puzzle thread (two CPUs or more): capabilities, IDs and the
		# filter are per thread, so every thread is checked
		nt=$(ls /proc/"$e"/task | wc -l)
		if [ "$(nproc)" -ge 2 ]; then
			expect "engine: two threads (the puzzle thread)" 2 "$nt"
		fi
		bad=0
		for t in /proc/"$e"/task/*; do
			st=$(grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs|Seccomp|Uid):' "$t/status" |
				awk '{ print $1, $2 }' | tr '\n' ' ')
			[ "$st" = "Uid: $UID_T CapPrm: 0000000000000000 CapEff: 0000000000000000 CapBnd: 0000000000000000 NoNewPrivs: 1 Seccomp: 2 " ] ||
				{ bad=$((bad + 1)); echo "# $t: $st"; }
		done
		expect "engine: all $nt threads without capabilities, filtered" 0 "$bad"
		# the engine holds sockets (raw HIP, control; the rtnetlink address
		# listener, useless for writes without CAP_NET_ADMIN), but no XFRM one
		socks=$(ls -l /proc/"$e"/fd 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\]/\1/p')
		[ -n "$socks" ]; expect "engine: holds the raw and control sockets" 0 $?
		nl=0
		for i in $(awk 'NR > 1 && $2 == 6 { print $NF }' /proc/"$e"/net/netlink); do
			echo "$socks" | grep -qx "$i" && nl=$((nl + 1))
		done
		expect "engine: no NETLINK_XFRM socket" 0 "$nl"
		grep -q "seccomp filter allowing [0-9]* system calls" "$T/split/log"
		expect "split: the log says the filter is installed" 0 $?
	else
		not_ok "split: no engine process"
	fi
	"$HIPCONF" --socket "$T/split/run/hipd.sock" show hi >/dev/null
	expect "split: hipconf show hi (served by the engine)" 0 $?
	kill -HUP "$p"
	wait_for "split: reloaded" 10 grep -q "reloaded $T/split/hipd.conf" "$T/split/log"
	expect "split: SIGHUP to priv reloads the engine" 0 $?
	"$HIPCONF" --socket "$T/split/run/hipd.sock" show hi >/dev/null
	expect "split: still serving after the reload" 0 $?
	kill -TERM "$p"; wait "$p"; rc=$?; hipd_pid=""
	expect "split: exit status after SIGTERM" 0 "$rc"
	wait_for "split: engine gone" 5 gone "$e"
	expect "split: the engine is gone too" 0 $?
	expect "split: pid file and socket removed" "" "$(ls "$T/split/run")"
	grep -E "refused|SIGSYS|Operation not permitted" "$T/split/log"
	expect "split: nothing refused, no system call denied" 1 $?
fi

echo "# started unprivileged, as systemd does (User=, AmbientCapabilities=)"
conf service
mkdir -p -m 700 "$T/service/state" "$T/service/run"
cp -p "$T/split/hip_host_key.pem" "$T/service/"
chown "$TUSER" "$T/service/state" "$T/service/run" "$T/service/hip_host_key.pem"
if command -v setpriv >/dev/null; then
	unshare -n setpriv --reuid="$TUSER" --regid="$(id -g "$TUSER")" --clear-groups \
		--inh-caps=-all,+net_admin,+net_raw --ambient-caps=+net_admin,+net_raw \
		--bounding-set=-all,+net_admin,+net_raw \
		"$HIPD" --foreground -c "$T/service/hipd.conf" >"$T/service/log" 2>&1 &
	hipd_pid=$!
	if wait_for "service: hipconf show hi" 30 "$HIPCONF" --socket "$T/service/run/hipd.sock" show hi >/dev/null 2>&1; then
		p=$hipd_pid
		e=$(engine_of "$p")
		expect "service: priv CapEff" 0000000000003000 "$(field CapEff "$p")"
		expect "service: engine CapEff" 0000000000000000 "$(field CapEff "$e")"
		expect "service: engine CapPrm" 0000000000000000 "$(field CapPrm "$e")"
		expect "service: engine CapAmb" 0000000000000000 "$(field CapAmb "$e")"
		# no CAP_SETPCAP to shrink it: the unit's bounding set stays, unusable
		# with nothing permitted and no_new_privs
		expect "service: engine CapBnd (the unit's)" 0000000000003000 "$(field CapBnd "$e")"
		expect "service: engine NoNewPrivs" 1 "$(field NoNewPrivs "$e")"
		expect "service: engine Seccomp (filter)" 2 "$(field Seccomp "$e")"
		kill -TERM "$p"; wait "$p"; rc=$?; hipd_pid=""
		expect "service: exit status after SIGTERM" 0 "$rc"
	else
		not_ok "service: hipd started"; cat "$T/service/log"
	fi
fi

echo "# the engine dies"
conf crash
if launch crash; then
	p=$hipd_pid
	e=$(engine_of "$p")
	kill -9 "$e"
	wait "$p"; rc=$?; hipd_pid=""
	[ "$rc" -ne 0 ]; expect "crash: priv exits non-zero when the engine is killed" 0 $?
	grep -q "the engine died of signal 9" "$T/crash/log"
	expect "crash: priv says why" 0 $?
	expect "crash: priv removed pid file and socket" "" "$(ls "$T/crash/run")"
fi

echo "# priv dies"
conf orphan
if launch orphan; then
	p=$hipd_pid
	e=$(engine_of "$p")
	kill -9 "$p"; wait "$p" 2>/dev/null; hipd_pid=""
	wait_for "orphan: engine gone" 5 gone "$e"
	expect "orphan: the engine dies with priv" 0 $?
fi

echo "# a service manager's filter without seccomp(2): one engine thread, filtered"
if cc -O2 -o "$T/deny-seccomp" "$ROOT/tests/system/deny-seccomp.c" 2>"$T/cc.log"; then
	conf denied
	if WRAP=$T/deny-seccomp launch denied; then
		p=$hipd_pid
		e=$(engine_of "$p")
		expect "denied: the engine has one thread" 1 "$(ls /proc/"$e"/task | wc -l)"
		expect "denied: ... with the filter (prctl)" 2 "$(field Seccomp "$e")"
		grep -q "the puzzle is solved on the engine's thread" "$T/denied/log"
		expect "denied: the log says why" 0 $?
		kill -TERM "$p"; wait "$p"; rc=$?; hipd_pid=""
		expect "denied: exit status after SIGTERM" 0 "$rc"
	fi
else
	echo "# no C compiler: skipped"; cat "$T/cc.log"
fi

echo "# --no-privsep"
conf single
if launch single --no-privsep; then
	p=$hipd_pid
	expect "single: one process" 0 "$(pgrep -P "$p" | wc -l)"
	expect "single: CapEff" 0000000000003000 "$(field CapEff "$p")"
	expect "single: no filter" 0 "$(field Seccomp "$p")"
	kill -TERM "$p"; wait "$p"; rc=$?; hipd_pid=""
	expect "single: exit status after SIGTERM" 0 "$rc"
fi

summary privsep
