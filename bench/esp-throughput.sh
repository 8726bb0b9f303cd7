#!/bin/bash
# bench/esp-throughput.sh - TCP throughput and ping RTT between two network
# namespaces over one veth, in one run (issue 4, Performance), through:
#   plain         the veth itself, locator to locator (fd00::1 -> fd00::2)
#   strongswan    strongSwan's userspace ESP: charon + kernel-libipsec,
#                 AES-GCM-128 (bench/peers.sh)
#   wireguard-go  userspace WireGuard from the Go module proxy, wg(8) from
#                 Debian (bench/peers.sh)
#   hipd          two hipd of BUILD, userspace datapath, one base exchange,
#                 ESP suite SUITE (default 13, AES-GCM), HIT to HIT
#                 (and hipd-lsi: then IPv4 to b's LSI in the same association,
#                 its LSI SA pair, D-22)
#   hipd-udp      the same with nat_traversal = always: HIP and ESP in UDP
#                 (RFC 9028, RFC 3948), UDP_SEGMENT out and UDP_GRO in
# then the ratios beside issue 4's targets: hipd >= 2x strongSwan and >= 1x
# wireguard-go in throughput, hipd's RTT <= plain + 100 us, and the CPU time
# each hipd engine spent per MB received (where the cost is: bench/README.md).
# A benchmark, not a test: figures depend on the machine and on whatever
# else it runs.
#
#   usage: bench/esp-throughput.sh [SECONDS=5] [SUITE=13]        (root)
# Environment: BUILD (hipd and hipconf from there, default build/), PEERS
# (a subset of "plain strongswan wireguard-go hipd", in that order),
# BENCH_RT=1 (every daemon SCHED_FIFO 10), WG_CACHE, WG_VERSION, LSI_ROUNDS
# (HIT/LSI pairs in alternating order, their median ratio; default 1).
# iperf3 (-O 1: the first second, slow start, is not counted), the median
# of 100 pings 10 ms apart (the RTT of the targets) and of 1000 pings back
# to back (ping -A: each sent when the last reply came, so no CPU has gone
# idle in between: the tunnel's own processing, without the cost of waking
# idle vCPUs, which dominates the first figure on a VM). Only addresses inside the two namespaces are
# used; namespaces, daemons, their TUN devices and private /run mounts all
# go at exit, whatever ends the script (tests/netns/lib.sh).
. "$(dirname "$0")/lib.sh"
. "$BENCH_ROOT/bench/peers.sh"
SECS=${1:-5}
SUITE=${2:-13}
PEERS=${PEERS:-plain strongswan wireguard-go hipd hipd-udp}
BENCH_RT=${BENCH_RT:-0}
export BENCH_RT

bench_need
if ! command -v iperf3 >/dev/null; then
	echo "installing iperf3 (tools/install-deps.sh --bench)..."
	"$BENCH_ROOT/tools/install-deps.sh" --bench >/dev/null 2>&1
	command -v iperf3 >/dev/null || { echo "bench: needs iperf3"; exit 1; }
fi
trap 'peer_swan_stop; peer_wg_stop; peer_hipd_stop; netns_cleanup' EXIT

declare -A MBPS RTT RTTB NOTE CPU
ORDER=""

# ping_median DST PING-ARGS...: the median RTT in us of pings a -> DST.
ping_median() {
	local dst=$1
	shift
	nsx a ping "$@" -W 2 "$dst" 2>/dev/null | sed -n 's/.* time=\([0-9.]*\) ms/\1/p' | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) printf "%.0f\n", v[int((NR + 1) / 2)] * 1000 }'
}

