/*
 * bex_nat.c - what NAT traversal adds to the base exchange (RFC 9028):
 * the mode the Initiator picks from the R1's NAT_TRAVERSAL_MODE (§4.3),
 * and the candidates of ICE-HIP-UDP, a LOCATOR_SET inside the ENCRYPTED
 * parameter of the I2 and R2 (§4.5 steps 5 and 7, §5.7), sealed and
 * opened with the HIP_CIPHER keys (RFC 7401 §5.2.18, §6.5).
 */
#include <errno.h>
#include <string.h>

#include "exchange.h"
#include "engine/update/update.h"

uint16_t bex_nat_mode_choose(const struct hip_u16_list *offered, bool via_relay)
{
	unsigned i, n = offered->n < 6 ? offered->n : 6;   /* §5.4: the first 6 count */

	/* §4.7.2: an I2 with UDP-ENCAPSULATION MUST NOT go through a relay;
	 * otherwise the Responder's order of preference (§5.4) */
	for (i = 0; i < n; i++) {
		uint16_t m = offered->v[i];

		if (m == HIP_NAT_MODE_ICE_HIP_UDP ||
		    (m == HIP_NAT_MODE_UDP_ENCAPSULATION && !via_relay))
			return m;
	}
	return 0;
}

int bex_nat_ta(const struct hipd *d, const struct hip_packet *pkt, uint16_t *ta)
{
	const struct hip_param_ref *p = hip_packet_find(pkt, HIP_PARAM_TRANSACTION_PACING);
	uint32_t own = d->conf.nat_ta_ms ? d->conf.nat_ta_ms : HIP_NAT_TA_DEFAULT_MS;
	uint32_t peer = HIP_NAT_TA_DEFAULT_MS;

	if (p && hip_transaction_pacing_decode(hip_param_content(pkt, p), p->len, &peer) < 0)
		return -EBADMSG;
	if (peer > HIP_NAT_TA_MAX_MS)
		peer = HIP_NAT_TA_MAX_MS;
	*ta = (uint16_t)(own > peer ? own : peer);
	return 0;
}

/* The LOCATOR_SET TLV of our candidates, padded, into out; its length. */
static int locset_tlv(const struct hip_locator_set *s, uint8_t *out, size_t cap)
{
	static const struct hip_hit zero;
	uint8_t pkt[HIP_MAX_PACKET];
	struct hip_builder b;
	int n;

	hip_build_init(&b, pkt, sizeof(pkt), HIP_UPDATE, &zero, &zero);
	hip_locator_set_build(&b, s);
	n = hip_build_finish(&b);
	if (n < 0)
		return n;
	n -= HIP_HDR_LEN;
	if ((size_t)n > cap)
		return -ENOSPC;
	memcpy(out, pkt + HIP_HDR_LEN, (size_t)n);
	return n;
}

int bex_candidates_seal(struct hipd *d, const struct hip_ha *ha, const struct hip_addr *local,
			const struct hip_relay_addr *seen, const uint8_t *tail, size_t tail_len,
			uint8_t *enc, size_t cap, size_t *enc_len)
{
	struct hip_locator_set cands;
	uint8_t plain[HIP_MAX_PACKET];
	int n, ret;

	upd_ice_candidates(d, local, ha->spi_in, seen, &cands);
	n = locset_tlv(&cands, plain, sizeof(plain));
	if (n < 0)
		return n;
	if (tail_len > sizeof(plain) - (size_t)n)
		return -ENOSPC;
	/* inner parameters in ascending order: LOCATOR_SET, then HOST_ID */
	if (tail_len)
		memcpy(plain + n, tail, tail_len);
	ret = hip_cipher_seal(ha->hip_cipher, eng_key_out_enc(ha), plain, (size_t)n + tail_len,
			      enc, cap, enc_len);
	hip_wipe(plain, sizeof(plain));
	return ret;
}

int bex_inner_find(const uint8_t *plain, size_t n, uint16_t type, const uint8_t **content,
		   size_t *len)
{
	size_t off = 0;

	/* whole TLVs until the block padding (RFC 7401 §5.2.18, A-5) */
	while (n - off >= HIP_TLV_HDR_LEN) {
		uint16_t t = hip_rd16(plain + off), l = hip_rd16(plain + off + 2);
		size_t total = hip_tlv_total_len(l);

		if (total > n - off || (t != HIP_PARAM_LOCATOR_SET && t != HIP_PARAM_HOST_ID))
			break;
		if (t == type) {
			*content = plain + off + HIP_TLV_HDR_LEN;
			*len = l;
			return 0;
		}
		off += total;
	}
	return -ENOENT;
}

int bex_candidates_open(const struct hip_ha *ha, const struct hip_packet *pkt,
			struct hip_locator_set *out)
{
	const struct hip_param_ref *p = hip_packet_find(pkt, HIP_PARAM_ENCRYPTED);
	uint8_t plain[HIP_MAX_PACKET];
	struct hip_encrypted enc;
	const uint8_t *c;
	size_t n = 0, len;
	int ret;

	if (!p)
		return -ENOENT;
	if (hip_encrypted_decode(hip_param_content(pkt, p), p->len, &enc) < 0 ||
	    hip_cipher_open(ha->hip_cipher, eng_key_in_enc(ha), enc.data, enc.len, plain,
			    sizeof(plain), &n) < 0) {
		ret = -EBADMSG;
		goto out;
	}
	ret = bex_inner_find(plain, n, HIP_PARAM_LOCATOR_SET, &c, &len);
	if (ret == 0) {
		ret = hip_locator_set_decode(c, len, out);
		ret = ret == -ENOTSUP ? 0 : ret < 0 ? -EBADMSG : 0;  /* other types ignored */
	}
out:
	hip_wipe(plain, sizeof(plain));
	return ret;
}
