#!/bin/bash
# tests/system/arm.sh - hipd cross-built for ARM and tested under qemu-user.
#
#  1. the cross toolchain and the ARCH libraries, Check included
#     (tools/cross-build.sh --deps-only ARCH), qemu-user-static with binfmt_misc
#     so ARCH programs run like native ones
#  2. out of tree: ../configure --host=TRIPLET --enable-werror && make
#  3. make check: the unit suites as ARCH binaries, under emulation
#  4. tests/system/caps.sh with the ARCH hipd: user switch and capabilities
#  5. the sizes of the ARCH binaries (and of the native ones, for comparison)
#  6. tests/netns/arm-peer.sh: the ARCH hipd (under qemu-user) against the
#     native hipd of BUILD in two network namespaces: base exchange over IPv4
#     and IPv6 locators, ESP traffic both ways; and both daemons' resident
#     memory (for the emulated one, the guest's own pages: see that script)
#
# Suites qemu-user cannot run (it does not emulate them, nothing ARM-specific):
#   check_xfrm, check_xfrm_lsi   NETLINK_XFRM sockets: EPROTONOSUPPORT in qemu-user (so hipd
#                takes its userspace datapath there)
# (qemu-user 7.2 also rejects setsockopt(IPV6_DONTFRAG) with ENOPROTOOPT;
# hipd/net/sock.c only sets it to its default, 0, and goes on without it.)
#
# Needs root. Usage: tests/system/arm.sh [ARCH]   (default armhf; arm64 works too)
# Environment: BUILD_ARM (default build-ARCH at the top of the tree), BUILD
# (the native build for step 6, default build/; skipped if it has no hipd).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ARCH=${1:-armhf}
BUILD_ARM=${BUILD_ARM:-$ROOT/build-$ARCH}
QEMU_UNSUPPORTED="tests/unit/check_xfrm tests/unit/check_xfrm_lsi"
JOBS=$(nproc 2>/dev/null || echo 2)

if [ "$(id -u)" -ne 0 ]; then echo "arm: SKIP: needs root"; exit 77; fi
TRIPLET=$(dpkg-architecture -a"$ARCH" -qDEB_HOST_GNU_TYPE 2>/dev/null) ||
	{ echo "arm: unknown architecture $ARCH"; exit 2; }
case $ARCH in
armhf|armel) QEMU=qemu-arm;;
arm64) QEMU=qemu-aarch64;;
*) QEMU=qemu-$(dpkg-architecture -a"$ARCH" -qDEB_HOST_GNU_CPU);;
esac
. "$ROOT/tests/system/lib.sh"
t_all=$(now)

# ---- 1. toolchain, libraries, emulation ----
t0=$(now)
"$ROOT/tools/cross-build.sh" --deps-only "$ARCH" || { echo "arm: cannot set up $ARCH"; exit 1; }
command -v "$QEMU-static" >/dev/null ||
	{ echo "arm: SKIP: $QEMU-static missing (tools/install-deps.sh --packaging)"; exit 77; }
if [ ! -e "/proc/sys/fs/binfmt_misc/$QEMU" ]; then
	mountpoint -q /proc/sys/fs/binfmt_misc ||
		mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null
	update-binfmts --enable "$QEMU" >/dev/null 2>&1
fi
if [ "$(cat "/proc/sys/fs/binfmt_misc/$QEMU" 2>/dev/null | head -1)" != enabled ]; then
	echo "arm: SKIP: binfmt_misc cannot run $ARCH programs here ($QEMU not registered)"
	exit 77
fi
echo "# toolchain and libraries: $(($(now) - t0)) s"

# ---- 2. build ----
t0=$(now)
[ -x "$ROOT/configure" ] || (cd "$ROOT" && autoreconf -fi) || exit 1
mkdir -p "$BUILD_ARM"
if [ ! -f "$BUILD_ARM/Makefile" ] || ! grep -q -- "--host=$TRIPLET" "$BUILD_ARM/config.log"; then
	(cd "$BUILD_ARM" && "$ROOT/configure" --host="$TRIPLET" --enable-werror >configure.out 2>&1) ||
		{ tail -20 "$BUILD_ARM/configure.out"; exit 1; }
fi
if make -C "$BUILD_ARM" -j"$JOBS" >"$BUILD_ARM/make.out" 2>&1; then
	ok "cross build for $ARCH ($TRIPLET), warnings as errors"
else
	not_ok "cross build"; tail -30 "$BUILD_ARM/make.out"; exit 1
fi
echo "# build: $(($(now) - t0)) s"
file -b "$BUILD_ARM/hipd/hipd" | sed 's/^/# hipd: /'
if "$BUILD_ARM/hipd/hipd" --version | grep -q '^hipd '; then
	ok "$ARCH hipd runs under $QEMU (binfmt)"
else
	not_ok "$ARCH hipd does not run"; exit 1
