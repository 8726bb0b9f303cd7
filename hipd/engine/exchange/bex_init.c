/*
 * bex_init.c - the Initiator's side of the base exchange around the R1:
 * sending I1 (RFC 7401 §5.3.1, §6.6; opportunistic ones, §4.1.8, D-16) and
 * processing R2 (§6.10). The R1 -> I2 step is in bex_r1.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "engine/engine_int.h"
#include "engine/reg/reg.h"
#include "exchange.h"
#include "engine/update/update.h"
#include "hit.h"
#include "base/base.h"
#include "net/net.h"

/* I1: DH_GROUP_LIST only (§5.3.1), our groups in preference order; peer
 * NULL: the NULL receiver HIT of an opportunistic I1 (§4.1.8). */
static int build_i1(struct hipd *d, const struct hip_hit *local, const struct hip_hit *peer,
		    uint8_t *buf, size_t cap)
{
	struct hip_builder b;
	struct hip_u8_list groups = { 0 };
	size_t i;

	for (i = 0; i < d->conf.n_dh_groups && groups.n < HIP_LIST_MAX; i++)
		groups.v[groups.n++] = d->conf.dh_groups[i];
	hip_build_init(&b, buf, cap, HIP_I1, local, peer);
	hip_dh_group_list_build(&b, &groups);
	return hip_build_finish(&b);
}

/* §4.1.8, §5.3.1: an I1 with the NULL receiver HIT from local to dst, for
 * a registration server known by its address only (D-16). No association
 * is made: the R1 from dst makes one (eng_reg_learning_r1). */
int eng_send_i1_opportunistic(struct hipd *d, const struct hidb_entry *local,
			      const struct hip_addr *dst)
{
	uint8_t buf[ENG_PKT_BUF];
	struct hip_addr src;
	int len, ret;

	len = build_i1(d, &local->hit, NULL, buf, sizeof(buf));
	if (len < 0)
		return len;
	ret = eng_pick_source(d, dst, &src);
	if (ret < 0)
		return ret;
	/* over UDP behind a NAT, as any I1 of ours (RFC 9028 §5.1) */
	ret = eng_send_port(d, NULL, buf, (size_t)len, &src, dst, eng_nat_port_for(d, &src, dst));
	if (ret == 0 && d->conf.n_dh_groups)
		eng_dh_spare_want(d, d->conf.dh_groups[0]);
	return ret;
}

/* §6.6.1 (S-08): the first I1 goes to up to 3 locators of the peer, a
 * retransmission to one: the locator of the association (the first one, or
 * the one an R1 came from). */
int eng_send_i1(struct hipd *d, struct hip_ha *ha, bool parallel)
{
	struct hip_addr peer[ENG_I1_PARALLEL_MAX], src;
	uint8_t buf[ENG_PKT_BUF];
	int n, len, i, sent = 0, ret = -ENOENT;

	n = eng_peer_locators(d, &ha->hit_peer, peer, parallel ? ENG_I1_PARALLEL_MAX : 1);
	if (n <= 0)
		return n < 0 ? n : -ENOENT;
	len = build_i1(d, &ha->hit_local, &ha->hit_peer, buf, sizeof(buf));
	if (len < 0)
		return len;
	for (i = 0; i < n; i++) {
		uint16_t port;

		ret = eng_pick_source(d, &peer[i], &src);
		if (ret < 0)
			continue;
		/* RFC 9028 §5.1 / RFC 5770 §5.1: over UDP when we are behind a
		 * NAT (hipd.conf nat_traversal); the answers follow the I1 */
		port = eng_nat_port_for(d, &src, &peer[i]);
		ret = eng_send_port(d, ha, buf, (size_t)len, &src, &peer[i], port);
		if (ret < 0)
			continue;
		if (sent++ == 0) {
			ha->addr_peer = peer[i];
			ha->addr_local = src;
			ha->peer_port = port;
		}
	}
	/* The R1 will most likely name our first group: its key is made
	 * while we wait (keys.c). */
	if (sent && d->conf.n_dh_groups)
		eng_dh_spare_want(d, d->conf.dh_groups[0]);
	return sent ? 0 : ret;
}

/* Table 2 / 7 / 8: outbound data or hipconf trigger. */
int act_send_i1(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap)
{
	struct hip_ha *ha = *hap;
	int ret;

	(void)rx;
	if (!ha)
		return -EINVAL;
	if (ha->state != HIP_STATE_UNASSOCIATED)
		eng_ha_reset(d, ha);   /* CLOSING / CLOSED: a new incarnation */
	ha->initiator = true;
	ha->retx_count = 0;
	ret = eng_send_i1(d, ha, true);
	if (ret < 0)
		return ret;
	d->stats->bex_started++;
	return eng_timer_arm(d, ha, eng_retx_delay_ns(d->conf.i1_timeout_ms, 0));
}

/* ---- R2 (§6.10) -------------------------------------------------------- */

