#!/bin/bash
# LSIs derived from the HIT (docs/decisions.md D-20): after a base
# exchange each side's LSI for the peer is the LSI the peer gives itself
# (hipconf show associations / show hi), and it is SHA-256 of the HIT as
# any host would compute it; show maps gives a mapped peer's LSI. An
# lsi_range overlapping a route of the host, and a hosts-file lsi= outside
# the range, are refused with their messages.
#
#   a -- b   (link 0): the exchange
#   c        alone: a veth pair (d0, d1) with a route in 10.1.2.0/24
. "$(dirname "$0")/lib.sh"

netns_host a b c
netns_link a b 0
hipd_launch a; hipd_launch b
nsip c "link add d0 type veth peer name d1" "link set d1 up" "link set d0 up" \
	"route add 10.1.2.0/24 dev d0"
hipd_wait a b || exit 1

# own_lsi NAME: the LSI of NAME's (first) HIT, from show hi
own_lsi() { hc "$1" --json show hi | jget identities.0.lsi; }
# derived HIT [NET/LEN]: the LSI of D-20 computed here, independently of hipd
derived() { python3 -c 'import hashlib,ipaddress as i,sys
n=i.ip_network(sys.argv[2]); h=hashlib.sha256(i.IPv6Address(sys.argv[1]).packed).digest()
print(n.network_address + 1 + int.from_bytes(h[:4], "big") % (n.num_addresses - 2))' \
	"$1" "${2:-198.18.0.0/15}"; }
# start_fails NAME TEXT: NAME's hipd exits non-zero at start, TEXT in its log
start_fails() {
	local p rc
	p=$(hipd_pid "$1")
	if ! wait_for "hipd $1 exits" 15 eval '! kill -0 '"$p"; then
		hipd_stop "$1"
		return 1
	fi
	wait "$p"; rc=$?
	rm -f "$NETNS_TMP/$1/hipd.pid.launch"
	echo "exit $rc"
	[ "$rc" -ne 0 ] && grep -F "$2" "$NETNS_TMP/$1/hipd.log"
}

echo "# the same LSIs on both sides"
map a b 0 4
check "BEX completes" eval 'hc a trigger "$(hit b)" && wait_up a b'
LA=$(own_lsi a) LB=$(own_lsi b)
check "a's own LSI is derived from its HIT (198.18.0.0/15)" eq "$LA" "$(derived "$(hit a)")"
check "b's own LSI is derived from its HIT" eq "$LB" "$(derived "$(hit b)")"
check "a gave itself its LSI at start and logged it" \
	grep -q "host identity $(hit a) (.*), LSI $LA\$" "$NETNS_TMP/a/hipd.log"
check "a's LSI for b is b's own" eq "$(ha_get a "$(hit b)" lsi)" "$LB"
check "b's LSI for a is a's own" eq "$(ha_get b "$(hit a)" lsi)" "$LA"
check "each side's local LSI is its own" eq \
	"$(ha_get a "$(hit b)" local_lsi) $(ha_get b "$(hit a)" local_lsi)" "$LA $LB"
check "show associations (text) gives the pair" eval \
	'hc a show associations | grep -q "^  lsi local $LA peer $LB\( \|\$\)"'
check "show maps gives b's derived LSI" eval \
	'hc a show maps | grep -qF "lsi=$LB (derived)"'
check "show maps --json: lsi and its source" eq "$(hc a --json show maps | jget maps.0.lsi \
	maps.0.lsi_source)" "$LB derived"

echo "# lsi= in the hosts file wins, on both hosts"
printf '%s %s lsi=198.18.7.7\n' "$(hit b)" "$(addr4 b 0)" >"$NETNS_TMP/a/hosts"
printf '%s %s lsi=198.18.7.7\n' "$(hit b)" "$(addr4 b 0)" >"$NETNS_TMP/b/hosts"
check "reload takes the pinned LSIs" eval 'hc a reload && hc b reload'
check "a's LSI for b is the pinned one" eq "$(ha_get a "$(hit b)" lsi)" 198.18.7.7
check "b's own LSI is the pinned one" eq "$(own_lsi b)" 198.18.7.7

echo "# lsi_range against the host's routes"
hipd_launch c "lsi_range = 10.0.0.0/8"
check "a range over a route is refused at start" start_fails c \
	"lsi_range 10.0.0.0/8 overlaps the route 10.1.2.0/24 dev d0: choose another range (hipd.conf(5), lsi_range)"
hipd_launch c "lsi_range = 10.200.0.0/16"
check "a free range is taken" hipd_wait c
check "c's own LSI is in it" eq "$(own_lsi c)" "$(derived "$(hit c)" 10.200.0.0/16)"
check "show config gives the range" eval 'hc c show config | grep -qx "lsi_range = 10.200.0.0/16"'

echo "# hosts-file LSIs outside the range"
printf '# peers\n%s %s lsi=198.18.0.5\n' "$(hit b)" "$(addr4 b 0)" >"$NETNS_TMP/c/hosts"
check "reload refuses lsi= outside lsi_range, with the line" fails_with 4 \
	"hosts:2: LSI 198.18.0.5 is outside the LSI range 10.200.0.0/16" hc c reload
hipd_stop c
hipd_launch c "lsi_range = 10.200.0.0/16"
check "and so does the start" start_fails c "hosts:2: LSI 198.18.0.5 is outside the LSI range 10.200.0.0/16"

netns_done
