#!/bin/sh
# tools/cross-build.sh ARCH - hipd's Debian packages for another architecture
# (armhf, arm64, ...), cross-built on Debian 12 with dpkg-buildpackage -a ARCH.
#
# As root it first sets up what the cross build needs (idempotent):
# dpkg --add-architecture ARCH, crossbuild-essential-ARCH, and the ARCH
# versions of debian/control's Build-Depends (apt-get build-dep -a ARCH).
# The source is copied to OUT/src (dpkg-buildpackage writes into the parent
# directory); the packages end up in OUT (default: build-cross-ARCH).
#
# Usage: tools/cross-build.sh ARCH [OUT]
#        tools/cross-build.sh --deps-only ARCH     (set up, build nothing)
set -eu

deps_only=0
[ "${1:-}" = "--deps-only" ] && { deps_only=1; shift; }
ARCH=${1:?usage: tools/cross-build.sh [--deps-only] ARCH [OUT]}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${2:-$ROOT/build-cross-$ARCH}

dpkg-architecture -a"$ARCH" -qDEB_HOST_GNU_TYPE >/dev/null 2>&1 ||
	{ echo "cross-build: unknown architecture '$ARCH'" >&2; exit 2; }

# Is every Build-Depends of debian/control there for ARCH?
deps_ok() {
	(cd "$ROOT" && dpkg-checkbuilddeps -a"$ARCH") >/dev/null 2>&1 &&
		dpkg-query -W -f='${Status}\n' "crossbuild-essential-$ARCH" 2>/dev/null |
		grep -q '^install ok installed'
}

if ! deps_ok; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "cross-build: the $ARCH toolchain and libraries are missing; run as root" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	if [ "$ARCH" != "$(dpkg --print-architecture)" ] &&
	   ! dpkg --print-foreign-architectures | grep -qx "$ARCH"; then
		echo "cross-build: dpkg --add-architecture $ARCH"
		dpkg --add-architecture "$ARCH"
	fi
	# A mirror with one broken index (seen: bookworm-security's armhf one) still
	# leaves the rest usable.
	apt-get update -qq || echo "cross-build: apt-get update reported errors; going on" >&2
	echo "cross-build: installing crossbuild-essential-$ARCH and the $ARCH build dependencies"
	apt-get install -y -qq --no-install-recommends "crossbuild-essential-$ARCH" \
		dpkg-dev debhelper >/dev/null
	# Multi-Arch: same libraries must have one version for both architectures.
	# If the native one came from a suite without ARCH packages (a security
	# update), apt cannot pick: prefer the release's own suite, which moves the
	# native library to the version ARCH has.
	release=$(. /etc/os-release && echo "$VERSION_CODENAME")
	(cd "$ROOT" && apt-get build-dep -y -qq --no-install-recommends -a "$ARCH" ./ >/dev/null 2>&1 ||
		apt-get build-dep -y -qq --no-install-recommends -a "$ARCH" \
			-o APT::Default-Release="$release" ./ >/dev/null)
fi
[ "$deps_only" = 0 ] || exit 0

rm -rf "$OUT"
mkdir -p "$OUT/src"
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$ROOT" && git ls-files -z -co --exclude-standard | grep -zv '^\.notes/' |
		tar --null -cf - -T -) | tar -xf - -C "$OUT/src"
else
	tar -C "$ROOT" --exclude='./build*' --exclude=./autom4te.cache -cf - . | tar -xf - -C "$OUT/src"
fi
echo "cross-build: dpkg-buildpackage -a $ARCH (log: $OUT/build.log)"
if ! (cd "$OUT/src" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
	dpkg-buildpackage -a "$ARCH" -us -uc -b) >"$OUT/build.log" 2>&1; then
	tail -30 "$OUT/build.log" >&2
	exit 1
fi
ls -l "$OUT"/*.deb
