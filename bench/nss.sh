#!/bin/bash
# bench/nss.sh [N=20000] - time per getaddrinfo() through the NSS module
# (libnss_hip.so.2, nss/, D-19), in a mount namespace whose /etc is an
# overlay with "hosts: hip [NOTFOUND=return] files" and a HIP hosts file of
# 10, then 1000 named lines. Each lookup is timed alone by tools/bench-nss:
# the median is the figure (target <= 50 us, issue 16); "plainhost" is a
# name of /etc/hosts, answered by files after hip said UNAVAIL,
# "nothere.hip" stops at hip (NOTFOUND). hipd's LSI table (D-26) is on
# /run/hipd (a tmpfs of the namespace) with as many lines: "derived" (no
# lsi=) takes its LSI from its last line, "nolsi" has none there.
# The module keeps its copy of both files between calls while they do not
# change (nss/file_cache.h); files changed in the last 2 seconds are read
# on every call, so the files are left to settle before the runs. The
# floor: "files" alone, the same answers from /etc/hosts ("ftablet": a HIT
# and an LSI, "fnolsi": a HIT), what glibc costs without the module.
# BENCH_RT=1 (the default) runs bench-nss SCHED_FIFO 10, so that the
# machine's other work does not preempt it (BENCH_RT=0: not).
#   make -C build nss/libnss_hip.so.2 tools/bench-nss && sudo BUILD=build bench/nss.sh
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${BUILD:-$ROOT/build}" && pwd)
N=${1:-20000}
RT=()
[ "${BENCH_RT:-1}" = 1 ] && RT=(chrt -f 10)
[ "$(id -u)" = 0 ] || { echo "nss.sh: needs root (mount namespace)"; exit 1; }
for f in nss/libnss_hip.so.2 tools/bench-nss; do
	[ -x "$BUILD/$f" ] || { echo "nss.sh: build $BUILD/$f first"; exit 1; }
done
T=$(mktemp -d /tmp/hip-bench-nss.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/lib" "$T/etc/hip" "$T/work" "$T/run" "$T/floor" "$T/work2"
cp "$BUILD/nss/libnss_hip.so.2" "$T/lib/"
printf 'hosts: hip [NOTFOUND=return] files\n' >"$T/etc/nsswitch.conf"
printf '127.0.0.1 localhost\n192.0.2.77 plainhost\n' >"$T/etc/hosts"
printf 'hosts: files\n' >"$T/floor/nsswitch.conf"
printf '127.0.0.1 localhost\n192.0.2.77 plainhost\n2001:2a::1 ftablet\n198.18.0.1 ftablet\n2001:2b::1 fnolsi\n' \
	>"$T/floor/hosts"

# bench UPPER WORK NAME...: tools/bench-nss with UPPER over /etc
bench() {
	unshare -m --propagation private env LD_LIBRARY_PATH="$T/lib" sh -c \
		'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1,workdir=$2" /etc &&
		 mount -t tmpfs tmpfs /run && mkdir /run/hipd && mount --bind "$3" /run/hipd &&
		 shift 3 && exec "$@"' sh "$1" "$2" "$T/run" \
		"${RT[@]}" "$BUILD/tools/bench-nss" "$N" "${@:3}"
}

# hosts_file LINES: LINES named entries, the first "tablet", the last "last";
# then "nolsi", without an LSI (one answer: nothing for getaddrinfo to sort),
# and "derived", whose LSI only hipd's table gives (its last line)
hosts_file() {
	python3 - "$1" >"$T/etc/hip/hosts" <<'E'
import sys
n = int(sys.argv[1])
for i in range(n):
    name = "tablet" if i == 0 else ("last" if i == n - 1 else "host%d" % i)
    print("2001:2a::%x 192.0.2.%d name=%s name=%s.lab lsi=198.18.%d.%d"
          % (i + 1, i % 250 + 1, name, name, (i + 1) // 256, (i + 1) % 256 or 1))
print("2001:2b::1 192.0.2.250 name=nolsi")
print("2001:2c::1 192.0.2.251 name=derived")
E
	python3 - "$1" >"$T/run/lsi" <<'E'
import sys
n = int(sys.argv[1])
print("# hipd: the LSI of each mapped HIT (HIT LSI), see hipd.conf(5) lsi_file")
for i in range(n - 1):
    print("2001:2a::%x 198.18.%d.%d" % (i + 1, (i + 1) // 256, (i + 1) % 256 or 1))
print("2001:2c::1 198.19.1.1")
E
}

echo "# $(nproc) cores, $(uname -r), N=$N lookups per name, BENCH_RT=${BENCH_RT:-1}"
for lines in 10 1000; do
	hosts_file "$lines"
	echo "# hosts file: $lines lines, $(stat -c %s "$T/etc/hip/hosts") bytes;" \
		"LSI table: $lines lines, $(stat -c %s "$T/run/lsi") bytes"
	sleep 3         # settled: the module's copy is kept (nss/file_cache.h)
	bench "$T/etc" "$T/work" tablet tablet.hip nolsi.hip last.hip plainhost nothere.hip derived \
		derived.hip
done
echo "# floor: hosts: files alone (glibc, no module)"
bench "$T/floor" "$T/work2" ftablet fnolsi plainhost
