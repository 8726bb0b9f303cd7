/*
 * ratelimit.h - per-source token buckets (RFC 7401 §6.7: R1s MUST be
 * rate-limited per source address). A fixed-size table keyed by a keyed
 * hash of the address; old entries are recycled, so memory is bounded under
 * a flood of spoofed sources.
 */
#ifndef HIPD_RATELIMIT_H
#define HIPD_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "checksum.h"

struct ratelimit;

/* rate tokens per second, burst tokens at most, table of `slots` entries. */
int ratelimit_create(struct ratelimit **out, unsigned rate, unsigned burst,
		     unsigned slots);
void ratelimit_free(struct ratelimit *rl);
/* True if a packet from src may be answered now (consumes a token). */
bool ratelimit_allow(struct ratelimit *rl, const struct hip_addr *src,
		     uint64_t now_ns);

#endif
