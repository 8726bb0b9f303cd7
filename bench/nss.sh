#!/bin/bash
# bench/nss.sh [N=20000] - time per getaddrinfo() through the NSS module
# (libnss_hip.so.2, nss/, D-19), in a mount namespace whose /etc is an
# overlay with "hosts: hip [NOTFOUND=return] files" and a HIP hosts file of
# 10, then 1000 named lines (the module reads the file on every call). Each
# lookup is timed alone by tools/bench-nss: the median is the figure (target
# <= 50 us, issue 16); "plainhost" is a name of /etc/hosts, answered by
# files after hip said UNAVAIL, "nothere.hip" stops at hip (NOTFOUND).
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
mkdir -p "$T/lib" "$T/etc/hip" "$T/work"
cp "$BUILD/nss/libnss_hip.so.2" "$T/lib/"
printf 'hosts: hip [NOTFOUND=return] files\n' >"$T/etc/nsswitch.conf"
printf '127.0.0.1 localhost\n192.0.2.77 plainhost\n' >"$T/etc/hosts"

# hosts_file LINES: LINES named entries, the first "tablet", the last "last";
# then "nolsi", without an LSI (one answer: nothing for getaddrinfo to sort)
hosts_file() {
	python3 - "$1" >"$T/etc/hip/hosts" <<'E'
import sys
n = int(sys.argv[1])
for i in range(n):
    name = "tablet" if i == 0 else ("last" if i == n - 1 else "host%d" % i)
    print("2001:2a::%x 192.0.2.%d name=%s name=%s.lab lsi=198.18.%d.%d"
          % (i + 1, i % 250 + 1, name, name, (i + 1) // 256, (i + 1) % 256 or 1))
print("2001:2b::1 192.0.2.250 name=nolsi")
E
}

echo "# $(nproc) cores, $(uname -r), N=$N lookups per name"
for lines in 10 1000; do
	hosts_file "$lines"
	echo "# hosts file: $lines lines, $(stat -c %s "$T/etc/hip/hosts") bytes"
	unshare -m --propagation private env LD_LIBRARY_PATH="$T/lib" sh -c \
		'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1,workdir=$2" /etc &&
		 shift 2 && exec "$@"' sh "$T/etc" "$T/work" \
		"$BUILD/tools/bench-nss" "$N" tablet tablet.hip nolsi.hip last.hip plainhost nothere.hip
done
