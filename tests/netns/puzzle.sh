#!/bin/bash
# Puzzle difficulty K = 0, 10 and 20, set on the Responder with
# 'hipconf set puzzle K'; one pair per K, all at once. The K on the wire is
# counted by iptables u32 rules: the R1's PUZZLE and the I2's SOLUTION.
#
# Offsets from the HIP header (the R1 starts with R1_COUNTER, 16 bytes; the
# I2 with ESP_INFO and R1_COUNTER, 16 bytes each):
#   R1: PUZZLE type 257 at 56, K at 60     I2: SOLUTION type 321 at 72, K at 76
. "$(dirname "$0")/lib.sh"

ks="0 10 20"
for k in $ks; do
	netns_host "i$k" "r$k"
	netns_link "i$k" "r$k" 0
	hipd_launch "i$k"; hipd_launch "r$k"
done
for k in $ks; do hipd_wait "i$k" "r$k" || exit 1; done

hdr="0>>22&0x3C@"
for k in $ks; do
	check "K=$k: hipconf set puzzle $k" eval "hc r$k set puzzle $k | grep -q 'puzzle K set to $k'"
	check "K=$k: show stats reports it" eq "$(stat_of "r$k" puzzle_k)" "$k"
	ipt "r$k" -A OUTPUT -p 139 -m u32 --u32 \
		"${hdr}0>>8&0x7F=2 && ${hdr}56>>16=0x101 && ${hdr}60>>24=$k"
	ipt "i$k" -A OUTPUT -p 139 -m u32 --u32 \
		"${hdr}0>>8&0x7F=3 && ${hdr}72>>16=0x141 && ${hdr}76>>24=$k"
	map "i$k" "r$k"
done
jobs=""
for k in $ks; do hc "i$k" trigger "$(hit "r$k")" >/dev/null & jobs="$jobs $!"; done
wait $jobs

for k in $ks; do
	check "K=$k: BEX completes" wait_up "i$k" "r$k" 30
	check "K=$k: SPIs pair up" spis_match "i$k" "r$k"
	check "K=$k: the R1 on the wire carries K=$k" eq "$(rule_pkts "r$k" OUTPUT)" 1
	check "K=$k: the I2's SOLUTION carries K=$k" eq "$(rule_pkts "i$k" OUTPUT)" 1
	check "K=$k: no puzzle drops at the Responder" \
		eq "$(stat_of "r$k" drops.puzzle_failed drops.puzzle_stale)" "0 0"
	echo "       (K=$k: base exchange took $(ha_get "i$k" "$(hit "r$k")" bex_us) us)"
done

check "set puzzle 29 is refused (exit 1)" fails_with 1 "is not a puzzle difficulty" hc r0 set puzzle 29
check "set puzzle auto" eval 'hc r0 set puzzle auto | grep -q automatic'

netns_done
