# tests/netns/lib.sh - network-namespace test framework for hipd.
# Sourced by each scenario. In the spirit of WireGuard's netns.sh.
#
#   ns A (hipt<id>a)                          ns B (hipt<id>b)
#   +--------------------+   veth pair     +--------------------+
#   | hipd  (dir A)      |   va0 <----> vb0 | hipd  (dir B)      |
#   | va0 192.0.2.1/24   |                  | vb0 192.0.2.2/24   |
#   |     fd00:0::1/64   |                  |     fd00:0::2/64   |
#   +--------------------+                  +--------------------+
#
# Only addresses inside namespaces this script creates are ever used; every
# namespace, process and iptables rule is removed on exit, even on failure.
# Packet loss is made with iptables-legacy rules inside a namespace (the nft
# backend lacks the u32/statistic matches here); they go with the namespace.
set -u

NETNS_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$NETNS_ROOT/build}
HIPD=${HIPD:-$BUILD/hipd/hipd}
HIPCONF=${HIPCONF:-$BUILD/tools/hipconf}
HIP_INJECT=${HIP_INJECT:-$BUILD/tools/hip-inject}
NETNS_ID=${NETNS_ID:-$$}
NETNS_TMP=$(mktemp -d "${TMPDIR:-/tmp}/hipt.XXXXXX")
NETNS_LIST=""
NETNS_T0=$(date +%s.%N)
# check, expect, wait_for, eq, ge, fails_with, summary (check's output goes to NETNS_TMP)
CHECK_DIR=$NETNS_TMP
. "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"

ns_name() { echo "hipt${NETNS_ID}$1"; }
nsx() { local n=$1; shift; ip netns exec "$(ns_name "$n")" "$@"; }
# capture_stop FILE: end the tcpdump writing FILE (-w FILE) and wait until it
# has exited, so the capture is whole when it is read (killing the
# background job started with nsx only ends the shell around it)
capture_stop() {
	local i
	pkill -INT -f -- "-w $1( |$)" 2>/dev/null
	for i in $(seq 50); do pgrep -f -- "-w $1( |$)" >/dev/null || return 0; sleep 0.1; done
	pkill -KILL -f -- "-w $1( |$)" 2>/dev/null
}

netns_cleanup() {
	local n
	for n in $NETNS_LIST; do
		[ -f "$NETNS_TMP/$n/hipd.pid.launch" ] && kill "$(cat "$NETNS_TMP/$n/hipd.pid.launch")" 2>/dev/null
	done
	sleep 0.2
	for n in $NETNS_LIST; do
		ip netns pids "$(ns_name "$n")" 2>/dev/null | xargs -r kill -9 2>/dev/null
		nsx "$n" iptables-legacy -w -F 2>/dev/null
		nsx "$n" ip6tables-legacy -w -F 2>/dev/null
		ip netns del "$(ns_name "$n")" 2>/dev/null
	done
	if [ "$CHECK_FAILED" -ne 0 ] || [ -n "${KEEP_LOGS:-}" ]; then
		for n in $NETNS_LIST; do
			[ -f "$NETNS_TMP/$n/hipd.log" ] || continue
			echo "---- hipd log of host $n (last ${LOG_LINES:-40} lines) ----"
			tail -"${LOG_LINES:-40}" "$NETNS_TMP/$n/hipd.log"
		done
	fi
	rm -rf "$NETNS_TMP"
}
trap netns_cleanup EXIT
trap 'exit 130' INT TERM

# The reaper outlives the script: whatever ends it (kill -9; a signal while
# bash reads a command substitution can make bash abort before any trap
# runs), this script's namespaces, their processes and its files go.
# Namespaces are named hipt<NETNS_ID><host>, host names start with a letter.
# (So scripts must wait for their own jobs by pid, never with a bare wait.)
netns_reap() {
	local ns p
	for ns in $(ip netns list 2>/dev/null | awk -v p="hipt$NETNS_ID" \
		'index($1, p) == 1 && substr($1, length(p) + 1, 1) ~ /[a-z]/ { print $1 }'); do
		for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
		ip netns del "$ns" 2>/dev/null
	done
	rm -rf "$NETNS_TMP"
}
(trap '' INT TERM HUP; while kill -0 $$ 2>/dev/null; do sleep 0.5; done; netns_reap) \
	</dev/null >/dev/null 2>&1 &

