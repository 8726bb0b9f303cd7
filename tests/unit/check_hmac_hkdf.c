/*
 * check_hmac_hkdf.c - HMAC (RFC 4231, RFC 2202), HKDF (RFC 5869) and the
 * HIPv2 KEYMAT (RFC 7401 §6.5, RFC 7402 §7; docs/protocol.md §4).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "hip_crypto.h"
#include "unit.h"

/* A test input: hex, or a text string, or fill_len bytes of fill. */
struct blob {
	const char *hex;
	const char *text;
	uint8_t fill;
	size_t fill_len;
};

static size_t blob_get(const struct blob *b, uint8_t *out, size_t cap)
{
	long n;

	if (b->hex) {
		n = unit_hex(b->hex, out, cap);
		ck_assert_int_ge(n, 0);
		return (size_t)n;
	}
	if (b->text) {
		ck_assert_uint_le(strlen(b->text), cap);
		memcpy(out, b->text, strlen(b->text));
		return strlen(b->text);
	}
	ck_assert_uint_le(b->fill_len, cap);
	memset(out, b->fill, b->fill_len);
	return b->fill_len;
}

#define KEY_0B20  { NULL, NULL, 0x0b, 20 }
#define KEY_JEFE  { NULL, "Jefe", 0, 0 }
#define KEY_AA20  { NULL, NULL, 0xaa, 20 }
#define KEY_25    { "0102030405060708090a0b0c0d0e0f10111213141516171819", NULL, 0, 0 }
#define KEY_0C20  { NULL, NULL, 0x0c, 20 }
#define DATA_HI   { NULL, "Hi There", 0, 0 }
#define DATA_JEFE { NULL, "what do ya want for nothing?", 0, 0 }
#define DATA_DD50 { NULL, NULL, 0xdd, 50 }
#define DATA_CD50 { NULL, NULL, 0xcd, 50 }
#define DATA_TRNC { NULL, "Test With Truncation", 0, 0 }
#define DATA_BIGK { NULL, "Test Using Larger Than Block-Size Key - Hash Key First", 0, 0 }

struct hmac_vec {
	const char *name;
	enum hip_rhash h;
	struct blob key, data;
	const char *mac;   /* full length, or truncated when mac_len says so */
	size_t mac_len;
};

