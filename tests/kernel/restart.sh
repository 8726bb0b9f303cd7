#!/bin/bash
# tests/kernel/restart.sh - a hipd on the kernel datapath (XFRM, ESP BEET) crashes and comes
# back (issue 14, reliability; docs/decisions.md D-13).
#
# Run inside the ESP VM as root, with a build made on the host:
#   BUILD=$PWD/build-X tools/kvm/run-in-esp-vm.sh 'sh tests/kernel/restart.sh'
# Exit: 0 passed, 1 failed, 77 skipped (no root, no ESP in this kernel, no build).
#
# a and b (datapath = kernel), a veth between them; a maps b, b does not know a.
#  1. kill -9 of b's hipd: both processes go (the engine by PR_SET_PDEATHSIG); the kernel keeps
#     b's SAs and pair policies (their SPIs recorded; hip0, the TUN device with b's HIT, goes with
#     the process, so nothing is answered meanwhile). b's hipd starts again with the same key:
#     it removes what an earlier hipd with its reqid left (hipd/engine/engine_dp.c, "removed N
#     stale SAs and policies of an earlier hipd"), so none of the old SPIs nor pair policies
#     remain; a, pinging b's HIT, finds the peer gone by its liveness probe (D-13) and its next
#     ping starts a new base exchange: answered again within 30 s. Then each side holds exactly one pair of SAs, the same SPIs on both, as hipconf
#     shows, and no SA of the old association.
#  2. The engine alone dies of SIGSEGV, then (next round) of SIGABRT: the privileged parent does
#     not start a new engine (hipd/privsep/priv_loop.c): it removes the engine's SAs and
#     policies, logs it, and exits non-zero, as a crashed daemon for its supervisor to restart.
#     Nothing of hipd's is left in b's kernel; hipd started again, a recovers as above.
# Recovery times are printed as "# ..." lines.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

KNAME=restart KTOOLS="ip ping python3"
. "$(dirname "$0")/lib.sh"

REQ=1212764160     # HIP_XFRM_REQID_DEFAULT (hipd/datapath/xfrm/xfrm.h), both sides
RECOVER=30         # seconds for a's pings to be answered again

netns_host a b
netns_link a b 0
kernel_esp_probe a
hipd_launch a "datapath = kernel"
hipd_launch b "datapath = kernel"
hipd_wait a b || exit 1
HA=$(hit a)
HB=$(hit b)
echo "# a $HA, b $HB"
map a b
check "both hipd run the kernel datapath" eval \
	'grep -q "datapath: kernel" "$NETNS_TMP"/a/hipd.log &&
	grep -q "datapath: kernel" "$NETNS_TMP"/b/hipd.log'