# netns_host NAME...: create namespaces with lo up.
netns_host() {
	local n
	for n in "$@"; do
		ip netns add "$(ns_name "$n")" || exit 1
		NETNS_LIST="$NETNS_LIST $n"
		mkdir -p "$NETNS_TMP/$n"
		nsx "$n" ip link set lo up
	done
}

# netns_link A B IDX: veth vA<IDX> <-> vB<IDX>; A gets .1 / ::1, B .2 / ::2 on
# subnet IDX (0: 192.0.2.0/24, 1: 198.51.100.0/24, 2: 203.0.113.0/24,
# n: 10.255.n.0/24; IPv6 fd00:IDX::/64). addr4/addr6 NAME IDX print them.
netns_link() {
	local a=$1 b=$2 idx=${3:-0} v4
	case $idx in 0) v4=192.0.2;; 1) v4=198.51.100;; 2) v4=203.0.113;; *) v4=10.255.$idx;; esac
	ip link add "v$a$idx" netns "$(ns_name "$a")" type veth peer name "v$b$idx" netns "$(ns_name "$b")"
	nsx "$a" ip -batch - <<-E
		addr add $v4.1/24 dev v$a$idx
		addr add fd00:$idx::1/64 dev v$a$idx nodad
		link set v$a$idx up
	E
	nsx "$b" ip -batch - <<-E
		addr add $v4.2/24 dev v$b$idx
		addr add fd00:$idx::2/64 dev v$b$idx nodad
		link set v$b$idx up
	E
	echo "$v4.1" >"$NETNS_TMP/$a/addr4.$idx"; echo "fd00:$idx::1" >"$NETNS_TMP/$a/addr6.$idx"
	echo "$v4.2" >"$NETNS_TMP/$b/addr4.$idx"; echo "fd00:$idx::2" >"$NETNS_TMP/$b/addr6.$idx"
}
addr4() { cat "$NETNS_TMP/$1/addr4.${2:-0}"; }
addr6() { cat "$NETNS_TMP/$1/addr6.${2:-0}"; }

# hipd_launch NAME [extra config lines...]: start hipd with its own paths
# (a key file already in its directory is used, else one is generated), logging
# at HIPD_LOG_LEVEL (default debug).
# hipd_wait NAME...: wait until they answer. hipd_start = both.
hipd_launch() {
	local n=$1 d line; shift
	d=$NETNS_TMP/$n
	{
		echo "config_dir = $d"
		echo "control_socket = $d/hipd.sock"
		echo "pid_file = $d/hipd.pid"
		echo "state_dir = $d"
		echo "lsi_file = $d/lsi"
		echo "hosts_file = $d/hosts"
		echo "log_level = ${HIPD_LOG_LEVEL:-debug}"
		echo "user = root"
		for line in "$@"; do echo "$line"; done
	} >"$d/hipd.conf"
	touch "$d/hosts"
	rm -f "$d/hipd.sock" "$d/hit"
	# not through nsx: $! must be hipd itself (ip netns exec execs it)
	ip netns exec "$(ns_name "$n")" "$HIPD" --foreground --log-stderr --config "$d/hipd.conf" \
		>>"$d/hipd.log" 2>&1 &
	echo $! >"$d/hipd.pid.launch"
}
hipd_wait() { local n; for n in "$@"; do wait_for "hipd $n ready" 20 hc "$n" show hi || return 1; done; }
hipd_start() { hipd_launch "$@" && hipd_wait "$1"; }
hipd_pid() { cat "$NETNS_TMP/$1/hipd.pid.launch"; }
hipd_alive() { kill -0 "$(hipd_pid "$1")" 2>/dev/null; }
# hipd_kill9 NAME: crash it (no CLOSE sent); its directory and key stay.
hipd_kill9() { kill -9 "$(hipd_pid "$1")"; wait "$(hipd_pid "$1")" 2>/dev/null; rm -f "$NETNS_TMP/$1/hipd.pid.launch"; }
# hipd_stop NAME: SIGTERM, wait; returns hipd's exit status.
hipd_stop() {
	local p rc; p=$(hipd_pid "$1") || return 1
	kill -TERM "$p"; wait "$p"; rc=$?; rm -f "$NETNS_TMP/$1/hipd.pid.launch"; return $rc
}

# hc NAME ARGS...: hipconf against host NAME's daemon.
hc() { local n=$1; shift; nsx "$n" "$HIPCONF" --socket "$NETNS_TMP/$n/hipd.sock" "$@"; }

