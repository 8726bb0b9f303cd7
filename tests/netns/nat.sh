#!/bin/bash
# NAT traversal (RFC 9028 §5.2, RFC 5770 §5.1): A sits behind a real Linux
# NAT (iptables-legacy MASQUERADE in n) that forwards only TCP, UDP and ICMP,
# as carrier-grade NATs do: IP protocols 139 (HIP) and 50 (ESP) are dropped
# in FORWARD. A (10.255.10.2, private) reaches the public B: hipd sends the
# I1 over UDP port 10500 by itself (nat_traversal = auto), B answers over
# UDP to the NAT's port, ESP runs in UDP, and B reaches A back on the same
# association. Checked: no raw HIP or ESP was needed; ping and 20 MB over
# TCP between the HITs with the checksums compared, both ways; a NAT
# rebinding (new public port) under a TCP stream without a byte lost; NAT
# keepalives on an idle association.
#
#   a (10.255.10.1) --- (10.255.10.2) n (198.51.100.1) --- (198.51.100.2) b
. "$(dirname "$0")/lib.sh"

netns_host a n b
netns_link a n 10
netns_link n b 1
nsx n sysctl -qw net.ipv4.ip_forward=1
ipt n -t nat -A POSTROUTING -o vn1 -p udp -j MASQUERADE --to-ports 20000-20999
ipt n -t nat -A POSTROUTING -o vn1 -j MASQUERADE
ipt n -A FORWARD -p 139 -j DROP
ipt n -A FORWARD -p 50 -j DROP
nsx a ip route add default via "$(addr4 n 10)"
B4=$(addr4 b 1)

hipd_launch a "listen_v6 = no" "nat_keepalive_seconds = 15"
hipd_launch b "listen_v6 = no" "nat_keepalive_seconds = 15"
hipd_wait a b || exit 1

# an independent dissector on B's link: tshark decodes UDP 10500 as HIP
CAP=$NETNS_TMP/nat.pcap
if command -v tshark >/dev/null; then
	nsx b timeout 30 tcpdump -i vb1 --immediate-mode -U -w "$CAP" udp port 10500 2>/dev/null &
	TCPDUMP=$!
	wait_for "tcpdump running" 5 test -s "$CAP"
fi
hc a add map "$(hit b)" "$B4" >/dev/null
check "A triggers B" hc a trigger "$(hit b)"
check "A <-> B established over the NAT" wait_up a b 15
check "B sees A at the NAT's public address" locator_is b a peer_locator "$(addr4 n 1)"
check "A's association runs over UDP" eq "$(ha_get a "$(hit b)" transport)" udp
check "B's association runs over UDP" eq "$(ha_get b "$(hit a)" transport)" udp
check "B's peer port is the NAT's mapping of A's port 10500" \
	eval '[ -n "$(ha_get b "$(hit a)" peer_port)" ] && [ "$(ha_get b "$(hit a)" peer_port)" != 0 ]'
if [ -n "${TCPDUMP:-}" ]; then
	sleep 0.5; capture_stop "$CAP"; kill "$TCPDUMP" 2>/dev/null; wait "$TCPDUMP" 2>/dev/null
	hip_fields() { tshark -r "$CAP" -Y "hip.packet_type == $1" -T fields \
		-e hip.checksum -e hip.tlv.nat_traversal_mode_id 2>/dev/null | head -1; }
	check "tshark: I1, R1, I2, R2 over UDP decoded as HIP" eq \
		"$(tshark -r "$CAP" -Y hip -T fields -e hip.packet_type 2>/dev/null | head -4 | xargs)" "1 2 3 4"
	check "tshark: the R1 offers UDP-ENCAPSULATION (1) first, then ICE-HIP-UDP (3), checksum 0" \
		eq "$(hip_fields 2 | awk '{print $1, $2}')" "0x0000 0x0001,0x0003"
	check "tshark: the I2 names mode 1, checksum 0" eq "$(hip_fields 3 | awk '{print $1, $2}')" "0x0000 0x0001"
fi
check "ping A -> B between the HITs" nsx a ping -6 -c 3 -W 2 -q "$(hit b)"
check "ping B -> A on the same association" nsx b ping -6 -c 3 -W 2 -q "$(hit a)"
check "20 MB over TCP A -> B, SHA-256 equal" tcp_transfer a b $((20 << 20))
check "20 MB over TCP B -> A, SHA-256 equal" tcp_transfer b a $((20 << 20))
check "no raw HIP or ESP reached the NAT's drop rules (none was needed)" \
	eq "$(rule_pkts n FORWARD) $(ipt n -L FORWARD 2 -v -x -n | awk '{print $1; exit}')" "0 0"
check "still one association each" eq "$(ha_count a) $(ha_count b)" "1 1"

echo "# NAT rebinding under a TCP stream: the NAT forgets A's mapping and gives"
echo "# it a new port; B follows A's authentic ESP to it, no byte is lost"
old_port=$(ha_get b "$(hit a)" peer_port)
check "B's peer port is in the NAT's first range" eval '[ "$old_port" -ge 20000 ] && [ "$old_port" -le 20999 ]'
check "stream A -> B running" stream_begin a b
ipt n -t nat -R POSTROUTING 1 -o vn1 -p udp -j MASQUERADE --to-ports 30000-30999
nsx n conntrack -F >/dev/null 2>&1
check "B moves to the new port" wait_for "B at the new port" 10 eval \
	'p=$(ha_get b "$(hit a)" peer_port); [ "$p" -ge 30000 ] && [ "$p" -le 30999 ]'
check "every byte of the stream arrived, in order" stream_end
check "B logged the rebinding" grep -q "NAT mapping changed" "$NETNS_TMP/b/hipd.log"
check "ping B -> A after the rebinding" nsx b ping -6 -c 2 -W 2 -q "$(hit a)"

echo "# keepalives: an idle association over UDP keeps the NAT's mapping"
check "A sends a NAT keepalive within 15 s + 5 s of idleness" wait_for "keepalive" 30 eval \
	'[ "$(stat_of a nat.keepalives_sent)" -ge 1 ]'
check "B receives it (signed NOTIFY NAT_KEEPALIVE)" wait_for "keepalive in" 5 eval \
	'[ "$(stat_of b nat.keepalives_received)" -ge 1 ]'
check "no drops on A or B" eq "$(drops_total a) $(drops_total b)" "0 0"
netns_done
