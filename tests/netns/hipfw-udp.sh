#!/bin/bash
# hipfw's middlebox mode with HIP and ESP over UDP (issue 15; RFC 9028 §5.1):
# R is a NAT (iptables-legacy MASQUERADE) that also runs hipfw. A, behind it,
# reaches the public B: hipd sends HIP over UDP port 10500 behind a zero
# marker (nat_traversal = auto), ESP runs in UDP. hipfw queues UDP from or
# to port 10500 (--udp-port) and sorts it as hipd/net/udp.c does:
# - the base exchange over UDP passes and is tracked (both SPIs learnt,
#   the UDP ports shown by hipfw show associations);
# - the ESP in UDP of the learnt SPIs passes in the kernel (one u32 rule
#   per SPI at the top of HIPFW_UDP, matching the learnt UDP ports too, its
#   counters), 5 MB of TCP intact;
# - ESP in UDP of a learnt SPI from another source port: not matched in the
#   kernel, every packet reaches hipfw, which passes it (a NAT rebinding
#   looks the same) and counts it (esp_udp_other_port);
# - ESP in UDP with an SPI R never learnt: dropped, counted as
#   esp_unknown_spi; a NAT keepalive (one 0xFF byte): passed, counted;
# - IPv6 (C, public, with nat_traversal = always, to B): the same over UDP
#   in ip6tables, the u32 rules reading the SPI at offset 48 (no extension
#   headers expected), 2 MB of TCP intact and matched in the kernel;
# - a clean stop removes the UDP jumps and the chains and writes the state
#   file with the ports (D-21, D-24): the next start restores both
#   associations with their ports, and once their ESP confirms them their
#   rules carry the ports again;
# - --no-track: ESP in UDP passes in the kernel, only HIP (a zero marker)
#   is queued.
#
#   a (10.255.10.1) --- (10.255.10.2) r (198.51.100.1) --- (198.51.100.2) b
#                                       (fd00:2::1) --- (fd00:2::2) c
. "$(dirname "$0")/lib.sh"

FW=$NETNS_TMP/r

netns_host a r b c
netns_link a r 10
netns_link r b 1
netns_link r c 2
nsx r sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
nsx b ip -6 route add default via "$(addr6 r 1)"
nsx c ip -6 route add default via "$(addr6 r 2)"
ipt r -t nat -A POSTROUTING -o vr1 -p udp -j MASQUERADE --to-ports 20000-20999
ipt r -t nat -A POSTROUTING -o vr1 -j MASQUERADE
nsx a ip route add default via "$(addr4 r 10)"
A=$(addr4 a 10); B=$(addr4 b 1)

ip6t_r() { local n=$1; shift; nsx "$n" ip6tables-legacy -w "$@"; }
udp_rules() { ${1:-ipt} r -S HIPFW_UDP | grep -c -- '-m u32'; }
# rules of learnt SPIs that match both UDP ports 10500 (A's before the NAT)
udp_port_rules() {
	${1:-ipt} r -S HIPFW_UDP | grep -c -- '-p udp -m udp --sport 10500 --dport 10500 -m u32'
}
fw_start() { hipfw_start --state-dir "$FW/state" "$@"; }
ports() {
	fw --json show associations |
		jget 0.initiator.udp_port 0.responder.udp_port 1.initiator.udp_port 1.responder.udp_port
}
udp_kernel_bytes() {
	${1:-ipt} r -L HIPFW_UDP -v -x -n | awk '/u32/ { s += $2 } END { print s + 0 }'
}
# send from A to B's port 10500: "esp SPI" (5 packets) or "keepalive"
cat >"$FW/send.py" <<'E'
import os, socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[2], int(sys.argv[5]) if len(sys.argv) > 5 else 40000))
if sys.argv[1] == "esp":
    for seq in range(1, 6):
        esp = struct.pack("!II", int(sys.argv[4], 0), seq) + os.urandom(64)
        s.sendto(esp, (sys.argv[3], 10500))
else:
    s.sendto(b"\xff", (sys.argv[3], 10500))
E

mkdir -p "$FW/state"
echo 'default allow' >"$FW/rules"
fw_start
check "UDP from and to port 10500 jumps to HIPFW_UDP, in every hook" \
	eval "[ \$(ipt r -S | grep -c -E -- '-p udp -m udp --[sd]port 10500 -j HIPFW_UDP\$') = 6 ]"
check "HIPFW_UDP goes to HIPFW's queue" eval "ipt r -S HIPFW_UDP | grep -q -- '-g HIPFW\$'"

hipd_launch a "listen_v6 = no"
hipd_launch b
hipd_launch c "nat_traversal = always"
hipd_wait a b c || exit 1
hc a add map "$(hit b)" "$B" >/dev/null
check "A triggers B" hc a trigger "$(hit b)"
check "A <-> B established over the NAT and hipfw" wait_up a b 15
check "A's association runs over UDP" eq "$(ha_get a "$(hit b)" transport)" udp
check "R tracks one established association" \
	wait_for "ESTABLISHED at R" 5 eval "[ \"\$(trk associations) \$(trk established)\" = '1 1' ]"
fw show associations | sed 's/^/# /'
check "hipfw show associations: both ends at UDP port 10500 (A's before the NAT)" eq \
	"$(fw --json show associations | jget 0.initiator.udp_port 0.responder.udp_port)" "10500 10500"
