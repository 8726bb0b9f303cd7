/*
 * update_rekey.c - rekeying with UPDATE (RFC 7402 §6.8-6.10, §7;
 * docs/decisions.md A-11; E-03, E-07, E-13):
 *
 *   1. UPDATE(ESP_INFO{old, new, idx}, SEQ, [DIFFIE_HELLMAN])
 *   2. UPDATE(ESP_INFO{old, new, idx}, SEQ, ACK, [DIFFIE_HELLMAN])
 *   3. UPDATE(ACK)
 *
 * With a DH: the KEYMAT Index is 0, the group is the base exchange's, and
 * KEYMAT = HKDF(new Kij, #I | #J, sort(HITs)) with only the four ESP keys
 * drawn from index 0. Without: the base exchange's KEYMAT continues
 * from the larger of both proposed indexes (the Kij is kept for this; the
 * HKDF output is prefix-stable, so the KEYMAT is recomputed to the length
 * needed, at most 255·RHASH_len, beyond which a DH is required).
 *
 * The initiator installs both new SAs and switches when message 2 arrives;
 * the responder installs its new inbound SA when it answers and switches
 * its outbound SA on message 3. The old outbound SA goes at the switch, the
 * old inbound one after a grace time (packets still in flight on it).
 *
 * Crossed requests: the host with the greater HIT keeps its own rekey and
 * only ACKs the peer's; the other abandons its own and answers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "hit.h"
#include "base/base.h"
#include "update_int.h"

/* KEYMAT an association's rekey takes: the HIT pair's keys, then the LSI
 * pair's (update_lsi.c) when it has one. */
static size_t esp_draw(const struct hipd *d, const struct hip_ha *ha)
{
	return upd_esp_draw1(d, ha) * (ha->lsi && ha->lsi->spi_out ? 2 : 1);
}

void upd_rekey_abort(struct hipd *d, struct hip_ha *ha)
{
	struct hip_update *u = ha->upd;

	if (!u || u->rekey_role == UPD_REKEY_NONE)
		return;
	/* The responder installed its new inbound SA when it answered; the
	 * initiator's are installed only when it switches. */
	if (u->rekey_role == UPD_REKEY_RESPONDER && u->new_spi_in)
		eng_dp_sa_del(d, true, u->new_spi_in, &ha->addr_local);
	hip_dh_free(u->new_dh);
	u->new_dh = NULL;
	hip_wipe(u->new_prk, sizeof(u->new_prk));
	u->have_new_prk = false;
	hip_wipe(&u->new_keys, sizeof(u->new_keys));
	u->new_keys_ready = false;
	u->new_spi_in = u->new_spi_out = 0;
	u->rekey_role = UPD_REKEY_NONE;
	u->rekey_acked = false;
}

void upd_old_sa_expire(struct hipd *d, struct hip_ha *ha, bool force)
{
	struct hip_update *u = ha->upd;

	if (!u || !u->old_spi_in || (!force && hipd_now_ns() < u->old_deadline_ns))
		return;
	eng_dp_sa_del(d, true, u->old_spi_in, &u->old_in_dst);
	u->old_spi_in = 0;
	u->old_deadline_ns = 0;
}

int upd_rekey_start(struct hipd *d, struct hip_ha *ha, bool with_dh)
{
	struct hip_update *u = upd_get(ha);
	struct hip_esp_info ei;
	struct upd_msg m = { 0 };
	size_t draw = esp_draw(d, ha);
	int ret;

	if (!u)
		return -ENOMEM;
	if (u->out_kind != UPD_OUT_NONE || u->rekey_role != UPD_REKEY_NONE)
		return -EBUSY;     /* E-13: one at a time */
	if (draw == 0)
		return -ENOTSUP;
	upd_old_sa_expire(d, ha, true);   /* one old inbound SA at a time */
	u->rekey_wanted = false;
	if (!ha->upd_have_prk || ha->keymat_index + 2 * draw > 255 * hip_rhash_len(ha->rhash))
		with_dh = true;   /* §5.1.1: KEYMAT exhausted (or unknown) */
	if (with_dh) {
		ret = eng_dh_take(d, ha->dh_group, &u->new_dh);
		if (ret < 0)
			return ret;
		u->new_index = 0;
	} else {
		u->new_index = (uint16_t)(ha->keymat_index + draw);
	}
	u->new_spi_in = hadb_new_spi(d->hadb);   /* E-03: MUST change */
	u->rekey_role = UPD_REKEY_INITIATOR;
	u->rekey_acked = false;
	ei.keymat_index = u->new_index;
	ei.old_spi = ha->spi_in;
	ei.new_spi = u->new_spi_in;
	m.esp_info = &ei;
	m.dh = u->new_dh;
	ret = upd_send_new(d, ha, UPD_OUT_REKEY, &m, &ha->addr_local, &ha->addr_peer);
	if (ret < 0)
		upd_rekey_abort(d, ha);
	return ret;
}

/* Outbound on the new SA, new SPIs and keys in the association; the old
 * outbound SA goes now, the old inbound one after the grace time. */
