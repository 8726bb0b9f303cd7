/*
 * hit.c - Host Identity Tags as ORCHIDv2 (RFC 7343 §2, RFC 7401 §3.2).
 *
 * ORCHID := Prefix(28) | OGA ID(4) | Encode_96(RHASH(Context ID | Input)).
 * Only Context ID and the Host Identity field are hashed; Prefix and OGA ID
 * are not (ORCHIDv2, unlike the v1 ORCHID of RFC 4843).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "hip_crypto.h"
#include "hit.h"

/* 2001:20::/28 (RFC 7343 §6): the first 28 bits. */
static const uint8_t orchid_prefix[4] = { 0x20, 0x01, 0x00, 0x20 };

/* The HIP Context ID from the CGA extension type-tag registry (RFC 7401 §3.2). */
static const uint8_t hip_context_id[16] = {
	0xf0, 0xef, 0xf0, 0x2f, 0xbf, 0xf4, 0x3d, 0x0f,
	0xe7, 0x93, 0x0c, 0x3c, 0x6e, 0x61, 0x74, 0xea,
};

enum { ORCHID_HASH_BYTES = 12 }; /* Encode_96 */

int hip_hit_from_hi(uint8_t suite, const uint8_t *hi, size_t hi_len,
		    struct hip_hit *out)
{
	uint8_t digest[HIP_RHASH_MAX_LEN];
	struct iovec iov[2];
	size_t dlen, off;
	int ret;

	if (!hi || hi_len == 0 || !out)
		return -EINVAL;
	/* RFC 7343 §2: only OGA IDs with a defined hash; 5 (EdDSA/cSHAKE)
	 * is not supported here. */
	if (suite != HIP_SUITE_RSA_DSA_SHA256 && suite != HIP_SUITE_ECDSA_SHA384 &&
	    suite != HIP_SUITE_ECDSA_LOW_SHA1)
		return -ENOTSUP;
	dlen = hip_rhash_len((enum hip_rhash)suite);
	if (dlen < ORCHID_HASH_BYTES || dlen > sizeof(digest))
		return -ENOTSUP;

	iov[0].iov_base = (void *)hip_context_id;
	iov[0].iov_len = sizeof(hip_context_id);
	iov[1].iov_base = (void *)hi;
	iov[1].iov_len = hi_len;
	ret = hip_digestv((enum hip_rhash)suite, iov, 2, digest);
	if (ret < 0)
		goto out;

	/* Encode_96: the middle 96 bits, offset (L - 96) / 2 bits. */
	off = (dlen - ORCHID_HASH_BYTES) / 2;
	memcpy(out->b, orchid_prefix, sizeof(orchid_prefix));
	out->b[3] |= suite & 0x0f;
	memcpy(out->b + 4, digest + off, ORCHID_HASH_BYTES);
	ret = 0;
out:
	hip_wipe(digest, sizeof(digest));
	return ret;
}

bool hip_hit_is_orchid(const struct hip_hit *hit)
{
	return memcmp(hit->b, orchid_prefix, 3) == 0 &&
	       (hit->b[3] & 0xf0) == orchid_prefix[3];
}

uint8_t hip_hit_suite(const struct hip_hit *hit)
{
	return hit->b[3] & 0x0f;
}

bool hip_hit_is_null(const struct hip_hit *hit)
{
	static const uint8_t zero[HIP_HIT_LEN];

	return memcmp(hit->b, zero, sizeof(zero)) == 0;
}

int hip_hit_cmp(const struct hip_hit *a, const struct hip_hit *b)
{
	/* memcmp compares as unsigned char, i.e. big-endian unsigned 128. */
	int r = memcmp(a->b, b->b, HIP_HIT_LEN);

	return (r > 0) - (r < 0);
}

const char *hip_hit_to_str(const struct hip_hit *hit, char *buf, size_t len)
{
	if (!buf || len == 0)
		return NULL;
	if (!inet_ntop(AF_INET6, hit->b, buf, (socklen_t)len)) {
		buf[0] = '\0';
		return NULL;
	}
	return buf;
}

int hip_hit_from_str(const char *s, struct hip_hit *out)
{
	struct hip_hit h;

	if (!s || !out || inet_pton(AF_INET6, s, h.b) != 1)
		return -EINVAL;
	if (!hip_hit_is_orchid(&h))
		return -EDOM;
	*out = h;
	return 0;
}