static const struct hmac_vec hmac_vecs[] = {
	/* RFC 4231 §4.2-4.8 */
	{ "4231-1/256", HIP_RHASH_SHA256, KEY_0B20, DATA_HI,
	  "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7", 32 },
	{ "4231-1/384", HIP_RHASH_SHA384, KEY_0B20, DATA_HI,
	  "afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59c"
	  "faea9ea9076ede7f4af152e8b2fa9cb6", 48 },
	{ "4231-2/256", HIP_RHASH_SHA256, KEY_JEFE, DATA_JEFE,
	  "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", 32 },
	{ "4231-2/384", HIP_RHASH_SHA384, KEY_JEFE, DATA_JEFE,
	  "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e"
	  "8e2240ca5e69e2c78b3239ecfab21649", 48 },
	{ "4231-3/256", HIP_RHASH_SHA256, KEY_AA20, DATA_DD50,
	  "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe", 32 },
	{ "4231-3/384", HIP_RHASH_SHA384, KEY_AA20, DATA_DD50,
	  "88062608d3e6ad8a0aa2ace014c8a86f0aa635d947ac9febe83ef4e55966144b"
	  "2a5ab39dc13814b94e3ab6e101a34f27", 48 },
	{ "4231-4/256", HIP_RHASH_SHA256, KEY_25, DATA_CD50,
	  "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b", 32 },
	{ "4231-4/384", HIP_RHASH_SHA384, KEY_25, DATA_CD50,
	  "3e8a69b7783c25851933ab6290af6ca77a9981480850009cc5577c6e1f573b4e"
	  "6801dd23c4a7d679ccf8a386c674cffb", 48 },
	{ "4231-5/256", HIP_RHASH_SHA256, KEY_0C20, DATA_TRNC,
	  "a3b6167473100ee06e0c796c2955552b", 16 },
	{ "4231-5/384", HIP_RHASH_SHA384, KEY_0C20, DATA_TRNC,
	  "3abf34c3503b2a23a46efc619baef897", 16 },
	{ "4231-6/256", HIP_RHASH_SHA256, { NULL, NULL, 0xaa, 131 }, DATA_BIGK,
	  "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54", 32 },
	{ "4231-6/384", HIP_RHASH_SHA384, { NULL, NULL, 0xaa, 131 }, DATA_BIGK,
	  "4ece084485813e9088d2c63a041bc5b44f9ef1012a2b588f3cd11f05033ac4c6"
	  "0c2ef6ab4030fe8296248df163f44952", 48 },
	{ "4231-7/256", HIP_RHASH_SHA256, { NULL, NULL, 0xaa, 131 },
	  { NULL, "This is a test using a larger than block-size key and a larger than "
		  "block-size data. The key needs to be hashed before being used by the "
		  "HMAC algorithm.", 0, 0 },
	  "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2", 32 },
	{ "4231-7/384", HIP_RHASH_SHA384, { NULL, NULL, 0xaa, 131 },
	  { NULL, "This is a test using a larger than block-size key and a larger than "
		  "block-size data. The key needs to be hashed before being used by the "
		  "HMAC algorithm.", 0, 0 },
	  "6617178e941f020d351e2f254e8fd32c602420feb0b8fb9adccebb82461e99c5"
	  "a678cc31e799176d3860e6110c46523e", 48 },
	/* RFC 2202 §3 (HMAC-SHA-1) */
	{ "2202-1", HIP_RHASH_SHA1, KEY_0B20, DATA_HI,
	  "b617318655057264e28bc0b6fb378c8ef146be00", 20 },
	{ "2202-2", HIP_RHASH_SHA1, KEY_JEFE, DATA_JEFE,
	  "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79", 20 },
	{ "2202-3", HIP_RHASH_SHA1, KEY_AA20, DATA_DD50,
	  "125d7342b9ac11cd91a39af48aa17b4f63f175d3", 20 },
	{ "2202-4", HIP_RHASH_SHA1, KEY_25, DATA_CD50,
	  "4c9007f4026250c6bc8414f9bf50c86c2d7235da", 20 },
	{ "2202-5", HIP_RHASH_SHA1, KEY_0C20, DATA_TRNC,
	  "4c1a03424b55e07fe7f27be1d58bb9324a9a5a04", 20 },
	{ "2202-5/96", HIP_RHASH_SHA1, KEY_0C20, DATA_TRNC,
	  "4c1a03424b55e07fe7f27be1", 12 },
	{ "2202-6", HIP_RHASH_SHA1, { NULL, NULL, 0xaa, 80 }, DATA_BIGK,
	  "aa4ae5e15272d00e95705637ce8a3b55ed402112", 20 },
	{ "2202-7", HIP_RHASH_SHA1, { NULL, NULL, 0xaa, 80 },
	  { NULL, "Test Using Larger Than Block-Size Key and Larger Than One "
		  "Block-Size Data", 0, 0 },
	  "e8e99d0f45237d786d6bbaa7965c7808bbff1a91", 20 },
};

