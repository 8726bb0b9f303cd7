/*
 * check_params_misc.c - mobility, update, notification, echo, certificate,
 * registration, rendezvous and relay parameters (params_misc.c).
 *
 * Same scheme as check_params.c: bounds over every truncation, round trips
 * with value checks, then the rejections of RFC 8046 §4 (LOCATOR_SET) and
 * RFC 8003/8004 (registration lifetimes, RVS and relay lists).
 */
#include "param_rt.h"

static const struct hip_ack s_ack = { 3, { 0, 1, 0xfffffffe } };
static const uint8_t s_blob[24] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
};
static const struct hip_reg_info s_reg_info = { 96, 200, 2, { 1, 2 } };
static const struct hip_reg s_reg = { 120, 2, { 1, 2 } };

static struct hip_locator_set sample_locators(void)
{
	struct hip_locator_set s;

	memset(&s, 0, sizeof(s));
	s.n = 3;
	s.loc[0] = (struct hip_locator){ .traffic_type = 0, .locator_type = 0, .preferred = true,
					 .lifetime = 0xffffffff, .addr = rt_addr6(1) };
	s.loc[1] = (struct hip_locator){ .traffic_type = 1, .locator_type = 1, .lifetime = 600,
					 .spi = 0x4321, .addr = rt_addr4(192, 0, 2, 7) };
	s.loc[2] = (struct hip_locator){ .traffic_type = 2, .locator_type = 2, .preferred = true,
					 .lifetime = 30, .spi = 0x99, .port = 10500,
					 .transport_protocol = 17, .kind = 1,
					 .priority = 0x7e0000ff, .addr = rt_addr6(2) };
	return s;
}

static void b_locators(struct hip_builder *b)
{
	struct hip_locator_set s = sample_locators();

	hip_locator_set_build(b, &s);
}

static void b_seq(struct hip_builder *b) { hip_seq_build(b, 0x80000001u); }
static void b_ack(struct hip_builder *b) { hip_ack_build(b, &s_ack); }
static void b_notify(struct hip_builder *b) { hip_notification_build(b, 44, s_blob, 5); }
static void b_echo(struct hip_builder *b)
{
	hip_echo_build(b, HIP_PARAM_ECHO_REQUEST_SIGNED, s_blob, 9);
}
static void b_reg_info(struct hip_builder *b) { hip_reg_info_build(b, &s_reg_info); }
static void b_reg(struct hip_builder *b) { hip_reg_build(b, HIP_PARAM_REG_REQUEST, &s_reg); }

static void b_cert(struct hip_builder *b)
{
	struct hip_cert c = { 1, 2, 1, 3, s_blob, 17 };

	hip_cert_build(b, &c);
}

static void b_from(struct hip_builder *b)
{
	struct hip_addr a = rt_addr4(198, 51, 100, 1);

	hip_from_build(b, &a);
}

static void b_via_rvs(struct hip_builder *b)
{
	struct hip_via_rvs v = { .n = 2, .addr = { rt_addr6(7), rt_addr4(203, 0, 113, 9) } };

	hip_via_rvs_build(b, &v);
}

static void b_relay(struct hip_builder *b)
{
	struct hip_relay_addr r = { .port = 50500, .protocol = 17, .addr = rt_addr6(3) };

	hip_relay_addr_build(b, HIP_PARAM_RELAY_TO, &r);
}

RT_DEC(d_locators, hip_locator_set_decode, struct hip_locator_set)
RT_DEC(d_seq, hip_seq_decode, uint32_t)
RT_DEC(d_ack, hip_ack_decode, struct hip_ack)
RT_DEC(d_cert, hip_cert_decode, struct hip_cert)
RT_DEC(d_notify, hip_notification_decode, struct hip_notification)
RT_DEC(d_echo, hip_echo_decode, struct hip_opaque)
RT_DEC(d_reg_info, hip_reg_info_decode, struct hip_reg_info)
RT_DEC(d_reg, hip_reg_decode, struct hip_reg)
RT_DEC(d_from, hip_from_decode, struct hip_addr)
RT_DEC(d_via_rvs, hip_via_rvs_decode, struct hip_via_rvs)
RT_DEC(d_relay, hip_relay_addr_decode, struct hip_relay_addr)

