#!/bin/bash
# ESP datapath end to end with hipd (issue 4, tests): two namespaces, hipd in
# each on the datapath this kernel gives (here: userspace, hip0 + raw ESP),
# HITs mapped, nothing else configured. Per outer family (IPv4, then IPv6):
#   - ping6 -c 1 to the never-contacted peer HIT succeeds: the datapath's
#     acquire starts the BEX, the packet waits and is delivered;
#   - ping both ways, a 50 MB TCP transfer between HITs with a SHA-256
#     compare, UDP datagrams both ways (echo);
#   - tcpdump -Q out on both veth ends: only HIP (139) and ESP (50) besides
#     ARP / neighbour discovery / MLD, never a HIT as source or destination;
#   - hipconf close removes the association and its SAs, and traffic then
#     triggers a new BEX (ping works again).
. "$(dirname "$0")/lib.sh"
for t in tcpdump tshark ping6; do
	command -v $t >/dev/null || { not_ok "datapath needs $t"; summary datapath; exit 1; }
done
MB=${DATAPATH_MB:-50}

# TCP: tcp_transfer and its SINK / BULK_SOURCE are in lib.sh.
# UDP: an echo server on HIT:PORT, and a client sending COUNT datagrams of
# growing size (up to 1300 bytes), each answered (retried up to 3 times).
UDP_ECHO='import socket,sys
s=socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s.bind((sys.argv[1], int(sys.argv[2])))
print("listening", flush=True)
while True:
    b,a=s.recvfrom(65535); s.sendto(b,a)'
UDP_CLIENT='import os,socket,sys
s=socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s.settimeout(1); ok=0
for i in range(int(sys.argv[3])):
    m=os.urandom(20 + i * 1280 // int(sys.argv[3]))
    for t in range(3):
        s.sendto(m, (sys.argv[1], int(sys.argv[2])))
        try:
            if s.recv(65535)==m: ok+=1; break
        except socket.timeout: pass
print(ok); sys.exit(ok != int(sys.argv[3]))'

udp_echo() { # FROM TO
	local f=$1 t=$2 sp rc
	rm -f "$NETNS_TMP/echo.out"
	nsx "$t" timeout 30 python3 -c "$UDP_ECHO" "$(hit "$t")" 5002 >"$NETNS_TMP/echo.out" &
	sp=$!
	wait_for "echo listening" 5 grep -q listening "$NETNS_TMP/echo.out" || return 1
	nsx "$f" timeout 20 python3 -c "$UDP_CLIENT" "$(hit "$t")" 5002 40
	rc=$?
	kill "$sp"; wait "$sp" 2>/dev/null
	return $rc
}

cap_start() { # NAME DEV FILE
	ip netns exec "$(ns_name "$1")" tcpdump -n -i "$2" -Q out --immediate-mode -U -s 256 \
		-w "$3" 2>"$3.err" &
	echo $! >"$3.pid"
	wait_for "tcpdump on $2" 5 grep -q "listening on" "$3.err"
}
cap_stop() { kill -INT "$(cat "$1.pid")"; wait "$(cat "$1.pid")" 2>/dev/null; }

# wire_clean PCAP: ESP and HIP seen, nothing else but ARP / ND / MLD, no
# packet with a HIT as IPv6 source or destination.
NOISE='arp || (icmpv6.type >= 130 && icmpv6.type <= 143)'
wire_clean() {
	local esp hip other hits
	esp=$(tshark -n -r "$1" -Y 'ip.proto == 50 || ipv6.nxt == 50' 2>/dev/null | wc -l)
	hip=$(tshark -n -r "$1" -Y 'ip.proto == 139 || ipv6.nxt == 139' 2>/dev/null | wc -l)
	other=$(tshark -n -r "$1" -Y "!(ip.proto == 50 || ipv6.nxt == 50 || ip.proto == 139 ||
		ipv6.nxt == 139 || $NOISE)" 2>/dev/null | wc -l)
	hits=$(tshark -n -r "$1" -Y 'ipv6.addr == 2001:20::/28' 2>/dev/null | wc -l)
	echo "$(basename "$1"): ESP $esp, HIP $hip, other $other, HIT-addressed $hits"
	tshark -n -r "$1" -Y "!(ip.proto == 50 || ipv6.nxt == 50 || ip.proto == 139 ||
		ipv6.nxt == 139 || $NOISE) || ipv6.addr == 2001:20::/28" 2>/dev/null | head -5
	[ "$esp" -ge 100 ] && [ "$hip" -ge 2 ] && [ "$other" -eq 0 ] && [ "$hits" -eq 0 ]
}

