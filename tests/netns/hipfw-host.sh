#!/bin/bash
# hipfw's host mode (issue 15, hipfw(8) HOST MODE, D-23): on B, which runs
# hipd, hipfw --host filters the traffic between HITs by the rules, in the
# kernel (ip6tables chains HIPFW_HIN and HIPFW_HOUT).
#
#   a (192.0.2.1) ---- (192.0.2.2) b (198.51.100.1) ---- (198.51.100.2) c
#
# - A reaches B's allowed TCP port over the HITs; a port no rule allows is
#   blocked (the SYN dropped: the connection times out); C, whose HIT no
#   rule names, cannot reach the port A may; ping (an icmpv6 rule) works
#   for both; each rule's kernel counter in `hipfw show`;
# - SIGHUP with the rule moved from A's HIT to C's: C gets in, A no longer,
#   and the association A-B carries on through the reload;
# - SIGTERM removes the chains and their jumps.
. "$(dirname "$0")/lib.sh"

FW=$NETNS_TMP/b FW_HOST=b

netns_host a b c
netns_link a b 0
netns_link b c 1
hipd_start a
hipd_start b
hipd_start c
map a b 0
map b a 0
map c b 1
map b c 1

ip6t() { nsx b ip6tables-legacy -w "$@"; }
HITS="-s 2001:20::/28 -d 2001:20::/28"
fw_stop() { hipfw_stop; }
# host_pkts LINE: packets the kernel rules of that line decided
host_pkts() {
	fw --json show | python3 -c 'import json,sys
h=json.load(sys.stdin)["host"]
print(sum(r["packets"] for r in h["rules"] if r["line"] == int(sys.argv[1])))' "$1"
}
host_default() { fw --json show | jget host.default; }
# reach FROM PORT SECS: "connected", "timeout" or "refused" for a TCP
# connection from FROM's HIT to B's HIT, port PORT
reach() {
	nsx "$1" python3 -c 'import socket,sys
s=socket.socket(socket.AF_INET6); s.settimeout(float(sys.argv[3]))
try:
    s.connect((sys.argv[1], int(sys.argv[2]))); print("connected")
except socket.timeout:
    print("timeout")
except ConnectionRefusedError:
    print("refused")' "$(hit b)" "$2" "$3"
}
rules() {
	cat >"$FW/rules" <<-E
		# HIP packets: hipd checks them
		allow type any
		allow from $(hit "$1") proto tcp port 5001 dir in
		deny proto tcp port 5002 dir in
		allow proto icmpv6
		allow dir out
		default deny
	E
}

# B listens on ports 5001 and 5002 of every address
ip netns exec "$(ns_name b)" python3 -c 'import selectors,socket
sel=selectors.DefaultSelector()
for p in (5001, 5002):
    s=socket.socket(socket.AF_INET6); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("::", p)); s.listen(16); sel.register(s, selectors.EVENT_READ)
print("listening", flush=True)
while True:
    for k, _ in sel.select():
        c, _ = k.fileobj.accept(); c.close()' >"$FW/listen.out" 2>&1 &
LISTEN_PID=$!
wait_for "B listening" 10 grep -q listening "$FW/listen.out"

rules a
check "--check-config counts the host mode rules" fails_with 0 \
	"5 rules, default deny; 1 for HIP packets only, 3 for traffic between HITs only" \
	"$HIPFW" --check-config -f "$FW/rules"
hipfw_start --host
check "no busy poll in host mode unless asked" eq "$(fw_get busy_poll.max_us)" 0
check "the chains jumped to for HIT to HIT only, not on lo" eval \
	"ip6t -S INPUT | grep -q -- '$HITS ! -i lo -j HIPFW_HIN' &&
	 ip6t -S OUTPUT | grep -q -- '$HITS ! -o lo -j HIPFW_HOUT'"
check "A's rule is a kernel rule" eval \
	"ip6t -S HIPFW_HIN | grep -q -- '-s $(hit a)/128 -p tcp -m tcp --dport 5001 -j ACCEPT'"
check "the default ends the chain" eval \
	"[ \"\$(ip6t -S HIPFW_HIN | tail -1)\" = '-A HIPFW_HIN -j DROP' ]"

# 1. A and C associate with B (HIP allowed, ping by the icmpv6 rule)
check "A pings B's HIT" ping_until a "$(hit b)" 20
check "C pings B's HIT" ping_until c "$(hit b)" 20
check "A and B associated" wait_up a b
spis_a=$(ha_get a "$(hit b)" spi_in spi_out)
check "A reaches B's port 5001" eq "$(reach a 5001 10)" connected
check "A's rule counted it" ge "$(host_pkts 3)" 1
d0=$(host_default)
check "A cannot reach port 5002 (timeout)" eq "$(reach a 5002 2)" timeout
check "the deny rule counted the dropped SYNs" ge "$(host_pkts 4)" 1
check "C cannot reach port 5001 (timeout)" eq "$(reach c 5001 2)" timeout
check "the default counted C's" ge "$(host_default)" $((d0 + 1))
check "the icmpv6 rule counted the pings" ge "$(host_pkts 5)" 2
check "show: the host mode line" eval \
	"fw show | grep -q 'host mode: .* kernel rules in HIPFW_HIN and HIPFW_HOUT'"

# 2. SIGHUP: port 5001 is C's now, not A's
rules c
kill -HUP "$FW_PID"
check "the reload put C's rule in the kernel" wait_for "C's rule" 10 eval \
	"ip6t -S HIPFW_HIN | grep -q -- '-s $(hit c)/128 -p tcp'"
check "C reaches port 5001" eq "$(reach c 5001 10)" connected
check "A no longer does" eq "$(reach a 5001 2)" timeout
check "the association A-B carries on (ping)" ping_until a "$(hit b)" 10
check "with the same SPIs" eq "$(ha_get a "$(hit b)" spi_in spi_out)" "$spis_a"
check "one reload, none refused" eq "$(fw --json show | jget reloads reload_errors)" "1 0"

# 3. a reload the kernel would take but the parser does not: nothing changes
echo "allow proto tcp port 22 type i1" >>"$FW/rules"
check "a rule with type and port is refused with its line" fails_with 1 \
	"rules:8: 'type' is for HIP packets" "$HIPFW" --check-config -f "$FW/rules"
check "reload refuses it" fails_with 1 "old rules stay" fw reload
check "C still reaches port 5001" eq "$(reach c 5001 10)" connected

# 4. SIGTERM removes the chains
check "hipfw exits 0 on SIGTERM" fw_stop
check "no host chain left" eval "! ip6t -S HIPFW_HIN && ! ip6t -S HIPFW_HOUT"
check "no jump left" eq "$(ip6t -S | grep -c HIPFW)" 0
check "A reaches port 5001 again without hipfw" eq "$(reach a 5001 10)" connected
check "no sanitizer report in hipfw's log" eval \
	"! grep -q -E 'AddressSanitizer|runtime error:' '$FW/hipfw.log'"
kill "$LISTEN_PID"; wait "$LISTEN_PID" 2>/dev/null

netns_done