static const struct param_case param_cases[] = {
	{ HIP_PARAM_LOCATOR_SET, b_locators, d_locators, 0 },
	{ HIP_PARAM_SEQ, b_seq, d_seq, 4 },
	{ HIP_PARAM_ACK, b_ack, d_ack, 0 },
	{ HIP_PARAM_CERT, b_cert, d_cert, 0 },
	{ HIP_PARAM_NOTIFICATION, b_notify, d_notify, 0 },
	{ HIP_PARAM_ECHO_REQUEST_SIGNED, b_echo, d_echo, 0 },
	{ HIP_PARAM_REG_INFO, b_reg_info, d_reg_info, 0 },
	{ HIP_PARAM_REG_REQUEST, b_reg, d_reg, 0 },
	{ HIP_PARAM_RELAY_TO, b_relay, d_relay, 20 },
	{ HIP_PARAM_FROM, b_from, d_from, 16 },
	{ HIP_PARAM_VIA_RVS, b_via_rvs, d_via_rvs, 0 },
};
enum { NPARAM_CASES = sizeof(param_cases) / sizeof(param_cases[0]) };

START_TEST(test_every_param_bounds)
{
	rt_check_bounds(&param_cases[_i]);
}
END_TEST

/* ---- round trips with value checks ---- */

START_TEST(test_rt_update)
{
	static const uint16_t echo_types[] = {
		HIP_PARAM_ECHO_REQUEST_SIGNED, HIP_PARAM_ECHO_RESPONSE_SIGNED,
		HIP_PARAM_ECHO_RESPONSE_UNSIGNED, HIP_PARAM_ECHO_REQUEST_UNSIGNED,
	};
	struct rt t;
	struct hip_ack a;
	struct hip_cert cert;
	struct hip_notification n;
	struct hip_opaque o;
	const uint8_t *c;
	size_t len;
	uint32_t v;
	unsigned i;

	b_seq(rt_begin(&t));
	c = rt_param(&t, HIP_PARAM_SEQ, &len);
	ck_assert_mem_eq(c, "\x80\x00\x00\x01", 4);
	ck_assert_int_eq(hip_seq_decode(c, len, &v), 0);
	ck_assert_uint_eq(v, 0x80000001u);

	b_ack(rt_begin(&t));
	c = rt_param(&t, HIP_PARAM_ACK, &len);
	ck_assert_int_eq(hip_ack_decode(c, len, &a), 0);
	ck_assert_uint_eq(a.n, 3);
	ck_assert_mem_eq(a.id, s_ack.id, 3 * sizeof(uint32_t));

	b_cert(rt_begin(&t));
	c = rt_param(&t, HIP_PARAM_CERT, &len);
	ck_assert_int_eq(hip_cert_decode(c, len, &cert), 0);
	ck_assert(cert.group == 1 && cert.count == 2 && cert.id == 1 && cert.type == 3);
	ck_assert_uint_eq(cert.len, 17);
	ck_assert_mem_eq(cert.data, s_blob, 17);

	b_notify(rt_begin(&t));
	c = rt_param(&t, HIP_PARAM_NOTIFICATION, &len);
	ck_assert_mem_eq(c, "\x00\x00\x00\x2c", 4);
	ck_assert_int_eq(hip_notification_decode(c, len, &n), 0);
	ck_assert_uint_eq(n.type, 44);
	ck_assert_uint_eq(n.len, 5);
	ck_assert_mem_eq(n.data, s_blob, 5);

	for (i = 0; i < 4; i++) {
		hip_echo_build(rt_begin(&t), echo_types[i], s_blob, 9);
		c = rt_param(&t, echo_types[i], &len);
		ck_assert_int_eq(hip_echo_decode(c, len, &o), 0);
		ck_assert_uint_eq(o.len, 9);
		ck_assert_mem_eq(o.data, s_blob, 9);
	}
}
END_TEST

