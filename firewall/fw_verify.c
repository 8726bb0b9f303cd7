/*
 * fw_verify.c - what a middlebox can check of a HIP packet by itself: a
 * packet that carries its sender's HOST_ID in the clear (every R1, RFC
 * 7401 §5.3.2; an I2 whose Initiator did not put it in ENCRYPTED, §5.3.3;
 * an UPDATE or NOTIFY with one) must have a sender HIT that is that HI's
 * ORCHID (RFC 7343; the check of §6.7 step 1 and §6.9 step 3), and a
 * signature that verifies with it (HIP_SIGNATURE_2 for R1, §5.2.15;
 * HIP_SIGNATURE otherwise, §5.2.14). A forged or altered R1 never reaches
 * the Initiator behind us. Packets without HOST_ID are left to the rules.
 *
 * Two small round-robin caches (fw_verify_cache) spare the costly parts:
 * R1s are precomputed and sent again and again (RFC 7401 §4.1.1), so an R1
 * whose signed bytes and signature were verified before (SHA-256 over
 * both) is not verified again; and a HOST_ID already decoded and found to
 * give its HIT (the same HIT, the same bytes) is not decoded again, which
 * costs more than the signature check with OpenSSL 3.
 */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "coverage.h"
#include "fw_packet.h"
#include "hip_crypto.h"
#include "params.h"

/* The HI of a HOST_ID from the sender: from the cache (same HIT, same
 * bytes) or decoded and checked against the HIT (then cached). */
static enum fw_bad host_id_hi(const struct fw_packet *p, const struct hip_host_id *hid,
			      struct fw_verify_cache *c, struct hip_hi **out)
{
	struct hip_hi *hi = NULL;
	struct hip_hit computed;
	const uint8_t *w;
	size_t wl;
	unsigned i;

	for (i = 0; c && i < FW_HI_CACHE; i++) {
		struct fw_hi_entry *e = &c->hi[i];

		if (!e->hi || hip_hit_cmp(&e->hit, &p->sender) != 0 ||
		    hip_hi_algorithm(e->hi) != hid->algorithm)
			continue;
		w = hip_hi_wire(e->hi, &wl);
		if (wl == hid->hi_len && memcmp(w, hid->hi, wl) == 0) {
			c->hi_hits++;
			*out = hip_hi_ref(e->hi);
			return FW_OK;
		}
	}
	if (hip_hi_from_wire(hid->algorithm, hid->hi, hid->hi_len, &hi) < 0)
		return FW_BAD_HIP;
	if ((unsigned)hip_hi_suite(hi) != hip_hit_suite(&p->sender) ||
	    hip_hit_from_hi((uint8_t)hip_hi_suite(hi), hid->hi, hid->hi_len, &computed) < 0 ||
	    hip_hit_cmp(&computed, &p->sender) != 0) {
		hip_hi_free(hi);
		return FW_BAD_HIT;
	}
	if (c) {
		struct fw_hi_entry *e = &c->hi[c->hi_next];

		c->hi_next = (c->hi_next + 1) % FW_HI_CACHE;
		hip_hi_free(e->hi);
		e->hit = p->sender;
		e->hi = hip_hi_ref(hi);
	}
	*out = hi;
	return FW_OK;
}

static enum fw_bad verify(const struct fw_packet *p, struct fw_verify_cache *c,
			  struct hip_hi **keep)
{
	const struct hip_param_ref *ref = hip_packet_find(&p->pkt, HIP_PARAM_HOST_ID);
	struct hip_host_id hid;
	struct hip_hi *hi = NULL;
	enum fw_bad why;

	if (keep)
		*keep = NULL;
	if (!ref)
		return FW_OK;
	if (hip_host_id_decode(hip_param_content(&p->pkt, ref), ref->len, &hid) < 0)
		return FW_BAD_HIP;
	why = host_id_hi(p, &hid, c, &hi);
	if (why != FW_OK)
		return why;
	if (hip_verify_signature(&p->pkt, p->type == HIP_R1 ? HIP_COVER_SIGNATURE_2 :
				 HIP_COVER_SIGNATURE, hi) < 0)
		why = FW_BAD_SIGNATURE;
	if (why == FW_OK && keep) {
		*keep = hi;
		hi = NULL;
	}
	hip_hi_free(hi);
	return why;
}

enum fw_bad fw_verify_host_id(const struct fw_packet *p)
{
	return verify(p, NULL, NULL);
}

enum fw_bad fw_verify_host_id_keep(const struct fw_packet *p, struct hip_hi **hi)
{
	return verify(p, NULL, hi);
}

/* The key of an R1: SHA-256 of what HIP_SIGNATURE_2 covers and of the
 * signature. 0, or <0 when the R1 has no signature to key on. */
static int r1_key(const struct fw_packet *p, uint8_t key[FW_VERIFY_KEY_LEN])
{
	const struct hip_param_ref *sig = hip_packet_find(&p->pkt, HIP_PARAM_HIP_SIGNATURE_2);
	uint8_t cov[HIP_MAX_PACKET];
	struct iovec iov[2];
	size_t cov_len;

	if (!sig || hip_coverage(p->hip, sig->off, HIP_COVER_SIGNATURE_2, NULL, 0, cov,
				 sizeof(cov), &cov_len) < 0)
		return -EBADMSG;
	iov[0] = (struct iovec){ .iov_base = cov, .iov_len = cov_len };
	iov[1] = (struct iovec){ .iov_base = (void *)(p->hip + sig->off),
				 .iov_len = HIP_TLV_HDR_LEN + (size_t)sig->len };
	return hip_digestv(HIP_RHASH_SHA256, iov, 2, key);
}

enum fw_bad fw_verify_host_id_cached(const struct fw_packet *p, struct fw_verify_cache *c,
				     struct hip_hi **hi)
{
	uint8_t key[FW_VERIFY_KEY_LEN];
	struct fw_verify_entry *e;
	enum fw_bad why;
	unsigned i;

	if (p->type != HIP_R1 || !hip_packet_find(&p->pkt, HIP_PARAM_HOST_ID) ||
	    r1_key(p, key) < 0)
		return verify(p, c, hi);
	for (i = 0; i < FW_VERIFY_CACHE; i++) {
		e = &c->e[i];
		if (e->hi && memcmp(e->key, key, sizeof(key)) == 0) {
			c->hits++;
			*hi = hip_hi_ref(e->hi);
			return FW_OK;
		}
	}
	c->misses++;
	why = verify(p, c, hi);
	if (why != FW_OK || !*hi)
		return why;
	e = &c->e[c->next];
	c->next = (c->next + 1) % FW_VERIFY_CACHE;
	hip_hi_free(e->hi);
	memcpy(e->key, key, sizeof(key));
	e->hi = hip_hi_ref(*hi);
	return FW_OK;
}

void fw_verify_cache_free(struct fw_verify_cache *c)
{
	unsigned i;

	for (i = 0; i < FW_VERIFY_CACHE; i++) {
		hip_hi_free(c->e[i].hi);
		c->e[i].hi = NULL;
	}
	for (i = 0; i < FW_HI_CACHE; i++) {
		hip_hi_free(c->hi[i].hi);
		c->hi[i].hi = NULL;
	}
}
