#!/bin/bash
# Registration with a server known by its address only (D-16: RFC 8003 §3
# by an opportunistic exchange, RFC 7401 §4.1.8; trust on first use).
#  - B's hipd.conf names S by its address only (`server = IP`): B's I1
#    with the NULL receiver HIT gets S's R1 (S offers rendezvous, so it
#    answers with opportunistic = no), REG_REQUEST rides in the I2, and
#    B's show servers lists S's learnt HIT with rendezvous granted (logged
#    once at notice level); then A, knowing only B's HIT and S's address,
#    reaches B through S (the rendezvous works);
#  - hipconf add server refuses bad words with a clear error;
#  - D adds X with `hipconf add server IP` while X drops I1s: the entry
#    shows it is learning, with its I1s counted; an R1 from another address
#    (S's, answering an I1 with D's HIT sent there) does not complete it;
#    once X answers, D learns X's HIT and registers by itself.
. "$(dirname "$0")/lib.sh"

netns_host s a b d x
netns_link s a 1
netns_link s b 2
netns_link s d 3
netns_link x d 4
nsx s sysctl -qw net.ipv4.ip_forward=1
nsx a ip route add default via "$(addr4 s 1)"
nsx b ip route add default via "$(addr4 s 2)"

hipd_launch s "offer_services = rendezvous" "registration_min_lifetime = 10"
hipd_launch x "offer_services = rendezvous"
hipd_launch a
# D's I1 back-off starts at 250 ms, so it answers soon once X does
hipd_launch d "i1_timeout_ms = 250" "i1_retries = 8"
hipd_launch b "server = $(addr4 s 2)" "registration_lifetime = 20"
hipd_wait s x a d b || exit 1

# srv NAME FIELD...: fields of NAME's first (only) server in show servers
srv() { local n=$1; shift; hc "$n" --json show servers | jget "${@/#/servers.0.}"; }
srv_is() { eq "$(srv "$1" state)" "$2"; }

echo "# B: server = S's address (hipd.conf)"
check "B registers with S knowing only its address" wait_for "B registered" 15 \
	srv_is b registered
check "B: S's HIT learnt, rendezvous granted" eq "$(srv b hit learnt granted)" \
	"$(hit s) True rendezvous"
check "B: the learnt HIT logged once, at notice level (<5>)" eq "$(grep -c \
	"^<5>learnt server HIT $(hit s) for $(addr4 s 2) (opportunistic)" \
	"$NETNS_TMP/b/hipd.log")" 1
check "S holds B's registration" eq "$(hc s --json show registrations |
	jget registrations clients.0.hit)" "1 $(hit b)"

echo "# A reaches B through S knowing only S's address"
hc a add map "$(hit b)" "$(addr4 s 1)" >/dev/null
check "A triggers B" hc a trigger "$(hit b)"
check "A <-> B established" wait_up a b
check "S relayed the I1" ge "$(hc s --json show registrations | jget relayed)" 1
check "ping between the HITs" nsx a ping -6 -c 2 -W 2 -q "$(hit b)"

echo "# hipconf add server: bad words"
# usage_err EXPECTED ARGS...: hipconf on D exits 1 with EXPECTED on stderr
usage_err() { local want=$1 out; shift; out=$(hc d add server "$@" 2>&1); eq "$? $out" "1 $want"; }
check "neither a HIT nor an address" usage_err \
	"hipconf: 'nonsense' is neither a HIT (2001:20::/28) nor an IP address" nonsense
check "an address, then another" usage_err "hipconf: '192.0.2.1' is not a service: one server \
is [HIT] IP [SERVICE...], its HIT first" 2001:db8::1 192.0.2.1
check "a HIT without its address" usage_err \
	"hipconf: the server's IP address is missing after its HIT" "$(hit x)"
check "D has no server yet" eq "$(hc d --json show servers | jget servers)" "[]"

echo "# D: hipconf add server X's address while X drops I1s"
ipt x -I INPUT -p 139 -m u32 --u32 "$(hip_u32 1)" -j DROP
check "hipconf add server $(addr4 x 4) on D" hc d add server "$(addr4 x 4)"
check "D: learning, no HIT yet" eq "$(srv d state hit opportunistic)" "learning its HIT  True"
check "D retransmits its opportunistic I1 (I1 back-off)" wait_for "D's 3rd I1" 5 \
	eval '[ "$(srv d opportunistic_i1s)" -ge 3 ]'
# an I1 with D's HIT from D to S, not through hipd: S's R1 comes to D's hipd
SEND_I1='import ipaddress as ip,socket,struct,sys
src,dst,hs,hr=sys.argv[1:5]
par=struct.pack("!HH",511,4)+bytes([7,8,4,3])   # DH_GROUP_LIST
pkt=struct.pack("!BBBBHH",59,(40+len(par))//8-1,1,0x21,0,0)
pkt+=ip.ip_address(hs).packed+ip.ip_address(hr).packed+par
b=ip.ip_address(src).packed+ip.ip_address(dst).packed+struct.pack("!BBH",0,139,len(pkt))+pkt
s=sum(struct.unpack("!%dH"%(len(b)//2),b))
while s>>16: s=(s&0xffff)+(s>>16)
pkt=pkt[:4]+struct.pack("!H",~s&0xffff)+pkt[6:]
so=socket.socket(socket.AF_INET,socket.SOCK_RAW,139); so.bind((src,0)); so.sendto(pkt,(dst,0))'
r1s=$(stat_of s tx.R1)
noassoc=$(stat_of d drops.no_association)
check "an I1 with D's HIT goes from D to S" nsx d python3 -c "$SEND_I1" \
	"$(addr4 d 3)" "$(addr4 s 3)" "$(hit d)" "$(hit s)"
check "S answers it with an R1 to D" wait_for "S's R1" 5 \
	eval '[ "$(stat_of s tx.R1)" -gt "$r1s" ]'
check "D drops that R1 (from another address: no association)" wait_for "dropped" 5 \
	eval '[ "$(stat_of d drops.no_association)" -gt "$noassoc" ]'
check "D's entry is still learning" eq "$(srv d state hit)" "learning its HIT "
check "D has no association with S" no_ha d s
ipt x -D INPUT -p 139 -m u32 --u32 "$(hip_u32 1)" -j DROP
check "X answers now: D learns its HIT and registers" wait_for "D registered" 20 \
	srv_is d registered
check "D: X's HIT, rendezvous granted" eq "$(srv d hit learnt granted)" \
	"$(hit x) True rendezvous"
check "hipconf show servers (text) on D names X's HIT" eval \
	'hc d show servers | grep -q "^$(hit x) at $(addr4 x 4): registered.*HIT learnt"'
netns_done
