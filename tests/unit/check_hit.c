/*
 * check_hit.c - ORCHIDv2 HITs (RFC 7343, RFC 7401 §3.2; docs/protocol.md §5).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "hip_crypto.h"
#include "hit.h"
#include "unit.h"

/* SEC 2 / FIPS 186-4 base points. */
static const char p256_g[] =
	"6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296"
	"4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5";
static const char p384_g[] =
	"AA87CA22BE8B05378EB1C71EF320AD746E1D3B628BA79B9859F741E082542A38"
	"5502F25DBF55296C3A545E3872760AB7"
	"3617DE4A96262C6F5D9E98BF9292DC29F8F41DBD289A147CE9DA3113B5F0B8C0"
	"0A60B1CE1D7E819D7A431D7C90EA0E5F";

static const uint8_t context_id[16] = {
	0xf0, 0xef, 0xf0, 0x2f, 0xbf, 0xf4, 0x3d, 0x0f,
	0xe7, 0x93, 0x0c, 0x3c, 0x6e, 0x61, 0x74, 0xea,
};

/* ECDSA Host Identity field: curve(16) | 0x04 | X | Y (docs/decisions.md A-3). */
static size_t ecdsa_hi(uint16_t curve, const char *g_hex, uint8_t *out, size_t cap)
{
	long n;

	out[0] = (uint8_t)(curve >> 8);
	out[1] = (uint8_t)curve;
	out[2] = 0x04;
	n = unit_hex(g_hex, out + 3, cap - 3);
	ck_assert_int_gt(n, 0);
	return (size_t)n + 3;
}

/* Toy RSA (RFC 3110): e_len 3 | e 010001 | n = 2^1023 + 1 (128 bytes). */
static size_t toy_rsa_hi(uint8_t *out)
{
	out[0] = 3;
	out[1] = 0x01; out[2] = 0x00; out[3] = 0x01;
	memset(out + 4, 0, 128);
	out[4] = 0x80;
	out[4 + 127] = 0x01;
	return 132;
}

static void assert_hit(const struct hip_hit *h, const char *want)
{
	char buf[HIP_HIT_STR_LEN];

	ck_assert_ptr_nonnull(hip_hit_to_str(h, buf, sizeof(buf)));
	ck_assert_str_eq(buf, want);
}

/* docs/protocol.md §5 self-computed vectors (cross-checked with Python hashlib). */
START_TEST(test_vector_p256)
{
	uint8_t hi[128];
	size_t len = ecdsa_hi(1, p256_g, hi, sizeof(hi));
	struct hip_hit h;

	ck_assert_uint_eq(len, 67);
	ck_assert_int_eq(hip_hit_from_hi(HIP_SUITE_ECDSA_SHA384, hi, len, &h), 0);
	assert_hit(&h, "2001:22:f482:7b66:edea:73a8:1796:b6");
	ck_assert_uint_eq(hip_hit_suite(&h), 2);
}
END_TEST

START_TEST(test_vector_p384)
{
	uint8_t hi[128];
	size_t len = ecdsa_hi(2, p384_g, hi, sizeof(hi));
	struct hip_hit h;

	ck_assert_uint_eq(len, 99);
	ck_assert_int_eq(hip_hit_from_hi(HIP_SUITE_ECDSA_SHA384, hi, len, &h), 0);
	assert_hit(&h, "2001:22:fa11:1755:9b40:ee42:9793:f282");
}
END_TEST

START_TEST(test_vector_toy_rsa)
{
	uint8_t hi[132];
	size_t len = toy_rsa_hi(hi);
	struct hip_hit h;

	ck_assert_int_eq(hip_hit_from_hi(HIP_SUITE_RSA_DSA_SHA256, hi, len, &h), 0);
	assert_hit(&h, "2001:21:5a6:9f76:e41:6d95:4eb2:decf");
	ck_assert_uint_eq(hip_hit_suite(&h), 1);
}
END_TEST

/* SHA-1 (suite 3): regression value from Python; Encode_96 is bytes
 * [4..16) of the 20-byte digest. */
START_TEST(test_vector_sha1_suite)
{
	uint8_t hi[128];
	size_t len = ecdsa_hi(1, p256_g, hi, sizeof(hi));
	struct hip_hit h;

	ck_assert_int_eq(hip_hit_from_hi(HIP_SUITE_ECDSA_LOW_SHA1, hi, len, &h), 0);
	assert_hit(&h, "2001:23:fa29:391f:3f8c:77f5:ddac:1ff9");
}
END_TEST