fi

# ---- 3. unit suites under emulation ----
t0=$(now)
all=$(make -s -C "$BUILD_ARM" -f Makefile -f - print-tests <<<'print-tests: ; @echo $(TESTS)')
run=""
for t in $all; do
	case " $QEMU_UNSUPPORTED " in *" $t "*) ;; *) run="$run $t";; esac
done
make -C "$BUILD_ARM" -j"$JOBS" check TESTS="$run" >"$BUILD_ARM/check.out" 2>&1
rc=$?
grep -E '^(FAIL|ERROR|XPASS):' "$BUILD_ARM/check.out"
n=0 f=0
for t in $run; do
	line=$(grep -E '^[0-9]+%: Checks:' "$BUILD_ARM/$t.log" 2>/dev/null | tail -1)
	[ -n "$line" ] || continue
	n=$((n + $(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')))
	f=$((f + $(echo "$line" | sed -E 's/.*Failures: ([0-9]+), Errors: ([0-9]+).*/\1 + \2/')))
done
echo "# $ARCH unit suites: $(echo $run | wc -w) run, $(echo $QEMU_UNSUPPORTED | wc -w) not" \
	"runnable under qemu-user; Checks: $n, failed: $f; $(($(now) - t0)) s"
if [ $rc -eq 0 ]; then
	ok "make check ($ARCH, under $QEMU): $n checks"
else
	not_ok "make check ($ARCH): rc $rc, $f failed"
	grep -h -E ':[EF]:' "$BUILD_ARM"/tests/unit/*.log | head -20
fi

# ---- 4. privileges of the ARCH daemon ----
if "$ROOT/tests/system/caps.sh" "$BUILD_ARM" >"$BUILD_ARM/caps.out" 2>&1; then
	ok "caps.sh with the $ARCH hipd: $(tail -1 "$BUILD_ARM/caps.out")"
else
	not_ok "caps.sh with the $ARCH hipd"; grep -v '^ok' "$BUILD_ARM/caps.out"
fi

# ---- 5. sizes ----
for b in hipd/hipd tools/hipconf; do
	"$TRIPLET-strip" -o "$BUILD_ARM/${b##*/}.stripped" "$BUILD_ARM/$b"
	echo "# $ARCH ${b##*/}: $(stat -c %s "$BUILD_ARM/${b##*/}.stripped") bytes stripped" \
		"($(size "$BUILD_ARM/${b##*/}.stripped" | awk 'NR == 2 { print "text " $1 ", data " $2 ", bss " $3 }'))"
done
BUILD_NATIVE=${BUILD:-$ROOT/build}
case $BUILD_NATIVE in /*) ;; *) BUILD_NATIVE=$ROOT/$BUILD_NATIVE;; esac
if [ -x "$BUILD_NATIVE/hipd/hipd" ]; then
	for b in hipd/hipd tools/hipconf; do
		strip -o "$BUILD_ARM/${b##*/}.native" "$BUILD_NATIVE/$b" &&
		echo "# $(dpkg --print-architecture) ${b##*/}: $(stat -c %s "$BUILD_ARM/${b##*/}.native")" \
			"bytes stripped ($(size "$BUILD_ARM/${b##*/}.native" |
			awk 'NR == 2 { print "text " $1 ", data " $2 ", bss " $3 }'))"
	done
fi

# ---- 6. the ARCH hipd against the native one, in network namespaces ----
t0=$(now)
if [ -x "$BUILD_NATIVE/hipd/hipd" ] && [ -x "$BUILD_NATIVE/tools/hipconf" ]; then
	BUILD=$BUILD_NATIVE HIPD_ARM=$BUILD_ARM/hipd/hipd NETNS_ID="arm$$" \
		"$ROOT/tests/netns/arm-peer.sh" >"$BUILD_ARM/arm-peer.out" 2>&1
	rc=$?
	grep -E '^# ' "$BUILD_ARM/arm-peer.out"
	line=$(grep -E '^arm-peer: ' "$BUILD_ARM/arm-peer.out" | tail -1)
	if [ $rc -eq 0 ] && echo "$line" | grep -qE ' passed, 0 failed' && ! echo "$line" | grep -q skipped; then
		ok "$ARCH hipd <-> $(dpkg --print-architecture) hipd in netns (BEX + ESP): $line"
	else
		not_ok "$ARCH hipd <-> native hipd in netns: ${line:-exit $rc}"
		grep -E '^not ok - |SKIP' -A6 "$BUILD_ARM/arm-peer.out" | head -40
	fi
else
	echo "# arm-peer: SKIP: no native hipd/hipconf in $BUILD_NATIVE (make -C $BUILD_NATIVE first)"
fi
echo "# netns: $(($(now) - t0)) s"
echo "# arm.sh total: $(($(now) - t_all)) s"
summary arm
