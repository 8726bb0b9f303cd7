#!/bin/bash
# tests/system/caps.sh - the real hipd's privileges after start, as the kernel
# shows them in /proc/PID/status, and its readiness messages to systemd.
#
#   - started as root with user = hipd-test: uid/gid that user, exactly
#     CAP_NET_ADMIN + CAP_NET_RAW permitted, effective and bounding (0x3000),
#     nothing inheritable or ambient, NoNewPrivs; its state and key are the
#     user's; READY=1 / RELOADING=1 / STOPPING=1 reach $NOTIFY_SOCKET
#   - started like systemd does it (User=, AmbientCapabilities=,
#     CapabilityBoundingSet=, via setpriv): the same, ambient emptied
#   - user = root: uid 0 but only the two capabilities
#   - refused: a group/world-readable key (message names file and mode), an
#     unknown user (exit 2)
#
# Needs root (exit 77 otherwise). Creates the system user hipd-test for the
# test and removes it after. Each hipd runs in its own network namespace.
# Usage: tests/system/caps.sh [BUILD_DIR]     (default: build)
# HIPD_EXTRA_CONF: more hipd.conf lines (tests/system/arm.sh: listen_v6 = no)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-${BUILD:-$ROOT/build}}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD;; esac
HIPD=$BUILD/hipd/hipd
HIPCONF=$BUILD/tools/hipconf
TUSER=hipd-test

if [ "$(id -u)" -ne 0 ]; then echo "caps: SKIP: needs root"; exit 77; fi
for t in "$HIPD" "$HIPCONF"; do
	[ -x "$t" ] || { echo "caps: $t not built"; exit 1; }
done
for t in python3 setpriv unshare useradd; do
	command -v $t >/dev/null || { echo "caps: SKIP: $t missing"; exit 77; }
done

T=$(mktemp -d /tmp/hipd-caps.XXXXXX)
chmod 755 "$T"   # the user must reach its state directory after the switch
made_user=0 hipd_pid="" listener="" HIPD_ARGS=""

cleanup() {
	[ -z "$hipd_pid" ] || kill -9 "$hipd_pid" 2>/dev/null
	[ -z "$listener" ] || kill "$listener" 2>/dev/null
	if [ "$made_user" = 1 ]; then
		userdel "$TUSER" 2>/dev/null
		getent group "$TUSER" >/dev/null && groupdel "$TUSER"
	fi
	rm -rf "$T"
}
trap cleanup EXIT
CHECK_DIR=$T
. "$ROOT/tests/system/lib.sh"
trap 'exit 130' INT TERM


if ! getent passwd "$TUSER" >/dev/null; then
	useradd --system --user-group --no-create-home --home-dir /nonexistent \
		--shell /usr/sbin/nologin "$TUSER" || { echo "caps: cannot create $TUSER"; exit 1; }
	made_user=1
fi
UID_T=$(id -u "$TUSER")
GID_T=$(id -g "$TUSER")

# systemd's notification socket, played by a small listener: one line per message
python3 - "$T/notify" "$T/notify.log" <<'EOF' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o666)   # as /run/systemd/notify: any user may write
with open(sys.argv[2], "a", buffering=1) as f:
    while True:
        f.write(s.recv(4096).decode().replace("\n", " ") + "\n")
EOF
listener=$!
wait_for "the notify listener" 10 test -S "$T/notify" || { echo "caps: notify listener did not start"; exit 1; }

# conf NAME [lines...]: a configuration in $T/NAME/
conf() {
	local n=$1 line; shift
	mkdir -p "$T/$n"
	{
		echo "config_dir = $T/$n"
		echo "control_socket = $T/$n/run/hipd.sock"
		echo "pid_file = $T/$n/run/hipd.pid"
		echo "state_dir = $T/$n/state"
		echo "lsi_file = $T/$n/run/lsi"
		echo "control_group = $TUSER"
		[ -z "${HIPD_EXTRA_CONF:-}" ] || printf '%s\n' "$HIPD_EXTRA_CONF"
		for line in "$@"; do echo "$line"; done
	} >"$T/$n/hipd.conf"
}
# launch NAME [PREFIX...]: start hipd (in a network namespace of its own)
launch() {
	local n=$1; shift
	: >"$T/notify.log"
	NOTIFY_SOCKET=$T/notify unshare -n "$@" "$HIPD" --foreground --log-stderr \
		-c "$T/$n/hipd.conf" $HIPD_ARGS >"$T/$n/log" 2>&1 &
	hipd_pid=$!
	wait_for "$n: READY=1" 30 grep -qx "READY=1" "$T/notify.log" || {
		not_ok "$n: READY=1 sent"; cat "$T/$n/log"; return 1; }
}
stop() { # NAME: SIGTERM, exit status 0, files removed
	local n=$1 rc
	kill -TERM "$hipd_pid"; wait "$hipd_pid"; rc=$?; hipd_pid=""
	expect "$n: exit status after SIGTERM" 0 "$rc"
	expect "$n: STOPPING=1 sent" 1 "$(grep -c '^STOPPING=1' "$T/notify.log")"
	expect "$n: pid file and socket removed" "" "$(ls "$T/$n/run")"
}
caps_are_two() { # NAME PID
	expect "$1: CapEff" 0000000000003000 "$(field CapEff "$2")"
	expect "$1: CapPrm" 0000000000003000 "$(field CapPrm "$2")"
	expect "$1: CapBnd" 0000000000003000 "$(field CapBnd "$2")"
	expect "$1: CapInh" 0000000000000000 "$(field CapInh "$2")"
	expect "$1: CapAmb" 0000000000000000 "$(field CapAmb "$2")"
	expect "$1: NoNewPrivs" 1 "$(field NoNewPrivs "$2")"
}
owner() { stat -c '%U:%G %a' "$1"; }

