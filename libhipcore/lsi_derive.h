/*
 * lsi_derive.h - Local Scope Identifiers (RFC 5338 §3.1) derived from the HIT
 * (docs/decisions.md D-20): every host computes the same LSI for a HIT, so
 * both ends of an association agree on the (source, destination) LSI pair
 * that an IPv4-inner BEET SA (RFC 7402 App. B) carries as its selectors,
 * without signalling. Also the checks of an LSI range against the host's
 * routes (hipd.conf lsi_range).
 *
 * The LSI of a HIT in range R (2^(32-LEN) addresses, N of them usable:
 * all but the network and broadcast addresses):
 *
 *   offset = 1 + (first 4 bytes of SHA-256(HIT), big-endian) mod N
 *   LSI    = R.network + offset
 *
 * A collision with an LSI already taken on this host moves the HIT to the
 * next free offset (hipd/net/lsi.c); the peer will not know.
 */
#ifndef HIP_LSI_DERIVE_H
#define HIP_LSI_DERIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hosts_line.h"

enum {
	HIP_LSI_PREFIX_MIN = 8,         /* hipd.conf lsi_range: /8 .. /30 */
	HIP_LSI_PREFIX_MAX = 30,        /* a /30 still has two usable LSIs */
};

/* Usable LSIs of r (network and broadcast excluded): 2^(32-prefix) - 2.
 * 0 for a prefix outside HIP_LSI_PREFIX_MIN..MAX. */
uint32_t hip_lsi_usable(const struct hip_lsi_range *r);

/* The derived offset of hit in r: 1 .. hip_lsi_usable(r). 0 or -errno
 * (the digest). */
int hip_lsi_derive_offset(const uint8_t hit[16], const struct hip_lsi_range *r, uint32_t *off);

/* Offset <-> address. hip_lsi_offset is 0 for an address outside r. */
void hip_lsi_at(const struct hip_lsi_range *r, uint32_t off, uint8_t lsi[4]);
uint32_t hip_lsi_offset(const struct hip_lsi_range *r, const uint8_t lsi[4]);

/* The offset probe i steps after start, wrapping within 1 .. usable. */
uint32_t hip_lsi_probe(const struct hip_lsi_range *r, uint32_t start, uint32_t i);

/* hipd.conf's lsi_range value: "A.B.C.D/LEN", IPv4, LEN 8..30, no host
 * bits. 0, or -EINVAL with the reason in err. */
int hip_lsi_range_parse(const char *s, struct hip_lsi_range *out, char *err, size_t errlen);

/* An IPv4 route or address of the host, as the overlap check sees it. */
struct hip_lsi_route {
	uint8_t dst[4];
	unsigned prefix;                /* 0..32 */
	bool is_addr;                   /* an address of the host, else a route */
	char dev[16];                   /* IFNAMSIZ; "" if unknown */
};

/* True if the two prefixes share an address. */
bool hip_lsi_prefix_overlap(const uint8_t a[4], unsigned alen, const uint8_t b[4],
			    unsigned blen);

/* Index of the first route in rt[0..n) that overlaps r, or -1. Default
 * routes (prefix 0: they cover every range) and routes and addresses on
 * dev own_dev (hipd's own device: the route to the LSIs and our LSIs it
 * puts there itself, D-22) do not count. */
int hip_lsi_range_conflict(const struct hip_lsi_range *r, const struct hip_lsi_route *rt,
			   size_t n, const char *own_dev);

#endif
