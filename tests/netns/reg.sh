#!/bin/bash
# Registration (RFC 8003) as a user sees it, through hipconf's JSON and the
# server's counters; rvs.sh covers the successful path and rendezvous.
#  - refusal: a server whose registration_allow_file lists other HITs
#    refuses a client with REG_FAILED type 0 (the client shows state
#    refused, failure type 0 and its reason; the server counts it), grants
#    a client on the list, and grants the refused one by itself once its
#    HIT is added to the file and the server reloads;
#  - a service the server does not offer (relay from a rendezvous-only
#    server) is not asked for (RFC 8003 §3.2): the client shows it refused;
#  - expiry: a client that registered for 10 s and crashed (no renewal,
#    no cancel) is dropped by the server when the lifetime ends (expired);
#  - server restart: when the server stops (CLOSE) or crashes (the
#    client's renewal UPDATE goes unanswered), the client registers again
#    with a new base exchange by itself;
#  - flood: registration_requests_per_second = 1 and three clients at the
#    same moment: REG_FAILED type 2 (rate_limited), the refused clients do
#    not retry at once (§3.3) but register later by themselves (60 s).
# Every server has its own links to its clients (no routing).
. "$(dirname "$0")/lib.sh"

netns_host sa r p sb u e sc k sd f1 f2 f3
netns_link sa r 1; netns_link sa p 2     # allow-list server
netns_link sb u 3; netns_link sb e 4     # services and expiry
netns_link sc k 5                        # restart
netns_link sd f1 6; netns_link sd f2 7; netns_link sd f3 8   # flood

SB_CONF=("offer_services = rendezvous" "registration_min_lifetime = 10")
SC_CONF=("offer_services = rendezvous" "registration_min_lifetime = 10")
SD_CONF=("offer_services = rendezvous" "registration_requests_per_second = 1")
for n in r p u k f1 f2 f3; do hipd_launch "$n" "registration_lifetime = 20"; done
hipd_launch e "registration_lifetime = 10"
hipd_launch sb "${SB_CONF[@]}"; hipd_launch sc "${SC_CONF[@]}"; hipd_launch sd "${SD_CONF[@]}"
hipd_wait r p u e k f1 f2 f3 sb sc sd || exit 1
# S A's allow-list: P and a HIT nobody here has, not R
printf '# who may register\n2001:2f::1\n%s\n' "$(hit p)" >"$NETNS_TMP/sa/allow"
hipd_start sa "offer_services = rendezvous" "registration_allow_file = $NETNS_TMP/sa/allow" ||
	exit 1

# srv NAME FIELD...: fields of NAME's first (only) server in show servers
srv() { local n=$1; shift; hc "$n" --json show servers | jget "${@/#/servers.0.}"; }
# regs NAME FIELD...: fields of the server NAME's show registrations
regs() { local n=$1; shift; hc "$n" --json show registrations | jget "$@"; }
# jnum NAME COMMAND FIELD: the first "FIELD" of NAME's hipconf --json COMMAND,
# without python (polled: wait_for counts tries, so a poll must be quick)
jnum() { hc "$1" --json $2 | grep -o "\"$3\": [^,}]*" | head -1 | sed 's/^[^:]*: "\{0,1\}//; s/"$//'; }
srv_is() { eq "$(jnum "$1" "show servers" state)" "$2"; }
nregs_is() { eq "$(jnum "$1" "show registrations" registrations)" "$2"; }
# add NAME SERVER IDX [SERVICE]: NAME registers with SERVER at its address on link IDX
add() { hc "$1" add server "$(hit "$2")" "$(addr4 "$2" "$3")" ${4:+"$4"} >/dev/null; }

