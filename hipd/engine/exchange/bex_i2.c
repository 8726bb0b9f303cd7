/*
 * bex_i2.c - the Responder processes an I2 and answers with R2 (RFC 7401
 * §6.9, §5.3.4; RFC 7402 §5.2.1.3, §6.5; docs/protocol.md §6 I2 steps 1-15).
 *
 * The order matters for DoS resistance: everything before the puzzle check
 * is parsing and one hash (the R1 cache recomputes #I); no DH, decryption
 * or signature work happens for an I2 whose puzzle is wrong (P-02). NOTIFY
 * is sent only once the puzzle is verified (§6.9.1, RB-03), and
 * INVALID_SYNTAX (an error no other type covers: a bad ESP_INFO) only once
 * HIP_MAC and the signature are verified too (§5.2.19, RB-07).
 *
 * Against I2 floods at the current K (D-15): an I2 that fails after the
 * puzzle check counts as load for K (puzzle_k.c), and during an I2 flood
 * a puzzle whose I2s failed twice after that check is refused before the
 * DH work (i2guard.h, P-10).
 */
#include <errno.h>
#include <string.h>

#include "coverage.h"
#include "engine/engine_int.h"
#include "exchange.h"
#include "i2guard.h"
#include "engine/update/update.h"
#include "hit.h"
#include "base/base.h"
#include "engine/assoc/assoc.h"
#include "engine/reg/reg.h"

enum { I2_KIJ_MAX = 512, I2_PLAIN_MAX = HIP_MAX_PACKET };

struct i2_view {
	struct hip_solution sol;
	struct hip_dh_param dh;
	struct hip_r1_counter counter;
	bool have_counter;
	struct r1_offer offer;
};

/* Steps (6)-(7): R1_COUNTER, the offer behind the SOLUTION, the puzzle. */
static int i2_puzzle(struct hipd *d, const struct eng_rx *rx, struct i2_view *v)
{
	struct hidb_entry *me = rx->local;
	size_t rlen = hip_rhash_len(me->suite);
	const struct hip_param_ref *p;
	int ret;

	p = hip_packet_find(rx->pkt, HIP_PARAM_R1_COUNTER);
	if (p) {
		if (hip_r1_counter_decode(hip_param_content(rx->pkt, p), p->len,
					  &v->counter) < 0)
			return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "R1_COUNTER");
		v->have_counter = true;
	}
	p = eng_param(d, rx, HIP_PARAM_SOLUTION, true, &ret);
	if (!p)
		return ret;
	if (hip_solution_decode(hip_param_content(rx->pkt, p), p->len, rlen, &v->sol) < 0)
		return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "SOLUTION");
	p = eng_param(d, rx, HIP_PARAM_DIFFIE_HELLMAN, true, &ret);
	if (!p)
		return ret;
	if (hip_dh_param_decode(hip_param_content(rx->pkt, p), p->len, &v->dh) < 0)
		return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "DIFFIE_HELLMAN");
	ret = r1cache_lookup(me->r1, &rx->pkt->hit_sender, v->sol.opaque,
			     v->have_counter ? &v->counter : NULL, v->dh.group, &v->offer);
	if (ret < 0)
		return eng_drop(d, rx, HIPD_DROP_PUZZLE_STALE, "no such R1 offered (any more)");
	/* §6.9 step 7: when echoed, exactly what our R1 carried. */
	if (v->have_counter) {
		if (memcmp(v->counter.raw, v->offer.counter.raw, sizeof(v->counter.raw)))
			return eng_drop(d, rx, HIPD_DROP_R1_COUNTER, "R1_COUNTER not ours");
	} else {
		d->engine->i2_no_r1_counter++;
	}
	/* (7) P-02: before any DH, decryption or signature work. */
	if (v->sol.k != v->offer.k || v->sol.ij_len != v->offer.i_len ||
	    !hip_memeq_ct(v->sol.i, v->offer.i, v->offer.i_len) ||
	    hip_puzzle_verify(me->suite, v->offer.k, v->offer.i, rx->pkt->hit_sender.b,
			      me->hit.b, v->sol.j) < 0)
		return eng_drop(d, rx, HIPD_DROP_PUZZLE_FAILED, NULL);
	return 0;
}

