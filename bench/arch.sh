# bench/arch.sh - sourced (bash) by the benchmarks that count instructions on
# several architectures with the same method (bench/bex-cost-arch.sh,
# bench/esp-cost-arch.sh): a program of this tree, cross-built for ARCH, run by
# ARCH's own valgrind under qemu-user.
#
#   arch_prepare ARCH TARGET   sets ARCH_BIN (TARGET, a make target such as
#                              tools/bench-esp-cost, in ARCH's build directory,
#                              made if missing) and ARCH_VG (the valgrind for
#                              ARCH); 1 with the reason on stderr
#   arch_collected LOG         the "Collected" instruction total of a valgrind
#                              --tool=callgrind log
#
# A foreign ARCH's build directory is BUILD_ARM (default build-ARCH at the top
# of the tree), configured here with --host if it has no Makefile (needs the
# cross toolchain and ARCH libraries: tools/cross-build.sh --deps-only ARCH,
# as root). Its programs run through binfmt_misc (qemu-user-static's
# registration, enabled here as tests/system/arm.sh does), and valgrind is
# Debian's valgrind:ARCH, unpacked with apt-get download + dpkg-deb -x into
# VG_CACHE (default the build directory), not installed: it would replace the
# native valgrind. Valgrind gives the program the CPU features it can
# emulate: arm64 gets ASIMD and the AES/SHA1/SHA2/PMULL crypto extensions (a
# Cortex-A53-class tablet), armhf NEON and no crypto extensions
# (Cortex-A7/A9); OPENSSL_armcap in the environment overrides what OpenSSL
# uses. Emulation makes it slow, not inexact: the count is of ARCH
# instructions.
#
# Environment: BUILD (native build directory, default build), BUILD_ARM,
# VG_CACHE, NO_BUILD (set: do not configure or make, use what is there).
ARCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ARCH_NATIVE=$(dpkg --print-architecture)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ARCH_ROOT/$BUILD ;; esac

# arch_unpacked_valgrind ARCH DIR: DIR/vg, a valgrind for ARCH (from valgrind:ARCH).
arch_unpacked_valgrind() {
	local arch=$1 dir=$2 deb
	[ -x "$dir/vg" ] && return 0
	rm -rf "$dir" && mkdir -p "$dir" || return 1
	(cd "$dir" && apt-get download -q "valgrind:$arch" >/dev/null 2>&1) || {
		echo "arch: apt-get download valgrind:$arch failed" \
			"(dpkg --add-architecture $arch; apt-get update)" >&2
		return 1
	}
	deb=$(ls "$dir"/valgrind_*.deb) && dpkg-deb -x "$deb" "$dir/root" && rm -f "$deb" ||
		return 1
	printf '#!/bin/sh\nVALGRIND_LIB=%s exec %s "$@"\n' \
		"$dir/root/usr/libexec/valgrind" "$dir/root/usr/bin/valgrind.bin" >"$dir/vg"
	chmod +x "$dir/vg"
}

# arch_binfmt ARCH: ARCH programs run through qemu-user (binfmt_misc), as
# tests/system/arm.sh sets it up.
arch_binfmt() {
	local qemu
	case $1 in
	armhf|armel) qemu=qemu-arm ;;
	arm64) qemu=qemu-aarch64 ;;
	*) qemu=qemu-$(dpkg-architecture -a"$1" -qDEB_HOST_GNU_CPU 2>/dev/null) ;;
	esac
	if [ "$(head -1 "/proc/sys/fs/binfmt_misc/$qemu" 2>/dev/null)" != enabled ]; then
		mountpoint -q /proc/sys/fs/binfmt_misc ||
			mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null
		update-binfmts --enable "$qemu" >/dev/null 2>&1
	fi
	[ "$(head -1 "/proc/sys/fs/binfmt_misc/$qemu" 2>/dev/null)" = enabled ] && return 0
	echo "arch: binfmt_misc does not run $1 programs ($qemu not registered:" \
		"qemu-user-static, binfmt-support)" >&2
	return 1
}

# arch_configure ARCH DIR: DIR configured for ARCH unless it has a Makefile.
arch_configure() {
	local arch=$1 dir=$2 triplet
	[ -f "$dir/Makefile" ] && return 0
	triplet=$(dpkg-architecture -a"$arch" -qDEB_HOST_GNU_TYPE 2>/dev/null) ||
		{ echo "arch: unknown architecture $arch" >&2; return 1; }
	[ -x "$ARCH_ROOT/configure" ] || (cd "$ARCH_ROOT" && autoreconf -fi) || return 1
	mkdir -p "$dir" && (cd "$dir" && "$ARCH_ROOT/configure" --host="$triplet" \
		--enable-werror >configure.out 2>&1) && return 0
	echo "arch: configure --host=$triplet failed (cross toolchain:" \
		"tools/cross-build.sh --deps-only $arch):" >&2
	tail -5 "$dir/configure.out" >&2
	rm -f "$dir/Makefile"
	return 1
}

arch_prepare() {
	local arch=$1 target=$2 dir log
	if [ "$arch" = "$ARCH_NATIVE" ]; then
		dir=$BUILD
		ARCH_VG=valgrind
	else
		arch_binfmt "$arch" || return 1
		dir=${BUILD_ARM:-$ARCH_ROOT/build-$arch}
		case $dir in /*) ;; *) dir=$ARCH_ROOT/$dir ;; esac
		[ -n "${NO_BUILD:-}" ] || arch_configure "$arch" "$dir" || return 1
		arch_unpacked_valgrind "$arch" "${VG_CACHE:-$dir}/valgrind-$arch" || return 1
		ARCH_VG=${VG_CACHE:-$dir}/valgrind-$arch/vg
	fi
	ARCH_BIN=$dir/$target
	if [ -z "${NO_BUILD:-}" ]; then
		log=$dir/$(basename "$target").make.out
		make -C "$dir" "$target" >"$log" 2>&1 || {
			echo "arch: make $target in $dir failed:" >&2
			tail -10 "$log" >&2
			return 1
		}
	fi
	[ -x "$ARCH_BIN" ] || { echo "arch: $ARCH_BIN not found" >&2; return 1; }
}

arch_collected() { sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$1"; }
