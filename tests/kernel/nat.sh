#!/bin/bash
# tests/kernel/nat.sh - NAT traversal on the kernel datapath (issue 13): the topology of
# tests/netns/nat.sh (A behind a Linux MASQUERADE NAT that drops IP protocols 139 and
# 50, B public) with both hipd using XFRM. The base exchange runs over UDP 10500, the
# kernel's SAs carry the UDP encapsulation (`ip xfrm state`: encap type espinudp, our
# port 10500 on one side, the NAT's port of A on B's), and ESP between the HITs flows
# both ways through the NAT. Then the NAT gives A a new port under a TCP stream (conntrack
# flushed, another port range): B's kernel reports authentic ESP in UDP from the new port
# (XFRM_MSG_MAPPING), hipd moves both SAs there in place (XFRM_MSG_UPDSA), without an
# UPDATE and without a byte lost.
#
# Run inside the ESP VM as root, with a build made on the host:
#   tools/kvm/run-in-esp-vm.sh 'BUILD=/path/to/build sh tests/kernel/nat.sh'
# Exit: 0 passed, 1 failed, 77 skipped (no root, no ESP in this kernel, no build).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

KNAME=nat KTOOLS="ip ping python3 iptables-legacy conntrack"
. "$(dirname "$0")/lib.sh"
[ -c /dev/net/tun ] || skip "no /dev/net/tun"
modprobe -q -a nf_conntrack nf_nat iptable_nat iptable_filter xt_MASQUERADE 2>/dev/null
[ -x /usr/bin/python3 ] && STREAM_PY=/usr/bin/python3

netns_host a n b
netns_link a n 10
netns_link n b 1
kernel_esp_probe a
nsx n sysctl -qw net.ipv4.ip_forward=1
ipt n -t nat -A POSTROUTING -o vn1 -p udp -j MASQUERADE --to-ports 20000-20999 ||
	skip "no NAT (iptables-legacy nat table) in this kernel"
ipt n -A FORWARD -p 139 -j DROP
ipt n -A FORWARD -p 50 -j DROP
nsx a ip route add default via "$(addr4 n 10)"

hipd_launch a "datapath = kernel" "listen_v6 = no"
hipd_launch b "datapath = kernel" "listen_v6 = no"
hipd_wait a b || exit 1
check "both hipd run the kernel datapath" \
	eval "grep -q 'datapath: kernel' $NETNS_TMP/a/hipd.log && grep -q 'datapath: kernel' $NETNS_TMP/b/hipd.log"
hc a add map "$(hit b)" "$(addr4 b 1)" >/dev/null
check "A triggers B" hc a trigger "$(hit b)"
check "A <-> B established over the NAT" wait_up a b 40
check "both associations run over UDP" \
	eq "$(ha_get a "$(hit b)" transport) $(ha_get b "$(hit a)" transport)" "udp udp"
PB=$(ha_get b "$(hit a)" peer_port)
check "B's peer port is the NAT's (20000-20999)" eval '[ "$PB" -ge 20000 ] && [ "$PB" -le 20999 ]'
# encap_ok NAME SPORT DPORT: both of NAME's SAs of ours carry UDP encapsulation
encap_ok() {
	local n
	n=$(nsx "$1" ip xfrm state | grep -c "encap type espinudp sport $2 dport $3")
	echo "$1: $n SAs $2 -> $3, $(nsx "$1" ip xfrm state | grep -c 'encap type espinudp') with encap"
	[ "$n" -ge 1 ] &&
		[ "$(nsx "$1" ip xfrm state | grep -c "encap type espinudp sport $3 dport $2")" -ge 1 ]
}
check "A's kernel SAs: ESP in UDP 10500 <-> 10500" encap_ok a 10500 10500
check "B's kernel SAs: ESP in UDP 10500 <-> the NAT's port" encap_ok b 10500 "$PB"
check "ping A -> B between the HITs" nsx a ping -6 -c 3 -W 5 -q "$(hit b)"
check "ping B -> A on the same association" nsx b ping -6 -c 3 -W 5 -q "$(hit a)"
check "1 MB over TCP A -> B, SHA-256 equal" tcp_transfer a b $((1 << 20)) 120

echo "# NAT rebinding under a TCP stream: B's kernel reports the new port"
echo "# (XFRM_MSG_MAPPING), hipd moves B's SAs there, no UPDATE, no byte lost"
RATE=${KNAT_RATE:-65536} SECS=${KNAT_SECS:-8} STREAM_LEAD=2
upd_before=$(stat_of b update.received)
check "stream A -> B running" stream_begin a b
ipt n -t nat -R POSTROUTING 1 -o vn1 -p udp -j MASQUERADE --to-ports 30000-30999
nsx n conntrack -F >/dev/null 2>&1
check "B moves to the NAT's new port (30000-30999)" wait_for "B at the new port" 40 eval \
	'p=$(ha_get b "$(hit a)" peer_port); [ "$p" -ge 30000 ] && [ "$p" -le 30999 ]'
NP=$(ha_get b "$(hit a)" peer_port)
check "B's kernel SAs: ESP in UDP 10500 <-> the NAT's new port" encap_ok b 10500 "$NP"
check "B's kernel reported it (XFRM_MSG_MAPPING)" \
	grep -q "XFRM_MSG_MAPPING: ESP in UDP on SA .* port $NP " "$NETNS_TMP/b/hipd.log"
check "B logged the mapping change" grep -q "NAT mapping changed, port $PB -> $NP" \
	"$NETNS_TMP/b/hipd.log"
check "B's SAs changed in place" grep -q "UDP encapsulation changed in place" \
	"$NETNS_TMP/b/hipd.log"
check "B counted the mapping change it followed (show stats nat)" \
	ge "$(stat_of b nat.mappings_followed)" 1
check "every byte of the stream arrived, in order (SHA-256 equal)" stream_end
check "no UPDATE was needed" eq "$(stat_of b update.received)" "$upd_before"
check "ping B -> A after the rebinding" nsx b ping -6 -c 3 -W 5 -q "$(hit a)"
check "still one association each" eq "$(ha_count a) $(ha_count b)" "1 1"
check "no raw HIP or ESP reached the NAT's drop rules" \
	eq "$(rule_pkts n FORWARD) $(ipt n -L FORWARD 2 -v -x -n | awk '{print $1; exit}')" "0 0"
netns_done
