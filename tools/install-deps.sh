#!/bin/sh
# Install every build and test dependency of hipd on Debian 12 (idempotent).
# Usage: tools/install-deps.sh [--no-update] [--bench] [--packaging]
#   --bench  also what bench/ compares against (strongSwan, with its
#            userspace ESP kernel-libipsec; Go to build wireguard-go, and
#            wireguard-tools), iperf3, valgrind and libfaketime
#            (bench/bex-cost*.sh), matplotlib (tools/experiments.sh's plots),
#            not needed to build or test
#   --packaging  also what building and checking the .deb needs (debhelper,
#            lintian, mmdebstrap for the clean-chroot install test) and
#            qemu-user for the cross-built tests (tools/cross-build.sh adds
#            the foreign architecture's toolchain and libraries)
set -eu

PKGS="build-essential autoconf automake libtool pkg-config
 libssl-dev openssl libnl-3-dev libnl-route-3-dev libnl-xfrm-3-dev
 libnetfilter-queue-dev libcap-dev check libsubunit-dev
 clang llvm libclang-rt-14-dev clang-tools-14
 tshark tcpdump iproute2 iptables conntrack iputils-ping procps psmisc
 python3 systemd man-db
 qemu-system-x86 qemu-system-data kmod xz-utils cpio util-linux"

BENCH_PKGS="strongswan-charon strongswan-swanctl strongswan-pki libstrongswan-standard-plugins
 libcharon-extra-plugins iperf3 wireguard-tools golang-go valgrind libfaketime
 python3-matplotlib"
PACKAGING_PKGS="dpkg-dev debhelper lintian mmdebstrap systemd-container qemu-user-static binfmt-support"
for arg in "$@"; do
	[ "$arg" = "--bench" ] && PKGS="$PKGS $BENCH_PKGS"
	[ "$arg" = "--packaging" ] && PKGS="$PKGS $PACKAGING_PKGS"
done

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed'; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	echo "install-deps: all dependencies present"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages:$missing" >&2
	echo "install-deps: run as root (or: sudo apt-get install$missing)" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# wireshark-common asks whether non-root users may capture; answer no.
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
echo "install-deps: installing:$missing"
# One broken index (a mirror mid-sync, a foreign architecture's) must not stop
# the install: apt uses the indexes it has.
apt-get update -qq || echo "install-deps: apt-get update reported errors; going on" >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "install-deps: done"
