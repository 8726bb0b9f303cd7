/*
 * hmac.c - HMAC-RHASH for HIP_MAC / HIP_MAC_2 (RFC 7401 §5.2.12-13) and
 * anything else keyed by a KEYMAT integrity key.
 */
#include <errno.h>

#include "cw_internal.h"

int hip_hmacv(enum hip_rhash h, const uint8_t *key, size_t key_len,
	      const struct iovec *iov, size_t n, uint8_t *out)
{
	int slot = cw_rhash_slot(h);
	size_t md_len = hip_rhash_len(h);
	EVP_MAC_CTX *ctx = NULL;
	size_t out_len = 0;
	size_t k;
	int rc;

	if (slot < 0 || !cw_algs.hmac_tpl[slot])
		return -ENOTSUP;
	if (!out || (!key && key_len) || (!iov && n))
		return -EINVAL;
	for (k = 0; k < n; k++)
		if (!iov[k].iov_base && iov[k].iov_len)
			return -EINVAL;

	/* A copy of the template has its digest set already: no lookup of the
	 * digest by name for each MAC. */
	ctx = EVP_MAC_CTX_dup(cw_algs.hmac_tpl[slot]);
	if (!ctx) {
		rc = -ENOMEM;
		goto out;
	}
	/* A NULL key would mean "reuse the previous key", which a fresh context
	 * does not have; an empty key is a valid (if useless) HMAC key. */
	if (!EVP_MAC_init(ctx, key ? key : (const uint8_t *)"", key_len, NULL)) {
		rc = cw_ossl_err("EVP_MAC_init");
		goto out;
	}
	for (k = 0; k < n; k++) {
		if (iov[k].iov_len == 0)
			continue;
		if (!EVP_MAC_update(ctx, iov[k].iov_base, iov[k].iov_len)) {
			rc = cw_ossl_err("EVP_MAC_update");
			goto out;
		}
	}
	if (!EVP_MAC_final(ctx, out, &out_len, md_len) || out_len != md_len) {
		rc = cw_ossl_err("EVP_MAC_final");
		goto out;
	}
	rc = 0;
out:
	/* Frees and cleanses the keyed inner/outer states. */
	EVP_MAC_CTX_free(ctx);
	return rc;
}

int hip_hmacv_verify(enum hip_rhash h, const uint8_t *key, size_t key_len,
		     const struct iovec *iov, size_t n,
		     const uint8_t *mac, size_t mac_len)
{
	uint8_t expect[HIP_RHASH_MAX_LEN];
	size_t md_len = hip_rhash_len(h);
	int rc;

	if (md_len == 0)
		return -ENOTSUP;
	if (!mac || mac_len == 0 || mac_len > md_len)
		return -EINVAL;

	rc = hip_hmacv(h, key, key_len, iov, n, expect);
	if (rc)
		goto out;
	rc = hip_memeq_ct(expect, mac, mac_len) ? 0 : -EBADMSG;
out:
	hip_wipe(expect, sizeof(expect));
	return rc;
}
