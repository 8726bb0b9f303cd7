#!/bin/bash
# tools/demo.sh - the two-host demo (README's first command, `make demo`).
#
# On a fresh Debian 12, as root: installs the dependencies
# (tools/install-deps.sh), builds (make, in ./build or $BUILD), creates two
# network namespaces joined by a veth, starts hipd in each with a fresh
# identity, tells each where the other's HIT is, pings HIT to HIT (the first
# packet starts the base exchange), and shows the associations, the BEX
# time and a few captured packets: on the wire there is only HIP and ESP.
# Everything it created is removed on exit, also on failure or Ctrl-C.
#   usage: tools/demo.sh        (BUILD=dir to build elsewhere,
#                                DEMO_SKIP_DEPS=1 to skip the apt step)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
[ "$(id -u)" = 0 ] || { echo "demo: run as root (namespaces, TUN, raw sockets)" >&2; exit 1; }

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
die() { echo "demo: $*" >&2; exit 1; }

say "Dependencies"
if [ -z "${DEMO_SKIP_DEPS:-}" ]; then
	tools/install-deps.sh || die "installing the dependencies failed"
fi

say "Build (make, in ${BUILD:-build})"
BUILD=${BUILD:-build}
make BUILD="$BUILD" >"$ROOT/demo-build.log" 2>&1 || {
	tail -30 "$ROOT/demo-build.log"; die "build failed (full log: demo-build.log)"; }
rm -f "$ROOT/demo-build.log"
echo "built $BUILD/hipd/hipd and $BUILD/tools/hipconf"
BUILD=$(cd "$BUILD" && pwd)
export BUILD

# The netns framework of the test suite: namespaces, hipd with its own
# paths, and the clean-up trap (namespaces, processes, files).
NETNS_ID=demo
. "$ROOT/tests/netns/lib.sh"

say "Two hosts: namespaces $(ns_name a) and $(ns_name b), a veth between them"
netns_host a b
netns_link a b 0
echo "a: $(addr4 a)  $(addr6 a)        b: $(addr4 b)  $(addr6 b)"

say "hipd in each, with a freshly generated Host Identity"
hipd_launch a
hipd_launch b
hipd_wait a b || die "hipd did not start (log: $NETNS_TMP/a/hipd.log)"
HA=$(hit a)
HB=$(hit b)
echo "a: HIT $HA"
echo "b: HIT $HB"
grep -h -m1 "datapath: " "$NETNS_TMP/a/hipd.log" | sed 's/^<[0-9]>/hipd: /'

say "Map the HITs to locators (hipconf add map)"
hc a add map "$HB" "$(addr4 b)" && echo "a: $HB is at $(addr4 b)"
hc b add map "$HA" "$(addr4 a)" && echo "b: $HA is at $(addr4 a)"

PCAP=$NETNS_TMP/veth.pcap
ip netns exec "$(ns_name a)" tcpdump -n -i va0 --immediate-mode -U -s 256 -w "$PCAP" \
	2>"$PCAP.err" &
echo $! >"$PCAP.pid"
wait_for "tcpdump" 5 grep -q "listening on" "$PCAP.err" || die "tcpdump did not start"

say "ping6 from a to b's HIT (no association yet: the first packet starts the base exchange)"
nsx a ping6 -c 4 -i 0.3 -W 5 "$HB" || die "ping failed"

say "ping6 from b to a's HIT"
nsx b ping6 -c 2 -i 0.3 -W 5 "$HA" || die "ping failed"
sleep 0.2
kill -INT "$(cat "$PCAP.pid")"; wait "$(cat "$PCAP.pid")" 2>/dev/null

say "hipconf show associations (on a)"
hc a show associations
say "hipconf show associations (on b)"
hc b show associations

say "Base exchange time (hipconf show stats on a, the Initiator)"
hc a show stats | grep -E "^bex:"

say "On the wire (tcpdump -n -r, veth of a): HIP (proto 139) then ESP, never a HIT"
tcpdump -n -r "$PCAP" 'ip proto 139 or ip6 proto 139 or ip proto 50 or ip6 proto 50' \
	2>/dev/null | head -10
total=$(tcpdump -n -r "$PCAP" 2>/dev/null | wc -l)
esp=$(tcpdump -n -r "$PCAP" 'ip proto 50 or ip6 proto 50' 2>/dev/null | wc -l)
hipn=$(tcpdump -n -r "$PCAP" 'ip proto 139 or ip6 proto 139' 2>/dev/null | wc -l)
hits=$(tcpdump -n -r "$PCAP" 'ip6 net 2001:20::/28' 2>/dev/null | wc -l)
echo "captured $total packets: $hipn HIP, $esp ESP, $hits with a HIT as address," \
	"$((total - hipn - esp)) other (ARP, neighbour discovery, MLD)"

say "Tear down (hipd stopped, namespaces removed)"
for n in a b; do hipd_stop "$n" || echo "hipd $n: exit status $?"; done
echo "done"