# ---- JSON from hipconf --json ----
# jget PATH...: the fields at each PATH (keys and list indices joined by
# dots) of the JSON document on stdin, space-separated.
jget() { python3 -c 'import json,sys
d=json.load(sys.stdin); out=[]
for p in sys.argv[1:]:
    v=d
    for k in p.split("."): v = v[int(k)] if isinstance(v, list) else v[k]
    out.append(json.dumps(v) if isinstance(v, (dict, list)) else str(v))
print(" ".join(out))' "$@"; }
# stat_of NAME PATH...: values of 'show stats' (drops.bad_mac, tx.I1, bex.completed).
stat_of() { local n=$1; shift; hc "$n" --json show stats | jget "$@"; }
# drops_total NAME: the sum of all drop counters.
drops_total() { hc "$1" --json show stats | python3 -c 'import json,sys; print(sum(json.load(sys.stdin)["drops"].values()))'; }
# ha_get NAME PEER_HIT FIELD...: fields of the association with PEER_HIT, or
# "none". Plain shell (called in polling loops): the association objects
# are flat, so each is one {...} without inner braces.
ha_get() {
	local n=$1 peer=$2 o f out=""; shift 2
	o=$(hc "$n" --json show associations | grep -o '{[^{}]*}' | grep -F "\"peer_hit\": \"$peer\"")
	[ -n "$o" ] || { echo none; return; }
	for f in "$@"; do
		out="$out${out:+ }$(echo "$o" | sed -n "s/.*\"$f\": \"\{0,1\}\([^\",}]*\).*/\1/p")"
	done
	echo "$out"
}
ha_count() { hc "$1" --json show associations | grep -o '{[^{}]*}' | grep -c peer_hit; }
# ha_states NAME: the states of every association, sorted ("" if none).
ha_states() { hc "$1" --json show associations | grep -o '"state": "[^"]*"' | cut -d'"' -f4 | sort | xargs; }

# hit NAME: the host's HIT (cached per daemon start).
hit_of() { hc "$1" --json show hi | sed -n 's/.*"hit" *: *"\([^"]*\)".*/\1/p'; }
hit() { [ -s "$NETNS_TMP/$1/hit" ] || hit_of "$1" >"$NETNS_TMP/$1/hit"; cat "$NETNS_TMP/$1/hit"; }
# hit_gt A B: A's HIT is greater than B's (as 128-bit numbers, RFC 7401 §6.5).
hit_gt() { python3 -c 'import ipaddress as i,sys; sys.exit(i.ip_address(sys.argv[1]) <= i.ip_address(sys.argv[2]))' "$(hit "$1")" "$(hit "$2")"; }
# map A B [IDX] [4|6]: tell A's hipd where B is.
map() { hc "$1" add map "$(hit "$2")" "$(addr"${4:-4}" "$2" "${3:-0}")" >/dev/null; }

# state_is NAME PEER STATE...: the association's state is one of STATE.
state_is() {
	local s want; s=$(ha_get "$1" "$(hit "$2")" state); shift 2
	for want in "$@"; do [ "$s" = "$want" ] && return 0; done
	echo "state $s, expected one of: $*"; return 1
}
# up NAME PEER: the association is usable (ESTABLISHED, or R2-SENT on the
# Responder until its Exchange Complete timer or first packet confirms it).
up() { state_is "$1" "$2" ESTABLISHED R2-SENT; }
# wait_up A B [SECS]: both sides of the pair are up.
wait_up() { wait_for "$1 <-> $2 up" "${3:-10}" both_up "$1" "$2"; }
both_up() { state_is "$1" "$2" ESTABLISHED && up "$2" "$1"; }
# spis_match A B: A's outbound SPI is B's inbound one and back.
spis_match() {
	local ai ao bi bo
	read -r ai ao <<<"$(ha_get "$1" "$(hit "$2")" spi_in spi_out)"
	read -r bi bo <<<"$(ha_get "$2" "$(hit "$1")" spi_in spi_out)"
	echo "$1 in $ai out $ao, $2 in $bi out $bo"
	[ "$ai" = "$bo" ] && [ "$ao" = "$bi" ] && [ "$ai" -ge 256 ] && [ "$ao" -ge 256 ]
}
# no_ha NAME PEER: no association with PEER (any more).
no_ha() { state_is "$1" "$2" none; }

