/*
 * coverage.c - the bytes HIP_MAC, HIP_MAC_2, HIP_SIGNATURE and
 * HIP_SIGNATURE_2 cover (RFC 7401 §5.2.12-15, §6.4.1-2; docs/protocol.md §2), and
 * the helpers that append or verify them.
 *
 * Coverage = header + every parameter before the MAC/signature TLV, with
 * Checksum = 0 and Header Length set as if the packet ended there. MAC_2
 * appends the Responder's HOST_ID TLV from R1 (Header Length counts it);
 * SIGNATURE_2 zeroes the Receiver's HIT, PUZZLE Opaque and PUZZLE #I so a
 * precomputed R1 stays valid for any Initiator.
 */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "coverage.h"
#include "params.h"

enum {
	COV_HDR_LEN_OFF  = 1,   /* Header Length */
	COV_CSUM_OFF     = 4,   /* Checksum, 2 bytes */
	COV_RECEIVER_OFF = 24,  /* Receiver's HIT, 16 bytes */
	PUZZLE_OPAQUE_OFF = 2,  /* in PUZZLE contents: K, Lifetime, Opaque(2), #I */
	COV_SIG_MAX      = 1024, /* RSA up to 8192 bits */
};

static void build_fail(struct hip_builder *b, int err)
{
	if (!b->err)
		b->err = err;
}

/* A HOST_ID TLV to append for MAC_2: type 705, a Length that the padded
 * size agrees with. */
static bool host_id_tlv_ok(const uint8_t *tlv, size_t len)
{
	if (!tlv || len < HIP_TLV_HDR_LEN + HIP_LEN_HOST_ID_FIXED || len % 8)
		return false;
	if (hip_rd16(tlv) != HIP_PARAM_HOST_ID)
		return false;
	return hip_tlv_total_len(hip_rd16(tlv + 2)) == len;
}

/* §5.2.15: zero PUZZLE Opaque and #I in the covered copy. Walks the TLVs in
 * [HIP_HDR_LEN, end) with bounds checks; a TLV running past end is -EBADMSG. */
static int cov_zero_puzzle(uint8_t *cov, size_t end)
{
	size_t off = HIP_HDR_LEN;

	while (off < end) {
		uint16_t type, len;
		size_t total;

		if (end - off < HIP_TLV_HDR_LEN)
			return -EBADMSG;
		type = hip_rd16(cov + off);
		len = hip_rd16(cov + off + 2);
		total = hip_tlv_total_len(len);
		if (total > end - off)
			return -EBADMSG;
		if (type == HIP_PARAM_PUZZLE) {
			if (len < HIP_LEN_PUZZLE_FIXED)
				return -EBADMSG;
			memset(cov + off + HIP_TLV_HDR_LEN + PUZZLE_OPAQUE_OFF, 0,
			       len - PUZZLE_OPAQUE_OFF);
		}
		off += total;
	}
	return 0;
}

int hip_coverage(const uint8_t *pkt, size_t end_off, enum hip_cover_kind kind,
		 const uint8_t *host_id_tlv, size_t host_id_tlv_len,
		 uint8_t *out, size_t cap, size_t *out_len)
{
	size_t total = end_off;
	int ret;

	if (!pkt || !out || !out_len)
		return -EINVAL;
	if (end_off < HIP_HDR_LEN || end_off % 8 || end_off > HIP_MAX_PACKET)
		return -EINVAL;
	switch (kind) {
	case HIP_COVER_MAC_2:
		if (!host_id_tlv_ok(host_id_tlv, host_id_tlv_len))
			return -EINVAL;
		total += host_id_tlv_len;
		break;
	case HIP_COVER_MAC:
	case HIP_COVER_SIGNATURE:
	case HIP_COVER_SIGNATURE_2:
		break;
	default:
		return -EINVAL;
	}
	if (total > cap)
		return -ENOSPC;
	/* Header Length is 8 bits: the covered packet must fit 2048 bytes. */
	if (total > HIP_MAX_PACKET)
		return -EMSGSIZE;

	memcpy(out, pkt, end_off);
	if (kind == HIP_COVER_MAC_2)
		memcpy(out + end_off, host_id_tlv, host_id_tlv_len);
	out[COV_HDR_LEN_OFF] = (uint8_t)(total / 8 - 1);
	out[COV_CSUM_OFF] = 0;
	out[COV_CSUM_OFF + 1] = 0;
	if (kind == HIP_COVER_SIGNATURE_2) {
		memset(out + COV_RECEIVER_OFF, 0, HIP_HIT_LEN);
		ret = cov_zero_puzzle(out, end_off);
		if (ret < 0)
			return ret;
	}
	*out_len = total;
	return 0;
}

