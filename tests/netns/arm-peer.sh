#!/bin/bash
# tests/netns/arm-peer.sh - a cross-built ARM hipd (armhf or arm64, run by
# qemu-user through binfmt_misc) against the native amd64 hipd (issue 6):
# host a runs HIPD_ARM, host b the hipd of BUILD; default configuration on
# both (datapath auto: under qemu-user there is no NETLINK_XFRM, so the ARM
# hipd takes the userspace datapath; the native one has no kernel ESP here).
#   - the ARM hipd starts, answers the native hipconf (the control protocol
#     is the same on both architectures);
#   - IPv4 locators, ARM side initiates: ping6 to the peer HIT triggers the
#     base exchange, both sides ESTABLISHED with matching SPIs, ping both
#     ways, TCP both ways with a SHA-256 compare, the veth carries only HIP
#     and ESP; CLOSE;
#   - IPv6 locators, native side initiates: the same base exchange and ping;
#   - resident memory of both daemons, idle and after the traffic (below).
# tests/system/arm.sh runs it with the ARM build it makes (the packaging
# stage of tests/run.sh); in the plain netns stage HIPD_ARM is unset and the
# scenario says it is skipped.
#
# Memory under emulation: the VmRSS of an emulated process is qemu's (its
# translated code, its own heap and the guest together). qemu-user is told
# where to put the guest (QEMU_GUEST_BASE; for a 64-bit guest also
# QEMU_RESERVED_VA: a 4 GiB window at a fixed host address), so the guest's resident pages are the Rss of the
# mappings of /proc/PID/smaps inside that window: hipd's own binary, the
# ARM libraries, its heap and stacks, as a real ARM kernel would count them.
# The native hipd's figure is the same sum over all of its mappings (VmRSS).
#
# Environment: HIPD_ARM (the ARM hipd), BUILD (the native build), ARM_MB
# (MB per TCP transfer, default 4).
. "$(dirname "$0")/lib.sh"
NAME=arm-peer
ARM_MB=${ARM_MB:-4}
GUEST_BASE=0x100000000000
GUEST_SIZE=0x100000000

skip() {
	echo "$NAME: SKIP: $*"
	summary "$NAME" "(skipped)"
	exit 0
}
[ -n "${HIPD_ARM:-}" ] ||
	skip "HIPD_ARM is not set (tests/system/arm.sh runs this scenario with its cross-built hipd)"
[ -x "$HIPD_ARM" ] || skip "no ARM hipd at $HIPD_ARM (tests/system/arm.sh builds it)"
case $(file -b "$HIPD_ARM") in
*"ARM aarch64"*) ARCH=arm64; QEMU=qemu-aarch64;;
*ARM*) ARCH=armhf; QEMU=qemu-arm;;
*) skip "$HIPD_ARM is not an ARM program";;
esac
[ "$(head -1 "/proc/sys/fs/binfmt_misc/$QEMU" 2>/dev/null)" = enabled ] ||
	skip "binfmt_misc cannot run $ARCH programs ($QEMU-static with binfmt-support:" \
		"tools/install-deps.sh --packaging)"
for t in tcpdump tshark python3; do command -v $t >/dev/null || skip "needs $t"; done
"$HIPD_ARM" --version >/dev/null 2>&1 || skip "$HIPD_ARM does not run under $QEMU"
# Without a fixed guest window the guest's pages cannot be told apart. A
# 32-bit guest gets a 4 GiB window anyway; a 64-bit one is given one.
RVA=""
[ "$ARCH" = arm64 ] && RVA=$GUEST_SIZE
if QEMU_GUEST_BASE=$GUEST_BASE QEMU_RESERVED_VA=$RVA "$HIPD_ARM" --version >/dev/null 2>&1; then
	export QEMU_GUEST_BASE=$GUEST_BASE
	[ -z "$RVA" ] || export QEMU_RESERVED_VA=$RVA
else
	GUEST_BASE=""
fi

cap_start() { # NAME DEV FILE
	ip netns exec "$(ns_name "$1")" tcpdump -n -i "$2" --immediate-mode -U -s 256 \
		-w "$3" 2>"$3.err" &
	echo $! >"$3.pid"
	wait_for "tcpdump on $2" 5 grep -q "listening on" "$3.err"
}
cap_stop() { kill -INT "$(cat "$1.pid")"; wait "$(cat "$1.pid")" 2>/dev/null; }
# wire_clean PCAP: ESP both ways (a 4 MB transfer is thousands of packets
# each way, data one way and ACKs the other) and HIP, nothing else but ARP / ND / MLD,
# no HIT-addressed packet.
NOISE='arp || (icmpv6.type >= 130 && icmpv6.type <= 143)'
wire_clean() {
	local esp hip other hits
	local esp_ab esp_ba hip other hits
	esp_ab=$(tshark -n -r "$1" -Y 'esp && ip.src == 192.0.2.1' 2>/dev/null | wc -l)
	esp_ba=$(tshark -n -r "$1" -Y 'esp && ip.src == 192.0.2.2' 2>/dev/null | wc -l)
	hip=$(tshark -n -r "$1" -Y 'ip.proto == 139 || ipv6.nxt == 139' 2>/dev/null | wc -l)
	other=$(tshark -n -r "$1" -Y "!(ip.proto == 50 || ipv6.nxt == 50 || ip.proto == 139 ||
		ipv6.nxt == 139 || $NOISE)" 2>/dev/null | wc -l)
	hits=$(tshark -n -r "$1" -Y 'ipv6.addr == 2001:20::/28' 2>/dev/null | wc -l)
	echo "$(basename "$1"): ESP a->b $esp_ab, b->a $esp_ba, HIP $hip, other $other," \
		"HIT-addressed $hits"
	[ "$esp_ab" -ge 100 ] && [ "$esp_ba" -ge 100 ] && [ "$hip" -ge 4 ] && [ "$other" -eq 0 ] &&
		[ "$hits" -eq 0 ]
}