# ---- packet loss (iptables-legacy inside a namespace) ----
ipt() { local n=$1; shift; nsx "$n" iptables-legacy -w "$@"; }
# hip_u32 TYPE: u32 match for IPv4 carrying a HIP packet of TYPE (the type is
# the low 7 bits of the HIP header's third byte).
hip_u32() { echo "0>>22&0x3C@0>>8&0x7F=$1"; }
# lose_first NAME TYPE: NAME never receives the first HIP packet of TYPE
# (I1 1, R1 2, I2 3, R2 4, CLOSE 18, CLOSE_ACK 19). One-shot: statistic nth
# with a huge period matches the first packet only. Dropped on INPUT, so
# the sender's send succeeds as on a lossy link.
lose_first() { ipt "$1" -I INPUT -p 139 -m u32 --u32 "$(hip_u32 "$2")" -m statistic --mode nth --every 1000000000 --packet 0 -j DROP; }
# rule_pkts NAME CHAIN: packets matched by the chain's first rule.
rule_pkts() { ipt "$1" -L "$2" 1 -v -x -n | awk '{print $1; exit}'; }

# ---- a TCP stream between HITs, and readdress checks (mobility.sh, lifetime.sh,
# tests/kernel/mobility.sh) ----
# The stream: paced at RATE bytes/s (default 262144) for SECS seconds (default 8) of
# pseudo-random bytes, SHA-256 on both ends; STREAM_LEAD seconds (1.5) of data under way
# before stream_begin returns. PORT: the last port used (each stream takes the next).
# STREAM_PY: the python3 to run (a pyenv shim costs many process starts: slow under TCG).
SINK='import hashlib,socket,sys
s=socket.socket(socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(1); print("listening", flush=True)
s.settimeout(60); c,_=s.accept(); c.settimeout(120); h=hashlib.sha256(); n=0
while True:
    b=c.recv(1<<16)
    if not b: break
    h.update(b); n+=len(b)
c.close(); print(n, h.hexdigest(), flush=True)'
# paced: RATE bytes/s, N bytes in all; exits non-zero on a reset or timeout
SOURCE='import hashlib,random,socket,sys,time
n=int(sys.argv[3]); rate=int(sys.argv[4]); r=random.Random(11); h=hashlib.sha256(); sent=0
c=socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=20); c.settimeout(120); t0=time.time()
print("connected", file=sys.stderr, flush=True)
while sent<n:
    b=r.randbytes(min(8192, n-sent)); c.sendall(b); h.update(b); sent+=len(b)
    d=t0+sent/rate-time.time()
    if d>0: time.sleep(d)
c.shutdown(socket.SHUT_WR); c.recv(1); c.close(); print(n, h.hexdigest(), flush=True)'

# stream_begin FROM TO: a stream FROM -> TO between HITs (or to TO_ADDR, an
# LSI), in the background.
stream_begin() {
	local f=$1 t=$2
	PORT=$((${PORT:-6000} + 1))
	rm -f "$NETNS_TMP/sink.out" "$NETNS_TMP/source.out"
	# not through nsx (a subshell that would wait for its child before
	# obeying the TERM trap): $! is ip, which execs timeout, which passes
	# a kill on to python
	ip netns exec "$(ns_name "$t")" timeout 200 "${STREAM_PY:-python3}" -I -S -c "$SINK" \
		"${TO_ADDR:-$(hit "$t")}" $PORT \
		>"$NETNS_TMP/sink.out" 2>&1 &
	SINK_PID=$!
	wait_for "sink listening" 5 grep -q listening "$NETNS_TMP/sink.out" || return 1
	ip netns exec "$(ns_name "$f")" timeout 200 "${STREAM_PY:-python3}" -I -S -c "$SOURCE" \
		"${TO_ADDR:-$(hit "$t")}" $PORT \
		$((${RATE:-262144} * ${SECS:-8})) "${RATE:-262144}" >"$NETNS_TMP/source.out" 2>&1 &
	SOURCE_PID=$!
	# connected (or failed: stream_end says why) before the event
	wait_for "source connected" 60 eval "grep -q connected '$NETNS_TMP/source.out' ||
		! kill -0 $SOURCE_PID"
	sleep "${STREAM_LEAD:-1.5}"     # some data under way before the event
}
# stream_end: wait for both ends; every byte arrived once, in order.
stream_end() {
	local rc want got
	wait "$SOURCE_PID"; rc=$?
	wait "$SINK_PID"
	want=$(grep -v -x connected "$NETNS_TMP/source.out")
	got=$(grep -v listening "$NETNS_TMP/sink.out")
	echo "source (exit $rc): $want; sink: $got"
	[ "$rc" -eq 0 ] && [ -n "$got" ] && [ "$got" = "$want" ] && [ "${got%% *}" = $((${RATE:-262144} * ${SECS:-8})) ]
}
stream_kill() { kill "$SOURCE_PID" "$SINK_PID" 2>/dev/null; wait "$SOURCE_PID" "$SINK_PID" 2>/dev/null; }

