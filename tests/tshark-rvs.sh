#!/bin/bash
# tshark-rvs.sh - the rendezvous wire format (RFC 8004) checked with an
# independent dissector (Wireshark 4.0's HIP dissector, as tests/tshark.sh):
# hipd on three network namespaces, S offering rendezvous between A (link
# 1) and B (link 2), B registered with S. A knows only S's address for B's
# HIT. Captured on B's link: the I1 S relays carries A's HITs unchanged,
# then FROM with A's address and RVS_HMAC, goes from S's address to B's,
# and its HIP checksum is Good for those rewritten IP addresses. Captured
# on A's link: A's own I1 to S (no FROM), and B's R1 straight from B with
# VIA_RVS naming S (the source of the relayed I1) and a Good checksum.
#
# Usage: tests/tshark-rvs.sh BUILD_DIR (as root; exit 77 when it cannot run)
# Prints "tshark-rvs: N passed, M failed". TSHARK_RVS_KEEP=DIR: the two
# captures (a.pcap, b.pcap) are copied there.
if [ $# -ne 1 ]; then
	echo "usage: $0 BUILD_DIR" >&2
	exit 2
fi
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "tshark-rvs: no build directory $1" >&2; exit 2; }
export BUILD
for t in tshark tcpdump; do
	command -v "$t" >/dev/null 2>&1 || { echo "tshark-rvs: $t not installed, skipped" >&2; exit 77; }
done
if [ "$(id -u)" != 0 ]; then
	echo "tshark-rvs: needs root (network namespaces), skipped" >&2
	exit 77
fi
. "$(dirname "$0")/netns/lib.sh"

netns_host s a b
netns_link s a 1
netns_link s b 2
nsx s sysctl -qw net.ipv4.ip_forward=1
nsx a ip route add default via "$(addr4 s 1)"
nsx b ip route add default via "$(addr4 s 2)"

# capture NAME IFACE: HIP packets on NAME's IFACE into $NETNS_TMP/NAME.pcap
capture() {
	# not through nsx: $! must be tcpdump (ip netns exec execs it)
	ip netns exec "$(ns_name "$1")" tcpdump -i "$2" --immediate-mode -U -n -w "$NETNS_TMP/$1.pcap" \
		'ip proto 139' 2>"$NETNS_TMP/$1.tcpdump" &
	eval "CAP_$1=\$!"
	wait_for "tcpdump on $1 listening" 20 grep -q "listening on" "$NETNS_TMP/$1.tcpdump"
}
check "tcpdump on A's link" capture a va1
check "tcpdump on B's link" capture b vb2

hipd_start s "offer_services = rendezvous" || exit 1
hipd_launch a
hipd_start b "server = $(hit s) $(addr4 s 2) rendezvous" || exit 1
hipd_wait a || exit 1
check "B registers with S" wait_for "registered" 20 eval \
	'hc b --json show servers | grep -q "\"state\": \"registered\""'
hc a add map "$(hit b)" "$(addr4 s 1)" >/dev/null
check "A triggers B through S" hc a trigger "$(hit b)"
check "A <-> B established" wait_up a b 20
check "S relayed the I1" ge "$(hc s --json show registrations | jget relayed)" 1
# captured (tcpdump writes each packet at once): the relayed I1 at B, the R1 at A
has() { [ -n "$(tshark -r "$NETNS_TMP/$1.pcap" -Y "hip.packet_type == $2" 2>/dev/null)" ]; }
check "the captures hold the I1 and the R1" wait_for "captured" 10 eval 'has b 1 && has a 2'
kill "$CAP_a" "$CAP_b"; wait "$CAP_a" "$CAP_b" 2>/dev/null

# hipfields NAME FILTER FIELD...: the fields of the HIP packets matching
# FILTER in NAME's capture, one packet a line, ' '-separated; a retransmission
# with the same fields is one line
hipfields() {
	local n=$1 filter=$2 f e=(); shift 2
	for f in "$@"; do e+=(-e "$f"); done
	tshark -r "$NETNS_TMP/$n.pcap" -Y "hip && $filter" -T fields -E separator=/s \
		-E occurrence=a -E aggregator=, "${e[@]}" 2>"$NETNS_TMP/tshark.err" | sort -u
}
v4m() { echo "::ffff:$1"; }    # FROM / VIA_RVS carry IPv4 as IPv4-mapped IPv6
# hexhit NAME: NAME's HIT as tshark prints it (32 hex digits)
hexhit() { python3 -c 'import ipaddress,sys; print(ipaddress.ip_address(sys.argv[1]).packed.hex())' "$(hit "$1")"; }

