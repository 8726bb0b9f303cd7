/*
 * locset.h - the host's own locators (RFC 8046 §4, RFC 8047): every usable
 * address of this host, learnt from rtnetlink (addrwatch.c) plus the ones
 * an administrator adds or hides with hipconf. The UPDATE code announces
 * them in LOCATOR_SET and picks the preferred one per family.
 *
 * Never listed: loopback, HITs (ORCHID 2001:20::/28, i.e. hip0's own
 * address), IPv6 link-local and multicast, IPv4 0.0.0.0/8 and 127/8,
 * tentative or deprecated IPv6 addresses (addrwatch.c filters those).
 * Also refused: IPv4 broadcast and link-local 169.254/16, IPv4-compatible
 * ::/96 (locset_addr_problem says why).
 */
#ifndef HIPD_LOCSET_H
#define HIPD_LOCSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "checksum.h"

enum {
	HIP_LOCSET_MAX = 32,       /* own locators kept (more are ignored, logged) */
};

struct hip_local_locator {
	struct hip_addr addr;
	int             ifindex;   /* 0 for a manual locator */
	bool            manual;    /* added by hipconf (kept when the kernel drops it) */
	bool            hidden;    /* hidden by hipconf: never announced */
};

struct hip_locset;

int  locset_create(struct hip_locset **out);
void locset_free(struct hip_locset *ls);
/* From rtnetlink or hipconf; 0, -EEXIST (already there: flags merged),
 * -EINVAL (an address that is never a locator, see above), -ENOSPC. */
int  locset_add(struct hip_locset *ls, const struct hip_addr *a, int ifindex, bool manual);
/* RTM_DELADDR (manual = false: a manual entry stays) or hipconf del
 * (manual = true: removes it whatever its origin). -ENOENT if absent. */
int  locset_del(struct hip_locset *ls, const struct hip_addr *a, bool manual);
/* Link down: every kernel-learnt address on ifindex goes. Returns how many. */
int  locset_del_ifindex(struct hip_locset *ls, int ifindex);
/* hipconf hide/unhide: an address never to be announced. Kept even while
 * the address is absent. -EEXIST already hidden, -ENOENT not hidden. */
int  locset_set_hidden(struct hip_locset *ls, const struct hip_addr *a, bool hidden);
/* Present and announceable (not hidden): what locset_list would list. */
bool locset_has(const struct hip_locset *ls, const struct hip_addr *a);
/* Announceable locators (not hidden), preferred first within each family,
 * IPv6 before IPv4. Returns the count written (<= max). */
size_t locset_list(const struct hip_locset *ls, struct hip_addr *out, size_t max);
/* Every entry, hidden ones included (hipconf show locators). */
size_t locset_entries(const struct hip_locset *ls, struct hip_local_locator *out, size_t max);
/* The preferred locator of a family (AF_INET / AF_INET6): the oldest
 * still-present one, or a manual one if any. -ENOENT if none. */
int  locset_preferred(const struct hip_locset *ls, int family, struct hip_addr *out);
/* The hidden addresses, present or not (hipconf show locators). */
size_t locset_hidden_list(const struct hip_locset *ls, struct hip_addr *out, size_t max);
/* Why a can never be an own locator (text for messages), NULL if it can. */
const char *locset_addr_problem(const struct hip_addr *a);
/* Changes whenever the announceable set changes (cheap "did it change"). */
uint64_t locset_generation(const struct hip_locset *ls);

#endif
