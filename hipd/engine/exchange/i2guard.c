/*
 * i2guard.c - see i2guard.h (RFC 7401 §8; P-10).
 */
#include <string.h>

#include "i2guard.h"
#include "packet.h"

enum { I2_GUARD_I_MAX = 64 };   /* #I is RHASH_len octets, 48 at most */

#define I2_GUARD_HOLD_NS ((uint64_t)I2_GUARD_HOLD_S * 1000000000ULL)

void i2_guard_hold(struct i2_guard *g, uint64_t now_ns)
{
	if (g)
		g->hold_until_ns = now_ns + I2_GUARD_HOLD_NS;
}

bool i2_guard_holding(const struct i2_guard *g, uint64_t now_ns)
{
	return g && now_ns < g->hold_until_ns;
}

/* The keyed hash of the puzzle; false when it cannot be made. */
static bool puzzle_tag(struct i2_guard *g, const struct hip_hit *hit_i,
		       const struct hip_hit *hit_r, const uint8_t *i, size_t i_len,
		       uint64_t *tag)
{
	uint8_t buf[2 * HIP_HIT_LEN + I2_GUARD_I_MAX];

	if (!g || !hit_i || !hit_r || !i || i_len == 0 || i_len > I2_GUARD_I_MAX)
		return false;
	if (!g->keyed) {
		/* Without a key no refusals (the puzzle and K still hold). */
		if (hip_siphash_key_random(&g->key) < 0)
			return false;
		g->keyed = true;
	}
	memcpy(buf, hit_i->b, HIP_HIT_LEN);
	memcpy(buf + HIP_HIT_LEN, hit_r->b, HIP_HIT_LEN);
	memcpy(buf + 2 * HIP_HIT_LEN, i, i_len);
	*tag = hip_siphash(&g->key, buf, 2 * HIP_HIT_LEN + i_len);
	return true;
}

/* A puzzle may sit in one of two slots (two halves of its tag), so that
 * two puzzles sharing one slot do not evict each other for ever. */
static size_t slot_a(uint64_t tag)
{
	return (size_t)(tag & (ENG_I2_GUARD_SLOTS - 1));
}

static size_t slot_b(uint64_t tag)
{
	return (size_t)((tag >> 32) & (ENG_I2_GUARD_SLOTS - 1));
}

bool i2_guard_refused(struct i2_guard *g, const struct hip_hit *hit_i,
		      const struct hip_hit *hit_r, const uint8_t *i, size_t i_len)
{
	uint64_t tag;
	size_t a, b;

	if (!puzzle_tag(g, hit_i, hit_r, i, i_len, &tag))
		return false;
	a = slot_a(tag);
	b = slot_b(tag);
	return (g->bad[a] >= I2_GUARD_BAD_MAX && g->tag[a] == tag) ||
	       (g->bad[b] >= I2_GUARD_BAD_MAX && g->tag[b] == tag);
}

void i2_guard_failed(struct i2_guard *g, const struct hip_hit *hit_i,
		     const struct hip_hit *hit_r, const uint8_t *i, size_t i_len)
{
	uint64_t tag;
	size_t a, b, s;

	if (!puzzle_tag(g, hit_i, hit_r, i, i_len, &tag))
		return;
	a = slot_a(tag);
	b = slot_b(tag);
	if ((g->bad[a] && g->tag[a] == tag) || (g->bad[b] && g->tag[b] == tag)) {
		s = g->bad[a] && g->tag[a] == tag ? a : b;
		if (g->bad[s] < UINT8_MAX)
			g->bad[s]++;
		return;
	}
	/* A new puzzle takes the emptier slot; a refused puzzle is evicted
	 * only when both hold one (then it gets one more try). */
	s = g->bad[b] < g->bad[a] ? b : a;
	g->tag[s] = tag;
	g->bad[s] = 1;
}

/* The keyed hash of an I2's solution: the puzzle's tag with #J in it. */
static bool solution_tag(struct i2_guard *g, const struct hip_hit *hit_i,
			 const struct hip_hit *hit_r, const uint8_t *i, const uint8_t *j,
			 size_t i_len, uint64_t *tag)
{
	uint64_t t;

	if (!j || !puzzle_tag(g, hit_i, hit_r, i, i_len, &t))
		return false;
	*tag = hip_siphash(&g->key, j, i_len) ^ (t * 0x9e3779b97f4a7c15ULL);
	*tag |= 1;   /* never 0, the empty slot */
	return true;
}

void i2_guard_spend(struct i2_guard *g, const struct hip_hit *hit_i, const struct hip_hit *hit_r,
		    const uint8_t *i, const uint8_t *j, size_t i_len)
{
	uint64_t tag;

	if (!solution_tag(g, hit_i, hit_r, i, j, i_len, &tag))
		return;
	g->spent[g->spent_next % ENG_I2_SPENT] = tag;
	g->spent_next = (g->spent_next + 1) % ENG_I2_SPENT;
}

bool i2_guard_spent(struct i2_guard *g, const struct hip_hit *hit_i, const struct hip_hit *hit_r,
		    const uint8_t *i, const uint8_t *j, size_t i_len)
{
	uint64_t tag;
	size_t k;

	if (!solution_tag(g, hit_i, hit_r, i, j, i_len, &tag))
		return false;
	for (k = 0; k < ENG_I2_SPENT; k++)
		if (g->spent[k] == tag)
			return true;
	return false;
}
