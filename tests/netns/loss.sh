#!/bin/bash
# Lost I1, R1, I2, R2, CLOSE and CLOSE_ACK, each recovered by retransmission
# (RFC 7401 §4.4.1, §6.14; docs/decisions.md D-1). One pair per lost packet, all at
# once. The first packet of the type is dropped at the receiver's INPUT by a
# one-shot iptables rule (lose_first), so the sender's send succeeds as on a
# lossy link; the rule's counter proves exactly one packet was lost.
. "$(dirname "$0")/lib.sh"

CONF=("i1_timeout_ms = 500" "i2_timeout_ms = 500" "ual_seconds = 2" "msl_seconds = 1")
# lost packet: "name type receiver" (x = Initiator, y = Responder)
cases="i1:1:y r1:2:x i2:3:y r2:4:x close:18:y closeack:19:x"
for c in $cases; do
	IFS=: read -r name type recv <<<"$c"
	netns_host "${name}x" "${name}y"
	netns_link "${name}x" "${name}y" 0
	hipd_launch "${name}x" "${CONF[@]}"; hipd_launch "${name}y" "${CONF[@]}"
done
for c in $cases; do hipd_wait "${c%%:*}x" "${c%%:*}y" || exit 1; done

jobs=""
for c in $cases; do
	IFS=: read -r name type recv <<<"$c"
	# the exchange itself may lose only what this case is about
	[ "$type" -le 4 ] && lose_first "$name$recv" "$type"
	map "${name}x" "${name}y"
	hc "${name}x" trigger "$(hit "${name}y")" >/dev/null & jobs="$jobs $!"
done
wait $jobs

echo "# base exchange packets"
for c in $cases; do
	IFS=: read -r name type recv <<<"$c"
	[ "$type" -le 4 ] || continue
	check "lost ${name^^}: the BEX completes" wait_up "${name}x" "${name}y" 10
	check "lost ${name^^}: exactly one packet was dropped" eq "$(rule_pkts "$name$recv" INPUT)" 1
	check "lost ${name^^}: SPIs pair up" spis_match "${name}x" "${name}y"
done
x="$(stat_of i1x tx.I1 bex.completed) $(stat_of i1y rx.I1 tx.R1)"
check "lost I1: the I1 was sent twice, the Responder saw one and answered once" eq "$x" "2 1 1 1"
x="$(stat_of r1x tx.I1 rx.R1) $(stat_of r1y rx.I1 tx.R1)"
check "lost R1: the I1 was sent again and answered again, one R1 arrived" eq "$x" "2 1 2 2"
x="$(stat_of i2x tx.I1 tx.I2) $(stat_of i2y rx.I2 tx.R2)"
check "lost I2: the I2 (only) was sent again, one arrived, one R2" eq "$x" "1 2 1 1"
x="$(stat_of r2x tx.I2 rx.R2) $(stat_of r2y rx.I2 tx.R2)"
check "lost R2: the I2 was resent, the Responder sent its R2 again" eq "$x" "2 1 2 2"
check "lost R2: the resent I2 did not replace the association" \
	eq "$(grep -c 'replaced by a new base exchange' "$NETNS_TMP/r2y/hipd.log")" 0
check "no drops counted by the Initiators or Responders" eq \
	"$(drops_total i1x)$(drops_total i1y)$(drops_total r1x)$(drops_total r1y)$(drops_total i2x)$(drops_total i2y)$(drops_total r2x)$(drops_total r2y)" \
	"00000000"

echo "# CLOSE and CLOSE_ACK"
for c in close:18:y closeack:19:x; do
	IFS=: read -r name type recv <<<"$c"
	check "$name case: BEX completes" wait_up "${name}x" "${name}y" 10
	lose_first "$name$recv" "$type"
	hc "${name}x" close "$(hit "${name}y")" >/dev/null
done
for name in close closeack; do
	what=${name^^}; what=${what/ACK/_ACK}
	check "lost $what: the closing side ends with no association" \
		wait_for "${name}x closed" 6 no_ha "${name}x" "${name}y"
	check "lost $what: exactly one packet was dropped" \
		eq "$(rule_pkts "$name$([ $name = close ] && echo y || echo x)" INPUT)" 1
	check "lost $what: CLOSE sent twice" eq "$(stat_of "${name}x" tx.CLOSE rx.CLOSE_ACK)" "2 1"
done
check "lost CLOSE: the peer saw one CLOSE, sent one CLOSE_ACK" \
	eq "$(stat_of closey rx.CLOSE tx.CLOSE_ACK)" "1 1"
check "lost CLOSE_ACK: the peer answered the repeated CLOSE again" \
	eq "$(stat_of closeacky rx.CLOSE tx.CLOSE_ACK)" "2 2"
check "the peers leave CLOSED after UAL + 2 MSL (4 s)" \
	wait_for "CLOSED expires" 8 eval 'no_ha closey closex && no_ha closeacky closeackx'

netns_done
