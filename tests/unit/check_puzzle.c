/*
 * check_puzzle.c - the HIP puzzle (RFC 7401 §4.1.2, §6.3; docs/protocol.md §3):
 * the low K bits of RHASH(I | HIT-I | HIT-R | J) are zero.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <time.h>

#include "hip_crypto.h"
#include "unit.h"

static const enum hip_rhash all_rhash[] = {
	HIP_RHASH_SHA256, HIP_RHASH_SHA384, HIP_RHASH_SHA1,
};

static void spec_hits(uint8_t hit_i[16], uint8_t hit_r[16])
{
	ck_assert_int_eq(inet_pton(AF_INET6, "2001:22:f482:7b66:edea:73a8:1796:b6", hit_i), 1);
	ck_assert_int_eq(inet_pton(AF_INET6, "2001:21:5a6:9f76:e41:6d95:4eb2:decf", hit_r), 1);
}

/* Number of zero bits at the low-order end of RHASH(I | HIT-I | HIT-R | J),
 * computed with the plain digest, independently of the puzzle code. */
static unsigned low_zero_bits(enum hip_rhash h, const uint8_t *i, const uint8_t *hit_i,
			      const uint8_t *hit_r, const uint8_t *j)
{
	size_t n = hip_rhash_len(h);
	uint8_t in[2 * HIP_RHASH_MAX_LEN + 32], d[HIP_RHASH_MAX_LEN];
	unsigned bits = 0;

	memcpy(in, i, n);
	memcpy(in + n, hit_i, 16);
	memcpy(in + n + 16, hit_r, 16);
	memcpy(in + n + 32, j, n);
	ck_assert_int_eq(hip_digest(h, in, 2 * n + 32, d), 0);
	for (size_t k = n; k-- > 0;) {
		if (d[k] == 0) {
			bits += 8;
			continue;
		}
		for (uint8_t b = d[k]; !(b & 1); b >>= 1)
			bits++;
		break;
	}
	return bits;
}

/* Big-endian a += v. */
static void be_add(uint8_t *a, size_t len, uint64_t v)
{
	unsigned carry = 0;

	for (size_t k = len; k-- > 0;) {
		unsigned s = a[k] + (unsigned)(v & 0xff) + carry;

		a[k] = (uint8_t)s;
		carry = s >> 8;
		v >>= 8;
	}
}

/* Big-endian a -= 1. */
static void be_dec(uint8_t *a, size_t len)
{
	for (size_t k = len; k-- > 0;)
		if (a[k]-- != 0)
			break;
}

/* docs/protocol.md §3: SHA-256, K = 8, I = 0, from J = 0 the answer is 1308. */
START_TEST(test_spec_vector)
{
	uint8_t hit_i[16], hit_r[16], i[32] = { 0 }, j0[32] = { 0 }, j[32], expect[32] = { 0 };
	uint8_t in[96], d[32], head[4], tail[4];
	uint64_t trials = 0;

	spec_hits(hit_i, hit_r);
	expect[30] = 1308 >> 8;
	expect[31] = 1308 & 0xff;
	ck_assert_int_eq(hip_puzzle_solve(HIP_RHASH_SHA256, 8, i, hit_i, hit_r, j0, 0, 0,
					  j, &trials), 0);
	ck_assert_mem_eq(j, expect, 32);
	ck_assert_uint_eq(trials, 1309);   /* J = 0 .. 1308 */
	ck_assert_int_eq(hip_puzzle_verify(HIP_RHASH_SHA256, 8, i, hit_i, hit_r, j), 0);
	expect[31]--;                      /* 1307 */
	ck_assert_int_eq(hip_puzzle_verify(HIP_RHASH_SHA256, 8, i, hit_i, hit_r, expect),
			 -EBADMSG);

	/* The digest quoted in docs/protocol.md §3: 3ddb2f25...1ad34400. */
	memcpy(in, i, 32);
	memcpy(in + 32, hit_i, 16);
	memcpy(in + 48, hit_r, 16);
	memcpy(in + 64, j, 32);
	ck_assert_int_eq(hip_digest(HIP_RHASH_SHA256, in, sizeof(in), d), 0);
	ck_assert_int_eq(unit_hex("3ddb2f25", head, 4), 4);
	ck_assert_int_eq(unit_hex("1ad34400", tail, 4), 4);
	ck_assert_mem_eq(d, head, 4);
	ck_assert_mem_eq(d + 28, tail, 4);
}
END_TEST

/* Wrong I, the HITs in header order instead of Initiator-first, or a wrong
 * K: all deterministic on the docs/protocol.md §3 inputs. */
