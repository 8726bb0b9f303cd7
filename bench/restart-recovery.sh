#!/bin/bash
# bench/restart-recovery.sh [N=10] - how long a peer's restart interrupts
# traffic (issue 14, Performance: median <= 2 s with the default liveness
# settings). A benchmark, not a test: it prints what one run measured.
#
#   a (192.0.2.1) --- b (192.0.2.2), userspace datapath, default hipd.conf
#
# N times: B's hipd is killed with kill -9 and started again with its key;
# A pings B's HIT (ping_until: each ping waits 0.25 s); the time from B's
# restart (its control socket answering) to the first ping answered again.
# Two cases, N each:
#   probe:  B knows nothing of A after the restart: B answers A's ESP and
#           A's liveness probe with ICMP Parameter Problems (D-14), A
#           probes at once and drops the association on the ICMP quoting
#           its probe, and starts anew (without the ICMPs: the probe after
#           peer_timeout_seconds, D-13);
#   mapped: A is in B's hosts file: B starts the exchange on A's first ESP
#           it has no SA for (RFC 7401 §4.5.4).
# Medians and p95 of each.
#
# Environment: BUILD (default build/).
set -u
N=${1:-10}
. "$(dirname "$0")/../tests/netns/lib.sh"

netns_host a b
netns_link a b 0
hipd_launch a; hipd_launch b
hipd_wait a b || exit 1
map a b
hc a trigger "$(hit b)" >/dev/null
wait_up a b >/dev/null || { echo "no first exchange"; exit 1; }
echo "# $(date -u '+%F %T') UTC, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $N restarts per case"
for mode in probe mapped; do
	if [ $mode = mapped ]; then echo "$(hit a) $(addr4 a 0)" >>"$NETNS_TMP/b/hosts"; fi
	: >"$NETNS_TMP/$mode.txt"
	for i in $(seq "$N"); do
		nsx a ping -6 -c 2 -W 2 -q "$(hit b)" >/dev/null || { echo "$mode $i: no ping before"; exit 1; }
		hipd_kill9 b
		hipd_start b >/dev/null || exit 1
		ping_until a "$(hit b)" 60 >>"$NETNS_TMP/$mode.txt" ||
			{ echo "$mode $i: no recovery in 60 s"; exit 1; }
	done
done
python3 - "$NETNS_TMP/probe.txt" "$NETNS_TMP/mapped.txt" <<'PY'
import sys
def stats(path):
    v = sorted(float(x) for x in open(path).read().split())
    return v[len(v) // 2], v[min(len(v) - 1, int(len(v) * 0.95))], len(v)
print("restart of B -> first ping answered again (s)          n   median    p95")
for name, path in (("B knows nothing of A (ICMP, A's probe)", sys.argv[1]),
                   ("A in B's hosts file (B's exchange, RFC 7401 4.5.4)", sys.argv[2])):
    m, p, n = stats(path)
    print("  %-50s %3d %7.2f %7.2f" % (name, n, m, p))
m = stats(sys.argv[2])[0]
p = stats(sys.argv[1])[0]
print("  target median <= 2 s: %s with A mapped (%.2f s), %s without (%.2f s)" %
      ("met" if m <= 2 else "NOT met", m, "met" if p <= 2 else "NOT met", p))
PY
