/*
 * lsi_derive.c - LSIs derived from the HIT, the lsi_range value, the
 * overlap check (lsi_derive.h, docs/decisions.md D-20).
 */
#include "lsi_derive.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hip_crypto.h"

static uint32_t be32(const uint8_t b[4])
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static void put_be32(uint8_t b[4], uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

static uint32_t mask_of(unsigned prefix)
{
	return prefix == 0 ? 0 : 0xffffffffu << (32 - prefix);
}

uint32_t hip_lsi_usable(const struct hip_lsi_range *r)
{
	if (r->prefix < HIP_LSI_PREFIX_MIN || r->prefix > HIP_LSI_PREFIX_MAX)
		return 0;
	return (1u << (32 - r->prefix)) - 2;
}

int hip_lsi_derive_offset(const uint8_t hit[16], const struct hip_lsi_range *r, uint32_t *off)
{
	uint8_t md[32];
	uint32_t n = hip_lsi_usable(r);
	int ret;

	if (n == 0)
		return -EINVAL;
	ret = hip_crypto_init();	/* once per process; hosts load before the engine */
	if (ret < 0)
		return ret;
	ret = hip_digest(HIP_RHASH_SHA256, hit, 16, md);
	if (ret)
		return ret;
	*off = 1 + be32(md) % n;
	return 0;
}

void hip_lsi_at(const struct hip_lsi_range *r, uint32_t off, uint8_t lsi[4])
{
	put_be32(lsi, be32(r->net) + off);
}

uint32_t hip_lsi_offset(const struct hip_lsi_range *r, const uint8_t lsi[4])
{
	uint32_t a = be32(lsi), m = mask_of(r->prefix);

	return (a & m) == be32(r->net) ? a & ~m : 0;
}

uint32_t hip_lsi_probe(const struct hip_lsi_range *r, uint32_t start, uint32_t i)
{
	uint32_t n = hip_lsi_usable(r);

	return n ? 1 + (start - 1 + i % n) % n : 0;
}

int hip_lsi_range_parse(const char *s, struct hip_lsi_range *out, char *err, size_t errlen)
{
	struct hip_lsi_range r;
	const char *slash = strchr(s, '/');
	unsigned long len;
	char buf[32], *end;

	if (!slash || (size_t)(slash - s) >= sizeof(buf) - 4 || slash[1] < '0' || slash[1] > '9') {
		snprintf(err, errlen, "'%s' is not an IPv4 network (expected A.B.C.D/LEN)", s);
		return -EINVAL;
	}
	/* the address alone, as a /32, to tell a bad address from host bits */
	memcpy(buf, s, (size_t)(slash - s));
	memcpy(buf + (slash - s), "/32", 4);
	if (hip_lsi_range_from_str(buf, &r) != 0) {
		buf[slash - s] = '\0';
		snprintf(err, errlen, "'%s' is not an IPv4 address (an IPv4 network "
			 "A.B.C.D/LEN is expected)", buf);
		return -EINVAL;
	}
	errno = 0;
	len = strtoul(slash + 1, &end, 10);
	if (errno || *end || len < HIP_LSI_PREFIX_MIN || len > HIP_LSI_PREFIX_MAX) {
		snprintf(err, errlen, "prefix length '%s' is out of range (%d..%d)", slash + 1,
			 HIP_LSI_PREFIX_MIN, HIP_LSI_PREFIX_MAX);
		return -EINVAL;
	}
	if (r.net[0] == 0 || r.net[0] == 127 || r.net[0] >= 224) {
		snprintf(err, errlen, "%s is not unicast address space", s);
		return -EINVAL;
	}
	if (hip_lsi_range_from_str(s, &r) != 0) {
		snprintf(err, errlen, "%s has host bits set (the network address of a /%lu is "
			 "expected)", s, len);
		return -EINVAL;
	}
	*out = r;
	return 0;
}

bool hip_lsi_prefix_overlap(const uint8_t a[4], unsigned alen, const uint8_t b[4],
			    unsigned blen)
{
	uint32_t m = mask_of(alen < blen ? alen : blen);

	return (be32(a) & m) == (be32(b) & m);
}

int hip_lsi_range_conflict(const struct hip_lsi_range *r, const struct hip_lsi_route *rt,
			   size_t n, const char *own_dev)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!rt[i].is_addr && rt[i].prefix == 0)
			continue;
		if (own_dev && own_dev[0] && strcmp(rt[i].dev, own_dev) == 0)
			continue;
		if (hip_lsi_prefix_overlap(r->net, r->prefix, rt[i].dst, rt[i].prefix))
			return (int)i;
	}
	return -1;
}
