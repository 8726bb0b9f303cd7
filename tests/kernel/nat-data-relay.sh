#!/bin/bash
# tests/kernel/nat-data-relay.sh - the data relay on the kernel datapath (issue 13, RFC 9028
# §4.12, docs/decisions.md D-29): the topology of tests/netns/nat-data-relay.sh (A and B
# behind symmetric NATs, S offering the control and the data relay), every hipd on XFRM.
# No direct pair can work; the checks find the pair through S's data relay port, and each
# kernel gets SAs with ESP in UDP to S's address and that port (`ip xfrm state`), which S
# passes on: traffic between the HITs flows through S.
#
# Run inside the ESP VM as root, with a build made on the host:
#   tools/kvm/run-in-esp-vm.sh 'BUILD=/path/to/build sh tests/kernel/nat-data-relay.sh'
# Exit: 0 passed, 1 failed, 77 skipped (no root, no ESP in this kernel, no build).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

KNAME=nat-data-relay KTOOLS="ip ping python3 iptables-legacy ip6tables-legacy"
. "$(dirname "$0")/lib.sh"
[ -c /dev/net/tun ] || skip "no /dev/net/tun"
[ -x /usr/bin/python3 ] && STREAM_PY=/usr/bin/python3

kernel_dual_nat_topology
kernel_esp_probe a

CONF=("listen_v6 = no" "datapath = kernel")
hipd_start s "${CONF[@]}" "offer_services = relay relay-esp" "relay_esp_port = 10600" \
	"relay_esp_ports = 4" || exit 1
hipd_launch a "${CONF[@]}" "server = $(hit s) $S_PUB relay relay-esp"
hipd_launch b "${CONF[@]}" "server = $(hit s) $S_PUB2 relay relay-esp"
hipd_wait a b || exit 1
check "A and B run the kernel datapath" \
	eval "grep -q 'datapath: kernel' $NETNS_TMP/a/hipd.log && grep -q 'datapath: kernel' $NETNS_TMP/b/hipd.log"
check "A and B learnt their relayed addresses" wait_for "relayed" 40 eval \
	'grep -q "our relayed address (data relay)" "$NETNS_TMP/a/hipd.log" &&
	 grep -q "our relayed address (data relay)" "$NETNS_TMP/b/hipd.log"'
hc a add map "$(hit b)" "$S_PUB" >/dev/null
check "A triggers B through S" hc a trigger "$(hit b)"
check "A <-> B established" wait_up a b 40
data_path() { [ "$(ha_get "$1" "$(hit "$2")" path)" = data-relay ]; }
check "checks done on both sides: through the data relay" wait_for "relayed pair" 40 \
	eval 'data_path a b && data_path b a'
# sa_via NAME: NAME's outbound SA goes to one of S's addresses, ESP in UDP to a relay port
sa_via() {
	nsx "$1" ip xfrm state | grep -A6 -E "^src .* dst ($S_PUB|$S_PUB2)\$" |
		grep -q -E "encap type espinudp sport 10500 dport 1060[0-3]"
}
check "A's kernel SA: ESP in UDP to S's data relay port" sa_via a
check "B's kernel SA: ESP in UDP to S's data relay port" sa_via b
check "ping A -> B between the HITs" nsx a ping -6 -c 3 -W 5 -q "$(hit b)"
check "ping B -> A on the same association" nsx b ping -6 -c 3 -W 5 -q "$(hit a)"
check "1 MB over TCP A -> B, SHA-256 equal" tcp_transfer a b $((1 << 20)) 120
dr() { hc s --json show registrations | jget "data_relay.$1"; }
check "S passed the megabyte on" ge "$(dr bytes)" 1000000
netns_done
