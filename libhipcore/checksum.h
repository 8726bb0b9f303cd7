/*
 * checksum.h - HIP checksum over IPv4 / IPv6 pseudo-headers (RFC 7401 §5.1.1).
 */
#ifndef HIP_CHECKSUM_H
#define HIP_CHECKSUM_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A locator: IPv6, or IPv4 stored as an IPv4-mapped IPv6 address. */
struct hip_addr {
	struct in6_addr in6;
};

bool hip_addr_is_v4(const struct hip_addr *a);
void hip_addr_from_v4(struct hip_addr *a, const struct in_addr *v4);
void hip_addr_from_v6(struct hip_addr *a, const struct in6_addr *v6);
/* IPv4 address of an IPv4-mapped locator (undefined if !is_v4). */
struct in_addr hip_addr_v4(const struct hip_addr *a);
/* Text: dotted quad for IPv4-mapped, RFC 5952 otherwise. */
const char *hip_addr_to_str(const struct hip_addr *a, char *buf, size_t len);
int hip_addr_from_str(const char *s, struct hip_addr *out);

/* Plain Internet checksum helper (RFC 1071), folded, not complemented. */
uint32_t hip_csum_add(uint32_t sum, const void *data, size_t len);
uint16_t hip_csum_fold(uint32_t sum);

/* Checksum of a HIP packet of len bytes between src and dst (both IPv4-mapped
 * = IPv4 pseudo-header, else IPv6). The checksum field itself is treated as
 * zero. Returns the value to store (network order is the caller's job:
 * hip_packet_set_checksum does it). */
uint16_t hip_checksum(const uint8_t *pkt, size_t len,
		      const struct hip_addr *src, const struct hip_addr *dst);
/* Write the checksum into the header. Call last, after every other byte. */
void hip_packet_set_checksum(uint8_t *pkt, size_t len,
			     const struct hip_addr *src, const struct hip_addr *dst);
/* 0 if the stored checksum is right, -EBADMSG if not. */
int hip_packet_verify_checksum(const uint8_t *pkt, size_t len,
			       const struct hip_addr *src, const struct hip_addr *dst);

/* Why an address cannot be a locator, or NULL if it can. hipd's hosts
 * map and hipconf refuse the same addresses. */
static inline const char *hip_addr_locator_problem(const struct hip_addr *a)
{
	static const uint8_t v4_any[4], v6_any[16];
	const uint8_t *b = a->in6.s6_addr;

	if (hip_addr_is_v4(a)) {
		if (memcmp(b + 12, v4_any, 4) == 0)
			return "the unspecified address";
		if (b[12] >= 224 && b[12] <= 239)
			return "a multicast address";
		if (b[12] == 255 && b[13] == 255 && b[14] == 255 && b[15] == 255)
			return "the broadcast address";
		return NULL;
	}
	if (memcmp(b, v6_any, 16) == 0)
		return "the unspecified address";
	if (b[0] == 0xff)
		return "a multicast address";
	/* 2001:20::/28: a HIT is an identifier, never a locator */
	if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x00 && (b[3] & 0xf0) == 0x20)
		return "a HIT (2001:20::/28), not a locator";
	return NULL;
}

#endif