START_TEST(test_rt_registration_rvs)
{
	static const uint16_t reg_types[] = { HIP_PARAM_REG_REQUEST, HIP_PARAM_REG_RESPONSE,
					      HIP_PARAM_REG_FAILED };
	static const uint16_t relay_types[] = { HIP_PARAM_REG_FROM, HIP_PARAM_RELAY_FROM,
						HIP_PARAM_RELAY_TO };
	struct hip_relay_addr ra, rwant = { .port = 50500, .protocol = 17, .addr = rt_addr6(3) };
	struct hip_addr a, want = rt_addr4(198, 51, 100, 1);
	struct rt t;
	struct hip_reg_info ri;
	struct hip_reg r;
	struct hip_via_rvs v;
	const uint8_t *c;
	size_t len;
	unsigned i;

	b_reg_info(rt_begin(&t));
	c = rt_param(&t, HIP_PARAM_REG_INFO, &len);
	ck_assert_mem_eq(c, "\x60\xc8\x01\x02", 4);
	ck_assert_int_eq(hip_reg_info_decode(c, len, &ri), 0);
	ck_assert(ri.min_lifetime == 96 && ri.max_lifetime == 200);
	ck_assert_uint_eq(ri.n, 2);
	ck_assert_mem_eq(ri.type, s_reg_info.type, 2);

	for (i = 0; i < 3; i++) {
		hip_reg_build(rt_begin(&t), reg_types[i], &s_reg);
		c = rt_param(&t, reg_types[i], &len);
		ck_assert_int_eq(hip_reg_decode(c, len, &r), 0);
		ck_assert_uint_eq(r.value, 120);
		ck_assert_uint_eq(r.n, 2);
		ck_assert_mem_eq(r.type, s_reg.type, 2);
	}

	b_from(rt_begin(&t));
	c = rt_param(&t, HIP_PARAM_FROM, &len);
	ck_assert_int_eq(hip_from_decode(c, len, &a), 0);
	ck_assert_mem_eq(&a.in6, &want.in6, 16);

	b_via_rvs(rt_begin(&t));
	c = rt_param(&t, HIP_PARAM_VIA_RVS, &len);
	ck_assert_int_eq(hip_via_rvs_decode(c, len, &v), 0);
	ck_assert_uint_eq(v.n, 2);
	want = rt_addr4(203, 0, 113, 9);
	ck_assert_mem_eq(&v.addr[1].in6, &want.in6, 16);

	for (i = 0; i < 3; i++) {
		hip_relay_addr_build(rt_begin(&t), relay_types[i], &rwant);
		c = rt_param(&t, relay_types[i], &len);
		ck_assert_mem_eq(c, "\xc5\x44\x11\x00", 4);  /* 50500 | UDP | 0 */
		ck_assert_int_eq(hip_relay_addr_decode(c, len, &ra), 0);
		ck_assert_uint_eq(ra.port, 50500);
		ck_assert_uint_eq(ra.protocol, 17);
		ck_assert_mem_eq(&ra.addr.in6, &rwant.addr.in6, 16);
	}
}
END_TEST

START_TEST(test_rt_locator_set)
{
	struct hip_locator_set want = sample_locators(), got;
	struct rt t;
	const uint8_t *c;
	size_t len;
	unsigned i;

	b_locators(rt_begin(&t));
	c = rt_param(&t, HIP_PARAM_LOCATOR_SET, &len);
	ck_assert_uint_eq(len, 24 + 28 + 36);
	/* Type 2 by hand (RFC 5770 §5.7 as dissected by Wireshark): header, then
	 * port | protocol | kind | priority | SPI | address. */
	ck_assert_mem_eq(c + 52, "\x02\x02\x07\x01\x00\x00\x00\x1e", 8);
	ck_assert_mem_eq(c + 60, "\x29\x04\x11\x01\x7e\x00\x00\xff\x00\x00\x00\x99", 12);
	ck_assert_mem_eq(c + 72, &want.loc[2].addr.in6, 16);
	ck_assert_mem_eq(c + 24, "\x01\x01\x05\x00\x00\x00\x02\x58\x00\x00\x43\x21", 12);
	ck_assert_int_eq(hip_locator_set_decode(c, len, &got), 0);
	ck_assert_uint_eq(got.n, 3);
	for (i = 0; i < 3; i++) {
		const struct hip_locator *g = &got.loc[i], *w = &want.loc[i];

		ck_assert_uint_eq(g->traffic_type, w->traffic_type);
		ck_assert_uint_eq(g->locator_type, w->locator_type);
		ck_assert_uint_eq(g->preferred, w->preferred);
		ck_assert_uint_eq(g->lifetime, w->lifetime);
		ck_assert_uint_eq(g->spi, w->spi);
		ck_assert_uint_eq(g->port, w->port);
		ck_assert_uint_eq(g->transport_protocol, w->transport_protocol);
		ck_assert_uint_eq(g->kind, w->kind);
		ck_assert_uint_eq(g->priority, w->priority);
		ck_assert_mem_eq(&g->addr.in6, &w->addr.in6, 16);
	}

	/* Zero locators deprecate everything (RFC 8046 §4): allowed. */
	memset(&want, 0, sizeof(want));
	hip_locator_set_build(rt_begin(&t), &want);
	c = rt_param(&t, HIP_PARAM_LOCATOR_SET, &len);
	ck_assert_uint_eq(len, 0);
	got.n = 9;
	ck_assert_int_eq(hip_locator_set_decode(c, len, &got), 0);
	ck_assert_uint_eq(got.n, 0);
}
END_TEST

