#!/bin/bash
# bench/nss.sh [N=20000] - time per getaddrinfo() through the NSS module
# (libnss_hip.so.2, nss/, D-19), in a mount namespace whose /etc is an
# overlay with "hosts: hip [NOTFOUND=return] files" and a HIP hosts file of
# 10, then 1000 named lines (the module reads the file on every call). Each
# lookup is timed alone by tools/bench-nss: the median is the figure (target
# <= 50 us, issue 16); "plainhost" is a name of /etc/hosts, answered by
# files after hip said UNAVAIL, "nothere.hip" stops at hip (NOTFOUND).
# hipd's LSI table (D-26) is on /run/hipd (a tmpfs of the namespace) with
# as many lines: "derived" (no lsi=) takes its LSI from its last line,
# "nolsi" has none there (the whole table is read).
#   make -C build nss/libnss_hip.so.2 tools/bench-nss && sudo BUILD=build bench/nss.sh
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${BUILD:-$ROOT/build}" && pwd)
N=${1:-20000}
[ "$(id -u)" = 0 ] || { echo "nss.sh: needs root (mount namespace)"; exit 1; }
for f in nss/libnss_hip.so.2 tools/bench-nss; do
	[ -x "$BUILD/$f" ] || { echo "nss.sh: build $BUILD/$f first"; exit 1; }
done
T=$(mktemp -d /tmp/hip-bench-nss.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/lib" "$T/etc/hip" "$T/work" "$T/run"
cp "$BUILD/nss/libnss_hip.so.2" "$T/lib/"
printf 'hosts: hip [NOTFOUND=return] files\n' >"$T/etc/nsswitch.conf"
printf '127.0.0.1 localhost\n192.0.2.77 plainhost\n' >"$T/etc/hosts"

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

echo "# $(nproc) cores, $(uname -r), N=$N lookups per name"
for lines in 10 1000; do
	hosts_file "$lines"
	echo "# hosts file: $lines lines, $(stat -c %s "$T/etc/hip/hosts") bytes;" \
		"LSI table: $lines lines, $(stat -c %s "$T/run/lsi") bytes"
	unshare -m --propagation private env LD_LIBRARY_PATH="$T/lib" sh -c \
		'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1,workdir=$2" /etc &&
		 mount -t tmpfs tmpfs /run && mkdir /run/hipd && mount --bind "$3" /run/hipd &&
		 shift 3 && exec "$@"' sh "$T/etc" "$T/work" "$T/run" \
		"$BUILD/tools/bench-nss" "$N" tablet tablet.hip nolsi.hip last.hip plainhost \
		nothere.hip derived derived.hip
done