# ping_until NAME HIT [SECS]: from NAME, pings to HIT (or an LSI), each waiting 0.25 s for
# its answer (about 3.5 a second), until one is answered (at most SECS,
# default 30); prints the seconds that took, fails if none was answered.
PING_UNTIL_PY='import subprocess,sys,time
t=time.time()
while time.time()-t<float(sys.argv[2]):
    if subprocess.run(["ping","-6" if ":" in sys.argv[1] else "-4","-c","1","-W","0.25",sys.argv[1]],stdout=subprocess.DEVNULL).returncode==0:
        print("%.2f"%(time.time()-t)); sys.exit(0)
    time.sleep(0.05)
sys.exit(1)'
ping_until() { nsx "$1" python3 -c "$PING_UNTIL_PY" "$2" "${3:-30}"; }

# locator_is NAME PEER FIELD ADDR: NAME's association with PEER uses ADDR.
locator_is() { eq "$(ha_get "$1" "$(hit "$2")" "$3")" "$4"; }
# moved NAME PEER ADDR: NAME's local and PEER's remote locator are ADDR.
moved() { locator_is "$1" "$2" local_locator "$3" && locator_is "$2" "$1" peer_locator "$3"; }
wait_moved() { wait_for "$1 at $3 on both sides" "${4:-${MOVE_WAIT:-10}}" moved "$1" "$2" "$3"; }
nsip() { local n=$1; shift; nsx "$n" ip -batch - <<<"$(printf '%s\n' "$@")"; }

# Rekeys. spis_remember A B: note the SPIs of A's and B's association (OLD_SPIS:
# A in, A out, B in, B out). rekeyed A B: all four changed and match again.
# old_spis_gone A B: hipconf shows none of them any more.
spis_remember() {
	OLD_SPIS="$(ha_get "$1" "$(hit "$2")" spi_in spi_out) $(ha_get "$2" "$(hit "$1")" spi_in spi_out)"
}
rekeyed() {
	local ai ao bi bo oi oo pi po
	read -r ai ao <<<"$(ha_get "$1" "$(hit "$2")" spi_in spi_out)"
	read -r bi bo <<<"$(ha_get "$2" "$(hit "$1")" spi_in spi_out)"
	read -r oi oo pi po <<<"$OLD_SPIS"
	echo "$1 in $ai out $ao (was $oi $oo), $2 in $bi out $bo (was $pi $po)"
	[ "$ai" != "$oi" ] && [ "$ao" != "$oo" ] && [ "$bi" != "$pi" ] &&
		[ "$bo" != "$po" ] && spis_match "$1" "$2"
}
old_spis_gone() {
	local all s
	all=$(hc "$1" --json show associations; hc "$2" --json show associations)
	for s in $OLD_SPIS; do
		echo "$all" | grep -q "\"spi_[a-z]*\": $s[,}]" && { echo "SPI $s still shown"; return 1; }
	done
	return 0
}

# ---- the end of a scenario ----
# sanitizer_clean: no AddressSanitizer / UBSan report in any hipd log.
sanitizer_clean() { ! grep -l -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$NETNS_TMP"/*/hipd.log 2>/dev/null; }

# netns_done: stop every hipd (SIGTERM must exit 0), check the logs, print
# "NAME: N passed, M failed (T s)".
netns_done() {
	local n bad=""
	for n in $NETNS_LIST; do
		[ -f "$NETNS_TMP/$n/hipd.pid.launch" ] || continue
		hipd_stop "$n" || bad="$bad $n"
	done
	check "every hipd exits 0 on SIGTERM" eq "$bad" ""
	check "no sanitizer report in the hipd logs" sanitizer_clean
	summary "$(basename "$0" .sh)" "($(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $NETNS_T0 }") s)"
}