/* ---- LOCATOR_SET rejections on hand-made contents ---- */

/* Writes one locator: header, type-specific fields (zeros), address. */
static size_t raw_locator(uint8_t *p, uint8_t traffic, uint8_t type, uint8_t words,
			  uint8_t reserved, uint32_t lifetime, const struct hip_addr *a)
{
	size_t body = (size_t)words * 4;

	p[0] = traffic;
	p[1] = type;
	p[2] = words;
	p[3] = reserved;
	p[4] = (uint8_t)(lifetime >> 24);
	p[5] = (uint8_t)(lifetime >> 16);
	p[6] = (uint8_t)(lifetime >> 8);
	p[7] = (uint8_t)lifetime;
	memset(p + 8, 0, body);
	if (body >= 16)
		memcpy(p + 8 + body - 16, &a->in6, 16);
	return 8 + body;
}

static int loc_one(uint8_t traffic, uint8_t type, uint8_t words, uint32_t lifetime,
		   struct hip_addr a)
{
	static struct hip_locator_set out;
	uint8_t buf[64];
	size_t n = raw_locator(buf, traffic, type, words, 1, lifetime, &a);

	return hip_locator_set_decode(buf, n, &out);
}

START_TEST(test_locator_rejections)
{
	static uint8_t big[40 * 24];
	static struct hip_locator_set out;
	struct hip_addr a = rt_addr6(1), mc = rt_addr6(1);
	struct hip_builder *b;
	struct rt t;
	size_t n;
	unsigned i;

	ck_assert_int_eq(loc_one(0, 0, 4, 1, a), 0);
	mc.in6.s6_addr[0] = 0xff;
	ck_assert_int_eq(loc_one(0, 0, 4, 1, mc), -EBADMSG);              /* ff00::/8 */
	ck_assert_int_eq(loc_one(0, 1, 5, 1, rt_addr4(224, 0, 0, 1)), -EBADMSG);
	ck_assert_int_eq(loc_one(0, 0, 4, 1, rt_addr4(239, 255, 255, 250)), -EBADMSG);
	ck_assert_int_eq(loc_one(0, 0, 4, 1, rt_addr4(255, 255, 255, 255)), -EBADMSG);
	ck_assert_int_eq(loc_one(0, 0, 4, 1, rt_addr4(223, 255, 255, 255)), 0);
	memset(&mc, 0, sizeof(mc));
	ck_assert_int_eq(loc_one(0, 0, 4, 1, mc), -EBADMSG);              /* :: */
	ck_assert_int_eq(loc_one(0, 0, 4, 0, a), -EBADMSG);               /* lifetime 0 */
	ck_assert_int_eq(loc_one(3, 0, 4, 1, a), -EBADMSG);               /* traffic 3 */
	ck_assert_int_eq(loc_one(0, 0, 5, 1, a), -EBADMSG);               /* type 0, 5 words */
	ck_assert_int_eq(loc_one(0, 1, 4, 1, a), -EBADMSG);               /* type 1, 4 words */
	ck_assert_int_eq(loc_one(0, 2, 5, 1, a), -EBADMSG);               /* type 2, 5 words */
	ck_assert_int_eq(loc_one(0, 3, 4, 1, a), -ENOTSUP);               /* unknown type */

	/* Locator Length past the end, trailing bytes, a short header. */
	n = raw_locator(big, 0, 0, 4, 0, 1, &a);
	ck_assert_int_eq(hip_locator_set_decode(big, n - 1, &out), -EBADMSG);
	ck_assert_int_eq(hip_locator_set_decode(big, n + 3, &out), -EBADMSG);
	ck_assert_int_eq(hip_locator_set_decode(big, 7, &out), -EBADMSG);
	/* An unknown type does not hide a malformed set. */
	n = raw_locator(big, 0, 3, 2, 0, 1, &a);
	n += raw_locator(big + n, 0, 0, 4, 0, 0, &a);
	ck_assert_int_eq(hip_locator_set_decode(big, n, &out), -EBADMSG);

	/* P is the low bit of the reserved byte; the other 7 bits are ignored. */
	n = raw_locator(big, 0, 0, 4, 0xfe, 1, &a);
	ck_assert_int_eq(hip_locator_set_decode(big, n, &out), 0);
	ck_assert(!out.loc[0].preferred);
	n = raw_locator(big, 0, 0, 4, 0x01, 1, &a);
	ck_assert_int_eq(hip_locator_set_decode(big, n, &out), 0);
	ck_assert(out.loc[0].preferred);

	/* HIP_LOCATORS_MAX accepted, one more rejected. */
	for (n = 0, i = 0; i < HIP_LOCATORS_MAX + 1; i++)
		n += raw_locator(big + n, 0, 0, 4, 0, 60, &a);
	ck_assert_int_eq(hip_locator_set_decode(big, n - 24, &out), 0);
	ck_assert_uint_eq(out.n, HIP_LOCATORS_MAX);
	ck_assert_int_eq(hip_locator_set_decode(big, n, &out), -EBADMSG);

	/* The builder refuses what the decoder rejects. */
	memset(&out, 0, sizeof(out));
	out.n = 1;
	out.loc[0].lifetime = 1;
	out.loc[0].addr = rt_addr4(224, 0, 0, 5);
	b = rt_begin(&t);
	hip_locator_set_build(b, &out);
	ck_assert_int_eq(b->err, -EINVAL);
	out.loc[0].addr = a;
	out.loc[0].lifetime = 0;
	b = rt_begin(&t);
	hip_locator_set_build(b, &out);
	ck_assert_int_eq(b->err, -EINVAL);
}
END_TEST