echo "# flood: three clients at the same moment, one REG_REQUEST a second allowed"
pids=""
for n in f1 f2 f3; do add "$n" sd $((5 + ${n#f})) & pids="$pids $!"; done
bad=0
for p in $pids; do wait "$p" || bad=$((bad + 1)); done
check "hipconf add server on the three clients" eq "$bad" 0
# settled: registered or refused
settled() { local n; for n in f1 f2 f3; do case $(jnum "$n" "show servers" state) in
	registered|refused) ;; *) return 1;; esac; done; }
check "the three base exchanges end, each registered or refused" wait_for "settled" 20 settled
refused=""
for n in f1 f2 f3; do [ "$(srv "$n" state)" = refused ] && refused="$refused $n"; done
check "at least one client refused" eval '[ -n "$refused" ]'
check "S D counted the flood (rate_limited)" ge "$(regs sd rate_limited)" 1
check "S D granted the one its limit lets through" ge "$(regs sd granted)" 1
for n in $refused; do
	check "$n: refused with failure type 2 (insufficient resources)" \
		eq "$(srv "$n" failed.0.service failed.0.failure_type)" "rendezvous 2"
	check "$n: with its reason" eq "$(srv "$n" failed.0.reason)" "insufficient resources"
done
# the flood is over: the refused clients' retries (in 60 s, RFC 8003 §3.3:
# not at once) may come in the same second, so lift the limit for them
sed -i 's/^registration_requests_per_second = 1$/registration_requests_per_second = 100/' \
	"$NETNS_TMP/sd/hipd.conf"
check "S D reloads with a higher limit" hc sd reload
t_flood=$(date +%s)

echo "# refusal: S A's allow-list names P, not R"
check "hipconf add server (R, P)" eval 'add r sa 1 && add p sa 2'
check "P (on the list) is registered" wait_for "P registered" 15 srv_is p registered
check "R is refused" wait_for "R refused" 15 srv_is r refused
check "R: rendezvous refused with failure type 0" \
	eq "$(srv r failed.0.service failed.0.failure_type)" "rendezvous 0"
check "R: with its reason" eq "$(srv r failed.0.reason)" \
	"not allowed (additional credentials required)"
check "R: granted nothing" eq "$(srv r granted)" "-"
check "S A counted the refusal" ge "$(regs sa refused)" 1
check "S A holds P's registration only" eq "$(regs sa registrations clients.0.hit)" \
	"1 $(hit p)"
check "S A shows its allow-list" eq "$(regs sa allow_list)" 2
echo "$(hit r)" >>"$NETNS_TMP/sa/allow"
check "S A reloads the allow-list with R added" hc sa reload
check "R retries by itself and is registered" wait_for "R registered" 30 srv_is r registered
check "R: no failure shown any more" eq "$(srv r failed)" "[]"
check "S A holds two registrations" eq "$(regs sa registrations)" 2
# R, refused with type 0, retried after 10 s; type 2 waits 60 s (§3.3)
if [ $(($(date +%s) - t_flood)) -lt 45 ]; then
	for n in $refused; do
		check "$n (type 2) has not retried yet" eq "$(srv "$n" state refusals)" "refused 1"
	done
fi

echo "# a service S B does not offer"
check "hipconf add server ... relay (U)" add u sb 3 relay
check "U: relay is not granted (refused)" wait_for "U refused" 15 srv_is u refused
check "U: granted nothing" eq "$(srv u granted)" "-"
# U asks only for what S B's REG_INFO lists (RFC 8003 §3.2): nothing here, so
# no REG_REQUEST reaches S B, and no REG_FAILED type 1 comes back
check "S B holds no registration, refused none" eq "$(regs sb registrations refused)" "0 0"
check "U: no failure type from the server" eq "$(srv u failed)" "[]"

echo "# expiry (E, 10 s, crashes) and server restarts (S C; K asks for 20 s)"
check "hipconf add server (E, K)" eval 'add e sb 4 && add k sc 5'
check "E is registered with S B" wait_for "E registered" 15 srv_is e registered
check "E: 10 s granted" eq "$(srv e lifetime_s)" 10
check "K is registered with S C" wait_for "K registered" 15 srv_is k registered
check "S B holds E's registration" eq "$(regs sb registrations)" 1
hipd_kill9 e
t_kill=$(date +%s)
# k_regs N: K is registered, for the Nth time (show servers: registrations)
k_regs() { srv_is k registered && eq "$(jnum k "show servers" registrations)" "$1"; }
# S C stops (it closes its associations) and comes back with the same key
check "S C stops" hipd_stop sc
hipd_launch sc "${SC_CONF[@]}"
check "S C is back (same key)" hipd_wait sc
check "K registers again by itself (new base exchange)" \
	wait_for "K registered again" 30 k_regs 2
check "S C holds K's registration again" eq "$(regs sc registrations clients.0.hit)" \
	"1 $(hit k)"
check "S B drops E's registration when its lifetime ends" \
	wait_for "E expired" 20 nregs_is sb 0
echo "    ($(( $(date +%s) - t_kill )) s after E crashed)"
check "S B counted it expired" eq "$(regs sb expired cancelled)" "1 0"
# S C crashes (no CLOSE) and comes back: K's renewal UPDATE is unanswered
upd_failed=$(stat_of k update.failed)
hipd_kill9 sc
hipd_launch sc "${SC_CONF[@]}"
check "S C is back after a crash" hipd_wait sc
check "S C starts with no registrations" eq "$(regs sc registrations)" 0
check "K registers again by itself (renewal unanswered, new base exchange)" \
	wait_for "K registered a third time" 60 k_regs 3
# the fresh S C either lets K's renewal UPDATE go unanswered, or answers it
# with a base exchange of its own (it lost the association; RFC 7401 §4.5.4)
check "K's renewal UPDATE went unanswered, or S C restarted the exchange on it" eval \
	'[ "$(stat_of k update.failed)" -ge $((upd_failed + 1)) ] ||
	 [ "$(stat_of sc liveness.lost_state_exchanges)" -ge 1 ]'
check "S C holds K's registration" eq "$(regs sc registrations clients.0.hit)" "1 $(hit k)"

echo "# the flood's refused clients register later by themselves"
left=$((t_flood + 90 - $(date +%s)))
for n in f1 f2 f3; do
	check "$n registered" wait_for "$n registered" $((left > 5 ? left : 5)) srv_is "$n" registered
done
check "S D holds three registrations" eq "$(regs sd registrations)" 3
netns_done
