#!/bin/bash
# bench/datapath-matrix.sh OUTDIR [SECONDS=5] - RTT (ICMP and TCP), TCP and UDP
# throughput (iperf3) and handshake times of plain veth, hipd's userspace ESP
# per ESP suite, strongSwan (kernel-libipsec, PSK) and wireguard-go between two
# namespaces, as raw files for tools/report (issue 17, sections 3, 4 and 6;
# a benchmark, not a test). The tunnels are bench/peers.sh's, strongSwan with
# certificates bench/swan.sh's.
#
# Per peer P (plain, hipd-sSUITE, strongswan, wireguard-go) in OUTDIR:
#   P.ping        ping -c PING_N -i 0.01 a -> b (ICMP RTT samples)
#   P.tcprtt      TCP_N round trips of 1 byte over one TCP connection
#                 (TCP_NODELAY, 10 ms apart), one RTT per line in us
#                 (both bench_rtt of bench/lib.sh, as bench/kernel-throughput.sh's)
#   P.tcp.json    iperf3 -J, TCP a -> b, SECONDS (-O 1)
#   P.udp.json    iperf3 -J -u -b 0 -l 1200, UDP a -> b, SECONDS (-O 1)
#   P.cpu         hipd only: CPU ns of a's and b's engines before, then after
#                 the TCP run (bench_cpu_ns): "a0 b0 a1 b1"
# Handshakes (HS_N each):
#   strongswan-psk.wire   tshark: time, IKE exchange type, response flag on
#                         a's veth (IKE_SA_INIT + IKE_AUTH with a CHILD_SA)
#   wireguard-go.wire     tshark: time, WireGuard message type on a's veth
#                         (a's peer removed and added again before each ping)
#   strongswan-certs.txt / .wire   bench/swan.sh swan_run (childless IKE_SA,
#                         ECDSA P-256 certificates)
# conditions.json: CPU, cores, kernel, load (bench_conditions).
#
# Environment: BUILD, SUITES (default "13 8 9"), PEERS (default "plain hipd
# strongswan wireguard-go swan-certs"), PING_N (100), TCP_N (100), HS_N (10).
set -u
OUTDIR=${1:?usage: bench/datapath-matrix.sh OUTDIR [SECONDS]}
SECS=${2:-5}
SUITES=${SUITES:-13 8 9}
PEERS=${PEERS:-plain hipd strongswan wireguard-go swan-certs}
PING_N=${PING_N:-100}
TCP_N=${TCP_N:-100}
export PING_N TCP_N
HS_N=${HS_N:-10}
BENCH_RT=${BENCH_RT:-0}
export BENCH_RT
. "$(dirname "$0")/lib.sh"
. "$BENCH_ROOT/bench/peers.sh"
. "$BENCH_ROOT/bench/swan.sh"
bench_need
command -v iperf3 >/dev/null || "$BENCH_ROOT/tools/install-deps.sh" --bench >/dev/null 2>&1
command -v iperf3 >/dev/null || { echo "datapath-matrix: needs iperf3" >&2; exit 1; }
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
trap 'peer_swan_stop; peer_wg_stop; peer_hipd_stop; netns_cleanup' EXIT
bench_conditions >"$OUTDIR/conditions.json"

netns_host a b
netns_link a b 0
# IPv6 duplicate address detection: pings to a tentative address wait for it
for n in a b; do
	wait_for "IPv6 DAD in $n" 10 eval "! nsx $n ip -6 addr show tentative | grep -q ."
done

