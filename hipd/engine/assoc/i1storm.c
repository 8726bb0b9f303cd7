/*
 * i1storm.c - see i1storm.h (RFC 7401 §5.3.1, §6.7; P-11).
 */
#include <string.h>

#include "i1storm.h"
#include "packet.h"

#define I1_STORM_DELTA_NS ((uint64_t)I1_STORM_DELTA_MS * 1000000ULL)

void i1_storm_forget(struct i1_storm *s)
{
	if (s)
		memset(s->t_ns, 0, sizeof(s->t_ns));
}

/* The slot of a (source, destination, HIT-I, HIT-R) pair. */
static size_t pair_slot(const struct i1_storm *s, const struct hip_addr *src,
			const struct hip_addr *dst, const uint8_t *hit_i, const uint8_t *hit_r)
{
	uint8_t buf[2 * sizeof(src->in6.s6_addr) + 2 * HIP_HIT_LEN];
	size_t n = 0;

	memcpy(buf + n, src->in6.s6_addr, sizeof(src->in6.s6_addr));
	n += sizeof(src->in6.s6_addr);
	memcpy(buf + n, dst->in6.s6_addr, sizeof(dst->in6.s6_addr));
	n += sizeof(dst->in6.s6_addr);
	memcpy(buf + n, hit_i, HIP_HIT_LEN);
	n += HIP_HIT_LEN;
	memcpy(buf + n, hit_r, HIP_HIT_LEN);
	n += HIP_HIT_LEN;
	return (size_t)(hip_siphash(&s->key, buf, n) & (I1_STORM_SLOTS - 1));
}

bool i1_storm_duplicate(struct i1_storm *s, const uint8_t *pkt, size_t len,
			const struct hip_addr *src, const struct hip_addr *dst,
			uint64_t now_ns)
{
	uint8_t buf[2 * sizeof(src->in6.s6_addr) + HIP_MAX_PACKET];
	size_t n = 0, slot;
	uint64_t tag;

	if (!s || !pkt || !src || !dst || len > HIP_MAX_PACKET || len < HIP_HDR_LEN ||
	    now_ns == 0)
		return false;
	if (!s->keyed) {
		/* Without a key no filtering (the rate limit still holds). */
		if (hip_siphash_key_random(&s->key) < 0)
			return false;
		s->keyed = true;
	}
	memcpy(buf + n, src->in6.s6_addr, sizeof(src->in6.s6_addr));
	n += sizeof(src->in6.s6_addr);
	memcpy(buf + n, dst->in6.s6_addr, sizeof(dst->in6.s6_addr));
	n += sizeof(dst->in6.s6_addr);
	memcpy(buf + n, pkt, len);
	n += len;
	tag = hip_siphash(&s->key, buf, n);
	/* The header's sender and receiver HITs (RFC 7401 §5.1, octets 8..39). */
	slot = pair_slot(s, src, dst, pkt + 8, pkt + 8 + HIP_HIT_LEN);
	if (s->t_ns[slot] && s->tag[slot] == tag && now_ns >= s->t_ns[slot] &&
	    now_ns - s->t_ns[slot] < I1_STORM_DELTA_NS)
		return true;
	s->tag[slot] = tag;
	s->t_ns[slot] = now_ns;
	return false;
}

void i1_storm_release(struct i1_storm *s, const struct hip_addr *src,
		      const struct hip_addr *dst, const struct hip_hit *hit_i,
		      const struct hip_hit *hit_r)
{
	if (!s || !s->keyed || !src || !dst || !hit_i || !hit_r)
		return;
	s->t_ns[pair_slot(s, src, dst, hit_i->b, hit_r->b)] = 0;
}
