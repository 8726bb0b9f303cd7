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
#   - the larval state the ACQUIRE created (SPI 0) is gone once the SAs are in, so after
#     `hipconf close` the same host's next packet triggers a new ACQUIRE at once (the second
#     round starts from the same side);
#   - `hipconf close` removes the SAs and the pair policies on both sides.
# hip0 (TUN) carries the HITs and the route to 2001:20::/28 as on a real host; without a TUN
# device the HIT goes on lo with a route by hand (the fallback).
# Ownership: a uses the default xfrm_reqid, b another one (hipd.conf). A foreign SA and policy
# (reqid 7) in a and entries with the default reqid in b (another hipd's) survive everything;
# entries with b's reqid left by "a crashed hipd" are removed at start; SIGTERM removes
# everything of hipd's.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

KNAME=hipd-bex KTOOLS="ip tcpdump ping python3"
. "$(dirname "$0")/lib.sh"

REQ_A=1212764160   # HIP_XFRM_REQID_DEFAULT (hipd/datapath/xfrm/xfrm.h)
REQ_B=1212764161   # xfrm_reqid = 0x48495001 in b's hipd.conf
reqid() { if [ "$1" = a ]; then echo $REQ_A; else echo $REQ_B; fi; }
KEYS="enc cbc(aes) 0x000102030405060708090a0b0c0d0e0f auth-trunc hmac(sha256) 0x000102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f 128"

netns_host a
netns_host b
netns_link a b 0
kernel_esp_probe a

# Someone else's entries in a; stale ones with hipd's reqid in b.
nsx a ip -batch - <<EOF || exit 1
xfrm policy add src 2001:db8::1/128 dst 2001:db8::2/128 dir out tmpl src 192.0.2.1 dst 192.0.2.9 proto esp reqid 7 mode beet
xfrm state add src 192.0.2.1 dst 192.0.2.9 proto esp spi 0x777 reqid 7 mode beet $KEYS
EOF
nsx b ip -batch - <<EOF || exit 1
xfrm policy add src 2001:20::1/128 dst 2001:20::2/128 dir out tmpl src 192.0.2.2 dst 192.0.2.8 proto esp reqid $REQ_B mode beet
xfrm state add src 192.0.2.2 dst 192.0.2.8 proto esp spi 0x888 reqid $REQ_B mode beet $KEYS
xfrm policy add src 2001:20::3/128 dst 2001:20::4/128 dir out tmpl src 192.0.2.2 dst 192.0.2.7 proto esp reqid $REQ_A mode beet
xfrm state add src 192.0.2.2 dst 192.0.2.7 proto esp spi 0x999 reqid $REQ_A mode beet $KEYS
EOF

hipd_launch a "datapath = kernel"
hipd_launch b "datapath = kernel" "xfrm_reqid = 0x48495001"
hipd_wait a b || exit 1
HA=$(hit a)
HB=$(hit b)
echo "# a $HA, b $HB"

# (each log: grep -q over two files succeeds when either matches)
check "both hipd run the kernel datapath" eval \
	'grep -q "datapath: kernel" "$NETNS_TMP/a/hipd.log" && grep -q "datapath: kernel" "$NETNS_TMP/b/hipd.log"'
check "b logs its reqid 0x48495001" grep -q "reqid 0x48495001" "$NETNS_TMP/b/hipd.log"
check "b removed the stale SA and policy with its reqid" eval \
	"! nsx b ip xfrm state | grep -q 0x00000888 && ! nsx b ip xfrm policy | grep -q 2001:20::1/128"
check "b left the entries with the default reqid (another hipd's)" eval \
	"nsx b ip xfrm state | grep -q 'spi 0x00000999 reqid $REQ_A' && nsx b ip xfrm policy | grep -q 2001:20::4/128"
check "net.core.xfrm_larval_drop is 0 in a" eq "$(nsx a cat /proc/sys/net/core/xfrm_larval_drop)" 0

# hip0 holds the HIT and the route to the HIT prefix; the fallback (no TUN device): by hand.
if [ -c /dev/net/tun ]; then
	check "hip0 with the local HIT on both" eval \
		"nsx a ip -6 addr show dev hip0 | grep -q $HA/128 && nsx b ip -6 addr show dev hip0 | grep -q $HB/128"
	check "2001:20::/28 routed to hip0 on both" eval \
		"nsx a ip -6 route show 2001:20::/28 | grep -q 'dev hip0' && nsx b ip -6 route show 2001:20::/28 | grep -q 'dev hip0'"
fi
for n in a b; do
	if ! nsx $n ip link show hip0 >/dev/null 2>&1; then
		echo "# $n: no hip0: the HIT on lo and the route by hand"
		nsx $n ip -batch - <<EOF
addr add $(hit $n)/128 dev lo nodad
route add 2001:20::/28 dev v${n}0 src $(hit $n)
EOF
	fi
done

