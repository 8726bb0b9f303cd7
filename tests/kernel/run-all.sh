#!/bin/sh
# tests/kernel/run-all.sh - run $BUILD/tests/unit/check_xfrm and check_xfrm_lsi (if built) and every
# tests/kernel/*.sh scenario script (except this one).
#
# Meant to run inside the ESP VM: `make check-kernel`, or
#   tools/kvm/run-in-esp-vm.sh 'sh tests/kernel/run-all.sh'
# Each script exits 0 (passed), 77 (skipped) or anything else (failed). Exit: 1 if any failed.
set -u
dir=${0%/*}
[ "$dir" != "$0" ] || dir=.
passed=0
failed=0
skipped=0
failures=
# The kernel datapath's unit suite against this kernel (check_xfrm.c installs real BEET SAs
# where the kernel has ESP), if it is built.
root=$(cd "$dir/../.." && pwd)
BUILD=${BUILD:-$root/build}
export BUILD
for u in check_xfrm check_xfrm_lsi; do
	[ -x "$BUILD/tests/unit/$u" ] || continue
	echo "== $u"
	if top_srcdir=$root "$BUILD/tests/unit/$u" >"${TMPDIR:-/tmp}/$u.log" 2>&1; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		failures="$failures $u"
		grep -E ':[EF]:' "${TMPDIR:-/tmp}/$u.log"
	fi
	grep -E '^[0-9]+%: Checks:' "${TMPDIR:-/tmp}/$u.log"
done
for t in "$dir"/*.sh; do
	name=${t##*/}
	case $name in run-all.sh|lib.sh) continue;; esac
	echo "== $name"
	sh "$t"
	rc=$?
	case $rc in
	0) passed=$((passed + 1)) ;;
	77) skipped=$((skipped + 1)) ;;
	*)
		failed=$((failed + 1))
		failures="$failures $name($rc)"
		;;
	esac
done
echo "kernel tests: $passed passed, $failed failed, $skipped skipped${failures:+ -$failures}"
[ "$failed" = 0 ]
