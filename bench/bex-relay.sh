#!/bin/bash
# bench/bex-relay.sh [N=50] - the base exchange through a control relay
# (RFC 9028 §4.5) beside the one straight through a NAT, in one run (issue
# 13, Performance: "through the relay: within one extra RTT of it"). A
# benchmark, not a test: it prints what one run measured and exits 0
# unless the setup fails.
#
#   nat:    a1 (10.255.10.1) --- n1 (MASQUERADE) --- b1 (192.0.2.2)
#           HIP over UDP, I1 to B's address (mode UDP-ENCAPSULATION)
#   relay:  a2 --- na (NAT) --- s (relay, router) --- nb (NAT) --- b2
#           I1/R1/I2/R2 through s's hipd (RELAY_FROM/RELAY_TO), mode
#           ICE-HIP-UDP, then connectivity checks; a2 and b2 registered
#
# N exchanges on each pair, alternating. Reported: hipd's "total" stage
# (Initiator: I1 sent -> R2 processed) median and p95 for each pair; the
# difference of the medians beside the round trip a2 -> s -> b2 -> s -> a2
# the relay adds (ping medians; no delay is emulated, so the RTTs are the
# stack's own and the difference is mostly the relay's processing); and the time the connectivity checks took
# until ESP could flow (hipd's log line), median.
#
# DELAY_US=D (default 0) adds link delay, which this kernel has no netem
# for: every packet the routers forward waits in tools/nfq-delay (a
# netfilter queue), D us one way at n1 (between a1 and b1), D/2 at na and
# at nb, so both pairs are D apart one way and S sits midway on the
# relayed pair's path; the RTT beside the target is then the direct
# pair's ping (a1 -> b1, 2D and the stack's own).
#
# Environment: BUILD (default build/), DELAY_US.
set -u
N=${1:-50}
DELAY_US=${DELAY_US:-0}
. "$(dirname "$0")/../tests/netns/lib.sh"

netns_host a1 n1 b1 s a2 na b2 nb
netns_link a1 n1 10
netns_link n1 b1 0
netns_link s na 1
netns_link s nb 2
netns_link a2 na 11
netns_link b2 nb 12
for r in n1 na nb; do
	nsx "$r" sysctl -qw net.ipv4.ip_forward=1
	ipt "$r" -A FORWARD -p 139 -j DROP
	ipt "$r" -A FORWARD -p 50 -j DROP
done
nsx s sysctl -qw net.ipv4.ip_forward=1
if [ "$DELAY_US" -gt 0 ]; then
	for r in n1 na nb; do
		d=$((DELAY_US / 2)); [ "$r" = n1 ] && d=$DELAY_US
		ipt "$r" -A FORWARD -j NFQUEUE --queue-num 0
		nsx "$r" "$BUILD/tools/nfq-delay" -q 0 -d "$d" >"$NETNS_TMP/delay.$r" 2>&1 &
		wait_for "nfq-delay in $r" 5 grep -q "^nfq-delay: queue" "$NETNS_TMP/delay.$r" ||
			{ cat "$NETNS_TMP/delay.$r"; exit 1; }
	done
fi
ipt n1 -t nat -A POSTROUTING -o vn10 -j MASQUERADE
ipt na -t nat -A POSTROUTING -o vna1 -j MASQUERADE
ipt nb -t nat -A POSTROUTING -o vnb2 -j MASQUERADE
# home-router firewalls (tests/netns/nat2.sh explains why hole punching needs it)
# (they answer pings, for the RTTs below)
ipt na -A INPUT -p icmp -j ACCEPT
ipt nb -A INPUT -p icmp -j ACCEPT
ipt na -A INPUT -i vna1 -m conntrack --ctstate NEW -j DROP
ipt nb -A INPUT -i vnb2 -m conntrack --ctstate NEW -j DROP
nsx a1 ip route add default via "$(addr4 n1 10)"
nsx na ip route add default via "$(addr4 s 1)"
nsx nb ip route add default via "$(addr4 s 2)"
nsx a2 ip route add default via "$(addr4 na 11)"
nsx b2 ip route add default via "$(addr4 nb 12)"
CONF=("listen_v6 = no" "puzzle_k = 0" "puzzle_auto = no")
hipd_start s "${CONF[@]}" "offer_services = relay" || exit 1
for h in a1 b1; do hipd_launch "$h" "${CONF[@]}"; done
hipd_launch a2 "${CONF[@]}" "server = $(hit s) $(addr4 s 1) relay"
hipd_launch b2 "${CONF[@]}" "server = $(hit s) $(addr4 s 2) relay"
hipd_wait a1 b1 a2 b2 || exit 1
registered() { [ "$(hc "$1" --json show servers | jget servers.0.state)" = registered ]; }
wait_for "a2 registered" 15 registered a2 >/dev/null || { echo "a2: no registration"; exit 1; }
wait_for "b2 registered" 15 registered b2 >/dev/null || { echo "b2: no registration"; exit 1; }
hc a1 add map "$(hit b1)" "$(addr4 b1 0)" >/dev/null
hc a2 add map "$(hit b2)" "$(addr4 s 1)" >/dev/null

