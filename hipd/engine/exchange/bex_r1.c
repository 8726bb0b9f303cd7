/*
 * bex_r1.c - the Initiator processes an R1 and answers with I2 (RFC 7401
 * §6.8, §5.3.3; RFC 7402 §5.2.1.2; docs/protocol.md §6 R1 steps
 * 1-12; W-12, W-20).
 *
 * Checks in the order of docs/protocol.md §6: state and HITs (the table), the
 * signature with the R1's own HOST_ID (and that it hashes to the HIT we
 * asked for), R1 counter, our HIT Suite, DH group with downgrade detection,
 * then the puzzle, Kij, KEYMAT, suite choice and the I2.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "engine/engine_int.h"
#include "exchange.h"
#include "hit.h"
#include "base/base.h"
#include "engine/assoc/assoc.h"
#include "engine/reg/reg.h"
#include "engine/update/update.h"

enum { R1_KIJ_MAX = 512, R1_ENC_MAX = HIP_MAX_PACKET };

/* Everything the R1 carries that the I2 depends on, decoded once. */
struct r1_view {
	const struct hip_param_ref *host_id_ref;
	struct hip_host_id hid;
	struct hip_puzzle puzzle;
	struct hip_u8_list dh_list, suites;
	struct hip_dh_param dh;
	struct hip_u16_list ciphers, transports, esp;
	struct hip_r1_counter counter;
	bool have_counter;
	struct hip_opaque echo_signed;
	bool have_echo_signed;
	struct hip_reg reg_req;       /* ours for the I2 (RFC 8003 §3.2) */
	bool have_reg_req;
	uint16_t nat_mode;            /* the I2's mode (RFC 9028 §4.3), 0 = none */
	uint16_t nat_ta;              /* ICE-HIP-UDP: the Ta we propose (§4.4) */
	struct hip_relay_addr seen;   /* RELAY_TO: how the relay saw us (§4.5 step 5) */
	bool via_relay;
};

/* Decode a required parameter with dec; count MISSING or BAD_PARAM. */
#define R1_DECODE(d, rx, type, dec, out, ret) \
	do { \
		const struct hip_param_ref *p_ = eng_param(d, rx, type, true, &(ret)); \
		if (!p_) \
			return ret; \
		if (dec(hip_param_content((rx)->pkt, p_), p_->len, out) < 0) \
			return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, hip_param_name(type)); \
	} while (0)

static int r1_decode(struct hipd *d, const struct eng_rx *rx, enum hip_rhash rhash,
		     struct r1_view *v)
{
	const struct hip_param_ref *p;
	int ret;

