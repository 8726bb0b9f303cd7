/*
 * esp_crypto.c - per-SA ESP packet protection (RFC 4303 §3.3-3.4, RFC 7402
 * §3 and §5.1.2; docs/decisions.md ), in place and without any allocation on
 * the packet path: every EVP object is created once when the SA is set up.
 *
 *   AES-GCM (RFC 4106): nonce = salt(4) | explicit IV(8), the explicit IV is
 *     the 64-bit sequence number (unique per key, §3.1); AAD = SPI | seq_hi |
 *     seq_lo (ESN, RFC 4106 §5). The ICV is the GCM tag (8 or 16 bytes).
 *   AES-CBC / NULL + HMAC: ICV = HMAC(SPI | seq_lo | IV | ciphertext | seq_hi)
 *     truncated (RFC 4303 §2.2.1: seq_hi is hashed but not sent). The CBC IV
 *     must be unpredictable (RFC 3602 §3): it is AES-ECB(seq | SPI | 0) under
 *     a random per-SA key, like Linux's echainiv/seqiv idea, so no RNG call
 *     per packet.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cw_internal.h"
#include "hip_wire.h"

enum {
	ESP_HDR = 8,             /* SPI | sequence number (low 32 bits) */
	ESP_AES_BLOCK = 16,
	ESP_GCM_SALT = 4,
	ESP_GCM_IV = 8,
	ESP_MAC_MAX = 32,
};

struct hip_esp_ctx {
	struct hip_esp_suite_info info;
	bool encrypt;
	bool esn;                       /* hash / authenticate seq_hi (always, but tests) */
	EVP_CIPHER *cipher;             /* fetched once per SA */
	EVP_CIPHER *ecb;
	EVP_CIPHER_CTX *cctx;           /* keyed once; per packet only the IV */
	EVP_CIPHER_CTX *ivctx;          /* CBC IV generator (encrypting side) */
	EVP_MAC_CTX *mac;               /* keyed once; re-init with a NULL key */
	uint8_t salt[ESP_GCM_SALT];
};

static const struct hip_esp_suite_info esp_suites[] = {
	/* suite, enc key, auth key, IV, ICV, block */
	{ HIP_ESP_AES128_CBC_SHA1,   16, 20, 16, 12, 16 },
	{ HIP_ESP_NULL_SHA256,        0, 32,  0, 16,  4 },
	{ HIP_ESP_AES128_CBC_SHA256, 16, 32, 16, 16, 16 },
	{ HIP_ESP_AES256_CBC_SHA256, 32, 32, 16, 16, 16 },
	{ HIP_ESP_AES_GCM_8,       20,  0,  8,  8,  4 },
	{ HIP_ESP_AES_GCM_16,      20,  0,  8, 16,  4 },
};

int hip_esp_suite_info(uint16_t suite, struct hip_esp_suite_info *out)
{
	for (size_t k = 0; k < sizeof(esp_suites) / sizeof(esp_suites[0]); k++) {
		if (esp_suites[k].suite == suite) {
			if (out)
				*out = esp_suites[k];
			return 0;
		}
	}
	return -ENOTSUP;
}

static bool esp_is_gcm(const struct hip_esp_ctx *ctx)
{
	return ctx->info.suite == HIP_ESP_AES_GCM_8 || ctx->info.suite == HIP_ESP_AES_GCM_16;
}

static const char *esp_cipher_name(uint16_t suite)
{
	switch (suite) {
	case HIP_ESP_AES128_CBC_SHA1:
	case HIP_ESP_AES128_CBC_SHA256: return "AES-128-CBC";
	case HIP_ESP_AES256_CBC_SHA256: return "AES-256-CBC";
	case HIP_ESP_AES_GCM_8:
	case HIP_ESP_AES_GCM_16:      return "AES-128-GCM";
	}
	return NULL;
}

void hip_esp_ctx_free(struct hip_esp_ctx *ctx)
{
	if (!ctx)
		return;
	EVP_CIPHER_CTX_free(ctx->cctx);
	EVP_CIPHER_CTX_free(ctx->ivctx);
	EVP_MAC_CTX_free(ctx->mac);
	EVP_CIPHER_free(ctx->cipher);
	EVP_CIPHER_free(ctx->ecb);
	hip_wipe(ctx, sizeof(*ctx));
	free(ctx);
}

