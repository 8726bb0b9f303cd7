#!/bin/bash
# IPv4 programs over LSIs (issue 16, docs/decisions.md D-22), userspace
# datapath: the first IPv4 packet to a peer's LSI starts the base exchange
# and is delivered; the association then has a second ESP SA pair whose
# inner addresses are the two LSIs (show associations: lsi_spi_in/out);
# ping -4 and 20 MB of TCP over the LSIs intact, over IPv4 locators and
# over IPv6 locators; the wire carries only HIP and ESP (no packet with an
# LSI on it); the peer sees our LSI as the source (an IPv4 socket's peer
# address); a TCP stream over the LSIs survives a move of the Initiator
# (UPDATE, RFC 8046), and a rekey; IPv4 to an LSI
# no HIT has starts nothing and is counted.
#
#   a -- b   (link 0: 192.0.2.0/24, fd00:0::/64)
. "$(dirname "$0")/lib.sh"
MB=${LSI_MB:-20}

netns_host a b
netns_link a b 0
# a's move below deletes its first address: the second must stay
nsx a sysctl -q -w net.ipv4.conf.all.promote_secondaries=1 net.ipv4.conf.va0.promote_secondaries=1
hipd_launch a; hipd_launch b
hipd_wait a b || exit 1

own_lsi() { hc "$1" --json show hi | jget identities.0.lsi; }
LA=$(own_lsi a) LB=$(own_lsi b)
echo "LSIs: a $LA, b $LB"
lsi_pair() { [ "$(ha_get "$1" "$(hit "$2")" lsi_spi_out)" -gt 0 ] 2>/dev/null; }
lsi_spis_match() {
	[ "$(ha_get "$1" "$(hit "$2")" lsi_spi_out)" = "$(ha_get "$2" "$(hit "$1")" lsi_spi_in)" ] &&
	[ "$(ha_get "$1" "$(hit "$2")" lsi_spi_in)" = "$(ha_get "$2" "$(hit "$1")" lsi_spi_out)" ]
}
ping4() { nsx "$1" ping -4 -c "${3:-1}" -i 0.2 -W 5 "$2"; }
cap_start() { # NAME DEV FILE
	ip netns exec "$(ns_name "$1")" tcpdump -n -i "$2" --immediate-mode -U -s 128 \
		-w "$3" 2>"$3.err" &
	wait_for "tcpdump on $2" 5 grep -q "listening on" "$3.err"
}
# no_lsi_on_wire PCAP: ESP seen, and no packet with an address of the LSI range
no_lsi_on_wire() {
	local esp lsi
	esp=$(tshark -n -r "$1" -Y 'esp' 2>/dev/null | wc -l)
	lsi=$(tshark -n -r "$1" -Y 'ip.addr == 198.18.0.0/15' 2>/dev/null | wc -l)
	echo "$(basename "$1"): ESP $esp, LSI-addressed $lsi"
	[ "$esp" -ge 50 ] && [ "$lsi" -eq 0 ]
}
# peer_addr_seen NAME PORT: an IPv4 server on NAME's LSI prints its client's address
PEER_PY='import socket,sys
s=socket.socket(socket.AF_INET); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(1); print("listening", flush=True)
s.settimeout(20); c,a=s.accept(); print("peer", a[0], flush=True); c.close()'

