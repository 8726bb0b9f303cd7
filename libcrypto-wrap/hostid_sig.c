/*
 * hostid_sig.c - HIP_SIGNATURE / HIP_SIGNATURE_2 with a Host Identity
 * (RFC 7401 §5.2.14-15), encodings as decided in docs/decisions.md A-2:
 *   RSA:   RSASSA-PSS, SHA-256, MGF1-SHA-256, salt length 32 (exactly, on
 *          verification too), signature = modulus length;
 *   ECDSA: SHA-384 for P-256 and P-384 alike, raw r | s, each left-padded
 *          to the curve size. OpenSSL speaks DER, so we convert.
 */
#include <errno.h>
#include <string.h>

#include <openssl/rsa.h>

#include "cw_hostid.h"

enum {
	PSS_SALT_LEN = 32,
	DER_SEQUENCE = 0x30,
	DER_INTEGER  = 0x02,
	/* SEQUENCE { INTEGER r, INTEGER s }, each with a possible 0x00 sign
	 * byte: 2 + 2 * (2 + 1 + field). Short-form lengths suffice up to a
	 * 61-byte field, so P-521 would need more than this encoder. */
	ECDSA_DER_MAX = 2 + 2 * (3 + CW_ECDSA_FIELD_MAX),
};
_Static_assert(ECDSA_DER_MAX - 2 < 0x80, "DER lengths must fit the short form");

/* One INTEGER from a left-padded unsigned big-endian value. */
static size_t der_put_uint(uint8_t *p, const uint8_t *v, size_t n)
{
	size_t sign;

	while (n > 1 && v[0] == 0) {
		v++;
		n--;
	}
	sign = v[0] & 0x80 ? 1 : 0;   /* keep it positive */
	p[0] = DER_INTEGER;
	p[1] = (uint8_t)(n + sign);
	p[2] = 0;
	memcpy(p + 2 + sign, v, n);
	return 2 + sign + n;
}

/* raw r | s (2 x field bytes) -> DER; der has ECDSA_DER_MAX bytes. */
static size_t ecdsa_raw_to_der(const uint8_t *raw, size_t field, uint8_t *der)
{
	size_t len = 2;

	len += der_put_uint(der + len, raw, field);
	len += der_put_uint(der + len, raw + field, field);
	der[0] = DER_SEQUENCE;
	der[1] = (uint8_t)(len - 2);
	return len;
}

/* One INTEGER at der[*off] into out, left-padded to field bytes. */
static int der_get_uint(const uint8_t *der, size_t len, size_t *off, uint8_t *out, size_t field)
{
	const uint8_t *v;
	size_t n;

	if (len - *off < 2 || der[*off] != DER_INTEGER)
		return -EBADMSG;
	n = der[*off + 1];
	*off += 2;
	if (n == 0 || n > len - *off)   /* also rejects long-form lengths */
		return -EBADMSG;
	v = der + *off;
	*off += n;
	if (v[0] & 0x80)
		return -EBADMSG;        /* negative */
	while (n > 0 && v[0] == 0) {
		v++;
		n--;
	}
	if (n > field)
		return -EBADMSG;
	memset(out, 0, field - n);
	memcpy(out + field - n, v, n);
	return 0;
}

/* DER from the signer -> raw r | s (2 x field bytes). */
static int ecdsa_der_to_raw(const uint8_t *der, size_t len, size_t field, uint8_t *raw)
{
	size_t off = 2;
	int ret;

	if (len < 2 || der[0] != DER_SEQUENCE || der[1] != len - 2)
		return -EBADMSG;
	ret = der_get_uint(der, len, &off, raw, field);
	if (!ret)
		ret = der_get_uint(der, len, &off, raw + field, field);
	if (!ret && off != len)
		ret = -EBADMSG;
	return ret;
}

/* Initialise a DigestSign/DigestVerify context with A-2's settings. */
static int hi_sig_init(const struct hip_hi *hi, EVP_MD_CTX *mctx, bool sign)
{
	bool rsa = hi->algorithm == CW_HI_ALG_RSA;
	/* The signer's suite hash, whatever the curve. */
	const EVP_MD *md = cw_md(rsa ? HIP_RHASH_SHA256 : HIP_RHASH_SHA384);
	EVP_PKEY_CTX *pctx = NULL;
	int ok;

	if (!md)
		return -EIO;
	if (sign)
		ok = EVP_DigestSignInit(mctx, &pctx, md, NULL, hi->pkey);
	else
		ok = EVP_DigestVerifyInit(mctx, &pctx, md, NULL, hi->pkey);
	if (ok != 1)
		return cw_ossl_err("signature init");
	if (rsa && (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) != 1 ||
		    EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, PSS_SALT_LEN) != 1 ||
		    EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, md) != 1))
		return cw_ossl_err("RSA-PSS setup");
	return 0;
}