	memset(v, 0, sizeof(*v));
	v->host_id_ref = eng_param(d, rx, HIP_PARAM_HOST_ID, true, &ret);
	if (!v->host_id_ref)
		return ret;
	if (hip_host_id_decode(hip_param_content(rx->pkt, v->host_id_ref),
			       v->host_id_ref->len, &v->hid) < 0)
		return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "HOST_ID");
	p = eng_param(d, rx, HIP_PARAM_PUZZLE, true, &ret);
	if (!p)
		return ret;
	if (hip_puzzle_decode(hip_param_content(rx->pkt, p), p->len, hip_rhash_len(rhash),
			      &v->puzzle) < 0 || v->puzzle.k > HIP_PUZZLE_K_MAX)
		return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "PUZZLE");
	R1_DECODE(d, rx, HIP_PARAM_DH_GROUP_LIST, hip_dh_group_list_decode, &v->dh_list, ret);
	R1_DECODE(d, rx, HIP_PARAM_DIFFIE_HELLMAN, hip_dh_param_decode, &v->dh, ret);
	R1_DECODE(d, rx, HIP_PARAM_HIP_CIPHER, hip_hip_cipher_decode, &v->ciphers, ret);
	R1_DECODE(d, rx, HIP_PARAM_HIT_SUITE_LIST, hip_hit_suite_list_decode, &v->suites, ret);
	R1_DECODE(d, rx, HIP_PARAM_TRANSPORT_FORMAT_LIST, hip_transport_format_list_decode,
		  &v->transports, ret);
	R1_DECODE(d, rx, HIP_PARAM_ESP_TRANSFORM, hip_esp_transform_decode, &v->esp, ret);
	p = hip_packet_find(rx->pkt, HIP_PARAM_R1_COUNTER);
	if (p) {
		if (hip_r1_counter_decode(hip_param_content(rx->pkt, p), p->len,
					  &v->counter) < 0)
			return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "R1_COUNTER");
		v->have_counter = true;
	}
	/* RFC 9028 §4.5: an R1 through a control relay carries RELAY_TO, our
	 * transport address as the relay saw it */
	p = rx->sport ? hip_packet_find(rx->pkt, HIP_PARAM_RELAY_TO) : NULL;
	if (p && hip_relay_addr_decode(hip_param_content(rx->pkt, p), p->len, &v->seen) == 0)
		v->via_relay = true;
	/* §4.3: over UDP the I2 names the mode chosen among the R1's
	 * (UDP-ENCAPSULATION, or ICE-HIP-UDP through a relay, §4.7.2);
	 * without the parameter the mode is implicit (§4.7.1); over IP it
	 * is ignored (§4.7.3). */
	p = rx->sport ? hip_packet_find(rx->pkt, HIP_PARAM_NAT_TRAVERSAL_MODE) : NULL;
	if (p) {
		struct hip_u16_list modes;

		if (hip_nat_traversal_mode_decode(hip_param_content(rx->pkt, p), p->len,
						  &modes) < 0)
			return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "NAT_TRAVERSAL_MODE");
		v->nat_mode = bex_nat_mode_choose(&modes, v->via_relay);
		if (!v->nat_mode)
			return eng_drop(d, rx, HIPD_DROP_NO_PROPOSAL, "no NAT traversal mode of ours");
		/* §4.4: never less than the Responder offered */
		if (v->nat_mode == HIP_NAT_MODE_ICE_HIP_UDP && bex_nat_ta(d, rx->pkt, &v->nat_ta) < 0)
			return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "TRANSACTION_PACING");
	}
	p = hip_packet_find(rx->pkt, HIP_PARAM_ECHO_REQUEST_SIGNED);
	if (p) {
		if (hip_echo_decode(hip_param_content(rx->pkt, p), p->len, &v->echo_signed) < 0)
			return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "ECHO_REQUEST_SIGNED");
		v->have_echo_signed = true;
	}
	return 0;
}

/* docs/protocol.md §6 R1 step 5: the group must be in our I1 list and be the
 * first entry of the R1's DH_GROUP_LIST that our list has too. */
static int r1_check_dh(struct hipd *d, const struct eng_rx *rx, const struct r1_view *v)
{
	const uint8_t *ours = d->conf.dh_groups;
	size_t n = d->conf.n_dh_groups;
	unsigned i;

	if (!eng_u8_in(ours, n, v->dh.group) || !hip_dh_group_supported(v->dh.group))
		return eng_drop(d, rx, HIPD_DROP_DH_DOWNGRADE, "group not in our I1 list");
	for (i = 0; i < v->dh_list.n; i++)
		if (eng_u8_in(ours, n, v->dh_list.v[i]))
			break;
	if (i == v->dh_list.n || v->dh_list.v[i] != v->dh.group)
		return eng_drop(d, rx, HIPD_DROP_DH_DOWNGRADE,
				"group is not the first common one of the R1 list");
	return 0;
}

/* docs/protocol.md §6 R1 step 11: the first entry of the Responder's list that
 * we support (HIP_CIPHER: only among its first 6). */
static int r1_choose(struct hipd *d, const struct eng_rx *rx, const struct r1_view *v,
		     struct hip_ha *ha)
{
	size_t enc, auth;
	unsigned i;

