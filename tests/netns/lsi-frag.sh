#!/bin/bash
# IPv4 datagrams larger than hip0's MTU over LSIs on the userspace datapath
# (D-22, hipd/datapath/uesp/uesp_frag.c): the kernel fragments them on
# hip0, hipd puts them back together and sends one ESP packet, which the
# kernel fragments on the wire (as the kernel datapath's BEET does). UDP
# datagrams of 3000 and 8000 bytes echoed intact both ways and ping -4 -s
# 3000, over IPv4 locators and over IPv6 locators; the wire carries outer
# fragments of ESP and no LSI-addressed packet. Beside it, the same over
# the HITs (IPv6 fragments: BEET carries their Fragment header). Then the
# same UDP through a NAT (ESP in UDP on the engine's sockets, RFC 3948).
#
#   a -- b        (link 0: 192.0.2.0/24, fd00:0::/64)
#   c -- n -- d   (c behind n's NAT on 10.255.10.0/24; n -- d on link 1)
. "$(dirname "$0")/lib.sh"

netns_host a b c n d
netns_link a b 0
netns_link c n 10
netns_link n d 1
nsx n sysctl -qw net.ipv4.ip_forward=1
ipt n -t nat -A POSTROUTING -o vn1 -p udp -j MASQUERADE --to-ports 20000-20999
ipt n -t nat -A POSTROUTING -o vn1 -j MASQUERADE
ipt n -A FORWARD -p 50 -j DROP
nsx c ip route add default via "$(addr4 n 10)"
hipd_launch a; hipd_launch b
hipd_launch c "listen_v6 = no"; hipd_launch d "listen_v6 = no"
hipd_wait a b c d || exit 1

own_lsi() { hc "$1" --json show hi | jget identities.0.lsi; }
LA=$(own_lsi a) LB=$(own_lsi b)
echo "LSIs: a $LA, b $LB"
# ECHO_PY ADDR PORT: a UDP echo server (IPv4 or IPv6) for 30 s
ECHO_PY='import socket,sys
fam=socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s=socket.socket(fam, socket.SOCK_DGRAM); s.bind((sys.argv[1], int(sys.argv[2])))
print("listening", flush=True); s.settimeout(30)
while True:
    try: d,a=s.recvfrom(65535)
    except socket.timeout: break
    s.sendto(d,a)'
# UDP_PY ADDR PORT SIZE...: each SIZE bytes of random data echoed back equal
# (3 tries of 3 s each); prints "ok SIZE" per size
UDP_PY='import os,socket,sys
fam=socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s=socket.socket(fam, socket.SOCK_DGRAM); s.settimeout(3)
for n in map(int, sys.argv[3:]):
    d=os.urandom(n)
    for t in range(3):
        s.sendto(d, (sys.argv[1], int(sys.argv[2])))
        try: r,_=s.recvfrom(65535)
        except socket.timeout: continue
        if r == d: print("ok", n, flush=True); break
        print("differs", n, len(r), flush=True)'