# rss_kb PID [BASE SIZE]: "RSS ANON" in kB, the Rss and Anonymous fields
# summed over the mappings of /proc/PID/smaps (inside [BASE, BASE + SIZE)
# when given: the emulated guest).
rss_kb() {
	python3 - "$@" <<-'EOF'
	import sys
	pid = sys.argv[1]
	lo = int(sys.argv[2], 16) if len(sys.argv) > 2 else 0
	hi = lo + int(sys.argv[3], 16) if len(sys.argv) > 3 else 1 << 64
	rss = anon = 0
	inside = False
	for line in open("/proc/%s/smaps" % pid):
	    f = line.split()
	    if "-" in f[0] and not f[0].endswith(":"):
	        s, e = (int(x, 16) for x in f[0].split("-"))
	        inside = s >= lo and e <= hi
	    elif inside and f[0] == "Rss:":
	        rss += int(f[1])
	    elif inside and f[0] == "Anonymous:":
	        anon += int(f[1])
	print(rss, anon)
	EOF
}
# mem_line LABEL: both daemons' figures, one "#" line each.
mem_line() {
	local ra="" rb qemu_rss
	rb=$(rss_kb "$(hipd_pid b)")
	qemu_rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$(hipd_pid a)/status")
	if [ -n "$GUEST_BASE" ]; then
		ra=$(rss_kb "$(hipd_pid a)" "$GUEST_BASE" "$GUEST_SIZE")
		echo "# RSS $1: $ARCH hipd ${ra% *} kB (anonymous ${ra#* } kB; the guest's pages," \
			"of $qemu_rss kB for all of $QEMU); amd64 hipd ${rb% *} kB (anonymous ${rb#* } kB)"
	else
		echo "# RSS $1: $ARCH hipd n/a ($QEMU takes no fixed guest base here; $qemu_rss kB for" \
			"all of $QEMU); amd64 hipd ${rb% *} kB (anonymous ${rb#* } kB)"
	fi
	[ "${ra:-1}" != "0 0" ] && [ "${rb% *}" -gt 0 ]
}
# show_mem LABEL: the memory figures, as a check and on stdout.
show_mem() { check "memory figures ($1)" mem_line "$1"; grep '^# RSS' "$NETNS_TMP/check.out"; }

ping_ok() { nsx "$1" ping6 -c "${3:-1}" -i 0.2 -W 5 "$(hit "$2")"; }

netns_host a b
netns_link a b 0
HIPD=$HIPD_ARM hipd_launch a        # (for this call only)
hipd_launch b
check "the $ARCH hipd starts under $QEMU and answers the amd64 hipconf" hipd_wait a
check "the amd64 hipd starts" hipd_wait b
check "the $ARCH hipd is emulated: its pid is $QEMU's" eval \
	"readlink /proc/$(hipd_pid a)/exe | grep -q $QEMU"
grep -h "datapath: " "$NETNS_TMP/a/hipd.log" | head -2 | sed "s/^/# $ARCH: /"
sleep 1
show_mem idle

echo "# IPv4 locators, the $ARCH hipd initiates"
map a b 0 4; map b a 0 4
cap_start a va0 "$NETNS_TMP/a4.pcap"
check "IPv4: ping6 $ARCH -> amd64 HIT triggers the BEX and gets through" ping_ok a b
check "IPv4: both sides up, SPIs match" eval "wait_up a b 20 && spis_match a b"
grep -h "base exchange with .* completed" "$NETNS_TMP/a/hipd.log" | tail -1 | sed "s/^<.>/# $ARCH: /"
check "IPv4: ping amd64 -> $ARCH" ping_ok b a 3
check "IPv4: $ARM_MB MB over TCP $ARCH -> amd64, SHA-256 equal" tcp_transfer a b $((ARM_MB << 20))
check "IPv4: $ARM_MB MB over TCP amd64 -> $ARCH, SHA-256 equal" tcp_transfer b a $((ARM_MB << 20))
cap_stop "$NETNS_TMP/a4.pcap"
check "IPv4: the veth carries only HIP and ESP, no HIT-addressed packet" \
	wire_clean "$NETNS_TMP/a4.pcap"
show_mem "after the BEX and $((2 * ARM_MB)) MB of ESP"
# Closed from the amd64 side, which then starts over from UNASSOCIATED
# with only the IPv6 locator mapped (the ARM side, CLOSED, answers).
check "IPv4: hipconf close on the amd64 side" hc b close "$(hit a)"
check "IPv4: the association is gone on the amd64 side" wait_for "b closed" 10 no_ha b a
check "IPv4: and closed on the $ARCH side" wait_for "a closed" 10 eval \
	"state_is a b CLOSED none"

echo "# IPv6 locators, the amd64 hipd initiates"
hc a del map "$(hit b)" >/dev/null; hc b del map "$(hit a)" >/dev/null
map a b 0 6; map b a 0 6
check "IPv6: ping6 amd64 -> $ARCH HIT (new BEX over IPv6)" ping_ok b a 2
check "IPv6: both sides up" eval "wait_up b a 20"
check "IPv6: the association uses the IPv6 locators" eq "$(ha_get a "$(hit b)" peer_locator)" fd00::2
check "IPv6: ping $ARCH -> amd64" ping_ok a b 3
netns_done
