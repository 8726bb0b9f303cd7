/*
 * update_out.c - our UPDATEs and replies out (RFC 7401 §6.11-6.12): one
 * outstanding UPDATE at a time, numbered by update_id_out, kept and
 * retransmitted from 2·RTT with doubling until ACKed; the last reply kept
 * so a duplicate is answered from it (docs/requirements.md D-06).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "update_int.h"
#include "hit.h"
#include "base/base.h"

struct hip_update *upd_get(struct hip_ha *ha)
{
	if (!ha->upd)
		ha->upd = calloc(1, sizeof(*ha->upd));
	return ha->upd;
}

/* Parameters in wire order (numeric, §5.3.5). */
int upd_build(struct hip_ha *ha, const struct upd_msg *m, uint8_t *buf, size_t cap)
{
	uint8_t pub[512];
	struct hip_builder b;
	unsigned i;
	int ret;

	hip_build_init(&b, buf, cap, HIP_UPDATE, &ha->hit_local, &ha->hit_peer);
	if (m->esp_info)
		hip_esp_info_build(&b, m->esp_info);
	if (m->locs)
		hip_locator_set_build(&b, m->locs);
	if (m->has_seq)
		hip_seq_build(&b, m->seq);
	if (m->has_ack) {
		struct hip_ack a = { .n = 1 };

		a.id[0] = m->ack;
		hip_ack_build(&b, &a);
	}
	if (m->dh) {
		uint8_t group = hip_dh_group(m->dh);
		size_t n = hip_dh_pub_len(group);

		if (n == 0 || n > sizeof(pub) || hip_dh_public(m->dh, pub, n) < 0)
			return -EINVAL;
		hip_dh_param_build(&b, group, pub, n);
	}
	if (m->echo_req)
		hip_echo_build(&b, HIP_PARAM_ECHO_REQUEST_SIGNED, m->echo_req, m->echo_req_len);
	if (m->reg_req)
		hip_reg_build(&b, HIP_PARAM_REG_REQUEST, m->reg_req);
	if (m->reg_ans)
		eng_reg_build_answer(&b, m->reg_ans);
	if (m->echo_resp_signed)
		hip_echo_build(&b, HIP_PARAM_ECHO_RESPONSE_SIGNED, m->echo_resp_signed->data,
			       m->echo_resp_signed->len);
	if (m->reg_ans)
		eng_reg_build_relayed(&b, m->reg_ans);     /* RELAYED_ADDRESS, 4650 */
	if (m->mapped)
		hip_relay_addr_build(&b, HIP_PARAM_MAPPED_ADDRESS, m->mapped);
	for (i = 0; i < m->n_perms; i++)
		hip_peer_permission_build(&b, &m->perms[i]);
	if (m->has_cand_prio)
		hip_candidate_priority_build(&b, m->cand_prio);
	if (m->nominate)
		hip_nominate_build(&b);
	hip_build_mac(&b, HIP_COVER_MAC, ha->rhash, eng_key_out_int(ha), ha->hip_keys.int_len,
		      NULL, 0);
	hip_build_signature(&b, HIP_COVER_SIGNATURE, ha->local->hi);
	for (i = 0; i < m->n_echo_resp_unsigned; i++)
		hip_echo_build(&b, HIP_PARAM_ECHO_RESPONSE_UNSIGNED, m->echo_resp_unsigned[i].data,
			       m->echo_resp_unsigned[i].len);
	if (m->via_rvs) {
		struct hip_via_rvs via = { .n = 1 };

		via.addr[0] = *m->via_rvs;
		hip_via_rvs_build(&b, &via);    /* after the signature, as in an R1 */
	}
	ret = hip_build_finish(&b);
	hip_wipe(pub, sizeof(pub));
	return ret;
}

uint64_t upd_retx_delay_ns(const struct hip_update *u, unsigned n)
{
	uint64_t rtt_ms = u->rtt_ns ? u->rtt_ns / ENG_NS_PER_MS : UPD_RTT_INIT_MS;
	uint64_t first = 2 * rtt_ms, d;

	/* A liveness probe (update_live.c) must decide in seconds, not the
	 * half minute a doubling from 500 ms takes: from 2·RTT (100 ms
	 * before any RTT is known), doubling, each wait at most 1 s. */
	if (u->out_kind == UPD_OUT_PROBE) {
		first = u->rtt_ns ? 2 * rtt_ms : UPD_PROBE_FIRST_MS;
		if (first < UPD_RETX_MIN_MS)
			first = UPD_RETX_MIN_MS;
		d = first << (n < 10 ? n : 10);
		return (d < UPD_PROBE_MAX_MS ? d : UPD_PROBE_MAX_MS) * ENG_NS_PER_MS;
	}

	if (first < UPD_RETX_MIN_MS)
		first = UPD_RETX_MIN_MS;
	if (first > UPD_RETX_MAX_FIRST)
		first = UPD_RETX_MAX_FIRST;
	return eng_retx_delay_ns((unsigned)first, n);
}

/* Arm the association's timer for the earliest deadline (ESTABLISHED only:
 * in any other state the timer belongs to the base exchange or CLOSE). */
static void upd_arm(struct hipd *d, struct hip_ha *ha)
{
	struct hip_update *u = ha->upd;
	uint64_t now = hipd_now_ns(), due = 0;

	if (!u || ha->state != HIP_STATE_ESTABLISHED)
		return;
	if (u->out_kind != UPD_OUT_NONE)
		due = u->out_due_ns;
	if (u->old_spi_in && (!due || u->old_deadline_ns < due))
		due = u->old_deadline_ns;
	if (!due) {
		eng_timer_cancel(d, ha);
		return;
	}
	eng_timer_arm(d, ha, due > now ? due - now : 0);
}

