#!/bin/sh
# tshark.sh - check our wire format with an independent dissector.
#
# Runs tools/hip-pktgen for IPv6 and IPv4 and dissects the captures with
# tshark (Wireshark 4.0, docs/protocol.md §11): 8 HIP packets of types 1 2 3 4 16 17 18
# 19, version 2, checksum Good, and each packet's parameter types in order
# (hip.type, W-07). Only fields that 4.0 dissects correctly are asserted:
# not HOST_ID internals, not hip.tlv.sig_alg (docs/protocol.md §11).
#
# Usage: tests/tshark.sh BUILD_DIR
set -eu

if [ $# -ne 1 ]; then
	echo "usage: $0 BUILD_DIR" >&2
	exit 2
fi
pktgen="$1/tools/hip-pktgen"
if [ ! -x "$pktgen" ]; then
	echo "tshark: $pktgen not built (make tools/hip-pktgen)" >&2
	exit 2
fi
if ! command -v tshark >/dev/null 2>&1; then
	echo "tshark: tshark not installed, skipped" >&2
	exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# packet type, version, checksum status, parameter types (docs/protocol.md §1 order)
expected_params() {
	cat <<'EOF'
1 2 1 511
2 2 1 129,257,511,513,579,705,715,2049,4095,61633
3 2 1 65,129,321,513,579,641,2049,4095,61505,61697
4 2 1 65,61569,61697
16 2 1 65,193,385,61505,61697
17 2 1 832,61697
18 2 1 897,61505,61697
19 2 1 961,61505,61697
EOF
}

# Values the 4.0 dissector decodes reliably, as hip-pktgen sets them
# (';'-separated): packet type, PUZZLE K, SOLUTION K, KEYMAT index
# (2 * (16 + 48) = 128, A-8), DH group (P-256), HIT suites, HIP ciphers, ESP
# suites, SEQ Update ID, NOTIFY type, locator type.
expected_values() {
	cat <<'EOF'
1;;;;;;;;;;
2;10;;;7;2,1;2,4;13,8,9;;;
3;;10;0x0080;7;;2;13;;;
4;;;0x0080;;;;;;;
16;;;0x0080;;;;;0x00000000;;1
17;;;;;;;;;7;
18;;;;;;;;;;
19;;;;;;;;;;
EOF
}

fail() {
	echo "tshark: FAIL ($1): $2" >&2
	shift 2
	for f in "$@"; do
		echo "--- $f" >&2
		cat "$f" >&2
	done
	exit 1
}

total=0
for fam in 6 4; do
	cap="$tmp/hip$fam.pcap"
	"$pktgen" -"$fam" -o "$cap" || fail "IPv$fam" "hip-pktgen failed"

	tshark -r "$cap" -Y hip -T fields -e hip.packet_type -e hip.version \
		-e hip.checksum.status -e hip.type -E separator=/s \
		>"$tmp/params$fam.txt" 2>"$tmp/err$fam.txt" ||
		fail "IPv$fam" "tshark failed" "$tmp/err$fam.txt"
	n=$(wc -l <"$tmp/params$fam.txt")
	[ "$n" -eq 8 ] || fail "IPv$fam" "expected 8 HIP packets, got $n" "$tmp/params$fam.txt"
	types=$(cut -d' ' -f1 "$tmp/params$fam.txt" | tr '\n' ' ')
	[ "$types" = "1 2 3 4 16 17 18 19 " ] ||
		fail "IPv$fam" "packet types are '$types', want '1 2 3 4 16 17 18 19'"
	awk '$2 != 2 { exit 1 }' "$tmp/params$fam.txt" ||
		fail "IPv$fam" "a packet is not version 2" "$tmp/params$fam.txt"
	awk '$3 != 1 { exit 1 }' "$tmp/params$fam.txt" ||
		fail "IPv$fam" "a HIP checksum is not Good (status 1)" "$tmp/params$fam.txt"
	expected_params >"$tmp/want$fam.txt"
	diff -u "$tmp/want$fam.txt" "$tmp/params$fam.txt" >"$tmp/diff$fam.txt" ||
		fail "IPv$fam" "parameter types differ (want, got)" "$tmp/diff$fam.txt"

	tshark -r "$cap" -Y hip -T fields -e hip.packet_type -e hip.tlv_puzzle_k \
		-e hip.tlv_solution_k -e hip.tlv_esp_info_key_index -e hip.tlv.dh_group_id \
		-e hip.tlv.hit_suite_id -e hip.tlv.cipher_id -e hip.tlv.trans_id \
		-e hip.tlv_seq_update_id -e hip.tlv.notification_type -e hip.tlv.locator_type \
		-E 'separator=;' >"$tmp/values$fam.txt" 2>"$tmp/err$fam.txt" ||
		fail "IPv$fam" "tshark failed" "$tmp/err$fam.txt"
	expected_values >"$tmp/wantv$fam.txt"
	diff -u "$tmp/wantv$fam.txt" "$tmp/values$fam.txt" >"$tmp/diffv$fam.txt" ||
		fail "IPv$fam" "field values differ (want, got)" "$tmp/diffv$fam.txt"

	if [ "$fam" = 4 ]; then
		st=$(tshark -o ip.check_checksum:TRUE -r "$cap" -T fields \
			-e ip.checksum.status 2>/dev/null | sort -u | tr '\n' ' ')
		[ "$st" = "1 " ] || fail "IPv4" "outer IPv4 header checksum status '$st'"
	fi
	total=$((total + n))
done

echo "tshark: $total packets checked"
