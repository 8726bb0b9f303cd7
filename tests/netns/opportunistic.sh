#!/bin/bash
# Opportunistic mode, the Initiator's side (issue 16; RFC 7401 §4.1.8;
# docs/decisions.md D-27): reaching a plain IP address without its HIT.
#  - off by default: `hipconf trigger ADDRESS` is refused with a clear
#    error and sends nothing;
#  - allowed for the address (hipd.conf opportunistic_peers, by reload):
#    the first exchange learns b's HIT and pins it in known_hosts (logged
#    at notice level), the peer is then mapped: ping over its HIT and
#    ping -4 over its LSI; the pin survives a restart of a, whose
#    traffic to b's HIT then starts an exchange by itself;
#  - another host taking the address (b with a new identity): the R1
#    naming another HIT is refused with a log line naming both HITs and
#    the pin's line, counted, and no association is made with it;
#  - `hipconf del pin` removes the pin (and the file line); the next
#    exchange learns the new HIT;
#  - a known_hosts file with a bad line stops hipd at start with its
#    line number.
#
#   a -- b   (link 0: 192.0.2.0/24, fd00:0::/64)
. "$(dirname "$0")/lib.sh"

netns_host a b c
netns_link a b 0
# short I1 back-off: the refused case below gives up in about 1 s
A_CONF=("i1_timeout_ms = 300" "i1_retries = 2")
hipd_launch a "${A_CONF[@]}"
hipd_launch b "opportunistic = yes"
hipd_wait a b || exit 1
B4=$(addr4 b 0)
KH=$NETNS_TMP/a/known_hosts
pins() { hc a --json show pins | jget "$@"; }
ping4() { nsx "$1" ping -4 -c "${3:-1}" -i 0.2 -W 5 "$2"; }

echo "# off by default"
check "trigger $B4 refused: opportunistic mode is off (exit 4)" fails_with 4 \
	"opportunistic mode is off for $B4: no base exchange without its HIT" hc a trigger "$B4"
check "nothing started, b got no I1" eq "$(pins started) $(stat_of b rx.I1)" "0 0"
check "hipconf show config: opportunistic_peers none" eq \
	"$(hc a --json show config | jget opportunistic_peers)" none

echo "# allowed for $B4 (reload)"
A_CONF+=("opportunistic_peers = $B4/32 2001:db8::/32")
echo "${A_CONF[2]}" >>"$NETNS_TMP/a/hipd.conf"
check "reload" hc a reload
check "trigger $B4: started, no HIT known yet" fails_with 0 "(HIT not known yet)" \
	hc a trigger "$B4"
check "a <-> b up" wait_up a b
check "the HIT learnt is b's, pinned for $B4" eq "$(pins pins.0.address pins.0.hit learnt)" \
	"$B4 $(hit b) 1"
check "known_hosts has the pin" grep -q "^$B4 $(hit b) since=[0-9]* " "$KH"
check "logged once at notice level (<5>)" eq "$(grep -c "^<5>learnt HIT $(hit b) for $B4 \
(opportunistic, trusted on first use): pinned in $KH" "$NETNS_TMP/a/hipd.log")" 1
check "b is now mapped to $B4 (show maps)" eq \
	"$(hc a --json show maps | jget maps.0.hit maps.0.locators.0.address)" "$(hit b) $B4"
check "ping to b's HIT" nsx a ping -6 -c 2 -W 2 -q "$(hit b)"
LB=$(ha_get a "$(hit b)" lsi)
check "ping -4 to b's LSI $LB" ping4 a "$LB" 2
check "trigger $B4 again: nothing new (pinned, up)" fails_with 0 "pinned to $(hit b)" \
	hc a trigger "$B4"
check "still one association, one exchange" eq "$(ha_count a) $(pins started)" "1 1"

echo "# a restarts: the pin stays"
hipd_stop a; hipd_start a "${A_CONF[@]}" || exit 1
LINE=$(grep -n "^$B4 " "$KH" | cut -d: -f1)
check "pin loaded from its line ($LINE) of known_hosts" eq "$(pins pins.0.hit pins.0.line)" \
	"$(hit b) $LINE"
check "ping to b's HIT starts an exchange by itself (b mapped by the pin)" \
	ping_until a "$(hit b)" 20
check "a <-> b up" wait_up a b

echo "# another host takes $B4 (b with a new identity)"
OLD=$(hit b)
hipd_stop b; rm -f "$NETNS_TMP/b/hip_host_key.pem" "$NETNS_TMP/b/hit"
hipd_start b "opportunistic = yes" || exit 1
NEW=$(hit b)
check "b's HIT changed" eval '[ "$NEW" != "$OLD" ]'
hc a close "$OLD" >/dev/null
check "trigger $B4" hc a trigger "$B4"
check "the R1 naming $NEW is refused, with both HITs and the pin's line" wait_for "refusal" 10 \
	grep -q "$B4 answers as $NEW, but it is pinned to $OLD ($KH line $LINE): refused" \
	"$NETNS_TMP/a/hipd.log"
check "counted" ge "$(pins refused)" 1
check "given up after the I1 back-off, no association with $NEW" wait_for "given up" 10 \
	grep -q "opportunistic exchange with $B4: no acceptable R1 to 3 I1s, given up" \
	"$NETNS_TMP/a/hipd.log"
check "no association with $NEW; pin unchanged" eq "$(ha_get a "$NEW" state) $(pins pins.0.hit)" \
	"none $OLD"

echo "# hipconf del pin: the next exchange learns anew"
check "del pin $B4" fails_with 0 "pin of $OLD for $B4 removed" hc a del pin "$B4"
check "known_hosts no longer has it" eval "! grep -q '^$B4 ' '$KH'"
check "del pin $B4 again: not pinned (exit 3)" fails_with 3 "$B4 is not pinned" \
	hc a del pin "$B4"
check "trigger $B4" hc a trigger "$B4"
check "a <-> b (new) up" wait_up a b
check "the new HIT is pinned" eq "$(pins pins.0.hit)" "$NEW"
check "ping to the new HIT" nsx a ping -6 -c 2 -W 2 -q "$NEW"

echo "# a known_hosts file with a bad line"
printf '# pins\n%s %s\n192.0.2.9 nonsense\n' "$B4" "$NEW" >"$NETNS_TMP/c/known_hosts"
hipd_launch c
check "hipd refuses to start, naming the line" wait_for "c's error" 10 grep -q \
	"known_hosts_file: $NETNS_TMP/c/known_hosts:3: 'nonsense' is not a HIT" \
	"$NETNS_TMP/c/hipd.log"
check "and exits" wait_for "c exits" 10 eval '! hipd_alive c'
rm -f "$NETNS_TMP/c/hipd.pid.launch"

netns_done
