#!/bin/bash
# hipfw's middlebox mode and hipd's LSI SA pair (docs/decisions.md D-22): R
# learns the SPIs on which A and B receive IPv4 between their LSIs from
# hipd's LSI_ESP_INFO in the verified I2 and R2, and lets that ESP through
# like the ordinary SPIs' (D-18).
#
#   a (198.51.100.1) ---- (198.51.100.2) r (203.0.113.1) ---- (203.0.113.2) b
#
# Userspace ESP datapath on A and B (ESP through R is plain IP protocol 50
# that R's rules judge); A sends its HOST_ID in the clear in I2, so R
# verifies every signed packet.
# - ping -4 to B's LSI starts the exchange through R and is answered; both
#   ends have the LSI pair;
# - R lists the LSI SPIs (show associations, JSON and text), the same as
#   hipd's on both ends;
# - four fast-path rules in HIPFW_ESP: the HIT pair's two and the LSI
#   pair's two, each from the sender's locator to the receiver's;
# - ping -4 back and 5 MB of TCP over the LSIs through R, SHA-256 equal;
#   that ESP matched by the LSI pair's rules in the kernel, none of it
#   dropped as an unknown SPI;
# - a restart of hipfw with a state file: the LSI SPIs restored; ESP on
#   them confirms the association and their rules come back.
. "$(dirname "$0")/lib.sh"

FW=$NETNS_TMP/r

netns_host a r b
netns_link a r 1
netns_link r b 2
nsx r sysctl -qw net.ipv4.ip_forward=1
nsx a ip route add default via "$(addr4 r 1)"
nsx b ip route add default via "$(addr4 r 2)"

esp_rules() { ipt r -S HIPFW_ESP | grep -c -- '--espspi'; }
# packets the ACCEPT rule of SPI (decimal) matched in the kernel
spi_pkts() {
	ipt r -L HIPFW_ESP -v -x -n | awk -v s="spi:$1" \
		'/ACCEPT/ { for (i = 1; i <= NF; i++) if ($i == s) n += $1 } END { print n + 0 }'
}
own_lsi() { hc "$1" --json show hi | jget identities.0.lsi; }
ping4() { nsx "$1" ping -4 -c "${3:-1}" -i 0.2 -W 5 "$2"; }
# R's view of the association: initiator and responder LSI SPIs
fw_lsi_spis() {
	fw --json show associations | python3 -c 'import json,sys
a=json.load(sys.stdin)[0]; print(a["initiator"]["lsi_spi"], a["responder"]["lsi_spi"])'
}

mkdir -p "$FW/state"
hipd_start a "i2_host_id = clear"
hipd_start b
map a b 2
map b a 1
A=$(addr4 a 1); B=$(addr4 b 2)
LA=$(own_lsi a) LB=$(own_lsi b)
echo "LSIs: a $LA, b $LB"
echo 'default allow' >"$FW/rules"
hipfw_start --state-dir "$FW/state" --no-ipv6

# 1. the exchange, started by IPv4 to an LSI, through R
check "ping -4 to b's LSI $LB through R is answered" ping_until a "$LB" 15
check "A and B associated" wait_up a b
read -r a_in a_out <<<"$(ha_get a "$(hit b)" lsi_spi_in lsi_spi_out)"
read -r b_in b_out <<<"$(ha_get b "$(hit a)" lsi_spi_in lsi_spi_out)"
echo "# a: LSI SPI in $a_in out $a_out; b: in $b_in out $b_out"
check "both ends have the LSI pair, its SPIs agreed" \
	eval "[ \"$a_in\" -ge 256 ] && [ \"$b_in\" -ge 256 ] && [ $a_in = $b_out ] && [ $b_in = $a_out ]"
check "R tracks one established association" \
	wait_for "ESTABLISHED at R" 5 eval "[ \"\$(trk associations) \$(trk established)\" = '1 1' ]"
fw show associations | sed 's/^/# /'
check "R learnt the LSI SPIs A and B receive on (show associations)" \
	eq "$(fw_lsi_spis)" "$a_in $b_in"
check "the text of show associations gives them" eval \
	"fw show associations | grep -q \"LSI SPI \$(printf 0x%08x $a_in)\" &&
	 fw show associations | grep -q \"LSI SPI \$(printf 0x%08x $b_in)\""

# 2. their fast-path rules
check "four ESP rules in the kernel: two per SA pair" wait_for "4 rules" 5 \
	eval "[ \$(esp_rules) = 4 ]"
ipt r -S HIPFW_ESP | sed 's/^/# /'
check "B's LSI SPI from A's locator to B's" eval \
	"ipt r -S HIPFW_ESP | grep -q -- '-s $A/32 -d $B/32 .*--espspi $b_in '"
check "A's LSI SPI from B's locator to A's" eval \
	"ipt r -S HIPFW_ESP | grep -q -- '-s $B/32 -d $A/32 .*--espspi $a_in '"

# 3. IPv4 over the LSIs through R
check "ping -4 b -> a's LSI through R" ping4 b "$LA" 3
check "5 MB over TCP a -> b's LSI through R, SHA-256 equal" eval \
	'TO_ADDR=$LB tcp_transfer a b $((5 << 20)) 30'
ipt r -L HIPFW_ESP -v -x -n | sed 's/^/# /'
check "that ESP was matched by B's LSI SPI rule in the kernel" ge "$(spi_pkts "$b_in")" 1000
check "and its ACKs by A's" ge "$(spi_pkts "$a_in")" 50
check "no ESP dropped as an unknown SPI" eq "$(trk dropped.esp_unknown_spi)" 0

# 4. a restart: the LSI SPIs come back from the state file (version 3)
kill "$FW_PID"
check "hipfw exits 0 on SIGTERM" wait "$FW_PID"
check "the state file is version 3" \
	eq "$(od -An -tu1 -j8 -N2 "$FW/state/hipfw.state" | xargs)" "0 3"
hipfw_start --state-dir "$FW/state" --no-ipv6
check "the association restored" eq "$(trk restored)" 1
check "with its LSI SPIs" eq "$(fw_lsi_spis)" "$a_in $b_in"
check "ping -4 over the LSIs confirms it (ESP on an LSI SPI, in userspace)" ping4 a "$LB" 3
check "confirmed, not dropped" eval \
	"[ \$(trk confirmed) = 1 ] && [ \$(trk dropped.esp_unknown_spi) = 0 ]"
check "its four rules back in the kernel" wait_for "4 rules" 5 eval "[ \$(esp_rules) = 4 ]"

kill "$FW_PID"
check "hipfw exits 0 on SIGTERM" wait "$FW_PID"
check "no sanitizer report in hipfw's log" \
	eval "! grep -q -E 'AddressSanitizer|runtime error:' '$FW/hipfw.log'"

netns_done
