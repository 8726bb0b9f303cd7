/*
 * init.c - one-time fetch of the EVP algorithms, randomness, wiping and
 * constant-time comparison.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include "cw_internal.h"

struct cw_algs cw_algs;

static pthread_once_t cw_once = PTHREAD_ONCE_INIT;
static int cw_init_status = -EIO;

static const enum hip_rhash cw_slot_rhash[3] = {
	HIP_RHASH_SHA256, HIP_RHASH_SHA384, HIP_RHASH_SHA1
};

int cw_rhash_slot(enum hip_rhash h)
{
	switch (h) {
	case HIP_RHASH_SHA256: return 0;
	case HIP_RHASH_SHA384: return 1;
	case HIP_RHASH_SHA1:   return 2;
	}
	return -1;
}

static EVP_PKEY *cw_ec_params_new(const char *group)
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
	EVP_PKEY *pkey = NULL;
	OSSL_PARAM params[2];

	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)group, 0);
	params[1] = OSSL_PARAM_construct_end();
	if (!ctx || EVP_PKEY_fromdata_init(ctx) != 1 ||
	    EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_KEY_PARAMETERS, params) != 1)
		pkey = NULL;
	EVP_PKEY_CTX_free(ctx);
	return pkey;
}

static EVP_MAC_CTX *cw_hmac_tpl_new(const char *md_name)
{
	EVP_MAC_CTX *ctx = cw_algs.hmac ? EVP_MAC_CTX_new(cw_algs.hmac) : NULL;
	OSSL_PARAM params[2];

	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)md_name, 0);
	params[1] = OSSL_PARAM_construct_end();
	if (ctx && EVP_MAC_CTX_set_params(ctx, params) != 1) {
		EVP_MAC_CTX_free(ctx);
		ctx = NULL;
	}
	return ctx;
}

static void cw_fetch_all(void)
{
	/* Fetching is expensive (a provider lookup per call); do it once so
	 * the packet path never fetches. */
	cw_algs.sha1 = EVP_MD_fetch(NULL, "SHA1", NULL);
	cw_algs.sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
	cw_algs.sha384 = EVP_MD_fetch(NULL, "SHA384", NULL);
	cw_algs.hmac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	cw_algs.hkdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
	cw_algs.aes128_cbc = EVP_CIPHER_fetch(NULL, "AES-128-CBC", NULL);
	cw_algs.aes256_cbc = EVP_CIPHER_fetch(NULL, "AES-256-CBC", NULL);
	cw_algs.ec_p256 = cw_ec_params_new("prime256v1");
	cw_algs.ec_p384 = cw_ec_params_new("secp384r1");
	for (size_t i = 0; i < 3; i++)
		cw_algs.hmac_tpl[i] = cw_hmac_tpl_new(cw_md_name(cw_slot_rhash[i]));
	if (cw_algs.sha1 && cw_algs.sha256 && cw_algs.sha384 && cw_algs.hmac &&
	    cw_algs.hkdf && cw_algs.aes128_cbc && cw_algs.aes256_cbc &&
	    cw_algs.ec_p256 && cw_algs.ec_p384 && cw_algs.hmac_tpl[0] &&
	    cw_algs.hmac_tpl[1] && cw_algs.hmac_tpl[2])
		cw_init_status = 0;
	else
		cw_ossl_err("EVP fetch");
}

int hip_crypto_init(void)
{
	pthread_once(&cw_once, cw_fetch_all);
	return cw_init_status;
}

const EVP_MD *cw_md(enum hip_rhash h)
{
	switch (h) {
	case HIP_RHASH_SHA256: return cw_algs.sha256;
	case HIP_RHASH_SHA384: return cw_algs.sha384;
	case HIP_RHASH_SHA1:   return cw_algs.sha1;
	}
	return NULL;
}

const char *cw_md_name(enum hip_rhash h)
{
	switch (h) {
	case HIP_RHASH_SHA256: return "SHA256";
	case HIP_RHASH_SHA384: return "SHA384";
	case HIP_RHASH_SHA1:   return "SHA1";
	}
	return NULL;
}

size_t hip_rhash_len(enum hip_rhash h)
{
	switch (h) {
	case HIP_RHASH_SHA256: return 32;
	case HIP_RHASH_SHA384: return 48;
	case HIP_RHASH_SHA1:   return 20;
	}
	return 0;
}

int cw_ossl_err(const char *what)
{
#ifdef HIP_CRYPTO_DEBUG
	unsigned long e;
	char buf[256];

	while ((e = ERR_get_error()) != 0) {
		ERR_error_string_n(e, buf, sizeof(buf));
		fprintf(stderr, "libcrypto-wrap: %s: %s\n", what, buf);
	}
#else
	(void)what;
	ERR_clear_error();
#endif
	return -EIO;
}

void hip_wipe(void *p, size_t len)
{
	if (p && len)
		OPENSSL_cleanse(p, len);
}

bool hip_memeq_ct(const void *a, const void *b, size_t len)
{
	return CRYPTO_memcmp(a, b, len) == 0;
}

int hip_random(void *out, size_t len)
{
	if (len == 0)
		return 0;
	if (len > INT32_MAX)
		return -EINVAL;
	return RAND_bytes(out, (int)len) == 1 ? 0 : cw_ossl_err("RAND_bytes");
}

const EVP_PKEY *cw_ec_params(const char *group)
{
	if (!group)
		return NULL;
	if (!strcmp(group, "prime256v1") || !strcmp(group, "P-256"))
		return cw_algs.ec_p256;
	if (!strcmp(group, "secp384r1") || !strcmp(group, "P-384"))
		return cw_algs.ec_p384;
	return NULL;
}

int cw_ec_public_from_point(const EVP_PKEY *params, const uint8_t *pt, size_t len,
			    EVP_PKEY **out)
{
	EVP_PKEY *k;

	if (!params)
		return -EIO;
	k = EVP_PKEY_new();
	if (!k || EVP_PKEY_copy_parameters(k, params) != 1) {
		EVP_PKEY_free(k);
		return cw_ossl_err("EC key parameters");
	}
	if (EVP_PKEY_set1_encoded_public_key(k, pt, len) != 1) {
		cw_ossl_err("EC point");
		EVP_PKEY_free(k);
		return -EBADMSG;
	}
	*out = k;
	return 0;
}

int cw_ec_public_xy(const EVP_PKEY *pkey, size_t field, uint8_t *xy)
{
	uint8_t pt[1 + 2 * 66];
	size_t len = 0;

	/* 0x04 | X | Y: EC keys export their point uncompressed by default. */
	if (2 * field + 1 > sizeof(pt) ||
	    EVP_PKEY_get_octet_string_param(pkey, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, pt,
					    sizeof(pt), &len) != 1 ||
	    len != 2 * field + 1 || pt[0] != 0x04)
		return cw_ossl_err("EC public point");
	memcpy(xy, pt + 1, 2 * field);
	return 0;
}