iperf() { # DST OUT [iperf3 client options]
	local dst=$1 out=$2 sp
	shift 2
	nsx b iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
	sp=$!
	wait_for "iperf3 server" 5 eval "nsx b ss -Hltn 'sport = :5201' | grep -q ." || return 1
	nsx a timeout $((SECS + 40)) iperf3 -c "$dst" -p 5201 -t "$SECS" -O 1 -J "$@" >"$out" 2>&1
	kill "$sp" 2>/dev/null; wait "$sp" 2>/dev/null
}
# measure P DST: everything of one peer into OUTDIR/P.*
measure() {
	local p=$1 dst=$2
	echo "datapath-matrix: $p"
	bench_rtt a "$dst" "$OUTDIR/$p"
	local c0="" c1=""
	[ -z "${CPU_PIDS:-}" ] || c0=$(for pid in $CPU_PIDS; do bench_cpu_ns "$pid"; done)
	iperf "$dst" "$OUTDIR/$p.tcp.json"
	[ -z "${CPU_PIDS:-}" ] || c1=$(for pid in $CPU_PIDS; do bench_cpu_ns "$pid"; done)
	[ -z "${CPU_PIDS:-}" ] || echo $c0 $c1 >"$OUTDIR/$p.cpu"
	iperf "$dst" "$OUTDIR/$p.udp.json" -u -b 0 -l 1200
}
# capture_start PCAP FILTER / capture_end: tcpdump on a's veth
capture_start() { nsx a tcpdump -i va0 -U -s 128 -w "$1" "$2" >/dev/null 2>&1 & CAP=$!; sleep 0.5; }
capture_end() { sleep 0.2; kill "$CAP" 2>/dev/null; wait "$CAP" 2>/dev/null; }

[ "$PEERS" = swan-certs ] || bench_tcp_echo_server b
for peer in $PEERS; do
	case $peer in
	plain) measure plain fd00::2;;
	hipd)
		for s in $SUITES; do
			if peer_hipd_start "$s"; then
				CPU_PIDS="$(bench_engine_pid a) $(bench_engine_pid b)"
				measure "hipd-s$s" "$HIT_B"
				CPU_PIDS=""
			else
				echo "could not be set up" >"$OUTDIR/hipd-s$s.note"
			fi
			peer_hipd_stop
		done;;
	strongswan)
		if peer_swan_start; then
			measure strongswan 10.10.0.2
			capture_start "$NETNS_TMP/psk.pcap" "udp port 500 or udp port 4500"
			for i in $(seq "$HS_N"); do
				swanctl_in a --terminate --ike bench --timeout 10 >/dev/null 2>&1
				swanctl_in a --initiate --child bench --timeout 20 >/dev/null 2>&1 || break
			done
			capture_end
			tshark -r "$NETNS_TMP/psk.pcap" -T fields -e frame.time_epoch \
				-e isakmp.exchangetype -e isakmp.flag_r >"$OUTDIR/strongswan-psk.wire" 2>/dev/null
		else
			echo "could not be set up" >"$OUTDIR/strongswan.note"
		fi
		peer_swan_stop;;
	wireguard-go)
		if peer_wg_start; then
			measure wireguard-go 10.11.0.2
			pub=$(cat "$NETNS_TMP/b/wg/pub") wgpid=$(cat "$NETNS_TMP/a/wg/wg.pid")
			capture_start "$NETNS_TMP/wg.pcap" "udp port 51820"
			for i in $(seq "$HS_N"); do
				nsenter -t "$wgpid" -m -n wg set wg0 peer "$pub" remove
				nsenter -t "$wgpid" -m -n wg set wg0 peer "$pub" allowed-ips 10.11.0.2/32 \
					endpoint 192.0.2.2:51820
				nsx a ping -c 1 -W 5 10.11.0.2 >/dev/null
				sleep 0.1   # wireguard-go takes one initiation per peer per 50 ms
			done
			capture_end
			tshark -r "$NETNS_TMP/wg.pcap" -d udp.port==51820,wg -T fields \
				-e frame.time_epoch -e wg.type >"$OUTDIR/wireguard-go.wire" 2>/dev/null
		else
			echo "could not be set up" >"$OUTDIR/wireguard-go.note"
		fi
		peer_wg_stop;;
	swan-certs)
		# bench/swan.sh's charons are not stopped until its namespaces go:
		# in namespaces of their own (a run of this script for them alone).
		if [ "$PEERS" != swan-certs ]; then
			PEERS=swan-certs NETNS_ID=c$$ "$0" "$OUTDIR" "$SECS" | grep -v "done ("
			continue
		fi
		echo "datapath-matrix: strongSwan IKEv2 with certificates, $HS_N IKE_SAs"
		swan_run "$HS_N" "$OUTDIR/strongswan-certs.txt" ||
			echo "failed" >"$OUTDIR/strongswan-certs.note";;
	*) echo "datapath-matrix: unknown peer $peer" >&2; exit 2;;
	esac
done
echo "datapath-matrix: done ($OUTDIR)"
