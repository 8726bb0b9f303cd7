/*
 * param_rt.h - shared helpers of check_params.c and check_params_misc.c:
 * a packet around one parameter (build -> finish -> parse -> find), sample
 * addresses, and the bounds test every decoder goes through.
 */
#ifndef HIP_PARAM_RT_H
#define HIP_PARAM_RT_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "packet.h"
#include "params.h"
#include "unit.h"

struct rt {
	uint8_t buf[HIP_MAX_PACKET];
	struct hip_builder b;
	struct hip_packet pkt;
};

static inline struct hip_builder *rt_begin(struct rt *t)
{
	static const struct hip_hit hit = { { 0x20, 0x01, 0x00, 0x20, [15] = 0x01 } };

	hip_build_init(&t->b, t->buf, sizeof(t->buf), HIP_UPDATE, &hit, NULL);
	return &t->b;
}

static inline const uint8_t *rt_param(struct rt *t, uint16_t type, size_t *len)
{
	const struct hip_param_ref *r;
	int n = hip_build_finish(&t->b);

	ck_assert_msg(n > 0, "build of %s failed: %d", hip_param_name(type), n);
	ck_assert_int_eq(hip_packet_parse(t->buf, (size_t)n, &t->pkt), 0);
	r = hip_packet_find(&t->pkt, type);
	ck_assert_ptr_nonnull(r);
	*len = r->len;
	return hip_param_content(&t->pkt, r);
}

static inline void rt_fill(uint8_t *p, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed ^ (i * 13 + 5));
}

static inline struct hip_addr rt_addr6(uint8_t last)
{
	struct hip_addr a;

	memset(&a, 0, sizeof(a));
	a.in6.s6_addr[0] = 0x20;
	a.in6.s6_addr[1] = 0x01;
	a.in6.s6_addr[2] = 0x0d;
	a.in6.s6_addr[3] = 0xb8;
	a.in6.s6_addr[15] = last;
	return a;
}

static inline struct hip_addr rt_addr4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	struct hip_addr r;

	memset(&r, 0, sizeof(r));
	r.in6.s6_addr[10] = r.in6.s6_addr[11] = 0xff;
	r.in6.s6_addr[12] = a;
	r.in6.s6_addr[13] = b;
	r.in6.s6_addr[14] = c;
	r.in6.s6_addr[15] = d;
	return r;
}

/* Uniform decoder adapters: decode into a throw-away output. */
#define RT_DEC(name, fn, T) \
	static int name(const uint8_t *c, size_t len) { T o; return fn(c, len, &o); }
#define RT_DEC_R(name, fn, T, r) \
	static int name(const uint8_t *c, size_t len) { T o; return fn(c, len, r, &o); }

struct param_case {
	uint16_t type;
	void (*build)(struct hip_builder *);    /* appends one valid instance */
	int (*decode)(const uint8_t *, size_t);
	size_t fixed;   /* exact contents length (RFC 7401 §5.2), 0 = variable */
};

/* Decode from a heap block of exactly len bytes: under ASAN, any read past
 * len traps. */
static inline int rt_decode_exact(int (*decode)(const uint8_t *, size_t),
				  const uint8_t *c, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);
	int err;

	ck_assert_ptr_nonnull(p);
	if (len)
		memcpy(p, c, len);
	err = decode(p, len);
	free(p);
	return err;
}

/* The valid instance decodes; every truncation is survived (and rejected if
 * the size is fixed); a fixed-size parameter is rejected at len + 1. */
static inline void rt_check_bounds(const struct param_case *pc)
{
	uint8_t longer[HIP_MAX_PACKET];
	struct rt t;
	const uint8_t *c;
	size_t len, k;

	pc->build(rt_begin(&t));
	c = rt_param(&t, pc->type, &len);
	ck_assert_msg(rt_decode_exact(pc->decode, c, len) == 0, "%s: valid contents rejected",
		      hip_param_name(pc->type));
	if (pc->fixed)
		ck_assert_uint_eq(len, pc->fixed);
	for (k = 0; k < len; k++) {
		int err = rt_decode_exact(pc->decode, c, k);

		if (pc->fixed)
			ck_assert_msg(err == -EBADMSG, "%s accepted %zu bytes",
				      hip_param_name(pc->type), k);
	}
	memcpy(longer, c, len);
	longer[len] = 0;
	if (pc->fixed)
		ck_assert_int_eq(rt_decode_exact(pc->decode, longer, len + 1), -EBADMSG);
}

/* Hand-made contents and the decoder's verdict. bytes gives the first (up to
 * 6) bytes; the rest is 0x11, or all zero when bytes is NULL. */
struct verdict_case {
	const char *what;
	int (*decode)(const uint8_t *, size_t);
	const char *bytes;
	size_t len;
	int want;
};

static inline void rt_check_verdict(const struct verdict_case *vc)
{
	uint8_t *p = calloc(1, vc->len ? vc->len : 1);
	int err;

	ck_assert_ptr_nonnull(p);
	if (vc->bytes) {
		size_t n = vc->len < 6 ? vc->len : 6;

		memcpy(p, vc->bytes, n);
		memset(p + n, 0x11, vc->len - n);
	}
	err = vc->decode(p, vc->len);
	free(p);
	ck_assert_msg(err == vc->want, "%s: got %d want %d", vc->what, err, vc->want);
}

#endif
