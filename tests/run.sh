#!/bin/sh
# The whole test suite: what README.md's test command and CI run.
# On a bare Debian 12 it installs what it needs first (apt-get, as root).
#
# Stages: deps, build (-Werror), unit suites, ASAN+UBSAN unit suites,
# out-of-tree distcheck, scan-build, doc references, tshark dissection,
# fuzzing, netns, packaging, kernel ESP (VM).
# Environment: FUZZ_SECONDS (default 60), SKIP_STAGES="asan distcheck ..."
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
JOBS=$(nproc 2>/dev/null || echo 2)
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
SKIP_STAGES=${SKIP_STAGES:-}
failed_stages=""
t0=$(date +%s)

stage() { printf '\n==== %s ====\n' "$*"; }
skipped() { case " $SKIP_STAGES " in *" $1 "*) echo "(skipped by SKIP_STAGES)"; return 0;; esac; return 1; }
fail() { failed_stages="$failed_stages $1"; echo "!!!! stage failed: $1"; }

stage "dependencies"
tools/install-deps.sh || { echo "cannot install dependencies"; exit 1; }

stage "configure + build (warnings are errors)"
[ -x configure ] && [ configure -nt configure.ac ] && [ Makefile.in -nt Makefile.am ] || autoreconf -fi || exit 1
mkdir -p build
if [ ! -f build/Makefile ] || ! grep -q -- '--enable-werror' build/config.log 2>/dev/null; then
	(cd build && ../configure --enable-werror) || exit 1
fi
make -C build -j"$JOBS" >build/make.out 2>&1 || { cat build/make.out; exit 1; }
echo "build: ok"

run_unit() { # $1 = build dir
	make -C "$1" -j"$JOBS" check >"$1/check.out" 2>&1
	rc=$?
	grep -E '^(PASS|FAIL|ERROR|XPASS)' "$1/check.out"
	grep -h -E '^[0-9]+%: Checks:' "$1"/tests/unit/*.log 2>/dev/null | sed "s|^|  $1: |"
	[ $rc -eq 0 ] || { grep -h -B2 -A10 -E ':[EF]:' "$1"/tests/unit/*.log | head -80; }
	return $rc
}

stage "unit suites (Check)"
run_unit build || fail unit

stage "unit suites under AddressSanitizer + UBSan"
if ! skipped asan; then
	mkdir -p build-asan
	[ -f build-asan/Makefile ] || (cd build-asan && ../configure --enable-werror --enable-sanitizers >/dev/null) || exit 1
	ASAN_OPTIONS=detect_leaks=1 run_unit build-asan || fail asan
fi

stage "out-of-tree distcheck"
if ! skipped distcheck; then
	make -C build distcheck >build/distcheck.out 2>&1 && tail -4 build/distcheck.out \
		|| { tail -40 build/distcheck.out; fail distcheck; }
fi

stage "clang static analyzer (make scan-build)"
if ! skipped scan-build; then
	make -s scan-build >build/scan-build.out 2>&1 || fail scan-build
	grep -E 'scan-build: (No bugs found|[0-9]+ bugs? found)|error:|warning:' build/scan-build.out | sort -u
fi

stage "the tree cites only documents it contains"
if ! skipped doc-refs; then
	tests/check-doc-refs.sh | tee build/doc-refs.out | tail -20
	tail -1 build/doc-refs.out | grep -qE '^doc-refs: [0-9]+ passed, 0 failed$' || fail doc-refs
fi

stage "tshark dissects our packets"
if ! skipped tshark; then
	tests/tshark.sh build || fail tshark
	tests/tshark-rvs.sh build || [ $? -eq 77 ] || fail tshark-rvs
fi

stage "fuzzing (${FUZZ_SECONDS}s)"
if ! skipped fuzz; then
	tests/fuzz.sh "$FUZZ_SECONDS" || fail fuzz
fi

stage "netns scenarios"
rm -f build/netns.out
if ! skipped netns; then BUILD=$ROOT/build tests/netns/run-all.sh || fail netns; fi

stage "packaging: privileges, systemd unit, Debian package, armhf under qemu-user"
# tests/system/*.sh print "NAME: N passed, M failed" (also in build/packaging.out); exit 77 = skipped
if ! skipped packaging; then
	tools/install-deps.sh --packaging || fail packaging-deps
	for t in caps fwcaps privsep systemd deb arm; do
		skipped "$t" && continue
		case $t in caps|fwcaps|privsep|systemd) arg=build;; arm) arg=armhf;; *) arg="";; esac
		tests/system/$t.sh $arg 2>&1 | tee "build/$t.out" | grep -Ev '^ok - '
		tail -1 "build/$t.out" | grep -qE '^[a-z]+: [0-9]+ passed, 0 failed$|SKIP' || fail "$t"
	done
	cat build/caps.out build/fwcaps.out build/privsep.out build/systemd.out build/deb.out build/arm.out 2>/dev/null |
		grep -E '^[a-z]+: [0-9]+ passed, [0-9]+ failed$' >build/packaging.out
fi

stage "kernel ESP datapath in a VM"
if ! skipped kernel; then
	if [ -x tools/kvm/run-in-esp-vm.sh ]; then
		make -s check-kernel || fail kernel
	else
		echo "(no VM harness in this tree yet)"
	fi
fi

stage "experiments report: unit tests, tools/experiments.sh --quick"
if ! skipped experiments; then
	tools/install-deps.sh --bench >/dev/null || fail experiments-deps
	PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -m unittest discover -s tests/report 2>&1 |
		tail -3 | tee build/report-unit.out
	grep -q '^OK' build/report-unit.out || fail report-unit
	# every section with data and a PNG (the report's --check), in a few minutes
	rm -rf build/experiments-ci
	BUILD=$ROOT/build tools/experiments.sh --quick --out build/experiments-ci || fail experiments
fi

stage "summary"
pass=0; failn=0
for log in build/tests/unit/*.log build-asan/tests/unit/*.log; do
	[ -f "$log" ] || continue
	line=$(grep -E '^[0-9]+%: Checks:' "$log" | tail -1)
	[ -n "$line" ] || continue
	n=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
	f=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
	e=$(echo "$line" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
	pass=$((pass + n - f - e)); failn=$((failn + f + e))
done
# the layout check (make check) and the doc references: "NAME: N passed, M failed"
for out in build/tests/layout.sh.log build/doc-refs.out; do
	line=$(grep -E '^[a-z-]+: [0-9]+ passed, [0-9]+ failed$' "$out" 2>/dev/null | tail -1)
	[ -n "$line" ] || continue
	pass=$((pass + $(echo "$line" | sed -E 's/^[a-z-]+: ([0-9]+) passed.*/\1/')))
	failn=$((failn + $(echo "$line" | sed -E 's/.* ([0-9]+) failed$/\1/')))
done
line=$(grep -E '^netns: [0-9]+ passed, [0-9]+ failed' build/netns.out 2>/dev/null | tail -1)
if [ -n "$line" ]; then
	pass=$((pass + $(echo "$line" | sed -E 's/^netns: ([0-9]+) passed.*/\1/')))
	failn=$((failn + $(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
fi
echo "elapsed: $(( $(date +%s) - t0 )) s"
if [ -n "$failed_stages" ]; then
	echo "failed stages:$failed_stages"
	[ "$failn" -gt 0 ] || failn=1
fi
echo "tests: $pass passed, $failn failed"
[ -z "$failed_stages" ]
