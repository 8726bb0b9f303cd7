/*
 * ratelimit.c - per-source token buckets in a fixed table (RFC 7401 §6.7:
 * R1s MUST be rate-limited per source; WireGuard's ratelimiter is the model).
 *
 * Tokens are kept as time credit in nanoseconds: one packet costs
 * 1e9 / rate ns, a bucket holds at most burst packets' worth. The table has
 * `slots` entries and never grows. A source hashes (keyed SipHash, random key,
 * so spoofed sources cannot aim at one slot) to two candidate slots; it
 * takes a free or idle one (an idle bucket has refilled completely, so
 * forgetting it loses nothing). When both candidates are busy with other
 * sources the packet is refused, as WireGuard does when its table is full:
 * a flood of spoofed sources then gets a bounded number of answers instead
 * of a fresh bucket each.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hip_crypto.h"
#include "ratelimit.h"
#include "siphash.h"

enum { NSEC_PER_SEC = 1000000000 };

struct rl_slot {
	struct in6_addr addr;
	uint64_t last_ns;    /* time of the last refill */
	uint64_t credit_ns;  /* tokens as time credit, <= max_credit_ns */
	bool used;
};

struct ratelimit {
	uint64_t cost_ns;        /* one token */
	uint64_t max_credit_ns;  /* burst tokens */
	unsigned nslots;
	struct hip_siphash_key key;
	struct rl_slot *slot;
};

int ratelimit_create(struct ratelimit **out, unsigned rate, unsigned burst,
		     unsigned slots)
{
	struct ratelimit *rl;
	int ret;

	if (!out || rate == 0 || rate > NSEC_PER_SEC || burst == 0 || slots < 2)
		return -EINVAL;
	rl = calloc(1, sizeof(*rl));
	if (!rl)
		return -ENOMEM;
	rl->slot = calloc(slots, sizeof(*rl->slot));
	if (!rl->slot) {
		ret = -ENOMEM;
		goto out;
	}
	ret = hip_siphash_key_random(&rl->key);
	if (ret < 0)
		goto out;
	rl->cost_ns = NSEC_PER_SEC / rate;
	rl->max_credit_ns = rl->cost_ns * burst;
	rl->nslots = slots;
	*out = rl;
	rl = NULL;
out:
	ratelimit_free(rl);
	return ret;
}

void ratelimit_free(struct ratelimit *rl)
{
	if (!rl)
		return;
	free(rl->slot);
	free(rl);
}

/* Credit of a slot at now_ns (time may step back: treat as no time passed). */
static uint64_t slot_credit(const struct ratelimit *rl, const struct rl_slot *s,
			    uint64_t now_ns)
{
	uint64_t elapsed = now_ns > s->last_ns ? now_ns - s->last_ns : 0;

	if (elapsed >= rl->max_credit_ns - s->credit_ns)
		return rl->max_credit_ns;
	return s->credit_ns + elapsed;
}

static bool slot_idle(const struct ratelimit *rl, const struct rl_slot *s, uint64_t now_ns)
{
	return !s->used || slot_credit(rl, s, now_ns) == rl->max_credit_ns;
}

bool ratelimit_allow(struct ratelimit *rl, const struct hip_addr *src, uint64_t now_ns)
{
	uint64_t h = hip_siphash(&rl->key, &src->in6, sizeof(src->in6));
	struct rl_slot *a = &rl->slot[(uint32_t)h % rl->nslots];
	struct rl_slot *b = &rl->slot[(uint32_t)(h >> 32) % rl->nslots];
	struct rl_slot *s;

	if (a->used && !memcmp(&a->addr, &src->in6, sizeof(a->addr)))
		s = a;
	else if (b->used && !memcmp(&b->addr, &src->in6, sizeof(b->addr)))
		s = b;
	else if (slot_idle(rl, a, now_ns))
		s = a;
	else if (slot_idle(rl, b, now_ns))
		s = b;
	else
		return false;

	if (!s->used || memcmp(&s->addr, &src->in6, sizeof(s->addr))) {
		/* A new source starts with a full bucket. */
		s->addr = src->in6;
		s->used = true;
		s->credit_ns = rl->max_credit_ns;
		s->last_ns = now_ns;
	} else {
		s->credit_ns = slot_credit(rl, s, now_ns);
		if (now_ns > s->last_ns)
			s->last_ns = now_ns;
	}
	if (s->credit_ns < rl->cost_ns)
		return false;
	s->credit_ns -= rl->cost_ns;
	return true;
}