echo "# started as root, user = $TUSER (uid $UID_T)"
conf user "user = $TUSER"
if launch user; then
	p=$hipd_pid
	caps_are_two user "$p"
	expect "user: Uid (real, effective, saved, fs)" "$UID_T $UID_T $UID_T $UID_T" \
		"$(field Uid "$p" | tr -s '\t ' ' ' | sed 's/ $//')"
	expect "user: Gid" "$GID_T $GID_T $GID_T $GID_T" "$(field Gid "$p" | tr -s '\t ' ' ' | sed 's/ $//')"
	expect "user: supplementary groups" "$GID_T" "$(field Groups "$p" | tr -d ' \t')"
	expect "user: state_dir owned by the user" "$TUSER:$TUSER 700" "$(owner "$T/user/state")"
	expect "user: R1 counter owned by the user" "$TUSER:$TUSER 600" \
		"$(owner "$(ls -d "$T"/user/state/r1counter-* | head -1)")"
	expect "user: key file owned by the user, 0600" "$TUSER:$TUSER 600" \
		"$(owner "$T/user/hip_host_key.pem")"
	"$HIPCONF" --socket "$T/user/run/hipd.sock" show hi >/dev/null
	expect "user: hipconf show hi" 0 $?
	kill -HUP "$p"
	wait_for "user: READY=1 after the reload" 10 sh -c "[ \$(grep -c '^READY=1' '$T/notify.log') -ge 2 ]"
	expect "user: RELOADING=1 with MONOTONIC_USEC on SIGHUP" 1 \
		"$(grep -c '^RELOADING=1 MONOTONIC_USEC=[0-9][0-9]*$' "$T/notify.log")"
	expect "user: READY=1 again after the reload" 2 "$(grep -c '^READY=1' "$T/notify.log")"
	grep -q "reloaded $T/user/hipd.conf" "$T/user/log"
	expect "user: reloaded as $TUSER" 0 $?
	stop user
fi

echo "# started unprivileged, as systemd does with User= and AmbientCapabilities="
conf service "user = $TUSER"
# what systemd (StateDirectory=, RuntimeDirectory=) and the package's postinst
# (the key) prepare; the config directory itself stays root's
mkdir -p -m 700 "$T/service/state" "$T/service/run"
cp -p "$T/user/hip_host_key.pem" "$T/service/"
chown "$TUSER:$TUSER" "$T/service/state" "$T/service/run" "$T/service/hip_host_key.pem"
if launch service setpriv --reuid="$TUSER" --regid="$TUSER" --clear-groups \
	--inh-caps=-all,+net_admin,+net_raw --ambient-caps=+net_admin,+net_raw \
	--bounding-set=-all,+net_admin,+net_raw; then
	caps_are_two service "$hipd_pid"
	expect "service: Uid" "$UID_T" "$(field Uid "$hipd_pid" | awk '{ print $1 }')"
	expect "service: R1 counter written by the user" "$TUSER:$TUSER 600" \
		"$(owner "$(ls -d "$T"/service/state/r1counter-* | head -1)")"
	stop service
fi

echo "# user = root"
conf root "user = root"
if launch root; then
	caps_are_two root "$hipd_pid"
	expect "root: Uid" "0" "$(field Uid "$hipd_pid" | awk '{ print $2 }')"
	stop root
fi

echo "# refused"
for mode in 640 604; do
	chmod "$mode" "$T/root/hip_host_key.pem"
	unshare -n "$HIPD" --foreground -c "$T/root/hipd.conf" >"$T/out" 2>&1
	rc=$?
	expect "key mode 0$mode: exit status" 1 "$rc"
	grep -q "host identity $T/root/hip_host_key.pem has mode 0$mode" "$T/out"
	expect "key mode 0$mode: the message names file and mode" 0 $?
done
chmod 600 "$T/root/hip_host_key.pem"
conf nouser "user = hipd-no-such-user"
unshare -n "$HIPD" --foreground -c "$T/nouser/hipd.conf" >"$T/out" 2>&1
expect "unknown user: exit status 2" 2 $?
grep -q "user 'hipd-no-such-user' does not exist" "$T/out"
expect "unknown user: says so" 0 $?
expect "unknown user: nothing created" "" "$(ls "$T/nouser" | grep -v hipd.conf)"
HIPD_ARGS="--user root"
if launch nouser; then
	expect "--user root overrides user =: Uid" 0 "$(field Uid "$hipd_pid" | awk '{ print $2 }')"
	expect "--user root: CapEff" 0000000000003000 "$(field CapEff "$hipd_pid")"
	stop nouser
fi

summary caps
