/*
 * close.c - ending an association: CLOSE / CLOSE_ACK (RFC 7401 §5.3.7-8,
 * §6.14-6.15, Tables 6-8; docs/protocol.md §6, S-11 - S-13, W-18).
 *
 * CLOSE carries a fresh random nonce in ECHO_REQUEST_SIGNED; only a
 * CLOSE_ACK echoing it (HMAC and signature verified) ends a CLOSING
 * association. The side answering a CLOSE keeps the association in CLOSED
 * for UAL + 2 MSL to re-ACK a repeated CLOSE.
 */
#include <errno.h>
#include <string.h>

#include "coverage.h"
#include "engine/engine_int.h"
#include "exchange.h"
#include "hit.h"
#include "base/base.h"

/* ECHO_* (signed), HIP_MAC, HIP_SIGNATURE: the layout of both packets. */
static int build_close(struct hip_ha *ha, uint8_t type, uint16_t echo_type,
		       const uint8_t *echo, size_t echo_len, uint8_t *buf, size_t cap)
{
	struct hip_builder b;

	hip_build_init(&b, buf, cap, type, &ha->hit_local, &ha->hit_peer);
	hip_echo_build(&b, echo_type, echo, echo_len);
	hip_build_mac(&b, HIP_COVER_MAC, ha->rhash, eng_key_out_int(ha), ha->hip_keys.int_len,
		      NULL, 0);
	hip_build_signature(&b, HIP_COVER_SIGNATURE, ha->local->hi);
	return hip_build_finish(&b);
}

/* HMAC (cheap) first, then the signature, as for every packet of an
 * association (§6.14 steps 2-3). */
static int verify_mac_sig(struct hipd *d, const struct eng_rx *rx, const struct hip_ha *ha)
{
	int ret;

	ret = hip_verify_mac(rx->pkt, HIP_COVER_MAC, ha->rhash, eng_key_in_int(ha),
			     ha->hip_keys.int_len, NULL, 0);
	if (ret == -ENOENT)
		return eng_drop(d, rx, HIPD_DROP_MISSING_PARAM, "HIP_MAC");
	if (ret < 0)
		return eng_drop(d, rx, HIPD_DROP_BAD_MAC, NULL);
	return eng_verify_peer_signature(d, rx, ha);
}

static int echo_param(struct hipd *d, const struct eng_rx *rx, uint16_t type,
		      struct hip_opaque *out)
{
	const struct hip_param_ref *p;
	int ret;

	p = eng_param(d, rx, type, true, &ret);
	if (!p)
		return ret < 0 ? ret : -ENOENT;
	if (hip_echo_decode(hip_param_content(rx->pkt, p), p->len, out) < 0) {
		eng_drop(d, rx, HIPD_DROP_BAD_PARAM, hip_param_name(type));
		return ENG_DROPPED;   /* *out unset: never 0 here */
	}
	return 0;
}

/* Table 6: UAL or a local request (hipconf close, shutdown). */
int act_send_close(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap)
{
	struct hip_ha *ha = *hap;
	uint8_t buf[ENG_PKT_BUF];
	int ret, len;

	(void)rx;
	/* §5.3.7: no more ESP once CLOSE is sent (E-10). */
	eng_dp_remove(d, ha);
	eng_ha_wipe_esp_keys(ha);
	ret = hip_random(ha->close_nonce, sizeof(ha->close_nonce));
	if (ret < 0)
		return ret;
	len = build_close(ha, HIP_CLOSE, HIP_PARAM_ECHO_REQUEST_SIGNED, ha->close_nonce,
			  sizeof(ha->close_nonce), buf, sizeof(buf));
	if (len < 0)
		return len;
	ret = eng_retx_store(ha, buf, (size_t)len);
	if (ret < 0)
		return ret;
	eng_send(d, ha, buf, (size_t)len, &ha->addr_local, &ha->addr_peer);
	ha->retx_count = 0;
	return eng_timer_arm(d, ha, eng_retx_delay_ns(ENG_RETX_FIRST_MS, 0));
}

/* Table 7: retransmit CLOSE until UAL + MSL has passed since it was first
 * sent. The time is the sum of the timeouts so far, not the clock: packets
 * the peer (or anyone) sends meanwhile cannot stretch it. */
