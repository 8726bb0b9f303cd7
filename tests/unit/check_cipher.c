/*
 * check_cipher.c - HIP_CIPHER for ENCRYPTED (RFC 7401 §5.2.18; docs/decisions.md A-5):
 * IV | AES-CBC(plain | PKCS#7 1..16), cross-checked with `openssl enc`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hip_crypto.h"
#include "hip_wire.h"
#include "unit.h"

static const uint16_t aes_ids[] = { HIP_CIPHER_AES_128_CBC, HIP_CIPHER_AES_256_CBC };

static void fill_key(uint8_t *key, size_t len, uint8_t seed)
{
	for (size_t k = 0; k < len; k++)
		key[k] = (uint8_t)(seed + 7 * k);
}

static void hex_str(const uint8_t *b, size_t len, char *out)
{
	for (size_t k = 0; k < len; k++)
		sprintf(out + 2 * k, "%02x", b[k]);
	out[2 * len] = '\0';
}

START_TEST(test_lengths)
{
	ck_assert_int_eq(hip_cipher_key_len(HIP_CIPHER_NULL), 0);
	ck_assert_int_eq(hip_cipher_key_len(HIP_CIPHER_AES_128_CBC), 16);
	ck_assert_int_eq(hip_cipher_key_len(HIP_CIPHER_AES_256_CBC), 32);
	ck_assert_int_eq(hip_cipher_iv_len(HIP_CIPHER_NULL), 0);
	ck_assert_int_eq(hip_cipher_iv_len(HIP_CIPHER_AES_128_CBC), 16);
	ck_assert_int_eq(hip_cipher_iv_len(HIP_CIPHER_AES_256_CBC), 16);
	/* 0 reserved, 3 RESERVED (not 3DES), 5+ unassigned. */
	ck_assert_int_eq(hip_cipher_key_len(0), -ENOTSUP);
	ck_assert_int_eq(hip_cipher_key_len(3), -ENOTSUP);
	ck_assert_int_eq(hip_cipher_key_len(5), -ENOTSUP);
	ck_assert_int_eq(hip_cipher_iv_len(3), -ENOTSUP);
	ck_assert_int_eq(hip_cipher_iv_len(0xffff), -ENOTSUP);
}
END_TEST

/* Every plaintext length 0..64: length, PKCS#7 padding, round trip. */
START_TEST(test_round_trip_all_lengths)
{
	uint16_t id = aes_ids[_i];
	uint8_t key[32], plain[64], sealed[16 + 64 + 16], opened[64 + 16];
	size_t key_len = (size_t)hip_cipher_key_len(id);

	fill_key(key, key_len, 0x11);
	ck_assert_int_eq(hip_random(plain, sizeof(plain)), 0);
	for (size_t len = 0; len <= sizeof(plain); len++) {
		size_t pad = 16 - len % 16, sealed_len = 0, opened_len = 0;

		ck_assert_int_eq(hip_cipher_seal(id, key, plain, len, sealed, sizeof(sealed),
						 &sealed_len), 0);
		ck_assert_uint_eq(sealed_len, 16 + len + pad);
		ck_assert_uint_eq((sealed_len - 16) % 16, 0);
		ck_assert_int_eq(hip_cipher_open(id, key, sealed, sealed_len, opened,
						 sizeof(opened), &opened_len), 0);
		/* Padding is not removed: the caller parses TLVs by Length. */
		ck_assert_uint_eq(opened_len, len + pad);
		ck_assert_mem_eq(opened, plain, len);
		ck_assert_uint_ge(pad, 1);
		ck_assert_uint_le(pad, 16);
		for (size_t k = len; k < len + pad; k++)
			ck_assert_uint_eq(opened[k], pad);
	}
}
END_TEST

/* The IV is random: sealing twice gives different IVs and ciphertexts. */
START_TEST(test_random_iv)
{
	uint16_t id = aes_ids[_i];
	uint8_t key[32], plain[40] = { 0 }, a[80], b[80];
	size_t a_len, b_len;

	fill_key(key, sizeof(key), 0x42);
	ck_assert_int_eq(hip_cipher_seal(id, key, plain, sizeof(plain), a, sizeof(a), &a_len), 0);
	ck_assert_int_eq(hip_cipher_seal(id, key, plain, sizeof(plain), b, sizeof(b), &b_len), 0);
	ck_assert_uint_eq(a_len, b_len);
	ck_assert(memcmp(a, b, 16) != 0);
	ck_assert(memcmp(a + 16, b + 16, a_len - 16) != 0);
}
END_TEST

