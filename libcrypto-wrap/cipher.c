/*
 * cipher.c - HIP_CIPHER for the ENCRYPTED parameter (RFC 7401 §5.2.18;
 * docs/decisions.md A-5): IV(16, random) | AES-CBC(plain | PKCS#7 pad of 1..16 bytes).
 * The padding is ours (EVP padding off) so that open() can hand back the
 * padded plaintext untouched: the receiver parses the inner TLVs by their
 * Length and ignores the trailing block, as A-5 requires.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "cw_internal.h"
#include "hip_wire.h"

enum { CW_AES_BLOCK = 16 };

static const EVP_CIPHER *cw_cipher(uint16_t cipher_id)
{
	switch (cipher_id) {
	case HIP_CIPHER_AES_128_CBC: return cw_algs.aes128_cbc;
	case HIP_CIPHER_AES_256_CBC: return cw_algs.aes256_cbc;
	}
	return NULL;
}

int hip_cipher_key_len(uint16_t cipher_id)
{
	switch (cipher_id) {
	case HIP_CIPHER_NULL:        return 0;
	case HIP_CIPHER_AES_128_CBC: return 16;
	case HIP_CIPHER_AES_256_CBC: return 32;
	}
	return -ENOTSUP;
}

int hip_cipher_iv_len(uint16_t cipher_id)
{
	switch (cipher_id) {
	case HIP_CIPHER_NULL:        return 0;
	case HIP_CIPHER_AES_128_CBC:
	case HIP_CIPHER_AES_256_CBC: return CW_AES_BLOCK;
	}
	return -ENOTSUP;
}

int hip_cipher_seal(uint16_t cipher_id, const uint8_t *key,
		    const uint8_t *plain, size_t plain_len,
		    uint8_t *out, size_t out_cap, size_t *out_len)
{
	const EVP_CIPHER *cipher = cw_cipher(cipher_id);
	EVP_CIPHER_CTX *ctx = NULL;
	uint8_t pad[CW_AES_BLOCK];
	size_t pad_len, total;
	int n1 = 0, n2 = 0, n3 = 0;
	int rc;

	if (hip_cipher_key_len(cipher_id) < 0)
		return -ENOTSUP;
	if (!out || !out_len || (!plain && plain_len))
		return -EINVAL;
	*out_len = 0;
	if (cipher_id == HIP_CIPHER_NULL) {
		if (out_cap < plain_len)
			return -ENOSPC;
		if (plain_len)
			memmove(out, plain, plain_len);
		*out_len = plain_len;
		return 0;
	}
	if (!key || !cipher)
		return -EINVAL;
	if (plain_len > INT_MAX - 2 * CW_AES_BLOCK)
		return -EINVAL;
	/* PKCS#7: always 1..16 bytes, each holding the pad length. */
	pad_len = CW_AES_BLOCK - plain_len % CW_AES_BLOCK;
	total = CW_AES_BLOCK + plain_len + pad_len;
	if (out_cap < total)
		return -ENOSPC;
	memset(pad, (int)pad_len, sizeof(pad));

	rc = hip_random(out, CW_AES_BLOCK);
	if (rc)
		goto out;
	ctx = EVP_CIPHER_CTX_new();
	if (!ctx) {
		rc = -ENOMEM;
		goto out;
	}
	if (!EVP_EncryptInit_ex2(ctx, cipher, key, out, NULL) ||
	    !EVP_CIPHER_CTX_set_padding(ctx, 0)) {
		rc = cw_ossl_err("EVP_EncryptInit_ex2");
		goto out;
	}
	/* Plaintext then pad, streamed, so no padded copy of the plaintext is
	 * made; with padding off, EVP buffers the partial block in between. */
	if (!EVP_EncryptUpdate(ctx, out + CW_AES_BLOCK, &n1, plain ? plain : pad, (int)plain_len) ||
	    !EVP_EncryptUpdate(ctx, out + CW_AES_BLOCK + n1, &n2, pad, (int)pad_len) ||
	    !EVP_EncryptFinal_ex(ctx, out + CW_AES_BLOCK + n1 + n2, &n3)) {
		rc = cw_ossl_err("EVP_Encrypt");
		goto out;
	}
	if ((size_t)n1 + (size_t)n2 + (size_t)n3 != plain_len + pad_len) {
		rc = -EIO;
		goto out;
	}
	*out_len = total;
	rc = 0;
out:
	/* Frees and cleanses the key schedule and the buffered partial block. */
	EVP_CIPHER_CTX_free(ctx);
	if (rc && out_cap)
		hip_wipe(out, out_cap < total ? out_cap : total);
	return rc;
}

int hip_cipher_open(uint16_t cipher_id, const uint8_t *key,
		    const uint8_t *in, size_t in_len,
		    uint8_t *out, size_t out_cap, size_t *out_len)
{
	const EVP_CIPHER *cipher = cw_cipher(cipher_id);
	EVP_CIPHER_CTX *ctx = NULL;
	size_t ct_len;
	int n1 = 0, n2 = 0;
	int rc;

	if (hip_cipher_key_len(cipher_id) < 0)
		return -ENOTSUP;
	if (!out || !out_len || (!in && in_len))
		return -EINVAL;
	*out_len = 0;
	if (cipher_id == HIP_CIPHER_NULL) {
		if (out_cap < in_len)
			return -ENOSPC;
		if (in_len)
			memmove(out, in, in_len);
		*out_len = in_len;
		return 0;
	}
	if (!key || !cipher)
		return -EINVAL;
	/* IV plus at least one block: seal always pads, so zero blocks cannot
	 * come from a correct sender. */
	if (in_len < 2 * CW_AES_BLOCK || in_len % CW_AES_BLOCK != 0 || in_len > INT_MAX)
		return -EBADMSG;
	ct_len = in_len - CW_AES_BLOCK;
	if (out_cap < ct_len)
		return -ENOSPC;

	ctx = EVP_CIPHER_CTX_new();
	if (!ctx) {
		rc = -ENOMEM;
		goto out;
	}
	if (!EVP_DecryptInit_ex2(ctx, cipher, key, in, NULL) ||
	    !EVP_CIPHER_CTX_set_padding(ctx, 0)) {
		rc = cw_ossl_err("EVP_DecryptInit_ex2");
		goto out;
	}
	if (!EVP_DecryptUpdate(ctx, out, &n1, in + CW_AES_BLOCK, (int)ct_len) ||
	    !EVP_DecryptFinal_ex(ctx, out + n1, &n2)) {
		rc = cw_ossl_err("EVP_Decrypt");
		goto out;
	}
	if ((size_t)n1 + (size_t)n2 != ct_len) {
		rc = -EIO;
		goto out;
	}
	*out_len = ct_len;
	rc = 0;
out:
	EVP_CIPHER_CTX_free(ctx);
	if (rc)
		hip_wipe(out, ct_len);
	return rc;
}