/* ---- other verdicts on hand-made contents ---- */

static const struct verdict_case verdicts[] = {
	{ "seq 0", d_seq, NULL, 0, -EBADMSG },
	/* ACK: a non-empty multiple of 4, at most HIP_ACK_MAX IDs. */
	{ "ack empty", d_ack, NULL, 0, -EBADMSG },
	{ "ack 6", d_ack, NULL, 6, -EBADMSG },
	{ "ack max", d_ack, NULL, 4 * HIP_ACK_MAX, 0 },
	{ "ack max+1", d_ack, NULL, 4 * (HIP_ACK_MAX + 1), -EBADMSG },
	/* VIA_RVS: a non-empty multiple of 16, at most HIP_VIA_RVS_MAX. */
	{ "via empty", d_via_rvs, NULL, 0, -EBADMSG },
	{ "via 24", d_via_rvs, NULL, 24, -EBADMSG },
	{ "via max", d_via_rvs, NULL, 16 * HIP_VIA_RVS_MAX, 0 },
	{ "via max+1", d_via_rvs, NULL, 16 * (HIP_VIA_RVS_MAX + 1), -EBADMSG },
	{ "cert 4", d_cert, NULL, 4, -EBADMSG },
	{ "cert 5", d_cert, NULL, 5, 0 },
	{ "notification 3", d_notify, NULL, 3, -EBADMSG },
	{ "notification 4", d_notify, NULL, 4, 0 },
	{ "echo 0", d_echo, NULL, 0, -EBADMSG },
	{ "echo 1", d_echo, NULL, 1, 0 },
	/* REG_INFO may list no type (service unavailable); REG_* at least one. */
	{ "reg_info 1", d_reg_info, NULL, 1, -EBADMSG },
	{ "reg_info 2", d_reg_info, NULL, 2, 0 },
	{ "reg 1", d_reg, NULL, 1, -EBADMSG },
	{ "reg 2", d_reg, NULL, 2, 0 },
};
enum { NVERDICTS = sizeof(verdicts) / sizeof(verdicts[0]) };

START_TEST(test_verdicts)
{
	rt_check_verdict(&verdicts[_i]);
}
END_TEST

