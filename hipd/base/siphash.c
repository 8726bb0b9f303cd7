/*
 * siphash.c - SipHash-2-4 (https://131002.net/siphash/siphash.pdf).
 */
#include <string.h>

#include "hip_crypto.h"
#include "siphash.h"

static uint64_t rotl64(uint64_t x, unsigned b)
{
	return (x << b) | (x >> (64 - b));
}

static uint64_t load_le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

#define SIPROUND(v0, v1, v2, v3) do { \
	v0 += v1; v1 = rotl64(v1, 13); v1 ^= v0; v0 = rotl64(v0, 32); \
	v2 += v3; v3 = rotl64(v3, 16); v3 ^= v2; \
	v0 += v3; v3 = rotl64(v3, 21); v3 ^= v0; \
	v2 += v1; v1 = rotl64(v1, 17); v1 ^= v2; v2 = rotl64(v2, 32); \
} while (0)

void hip_siphash_key_from_bytes(struct hip_siphash_key *key, const uint8_t b[16])
{
	key->k0 = load_le64(b);
	key->k1 = load_le64(b + 8);
}

int hip_siphash_key_random(struct hip_siphash_key *key)
{
	uint8_t b[16];
	int ret = hip_random(b, sizeof(b));

	if (ret == 0)
		hip_siphash_key_from_bytes(key, b);
	hip_wipe(b, sizeof(b));
	return ret;
}

uint64_t hip_siphash(const struct hip_siphash_key *key, const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t v0 = 0x736f6d6570736575ULL ^ key->k0;
	uint64_t v1 = 0x646f72616e646f6dULL ^ key->k1;
	uint64_t v2 = 0x6c7967656e657261ULL ^ key->k0;
	uint64_t v3 = 0x7465646279746573ULL ^ key->k1;
	uint64_t m, b = (uint64_t)len << 56;
	uint8_t tail[8] = { 0 };
	size_t left;

	for (; len >= 8; len -= 8, p += 8) {
		m = load_le64(p);
		v3 ^= m;
		SIPROUND(v0, v1, v2, v3);
		SIPROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	left = len;
	if (left)
		memcpy(tail, p, left);
	b |= load_le64(tail);
	v3 ^= b;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}