static void bex_completed(struct hipd *d, struct hip_ha *ha)
{
	uint64_t now = hipd_now_ns(), took = now - ha->t_i1_ns;
	char hit[HIP_HIT_STR_LEN];

	d->stats->bex_completed++;
	d->stats->bex_last_ns = took;
	d->stats->bex_total_ns += took;
	hipd_bex_sample(d->stats, HIPD_BEX_T4, hipd_rx_elapsed(d->stats, now));
	hipd_bex_sample(d->stats, HIPD_BEX_TOTAL, took);
	log_notice("base exchange with %s completed in %llu.%03llu ms",
		   hip_hit_to_str(&ha->hit_peer, hit, sizeof(hit)),
		   (unsigned long long)(took / ENG_NS_PER_MS),
		   (unsigned long long)(took % ENG_NS_PER_MS / 1000));
}

int act_process_r2(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap)
{
	struct hip_ha *ha = *hap;
	const struct hip_param_ref *p;
	struct hip_esp_info ei = { 0 };
	const char *esp_err = NULL;
	enum hipd_drop esp_why = HIPD_DROP_BAD_PARAM;
	int ret;

	/* RFC 7402 §5.1.1, A-8: a new SA from the KEYMAT index the I2 named. */
	p = hip_packet_find(rx->pkt, HIP_PARAM_ESP_INFO);
	if (!p) {
		esp_why = HIPD_DROP_MISSING_PARAM;
		esp_err = "ESP_INFO";
	} else if (hip_esp_info_decode(hip_param_content(rx->pkt, p), p->len, &ei) < 0 ||
		   hip_packet_find_next(rx->pkt, p)) {
		esp_err = "ESP_INFO";
	} else if (ei.old_spi != 0 || ei.new_spi < HIP_SPI_MIN ||
		   ei.keymat_index != eng_keymat_esp_index(ha->hip_cipher, ha->rhash)) {
		esp_err = "ESP_INFO SPI or KEYMAT index";
	}
	if (!ha->peer_host_id_tlv || !ha->peer_hi)
		return eng_drop(d, rx, esp_err ? esp_why : HIPD_DROP_WRONG_STATE,
				esp_err ? esp_err : "no R1 HOST_ID kept");
	/* A bad ESP_INFO is dropped; INVALID_SYNTAX only for an authentic R2
	 * (§5.2.19, RB-07). */
	if (esp_err) {
		if (hip_verify_mac(rx->pkt, HIP_COVER_MAC_2, ha->rhash, eng_key_in_int(ha),
				   ha->hip_keys.int_len, ha->peer_host_id_tlv,
				   ha->peer_host_id_tlv_len) == 0 &&
		    hip_verify_signature(rx->pkt, HIP_COVER_SIGNATURE, ha->peer_hi) == 0)
			eng_notify(d, rx, HIP_NOTIFY_INVALID_SYNTAX, NULL, 0);
		return eng_drop(d, rx, esp_why, esp_err);
	}
	/* §6.10: HIP_MAC_2 (with the R1's HOST_ID), then the signature. The
	 * association exists: errors are NOTIFYed (§5.4; rate-limited). */
	ret = hip_verify_mac(rx->pkt, HIP_COVER_MAC_2, ha->rhash, eng_key_in_int(ha),
			     ha->hip_keys.int_len, ha->peer_host_id_tlv,
			     ha->peer_host_id_tlv_len);
	if (ret == -ENOENT)
		return eng_drop(d, rx, HIPD_DROP_MISSING_PARAM, "HIP_MAC_2");
	if (ret < 0) {
		eng_notify(d, rx, HIP_NOTIFY_HIP_MAC_FAILED, NULL, 0);
		return eng_drop(d, rx, HIPD_DROP_BAD_MAC, "HIP_MAC_2");
	}
	ret = hip_verify_signature(rx->pkt, HIP_COVER_SIGNATURE, ha->peer_hi);
	if (ret == -ENOENT)
		return eng_drop(d, rx, HIPD_DROP_MISSING_PARAM, "HIP_SIGNATURE");
	if (ret < 0) {
		eng_notify(d, rx, HIP_NOTIFY_AUTHENTICATION_FAILED, NULL, 0);
		return eng_drop(d, rx, HIPD_DROP_BAD_SIGNATURE, "R2");
	}

	ha->spi_out = ei.new_spi;
	(void)upd_lsi_take(d, ha, rx->pkt, true);   /* the Responder's answer (D-22) */
	eng_timer_cancel(d, ha);
	eng_retx_clear(ha);
	free(ha->peer_host_id_tlv);
	ha->peer_host_id_tlv = NULL;
	ha->peer_host_id_tlv_len = 0;
	hip_dh_free(ha->dh);      /* D-04: never reused */
	ha->dh = NULL;
	ha->retx_count = 0;
	eng_peer_hi_release(ha);  /* the octets stay (keys.c) */
	/* §6.10: the SA pair and policies (a failure is logged); with
	 * ICE-HIP-UDP only once the checks nominated a pair (RFC 9028 §4.6) */
	if (ha->nat_mode == HIP_NAT_MODE_ICE_HIP_UDP) {
		struct hip_locator_set cands;

		ret = bex_candidates_open(ha, rx->pkt, &cands);
		if (ret < 0)
			cands.n = 0;    /* none: checks with what reaches us (triggered) */
		ret = upd_ice_start(d, ha, &cands);
		if (ret < 0)
			return ret;
	} else {
		eng_dp_install(d, ha);
	}
	bex_completed(d, ha);
	eng_reg_result_rx(d, rx);   /* RFC 8003 §3.3: REG_RESPONSE / REG_FAILED */
	return 0;
}
