#!/bin/bash
# Host names through the NSS module (nss/, libnss_hip.so.2, D-19): in a
# mount namespace whose /etc is an overlay holding a HIP hosts file, the
# nsswitch.conf line the package's hip-nsswitch makes of Debian's default
# ("hosts: files hip [NOTFOUND=return] dns"), an /etc/hosts and a
# resolv.conf pointing at a logging DNS stub on a's loopback:
# getent, Python's getaddrinfo, ping -6 NAME and a TCP connection by name
# reach b through HIP; unknown names fall through to files and DNS; no
# NAME.hip and no HIP-only name ever reaches the DNS stub. The module comes
# from the build (LD_LIBRARY_PATH), not /usr/lib. b's line has no lsi=: its
# LSI is the one a's hipd derived and exports (lsi_file, D-26; bound on
# /run/hipd in the lookups' mount namespace), so ping -4 NAME and an IPv4
# TCP connection by name reach b over the LSIs; the file follows hipconf
# add map and reload, and is gone when hipd exits.
#
#   a -- b   (link 0)
. "$(dirname "$0")/lib.sh"

NSSLIB=$NETNS_TMP/nsslib
RUNA=$NETNS_TMP/a         # a's lsi_file lives here; /run/hipd for the lookups
mkdir -p "$NSSLIB" "$NETNS_TMP/etc/hip" "$NETNS_TMP/work" "$RUNA"
cp "$BUILD/nss/libnss_hip.so.2" "$NSSLIB/"
# nss_run NODE CMD...: CMD in NODE's netns with the test's /etc over the real
# one and the directory of a's lsi_file as /run/hipd (on a /run of its own)
nss_run() {
	local n=$1; shift
	nsx "$n" unshare -m --propagation private env LD_LIBRARY_PATH="$NSSLIB" sh -c \
		'mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1,workdir=$2" /etc &&
		 mount -t tmpfs tmpfs /run && mkdir /run/hipd && mount --bind "$3" /run/hipd &&
		 shift 3 && exec "$@"' sh "$NETNS_TMP/etc" "$NETNS_TMP/work" "$RUNA" "$@"
}
# exported HIT: the LSI a's hipd exports for HIT (none: empty)
exported() { awk -v h="$1" '$1 == h {print $2}' "$RUNA/lsi" 2>/dev/null; }
# shown NAME HIT: the LSI hipconf show maps gives for HIT
shown() { hc "$1" --json show maps | python3 -c 'import json,sys
print(*[x.get("lsi", "") for x in json.load(sys.stdin)["maps"] if x["hit"]==sys.argv[1]])' "$2"; }

netns_host a b
netns_link a b 0
hipd_launch a; hipd_launch b
hipd_wait a b || exit 1
map b a          # b knows a's LSI from the start (lsi-traffic.sh)

HB=$(hit b)
PIN=198.18.0.2
cat >"$NETNS_TMP/a/hosts" <<E
# the peer by name (D-19), its LSI derived (D-20)
$HB $(addr4 b 0) name=peer-b name=b.lab
2001:2f::99 192.0.2.99 name=ghost lsi=$PIN
E
# the module's copy also names a HIT a's hipd does not map: it has no LSI
{ cat "$NETNS_TMP/a/hosts"; echo "2001:2f::98 192.0.2.98 name=unmapped"; } \
	>"$NETNS_TMP/etc/hip/hosts"
printf 'passwd: files\nhosts:          files dns\n' >"$NETNS_TMP/etc/nsswitch.conf"
printf '127.0.0.1 localhost\n192.0.2.77 plainhost\n' >"$NETNS_TMP/etc/hosts"
printf 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n' >"$NETNS_TMP/etc/resolv.conf"
# the DNS stub: plain.example A 192.0.2.55, NXDOMAIN for the rest; logs each query
DNS_STUB='import socket,sys
s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.bind(("127.0.0.1",53))
log=open(sys.argv[1],"a"); print("listening",flush=True)
while True:
    q,peer=s.recvfrom(512); i=12; labels=[]
    while q[i]: labels.append(q[i+1:i+1+q[i]].decode()); i+=1+q[i]
    qtype=int.from_bytes(q[i+1:i+3],"big"); qd=q[12:i+5]; name=".".join(labels).lower()
    log.write("%s %d\n"%(name,qtype)); log.flush()
    ok=name=="plain.example"; ans=ok and qtype==1
    r=q[:2]+bytes([0x81,0x80 if ok else 0x83])+b"\0\1"+(b"\0\1" if ans else b"\0\0")+b"\0\0\0\0"+qd
    if ans: r+=b"\xc0\x0c\0\1\0\1\0\0\0\x3c\0\4"+bytes([192,0,2,55])
    s.sendto(r,peer)'
: >"$NETNS_TMP/dns.log"
nsx a python3 -c "$DNS_STUB" "$NETNS_TMP/dns.log" >"$NETNS_TMP/dns.out" 2>&1 &
DNS_PID=$!
wait_for "DNS stub listening" 10 grep -q listening "$NETNS_TMP/dns.out"

echo "# the package's nsswitch line"
check "hip-nsswitch enable puts hip before dns" eval '"$BUILD/nss/hip-nsswitch" enable \
	"$NETNS_TMP/etc/nsswitch.conf" >/dev/null &&
	grep -qx "hosts:          files hip \[NOTFOUND=return\] dns" "$NETNS_TMP/etc/nsswitch.conf"'

echo "# hipd reads the names and exports the LSIs"
check "hipconf reload takes the named hosts file" hc a reload
LSI=$(shown a "$HB")
LB=$(hc b --json show hi | jget identities.0.lsi)
echo "b's LSI: a derived $LSI, b uses $LB"
check "show maps gives names and the derived LSI" \
	eval 'hc a show maps | grep -qF "name=peer-b name=b.lab lsi=$LSI (derived)"'
check "show maps --json gives them" eq "$(hc a --json show maps | python3 -c 'import json,sys
m=[x for x in json.load(sys.stdin)["maps"] if x["hit"]==sys.argv[1]][0]
print(" ".join(m["names"]), m["lsi"], m["lsi_source"])' "$HB")" "peer-b b.lab $LSI derived"
check "a's LSI for b is b's own (D-20)" eq "$LSI" "$LB"
check "the lsi_file has b's derived LSI, as show maps" eq "$(exported "$HB")" "$LSI"
check "... and ghost's pinned one" eq "$(exported 2001:2f::99)" "$PIN"
check "... mode 0644, a header line first" eval \
	'[ "$(stat -c %a "$RUNA/lsi")" = 644 ] && head -1 "$RUNA/lsi" | grep -q "^# hipd"'

echo "# getent and getaddrinfo"
check "getent ahosts peer-b: the HIT first, then the LSI" eval \
	'[ "$(nss_run a getent ahosts peer-b | awk "/STREAM/ {print \$1}" | xargs)" = "$HB $LSI" ]'
check "getent hosts peer-b.hip: the HIT and the names" eval \
	'[ "$(nss_run a getent hosts peer-b.hip)" = "$HB peer-b b.lab" ]'
check "getent ahostsv4 b.lab: the derived LSI" eval \
	'[ "$(nss_run a getent ahostsv4 b.lab | awk "/STREAM/ {print \$1}")" = "$LSI" ]'
check "getent ahostsv4 ghost: the pinned LSI" eval \
	'[ "$(nss_run a getent ahostsv4 ghost | awk "/STREAM/ {print \$1}")" = "$PIN" ]'
check "getent hosts of the HIT: its name (reverse)" eval \
	'[ "$(nss_run a getent hosts "$HB" | awk "{print \$2}")" = peer-b ]'
check "getent hosts of the derived LSI: its name (reverse)" eval \
	'[ "$(nss_run a getent hosts "$LSI" | awk "{print \$2}")" = peer-b ]'
check "python getaddrinfo(peer-b.hip, AF_INET6) gives the HIT" eval '[ "$(nss_run a python3 -c "
import socket; print(socket.getaddrinfo(\"peer-b.hip\", 22, socket.AF_INET6, socket.SOCK_STREAM)[0][4][0])")" = "$HB" ]'
check "an unknown name falls through: files answers plainhost" eval \
	'[ "$(nss_run a getent hosts plainhost | awk "{print \$1}")" = 192.0.2.77 ]'
check "an unknown name falls through: DNS answers plain.example" eval \
	'[ "$(nss_run a getent ahostsv4 plain.example | awk "/STREAM/ {print \$1}")" = 192.0.2.55 ]'
check "an unknown NAME.hip fails (NOTFOUND stops at hip)" eval '! nss_run a getent hosts secret.hip'
check "unmapped (no LSI exported): ahostsv4 finds nothing" eval \
	'! nss_run a getent ahostsv4 unmapped'
check "unmapped: ahosts gives the HIT alone" eval \
	'[ "$(nss_run a getent ahosts unmapped | awk "/STREAM/ {print \$1}")" = 2001:2f::98 ]'
check "the DNS stub saw plain.example" grep -q "^plain.example " "$NETNS_TMP/dns.log"
check "the DNS stub never saw a .hip name nor a name of the hosts file" \
	eval '! grep -E "\.hip |^(peer-b|b\.lab|ghost) " "$NETNS_TMP/dns.log"'

echo "# traffic by name"
check "ping -6 peer-b is answered" eval 'nss_run a python3 -c "$PING_UNTIL_PY" peer-b 30'
check "the association is ESTABLISHED" wait_up a b
nsx b timeout 30 python3 -c 'import socket,sys
s=socket.socket(socket.AF_INET6); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 5002)); s.listen(1); print("listening", flush=True)
c, peer = s.accept(); c.sendall(("hello " + peer[0]).encode()); c.close()' "$HB" \
	>"$NETNS_TMP/server.out" &