ping_ok() { nsx "$1" ping6 -c "${3:-1}" -i 0.2 -W 5 "$(hit "$2")"; }
bex_done() { stat_of "$1" bex.completed; }
triggered() { grep -c "traffic to $(hit "$2"): base exchange triggered" "$NETNS_TMP/$1/hipd.log"; }

run_family() { # FAMILY(4|6) A B
	local fam=$1 a=$2 b=$3 n0
	echo "# IPv$fam locators ($a <-> $b)"
	map "$a" "$b" 0 "$fam"; map "$b" "$a" 0 "$fam"
	cap_start "$a" "v${a}0" "$NETNS_TMP/$a.pcap" || return
	cap_start "$b" "v${b}0" "$NETNS_TMP/$b.pcap" || return
	check "IPv$fam: no association before the first packet" no_ha "$a" "$b"
	check "IPv$fam: ping6 -c 1 to the never-contacted peer HIT succeeds" ping_ok "$a" "$b"
	check "IPv$fam: that packet triggered the BEX (acquire)" ge "$(triggered "$a" "$b")" 1
	check "IPv$fam: both sides up, SPIs match" eval "wait_up $a $b 5 && spis_match $a $b"
	check "IPv$fam: ping $b -> $a" ping_ok "$b" "$a" 3
	check "IPv$fam: ping $a -> $b" ping_ok "$a" "$b" 3
	check "IPv$fam: $MB MB over TCP $a -> $b, SHA-256 equal" tcp_transfer "$a" "$b" $((MB << 20)) 60
	check "IPv$fam: UDP $a -> $b -> $a (40 datagrams echoed)" udp_echo "$a" "$b"
	check "IPv$fam: UDP $b -> $a -> $b (40 datagrams echoed)" udp_echo "$b" "$a"
	cap_stop "$NETNS_TMP/$a.pcap"; cap_stop "$NETNS_TMP/$b.pcap"
	check "IPv$fam: $a's veth sends only HIP and ESP, no HIT-addressed packet" \
		wire_clean "$NETNS_TMP/$a.pcap"
	check "IPv$fam: $b's veth sends only HIP and ESP, no HIT-addressed packet" \
		wire_clean "$NETNS_TMP/$b.pcap"

	n0=$(bex_done "$a")
	check "IPv$fam: hipconf close" hc "$a" close "$(hit "$b")"
	check "IPv$fam: $a has no association (and no SAs) after CLOSE_ACK" \
		wait_for "$a closed" 5 no_ha "$a" "$b"
	check "IPv$fam: $b keeps no SAs (CLOSED or gone)" eval \
		"[ \"\$(ha_get $b $(hit "$a") state)\" = CLOSED ] || no_ha $b $a"
	check "IPv$fam: $a shows no associations" eq "$(ha_count "$a")" 0
	check "IPv$fam: ping after CLOSE works (new BEX)" ping_ok "$a" "$b"
	check "IPv$fam: a new BEX completed" ge "$(bex_done "$a")" $((n0 + 1))
	check "IPv$fam: both sides up again" wait_up "$a" "$b" 5
}

netns_host a4 b4 a6 b6
netns_link a4 b4 0
netns_link a6 b6 0
for n in a4 b4 a6 b6; do hipd_launch "$n"; done
hipd_wait a4 b4 a6 b6 || exit 1
check "hipd logs its datapath choice" grep -q "datapath: " "$NETNS_TMP/a4/hipd.log"
grep -h "datapath: " "$NETNS_TMP/a4/hipd.log" | head -3 | sed 's/^/# /'
check "hip0 holds the local HIT" eval "nsx a4 ip -6 addr show dev hip0 | grep -q $(hit a4)/128"
check "2001:20::/28 is routed to hip0" eval "nsx a4 ip -6 route show 2001:20::/28 | grep -q 'dev hip0'"

run_family 4 a4 b4
run_family 6 a6 b6

hipd_stop b6
check "hip0 is gone after hipd stops" eval "! nsx b6 ip link show hip0 2>/dev/null"
check "and with it the route" eval "[ -z \"\$(nsx b6 ip -6 route show 2001:20::/28)\" ]"
netns_done
