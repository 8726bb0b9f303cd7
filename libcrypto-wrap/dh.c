/*
 * dh.c - ephemeral Diffie-Hellman for DIFFIE_HELLMAN (RFC 7401 §5.2.7,
 * §6.5) with the encodings of spec.md A-4: MODP public values left-padded
 * to the modulus length, ECDH public values x | y at the field size without
 * 0x04, and Kij left-padded to its full length (MODP g^xy mod p; ECDH the
 * x-coordinate, RFC 5903 §7). Leading zero bytes are never stripped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/objects.h>
#include <openssl/param_build.h>

#include "cw_internal.h"

enum { DH_PUB_MAX = 384 };

struct dh_group {
	uint8_t id;
	bool ecdh;
	const char *name;       /* OpenSSL group name */
	size_t pub_len;         /* on the wire */
	size_t secret_len;      /* Kij */
	/* MODP: private exponent bits. Short exponents are safe for these safe
	 * primes (RFC 3526 §8: at least 2 x the strength, 180 and 260 bits) and
	 * make keygen and derive several times cheaper than full length. These
	 * are OpenSSL 3.0's named-group defaults, pinned here explicitly. */
	size_t priv_bits;
};

static const struct dh_group dh_groups[] = {
	{ 3, false, "modp_1536",  192, 192, 200 },
	{ 4, false, "modp_3072",  384, 384, 275 },
	{ 7, true,  "prime256v1",  64,  32,   0 },
	{ 8, true,  "secp384r1",   96,  48,   0 },
};

struct hip_dh {
	EVP_PKEY *pkey;
	const struct dh_group *grp;
	uint8_t pub[DH_PUB_MAX];        /* our public value, wire-encoded */
	uint8_t p_minus_1[DH_PUB_MAX];  /* MODP: upper bound for a peer's y */
};

static const struct dh_group *dh_group_find(uint8_t id)
{
	for (size_t i = 0; i < sizeof(dh_groups) / sizeof(dh_groups[0]); i++)
		if (dh_groups[i].id == id)
			return &dh_groups[i];
	return NULL;
}

bool hip_dh_group_supported(uint8_t group_id)
{
	return dh_group_find(group_id) != NULL;
}

size_t hip_dh_pub_len(uint8_t group_id)
{
	const struct dh_group *g = dh_group_find(group_id);

	return g ? g->pub_len : 0;
}

size_t hip_dh_secret_len(uint8_t group_id)
{
	const struct dh_group *g = dh_group_find(group_id);

	return g ? g->secret_len : 0;
}

uint8_t hip_dh_group(const struct hip_dh *dh)
{
	return dh ? dh->grp->id : 0;
}

void hip_dh_free(struct hip_dh *dh)
{
	if (!dh)
		return;
	EVP_PKEY_free(dh->pkey);     /* OpenSSL clears the private value */
	hip_wipe(dh, sizeof(*dh));
	free(dh);
}

/* Cache the wire-encoded public value and, for MODP, p - 1. */
static int dh_cache_public(struct hip_dh *dh)
{
	const struct dh_group *g = dh->grp;
	BIGNUM *a = NULL, *b = NULL;
	int ret = 0;

	if (g->ecdh) {
		size_t f = g->pub_len / 2;

		if (!EVP_PKEY_get_bn_param(dh->pkey, OSSL_PKEY_PARAM_EC_PUB_X, &a) ||
		    !EVP_PKEY_get_bn_param(dh->pkey, OSSL_PKEY_PARAM_EC_PUB_Y, &b) ||
		    BN_bn2binpad(a, dh->pub, (int)f) < 0 ||
		    BN_bn2binpad(b, dh->pub + f, (int)f) < 0)
			ret = cw_ossl_err("ECDH public value");
	} else {
		if (!EVP_PKEY_get_bn_param(dh->pkey, OSSL_PKEY_PARAM_PUB_KEY, &a) ||
		    !EVP_PKEY_get_bn_param(dh->pkey, OSSL_PKEY_PARAM_FFC_P, &b) ||
		    BN_bn2binpad(a, dh->pub, (int)g->pub_len) < 0 ||
		    BN_bn2binpad(b, dh->p_minus_1, (int)g->pub_len) < 0)
			ret = cw_ossl_err("DH public value");
		else
			dh->p_minus_1[g->pub_len - 1] -= 1;     /* p is odd: no borrow */
	}
	BN_free(a);
	BN_free(b);
	return ret;
}

static int dh_wrap(const struct dh_group *g, EVP_PKEY *pkey, struct hip_dh **out)
{
	struct hip_dh *dh = calloc(1, sizeof(*dh));
	int ret;

	if (!dh) {
		EVP_PKEY_free(pkey);
		return -ENOMEM;
	}
	dh->pkey = pkey;
	dh->grp = g;
	ret = dh_cache_public(dh);
	if (ret) {
		hip_dh_free(dh);
		return ret;
	}
	*out = dh;
	return 0;
}

