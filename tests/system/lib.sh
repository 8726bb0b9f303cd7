# tests/system/lib.sh - what the tests/system/*.sh scripts share (sourced): the assertions of
# tests/lib/check.sh ("ok - " / "not ok - " lines; each script ends with `summary NAME`, which
# prints "NAME: N passed, M failed"; a script that uses check or expect sets CHECK_DIR to its
# scratch directory first) and small /proc helpers. ROOT: the top of the tree (every script
# sets it; systemd.sh runs under /bin/sh, without BASH_SOURCE).
. "$ROOT/tests/lib/check.sh"

# field KEY PID: a field of /proc/PID/status (e.g. CapEff)
field() { awk -v k="$1:" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "/proc/$2/status"; }
gone() { ! kill -0 "$1" 2>/dev/null; }
now() { date +%s; }
