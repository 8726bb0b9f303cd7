#!/bin/bash
# ESP SA lifetimes (RFC 7402 §3.3.7; hipd.conf sa_lifetime_seconds) on the
# userspace datapath, with a hard lifetime of 6 s (soft 5 s):
#   1. soft expiry -> rekey: a TCP stream between HITs (lib.sh: paced,
#      SHA-256 on both ends) runs across at least one rekey started by the
#      soft lifetime (the log says so, no hipconf rekey): new SPIs on both
#      sides, matching, the old ones gone, the stream intact, ESTABLISHED;
#   2. hard expiry: with every UPDATE dropped on both sides (iptables-legacy)
#      the rekey cannot happen and the hard lifetime removes the association
#      on both sides (before the UPDATE retransmissions would give up).
. "$(dirname "$0")/lib.sh"
LIFE=${LIFE_SECONDS:-6}
RATE=131072
SECS=9

netns_host a b
netns_link a b 0
hipd_launch a "datapath = userspace" "sa_lifetime_seconds = $LIFE"
hipd_launch b "datapath = userspace" "sa_lifetime_seconds = $LIFE"
hipd_wait a b || exit 1
HA=$(hit a); HB=$(hit b)
map a b 0 4; map b a 0 4

check "base exchange a -> b (ping6 to b's HIT)" nsx a ping6 -c 1 -W 5 "$HB"
check "both sides up" wait_up a b 10
check "hipconf show config: sa_lifetime_seconds = $LIFE" \
	eval "hc a show config | grep -q '^sa_lifetime_seconds = $LIFE\$'"
both_up a b >/dev/null || { netns_done; exit 1; }

echo "# 1. Soft lifetime -> rekey, under traffic"
spis_remember a b
stream_begin a b
check "1: new SPIs on both sides, matching (within the soft lifetime + 5 s)" \
	wait_for "rekeyed" $((LIFE + 5)) rekeyed a b
check "1: the rekey was started by a soft lifetime (log)" \
	eval "grep -h 'reached its soft lifetime: rekey' '$NETNS_TMP/a/hipd.log' '$NETNS_TMP/b/hipd.log'"
check "1: no hipconf rekey was involved, no new base exchange" \
	eval "! grep -h 'soft lifetime: new base exchange' '$NETNS_TMP/a/hipd.log' '$NETNS_TMP/b/hipd.log'"
check "1: the old SPIs are gone" wait_for "old SPIs gone" 10 old_spis_gone a b
check "1: stream intact (no byte lost or duplicated, no reset)" stream_end
check "1: still ESTABLISHED" both_up a b
check "1: one base exchange only" eq "$(stat_of a bex.completed)" 1
check "1: no hard lifetime reached" \
	eval "! grep -h 'hard lifetime' '$NETNS_TMP/a/hipd.log' '$NETNS_TMP/b/hipd.log'"

echo "# 2. Hard lifetime: no rekey possible"
# UPDATE is HIP packet type 16; dropped on arrival on both sides.
ipt a -I INPUT -p 139 -m u32 --u32 "$(hip_u32 16)" -j DROP
ipt b -I INPUT -p 139 -m u32 --u32 "$(hip_u32 16)" -j DROP
check "2: the association is removed on both sides (within 2 lifetimes)" \
	wait_for "no association" $((2 * LIFE + 3)) eval "no_ha a b && no_ha b a"
check "2: UPDATEs were dropped (a rekey was attempted)" \
	eval "[ \$((\$(rule_pkts a INPUT) + \$(rule_pkts b INPUT))) -ge 1 ]"
check "2: the hard lifetime removed it (log of both)" \
	eval "grep -q 'reached its hard lifetime: association removed' '$NETNS_TMP/a/hipd.log' &&
	      grep -q 'reached its hard lifetime: association removed' '$NETNS_TMP/b/hipd.log'"
check "2: not the UPDATE retransmission limit" \
	eval "! grep -h 'not acknowledged after' '$NETNS_TMP/a/hipd.log' '$NETNS_TMP/b/hipd.log'"
check "2: hipd still answers" hc a show hi

netns_done
