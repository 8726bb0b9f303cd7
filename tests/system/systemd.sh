#!/bin/sh
# tests/system/systemd.sh - conf/hipd.service: `systemd-analyze verify` is
# silent (no unknown keys, bad values, missing programs or man pages) and
# `systemd-analyze security --offline=yes` rates it "OK" or better
# (exposure <= 3.0, MAX_EXPOSURE to change).
#
# verify checks that ExecStart=/ExecReload= programs exist, so the unit is
# checked with its /usr paths pointed at a copy of the build's binaries, and
# man:hipd(8) etc. are looked up in the build's man pages.
# Usage: tests/system/systemd.sh [BUILD_DIR]     (default: build)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-${BUILD:-$ROOT/build}}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD;; esac
UNIT=$ROOT/conf/hipd.service
MAX_EXPOSURE=${MAX_EXPOSURE:-3.0}

command -v systemd-analyze >/dev/null || { echo "systemd: SKIP: no systemd-analyze"; exit 77; }
for f in "$BUILD/hipd/hipd" "$BUILD/tools/hipconf"; do
	[ -x "$f" ] || { echo "systemd: $f not built"; exit 1; }
done

T=$(mktemp -d /tmp/hipd-systemd.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$ROOT/tests/system/lib.sh"

mkdir -p "$T/usr/sbin" "$T/usr/bin" "$T/man/man5" "$T/man/man8"
cp "$BUILD/hipd/hipd" "$T/usr/sbin/"
cp "$BUILD/tools/hipconf" "$T/usr/bin/"
cp "$ROOT/hipd/hipd.8" "$ROOT/tools/hipconf.8" "$T/man/man8/"
cp "$ROOT/conf/hipd.conf.5" "$ROOT/conf/hip-hosts.5" "$T/man/man5/"
sed -e "s|=/usr/sbin/hipd|=$T/usr/sbin/hipd|" -e "s|=/usr/bin/hipconf|=$T/usr/bin/hipconf|" \
	"$UNIT" >"$T/hipd.service"
# the substitution must have hit both programs, and nothing else may differ
[ "$(diff "$UNIT" "$T/hipd.service" | grep -c '^>')" = 2 ] ||
	{ echo "systemd: ExecStart=/ExecReload= paths not as expected"; exit 1; }

# unit_checks LABEL UNIT COPY ITEM...: `systemd-analyze verify` of COPY (UNIT
# with its programs pointed at the build's) is silent, UNIT's exposure is at
# most MAX_EXPOSURE, and each least-privilege ITEM of the rating is met.
unit_checks() {
	label=$1 unit=$2 copy=$3
	shift 3
	out=$(MANPATH=$T/man systemd-analyze verify "$copy" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && [ -z "$out" ]; then
		ok "systemd-analyze verify $label: no complaints"
	else
		not_ok "systemd-analyze verify $label (rc $rc):"; echo "$out" | sed 's/^/  /'
	fi
	systemd-analyze security --offline=yes --no-pager "$unit" >"$T/security" 2>&1
	line=$(grep 'Overall exposure level' "$T/security")
	exposure=$(echo "$line" | sed -nE 's/.*: ([0-9]+\.[0-9]+) .*/\1/p')
	rating=$(echo "$line" | sed -nE 's/.*: [0-9]+\.[0-9]+ ([A-Z]+).*/\1/p')
	echo "# $label: exposure $exposure $rating; still open:"
	grep '✗' "$T/security" | sed -E 's/  +/ | /g; s/^/#   /'
	if [ -n "$exposure" ] &&
		awk -v e="$exposure" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(e <= m) }'; then
		ok "$label security: exposure $exposure ($rating) <= $MAX_EXPOSURE"
	else
		not_ok "$label security: exposure '$exposure' ($rating) > $MAX_EXPOSURE"
		cat "$T/security"
	fi
	for item in "$@"; do
		if grep -F "✓ $item " "$T/security" >/dev/null; then
			ok "$label security: $item"
		else
			not_ok "$label security: $item not satisfied"
		fi
	done
}

# the least-privilege promises of the unit, item by item
unit_checks conf/hipd.service "$UNIT" "$T/hipd.service" \
	'CapabilityBoundingSet=~CAP_SET(UID|GID|PCAP)' 'NoNewPrivileges=' \
	'ProtectSystem=' 'ProtectHome=' 'PrivateTmp=' 'RestrictAddressFamilies=~AF_PACKET' \
	'RestrictAddressFamilies=~…' 'SystemCallArchitectures=' 'User=/DynamicUser='

# firewall/hipfw.service (issue 15): the same checks, its own program
FWUNIT=$ROOT/firewall/hipfw.service
if [ -x "$BUILD/firewall/hipfw" ]; then
	cp "$BUILD/firewall/hipfw" "$T/usr/sbin/"
	cp "$ROOT/firewall/hipfw.8" "$T/man/man8/"
	cp "$ROOT/firewall/hipfw.rules.5" "$T/man/man5/"
	sed -e "s|=/usr/sbin/hipfw|=$T/usr/sbin/hipfw|" "$FWUNIT" >"$T/hipfw.service"
	[ "$(diff "$FWUNIT" "$T/hipfw.service" | grep -c '^>')" = 4 ] ||
		{ echo "systemd: hipfw's program paths (ExecStartPre= ... ExecStopPost=) not as expected"
		  exit 1; }
	# a SIGKILL leaves the learnt-SPI rules: systemd runs ExecStopPost= after
	# any exit, and it must flush them (hipfw(8), RESTARTS)
	if grep -qx 'ExecStopPost=/usr/sbin/hipfw --flush-fast-path' "$FWUNIT"; then
		ok "hipfw.service: ExecStopPost= flushes the ESP fast path"
	else
		not_ok "hipfw.service: no ExecStopPost=/usr/sbin/hipfw --flush-fast-path"
	fi
	unit_checks firewall/hipfw.service "$FWUNIT" "$T/hipfw.service" \
		'User=/DynamicUser=' 'NoNewPrivileges=' 'CapabilityBoundingSet=~CAP_SET(UID|GID|PCAP)' \
		'ProtectSystem=' 'ProtectHome=' 'PrivateTmp=' 'RestrictAddressFamilies=~AF_PACKET' \
		'SystemCallArchitectures='
fi

summary systemd
