/*
 * i2guard.h - refuse a puzzle whose I2s keep failing (RFC 7401 §8: the
 * Responder can stop doing the expensive I2 work for a solution that
 * failed before; docs/requirements.md P-10; decision D-15).
 *
 * An I2 with a correct puzzle solution costs the Responder a Diffie-Hellman
 * derivation, the key derivation, a decryption, a key import and a
 * signature check before it can tell a forged I2 from a good one. Without
 * this table one solved puzzle buys an attacker that work again and again:
 * the same I2 resent (its puzzle stays valid until the R1 secret rotates),
 * or, at a low K, new J values for the same #I, which cost nothing.
 *
 * So the table is keyed by the puzzle, not by J: a keyed hash of HIT-I,
 * HIT-R and #I (which names the R1 generation too, so a new generation
 * starts afresh, as P-10 asks). Once I2_GUARD_BAD_MAX I2s of one puzzle
 * failed after the puzzle check, later I2s of it are dropped right after
 * the puzzle check, before any DH work, during an I2 flood: for
 * I2_GUARD_HOLD_S after a second with more failed or refused I2s than
 * i1_rate_threshold (puzzle_k.c; refused ones count, so a flood that is
 * being refused keeps it on). Otherwise every I2 gets its full checks and
 * its NOTIFY (§6.9.1), as before (tests/netns/badinput.sh: 100 bad I2s,
 * then the good one of that puzzle, answered with R2). A legitimate
 * Initiator is not
 * affected: its I2 does not fail, and its retransmissions are answered
 * from R2-SENT without coming here; if one did fail, a new I1 gives it a
 * new puzzle (only one who saw its R1 can make its puzzle fail, and such
 * an attacker can drop its packets as well). Fixed memory, two candidate
 * slots per puzzle (bench/floods.sh: with one, two of 64 replayed puzzles
 * sharing a slot kept the Responder busy): an attacker can evict entries
 * only by solving new puzzles, each at the current K.
 */
#ifndef HIPD_I2GUARD_H
#define HIPD_I2GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine_int.h"   /* struct i2_guard (in struct hipd_engine) */
#include "hit.h"

enum {
	I2_GUARD_BAD_MAX = 2,
	I2_GUARD_HOLD_S  = 10,
};

/* An I2 flood at now_ns: refuse for the next I2_GUARD_HOLD_S. */
void i2_guard_hold(struct i2_guard *g, uint64_t now_ns);
/* Whether puzzles of failed I2s are refused at now_ns. */
bool i2_guard_holding(const struct i2_guard *g, uint64_t now_ns);

/* True when I2s of this puzzle (#I of i_len octets that HIT-R gave HIT-I)
 * failed I2_GUARD_BAD_MAX times already: drop the I2 before DH. */
bool i2_guard_refused(struct i2_guard *g, const struct hip_hit *hit_i,
		      const struct hip_hit *hit_r, const uint8_t *i, size_t i_len);

/* An accepted I2 (#I and #J of i_len octets each): remembered among the
 * last ENG_I2_SPENT, so that a copy of it arriving later, a late duplicate
 * or a replay while the R1's puzzle and DH key are still valid, cannot
 * replace the association it made or a newer one (D-15). */
void i2_guard_spend(struct i2_guard *g, const struct hip_hit *hit_i, const struct hip_hit *hit_r,
		    const uint8_t *i, const uint8_t *j, size_t i_len);
/* True when this I2 (its HITs, #I and #J) was accepted before. */
bool i2_guard_spent(struct i2_guard *g, const struct hip_hit *hit_i, const struct hip_hit *hit_r,
		    const uint8_t *i, const uint8_t *j, size_t i_len);

/* An I2 of this puzzle failed after its puzzle was verified. */
void i2_guard_failed(struct i2_guard *g, const struct hip_hit *hit_i,
		     const struct hip_hit *hit_r, const uint8_t *i, size_t i_len);

#endif