# ---- a bulk TCP transfer between HITs (datapath.sh, arm-peer.sh, tests/kernel/mixed.sh) ----
# BULK_SOURCE: sends N pseudo-random bytes as fast as TCP goes, prints "<bytes> <sha256>".
BULK_SOURCE='import hashlib,random,socket,sys
n=int(sys.argv[3]); r=random.Random(7); blk=r.randbytes(1<<20); h=hashlib.sha256(); left=n
c=socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=60)
while left:
    b=blk[:min(left, len(blk))]; c.sendall(b); h.update(b); left-=len(b)
    blk=blk[1:]+blk[:1]
c.shutdown(socket.SHUT_WR); c.recv(1); c.close(); print(n, h.hexdigest())'
# tcp_transfer FROM TO BYTES [SECONDS]: BYTES from FROM's HIT to TO's (or to TO_ADDR,
# an LSI) (port 5001), which
# sees every byte once and in order (SHA-256 equal); SECONDS (default 120) bounds each end.
tcp_transfer() {
	local f=$1 t=$2 bytes=$3 secs=${4:-120} sp got want
	# gone first: the background job truncates it only when it runs, and an
	# old "listening" would be taken for this sink's
	rm -f "$NETNS_TMP/sink.out" "$NETNS_TMP/source.out"
	nsx "$t" timeout "$secs" python3 -c "$SINK" "${TO_ADDR:-$(hit "$t")}" 5001 \
		>"$NETNS_TMP/sink.out" &
	sp=$!
	wait_for "sink listening" 30 grep -q listening "$NETNS_TMP/sink.out" || return 1
	if ! nsx "$f" timeout "$secs" python3 -c "$BULK_SOURCE" "${TO_ADDR:-$(hit "$t")}" 5001 "$bytes" \
		>"$NETNS_TMP/source.out"; then
		kill "$sp"; return 1
	fi
	wait "$sp"
	want=$(cat "$NETNS_TMP/source.out")
	got=$(grep -v listening "$NETNS_TMP/sink.out")
	echo "sent $want, received $got"
	[ -n "$got" ] && [ "$got" = "$want" ] && [ "${got%% *}" = "$bytes" ]
}

# ---- hipfw on one host (tests/netns/hipfw*.sh) ----
# The script sets FW (hipfw's directory: rules, hipfw.sock, hipfw.log) and,
# if hipfw is not on host r, FW_HOST. fw ARGS: hipfw's CLI on that host;
# fw_get KEYS: values of `show --json`; trk KEY: a tracker counter.
HIPFW=${HIPFW:-$BUILD/firewall/hipfw}
fw() { nsx "${FW_HOST:-r}" "$HIPFW" --socket "$FW/hipfw.sock" "$@"; }
fw_get() { fw --json show | jget "$@"; }
trk() { fw_get "track.$1"; }
# hipfw_start ARGS: hipfw with $FW/rules and ARGS in the background (not
# through nsx: FW_PID must be hipfw itself), until it answers
hipfw_start() {
	ip netns exec "$(ns_name "${FW_HOST:-r}")" "$HIPFW" -f "$FW/rules" \
		--socket "$FW/hipfw.sock" --log-stderr --log-level info "$@" \
		>>"$FW/hipfw.log" 2>&1 &
	FW_PID=$!
	wait_for "hipfw answers" 10 fw show
}
hipfw_stop() { kill "$FW_PID"; wait "$FW_PID"; }

