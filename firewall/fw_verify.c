/*
 * fw_verify.c - what a middlebox can check of a HIP packet by itself: a
 * packet that carries its sender's HOST_ID in the clear (every R1, RFC
 * 7401 §5.3.2; an I2 whose Initiator did not put it in ENCRYPTED, §5.3.3;
 * an UPDATE or NOTIFY with one) must have a sender HIT that is that HI's
 * ORCHID (RFC 7343; the check of §6.7 step 1 and §6.9 step 3), and a
 * signature that verifies with it (HIP_SIGNATURE_2 for R1, §5.2.15;
 * HIP_SIGNATURE otherwise, §5.2.14). A forged or altered R1 never reaches
 * the Initiator behind us. Packets without HOST_ID are left to the rules.
 */
#include <string.h>

#include "coverage.h"
#include "fw_packet.h"
#include "hip_crypto.h"
#include "params.h"

enum fw_bad fw_verify_host_id(const struct fw_packet *p)
{
	const struct hip_param_ref *ref = hip_packet_find(&p->pkt, HIP_PARAM_HOST_ID);
	struct hip_host_id hid;
	struct hip_hi *hi = NULL;
	struct hip_hit computed;
	enum fw_bad why = FW_OK;

	if (!ref)
		return FW_OK;
	if (hip_host_id_decode(hip_param_content(&p->pkt, ref), ref->len, &hid) < 0 ||
	    hip_hi_from_wire(hid.algorithm, hid.hi, hid.hi_len, &hi) < 0)
		return FW_BAD_HIP;
	if ((unsigned)hip_hi_suite(hi) != hip_hit_suite(&p->sender) ||
	    hip_hit_from_hi((uint8_t)hip_hi_suite(hi), hid.hi, hid.hi_len, &computed) < 0 ||
	    hip_hit_cmp(&computed, &p->sender) != 0) {
		why = FW_BAD_HIT;
		goto out;
	}
	if (hip_verify_signature(&p->pkt, p->type == HIP_R1 ? HIP_COVER_SIGNATURE_2 :
				 HIP_COVER_SIGNATURE, hi) < 0)
		why = FW_BAD_SIGNATURE;
out:
	hip_hi_free(hi);
	return why;
}