/* Coverage of the builder's contents so far (Header Length patched). */
static int cov_from_builder(struct hip_builder *b, enum hip_cover_kind kind,
			    const uint8_t *host_id_tlv, size_t host_id_tlv_len,
			    uint8_t *cov, size_t *cov_len)
{
	int n = hip_build_snapshot(b);

	if (n < 0)
		return n;
	return hip_coverage(b->buf, (size_t)n, kind, host_id_tlv, host_id_tlv_len,
			    cov, HIP_COVER_MAX, cov_len);
}

/* HIP_MAC, HIP_MAC_2 or RVS_HMAC (param) over the builder's contents. */
static void build_hmac(struct hip_builder *b, enum hip_cover_kind kind, uint16_t param,
		       enum hip_rhash h, const uint8_t *key, size_t key_len,
		       const uint8_t *host_id_tlv, size_t host_id_tlv_len)
{
	uint8_t cov[HIP_COVER_MAX], mac[HIP_RHASH_MAX_LEN];
	size_t cov_len = 0, mac_len = hip_rhash_len(h);
	struct iovec iov;
	int ret;

	if (b->err)
		return;
	if (mac_len == 0 || mac_len > sizeof(mac)) {
		build_fail(b, -ENOTSUP);
		return;
	}
	ret = cov_from_builder(b, kind, host_id_tlv, host_id_tlv_len, cov, &cov_len);
	if (ret < 0)
		goto out;
	iov.iov_base = cov;
	iov.iov_len = cov_len;
	ret = hip_hmacv(h, key, key_len, &iov, 1, mac);
	if (ret < 0)
		goto out;
	/* §5.2.12-13: the full RHASH-length HMAC. */
	hip_build_param(b, param, mac, mac_len);
out:
	if (ret < 0)
		build_fail(b, ret);
	hip_wipe(mac, sizeof(mac));
}

void hip_build_mac(struct hip_builder *b, enum hip_cover_kind kind,
		   enum hip_rhash h, const uint8_t *key, size_t key_len,
		   const uint8_t *host_id_tlv, size_t host_id_tlv_len)
{
	if (!b->err && kind != HIP_COVER_MAC && kind != HIP_COVER_MAC_2) {
		build_fail(b, -EINVAL);
		return;
	}
	build_hmac(b, kind, kind == HIP_COVER_MAC ? HIP_PARAM_HIP_MAC : HIP_PARAM_HIP_MAC_2, h,
		   key, key_len, host_id_tlv, host_id_tlv_len);
}

void hip_build_rvs_hmac(struct hip_builder *b, enum hip_rhash h, const uint8_t *key,
			size_t key_len)
{
	build_hmac(b, HIP_COVER_MAC, HIP_PARAM_RVS_HMAC, h, key, key_len, NULL, 0);
}

void hip_build_relay_hmac(struct hip_builder *b, enum hip_rhash h, const uint8_t *key,
			  size_t key_len)
{
	build_hmac(b, HIP_COVER_MAC, HIP_PARAM_RELAY_HMAC, h, key, key_len, NULL, 0);
}

void hip_build_signature(struct hip_builder *b, enum hip_cover_kind kind,
			 const struct hip_hi *hi)
{
	uint8_t cov[HIP_COVER_MAX], sig[COV_SIG_MAX];
	size_t cov_len = 0, sig_len = sizeof(sig);
	int ret;

	if (b->err)
		return;
	if ((kind != HIP_COVER_SIGNATURE && kind != HIP_COVER_SIGNATURE_2) || !hi ||
	    !hip_hi_has_private(hi)) {
		build_fail(b, -EINVAL);
		return;
	}
	ret = cov_from_builder(b, kind, NULL, 0, cov, &cov_len);
	if (ret < 0)
		goto out;
	ret = hip_hi_sign(hi, cov, cov_len, sig, &sig_len);
	if (ret < 0)
		goto out;
	/* §5.2.14-15: SIG alg (16 bits in v2) | signature. */
	hip_build_begin(b, kind == HIP_COVER_SIGNATURE ? HIP_PARAM_HIP_SIGNATURE
						       : HIP_PARAM_HIP_SIGNATURE_2);
	hip_build_put_u16(b, hip_hi_algorithm(hi));
	hip_build_put(b, sig, sig_len);
	hip_build_end(b);
out:
	if (ret < 0)
		build_fail(b, ret);
}

/* The parameter's TLV must start on an 8-byte boundary inside the packet;
 * the parser guarantees it, this keeps hip_coverage's contract explicit. */
