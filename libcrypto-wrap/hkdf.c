/*
 * hkdf.c - HKDF (RFC 5869) and the HIPv2 KEYMAT (RFC 7401 §6.5, RFC 7402 §7;
 * docs/protocol.md §4 and docs/decisions.md A-1): KEYMAT = HKDF-RHASH(salt = I | J, IKM = Kij,
 * info = sort(HIT-I | HIT-R)), drawn sequentially.
 */
#include <errno.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/params.h>

#include "cw_internal.h"

enum { CW_HKDF_MAX_BLOCKS = 255 };  /* RFC 5869 §2.3: L <= 255 * HashLen */

int hip_hkdf(enum hip_rhash h,
	     const uint8_t *salt, size_t salt_len,
	     const uint8_t *ikm, size_t ikm_len,
	     const uint8_t *info, size_t info_len,
	     uint8_t *out, size_t out_len)
{
	const char *md_name = cw_md_name(h);
	size_t md_len = hip_rhash_len(h);
	EVP_KDF_CTX *ctx = NULL;
	OSSL_PARAM params[6], *p = params;
	int mode = EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND;
	int rc;

	if (!md_name || !cw_algs.hkdf)
		return -ENOTSUP;
	if (!out || out_len == 0 || out_len > CW_HKDF_MAX_BLOCKS * md_len)
		return -EINVAL;
	if ((!salt && salt_len) || (!ikm && ikm_len) || (!info && info_len))
		return -EINVAL;

	ctx = EVP_KDF_CTX_new(cw_algs.hkdf);
	if (!ctx) {
		rc = -ENOMEM;
		goto out;
	}
	*p++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)md_name, 0);
	*p++ = OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode);
	/* The IKM is required even when empty (the provider refuses a missing
	 * key); an absent salt means HashLen zero bytes (RFC 5869 §2.2), which
	 * is the provider's default. */
	*p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY,
						 (void *)(ikm ? ikm : (const uint8_t *)""),
						 ikm_len);
	if (salt_len)
		*p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT,
							 (void *)salt, salt_len);
	if (info_len)
		*p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO,
							 (void *)info, info_len);
	*p = OSSL_PARAM_construct_end();

	if (EVP_KDF_derive(ctx, out, out_len, params) != 1) {
		rc = cw_ossl_err("EVP_KDF_derive");
		goto out;
	}
	rc = 0;
out:
	/* Frees and cleanses the provider's copies of IKM and PRK. */
	EVP_KDF_CTX_free(ctx);
	if (rc && out && out_len)
		hip_wipe(out, out_len);
	return rc;
}

int hip_keymat(enum hip_rhash h, const uint8_t *i, const uint8_t *j, size_t ij_len,
	       const uint8_t *kij, size_t kij_len,
	       const uint8_t hit_i[16], const uint8_t hit_r[16],
	       uint8_t *out, size_t out_len)
{
	uint8_t salt[2 * HIP_RHASH_MAX_LEN];
	uint8_t info[32];
	size_t md_len = hip_rhash_len(h);
	int rc;

	if (md_len == 0)
		return -ENOTSUP;
	if (!i || !j || ij_len != md_len || !kij || kij_len == 0 || !hit_i || !hit_r)
		return -EINVAL;

	memcpy(salt, i, ij_len);
	memcpy(salt + ij_len, j, ij_len);
	/* sort(): the numerically smaller HIT first. memcmp compares unsigned
	 * bytes from the first, i.e. as 128-bit big-endian integers. */
	if (memcmp(hit_i, hit_r, 16) <= 0) {
		memcpy(info, hit_i, 16);
		memcpy(info + 16, hit_r, 16);
	} else {
		memcpy(info, hit_r, 16);
		memcpy(info + 16, hit_i, 16);
	}
	rc = hip_hkdf(h, salt, 2 * ij_len, kij, kij_len, info, sizeof(info), out, out_len);
	hip_wipe(salt, sizeof(salt));
	return rc;
}

/* Copy the next len bytes of keymat at *pos into key. */
static void cw_keymat_take(const uint8_t *keymat, size_t *pos, uint8_t *key, size_t len)
{
	memcpy(key, keymat + *pos, len);
	*pos += len;
}

int hip_keymat_draw_hip(const uint8_t *keymat, size_t keymat_len,
			size_t enc_len, size_t int_len,
			struct hip_hip_keys *out, size_t *next)
{
	size_t pos = 0;

	if (!keymat || !out || enc_len > HIP_KEY_MAX || int_len > HIP_KEY_MAX)
		return -EINVAL;
	if (2 * (enc_len + int_len) > keymat_len)
		return -EINVAL;

	hip_wipe(out, sizeof(*out));
	out->enc_len = enc_len;
	out->int_len = int_len;
	/* RFC 7401 §6.5 order: HIP-gl enc, HIP-gl int, HIP-lg enc, HIP-lg int. */
	cw_keymat_take(keymat, &pos, out->gl_enc, enc_len);
	cw_keymat_take(keymat, &pos, out->gl_int, int_len);
	cw_keymat_take(keymat, &pos, out->lg_enc, enc_len);
	cw_keymat_take(keymat, &pos, out->lg_int, int_len);
	if (next)
		*next = pos;
	return 0;
}

int hip_keymat_draw_esp(const uint8_t *keymat, size_t keymat_len, size_t index,
			size_t enc_len, size_t auth_len, struct hip_esp_keys *out)
{
	size_t pos = index;

	if (!keymat || !out || enc_len > HIP_KEY_MAX || auth_len > HIP_KEY_MAX)
		return -EINVAL;
	if (index > keymat_len || 2 * (enc_len + auth_len) > keymat_len - index)
		return -EINVAL;

	hip_wipe(out, sizeof(*out));
	out->enc_len = enc_len;
	out->auth_len = auth_len;
	/* RFC 7402 §7 order: SA-gl enc, SA-gl auth, SA-lg enc, SA-lg auth. */
	cw_keymat_take(keymat, &pos, out->gl_enc, enc_len);
	cw_keymat_take(keymat, &pos, out->gl_auth, auth_len);
	cw_keymat_take(keymat, &pos, out->lg_enc, enc_len);
	cw_keymat_take(keymat, &pos, out->lg_auth, auth_len);
	return 0;
}
