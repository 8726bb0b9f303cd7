# tests/lib/check.sh - the assertions, polling and result line of every shell test scenario
# (sourced). tests/netns/lib.sh sources it (so tests/kernel/lib.sh, bench/lib.sh and
# tools/demo.sh get it too), as do tests/system/lib.sh and tests/kernel/smoke.sh. Plain POSIX
# sh: smoke.sh runs under dash.
#
# One line per result, "ok - DESC" or "not ok - DESC" (a failed check adds the output of its
# command, indented), counted in CHECK_PASSED and CHECK_FAILED:
#   ok DESC, not_ok DESC         a result the caller decided
#   check DESC CMD...            ok when CMD succeeds. CMD runs in this shell (it may set
#                                variables), its output goes to $CHECK_DIR/check.out and is
#                                shown on failure only. CHECK_DIR: a scratch directory that the
#                                caller makes (and removes) before the first check.
#   expect DESC WANT GOT         check DESC eq GOT WANT
# Predicates for check and wait_for, which say why they fail:
#   eq GOT WANT, ge GOT MIN, fails_with RC TEXT CMD...
# Polling:
#   wait_for DESC SECONDS CMD... run CMD (quietly) every 50 ms until it succeeds; after SECONDS
#                                print "timeout: DESC", run CMD once more with its output, and
#                                return 1
# At the end:
#   summary [NAME [NOTE]]        print "NAME: P passed, F failed[ NOTE]" (NAME defaults to the
#                                script's file name without .sh; the runners grep this line);
#                                true when nothing failed
CHECK_PASSED=0
CHECK_FAILED=0

ok() { CHECK_PASSED=$((CHECK_PASSED + 1)); echo "ok - $*"; }
not_ok() { CHECK_FAILED=$((CHECK_FAILED + 1)); echo "not ok - $*"; }

check() {
	local desc=$1
	shift
	: "${CHECK_DIR:?tests/lib/check.sh: set CHECK_DIR to a scratch directory before check}"
	if "$@" >"$CHECK_DIR/check.out" 2>&1; then
		ok "$desc"
	else
		not_ok "$desc"
		sed 's/^/    /' "$CHECK_DIR/check.out" | tail -15
	fi
}
expect() { check "$1" eq "$3" "$2"; }

eq() { [ "$1" = "$2" ] || { echo "got '$1', expected '$2'"; return 1; }; }
ge() { [ "$1" -ge "$2" ] || { echo "got $1, expected >= $2"; return 1; }; }
fails_with() {
	local want=$1 text=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	echo "exit $rc: $out"
	[ "$rc" -eq "$want" ] && case $out in *"$text"*) true ;; *) false ;; esac
}

wait_for() {
	local desc=$1 secs=$2 i=0
	shift 2
	while ! "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -gt $((secs * 20)) ]; then
			echo "timeout: $desc"
			"$@"
			return 1
		fi
		sleep 0.05
	done
}

summary() {
	local name=${1:-${0##*/}}
	name=${name%.sh}
	echo "$name: $CHECK_PASSED passed, $CHECK_FAILED failed${2:+ $2}"
	[ "$CHECK_FAILED" -eq 0 ]
}
