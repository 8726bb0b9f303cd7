#!/bin/sh
# tests/kernel/run-all.sh - run every tests/kernel/*.sh scenario script (except this one).
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
for t in "$dir"/*.sh; do
	name=${t##*/}
	[ "$name" != run-all.sh ] || continue
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
