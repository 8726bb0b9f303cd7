#!/bin/bash
# hipfw restarted and reloaded under running associations (issue 15, D-21).
#
#   a (198.51.100.1) --- (198.51.100.2) r (203.0.113.1) --- (203.0.113.2) b
#                                       r (10.255.3.1)  --- (10.255.3.2)  c
#
# hipfw on R in middlebox mode with a state directory (--state-dir).
# - a rule denying A's HIT, reloaded with SIGHUP while B and C stream TCP
#   through R: the stream goes on across the reload, A's exchange with B
#   is denied; allowed again (SIGHUP) it completes;
# - a clean restart (SIGTERM, start) under a TCP stream A -> B: the stream
#   goes on, the association comes back from the state file (restored,
#   confirmed by its ESP, its kernel rules back), no new base exchange;
# - hipfw killed with SIGKILL under a TCP stream A -> B: its learnt-SPI
#   rules would go on passing that ESP; `hipfw --flush-fast-path` (the
#   unit's ExecStopPost=) removes exactly those (nothing else of R's
#   iptables and ip6tables changes; a second run finds nothing), and A's
#   ESP meets the queue with no reader: dropped (fail-closed), counted by
#   the queue rule; the next start removes what the killed run left (one
#   jump per hook and chain, one queue rule), restores the association
#   from the periodic save, the stream resumes intact and A -> B flows
#   without a new base exchange;
# - a state file that is not one: refused with a log line, hipfw starts
#   empty.
. "$(dirname "$0")/lib.sh"

FW=$NETNS_TMP/r
RATE=262144
SECS=6

netns_host a r b c
netns_link a r 1
netns_link r b 2
netns_link r c 3
nsx r sysctl -qw net.ipv4.ip_forward=1
nsx a ip route add default via "$(addr4 r 1)"
nsx b ip route add default via "$(addr4 r 2)"
nsx c ip route add default via "$(addr4 r 3)"

fw_start() { hipfw_start --state-dir "$FW/state" --no-ipv6; }
fw_reload() { kill -HUP "$FW_PID"; wait_for "rules reloaded" 5 eval "[ \$(fw_get reloads) -ge $1 ]"; }
esp_rules() { ipt r -S HIPFW_ESP | grep -c -- '--espspi'; }
queued() { ipt r -L HIPFW_ESP -v -x -n | awk '/NFQUEUE/ { print $1 }'; }
# R's packet filter, every table, both families, without counters
ipt_all() {
	{ nsx r iptables-legacy-save; nsx r ip6tables-legacy-save; } |
		grep -v '^#' | sed -E 's/ \[[0-9]+:[0-9]+\]$//'
}
# only_fast_path_removed BEFORE AFTER: AFTER is BEFORE without its (two or
# more) learnt-SPI rules, raw ESP in HIPFW_ESP and ESP in UDP in HIPFW_UDP
FAST_PATH='^-A HIPFW_ESP .* -m esp --espspi [0-9]+ -j ACCEPT$'
FAST_PATH="$FAST_PATH|^-A HIPFW_UDP .* -m u32 --u32 .* -j ACCEPT\$"
only_fast_path_removed() {
	local gone
	gone=$(diff "$1" "$2" | sed -n 's/^< //p')
	echo "# removed: $(echo "$gone" | grep -c .) rules"
	diff "$1" "$2" | grep '^[<>]' | sed 's/^/#   /'
	! diff "$1" "$2" | grep -q '^>' && [ "$(echo "$gone" | grep -c -E "$FAST_PATH")" -ge 2 ] &&
		! echo "$gone" | grep -v -q -E "$FAST_PATH" && ! grep -q -E "$FAST_PATH" "$2"
}
# the association A-B as R tracks it: "STATE probation"
ab_at_r() {
	fw --json show associations | python3 -c 'import json,sys
for a in json.load(sys.stdin):
    if {a["initiator"]["hit"], a["responder"]["hit"]} == set(sys.argv[1:]):
        print(a["state"], a["probation"]); break
else:
    print("none")' "$(hit a)" "$(hit b)"
}

mkdir -p "$FW/state"
hipd_start a
hipd_start b
hipd_start c
map a b 2; map b a 1
map b c 3; map c b 2
A=$(addr4 a 1); B=$(addr4 b 2)

echo 'default allow' >"$FW/rules"
fw_start

# 1. B -- C stream; A denied by a reload in the middle of it
check "B reaches C through R" ping_until b "$(hit c)" 15
stream_begin b c
cat >"$FW/rules" <<E
deny from $(hit a)
deny to $(hit a)
default allow
E
fw_reload 1
check "A cannot reach B: denied after the reload" eval "! ping_until a $(hit b) 3"
check "the denial is counted" ge "$(fw_get types.i1.denied)" 1
check "B never heard of A" no_ha b a
check "B -> C went on across the reload, intact" stream_end
check "B -- C kept its association (one base exchange)" eq "$(stat_of b bex.completed)" 1
echo 'default allow' >"$FW/rules"
fw_reload 2
check "allowed again: A reaches B" ping_until a "$(hit b)" 15
check "A and B associated" wait_up a b
check "R tracks A -- B, ESTABLISHED" wait_for "A-B at R" 5 \
	eval "[ \"\$(ab_at_r)\" = 'ESTABLISHED False' ]"