int cw_hi_sig_prepare(struct hip_hi *hi)
{
	int ret;

	hi->verify_tpl = EVP_MD_CTX_new();
	if (!hi->verify_tpl)
		return -ENOMEM;
	ret = hi_sig_init(hi, hi->verify_tpl, false);
	if (ret || !hi->has_private)
		return ret;
	hi->sign_tpl = EVP_MD_CTX_new();
	if (!hi->sign_tpl)
		return -ENOMEM;
	return hi_sig_init(hi, hi->sign_tpl, true);
}

/* A fresh context per call, copied from the template (no fetches). */
static int hi_sig_start(const EVP_MD_CTX *tpl, EVP_MD_CTX **mctx)
{
	*mctx = EVP_MD_CTX_new();
	if (!*mctx)
		return -ENOMEM;
	if (EVP_MD_CTX_copy_ex(*mctx, tpl) != 1)
		return cw_ossl_err("signature context copy");
	return 0;
}

int hip_hi_signv(const struct hip_hi *hi, const struct iovec *iov, size_t n,
		 uint8_t *sig, size_t *sig_len)
{
	uint8_t der[ECDSA_DER_MAX];
	EVP_MD_CTX *mctx = NULL;
	size_t len;
	int ret;

	if (!hi || (!iov && n) || !sig || !sig_len || !hi->sign_tpl)
		return -EINVAL;
	if (*sig_len < hi->sig_len)
		return -EINVAL;
	ret = hi_sig_start(hi->sign_tpl, &mctx);
	if (ret)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (EVP_DigestSignUpdate(mctx, iov[i].iov_base, iov[i].iov_len) != 1) {
			ret = cw_ossl_err("sign update");
			goto out;
		}
	}
	if (hi->algorithm == CW_HI_ALG_RSA) {
		len = *sig_len;
		if (EVP_DigestSignFinal(mctx, sig, &len) != 1) {
			ret = cw_ossl_err("RSA sign");
			goto out;
		}
		if (len != hi->sig_len) {
			ret = -EIO;
			goto out;
		}
	} else {
		len = sizeof(der);
		if (EVP_DigestSignFinal(mctx, der, &len) != 1) {
			ret = cw_ossl_err("ECDSA sign");
			goto out;
		}
		if (ecdsa_der_to_raw(der, len, hi->field_len, sig) != 0) {
			ret = -EIO;
			goto out;
		}
		len = hi->sig_len;
	}
	*sig_len = len;
	ret = 0;
out:
	EVP_MD_CTX_free(mctx);
	return ret;
}

int hip_hi_sign(const struct hip_hi *hi, const uint8_t *data, size_t len,
		uint8_t *sig, size_t *sig_len)
{
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };

	if (!data && len)
		return -EINVAL;
	return hip_hi_signv(hi, &iov, 1, sig, sig_len);
}

int hip_hi_verifyv(const struct hip_hi *hi, const struct iovec *iov, size_t n,
		   const uint8_t *sig, size_t sig_len)
{
	uint8_t der[ECDSA_DER_MAX];
	const uint8_t *s = sig;
	EVP_MD_CTX *mctx = NULL;
	size_t s_len = sig_len;
	int ret;

	if (!hi || (!iov && n) || !sig)
		return -EINVAL;
	if (sig_len != hi->sig_len)
		return -EBADMSG;
	if (hi->algorithm == CW_HI_ALG_ECDSA) {
		s_len = ecdsa_raw_to_der(sig, hi->field_len, der);
		s = der;
	}
	ret = hi_sig_start(hi->verify_tpl, &mctx);
	if (ret)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (EVP_DigestVerifyUpdate(mctx, iov[i].iov_base, iov[i].iov_len) != 1) {
			ret = cw_ossl_err("verify update");
			goto out;
		}
	}
	/* 0 is a bad signature, < 0 a malformed one (r or s out of range): both
	 * mean the packet is not authentic. */
	if (EVP_DigestVerifyFinal(mctx, s, s_len) != 1) {
		cw_ossl_err("verify");
		ret = -EBADMSG;
	}
out:
	EVP_MD_CTX_free(mctx);
	return ret;
}

int hip_hi_verify(const struct hip_hi *hi, const uint8_t *data, size_t len,
		  const uint8_t *sig, size_t sig_len)
{
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };

	if (!data && len)
		return -EINVAL;
	return hip_hi_verifyv(hi, &iov, 1, sig, sig_len);
}
