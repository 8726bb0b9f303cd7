/*
 * notify.c - NOTIFY (RFC 7401 §5.3.6, §5.2.19, §6.13; docs/protocol.md §9).
 *
 * Sent only for the errors the RFC names, once the peer has solved a puzzle
 * or inside an association, signed, and rate-limited per destination.
 * Received NOTIFYs are informational: verified when the sender's HI is
 * known, logged by name, never a state change (S-14, RB-08).
 *
 * Where each type is sent (§5.2.19):
 *   I2, puzzle verified (bex_i2.c): INVALID_DH_CHOSEN, INVALID_HIP_CIPHER_-
 *     CHOSEN, NO_ESP_PROPOSAL_CHOSEN, INVALID_ESP_TRANSFORM_CHOSEN,
 *     ENCRYPTION_FAILED (ENCRYPTED does not decrypt), HIP_MAC_FAILED,
 *     AUTHENTICATION_FAILED; after MAC and signature too: INVALID_SYNTAX (a
 *     bad ESP_INFO, no details) and BLOCKED_BY_POLICY.
 *   R1, signature verified (bex_r1.c): NO_HIP_PROPOSAL_CHOSEN and
 *     NO_ESP_PROPOSAL_CHOSEN to the Responder.
 *   R2 in I2-SENT (bex_init.c): HIP_MAC_FAILED, AUTHENTICATION_FAILED,
 *     INVALID_SYNTAX (bad ESP_INFO of an authentic R2).
 *   Any packet of an association with an unknown critical parameter
 *     (fsm.c): UNSUPPORTED_CRITICAL_PARAMETER_TYPE, except I1 and R1.
 * Never: for an I1 (§6.7.2, RB-01: not even a malformed one; nor before a
 * puzzle is solved, §5.4), for a malformed R1 (§6.8.1, RB-02), and never
 * CHECKSUM_FAILED: a bad checksum is dropped silently (§5.4.2, W-04). An
 * invalid puzzle solution is not a NOTIFY type (ICMP at most, §5.4.4).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "coverage.h"
#include "engine/engine_int.h"
#include "exchange.h"
#include "hit.h"
#include "base/base.h"

static const struct {
	uint16_t type;
	const char *name;
} notify_names[] = {
	{ HIP_NOTIFY_UNSUPPORTED_CRITICAL_PARAMETER_TYPE, "UNSUPPORTED_CRITICAL_PARAMETER_TYPE" },
	{ HIP_NOTIFY_INVALID_SYNTAX, "INVALID_SYNTAX" },
	{ HIP_NOTIFY_NO_DH_PROPOSAL_CHOSEN, "NO_DH_PROPOSAL_CHOSEN" },
	{ HIP_NOTIFY_INVALID_DH_CHOSEN, "INVALID_DH_CHOSEN" },
	{ HIP_NOTIFY_NO_HIP_PROPOSAL_CHOSEN, "NO_HIP_PROPOSAL_CHOSEN" },
	{ HIP_NOTIFY_INVALID_HIP_CIPHER_CHOSEN, "INVALID_HIP_CIPHER_CHOSEN" },
	{ HIP_NOTIFY_NO_ESP_PROPOSAL_CHOSEN, "NO_ESP_PROPOSAL_CHOSEN" },
	{ HIP_NOTIFY_INVALID_ESP_TRANSFORM_CHOSEN, "INVALID_ESP_TRANSFORM_CHOSEN" },
	{ HIP_NOTIFY_UNSUPPORTED_HIT_SUITE, "UNSUPPORTED_HIT_SUITE" },
	{ HIP_NOTIFY_AUTHENTICATION_FAILED, "AUTHENTICATION_FAILED" },
	{ HIP_NOTIFY_CHECKSUM_FAILED, "CHECKSUM_FAILED" },
	{ HIP_NOTIFY_HIP_MAC_FAILED, "HIP_MAC_FAILED" },
	{ HIP_NOTIFY_ENCRYPTION_FAILED, "ENCRYPTION_FAILED" },
	{ HIP_NOTIFY_INVALID_HIT, "INVALID_HIT" },
	{ HIP_NOTIFY_BLOCKED_BY_POLICY, "BLOCKED_BY_POLICY" },
	{ HIP_NOTIFY_RESPONDER_BUSY_PLEASE_RETRY, "RESPONDER_BUSY_PLEASE_RETRY" },
	{ HIP_NOTIFY_LOCATOR_TYPE_UNSUPPORTED, "LOCATOR_TYPE_UNSUPPORTED" },
	{ HIP_NOTIFY_CREDENTIALS_REQUIRED, "CREDENTIALS_REQUIRED" },
	{ HIP_NOTIFY_INVALID_CERTIFICATE, "INVALID_CERTIFICATE" },
	{ HIP_NOTIFY_REG_REQUIRED, "REG_REQUIRED" },
	{ HIP_NOTIFY_I2_ACKNOWLEDGEMENT, "I2_ACKNOWLEDGEMENT" },
	{ HIP_NOTIFY_NO_VALID_NAT_TRAVERSAL_MODE, "NO_VALID_NAT_TRAVERSAL_MODE_PARAMETER" },
	{ HIP_NOTIFY_NAT_KEEPALIVE, "NAT_KEEPALIVE" },
};

const char *eng_notify_name(uint16_t type)
{
	size_t i;

	for (i = 0; i < sizeof(notify_names) / sizeof(notify_names[0]); i++)
		if (notify_names[i].type == type)
			return notify_names[i].name;
	return NULL;
}

void eng_notify(struct hipd *d, const struct eng_rx *rx, uint16_t type,
		const void *data, size_t len)
{
	struct hidb_entry *me = rx->local;
	uint8_t buf[ENG_PKT_BUF];
	struct hip_builder b;
	int n;

	if (!me || !rx->src || !rx->dst)
		return;
	if (!ratelimit_allow(d->engine->notify_limit, rx->src, hipd_now_ns())) {
		log_debug("NOTIFY %s not sent: rate limit", eng_notify_name(type));
		return;
	}
	hip_build_init(&b, buf, sizeof(buf), HIP_NOTIFY, &me->hit, &rx->pkt->hit_sender);
	hip_notification_build(&b, type, data, len);
	hip_build_signature(&b, HIP_COVER_SIGNATURE, me->hi);
	n = hip_build_finish(&b);
	if (n < 0)
		return;
	if (eng_send_port(d, NULL, buf, (size_t)n, rx->dst, rx->src, rx->sport) == 0)
		d->engine->notify_sent++;
}

/* The NOTIFY's own HOST_ID, when the association has no peer key yet and
 * the key hashes to the sender's HIT. */
