#!/bin/bash
# tests/kernel/nat2.sh - both ends behind NATs on the kernel datapath (issue 13): the
# topology of tests/netns/nat2.sh (A and B each behind its own Linux NAT that drops IP
# protocols 139 and 50, S a public control relay, RFC 9028) with A and B using XFRM.
# The base exchange goes through S, the connectivity checks find the direct pair, and
# only then does each kernel get its SAs: `ip xfrm state` shows ESP in UDP 10500 <->
# 10500 to the other NAT's public address (not S's), and ESP flows both ways.
#
# Run inside the ESP VM as root, with a build made on the host:
#   tools/kvm/run-in-esp-vm.sh 'BUILD=/path/to/build sh tests/kernel/nat2.sh'
# Exit: 0 passed, 1 failed, 77 skipped (no root, no ESP in this kernel, no build).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

KNAME=nat2 KTOOLS="ip ping python3 iptables-legacy"
. "$(dirname "$0")/lib.sh"
[ -c /dev/net/tun ] || skip "no /dev/net/tun"
modprobe -q -a nf_conntrack nf_nat iptable_nat iptable_filter xt_MASQUERADE xt_conntrack \
	2>/dev/null
[ -x /usr/bin/python3 ] && STREAM_PY=/usr/bin/python3

netns_host s a na b nb
netns_link s na 1
netns_link s nb 2
netns_link a na 10
netns_link b nb 11
kernel_esp_probe a
NA_PUB=$(addr4 na 1)
NB_PUB=$(addr4 nb 2)
S_PUB=$(addr4 s 1)
S_PUB2=$(addr4 s 2)
nsx s sysctl -qw net.ipv4.ip_forward=1
nsx na ip route add default via "$S_PUB"
nsx nb ip route add default via "$S_PUB2"
nsx a ip route add default via "$(addr4 na 10)"
nsx b ip route add default via "$(addr4 nb 11)"
# home-router NATs (tests/netns/nat2.sh says why INPUT drops what is new from the WAN)
nat_router() {
	nsx "$1" sysctl -qw net.ipv4.ip_forward=1
	ipt "$1" -t nat -A POSTROUTING -o "$2" -j MASQUERADE ||
		skip "no NAT (iptables-legacy nat table) in this kernel"
	ipt "$1" -A FORWARD -p 139 -j DROP
	ipt "$1" -A FORWARD -p 50 -j DROP
	ipt "$1" -A INPUT -i "$2" -m conntrack --ctstate NEW -j DROP ||
		skip "no conntrack match in this kernel"
}
nat_router na vna1
nat_router nb vnb2

hipd_start s "offer_services = relay" "listen_v6 = no" || exit 1
hipd_launch a "datapath = kernel" "listen_v6 = no" "server = $(hit s) $S_PUB relay"
hipd_launch b "datapath = kernel" "listen_v6 = no" "server = $(hit s) $S_PUB2 relay"
hipd_wait a b || exit 1
check "A and B run the kernel datapath" \
	eval "grep -q 'datapath: kernel' $NETNS_TMP/a/hipd.log && grep -q 'datapath: kernel' $NETNS_TMP/b/hipd.log"
registered() { [ "$(hc "$1" --json show servers | jget servers.0.state)" = registered ]; }
check "A registers with the relay" wait_for "A registered" 40 registered a
check "B registers with the relay" wait_for "B registered" 40 registered b
hc a add map "$(hit b)" "$S_PUB" >/dev/null
check "A triggers B through S" hc a trigger "$(hit b)"
check "A <-> B established" wait_up a b 40
direct() { [ "$(ha_get "$1" "$2" path)" = direct ]; }
check "A's connectivity checks nominated a pair" wait_for "A direct" 40 direct a "$(hit b)"
check "B's connectivity checks nominated a pair" wait_for "B direct" 40 direct b "$(hit a)"
# sa_to NAME DST: NAME's kernel SA towards DST carries ESP in UDP 10500 -> 10500
sa_to() {
	nsx "$1" ip xfrm state | grep -A6 "^src .* dst $2" | grep -q "encap type espinudp sport 10500 dport 10500"
}
check "A's outbound SA: to B's NAT ($NB_PUB), ESP in UDP 10500 -> 10500" sa_to a "$NB_PUB"
check "B's outbound SA: to A's NAT ($NA_PUB), ESP in UDP 10500 -> 10500" sa_to b "$NA_PUB"
check "ping A -> B between the HITs" nsx a ping -6 -c 3 -W 5 -q "$(hit b)"
check "ping B -> A on the same association" nsx b ping -6 -c 3 -W 5 -q "$(hit a)"
check "1 MB over TCP A -> B, SHA-256 equal" tcp_transfer a b $((1 << 20)) 120
# esp_bytes: the bytes of a's SAs to B's NAT (the HIT pair's and the LSI pair's, D-22)
esp_bytes() {
	nsx a ip -s xfrm state | awk -v d="dst $NB_PUB" '/^src / {f = index($0, d) > 0}
		f && /lifetime current/ {getline; split($1, x, "("); n += x[1]} END {print n + 0}'
}
check "the kernel's SA to B's NAT carried the megabyte" eval '[ "$(esp_bytes)" -gt 1000000 ]'
check "no raw HIP or ESP reached the NATs' drop rules" \
	eq "$(rule_pkts na FORWARD) $(rule_pkts nb FORWARD)" "0 0"
netns_done