bool eng_close_may_retransmit(const struct hipd *d, const struct hip_ha *ha)
{
	uint64_t limit = ((uint64_t)d->conf.ual_seconds + d->conf.msl_seconds) * ENG_NS_PER_S;
	uint64_t waited = 0;
	unsigned i;

	for (i = 0; i <= ha->retx_count && waited < limit; i++)
		waited += eng_retx_delay_ns(ENG_RETX_FIRST_MS, i);
	return waited < limit;
}

/* CLOSED: answer with CLOSE_ACK (kept for repeated CLOSEs), wait UAL + 2 MSL. */
static int send_close_ack(struct hipd *d, struct hip_ha *ha, const struct hip_opaque *echo)
{
	uint8_t buf[ENG_PKT_BUF];
	int ret, len;

	len = build_close(ha, HIP_CLOSE_ACK, HIP_PARAM_ECHO_RESPONSE_SIGNED, echo->data,
			  echo->len, buf, sizeof(buf));
	if (len < 0)
		return len;
	ret = eng_retx_store(ha, buf, (size_t)len);
	if (ret < 0)
		return ret;
	return eng_send(d, ha, buf, (size_t)len, &ha->addr_local, &ha->addr_peer);
}

/* Tables 4-7: a CLOSE from the peer (also crossing our own in CLOSING). */
int act_process_close(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap)
{
	struct hip_ha *ha = *hap;
	struct hip_opaque echo;
	uint64_t closed;
	int ret;

	ret = echo_param(d, rx, HIP_PARAM_ECHO_REQUEST_SIGNED, &echo);
	if (ret < 0)
		return ret;
	ret = verify_mac_sig(d, rx, ha);
	if (ret < 0)
		return ret;
	eng_dp_remove(d, ha);    /* §6.14: the peer closed; its SAs go (E-10) */
	eng_ha_wipe_esp_keys(ha);
	eng_timer_cancel(d, ha);
	/* A lost or unsendable CLOSE_ACK is recovered by the peer's retry. */
	(void)send_close_ack(d, ha, &echo);
	closed = ((uint64_t)d->conf.ual_seconds + 2ULL * d->conf.msl_seconds) * ENG_NS_PER_S;
	return eng_timer_arm(d, ha, closed);
}

/* Table 8: a repeated CLOSE gets the same CLOSE_ACK (the MAC shows it is
 * from the peer; no signature work for a repeat). */
int act_resend_close_ack(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap)
{
	struct hip_ha *ha = *hap;
	int ret;

	ret = hip_verify_mac(rx->pkt, HIP_COVER_MAC, ha->rhash, eng_key_in_int(ha),
			     ha->hip_keys.int_len, NULL, 0);
	if (ret < 0)
		return eng_drop(d, rx, ret == -ENOENT ? HIPD_DROP_MISSING_PARAM
					       : HIPD_DROP_BAD_MAC, "repeated CLOSE");
	if (eng_retx_resend(d, ha) == -ENOENT)
		return eng_drop(d, rx, HIPD_DROP_WRONG_STATE, "no CLOSE_ACK kept");
	return 0;   /* a failed send was counted (SEND_FAILED) */
}

/* Tables 7-8: accepted only if it echoes the nonce of our CLOSE (§6.15). */
int act_process_close_ack(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap)
{
	static const uint8_t zero[ENG_NONCE_LEN];
	struct hip_ha *ha = *hap;
	struct hip_opaque echo;
	int ret;

	if (!memcmp(ha->close_nonce, zero, sizeof(zero)))
		return eng_drop(d, rx, HIPD_DROP_WRONG_STATE, "we sent no CLOSE");
	ret = echo_param(d, rx, HIP_PARAM_ECHO_RESPONSE_SIGNED, &echo);
	if (ret < 0)
		return ret;
	ret = verify_mac_sig(d, rx, ha);
	if (ret < 0)
		return ret;
	if (echo.len != sizeof(ha->close_nonce) ||
	    !hip_memeq_ct(echo.data, ha->close_nonce, sizeof(ha->close_nonce)))
		return eng_drop(d, rx, HIPD_DROP_BAD_ECHO, "CLOSE_ACK echo");
	return 0;   /* -> UNASSOCIATED: the dispatcher frees the association */
}