static int esp_ctx_mac_init(struct hip_esp_ctx *ctx, const uint8_t *key, size_t len)
{
	OSSL_PARAM params[2];
	const char *md = ctx->info.suite == HIP_ESP_AES128_CBC_SHA1 ? "SHA1" : "SHA256";

	params[0] = OSSL_PARAM_construct_utf8_string("digest", (char *)md, 0);
	params[1] = OSSL_PARAM_construct_end();
	ctx->mac = EVP_MAC_CTX_new(cw_algs.hmac);
	if (!ctx->mac)
		return -ENOMEM;
	if (EVP_MAC_init(ctx->mac, key, len, params) != 1)
		return cw_ossl_err("ESP HMAC init");
	return 0;
}

static int esp_ctx_cipher_init(struct hip_esp_ctx *ctx, const uint8_t *key)
{
	const char *name = esp_cipher_name(ctx->info.suite);
	uint8_t ivkey[16];
	int rc = 0;

	if (!name)
		return 0;       /* NULL encryption */
	ctx->cipher = EVP_CIPHER_fetch(NULL, name, NULL);
	ctx->cctx = EVP_CIPHER_CTX_new();
	if (!ctx->cipher || !ctx->cctx)
		return -ENOMEM;
	if (EVP_CipherInit_ex(ctx->cctx, ctx->cipher, NULL, key, NULL, ctx->encrypt) != 1)
		return cw_ossl_err("ESP cipher init");
	if (esp_is_gcm(ctx)) {
		memcpy(ctx->salt, key + 16, ESP_GCM_SALT);
		return 0;
	}
	if (EVP_CIPHER_CTX_set_padding(ctx->cctx, 0) != 1)
		return cw_ossl_err("ESP padding off");
	if (!ctx->encrypt)
		return 0;
	ctx->ecb = EVP_CIPHER_fetch(NULL, "AES-128-ECB", NULL);
	ctx->ivctx = EVP_CIPHER_CTX_new();
	if (!ctx->ecb || !ctx->ivctx)
		return -ENOMEM;
	rc = hip_random(ivkey, sizeof(ivkey));
	if (rc)
		goto out;
	if (EVP_EncryptInit_ex(ctx->ivctx, ctx->ecb, NULL, ivkey, NULL) != 1 ||
	    EVP_CIPHER_CTX_set_padding(ctx->ivctx, 0) != 1)
		rc = cw_ossl_err("ESP IV generator");
out:
	hip_wipe(ivkey, sizeof(ivkey));
	return rc;
}

int hip_esp_ctx_new(uint16_t suite, const uint8_t *enc_key, size_t enc_len,
		    const uint8_t *auth_key, size_t auth_len, bool encrypt,
		    struct hip_esp_ctx **out)
{
	struct hip_esp_ctx *ctx;
	struct hip_esp_suite_info info;
	int rc;

	if (!out)
		return -EINVAL;
	*out = NULL;
	rc = hip_esp_suite_info(suite, &info);
	if (rc)
		return rc;
	if (enc_len != info.enc_key_len || auth_len != info.auth_key_len ||
	    (enc_len && !enc_key) || (auth_len && !auth_key))
		return -EINVAL;
	rc = hip_crypto_init();
	if (rc)
		return rc;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->info = info;
	ctx->encrypt = encrypt;
	ctx->esn = true;
	rc = esp_ctx_cipher_init(ctx, enc_key);
	if (!rc && auth_len)
		rc = esp_ctx_mac_init(ctx, auth_key, auth_len);
	if (rc) {
		hip_esp_ctx_free(ctx);
		return rc;
	}
	*out = ctx;
	return 0;
}

const struct hip_esp_suite_info *hip_esp_ctx_info(const struct hip_esp_ctx *ctx)
{
	return &ctx->info;
}

void hip_esp_ctx_set_no_esn_for_test(struct hip_esp_ctx *ctx)
{
	ctx->esn = false;
}

