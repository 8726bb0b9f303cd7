/*
 * cw_hostid.h - the Host Identity object, shared by hostid.c (keys and wire
 * encoding) and hostid_sig.c (signatures). Internal to libcrypto-wrap.
 */
#ifndef HIP_CW_HOSTID_H
#define HIP_CW_HOSTID_H

#include "cw_internal.h"

/* HI Algorithm values and ECDSA curve IDs (RFC 7401 §5.2.9). */
enum {
	CW_HI_ALG_RSA        = 5,
	CW_HI_ALG_ECDSA      = 7,
	CW_ECDSA_CURVE_P256  = 1,
	CW_ECDSA_CURVE_P384  = 2,
	CW_ECDSA_FIELD_MAX   = 48,      /* P-384 */
};

struct hip_hi {
	EVP_PKEY *pkey;                 /* imported once, used for every signature */
	enum hip_hi_kind kind;          /* RSA_3072 stands for any accepted RSA size */
	uint16_t algorithm;             /* CW_HI_ALG_* */
	bool has_private;
	size_t field_len;               /* ECDSA: curve size in bytes; RSA: 0 */
	size_t sig_len;                 /* ECDSA 2 x field_len; RSA modulus bytes */
	uint8_t *wire;                  /* Host Identity field of HOST_ID */
	size_t wire_len;
	/* Signature contexts initialised once (hash, padding, key); each call
	 * works on a fresh copy, which skips the per-call algorithm fetches.
	 * Read-only after creation, so one hip_hi can serve several threads. */
	EVP_MD_CTX *sign_tpl;           /* NULL without the private key */
	EVP_MD_CTX *verify_tpl;
	unsigned extra_refs;            /* hip_hi_ref()s not yet released (atomic) */
};

/* Create the signature templates of a new hip_hi (hostid_sig.c). */
int cw_hi_sig_prepare(struct hip_hi *hi);

#endif
