/*
 * r1cache.h - precomputed, signed R1s (OpenHIP's idea, RFC 7401 §6.7.1) and
 * the puzzle secret.
 *
 * Per local identity and DH group, `size` R1 entries (>= 8). Each entry has
 * its own DH key pair and a fully built R1 whose HIP_SIGNATURE_2 stays valid
 * when the Receiver HIT, PUZZLE Opaque and #I are patched per I1 (they are
 * not covered), so answering an I1 costs a copy, a hash and a checksum: no
 * signature, no DH, no allocation. One entry is replaced every
 * rotate_seconds; the R1_COUNTER (persisted per HI in state_dir) increases
 * when entries are invalidated.
 *
 * #I = Ltrunc(RHASH(secret | HIT-I | HIT-R | entry index | counter)), so the
 * responder can recompute #I at I2 time from the echoed R1_COUNTER / Opaque
 * (Opaque carries the entry index) without keeping per-I1 state. The last
 * two secrets are kept (RFC 7401 App. A); a solution is accepted for at
 * least the puzzle lifetime after its secret was replaced.
 */
#ifndef HIPD_R1CACHE_H
#define HIPD_R1CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "hip_crypto.h"
#include "hit.h"
#include "params.h"

struct hidb_entry;

struct r1_offer {                 /* what an R1 offered; used at I2 time */
	uint8_t  dh_group;
	const struct hip_dh *dh;      /* the entry's DH key (owned by cache) */
	uint8_t  i[HIP_RHASH_MAX];    /* #I recomputed for this initiator */
	size_t   i_len;
	uint8_t  k;
	struct hip_r1_counter counter;
};

struct r1cache_conf {
	const uint8_t *dh_groups; size_t n_dh_groups;   /* preference order */
	const uint16_t *hip_ciphers; size_t n_hip_ciphers;
	const uint16_t *esp_suites; size_t n_esp_suites;
	unsigned size;                /* entries per group, >= 8 */
	unsigned rotate_seconds;
	const char *counter_path;     /* persisted R1 generation counter */
	uint8_t lifetime;             /* PUZZLE Lifetime (37 = 32 s) */
	const struct hip_reg_info *reg_info; /* REG_INFO to offer, NULL = none */
	unsigned nat_ta_ms;           /* TRANSACTION_PACING with the modes (RFC 9028 §4.4) */
	bool nat_udp;                 /* NAT_TRAVERSAL_MODE [UDP-ENCAPSULATION]
				       * (RFC 9028 §4.3; §4.7.3: also over IP) */
};

struct r1cache;

int r1cache_create(struct r1cache **out, struct hidb_entry *owner,
		   const struct r1cache_conf *conf);
void r1cache_free(struct r1cache *c);
/* Build the R1 answering an I1: copies the precomputed packet for the
 * chosen group into out, patches Receiver HIT, Opaque, #I and K, checksum
 * for src/dst. group = first of our groups present in the I1's list, or our
 * first. Returns the length or -errno. */
int r1cache_answer(struct r1cache *c, const struct hip_hit *initiator,
		   const struct hip_u8_list *i1_groups, unsigned k,
		   const struct hip_addr *src, const struct hip_addr *dst,
		   uint8_t *out, size_t cap);
/* I2 time: recover what the R1 with this Opaque/counter offered to this
 * initiator; -ESTALE if the secret/entry is no longer known. opaque is the
 * SOLUTION's field as struct hip_solution keeps it (wire byte order);
 * counter is the I2's R1_COUNTER, or NULL when the I2 has none. offer->dh
 * stays valid until the next r1cache_rotate()/r1cache_tick(). */
int r1cache_lookup(struct r1cache *c, const struct hip_hit *initiator,
		   uint16_t opaque, const struct hip_r1_counter *counter,
		   uint8_t dh_group, struct r1_offer *offer);
/* Timer, every rotate_seconds (monotonic now_ns): new puzzle secret (the
 * previous one stays valid until the next call), counter + 1, the oldest
 * entry of each group gets a new DH key. A config change (groups, suites)
 * recreates the cache instead (r1cache_free + r1cache_create; the counter
 * keeps increasing). */
int r1cache_rotate(struct r1cache *c, uint64_t now_ns);
/* D-04: the DH key behind this offer was used by a completed I2; it is
 * replaced by the next r1cache_tick() or r1cache_rotate(). */
void r1cache_mark_used(struct r1cache *c, const struct r1_offer *offer);
/* Call about once a second (monotonic now_ns): frees replaced DH keys no
 * I2 is due for any more (twice the puzzle lifetime after their
 * replacement), and replaces the DH keys marked used, at most once per
 * second (counter + 1). Returns how many keys were replaced or -errno;
 * cheap when nothing is marked or due. */
int r1cache_tick(struct r1cache *c, uint64_t now_ns);
uint64_t r1cache_counter(const struct r1cache *c);
/* DH keys held: current ones and replaced ones still answerable. */
size_t r1cache_dh_keys(const struct r1cache *c);

#endif