# measure KEY DST [TUNDEV]: iperf3 a -> b (DST) and the RTT a -> DST; with
# TUNDEV, also checks that the data went into that tunnel device.
measure() {
	local key=$1 dst=$2 dev=${3:-} sp t0=0 t1 out c0 c1
	[ -z "$dev" ] || t0=$(tun_tx "$dev")
	nsx b iperf3 -s -1 -p 5201 >"$NETNS_TMP/iperf3-s.out" 2>&1 &
	sp=$!
	wait_for "iperf3 server" 5 eval "nsx b ss -Hltn 'sport = :5201' | grep -q ." || return 1
	[ -z "${CPU_PIDS:-}" ] || c0=$(for p in $CPU_PIDS; do cpu_ticks "$p"; done)
	out=$(nsx a timeout $((SECS + 40)) iperf3 -c "$dst" -p 5201 -t "$SECS" -O 1 -J 2>&1)
	[ -z "${CPU_PIDS:-}" ] || c1=$(for p in $CPU_PIDS; do cpu_ticks "$p"; done)
	kill "$sp" 2>/dev/null; wait "$sp" 2>/dev/null
	MBPS[$key]=$(echo "$out" | python3 -c 'import json,sys
try: print("%.0f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e6))
except Exception: print("")')
	[ -n "${MBPS[$key]}" ] || { echo "  $key: iperf3 failed: $(echo "$out" | grep -m1 error)"; return 1; }
	# CPU of the given processes per MB received (ticks over the whole
	# iperf3 run, warm-up included, so a slight overestimate).
	[ -z "${CPU_PIDS:-}" ] || CPU[$key]=$(echo "$out" | python3 -c 'import json,sys
c0, c1, tck = sys.argv[1].split(), sys.argv[2].split(), int(sys.argv[3])
mb = json.load(sys.stdin)["end"]["sum_received"]["bytes"] / 1e6
print(" ".join("%.0f" % ((int(b) - int(a)) * 1e6 / tck / mb) for a, b in zip(c0, c1)))' \
		"$c0" "$c1" "$CLK_TCK")
	RTT[$key]=$(ping_median "$dst" -c 100 -i 0.01)
	RTTB[$key]=$(ping_median "$dst" -c 1000 -A)
	if [ -n "$dev" ]; then
		t1=$(tun_tx "$dev")
		# SECS of TCP at even 10 Mbit/s is thousands of packets
		[ $((t1 - t0)) -ge 1000 ] ||
			{ echo "  $key: only $((t1 - t0)) packets went into $dev: not measured"; return 1; }
	fi
	ORDER="$ORDER $key"
}

# lsi_rounds: with LSI_ROUNDS=N > 1, N - 1 more HIT/LSI pairs on the same
# association, the order swapped each round (the first pair above ran HIT
# first), and the median of the N per-pair ratios: one pair is at the
# mercy of whatever else the machine did in those seconds.
lsi_rounds() {
	local r ratios="" one
	for r in $(seq 2 "${LSI_ROUNDS:-1}"); do
		[ -n "${MBPS[hipd]:-}" ] && [ -n "${MBPS[hipd-lsi]:-}" ] || return
		ratios="$ratios $(awk -v l="${MBPS[hipd-lsi]}" -v h="${MBPS[hipd]}" \
			'BEGIN { printf "%.3f", l / h }')"
		if [ $((r % 2)) = 0 ]; then
			measure hipd-lsi "$LSI_B" hip0 && measure hipd "$HIT_B" hip0 || return
		else
			measure hipd "$HIT_B" hip0 && measure hipd-lsi "$LSI_B" hip0 || return
		fi
		echo "# round $r: hipd ${MBPS[hipd]} Mbit/s (engines ${CPU[hipd]} us/MB)," \
			"hipd-lsi ${MBPS[hipd-lsi]} Mbit/s (${CPU[hipd-lsi]} us/MB)"
	done
	[ "${LSI_ROUNDS:-1}" -gt 1 ] || return 0
	ratios="$ratios $(awk -v l="${MBPS[hipd-lsi]}" -v h="${MBPS[hipd]}" \
		'BEGIN { printf "%.3f", l / h }')"
	one=$(echo "$ratios" | tr ' ' '\n' | sed '/^$/d' | sort -n |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	echo "# hipd-lsi / hipd per pair:$ratios; median $one (target >= 0.95x)"
}

echo "# $(date -u '+%F %T') UTC, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)," \
	"iperf3 $SECS s per peer, BENCH_RT=$BENCH_RT"
netns_host a b
netns_link a b 0

for p in $PEERS; do
	case $p in
	plain)
		measure plain fd00::2 || NOTE[plain]="failed";;
	strongswan)
		echo "# strongSwan $(dpkg-query -W -f='${Version}' strongswan-charon 2>/dev/null)," \
			"charon + kernel-libipsec, IKEv2 PSK, ESP aes128gcm16, tunnel, UDP 4500"
		if peer_swan_start; then
			measure strongswan 10.10.0.2 ipsec0 || NOTE[strongswan]="failed"
		else
			NOTE[strongswan]="could not be set up"
		fi
		peer_swan_stop;;
	wireguard-go)
		if peer_wg_start; then
			echo "# wireguard-go $WG_GO_VERSION ($("$WG_GO" --version 2>/dev/null | head -1))," \
				"ChaCha20-Poly1305"
			measure wireguard-go 10.11.0.2 wg0 || NOTE[wireguard-go]="failed"
		else
			NOTE[wireguard-go]="could not be set up"
		fi
		peer_wg_stop;;
	hipd)
		echo "# $("$HIPD" --version | head -1) from $BUILD, userspace datapath, ESP suite $SUITE"
		if peer_hipd_start "$SUITE"; then
			echo "# association: $(hcr a --json show associations | grep -o '"transport": "[a-z]*"')"
			CPU_PIDS="$(bench_engine_pid a) $(bench_engine_pid b)"
			measure hipd "$HIT_B" hip0 || NOTE[hipd]="failed"
			# IPv4 to b's LSI, on the association's LSI SA pair (D-22),
			# right after the HIT run: issue 16's >= 0.95x of the HIT
			LSI_B=$(hcr b --json show hi | python3 -c 'import json,sys
print(json.load(sys.stdin)["identities"][0]["lsi"])')
			CPU_PIDS="$(bench_engine_pid a) $(bench_engine_pid b)"
			measure hipd-lsi "$LSI_B" hip0 || NOTE[hipd-lsi]="failed"
			lsi_rounds
			CPU_PIDS=""
		else
			NOTE[hipd]="could not be set up"
		fi
		peer_hipd_stop;;
	hipd-udp)
		echo "# hipd with ESP in UDP (nat_traversal = always), ESP suite $SUITE"
		if peer_hipd_start "$SUITE" "nat_traversal = always" "log_level = info"; then
			echo "# association: $(hcr a --json show associations | grep -o '"transport": "[a-z]*"')"
			CPU_PIDS="$(bench_engine_pid a) $(bench_engine_pid b)"
			measure hipd-udp "$HIT_B" hip0 || NOTE[hipd-udp]="failed"
			CPU_PIDS=""
		else
			NOTE[hipd-udp]="could not be set up"
		fi
		peer_hipd_stop
		grep -h "ESP in UDP:" "$NETNS_TMP"/a/hipd.log "$NETNS_TMP"/b/hipd.log 2>/dev/null | sed 's/^/# /';;
	*)
		echo "unknown peer '$p' (plain strongswan wireguard-go hipd hipd-udp)"; exit 2;;
	esac
