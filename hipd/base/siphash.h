/*
 * siphash.h - SipHash-2-4 (Aumasson, Bernstein 2012), a keyed hash for hash
 * tables whose keys an attacker chooses (source addresses, HITs): with a
 * random key per table, collisions cannot be planned (hash flooding).
 */
#ifndef HIPD_SIPHASH_H
#define HIPD_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

struct hip_siphash_key {
	uint64_t k0, k1;
};

/* Key from 16 bytes, little-endian halves (as in the reference code). */
void hip_siphash_key_from_bytes(struct hip_siphash_key *key, const uint8_t b[16]);
/* A fresh random key. 0 or -errno. */
int hip_siphash_key_random(struct hip_siphash_key *key);
uint64_t hip_siphash(const struct hip_siphash_key *key, const void *data, size_t len);

#endif
