/*
 * uesp_csum.h - the Internet checksum (RFC 1071) and the inner IPv4/IPv6
 * header facts the userspace ESP packet path (uesp_io.c) needs to finish,
 * split and coalesce TCP/UDP segments. Inline: they run per segment.
 */
#ifndef HIPD_UESP_CSUM_H
#define HIPD_UESP_CSUM_H

#include <arpa/inet.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { IP4_HDR = 20, IP6_HDR = 40 };

/* Ones' complement sum over native loads (RFC 1071 §2: byte order
 * independent; pieces must start at even offsets of the summed stream),
 * kept as a 64-bit sum of 32-bit halves so sums simply add up. 32 bytes per
 * round in four independent sums: this runs over every byte of every TSO
 * segment (in hipd the one per-byte cost besides AES-GCM). */
static inline uint64_t csum_add(uint64_t sum, const uint8_t *p, size_t len)
{
	uint64_t w[4], s1 = 0, s2 = 0, s3 = 0;
	uint32_t t;

	while (len >= sizeof(w)) {
		memcpy(w, p, sizeof(w));
		sum += (w[0] & 0xffffffffu) + (w[0] >> 32);
		s1 += (w[1] & 0xffffffffu) + (w[1] >> 32);
		s2 += (w[2] & 0xffffffffu) + (w[2] >> 32);
		s3 += (w[3] & 0xffffffffu) + (w[3] >> 32);
		p += sizeof(w);
		len -= sizeof(w);
	}
	sum += s1 + s2 + s3;
	while (len >= 4) {
		memcpy(&t, p, 4);
		sum += t;
		p += 4;
		len -= 4;
	}
	if (len) {
		t = 0;
		memcpy(&t, p, len);
		sum += t;
	}
	return sum;
}

static inline uint16_t csum_fold(uint64_t sum)
{
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* IPv6 pseudo-header (RFC 8200 §8.1) of the packet at ip6. */
static inline uint64_t csum_pseudo6(const uint8_t *ip6, uint32_t ulen, uint8_t proto)
{
	uint64_t sum = csum_add(0, ip6 + 8, 32);

	return sum + htonl(ulen) + htonl(proto);
}

/* IPv4 pseudo-header (RFC 793 §3.1, RFC 768) of the packet at ip4: the
 * same words as above (zero | protocol, length) in another order. */
static inline uint64_t csum_pseudo4(const uint8_t *ip4, uint32_t ulen, uint8_t proto)
{
	uint64_t sum = csum_add(0, ip4 + 12, 8);

	return sum + htonl(ulen) + htonl(proto);
}

/* Inner IP header length and transport protocol of a packet we built or
 * checked: IPv4 without options or IPv6. */
static inline size_t ip_hl(const uint8_t *ip)
{
	return (ip[0] >> 4) == 4 ? IP4_HDR : IP6_HDR;
}

static inline uint8_t ip_proto(const uint8_t *ip)
{
	return (ip[0] >> 4) == 4 ? ip[9] : ip[6];
}

static inline uint64_t csum_pseudo(const uint8_t *ip, uint32_t ulen, uint8_t proto)
{
	return (ip[0] >> 4) == 4 ? csum_pseudo4(ip, ulen, proto) : csum_pseudo6(ip, ulen, proto);
}

#endif