START_TEST(test_decoded_values)
{
	static const uint8_t z[8];
	struct hip_notification n;
	struct hip_reg_info ri;
	struct hip_builder *b;
	struct rt t;

	ck_assert_int_eq(hip_notification_decode(z, 4, &n), 0);
	ck_assert_uint_eq(n.len, 0);
	ck_assert_int_eq(hip_reg_info_decode(z, 2, &ri), 0);
	ck_assert_uint_eq(ri.n, 0);

	/* Builders refuse empty or misplaced values. */
	b = rt_begin(&t);
	hip_echo_build(b, HIP_PARAM_ECHO_REQUEST_SIGNED, z, 0);
	ck_assert_int_eq(b->err, -EINVAL);
	b = rt_begin(&t);
	hip_echo_build(b, HIP_PARAM_NOTIFICATION, z, 4);
	ck_assert_int_eq(b->err, -EINVAL);
	b = rt_begin(&t);
	hip_reg_build(b, HIP_PARAM_REG_INFO, &s_reg);
	ck_assert_int_eq(b->err, -EINVAL);
	b = rt_begin(&t);
	hip_reg_build(b, HIP_PARAM_REG_REQUEST, &(struct hip_reg){ .value = 1, .n = 0 });
	ck_assert_int_eq(b->err, -EINVAL);
	b = rt_begin(&t);
	hip_ack_build(b, &(struct hip_ack){ .n = 0 });
	ck_assert_int_eq(b->err, -EINVAL);
	b = rt_begin(&t);
	hip_via_rvs_build(b, &(struct hip_via_rvs){ .n = HIP_VIA_RVS_MAX + 1 });
	ck_assert_int_eq(b->err, -EINVAL);
	b = rt_begin(&t);
	hip_relay_addr_build(b, HIP_PARAM_FROM, &(struct hip_relay_addr){ .port = 1 });
	ck_assert_int_eq(b->err, -EINVAL);
}
END_TEST

START_TEST(test_lifetime_encoding)
{
	unsigned v;

	/* RFC 8003 §4.1: 2^((v-64)/8) s, 0 = cancel. */
	ck_assert(hip_reg_lifetime_seconds(0) == 0.0);
	ck_assert(hip_reg_lifetime_seconds(64) == 1.0);
	ck_assert(hip_reg_lifetime_seconds(96) == 16.0);
	ck_assert(hip_reg_lifetime_seconds(72) == 2.0);
	ck_assert(hip_reg_lifetime_seconds(56) == 0.5);
	/* v = 255 is "about 178 days" (2^23.875 s). */
	ck_assert_double_eq_tol(hip_reg_lifetime_seconds(255), 178.0 * 86400, 0.01 * 178 * 86400);
	/* v = 1 is "about 4 ms". */
	ck_assert_double_eq_tol(hip_reg_lifetime_seconds(1), 0.0043, 0.0002);
	ck_assert_double_eq_tol(hip_reg_lifetime_seconds(68), 1.41421356, 1e-6);
	for (v = 2; v < 256; v++)
		ck_assert(hip_reg_lifetime_seconds((uint8_t)v) >
			  hip_reg_lifetime_seconds((uint8_t)(v - 1)));

	ck_assert_uint_eq(hip_reg_lifetime_encode(1.0), 64);
	ck_assert_uint_eq(hip_reg_lifetime_encode(16.0), 96);
	ck_assert_uint_eq(hip_reg_lifetime_encode(10.0), 91);   /* rounds up: 10.37 s */
	ck_assert_uint_eq(hip_reg_lifetime_encode(120.0), 120); /* 128 s */
	ck_assert_uint_eq(hip_reg_lifetime_encode(0.0), 1);     /* never 0 (cancel) */
	ck_assert_uint_eq(hip_reg_lifetime_encode(-5.0), 1);
	ck_assert_uint_eq(hip_reg_lifetime_encode(1e12), 255);
	for (v = 1; v < 256; v++)
		ck_assert_uint_eq(hip_reg_lifetime_encode(hip_reg_lifetime_seconds((uint8_t)v)), v);
}
END_TEST

static Suite *params_misc_suite(void)
{
	Suite *s = suite_create("params_misc");
	TCase *bounds = tcase_create("bounds");
	TCase *rt = tcase_create("roundtrip");
	TCase *rej = tcase_create("reject");

	tcase_add_loop_test(bounds, test_every_param_bounds, 0, NPARAM_CASES);
	suite_add_tcase(s, bounds);
	tcase_add_test(rt, test_rt_update);
	tcase_add_test(rt, test_rt_registration_rvs);
	tcase_add_test(rt, test_rt_locator_set);
	suite_add_tcase(s, rt);
	tcase_add_test(rej, test_locator_rejections);
	tcase_add_loop_test(rej, test_verdicts, 0, NVERDICTS);
	tcase_add_test(rej, test_decoded_values);
	tcase_add_test(rej, test_lifetime_encoding);
	suite_add_tcase(s, rej);
	return s;
}

UNIT_MAIN(params_misc_suite)
