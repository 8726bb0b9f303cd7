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

# align_multiarch: find the Multi-Arch libraries that keep ARCH's build
# dependencies from installing (apt's "Depends: P ... but" lines, followed
# through each library's own dependencies), and install each at ARCH's
# candidate version on ARCH and on every architecture that has it installed.
align_multiarch() {
	local want="" seen=" " out names q v a round grew
	for round in 1 2 3 4 5 6 7 8; do
		if [ -z "$want" ]; then
			out=$(cd "$ROOT" && apt-get build-dep -s --no-install-recommends -a "$ARCH" ./ 2>&1) &&
				return 0
		else
			# shellcheck disable=SC2086
			out=$(apt-get install -s --no-install-recommends --allow-downgrades $want 2>&1) &&
				break
		fi
		names=$(printf '%s\n' "$out" |
			sed -n 's/.*Depends: \([a-z0-9][a-z0-9.+-]*\).* but .*/\1/p' | sort -u)
		grew=0
		for q in $names; do
			case $seen in *" $q "*) continue ;; esac
			seen="$seen$q "
			v=$(apt-cache policy "$q:$ARCH" | awk '/Candidate:/ { print $2 }')
			[ -n "$v" ] && [ "$v" != "(none)" ] || continue
			for a in $(dpkg --print-architecture) $(dpkg --print-foreign-architectures); do
				[ "$a" = "$ARCH" ] ||
					dpkg-query -W -f='${Status}\n' "$q:$a" 2>/dev/null |
					grep -q '^install ok installed' || continue
				want="$want $q:$a=$v"
				grew=1
			done
		done
		[ $grew = 1 ] || { printf '%s\n' "$out" | tail -5 >&2; return 1; }
	done
	echo "cross-build: $ARCH has older versions of libraries installed here; aligning" \
		"every architecture to them (a downgrade):$want" >&2
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends --allow-downgrades $want >/dev/null
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
	# Multi-Arch: same libraries must have one version on every architecture.
	# If the native one came from an index ARCH has no match in (a security
	# update whose ARCH index is missing or broken: seen with a mirror serving
	# a truncated bookworm-security armhf index), align_multiarch moves those
	# libraries, on every architecture, to the version ARCH has, from the same
	# signed indexes (a downgrade, said on stderr).
	if ! (cd "$ROOT" && apt-get build-dep -y -qq --no-install-recommends -a "$ARCH" ./ \
		>/dev/null 2>&1); then
		align_multiarch
		(cd "$ROOT" && apt-get build-dep -y -qq --no-install-recommends -a "$ARCH" ./ >/dev/null)
	fi
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
