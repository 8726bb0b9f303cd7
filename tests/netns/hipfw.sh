#!/bin/bash
# hipfw on a router (issue 15, first step): A and B reach each other only
# through R, where hipfw filters HIP by Host Identity Tag.
#
#   a (198.51.100.1) ---- (198.51.100.2) r (203.0.113.1) ---- (203.0.113.2) b
#
# - a rule denying I1s from A's HIT through R: A cannot reach B, the denial
#   is counted, B never hears of A;
# - the rules reloaded (hipfw reload) to allow: the base exchange passes
#   (I1, R1, I2, R2 counted), ping between the HITs; the queue polled
#   after each packet that asks for an answer (--busy-poll, on by default);
# - garbage with protocol 139 and a HIP packet with a wrong checksum: dropped
#   before the rules, each with its counter;
# - a broken rules file: --check-config names the line, a reload refuses it
#   and the rules in force stay;
# - its own chain only, for IPv4 and IPv6; removed on SIGTERM; a second
#   start after a kill -9 leaves one jump, not two.
. "$(dirname "$0")/lib.sh"

FW=$NETNS_TMP/r

netns_host a r b
netns_link a r 1
netns_link r b 2
nsx r sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
nsx a ip route add default via "$(addr4 r 1)"
nsx b ip route add default via "$(addr4 r 2)"
nsx a ip -6 route add default via "$(addr6 r 1)"
nsx b ip -6 route add default via "$(addr6 r 2)"

hipd_start a
hipd_start b
map a b 2
map b a 1

fw_start() { hipfw_start "$@"; }
fw_stop() { hipfw_stop; }
chain_jumps() { ipt r -S FORWARD | grep -c -- '-j HIPFW$'; }

# 1. deny A's I1s through R
cat >"$FW/rules" <<E
# A may not start exchanges through this router
deny from $(hit a) type i1 dir forward
default allow
E
check "--check-config accepts the rules" fails_with 0 "1 rules, default allow" \
	"$HIPFW" --check-config -f "$FW/rules"
fw_start
check "hipfw's own chain queues HIP (IPv4)" eval "ipt r -S HIPFW | grep -q -- '-j NFQUEUE --queue-num 0'"
check "and IPv6" eval "nsx r ip6tables-legacy -w -S HIPFW | grep -q -- '-j NFQUEUE --queue-num 0'"
check "fail-closed by default (no --queue-bypass)" eval "! ipt r -S HIPFW | grep -q queue-bypass"
check "jumps from INPUT, OUTPUT and FORWARD for protocol 139 (hip) only" \
	eval "[ \$(ipt r -S | grep -c -E -- '-p (139|hip) -j HIPFW') = 3 ]"
check "A cannot reach B: its I1 is denied at R" eval "! ping_until a $(hit b) 3"
check "the denials are counted (i1)" ge "$(fw_get types.i1.denied)" 1
check "B never heard of A" no_ha b a

# 2. allow, reload, the exchange goes through
cat >"$FW/rules" <<E
allow from $(hit a) dir forward
allow from $(hit b) dir forward
default deny
E
check "hipfw reload takes the new rules" fails_with 0 "2 rules" fw reload
check "A reaches B through R" ping_until a "$(hit b)" 15
check "A and B associated" wait_up a b
for t in i1 r1 i2 r2; do
	check "$t accepted and counted" ge "$(fw_get types.$t.accepted)" 1
done
check "busy poll on by default in middlebox mode, 1000 us" eq "$(fw_get busy_poll.max_us)" 1000
check "the exchange's packets were each followed by a poll of the queue" \
	eval "[ \$(fw_get busy_poll.polls) -ge 1 ] && [ \$(fw_get busy_poll.us) -ge 1 ]"
check "--busy-poll beyond 10 ms refused" fails_with 2 "bad --busy-poll '10001' (0-10000" \
	"$HIPFW" --busy-poll 10001
check "the real R1s passed the HOST_ID and signature checks" \
	eq "$(fw_get dropped.bad_hit dropped.bad_signature)" "0 0"
check "show rules: A's rule decided packets" eval \
	"fw --json show rules | python3 -c 'import json,sys; r=json.load(sys.stdin)[\"rules\"]; sys.exit(r[0][\"hits\"] < 2)'"

# 3. bad input through R: dropped before the rules, counted by reason
junk_before=$(fw_get dropped.bad_hip)
nsx a python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, 139)
for n in (1, 7, 40):
    s.sendto(bytes([59]) + bytes(n), (sys.argv[1], 0))