# our_spis NAME: SPIs of the SAs with hipd's reqid (no larval ACQUIRE states), sorted.
our_spis() {
	nsx "$1" ip xfrm state | grep -o "proto esp spi 0x[0-9a-f]* reqid $REQ " |
		awk '$4 != "0x00000000" { print $4 }' | sort | xargs
}
# pair_policies NAME: the policies with hipd's reqid between the two HITs (in and out; not the
# ACQUIRE one, HIT -> 2001:20::/28).
pair_policies() {
	nsx "$1" ip xfrm policy | grep -A3 -E "^src ($HA|$HB)/128 dst ($HA|$HB)/128" |
		grep -c "reqid $REQ "
}
our_policies() { nsx "$1" ip xfrm policy | grep -c "reqid $REQ "; }
# hipconf_spis NAME PEER_HIT: the association's SPIs as the kernel prints them, sorted.
hipconf_spis() {
	local in out sin sout
	read -r in out sin sout <<<"$(ha_get "$1" "$2" spi_in spi_out lsi_spi_in lsi_spi_out)"
	[ "$in" != none ] || return 0
	{ printf '0x%08x\n0x%08x\n' "$in" "$out"
	  # the LSI pair (D-22), when the association has one
	  if [ "${sout:-0}" != 0 ]; then printf '0x%08x\n0x%08x\n' "$sin" "$sout"; fi; } |
		sort | xargs
}
# one_pair: a and b hold exactly the SAs of one association each (its HIT pair and its LSI
# pair), the same SPIs, as hipconf shows
# (a's inbound SPI is b's outbound one and back).
one_pair() {
	local sa sb
	sa=$(our_spis a) sb=$(our_spis b)
	echo "kernel a: $sa; b: $sb; hipconf a: $(hipconf_spis a "$HB"); b: $(hipconf_spis b "$HA")"
	[ "$(wc -w <<<"$sa")" -ge 2 ] && [ "$sa" = "$sb" ] && [ "$sa" = "$(hipconf_spis a "$HB")" ] &&
		[ "$sb" = "$(hipconf_spis b "$HA")" ] && spis_match a b
}
# none_of NAME SPIS...: none of SPIS among NAME's SAs.
none_of() {
	local n=$1 s have; shift
	have=$(our_spis "$n")
	for s in "$@"; do
		case " $have " in *" $s "*) echo "$n still holds SPI $s"; return 1;; esac
	done
}
# engine_pid NAME: the engine's pid of NAME's last start (logged by the privileged process).
engine_pid() {
	sed -n 's/.*privsep: privileged process pid [0-9]* (.*), engine pid \([0-9]*\).*/\1/p' \
		"$NETNS_TMP/$1/hipd.log" | tail -1
}
# gone PID: no such process (a zombie counts as gone: nobody may reap it in the VM).
gone() { [ ! -e "/proc/$1" ] || grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
# dead_peers: a's count of peers found gone (hipconf show stats; no python: slow under TCG).
dead_peers() { hc a --json show stats | grep -o '"dead_peers": [0-9]*' | grep -o '[0-9]*$'; }
# recover LABEL: a pings b's HIT until answered (at most RECOVER s), prints the time, and
# checks it.
recover() {
	local rc
	ping_until a "$HB" "$RECOVER" >"$NETNS_TMP/took" 2>&1
	rc=$?
	echo "# $1: a's pings answered again after $(cat "$NETNS_TMP/took") s (bound $RECOVER s)"
	check "$1: a's pings are answered again within $RECOVER s" eq "$rc" 0
}

check "first ping a -> b (ACQUIRE, base exchange) is answered" nsx a ping -n -c 1 -W 20 "$HB"
check "established on both sides" wait_up a b 10
check "one pair of SAs each, matching" one_pair
OLD=$(our_spis b)
check "b: the pair policies (in, out) are in the kernel" eq "$(pair_policies b)" 2

echo "# 1. kill -9 of b's hipd (at ${SECONDS} s)"
PARENT=$(hipd_pid b)
ENGINE=$(engine_pid b)
echo "# b: privileged process $PARENT, engine $ENGINE"
check "b's engine pid is known" eval '[ -n "$ENGINE" ] && [ "$ENGINE" != "$PARENT" ]'
hipd_kill9 b
check "both of b's processes are gone (the engine by PDEATHSIG)" \
	wait_for "b's processes gone" 10 eval 'gone "$PARENT" && gone "$ENGINE"'
check "the old SAs (SPIs $OLD) and pair policies are still in b's kernel" eval \
	'echo "SAs: $(our_spis b), pair policies: $(pair_policies b)";
	[ "$(our_spis b)" = "$OLD" ] && [ "$(pair_policies b)" = 2 ]'
check "b's hip0 went with its hipd" eval '! nsx b ip link show hip0'
dead0=$(dead_peers)
hipd_start b "datapath = kernel" || exit 1
check "b has the same HIT after the restart" eq "$(hit b)" "$HB"
check "b logged the removal of the earlier hipd's entries" \
	grep -q "removed [0-9]* stale SAs and policies of an earlier hipd" "$NETNS_TMP/b/hipd.log"
check "none of the old SPIs remains in b" none_of b $OLD
check "no old pair policy remains in b (only the ACQUIRE policies: HIT and LSI)" \
	eq "$(pair_policies b) $(our_policies b)" "0 2"
recover "kill -9"
# b's kernel drops a's ESP for the old SPIs without a word; b's raw ESP
# socket, filtered to SPIs b holds no SA of (xfrm_nosa.c), still sees it,
# and b answers with an ICMP Parameter Problem (RFC 7401 §4.3, D-14): a
# probes at once instead of after its 5 s liveness timeout (about 7 s here).
check "b told a: ESP for no SA of ours (ICMP Parameter Problem)" \
	grep -q "for SPI 0x[0-9a-f]*, no SA of ours: ICMP Parameter Problem sent" \
	"$NETNS_TMP/b/hipd.log"
check "kill -9: answered again within 5 s, before a's liveness timeout would" \
	awk -v t="$(cat "$NETNS_TMP/took")" 'BEGIN { exit !(t < 5) }'
check "a found the peer gone by its liveness probe" ge "$(dead_peers)" $((dead0 + 1))
check "established on both sides" wait_up a b 10
check "one pair of SAs each, matching" one_pair
check "no SA of the old association in a or b" eval 'none_of a $OLD && none_of b $OLD'

# 2. the engine alone crashes
round=2
for sig in SEGV ABRT; do
	echo "# $round. b's engine dies of SIG$sig (at ${SECONDS} s)"
	round=$((round + 1))
	OLD=$(our_spis b)
	PARENT=$(hipd_pid b)
	ENGINE=$(engine_pid b)
	dead0=$(dead_peers)
	check "SIG$sig: b holds the association's SAs (SPIs $OLD; HIT and LSI pairs)" \
		eq "$OLD" "$(hipconf_spis b "$HA")"
	kill -"$sig" "$ENGINE"
	wait "$PARENT"
	rc=$?
	rm -f "$NETNS_TMP/b/hipd.pid.launch"
	check "SIG$sig: the privileged process exits non-zero (no new engine)" ge "$rc" 1
	check "SIG$sig: logged: the engine died, its SAs and policies removed" eval \
		'grep -q "the engine died of signal" "$NETNS_TMP/b/hipd.log" &&
		grep -q "the engine is gone: removing its $(wc -w <<<"$OLD") SAs and [0-9]* policies" \
			"$NETNS_TMP/b/hipd.log"'
	check "SIG$sig: nothing of hipd's is left in b's kernel" \
		eq "$(our_spis b)/$(our_policies b)" "/0"
	hipd_start b "datapath = kernel" || exit 1
	recover "engine SIG$sig"
	check "SIG$sig: a found the peer gone by its liveness probe" \
		ge "$(dead_peers)" $((dead0 + 1))
	check "SIG$sig: established on both sides" wait_up a b 10
	check "SIG$sig: one pair of SAs each, matching" one_pair
	check "SIG$sig: no SA of the old association in a or b" eval \
		'none_of a $OLD && none_of b $OLD'
done
# (two crashes logged so far: the SIGSEGV and the SIGABRT)
check "both engine crashes were logged" \
	eq "$(grep -c "the engine died of signal" "$NETNS_TMP/b/hipd.log")" 2

hipd_stop a
rc_a=$?
hipd_stop b
rc_b=$?
check "both hipd exit 0 on SIGTERM" eq "$rc_a $rc_b" "0 0"
check "after SIGTERM: nothing of hipd's in a or b" \
	eq "$(our_spis a)/$(our_policies a) $(our_spis b)/$(our_policies b)" "/0 /0"
check "no sanitizer report in the hipd logs" sanitizer_clean
summary restart "(${SECONDS} s)"
