#!/bin/bash
# bench/handover-tcp.sh OUTDIR [SECONDS=6] [MOVES=1] - TCP throughput over time
# across moves of the mobile host, in 100 ms bins (issue 17, section 5; a
# benchmark, not a test): the picture mobility studies draw of a mobile node's
# throughput around a handover. bench/handover.sh measures the handover time
# itself.
#
#   hipd in ns "a" (the mobile host) and ns "b" on one veth, userspace
#   datapath; iperf3 TCP from a's HIT to b's for SECONDS with 100 ms intervals
#   (-i 0.1); MOVES moves of a between 192.0.2.1 and 192.0.2.11 (ip -batch:
#   add the new address, delete the old one, as bench/handover.sh does),
#   evenly spread over the run.
#
# Writes OUTDIR/handover-tcp.json (iperf3 -J) and OUTDIR/handover-tcp.moves:
# one move a line, seconds since iperf3 was started (its connection is set up
# within a millisecond or two of that: the bins' origin).
# Environment: BUILD.
set -u
OUTDIR=${1:?usage: bench/handover-tcp.sh OUTDIR [SECONDS] [MOVES]}
SECS=${2:-6}
MOVES=${3:-1}
. "$(dirname "$0")/lib.sh"
bench_need
command -v iperf3 >/dev/null || { echo "handover-tcp: needs iperf3" >&2; exit 1; }
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)

netns_host a b
netns_link a b 0
nsx a sysctl -q -w net.ipv4.conf.all.promote_secondaries=1 net.ipv4.conf.va0.promote_secondaries=1
bench_hipd_start a - "datapath = userspace"
bench_hipd_start b - "datapath = userspace"
HA=$(bench_hit a) HB=$(bench_hit b)
hcr a add map "$HB" 192.0.2.2 >/dev/null && hcr b add map "$HA" 192.0.2.1 >/dev/null ||
	{ echo "handover-tcp: hipconf add map failed" >&2; exit 1; }
nsx a ping -6 -c 1 -W 10 "$HB" >/dev/null || { echo "handover-tcp: no ping over ESP" >&2; exit 1; }

nsx b iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
wait_for "iperf3 server" 5 eval "nsx b ss -Hltn 'sport = :5201' | grep -q ." || exit 1
t0=$(date +%s.%N)
nsx a timeout $((SECS + 30)) iperf3 -c "$HB" -p 5201 -t "$SECS" -i 0.1 -J \
	>"$OUTDIR/handover-tcp.json" 2>&1 &
ip=$!
: >"$OUTDIR/handover-tcp.moves"
cur=192.0.2.1 alt=192.0.2.11
for i in $(seq "$MOVES"); do
	# move i at i/(MOVES+1) of the run
	at=$(awk -v t0="$t0" -v s="$SECS" -v i="$i" -v m="$MOVES" \
		'BEGIN { printf "%.3f", t0 + s * i / (m + 1) }')
	sleep "$(awk -v at="$at" -v now="$(date +%s.%N)" 'BEGIN { d = at - now; print (d > 0 ? d : 0) }')"
	tm=$(date +%s.%N)
	nsx a ip -batch - <<-E
		addr add $alt/24 dev va0
		addr del $cur/24 dev va0
	E
	awk -v a="$tm" -v b="$t0" 'BEGIN { printf "%.4f\n", a - b }' >>"$OUTDIR/handover-tcp.moves"
	t=$cur cur=$alt alt=$t
done
wait "$ip"
echo "handover-tcp: $MOVES move(s) in $SECS s of TCP ($OUTDIR/handover-tcp.json)"