void upd_rearm(struct hipd *d, struct hip_ha *ha)
{
	upd_arm(d, ha);
}

int upd_send_new(struct hipd *d, struct hip_ha *ha, enum upd_out_kind kind,
		 struct upd_msg *m, const struct hip_addr *src, const struct hip_addr *dst)
{
	struct hip_update *u = upd_get(ha);
	uint8_t buf[ENG_PKT_BUF];
	uint64_t now = hipd_now_ns();
	int ret, len;

	if (!u)
		return -ENOMEM;
	if (u->out_kind != UPD_OUT_NONE)
		return -EBUSY;
	m->has_seq = true;
	m->seq = ha->update_id_out;
	len = upd_build(ha, m, buf, sizeof(buf));
	if (len < 0)
		return len;
	ret = eng_buf_keep(&u->out_pkt, &u->out_len, buf, (size_t)len);
	if (ret == 0 && m->has_ack) {
		/* It answers the peer's UPDATE too: a duplicate gets it again. */
		ret = eng_buf_keep(&u->reply_pkt, &u->reply_len, buf, (size_t)len);
		u->reply_id = m->ack;
	}
	if (ret < 0)
		goto out;
	ha->update_id_out++;   /* §6.11 step 1; wraps at 2^32 */
	u->out_kind = kind;
	u->out_id = m->seq;
	u->out_retx = 0;
	u->out_src = *src;
	u->out_dst = *dst;
	/* over UDP: the peer's port, or the one of the address being checked */
	u->out_port = !memcmp(dst, &ha->addr_peer, sizeof(*dst)) ? ha->peer_port
								  : u->verify_port;
	u->out_sent_ns = now;
	u->out_due_ns = now + upd_retx_delay_ns(u, 0);
	/* A failed send is recovered by the retransmission like a loss. */
	(void)eng_send_port(d, ha, buf, (size_t)len, src, dst, u->out_port);
	d->stats->upd_sent++;
	upd_arm(d, ha);
out:
	hip_wipe(buf, sizeof(buf));
	return ret;
}

void upd_out_done(struct hipd *d, struct hip_ha *ha)
{
	struct hip_update *u = ha->upd;

	if (!u)
		return;
	/* our ICE readdress ACKed (superseded ones clear the flag first; one
	 * given up leaves with its association): the peer has our candidates,
	 * so our checks start again (RFC 9028 §4.9). upd_kick() does it, as
	 * the readdress step it runs next (update_locator.c): nothing here
	 * calls the checks' code, which builds its UPDATEs with ours. */
	if (u->out_kind == UPD_OUT_READDRESS && u->ice_restart_on_ack &&
	    u->out_retx < UPD_RETRY_MAX) {
		u->ice_restart_due = true;
		u->reannounce = true;
	}
	u->ice_restart_on_ack = false;
	u->out_kind = UPD_OUT_NONE;
	eng_buf_free(&u->out_pkt, &u->out_len);
	u->out_retx = 0;
	u->out_due_ns = 0;
	upd_arm(d, ha);
}

/* A reply without SEQ (pure ACK, echo responses): sent once, kept for
 * duplicates of the UPDATE it answers. */
int upd_send_reply(struct hipd *d, struct hip_ha *ha, const struct upd_msg *m,
		   const struct hip_addr *src, const struct hip_addr *dst)
{
	struct hip_update *u = upd_get(ha);
	uint8_t buf[ENG_PKT_BUF];
	int ret, len;

	if (!u)
		return -ENOMEM;
	len = upd_build(ha, m, buf, sizeof(buf));
	if (len < 0)
		return len;
	ret = eng_buf_keep(&u->reply_pkt, &u->reply_len, buf, (size_t)len);
	if (ret == 0) {
		u->reply_id = m->ack;
		/* back to the port the UPDATE came from (a peer that moved) */
		(void)eng_send_port(d, ha, buf, (size_t)len, src, dst, u->rx_sport);
		/* and the way it came: through the relay (RFC 9028 §4.5), in
		 * case the peer's NAT does not let us in directly yet */
		if (u->rx_relay_port && u->rx_sport)
			(void)eng_send_via_relay(d, ha, buf, (size_t)len, src, &u->rx_relay,
						 u->rx_relay_port, dst, u->rx_sport);
	}
	hip_wipe(buf, sizeof(buf));
	return ret;
}

void upd_out_retarget(struct hipd *d, struct hip_ha *ha, const struct hip_addr *dst,
		      uint16_t port)
{
	struct hip_update *u = ha->upd;

	if (!u || u->out_kind == UPD_OUT_NONE || !u->out_pkt ||
	    (!memcmp(&u->out_dst, dst, sizeof(*dst)) && u->out_port == port))
		return;
	u->out_dst = *dst;
	u->out_port = port;
	(void)eng_send_port(d, ha, u->out_pkt, u->out_len, &u->out_src, &u->out_dst, u->out_port);
}

void upd_peer_rvs_set(struct hip_ha *ha, const struct hip_addr *rvs)
{
	struct hip_update *u = upd_get(ha);

	if (!u)
		return;
	u->peer_rvs = *rvs;
	u->have_peer_rvs = true;
}