/* Drop with a counter and, the puzzle being solved, a NOTIFY. */
static int i2_refuse(struct hipd *d, const struct eng_rx *rx, enum hipd_drop why,
		     uint16_t notify, const char *detail)
{
	int ret = eng_drop(d, rx, why, detail);

	eng_notify(d, rx, notify, NULL, 0);
	return ret;
}

/* (8) and (12): exactly one offered HIP_CIPHER / ESP suite, ESP transport. */
static int i2_suites(struct hipd *d, const struct eng_rx *rx, struct hip_ha *tmp)
{
	const struct hip_param_ref *p;
	struct hip_u16_list l;
	size_t enc, auth;
	unsigned i;
	int ret;

	p = eng_param(d, rx, HIP_PARAM_HIP_CIPHER, true, &ret);
	if (!p)
		return ret;
	if (hip_hip_cipher_decode(hip_param_content(rx->pkt, p), p->len, &l) < 0 ||
	    l.n != 1 || !eng_hip_cipher_ok(d, l.v[0]))
		return i2_refuse(d, rx, HIPD_DROP_NO_PROPOSAL,
				 HIP_NOTIFY_INVALID_HIP_CIPHER_CHOSEN, "HIP_CIPHER");
	tmp->hip_cipher = l.v[0];
	p = eng_param(d, rx, HIP_PARAM_TRANSPORT_FORMAT_LIST, true, &ret);
	if (!p)
		return ret;
	if (hip_transport_format_list_decode(hip_param_content(rx->pkt, p), p->len, &l) < 0)
		return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "TRANSPORT_FORMAT_LIST");
	for (i = 0; i < l.n && l.v[i] != HIP_PARAM_ESP_TRANSFORM; i++)
		;
	if (i == l.n)
		return i2_refuse(d, rx, HIPD_DROP_NO_PROPOSAL, HIP_NOTIFY_NO_ESP_PROPOSAL_CHOSEN,
				 "no ESP transport format");
	p = eng_param(d, rx, HIP_PARAM_ESP_TRANSFORM, true, &ret);
	if (!p)
		return ret;
	if (hip_esp_transform_decode(hip_param_content(rx->pkt, p), p->len, &l) < 0 ||
	    l.n != 1 || !eng_u16_in(d->conf.esp_suites, d->conf.n_esp_suites, l.v[0]) ||
	    eng_esp_key_sizes(d, l.v[0], &enc, &auth) < 0)
		return i2_refuse(d, rx, HIPD_DROP_NO_PROPOSAL,
				 HIP_NOTIFY_INVALID_ESP_TRANSFORM_CHOSEN, "ESP_TRANSFORM");
	tmp->esp_suite = l.v[0];
	/* RFC 9028 §4.3: the mode chosen must be one we offered, over UDP:
	 * UDP-ENCAPSULATION (never through a relay, §4.7.2) or ICE-HIP-UDP;
	 * else NOTIFY 60 */
	p = hip_packet_find(rx->pkt, HIP_PARAM_NAT_TRAVERSAL_MODE);
	if (p && (hip_nat_traversal_mode_decode(hip_param_content(rx->pkt, p), p->len, &l) < 0 ||
		  l.n != 1 || !rx->sport ||
		  (l.v[0] != HIP_NAT_MODE_ICE_HIP_UDP &&
		   (l.v[0] != HIP_NAT_MODE_UDP_ENCAPSULATION || rx->relay))))
		return i2_refuse(d, rx, HIPD_DROP_NO_PROPOSAL,
				 HIP_NOTIFY_NO_VALID_NAT_TRAVERSAL_MODE, "NAT_TRAVERSAL_MODE");
	tmp->nat_mode = p ? l.v[0] : 0;
	/* §4.4: the checks go at the higher of the two Ta */
	if (tmp->nat_mode == HIP_NAT_MODE_ICE_HIP_UDP && bex_nat_ta(d, rx->pkt, &tmp->nat_ta_ms) < 0)
		return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "TRANSACTION_PACING");
	return 0;
}

/* (10): the Initiator's HOST_ID, in ENCRYPTED (opened with the Initiator's
 * key, A-5) or in the clear; exactly one of the two. */