# our_spis NAME: SPIs of the SAs with hipd's reqid (no larval ACQUIRE states), sorted.
our_spis() {
	nsx "$1" ip xfrm state | grep -o "proto esp spi 0x[0-9a-f]* reqid $(reqid "$1") " |
		awk '$4 != "0x00000000" { print $4 }' | sort | xargs
}
# larvals NAME: how many larval (ACQUIRE, SPI 0) states carry hipd's reqid.
larvals() { nsx "$1" ip xfrm state | grep -c "proto esp spi 0x00000000 reqid $(reqid "$1") "; }
# sas_match NAME PEER_HIT: exactly our SAs (the HIT pair, and the LSI pair when there is one),
# with the SPIs of hipconf, packets on each of the HIT pair's.
sas_match() {
	local in out sin sout lsis="" want got
	read -r in out sin sout <<<"$(ha_get "$1" "$2" spi_in spi_out lsi_spi_in lsi_spi_out)"
	# the LSI pair (D-22) beside the HIT pair: its SAs carry no traffic here
	if [ "${sout:-0}" != 0 ]; then lsis=$(printf '0x%08x 0x%08x' "$sin" "$sout"); fi
	want=$(printf '0x%08x\n0x%08x\n' "$in" "$out" | cat - <(tr ' ' '\n' <<<"$lsis") |
		grep . | sort | xargs)
	got=$(our_spis "$1")
	echo "kernel: $got, hipconf: $want"
	[ "$got" = "$want" ] || return 1
	nsx "$1" ip -s xfrm state | python3 -c '
import re, sys
t = sys.stdin.read()
bad = 0
n = 0
for blk in re.split(r"\n(?=src )", t):
    m = re.search(r"spi (0x[0-9a-f]+)(?:\(\d+\))? reqid '"$(reqid "$1")"'(?:\(0x[0-9a-f]+\))? ", blk)
    if not m or m.group(1) == "0x00000000":
        continue
    p = re.search(r"lifetime current:\s*\n\s*(\d+)\(bytes\), (\d+)\(packets\)", blk)
    n += 1
    print(m.group(1), "packets", p.group(2) if p else "?")
    if m.group(1) in sys.argv[1:]:
        bad |= "flag esn" not in blk
        continue
    if not p or int(p.group(2)) == 0 or "flag esn" not in blk:
        bad = 1
# (ip -s prints "spi 0x%08x(%u) reqid %u(0x%08x)": a pattern that matched nothing would pass)
print(n, "SAs of ours")
sys.exit(bad or n != 2 + len(sys.argv[1:]))' $lsis
}
# our_policies NAME: how many policies carry hipd's reqid.
our_policies() { nsx "$1" ip xfrm policy | grep -c "reqid $(reqid "$1") "; }
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
	check "$i: exactly our SAs, SPIs as hipconf shows, counters moved, ESN" \
		sas_match "$i" "$hr"
	check "$r: exactly our SAs, SPIs as hipconf shows, counters moved, ESN" \
		sas_match "$r" "$hi"
	check "$i and $r: HIT and LSI pair + ACQUIRE policies (6 with our reqid)" \
		eq "$(our_policies "$i") $(our_policies "$r")" "6 6"
	check "$i: the ACQUIRE's larval state is gone (none with our reqid)" eq "$(larvals "$i")" 0
	check "wire: ESP for HIT traffic, no HIT in any byte outside HIP control packets" wire_ok "$pa" "$pb"
	check "/proc/net/xfrm_stat all 0 in a" stat_zero a
	check "/proc/net/xfrm_stat all 0 in b" stat_zero b
	check "hipconf close accepted" hc "$i" close "$hr"
	check "close: $r's SAs are gone" wait_for "no SAs in $r" 10 eq "$(our_spis "$r")" ""
	check "close: $i's SAs are gone" wait_for "no SAs in $i" 10 eq "$(our_spis "$i")" ""
	check "close: only the ACQUIRE policies (HIT, LSI) remain" \
		eq "$(our_policies "$i") $(our_policies "$r")" "2 2"
}

round 6 a b
# a starts again at once: its larval state from the first ACQUIRE is gone, else it would live on
# for net.core.xfrm_acq_expires (30 s) and hold back a new ACQUIRE from a's HIT.
round 4 a b

check "the foreign SA and policy are still there" eval \
	"nsx a ip xfrm state | grep -q 'spi 0x00000777 reqid 7' && nsx a ip xfrm policy | grep -q 2001:db8::2/128"
hipd_stop a
rc_a=$?
hipd_stop b
rc_b=$?
check "both hipd exit 0 on SIGTERM" eq "$rc_a $rc_b" "0 0"
check "after SIGTERM: no SA, larval state or policy of hipd's is left in a" \
	eq "$(our_spis a)/$(larvals a)/$(our_policies a)" "/0/0"
check "after SIGTERM: nothing of hipd's in b" eq "$(our_spis b)/$(larvals b)/$(our_policies b)" "/0/0"
check "after SIGTERM: b's entries with the default reqid survive" eval \
	"nsx b ip xfrm state | grep -q 'spi 0x00000999 reqid $REQ_A' && nsx b ip xfrm policy | grep -q 2001:20::4/128"
check "after SIGTERM: the foreign SA and policy survive" eval \
	"nsx a ip xfrm state | grep -q 'spi 0x00000777 reqid 7' && nsx a ip xfrm policy | grep -q 2001:db8::2/128"
check "no sanitizer report in the hipd logs" sanitizer_clean
summary hipd-bex
