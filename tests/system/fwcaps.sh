#!/bin/bash
# tests/system/fwcaps.sh - hipfw as firewall/hipfw.service runs it: a system
# user with CAP_NET_ADMIN and CAP_NET_RAW as ambient capabilities (set here
# with setpriv, as systemd does), iptables' lock readable by its group (the
# unit's ExecStartPre=). In a network and a mount namespace of its own:
#   - it starts, queues HIP in its own chain and answers `hipfw show`;
#   - it runs as that user with exactly the two capabilities, kept ambient
#     for the iptables-legacy it runs;
#   - SIGTERM removes its chain again and writes its state file (D-21) into
#     the state directory systemd's StateDirectory= gives it (0700, its own),
#     mode 0600;
#   - the same user without the capabilities is refused with a clear message;
#   - after a SIGKILL, `hipfw --flush-fast-path` (the unit's ExecStopPost=)
#     as that user with the two capabilities removes the learnt-SPI rules
#     it left (IPv4 and IPv6), keeps the queue rules, and again finds
#     nothing to do; without the capabilities it fails.
# Needs root (exit 77 otherwise). Creates the system user hipfw-test for the
# test and removes it after.
# Usage: tests/system/fwcaps.sh [BUILD_DIR]     (default: build)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-${BUILD:-$ROOT/build}}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD;; esac
HIPFW=$BUILD/firewall/hipfw
TUSER=hipfw-test
NS=hipfw-caps-$$

if [ "$(id -u)" -ne 0 ]; then echo "fwcaps: SKIP: needs root"; exit 77; fi
for t in setpriv unshare useradd iptables-legacy; do
	command -v $t >/dev/null || { echo "fwcaps: SKIP: no $t"; exit 77; }
done
[ -x "$HIPFW" ] || { echo "fwcaps: $HIPFW not built"; exit 1; }

T=$(mktemp -d /tmp/hipfw-caps.XXXXXX)
CHECK_DIR=$T
. "$ROOT/tests/system/lib.sh"
pid=""
cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	userdel "$TUSER" 2>/dev/null
	getent group "$TUSER" >/dev/null && groupdel "$TUSER" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

getent passwd "$TUSER" >/dev/null && userdel "$TUSER"
useradd --system --user-group --no-create-home --home-dir /nonexistent \
	--shell /usr/sbin/nologin "$TUSER" || { echo "fwcaps: useradd failed"; exit 1; }
uid=$(id -u "$TUSER")
chmod 0755 "$T"
cp "$ROOT/firewall/hipfw.rules" "$T/rules"
chmod 0644 "$T/rules"
install -d -o "$TUSER" -g "$TUSER" -m 0750 "$T/run"
install -d -o "$TUSER" -g "$TUSER" -m 0700 "$T/state"
# the unit's ExecStartPre= on a private copy of the lock (bound over
# /run/xtables.lock in hipfw's mount namespace only)
: >"$T/xtables.lock"
chgrp "$TUSER" "$T/xtables.lock" && chmod 0640 "$T/xtables.lock"
ip netns add "$NS"

# run_fw CAPS...: hipfw as the user in the namespaces; setpriv as systemd's
# User=, AmbientCapabilities=, CapabilityBoundingSet=, NoNewPrivileges=
run_fw() {
	local caps=$1
	unshare -m sh -c 'mount --bind "$1" /run/xtables.lock && shift && exec "$@"' sh \
		"$T/xtables.lock" ip netns exec "$NS" setpriv --reuid="$TUSER" --regid="$TUSER" \
		--init-groups --inh-caps="-all$caps" --ambient-caps="-all$caps" \
		--bounding-set="-all$caps" --no-new-privs \
		"$HIPFW" -f "$T/rules" --socket "$T/run/hipfw.sock" --group "$TUSER" --log-stderr \
		--state-dir "$T/state"
}
# run_flush CAPS: hipfw --flush-fast-path as ExecStopPost= runs it
run_flush() {
	local caps=$1
	unshare -m sh -c 'mount --bind "$1" /run/xtables.lock && shift && exec "$@"' sh \
		"$T/xtables.lock" ip netns exec "$NS" setpriv --reuid="$TUSER" --regid="$TUSER" \
		--init-groups --inh-caps="-all$caps" --ambient-caps="-all$caps" \
		--bounding-set="-all$caps" --no-new-privs \
		"$HIPFW" --flush-fast-path --socket "$T/run/hipfw.sock"
}
fw() { "$HIPFW" --socket "$T/run/hipfw.sock" "$@"; }
ipt() { ip netns exec "$NS" iptables-legacy -w "$@"; }

