/*
 * bex_resp.c - the Responder's stateless part: I1 -> R1 from the cache
 * (RFC 7401 §6.7, §6.7.1; docs/protocol.md §6 I1), simultaneous I1s (Table 3),
 * and the R2-SENT -> ESTABLISHED confirmation (§6.9 step 21, Table 5). The
 * I2 is processed in bex_i2.c.
 */
#include <errno.h>
#include <string.h>

#include "coverage.h"
#include "engine/engine_int.h"
#include "exchange.h"
#include "hit.h"
#include "base/base.h"
#include "engine/assoc/assoc.h"
#include "engine/reg/reg.h"

/* §6.7 step 5: for a NULL receiver HIT (opportunistic, policy switch D-6;
 * always on a host offering services, D-16) answer with an identity of the
 * Initiator's suite, else our default. */
static struct hidb_entry *r1_identity(struct hipd *d, const struct eng_rx *rx)
{
	if (rx->local)
		return rx->local;
	return hidb_for_suite(d->hidb, hip_hit_suite(&rx->pkt->hit_sender));
}

int act_send_r1(struct hipd *d, const struct eng_rx *rx_in, struct hip_ha **hap)
{
	uint8_t buf[ENG_PKT_BUF];
	const struct hip_param_ref *p;
	struct hip_u8_list groups;
	struct hip_addr from, src;
	struct eng_rx relayed;
	const struct eng_rx *rx = rx_in;
	struct hidb_entry *me;
	int ret, len;

	(void)hap;
	eng_count_i1(d);   /* a storm is load too (puzzle difficulty) */
	/* RFC 8004 §4.3.2: relayed by a rendezvous server of ours (FROM and
	 * RVS_HMAC checked); from here on the Initiator's address is the
	 * source. An opportunistic I1 through a server is dropped (SHOULD). */
	if (!rx->local && hip_packet_find(rx->pkt, HIP_PARAM_RELAY_FROM))
		return eng_drop(d, rx, HIPD_DROP_POLICY, "opportunistic I1 via a relay"); /* D-16 */
	if (hip_packet_find(rx->pkt, HIP_PARAM_FROM)) {
		if (!rx->local)
			return eng_drop(d, rx, HIPD_DROP_POLICY, "opportunistic I1 via a server");
		ret = eng_rvs_accept(d, rx, &from);
		if (ret < 0)
			return ret;
		ret = eng_pick_source(d, &from, &src);
		if (ret < 0)
			return eng_drop(d, rx, HIPD_DROP_SEND_FAILED, "no route to FROM");
		relayed = *rx;
		relayed.src = &from;
		relayed.dst = &src;
		/* FROM has no port (RFC 8004): raw IP, or UDP to the NAT port
		 * when we are behind a NAT ourselves (nat_traversal) */
		relayed.sport = eng_nat_port_for(d, &src, &from);
		rx = &relayed;
	}
	/* §5.3.1 (P-11): an I1 storm, identical I1s from one source within a
	 * small delta, is discarded before any R1 work (i1storm.h). */
	if (i1_storm_duplicate(&d->engine->i1_storm, rx->pkt->buf, rx->pkt->len, rx->src,
			       rx->dst, hipd_now_ns()))
		return eng_drop(d, rx, HIPD_DROP_I1_STORM, NULL);
	me = r1_identity(d, rx);
	if (!me || !me->r1)
		return eng_drop(d, rx, HIPD_DROP_UNKNOWN_HIT, "no identity to answer with");
	/* Local policy: only peers in the hosts map get an R1. */
	if (d->conf.peer_policy == HIPD_PEER_KNOWN &&
	    eng_peer_locators(d, &rx->pkt->hit_sender, NULL, 0) <= 0)
		return eng_drop(d, rx, HIPD_DROP_POLICY, "peer not in the hosts map");
	/* §6.7 step 2 (P-07): R1s are rate-limited per source address. */
	if (!ratelimit_allow(d->r1_limit, rx->src, hipd_now_ns()))
		return eng_drop(d, rx, HIPD_DROP_RATE_LIMITED, NULL);
	p = eng_param(d, rx, HIP_PARAM_DH_GROUP_LIST, true, &ret);
	if (!p)
		return ret;
	if (hip_dh_group_list_decode(hip_param_content(rx->pkt, p), p->len, &groups) < 0)
		return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "DH_GROUP_LIST");
	/* §6.7 step 7: to the I1's source, from the address it was sent to;
	 * RFC 8004 §4.3.3: a relayed one's R1 goes straight to FROM, naming
	 * the server in VIA_RVS (after the signature, not covered). */
	len = r1cache_answer(me->r1, &rx->pkt->hit_sender, &groups, d->puzzle_k, rx->dst,
			     rx->src, buf, sizeof(buf));
	if (len >= 0 && rx != rx_in)
		len = rvs_append_via(buf, (size_t)len, sizeof(buf), rx_in->src);
	if (len < 0)
		return eng_drop(d, rx, HIPD_DROP_MALFORMED, "R1 cache");
	/* over UDP back to the I1's port (RFC 9028 §5.1; checksum 0); through
	 * our control relay with RELAY_TO when it came that way (§4.5 step 3) */
	ret = rx->relay ? eng_send_via_relay(d, NULL, buf, (size_t)len, rx->dst, rx->relay,
					     rx->relay_port, rx->src, rx->sport) :
	      rx != rx_in || rx->sport ?
		eng_send_port(d, NULL, buf, (size_t)len, rx->dst, rx->src, rx->sport) :
		eng_xmit(d, *hap, buf, (size_t)len, rx->dst, rx->src);
	if (ret == 0) {
		d->stats->r1_sent++;
		hipd_bex_sample(d->stats, HIPD_BEX_T1, hipd_rx_elapsed(d->stats, hipd_now_ns()));
	}
	return 0;
}

/* Table 3 / §6.7 step 3: our I1 crossed the peer's. The greater HIT answers
 * with R1 (and keeps waiting for its own R1); the lower one drops. */
int act_i1_crossed(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap)
{
	if (!eng_local_is_greater(*hap)) {
		eng_count_i1(d);
		return eng_drop(d, rx, HIPD_DROP_CROSSED_LOWER_HIT, "simultaneous I1");
	}
	return act_send_r1(d, rx, hap);
}

/* Table 5: the first packet of the Initiator authenticated by the new keys
 * (an UPDATE: its HIP_MAC), inbound data, or the EC timer. */
int act_confirm(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap)
{
	struct hip_ha *ha = *hap;
	int ret;

	if (rx && rx->pkt) {
		ret = hip_verify_mac(rx->pkt, HIP_COVER_MAC, ha->rhash, eng_key_in_int(ha),
				     ha->hip_keys.int_len, NULL, 0);
		if (ret == -ENOENT)
			return eng_drop(d, rx, HIPD_DROP_MISSING_PARAM, "HIP_MAC");
		if (ret < 0)
			return eng_drop(d, rx, HIPD_DROP_BAD_MAC, NULL);
	}
	eng_timer_cancel(d, ha);
	ha->retx_count = 0;
	/* Confirmed by the Initiator (its UPDATE, its ESP): the stored R2
	 * goes. By the timer alone: it stays, for the Initiator may still
	 * be retransmitting its I2 (act_replace_i2), until it is heard
	 * (eng_ha_heard). */
	if (!d->engine->in_timeout)
		eng_retx_clear(ha);
	return 0;
}