static int rekey_switch(struct hipd *d, struct hip_ha *ha, size_t index)
{
	struct hip_update *u = ha->upd;
	uint32_t old_in = ha->spi_in, old_out = ha->spi_out;
	char hit[HIP_HIT_STR_LEN];
	int ret;

	ret = eng_dp_sa_add(d, ha, false, u->new_spi_out, &u->new_keys);
	if (ret < 0)
		return ret;
	upd_old_sa_expire(d, ha, true);   /* one old inbound SA at a time */
	if (ha->dp_installed && ha->dp_spi_out)
		eng_dp_sa_del(d, false, old_out, &ha->dp_loc_peer);
	/* sets spi_in, moving its index entry from the old SPI */
	hadb_set_spi(d->hadb, ha, u->new_spi_in);
	ha->spi_out = u->new_spi_out;
	ha->esp_keys = u->new_keys;
	ha->keymat_index = (uint16_t)index;   /* the keys in use; the next start after them */
	/* the LSI pair's keys follow the HIT pair's (update_lsi.c) */
	if (ha->lsi && ha->lsi->spi_out)
		upd_lsi_rekey(d, ha, u->have_new_prk ? u->new_prk : ha->upd_prk,
			      index + upd_esp_draw1(d, ha));
	if (ha->dp_installed) {
		ha->dp_spi_in = ha->spi_in;
		if (ha->dp_spi_out)
			ha->dp_spi_out = ha->spi_out;
		u->old_spi_in = old_in;
		u->old_in_dst = ha->dp_loc_local;
		u->old_deadline_ns = hipd_now_ns() + UPD_OLD_SA_GRACE_MS * ENG_NS_PER_MS;
	}
	if (u->have_new_prk) {
		/* Later rekeys without DH continue this KEYMAT. */
		memcpy(ha->upd_prk, u->new_prk, sizeof(ha->upd_prk));
		ha->upd_have_prk = true;
		hip_wipe(u->new_prk, sizeof(u->new_prk));
		u->have_new_prk = false;
	}
	log_info("rekeyed with %s: ESP SAs 0x%08x (in) and 0x%08x (out), old 0x%08x/0x%08x",
		 hip_hit_to_str(&ha->hit_peer, hit, sizeof(hit)), ha->spi_in, ha->spi_out,
		 old_in, old_out);
	d->stats->upd_rekeyed++;
	hip_dh_free(u->new_dh);
	u->new_dh = NULL;
	hip_wipe(&u->new_keys, sizeof(u->new_keys));
	u->new_keys_ready = false;
	u->new_spi_in = u->new_spi_out = 0;
	u->rekey_role = UPD_REKEY_NONE;
	u->rekey_acked = false;
	upd_rearm(d, ha);
	return 0;
}

/* The DIFFIE_HELLMAN of a rekey: same group (§6.9: else drop and log),
 * its PRK into u->new_prk. */
static int rekey_dh(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha,
		    const struct hip_param_ref *p)
{
	struct hip_update *u = ha->upd;
	struct hip_dh_param dp;
	uint8_t kij[512];
	size_t klen;
	int ret;

	if (hip_dh_param_decode(hip_param_content(rx->pkt, p), p->len, &dp) < 0)
		return eng_drop(d, rx, HIPD_DROP_BAD_DH, "rekey DIFFIE_HELLMAN");
	if (dp.group != ha->dh_group)
		return eng_drop(d, rx, HIPD_DROP_DH_DOWNGRADE, "rekey changes the DH group");
	klen = hip_dh_secret_len(dp.group);
	if (klen == 0 || klen > sizeof(kij))
		return eng_drop(d, rx, HIPD_DROP_BAD_DH, "rekey DH group");
	ret = eng_dh_derive(d, u->new_dh, dp.pub, dp.pub_len, kij, klen);
	if (ret == 0)
		ret = eng_keymat_prk(ha, kij, klen, u->new_prk);
	u->have_new_prk = ret == 0;
	hip_wipe(kij, sizeof(kij));
	if (ret == -EBADMSG)
		return eng_drop(d, rx, HIPD_DROP_BAD_DH, "rekey DH value");
	return ret;
}

/* Message 2 at the initiator: derive, install, switch, send message 3. */
static int rekey_finish(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha,
			const struct hip_esp_info *ei, const struct hip_param_ref *pdh,
			struct upd_msg *reply)
{
	struct hip_update *u = ha->upd;
	size_t index;
	int ret;

	if (u->new_dh) {
		if (!pdh || ei->keymat_index != 0)
			return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "rekey answer without DH");
		ret = rekey_dh(d, rx, ha, pdh);
		if (ret < 0)
			return ret;
		index = 0;
		ret = upd_esp_keys_at(d, ha, u->new_prk, 0, &u->new_keys);
	} else {
		/* Our old DH half is gone: a DH only in the answer is refused. */
		if (pdh)
			return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "rekey answer with DH");
		index = ei->keymat_index > u->new_index ? ei->keymat_index : u->new_index;
		ret = ha->upd_have_prk ? upd_esp_keys_at(d, ha, ha->upd_prk, index, &u->new_keys)
				       : -ENOENT;
	}
	if (ret < 0)
		return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "rekey KEYMAT");
	u->new_spi_out = ei->new_spi;
	ret = eng_dp_sa_add(d, ha, true, u->new_spi_in, &u->new_keys);
	if (ret == 0)
		ret = rekey_switch(d, ha, index);
	if (ret < 0) {
		upd_rekey_abort(d, ha);
		return ret;
	}
	return upd_send_reply(d, ha, reply, rx->dst, rx->src);
}

