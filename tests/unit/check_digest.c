/*
 * check_digest.c - RHASH digests: FIPS 180-4 example vectors (NIST CSRC
 * "Examples with intermediate values") and the iovec form.
 */
#include <errno.h>
#include <string.h>

#include "hip_crypto.h"
#include "unit.h"

#define MSG_448 "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"

struct digest_vec {
	enum hip_rhash h;
	const char *msg;
	const char *hex;
};

static const struct digest_vec vecs[] = {
	{ HIP_RHASH_SHA1, "abc", "a9993e364706816aba3e25717850c26c9cd0d89d" },
	{ HIP_RHASH_SHA1, "", "da39a3ee5e6b4b0d3255bfef95601890afd80709" },
	{ HIP_RHASH_SHA1, MSG_448, "84983e441c3bd26ebaae4aa1f95129e5e54670f1" },
	{ HIP_RHASH_SHA256, "abc",
	  "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
	{ HIP_RHASH_SHA256, "",
	  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
	{ HIP_RHASH_SHA256, MSG_448,
	  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	{ HIP_RHASH_SHA384, "abc",
	  "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded163"
	  "1a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7" },
	{ HIP_RHASH_SHA384, "",
	  "38b060a751ac96384cd9327eb1b1e36a21fdb71114be0743"
	  "4c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b" },
	{ HIP_RHASH_SHA384, MSG_448,
	  "3391fdddfc8dc7393707a65b1b4709397cf8b1d162af05ab"
	  "fe8f450de5f36bc6b0455a8520bc4e6f5fe95b1fe3c8452b" },
};

static const enum hip_rhash all_rhash[] = {
	HIP_RHASH_SHA256, HIP_RHASH_SHA384, HIP_RHASH_SHA1,
};

START_TEST(test_rhash_len)
{
	ck_assert_uint_eq(hip_rhash_len(HIP_RHASH_SHA256), 32);
	ck_assert_uint_eq(hip_rhash_len(HIP_RHASH_SHA384), 48);
	ck_assert_uint_eq(hip_rhash_len(HIP_RHASH_SHA1), 20);
	ck_assert_uint_eq(hip_rhash_len((enum hip_rhash)0), 0);
	ck_assert_uint_eq(hip_rhash_len((enum hip_rhash)5), 0);
}
END_TEST

START_TEST(test_fips180_vectors)
{
	const struct digest_vec *v = &vecs[_i];
	uint8_t expect[HIP_RHASH_MAX_LEN], got[HIP_RHASH_MAX_LEN];
	long n = unit_hex(v->hex, expect, sizeof(expect));

	ck_assert_int_eq(n, (long)hip_rhash_len(v->h));
	memset(got, 0xee, sizeof(got));
	ck_assert_int_eq(hip_digest(v->h, v->msg, strlen(v->msg), got), 0);
	ck_assert_mem_eq(got, expect, (size_t)n);
}
END_TEST

/* The same vectors through the iovec form, the message cut into pieces. */
START_TEST(test_fips180_vectors_iov)
{
	const struct digest_vec *v = &vecs[_i];
	uint8_t expect[HIP_RHASH_MAX_LEN], got[HIP_RHASH_MAX_LEN];
	long n = unit_hex(v->hex, expect, sizeof(expect));
	size_t len = strlen(v->msg), cut = len / 3, last = len ? 1 : 0;
	struct iovec iov[4] = {
		{ (void *)v->msg, cut },
		{ NULL, 0 },
		{ (void *)(v->msg + cut), len - cut - last },
		{ (void *)(v->msg + len - last), last },
	};

	ck_assert_int_eq(hip_digestv(v->h, iov, 4, got), 0);
	ck_assert_mem_eq(got, expect, (size_t)n);
}
END_TEST

/* digestv over any split equals the digest of the concatenation. */
START_TEST(test_digestv_equals_concat)
{
	enum hip_rhash h = all_rhash[_i];
	size_t md_len = hip_rhash_len(h);
	uint8_t data[300], whole[HIP_RHASH_MAX_LEN], parts[HIP_RHASH_MAX_LEN];
	size_t a, b;

	ck_assert_int_eq(hip_random(data, sizeof(data)), 0);
	ck_assert_int_eq(hip_digest(h, data, sizeof(data), whole), 0);
	for (a = 0; a <= sizeof(data); a += 37) {
		for (b = a; b <= sizeof(data); b += 61) {
			struct iovec iov[3] = {
				{ data, a },
				{ data + a, b - a },
				{ data + b, sizeof(data) - b },
			};

			memset(parts, 0, sizeof(parts));
			ck_assert_int_eq(hip_digestv(h, iov, 3, parts), 0);
			ck_assert_mem_eq(parts, whole, md_len);
		}
	}
	/* Zero iovecs = the empty message. */
	ck_assert_int_eq(hip_digestv(h, NULL, 0, parts), 0);
	ck_assert_int_eq(hip_digest(h, NULL, 0, whole), 0);
	ck_assert_mem_eq(parts, whole, md_len);
}
END_TEST

START_TEST(test_digest_rejects)
{
	uint8_t out[HIP_RHASH_MAX_LEN];
	struct iovec bad = { NULL, 5 };

	ck_assert_int_eq(hip_digest((enum hip_rhash)0, "abc", 3, out), -ENOTSUP);
	ck_assert_int_eq(hip_digest((enum hip_rhash)4, "abc", 3, out), -ENOTSUP);
	ck_assert_int_eq(hip_digestv((enum hip_rhash)9, NULL, 0, out), -ENOTSUP);
	ck_assert_int_eq(hip_digest(HIP_RHASH_SHA256, "abc", 3, NULL), -EINVAL);
	ck_assert_int_eq(hip_digest(HIP_RHASH_SHA256, NULL, 3, out), -EINVAL);
	ck_assert_int_eq(hip_digestv(HIP_RHASH_SHA256, NULL, 1, out), -EINVAL);
	ck_assert_int_eq(hip_digestv(HIP_RHASH_SHA256, &bad, 1, out), -EINVAL);
}
END_TEST

static Suite *digest_suite(void)
{
	Suite *s = suite_create("digest");
	TCase *tc = tcase_create("core");
	int nvec = (int)(sizeof(vecs) / sizeof(vecs[0]));
	int nh = (int)(sizeof(all_rhash) / sizeof(all_rhash[0]));

	tcase_add_test(tc, test_rhash_len);
	tcase_add_loop_test(tc, test_fips180_vectors, 0, nvec);
	tcase_add_loop_test(tc, test_fips180_vectors_iov, 0, nvec);
	tcase_add_loop_test(tc, test_digestv_equals_concat, 0, nh);
	tcase_add_test(tc, test_digest_rejects);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(digest_suite)
