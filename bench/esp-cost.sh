#!/bin/bash
# bench/esp-cost.sh OUTDIR [MB1=2] [MB2=10] [SUITE=13] - instructions per
# megabyte of hipd's userspace ESP datapath, counted by callgrind (issue 17,
# section 7; a benchmark, not a test).
#
#   tools/uesp-pair (the datapath with a hand-made SA pair, no base exchange:
#   tests/netns/uesp-pair.sh) on both ends of a veth, IPv6 outer, ESP suite
#   SUITE, each under `valgrind --tool=callgrind`; a TCP transfer of MB1 MB,
#   then with both restarted one of MB2 MB (uesp-pair source / sink). Each
#   side's (Ir(MB2) - Ir(MB1)) / (MB2 - MB1) is its user-space instructions per
#   MB: TUN reads and writes, ESP encryption or decryption, framing; start-up
#   and keys cancel out. Kernel work (TCP, the syscalls) is not counted.
#
# Writes OUTDIR/esp-cost.txt: "esp-cost: suite S sender N receiver M
# instructions per MB". Environment: BUILD, VALGRIND.
set -u
OUTDIR=${1:?usage: bench/esp-cost.sh OUTDIR [MB1] [MB2] [SUITE]}
MB1=${2:-2}
MB2=${3:-10}
SUITE=${4:-13}
VALGRIND=${VALGRIND:-valgrind}
. "$(dirname "$0")/lib.sh"
PAIR=$BUILD/tools/uesp-pair
bench_need "$PAIR"
command -v "$VALGRIND" >/dev/null || { echo "esp-cost: needs valgrind" >&2; exit 1; }
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
netns_host a b
netns_link a b 0

# one_run MB: both sides under callgrind, MB megabytes a -> b; prints "Ir_a Ir_b"
one_run() {
	local mb=$1 n p
	for n in a b; do
		rm -f "$NETNS_TMP/$n.out" "$NETNS_TMP/$n.cg"
		nsx "$n" "$VALGRIND" --tool=callgrind --callgrind-out-file="$NETNS_TMP/$n.cg" \
			"$PAIR" run "$n" v6 "$SUITE" >"$NETNS_TMP/$n.out" 2>"$NETNS_TMP/$n.log" &
		echo $! >"$NETNS_TMP/$n.pid"
		wait_for "uesp-pair $n ready" 60 grep -q ready "$NETNS_TMP/$n.out" ||
			{ tail -5 "$NETNS_TMP/$n.log" >&2; return 1; }
	done
	nsx b timeout 300 "$PAIR" sink 5001 >"$NETNS_TMP/sink.out" &
	p=$!
	wait_for "sink listening" 5 grep -q listening "$NETNS_TMP/sink.out" || return 1
	nsx a timeout 300 "$PAIR" source 2001:20::b 5001 $((mb * 1000000)) >"$NETNS_TMP/source.out" ||
		{ echo "esp-cost: transfer of $mb MB failed" >&2; return 1; }
	wait "$p"
	for n in a b; do
		p=$(cat "$NETNS_TMP/$n.pid")
		# $p is the shell around nsx; its child is valgrind running uesp-pair,
		# which ends on SIGTERM, and valgrind then writes the counts
		kill -TERM "$(pgrep -P "$p" | head -1)"
		wait "$p"
	done
	for n in a b; do
		awk '/^totals:|^summary:/ { print $2; exit }' "$NETNS_TMP/$n.cg"
	done | paste -sd' '
}

r1=$(one_run "$MB1") && r2=$(one_run "$MB2") || exit 1
read -r a1 b1 <<<"$r1"
read -r a2 b2 <<<"$r2"
awk -v a1="$a1" -v b1="$b1" -v a2="$a2" -v b2="$b2" -v m1="$MB1" -v m2="$MB2" -v s="$SUITE" \
	'BEGIN { printf "esp-cost: suite %d sender %.0f receiver %.0f instructions per MB\n",
		s, (a2 - a1) / (m2 - m1), (b2 - b1) / (m2 - m1) }' | tee "$OUTDIR/esp-cost.txt"