/* Encode_96 takes the middle of the digest: offsets 10, 18, 4. */
START_TEST(test_middle_bits)
{
	static const struct { uint8_t suite; size_t off; } t[] = {
		{ 1, 10 }, { 2, 18 }, { 3, 4 },
	};
	uint8_t hi[128], buf[16 + 128], d[HIP_RHASH_MAX_LEN];
	size_t len = ecdsa_hi(1, p256_g, hi, sizeof(hi));
	struct hip_hit h;

	memcpy(buf, context_id, 16);
	memcpy(buf + 16, hi, len);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		ck_assert_int_eq(hip_digest(t[i].suite, buf, 16 + len, d), 0);
		ck_assert_int_eq(hip_hit_from_hi(t[i].suite, hi, len, &h), 0);
		ck_assert_int_eq(memcmp(h.b + 4, d + t[i].off, 12), 0);
		/* Prefix and OGA are not hashed: no other part of the digest */
		ck_assert_int_ne(memcmp(h.b + 4, d, 12), 0);
	}
}
END_TEST

/* 2001:0020::/28 with the OGA in the last nibble of byte 3; not the v1
 * 2001:0010::/28 and not 2001:2000 (known bugs elsewhere, docs/protocol.md §5). */
START_TEST(test_prefix_bytes)
{
	uint8_t hi[132];
	size_t len = toy_rsa_hi(hi);
	struct hip_hit h;

	for (uint8_t suite = 1; suite <= 3; suite++) {
		ck_assert_int_eq(hip_hit_from_hi(suite, hi, len, &h), 0);
		ck_assert_uint_eq(h.b[0], 0x20);
		ck_assert_uint_eq(h.b[1], 0x01);
		ck_assert_uint_eq(h.b[2], 0x00);
		ck_assert_uint_eq(h.b[3], 0x20 | suite);
		ck_assert(hip_hit_is_orchid(&h));
		ck_assert_uint_eq(hip_hit_suite(&h), suite);
	}
}
END_TEST

START_TEST(test_from_hi_rejects)
{
	uint8_t hi[132];
	size_t len = toy_rsa_hi(hi);
	struct hip_hit h;

	ck_assert_int_eq(hip_hit_from_hi(0, hi, len, &h), -ENOTSUP);
	ck_assert_int_eq(hip_hit_from_hi(4, hi, len, &h), -ENOTSUP);
	ck_assert_int_eq(hip_hit_from_hi(5, hi, len, &h), -ENOTSUP);
	ck_assert_int_eq(hip_hit_from_hi(1, NULL, len, &h), -EINVAL);
	ck_assert_int_eq(hip_hit_from_hi(1, hi, 0, &h), -EINVAL);
}
END_TEST

START_TEST(test_is_orchid)
{
	struct hip_hit h;

	ck_assert_int_eq(inet_pton(AF_INET6, "2001:2f:ffff::1", h.b), 1);
	ck_assert(hip_hit_is_orchid(&h));
	ck_assert_uint_eq(hip_hit_suite(&h), 0xf);
	ck_assert_int_eq(inet_pton(AF_INET6, "2001:30::1", h.b), 1);  /* HHIT */
	ck_assert(!hip_hit_is_orchid(&h));
	ck_assert_int_eq(inet_pton(AF_INET6, "2001:10::1", h.b), 1);  /* ORCHIDv1 */
	ck_assert(!hip_hit_is_orchid(&h));
	ck_assert_int_eq(inet_pton(AF_INET6, "2001:2000::1", h.b), 1);
	ck_assert(!hip_hit_is_orchid(&h));
	ck_assert_int_eq(inet_pton(AF_INET6, "2000:20::1", h.b), 1);
	ck_assert(!hip_hit_is_orchid(&h));
	memset(&h, 0, sizeof(h));
	ck_assert(hip_hit_is_null(&h));
	ck_assert(!hip_hit_is_orchid(&h));
	h.b[15] = 1;
	ck_assert(!hip_hit_is_null(&h));
}
END_TEST

START_TEST(test_text_round_trip)
{
	static const char *const in[][2] = {
		/* input, canonical RFC 5952 form */
		{ "2001:0022:F482:7B66:EDEA:73A8:1796:00B6",
		  "2001:22:f482:7b66:edea:73a8:1796:b6" },
		{ "2001:21:0:0:0:0:0:1", "2001:21::1" },
		{ "2001:21:0:0:1:0:0:1", "2001:21::1:0:0:1" },
		{ "2001:2f:0:0:ffff:0:0:0", "2001:2f:0:0:ffff::" },
	};
	struct hip_hit h, h2;
	char buf[HIP_HIT_STR_LEN];

	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		ck_assert_int_eq(hip_hit_from_str(in[i][0], &h), 0);
		ck_assert_str_eq(hip_hit_to_str(&h, buf, sizeof(buf)), in[i][1]);
		ck_assert_int_eq(hip_hit_from_str(buf, &h2), 0);
		ck_assert_int_eq(hip_hit_cmp(&h, &h2), 0);
	}
	ck_assert_ptr_null(hip_hit_to_str(&h, buf, 4));
}
END_TEST