run_fw ",+net_admin,+net_raw" >"$T/fw.log" 2>&1 &
wrapper=$!
# ip netns exec forks: hipfw is the process with our rules file
if wait_for "hipfw as user $TUSER answers hipfw show" 10 fw show &&
	pid=$(pgrep -u "$TUSER" -f -- "-f $T/rules") && [ -n "$pid" ]; then
	expect "Uid (real, effective, saved, fs)" "$uid $uid $uid $uid" "$(field Uid "$pid" | tr -s "\t " " ")"
	expect "CapEff" 0000000000003000 "$(field CapEff "$pid")"
	expect "CapBnd" 0000000000003000 "$(field CapBnd "$pid")"
	expect "CapAmb (for iptables-legacy)" 0000000000003000 "$(field CapAmb "$pid")"
	expect "NoNewPrivs" 1 "$(field NoNewPrivs "$pid")"
	check "its chain queues HIP (IPv4)" sh -c \
		"ip netns exec '$NS' iptables-legacy -w -S HIPFW | grep -q -- '-j NFQUEUE'"
	check "jumped to from FORWARD" sh -c \
		"ip netns exec '$NS' iptables-legacy -w -S FORWARD | grep -q -- '-j HIPFW'"
	check "its chain queues HIP (IPv6)" sh -c \
		"ip netns exec '$NS' ip6tables-legacy -w -S HIPFW | grep -q -- '-j NFQUEUE'"
	expect "control socket: group $TUSER, nothing for others" "$TUSER srw-rw----" \
		"$(stat -c '%G %A' "$T/run/hipfw.sock")"
	kill -TERM "$pid"
	wait "$wrapper"
	expect "SIGTERM: clean exit" 0 $?
	pid=""
	check "SIGTERM removed the chain" sh -c "! ipt -S HIPFW >/dev/null 2>&1"
	check "... and the jump" sh -c "! ipt -S FORWARD | grep -q HIPFW"
	expect "SIGTERM wrote the state file as $TUSER, 0600" "$TUSER -rw-------" \
		"$(stat -c '%U %A' "$T/state/hipfw.state" 2>&1)"
else
	not_ok "hipfw did not start as $TUSER"; sed 's/^/#   /' "$T/fw.log"
	pkill -u "$TUSER" -f -- "-f $T/rules"; wait "$wrapper"
fi

# without the capabilities: refused, and says why
run_fw "" >"$T/fw-nocaps.log" 2>&1
rc=$?
check "without CAP_NET_ADMIN/CAP_NET_RAW: exit status not 0 (got $rc)" test "$rc" -ne 0
check "... with a message naming the failure" \
	grep -qiE 'permission|not permitted|capabilit' "$T/fw-nocaps.log"
sed 's/^/#   no caps: /' "$T/fw-nocaps.log" | head -3
check "... and nothing left in the packet filter" sh -c "! ipt -S HIPFW >/dev/null 2>&1"

# SIGKILL, then the unit's ExecStopPost=: the learnt-SPI rules go, the rest stays
run_fw ",+net_admin,+net_raw" >"$T/fw2.log" 2>&1 &
wrapper=$!
if wait_for "hipfw as user $TUSER answers again" 10 fw show &&
	pid=$(pgrep -u "$TUSER" -f -- "-f $T/rules") && [ -n "$pid" ]; then
	# two learnt SPIs as fw_esp.c writes them (raw ESP, ESP in UDP), per family
	for v in 4 6; do
		if [ $v = 4 ]; then p=iptables-legacy s=192.0.2.1/32 d=192.0.2.2/32 o="0>>22&0x3C@8"
		else p=ip6tables-legacy s=2001:db8::1/128 d=2001:db8::2/128 o=48; fi
		{ echo '*filter'
		  echo "-I HIPFW_ESP 1 -s $s -d $d -p esp -m esp --espspi 4660 -j ACCEPT"
		  echo "-I HIPFW_UDP 1 -s $s -d $d -p udp -m udp --sport 10500 --dport 20001" \
			"-m u32 --u32 \"$o=0x1234\" -j ACCEPT"
		  echo COMMIT
		} | ip netns exec "$NS" $p-restore -w --noflush
	done
	ip netns exec "$NS" iptables-legacy-save -t filter | grep -v '^#' >"$T/before4"
	ip netns exec "$NS" ip6tables-legacy-save -t filter | grep -v '^#' >"$T/before6"
	kill -9 "$pid"
	wait "$wrapper"
	pid=""
	run_flush "" >"$T/flush0.log" 2>&1
	rc=$?
	check "--flush-fast-path without the capabilities fails (got $rc)" test "$rc" -ne 0
	run_flush ",+net_admin,+net_raw" >"$T/flush.log" 2>&1
	expect "--flush-fast-path as $TUSER with the two capabilities" 0 $?
	sed 's/^/#   /' "$T/flush.log"
	for v in 4 6; do
		[ $v = 4 ] && p=iptables-legacy || p=ip6tables-legacy
		ip netns exec "$NS" $p-save -t filter | grep -v '^#' >"$T/after$v"
		expect "IPv$v: exactly the two learnt-SPI rules removed" \
			"$(grep -e '--espspi' -e '--u32' "$T/before$v" | sort)" \
			"$(diff "$T/before$v" "$T/after$v" | sed -n 's/^< //p' | sort)"
		check "IPv$v: nothing added, the queue rules stay" sh -c \
			"! diff '$T/before$v' '$T/after$v' | grep -q '^>' &&
			 [ \$(grep -c -- '-j NFQUEUE' '$T/after$v') = 2 ]"
	done
	expect "--flush-fast-path again: nothing to do" \
		"0: hipfw: ESP fast path flushed: 0 rules removed (IPv4 0, IPv6 0)" \
		"$(out=$(run_flush ",+net_admin,+net_raw" 2>&1); echo "$?: $out")"
else
	not_ok "hipfw did not start again as $TUSER"; sed 's/^/#   /' "$T/fw2.log"
	pkill -u "$TUSER" -f -- "-f $T/rules"; wait "$wrapper"
fi

summary fwcaps
