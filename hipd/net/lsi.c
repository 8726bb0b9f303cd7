/*
 * lsi.c - the table of LSIs in use (lsi.h): an array of entries in the
 * order they were assigned, indexed by HIT and by offset in the range
 * (open addressing, linear probing, power-of-two sizes, at most half full).
 */
#include "lsi.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

enum { LSI_MIN_ENTRIES = 16 };

struct lsi_entry {
	struct hip_hit hit;
	uint32_t off;           /* 1 .. usable */
	uint8_t src;            /* enum lsi_source */
};

struct lsi_table {
	struct hip_lsi_range range;
	struct lsi_entry *e;
	size_t n, cap;          /* entries */
	uint32_t *by_hit;       /* entry index + 1, 0 = empty */
	uint32_t *by_off;
	size_t icap;            /* index slots, power of two, >= 2 * cap */
};

static size_t hit_slot(const struct hip_hit *hit, size_t mask)
{
	uint64_t a, b;

	/* HITs are hash outputs (RFC 7343): mixing 128 bits suffices */
	memcpy(&a, hit->b, 8);
	memcpy(&b, hit->b + 8, 8);
	a ^= b * 0x9e3779b97f4a7c15ull;
	a ^= a >> 29;
	return (size_t)(a * 0xbf58476d1ce4e5b9ull >> 32) & mask;
}

static size_t off_slot(uint32_t off, size_t mask)
{
	return (size_t)((off * 0x9e3779b1u) ^ (off >> 16)) & mask;
}

/* Slot of hit in by_hit, or of the empty slot where it would go. */
static size_t find_hit(const struct lsi_table *t, const struct hip_hit *hit)
{
	size_t mask = t->icap - 1, i = hit_slot(hit, mask);

	while (t->by_hit[i] && memcmp(t->e[t->by_hit[i] - 1].hit.b, hit->b, sizeof(hit->b)))
		i = (i + 1) & mask;
	return i;
}

static size_t find_off(const struct lsi_table *t, uint32_t off)
{
	size_t mask = t->icap - 1, i = off_slot(off, mask);

	while (t->by_off[i] && t->e[t->by_off[i] - 1].off != off)
		i = (i + 1) & mask;
	return i;
}

/* Fill the (zeroed) indexes from the entries. */
static void fill_indexes(struct lsi_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		t->by_hit[find_hit(t, &t->e[i].hit)] = (uint32_t)i + 1;
		t->by_off[find_off(t, t->e[i].off)] = (uint32_t)i + 1;
	}
}

static int reindex(struct lsi_table *t, size_t icap)
{
	uint32_t *bh = calloc(icap, sizeof(*bh)), *bo = calloc(icap, sizeof(*bo));

	if (!bh || !bo) {
		free(bh);
		free(bo);
		return -ENOMEM;
	}
	free(t->by_hit);
	free(t->by_off);
	t->by_hit = bh;
	t->by_off = bo;
	t->icap = icap;
	fill_indexes(t);
	return 0;
}

static int table_init(struct lsi_table *t, const struct hip_lsi_range *range)
{
	memset(t, 0, sizeof(*t));
	t->range = *range;
	t->e = calloc(LSI_MIN_ENTRIES, sizeof(*t->e));
	if (!t->e)
		return -ENOMEM;
	t->cap = LSI_MIN_ENTRIES;
	return reindex(t, 2 * LSI_MIN_ENTRIES);
}

static void table_clear(struct lsi_table *t)
{
	free(t->e);
	free(t->by_hit);
	free(t->by_off);
	memset(t, 0, sizeof(*t));
}

int lsi_table_create(struct lsi_table **out, const struct hip_lsi_range *range)
{
	struct lsi_table *t = calloc(1, sizeof(*t));

	if (!t || hip_lsi_usable(range) == 0 || table_init(t, range) != 0) {
		free(t);
		return t ? -EINVAL : -ENOMEM;
	}
	*out = t;
	return 0;
}

void lsi_table_free(struct lsi_table *t)
{
	if (!t)
		return;
	table_clear(t);
	free(t);
}

const struct hip_lsi_range *lsi_table_range(const struct lsi_table *t)
{
	return &t->range;
}

size_t lsi_table_count(const struct lsi_table *t)
{
	return t->n;
}

