# tests/system/lib.sh - what the tests/system/*.sh scripts share (sourced):
# TAP-like "ok - " / "not ok - " lines counted in $pass / $fail, and small
# polling and /proc helpers. Each script prints "NAME: N passed, M failed".
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok - $*"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $*"; }
# expect DESC WANT GOT
expect() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: want '$2', got '$3'"; fi; }
# check DESC CMD...: ok when CMD succeeds
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
# wait_for SECONDS CMD...: poll every 0.1 s until CMD succeeds
wait_for() {
	local n=$(($1 * 10)); shift
	while [ $n -gt 0 ]; do "$@" && return 0; sleep 0.1; n=$((n - 1)); done
	return 1
}
# field KEY PID: a field of /proc/PID/status (e.g. CapEff)
field() { awk -v k="$1:" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "/proc/$2/status"; }
gone() { ! kill -0 "$1" 2>/dev/null; }
now() { date +%s; }