done

echo
printf '%-14s %12s %10s %14s\n' "" "TCP Mbit/s" "RTT us" "back-to-back"
for p in $PEERS; do
	if [ -n "${MBPS[$p]:-}" ] && case " $ORDER " in *" $p "*) true;; *) false;; esac; then
		printf '%-14s %12s %10s %14s\n' "$p" "${MBPS[$p]}" "${RTT[$p]:-?}" "${RTTB[$p]:-?}"
	else
		printf '%-14s %12s %10s %14s  (%s)\n' "$p" - - - "${NOTE[$p]:-not measured}"
	fi
done
echo
# ratio A B [TARGET]: A's throughput / B's, beside ">= TARGET", or n/a.
ratio() {
	local h=${MBPS[$1]:-} o=${MBPS[$2]:-} t=${3:-}
	case " $ORDER " in *" $1 "*) ;; *) h="";; esac
	case " $ORDER " in *" $2 "*) ;; *) o="";; esac
	if [ -z "$h" ] || [ -z "$o" ] || [ "$o" -eq 0 ]; then
		echo "$1 / $2 throughput: n/a${t:+ (target >= ${t}x)}"; return
	fi
	awk -v h="$h" -v o="$o" -v t="$t" -v a="$1" -v b="$2" 'BEGIN {
		r = h / o; printf "%s / %s throughput: %.2fx", a, b, r
		if (t != "") printf " (target >= %gx): %s", t, (r >= t + 0 ? "met" : "NOT met")
		printf "\n" }'
}
ratio hipd strongswan 2
ratio hipd wireguard-go 1
ratio hipd-udp wireguard-go 1.5
ratio hipd-lsi hipd 0.95
ratio hipd-udp hipd 1
ratio hipd plain
for p in strongswan wireguard-go hipd; do
	case " $ORDER " in *" $p "*) ;; *) continue;; esac
	case " $ORDER " in *" plain "*) ;; *) continue;; esac
	[ -n "${RTT[$p]:-}" ] && [ -n "${RTT[plain]:-}" ] || continue
	d=$((RTT[$p] - RTT[plain]))
	b=""
	[ -z "${RTTB[$p]:-}" ] || [ -z "${RTTB[plain]:-}" ] ||
		b=", back-to-back $((RTTB[$p] - RTTB[plain])) us"
	if [ "$p" = hipd ]; then
		echo "hipd RTT overhead over plain: ${d} us (target <= 100 us): $([ "$d" -le 100 ] && echo met || echo NOT met)$b"
	else
		echo "$p RTT overhead over plain: ${d} us$b"
	fi
done
if [ -n "${CPU[hipd]:-}" ]; then
	read -r ca cb <<<"${CPU[hipd]}"
	echo "hipd CPU per MB received: sender's engine ${ca:-?} us, receiver's ${cb:-?} us"
fi
if [ -n "${CPU[hipd-lsi]:-}" ]; then
	read -r ca cb <<<"${CPU[hipd-lsi]}"
	echo "hipd-lsi CPU per MB received: sender's engine ${ca:-?} us, receiver's ${cb:-?} us"
fi
echo "# load after the run: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (indicative figures)"
