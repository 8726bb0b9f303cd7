/*
 * update_lsi.c - the LSI SA pair (docs/decisions.md D-22): a second ESP
 * SA pair of an association that carries IPv4 between the two hosts' LSIs
 * (RFC 7402 App. B: BEET rebuilds the inner header from the SA, so one
 * SPI carries one inner family; RFC 5338 §3.1 for LSIs).
 *
 * It is agreed in the base exchange by hipd's own non-critical parameter
 * LSI_ESP_INFO (hip_wire.h): the Initiator offers it in the I2 with its
 * inbound SPI for IPv4; a Responder that takes it answers in the R2 with
 * its own. A strict peer ignores the parameter (RFC 7401 §5.2.1) and sends
 * none back: the association then has the HIT pair only. Both hosts
 * derive the same LSIs (D-20); a parameter naming other LSIs than ours is
 * refused (the inner TCP/UDP checksums would not verify), logged once.
 *
 * Keys (RFC 7402 §7): drawn from KEYMAT right after the HIT pair's ESP
 * keys, in the same order (gl then lg, sa.c). A rekey draws the HIT
 * pair's new keys and then this pair's (esp_draw in update_rekey.c counts
 * both), and this pair takes its new keys in place on the same SPIs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "hit.h"
#include "net/net.h"
#include "base/base.h"
#include "update_int.h"

/* The datapath carries IPv4, the KEYMAT can be continued, and both LSIs
 * are known (D-20: from the association's start). */
static bool lsi_possible(struct hipd *d, struct hip_ha *ha, struct in_addr *local,
			 struct in_addr *peer)
{
	if (!eng_dp_carries_ipv4(d) || !ha->upd_have_prk || !d->hosts)
		return false;
	return hosts_lsi_find(d->hosts, &ha->hit_local, local, NULL) == 0 &&
	       hosts_lsi_find(d->hosts, &ha->hit_peer, peer, NULL) == 0;
}

void upd_lsi_drop(struct hipd *d, struct hip_ha *ha)
{
	hadb_lsi_forget(d->hadb, ha);
}

/* ha's LSI pair with a fresh inbound SPI (kept if it has one). */
static int lsi_pair_get(struct hipd *d, struct hip_ha *ha)
{
	uint32_t spi;

	if (ha->lsi)
		return 0;
	spi = hadb_new_spi(d->hadb);
	return spi ? hadb_lsi_set_spi(d->hadb, ha, spi) : -EAGAIN;
}

void upd_lsi_offer(struct hipd *d, struct hip_ha *ha, struct hip_builder *b)
{
	struct hip_lsi_esp_info li;

	/* A second R1 builds the I2 again: the same offer. */
	if (!lsi_possible(d, ha, &li.sender_lsi, &li.receiver_lsi) || lsi_pair_get(d, ha) < 0) {
		upd_lsi_drop(d, ha);
		return;
	}
	ha->lsi->local = li.sender_lsi;
	ha->lsi->peer = li.receiver_lsi;
	ha->lsi->spi_out = 0;
	li.spi = ha->lsi->spi_in;
	hip_lsi_esp_info_build(b, &li);
}

void upd_lsi_answer(struct hipd *d, struct hip_ha *ha, struct hip_builder *b)
{
	struct hip_lsi_esp_info li;

	(void)d;
	if (!ha->lsi || !ha->lsi->spi_out)
		return;
	li.sender_lsi = ha->lsi->local;
	li.receiver_lsi = ha->lsi->peer;
	li.spi = ha->lsi->spi_in;
	hip_lsi_esp_info_build(b, &li);
}

int upd_lsi_take(struct hipd *d, struct hip_ha *ha, const struct hip_packet *pkt,
		 bool initiator)
{
	const struct hip_param_ref *p = hip_packet_find(pkt, HIP_PARAM_LSI_ESP_INFO);
	struct in_addr local, peer;
	struct hip_lsi_esp_info li;
	char hit[HIP_HIT_STR_LEN], a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN];
	char c[INET_ADDRSTRLEN], e[INET_ADDRSTRLEN];
	int ret;

	hip_hit_to_str(&ha->hit_peer, hit, sizeof(hit));
	if (!p) {
		if (initiator && ha->lsi)
			log_info("%s took no LSI SA pair: no IPv4 over LSIs with it", hit);
		upd_lsi_drop(d, ha);
		return 0;
	}
	if (hip_lsi_esp_info_decode(hip_param_content(pkt, p), p->len, &li) < 0 ||
	    hip_packet_find_next(pkt, p)) {
		d->stats->lsi_refused++;
		upd_lsi_drop(d, ha);
		return -EINVAL;
	}
	if ((initiator && !ha->lsi) || !lsi_possible(d, ha, &local, &peer)) {
		upd_lsi_drop(d, ha);
		return 0;      /* not offered / not carried here: the HIT pair only */
	}
	if (li.sender_lsi.s_addr != peer.s_addr || li.receiver_lsi.s_addr != local.s_addr) {
		d->stats->lsi_refused++;
		log_notice("%s uses LSIs %s (itself) and %s (us), we %s and %s: no LSI SA pair "
			   "(pin both with lsi= in the hosts files, D-20)", hit,
			   inet_ntop(AF_INET, &li.sender_lsi, a, sizeof(a)),
			   inet_ntop(AF_INET, &li.receiver_lsi, b, sizeof(b)),
			   inet_ntop(AF_INET, &peer, c, sizeof(c)),
			   inet_ntop(AF_INET, &local, e, sizeof(e)));
		upd_lsi_drop(d, ha);
		return -EINVAL;
	}
	ret = lsi_pair_get(d, ha);
	if (ret == 0)
		ret = upd_esp_keys_at(d, ha, ha->upd_prk, ha->keymat_index + upd_esp_draw1(d, ha),
				      &ha->lsi->keys);
	if (ret < 0) {
		upd_lsi_drop(d, ha);
		return ret;
	}
	ha->lsi->local = local;
	ha->lsi->peer = peer;
	ha->lsi->spi_out = li.spi;
	return 0;
}

void upd_lsi_rekey(struct hipd *d, struct hip_ha *ha, const uint8_t *prk, size_t index)
{
	struct hip_esp_keys k;
	char hit[HIP_HIT_STR_LEN];

	/* In place: what the peer sent with the old keys before it switched
	 * too is lost (D-22; a round trip at most). */
	if (upd_esp_keys_at(d, ha, prk, index, &k) == 0 && eng_dp_lsi_rekey(d, ha, &k) == 0) {
		ha->lsi->keys = k;
	} else {
		log_warn("LSI SA pair with %s not rekeyed: removed",
			 hip_hit_to_str(&ha->hit_peer, hit, sizeof(hit)));
		eng_dp_lsi_remove(d, ha);
		upd_lsi_drop(d, ha);
	}
	hip_wipe(&k, sizeof(k));
}