udp_echo() { # FROM ADDR PORT SIZE...: every size comes back intact
	local from=$1 addr=$2 port=$3 out; shift 3
	out=$(nsx "$from" python3 -c "$UDP_PY" "$addr" "$port" "$@")
	echo "$out"
	[ "$(grep -c '^ok' <<<"$out")" = $# ]
}
ECHO_PIDS=""
echo_start() { # NAME ADDR PORT
	rm -f "$NETNS_TMP/echo$3.out"
	nsx "$1" timeout 40 python3 -c "$ECHO_PY" "$2" "$3" >"$NETNS_TMP/echo$3.out" 2>&1 &
	ECHO_PIDS="$ECHO_PIDS $!"
	wait_for "echo server on $2" 5 grep -q listening "$NETNS_TMP/echo$3.out"
}
cap_start() { # NAME DEV FILE
	ip netns exec "$(ns_name "$1")" tcpdump -n -i "$2" --immediate-mode -U -s 128 \
		-w "$3" 2>"$3.err" &
	wait_for "tcpdump on $2" 5 grep -q "listening on" "$3.err"
}
# outer_frags PCAP FAM: fragments of outer ESP packets on the wire, and no
# packet with an address of the LSI range
outer_frags() {
	local f lsi
	if [ "$2" = 4 ]; then
		f=$(tshark -n -r "$1" -Y 'ip.proto == 50 && (ip.flags.mf == 1 || ip.frag_offset > 0)' \
			2>/dev/null | wc -l)
	else
		f=$(tshark -n -r "$1" -Y 'ipv6.fragment || ipv6.nxt == 44' 2>/dev/null | wc -l)
	fi
	lsi=$(tshark -n -r "$1" -Y 'ip.addr == 198.18.0.0/15' 2>/dev/null | wc -l)
	echo "$(basename "$1"): outer ESP fragments $f, LSI-addressed $lsi"
	[ "$f" -ge 4 ] && [ "$lsi" -eq 0 ]
}

for fam in 4 6; do
	echo "# IPv$fam locators"
	map a b 0 "$fam"; map b a 0 "$fam"
	check "IPv$fam: ping -4 to b's LSI brings the association up" ping_until a "$LB" 15
	check "IPv$fam: both sides up" wait_up a b 10
	cap_start a va0 "$NETNS_TMP/a$fam.pcap" || exit 1
	echo_start b "$LB" 50${fam}7 || exit 1
	check "IPv$fam: UDP 3000 and 8000 bytes a -> b's LSI, echoed intact" \
		udp_echo a "$LB" 50${fam}7 3000 8000 1200
	echo_start a "$LA" 50${fam}8 || exit 1
	check "IPv$fam: UDP 8000 and 3000 bytes b -> a's LSI, echoed intact" \
		udp_echo b "$LA" 50${fam}8 8000 3000
	check "IPv$fam: ping -4 -s 3000 a -> b's LSI" \
		nsx a ping -4 -c 3 -i 0.2 -W 5 -s 3000 "$LB"
	check "IPv$fam: ping -4 -s 3000 b -> a's LSI" \
		nsx b ping -4 -c 2 -i 0.2 -W 5 -s 3000 "$LA"
	capture_stop "$NETNS_TMP/a$fam.pcap"
	check "IPv$fam: the wire carried outer ESP fragments, no LSI" \
		outer_frags "$NETNS_TMP/a$fam.pcap" "$fam"
	echo_start b "$(hit b)" 50${fam}9 || exit 1
	check "IPv$fam: UDP 3000 and 8000 bytes over the HITs (IPv6 fragments), intact" \
		udp_echo a "$(hit b)" 50${fam}9 3000 8000
	check "IPv$fam: hipconf close" hc a close "$(hit b)"
	check "IPv$fam: closed on both sides" wait_for "closed" 10 eval \
		'state_is a b CLOSED none && state_is b a CLOSED none'
	hc a del map "$(hit b)" >/dev/null; hc b del map "$(hit a)" >/dev/null
	# shellcheck disable=SC2086
	kill $ECHO_PIDS 2>/dev/null
	# shellcheck disable=SC2086
	wait $ECHO_PIDS 2>/dev/null
	ECHO_PIDS=""
done

echo "# through a NAT: ESP in UDP"
LD=$(own_lsi d) LC=$(own_lsi c)
hc c add map "$(hit d)" "$(addr4 d 1)" >/dev/null
check "NAT: ping -4 c -> d's LSI brings the association up" ping_until c "$LD" 15
check "NAT: over UDP" eq "$(ha_get c "$(hit d)" transport)" udp
cap_start d vd1 "$NETNS_TMP/d.pcap" || exit 1
echo_start d "$LD" 5017 || exit 1
check "NAT: UDP 3000 and 8000 bytes c -> d's LSI, echoed intact" \
	udp_echo c "$LD" 5017 3000 8000 1200
echo_start c "$LC" 5018 || exit 1
check "NAT: UDP 8000 bytes d -> c's LSI (through the mapping), echoed intact" \
	udp_echo d "$LC" 5018 8000
check "NAT: ping -4 -s 3000 c -> d's LSI" nsx c ping -4 -c 2 -i 0.2 -W 5 -s 3000 "$LD"
capture_stop "$NETNS_TMP/d.pcap"
pcap_count() { tshark -n -r "$1" -Y "$2" 2>/dev/null | wc -l; }
check "NAT: d's link carried fragments of ESP in UDP, no ESP over IP" eval \
	'[ "$(pcap_count "$NETNS_TMP/d.pcap" "ip.flags.mf == 1 && udp")" -ge 3 ] &&
	 [ "$(pcap_count "$NETNS_TMP/d.pcap" "ip.proto == 50")" = 0 ]'
# shellcheck disable=SC2086
kill $ECHO_PIDS 2>/dev/null
# shellcheck disable=SC2086
wait $ECHO_PIDS 2>/dev/null

echo "# what hipd counted (hipconf show stats: datapath)"
dp() { stat_of "$1" "datapath.$2"; }
check "a put datagrams back together (>= 10), none dropped as bad, overlapping or over limits" \
	eval '[ "$(dp a v4_reassembled)" -ge 10 ] &&
	      [ "$(dp a v4_frag_bad) $(dp a v4_frag_overlaps) $(dp a v4_frag_limits)" = "0 0 0" ]'
check "b read their ESP packets whole (rx_big >= 10)" ge "$(dp b rx_big)" 10
check "the datapath's counters name it" eq "$(dp a name)" userspace

netns_done
rc=$?
# what hipd counted (logged when it stopped: uesp.c uesp_free)
grep -h "uesp: IPv4 fragments" "$NETNS_TMP"/*/hipd.log
exit $rc
