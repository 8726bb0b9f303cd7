/*
 * locset.c - the host's own locators (locset.h): a small array, at most
 * HIP_LOCSET_MAX entries, each stamped with the order it arrived in so the
 * preferred locator is stable (the oldest present one, RFC 8047 §5.3 leaves
 * the choice to local policy). Hidden addresses are a separate list, so an
 * address hidden before it appears (or after it went away) stays hidden.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "locset.h"

struct locset_slot {
	struct hip_local_locator loc;
	uint64_t order;                 /* arrival stamp: smaller = older */
};

struct hip_locset {
	struct locset_slot slot[HIP_LOCSET_MAX];
	size_t n;
	struct hip_addr hidden[HIP_LOCSET_MAX];
	size_t n_hidden;
	uint64_t next_order;
	uint64_t generation;
};

const char *locset_addr_problem(const struct hip_addr *a)
{
	static const uint8_t zero[16];
	const uint8_t *b = a->in6.s6_addr;

	if (hip_addr_is_v4(a)) {
		if (b[12] == 0)
			return "in 0.0.0.0/8";
		if (b[12] == 127)
			return "a loopback address";
		if (b[12] >= 224 && b[12] <= 239)
			return "a multicast address";
		if (b[12] == 255 && b[13] == 255 && b[14] == 255 && b[15] == 255)
			return "the broadcast address";
		if (b[12] == 169 && b[13] == 254)
			return "a link-local address";
		return NULL;
	}
	if (memcmp(b, zero, 16) == 0)
		return "the unspecified address";
	if (memcmp(b, zero, 15) == 0 && b[15] == 1)
		return "the loopback address";
	if (b[0] == 0xff)
		return "a multicast address";
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
		return "a link-local address";
	/* 2001:20::/28 (ORCHIDv2): a HIT, e.g. hip0's own address */
	if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x00 && (b[3] & 0xf0) == 0x20)
		return "a HIT (2001:20::/28)";
	/* IPv4-compatible ::a.b.c.d and other odd ::/96 forms: never ours */
	if (memcmp(b, zero, 12) == 0)
		return "an IPv4-compatible address";
	return NULL;
}

int locset_create(struct hip_locset **out)
{
	struct hip_locset *ls = calloc(1, sizeof(*ls));

	if (!ls)
		return -ENOMEM;
	ls->next_order = 1;
	ls->generation = 1;
	*out = ls;
	return 0;
}

void locset_free(struct hip_locset *ls)
{
	free(ls);
}

static int slot_index(const struct hip_locset *ls, const struct hip_addr *a)
{
	size_t i;

	for (i = 0; i < ls->n; i++)
		if (memcmp(&ls->slot[i].loc.addr, a, sizeof(*a)) == 0)
			return (int)i;
	return -1;
}

static int hidden_index(const struct hip_locset *ls, const struct hip_addr *a)
{
	size_t i;

	for (i = 0; i < ls->n_hidden; i++)
		if (memcmp(&ls->hidden[i], a, sizeof(*a)) == 0)
			return (int)i;
	return -1;
}

static void remove_slot(struct hip_locset *ls, size_t i)
{
	bool visible = !ls->slot[i].loc.hidden;

	memmove(&ls->slot[i], &ls->slot[i + 1], (ls->n - i - 1) * sizeof(ls->slot[0]));
	ls->n--;
	if (visible)
		ls->generation++;
}

int locset_add(struct hip_locset *ls, const struct hip_addr *a, int ifindex, bool manual)
{
	struct hip_local_locator *l;
	int i;

	if (locset_addr_problem(a) || ifindex < 0)
		return -EINVAL;
	i = slot_index(ls, a);
	if (i >= 0) {
		l = &ls->slot[i].loc;
		if (ifindex)
			l->ifindex = ifindex;   /* the kernel's word on where it lives */
		if (manual && !l->manual) {
			l->manual = true;       /* may become the preferred one */
			if (!l->hidden)
				ls->generation++;
		}
		return -EEXIST;
	}
	if (ls->n == HIP_LOCSET_MAX)
		return -ENOSPC;
	l = &ls->slot[ls->n].loc;
	memset(l, 0, sizeof(*l));
	l->addr = *a;
	l->ifindex = ifindex;
	l->manual = manual;
	l->hidden = hidden_index(ls, a) >= 0;
	ls->slot[ls->n].order = ls->next_order++;
	ls->n++;
	if (!l->hidden)
		ls->generation++;
	return 0;
}

