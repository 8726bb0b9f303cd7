/*
 * ha.c - an association's life cycle: created or restarted for a HIT pair,
 * reset, freed; its state (eng_ha_set_state(), the only place a state changes,
 * refusing moves RFC 7401 §4.4.2 does not have); its one timer (RFC 7401
 * §4.4.1, Tables 3, 4, 7, 9), whose expiry the engine's dispatcher turns
 * into a TIMEOUT event through the hook it registered (engine_int.h).
 * UPDATE's per-association state ends through the ha_ending hook, so this
 * module knows nothing of UPDATE.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "assoc.h"
#include "engine/engine_int.h"
#include "hit.h"
#include "net/net.h"

static void ha_timer_fired(struct hip_loop *loop, uint64_t timer, void *arg)
{
	struct hip_ha *ha = arg;

	(void)loop;
	if (ha->retx_timer != timer)
		return;
	ha->retx_timer = 0;
	if (ha->owner->engine && ha->owner->engine->ha_timeout)
		ha->owner->engine->ha_timeout(ha->owner, ha);
}

/* The association closes, fails, is reset or freed: whoever keeps more
 * state for it (UPDATE's rekey SAs and grace time) lets it go. */
static void ha_ending(struct hipd *d, struct hip_ha *ha)
{
	if (d->engine && d->engine->ha_ending)
		d->engine->ha_ending(d, ha);
}

int eng_timer_arm(struct hipd *d, struct hip_ha *ha, uint64_t delay_ns)
{
	eng_timer_cancel(d, ha);
	ha->owner = d;
	ha->retx_timer = hip_loop_timer_add(d->loop, delay_ns, ha_timer_fired, ha);
	return ha->retx_timer ? 0 : -ENOMEM;
}

void eng_timer_cancel(struct hipd *d, struct hip_ha *ha)
{
	if (ha->retx_timer)
		hip_loop_timer_cancel(d->loop, ha->retx_timer);
	ha->retx_timer = 0;
}

void eng_ha_free(struct hipd *d, struct hip_ha *ha)
{
	struct hip_hit peer = ha->hit_peer;

	ha_ending(d, ha);
	eng_dp_remove(d, ha);
	eng_timer_cancel(d, ha);
	hadb_del(d->hadb, ha);
	/* D-20: a derived LSI lives as long as an association or a mapping */
	if (d->hosts && !hadb_find_peer(d->hadb, &peer))
		hosts_lsi_forget(d->hosts, &peer);
}

void eng_ha_wipe_esp_keys(struct hip_ha *ha)
{
	hip_wipe(&ha->esp_keys, sizeof(ha->esp_keys));
	if (ha->lsi)
		hip_wipe(&ha->lsi->keys, sizeof(ha->lsi->keys));
}

void eng_ha_reset(struct hipd *d, struct hip_ha *ha)
{
	ha_ending(d, ha);
	eng_dp_remove(d, ha);    /* the old SAs go with the old keys */
	eng_timer_cancel(d, ha);
	eng_retx_clear(ha);
	hip_dh_free(ha->dh);
	ha->dh = NULL;
	free(ha->peer_host_id_tlv);
	ha->peer_host_id_tlv = NULL;
	ha->peer_host_id_tlv_len = 0;
	hip_wipe(&ha->hip_keys, sizeof(ha->hip_keys));
	hip_wipe(&ha->esp_keys, sizeof(ha->esp_keys));
	hip_wipe(ha->puzzle_i, sizeof(ha->puzzle_i));
	hip_wipe(ha->puzzle_j, sizeof(ha->puzzle_j));
	ha->puzzle_len = 0;
	ha->have_r1_counter = false;
	memset(&ha->r1_counter, 0, sizeof(ha->r1_counter));
	ha->r1_k = 0;
	ha->keymat_index = 0;
	ha->retx_count = 0;
	ha->spi_out = 0;
	hadb_set_spi(d->hadb, ha, 0);
	/* the LSI pair with it (D-22, update_lsi.c) */
	hadb_lsi_forget(d->hadb, ha);
	ha->dh_group = 0;
	ha->hip_cipher = 0;
	ha->esp_suite = 0;
	ha->update_id_out = 0;
	ha->update_id_in = 0;
	ha->update_id_in_valid = false;
	ha->update_id_top = 0;
	ha->update_id_top_valid = false;
	memset(ha->close_nonce, 0, sizeof(ha->close_nonce));
}

int eng_ha_get(struct hipd *d, struct hidb_entry *local, const struct hip_hit *peer,
	       struct hip_ha **out)
{
	struct hip_ha *ha = hadb_find(d->hadb, &local->hit, peer);
	int ret;

