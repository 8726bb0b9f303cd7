#!/bin/bash
# Base exchange over IPv4 and over IPv6 locators, what hipconf shows about
# it, and hipconf's errors for missing, malformed and wrong mappings.
#
#   a -- b   (link 0): BEX over IPv4, b answers without a mapping (policy any)
#   c -- d   (link 1): BEX over IPv6
#   e -- f   (link 2): e maps f to an address nobody has, then fixes it
. "$(dirname "$0")/lib.sh"

FAST="i1_timeout_ms = 200
i2_timeout_ms = 200"
netns_host a b c d e f
netns_link a b 0; netns_link c d 1; netns_link e f 2
hipd_launch a; hipd_launch b; hipd_launch c; hipd_launch d
hipd_launch e "i1_retries = 1" "$FAST"; hipd_launch f
hipd_wait a b c d e f || exit 1

echo "# IPv4"
map a b 0 4
check "trigger over IPv4 accepted" hc a trigger "$(hit b)"
check "IPv4 BEX completes" wait_up a b
check "SPIs pair up (a out = b in, b out = a in)" spis_match a b
check "a's peer locator is b's IPv4 address" eq "$(ha_get a "$(hit b)" peer_locator)" "$(addr4 b 0)"
check "default suites: NIST P-256, AES-128-CBC, AES-GCM-16" \
	eq "$(ha_get a "$(hit b)" dh_group hip_cipher esp_suite)" "7 AES-128-CBC AES-GCM-16"
check "b's peer locator is a's IPv4 address" eq "$(ha_get b "$(hit a)" peer_locator)" "$(addr4 a 0)"
check "a is the initiator, b the responder" \
	eq "$(ha_get a "$(hit b)" role) $(ha_get b "$(hit a)" role)" "initiator responder"
check "suites agree on both sides" eq "$(ha_get a "$(hit b)" dh_group hip_cipher esp_suite)" \
	"$(ha_get b "$(hit a)" dh_group hip_cipher esp_suite)"
check "a counts one completed BEX" eq "$(stat_of a bex.completed)" 1
check "packets: a sent I1 and I2, b sent R1 and R2" eq \
	"$(stat_of a tx.I1 tx.I2) $(stat_of b tx.R1 tx.R2)" "1 1 1 1"
check "no drops on either side" eq "$(drops_total a) $(drops_total b)" "0 0"
check "a second trigger on an established association is a no-op" \
	eval 'hc a trigger "$(hit b)" && [ "$(stat_of a tx.I1)" = 1 ]'
check "show maps lists the runtime mapping" eval 'hc a show maps | grep -F "$(hit b)" | grep -qF "$(addr4 b 0)"'

echo "# IPv6"
map c d 1 6
check "trigger over IPv6 accepted" hc c trigger "$(hit d)"
check "IPv6 BEX completes" wait_up c d
check "SPIs pair up over IPv6" spis_match c d
check "c's peer locator is d's IPv6 address" eq "$(ha_get c "$(hit d)" peer_locator)" "$(addr6 d 1)"
check "d's peer locator is c's IPv6 address" eq "$(ha_get d "$(hit c)" peer_locator)" "$(addr6 c 1)"

echo "# hipconf errors"
check "trigger without a mapping: exit 3, says to add one" \
	fails_with 3 "no locator is mapped for $(hit f)" hc a trigger "$(hit f)"
check "--json error output for the same" \
	eval 'hc a --json trigger "$(hit f)" | grep -q "no locator is mapped"; [ "${PIPESTATUS[0]}" = 3 ]'
check "add map with a bad HIT: exit 1, names the argument" \
	fails_with 1 "'2001:db8::1' is not a HIT" hc a add map 2001:db8::1 192.0.2.2
check "add map with text that is no address: exit 1" \
	fails_with 1 "'nohost' is not a HIT" hc a add map nohost 192.0.2.2
check "add map with a bad locator: exit 1, names it" \
	fails_with 1 "'192.0.2.256' is not an IPv4 or IPv6 address" hc a add map "$(hit f)" 192.0.2.256
check "trigger of our own HIT: exit 1" fails_with 1 "is one of our own HITs" hc a trigger "$(hit a)"
check "close without an association: exit 3" fails_with 3 "no association with" hc a close "$(hit f)"
check "del map of an unmapped HIT: exit 3" fails_with 3 "" hc a del map "$(hit f)"
check "hipd not running: exit 5, says so" \
	fails_with 5 "hipd is not running" nsx a "$HIPCONF" --socket "$NETNS_TMP/a/nothere.sock" show hi

echo "# wrong mapping: the BEX fails, a corrected mapping then works"
hc e add map "$(hit f)" 203.0.113.99 >/dev/null
check "trigger to a dead locator is accepted" hc e trigger "$(hit f)"
check "the BEX fails after its retries (E-FAILED)" wait_for E-FAILED 5 state_is e f E-FAILED
check "bex.failed counts it" eq "$(stat_of e bex.failed)" 1
check "the I1 was retransmitted (i1_retries = 1)" eq "$(stat_of e tx.I1)" 2
hc e del map "$(hit f)" >/dev/null
map e f 2
check "trigger after fixing the mapping (E-FAILED is left at once)" hc e trigger "$(hit f)"
check "the BEX with the right locator completes" wait_up e f
check "SPIs pair up" spis_match e f

netns_done
