#!/bin/bash
# hipfw's middlebox mode (issue 15): R tracks the association between A and B
# and lets their ESP through in the kernel, one rule per learnt SPI.
#
#   a (198.51.100.1) ---- (198.51.100.2) r (203.0.113.1) ---- (203.0.113.2) b
#
# A sends its HOST_ID in the clear in I2 (hipd.conf i2_host_id = clear), so R
# verifies every signed packet of both ends. The userspace ESP datapath: ESP
# through R is plain IP protocol 50 that R's rules really judge.
# - the base exchange passes, R tracks it (both HIs, both SPIs), two ESP
#   rules in HIPFW_ESP; ping and 20 MB of TCP between the HITs intact, the
#   ESP matched in the kernel (rule counters), hardly any of it queued;
# - ESP with an SPI R never learnt, from A's address: dropped, counted;
# - A's real I2 replayed from another address: dropped, counted;
# - A's I2 with its signature altered, B's R1 under another sender HIT (its
#   HOST_ID no longer gives it): dropped at R (B and A never see them),
#   counted as bad_signature and bad_hit;
# - an UPDATE from A with a forged signature: dropped, counted;
# - A moves to a new address under a TCP stream: the stream goes on through
#   R, the rules follow (the old locator gone after B's ACK);
# - A closes: the ESP rules go; A's UPDATE and ESP afterwards dropped, counted;
# - a new exchange after CLOSE, over IPv6: the rules in ip6tables' HIPFW_ESP,
#   a TCP transfer intact, matched in the kernel;
# - a clean stop removes HIPFW_ESP.
. "$(dirname "$0")/lib.sh"

FW=$NETNS_TMP/r
RATE=262144
SECS=5

netns_host a r b
netns_link a r 1
netns_link r b 2
nsx r sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
nsx a sysctl -qw net.ipv4.conf.all.promote_secondaries=1 net.ipv4.conf.va1.promote_secondaries=1
nsx a ip route add default via "$(addr4 r 1)"
nsx b ip route add default via "$(addr4 r 2)"
nsx a ip -6 route add default via "$(addr6 r 1)"
nsx b ip -6 route add default via "$(addr6 r 2)"

esp_rules() { ipt r -S HIPFW_ESP | grep -c -- '--espspi'; }
# packets the ESP ACCEPT rules matched in the kernel
esp_kernel_pkts() { ipt r -L HIPFW_ESP -v -x -n | awk '/ACCEPT/ { s += $1 } END { print s + 0 }'; }

# the HIP packets A sends, as R receives them (JSON lines: type, src, dst, hex)
cat >"$FW/sniff.py" <<'E'
import json, socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
s.bind((sys.argv[1], 0))
out = open(sys.argv[2], "a")
while True:
    f, addr = s.recvfrom(65535)
    if addr[2] == socket.PACKET_OUTGOING or len(f) < 14 + 20 + 40:
        continue
    ip = f[14:]
    if ip[9] != 139:
        continue
    ihl = (ip[0] & 15) * 4
    hip = ip[ihl:(ip[2] << 8 | ip[3])]
    out.write(json.dumps({"type": hip[2] & 0x7f, "src": socket.inet_ntoa(ip[12:16]),
                          "dst": socket.inet_ntoa(ip[16:20]), "hip": hip.hex()}) + "\n")
    out.flush()
E
# send from A: "hip TYPE FILE SRC DST" (the last captured packet of that
# type, checksum redone for SRC), "esp SPI SRC DST", "update HIT_S HIT_R SRC DST",
# "mutate TYPE FILE SRC DST sig|hit" (that packet with a byte of its
# HIP_SIGNATURE(_2) flipped, or the last byte of its sender HIT)
cat >"$FW/send.py" <<'E'
import json, os, socket, struct, sys

def csum(src, dst, hip):
    ph = socket.inet_aton(src) + socket.inet_aton(dst) + struct.pack("!BBH", 0, 139, len(hip))
    b = ph + hip[:4] + b"\0\0" + hip[6:]
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return hip[:4] + struct.pack("!H", ~s & 0xffff) + hip[6:]

def send(proto, src, dst, payload):
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, proto)
    s.bind((src, 0))
    s.sendto(payload, (dst, 0))

mode = sys.argv[1]
if mode == "hip":
    ptype, path, src, dst = int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
    found = [p for p in map(json.loads, open(path)) if p["type"] == ptype]
    if not found:
        sys.exit("no packet of type %d captured" % ptype)
    send(139, src, dst, csum(src, dst, bytes.fromhex(found[-1]["hip"])))
elif mode == "mutate":
    ptype, path, src, dst, what = int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
    found = [p for p in map(json.loads, open(path)) if p["type"] == ptype]
    if not found:
        sys.exit("no packet of type %d captured" % ptype)
    hip = bytearray.fromhex(found[-1]["hip"])
    if what == "hit":
        hip[8 + 15] ^= 1
    else:
        off = 40
        while off + 4 <= len(hip):
            t, l = struct.unpack("!HH", hip[off:off + 4])
            if t in (61697, 61633):
                hip[off + 4 + 2 + 5] ^= 0x40
                break
            off += (4 + l + 7) & ~7
        else:
            sys.exit("no signature")
    send(139, src, dst, csum(src, dst, bytes(hip)))