' "$(addr4 b 2)"
check "garbage of protocol 139 dropped as bad_hip" wait_for "3 drops" 5 \
	eval "[ \$(fw_get dropped.bad_hip) -ge $((junk_before + 3)) ]"
# a well-formed I1 from A with its checksum broken (the injector builds it)
cs_before=$(fw_get dropped.bad_checksum)
nsx a "$HIP_INJECT" --help >/dev/null 2>&1 && nsx a python3 -c '
import socket, struct, sys
hit_a = socket.inet_pton(socket.AF_INET6, sys.argv[2])
hit_b = socket.inet_pton(socket.AF_INET6, sys.argv[3])
# RFC 7401 §5.1: next header 59, length 4 (40 bytes), type 1, version 2, checksum wrong
hdr = struct.pack("!BBBBHH", 59, 4, 1, 0x21, 0xdead, 0) + hit_a + hit_b
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, 139)
s.sendto(hdr, (sys.argv[1], 0))
' "$(addr4 b 2)" "$(hit a)" "$(hit b)"
check "a HIP packet with a wrong checksum dropped as bad_checksum" wait_for "1 drop" 5 \
	eval "[ \$(fw_get dropped.bad_checksum) -ge $((cs_before + 1)) ]"

# 4. a broken rules file is refused with its line; the rules in force stay
cp "$FW/rules" "$FW/rules.good"
printf 'allow from %s\nallow form any\n' "$(hit a)" >"$FW/rules"
check "--check-config names the line and the word" fails_with 1 "rules:2: unknown word 'form'" \
	"$HIPFW" --check-config -f "$FW/rules"
check "reload refuses the broken file" fails_with 1 "old rules stay" fw reload
check "the 2 rules in force stay" eq "$(fw_get rules)" 2
check "the refusal is counted" eq "$(fw_get reload_errors)" 1
cp "$FW/rules.good" "$FW/rules"

# 5. SIGTERM removes the chain; kill -9 leaves it, the next start cleans up
check "hipfw exits 0 on SIGTERM" fw_stop
check "its chain is gone (IPv4)" eval "! ipt r -S HIPFW"
check "and IPv6" eval "! nsx r ip6tables-legacy -w -S HIPFW"
check "no jump left" eq "$(chain_jumps)" 0
fw_start
kill -9 "$FW_PID"
wait "$FW_PID" 2>/dev/null
check "after kill -9 the rules stay (fail-closed)" eq "$(chain_jumps)" 1
fw_start --fail-open
check "the next start leaves one jump, not two" eq "$(chain_jumps)" 1
check "--fail-open: --queue-bypass" eval "ipt r -S HIPFW | grep -q queue-bypass"
check "hipfw exits 0 on SIGTERM" fw_stop

# 6. several queues: -q FIRST:LAST binds them all, the kernel spreads the
#    packets over them by address hash (--queue-balance; both directions of
#    a host pair meet in one queue), hipfw judges what comes on either
check "-q 9:8 refused" fails_with 2 "bad queue '9:8'" "$HIPFW" -q 9:8 --check-config
# closed while no hipfw runs (nothing filtered): the next exchange is new
hc a close "$(hit b)" >/dev/null
check "A's association with B closed" wait_for "closed" 10 no_ha a b
fw_start -q 7:8
check "-q 7:8: the queue rule balances over 7 and 8 (IPv4)" \
	eval "ipt r -S HIPFW | grep -q -- '--queue-balance 7:8'"
check "and IPv6" eval "nsx r ip6tables-legacy -w -S HIPFW | grep -q -- '--queue-balance 7:8'"
check "hipfw reads both (/proc/net/netfilter/nfnetlink_queue)" eval \
	"[ \$(nsx r awk '\$1 == 7 || \$1 == 8' /proc/net/netfilter/nfnetlink_queue | wc -l) = 2 ]"
check "the log says so" grep -q "on queues 7-8" "$FW/hipfw.log"
check "and hipfw show" eq "$(fw_get queues.first queues.last)" "7 8"
check "A reaches B again through the balanced queues" ping_until a "$(hit b)" 15
for t in i1 r1 i2 r2; do
	check "$t judged there" ge "$(fw_get types.$t.accepted)" 1
done
check "the packets went through queue 7 or 8 (the kernel's packet ids)" eval \
	"[ \$(nsx r awk '\$1 == 7 || \$1 == 8 { n += \$8 } END { print n + 0 }' \
	/proc/net/netfilter/nfnetlink_queue) -ge 4 ]"
check "hipfw exits 0 on SIGTERM" fw_stop
check "no sanitizer report in hipfw's log" eval "! grep -q -E 'AddressSanitizer|runtime error:' '$FW/hipfw.log'"

netns_done