static int i2_host_id(struct hipd *d, const struct eng_rx *rx, const struct hip_ha *tmp,
		      uint8_t *plain, size_t cap, struct hip_host_id *hid)
{
	const struct hip_param_ref *enc_p = hip_packet_find(rx->pkt, HIP_PARAM_ENCRYPTED);
	const struct hip_param_ref *hid_p = hip_packet_find(rx->pkt, HIP_PARAM_HOST_ID);
	struct hip_encrypted enc;
	const uint8_t *inner;
	size_t n = 0, inner_len;

	if (!enc_p == !hid_p)
		return eng_drop(d, rx, enc_p ? HIPD_DROP_BAD_PARAM : HIPD_DROP_MISSING_PARAM,
				"need exactly one of ENCRYPTED and HOST_ID");
	if (hid_p) {
		if (hip_host_id_decode(hip_param_content(rx->pkt, hid_p), hid_p->len, hid) < 0)
			return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "HOST_ID");
		return 0;
	}
	if (hip_encrypted_decode(hip_param_content(rx->pkt, enc_p), enc_p->len, &enc) < 0 ||
	    hip_cipher_open(tmp->hip_cipher, eng_key_in_enc(tmp), enc.data, enc.len, plain,
			    cap, &n) < 0)
		return i2_refuse(d, rx, HIPD_DROP_BAD_ENCRYPTED, HIP_NOTIFY_ENCRYPTION_FAILED,
				 "cannot decrypt");
	/* One whole HOST_ID TLV, after the LOCATOR_SET of ICE-HIP-UDP (RFC
	 * 9028 §4.5 step 5); block padding after them is ignored. */
	if (bex_inner_find(plain, n, HIP_PARAM_HOST_ID, &inner, &inner_len) < 0)
		return eng_drop(d, rx, HIPD_DROP_BAD_ENCRYPTED, "not a HOST_ID");
	if (hip_host_id_decode(inner, inner_len, hid) < 0)
		return eng_drop(d, rx, HIPD_DROP_BAD_ENCRYPTED, "bad inner HOST_ID");
	return 0;
}

/* (12): ESP_INFO of a new SA (RFC 7402 §6.5, A-8). NULL when it is good,
 * else what is wrong (*why: the counter). */
static const char *i2_esp_info(const struct eng_rx *rx, const struct hip_ha *tmp,
			       struct hip_esp_info *ei, enum hipd_drop *why)
{
	const struct hip_param_ref *p = hip_packet_find(rx->pkt, HIP_PARAM_ESP_INFO);

	*why = HIPD_DROP_BAD_PARAM;
	if (!p) {
		*why = HIPD_DROP_MISSING_PARAM;
		return "ESP_INFO";
	}
	if (hip_esp_info_decode(hip_param_content(rx->pkt, p), p->len, ei) < 0 ||
	    hip_packet_find_next(rx->pkt, p))
		return "ESP_INFO";
	if (ei->old_spi != 0 || ei->new_spi < HIP_SPI_MIN ||
	    ei->keymat_index != eng_keymat_esp_index(tmp->hip_cipher, tmp->rhash))
		return "ESP_INFO SPI or KEYMAT index";
	return NULL;
}

/* R2: ESP_INFO, [REG_RESPONSE, REG_FAILED], HIP_MAC_2 over them plus our
 * R1 HOST_ID, HIP_SIGNATURE. */
static int build_r2(struct hipd *d, struct hip_ha *ha, const struct reg_answer *reg,
		    uint8_t *buf, size_t cap)
{
	struct hidb_entry *me = ha->local;
	struct hip_esp_info ei = { 0 };
	struct hip_builder b;
	uint8_t enc[HIP_MAX_PACKET];
	size_t enc_len = 0;
	int ret;

	hip_build_init(&b, buf, cap, HIP_R2, &ha->hit_local, &ha->hit_peer);
	ei.keymat_index = (uint16_t)eng_keymat_esp_index(ha->hip_cipher, ha->rhash);
	ei.new_spi = ha->spi_in;
	hip_esp_info_build(&b, &ei);
	/* RFC 9028 §4.5 step 7: ICE-HIP-UDP's answer, our candidates */
	if (ha->nat_mode == HIP_NAT_MODE_ICE_HIP_UDP) {
		ret = bex_candidates_seal(d, ha, &ha->addr_local, NULL, NULL, 0, enc, sizeof(enc),
					  &enc_len);
		if (ret < 0)
			return ret;
		hip_encrypted_build(&b, enc, enc_len);
		hip_wipe(enc, sizeof(enc));
	}
	if (reg) {
		eng_reg_build_answer(&b, reg);
		eng_reg_build_relayed(&b, reg);
	}
	upd_lsi_answer(d, ha, &b);  /* the LSI pair taken (D-22) */
	hip_build_mac(&b, HIP_COVER_MAC_2, ha->rhash, eng_key_out_int(ha), ha->hip_keys.int_len,
		      me->host_id_tlv, me->host_id_tlv_len);
	hip_build_signature(&b, HIP_COVER_SIGNATURE, me->hi);
	return hip_build_finish(&b);
}

