/*
 * digest.c - RHASH digests (RFC 7401 §5.2.10: the HIT Suite hash).
 */
#include <errno.h>

#include "cw_internal.h"

int hip_digest(enum hip_rhash h, const void *data, size_t len, uint8_t *out)
{
	const EVP_MD *md = cw_md(h);

	if (!md)
		return -ENOTSUP;
	if (!out || (!data && len))
		return -EINVAL;
	/* EVP_Digest with an already fetched EVP_MD does no provider lookup. */
	if (!EVP_Digest(data ? data : "", len, out, NULL, md, NULL))
		return cw_ossl_err("EVP_Digest");
	return 0;
}

int hip_digestv(enum hip_rhash h, const struct iovec *iov, size_t n, uint8_t *out)
{
	const EVP_MD *md = cw_md(h);
	EVP_MD_CTX *ctx = NULL;
	size_t k;
	int rc;

	if (!md)
		return -ENOTSUP;
	if (!out || (!iov && n))
		return -EINVAL;
	for (k = 0; k < n; k++)
		if (!iov[k].iov_base && iov[k].iov_len)
			return -EINVAL;

	ctx = EVP_MD_CTX_new();
	if (!ctx) {
		rc = -ENOMEM;
		goto out;
	}
	if (!EVP_DigestInit_ex2(ctx, md, NULL)) {
		rc = cw_ossl_err("EVP_DigestInit_ex2");
		goto out;
	}
	for (k = 0; k < n; k++) {
		if (iov[k].iov_len == 0)
			continue;
		if (!EVP_DigestUpdate(ctx, iov[k].iov_base, iov[k].iov_len)) {
			rc = cw_ossl_err("EVP_DigestUpdate");
			goto out;
		}
	}
	if (!EVP_DigestFinal_ex(ctx, out, NULL)) {
		rc = cw_ossl_err("EVP_DigestFinal_ex");
		goto out;
	}
	rc = 0;
out:
	EVP_MD_CTX_free(ctx);
	return rc;
}