	ha->hip_cipher = 0;
	for (i = 0; i < v->ciphers.n && i < ENG_HIP_CIPHER_SCAN; i++) {
		if (eng_hip_cipher_ok(d, v->ciphers.v[i])) {
			ha->hip_cipher = v->ciphers.v[i];
			break;
		}
	}
	ha->esp_suite = 0;
	for (i = 0; i < v->esp.n; i++) {
		if (eng_u16_in(d->conf.esp_suites, d->conf.n_esp_suites, v->esp.v[i]) &&
		    eng_esp_key_sizes(d, v->esp.v[i], &enc, &auth) == 0) {
			ha->esp_suite = v->esp.v[i];
			break;
		}
	}
	for (i = 0; i < v->transports.n; i++)
		if (v->transports.v[i] == HIP_PARAM_ESP_TRANSFORM)
			break;
	/* The R1's signature is verified: tell the Responder why we cannot
	 * go on (§5.2.19; rate-limited per source in eng_notify). */
	if (!ha->hip_cipher) {
		eng_notify(d, rx, HIP_NOTIFY_NO_HIP_PROPOSAL_CHOSEN, NULL, 0);
		return eng_drop(d, rx, HIPD_DROP_NO_PROPOSAL, "no common HIP_CIPHER in R1");
	}
	if (!ha->esp_suite || i == v->transports.n) {
		eng_notify(d, rx, HIP_NOTIFY_NO_ESP_PROPOSAL_CHOSEN, NULL, 0);
		return eng_drop(d, rx, HIPD_DROP_NO_PROPOSAL, "no common ESP suite in R1");
	}
	return 0;
}

/* docs/protocol.md §6 R1 step 4, Table 2: our HIT Suite is not in the R1's
 * HIT_SUITE_LIST. Restart with another identity of ours whose suite it
 * lists (a new association for that HIT pair, new I1, I1-SENT), else
 * abort the exchange (E-FAILED). The R1 is counted either way. The old
 * association is freed or failed here: ENG_HANDLED. */
static int r1_suite_restart(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha,
			    const struct r1_view *v)
{
	struct hip_hit peer = ha->hit_peer;
	struct hidb_entry *alt = NULL, *e;
	char hit[HIP_HIT_STR_LEN];
	unsigned ours = hip_hit_suite(&ha->hit_local);
	struct hip_ha *nha;
	size_t i;
	int ret;

	for (i = 0; i < hidb_count(d->hidb) && !alt; i++) {
		e = hidb_at(d->hidb, i);
		if (e && e != ha->local && eng_u8_in(v->suites.v, v->suites.n,
						     (uint8_t)hip_hit_suite(&e->hit)))
			alt = e;
	}
	hip_hit_to_str(&peer, hit, sizeof(hit));
	eng_drop(d, rx, HIPD_DROP_HIT_SUITE, alt ? "restarting with another identity"
					      : "no identity of a suite the Responder accepts");
	if (!alt) {
		log_warn("base exchange with %s aborted: the Responder does not accept our "
			 "HIT suite %u and we have no identity of a suite it lists", hit, ours);
		eng_bex_failed(d, ha);
		return ENG_HANDLED;
	}
	log_notice("base exchange with %s: the Responder does not accept HIT suite %u, "
		   "restarting with our identity of suite %u", hit, ours,
		   hip_hit_suite(&alt->hit));
	eng_ha_free(d, ha);
	ret = eng_ha_get(d, alt, &peer, &nha);
	if (ret < 0)
		goto fail;
	nha->initiator = true;
	nha->retx_count = 0;
	ret = eng_send_i1(d, nha, true);
	if (ret == 0)
		ret = eng_ha_set_state(d, nha, HIP_STATE_I1_SENT);
	if (ret == 0)
		ret = eng_timer_arm(d, nha, eng_retx_delay_ns(d->conf.i1_timeout_ms, 0));
	if (ret < 0) {
		eng_ha_free(d, nha);
		goto fail;
	}
	return ENG_HANDLED;
fail:
	log_warn("base exchange with %s: restart failed: %s", hit, strerror(-ret));
	d->stats->bex_failed++;
	return ENG_HANDLED;
}

/* §6.8 step 12: give up once the puzzle lifetime 2^(Lifetime-32) s is over. */
static uint64_t puzzle_deadline(uint8_t lifetime)
{
	uint64_t now = hipd_now_ns();

	if (lifetime >= 32)
		return now + (ENG_NS_PER_S << (lifetime - 32 > 30 ? 30 : lifetime - 32));
	return now + (ENG_NS_PER_S >> (32 - lifetime > 30 ? 30 : 32 - lifetime));
}

