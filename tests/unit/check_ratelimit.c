/*
 * check_ratelimit.c - per-source token buckets (hipd/base/ratelimit.c) and the
 * SipHash-2-4 they hash with (hipd/base/siphash.c).
 */
#include <arpa/inet.h>
#include <string.h>

#include "base/ratelimit.h"
#include "base/siphash.h"
#include "unit.h"

#define SEC 1000000000ULL

/* Reference vectors of the SipHash paper (App. A) / reference code:
 * key 00..0f, message 00..(n-1). */
START_TEST(test_siphash_vectors)
{
	uint8_t kb[16], msg[64];
	struct hip_siphash_key key;
	int i;

	for (i = 0; i < 16; i++)
		kb[i] = (uint8_t)i;
	for (i = 0; i < 64; i++)
		msg[i] = (uint8_t)i;
	hip_siphash_key_from_bytes(&key, kb);
	ck_assert_uint_eq(hip_siphash(&key, msg, 0), 0x726fdb47dd0e0e31ULL);
	ck_assert_uint_eq(hip_siphash(&key, msg, 1), 0x74f839c593dc67fdULL);
	ck_assert_uint_eq(hip_siphash(&key, msg, 7), 0xab0200f58b01d137ULL);
	ck_assert_uint_eq(hip_siphash(&key, msg, 8), 0x93f5f5799a932462ULL);
	ck_assert_uint_eq(hip_siphash(&key, msg, 15), 0xa129ca6149be45e5ULL);
	ck_assert_uint_eq(hip_siphash(&key, msg, 63), 0x958a324ceb064572ULL);
}
END_TEST

static struct hip_addr addr(const char *s)
{
	struct hip_addr a;

	ck_assert_int_eq(hip_addr_from_str(s, &a), 0);
	return a;
}

static struct hip_addr addr_n(uint32_t n)
{
	struct hip_addr a;
	struct in_addr v4 = { .s_addr = htonl(0x0a000000u + n) };

	hip_addr_from_v4(&a, &v4);
	return a;
}

START_TEST(test_burst_refuse_refill)
{
	struct ratelimit *rl;
	struct hip_addr a = addr("192.0.2.1");
	uint64_t t = 1000 * SEC;
	int i;

	/* 10 per second, burst 5 */
	ck_assert_int_eq(ratelimit_create(&rl, 10, 5, 1024), 0);
	for (i = 0; i < 5; i++)
		ck_assert(ratelimit_allow(rl, &a, t));
	ck_assert(!ratelimit_allow(rl, &a, t));
	ck_assert(!ratelimit_allow(rl, &a, t + SEC / 20));   /* half a token */
	ck_assert(ratelimit_allow(rl, &a, t + SEC / 10));    /* one token back */
	ck_assert(!ratelimit_allow(rl, &a, t + SEC / 10));
	/* After a long pause the bucket is full again, not fuller. */
	t += 100 * SEC;
	for (i = 0; i < 5; i++)
		ck_assert(ratelimit_allow(rl, &a, t));
	ck_assert(!ratelimit_allow(rl, &a, t));
	/* A clock stepping back gives no credit. */
	ck_assert(!ratelimit_allow(rl, &a, t - 50 * SEC));
	ratelimit_free(rl);
}
END_TEST

START_TEST(test_sources_independent)
{
	struct ratelimit *rl;
	struct hip_addr a = addr("2001:db8::1"), b = addr("2001:db8::2");
	uint64_t t = SEC;
	int i;

	ck_assert_int_eq(ratelimit_create(&rl, 1, 3, 4096), 0);
	for (i = 0; i < 3; i++)
		ck_assert(ratelimit_allow(rl, &a, t));
	ck_assert(!ratelimit_allow(rl, &a, t));
	for (i = 0; i < 3; i++)
		ck_assert(ratelimit_allow(rl, &b, t));
	ck_assert(!ratelimit_allow(rl, &b, t));
	ck_assert(!ratelimit_allow(rl, &a, t));
	ratelimit_free(rl);
}
END_TEST

/* 100,000 spoofed sources against a 256-slot table: memory is the table;
 * answers are bounded while the table is busy; a source that was refused
 * is served once the buckets have refilled (idle slots are recycled). */
START_TEST(test_flood_bounded)
{
	struct ratelimit *rl;
	struct hip_addr legit = addr("198.51.100.7");
	uint64_t t = SEC;
	unsigned i, allowed = 0;

	ck_assert_int_eq(ratelimit_create(&rl, 1, 2, 256), 0);
	for (i = 0; i < 100000; i++) {
		struct hip_addr s = addr_n(i);

		allowed += ratelimit_allow(rl, &s, t);
	}
	/* each slot holds at most one source with burst 2 */
	ck_assert_uint_le(allowed, 2 * 256);
	ck_assert_uint_ge(allowed, 256);
	/* 2 s later every bucket is full again: a new source gets in. */
	ck_assert(ratelimit_allow(rl, &legit, t + 2 * SEC));
	ratelimit_free(rl);
}
END_TEST

START_TEST(test_bad_args)
{
	struct ratelimit *rl = NULL;

	ck_assert_int_lt(ratelimit_create(&rl, 0, 5, 64), 0);
	ck_assert_int_lt(ratelimit_create(&rl, 5, 0, 64), 0);
	ck_assert_int_lt(ratelimit_create(&rl, 5, 5, 1), 0);
	ck_assert_ptr_null(rl);
}
END_TEST

static Suite *ratelimit_suite(void)
{
	Suite *s = suite_create("ratelimit");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_siphash_vectors);
	tcase_add_test(tc, test_burst_refuse_refill);
	tcase_add_test(tc, test_sources_independent);
	tcase_add_test(tc, test_flood_bounded);
	tcase_add_test(tc, test_bad_args);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(ratelimit_suite)