/* One GCM operation: buf (len) en/decrypted in place; tag written (seal) or
 * checked (open). -EBADMSG on a tag mismatch. */
static int esp_gcm(struct hip_esp_ctx *ctx, const uint8_t iv[ESP_GCM_IV],
		   const uint8_t *aad, size_t aad_len, uint8_t *buf, size_t len,
		   uint8_t *tag)
{
	uint8_t nonce[ESP_GCM_SALT + ESP_GCM_IV];
	int n = 0;

	if (len > INT_MAX || aad_len > INT_MAX)
		return -EINVAL;
	memcpy(nonce, ctx->salt, ESP_GCM_SALT);
	memcpy(nonce + ESP_GCM_SALT, iv, ESP_GCM_IV);
	if (EVP_CipherInit_ex(ctx->cctx, NULL, NULL, NULL, nonce, -1) != 1)
		return cw_ossl_err("GCM IV");
	if (aad_len && EVP_CipherUpdate(ctx->cctx, NULL, &n, aad, (int)aad_len) != 1)
		return cw_ossl_err("GCM AAD");
	if (len && EVP_CipherUpdate(ctx->cctx, buf, &n, buf, (int)len) != 1)
		return cw_ossl_err("GCM update");
	if (ctx->encrypt) {
		if (EVP_CipherFinal_ex(ctx->cctx, buf + len, &n) != 1 ||
		    EVP_CIPHER_CTX_ctrl(ctx->cctx, EVP_CTRL_GCM_GET_TAG, (int)ctx->info.icv_len,
					tag) != 1)
			return cw_ossl_err("GCM final");
		return 0;
	}
	if (EVP_CIPHER_CTX_ctrl(ctx->cctx, EVP_CTRL_GCM_SET_TAG, (int)ctx->info.icv_len,
				tag) != 1)
		return cw_ossl_err("GCM tag");
	if (EVP_CipherFinal_ex(ctx->cctx, buf + len, &n) != 1) {
		cw_ossl_err("GCM verify");
		return -EBADMSG;
	}
	return 0;
}

int hip_esp_gcm_raw_for_test(struct hip_esp_ctx *ctx, const uint8_t iv[8],
			     const uint8_t *aad, size_t aad_len, uint8_t *buf, size_t len,
			     uint8_t *tag)
{
	if (!ctx || !esp_is_gcm(ctx))
		return -EINVAL;
	return esp_gcm(ctx, iv, aad, aad_len, buf, len, tag);
}

/* HMAC over the ESP packet up to the ICV, then seq_hi. */
static int esp_hmac(struct hip_esp_ctx *ctx, const uint8_t *esp, size_t len, uint32_t seq_hi,
		    uint8_t mac[ESP_MAC_MAX])
{
	uint8_t hi[4];
	size_t mac_len = 0;

	hip_wr32(hi, seq_hi);
	if (EVP_MAC_init(ctx->mac, NULL, 0, NULL) != 1 ||
	    EVP_MAC_update(ctx->mac, esp, len) != 1 ||
	    (ctx->esn && EVP_MAC_update(ctx->mac, hi, sizeof(hi)) != 1) ||
	    EVP_MAC_final(ctx->mac, mac, &mac_len, ESP_MAC_MAX) != 1)
		return cw_ossl_err("ESP HMAC");
	return 0;
}

static int esp_cbc(struct hip_esp_ctx *ctx, const uint8_t *iv, uint8_t *buf, size_t len)
{
	int n = 0;

	if (len > INT_MAX)
		return -EINVAL;
	if (EVP_CipherInit_ex(ctx->cctx, NULL, NULL, NULL, iv, -1) != 1 ||
	    (len && EVP_CipherUpdate(ctx->cctx, buf, &n, buf, (int)len) != 1))
		return cw_ossl_err("ESP CBC");
	return 0;
}