/* The I2 in wire order (docs/protocol.md §1). */
static int build_i2(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha,
		    const struct r1_view *v, const uint8_t *pub, size_t pub_len,
		    uint8_t *buf, size_t cap)
{
	struct hidb_entry *me = ha->local;
	struct hip_builder b;
	struct hip_esp_info ei = { 0 };
	struct hip_solution sol = { 0 };
	struct hip_u16_list one = { .n = 1 };
	const struct hip_param_ref *p;
	struct hip_opaque echo;
	uint8_t enc[R1_ENC_MAX];
	size_t enc_len = 0;
	int ret;
	/* ENCRYPTED{HOST_ID} or HOST_ID (RFC 7401 §5.3.3); in the clear only when
	 * configured, so that a middlebox can verify the I2 (decisions D-18).
	 * ICE-HIP-UDP keeps it beside the sealed candidates (RFC 9028 §4.5). */
	bool clear_hi = d->conf.i2_host_id == HIPD_I2_HOST_ID_CLEAR &&
			v->nat_mode != HIP_NAT_MODE_ICE_HIP_UDP;

	/* ICE-HIP-UDP: our candidates beside the HOST_ID (RFC 9028 §4.5 step 5) */
	if (v->nat_mode == HIP_NAT_MODE_ICE_HIP_UDP)
		ret = bex_candidates_seal(d, ha, rx->dst, v->via_relay ? &v->seen : NULL,
					  me->host_id_tlv, me->host_id_tlv_len, enc, sizeof(enc),
					  &enc_len);
	else if (!clear_hi)
		ret = hip_cipher_seal(ha->hip_cipher, eng_key_out_enc(ha), me->host_id_tlv,
				      me->host_id_tlv_len, enc, sizeof(enc), &enc_len);
	else
		ret = 0;
	if (ret < 0)
		return ret;
	hip_build_init(&b, buf, cap, HIP_I2, &ha->hit_local, &ha->hit_peer);
	ei.keymat_index = ha->keymat_index;
	ei.new_spi = ha->spi_in;
	hip_esp_info_build(&b, &ei);
	if (v->have_counter)
		hip_r1_counter_build(&b, &v->counter);   /* verbatim (W-12) */
	sol.k = v->puzzle.k;
	sol.opaque = v->puzzle.opaque;
	sol.ij_len = (uint8_t)ha->puzzle_len;
	memcpy(sol.i, ha->puzzle_i, ha->puzzle_len);
	memcpy(sol.j, ha->puzzle_j, ha->puzzle_len);
	hip_solution_build(&b, &sol);
	hip_dh_param_build(&b, ha->dh_group, pub, pub_len);
	one.v[0] = ha->hip_cipher;
	hip_hip_cipher_build(&b, &one);
	if (v->nat_mode) {
		one.v[0] = v->nat_mode;
		hip_nat_traversal_mode_build(&b, &one);
	}
	if (v->nat_mode == HIP_NAT_MODE_ICE_HIP_UDP)
		hip_transaction_pacing_build(&b, v->nat_ta);   /* RFC 9028 §4.4 */
	if (clear_hi)
		hip_build_param(&b, HIP_PARAM_HOST_ID, me->host_id_tlv + HIP_TLV_HDR_LEN,
				hip_rd16(me->host_id_tlv + 2));
	else
		hip_encrypted_build(&b, enc, enc_len);
	if (v->have_reg_req)
		hip_reg_build(&b, HIP_PARAM_REG_REQUEST, &v->reg_req);
	if (v->have_echo_signed)
		hip_echo_build(&b, HIP_PARAM_ECHO_RESPONSE_SIGNED, v->echo_signed.data,
			       v->echo_signed.len);
	one.v[0] = HIP_PARAM_ESP_TRANSFORM;
	hip_transport_format_list_build(&b, &one);
	one.v[0] = ha->esp_suite;
	hip_esp_transform_build(&b, &one);
	upd_lsi_offer(d, ha, &b);   /* hipd's own, non-critical (D-22) */
	hip_build_mac(&b, HIP_COVER_MAC, ha->rhash, eng_key_out_int(ha), ha->hip_keys.int_len,
		      NULL, 0);
	hip_build_signature(&b, HIP_COVER_SIGNATURE, me->hi);
	/* §5.2.21: every unsigned request answered, data unmodified (W-20). */
	for (p = hip_packet_find(rx->pkt, HIP_PARAM_ECHO_REQUEST_UNSIGNED); p;
	     p = hip_packet_find_next(rx->pkt, p)) {
		if (hip_echo_decode(hip_param_content(rx->pkt, p), p->len, &echo) == 0)
			hip_echo_build(&b, HIP_PARAM_ECHO_RESPONSE_UNSIGNED, echo.data, echo.len);
	}
	ret = hip_build_finish(&b);
	hip_wipe(enc, sizeof(enc));
	return ret;
}