SP=$!
wait_for "server listening" 20 grep -q listening "$NETNS_TMP/server.out"
got=$(nss_run a timeout 20 python3 -c 'import socket
c=socket.create_connection(("b.lab.hip", 5002), timeout=15); print(c.recv(200).decode())')
wait "$SP"
check "TCP to b.lab.hip reaches b, which sees a's HIT" eq "$got" "hello $(hit a)"
check "the association is still ESTABLISHED, one BEX" \
	eval 'both_up a b && [ "$(stat_of a bex.completed)" = 1 ]'

echo "# IPv4 by name over the derived LSIs (D-22, D-26)"
check "ping -4 -c 1 peer-b is answered" nss_run a ping -4 -c 1 -W 5 peer-b
nsx b timeout 30 python3 -c 'import socket,sys
s=socket.socket(socket.AF_INET); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 5004)); s.listen(1); print("listening", flush=True)
c, peer = s.accept(); c.sendall(("hello " + peer[0]).encode()); c.close()' "$LB" \
	>"$NETNS_TMP/server4.out" &
SP=$!
wait_for "IPv4 server listening" 20 grep -q listening "$NETNS_TMP/server4.out"
got=$(nss_run a timeout 20 python3 -c 'import socket
c=socket.create_connection(("peer-b", 5004), timeout=15); print(c.family.name, c.recv(200).decode())')
wait "$SP"
check "IPv4 TCP to peer-b by name reaches b, which sees a's LSI" \
	eq "$got" "AF_INET hello $(hc a --json show hi | jget identities.0.lsi)"

echo "# the lsi_file follows the map"
check "hipconf add map: the new HIT's LSI is exported, as show maps" eval \
	'hc a add map 2001:2f::97 192.0.2.97 && [ -n "$(shown a 2001:2f::97)" ] &&
	 [ "$(exported 2001:2f::97)" = "$(shown a 2001:2f::97)" ]'
check "hipconf del map: gone from it" eval \
	'hc a del map 2001:2f::97 && [ -z "$(exported 2001:2f::97)" ]'
grep -v ghost "$NETNS_TMP/a/hosts" >"$NETNS_TMP/a/hosts.new" &&
	mv "$NETNS_TMP/a/hosts.new" "$NETNS_TMP/a/hosts"
check "reload without ghost's line: ghost gone, b still there" eval \
	'hc a reload && [ -z "$(exported 2001:2f::99)" ] && [ "$(exported "$HB")" = "$LSI" ]'
check "hipd exits: the lsi_file is removed" eval 'hipd_stop a && [ ! -e "$RUNA/lsi" ]'
check "without it, peer-b has no IPv4 answer" eval '! nss_run a getent ahostsv4 peer-b'
check "after all that, still no .hip name at the DNS stub" \
	eval '! grep -E "\.hip |^(peer-b|b\.lab|ghost) " "$NETNS_TMP/dns.log"'
kill "$DNS_PID" 2>/dev/null; wait "$DNS_PID" 2>/dev/null

netns_done
