/*
 * timeout.c - what the association's timer means in each state (RFC 7401
 * §4.4.1, §6.6; Tables 3, 4, 7, 9; docs/decisions.md D-1): I1-SENT and
 * I2-SENT retransmit (after the last try the exchange fails), CLOSING
 * retransmits its CLOSE until UAL + MSL has passed, CLOSED and E-FAILED
 * expire.
 */
#include <errno.h>

#include "exchange.h"

int act_retransmit(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap)
{
	struct hip_ha *ha = *hap;
	unsigned max;

	(void)rx;
	switch (ha->state) {
	case HIP_STATE_I1_SENT:
	case HIP_STATE_I2_SENT:
		max = ha->state == HIP_STATE_I1_SENT ? d->conf.i1_retries : d->conf.i2_retries;
		if (ha->retx_count >= max) {
			eng_bex_failed(d, ha);
			return ENG_HANDLED;
		}
		ha->retx_count++;
		/* §6.6.1: after a timeout, an I1 goes to one address only. */
		if (ha->state == HIP_STATE_I1_SENT)
			eng_send_i1(d, ha, false);
		else
			eng_retx_resend(d, ha);
		break;
	case HIP_STATE_CLOSING:
		if (!eng_close_may_retransmit(d, ha)) {
			eng_ha_set_state(d, ha, HIP_STATE_UNASSOCIATED);
			eng_ha_free(d, ha);
			*hap = NULL;
			return ENG_HANDLED;
		}
		ha->retx_count++;
		eng_retx_resend(d, ha);
		break;
	default:
		return -EINVAL;
	}
	/* A failed send is retried at the next timeout like a lost packet. */
	eng_timer_arm(d, ha, eng_retx_delay_ns(eng_retx_first_ms(d, ha), ha->retx_count));
	return 0;
}

/* CLOSED (UAL + 2 MSL) and E-FAILED: the table moves to UNASSOCIATED and
 * the dispatcher frees the association. */
int act_expire(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap)
{
	(void)d;
	(void)rx;
	(void)hap;
	return 0;
}