START_TEST(test_verify_rejects)
{
	uint8_t hit_i[16], hit_r[16], i[32] = { 0 }, j[32] = { 0 };

	spec_hits(hit_i, hit_r);
	j[30] = 1308 >> 8;
	j[31] = 1308 & 0xff;
	ck_assert_int_eq(hip_puzzle_verify(HIP_RHASH_SHA256, 8, i, hit_i, hit_r, j), 0);
	ck_assert_int_eq(hip_puzzle_verify(HIP_RHASH_SHA256, 8, i, hit_r, hit_i, j), -EBADMSG);
	i[0] = 1;
	ck_assert_int_eq(hip_puzzle_verify(HIP_RHASH_SHA256, 8, i, hit_i, hit_r, j), -EBADMSG);
	i[0] = 0;
	/* 0x00 is the last byte; the one before (0x44) has two low zero bits. */
	ck_assert_int_eq(hip_puzzle_verify(HIP_RHASH_SHA256, 10, i, hit_i, hit_r, j), 0);
	ck_assert_int_eq(hip_puzzle_verify(HIP_RHASH_SHA256, 11, i, hit_i, hit_r, j), -EBADMSG);
	/* The same bytes under another RHASH are another puzzle. */
	ck_assert_uint_lt(low_zero_bits(HIP_RHASH_SHA1, i, hit_i, hit_r, j), 8);
	ck_assert_int_eq(hip_puzzle_verify(HIP_RHASH_SHA1, 8, i, hit_i, hit_r, j), -EBADMSG);
}
END_TEST

START_TEST(test_k_range)
{
	uint8_t hit_i[16], hit_r[16], i[48] = { 0 }, j[48] = { 0 }, out[48];
	uint64_t trials = 7;

	spec_hits(hit_i, hit_r);
	ck_assert_int_eq(hip_puzzle_solve(HIP_RHASH_SHA256, 29, i, hit_i, hit_r, j, 0, 0,
					  out, &trials), -EINVAL);
	ck_assert_uint_eq(trials, 0);
	ck_assert_int_eq(hip_puzzle_solve(HIP_RHASH_SHA256, 255, i, hit_i, hit_r, j, 0, 0,
					  out, NULL), -EINVAL);
	ck_assert_int_eq(hip_puzzle_verify(HIP_RHASH_SHA256, 29, i, hit_i, hit_r, j), -EINVAL);
	ck_assert_int_eq(hip_puzzle_verify(HIP_RHASH_SHA384, 64, i, hit_i, hit_r, j), -EINVAL);
	ck_assert_int_ne(hip_puzzle_verify(HIP_RHASH_SHA256, 28, i, hit_i, hit_r, j), -EINVAL);
	ck_assert_int_eq(hip_puzzle_solve((enum hip_rhash)0, 1, i, hit_i, hit_r, j, 0, 0,
					  out, NULL), -ENOTSUP);
	ck_assert_int_eq(hip_puzzle_verify((enum hip_rhash)7, 1, i, hit_i, hit_r, j), -ENOTSUP);
	ck_assert_int_eq(hip_puzzle_solve(HIP_RHASH_SHA256, 1, NULL, hit_i, hit_r, j, 0, 0,
					  out, NULL), -EINVAL);
	ck_assert_int_eq(hip_puzzle_solve(HIP_RHASH_SHA256, 1, i, hit_i, hit_r, j, 0, 0,
					  NULL, NULL), -EINVAL);
	ck_assert_int_eq(hip_puzzle_verify(HIP_RHASH_SHA256, 1, i, hit_i, hit_r, NULL), -EINVAL);
}
END_TEST

/* For each RHASH and K = 0..16, from a random I, HITs and start: the answer
 * verifies, has K low zero bits by a plain digest, and is the first one at
 * or after the start (J = start + trials - 1, nothing earlier solves). */
START_TEST(test_solve_verify_k0_16)
{
	enum hip_rhash h = all_rhash[_i];
	size_t n = hip_rhash_len(h);
	uint8_t i[48], hit_i[16], hit_r[16], start[48], j[48], expect[48];

	for (unsigned k = 0; k <= 16; k++) {
		uint64_t trials = 0;

		ck_assert_int_eq(hip_random(i, n), 0);
		ck_assert_int_eq(hip_random(hit_i, 16), 0);
		ck_assert_int_eq(hip_random(hit_r, 16), 0);
		ck_assert_int_eq(hip_random(start, n), 0);
		ck_assert_int_eq(hip_puzzle_solve(h, k, i, hit_i, hit_r, start, 0, 0, j, &trials),
				 0);
		ck_assert_uint_ge(trials, 1);
		ck_assert_int_eq(hip_puzzle_verify(h, k, i, hit_i, hit_r, j), 0);
		ck_assert_uint_ge(low_zero_bits(h, i, hit_i, hit_r, j), k);
		memcpy(expect, start, n);
		be_add(expect, n, trials - 1);
		ck_assert_mem_eq(j, expect, n);
		if (k == 0)
			ck_assert_uint_eq(trials, 1);
		if (trials > 1) {
			/* the J just before did not solve it */
			be_dec(expect, n);
			ck_assert_uint_lt(low_zero_bits(h, i, hit_i, hit_r, expect), k);
		}
	}
}
END_TEST

