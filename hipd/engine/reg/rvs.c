/*
 * rvs.c - rendezvous (RFC 8004). The server relays an I1 addressed to a
 * client registered for RENDEZVOUS (§3.3): to the client's current
 * address (its association's peer locator, kept current by its UPDATEs),
 * from the server's own, with FROM (the Initiator's address) and RVS_HMAC
 * appended (§4.2.1-4.2.2). RVS_HMAC is HIP_MAC's computation keyed with
 * the integrity key of the server-client association: the server's
 * outgoing key, which is the client's incoming one (docs/decisions.md
 * D-9). The client checks it before it trusts FROM (§4.3.2).
 *
 * One hop only: a packet already carrying FROM is not relayed again
 * (chained servers would append FROM after RVS_HMAC, out of the ascending
 * parameter order the parser enforces), which also ends relay loops.
 */
#include <errno.h>
#include <string.h>

#include "coverage.h"
#include "engine/assoc/assoc.h"
#include "reg.h"

int rvs_relay_build(const struct hip_packet *pkt, const struct hip_addr *orig_src,
		    const struct hip_ha *ha, uint8_t *out, size_t cap)
{
	struct hip_builder b;

	if (hip_packet_find(pkt, HIP_PARAM_FROM) || hip_packet_find(pkt, HIP_PARAM_RVS_HMAC))
		return -ELOOP;
	if (!ha->hip_keys.int_len)
		return -ENOKEY;
	hip_build_resume(&b, out, cap, pkt);
	hip_from_build(&b, orig_src);
	hip_build_rvs_hmac(&b, ha->rhash, eng_key_out_int(ha), ha->hip_keys.int_len);
	return hip_build_finish(&b);
}

int rvs_check_relayed(const struct hip_packet *pkt, const struct hip_ha *ha,
		      struct hip_addr *from)
{
	const struct hip_param_ref *p = hip_packet_find(pkt, HIP_PARAM_FROM);
	int ret;

	if (!p)
		return -ENOENT;
	if (hip_packet_find_next(pkt, p) ||
	    hip_from_decode(hip_param_content(pkt, p), p->len, from) < 0)
		return -EBADMSG;
	if (!ha || !ha->hip_keys.int_len)
		return -ENOKEY;
	ret = hip_verify_rvs_hmac(pkt, ha->rhash, eng_key_in_int(ha), ha->hip_keys.int_len);
	return ret == -ENOENT ? -ENOENT : ret < 0 ? -EBADMSG : 0;
}

int rvs_append_via(uint8_t *buf, size_t len, size_t cap, const struct hip_addr *rvs)
{
	size_t n = hip_tlv_total_len(sizeof(rvs->in6.s6_addr));   /* padded to 8 */

	if (len < HIP_HDR_LEN || len % 8 || len + n > cap || len + n > HIP_MAX_PACKET)
		return -ENOSPC;
	memset(buf + len, 0, n);
	hip_wr16(buf + len, HIP_PARAM_VIA_RVS);
	hip_wr16(buf + len + 2, sizeof(rvs->in6.s6_addr));
	memcpy(buf + len + HIP_TLV_HDR_LEN, rvs->in6.s6_addr, sizeof(rvs->in6.s6_addr));
	len += n;
	buf[1] = (uint8_t)(len / 8 - 1);      /* Header Length (RFC 7401 §5.1) */
	return (int)len;
}