START_TEST(test_hmac_vectors)
{
	const struct hmac_vec *v = &hmac_vecs[_i];
	uint8_t key[160], data[200], expect[HIP_RHASH_MAX_LEN], got[HIP_RHASH_MAX_LEN];
	size_t key_len = blob_get(&v->key, key, sizeof(key));
	size_t data_len = blob_get(&v->data, data, sizeof(data));
	size_t md_len = hip_rhash_len(v->h);
	struct iovec whole = { data, data_len };
	struct iovec split[3] = {
		{ data, 1 }, { data + 1, 0 }, { data + 1, data_len - 1 },
	};

	ck_assert_int_eq(unit_hex(v->mac, expect, sizeof(expect)), (long)v->mac_len);
	ck_assert_int_eq(hip_hmacv(v->h, key, key_len, &whole, 1, got), 0);
	ck_assert_msg(memcmp(got, expect, v->mac_len) == 0, "%s: HMAC differs", v->name);
	memset(got, 0, sizeof(got));
	ck_assert_int_eq(hip_hmacv(v->h, key, key_len, split, 3, got), 0);
	ck_assert_msg(memcmp(got, expect, v->mac_len) == 0, "%s: split HMAC differs", v->name);

	/* Verify accepts the (possibly truncated) value ... */
	ck_assert_int_eq(hip_hmacv_verify(v->h, key, key_len, &whole, 1, expect, v->mac_len), 0);
	/* ... and refuses it with any single bit flipped. */
	for (size_t bit = 0; bit < v->mac_len * 8; bit += 7) {
		expect[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		ck_assert_int_eq(hip_hmacv_verify(v->h, key, key_len, &whole, 1,
						  expect, v->mac_len), -EBADMSG);
		expect[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	/* A flipped message bit or a different key fails too. */
	data[data_len / 2] ^= 0x01;
	ck_assert_int_eq(hip_hmacv_verify(v->h, key, key_len, &whole, 1, expect, v->mac_len),
			 -EBADMSG);
	data[data_len / 2] ^= 0x01;
	key[0] ^= 0x80;
	ck_assert_int_eq(hip_hmacv_verify(v->h, key, key_len, &whole, 1, expect, v->mac_len),
			 -EBADMSG);
	ck_assert_uint_ge(md_len, v->mac_len);
}
END_TEST

START_TEST(test_hmac_rejects)
{
	const uint8_t key[4] = { 1, 2, 3, 4 };
	uint8_t mac[HIP_RHASH_MAX_LEN];
	struct iovec iov = { (void *)"abc", 3 };
	struct iovec bad = { NULL, 3 };

	ck_assert_int_eq(hip_hmacv((enum hip_rhash)0, key, 4, &iov, 1, mac), -ENOTSUP);
	ck_assert_int_eq(hip_hmacv(HIP_RHASH_SHA256, NULL, 4, &iov, 1, mac), -EINVAL);
	ck_assert_int_eq(hip_hmacv(HIP_RHASH_SHA256, key, 4, &bad, 1, mac), -EINVAL);
	ck_assert_int_eq(hip_hmacv(HIP_RHASH_SHA256, key, 4, &iov, 1, NULL), -EINVAL);
	ck_assert_int_eq(hip_hmacv(HIP_RHASH_SHA256, key, 4, &iov, 1, mac), 0);
	/* mac_len must be 1..hash length. */
	ck_assert_int_eq(hip_hmacv_verify(HIP_RHASH_SHA256, key, 4, &iov, 1, mac, 0), -EINVAL);
	ck_assert_int_eq(hip_hmacv_verify(HIP_RHASH_SHA256, key, 4, &iov, 1, mac, 33), -EINVAL);
	ck_assert_int_eq(hip_hmacv_verify(HIP_RHASH_SHA256, key, 4, &iov, 1, mac, 32), 0);
	ck_assert_int_eq(hip_hmacv_verify(HIP_RHASH_SHA256, key, 4, &iov, 1, mac, 1), 0);
	ck_assert_int_eq(hip_hmacv_verify(HIP_RHASH_SHA256, key, 4, &iov, 1, NULL, 16), -EINVAL);
	/* An empty key is a valid HMAC key (and differs from a one-zero-byte key
	 * only in length, which HMAC pads away: RFC 2104 §2). */
	ck_assert_int_eq(hip_hmacv(HIP_RHASH_SHA256, NULL, 0, &iov, 1, mac), 0);
	ck_assert_int_eq(hip_hmacv_verify(HIP_RHASH_SHA256, (const uint8_t *)"\0", 1, &iov, 1,
					  mac, 32), 0);
}
END_TEST

struct hkdf_vec {
	const char *name;
	enum hip_rhash h;
	struct blob ikm, salt, info;
	const char *okm;
};

/* RFC 5869 Appendix A, cases 1-3 (SHA-256) and 4 (SHA-1). */
static const struct hkdf_vec hkdf_vecs[] = {
	{ "5869-1", HIP_RHASH_SHA256, { NULL, NULL, 0x0b, 22 },
	  { "000102030405060708090a0b0c", NULL, 0, 0 },
	  { "f0f1f2f3f4f5f6f7f8f9", NULL, 0, 0 },
	  "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
	  "34007208d5b887185865" },
	{ "5869-2", HIP_RHASH_SHA256,
	  { "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	    "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	    "404142434445464748494a4b4c4d4e4f", NULL, 0, 0 },
	  { "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	    "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	    "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf", NULL, 0, 0 },
	  { "b0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecf"
	    "d0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeef"
	    "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", NULL, 0, 0 },
	  "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
	  "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
	  "cc30c58179ec3e87c14c01d5c1f3434f1d87" },
	{ "5869-3", HIP_RHASH_SHA256, { NULL, NULL, 0x0b, 22 },
	  { NULL, NULL, 0, 0 }, { NULL, NULL, 0, 0 },
	  "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d"
	  "9d201395faa4b61a96c8" },
	{ "5869-4", HIP_RHASH_SHA1, { NULL, NULL, 0x0b, 11 },
	  { "000102030405060708090a0b0c", NULL, 0, 0 },
	  { "f0f1f2f3f4f5f6f7f8f9", NULL, 0, 0 },
	  "085a01ea1b10f36933068b56efa5ad81a4f14b822f5b091568a9cdd4f155fda2"
	  "c22e422478d305f3f896" },
};

START_TEST(test_hkdf_vectors)
{
	const struct hkdf_vec *v = &hkdf_vecs[_i];
	uint8_t ikm[80], salt[80], info[80], expect[100], got[100];
	size_t ikm_len = blob_get(&v->ikm, ikm, sizeof(ikm));
	size_t salt_len = blob_get(&v->salt, salt, sizeof(salt));
	size_t info_len = blob_get(&v->info, info, sizeof(info));
	long okm_len = unit_hex(v->okm, expect, sizeof(expect));

	ck_assert_int_gt(okm_len, 0);
	memset(got, 0, sizeof(got));
	ck_assert_int_eq(hip_hkdf(v->h, salt_len ? salt : NULL, salt_len, ikm, ikm_len,
				  info_len ? info : NULL, info_len, got, (size_t)okm_len), 0);
	ck_assert_msg(memcmp(got, expect, (size_t)okm_len) == 0, "%s: OKM differs", v->name);
}
END_TEST

START_TEST(test_hkdf_length_limit)
{
	static uint8_t out[255 * HIP_RHASH_MAX_LEN + 1];
	const uint8_t ikm[16] = { 7 };

	/* RFC 5869 §2.3: L <= 255 * HashLen. */
	ck_assert_int_eq(hip_hkdf(HIP_RHASH_SHA256, NULL, 0, ikm, 16, NULL, 0, out, 255 * 32), 0);
	ck_assert_int_eq(hip_hkdf(HIP_RHASH_SHA256, NULL, 0, ikm, 16, NULL, 0, out, 255 * 32 + 1),
			 -EINVAL);
	ck_assert_int_eq(hip_hkdf(HIP_RHASH_SHA1, NULL, 0, ikm, 16, NULL, 0, out, 255 * 20 + 1),
			 -EINVAL);
	ck_assert_int_eq(hip_hkdf(HIP_RHASH_SHA384, NULL, 0, ikm, 16, NULL, 0, out, 255 * 48), 0);
	ck_assert_int_eq(hip_hkdf(HIP_RHASH_SHA384, NULL, 0, ikm, 16, NULL, 0, out, 255 * 48 + 1),
			 -EINVAL);
	ck_assert_int_eq(hip_hkdf(HIP_RHASH_SHA256, NULL, 0, ikm, 16, NULL, 0, out, 0), -EINVAL);
	ck_assert_int_eq(hip_hkdf((enum hip_rhash)0, NULL, 0, ikm, 16, NULL, 0, out, 32), -ENOTSUP);
}
END_TEST

/* The docs/protocol.md §3 HITs and the §4 inputs. */
static void spec_inputs(uint8_t hit_i[16], uint8_t hit_r[16], uint8_t i[32], uint8_t j[32],
			uint8_t kij[32])
{
	ck_assert_int_eq(inet_pton(AF_INET6, "2001:22:f482:7b66:edea:73a8:1796:b6", hit_i), 1);
	ck_assert_int_eq(inet_pton(AF_INET6, "2001:21:5a6:9f76:e41:6d95:4eb2:decf", hit_r), 1);
	memset(i, 0, 32);
	memset(j, 0, 32);
	j[30] = 1308 >> 8;
	j[31] = 1308 & 0xff;
	for (int k = 0; k < 32; k++)
		kij[k] = (uint8_t)(k + 1);
}

START_TEST(test_keymat_spec_vector)
{
	uint8_t hit_i[16], hit_r[16], i[32], j[32], kij[32], expect[96], got[96];
	uint8_t salt[64], info[32], via_hkdf[96];

	spec_inputs(hit_i, hit_r, i, j, kij);
	ck_assert_int_eq(unit_hex(
		"4b32d420d009df5ca6bf6cee5536f25834844f914414a67fae3f6a8b420d6e8a"
		"bf0255efc5a7d346dac8755ddaae50fd55f312b94c54f7f5c2fe9d424245a9e4"
		"91b1c742ef531cd1fb669f26580eb6c84b249a93802388aca186e10870f17281",
		expect, sizeof(expect)), 96);
	ck_assert_int_eq(hip_keymat(HIP_RHASH_SHA256, i, j, 32, kij, 32, hit_i, hit_r,
				    got, sizeof(got)), 0);
	ck_assert_mem_eq(got, expect, 96);

	/* The same through the bare HKDF with the info spelled out in docs/protocol.md §4. */
	ck_assert_int_eq(unit_hex(
		"2001002105a69f760e416d954eb2decf20010022f4827b66edea73a8179600b6",
		info, sizeof(info)), 32);
	memcpy(salt, i, 32);
	memcpy(salt + 32, j, 32);
	ck_assert_int_eq(hip_hkdf(HIP_RHASH_SHA256, salt, 64, kij, 32, info, 32,
				  via_hkdf, 96), 0);
	ck_assert_mem_eq(via_hkdf, expect, 96);
}
END_TEST

/* sort(HIT-I | HIT-R): swapping the roles gives the same KEYMAT. */
START_TEST(test_keymat_info_order_independent)
{
	uint8_t hit_i[16], hit_r[16], i[32], j[32], kij[32], a[160], b[160];
	static const enum hip_rhash hs[] = { HIP_RHASH_SHA256, HIP_RHASH_SHA384, HIP_RHASH_SHA1 };
	uint8_t i48[48] = { 0 }, j48[48] = { 0 };

	spec_inputs(hit_i, hit_r, i, j, kij);
	for (size_t n = 0; n < sizeof(hs) / sizeof(hs[0]); n++) {
		size_t len = hip_rhash_len(hs[n]);

		memcpy(i48, i, 32);
		memcpy(j48, j, 32);
		ck_assert_int_eq(hip_keymat(hs[n], i48, j48, len, kij, 32, hit_i, hit_r,
					    a, sizeof(a)), 0);
		ck_assert_int_eq(hip_keymat(hs[n], i48, j48, len, kij, 32, hit_r, hit_i,
					    b, sizeof(b)), 0);
		ck_assert_mem_eq(a, b, sizeof(a));
		/* Sanity: salt order matters (I | J is not sorted). */
		j48[0] ^= 1;
		ck_assert_int_eq(hip_keymat(hs[n], j48, i48, len, kij, 32, hit_i, hit_r,
					    b, sizeof(b)), 0);
		ck_assert(memcmp(a, b, sizeof(a)) != 0);
		j48[0] ^= 1;
	}
	/* Unsigned comparison: a HIT ending in 0x80 is the greater one, so
	 * info = (...7f) | (...80) whichever role each has. */
	{
		uint8_t salt[64], info[32];

		memcpy(hit_r, hit_i, 16);
		hit_i[15] = 0x80;
		hit_r[15] = 0x7f;
		memcpy(info, hit_r, 16);
		memcpy(info + 16, hit_i, 16);
		memcpy(salt, i, 32);
		memcpy(salt + 32, j, 32);
		ck_assert_int_eq(hip_hkdf(HIP_RHASH_SHA256, salt, 64, kij, 32, info, 32, a, 64), 0);
		ck_assert_int_eq(hip_keymat(HIP_RHASH_SHA256, i, j, 32, kij, 32, hit_i, hit_r,
					    b, 64), 0);
		ck_assert_mem_eq(a, b, 64);
		ck_assert_int_eq(hip_keymat(HIP_RHASH_SHA256, i, j, 32, kij, 32, hit_r, hit_i,
					    b, 64), 0);
		ck_assert_mem_eq(a, b, 64);
	}
}
END_TEST

START_TEST(test_keymat_limits)
{
	static uint8_t out[255 * 32 + 1];
	uint8_t hit_i[16], hit_r[16], i[32], j[32], kij[32], first[96];

	spec_inputs(hit_i, hit_r, i, j, kij);
	ck_assert_int_eq(hip_keymat(HIP_RHASH_SHA256, i, j, 32, kij, 32, hit_i, hit_r,
				    out, 255 * 32 + 1), -EINVAL);
	ck_assert_int_eq(hip_keymat(HIP_RHASH_SHA256, i, j, 32, kij, 32, hit_i, hit_r,
				    out, 255 * 32), 0);
	/* HKDF output is prefix-stable (docs/protocol.md §4). */
	ck_assert_int_eq(hip_keymat(HIP_RHASH_SHA256, i, j, 32, kij, 32, hit_i, hit_r,
				    first, 96), 0);
	ck_assert_mem_eq(out, first, 96);
	/* I and J are RHASH-length. */
	ck_assert_int_eq(hip_keymat(HIP_RHASH_SHA256, i, j, 20, kij, 32, hit_i, hit_r,
				    first, 96), -EINVAL);
	ck_assert_int_eq(hip_keymat(HIP_RHASH_SHA1, i, j, 32, kij, 32, hit_i, hit_r,
				    first, 96), -EINVAL);
	ck_assert_int_eq(hip_keymat(HIP_RHASH_SHA256, i, j, 32, NULL, 32, hit_i, hit_r,
				    first, 96), -EINVAL);
	ck_assert_int_eq(hip_keymat(HIP_RHASH_SHA256, i, j, 32, kij, 32, hit_i, hit_r,
				    NULL, 96), -EINVAL);
}
END_TEST

/* Key slot of a counting-byte KEYMAT starts at offset and runs on. */
static void assert_slot(const uint8_t *key, size_t len, size_t offset, const char *what)
{
	for (size_t k = 0; k < len; k++)
		ck_assert_msg(key[k] == (uint8_t)(offset + k), "%s byte %zu: %u, want %zu",
			      what, k, key[k], (offset + k) & 0xff);
	for (size_t k = len; k < HIP_KEY_MAX; k++)
		ck_assert_msg(key[k] == 0, "%s not cleared past its length", what);
}

struct draw_case {
	size_t hip_enc, hip_int, esp_index;  /* esp_index: the expected KEYMAT index */
	size_t esp_enc, esp_auth;
};

static const struct draw_case draw_cases[] = {
	{ 16, 48, 128, 16, 32 },  /* AES-128-CBC, Suite 2; ESP AES-128-CBC/HMAC-SHA-256 */
	{ 32, 32, 128, 32, 32 },  /* AES-256-CBC, Suite 1; ESP AES-256-CBC/HMAC-SHA-256 */
	{ 16, 32,  96, 20,  0 },  /* AES-128-CBC, Suite 1; ESP AES-GCM (A-6: 20, 0) */
	{ 32, 48, 160, 16, 20 },  /* AES-256-CBC, Suite 2; ESP AES-128-CBC/HMAC-SHA-1 */
	{  0, 20,  40, 16, 20 },  /* NULL, Suite 3 */
};

START_TEST(test_keymat_draw_order)
{
	const struct draw_case *c = &draw_cases[_i];
	uint8_t keymat[256];
	struct hip_hip_keys hk;
	struct hip_esp_keys ek;
	size_t next = 0, e = c->esp_index;

	for (size_t k = 0; k < sizeof(keymat); k++)
		keymat[k] = (uint8_t)k;
	memset(&hk, 0xa5, sizeof(hk));
	memset(&ek, 0xa5, sizeof(ek));

	ck_assert_int_eq(hip_keymat_draw_hip(keymat, sizeof(keymat), c->hip_enc, c->hip_int,
					     &hk, &next), 0);
	ck_assert_uint_eq(next, c->esp_index);   /* 2 * (enc + int) */
	ck_assert_uint_eq(hk.enc_len, c->hip_enc);
	ck_assert_uint_eq(hk.int_len, c->hip_int);
	assert_slot(hk.gl_enc, c->hip_enc, 0, "HIP-gl enc");
	assert_slot(hk.gl_int, c->hip_int, c->hip_enc, "HIP-gl int");
	assert_slot(hk.lg_enc, c->hip_enc, c->hip_enc + c->hip_int, "HIP-lg enc");
	assert_slot(hk.lg_int, c->hip_int, 2 * c->hip_enc + c->hip_int, "HIP-lg int");

	ck_assert_int_eq(hip_keymat_draw_esp(keymat, sizeof(keymat), next, c->esp_enc,
					     c->esp_auth, &ek), 0);
	ck_assert_uint_eq(ek.enc_len, c->esp_enc);
	ck_assert_uint_eq(ek.auth_len, c->esp_auth);
	assert_slot(ek.gl_enc, c->esp_enc, e, "SA-gl enc");
	assert_slot(ek.gl_auth, c->esp_auth, e + c->esp_enc, "SA-gl auth");
	assert_slot(ek.lg_enc, c->esp_enc, e + c->esp_enc + c->esp_auth, "SA-lg enc");
	assert_slot(ek.lg_auth, c->esp_auth, e + 2 * c->esp_enc + c->esp_auth, "SA-lg auth");
}
END_TEST

START_TEST(test_keymat_draw_bounds)
{
	uint8_t keymat[128] = { 0 };
	struct hip_hip_keys hk;
	struct hip_esp_keys ek;
	size_t next = 0;

	/* Exactly enough, then one byte short. */
	ck_assert_int_eq(hip_keymat_draw_hip(keymat, 96, 16, 32, &hk, &next), 0);
	ck_assert_uint_eq(next, 96);
	ck_assert_int_eq(hip_keymat_draw_hip(keymat, 95, 16, 32, &hk, &next), -EINVAL);
	ck_assert_int_eq(hip_keymat_draw_hip(keymat, 128, 16, 32, &hk, NULL), 0);
	ck_assert_int_eq(hip_keymat_draw_hip(keymat, 128, HIP_KEY_MAX + 1, 0, &hk, &next),
			 -EINVAL);
	ck_assert_int_eq(hip_keymat_draw_hip(keymat, 128, 0, HIP_KEY_MAX + 1, &hk, &next),
			 -EINVAL);
	ck_assert_int_eq(hip_keymat_draw_hip(NULL, 128, 16, 32, &hk, &next), -EINVAL);
	ck_assert_int_eq(hip_keymat_draw_hip(keymat, 128, 16, 32, NULL, &next), -EINVAL);

	ck_assert_int_eq(hip_keymat_draw_esp(keymat, 128, 32, 16, 32, &ek), 0);
	ck_assert_int_eq(hip_keymat_draw_esp(keymat, 128, 33, 16, 32, &ek), -EINVAL);
	ck_assert_int_eq(hip_keymat_draw_esp(keymat, 128, 129, 0, 0, &ek), -EINVAL);
	ck_assert_int_eq(hip_keymat_draw_esp(keymat, 128, 128, 0, 0, &ek), 0);
	ck_assert_int_eq(hip_keymat_draw_esp(keymat, 128, (size_t)-8, 16, 32, &ek), -EINVAL);
	ck_assert_int_eq(hip_keymat_draw_esp(keymat, 128, 0, HIP_KEY_MAX + 1, 0, &ek), -EINVAL);
	ck_assert_int_eq(hip_keymat_draw_esp(keymat, 128, 0, 16, HIP_KEY_MAX + 1, &ek), -EINVAL);
}
END_TEST

static Suite *hmac_hkdf_suite(void)
{
	Suite *s = suite_create("hmac_hkdf");
	TCase *hmac = tcase_create("hmac");
	TCase *hkdf = tcase_create("hkdf");
	TCase *keymat = tcase_create("keymat");

	tcase_add_loop_test(hmac, test_hmac_vectors, 0,
			    (int)(sizeof(hmac_vecs) / sizeof(hmac_vecs[0])));
	tcase_add_test(hmac, test_hmac_rejects);
	tcase_add_loop_test(hkdf, test_hkdf_vectors, 0,
			    (int)(sizeof(hkdf_vecs) / sizeof(hkdf_vecs[0])));
	tcase_add_test(hkdf, test_hkdf_length_limit);
	tcase_add_test(keymat, test_keymat_spec_vector);
	tcase_add_test(keymat, test_keymat_info_order_independent);
	tcase_add_test(keymat, test_keymat_limits);
	tcase_add_loop_test(keymat, test_keymat_draw_order, 0,
			    (int)(sizeof(draw_cases) / sizeof(draw_cases[0])));
	tcase_add_test(keymat, test_keymat_draw_bounds);
	suite_add_tcase(s, hmac);
	suite_add_tcase(s, hkdf);
	suite_add_tcase(s, keymat);
	return s;
}

UNIT_MAIN(hmac_hkdf_suite)
