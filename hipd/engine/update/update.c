/*
 * update.c - the UPDATE core (RFC 7401 §5.3.5, §6.11-6.12; docs/protocol.md §1,
 * §6, A-10, S-04, S-10, S-15, W-17, D-06).
 *
 * Update IDs: ours count up from 0 (update_id_out is the next one); the
 * peer's are compared circularly against the last one processed, so the
 * wrap at 2^32 is just another step. One UPDATE of ours is outstanding at
 * a time; it is retransmitted from 2·RTT with doubling until ACKed, and
 * after UPDATE_RETRY_MAX the association goes to CLOSING (§6.11).
 *
 * Receive order (§6.12): SEQ and ACK present (W-17), SEQ inside the window,
 * HIP_MAC (also for duplicates, §6.12.1 step 3), a duplicate is answered
 * with the cached reply without a signature check (D-06, A-10), then the
 * signature, the ACK part, the SEQ part.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "hit.h"
#include "base/base.h"
#include "update_int.h"

enum seq_class { SEQ_NEW, SEQ_DUP, SEQ_OLD };

void upd_ha_ending(struct hipd *d, struct hip_ha *ha)
{
	if (ha->upd) {
		upd_old_sa_expire(d, ha, true);
		upd_rekey_abort(d, ha);
	}
	upd_state_free(ha);
}

/* ---- the timer: retransmission and the old SA's grace time --------------- */

/* RFC 8046 §3.2.3 item 1: our readdress is not ACKed; the peer may have
 * moved too (double jump). The UPDATE goes, beside the retransmission to
 * the last address, to the peer's rendezvous server: the one its R1 named
 * (VIA_RVS), else the addresses mapped for the peer (hosts file, hipconf)
 * that are not its current one, of our family. The server relays it with
 * FROM (RFC 8004 §3.3), at the peer's current address. */
static void upd_via_rvs(struct hipd *d, struct hip_ha *ha)
{
	struct hip_update *u = ha->upd;
	struct hip_addr to[4];
	int n = 0, i;

	if (u->have_peer_rvs)
		to[n++] = u->peer_rvs;
	else
		n = eng_peer_locators(d, &ha->hit_peer, to, 4);
	for (i = 0; i < n; i++) {
		if (!memcmp(&to[i], &ha->addr_peer, sizeof(to[i])) ||
		    hip_addr_is_v4(&to[i]) != hip_addr_is_v4(&u->out_src))
			continue;
		(void)eng_send_port(d, ha, u->out_pkt, u->out_len, &u->out_src, &to[i],
				    eng_nat_port_for(d, &u->out_src, &to[i]));
		d->stats->upd_via_rvs++;
	}
}

/* §6.11: our UPDATE was not ACKed in time. */
static int upd_timeout(struct hipd *d, struct hip_ha *ha)
{
	struct hip_update *u = ha->upd;
	uint64_t now = hipd_now_ns();
	char hit[HIP_HIT_STR_LEN];

	if (!u)
		return 0;
	if (u->old_spi_in && (now >= u->old_deadline_ns || u->out_kind == UPD_OUT_NONE)) {
		upd_old_sa_expire(d, ha, true);
	} else if (u->out_kind != UPD_OUT_NONE) {
		if (u->out_retx >= UPD_RETRY_MAX && u->out_kind == UPD_OUT_VERIFY) {
			/* The address does not answer: it is never used (CBA
			 * credit 0); the association keeps its old locator. */
			log_notice("peer locator check with %s unanswered: not used",
				   hip_hit_to_str(&ha->hit_peer, hit, sizeof(hit)));
			upd_out_done(d, ha);
			upd_kick(d, ha);
			return 0;
		}
		if (u->out_retx >= UPD_RETRY_MAX && u->out_kind == UPD_OUT_PROBE)
			return upd_probe_failed(d, ha);
		if (u->out_retx >= UPD_RETRY_MAX) {
			log_notice("UPDATE %u to %s not acknowledged after %u retransmissions: "
				   "closing", u->out_id,
				   hip_hit_to_str(&ha->hit_peer, hit, sizeof(hit)), u->out_retx);
			upd_rekey_abort(d, ha);
			upd_out_done(d, ha);
			d->stats->upd_failed++;
			return ENG_CLOSE_NEXT;   /* the dispatcher closes it */
		}
		u->out_retx++;
		u->out_due_ns = now + upd_retx_delay_ns(u, u->out_retx);
		d->stats->upd_retransmitted++;
		(void)eng_send_port(d, ha, u->out_pkt, u->out_len, &u->out_src, &u->out_dst,
				    u->out_port);
		if (u->out_kind == UPD_OUT_READDRESS)
			upd_via_rvs(d, ha);
	}
	upd_rearm(d, ha);
	return 0;
}

