#!/bin/bash
# Simultaneous BEX from both sides (RFC 7401 §4.4.2 Table 3, §6.7 step 3,
# docs/requirements.md S-03: the greater HIT answers a crossing I1, the lower drops it).
#
#  - pairs s1..s3: both sides triggered at the same moment; whatever the
#    interleaving, each side ends with exactly one usable association and
#    the SPIs pair up.
#  - pair x/y: the I1s are made to cross for sure: each side loses the
#    other's first I1, so both are in I1-SENT when the first retransmission
#    arrives. Then the greater HIT must end as the Responder and the lower
#    one as the Initiator.
. "$(dirname "$0")/lib.sh"

for p in s1 s2 s3; do
	netns_host "${p}a" "${p}b"; netns_link "${p}a" "${p}b" 0
	hipd_launch "${p}a"; hipd_launch "${p}b"
done
netns_host x y; netns_link x y 0
hipd_launch x "i1_timeout_ms = 600"; hipd_launch y "i1_timeout_ms = 600"
for h in s1a s1b s2a s2b s3a s3b x y; do hipd_wait "$h" || exit 1; done
for p in s1 s2 s3; do map "${p}a" "${p}b"; map "${p}b" "${p}a"; done
map x y; map y x
lose_first x 1; lose_first y 1

jobs=""
for p in s1 s2 s3 x; do
	a=${p}a b=${p}b; [ "$p" = x ] && a=x b=y
	hc "$a" trigger "$(hit "$b")" >/dev/null & jobs="$jobs $!"
	hc "$b" trigger "$(hit "$a")" >/dev/null & jobs="$jobs $!"
done
wait $jobs

# one_each A B: exactly one association on each side, one Initiator and
# one Responder, both usable, SPIs paired.
one_each() {
	eq "$(ha_count "$1") $(ha_count "$2")" "1 1" || return 1
	up "$1" "$2" && up "$2" "$1" || return 1
	case "$(ha_get "$1" "$(hit "$2")" role) $(ha_get "$2" "$(hit "$1")" role)" in
	"initiator responder"|"responder initiator") ;;
	*) echo "roles: $(ha_get "$1" "$(hit "$2")" role) $(ha_get "$2" "$(hit "$1")" role)"; return 1;;
	esac
	spis_match "$1" "$2"
}
echo "# triggered at the same moment"
for p in s1 s2 s3; do
	check "$p: both sides settle with one association each" wait_for "$p settles" 10 one_each "${p}a" "${p}b"
done

echo "# I1s crossing for sure"
if hit_gt x y; then g=x l=y; else g=y l=x; fi
check "both first I1s were lost" eq "$(rule_pkts x INPUT) $(rule_pkts y INPUT)" "1 1"
check "both sides settle with one association each" wait_for "x/y settle" 10 one_each x y
check "the greater HIT ($g) is the Responder, the lower ($l) the Initiator" \
	eq "$(ha_get "$g" "$(hit "$l")" role) $(ha_get "$l" "$(hit "$g")" role)" "responder initiator"
check "an I1 arrived in I1-SENT (the I1s crossed)" \
	eval '[ "$(cat "$NETNS_TMP"/[xy]/hipd.log | grep -c "RECV_I1 in I1-SENT")" -ge 1 ]'
check "the greater HIT never dropped a crossing I1" eq "$(stat_of "$g" drops.crossed_lower_hit)" 0
check "one BEX completed, at the lower HIT" eq "$(stat_of "$l" bex.completed) $(stat_of "$g" bex.completed)" "1 0"

netns_done