int hip_dh_generate(uint8_t group_id, struct hip_dh **out)
{
	const struct dh_group *g = dh_group_find(group_id);
	EVP_PKEY_CTX *ctx = NULL;
	EVP_PKEY *pkey = NULL;
	OSSL_PARAM params[3];
	int priv_bits, ret;

	if (!out)
		return -EINVAL;
	if (!g)
		return -ENOTSUP;
	priv_bits = (int)g->priv_bits;
	ctx = EVP_PKEY_CTX_new_from_name(NULL, g->ecdh ? "EC" : "DH", NULL);
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME,
						     (char *)g->name, 0);
	params[1] = OSSL_PARAM_construct_end();
	if (!g->ecdh)
		params[1] = OSSL_PARAM_construct_int(OSSL_PKEY_PARAM_DH_PRIV_LEN, &priv_bits);
	params[2] = OSSL_PARAM_construct_end();
	if (!ctx || EVP_PKEY_keygen_init(ctx) != 1 || EVP_PKEY_CTX_set_params(ctx, params) != 1 ||
	    EVP_PKEY_generate(ctx, &pkey) != 1) {
		ret = cw_ossl_err("DH keygen");
		goto out;
	}
	ret = dh_wrap(g, pkey, out);
out:
	EVP_PKEY_CTX_free(ctx);
	return ret;
}

int hip_dh_public(const struct hip_dh *dh, uint8_t *out, size_t len)
{
	if (!dh || !out || len != dh->grp->pub_len)
		return -EINVAL;
	memcpy(out, dh->pub, len);
	return 0;
}

static int dh_import(const char *type, const OSSL_PARAM *params, int selection, EVP_PKEY **pkey)
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
	int ret = 0;

	if (!ctx || EVP_PKEY_fromdata_init(ctx) != 1) {
		ret = cw_ossl_err("fromdata init");
		goto out;
	}
	if (EVP_PKEY_fromdata(ctx, pkey, selection, (OSSL_PARAM *)params) != 1) {
		cw_ossl_err("DH import");
		ret = -EBADMSG;
	}
out:
	EVP_PKEY_CTX_free(ctx);
	return ret;
}

/* MODP: an unsigned integer of at most the modulus length, 1 < y < p - 1
 * (RFC 2785 range check; the full subgroup check would cost an
 * exponentiation and gains nothing with safe primes and ephemeral keys). */
static int dh_peer_modp(const struct hip_dh *dh, const uint8_t *peer, size_t len,
			EVP_PKEY **pkey)
{
	size_t mlen = dh->grp->pub_len;
	uint8_t y[DH_PUB_MAX];
	OSSL_PARAM_BLD *bld = NULL;
	OSSL_PARAM *params = NULL;
	BIGNUM *bn = NULL;
	uint8_t high = 0;
	int ret = -EBADMSG;

	if (len == 0 || len > mlen)
		return -EBADMSG;
	memset(y, 0, mlen - len);
	memcpy(y + mlen - len, peer, len);
	for (size_t i = 0; i + 1 < mlen; i++)
		high |= y[i];
	if (!high && y[mlen - 1] <= 1)
		goto out;                       /* y = 0 or 1 */
	if (memcmp(y, dh->p_minus_1, mlen) >= 0)
		goto out;                       /* y >= p - 1 */
	bn = BN_bin2bn(y, (int)mlen, NULL);
	bld = OSSL_PARAM_BLD_new();
	if (!bn || !bld ||
	    !OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, dh->grp->name, 0) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PUB_KEY, bn) ||
	    !(params = OSSL_PARAM_BLD_to_param(bld))) {
		ret = cw_ossl_err("DH peer params");
		goto out;
	}
	ret = dh_import("DH", params, EVP_PKEY_PUBLIC_KEY, pkey);
out:
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	BN_free(bn);
	return ret;
}

/* ECDH: exactly x | y; setting 0x04 | x | y as the public key decodes the
 * point, which checks that it is on the curve. The curve is copied from our
 * own key: several times cheaper than EVP_PKEY_fromdata with the group's
 * name, which looks the curve up and builds it anew each time. */
