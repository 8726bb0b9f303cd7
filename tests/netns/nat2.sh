#!/bin/bash
# Two NATs: A and B each sit behind their own Linux NAT (na, nb: iptables-legacy
# MASQUERADE, port-preserving) that forwards only TCP, UDP and ICMP, as
# carrier-grade NATs do (IP protocols 139, HIP, and 50, ESP, are dropped in
# FORWARD). S is a public server that also routes between the two NATs' public
# segments. Neither A nor B can be reached unsolicited; they can reach each
# other only by UDP hole punching towards the server-reflexive addresses that
# S sees (RFC 9028 §4, RFC 5770 §4).
#
#                     (NA_PUB 198.51.100.2)      (S_PUB 198.51.100.1)
#   a (A_PRIV 10.255.10.1) --- (NA_PRIV 10.255.10.2) na --- s (router + server)
#                                                           |  (S_PUB2 203.0.113.1)
#   b (B_PRIV 10.255.11.1) --- (NB_PRIV 10.255.11.2) nb ----+
#                     (NB_PUB 203.0.113.2)
#
# na's WAN is vna1, nb's is vnb2. S_PUB and S_PUB2 are both S's (either works
# from both sides: s routes between its two links). Each NAT keeps a source
# port when it is free, so a socket on port 10500 behind it is seen as
# NA_PUB:10500 / NB_PUB:10500 (endpoint-independent mapping in practice), and
# it lets in only replies to what went out (address- and port-dependent
# filtering, conntrack).
#
# First the topology is checked with plain UDP (nat2_udp_selfcheck). Then
# hipd: S offers the control relay (RFC 9028 RELAY_UDP_HIP); A and B register
# with it from behind their NATs; A reaches B knowing only B's HIT and S's
# address: the base exchange goes through S (RELAY_FROM / RELAY_TO,
# ICE-HIP-UDP chosen, candidates in ENCRYPTED), connectivity checks punch
# through both NATs, and ESP runs directly between the NATs, not through S.
. "$(dirname "$0")/lib.sh"

netns_host s a na b nb
netns_link s na 1
netns_link s nb 2
netns_link a na 10
netns_link b nb 11

A_PRIV=$(addr4 a 10)
NA_PRIV=$(addr4 na 10)
NA_PUB=$(addr4 na 1)
B_PRIV=$(addr4 b 11)
NB_PRIV=$(addr4 nb 11)
NB_PUB=$(addr4 nb 2)
S_PUB=$(addr4 s 1)
S_PUB2=$(addr4 s 2)
NA_WAN=vna1
NB_WAN=vnb2
NAT_PORT=10500

nsx s sysctl -qw net.ipv4.ip_forward=1
nsx na ip route add default via "$S_PUB"
nsx nb ip route add default via "$S_PUB2"
nsx a ip route add default via "$NA_PRIV"
nsx b ip route add default via "$NB_PRIV"

# home / carrier-grade NAT routers (nat_router, lib.sh): MASQUERADE, no HIP
# or ESP forwarded, nothing unsolicited from the WAN
nat_router na "$NA_WAN"
nat_router nb "$NB_WAN"

# UDP_PEER ME SECS N GO [TARGET...]: bind 0.0.0.0:NAT_PORT, print "ready",
# wait until the file GO exists ("-": do not wait), then for SECS seconds send
# "from-ME" N times 100 ms apart to each TARGET:NAT_PORT, printing
# "ADDR:PORT PAYLOAD" for every datagram received (from "ready" on).
UDP_PEER='import os,select,socket,sys,time
me,secs,n,go,tg=sys.argv[1],float(sys.argv[2]),int(sys.argv[3]),sys.argv[4],sys.argv[5:]
s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.bind(("0.0.0.0",10500))
print("ready",flush=True); t0=None; sent=0
while t0 is None or time.time()<t0+secs:
    if t0 is None and (go=="-" or os.path.exists(go)): t0=nxt=time.time()
    if t0 is not None and sent<n and time.time()>=nxt:
        for t in tg: s.sendto(("from-"+me).encode(),(t,10500))
        sent+=1; nxt+=0.1
    if select.select([s],[],[],0.02)[0]:
        d,a=s.recvfrom(2048); print("%s:%d %s"%(a[0],a[1],d.decode()),flush=True)'