/* Run `openssl enc <args>` on in[], capture stdout into out[]. */
static size_t run_openssl_enc(const char *args, const uint8_t *in, size_t in_len,
			      uint8_t *out, size_t cap)
{
	char dir[] = "/tmp/check_cipher.XXXXXX", path[64], cmd[512];
	FILE *f, *p;
	size_t n;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/in.bin", dir);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(in, 1, in_len, f), in_len);
	ck_assert_int_eq(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "openssl enc %s -in %s", args, path);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	n = fread(out, 1, cap, p);
	ck_assert_int_eq(pclose(p), 0);
	unlink(path);
	rmdir(dir);
	return n;
}

/* Known answer from an independent implementation: our ciphertext equals
 * `openssl enc -nopad` of plain | PKCS#7 under the IV we chose, and
 * `openssl enc -d -nopad` of it gives back plain | pad. */
START_TEST(test_openssl_cross_check)
{
	uint16_t id = aes_ids[_i / 4];
	static const size_t lens[4] = { 0, 15, 16, 45 };
	size_t len = lens[_i % 4], key_len = (size_t)hip_cipher_key_len(id);
	size_t pad = 16 - len % 16, sealed_len, n;
	uint8_t key[32], plain[64], padded[80], sealed[96], ext[128];
	char key_hex[65], iv_hex[33], args[256];
	const char *name = id == HIP_CIPHER_AES_128_CBC ? "aes-128-cbc" : "aes-256-cbc";

	fill_key(key, key_len, (uint8_t)(0x80 + _i));
	ck_assert_int_eq(hip_random(plain, sizeof(plain)), 0);
	ck_assert_int_eq(hip_cipher_seal(id, key, plain, len, sealed, sizeof(sealed),
					 &sealed_len), 0);
	memcpy(padded, plain, len);
	memset(padded + len, (int)pad, pad);
	hex_str(key, key_len, key_hex);
	hex_str(sealed, 16, iv_hex);

	snprintf(args, sizeof(args), "-%s -K %s -iv %s -nopad", name, key_hex, iv_hex);
	n = run_openssl_enc(args, padded, len + pad, ext, sizeof(ext));
	ck_assert_uint_eq(n, sealed_len - 16);
	ck_assert_mem_eq(ext, sealed + 16, n);

	snprintf(args, sizeof(args), "-d -%s -K %s -iv %s -nopad", name, key_hex, iv_hex);
	n = run_openssl_enc(args, sealed + 16, sealed_len - 16, ext, sizeof(ext));
	ck_assert_uint_eq(n, len + pad);
	ck_assert_mem_eq(ext, padded, n);

	/* And openssl's own (PKCS#7-padded) encryption opens to plain | pad. */
	snprintf(args, sizeof(args), "-%s -K %s -iv %s", name, key_hex, iv_hex);
	n = run_openssl_enc(args, plain, len, ext + 16, sizeof(ext) - 16);
	memcpy(ext, sealed, 16);
	{
		uint8_t opened[96];
		size_t opened_len;

		ck_assert_int_eq(hip_cipher_open(id, key, ext, 16 + n, opened, sizeof(opened),
						 &opened_len), 0);
		ck_assert_uint_eq(opened_len, len + pad);
		ck_assert_mem_eq(opened, padded, opened_len);
	}
}
END_TEST

START_TEST(test_open_rejects)
{
	uint16_t id = aes_ids[_i];
	uint8_t key[32] = { 1 }, in[96] = { 0 }, out[96];
	size_t out_len = 99;
	static const size_t bad_lens[] = { 0, 1, 15, 16, 17, 31, 33, 47, 95 };

	for (size_t k = 0; k < sizeof(bad_lens) / sizeof(bad_lens[0]); k++)
		ck_assert_int_eq(hip_cipher_open(id, key, in, bad_lens[k], out, sizeof(out),
						 &out_len), -EBADMSG);
	ck_assert_uint_eq(out_len, 0);
	/* 32 = IV + one block: valid shape; out_cap must hold the 16 bytes. */
	ck_assert_int_eq(hip_cipher_open(id, key, in, 32, out, 16, &out_len), 0);
	ck_assert_uint_eq(out_len, 16);
	ck_assert_int_eq(hip_cipher_open(id, key, in, 32, out, 15, &out_len), -ENOSPC);
	ck_assert_int_eq(hip_cipher_open(id, key, in, 96, out, 79, &out_len), -ENOSPC);
	ck_assert_int_eq(hip_cipher_open(id, key, in, 96, out, 80, &out_len), 0);
	ck_assert_int_eq(hip_cipher_open(id, NULL, in, 32, out, 16, &out_len), -EINVAL);
	ck_assert_int_eq(hip_cipher_open(3, key, in, 32, out, 16, &out_len), -ENOTSUP);
}
END_TEST