/* §6.12.1 steps 1-2. The lower bound is the last ordinary UPDATE
 * processed: a retransmission of one still outstanding stays new even
 * after the peer's connectivity checks, which take later IDs from the same
 * counter (RFC 9028 §4.6.2), came first (a lost UPDATE would otherwise be
 * dropped as a replay until the association closes). The upper bound is
 * UPD_WINDOW past the highest ID accepted, checks included. */
static enum seq_class seq_classify(const struct hip_ha *ha, uint32_t id)
{
	uint32_t top;
	int32_t diff;

	if (ha->update_id_in_valid) {
		diff = (int32_t)(id - ha->update_id_in);
		if (diff == 0)
			return SEQ_DUP;
		if (diff < 0)
			return SEQ_OLD;
	}
	if (!ha->update_id_top_valid && !ha->update_id_in_valid)
		return id < UPD_WINDOW ? SEQ_NEW : SEQ_OLD;   /* IDs start at 0 (§6.11) */
	top = ha->update_id_top_valid ? ha->update_id_top : ha->update_id_in;
	if (!ha->update_id_in_valid)   /* only checks so far: no wrap yet */
		return (uint64_t)id <= (uint64_t)top + UPD_WINDOW ? SEQ_NEW : SEQ_OLD;
	return (int32_t)(id - top) <= UPD_WINDOW ? SEQ_NEW : SEQ_OLD;
}

/* §6.12.1 step 2: re-ACK a retransmission with the very reply sent the
 * first time (echo responses included, A-10), rate-limited. It goes where
 * the retransmission came from, as the first reply did (upd_send_reply):
 * a peer that moved since (a new address or NAT port) is never reached at
 * the old one, and would retransmit until it gave up (§6.11). */
static int upd_reack(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha, uint32_t id)
{
	struct hip_update *u = ha->upd;
	uint64_t second = hipd_now_ns() / ENG_NS_PER_S;

	if (!u || !u->reply_pkt || u->reply_id != id)
		return eng_drop(d, rx, HIPD_DROP_REPLAY, "repeated UPDATE, no reply kept");
	if (u->reack_second != second) {
		u->reack_second = second;
		u->reack_count = 0;
	}
	if (++u->reack_count > UPD_REACK_PER_S)
		return eng_drop(d, rx, HIPD_DROP_RATE_LIMITED, "re-ACK");
	d->stats->upd_reacked++;
	(void)eng_send_port(d, ha, u->reply_pkt, u->reply_len, rx->dst, rx->src, rx->sport);
	if (rx->relay && rx->relay_port && rx->sport)
		(void)eng_send_via_relay(d, ha, u->reply_pkt, u->reply_len, rx->dst, rx->relay,
					 rx->relay_port, rx->src, rx->sport);
	return 0;
}

/* §6.12.2: ACKs are not cumulative; every listed ID is looked at. */
static int upd_ack_part(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha,
			const struct hip_ack *ack)
{
	struct hip_update *u = ha->upd;
	enum upd_out_kind kind;
	unsigned i;
	bool hit = false;
	int ret;

	if (!u || u->out_kind == UPD_OUT_NONE)
		return 0;
	for (i = 0; i < ack->n; i++)
		hit |= ack->id[i] == u->out_id;
	if (!hit)
		return 0;
	kind = u->out_kind;
	/* The address check counts only with its echo (D-3): without it the
	 * whole packet goes and our UPDATE is retransmitted. */
	if (kind == UPD_OUT_VERIFY) {
		ret = upd_verify_rx(d, rx, ha);
		if (ret < 0)
			return ret;
	} else if (kind == UPD_OUT_PROBE) {
		ret = upd_probe_acked(d, rx, ha);
		if (ret < 0)
			return ret;
	}
	if (u->out_retx == 0)
		u->rtt_ns = hipd_now_ns() - u->out_sent_ns;
	upd_out_done(d, ha);
	if (kind == UPD_OUT_REKEY_REPLY)
		upd_rekey_acked(d, ha);
	else if (kind == UPD_OUT_REKEY)
		u->rekey_acked = true;
	return 0;
}

