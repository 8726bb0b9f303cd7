/*
 * hit.h - Host Identity Tags: ORCHIDv2 (RFC 7343) derivation, text form,
 * comparison.
 */
#ifndef HIP_HIT_H
#define HIP_HIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "hip_wire.h"

struct hip_hit {
	uint8_t b[HIP_HIT_LEN];
};

enum { HIP_HIT_STR_LEN = 40 }; /* INET6_ADDRSTRLEN-sized buffer, NUL incl. */

/* ORCHID := 2001:20::/28 | OGA(4) | middle 96 bits of
 * RHASH(Context ID | Host Identity field). suite is the OGA ID (1 SHA-256,
 * 2 SHA-384, 3 SHA-1). */
int hip_hit_from_hi(uint8_t suite, const uint8_t *hi, size_t hi_len,
		    struct hip_hit *out);
/* True if the address lies in 2001:20::/28 (ORCHIDv2). */
bool hip_hit_is_orchid(const struct hip_hit *hit);
/* OGA ID (HIT Suite) of a HIT: its 4 bits after the prefix. */
uint8_t hip_hit_suite(const struct hip_hit *hit);
bool hip_hit_is_null(const struct hip_hit *hit);
/* Compare as unsigned 128-bit big-endian integers (<0, 0, >0). */
int hip_hit_cmp(const struct hip_hit *a, const struct hip_hit *b);
/* Canonical IPv6 text (RFC 5952). buf must hold HIP_HIT_STR_LEN bytes. */
const char *hip_hit_to_str(const struct hip_hit *hit, char *buf, size_t len);
/* Parse IPv6 text; -EINVAL if not an address, -EDOM if not an ORCHIDv2. */
int hip_hit_from_str(const char *s, struct hip_hit *out);

#endif
