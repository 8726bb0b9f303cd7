#!/bin/bash
# bench/esp-throughput.sh - TCP throughput and ping RTT between two network
# namespaces over a veth: plain (locator to locator) against hipd's
# userspace ESP datapath (tools/uesp-pair: hand-made AES-GCM SA pair, no
# base exchange), in one run, and the ratio. A benchmark, not a test.
#   usage: bench/esp-throughput.sh [SECONDS] [SUITE]      (root)
# Uses iperf3 when installed (tools/install-deps.sh --bench), else
# tools/uesp-pair's own source/sink (which includes its data generation).
. "$(dirname "$0")/../tests/netns/lib.sh"
PAIR=${UESP_PAIR:-$BUILD/tools/uesp-pair}
SECS=${1:-10}
SUITE=${2:-13}

if ! command -v iperf3 >/dev/null; then
	if [ -x "$NETNS_ROOT/tools/install-deps.sh" ] && grep -q -- --bench "$NETNS_ROOT/tools/install-deps.sh"; then
		"$NETNS_ROOT/tools/install-deps.sh" --bench >/dev/null 2>&1
	else
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q iperf3 >/dev/null 2>&1
	fi
fi

# tcp_mbps DST: Mbit/s from a to b
tcp_mbps() {
	if command -v iperf3 >/dev/null; then
		nsx b iperf3 -s -1 -D >/dev/null 2>&1; sleep 0.3
		nsx a iperf3 -c "$1" -t "$SECS" -J 2>/dev/null |
			python3 -c 'import json,sys; print("%.0f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e6))'
	else
		nsx b timeout $((SECS * 3 + 10)) "$PAIR" sink 5201 >/dev/null & sleep 0.3
		# about SECS seconds at ~1 Gbit/s
		nsx a "$PAIR" source "$1" 5201 $((SECS * 125000000)) | awk '{printf "%.0f\n", $3}'
		wait
	fi
}
rtt_us() { nsx a ping -6 -q -c 50 -i 0.01 "$1" | awk -F/ '/^rtt/ { printf "%.0f\n", $5 * 1000 }'; }

netns_host a b
netns_link a b 0
for s in a b; do
	ip netns exec "$(ns_name $s)" "$PAIR" run $s v6 "$SUITE" >"$NETNS_TMP/$s.out" 2>"$NETNS_TMP/$s.log" &
done
wait_for "uesp-pair ready" 5 grep -q ready "$NETNS_TMP/a.out" "$NETNS_TMP/b.out" || exit 1
nsx a ping -6 -c 1 -W 2 2001:20::b >/dev/null || { echo "no path through uesp"; exit 1; }

plain=$(tcp_mbps fd00::2); plain_rtt=$(rtt_us fd00::2)
esp=$(tcp_mbps 2001:20::b); esp_rtt=$(rtt_us 2001:20::b)
echo "plain veth TCP:             $plain Mbit/s, RTT $plain_rtt us"
echo "hipd userspace ESP (suite $SUITE): $esp Mbit/s, RTT $esp_rtt us"
awk -v e="$esp" -v p="$plain" -v er="$esp_rtt" -v pr="$plain_rtt" 'BEGIN {
	printf "ratio ESP/plain: %.2f; RTT overhead %d us (target <= 100)\n", e / p, er - pr }'
echo "load during the run: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