elif mode == "esp":
    spi, src, dst = int(sys.argv[2], 0), sys.argv[3], sys.argv[4]
    for seq in range(1, 6):
        send(50, src, dst, struct.pack("!II", spi, seq) + os.urandom(64))
elif mode == "update":
    hs, hr, src, dst = sys.argv[2:6]
    # SEQ (385) and a HIP_SIGNATURE (61697) of random bytes (RFC 7401 §5.3.5)
    params = struct.pack("!HHI", 385, 4, 4242)
    sig = struct.pack("!H", 7) + os.urandom(64)
    params += struct.pack("!HH", 61697, len(sig)) + sig + b"\0" * ((8 - (4 + len(sig)) % 8) % 8)
    hdr = struct.pack("!BBBBHH", 59, (40 + len(params)) // 8 - 1, 16, 0x21, 0, 0)
    hip = hdr + socket.inet_pton(socket.AF_INET6, hs) + socket.inet_pton(socket.AF_INET6, hr)
    send(139, src, dst, csum(src, dst, hip + params))
E

hipd_start a "i2_host_id = clear"
hipd_start b
map a b 2
map b a 1
A=$(addr4 a 1); B=$(addr4 b 2)

# capture on R's side towards A, then hipfw with every HIP packet allowed
ip netns exec "$(ns_name r)" python3 "$FW/sniff.py" vr1 "$FW/a.pkts" >/dev/null 2>&1 &
SNIFF_PID=$!
ip netns exec "$(ns_name r)" python3 "$FW/sniff.py" vr2 "$FW/b.pkts" >/dev/null 2>&1 &
SNIFF_B_PID=$!
echo 'default allow' >"$FW/rules"
hipfw_start

# 1. the base exchange through R, tracked
check "hipfw's ESP chain queues what no SPI rule passes" \
	eval "ipt r -S HIPFW_ESP | grep -q -- '-j NFQUEUE --queue-num 0'"
check "jumps to HIPFW_ESP for protocol 50 (esp) only" \
	eval "[ \$(ipt r -S | grep -c -E -- '-p (50|esp) -j HIPFW_ESP') = 3 ]"
check "A reaches B through R" ping_until a "$(hit b)" 15
check "A and B associated" wait_up a b
check "R tracks one established association" \
	wait_for "ESTABLISHED at R" 5 eval "[ \"\$(trk associations) \$(trk established)\" = '1 1' ]"
fw show associations | sed 's/^/# /'
check "R learnt both HIs (A's I2 in the clear) and both SPIs" eval \
	"fw --json show associations | python3 -c 'import json,sys; a=json.load(sys.stdin)[0]
sys.exit(not (a[\"state\"] == \"ESTABLISHED\" and not a[\"unverified\"] and
  all(a[k][\"hi_known\"] and a[k][\"spi\"] for k in (\"initiator\", \"responder\"))))'"
# hipd's LSI SA pair (D-22) has its own SPIs: one rule per direction of each pair
check "four ESP rules in the kernel, one per direction of each SA pair" wait_for "4 rules" 5 \
	eval "[ \$(esp_rules) = 4 ]"
spi_b=$(ha_get a "$(hit b)" spi_out)
check "the SPIs R learnt are the ones A and B use" eval \
	"ipt r -S HIPFW_ESP | grep -q -- '-s $A/32 -d $B/32 .*--espspi $spi_b '"

check "20 MB of TCP between the HITs through R, intact" tcp_transfer a b 20000000 60
check "the ESP was matched in the kernel (HIPFW_ESP counters)" ge "$(esp_kernel_pkts)" 1000
# (the rules go in just after R2's verdict: the first packets may reach
# hipfw, which knows their SPI and lets them pass)
check "at most a handful of the ESP went through userspace" \
	eval "[ \$(trk esp_accepted) -le 50 ] && [ \$(trk dropped.esp_unknown_spi) = 0 ]"
ipt r -L HIPFW_ESP -v -x -n | sed 's/^/# /'

# 2. ESP with an SPI R never learnt, from A's address
nsx a python3 "$FW/send.py" esp 0x7e570001 "$A" "$B"
check "ESP with an unknown SPI dropped, counted" wait_for "5 drops" 5 \
	eval "[ \$(trk dropped.esp_unknown_spi) -ge 5 ]"

# 3. A's I2 replayed from another address of A's subnet
nsx a ip addr add 198.51.100.50/24 dev va1
nsx a python3 "$FW/send.py" hip 3 "$FW/a.pkts" 198.51.100.50 "$B"
check "the replayed I2 dropped, counted" wait_for "i2_replay" 5 \
	eval "[ \$(trk dropped.i2_replay) -ge 1 ]"
nsx a ip addr del 198.51.100.50/24 dev va1
check "the association still carries traffic" ping_until a "$(hit b)" 5

# 3b. an I2 with a bad signature, an R1 whose HOST_ID does not give its HIT:
# dropped at R (counted on the far side's INPUT: nothing arrives)
ipt b -I INPUT -p 139 -m u32 --u32 "$(hip_u32 3)"
ipt a -I INPUT -p 139 -m u32 --u32 "$(hip_u32 2)"
sig_before=$(fw_get dropped.bad_signature); hit_before=$(fw_get dropped.bad_hit)
nsx a python3 "$FW/send.py" mutate 3 "$FW/a.pkts" "$A" "$B" sig
nsx b python3 "$FW/send.py" mutate 2 "$FW/b.pkts" "$B" "$A" hit
check "the I2 with a bad signature dropped, counted" wait_for "bad_signature" 5 \
	eval "[ \$(fw_get dropped.bad_signature) -ge $((sig_before + 1)) ]"
check "the R1 with another sender HIT dropped, counted" wait_for "bad_hit" 5 \
	eval "[ \$(fw_get dropped.bad_hit) -ge $((hit_before + 1)) ]"
check "neither reached its receiver" eq "$(rule_pkts b INPUT) $(rule_pkts a INPUT)" "0 0"
ipt b -D INPUT 1; ipt a -D INPUT 1

# 4. an UPDATE from A with a forged signature
nsx a python3 "$FW/send.py" update "$(hit a)" "$(hit b)" "$A" "$B"
check "the forged UPDATE dropped, counted" wait_for "update_forged" 5 \
	eval "[ \$(trk dropped.update_forged) -ge 1 ]"

# 5. A moves under a TCP stream through R
stream_begin a b
nsip a "addr add 198.51.100.11/24 dev va1" "addr del $A/24 dev va1" \
	"route replace default via $(addr4 r 1)"
check "both sides use A's new address" wait_moved a b 198.51.100.11 15
check "the stream is intact through R" stream_end
check "R followed the move (UPDATE verified, ACKed)" ge "$(trk moves)" 1
check "the rules name the new locator, the old one is gone" wait_for "rules moved" 5 \
	eval "ipt r -S HIPFW_ESP | grep -q -- '-s 198.51.100.11/32' &&
	      ! ipt r -S HIPFW_ESP | grep -q -F -- '$A/32'"
check "the UPDATEs passed R's signature checks" eq "$(trk dropped.update_forged)" 1

# 6. A closes: the rules go, what A sends afterwards is dropped
hc a close "$(hit b)" >/dev/null
check "R saw the CLOSE and its ACK" wait_for "CLOSED at R" 10 eval "[ \$(trk closed) -ge 1 ]"
check "no ESP rule left" eq "$(esp_rules)" 0
before=$(trk dropped.after_close)
nsx a python3 "$FW/send.py" hip 16 "$FW/a.pkts" 198.51.100.11 "$B"
check "an UPDATE after CLOSE dropped, counted" wait_for "after_close" 5 \
	eval "[ \$(trk dropped.after_close) -gt $before ]"
before=$(trk dropped.esp_unknown_spi)
nsx a python3 "$FW/send.py" esp "$spi_b" 198.51.100.11 "$B"
check "ESP of the closed association dropped, counted" wait_for "esp drops" 5 \
	eval "[ \$(trk dropped.esp_unknown_spi) -ge $((before + 5)) ]"

# 7. a new exchange after CLOSE, over IPv6 this time: ip6tables' HIPFW_ESP
hc a del map "$(hit b)" >/dev/null; hc b del map "$(hit a)" >/dev/null
map a b 2 6
map b a 1 6
check "A reaches B over IPv6 through R (a new exchange after CLOSE)" ping_until a "$(hit b)" 15
check "four ESP rules in ip6tables' HIPFW_ESP" wait_for "4 IPv6 rules" 5 \
	eval "[ \$(nsx r ip6tables-legacy -w -S HIPFW_ESP | grep -c -- '--espspi') = 4 ]"
check "a TCP transfer over IPv6 through R, intact" tcp_transfer a b 1000000 60
check "that ESP was matched in the kernel (ip6tables counters)" ge "$(nsx r ip6tables-legacy -w \
	-L HIPFW_ESP -v -x -n | awk '/ACCEPT/ { s += $1 } END { print s + 0 }')" 300
fw show | sed 's/^/# /'

# 8. a clean stop removes the ESP chain
kill "$SNIFF_PID" "$SNIFF_B_PID" 2>/dev/null; wait "$SNIFF_PID" "$SNIFF_B_PID" 2>/dev/null
kill "$FW_PID"
check "hipfw exits 0 on SIGTERM" wait "$FW_PID"
check "HIPFW_ESP is gone (IPv4 and IPv6)" eval "! ipt r -S HIPFW_ESP 2>/dev/null &&
	! nsx r ip6tables-legacy -w -S HIPFW_ESP 2>/dev/null"
check "no ESP jump left" eq "$(ipt r -S | grep -c -- '-j HIPFW_ESP')" 0
check "no sanitizer report in hipfw's log" eval "! grep -q -E 'AddressSanitizer|runtime error:' '$FW/hipfw.log'"

netns_done
