# fuzz-build.sh - sourced by tests/fuzz.sh and tests/fuzz-long.sh (POSIX sh):
# configure $build once with clang and --enable-fuzz (ASAN + UBSAN, libFuzzer)
# and build the targets named. Needs $root (the tree) and $build.
#
# fuzz_build WHO NAME...: fuzz/fuzz_NAME for each NAME; WHO names the calling
# script in error messages. Leaves the working directory at $build.
fuzz_build() {
	fb_who=$1
	shift
	cd "$root" || return 1
	[ -x ./configure ] || autoreconf -fi
	mkdir -p "$build"
	cd "$build" || return 1
	if [ ! -f Makefile ] || ! grep -q 'enable-fuzz' config.status 2>/dev/null; then
		CC=clang "$root/configure" --enable-fuzz >configure.log 2>&1 || {
			tail -n 30 configure.log >&2
			echo "$fb_who: configure failed (see $build/configure.log)" >&2
			return 1
		}
	fi
	fb_progs=
	for fb_name in "$@"; do fb_progs="$fb_progs fuzz/fuzz_$fb_name"; done
	# shellcheck disable=SC2086
	make -j"$(nproc 2>/dev/null || echo 2)" $fb_progs >make.log 2>&1 || {
		tail -n 30 make.log >&2
		echo "$fb_who: build failed (see $build/make.log)" >&2
		return 1
	}
}