/* J counts up as one big-endian integer across byte boundaries. */
START_TEST(test_counter_carry)
{
	enum hip_rhash h = all_rhash[_i];
	size_t n = hip_rhash_len(h);
	uint8_t i[48] = { 0 }, hit_i[16], hit_r[16], start[48], j[48], expect[48];
	uint64_t trials = 0;

	spec_hits(hit_i, hit_r);
	memset(start, 0, n);
	memset(start + n - 5, 0xff, 5);
	start[n - 1] = 0xf0;              /* ..00 ff ff ff ff f0: carries after 16 */
	ck_assert_int_eq(hip_puzzle_solve(h, 10, i, hit_i, hit_r, start, 0, 0, j, &trials), 0);
	memcpy(expect, start, n);
	be_add(expect, n, trials - 1);
	ck_assert_mem_eq(j, expect, n);
	ck_assert_uint_gt(trials, 16);    /* deterministic for these inputs */
	ck_assert_uint_eq(j[n - 6], 1);   /* the carry went through 5 bytes */
}
END_TEST

START_TEST(test_limits_timeout)
{
	enum hip_rhash h = all_rhash[_i];
	uint8_t i[48] = { 0 }, hit_i[16], hit_r[16], start[48] = { 0 }, j[48];
	uint64_t trials = 0;
	struct timespec ts;
	uint64_t now;

	spec_hits(hit_i, hit_r);
	/* K = 28 from 0 with these inputs: no answer in the first 5000. */
	ck_assert_int_eq(hip_puzzle_solve(h, 28, i, hit_i, hit_r, start, 1000, 0, j, &trials),
			 -ETIMEDOUT);
	ck_assert_uint_eq(trials, 1000);
	ck_assert_int_eq(hip_puzzle_solve(h, 28, i, hit_i, hit_r, start, 5000, 0, j, &trials),
			 -ETIMEDOUT);
	ck_assert_uint_eq(trials, 5000);
	ck_assert_int_eq(hip_puzzle_solve(h, 28, i, hit_i, hit_r, start, 1, 0, j, NULL),
			 -ETIMEDOUT);

	/* A deadline in the past: nothing is tried. */
	ck_assert_int_eq(hip_puzzle_solve(h, 28, i, hit_i, hit_r, start, 0, 1, j, &trials),
			 -ETIMEDOUT);
	ck_assert_uint_eq(trials, 0);
	/* A near deadline stops a K = 28 search that max_trials does not. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	ck_assert_int_eq(hip_puzzle_solve(h, 28, i, hit_i, hit_r, start, 0, now + 20000000u,
					  j, &trials), -ETIMEDOUT);
	ck_assert_uint_gt(trials, 0);
	/* Whichever limit comes first wins. */
	ck_assert_int_eq(hip_puzzle_solve(h, 28, i, hit_i, hit_r, start, 300,
					  now + 3600000000000u, j, &trials), -ETIMEDOUT);
	ck_assert_uint_eq(trials, 300);
}
END_TEST

/* K = 20..28 are too slow to solve in a unit test. A K = 20 answer also
 * solves every smaller K; above 20 it solves exactly up to its count of low
 * zero bits; random J almost never verifies. */
START_TEST(test_high_k)
{
	enum hip_rhash h = all_rhash[_i];
	size_t n = hip_rhash_len(h);
	uint8_t i[48], hit_i[16], hit_r[16], start[48], j[48];
	unsigned zeros, accepted = 0;

	ck_assert_int_eq(hip_random(i, n), 0);
	ck_assert_int_eq(hip_random(hit_i, 16), 0);
	ck_assert_int_eq(hip_random(hit_r, 16), 0);
	ck_assert_int_eq(hip_random(start, n), 0);
	ck_assert_int_eq(hip_puzzle_solve(h, 20, i, hit_i, hit_r, start, 0, 0, j, NULL), 0);
	zeros = low_zero_bits(h, i, hit_i, hit_r, j);
	ck_assert_uint_ge(zeros, 20);
	for (unsigned k = 0; k <= 28; k++)
		ck_assert_int_eq(hip_puzzle_verify(h, k, i, hit_i, hit_r, j),
				 k <= zeros ? 0 : -EBADMSG);

	for (unsigned t = 0; t < 64; t++) {
		ck_assert_int_eq(hip_random(j, n), 0);
		for (unsigned k = 20; k <= 28; k++)
			if (hip_puzzle_verify(h, k, i, hit_i, hit_r, j) == 0)
				accepted++;
	}
	/* Expected 64 * (sum over K of 2^-K) ~ 1.2e-4 acceptances. */
	ck_assert_uint_le(accepted, 2);
}
END_TEST

static Suite *puzzle_suite(void)
{
	Suite *s = suite_create("puzzle");
	TCase *tc = tcase_create("core");
	TCase *slow = tcase_create("solve");

	tcase_add_test(tc, test_spec_vector);
	tcase_add_test(tc, test_verify_rejects);
	tcase_add_test(tc, test_k_range);
	tcase_add_loop_test(tc, test_counter_carry, 0, 3);
	tcase_add_loop_test(tc, test_limits_timeout, 0, 3);
	/* Solving is CPU work (about 2^K hashes); give sanitizer builds room. */
	tcase_set_timeout(slow, 120);
	tcase_add_loop_test(slow, test_solve_verify_k0_16, 0, 3);
	tcase_add_loop_test(slow, test_high_k, 0, 3);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, slow);
	return s;
}

UNIT_MAIN(puzzle_suite)