check "R saw the exchange over UDP: HIP packets judged, none bad" \
	eval "[ \$(fw_get accepted) -ge 4 ] &&
	      [ \"\$(fw_get dropped.bad_hip dropped.bad_checksum)\" = '0 0' ]"
# two SA pairs: the HITs' and hipd's LSI pair (D-22)
check "an ESP-in-UDP rule per learnt SPI in HIPFW_UDP" wait_for "4 rules" 5 \
	eval "[ \$(udp_rules) = 4 ]"
spi_b=$(ha_get a "$(hit b)" spi_out)
check "the SPIs R learnt are the ones A and B use" eval \
	"ipt r -S HIPFW_UDP | grep -q -- \"-s $A/32 -d $B/32 .*--u32 .*=0x$(printf %x "$spi_b")\\\"\""
check "both rules match the learnt UDP ports too (A's before the NAT, B's)" \
	eq "$(udp_port_rules)" 4
check "ping A -> B between the HITs" nsx a ping -6 -c 3 -W 2 -q "$(hit b)"
check "5 MB over TCP A -> B through R, intact" tcp_transfer a b $((5 << 20)) 60
check "the ESP in UDP was matched in the kernel (u32 rule counters: 5 MB)" \
	ge "$(udp_kernel_bytes)" 5000000
check "at most a handful of it went through userspace, none dropped" \
	eval "[ \$(trk esp_accepted) -le 50 ] && [ \$(trk dropped.esp_unknown_spi) = 0 ]"
ipt r -L HIPFW_UDP -v -x -n | sed 's/^/# /'

# a learnt SPI from another source port: queued, every packet judged by hipfw
other0=$(trk esp_udp_other_port); acc0=$(trk esp_accepted)
nsx a python3 "$FW/send.py" esp "$A" "$B" "$spi_b" 40001
check "ESP in UDP of a learnt SPI from port 40001: not matched in the kernel" wait_for \
	"5 queued" 5 eval "[ \$((\$(trk esp_udp_other_port) - other0)) = 5 ]"
check "... passed by hipfw (judged by SPI and addresses), counted" \
	ge "$(($(trk esp_accepted) - acc0))" 5
nsx a python3 "$FW/send.py" esp "$A" "$B" 0x7e570001
check "ESP in UDP with an unknown SPI dropped, counted" wait_for "5 drops" 5 \
	eval "[ \$(trk dropped.esp_unknown_spi) -ge 5 ]"
nsx a python3 "$FW/send.py" keepalive "$A" "$B"
check "a NAT keepalive passed, counted" wait_for "keepalive" 5 \
	eval "[ \$(trk udp_keepalives) -ge 1 ]"
check "the association still carries traffic" nsx a ping -6 -c 2 -W 2 -q "$(hit b)"

# IPv6: C to B over UDP, no NAT
hc c add map "$(hit b)" "$(addr6 b 1)" >/dev/null
check "C triggers B over IPv6" hc c trigger "$(hit b)"
check "C <-> B established through hipfw" wait_up c b 15
check "C's association runs over UDP" eq "$(ha_get c "$(hit b)" transport)" udp
check "R tracks two established associations" \
	wait_for "2 at R" 5 eval "[ \"\$(trk associations) \$(trk established)\" = '2 2' ]"
check "an ESP-in-UDP rule per learnt SPI in ip6tables' HIPFW_UDP" wait_for "4 rules" 5 \
	eval "[ \$(udp_rules ip6t_r) = 4 ]"
check "2 MB over TCP C -> B through R, intact" tcp_transfer c b $((2 << 20)) 60
check "the ESP in UDP was matched in the kernel (IPv6 u32 rule counters: 2 MB)" \
	ge "$(udp_kernel_bytes ip6t_r)" 2000000
check "no ESP dropped on the way" eq "$(trk dropped.esp_unknown_spi)" 5
ip6t_r r -L HIPFW_UDP -v -x -n | sed 's/^/# /'

kill "$FW_PID"; wait "$FW_PID"
check "a clean stop removes the UDP jumps and the chains" \
	eval "! ipt r -S | grep -q HIPFW && ! ip6t_r r -S | grep -q HIPFW"

# the ports through the state file: restored, then matched again
fw_start
check "both associations restored from the state file" eq "$(trk restored)" 2
check "... with their UDP ports" eq "$(ports)" "10500 10500 10500 10500"
check "ESP confirms them: their rules carry the ports again (IPv4, IPv6)" \
	wait_for "rules with ports" 10 eval "nsx a ping -6 -c 1 -W 1 -q $(hit b) >/dev/null;
		nsx c ping -6 -c 1 -W 1 -q $(hit b) >/dev/null;
		[ \$(udp_port_rules) = 4 ] && [ \$(udp_port_rules ip6t_r) = 4 ]"
kill "$FW_PID"; wait "$FW_PID"
rm -f "$FW/state/hipfw.state"

# --no-track: ESP in UDP is not filtered and stays in the kernel, HIP over
# UDP (a zero marker) still goes to the queue and the rules
fw_start --no-track
check "--no-track: HIPFW_UDP sends the zero marker to the queue, passes the rest" eval \
	"ipt r -S HIPFW_UDP | grep -q -- '-m u32 --u32 \"0x0>>0x16&0x3c@0x8=0x0\" -g HIPFW\$' &&
	 ipt r -S HIPFW_UDP | tail -1 | grep -q -- '-j ACCEPT\$'"
check "1 MB over TCP A -> B still intact" tcp_transfer a b $((1 << 20)) 60
check "no ESP in UDP reached hipfw" eq "$(fw_get track.esp_accepted)" 0
kill "$FW_PID"; wait "$FW_PID"
check "and a clean stop removes it all" eval "! ipt r -S | grep -q HIPFW"
netns_done
