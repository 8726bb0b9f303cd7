#!/bin/bash
# tests/netns/uesp-pair.sh - the userspace ESP datapath end to end without a
# base exchange: tools/uesp-pair with a hand-made SA pair in two namespaces.
# Per outer family (IPv6 with AES-GCM, IPv4 with AES-CBC + HMAC-SHA-256):
# the first packet to a peer without an SA is held and sent once the SA
# appears (acquire), a TCP transfer arrives intact, and the veth carries
# ESP only (never a HIT-addressed packet). Needs root.
#   usage: uesp-pair.sh [MBYTES]
. "$(dirname "$0")/lib.sh"
PAIR=${UESP_PAIR:-$BUILD/tools/uesp-pair}
MB=${1:-20}
NETNS_T0=$(date +%s.%N)

pair_start() { # NAME SIDE FAMILY SUITE [lazy]
	local n=$1; shift
	rm -f "$NETNS_TMP/$n/pair.out"    # a stale "ready" from the last scenario
	ip netns exec "$(ns_name "$n")" "$PAIR" run "$@" >"$NETNS_TMP/$n/pair.out" \
		2>"$NETNS_TMP/$n/pair.log" &
	echo $! >"$NETNS_TMP/$n/pair.pid"
	wait_for "uesp-pair $n ready" 5 grep -q ready "$NETNS_TMP/$n/pair.out"
}
pair_stop() { local p; p=$(cat "$NETNS_TMP/$1/pair.pid"); kill "$p"; wait "$p"; }

transfer_intact() { # BYTES
	rm -f "$NETNS_TMP/sink.out"   # an old "listening" is not this sink's
	nsx b timeout 90 "$PAIR" sink 5001 >"$NETNS_TMP/sink.out" &
	local sp=$!
	wait_for "sink listening" 5 grep -q listening "$NETNS_TMP/sink.out" || return 1
	if ! nsx a timeout 60 "$PAIR" source 2001:20::b 5001 "$1" >"$NETNS_TMP/source.out"; then
		kill "$sp"; return 1
	fi
	wait "$sp"
	local got want
	want=$(cut -d' ' -f1,2 "$NETNS_TMP/source.out")
	got=$(grep -v listening "$NETNS_TMP/sink.out")
	echo "sent $(cat "$NETNS_TMP/source.out"), received $got"
	[ "$got" = "$want" ] && [ "${got%% *}" = "$1" ]
}

# only_esp PCAP: ESP seen, and nothing else but neighbour discovery / ARP
only_esp() {
	local esp other hits
	esp=$(tshark -n -r "$1" -Y esp 2>/dev/null | wc -l)
	other=$(tshark -n -r "$1" -Y '!esp && !arp && !(icmpv6.type >= 133 && icmpv6.type <= 143)' 2>/dev/null | wc -l)
	hits=$(tshark -n -r "$1" -Y 'ipv6.addr == 2001:20::/28' 2>/dev/null | wc -l)
	echo "esp $esp, other $other, HIT-addressed $hits"
	tshark -n -r "$1" -Y '!esp && !arp && !(icmpv6.type >= 133 && icmpv6.type <= 143)' 2>/dev/null | head -5
	[ "$esp" -gt 0 ] && [ "$other" -eq 0 ] && [ "$hits" -eq 0 ]
}

scenario() { # FAMILY SUITE
	local fam=$1 suite=$2
	echo "== outer $fam, suite $suite"
	netns_host a b
	netns_link a b 0
	nsx a tcpdump -i va0 -U -w "$NETNS_TMP/va.pcap" >/dev/null 2>&1 &
	local tp=$!
	sleep 0.5
	pair_start b b "$fam" "$suite"
	# a's outbound SA appears only on acquire, 100 ms later
	pair_start a a "$fam" "$suite" lazy
	check "first packet to a peer without SA arrives (held, then sent)" \
		nsx a ping -6 -c 1 -W 5 2001:20::b
	check "acquire reported once" eq "$(grep -c acquire "$NETNS_TMP/a/pair.log")" 1
	check "ping both ways" nsx b ping -6 -c 3 -i 0.2 -W 2 2001:20::a
	check "TCP $MB MB intact" transfer_intact $((MB * 1000000))
	sleep 0.3
	kill "$tp"; wait "$tp"
	check "the veth carries only ESP" only_esp "$NETNS_TMP/va.pcap"
	pair_stop a; pair_stop b
	check "no replay or ICV drops" eq "$(cat "$NETNS_TMP"/[ab]/pair.log | grep -c 'replay drops 0, auth drops 0')" 2
	cat "$NETNS_TMP"/[ab]/pair.log | grep 'uesp-pair [ab]:'
	check "no sanitizer report from uesp-pair" \
		eq "$(grep -l -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$NETNS_TMP"/[ab]/pair.log)" ""
	ip netns del "$(ns_name a)"; ip netns del "$(ns_name b)"
	NETNS_LIST=""
}

scenario v6 13
scenario v4 8
netns_done
