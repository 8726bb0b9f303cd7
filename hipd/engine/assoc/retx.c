/*
 * retx.c - packet output, the association's timer and retransmission
 * (RFC 7401 §4.4.1, §6.6, Tables 3, 4, 7, 9; spec.md §1.12, D-1).
 *
 * Each association has one timer, whose meaning follows its state:
 * I1-SENT / I2-SENT / CLOSING retransmit the stored packet (1 s, doubling),
 * R2-SENT is the Exchange Complete timer, CLOSED and E-FAILED expire the
 * association. The timer callback turns into a TIMEOUT event for the table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "checksum.h"
#include "engine/engine_int.h"
#include "hit.h"
#include "base/log.h"
#include "base/loop.h"
#include "engine/update/update.h"

int eng_send(struct hipd *d, struct hip_ha *ha, uint8_t *pkt, size_t len,
	     const struct hip_addr *src, const struct hip_addr *dst)
{
	hip_packet_set_checksum(pkt, len, src, dst);
	return eng_xmit(d, ha, pkt, len, src, dst);
}

int eng_xmit(struct hipd *d, struct hip_ha *ha, const uint8_t *pkt, size_t len,
	     const struct hip_addr *src, const struct hip_addr *dst)
{
	uint8_t type = pkt[2] & 0x7f;
	int ret;

	ret = d->send_packet(d, pkt, len, src, dst);
	if (ret < 0) {
		char a[INET6_ADDRSTRLEN];

		hipd_drop_count(d->stats, HIPD_DROP_SEND_FAILED);
		log_ratelimited(&d->engine->drop_log, LOG_WARNING, "sending %s to %s: %s",
				hip_packet_type_name(type),
				hip_addr_to_str(dst, a, sizeof(a)), strerror(-ret));
		return ret;
	}
	if (type < sizeof(d->stats->tx_packets) / sizeof(d->stats->tx_packets[0]))
		d->stats->tx_packets[type]++;
	if (ha)
		ha->pkts_out++;
	return 0;
}

int eng_retx_store(struct hip_ha *ha, const uint8_t *pkt, size_t len)
{
	uint8_t *copy = malloc(len);

	if (!copy)
		return -ENOMEM;
	memcpy(copy, pkt, len);
	eng_retx_clear(ha);
	ha->retx_pkt = copy;
	ha->retx_len = len;
	return 0;
}

void eng_retx_clear(struct hip_ha *ha)
{
	if (ha->retx_pkt) {
		hip_wipe(ha->retx_pkt, ha->retx_len);
		free(ha->retx_pkt);
	}
	ha->retx_pkt = NULL;
	ha->retx_len = 0;
}

uint64_t eng_retx_delay_ns(unsigned first_ms, unsigned n)
{
	uint64_t ms = first_ms;

	while (n-- && ms < ENG_RETX_MAX_MS)
		ms *= 2;
	if (ms > ENG_RETX_MAX_MS)
		ms = ENG_RETX_MAX_MS;
	return ms * ENG_NS_PER_MS;
}

static void ha_timer_fired(struct hip_loop *loop, uint64_t timer, void *arg)
{
	struct hip_ha *ha = arg;

	(void)loop;
	if (ha->retx_timer != timer)
		return;
	ha->retx_timer = 0;
	eng_fsm_event(ha->owner, ha, HIP_EV_TIMEOUT);
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
	hip_update_ha_free(d, ha);
	eng_dp_remove(d, ha);
	eng_timer_cancel(d, ha);
	hadb_del(d->hadb, ha);
}

void eng_ha_reset(struct hipd *d, struct hip_ha *ha)
{
	hip_update_ha_free(d, ha);
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
	ha->dh_group = 0;
	ha->hip_cipher = 0;
	ha->esp_suite = 0;
	ha->update_id_out = 0;
	ha->update_id_in = 0;
	ha->update_id_in_valid = false;
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
	}
	ha->local = local;
	ha->owner = d;
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
	if (ha_set_state(d, ha, HIP_STATE_E_FAILED) < 0)
		return;
	eng_ha_reset(d, ha);
	eng_timer_arm(d, ha, (uint64_t)ENG_EFAILED_WAIT_S * ENG_NS_PER_S);
}

unsigned eng_retx_first_ms(const struct hipd *d, const struct hip_ha *ha)
{
	switch (ha->state) {
	case HIP_STATE_I1_SENT:
		return d->conf.i1_timeout_ms;
	case HIP_STATE_I2_SENT:
		return d->conf.i2_timeout_ms;
	default:
		return ENG_RETX_FIRST_MS;
	}
}

static int resend_stored(struct hipd *d, struct hip_ha *ha)
{
	if (!ha->retx_pkt)
		return -ENOENT;
	return eng_send(d, ha, ha->retx_pkt, ha->retx_len, &ha->addr_local, &ha->addr_peer);
}

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
			resend_stored(d, ha);
		break;
	case HIP_STATE_CLOSING:
		if (!eng_close_may_retransmit(d, ha)) {
			ha_set_state(d, ha, HIP_STATE_UNASSOCIATED);
			eng_ha_free(d, ha);
			*hap = NULL;
			return ENG_HANDLED;
		}
		ha->retx_count++;
		resend_stored(d, ha);
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