START_TEST(test_seal_rejects)
{
	uint16_t id = aes_ids[_i];
	uint8_t key[32] = { 1 }, plain[32] = { 0 }, out[64];
	size_t out_len = 99;

	/* 32 bytes of plaintext take IV + 32 + a full pad block = 64. */
	ck_assert_int_eq(hip_cipher_seal(id, key, plain, 32, out, 63, &out_len), -ENOSPC);
	ck_assert_uint_eq(out_len, 0);
	ck_assert_int_eq(hip_cipher_seal(id, key, plain, 32, out, 64, &out_len), 0);
	ck_assert_uint_eq(out_len, 64);
	ck_assert_int_eq(hip_cipher_seal(id, key, plain, 31, out, 47, &out_len), -ENOSPC);
	ck_assert_int_eq(hip_cipher_seal(id, key, plain, 31, out, 48, &out_len), 0);
	ck_assert_int_eq(hip_cipher_seal(id, NULL, plain, 31, out, 48, &out_len), -EINVAL);
	ck_assert_int_eq(hip_cipher_seal(id, key, NULL, 31, out, 48, &out_len), -EINVAL);
	ck_assert_int_eq(hip_cipher_seal(id, key, plain, 31, NULL, 48, &out_len), -EINVAL);
	ck_assert_int_eq(hip_cipher_seal(0, key, plain, 31, out, 48, &out_len), -ENOTSUP);
}
END_TEST

/* A wrong key decrypts to something else (there is no check to fail). */
START_TEST(test_wrong_key)
{
	uint8_t key[16], plain[48], sealed[80], opened[64];
	size_t sealed_len, opened_len;

	fill_key(key, sizeof(key), 3);
	ck_assert_int_eq(hip_random(plain, sizeof(plain)), 0);
	ck_assert_int_eq(hip_cipher_seal(HIP_CIPHER_AES_128_CBC, key, plain, sizeof(plain),
					 sealed, sizeof(sealed), &sealed_len), 0);
	key[5] ^= 1;
	ck_assert_int_eq(hip_cipher_open(HIP_CIPHER_AES_128_CBC, key, sealed, sealed_len,
					 opened, sizeof(opened), &opened_len), 0);
	ck_assert(memcmp(opened, plain, sizeof(plain)) != 0);
}
END_TEST

/* NULL-ENCRYPT: a plain copy, no IV, no padding. */
START_TEST(test_null_cipher)
{
	uint8_t plain[37], out[64], back[64];
	size_t out_len = 0, back_len = 0;

	ck_assert_int_eq(hip_random(plain, sizeof(plain)), 0);
	ck_assert_int_eq(hip_cipher_seal(HIP_CIPHER_NULL, NULL, plain, sizeof(plain), out,
					 sizeof(out), &out_len), 0);
	ck_assert_uint_eq(out_len, sizeof(plain));
	ck_assert_mem_eq(out, plain, sizeof(plain));
	ck_assert_int_eq(hip_cipher_open(HIP_CIPHER_NULL, NULL, out, out_len, back,
					 sizeof(back), &back_len), 0);
	ck_assert_uint_eq(back_len, sizeof(plain));
	ck_assert_mem_eq(back, plain, sizeof(plain));
	/* Any length is fine, zero included; capacity still counts. */
	ck_assert_int_eq(hip_cipher_open(HIP_CIPHER_NULL, NULL, out, 0, back, 0, &back_len), 0);
	ck_assert_uint_eq(back_len, 0);
	ck_assert_int_eq(hip_cipher_seal(HIP_CIPHER_NULL, NULL, plain, sizeof(plain), out,
					 sizeof(plain) - 1, &out_len), -ENOSPC);
	ck_assert_int_eq(hip_cipher_open(HIP_CIPHER_NULL, NULL, plain, 17, back, 16,
					 &back_len), -ENOSPC);
}
END_TEST

static Suite *cipher_suite(void)
{
	Suite *s = suite_create("cipher");
	TCase *tc = tcase_create("core");
	TCase *ext = tcase_create("openssl-cli");

	tcase_add_test(tc, test_lengths);
	tcase_add_loop_test(tc, test_round_trip_all_lengths, 0, 2);
	tcase_add_loop_test(tc, test_random_iv, 0, 2);
	tcase_add_loop_test(tc, test_open_rejects, 0, 2);
	tcase_add_loop_test(tc, test_seal_rejects, 0, 2);
	tcase_add_test(tc, test_wrong_key);
	tcase_add_test(tc, test_null_cipher);
	tcase_add_loop_test(ext, test_openssl_cross_check, 0, 8);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, ext);
	return s;
}

UNIT_MAIN(cipher_suite)