# RAW_SEND PROTO DST: one raw IPv4 datagram of protocol PROTO to DST.
RAW_SEND='import socket,sys
s=socket.socket(socket.AF_INET,socket.SOCK_RAW,int(sys.argv[1])); s.sendto(b"x"*40,(sys.argv[2],0))'
# RAW_RECV PROTO SECS: print "ready", then the source of each PROTO datagram.
RAW_RECV='import socket,sys
s=socket.socket(socket.AF_INET,socket.SOCK_RAW,int(sys.argv[1])); s.settimeout(float(sys.argv[2]))
print("ready",flush=True)
try:
    while True: d,a=s.recvfrom(2048); print(a[0],flush=True)
except socket.timeout: pass'

# udp_bg NAME OUT ARGS...: UDP_PEER ARGS in NAME, in the background (UDP_BG:
# its pid), output to OUT; returns once it is bound.
udp_bg() {
	local n=$1 out=$2; shift 2
	rm -f "$out"
	ip netns exec "$(ns_name "$n")" timeout 20 python3 -c "$UDP_PEER" "$@" >"$out" 2>&1 &
	UDP_BG=$!
	wait_for "udp peer in $n ready" 10 grep -q ready "$out"
}
# got OUT WANT: OUT lists a datagram "WANT" (ADDR:PORT PAYLOAD).
got() { grep -q -x -F "$2" "$1" || { echo "wanted '$2', got:"; grep -v ready "$1"; return 1; }; }
# got_none OUT: no datagram at all in OUT.
got_none() { ! grep -v -x ready "$1"; }
# rule_pkts_n NAME CHAIN N: packets matched by the chain's rule N.
rule_pkts_n() { ipt "$1" -L "$2" "$3" -v -x -n | awk '{print $1; exit}'; }

nat2_udp_selfcheck() {
	local d=$NETNS_TMP/udp p1 p2 p3
	mkdir -p "$d"
	echo "# 1. server-reflexive addresses: S sees A and B at their NAT's public address, port kept"
	udp_bg s "$d/s1" s 4 0 - || return 1
	p1=$UDP_BG
	nsx a timeout 10 python3 -c "$UDP_PEER" a 0.5 1 - "$S_PUB" >"$d/a1" 2>&1
	nsx b timeout 10 python3 -c "$UDP_PEER" b 0.5 1 - "$S_PUB" >"$d/b1" 2>&1
	check "S sees A's datagram from NA_PUB:$NAT_PORT" wait_for "A at S" 5 \
		got "$d/s1" "$NA_PUB:$NAT_PORT from-a"
	check "S sees B's datagram from NB_PUB:$NAT_PORT" wait_for "B at S" 5 \
		got "$d/s1" "$NB_PUB:$NAT_PORT from-b"
	kill "$p1" 2>/dev/null; wait "$p1" 2>/dev/null

	echo "# 2. filtering: A's datagrams to B's reflexive address before B sent any to A are not delivered"
	udp_bg b "$d/b2" b 15 0 - || return 1
	p2=$UDP_BG
	nsx a timeout 10 python3 -c "$UDP_PEER" a 0.5 3 - "$NB_PUB" >"$d/a2" 2>&1
	sleep 0.5
	kill "$p2" 2>/dev/null; wait "$p2" 2>/dev/null
	check "B receives nothing from A" got_none "$d/b2"
	check "nb's firewall dropped them (INPUT, NEW from the WAN)" ge "$(rule_pkts_n nb INPUT 1)" 3

	echo "# 3. hole punching: A and B send to each other's reflexive address at once"
	# from scratch: no NAT state left by 2 (na's A -> NB_PUB mapping would let B in first)
	nsx na conntrack -F >/dev/null 2>&1
	nsx nb conntrack -F >/dev/null 2>&1
	udp_bg a "$d/a3" a 2 5 "$d/go" "$NB_PUB" || return 1
	p3=$UDP_BG
	udp_bg b "$d/b3" b 2 5 "$d/go" "$NA_PUB" || return 1
	touch "$d/go"
	wait "$p3"
	wait "$UDP_BG"
	check "A receives B's datagram from NB_PUB:$NAT_PORT" got "$d/a3" "$NB_PUB:$NAT_PORT from-b"
	check "B receives A's datagram from NA_PUB:$NAT_PORT" got "$d/b3" "$NA_PUB:$NAT_PORT from-a"
	check "A received only B's reflexive address" eq \
		"$(grep -v -x ready "$d/a3" | cut -d' ' -f1 | sort -u)" "$NB_PUB:$NAT_PORT"
	check "B received only A's reflexive address" eq \
		"$(grep -v -x ready "$d/b3" | cut -d' ' -f1 | sort -u)" "$NA_PUB:$NAT_PORT"

	echo "# 4. the NATs forward no raw HIP (139) or ESP (50)"
	ip netns exec "$(ns_name s)" timeout 10 python3 -c "$RAW_RECV" 139 15 >"$d/s4" 2>&1 &
	p1=$!
	wait_for "raw receiver ready" 10 grep -q ready "$d/s4" || return 1
	nsx na python3 -c "$RAW_SEND" 139 "$S_PUB"  # control: from the NAT itself, not forwarded
	nsx a python3 -c "$RAW_SEND" 139 "$S_PUB"
	nsx a python3 -c "$RAW_SEND" 50 "$S_PUB"
	nsx b python3 -c "$RAW_SEND" 139 "$S_PUB2"
	sleep 0.5
	kill "$p1" 2>/dev/null; wait "$p1" 2>/dev/null
	check "S receives raw HIP only from na itself (the control)" eq \
		"$(grep -v -x ready "$d/s4" | xargs)" "$NA_PUB"
	check "na dropped A's HIP and ESP in FORWARD" eq \
		"$(rule_pkts_n na FORWARD 1) $(rule_pkts_n na FORWARD 2)" "1 1"
	check "nb dropped B's HIP in FORWARD" eq "$(rule_pkts_n nb FORWARD 1)" 1
	# leave the drop counters at 0 for the hipd steps' "no raw HIP or ESP" checks
	ipt na -Z FORWARD; ipt nb -Z FORWARD; ipt na -Z INPUT; ipt nb -Z INPUT
	# and no conntrack state from the self-check
	nsx na conntrack -F >/dev/null 2>&1
	nsx nb conntrack -F >/dev/null 2>&1
	return 0
}