int locset_del(struct hip_locset *ls, const struct hip_addr *a, bool manual)
{
	int i = slot_index(ls, a);

	if (i < 0)
		return -ENOENT;
	if (!manual && ls->slot[i].loc.manual) {
		/* the kernel dropped it but the administrator wants it */
		ls->slot[i].loc.ifindex = 0;
		return 0;
	}
	remove_slot(ls, (size_t)i);
	return 0;
}

int locset_del_ifindex(struct hip_locset *ls, int ifindex)
{
	size_t i = 0;
	int n = 0;

	if (ifindex <= 0)
		return 0;
	while (i < ls->n) {
		struct hip_local_locator *l = &ls->slot[i].loc;

		if (l->ifindex != ifindex) {
			i++;
		} else if (l->manual) {
			l->ifindex = 0;
			i++;
		} else {
			remove_slot(ls, i);
			n++;
		}
	}
	return n;
}

int locset_set_hidden(struct hip_locset *ls, const struct hip_addr *a, bool hidden)
{
	int h = hidden_index(ls, a), i = slot_index(ls, a);

	if (hidden) {
		if (h >= 0)
			return -EEXIST;
		if (ls->n_hidden == HIP_LOCSET_MAX)
			return -ENOSPC;
		ls->hidden[ls->n_hidden++] = *a;
	} else {
		if (h < 0)
			return -ENOENT;
		memmove(&ls->hidden[h], &ls->hidden[h + 1],
			(ls->n_hidden - (size_t)h - 1) * sizeof(ls->hidden[0]));
		ls->n_hidden--;
	}
	if (i >= 0) {
		ls->slot[i].loc.hidden = hidden;
		ls->generation++;
	}
	return 0;
}

bool locset_has(const struct hip_locset *ls, const struct hip_addr *a)
{
	int i = slot_index(ls, a);

	return i >= 0 && !ls->slot[i].loc.hidden;
}

/* Announce order: IPv6 before IPv4; within a family manual before learnt
 * (an administrator's choice wins), then oldest first. */
static int slot_rank_cmp(const struct locset_slot *x, const struct locset_slot *y)
{
	bool x4 = hip_addr_is_v4(&x->loc.addr), y4 = hip_addr_is_v4(&y->loc.addr);

	if (x4 != y4)
		return x4 ? 1 : -1;
	if (x->loc.manual != y->loc.manual)
		return x->loc.manual ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int slot_ptr_cmp(const void *a, const void *b)
{
	return slot_rank_cmp(*(const struct locset_slot *const *)a,
			     *(const struct locset_slot *const *)b);
}

/* Pointers to the visible slots in announce order; returns the count. */
static size_t ranked(const struct hip_locset *ls, const struct locset_slot **out)
{
	size_t i, n = 0;

	for (i = 0; i < ls->n; i++)
		if (!ls->slot[i].loc.hidden)
			out[n++] = &ls->slot[i];
	qsort(out, n, sizeof(out[0]), slot_ptr_cmp);
	return n;
}

size_t locset_list(const struct hip_locset *ls, struct hip_addr *out, size_t max)
{
	const struct locset_slot *r[HIP_LOCSET_MAX];
	size_t i, n = ranked(ls, r);

	for (i = 0; i < n && i < max; i++)
		out[i] = r[i]->loc.addr;
	return i;
}

size_t locset_entries(const struct hip_locset *ls, struct hip_local_locator *out, size_t max)
{
	size_t i;

	for (i = 0; i < ls->n && i < max; i++)
		out[i] = ls->slot[i].loc;
	return i;
}

size_t locset_hidden_list(const struct hip_locset *ls, struct hip_addr *out, size_t max)
{
	size_t i;

	for (i = 0; i < ls->n_hidden && i < max; i++)
		out[i] = ls->hidden[i];
	return i;
}

int locset_preferred(const struct hip_locset *ls, int family, struct hip_addr *out)
{
	const struct locset_slot *r[HIP_LOCSET_MAX];
	size_t i, n = ranked(ls, r);

	if (family != AF_INET && family != AF_INET6)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (hip_addr_is_v4(&r[i]->loc.addr) == (family == AF_INET)) {
			*out = r[i]->loc.addr;
			return 0;
		}
	}
	return -ENOENT;
}

uint64_t locset_generation(const struct hip_locset *ls)
{
	return ls->generation;
}