/* Echo requests of the peer's UPDATE, answered in kind (§5.2.20-21, D-3). */
static void collect_echoes(const struct eng_rx *rx, struct upd_msg *m,
			   struct hip_opaque *sig, struct hip_opaque *unsig, unsigned max)
{
	const struct hip_param_ref *p;

	p = hip_packet_find(rx->pkt, HIP_PARAM_ECHO_REQUEST_SIGNED);
	if (p && hip_echo_decode(hip_param_content(rx->pkt, p), p->len, sig) == 0)
		m->echo_resp_signed = sig;
	m->echo_resp_unsigned = unsig;
	for (p = hip_packet_find(rx->pkt, HIP_PARAM_ECHO_REQUEST_UNSIGNED);
	     p && m->n_echo_resp_unsigned < max; p = hip_packet_find_next(rx->pkt, p)) {
		if (hip_echo_decode(hip_param_content(rx->pkt, p), p->len,
				    &unsig[m->n_echo_resp_unsigned]) == 0)
			m->n_echo_resp_unsigned++;
	}
}

/* §6.12.1 steps 5-6: a new UPDATE; ESP_INFO first, then LOCATOR_SET
 * (RFC 8046 §5.3), then the reply. */
static int upd_seq_part(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha,
			uint32_t seq)
{
	struct hip_update *u = upd_get(ha);
	const struct hip_param_ref *p;
	struct hip_opaque sig, unsig[4];
	struct hip_esp_info ei;
	struct reg_answer reg;
	struct upd_msg m = { 0 };
	bool check = false, replied = false, have_ei = false;
	uint32_t loc_spi = ha->spi_out;
	int ret;

	if (!u)
		return -ENOMEM;
	p = hip_packet_find(rx->pkt, HIP_PARAM_ESP_INFO);
	if (p) {
		if (hip_esp_info_decode(hip_param_content(rx->pkt, p), p->len, &ei) < 0)
			return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "ESP_INFO");
		have_ei = true;
	}
	m.has_ack = true;
	m.ack = seq;
	m.via_rvs = rx->via_rvs;      /* RFC 8046 §3.2.3 item 3 */
	collect_echoes(rx, &m, &sig, unsig, 4);
	/* relayed by our rendezvous server: the peer moved; if our own
	 * readdress is still out to its old address, it goes to the new one
	 * (both moved: a double jump, RFC 8046 §3.2.3) */
	if (rx->via_rvs && u->out_kind == UPD_OUT_READDRESS)
		upd_out_retarget(d, ha, rx->src, rx->sport);
	if (have_ei && ei.old_spi != ei.new_spi && ei.old_spi && ei.new_spi) {
		ret = upd_rekey_rx(d, rx, ha, &ei, &m, &replied);
		if (ret < 0)
			return ret;
		loc_spi = ei.new_spi;     /* RFC 8046 §5.2 case 2: the NEW SPI */
	} else if (have_ei && (ei.old_spi != ei.new_spi || ei.old_spi != ha->spi_out)) {
		/* RFC 8046 §5.3: a new SA (OLD 0) or deprecating one (NEW 0)
		 * is not supported here (one SA pair per association). */
		return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "ESP_INFO: no such SA change");
	}
	ret = upd_locator_rx(d, rx, ha, loc_spi, &check);
	if (ret < 0)
		return ret;
	ha->update_id_in = seq;      /* §6.12.1 step 5: replay protection */
	ha->update_id_in_valid = true;
	upd_seq_accepted(ha, seq);
	/* RFC 8003 §3.3: a REG_REQUEST is answered in the ACK */
	if (eng_reg_answer(d, rx, &reg))
		m.reg_ans = &reg;
	eng_relay_esp_permit(d, rx);    /* RFC 9028 §5.13: a data relay client's */
	if (replied) {
		/* A LOCATOR_SET with a rekey (RFC 8046 §5.2 case 2): checked
		 * once the rekey is through. */
		u->verify_queued |= check;
		return 0;
	}
	if (check && u->out_kind == UPD_OUT_NONE)
		return upd_verify_start(d, ha, &m, rx);
	if (check)
		u->verify_queued = true;
	return upd_send_reply(d, ha, &m, rx->dst, rx->src);
}