nat2_udp_selfcheck

# ---- hipd: the control relay and connectivity checks (RFC 9028 §4.5-4.6) ----
hipd_start s "offer_services = relay" "listen_v6 = no" || exit 1
hipd_launch a "listen_v6 = no" "server = $(hit s) $S_PUB relay"
hipd_launch b "listen_v6 = no" "server = $(hit s) $S_PUB2 relay"
hipd_wait a b || exit 1
registered() { [ "$(hc "$1" --json show servers | jget servers.0.state)" = registered ]; }
check "A registers with S for the relay through its NAT" wait_for "A registered" 15 registered a
check "B registers with S for the relay through its NAT" wait_for "B registered" 15 registered b
check "S sees B at its NAT's public address over UDP" \
	eq "$(ha_get s "$(hit b)" peer_locator transport)" "$NB_PUB udp"

# byte counters: UDP into S's own hipd, UDP routed between the NATs
ipt s -A INPUT -p udp --dport "$NAT_PORT"
ipt s -A FORWARD -p udp
# an independent dissector on S's link towards B's NAT: HIP control only
# (UDP 10500 with the 32-bit zero marker, RFC 9028 §5.1)
CAP=$NETNS_TMP/nat2.pcap
if command -v tshark >/dev/null; then
	nsx s timeout 60 tcpdump -i vs2 --immediate-mode -U -w "$CAP" 'udp port 10500 and udp[8:4] = 0' \
		2>/dev/null &
	TCPDUMP=$!
	wait_for "tcpdump running" 5 test -s "$CAP"
fi
hc a add map "$(hit b)" "$S_PUB" >/dev/null
check "A triggers B knowing only B's HIT and S's address" hc a trigger "$(hit b)"
check "A <-> B established" wait_up a b 15
ice_done() { [ "$(ha_get "$1" "$2" path)" = direct ]; }
check "A's connectivity checks nominated a pair" wait_for "A checks" 15 ice_done a "$(hit b)"
check "B's connectivity checks nominated a pair" wait_for "B checks" 15 ice_done b "$(hit a)"
check "A reaches B directly at B's NAT, over UDP" \
	eq "$(ha_get a "$(hit b)" peer_locator transport)" "$NB_PUB udp"
check "B reaches A directly at A's NAT, over UDP" \
	eq "$(ha_get b "$(hit a)" peer_locator transport)" "$NA_PUB udp"