echo "# the relayed I1 on B's link"
relayed="hip.packet_type == 1 && ip.src == $(addr4 s 2)"
i1=$(hipfields b "$relayed" ip.src ip.dst hip.hit_sndr hip.hit_rcvr hip.type \
	hip.checksum.status hip.tlv_from_address)
echo "    $i1"
check "one I1 from S on B's link (or identical retransmissions)" eq "$(echo "$i1" | grep -c .)" 1
read -r src dst hs hr types csum from <<<"$i1"
check "from S's address to B's (IP addresses rewritten by S)" eq "$src $dst" \
	"$(addr4 s 2) $(addr4 b 2)"
check "A's HITs unchanged (sender A, receiver B)" eq "$hs $hr" "$(hexhit a) $(hexhit b)"
check "DH_GROUP_LIST, then FROM (65498), then RVS_HMAC (65500)" eq "$types" "511,65498,65500"
check "FROM carries A's address" eq "$from" "$(v4m "$(addr4 a 1)")"
check "its HIP checksum is Good for S -> B" eq "$csum" 1
# keyed with the S-B association's integrity key: as long as the HIP_MAC
# of S's R2 to B (its RHASH: SHA-384 for ECDSA HITs, RFC 7401 §5.2.10)
hmac=$(hipfields b "$relayed" hip.tlv.hmac)
mac=$(hipfields b "hip.packet_type == 4 && ip.src == $(addr4 s 2)" hip.tlv.hmac)
echo "    RVS_HMAC $hmac, R2's HIP_MAC $mac"
check "RVS_HMAC is as long as the association's HIP_MAC (32 or 48 bytes)" eval \
	'[ "${#hmac}" = "${#mac}" ] && { [ "${#hmac}" = 64 ] || [ "${#hmac}" = 96 ]; }'

echo "# on A's link: A's I1 to S, B's R1 straight from B"
i1a=$(hipfields a "hip.packet_type == 1" ip.src ip.dst hip.type hip.checksum.status)
echo "    $i1a"
check "A's I1 goes to S, without FROM, checksum Good" eq "$i1a" \
	"$(addr4 a 1) $(addr4 s 1) 511 1"
r1=$(hipfields a "hip.packet_type == 2" ip.src ip.dst hip.hit_sndr hip.hit_rcvr \
	hip.checksum.status hip.tlv_rvs_address hip.type)
echo "    $r1"
check "one R1 on A's link (or identical retransmissions)" eq "$(echo "$r1" | grep -c .)" 1
read -r src dst hs hr csum via types <<<"$r1"
check "from B's address to A's (not through S)" eq "$src $dst" "$(addr4 b 2) $(addr4 a 1)"
check "B's HITs (sender B, receiver A)" eq "$hs $hr" "$(hexhit b) $(hexhit a)"
check "VIA_RVS names S (the relayed I1's source)" eq "$via" "$(v4m "$(addr4 s 2)")"
check "VIA_RVS (65502) is the last parameter, after the signature" eq "${types##*,}" 65502
check "its HIP checksum is Good for B -> A" eq "$csum" 1
# (4.0 warns "Unknown algorithm type" for ECDSA HOST_IDs: severity warn, not error)
bad='_ws.malformed || _ws.expert.severity >= 8388608'
check "tshark finds no malformed packet and no error" eq \
	"$(tshark -r "$NETNS_TMP/a.pcap" -Y "$bad" 2>/dev/null | wc -l) $(tshark -r \
	"$NETNS_TMP/b.pcap" -Y "$bad" 2>/dev/null | wc -l)" "0 0"
[ -n "${TSHARK_RVS_KEEP:-}" ] && cp "$NETNS_TMP"/a.pcap "$NETNS_TMP"/b.pcap "$TSHARK_RVS_KEEP"/
netns_done
