/*
 * lsi.h - the LSIs this host uses (docs/decisions.md D-19, D-20): pinned by
 * the hosts file's lsi=, else derived from the HIT (libhipcore/lsi_derive.h) for
 * peers and our own HITs. An LSI is unique in the table: a derived LSI
 * already taken moves to the next free one (logged at notice; the peer will
 * not agree on it). Lookup by HIT and by LSI are O(1) (open addressing);
 * removal rebuilds the indexes (rare: reloads and forgotten peers).
 *
 * Functions return 0 or -errno.
 */
#ifndef HIPD_LSI_H
#define HIPD_LSI_H

#include <stddef.h>
#include <stdint.h>

#include <netinet/in.h>

#include "hit.h"
#include "lsi_derive.h"

enum lsi_source {
	LSI_FROM_FILE = 1,      /* hosts file lsi= */
	LSI_DERIVED = 2,        /* from the HIT (maybe moved by a collision) */
};

struct lsi_pin {
	struct hip_hit hit;
	struct in_addr lsi;     /* inside the table's range */
};

struct lsi_table;

int lsi_table_create(struct lsi_table **out, const struct hip_lsi_range *range);
void lsi_table_free(struct lsi_table *t);
const struct hip_lsi_range *lsi_table_range(const struct lsi_table *t);
size_t lsi_table_count(const struct lsi_table *t);

/* hit's LSI without assigning one: -ENOENT if it has none. src may be NULL. */
int lsi_table_find(const struct lsi_table *t, const struct hip_hit *hit, struct in_addr *lsi,
		   enum lsi_source *src);
/* hit's LSI, derived and assigned now if it has none (-ENOSPC: the range
 * is full). src may be NULL. */
int lsi_table_get(struct lsi_table *t, const struct hip_hit *hit, struct in_addr *lsi,
		  enum lsi_source *src);
/* The HIT holding lsi, or NULL. */
const struct hip_hit *lsi_table_hit_of(const struct lsi_table *t, struct in_addr lsi);

/* Replace the pinned LSIs (the hosts file's) by pins[0..n) (unique HITs
 * and LSIs, in range). Derived LSIs are kept where they do not clash, in
 * the order they were given; one on a newly pinned LSI moves (logged).
 * All or nothing. */
int lsi_table_set_pins(struct lsi_table *t, const struct lsi_pin *pins, size_t n);

/* Drop hit's derived LSI (an association or mapping is gone). */
void lsi_table_forget(struct lsi_table *t, const struct hip_hit *hit);

#endif