int hip_esp_seal(struct hip_esp_ctx *ctx, uint32_t spi, uint64_t seq, uint8_t *esp,
		 size_t plain_len, size_t *esp_len)
{
	const struct hip_esp_suite_info *in;
	uint8_t aad[12], ivin[ESP_AES_BLOCK], mac[ESP_MAC_MAX];
	uint8_t *iv, *data;
	int n = 0, rc;

	if (!ctx || !esp || !esp_len || !ctx->encrypt)
		return -EINVAL;
	in = &ctx->info;
	if (plain_len % in->block || plain_len < 2 || plain_len > INT_MAX - 64)
		return -EINVAL;
	hip_wr32(esp, spi);
	hip_wr32(esp + 4, (uint32_t)seq);
	iv = esp + ESP_HDR;
	data = iv + in->iv_len;
	if (esp_is_gcm(ctx)) {
		for (int k = 0; k < 8; k++)
			iv[k] = (uint8_t)(seq >> (56 - 8 * k));
		hip_wr32(aad, spi);
		if (ctx->esn) {
			hip_wr32(aad + 4, (uint32_t)(seq >> 32));
			hip_wr32(aad + 8, (uint32_t)seq);
		} else {        /* 32-bit AAD: SPI | seq (RFC 4106 §5) */
			hip_wr32(aad + 4, (uint32_t)seq);
		}
		rc = esp_gcm(ctx, iv, aad, ctx->esn ? 12 : 8, data, plain_len,
			     data + plain_len);
		if (rc)
			return rc;
	} else {
		if (in->iv_len) {
			for (int k = 0; k < 8; k++)
				ivin[k] = (uint8_t)(seq >> (56 - 8 * k));
			hip_wr32(ivin + 8, spi);
			hip_wr32(ivin + 12, 0);
			if (EVP_EncryptUpdate(ctx->ivctx, iv, &n, ivin, ESP_AES_BLOCK) != 1)
				return cw_ossl_err("ESP IV");
			rc = esp_cbc(ctx, iv, data, plain_len);
			if (rc)
				return rc;
		}
		rc = esp_hmac(ctx, esp, ESP_HDR + in->iv_len + plain_len,
			      (uint32_t)(seq >> 32), mac);
		if (rc)
			return rc;
		memcpy(data + plain_len, mac, in->icv_len);
	}
	*esp_len = ESP_HDR + in->iv_len + plain_len + in->icv_len;
	return 0;
}

int hip_esp_open(struct hip_esp_ctx *ctx, uint32_t seq_hi, uint8_t *esp, size_t esp_len,
		 size_t *plain_len)
{
	const struct hip_esp_suite_info *in;
	uint8_t aad[12], mac[ESP_MAC_MAX];
	uint8_t *data;
	size_t clen;
	int rc;

	if (!ctx || !esp || !plain_len || ctx->encrypt)
		return -EINVAL;
	*plain_len = 0;
	in = &ctx->info;
	if (esp_len < ESP_HDR + in->iv_len + in->icv_len + 4 || esp_len > INT_MAX)
		return -EBADMSG;
	clen = esp_len - ESP_HDR - in->iv_len - in->icv_len;
	if (clen % in->block)
		return -EBADMSG;
	data = esp + ESP_HDR + in->iv_len;
	if (esp_is_gcm(ctx)) {
		memcpy(aad, esp, 4);
		if (ctx->esn) {
			hip_wr32(aad + 4, seq_hi);
			memcpy(aad + 8, esp + 4, 4);
		} else {
			memcpy(aad + 4, esp + 4, 4);
		}
		rc = esp_gcm(ctx, esp + ESP_HDR, aad, ctx->esn ? 12 : 8, data, clen,
			     data + clen);
		if (rc)
			return rc;
	} else {
		/* Verify before decrypting (RFC 4303 §3.4.4). */
		rc = esp_hmac(ctx, esp, ESP_HDR + in->iv_len + clen, seq_hi, mac);
		if (rc)
			return rc;
		if (!hip_memeq_ct(mac, data + clen, in->icv_len))
			return -EBADMSG;
		if (in->iv_len) {
			rc = esp_cbc(ctx, esp + ESP_HDR, data, clen);
			if (rc)
				return rc;
		}
	}
	*plain_len = clen;
	return 0;
}
