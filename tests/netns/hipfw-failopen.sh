#!/bin/bash
# hipfw when things fail: its rule changes (D-25), or hipfw itself, killed
# with SIGKILL, --fail-open against the default, fail-closed (issue 15,
# docs/decisions.md D-17).
#
#   a (198.51.100.1) --- (198.51.100.2) r (203.0.113.1) --- (203.0.113.2) b
#
# While R's iptables-restore fails (a wrapper refusing while $FW/fail
# exists), the association still passes, its ESP judged by hipfw on its SPI;
# `hipfw show` counts no rule the kernel does not hold, and the failures;
# once the program works again the rules follow without a new change (the
# retry), both the additions after R2 and the removals after CLOSE.
#
# hipfw on R in middlebox mode, killed with SIGKILL while A and B are
# associated through it, its learnt-SPI rules then flushed as the unit's
# ExecStopPost= does (hipfw --flush-fast-path), so that what passes R is
# what its queue rules do with no reader:
# - with --fail-open (NFQUEUE --queue-bypass): A's ESP to B keeps flowing,
#   A's CLOSE reaches B, and a new base exchange completes through R;
# - with the default (fail-closed): A's ESP to B is dropped, counted by the
#   queue rule, and A's CLOSE never reaches B.
. "$(dirname "$0")/lib.sh"

FW=$NETNS_TMP/r

netns_host a r b
netns_link a r 1
netns_link r b 2
nsx r sysctl -qw net.ipv4.ip_forward=1
nsx a ip route add default via "$(addr4 r 1)"
nsx b ip route add default via "$(addr4 r 2)"

esp_rules() { ipt r -S HIPFW_ESP | grep -c -- '--espspi'; }
bypass() { ipt r -S | grep -c -- '--queue-bypass'; }
queued() { ipt r -L HIPFW_ESP -v -x -n | awk '/NFQUEUE/ { print $1 }'; }
# kill_and_flush: SIGKILL, then what the unit's ExecStopPost= runs
kill_and_flush() {
	kill -9 "$FW_PID"
	wait "$FW_PID" 2>/dev/null
	fw --flush-fast-path --no-ipv6 >/dev/null && [ "$(esp_rules)" = 0 ]
}
b_closed() { ! state_is b a ESTABLISHED; }

hipd_start a
hipd_start b
map a b 2; map b a 1
echo 'default allow' >"$FW/rules"

# 0. iptables-restore failing (hipfw does not wait for it, D-25)
mkdir -p "$FW/bin"
printf '#!/bin/sh\nexec iptables-legacy "$@"\n' >"$FW/bin/iptables-legacy"
printf '#!/bin/sh\nexec iptables-legacy-save "$@"\n' >"$FW/bin/iptables-legacy-save"
printf '#!/bin/sh\n[ -e "%s" ] && exit 1\nexec iptables-legacy-restore "$@"\n' "$FW/fail" \
	>"$FW/bin/iptables-legacy-restore"
chmod +x "$FW/bin/"*
touch "$FW/fail"
hipfw_start --no-ipv6 --iptables "$FW/bin/iptables-legacy"
check "refused rule changes: A reaches B through hipfw all the same" ping_until a "$(hit b)" 15
check "the failures are counted" wait_for "errors" 5 eval "[ \$(trk esp_rule_errors) -ge 1 ]"
check "no ESP rule in the kernel, and hipfw counts none" eq "$(esp_rules) $(trk esp_rules)" "0 0"
e0=$(trk esp_accepted)
check "A's ESP passes, judged in userspace on its SPI" \
	eval "nsx a ping -6 -c 3 -i 0.3 -W 2 -q $(hit b) && [ \$(trk esp_accepted) -ge $((e0 + 3)) ]"
check "the failure logged" grep -q 'ESP fast path: .*-restore failed' "$FW/hipfw.log"
rm "$FW/fail"
check "the program works again: the rules follow, counted" wait_for "rules in" 5 \
	eval "[ \"\$(esp_rules) \$(trk esp_rules)\" = '4 4' ]"
runner=$(pgrep -P "$FW_PID")
check "hipfw's runner process runs the changes" test -n "$runner"
kill -9 $runner
check "the runner killed: logged, hipfw starts iptables-restore itself" wait_for "log" 5 \
	grep -q 'the runner process is gone' "$FW/hipfw.log"
e0=$(trk esp_rule_errors)
touch "$FW/fail"
hc a close "$(hit b)" >/dev/null
check "A's CLOSE passes" wait_for "B closed" 10 b_closed
check "the removal fails: the rules stay, and hipfw still counts them" wait_for "errors" 5 \
	eval "[ \$(trk esp_rule_errors) -gt $e0 ] && [ \"\$(esp_rules) \$(trk esp_rules)\" = '4 4' ]"
rm "$FW/fail"
check "the program works again: the rules go, counted" wait_for "rules out" 5 \
	eval "[ \"\$(esp_rules) \$(trk esp_rules)\" = '0 0' ]"
check "hipfw exits 0 on SIGTERM, its chains gone" \
	eval "hipfw_stop && ! ipt r -S HIPFW_ESP 2>/dev/null"
check "its runner had started (no 'no runner' line in the log)" \
	eq "$(grep -c 'ESP fast path: no runner' "$FW/hipfw.log")" 0

# 1. --fail-open
hipfw_start --fail-open --no-ipv6
check "fail-open: both queue rules bypass a queue without reader" eq "$(bypass)" 2
check "A reaches B through hipfw" ping_until a "$(hit b)" 15
check "A -- B's ESP rules in the kernel" wait_for "ESP rules" 5 eval "[ \$(esp_rules) = 4 ]"
runner=$(pgrep -P "$FW_PID")
check "hipfw killed (SIGKILL), its fast path flushed" kill_and_flush
check "its runner process died with it" wait_for "runner gone" 5 eval "! kill -0 $runner 2>/dev/null"
check "the queue rules stay" eq "$(bypass)" 2
check "fail-open: A's ESP to B still flows, unjudged" \
	nsx a ping -6 -c 3 -i 0.3 -W 2 -q "$(hit b)"
bex=$(stat_of a bex.completed)
hc a close "$(hit b)" >/dev/null
check "fail-open: A's CLOSE reaches B" wait_for "B closed" 10 b_closed
check "fail-open: a new base exchange A -- B completes" ping_until a "$(hit b)" 15
check "... a new one" ge "$(stat_of a bex.completed)" $((bex + 1))
hc a close "$(hit b)" >/dev/null
check "closed again, with hipfw still dead" wait_for "B closed" 10 b_closed

# 2. the default: fail-closed (the start removes what the killed run left)
hipfw_start --no-ipv6
check "fail-closed: no queue rule bypasses" eq "$(bypass)" 0
check "A reaches B through hipfw (a new exchange)" ping_until a "$(hit b)" 15
check "A -- B's ESP rules in the kernel" wait_for "ESP rules" 5 eval "[ \$(esp_rules) = 4 ]"
check "hipfw killed (SIGKILL), its fast path flushed" kill_and_flush
q0=$(queued)
check "fail-closed: A's ESP to B dropped" eval "! nsx a ping -6 -c 3 -i 0.3 -W 1 -q $(hit b)"
check "... counted by HIPFW_ESP's queue rule" ge "$(($(queued) - q0))" 3
hc a close "$(hit b)" >/dev/null
sleep 3
check "fail-closed: A's CLOSE never reached B" state_is b a ESTABLISHED
check "no sanitizer report in hipfw's log" \
	eval "! grep -q -E 'AddressSanitizer|runtime error:' '$FW/hipfw.log'"

netns_done