/* Append an entry (HIT and offset both free). */
static int add(struct lsi_table *t, const struct hip_hit *hit, uint32_t off, uint8_t src)
{
	if (t->n == t->cap) {
		struct lsi_entry *ne = realloc(t->e, 2 * t->cap * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		t->e = ne;
		t->cap *= 2;
		if (reindex(t, 2 * t->cap) != 0)
			return -ENOMEM;
	}
	t->e[t->n].hit = *hit;
	t->e[t->n].off = off;
	t->e[t->n].src = src;
	t->n++;
	t->by_hit[find_hit(t, hit)] = (uint32_t)t->n;
	t->by_off[find_off(t, off)] = (uint32_t)t->n;
	return 0;
}

static void to_in_addr(const struct lsi_table *t, uint32_t off, struct in_addr *a)
{
	hip_lsi_at(&t->range, off, (uint8_t *)&a->s_addr);
}

/* Derive hit's LSI into t: its own offset, or the next free one. */
static int derive(struct lsi_table *t, const struct hip_hit *hit)
{
	uint32_t start, off, i, usable = hip_lsi_usable(&t->range);
	const struct lsi_entry *holder = NULL;
	int r;

	r = hip_lsi_derive_offset(hit->b, &t->range, &start);
	if (r)
		return r;
	for (i = 0; i < usable; i++) {
		size_t s;

		off = hip_lsi_probe(&t->range, start, i);
		s = find_off(t, off);
		if (!t->by_off[s])
			break;
		if (i == 0)
			holder = &t->e[t->by_off[s] - 1];
	}
	if (i == usable)
		return -ENOSPC;
	if (holder) {
		char hs[HIP_HIT_STR_LEN], ys[HIP_HIT_STR_LEN];
		char as[INET_ADDRSTRLEN], bs[INET_ADDRSTRLEN];
		struct in_addr a, b;

		to_in_addr(t, start, &a);
		to_in_addr(t, off, &b);
		log_notice("LSI %s for HIT %s collides with HIT %s: using %s (the peer will not "
			   "agree on it; pin both with lsi= in the hosts files)",
			   inet_ntop(AF_INET, &a, as, sizeof(as)),
			   hip_hit_to_str(hit, hs, sizeof(hs)),
			   hip_hit_to_str(&holder->hit, ys, sizeof(ys)),
			   inet_ntop(AF_INET, &b, bs, sizeof(bs)));
	}
	return add(t, hit, off, LSI_DERIVED);
}

int lsi_table_find(const struct lsi_table *t, const struct hip_hit *hit, struct in_addr *lsi,
		   enum lsi_source *src)
{
	uint32_t x = t->by_hit[find_hit(t, hit)];

	if (!x)
		return -ENOENT;
	to_in_addr(t, t->e[x - 1].off, lsi);
	if (src)
		*src = (enum lsi_source)t->e[x - 1].src;
	return 0;
}

int lsi_table_get(struct lsi_table *t, const struct hip_hit *hit, struct in_addr *lsi,
		  enum lsi_source *src)
{
	int r = lsi_table_find(t, hit, lsi, src);

	if (r != -ENOENT)
		return r;
	r = derive(t, hit);
	return r ? r : lsi_table_find(t, hit, lsi, src);
}

const struct hip_hit *lsi_table_hit_of(const struct lsi_table *t, struct in_addr lsi)
{
	uint32_t off = hip_lsi_offset(&t->range, (const uint8_t *)&lsi.s_addr), x;

	if (off == 0 || off > hip_lsi_usable(&t->range))
		return NULL;
	x = t->by_off[find_off(t, off)];
	return x ? &t->e[x - 1].hit : NULL;
}

int lsi_table_set_pins(struct lsi_table *t, const struct lsi_pin *pins, size_t n)
{
	struct lsi_table nt;
	size_t i;
	int r;

	r = table_init(&nt, &t->range);
	for (i = 0; r == 0 && i < n; i++) {
		uint32_t off = hip_lsi_offset(&t->range, (const uint8_t *)&pins[i].lsi.s_addr);

		if (off == 0 || off > hip_lsi_usable(&t->range) ||
		    nt.by_off[find_off(&nt, off)] || nt.by_hit[find_hit(&nt, &pins[i].hit)])
			r = -EINVAL;
		else
			r = add(&nt, &pins[i].hit, off, LSI_FROM_FILE);
	}
	/* derived ones, oldest first, on their offset if still free */
	for (i = 0; r == 0 && i < t->n; i++) {
		const struct lsi_entry *e = &t->e[i];

		if (e->src != LSI_DERIVED || nt.by_hit[find_hit(&nt, &e->hit)])
			continue;
		if (!nt.by_off[find_off(&nt, e->off)])
			r = add(&nt, &e->hit, e->off, LSI_DERIVED);
		else
			r = derive(&nt, &e->hit);
	}
	if (r) {
		table_clear(&nt);
		return r;
	}
	table_clear(t);
	*t = nt;
	return 0;
}

void lsi_table_forget(struct lsi_table *t, const struct hip_hit *hit)
{
	uint32_t x = t->by_hit[find_hit(t, hit)];

	if (!x || t->e[x - 1].src != LSI_DERIVED)
		return;
	/* keep the assignment order (it decides who moves on a collision) */
	memmove(&t->e[x - 1], &t->e[x], (t->n - x) * sizeof(t->e[0]));
	t->n--;
	memset(t->by_hit, 0, t->icap * sizeof(*t->by_hit));
	memset(t->by_off, 0, t->icap * sizeof(*t->by_off));
	fill_indexes(t);
}
