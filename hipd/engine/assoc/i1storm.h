/*
 * i1storm.h - discard I1 storms (RFC 7401 §5.3.1: "discarding those with
 * common content that arrive within a small time delta"; §6.7; P-11).
 *
 * A small direct-mapped table of (keyed hash of source, destination and
 * the I1's bytes, time answered). The slot is chosen by a keyed hash of
 * source, destination and the two HITs only, so the Responder can free it
 * when that Initiator's I2 is accepted: an Initiator that closes and
 * starts again at once sends the very same I1, which is no storm. An I1
 * whose hash is in its slot and was answered less than I1_STORM_DELTA_MS
 * ago is a duplicate: dropped before any R1 work. Fixed memory (no allocation), one SipHash per I1; the hash
 * key is random per daemon, so an attacker cannot aim collisions at a
 * victim's slot. A collision (two I1s in one slot) only evicts: the
 * worst case is that a duplicate is answered, which the per-source R1 rate
 * limit still bounds.
 *
 * Why 100 ms: a legitimate Initiator retransmits its I1 after 1 s or more
 * (decision D-1), and its R1 is on its way already, so an identical I1
 * within 100 ms is a network duplicate or a storm. The delta counts from
 * the I1 that was answered (a dropped duplicate does not extend it), so a
 * steady storm gets at most one R1 per source and I1 every 100 ms.
 */
#ifndef HIPD_I1STORM_H
#define HIPD_I1STORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "checksum.h"
#include "hit.h"
#include "base/base.h"

enum {
	I1_STORM_SLOTS    = 256,   /* power of two */
	I1_STORM_DELTA_MS = 100,
};

struct i1_storm {
	struct hip_siphash_key key;
	bool keyed;                /* key made (lazily: zeroed struct is valid) */
	uint64_t tag[I1_STORM_SLOTS];
	uint64_t t_ns[I1_STORM_SLOTS]; /* 0 = empty */
};

/* True when this I1 (pkt, len as received) from src to dst repeats one
 * answered less than I1_STORM_DELTA_MS before now_ns (monotonic): drop it.
 * Otherwise it is recorded as answered now and false is returned. */
bool i1_storm_duplicate(struct i1_storm *s, const uint8_t *pkt, size_t len,
			const struct hip_addr *src, const struct hip_addr *dst,
			uint64_t now_ns);

/* Forget the I1 of this pair (src, dst as the I1 had them; hit_i its
 * sender, hit_r its receiver), e.g. once its I2 is accepted. */
void i1_storm_release(struct i1_storm *s, const struct hip_addr *src,
		      const struct hip_addr *dst, const struct hip_hit *hit_i,
		      const struct hip_hit *hit_r);

/* Forget every I1 seen (as if more than the delta had passed). */
void i1_storm_forget(struct i1_storm *s);

#endif