static int cov_param_off(const struct hip_packet *pkt, const struct hip_param_ref *p)
{
	if (p->off < HIP_HDR_LEN || p->off % 8 ||
	    (size_t)p->off + HIP_TLV_HDR_LEN + p->len > pkt->len)
		return -EBADMSG;
	return 0;
}

/* The HMAC in parameter p (HIP_MAC, HIP_MAC_2 or RVS_HMAC) over what
 * precedes it. */
static int verify_hmac_at(const struct hip_packet *pkt, enum hip_cover_kind kind,
			  const struct hip_param_ref *p, enum hip_rhash h, const uint8_t *key,
			  size_t key_len, const uint8_t *host_id_tlv, size_t host_id_tlv_len)
{
	uint8_t cov[HIP_COVER_MAX], mac[HIP_RHASH_MAX_LEN];
	size_t cov_len = 0, mac_len = hip_rhash_len(h);
	struct iovec iov;
	int ret;

	if (mac_len == 0 || mac_len > sizeof(mac))
		return -ENOTSUP;
	if (p->len != mac_len || cov_param_off(pkt, p) < 0)
		return -EBADMSG;
	ret = hip_coverage(pkt->buf, p->off, kind, host_id_tlv, host_id_tlv_len,
			   cov, sizeof(cov), &cov_len);
	if (ret < 0)
		goto out;
	iov.iov_base = cov;
	iov.iov_len = cov_len;
	ret = hip_hmacv(h, key, key_len, &iov, 1, mac);
	if (ret < 0)
		goto out;
	ret = hip_memeq_ct(mac, hip_param_content(pkt, p), mac_len) ? 0 : -EBADMSG;
out:
	hip_wipe(mac, sizeof(mac));
	return ret;
}

int hip_verify_mac(const struct hip_packet *pkt, enum hip_cover_kind kind,
		   enum hip_rhash h, const uint8_t *key, size_t key_len,
		   const uint8_t *host_id_tlv, size_t host_id_tlv_len)
{
	const struct hip_param_ref *p;

	if (!pkt || (kind != HIP_COVER_MAC && kind != HIP_COVER_MAC_2))
		return -EINVAL;
	p = hip_packet_find(pkt, kind == HIP_COVER_MAC ? HIP_PARAM_HIP_MAC
						       : HIP_PARAM_HIP_MAC_2);
	if (!p)
		return -ENOENT;
	return verify_hmac_at(pkt, kind, p, h, key, key_len, host_id_tlv, host_id_tlv_len);
}

int hip_verify_rvs_hmac(const struct hip_packet *pkt, enum hip_rhash h, const uint8_t *key,
			size_t key_len)
{
	return hip_verify_relay_hmac(pkt, HIP_PARAM_RVS_HMAC, h, key, key_len);
}

int hip_verify_relay_hmac(const struct hip_packet *pkt, uint16_t type, enum hip_rhash h,
			  const uint8_t *key, size_t key_len)
{
	const struct hip_param_ref *p;

	if (!pkt || (type != HIP_PARAM_RVS_HMAC && type != HIP_PARAM_RELAY_HMAC))
		return -EINVAL;
	p = hip_packet_find(pkt, type);
	if (!p)
		return -ENOENT;
	return verify_hmac_at(pkt, HIP_COVER_MAC, p, h, key, key_len, NULL, 0);
}

int hip_verify_signature(const struct hip_packet *pkt, enum hip_cover_kind kind,
			 const struct hip_hi *hi)
{
	uint8_t cov[HIP_COVER_MAX];
	const struct hip_param_ref *p;
	struct hip_signature sig;
	size_t cov_len = 0;
	int ret;

	if (!pkt || !hi || (kind != HIP_COVER_SIGNATURE && kind != HIP_COVER_SIGNATURE_2))
		return -EINVAL;
	p = hip_packet_find(pkt, kind == HIP_COVER_SIGNATURE ? HIP_PARAM_HIP_SIGNATURE
							     : HIP_PARAM_HIP_SIGNATURE_2);
	if (!p)
		return -ENOENT;
	if (cov_param_off(pkt, p) < 0 ||
	    hip_signature_decode(hip_param_content(pkt, p), p->len, &sig) < 0)
		return -EBADMSG;
	/* §5.2.14: SIG alg is the HI's algorithm; the length is fixed by it. */
	if (sig.algorithm != hip_hi_algorithm(hi) || sig.len != hip_hi_sig_len(hi))
		return -EBADMSG;
	ret = hip_coverage(pkt->buf, p->off, kind, NULL, 0, cov, sizeof(cov), &cov_len);
	if (ret < 0)
		return ret;
	ret = hip_hi_verify(hi, cov, cov_len, sig.sig, sig.len);
	if (ret == -ENOMEM)
		return ret;
	return ret < 0 ? -EBADMSG : 0;
}