/* Message 1 at the responder: answer with our new SPI (and DH). */
static int rekey_answer(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha,
			const struct hip_esp_info *ei, const struct hip_param_ref *pdh,
			struct upd_msg *reply)
{
	struct hip_update *u = ha->upd;
	struct hip_esp_info out;
	size_t index;
	int ret;

	u->rekey_role = UPD_REKEY_RESPONDER;
	if (pdh) {
		if (ei->keymat_index != 0) {
			ret = eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "rekey DH with KEYMAT index");
			goto fail;
		}
		ret = eng_dh_take(d, ha->dh_group, &u->new_dh);
		if (ret == 0)
			ret = rekey_dh(d, rx, ha, pdh);
		if (ret < 0)
			goto fail;
		index = 0;
		ret = upd_esp_keys_at(d, ha, u->new_prk, 0, &u->new_keys);
	} else {
		/* §6.9: at least the next unused byte; the larger proposal. */
		size_t next = ha->keymat_index + esp_draw(d, ha);

		index = ei->keymat_index > next ? ei->keymat_index : next;
		ret = ha->upd_have_prk ? upd_esp_keys_at(d, ha, ha->upd_prk, index, &u->new_keys)
				       : -ENOENT;
	}
	if (ret < 0) {
		ret = eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "rekey KEYMAT (a DH is needed)");
		goto fail;
	}
	u->new_index = (uint16_t)index;
	u->new_spi_in = hadb_new_spi(d->hadb);
	u->new_spi_out = ei->new_spi;
	ret = eng_dp_sa_add(d, ha, true, u->new_spi_in, &u->new_keys);
	if (ret < 0)
		goto fail;
	u->new_keys_ready = true;
	out.keymat_index = (uint16_t)index;
	out.old_spi = ha->spi_in;
	out.new_spi = u->new_spi_in;
	reply->esp_info = &out;
	reply->dh = u->new_dh;
	ret = upd_send_new(d, ha, UPD_OUT_REKEY_REPLY, reply, rx->dst, rx->src);
	reply->esp_info = NULL;
	reply->dh = NULL;
	if (ret < 0)
		goto fail;
	return 0;
fail:
	upd_rekey_abort(d, ha);
	return ret;
}

int upd_rekey_rx(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha,
		 const struct hip_esp_info *ei, struct upd_msg *reply, bool *replied)
{
	struct hip_update *u = upd_get(ha);
	const struct hip_param_ref *pdh = hip_packet_find(rx->pkt, HIP_PARAM_DIFFIE_HELLMAN);
	int ret;

	*replied = false;
	if (!u)
		return -ENOMEM;
	if (ei->old_spi != ha->spi_out || ei->new_spi < 256)
		return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "rekey ESP_INFO SPIs");
	if (u->rekey_role == UPD_REKEY_INITIATOR && u->rekey_acked) {
		ret = rekey_finish(d, rx, ha, ei, pdh, reply);
		*replied = ret == 0;
		return ret;
	}
	if (u->rekey_role == UPD_REKEY_INITIATOR && eng_local_is_greater(ha)) {
		/* Crossed requests: ours goes on; theirs is only ACKed. */
		ret = upd_send_reply(d, ha, reply, rx->dst, rx->src);
		*replied = ret == 0;
		return ret;
	}
	if (u->rekey_role == UPD_REKEY_INITIATOR) {
		upd_rekey_abort(d, ha);
		upd_out_done(d, ha);
	}
	if (u->out_kind != UPD_OUT_NONE || u->rekey_role != UPD_REKEY_NONE)
		/* Not ACKed: the peer retransmits once ours is through. */
		return eng_drop(d, rx, HIPD_DROP_WRONG_STATE, "rekey while UPDATE outstanding");
	ret = rekey_answer(d, rx, ha, ei, pdh, reply);
	*replied = ret == 0;
	return ret;
}

/* Message 3 at the responder. */
void upd_rekey_acked(struct hipd *d, struct hip_ha *ha)
{
	struct hip_update *u = ha->upd;

	if (!u || u->rekey_role != UPD_REKEY_RESPONDER || !u->new_keys_ready)
		return;
	if (rekey_switch(d, ha, u->new_index) < 0)
		upd_rekey_abort(d, ha);
}

void upd_rekey_soft_expiry(struct hipd *d, struct hip_ha *ha)
{
	struct hip_update *u = upd_get(ha);

	if (!u || ha->state != HIP_STATE_ESTABLISHED)
		return;
	/* Cheap rekey without DH while the KEYMAT lasts (RFC 7402 §6.8). */
	if (upd_rekey_start(d, ha, false) == -EBUSY && u->rekey_role == UPD_REKEY_NONE)
		u->rekey_wanted = true;
}
