/*
 * update_live.c - peer liveness (docs/decisions.md D-13): an association
 * on which we keep sending while nothing comes back from the peer (no ESP
 * on our inbound SA, no HIP packet) for peer_timeout_seconds is probed
 * with an UPDATE carrying ECHO_REQUEST_SIGNED (RFC 7401 §5.2.20, the
 * reachability test of RFC 8046 §5.4 at the peer's current address),
 * retransmitted with back-off like any UPDATE (§6.11). An answer with our
 * nonce signed: the peer is there. None: it lost its state (a restart,
 * a crash) or its address; the association is removed (its SAs with it)
 * and the next packet starts a new base exchange. An idle association,
 * on which we send nothing, is never probed: a sleeping peer is not woken.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "byteorder.h"

#include "hit.h"
#include "update_int.h"

/* Send the probe: a fresh nonce, UPDATE with SEQ and ECHO_REQUEST_SIGNED. */
static int probe_send(struct hipd *d, struct hip_ha *ha, struct hip_update *u)
{
	struct upd_msg m = { 0 };
	int ret;

	ret = hip_random(u->live_nonce, sizeof(u->live_nonce));
	if (ret < 0)
		return ret;
	m.echo_req = u->live_nonce;
	m.echo_req_len = sizeof(u->live_nonce);
	ret = upd_send_new(d, ha, UPD_OUT_PROBE, &m, &ha->addr_local, &ha->addr_peer);
	if (ret == 0)
		d->stats->live_probes++;
	return ret;
}

void upd_liveness_check(struct hipd *d, struct hip_ha *ha, uint64_t out_pkts, uint64_t in_pkts,
			uint64_t now, uint64_t timeout_ns)
{
	struct hip_update *u = upd_get(ha);
	bool out_moved, in_moved;

	if (!u)
		return;
	out_moved = out_pkts != u->live_out_pkts;
	in_moved = in_pkts != u->live_in_pkts;
	u->live_out_pkts = out_pkts;
	u->live_in_pkts = in_pkts;
	if (in_moved || ha->t_last_activity_ns > u->live_in_ns) {
		/* the peer spoke (ESP or HIP): everything sent so far counts */
		u->live_in_ns = in_moved ? now : ha->t_last_activity_ns;
		u->live_unanswered_ns = 0;
		return;
	}
	if (out_moved && !u->live_unanswered_ns)
		u->live_unanswered_ns = now;
	if (!u->live_unanswered_ns || now - u->live_unanswered_ns < timeout_ns ||
	    u->out_kind != UPD_OUT_NONE || ha->state != HIP_STATE_ESTABLISHED)
		return;
	probe_send(d, ha, u);
}

int upd_liveness_probe_now(struct hipd *d, struct hip_ha *ha)
{
	struct hip_update *u = upd_get(ha);

	if (!u)
		return -ENOMEM;
	if (ha->state != HIP_STATE_ESTABLISHED || u->out_kind != UPD_OUT_NONE)
		return -EBUSY;
	if (!u->live_unanswered_ns)
		u->live_unanswered_ns = hipd_now_ns();
	return probe_send(d, ha, u);
}

/* ECHO_REQUEST_SIGNED in a quoted UPDATE, which may be cut short: the
 * parameters are walked as far as the quote goes (RFC 7401 §5.2.1). */
static bool quote_has_nonce(const uint8_t *hip, size_t len, const uint8_t *nonce, size_t n)
{
	size_t off = HIP_HDR_LEN;

	while (off + HIP_TLV_HDR_LEN <= len) {
		uint16_t type = hip_rd16(hip + off), plen = hip_rd16(hip + off + 2);

		if (type == HIP_PARAM_ECHO_REQUEST_SIGNED)
			return plen == n && off + HIP_TLV_HDR_LEN + n <= len &&
			       hip_memeq_ct(hip + off + HIP_TLV_HDR_LEN, nonce, n);
		if (type > HIP_PARAM_ECHO_REQUEST_SIGNED)
			return false;    /* parameters come in type order */
		off += (HIP_TLV_HDR_LEN + (size_t)plen + 7) & ~(size_t)7;
	}
	return false;
}

int upd_probe_icmp(struct hipd *d, struct hip_ha *ha, const uint8_t *hip, size_t len)
{
	struct hip_update *u = ha->upd;
	char hit[HIP_HIT_STR_LEN], a[INET6_ADDRSTRLEN];

	/* Only our probe in flight, its nonce in the quote: nobody off the
	 * path can have seen the nonce (docs/decisions.md D-14). */
	if (!u || u->out_kind != UPD_OUT_PROBE || len < HIP_HDR_LEN ||
	    (hip[2] & 0x7f) != HIP_UPDATE ||
	    !quote_has_nonce(hip, len, u->live_nonce, sizeof(u->live_nonce)))
		return -ENOENT;
	log_notice("%s at %s has no association with us (ICMP Parameter Problem about our "
		   "liveness probe, RFC 7401 §5.4.4): it lost it (a restart?); association "
		   "removed, traffic starts a new base exchange",
		   hip_hit_to_str(&ha->hit_peer, hit, sizeof(hit)),
		   hip_addr_to_str(&ha->addr_peer, a, sizeof(a)));
	hip_wipe(u->live_nonce, sizeof(u->live_nonce));
	d->stats->live_dead++;
	upd_out_done(d, ha);
	eng_ha_free(d, ha);
	return ENG_HANDLED;
}

int upd_probe_acked(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha)
{
	struct hip_update *u = ha->upd;
	const struct hip_param_ref *p = hip_packet_find(rx->pkt, HIP_PARAM_ECHO_RESPONSE_SIGNED);
	struct hip_opaque echo;

	if (!p || hip_echo_decode(hip_param_content(rx->pkt, p), p->len, &echo) < 0 ||
	    echo.len != sizeof(u->live_nonce) ||
	    !hip_memeq_ct(echo.data, u->live_nonce, sizeof(u->live_nonce)))
		return eng_drop(d, rx, HIPD_DROP_BAD_ECHO, "liveness probe nonce");
	hip_wipe(u->live_nonce, sizeof(u->live_nonce));
	u->live_in_ns = hipd_now_ns();
	u->live_unanswered_ns = 0;
	d->stats->live_answered++;
	return 0;
}

int upd_probe_failed(struct hipd *d, struct hip_ha *ha)
{
	struct hip_update *u = ha->upd;
	uint64_t now = hipd_now_ns();
	char hit[HIP_HIT_STR_LEN];

	log_notice("%s: no answer for %llu s, nor to %u liveness probes: the peer lost the "
		   "association (restart?) or is gone; association removed, traffic starts a new "
		   "base exchange", hip_hit_to_str(&ha->hit_peer, hit, sizeof(hit)),
		   (unsigned long long)(now > u->live_unanswered_ns ?
					(now - u->live_unanswered_ns) / ENG_NS_PER_S : 0),
		   u->out_retx + 1);
	d->stats->live_dead++;
	upd_out_done(d, ha);
	eng_ha_free(d, ha);
	return ENG_HANDLED;
}

const char *upd_liveness(const struct hip_ha *ha)
{
	const struct hip_update *u = ha->upd;

	if (!u)
		return "ok";
	if (u->out_kind == UPD_OUT_PROBE)
		return "probing";
	return u->live_unanswered_ns ? "unanswered" : "ok";
}