	if (ha) {
		eng_ha_reset(d, ha);
	} else {
		ret = hadb_add(d->hadb, &local->hit, peer, &ha);
		if (ret < 0)
			return ret;
		ha->t_created_ns = hipd_now_ns();
		/* D-20: both ends' LSIs exist from the association's start (a
		 * full range, -ENOSPC, leaves one without: show prints none) */
		if (d->hosts) {
			struct in_addr lsi;

			(void)hosts_lsi(d->hosts, &local->hit, &lsi, NULL);
			(void)hosts_lsi(d->hosts, peer, &lsi, NULL);
		}
	}
	ha->local = local;
	ha->owner = d;
	*out = ha;
	return 0;
}

int eng_ha_opportunistic(struct hipd *d, struct hidb_entry *local, const struct hip_hit *peer,
			 const struct hip_addr *addr_local, const struct hip_addr *addr_peer,
			 uint64_t t_i1_ns, struct hip_ha **out)
{
	struct hip_ha *ha;
	int ret = eng_ha_get(d, local, peer, &ha);

	if (ret < 0)
		return ret;
	ha->initiator = true;
	ha->retx_count = 0;
	ha->addr_local = *addr_local;
	ha->addr_peer = *addr_peer;
	ret = eng_ha_set_state(d, ha, HIP_STATE_I1_SENT);
	if (ret < 0) {
		eng_ha_free(d, ha);
		return ret;
	}
	ha->t_i1_ns = t_i1_ns;   /* the exchange's time from our first I1 */
	*out = ha;
	return 0;
}

/* I1/I2 retries exhausted: Table 3/4 -> E-FAILED, which waits a little
 * (Table 9) so an unreachable peer is not hammered, then expires. */
void eng_bex_failed(struct hipd *d, struct hip_ha *ha)
{
	char hit[HIP_HIT_STR_LEN];

	log_notice("base exchange with %s failed in %s after %u retransmissions",
		   hip_hit_to_str(&ha->hit_peer, hit, sizeof(hit)),
		   hip_state_name(ha->state), ha->retx_count);
	d->stats->bex_failed++;
	if (eng_ha_set_state(d, ha, HIP_STATE_E_FAILED) < 0)
		return;
	eng_ha_reset(d, ha);
	eng_timer_arm(d, ha, (uint64_t)ENG_EFAILED_WAIT_S * ENG_NS_PER_S);
}

int eng_ha_set_state(struct hipd *d, struct hip_ha *ha, enum hip_state s)
{
	char hit[HIP_HIT_STR_LEN];
	uint64_t now;

	if (ha->state == s)
		return 0;
	hip_hit_to_str(&ha->hit_peer, hit, sizeof(hit));
	if (!hip_fsm_move_allowed(ha->state, s)) {
		log_err("refused state move %s -> %s for %s", hip_state_name(ha->state),
			hip_state_name(s), hit);
		return -EPERM;
	}
	log_info("%s -> %s %s", hip_state_name(ha->state), hip_state_name(s), hit);
	now = hipd_now_ns();
	switch (s) {
	case HIP_STATE_ESTABLISHED:
		ha->t_established_ns = now;
		break;
	case HIP_STATE_I1_SENT:
		ha->t_i1_ns = now;
		break;
	default:
		break;
	}
	/* Closing or failing ends UPDATE, with the extra SAs of a rekey or
	 * its grace time (update.h). */
	if (s == HIP_STATE_CLOSING || s == HIP_STATE_CLOSED || s == HIP_STATE_E_FAILED ||
	    s == HIP_STATE_UNASSOCIATED)
		ha_ending(d, ha);
	ha->state = s;
	return 0;
}

void eng_ha_copy_negotiated(struct hip_ha *dst, const struct hip_ha *src)
{
	dst->dh_group = src->dh_group;
	dst->hip_cipher = src->hip_cipher;
	dst->esp_suite = src->esp_suite;
	dst->rhash = src->rhash;
	dst->puzzle_len = src->puzzle_len;
	memcpy(dst->puzzle_i, src->puzzle_i, sizeof(dst->puzzle_i));
	memcpy(dst->puzzle_j, src->puzzle_j, sizeof(dst->puzzle_j));
	dst->hip_keys = src->hip_keys;
	dst->esp_keys = src->esp_keys;
	dst->keymat_index = src->keymat_index;
	memcpy(dst->upd_prk, src->upd_prk, sizeof(dst->upd_prk));   /* rekeys (update_rekey.c) */
	dst->upd_have_prk = src->upd_have_prk;
	dst->nat_mode = src->nat_mode;
	dst->nat_ta_ms = src->nat_ta_ms;
}