/* Table 5: the Exchange Complete timer, about I2_RETRIES_MAX I2
 * retransmission timeouts. */
static int i2_ec_timer_arm(struct hipd *d, struct hip_ha *ha)
{
	return eng_timer_arm(d, ha, (uint64_t)d->conf.i2_timeout_ms * ENG_NS_PER_MS *
				     (d->conf.i2_retries ? d->conf.i2_retries : 1));
}

/* (15): the association (new or replacing the old one), SPI, R2. */
static int i2_commit(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap,
		     struct hip_ha *tmp, struct hip_hi **hi_new, const struct hip_esp_info *ei)
{
	struct reg_answer reg;
	bool have_reg;
	uint8_t buf[ENG_PKT_BUF];
	struct hip_ha *ha;
	uint32_t spi;
	int ret, len;

	ret = eng_ha_get(d, rx->local, &rx->pkt->hit_sender, &ha);
	if (ret < 0)
		return ret;
	*hap = ha;
	/* Only the HI's octets stay (keys.c): R2-SENT and ESTABLISHED verify
	 * nothing with it but a CLOSE, CLOSE_ACK or NOTIFY. */
	if (*hi_new) {
		ret = eng_peer_hi_keep(ha, *hi_new);
		if (ret < 0)
			return ret;
	}
	eng_peer_hi_release(ha);
	ha->initiator = false;
	ha->addr_local = *rx->dst;
	ha->addr_peer = *rx->src;
	ha->peer_port = rx->sport;   /* over UDP: R2 and ESP in UDP to that port */
	/* through our control relay (RFC 9028 §4.5): our packets to the
	 * Initiator go back through it until the checks found a path */
	memset(&ha->relay_addr, 0, sizeof(ha->relay_addr));
	ha->relay_port = 0;
	if (rx->relay) {
		ha->relay_addr = *rx->relay;
		ha->relay_port = rx->relay_port;
	}
	eng_ha_copy_negotiated(ha, tmp);
	ha->spi_out = ei->new_spi;
	ha->t_i2_ns = hipd_now_ns();
	spi = hadb_new_spi(d->hadb);
	ret = spi ? hadb_set_spi(d->hadb, ha, spi) : -EAGAIN;
	if (ret < 0)
		return ret;
	/* D-22: the Initiator's offer of an LSI SA pair (none: none) */
	(void)upd_lsi_take(d, ha, rx->pkt, false);
	/* RFC 8003 §3.3: the I2 is authentic; its REG_REQUEST is answered in R2 */
	have_reg = eng_reg_answer(d, rx, &reg);
	len = build_r2(d, ha, have_reg ? &reg : NULL, buf, sizeof(buf));
	if (len < 0)
		return len;
	ret = eng_retx_store(ha, buf, (size_t)len);
	if (ret < 0)
		return ret;
	/* §6.9 step 15: the SAs before the R2, so the Initiator's first ESP
	 * finds them (a failure is logged; the exchange itself goes on);
	 * with ICE-HIP-UDP once a pair is nominated (RFC 9028 §4.6.1). */
	if (ha->nat_mode != HIP_NAT_MODE_ICE_HIP_UDP)
		eng_dp_install(d, ha);
	/* MH-03: to the I2's source, whatever the I1/R1 used. */
	if (eng_send(d, ha, buf, (size_t)len, &ha->addr_local, &ha->addr_peer) == 0)
		hipd_bex_sample(d->stats, HIPD_BEX_T3, hipd_rx_elapsed(d->stats, hipd_now_ns()));
	if (ha->nat_mode == HIP_NAT_MODE_ICE_HIP_UDP) {
		struct hip_locator_set cands;

		if (bex_candidates_open(ha, rx->pkt, &cands) < 0)
			cands.n = 0;    /* checks with what reaches us (triggered) */
		ret = upd_ice_start(d, ha, &cands);
		if (ret < 0)
			return ret;
	}
	return i2_ec_timer_arm(d, ha);
}

