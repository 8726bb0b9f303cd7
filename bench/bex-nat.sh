#!/bin/bash
# bench/bex-nat.sh [N=100] - base exchange latency through a NAT beside the
# direct one, in one run (issue 13, Performance: the median through one NAT
# within 1.2x of the direct median). A benchmark, not a test: it prints
# what one run measured and exits 0 unless the setup fails.
#
#   direct:  a1 (192.0.2.1) --- b1                  raw IP (HIP proto 139)
#   nat:     a2 (10.255.10.1) --- n (MASQUERADE, UDP only) --- b2
#                                                  HIP over UDP (RFC 9028)
# N exchanges on each pair, alternating between the pairs so that load
# changes hit both alike: trigger, wait for ESTABLISHED, close, wait until
# the association is gone. Reported: hipd's own "total" stage (Initiator:
# I1 sent -> R2 processed; hipconf --json show stats) for each pair,
# median and p95, and the ratio of the medians.
#
# Environment: BUILD (default build/).
set -u
N=${1:-100}
. "$(dirname "$0")/../tests/netns/lib.sh"

netns_host a1 b1 a2 n b2
netns_link a1 b1 0
netns_link a2 n 10
netns_link n b2 1
nsx n sysctl -qw net.ipv4.ip_forward=1
ipt n -t nat -A POSTROUTING -o vn1 -j MASQUERADE
ipt n -A FORWARD -p 139 -j DROP
ipt n -A FORWARD -p 50 -j DROP
nsx a2 ip route add default via "$(addr4 n 10)"
CONF=("listen_v6 = no" "puzzle_k = 0" "puzzle_auto = no")
for h in a1 b1 a2 b2; do hipd_launch "$h" "${CONF[@]}"; done
hipd_wait a1 b1 a2 b2 || exit 1
map a1 b1 0 4
hc a2 add map "$(hit b2)" "$(addr4 b2 1)" >/dev/null

gone() { [ "$(ha_count "$1")" = 0 ]; }
one() {
	hc "$1" trigger "$(hit "$2")" >/dev/null || return 1
	wait_for "up" 10 state_is "$1" "$2" ESTABLISHED >/dev/null || return 1
	hc "$1" close "$(hit "$2")" >/dev/null || return 1
	wait_for "gone" 10 gone "$1" >/dev/null
}
# one of each first: the NATed one must run over UDP (it cannot otherwise)
hc a2 trigger "$(hit b2)" >/dev/null
wait_for "NAT pair up" 10 state_is a2 b2 ESTABLISHED >/dev/null || { echo "NAT pair: no BEX"; exit 1; }
echo "# NATed pair: transport $(ha_get a2 "$(hit b2)" transport), B sees A at $(ha_get b2 "$(hit a2)" peer_locator)"
hc a2 close "$(hit b2)" >/dev/null; wait_for "gone" 10 gone a2 >/dev/null
echo "# $(date -u '+%F %T') UTC, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $N exchanges per pair"
for i in $(seq "$N"); do
	one a1 b1 || { echo "direct exchange $i failed"; exit 1; }
	one a2 b2 || { echo "NAT exchange $i failed"; exit 1; }
done
hc a1 --json show stats >"$NETNS_TMP/direct.json"
hc a2 --json show stats >"$NETNS_TMP/nat.json"
python3 - "$NETNS_TMP/direct.json" "$NETNS_TMP/nat.json" "$N" <<'EOF'
import json, sys
def total(path, n):
    s = json.load(open(path))["bex_stages"]["total"]["samples_us"][-n:]
    return sorted(s)
n = int(sys.argv[3])
d, t = total(sys.argv[1], n), total(sys.argv[2], n)
med = lambda v: v[len(v) // 2]
p95 = lambda v: v[min(len(v) - 1, int(len(v) * 0.95))]
print("base exchange, Initiator I1 sent -> R2 processed (us)   n   median      p95")
print("  direct (raw IP)                                    %4d %8.1f %8.1f" % (len(d), med(d), p95(d)))
print("  through one NAT (HIP over UDP)                     %4d %8.1f %8.1f" % (len(t), med(t), p95(t)))
r = med(t) / med(d)
print("  NAT / direct, medians: %.2fx (target <= 1.2x): %s" % (r, "met" if r <= 1.2 else "NOT met"))
EOF