if [ -n "${TCPDUMP:-}" ]; then
	sleep 0.5; capture_stop "$CAP"; kill "$TCPDUMP" 2>/dev/null; wait "$TCPDUMP" 2>/dev/null
	# tlv types of the first packet of HIP type T (and from/to address F)
	tlvs() { tshark -r "$CAP" -Y "hip.packet_type == $1${2:+ && $2}" -T fields \
		-e hip.type 2>/dev/null | head -1; }
	has() { case ",$1," in *",$2,"*) return 0;; esac; return 1; }
	has2() { has "$1" "$2" && has "$1" "$3"; }
	check "tshark: S relays the I1 to B with RELAY_FROM (63998) and RELAY_HMAC (65520)" \
		has2 "$(tlvs 1 "ip.src == $S_PUB2")" 63998 65520
	check "tshark: B's R1 to S carries RELAY_TO (64002) and NAT_TRAVERSAL_MODE (608)" \
		has2 "$(tlvs 2 "ip.dst == $S_PUB2")" 64002 608
	check "tshark: the relayed I2 has ENCRYPTED (641) and RELAY_FROM" \
		has2 "$(tlvs 3)" 641 63998
	check "tshark: B's R2 has ENCRYPTED (641, its candidates) and RELAY_TO" \
		has2 "$(tlvs 4)" 641 64002
	check "tshark: the I2 names ICE-HIP-UDP (mode 3)" eq "$(tshark -r "$CAP" -Y \
		"hip.packet_type == 3" -T fields -e hip.tlv.nat_traversal_mode_id 2>/dev/null | head -1)" \
		0x0003
	check "tshark: the R1 and the I2 offer TRANSACTION_PACING (610, RFC 9028 §4.4)" \
		eval 'has "$(tlvs 2 "ip.dst == $S_PUB2")" 610 && has "$(tlvs 3)" 610'
	check "tshark: connectivity checks between the NATs carry CANDIDATE_PRIORITY (4700)" \
		has "$(tlvs 16 "ip.src == $NB_PUB && ip.dst == $NA_PUB")" 4700
	check "tshark: answers carry MAPPED_ADDRESS (4660) and a nomination NOMINATE (4710)" \
		eval 'tshark -r "$CAP" -Y "hip.packet_type == 16" -T fields -e hip.type 2>/dev/null |
		      grep -q 4660 && tshark -r "$CAP" -Y "hip.packet_type == 16" -T fields \
		      -e hip.type 2>/dev/null | grep -q 4710'
	check "tshark: every HIP checksum over UDP is 0" eq "$(tshark -r "$CAP" -Y hip -T fields \
		-e hip.checksum 2>/dev/null | sort -u | xargs)" 0x0000
fi
check "ping A -> B between the HITs" nsx a ping -6 -c 3 -W 2 -q "$(hit b)"
check "ping B -> A on the same association" nsx b ping -6 -c 3 -W 2 -q "$(hit a)"
check "20 MB over TCP A -> B, SHA-256 equal" tcp_transfer a b $((20 << 20))
check "20 MB over TCP B -> A, SHA-256 equal" tcp_transfer b a $((20 << 20))
check "S relayed the base exchange (I1, R1, I2, R2 at least)" \
	ge "$(hc s --json show stats | jget nat.relay_forwarded)" 4
check "B accepted the relayed packets (RELAY_HMAC verified)" \
	ge "$(hc b --json show stats | jget nat.relay_received)" 2
# s is also the router between the NATs: the data crossed it in FORWARD,
# only the signaling went up to its hipd (INPUT)
check "the 40 MB went through s as a router, not through S's hipd" \
	eval '[ "$(ipt s -L FORWARD 1 -v -x -n | awk "{print \$2; exit}")" -gt 40000000 ] &&
	      [ "$(ipt s -L INPUT 1 -v -x -n | awk "{print \$2; exit}")" -lt 1000000 ]' 
check "no raw HIP or ESP reached the NATs' drop rules" \
	eq "$(rule_pkts na FORWARD) $(rule_pkts nb FORWARD)" "0 0"
check "S logged the I1 it relayed to B" grep -q "relay: I1 from $(hit a) .* to client $(hit b)" \
	"$NETNS_TMP/s/hipd.log"
check "A logged the pair it nominated" \
	grep -q "connectivity checks done.*direct over UDP to $NB_PUB port" "$NETNS_TMP/a/hipd.log"
check "the associations say ICE-HIP-UDP (mode 3)" \
	eq "$(ha_get a "$(hit b)" nat_mode) $(ha_get b "$(hit a)" nat_mode)" "3 3"