static int i2_process(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap)
{
	uint8_t kij[I2_KIJ_MAX], plain[I2_PLAIN_MAX];
	struct hidb_entry *me = rx->local;
	struct hip_hi *hi_new = NULL;
	const struct hip_hi *hi;
	struct hip_host_id hid;
	struct hip_esp_info ei = { 0 };
	struct hip_ha tmp;
	struct i2_view v;
	enum hipd_drop esp_why;
	const char *esp_err;
	uint64_t bad_hit;
	size_t kij_len;
	bool costly = false;
	int ret;

	memset(&tmp, 0, sizeof(tmp));
	memset(&v, 0, sizeof(v));
	/* (2) receiver HIT ours: not NULL in an I2 (the dispatcher checked the
	 * rest); (3) the Initiator's suite is one we verify. */
	if (!me || !me->r1) {
		ret = eng_drop(d, rx, HIPD_DROP_UNKNOWN_HIT, "receiver HIT");
		goto out;
	}
	if (hip_rhash_len((enum hip_rhash)hip_hit_suite(&rx->pkt->hit_sender)) == 0) {
		ret = eng_drop(d, rx, HIPD_DROP_NO_PROPOSAL, "Initiator HIT suite");
		goto out;
	}
	ret = i2_puzzle(d, rx, &v);
	if (ret < 0)
		goto out;
	/* P-10: this puzzle's I2s failed before; none of the work below.
	 * Only during an I2 flood (i2guard.h, D-15): otherwise every I2 gets
	 * its full checks and answer (§6.9.1). */
	if (i2_guard_holding(&d->engine->i2_guard, hipd_now_ns()) &&
	    i2_guard_refused(&d->engine->i2_guard, &rx->pkt->hit_sender, &me->hit, v.offer.i,
			     v.offer.i_len)) {
		d->engine->i2_refused_this_second++;
		ret = eng_drop(d, rx, HIPD_DROP_I2_REFUSED, "puzzle of failed I2s");
		goto out;
	}
	/* A copy of an I2 accepted before (a late duplicate after a newer
	 * exchange, a replay): its puzzle and the R1's DH key may still be
	 * valid, but it must not replace what it made or anything newer
	 * (D-15). A retransmission for the current association was answered
	 * before this (act_resend_r2, act_replace_i2). */
	if (i2_guard_spent(&d->engine->i2_guard, &rx->pkt->hit_sender, &me->hit, v.offer.i,
			   v.sol.j, v.offer.i_len)) {
		ret = eng_drop(d, rx, HIPD_DROP_REPLAY, "I2 accepted before");
		goto out;
	}
	costly = true;
	tmp.hit_local = me->hit;
	tmp.hit_peer = rx->pkt->hit_sender;
	tmp.rhash = me->suite;
	tmp.dh_group = v.offer.dh_group;
	tmp.puzzle_len = v.offer.i_len;
	memcpy(tmp.puzzle_i, v.offer.i, v.offer.i_len);
	memcpy(tmp.puzzle_j, v.sol.j, v.offer.i_len);
	ret = i2_suites(d, rx, &tmp);
	if (ret < 0)
		goto out;
	/* (9) the group we offered; the public value validated (C-15): a bad
	 * one aborts silently. */
	if (v.dh.group != v.offer.dh_group) {
		ret = i2_refuse(d, rx, HIPD_DROP_BAD_DH, HIP_NOTIFY_INVALID_DH_CHOSEN, NULL);
		goto out;
	}
	kij_len = hip_dh_secret_len(v.dh.group);
	if (kij_len == 0 || kij_len > sizeof(kij) ||
	    eng_dh_derive(d, v.offer.dh, v.dh.pub, v.dh.pub_len, kij, kij_len) < 0) {
		ret = eng_drop(d, rx, HIPD_DROP_BAD_DH, "I2 public value");
		goto out;
	}
	ret = eng_derive_keys(d, &tmp, kij, kij_len, &tmp.hit_peer, &tmp.hit_local);
	if (ret < 0) {
		ret = eng_drop(d, rx, HIPD_DROP_MALFORMED, "key derivation");
		goto out;
	}
	/* A captured I2 sent again while its association exists (its R1 DH
	 * key stays valid for R1s in flight) derives exactly that
	 * association's keys: same DH values, I and J. It must not replace a
	 * live association or revive a closed one. A new exchange of the
	 * same peer has a new DH value, so new keys. (R2-SENT answers a
	 * retransmitted I2 before this, in act_resend_r2.) */
	if (*hap && (*hap)->hip_keys.int_len == tmp.hip_keys.int_len &&
	    hip_memeq_ct((*hap)->hip_keys.gl_int, tmp.hip_keys.gl_int, tmp.hip_keys.int_len)) {
		ret = eng_drop(d, rx, HIPD_DROP_REPLAY, "I2 of the current association");
		goto out;
	}
	/* (10)-(11) */
	ret = i2_host_id(d, rx, &tmp, plain, sizeof(plain), &hid);
	if (ret < 0)
		goto out;
	bad_hit = d->stats->drop[HIPD_DROP_BAD_HIT];
	ret = eng_peer_hi(d, rx, *hap, &hid, &hi_new);
	if (ret < 0) {
		/* §5.2.19 INVALID_HIT: the HI does not give the sender's HIT
		 * (eng_peer_hi counted it as such). The puzzle was solved, and
		 * NOTIFYs are rate-limited. */
		if (d->stats->drop[HIPD_DROP_BAD_HIT] != bad_hit)
			eng_notify(d, rx, HIP_NOTIFY_INVALID_HIT, NULL, 0);
		goto out;
	}
	/* eng_peer_hi gives a new key unless the association's is the same */
	hi = hi_new ? hi_new : *hap ? (*hap)->peer_hi : NULL;
	if (!hi) {
		ret = -EINVAL;
		goto out;
	}
	/* (12): a bad ESP_INFO is dropped here, in the order of the checks;
	 * INVALID_SYNTAX goes out only when the I2 is authentic (§5.2.19). */
	esp_err = i2_esp_info(rx, &tmp, &ei, &esp_why);
	if (esp_err) {
		ret = eng_drop(d, rx, esp_why, esp_err);
		if (hip_verify_mac(rx->pkt, HIP_COVER_MAC, tmp.rhash, eng_key_in_int(&tmp),
				   tmp.hip_keys.int_len, NULL, 0) == 0 &&
		    hip_verify_signature(rx->pkt, HIP_COVER_SIGNATURE, hi) == 0)
			eng_notify(d, rx, HIP_NOTIFY_INVALID_SYNTAX, NULL, 0);
		goto out;
	}
	/* (13) the cheap MAC first, then the signature. */
	ret = hip_verify_mac(rx->pkt, HIP_COVER_MAC, tmp.rhash, eng_key_in_int(&tmp),
			     tmp.hip_keys.int_len, NULL, 0);
	if (ret < 0) {
		ret = ret == -ENOENT ? eng_drop(d, rx, HIPD_DROP_MISSING_PARAM, "HIP_MAC")
				     : i2_refuse(d, rx, HIPD_DROP_BAD_MAC,
						 HIP_NOTIFY_HIP_MAC_FAILED, NULL);
		goto out;
	}
	ret = hip_verify_signature(rx->pkt, HIP_COVER_SIGNATURE, hi);
	if (ret < 0) {
		ret = ret == -ENOENT ? eng_drop(d, rx, HIPD_DROP_MISSING_PARAM, "HIP_SIGNATURE")
				     : i2_refuse(d, rx, HIPD_DROP_BAD_SIGNATURE,
						 HIP_NOTIFY_AUTHENTICATION_FAILED, NULL);
		goto out;
	}
	/* Local policy: only peers we know (the I1 was let through when the
	 * policy or the hosts map differed). §5.2.19: BLOCKED_BY_POLICY, the
	 * puzzle, MAC and signature being verified. */
	if (d->conf.peer_policy == HIPD_PEER_KNOWN &&
	    eng_peer_locators(d, &tmp.hit_peer, NULL, 0) <= 0) {
		ret = i2_refuse(d, rx, HIPD_DROP_POLICY, HIP_NOTIFY_BLOCKED_BY_POLICY,
				"peer not in the hosts map");
		goto out;
	}
	ret = i2_commit(d, rx, hap, &tmp, &hi_new, &ei);
	if (ret < 0) {
		/* Out of memory or SPIs: the association (new, or the old one
		 * already reset for the new keys) cannot be kept. */
		ret = eng_drop(d, rx, HIPD_DROP_MALFORMED, "cannot create the association");
		if (*hap) {
			eng_ha_free(d, *hap);
			*hap = NULL;
		}
		goto out;
	}
	r1cache_mark_used(me->r1, &v.offer);   /* D-04 */
	i2_guard_spend(&d->engine->i2_guard, &rx->pkt->hit_sender, &me->hit, v.offer.i, v.sol.j,
		       v.offer.i_len);
	/* Its I1 was answered: the same I1 again (a restart after CLOSE) is
	 * no storm. */
	i1_storm_release(&d->engine->i1_storm, rx->src, rx->dst, &rx->pkt->hit_sender,
			 &rx->pkt->hit_receiver);
out:
	if (costly && ret < 0) {
		i2_guard_failed(&d->engine->i2_guard, &rx->pkt->hit_sender, &me->hit, v.offer.i,
				v.offer.i_len);
		eng_count_bad_i2(d);
	}
	hip_hi_free(hi_new);
	hip_wipe(kij, sizeof(kij));
	hip_wipe(plain, sizeof(plain));
	hip_wipe(&tmp, sizeof(tmp));
	hip_wipe(&v, sizeof(v));
	return ret < 0 ? ret : 0;
}

