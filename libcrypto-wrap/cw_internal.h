/*
 * cw_internal.h - shared state of libcrypto-wrap (not installed, not used
 * outside this directory). OpenSSL types are allowed here.
 */
#ifndef HIP_CW_INTERNAL_H
#define HIP_CW_INTERNAL_H

#include <openssl/evp.h>
#include <openssl/kdf.h>

#include "hip_crypto.h"

/* Algorithms fetched once by hip_crypto_init(); never NULL after it. */
struct cw_algs {
	EVP_MD     *sha1, *sha256, *sha384;
	EVP_MAC    *hmac;
	EVP_KDF    *hkdf;
	EVP_CIPHER *aes128_cbc, *aes256_cbc;
};
extern struct cw_algs cw_algs;

/* The cached EVP_MD of an RHASH, or NULL for an unknown value. */
const EVP_MD *cw_md(enum hip_rhash h);
/* OpenSSL digest name of an RHASH ("SHA256" ...), or NULL. */
const char *cw_md_name(enum hip_rhash h);

/* Log the OpenSSL error queue at debug level and clear it. Returns -EIO. */
int cw_ossl_err(const char *what);

/* Test seam: an ECDH key pair (groups 7, 8) from a given private scalar of
 * hip_dh_secret_len() bytes, for the RFC 5903 known-answer tests. Not for
 * production use. */
int hip_dh_import_private_for_test(uint8_t group_id, const uint8_t *priv, size_t len,
				   struct hip_dh **out);

#endif
