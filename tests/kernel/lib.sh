# tests/kernel/lib.sh - sourced by the kernel scenarios (tests/kernel/*.sh), which set KNAME
# (their name) and KTOOLS (the commands they need) first: the skip rules (exit 77 without
# root, a tool or the build), tests/netns/lib.sh, the ESP, BEET and TUN modules, and
# kernel_esp_probe. run-all.sh does not run this file.
skip() { echo "$KNAME: SKIPPED: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (run it through tools/kvm/run-in-esp-vm.sh)"
for t in $KTOOLS; do
	command -v "$t" >/dev/null 2>&1 || skip "$t not found"
done
. "$(dirname "${BASH_SOURCE[0]}")/../netns/lib.sh"
[ -x "$HIPD" ] && [ -x "$HIPCONF" ] || skip "no hipd/hipconf under BUILD=$BUILD"
modprobe -q -a xfrm_user esp4 esp6 veth tun authenc authencesn echainiv seqiv gcm ctr \
	ghash_clmulni_intel 2>/dev/null
# hip0 needs the TUN character device (10:200; opening it loads the module).
[ -c /dev/net/tun ] || { mkdir -p /dev/net && mknod /dev/net/tun c 10 200; } 2>/dev/null

# kernel_esp_probe NS: skip unless this kernel installs an ESP SA (tried in namespace NS,
# which is left without any).
kernel_esp_probe() {
	nsx "$1" ip xfrm state add src 192.0.2.1 dst 192.0.2.2 proto esp spi 0x1 enc "cbc(aes)" \
		0x000102030405060708090a0b0c0d0e0f auth-trunc "hmac(sha256)" \
		0x000102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f 128 \
		2>/dev/null || skip "this kernel takes no ESP SA; use make check-kernel"
	nsx "$1" ip xfrm state flush
}

# kernel_dual_nat_topology: dual_nat_topology (tests/netns/lib.sh) with the NAT and
# filter modules loaded; skip where this kernel has none, fail if IPv6 does not route.
kernel_dual_nat_topology() {
	modprobe -q -a nf_conntrack nf_nat iptable_nat iptable_filter ip6table_filter \
		xt_MASQUERADE xt_conntrack 2>/dev/null
	dual_nat_topology
	case $? in
	0) ;;
	2) skip "no NAT, conntrack match or ip6tables filter in this kernel" ;;
	*) exit 1 ;;
	esac
}
