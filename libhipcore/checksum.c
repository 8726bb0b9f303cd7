/*
 * checksum.c - HIP checksum (RFC 7401 §5.1.1) and locator helpers.
 *
 * The checksum is the Internet checksum (RFC 1071) over a pseudo-header and
 * the HIP packet with its Checksum field taken as zero. IPv6 uses the
 * RFC 8200 §8.1 pseudo-header, IPv4 the RFC 768 (UDP) style one, both with
 * next header / protocol 139.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "checksum.h"
#include "hip_wire.h"

enum { HIP_CSUM_OFF = 4 }; /* offset of the Checksum field in the header */

bool hip_addr_is_v4(const struct hip_addr *a)
{
	return IN6_IS_ADDR_V4MAPPED(&a->in6);
}

void hip_addr_from_v4(struct hip_addr *a, const struct in_addr *v4)
{
	/* ::ffff:a.b.c.d (RFC 4291 §2.5.5.2) */
	memset(&a->in6, 0, sizeof(a->in6));
	a->in6.s6_addr[10] = 0xff;
	a->in6.s6_addr[11] = 0xff;
	memcpy(&a->in6.s6_addr[12], &v4->s_addr, 4);
}

void hip_addr_from_v6(struct hip_addr *a, const struct in6_addr *v6)
{
	a->in6 = *v6;
}

struct in_addr hip_addr_v4(const struct hip_addr *a)
{
	struct in_addr v4;

	memcpy(&v4.s_addr, &a->in6.s6_addr[12], 4);
	return v4;
}

const char *hip_addr_to_str(const struct hip_addr *a, char *buf, size_t len)
{
	const char *r;

	if (!buf || len == 0)
		return NULL;
	if (hip_addr_is_v4(a)) {
		struct in_addr v4 = hip_addr_v4(a);

		r = inet_ntop(AF_INET, &v4, buf, (socklen_t)len);
	} else {
		r = inet_ntop(AF_INET6, &a->in6, buf, (socklen_t)len);
	}
	if (!r)
		buf[0] = '\0';
	return r;
}

int hip_addr_from_str(const char *s, struct hip_addr *out)
{
	struct in_addr v4;
	struct in6_addr v6;

	if (!s || !out)
		return -EINVAL;
	if (inet_pton(AF_INET, s, &v4) == 1) {
		hip_addr_from_v4(out, &v4);
		return 0;
	}
	if (inet_pton(AF_INET6, s, &v6) == 1) {
		hip_addr_from_v6(out, &v6);
		return 0;
	}
	return -EINVAL;
}

/* Adds big-endian 16-bit words; an odd trailing byte is padded with a zero
 * byte (RFC 1071 §4.1). Only the last chunk of a chained sum may be odd. The
 * 32-bit result keeps the end-around carry, so chaining never loses bits. */
uint32_t hip_csum_add(uint32_t sum, const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t acc = sum;

	while (len >= 2) {
		acc += hip_rd16(p);
		p += 2;
		len -= 2;
	}
	if (len)
		acc += (uint32_t)p[0] << 8;
	while (acc >> 32)
		acc = (acc & 0xffffffffu) + (acc >> 32);
	return (uint32_t)acc;
}

uint16_t hip_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static uint32_t hip_pseudo_header_sum(const struct hip_addr *src, const struct hip_addr *dst,
				      size_t len)
{
	uint8_t ph[40];
	size_t n;

	if (hip_addr_is_v4(src) && hip_addr_is_v4(dst)) {
		/* src(4) | dst(4) | zero(8) | protocol(8) | length(16) */
		memcpy(ph, &src->in6.s6_addr[12], 4);
		memcpy(ph + 4, &dst->in6.s6_addr[12], 4);
		ph[8] = 0;
		ph[9] = HIP_PROTO;
		hip_wr16(ph + 10, (uint16_t)len);
		n = 12;
	} else {
		/* src(16) | dst(16) | length(32) | zero(24) | next header(8) */
		memcpy(ph, src->in6.s6_addr, 16);
		memcpy(ph + 16, dst->in6.s6_addr, 16);
		hip_wr32(ph + 32, (uint32_t)len);
		ph[36] = ph[37] = ph[38] = 0;
		ph[39] = HIP_PROTO;
		n = 40;
	}
	return hip_csum_add(0, ph, n);
}

uint16_t hip_checksum(const uint8_t *pkt, size_t len,
		      const struct hip_addr *src, const struct hip_addr *dst)
{
	uint32_t sum = hip_pseudo_header_sum(src, dst, len);

	/* Skip the Checksum field: it counts as zero. Both chunks before the
	 * last are even-length, as hip_csum_add requires. */
	if (len <= HIP_CSUM_OFF) {
		sum = hip_csum_add(sum, pkt, len);
	} else {
		sum = hip_csum_add(sum, pkt, HIP_CSUM_OFF);
		if (len > HIP_CSUM_OFF + 2)
			sum = hip_csum_add(sum, pkt + HIP_CSUM_OFF + 2,
					   len - HIP_CSUM_OFF - 2);
	}
	return (uint16_t)~hip_csum_fold(sum);
}

void hip_packet_set_checksum(uint8_t *pkt, size_t len,
			     const struct hip_addr *src, const struct hip_addr *dst)
{
	uint16_t c;

	if (len < HIP_HDR_LEN)
		return;
	c = hip_checksum(pkt, len, src, dst);
	hip_wr16(pkt + HIP_CSUM_OFF, c);
}

int hip_packet_verify_checksum(const uint8_t *pkt, size_t len,
			       const struct hip_addr *src, const struct hip_addr *dst)
{
	uint16_t stored;

	if (len < HIP_HDR_LEN)
		return -EBADMSG;
	stored = hip_rd16(pkt + HIP_CSUM_OFF);
	return stored == hip_checksum(pkt, len, src, dst) ? 0 : -EBADMSG;
}
