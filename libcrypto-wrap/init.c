/*
 * init.c - one-time fetch of the EVP algorithms, randomness, wiping and
 * constant-time comparison.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/rand.h>

#include "cw_internal.h"

struct cw_algs cw_algs;

static pthread_once_t cw_once = PTHREAD_ONCE_INIT;
static int cw_init_status = -EIO;

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
	if (cw_algs.sha1 && cw_algs.sha256 && cw_algs.sha384 && cw_algs.hmac &&
	    cw_algs.hkdf && cw_algs.aes128_cbc && cw_algs.aes256_cbc)
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
