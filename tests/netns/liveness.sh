#!/bin/bash
# Peer liveness (issue 14; docs/decisions.md D-13). A keeps sending to B;
# when nothing comes back for peer_timeout_seconds (default 5), A probes
# with an UPDATE carrying ECHO_REQUEST_SIGNED. Checked:
#  - an idle association is never probed (a sleeping peer is not woken);
#  - one-way traffic: B answers the probe, the association stays;
#  - B's hipd is killed (kill -9: no CLOSE) and started again with the same
#    key while A pings B's HIT: B answers A's ESP and then A's probe with
#    ICMP Parameter Problems (RFC 7401 §4.3, §5.4.4; D-14), A removes the
#    association, and the next ping starts a new base exchange: pings come
#    back again, on a new association, within the liveness timeout, without
#    anyone touching A;
#  - the same with A in B's hosts file: the restarted B gets ESP it has no
#    SA for from a mapped address (or A's probe) and starts the exchange
#    itself (RFC 7401 §4.5.4): pings are answered again within 2 s;
#  - B killed for good: A's probe goes unanswered and A removes the
#    association.
. "$(dirname "$0")/lib.sh"

netns_host a b
netns_link a b 0
hipd_launch a; hipd_launch b
hipd_wait a b || exit 1
map a b
hc a trigger "$(hit b)" >/dev/null
check "A <-> B established" wait_up a b
check "ping A -> B" nsx a ping -6 -c 2 -W 2 -q "$(hit b)"

echo "# idle for 30 s (six times the timeout): no probe, nothing on the wire"
tx0=$(stat_of a tx.UPDATE)
sleep 30
check "an idle association is never probed" eq "$(stat_of a liveness.probes)" 0
check "... no UPDATE of any kind was sent" eq "$(stat_of a tx.UPDATE)" "$tx0"
check "... and says so" eq "$(ha_get a "$(hit b)" liveness)" ok

echo "# one-way UDP A -> B for 8 s: nothing comes back but B is there"
nsx b timeout 12 python3 -c 'import socket,sys
s=socket.socket(socket.AF_INET6,socket.SOCK_DGRAM); s.bind((sys.argv[1],9999))
while True: s.recv(2048)' "$(hit b)" &
SINK=$!
sleep 0.5
nsx a timeout 10 python3 -c 'import socket,sys,time
s=socket.socket(socket.AF_INET6,socket.SOCK_DGRAM); t=time.time()
while time.time()-t<8: s.sendto(b"x"*100,(sys.argv[1],9999)); time.sleep(0.05)' "$(hit b)"
kill "$SINK" 2>/dev/null; wait "$SINK" 2>/dev/null
check "A probed the silent peer" ge "$(stat_of a liveness.probes)" 1
check "B answered; the association stays" eq \
	"$(stat_of a liveness.answered liveness.dead_peers) $(ha_get a "$(hit b)" state)" "1 0 ESTABLISHED"

echo "# B's hipd crashes and comes back with its key while A pings B"
read -r spi_in spi_out <<<"$(ha_get a "$(hit b)" spi_in spi_out)"
hipd_kill9 b
CAP="$NETNS_TMP/icmp.pcap"
nsx a timeout 60 tcpdump -i va0 --immediate-mode -U -w "$CAP" icmp 2>/dev/null &
wait_for "tcpdump running" 5 test -s "$CAP"
hipd_start b || exit 1
ping_until a "$(hit b)" >"$NETNS_TMP/recovered" 2>&1
rc=$?
capture_stop "$CAP"
echo "# pings answered again after $(cat "$NETNS_TMP/recovered") s"
check "A's pings to B are answered again within 5 s (the liveness timeout)" eval \
	'[ $rc -eq 0 ] && awk "{exit !(\$1 < 5)}" "$NETNS_TMP/recovered"'
check "B told A with ICMP Parameter Problems (ESP for no SA, the probe for no association)" \
	ge "$(stat_of b icmp.sent)" 2
check "A found the peer gone by the ICMP about its probe (logged, counted)" eval \
	'grep -q "has no association with us" "$NETNS_TMP/a/hipd.log" &&
	 [ "$(stat_of a liveness.dead_peers) $(stat_of a icmp.peers_found_gone)" = "1 1" ]'
if command -v tshark >/dev/null; then
	# independent dissector: the ICMPs are well formed and quote A's ESP and UPDATE
	icmp_seen=$(tshark -r "$CAP"\
		-Y 'icmp.type == 12 && icmp.checksum.status == 1' -T fields -e ip.proto 2>/dev/null |
		tr '\n' ' ')
	echo "# quoted protocols in B's ICMP Parameter Problems: $icmp_seen"
	check "tshark: Parameter Problems with good checksums quoting ESP (50) and HIP (139)" eval \
		'grep -q "50" <<<"$icmp_seen" && grep -q "139" <<<"$icmp_seen"'
fi
check "the fresh B, which knows nothing of A, started nothing itself" \
	eq "$(stat_of b liveness.lost_state_exchanges)" 0
check "a new association, new SPIs, one each" eval '[ "$(ha_count a) $(ha_count b)" = "1 1" ] &&
	[ "$(ha_get a "$(hit b)" spi_in)" != "$spi_in" ] && spis_match a b'
check "ping B -> A on it" nsx b ping -6 -c 2 -W 2 -q "$(hit a)"

echo "# again, with A in B's hosts file: B itself starts the exchange on A's ESP"
echo "$(hit a) $(addr4 a 0)" >>"$NETNS_TMP/b/hosts"
read -r spi_in spi_out <<<"$(ha_get a "$(hit b)" spi_in spi_out)"
hipd_kill9 b
hipd_start b || exit 1
ping_until a "$(hit b)" >"$NETNS_TMP/recovered" 2>&1
rc=$?
echo "# pings answered again after $(cat "$NETNS_TMP/recovered") s"
check "A's pings to B are answered again within 2 s" eval \
	'[ $rc -eq 0 ] && awk "{exit !(\$1 < 2)}" "$NETNS_TMP/recovered"'
check "B started it: ESP for no SA of its own from a mapped peer (RFC 7401 §4.5.4)" eval \
	'grep -q "for no SA of ours" "$NETNS_TMP/b/hipd.log" &&
	 [ "$(stat_of b liveness.lost_state_exchanges)" = 1 ]'
check "A replaced its association (new SPIs) without a second probe" eval \
	'[ "$(ha_get a "$(hit b)" spi_in)" != "$spi_in" ] && spis_match a b &&
	 [ "$(stat_of a liveness.probes)" = 2 ]'

echo "# B's hipd is killed and stays away: A finds the peer gone"
hipd_kill9 b
nsx a ping -6 -c 60 -i 0.2 -W 1 -q "$(hit b)" >/dev/null 2>&1
# (the pings still going start new exchanges: an I1-SENT one may be there)
check "A removed the association after its probe went unanswered" wait_for "peer gone" 15 eval \
	'[ "$(stat_of a liveness.dead_peers)" = 2 ] && [ "$(ha_get a "$(hit b)" state)" != ESTABLISHED ]'
netns_done