/* Keep the R1's HOST_ID TLV, padding included, for HIP_MAC_2 (§6.4.1). */
static int keep_host_id(struct hip_ha *ha, const struct eng_rx *rx,
			const struct hip_param_ref *ref)
{
	size_t len = hip_tlv_total_len(ref->len);
	uint8_t *copy;

	if ((size_t)ref->off + len > rx->pkt->len)
		return -EINVAL;
	copy = malloc(len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, rx->pkt->buf + ref->off, len);
	free(ha->peer_host_id_tlv);
	ha->peer_host_id_tlv = copy;
	ha->peer_host_id_tlv_len = len;
	return 0;
}

/* What R1 processing overwrites; restored when it fails, so a bad R1 in
 * I2-SENT leaves the exchange in progress intact. Only the negotiated
 * fields of neg are used (eng_ha_copy_negotiated). */
struct r1_saved {
	struct hip_ha neg;
	uint32_t spi_in;
};

static void r1_save(const struct hip_ha *ha, struct r1_saved *s)
{
	memset(&s->neg, 0, sizeof(s->neg));
	eng_ha_copy_negotiated(&s->neg, ha);
	s->spi_in = ha->spi_in;
}

static void r1_restore(struct hipd *d, struct hip_ha *ha, const struct r1_saved *s)
{
	eng_ha_copy_negotiated(ha, &s->neg);
	hadb_set_spi(d->hadb, ha, s->spi_in);
}

/* (9) on the puzzle thread, if the engine has one and K makes it worth a
 * thread's wake-up: it runs beside the checks and the Kij derivation, none
 * of which needs J (puzzle_worker.h). True when started. */
static bool r1_puzzle_start(struct hipd *d, const struct hip_ha *ha, enum hip_rhash rhash,
			    const struct r1_view *v)
{
	struct puzzle_worker *w = d->engine->puzzle_worker;
	struct puzzle_task t;

	if (!w || v->puzzle.k < ENG_PUZZLE_THREAD_MIN_K || v->puzzle.i_len != hip_rhash_len(rhash))
		return false;
	memset(&t, 0, sizeof(t));
	t.rhash = rhash;
	t.k = v->puzzle.k;
	memcpy(t.i, v->puzzle.i, v->puzzle.i_len);
	memcpy(t.hit_i, ha->hit_local.b, 16);
	memcpy(t.hit_r, ha->hit_peer.b, 16);
	t.deadline_ns = puzzle_deadline(v->puzzle.lifetime);
	return hip_random(t.j_start, v->puzzle.i_len) == 0 && puzzle_worker_submit(w, &t) == 0;
}