START_TEST(test_from_str_rejects)
{
	struct hip_hit h;

	memset(&h, 0xaa, sizeof(h));
	ck_assert_int_eq(hip_hit_from_str("foo", &h), -EINVAL);
	ck_assert_int_eq(hip_hit_from_str("", &h), -EINVAL);
	ck_assert_int_eq(hip_hit_from_str("192.0.2.1", &h), -EINVAL);
	ck_assert_int_eq(hip_hit_from_str("2001:21::1/28", &h), -EINVAL);
	ck_assert_int_eq(hip_hit_from_str("::1", &h), -EDOM);
	ck_assert_int_eq(hip_hit_from_str("2001:10::1", &h), -EDOM);
	ck_assert_int_eq(hip_hit_from_str("2001:2000::1", &h), -EDOM);
	ck_assert_int_eq(hip_hit_from_str("2001:30::1", &h), -EDOM);
	ck_assert_int_eq(hip_hit_from_str("::", &h), -EDOM);
	/* out is untouched on failure */
	ck_assert_uint_eq(h.b[0], 0xaa);
}
END_TEST

/* Unsigned 128-bit big-endian comparison (used by sort() in KEYMAT and by
 * the crossing rules). */
START_TEST(test_cmp)
{
	struct hip_hit a, b;

	memset(&a, 0x55, sizeof(a));
	b = a;
	ck_assert_int_eq(hip_hit_cmp(&a, &b), 0);
	b.b[15] = 0x56;
	ck_assert_int_lt(hip_hit_cmp(&a, &b), 0);
	ck_assert_int_gt(hip_hit_cmp(&b, &a), 0);
	/* Unsigned: 0xff... is greater than 0x01..., whatever follows. */
	memset(&a, 0x00, sizeof(a));
	memset(&b, 0xff, sizeof(b));
	a.b[0] = 0xff;
	b.b[0] = 0x01;
	ck_assert_int_gt(hip_hit_cmp(&a, &b), 0);
	ck_assert_int_lt(hip_hit_cmp(&b, &a), 0);
	/* Most significant byte first, not last. */
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.b[0] = 2;
	b.b[15] = 0xff;
	ck_assert_int_gt(hip_hit_cmp(&a, &b), 0);
	/* The two docs/protocol.md §5 vectors: 2001:21:... < 2001:22:... */
	ck_assert_int_eq(hip_hit_from_str("2001:21:5a6:9f76:e41:6d95:4eb2:decf", &a), 0);
	ck_assert_int_eq(hip_hit_from_str("2001:22:f482:7b66:edea:73a8:1796:b6", &b), 0);
	ck_assert_int_lt(hip_hit_cmp(&a, &b), 0);
}
END_TEST

static void check_generated(enum hip_hi_kind kind, uint8_t want_suite)
{
	struct hip_hi *hi = NULL;
	struct hip_hit h, h2;
	const uint8_t *wire;
	size_t len;

	ck_assert_int_eq(hip_hi_generate(kind, &hi), 0);
	ck_assert_uint_eq(hip_hi_suite(hi), want_suite);
	wire = hip_hi_wire(hi, &len);
	ck_assert_ptr_nonnull(wire);
	ck_assert_int_eq(hip_hit_from_hi(hip_hi_suite(hi), wire, len, &h), 0);
	ck_assert(hip_hit_is_orchid(&h));
	ck_assert_uint_eq(hip_hit_suite(&h), want_suite);
	/* deterministic */
	ck_assert_int_eq(hip_hit_from_hi(hip_hi_suite(hi), wire, len, &h2), 0);
	ck_assert_int_eq(hip_hit_cmp(&h, &h2), 0);
	hip_hi_free(hi);
}

START_TEST(test_generated_ecdsa_p256)
{
	check_generated(HIP_HI_KIND_ECDSA_P256, HIP_SUITE_ECDSA_SHA384);
}
END_TEST

START_TEST(test_generated_ecdsa_p384)
{
	check_generated(HIP_HI_KIND_ECDSA_P384, HIP_SUITE_ECDSA_SHA384);
}
END_TEST

START_TEST(test_generated_rsa)
{
	check_generated(HIP_HI_KIND_RSA_3072, HIP_SUITE_RSA_DSA_SHA256);
}
END_TEST

static Suite *hit_suite(void)
{
	Suite *s = suite_create("hit");
	TCase *tc = tcase_create("orchid");

	tcase_add_test(tc, test_vector_p256);
	tcase_add_test(tc, test_vector_p384);
	tcase_add_test(tc, test_vector_toy_rsa);
	tcase_add_test(tc, test_vector_sha1_suite);
	tcase_add_test(tc, test_middle_bits);
	tcase_add_test(tc, test_prefix_bytes);
	tcase_add_test(tc, test_from_hi_rejects);
	tcase_add_test(tc, test_is_orchid);
	suite_add_tcase(s, tc);

	tc = tcase_create("text");
	tcase_add_test(tc, test_text_round_trip);
	tcase_add_test(tc, test_from_str_rejects);
	tcase_add_test(tc, test_cmp);
	suite_add_tcase(s, tc);

	tc = tcase_create("generated");
	tcase_set_timeout(tc, 120); /* RSA-3072 key generation */
	tcase_add_test(tc, test_generated_ecdsa_p256);
	tcase_add_test(tc, test_generated_ecdsa_p384);
	tcase_add_test(tc, test_generated_rsa);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(hit_suite)