static int dh_peer_ecdh(const struct hip_dh *dh, const uint8_t *peer, size_t len,
			EVP_PKEY **pkey)
{
	uint8_t pt[1 + DH_PUB_MAX];
	EVP_PKEY *k;

	if (len != dh->grp->pub_len)
		return -EBADMSG;
	pt[0] = 0x04;
	memcpy(pt + 1, peer, len);
	k = EVP_PKEY_new();
	if (!k || EVP_PKEY_copy_parameters(k, dh->pkey) != 1) {
		EVP_PKEY_free(k);
		return cw_ossl_err("ECDH peer params");
	}
	if (EVP_PKEY_set1_encoded_public_key(k, pt, len + 1) != 1) {
		cw_ossl_err("ECDH peer point");
		EVP_PKEY_free(k);
		return -EBADMSG;
	}
	*pkey = k;
	return 0;
}

int hip_dh_derive(const struct hip_dh *dh, const uint8_t *peer, size_t peer_len,
		  uint8_t *kij, size_t kij_len)
{
	unsigned int pad = 1;
	OSSL_PARAM params[2];
	EVP_PKEY_CTX *ctx = NULL;
	EVP_PKEY *peer_key = NULL;
	uint8_t nonzero = 0;
	size_t len = kij_len;
	int ret;

	if (!dh || !peer || !kij || kij_len != dh->grp->secret_len)
		return -EINVAL;
	if (dh->grp->ecdh)
		ret = dh_peer_ecdh(dh, peer, peer_len, &peer_key);
	else
		ret = dh_peer_modp(dh, peer, peer_len, &peer_key);
	if (ret)
		return ret;
	ctx = EVP_PKEY_CTX_new_from_pkey(NULL, dh->pkey, NULL);
	if (!ctx || EVP_PKEY_derive_init(ctx) != 1) {
		ret = cw_ossl_err("derive init");
		goto out;
	}
	if (!dh->grp->ecdh) {
		/* Keep leading zeros: Kij is always the modulus length. */
		params[0] = OSSL_PARAM_construct_uint(OSSL_EXCHANGE_PARAM_PAD, &pad);
		params[1] = OSSL_PARAM_construct_end();
		if (EVP_PKEY_CTX_set_params(ctx, params) != 1) {
			ret = cw_ossl_err("DH pad");
			goto out;
		}
	}
	/* validate = 0: the peer value was range-checked or curve-checked above. */
	if (EVP_PKEY_derive_set_peer_ex(ctx, peer_key, 0) != 1 ||
	    EVP_PKEY_derive(ctx, kij, &len) != 1) {
		cw_ossl_err("derive");
		ret = -EBADMSG;
		goto out;
	}
	if (len != kij_len) {
		ret = -EIO;
		goto out;
	}
	for (size_t i = 0; i < len; i++)
		nonzero |= kij[i];
	ret = nonzero ? 0 : -EBADMSG;
out:
	if (ret)
		hip_wipe(kij, kij_len);
	EVP_PKEY_CTX_free(ctx);
	EVP_PKEY_free(peer_key);
	return ret;
}

/* Test seam (cw_internal.h): a key pair from a given ECDH private scalar,
 * for the RFC 5903 known-answer tests. The public point is computed here
 * with EC_POINT_mul, independently of OpenSSL's key generation. */
int hip_dh_import_private_for_test(uint8_t group_id, const uint8_t *priv, size_t len,
				   struct hip_dh **out)
{
	const struct dh_group *g = dh_group_find(group_id);
	uint8_t pt[1 + DH_PUB_MAX];
	OSSL_PARAM_BLD *bld = NULL;
	OSSL_PARAM *params = NULL;
	EC_GROUP *ecg = NULL;
	EC_POINT *q = NULL;
	BIGNUM *d = NULL;
	EVP_PKEY *pkey = NULL;
	int ret = -EIO;

	if (!g || !g->ecdh || !priv || !out || len != g->secret_len)
		return -EINVAL;
	ecg = EC_GROUP_new_by_curve_name(OBJ_sn2nid(g->name));
	d = BN_bin2bn(priv, (int)len, NULL);
	q = ecg ? EC_POINT_new(ecg) : NULL;
	if (!q || !d || !EC_POINT_mul(ecg, q, d, NULL, NULL, NULL) ||
	    EC_POINT_point2oct(ecg, q, POINT_CONVERSION_UNCOMPRESSED, pt, 1 + g->pub_len,
			       NULL) != 1 + g->pub_len)
		goto out;
	bld = OSSL_PARAM_BLD_new();
	if (!bld || !OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, g->name, 0) ||
	    !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, pt, 1 + g->pub_len) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, d) ||
	    !(params = OSSL_PARAM_BLD_to_param(bld)))
		goto out;
	ret = dh_import("EC", params, EVP_PKEY_KEYPAIR, &pkey);
	if (!ret)
		ret = dh_wrap(g, pkey, out);
out:
	if (ret)
		cw_ossl_err("test import");
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	EC_POINT_free(q);
	EC_GROUP_free(ecg);
	BN_clear_free(d);
	return ret;
}