for fam in 4 6; do
	echo "# IPv4 over LSIs, IPv$fam locators"
	map a b 0 "$fam"; map b a 0 "$fam"
	cap_start a va0 "$NETNS_TMP/a$fam.pcap" || exit 1
	check "IPv$fam: no association in use before the first IPv4 packet" \
		state_is a b none CLOSED
	check "IPv$fam: ping -4 -c 1 to b's never-contacted LSI $LB is answered" ping4 a "$LB"
	check "IPv$fam: it started the exchange (counted)" ge "$(stat_of a lsi.acquires)" 1
	check "IPv$fam: both sides up" wait_up a b 5
	check "IPv$fam: over the IPv$fam locators" locator_is a b peer_locator \
		"$(python3 -c 'import ipaddress,sys; print(ipaddress.ip_address(sys.argv[1]))' "$(addr$fam b 0)")"
	check "IPv$fam: a has the LSI SA pair" lsi_pair a b
	check "IPv$fam: b has the LSI SA pair" lsi_pair b a
	check "IPv$fam: its SPIs match across, and differ from the HIT pair's" eval \
		'lsi_spis_match a b && [ "$(ha_get a "$(hit b)" lsi_spi_out)" != "$(ha_get a "$(hit b)" spi_out)" ]'
	check "IPv$fam: show associations (text) gives the pair's SPIs" eval \
		'hc a show associations | grep -q "lsi local $LA peer $LB  spi in 0x"'
	check "IPv$fam: ping -4 b -> a's LSI" ping4 b "$LA" 3
	check "IPv$fam: ping -6 to the HIT still works beside it" \
		nsx a ping -6 -c 2 -i 0.2 -W 5 "$(hit b)"
	rm -f "$NETNS_TMP/peer.out"
	nsx b timeout 25 python3 -c "$PEER_PY" "$LB" 5003 >"$NETNS_TMP/peer.out" &
	wait_for "server listening" 5 grep -q listening "$NETNS_TMP/peer.out"
	nsx a python3 -c 'import socket,sys; socket.create_connection((sys.argv[1], 5003), 10).close()' \
		"$LB"
	wait_for "server saw its client" 10 grep -q "^peer" "$NETNS_TMP/peer.out"
	check "IPv$fam: b's IPv4 socket sees a's LSI as the source" \
		grep -qx "peer $LA" "$NETNS_TMP/peer.out"
	check "IPv$fam: $MB MB over TCP a -> b's LSI, SHA-256 equal" eval \
		'TO_ADDR=$LB tcp_transfer a b $((MB << 20)) 60'
	capture_stop "$NETNS_TMP/a$fam.pcap"
	check "IPv$fam: a's veth carried ESP and no LSI-addressed packet" \
		no_lsi_on_wire "$NETNS_TMP/a$fam.pcap"
	check "IPv$fam: hipconf close" hc a close "$(hit b)"
	check "IPv$fam: closed on both sides" wait_for "closed" 10 eval \
		'state_is a b CLOSED none && state_is b a CLOSED none'
	check "IPv$fam: and the LSI SA pair with it" eval \
		'[ "$(hc a --json show associations | grep -c "lsi_spi_out\": [1-9]")" = 0 ]'
	hc a del map "$(hit b)" >/dev/null; hc b del map "$(hit a)" >/dev/null
done

echo "# a stream over the LSIs while a moves and while it rekeys"
map a b 0 4; map b a 0 4
check "exchange by IPv4" ping4 a "$LB"
check "both up, with the LSI pair" eval 'wait_up a b 5 && lsi_pair a b && lsi_pair b a'
TO_ADDR=$LB stream_begin a b
nsip a "addr add 192.0.2.11/24 dev va0" "addr del 192.0.2.1/24 dev va0"
check "a moved to 192.0.2.11 on both sides" wait_moved a b 192.0.2.11
check "the LSI pair moved with it (still agreed)" lsi_spis_match a b
spis_remember a b
check "hipconf rekey under the LSI stream" hc a rekey "$(hit b)"
check "rekeyed on both sides" wait_for "rekeyed" 10 rekeyed a b
check "the stream over the LSIs arrived whole (no byte lost, no reset)" stream_end
check "ping -4 after the rekey" ping4 a "$LB" 3

echo "# IPv4 to an LSI no HIT has"
n0=$(stat_of a lsi.unknown)
nsx a ping -4 -c 1 -W 1 198.18.77.77 >/dev/null 2>&1
check "counted, nothing started" eval '[ "$(stat_of a lsi.unknown)" -gt "$n0" ] && [ "$(ha_count a)" = 1 ]'

netns_done