void upd_kick(struct hipd *d, struct hip_ha *ha)
{
	struct hip_update *u = ha->upd;

	if (!u || u->out_kind != UPD_OUT_NONE || ha->state != HIP_STATE_ESTABLISHED)
		return;
	if (u->verify_queued)
		upd_verify_start(d, ha, NULL, NULL);
	else if (u->reannounce)
		upd_readdress(d, ha, &ha->addr_local);
	else if (u->rekey_wanted)
		upd_rekey_start(d, ha, false);
}

static int upd_rx(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha)
{
	const struct hip_param_ref *ps, *pa;
	enum seq_class cls = SEQ_NEW;
	struct hip_ack ack;
	uint32_t seq = 0;
	bool ice;
	int ret;

	ps = hip_packet_find(rx->pkt, HIP_PARAM_SEQ);
	pa = hip_packet_find(rx->pkt, HIP_PARAM_ACK);
	if (!ps && !pa)
		return eng_drop(d, rx, HIPD_DROP_MISSING_PARAM, "UPDATE without SEQ and ACK");
	if (ps && hip_seq_decode(hip_param_content(rx->pkt, ps), ps->len, &seq) < 0)
		return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "SEQ");
	if (pa && hip_ack_decode(hip_param_content(rx->pkt, pa), pa->len, &ack) < 0)
		return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "ACK");
	/* RFC 9028 §4.6.2: connectivity checks are ACKed blindly, whatever
	 * their order; they have their own handling after the checks below */
	ice = upd_ice_owns(ha, rx, pa ? &ack : NULL);
	if (ps && !ice) {
		cls = seq_classify(ha, seq);
		if (cls == SEQ_OLD)
			return eng_drop(d, rx, HIPD_DROP_REPLAY, "Update ID outside the window");
	}
	ret = hip_verify_mac(rx->pkt, HIP_COVER_MAC, ha->rhash, eng_key_in_int(ha),
			     ha->hip_keys.int_len, NULL, 0);
	if (ret == -ENOENT)
		return eng_drop(d, rx, HIPD_DROP_MISSING_PARAM, "HIP_MAC");
	if (ret < 0)
		return eng_drop(d, rx, HIPD_DROP_BAD_MAC, "UPDATE");
	if (cls == SEQ_DUP)
		return upd_reack(d, rx, ha, seq);
	ret = eng_verify_peer_signature(d, rx, ha);
	if (ret < 0)
		return ret;
	if (ha->state == HIP_STATE_R2_SENT) {
		/* Table 5: an UPDATE confirms the exchange; the EC timer and the
		 * kept R2 go, and the timer is the UPDATE timer from here. */
		eng_timer_cancel(d, ha);
		eng_retx_clear(ha);
		ha->retx_count = 0;
		ret = eng_ha_set_state(d, ha, HIP_STATE_ESTABLISHED);
		if (ret < 0)
			return ret;
	}
	d->stats->upd_received++;
	if (ice)
		return upd_ice_rx(d, rx, ha, ps ? &seq : NULL, pa ? &ack : NULL);
	if (upd_get(ha))
		ha->upd->rx_sport = rx->sport;   /* replies go back to that port */
	/* authentic over UDP from another port of the same address: the
	 * peer's NAT rebound (engine_udp.c) */
	if (rx->sport)
		eng_nat_rebind(d, ha, rx->src, rx->sport);
	/* RFC 8003: a server's REG_INFO, REG_RESPONSE or REG_FAILED */
	if (hip_packet_find(rx->pkt, HIP_PARAM_REG_INFO))
		eng_reg_info_rx(d, rx);
	eng_reg_result_rx(d, rx);
	if (pa) {
		ret = upd_ack_part(d, rx, ha, &ack);
		if (ret < 0)
			return ret;
	}
	if (ps) {
		ret = upd_seq_part(d, rx, ha, seq);
		if (ret < 0)
			return ret;
	} else if (ha->upd && ha->upd->rekey_acked) {
		/* Our rekey request ACKed without an answer: the peer declined. */
		upd_rekey_abort(d, ha);
	}
	upd_kick(d, ha);
	return 0;
}

/* Table 5/6: a received UPDATE, or (no packet) ESTABLISHED's timer. */
int act_process_update(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap)
{
	struct hip_ha *ha = *hap;

	if (!ha)
		return -EINVAL;
	if (!rx || !rx->pkt)
		return upd_timeout(d, ha);
	return upd_rx(d, rx, ha);
}