# ---- NAT routers and ICE through a relay (tests/netns/nat*.sh) ----
# nat_router NAME WAN: NAME masquerades what leaves by WAN and forwards only
# TCP, UDP and ICMP, as carrier-grade NATs do (no HIP, no ESP). No
# --to-ports: Linux keeps the source port when it is free. The router's own
# firewall drops unsolicited packets from the WAN, as home routers do.
# Without it, the first hole-punching datagram from the peer
# (PEER_PUB:10500 -> OUR_PUB:10500, arriving before our host sent anything
# to the peer) is delivered to the router itself: it answers port
# unreachable and conntrack confirms a local entry with exactly the tuple
# our host's outgoing flow needs as its reply tuple. MASQUERADE then has to
# pick another source port for our host (the peer's datagrams, which keep
# refreshing the stale entry, never reach it): hole punching fails.
# Dropped in INPUT, the entry is never confirmed.
nat_router() {
	nsx "$1" sysctl -qw net.ipv4.ip_forward=1
	ipt "$1" -t nat -A POSTROUTING -o "$2" -j MASQUERADE
	ipt "$1" -A FORWARD -p 139 -j DROP
	ipt "$1" -A FORWARD -p 50 -j DROP
	ipt "$1" -A INPUT -i "$2" -m conntrack --ctstate NEW -j DROP
}
# dual_nat_topology: hosts s, a, na, b, nb for ICE in both address families
# (tests/netns/nat-ice-dual.sh, tests/kernel/nat-dual.sh). A and B are
# dual-stack hosts behind home routers na and nb: symmetric NATs over IPv4
# (MASQUERADE --random-fully), routers with a stateful firewall over IPv6
# (nothing unsolicited from the WAN), neither forwarding HIP (139) or ESP
# (50); s routes between them. Sets S_PUB, S_PUB2 (s's IPv4 addresses
# towards na, nb), A6, B6. Returns 2 if a rule cannot be made (a kernel
# without the module), 1 if IPv6 does not route.
ip6t() { local n=$1; shift; nsx "$n" ip6tables-legacy -w "$@"; }
dual_nat_topology() {
	local r wan
	netns_host s a na b nb
	netns_link s na 1
	netns_link s nb 2
	netns_link a na 10
	netns_link b nb 11
	S_PUB=$(addr4 s 1) S_PUB2=$(addr4 s 2) A6=$(addr6 a 10) B6=$(addr6 b 11)
	for r in s na nb; do
		nsx "$r" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
	done
	nsx na ip route add default via "$S_PUB"
	nsx nb ip route add default via "$S_PUB2"
	nsx a ip route add default via "$(addr4 na 10)"
	nsx b ip route add default via "$(addr4 nb 11)"
	nsx na ip -6 route add default via "$(addr6 s 1)"
	nsx nb ip -6 route add default via "$(addr6 s 2)"
	nsx s ip -6 route add fd00:10::/64 via "$(addr6 na 1)"
	nsx s ip -6 route add fd00:11::/64 via "$(addr6 nb 2)"
	nsx a ip -6 route add default via "$(addr6 na 10)"
	nsx b ip -6 route add default via "$(addr6 nb 11)"
	for r in na nb; do
		wan=v${r}1; [ "$r" = nb ] && wan=v${r}2
		ipt "$r" -t nat -A POSTROUTING -o "$wan" -j MASQUERADE --random-fully || return 2
		ipt "$r" -A FORWARD -p 139 -j DROP
		ipt "$r" -A FORWARD -p 50 -j DROP
		ipt "$r" -A INPUT -i "$wan" -m conntrack --ctstate NEW -j DROP || return 2
		ip6t "$r" -A FORWARD -p 139 -j DROP || return 2
		ip6t "$r" -A FORWARD -p 50 -j DROP
		ip6t "$r" -A FORWARD -i "$wan" -m conntrack --ctstate NEW -j DROP || return 2
	done
	# the links' link-local addresses finish DAD before any router resolves
	wait_for "IPv6 routed" 20 eval 'nsx a ping -6 -c 1 -W 1 -q "$(addr6 s 1)" >/dev/null &&
		nsx b ping -6 -c 1 -W 1 -q "$(addr6 s 2)" >/dev/null'
}
# ice_relay_up S_FOR_A S_FOR_B: hipd on s (relay server), a and b (IPv4
# only), a and b registered with s at those addresses; a reaches b knowing
# only s's address, both run their connectivity checks to a direct pair.
ice_relay_up() {
	hipd_start s "offer_services = relay" "listen_v6 = no" || return 1
	hipd_launch a "listen_v6 = no" "server = $(hit s) $1 relay"
	hipd_launch b "listen_v6 = no" "server = $(hit s) $2 relay"
	hipd_wait a b || return 1
	check "A and B register with S for the relay" wait_for "registered" 15 \
		eval 'relay_registered a && relay_registered b'
	hc a add map "$(hit b)" "$1" >/dev/null
	check "A triggers B through S" hc a trigger "$(hit b)"
	check "A <-> B established" wait_up a b 15
	check "checks done on both sides, direct" wait_for "direct" 15 \
		eval 'ice_direct a b && ice_direct b a'
}
relay_registered() { [ "$(hc "$1" --json show servers | jget servers.0.state)" = registered ]; }
ice_direct() { [ "$(ha_get "$1" "$(hit "$2")" path)" = direct ]; }
