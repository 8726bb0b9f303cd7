#!/bin/bash
# tests/kernel/hipd-bex.sh - hipd on the kernel datapath (XFRM, ESP BEET) between two namespaces.
#
# Run inside the ESP VM as root, with a build made on the host:
#   BUILD=$PWD/build-X tools/kvm/run-in-esp-vm.sh 'sh tests/kernel/hipd-bex.sh'
# Exit: 0 passed, 1 failed, 77 skipped (no root, no ESP in this kernel, no build).
#
# Two hipd (datapath = kernel), a veth between them. Per outer family (IPv6, then IPv4):
#   - the first packet to a never-contacted HIT (ping -c 1) makes the kernel send ACQUIRE, hipd
#     runs the base exchange and the packet, held by the kernel meanwhile, is answered;
#   - `ip xfrm state` holds exactly our 2 SAs on each side, with the SPIs hipconf shows, and
#     their counters moved; `tcpdump -Q out` on both veth ends sees ESP and HIP only, no packet
#     carrying a HIT; /proc/net/xfrm_stat is all 0;
#   - `hipconf close` removes the SAs and the pair policies on both sides.
# Ownership: a foreign SA and policy (reqid 7) survive everything; entries with hipd's reqid left
# by "a crashed hipd" are removed at start; SIGTERM removes everything of hipd's.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

