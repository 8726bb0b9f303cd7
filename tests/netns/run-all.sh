#!/bin/bash
# Run every netns scenario (tests/netns/*.sh but lib.sh and this file), one
# after the other: several run hipd timers and retransmissions, which a
# loaded machine would make flaky if they shared the CPUs. Prints each
# scenario's "NAME: N passed, M failed" line, then the total
#   netns: N passed, M failed
# and exits non-zero on any failure. Everything also goes to $BUILD/netns.out
# (tests/run.sh adds the total to its summary).
#
# Needs root (network namespaces, raw sockets, iptables-legacy), python3 and
# a build with hipd, hipconf and hip-inject:
#   BUILD=build tests/netns/run-all.sh [SCENARIO...]
set -u
DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$DIR/../.." && pwd)
BUILD=$(cd "${BUILD:-$ROOT/build}" 2>/dev/null && pwd) || { echo "netns: no build directory"; exit 1; }
export BUILD
OUT=$BUILD/netns.out
exec > >(tee "$OUT") 2>&1
TEE=$!
# let tee write everything before we are gone
trap 'exec >&- 2>&-; wait $TEE' EXIT

missing=""
[ "$(id -u)" = 0 ] || missing="$missing root"
for t in ip iptables-legacy python3 openssl; do command -v "$t" >/dev/null || missing="$missing $t"; done
for b in hipd/hipd tools/hipconf tools/hip-inject; do [ -x "$BUILD/$b" ] || missing="$missing $BUILD/$b"; done
if [ -n "$missing" ]; then
	echo "netns: cannot run, missing:$missing"
	echo "netns: 0 passed, 1 failed"
	exit 1
fi

if [ $# -gt 0 ]; then
	scenarios="$*"
else
	scenarios=$(cd "$DIR" && ls ./*.sh | sed 's|^\./||' | grep -v -x -e lib.sh -e run-all.sh)
fi
t0=$(date +%s)
pass=0 failn=0 k=0 failed=""
for s in $scenarios; do
	s=${s%.sh}
	k=$((k + 1))
	echo "==== netns: $s"
	# a per-run namespace prefix, so leftovers can be found below
	NETNS_ID="r$$x$k" "$DIR/$s.sh" >"$BUILD/netns-$s.log" 2>&1
	rc=$?
	line=$(grep -E "^$s: [0-9]+ passed, [0-9]+ failed" "$BUILD/netns-$s.log" | tail -1)
	if [ "$rc" -ne 0 ] || [ -z "$line" ]; then
		# the whole log: which checks failed and the hipd logs
		cat "$BUILD/netns-$s.log"
		[ -n "$line" ] || line="$s: 0 passed, 1 failed (exit $rc, no result line)"
		[ "$rc" -eq 0 ] || case $line in *" 0 failed"*) line="$line, but exit $rc";; esac
		failed="$failed $s"
	fi
	echo "$line"
	p=$(echo "$line" | sed -E 's/^[^:]*: ([0-9]+) passed.*/\1/')
	f=$(echo "$line" | sed -E 's/^[^:]*: [0-9]+ passed, ([0-9]+) failed.*/\1/')
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	pass=$((pass + p)); failn=$((failn + f))
done

# Nothing may be left behind: namespaces, processes, (iptables rules live
# in the namespaces).
left=$(ip netns list 2>/dev/null | grep -c "^hiptr$$x")
procs=$(pgrep -f "^$BUILD/(hipd/hipd|tools/hip-inject) " 2>/dev/null | wc -l)
if [ "$left" -ne 0 ] || [ "$procs" -ne 0 ]; then
	echo "netns: left behind: $left namespaces, $procs processes"
	failn=$((failn + 1)); failed="$failed leftovers"
else
	pass=$((pass + 1))
fi
echo "netns: elapsed $(( $(date +%s) - t0 )) s${failed:+, failed:$failed}"
echo "netns: $pass passed, $failn failed"
[ "$failn" -eq 0 ]