# two per direction of each association: the HITs' SA pair and hipd's LSI pair (D-22)
check "eight ESP rules (two associations)" wait_for "8 rules" 5 eval "[ \$(esp_rules) = 8 ]"
bex_a=$(stat_of a bex.completed)

# 2. a clean restart under a stream A -> B
stream_begin a b
kill "$FW_PID"
check "hipfw exits 0 on SIGTERM" wait "$FW_PID"
check "it wrote its state file, mode 0600" eq "$(stat -c %a "$FW/state/hipfw.state")" 600
fw_start
check "both associations restored from the state file" eq "$(trk restored)" 2
check "the stream A -> B went on across the restart, intact" stream_end
check "no new base exchange (A)" eq "$(stat_of a bex.completed)" "$bex_a"
check "no association created at R, only restored" eq "$(trk created)" 0
check "A -- B confirmed by its ESP" wait_for "confirmed" 5 \
	eval "[ \"\$(ab_at_r)\" = 'ESTABLISHED False' ]"
check "its ESP rules back in the kernel" wait_for "ESP rules" 5 eval "[ \$(esp_rules) -ge 2 ]"
n=$(esp_rules)
check "--flush-fast-path refuses while hipfw answers, its rules stay" \
	eval "! fw --flush-fast-path >'$FW/flush.out' 2>&1 && grep -q 'a hipfw answers' '$FW/flush.out' &&
	      [ \$(esp_rules) = $n ]"
grep 'state file' "$FW/hipfw.log" | sed 's/^/# /'

# 3. SIGKILL under a stream: the unit's ExecStopPost= flushes the fast path,
# the next start cleans up and restores from the periodic save
check "the state written since the restart" wait_for "a save" 10 \
	eval "[ \$(trk state_saves) -ge 1 ]"
stream_begin a b
kill -9 "$FW_PID"
wait "$FW_PID" 2>/dev/null
check "after kill -9 the chains stay (fail-closed)" \
	eq "$(ipt r -S | grep -c -E -- '-j HIPFW(_ESP)?$')" 6
check "... and its learnt-SPI rules: nobody judges A's ESP, it passes" \
	eval "[ \$(esp_rules) -ge 2 ] && nsx a ping -6 -c 1 -W 2 -q $(hit b)"
ipt_all >"$FW/ipt.before"
# as the unit's ExecStopPost= would run it: ExecStart='s --no-ipv6 too
check "hipfw --flush-fast-path, as the unit's ExecStopPost= runs it" \
	eval "fw --flush-fast-path --no-ipv6 >'$FW/flush.out' 2>&1"
sed 's/^/# /' "$FW/flush.out"
ipt_all >"$FW/ipt.after"
check "it removed the learnt-SPI rules, nothing else of R's iptables changed" \
	only_fast_path_removed "$FW/ipt.before" "$FW/ipt.after"
q0=$(queued)
check "A's ESP now meets the queue with no reader: dropped (fail-closed)" \
	eval "! nsx a ping -6 -c 3 -i 0.3 -W 1 -q $(hit b)"
check "... counted by HIPFW_ESP's queue rule" ge "$(($(queued) - q0))" 3
check "--flush-fast-path again: nothing to remove, nothing changed" \
	eval "fw --flush-fast-path --no-ipv6 | grep -q ' 0 rules removed' &&
	      ipt_all | cmp -s - '$FW/ipt.after'"
check "... IPv6 too, where hipfw has no chain: nothing to remove" \
	eval "fw --flush-fast-path | grep -q ' 0 rules removed (IPv4 0, IPv6 0)'"
fw_start
check "one jump per hook and chain, not two" \
	eq "$(ipt r -S | grep -c -E -- '-j HIPFW(_ESP)?$')" 6
check "one queue rule per chain" eq "$(ipt r -S | grep -c -- '-j NFQUEUE')" 2
check "both associations restored again, none created" eq "$(trk restored) $(trk created)" "2 0"
# restored ones are on probation: rules only for those their ESP confirmed
check "no ESP rule left by the killed run" \
	eval "[ \$(esp_rules) -le \$((4 * \$(trk confirmed))) ]"
check "the stream A -> B resumed after the restart, intact" stream_end
check "A reaches B again through R" ping_until a "$(hit b)" 10
check "a TCP transfer A -> B intact" tcp_transfer a b 2000000 60
check "no new base exchange (A)" eq "$(stat_of a bex.completed)" "$bex_a"
check "A -- B confirmed, its rules in the kernel once" wait_for "confirmed" 5 \
	eval "[ \"\$(ab_at_r)\" = 'ESTABLISHED False' ] &&
	      [ \$(ipt r -S HIPFW_ESP | grep -c -- '-s $A/32 -d $B/32') = 2 ]"

# 4. a state file that is not one: refused, hipfw starts empty
kill "$FW_PID"
check "hipfw exits 0 on SIGTERM" wait "$FW_PID"
printf 'HIPFWST\n\0\4\0\0\0\0\0\1' >"$FW/state/hipfw.state"
fw_start
check "a state file of another version refused, with a log line" \
	grep -q 'state file refused, starting with no associations: .*version 4' "$FW/hipfw.log"
check "hipfw started empty" eq "$(trk associations)" 0
kill "$FW_PID"
check "hipfw exits 0 on SIGTERM" wait "$FW_PID"
check "no sanitizer report in hipfw's log" eval "! grep -q -E 'AddressSanitizer|runtime error:' '$FW/hipfw.log'"

netns_done
