#!/bin/bash
# tests/kernel/nat-dual.sh - connectivity checks in both address families on the kernel
# datapath (issue 13): the topology of tests/netns/nat-ice-dual.sh. A and B are dual-stack
# hosts behind symmetric IPv4 NATs (MASQUERADE --random-fully: IPv4 hole punching cannot
# work) whose IPv6 side routes with a stateful firewall; S, the relay, is reached over
# IPv4. The base exchange goes through S over IPv4, the checks find the IPv6 pair, and
# each kernel gets SAs with ESP in UDP over IPv6 (`ip xfrm state`: encap espinudp to the
# peer's IPv6 address), carrying the traffic between the HITs.
#
# Run inside the ESP VM as root, with a build made on the host:
#   tools/kvm/run-in-esp-vm.sh 'BUILD=/path/to/build sh tests/kernel/nat-dual.sh'
# Exit: 0 passed, 1 failed, 77 skipped (no root, no ESP in this kernel, no build).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

KNAME=nat-dual KTOOLS="ip ping python3 iptables-legacy ip6tables-legacy"
. "$(dirname "$0")/lib.sh"
[ -c /dev/net/tun ] || skip "no /dev/net/tun"
[ -x /usr/bin/python3 ] && STREAM_PY=/usr/bin/python3

kernel_dual_nat_topology
kernel_esp_probe a

hipd_start s "offer_services = relay" "listen_v6 = no" || exit 1
hipd_launch a "datapath = kernel" "server = $(hit s) $S_PUB relay"
hipd_launch b "datapath = kernel" "server = $(hit s) $S_PUB2 relay"
hipd_wait a b || exit 1
check "A and B run the kernel datapath" \
	eval "grep -q 'datapath: kernel' $NETNS_TMP/a/hipd.log && grep -q 'datapath: kernel' $NETNS_TMP/b/hipd.log"
registered() { [ "$(hc "$1" --json show servers | jget servers.0.state)" = registered ]; }
check "A and B register with the relay over IPv4" wait_for "registered" 40 \
	eval 'registered a && registered b'
hc a add map "$(hit b)" "$S_PUB" >/dev/null
check "A triggers B through S" hc a trigger "$(hit b)"
check "A <-> B established" wait_up a b 40
direct() { [ "$(ha_get "$1" "$2" path)" = direct ]; }
check "checks done on both sides, direct" wait_for "direct" 40 \
	eval 'direct a "$(hit b)" && direct b "$(hit a)"'
check "A reaches B at its IPv6 address over UDP" \
	eq "$(ha_get a "$(hit b)" peer_locator transport)" "$B6 udp"
# sa_to NAME DST: NAME's kernel SA towards DST carries ESP in UDP 10500 -> 10500
sa_to() {
	nsx "$1" ip xfrm state | grep -A6 "^src .* dst $2\$" | grep -q "encap type espinudp sport 10500 dport 10500"
}
check "A's outbound SA: to B's IPv6 address, ESP in UDP 10500 -> 10500" sa_to a "$B6"
check "B's outbound SA: to A's IPv6 address, ESP in UDP 10500 -> 10500" sa_to b "$A6"
check "ping A -> B between the HITs" nsx a ping -6 -c 3 -W 5 -q "$(hit b)"
check "ping B -> A on the same association" nsx b ping -6 -c 3 -W 5 -q "$(hit a)"
check "1 MB over TCP A -> B, SHA-256 equal" tcp_transfer a b $((1 << 20)) 120
esp_bytes() {
	nsx a ip -s xfrm state | awk -v d="$B6" '/^src / {f = ($4 == d)}
		f && /lifetime current/ {getline; split($1, x, "("); n += x[1]} END {print n + 0}'
}
check "the kernel's SA to B's IPv6 address carried the megabyte" eval '[ "$(esp_bytes)" -gt 1000000 ]'
netns_done