gone() { [ "$(ha_count "$1")" = 0 ] || [ "$(ha_get "$1" "$2" state)" = none ]; }
direct() { [ "$(ha_get "$1" "$2" path)" = direct ]; }
one() {
	hc "$1" trigger "$(hit "$2")" >/dev/null || return 1
	wait_for "up" 10 state_is "$1" "$2" ESTABLISHED >/dev/null || return 1
	wait_for "direct" 25 direct "$1" "$(hit "$2")" >/dev/null || return 1
	hc "$1" close "$(hit "$2")" >/dev/null || return 1
	wait_for "gone" 10 gone "$1" "$(hit "$2")" >/dev/null
}
one a2 b2 || { echo "relayed pair: no BEX"; exit 1; }
echo "# relayed pair: mode $(ha_get b2 "$(hit a2)" nat_mode), S relayed $(stat_of s nat.relay_forwarded) packets"
ping_med() { nsx "$1" ping -c 20 -i 0.05 -q "$2" | awk -F/ '/^rtt/ {print $5}'; }
rtt_as=$(ping_med a2 "$(addr4 s 1)")
rtt_sb=$(ping_med s "$(addr4 nb 2)")
rtt_ab=$(ping_med a2 "$(addr4 nb 2)")
rtt_direct=$(ping_med a1 "$(addr4 b1 0)")
echo "# $(date -u '+%F %T') UTC, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $N exchanges per pair," \
	"link delay $DELAY_US us one way"
for i in $(seq "$N"); do
	one a1 b1 || { echo "NAT exchange $i failed"; exit 1; }
	one a2 b2 || { echo "relayed exchange $i failed"; exit 1; }
done
hc a1 --json show stats >"$NETNS_TMP/nat.json"
hc a2 --json show stats >"$NETNS_TMP/relay.json"
for h in a1 b1 a2 b2; do hc "$h" --json show stats >"$NETNS_TMP/$h.stats"; done
python3 - "$NETNS_TMP" "$N" <<'EOF'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
print("# stage medians (us)     T1 (I1->R1)  T2 (R1->I2)  T3 (I2->R2)  T4 (R2 done)")
for h in ("a1", "b1", "a2", "b2"):
    st = json.load(open("%s/%s.stats" % (d, h)))["bex_stages"]
    m = []
    for k in ("t1", "t2", "t3", "t4"):
        v = sorted(st.get(k, {}).get("samples_us", [])[-n:])
        m.append("%8.1f" % v[len(v) // 2] if v else "       -")
    print("#   %-20s %s" % (h, "     ".join(m)))
EOF
grep -o "connectivity checks done in [0-9]* ms" "$NETNS_TMP/a2/hipd.log" | awk '{print $5}' \
	>"$NETNS_TMP/ice.txt"
python3 - "$NETNS_TMP/nat.json" "$NETNS_TMP/relay.json" "$N" "$rtt_as" "$rtt_sb" "$rtt_ab" \
	"$NETNS_TMP/ice.txt" "$rtt_direct" "$DELAY_US" <<'EOF'
import json, sys
def total(path, n):
    return sorted(json.load(open(path))["bex_stages"]["total"]["samples_us"][-n:])
n = int(sys.argv[3])
d, r = total(sys.argv[1], n), total(sys.argv[2], n)
rtt_as, rtt_sb, rtt_ab = (float(x) * 1000 for x in sys.argv[4:7])
ice = sorted(int(x) for x in open(sys.argv[7]).read().split())
med = lambda v: v[len(v) // 2]
p95 = lambda v: v[min(len(v) - 1, int(len(v) * 0.95))]
print("base exchange, Initiator I1 sent -> R2 processed (us)   n   median      p95")
print("  through one NAT, direct (UDP-ENCAPSULATION)        %4d %8.1f %8.1f" % (len(d), med(d), p95(d)))
print("  through two NATs and the relay (ICE-HIP-UDP)       %4d %8.1f %8.1f" % (len(r), med(r), p95(r)))
extra = rtt_as + rtt_sb - rtt_ab
diff = med(r) - med(d)
rtt_direct, delay = float(sys.argv[8]) * 1000, int(sys.argv[9])
rtt = rtt_direct if delay else rtt_ab
print("  relay - direct, medians: %.1f us; one RTT between the hosts (ping %s): %.1f us; "
      "the detour's extra path (A-S + S-B - A-B): %.1f us" %
      (diff, "a1-b1" if delay else "A-B", rtt, extra))
print("  within one extra RTT of the direct exchange (target): %s" %
      ("met" if diff <= rtt else "NOT met"))
if ice:
    print("  connectivity checks after the exchange, until ESP may flow: median %d ms, "
          "p95 %d ms (n %d; pacing Ta 50 ms)" % (med(ice), p95(ice), len(ice)))
EOF
