#!/bin/bash
# bench/bex-cost-arch.sh [ARCH...] - instructions per base exchange on several
# architectures (default: the native one, armhf and arm64), counted by
# valgrind by the same method on each: instruction counts, not times (a
# benchmark, not a test; see bench/README.md for figures).
#
# Method: tools/bench-bex-cost (the in-process BEX harness of bench/bex-cost.sh,
# ECDSA P-256, DH group 7, puzzle K=0) runs N1 and then N2 base exchanges,
# each after the same warm-up, under `valgrind --tool=callgrind` counting
# every user-space instruction of the process (Ir); (Ir(N2) - Ir(N1)) /
# (N2 - N1) is the cost of one more exchange, both sides together: the
# Initiator's and Responder's work, the CLOSE that ends each exchange and the
# harness's packet hand-over (small), no sockets, no kernel. Start-up, keys
# and warm-up cancel out. The clock is frozen with libfaketime (libfaketime:ARCH
# for each ARCH; its own instructions are subtracted): no time passes during
# an exchange, as the harness means it, so no retransmission timer fires
# however slow valgrind and emulation are. What remains from run to run is
# the exchange's own dependence on its random keys and nonces (OpenSSL's EC
# code paths): 1-2% of a run on arm64 and armhf, 0.01% on amd64.
#
# Why not bench/bex-cost.sh's per-side figures: they toggle counting on entry
# and exit of the cost_* functions, which needs callgrind's call tracking, and
# that is wrong on ARM (seen with valgrind 3.19 on armhf and arm64: returns
# are missed, the inclusive costs and the toggles with them are nonsense); the
# process total is an exact count on every architecture.
#
# A foreign ARCH's binary is cross-built (in BUILD_ARM, default build-ARCH)
# and run by that architecture's own valgrind under qemu-user: bench/arch.sh
# (shared with bench/esp-cost-arch.sh) sets it up and says what CPU features
# each ARCH gets.
#
# Environment:
#   N1, N2     the two exchange counts (default 2 and 12)
#   BUILD, BUILD_ARM (one ARCH only), VG_CACHE, NO_BUILD: bench/arch.sh
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
N1=${N1:-2}
N2=${N2:-12}
. "$ROOT/bench/arch.sh"
[ $# -gt 0 ] || set -- "$ARCH_NATIVE" armhf arm64
[ "$N2" -gt "$N1" ] || { echo "bex-cost-arch: N2 must be larger than N1" >&2; exit 2; }
if ! command -v valgrind >/dev/null || ! command -v callgrind_annotate >/dev/null; then
	echo "bex-cost-arch: valgrind (callgrind_annotate) not found; tools/install-deps.sh --bench installs it" >&2
	exit 1
fi

# count N: instructions (Ir) of the whole bench-bex-cost process, N exchanges,
# less those of libfaketime itself (attributed by address: exact on ARM too).
count() {
	local out=$TMP/$ARCH-n$1.out total ft
	LD_PRELOAD=$FAKETIME_LIB FAKETIME="2026-01-01 00:00:00" \
		"$ARCH_VG" --tool=callgrind --callgrind-out-file="$out" "$ARCH_BIN" -k 0 -n "$1" \
		>"$out.log" 2>&1 || {
		echo "bex-cost-arch: valgrind run ($ARCH, N=$1) failed:" >&2
		tail -15 "$out.log" >&2
		return 1
	}
	total=$(arch_collected "$out.log")
	ft=$(callgrind_annotate --tree=none --auto=no --threshold=100 "$out" 2>/dev/null |
		awk '/\/libfaketime[^ ]*\]$/ { gsub(",", "", $1); s += $1 } END { print s + 0 }')
	[ -n "$total" ] && echo $((total - ft))
}

TMP=$(mktemp -d /tmp/bex-cost-arch.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
echo "bex-cost-arch: instructions per base exchange, both sides, ECDSA P-256, DH 7, K=0;"
echo "  whole process under valgrind (callgrind), (Ir(N=$N2) - Ir(N=$N1)) / $((N2 - N1))"
printf '  %-8s %16s %16s %14s %8s\n' arch "Ir N=$N1" "Ir N=$N2" "Ir/exchange" time
rc=0
for arch in "$@"; do
	t0=$(date +%s)
	if ! arch_prepare "$arch" tools/bench-bex-cost; then
		rc=1
		continue
	fi
	ARCH=$arch
	# No time passes during the exchanges (as the harness means it): the
	# clock is frozen, or the I1/I2 retransmission timers (1 s) would fire
	# under valgrind and emulation, hundreds of times slower than the CPU.
	FAKETIME_LIB=/usr/lib/$(dpkg-architecture -a"$arch" -qDEB_HOST_MULTIARCH 2>/dev/null)
	FAKETIME_LIB=$FAKETIME_LIB/faketime/libfaketime.so.1
	# (the foreign architecture is set up by tools/cross-build.sh --deps-only)
	[ -f "$FAKETIME_LIB" ] || [ "$(id -u)" -ne 0 ] ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			"libfaketime:$arch" >/dev/null 2>&1
	if [ ! -f "$FAKETIME_LIB" ]; then
		echo "bex-cost-arch: $FAKETIME_LIB missing: apt-get install libfaketime:$arch" >&2
		rc=1
		continue
	fi
	a=$(count "$N1") && b=$(count "$N2") && [ -n "$a" ] && [ -n "$b" ] || { rc=1; continue; }
	awk -v arch="$arch" -v a="$a" -v b="$b" -v n1="$N1" -v n2="$N2" -v t="$(($(date +%s) - t0))" \
		'BEGIN { printf "  %-8s %16d %16d %14.0f %7ss\n", arch, a, b, (b - a) / (n2 - n1), t }'
done
exit $rc