int act_process_i2(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap)
{
	return i2_process(d, rx, hap);
}

/* §6.9 step 5 (S-03): crossing I2s, the greater HIT goes on as Responder. */
int act_i2_crossed(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap)
{
	if (!eng_local_is_greater(*hap))
		return eng_drop(d, rx, HIPD_DROP_CROSSED_LOWER_HIT, "crossing I2");
	return i2_process(d, rx, hap);
}

/* Table 5: an I2 that our current keys authenticate is a retransmission
 * (our R2 was lost): send the same R2 again. Any other I2 is a new
 * exchange and is processed in full. */
int act_resend_r2(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap)
{
	struct hip_ha *ha = *hap;

	if (ha->retx_pkt &&
	    hip_verify_mac(rx->pkt, HIP_COVER_MAC, ha->rhash, eng_key_in_int(ha),
			   ha->hip_keys.int_len, NULL, 0) == 0) {
		(void)eng_retx_resend(d, ha);   /* a failed send is counted */
		return 0;
	}
	return i2_process(d, rx, hap);
}

/* Table 6 (S-06): a valid I2 in ESTABLISHED replaces the association: new
 * keys, new SPIs, the old SAs go. But the I2 that made it, retransmitted
 * by an Initiator that never got our R2 while the Exchange Complete timer
 * moved us here (it doubles its waits, the timer does not), gets the R2
 * again, at most i2_retries times, and we stay ESTABLISHED: the R2 is kept
 * after a timer confirmation until the Initiator is heard (act_confirm,
 * dp_traffic). Copies beyond that are replays (i2_process). */
int act_replace_i2(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap)
{
	char hit[HIP_HIT_STR_LEN];
	struct hip_ha *ha = *hap;
	int ret;

	if (ha->retx_pkt && ha->retx_count < d->conf.i2_retries &&
	    hip_verify_mac(rx->pkt, HIP_COVER_MAC, ha->rhash, eng_key_in_int(ha),
			   ha->hip_keys.int_len, NULL, 0) == 0) {
		ha->retx_count++;
		(void)eng_retx_resend(d, ha);   /* a failed send is counted */
		return ENG_HANDLED;             /* nothing new: still ESTABLISHED */
	}
	ret = i2_process(d, rx, hap);

	if (ret == 0)
		log_notice("association with %s replaced by a new base exchange",
			   hip_hit_to_str(&(*hap)->hit_peer, hit, sizeof(hit)));
	return ret;
}
