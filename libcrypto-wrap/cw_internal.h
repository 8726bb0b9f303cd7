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
	/* HMAC contexts with their digest set, no key: each MAC starts from a
	 * copy (no digest lookup by name per call). Indexed by cw_rhash_slot(). */
	EVP_MAC_CTX *hmac_tpl[3];
	/* EC domain parameters only (P-256, P-384): keys are imported and
	 * generated from a copy of these, not from the group's name, which
	 * builds the curve anew each time (about 140,000 instructions). */
	EVP_PKEY   *ec_p256, *ec_p384;
};
extern struct cw_algs cw_algs;

/* 0, 1, 2 for SHA-256, SHA-384, SHA-1; -1 for an unknown RHASH. */
int cw_rhash_slot(enum hip_rhash h);
/* The parameter-only key of an OpenSSL EC group name (either of its
 * names: "prime256v1" or "P-256" ...), or NULL for another group. */
const EVP_PKEY *cw_ec_params(const char *group);
/* A public EC key from 0x04 | X | Y on the curve of params: the point
 * decoder rejects coordinates >= p and points off the curve. 0, -EBADMSG
 * for a bad point, -EIO. */
int cw_ec_public_from_point(const EVP_PKEY *params, const uint8_t *pt, size_t len,
			    EVP_PKEY **out);
/* The public point of an EC key as X | Y, each left-padded to field bytes
 * (one conversion to affine coordinates). 0 or -EIO. */
int cw_ec_public_xy(const EVP_PKEY *pkey, size_t field, uint8_t *xy);

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
