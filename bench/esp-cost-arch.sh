#!/bin/bash
# bench/esp-cost-arch.sh [ARCH...] - instructions per megabyte of hipd's
# userspace ESP seal and open on several architectures (default: the native
# one, armhf and arm64), counted by valgrind by the same method on each
# (issue 17, section 7; a benchmark, not a test; figures in bench/README.md).
#
# Method: tools/bench-esp-cost (one process, a hand-made SA pair as
# tools/uesp-pair's, 1400-byte inner IPv6 packets through esp_encap and
# esp_decap, no system calls in its loop) under `valgrind --tool=callgrind`,
# which counts every user-space instruction of the process (Ir). Four runs:
# seal only and seal + open, each of MB1 and MB2 megabytes; then
#   seal per MB = (Ir(seal, MB2) - Ir(seal, MB1)) / (MB2 - MB1)   the sender
#   open per MB = (Ir(both, MB2) - Ir(both, MB1)) / (MB2 - MB1) - seal per MB
# (the receiver), with MB2 - MB1 the exact difference of the inner bytes
# (whole packets: a megabyte is 714.3 of them). Start-up and keys cancel out;
# nothing here depends on random values or the clock, so the count is the
# same in every run.
#
# What it counts, against bench/esp-cost.sh: that one runs the whole datapath
# (tools/uesp-pair in two network namespaces, TUN reads and writes, TSO
# segmentation, raw sockets, receive coalescing) under callgrind on amd64 and
# counts per MB of TCP payload; this one only the ESP code each packet passes
# through (framing, padding, cipher and ICV, replay window, inner header), per
# MB of inner packets, so its figures are lower; it needs no namespaces and
# runs the same way on every architecture (bench/arch.sh: the cross build,
# ARCH's valgrind under qemu-user).
#
# armhf runs with OPENSSL_armcap=0 (OpenSSL's plain ARMv4 AES and GHASH, no
# NEON) unless OPENSSL_armcap is set: valgrind 3.19 cannot decode an
# instruction of OpenSSL 3.0's bit-sliced NEON AES (bsaes, Thumb-2 `sub.w ip,
# sp, sl, lsl #7`: SIGILL), which AES-GCM takes for 8 blocks and more. So the
# armhf figure is that of an ARMv7 whose OpenSSL uses no NEON (or an ARMv6
# tablet's); arm64 runs with its crypto extensions (bench/arch.sh).
#
# Prints one line per architecture:
#   "  ARCH  suite S  seal N  open M  instructions per MB  (T s)[ OPENSSL_armcap=X]"
# Environment: MB1, MB2 (default 1 and 4), SUITE (default 13), BUILD,
# BUILD_ARM (one ARCH only), VG_CACHE, NO_BUILD (bench/arch.sh).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MB1=${MB1:-1}
MB2=${MB2:-4}
SUITE=${SUITE:-13}
. "$ROOT/bench/arch.sh"
[ $# -gt 0 ] || set -- "$ARCH_NATIVE" armhf arm64
[ "$MB2" -gt "$MB1" ] || { echo "esp-cost-arch: MB2 must be larger than MB1" >&2; exit 2; }
command -v valgrind >/dev/null ||
	{ echo "esp-cost-arch: valgrind not found (tools/install-deps.sh --bench)" >&2; exit 1; }

# count MB [--seal-only]: "Ir bytes", the instructions of the whole
# bench-esp-cost process and the inner bytes it sealed (whole packets).
count() {
	local log=$TMP/$ARCH-$1${2:-}.log
	"$ARCH_VG" --tool=callgrind --callgrind-out-file=/dev/null "$ARCH_BIN" -s "$SUITE" -m "$@" \
		>"$log" 2>&1 || {
		echo "esp-cost-arch: valgrind run ($ARCH, $* MB) failed:" >&2
		tail -15 "$log" >&2
		return 1
	}
	local bytes
	bytes=$(sed -n 's/.* packets of .* (\([0-9]*\) inner bytes).*/\1/p' "$log")
	echo "$(arch_collected "$log") $bytes" | grep -E '^[0-9]+ [0-9]+$'
}

USER_CAP=${OPENSSL_armcap+set:$OPENSSL_armcap}   # "set:X" when the caller chose
TMP=$(mktemp -d /tmp/esp-cost-arch.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
echo "esp-cost-arch: instructions per MB (10^6 bytes of 1400-byte inner packets) of userspace"
echo "  ESP, suite $SUITE, seal (sender) and open (receiver); whole process under valgrind"
echo "  (callgrind), (Ir($MB2 MB) - Ir($MB1 MB)) / $((MB2 - MB1)) MB, seal only and seal + open"
rc=0
for ARCH in "$@"; do
	t0=$(date +%s)
	arch_prepare "$ARCH" tools/bench-esp-cost || { rc=1; continue; }
	cap=${USER_CAP#set:}
	[ "$ARCH" != armhf ] || [ -n "$USER_CAP" ] || cap=0
	if [ -n "$cap" ]; then export OPENSSL_armcap=$cap; else unset OPENSSL_armcap; fi
	s1=$(count "$MB1" --seal-only) && s2=$(count "$MB2" --seal-only) &&
		b1=$(count "$MB1") && b2=$(count "$MB2") || { rc=1; continue; }
	echo "$s1 $s2 $b1 $b2" | awk -v arch="$ARCH" -v s="$SUITE" -v t="$(($(date +%s) - t0))" \
		-v cap="${cap:+ OPENSSL_armcap=$cap}" '{
		seal = ($3 - $1) / ($4 - $2) * 1e6
		printf "  %-8s suite %d  seal %.0f  open %.0f  instructions per MB  (%d s)%s\n",
			arch, s, seal, ($7 - $5) / ($8 - $6) * 1e6 - seal, t, cap }'
done
exit $rc