static int r1_process(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha, bool newer)
{
	struct r1_saved saved;
	enum hip_rhash rhash = (enum hip_rhash)hip_hit_suite(&ha->hit_peer);
	uint8_t kij[R1_KIJ_MAX], pub[R1_KIJ_MAX], j_start[HIP_RHASH_MAX];
	uint8_t buf[ENG_PKT_BUF];
	struct hip_hi *hi_new = NULL;
	struct hip_dh *dh = NULL;
	const struct hip_param_ref *p;
	struct hip_via_rvs via;
	struct r1_view v;
	size_t kij_len = 0, pub_len = 0;
	bool searching;
	uint32_t spi;
	int ret, len;

	if (hip_rhash_len(rhash) == 0)
		return eng_drop(d, rx, HIPD_DROP_BAD_HIT, "peer HIT suite");
	ret = r1_decode(d, rx, rhash, &v);
	if (ret < 0)
		return ret;
	searching = r1_puzzle_start(d, ha, rhash, &v);
	r1_save(ha, &saved);
	/* (2) the signature, by the HI the R1 carries, which must be the one
	 * behind the HIT our I1 named (C-02, C-10). */
	ret = eng_peer_hi(d, rx, ha, &v.hid, &hi_new);
	if (ret < 0)
		goto out;
	ret = hip_verify_signature(rx->pkt, HIP_COVER_SIGNATURE_2, hi_new ? hi_new : ha->peer_hi);
	if (ret < 0) {
		ret = eng_drop(d, rx, ret == -ENOENT ? HIPD_DROP_MISSING_PARAM
					      : HIPD_DROP_BAD_SIGNATURE, "HIP_SIGNATURE_2");
		goto out;
	}
	if (hi_new) {
		ret = eng_peer_hi_keep(ha, hi_new);
		if (ret < 0)
			goto out;
		hip_hi_free(ha->peer_hi);
		ha->peer_hi = hi_new;
		hi_new = NULL;
	}
	/* (3) in I2-SENT only a newer R1 restarts the processing. */
	if (newer && (!v.have_counter || !ha->have_r1_counter ||
		      v.counter.counter <= ha->r1_counter.counter)) {
		ret = eng_drop(d, rx, HIPD_DROP_R1_COUNTER, "R1 not newer than the one answered");
		goto out;
	}
	/* (4) our HIT Suite must be acceptable to the Responder. In I2-SENT
	 * the exchange in progress (with a suite it accepted) goes on. */
	if (!eng_u8_in(v.suites.v, v.suites.n, hip_hit_suite(&ha->hit_local))) {
		if (newer) {
			ret = eng_drop(d, rx, HIPD_DROP_HIT_SUITE, "our HIT suite not accepted");
			goto out;
		}
		if (searching)
			puzzle_worker_cancel(d->engine->puzzle_worker);
		r1_restore(d, ha, &saved);
		hip_wipe(&saved, sizeof(saved));
		hip_hi_free(hi_new);
		return r1_suite_restart(d, rx, ha, &v);
	}
	/* (5) downgrade detection. */
	ret = r1_check_dh(d, rx, &v);
	if (ret < 0)
		goto out;
	ret = r1_choose(d, rx, &v, ha);
	if (ret < 0)
		goto out;
	/* (10) our DH key for the Responder's group and Kij: before the
	 * puzzle's result, which only the KEYMAT needs (while the puzzle
	 * thread searches). */
	kij_len = hip_dh_secret_len(v.dh.group);
	pub_len = hip_dh_pub_len(v.dh.group);
	if (kij_len == 0 || kij_len > sizeof(kij) || pub_len == 0 || pub_len > sizeof(pub)) {
		ret = eng_drop(d, rx, HIPD_DROP_BAD_DH, "group sizes");
		goto out;
	}
	ret = eng_dh_take(d, v.dh.group, &dh);
	if (ret == 0)
		ret = hip_dh_public(dh, pub, pub_len);
	if (ret < 0)
		goto out;
	ret = eng_dh_derive(d, dh, v.dh.pub, v.dh.pub_len, kij, kij_len);
	if (ret < 0) {
		ret = eng_drop(d, rx, HIPD_DROP_BAD_DH, "R1 public value");
		goto out;
	}
	/* (9) the puzzle, with the Responder's RHASH, within its lifetime:
	 * joining the thread's search, or all here. */
	ha->rhash = rhash;
	ha->puzzle_len = v.puzzle.i_len;
	memcpy(ha->puzzle_i, v.puzzle.i, v.puzzle.i_len);
	if (searching) {
		searching = false;
		ret = puzzle_worker_finish(d->engine->puzzle_worker, ha->puzzle_j);
	} else {
		ret = hip_random(j_start, v.puzzle.i_len);
		if (ret == 0)
			ret = hip_puzzle_solve(rhash, v.puzzle.k, v.puzzle.i, ha->hit_local.b,
					       ha->hit_peer.b, j_start, 0,
					       puzzle_deadline(v.puzzle.lifetime), ha->puzzle_j,
					       NULL);
	}
	if (ret < 0) {
		ret = eng_drop(d, rx, HIPD_DROP_PUZZLE_FAILED, "no solution within the lifetime");
		goto out;
	}
	/* (10) KEYMAT */
	ha->dh_group = v.dh.group;
	ret = eng_derive_keys(d, ha, kij, kij_len, &ha->hit_local, &ha->hit_peer);
	if (ret < 0)
		goto out;
	spi = hadb_new_spi(d->hadb);
	ret = spi ? hadb_set_spi(d->hadb, ha, spi) : -EAGAIN;
	if (ret < 0)
		goto out;
	ret = keep_host_id(ha, rx, v.host_id_ref);
	if (ret < 0)
		goto out;
	/* RFC 8003 §3.2: a server of ours offering what we want gets our
	 * REG_REQUEST in the I2 (the R1 is authentic by now). */
	eng_reg_info_rx(d, rx);
	v.have_reg_req = eng_reg_request_for(d, &ha->hit_peer, &v.reg_req);
	/* (12) I2 to where the R1 came from; retransmitted until R2. */
	len = build_i2(d, rx, ha, &v, pub, pub_len, buf, sizeof(buf));
	if (len < 0) {
		ret = len;
		goto out;
	}
	hip_dh_free(ha->dh);
	ha->dh = dh;
	dh = NULL;
	ha->r1_counter = v.counter;
	ha->have_r1_counter = v.have_counter;
	ha->r1_k = v.puzzle.k;
	ha->addr_local = *rx->dst;
	ha->addr_peer = *rx->src;
	ha->peer_port = rx->sport;   /* the I2 goes back the way the R1 came */
	ha->nat_mode = v.nat_mode;
	ha->nat_ta_ms = v.nat_ta;
	/* RFC 8004 §4.3.3: the R1 came through the peer's rendezvous server
	 * (VIA_RVS): kept for double jumps (RFC 8046 §3.2.3) */
	p = hip_packet_find(rx->pkt, HIP_PARAM_VIA_RVS);
	if (p && hip_via_rvs_decode(hip_param_content(rx->pkt, p), p->len, &via) == 0 && via.n &&
	    !hip_addr_locator_problem(&via.addr[0]))
		upd_peer_rvs_set(ha, &via.addr[0]);
	ha->t_r1_ns = ha->t_i2_ns = hipd_now_ns();
	ha->retx_count = 0;
	ret = eng_retx_store(ha, buf, (size_t)len);
	if (ret < 0)
		goto out;
	if (eng_send(d, ha, buf, (size_t)len, &ha->addr_local, &ha->addr_peer) == 0)
		hipd_bex_sample(d->stats, HIPD_BEX_T2, hipd_rx_elapsed(d->stats, hipd_now_ns()));
	/* The I2 is out with these keys: keep them even without a timer. */
	if (eng_timer_arm(d, ha, eng_retx_delay_ns(d->conf.i2_timeout_ms, 0)) < 0)
		log_warn("no I2 retransmission timer: out of memory");
	ret = 0;
out:
	if (searching)
		puzzle_worker_cancel(d->engine->puzzle_worker);
	if (ret < 0)
		r1_restore(d, ha, &saved);
	hip_wipe(&saved, sizeof(saved));
	hip_hi_free(hi_new);
	hip_dh_free(dh);
	hip_wipe(kij, sizeof(kij));
	hip_wipe(j_start, sizeof(j_start));
	return ret < 0 ? ret : 0;
}

int act_process_r1(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap)
{
	/* §6.8 step 1 (docs/protocol.md §7): only while our I1 is outstanding. In
	 * CLOSING/CLOSED an I1 moves us to I1-SENT, so none is. */
	if ((*hap)->state != HIP_STATE_I1_SENT)
		return eng_drop(d, rx, HIPD_DROP_WRONG_STATE, "no I1 outstanding");
	return r1_process(d, rx, *hap, false);
}

int act_process_r1_newer(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap)
{
	return r1_process(d, rx, *hap, true);
}