static int notify_hi(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha,
		     struct hip_hi **tmp)
{
	const struct hip_param_ref *p = hip_packet_find(rx->pkt, HIP_PARAM_HOST_ID);
	struct hip_host_id hid;

	*tmp = NULL;
	if (!p)
		return -ENOENT;
	if (hip_host_id_decode(hip_param_content(rx->pkt, p), p->len, &hid) < 0)
		return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "HOST_ID");
	return eng_peer_hi(d, rx, ha, &hid, tmp);
}

int act_process_notify(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap)
{
	struct hip_ha *ha = *hap;
	const struct hip_param_ref *p;
	struct hip_notification n;
	struct hip_hi *tmp = NULL;
	const struct hip_hi *hi = NULL;
	char hit[HIP_HIT_STR_LEN];
	const char *name;
	bool verified = false;
	int ret;

	/* The association's key (kept octets), else the NOTIFY's own HOST_ID. */
	if (eng_peer_key(d, ha, &hi, &tmp) < 0) {
		hi = NULL;
		ret = notify_hi(d, rx, ha, &tmp);
		if (ret == ENG_DROPPED)
			return ret;
		hi = tmp;
	}
	if (hi) {
		ret = hip_verify_signature(rx->pkt, HIP_COVER_SIGNATURE, hi);
		hip_hi_free(tmp);
		if (ret < 0)
			return eng_drop(d, rx, ret == -ENOENT ? HIPD_DROP_MISSING_PARAM
						       : HIPD_DROP_BAD_SIGNATURE, "NOTIFY");
		verified = true;
	}
	/* RFC 5770 §5.3: a NOTIFY without parameters over UDP is a keepalive */
	if (rx->sport && verified && !hip_packet_find(rx->pkt, HIP_PARAM_NOTIFICATION)) {
		d->engine->nat_keepalives_in++;
		return 0;
	}
	p = eng_param(d, rx, HIP_PARAM_NOTIFICATION, true, &ret);
	if (!p)
		return ret;
	d->engine->notify_received++;
	hip_hit_to_str(&ha->hit_peer, hit, sizeof(hit));
	for (; p; p = hip_packet_find_next(rx->pkt, p)) {
		if (hip_notification_decode(hip_param_content(rx->pkt, p), p->len, &n) < 0)
			continue;
		/* RFC 9028 §5.3: the NAT keepalive, counted, nothing else */
		if (n.type == HIP_NOTIFY_NAT_KEEPALIVE) {
			d->engine->nat_keepalives_in++;
			continue;
		}
		name = eng_notify_name(n.type);
		/* RB-08: unknown types are logged and ignored. */
		if (name)
			log_ratelimited(&d->engine->notify_log, LOG_NOTICE,
					"NOTIFY %s (%u) from %s%s, %zu bytes of data", name,
					n.type, hit, verified ? "" : " (unverified)", n.len);
		else
			log_ratelimited(&d->engine->notify_log, LOG_NOTICE,
					"NOTIFY of unknown type %u from %s%s, ignored", n.type,
					hit, verified ? "" : " (unverified)");
	}
	return 0;
}

int eng_notify_send(struct hipd *d, struct hip_ha *ha, uint16_t type, const void *data,
		    size_t len)
{
	uint8_t buf[ENG_PKT_BUF];
	struct hip_builder b;
	int n;

	hip_build_init(&b, buf, sizeof(buf), HIP_NOTIFY, &ha->hit_local, &ha->hit_peer);
	hip_notification_build(&b, type, data, len);
	hip_build_signature(&b, HIP_COVER_SIGNATURE, ha->local->hi);
	n = hip_build_finish(&b);
	if (n < 0)
		return n;
	n = eng_send(d, ha, buf, (size_t)n, &ha->addr_local, &ha->addr_peer);
	if (n == 0)
		d->engine->notify_sent++;
	return n;
}