grep -h "connectivity checks\|relay" "$NETNS_TMP"/{a,b,s}/hipd.log | sed 's/^/# /' | head -12
check "no drops on A, B and S" eq "$(drops_total a) $(drops_total b) $(drops_total s)" "0 0 0"

# ---- bad input (RFC 9028 §4.5, §5.8): dropped with counters, S keeps serving ----
# INJ MODE DST [SPOOF_SRC]: one I1 over UDP to DST:10500, from a fresh ORCHID
#   stranger HIT  for a HIT nobody registered
#   loop HIT      for HIT, already carrying RELAY_FROM and a RELAY_HMAC
#   forged HIT    for HIT, with RELAY_FROM and a RELAY_HMAC no key made; with
#                 SPOOF_SRC as if it came from that address, port 10500 (raw)
INJ='import os,socket,struct,sys
mode,dst,hit=sys.argv[1],sys.argv[2],sys.argv[3]
def tlv(t,c):
    b=struct.pack(">HH",t,len(c))+c
    return b+bytes((-len(b))%8)
me=bytes.fromhex("20010021")+os.urandom(12)
rcv=socket.inet_pton(socket.AF_INET6,hit) if hit!="-" else bytes.fromhex("20010021")+os.urandom(12)
p=tlv(511,bytes([7,8]))
if mode!="stranger":
    p+=tlv(63998,struct.pack(">HBB",4242,17,0)+bytes(10)+bytes([255,255,192,0,2,1]))
    p+=tlv(65520,os.urandom(32))
pkt=bytes(4)+bytes([59,(40+len(p))//8-1,1,0x21,0,0,0,0])+me+rcv+p
if len(sys.argv)>4:
    src=socket.inet_aton(sys.argv[4]); d=socket.inet_aton(dst)
    udp=struct.pack(">HHHH",10500,10500,8+len(pkt),0)+pkt
    ip=struct.pack(">BBHHHBBH4s4s",0x45,0,20+len(udp),0,0,64,17,0,src,d)
    r=socket.socket(socket.AF_INET,socket.SOCK_RAW,socket.IPPROTO_RAW); r.sendto(ip+udp,(dst,0))
else:
    u=socket.socket(); u=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); u.sendto(pkt,(dst,10500))'
inj() { local ns=$1; shift; nsx "$ns" python3 -c "$INJ" "$@"; }
drop_grew() { [ "$(stat_of "$1" "drops.$2")" -gt "$3" ]; }
before=$(stat_of s drops.relay_unregistered)
inj a stranger "$S_PUB" -
check "S: a packet for a HIT nobody registered is dropped (relay_unregistered)" \
	wait_for "relay_unregistered" 3 drop_grew s relay_unregistered "$before"
before=$(stat_of s drops.relay_loop)
inj a loop "$S_PUB" "$(hit b)"
check "S: a packet already relayed is not relayed again (relay_loop)" \
	wait_for "relay_loop" 3 drop_grew s relay_loop "$before"
before=$(stat_of b drops.relay_bad_hmac)
inj b forged "$B_PRIV" "$(hit b)" "$S_PUB2"
check "B: RELAY_FROM with a forged RELAY_HMAC as if from S is dropped (relay_bad_hmac)" \
	wait_for "relay_bad_hmac" 3 drop_grew b relay_bad_hmac "$before"
before=$(stat_of b drops.relay_bad_hmac)
inj b forged "$B_PRIV" "$(hit b)"
check "B: RELAY_FROM from no relay server of ours is dropped (relay_bad_hmac)" \
	wait_for "relay_bad_hmac" 3 drop_grew b relay_bad_hmac "$before"
check "B's association with A is untouched" eq "$(ha_get b "$(hit a)" state path)" "ESTABLISHED direct"
# S keeps serving: a new exchange through it, checks, traffic
hc a close "$(hit b)" >/dev/null
check "A closes the association" wait_for "closed" 10 eval \
	'[ "$(ha_get a "$(hit b)" state)" = none ] || [ "$(ha_get a "$(hit b)" state)" = CLOSED ]'
relayed=$(stat_of s nat.relay_forwarded)
check "a second exchange through S after the bad input" hc a trigger "$(hit b)"
check "A <-> B established again" wait_up a b 15
check "... and S relayed it" ge "$(stat_of s nat.relay_forwarded)" $((relayed + 4))
check "... checks done, direct" wait_for "direct again" 15 ice_done a "$(hit b)"
check "ping A -> B after the second exchange" nsx a ping -6 -c 2 -W 2 -q "$(hit b)"
netns_done