skip() { echo "hipd-bex: SKIPPED: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (run it through tools/kvm/run-in-esp-vm.sh)"
for t in ip tcpdump ping python3; do
	command -v $t >/dev/null 2>&1 || skip "$t not found"
done
. "$(dirname "$0")/../netns/lib.sh"
[ -x "$HIPD" ] && [ -x "$HIPCONF" ] || skip "no hipd/hipconf under BUILD=$BUILD"
modprobe -q -a xfrm_user esp4 esp6 veth authenc authencesn echainiv seqiv gcm ctr \
	ghash_clmulni_intel 2>/dev/null

REQID=1212764160   # HIP_XFRM_REQID_DEFAULT (hipd/xfrm.h)
KEYS="enc cbc(aes) 0x000102030405060708090a0b0c0d0e0f auth-trunc hmac(sha256) 0x000102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f 128"

netns_host a
netns_host b
netns_link a b 0
nsx a ip xfrm state add src 192.0.2.1 dst 192.0.2.2 proto esp spi 0x1 $KEYS 2>/dev/null ||
	skip "this kernel takes no ESP SA; use make check-kernel"
nsx a ip xfrm state flush

# Someone else's entries in a; stale ones with hipd's reqid in b.
nsx a ip -batch - <<EOF || exit 1
xfrm policy add src 2001:db8::1/128 dst 2001:db8::2/128 dir out tmpl src 192.0.2.1 dst 192.0.2.9 proto esp reqid 7 mode beet
xfrm state add src 192.0.2.1 dst 192.0.2.9 proto esp spi 0x777 reqid 7 mode beet $KEYS
EOF
nsx b ip -batch - <<EOF || exit 1
xfrm policy add src 2001:20::1/128 dst 2001:20::2/128 dir out tmpl src 192.0.2.2 dst 192.0.2.8 proto esp reqid $REQID mode beet
xfrm state add src 192.0.2.2 dst 192.0.2.8 proto esp spi 0x888 reqid $REQID mode beet $KEYS
EOF

hipd_launch a "datapath = kernel"
hipd_launch b "datapath = kernel"
hipd_wait a b || exit 1
HA=$(hit a)
HB=$(hit b)
echo "# a $HA, b $HB"

check "both hipd run the kernel datapath" grep -q "datapath: kernel" \
	"$NETNS_TMP/a/hipd.log" "$NETNS_TMP/b/hipd.log"
check "b removed the stale SA and policy with its reqid" eval \
	"! nsx b ip xfrm state | grep -q 0x00000888 && ! nsx b ip xfrm policy | grep -q 2001:20::1/128"
check "net.core.xfrm_larval_drop is 0 in a" eq "$(nsx a cat /proc/sys/net/core/xfrm_larval_drop)" 0

# The HIT on an interface and the HIT prefix routed (hip0 does both once tun.c is there).
for n in a b; do
	if ! nsx $n ip link show hip0 >/dev/null 2>&1; then
		nsx $n ip -batch - <<EOF
addr add $(hit $n)/128 dev lo nodad
route add 2001:20::/28 dev v${n}0 src $(hit $n)
EOF
	fi
done

# our_spis NAME: SPIs of the SAs with hipd's reqid (no larval ACQUIRE states), sorted.
our_spis() {
	nsx "$1" ip xfrm state | grep -o "proto esp spi 0x[0-9a-f]* reqid $REQID " |
		awk '$4 != "0x00000000" { print $4 }' | sort | xargs
}
# sas_match NAME PEER_HIT: exactly 2 SAs of ours, with the SPIs of hipconf, packets on each.
sas_match() {
	local in out want got
	read -r in out <<<"$(ha_get "$1" "$2" spi_in spi_out)"
	want=$(printf '0x%08x\n0x%08x\n' "$in" "$out" | sort | xargs)
	got=$(our_spis "$1")
	echo "kernel: $got, hipconf: $want"
	[ "$got" = "$want" ] || return 1
	nsx "$1" ip -s xfrm state | python3 -c '
import re, sys
t = sys.stdin.read()
bad = 0
for blk in re.split(r"\n(?=src )", t):
    m = re.search(r"spi (0x[0-9a-f]+) reqid '"$REQID"' ", blk)
    if not m or m.group(1) == "0x00000000":
        continue
    p = re.search(r"lifetime current:\s*\n\s*(\d+)\(bytes\), (\d+)\(packets\)", blk)
    print(m.group(1), "packets", p.group(2) if p else "?")
    if not p or int(p.group(2)) == 0 or "flag esn" not in blk:
        bad = 1
sys.exit(bad)'
}
# our_policies NAME: how many policies carry hipd's reqid.
our_policies() { nsx "$1" ip xfrm policy | grep -c "reqid $REQID "; }
stat_zero() { nsx "$1" cat /proc/net/xfrm_stat | awk '$2 != 0 { print; bad = 1 } END { exit bad }'; }
hit_bytes() { python3 -c 'import socket,sys; print("".join("\\x%02x" % b for b in socket.inet_pton(socket.AF_INET6, sys.argv[1])))' "$1"; }

cap_start() {  # NAME DEV FILE
	# not through nsx: $! must be tcpdump itself (ip netns exec execs it)
	ip netns exec "$(ns_name "$1")" tcpdump -n -i "$2" -Q out --immediate-mode -U -s 0 \
		-w "$3" 2>"$3.err" &
	echo $! >"$3.pid"
	wait_for "tcpdump on $2" 10 grep -q "listening on" "$3.err"
}
cap_stop() { kill -INT "$(cat "$1.pid")"; wait "$(cat "$1.pid")" 2>/dev/null; }
# wire_ok PCAP...: ESP seen, no HIT in any byte, no plaintext echo.
wire_ok() {
	local txt esp
	txt=$(tcpdump -n -r "$1" 2>/dev/null; tcpdump -n -r "$2" 2>/dev/null)
	esp=$(grep -c "ESP(spi=" <<<"$txt")
	echo "$esp ESP packets"
	[ "$esp" -ge 8 ] || { echo "$txt" | head -20; return 1; }
	if grep -q "ICMP6, echo" <<<"$txt"; then echo "plaintext echo:"; grep "ICMP6, echo" <<<"$txt"; return 1; fi
	# HIP control packets (protocol 139) carry the HITs in their header by design.
	tcpdump -r "$1" -w "$1.data" 'not (ip proto 139 or ip6 proto 139)' 2>/dev/null &&
		tcpdump -r "$2" -w "$2.data" 'not (ip proto 139 or ip6 proto 139)' 2>/dev/null ||
		{ echo "tcpdump filter failed"; return 1; }
	echo "$(tcpdump -n -r "$1.data" 2>/dev/null | wc -l) + $(tcpdump -n -r "$2.data" 2>/dev/null | wc -l) non-HIP packets"
	if LC_ALL=C grep -qaP "$(hit_bytes "$HA")|$(hit_bytes "$HB")" "$1.data" "$2.data"; then
		echo "a HIT appears in the bytes of a non-HIP packet"; return 1
	fi
}

# round FAMILY INITIATOR RESPONDER
round() {
	local fam=$1 i=$2 r=$3 hi hr pa pb
	hi=$(hit "$i") hr=$(hit "$r")
	echo "# IPv$fam outer, $i starts by sending traffic"
	hc "$i" del map "$hr" >/dev/null 2>&1
	hc "$r" del map "$hi" >/dev/null 2>&1
	hc "$i" add map "$hr" "$(addr$fam "$r" 0)" >/dev/null
	hc "$r" add map "$hi" "$(addr$fam "$i" 0)" >/dev/null
	pa=$NETNS_TMP/v$fam-a.pcap pb=$NETNS_TMP/v$fam-b.pcap
	cap_start a va0 "$pa" && cap_start b vb0 "$pb"
	check "first packet to a never-contacted HIT is answered (ping -c 1)" \
		nsx "$i" ping -n -c 1 -W 20 "$hr"
	check "association established on both sides" wait_up "$i" "$r" 10
	check "more pings $i -> $r" nsx "$i" ping -n -q -c 3 -i 0.2 -W 5 "$hr"
	check "pings $r -> $i" nsx "$r" ping -n -q -c 2 -i 0.2 -W 5 "$hi"
	cap_stop "$pa"
	cap_stop "$pb"
	check "$i: exactly 2 SAs of ours, SPIs as hipconf shows, counters moved, ESN" \
		sas_match "$i" "$hr"
	check "$r: exactly 2 SAs of ours, SPIs as hipconf shows, counters moved, ESN" \
		sas_match "$r" "$hi"
	check "$i and $r: pair + ACQUIRE policies (3 with our reqid)" \
		eq "$(our_policies "$i") $(our_policies "$r")" "3 3"
	check "wire: ESP for HIT traffic, no HIT in any byte outside HIP control packets" wire_ok "$pa" "$pb"
	check "/proc/net/xfrm_stat all 0 in a" stat_zero a
	check "/proc/net/xfrm_stat all 0 in b" stat_zero b
	check "hipconf close accepted" hc "$i" close "$hr"
	check "close: $r's SAs are gone" wait_for "no SAs in $r" 10 eq "$(our_spis "$r")" ""
	check "close: $i's SAs are gone" wait_for "no SAs in $i" 10 eq "$(our_spis "$i")" ""
	check "close: only the ACQUIRE policies remain" \
		eq "$(our_policies "$i") $(our_policies "$r")" "1 1"
}

round 6 a b
# b starts this time: a's larval state from the first ACQUIRE lives on for
# net.core.xfrm_acq_expires (30 s) and holds back a new ACQUIRE for that flow.
round 4 b a

check "the foreign SA and policy are still there" eval \
	"nsx a ip xfrm state | grep -q 'spi 0x00000777 reqid 7' && nsx a ip xfrm policy | grep -q 2001:db8::2/128"
hipd_stop a
rc_a=$?
hipd_stop b
rc_b=$?
check "both hipd exit 0 on SIGTERM" eq "$rc_a $rc_b" "0 0"
# (larval ACQUIRE states, SPI 0, expire by themselves after xfrm_acq_expires)
check "after SIGTERM: no SA or policy of hipd's is left in a" \
	eq "$(our_spis a)/$(our_policies a)" "/0"
check "after SIGTERM: nothing of hipd's in b" eq "$(our_spis b)/$(our_policies b)" "/0"
check "after SIGTERM: the foreign SA and policy survive" eval \
	"nsx a ip xfrm state | grep -q 'spi 0x00000777 reqid 7' && nsx a ip xfrm policy | grep -q 2001:db8::2/128"
check "no sanitizer report in the hipd logs" sanitizer_clean
echo "hipd-bex: $((NETNS_CHECKS - NETNS_FAILED)) passed, $NETNS_FAILED failed"
[ "$NETNS_FAILED" -eq 0 ]
