/*
 * dh.c - ephemeral Diffie-Hellman for DIFFIE_HELLMAN (RFC 7401 §5.2.7,
 * §6.5) with the encodings of docs/decisions.md A-4: MODP public values left-padded
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
	/* ECDH: a derive context on pkey and a peer key of its curve, made
	 * with the key pair (off the packet path), reused by every derive:
	 * making a new EVP_PKEY costs OpenSSL 3.0 a walk over its whole name
	 * map, more time on a busy machine than the point multiplication.
	 * Each derive replaces the peer key's point, so one hip_dh serves one
	 * thread at a time (hipd has one). */
	EVP_PKEY *peer;
	EVP_PKEY_CTX *derive;
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
	EVP_PKEY_CTX_free(dh->derive);
	EVP_PKEY_free(dh->peer);
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
		/* One conversion to affine coordinates, not one per coordinate. */
		ret = cw_ec_public_xy(dh->pkey, g->pub_len / 2, dh->pub);
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
	if (!ret && g->ecdh) {
		dh->peer = EVP_PKEY_new();
		dh->derive = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);
		if (!dh->peer || !dh->derive || EVP_PKEY_copy_parameters(dh->peer, pkey) != 1 ||
		    EVP_PKEY_derive_init(dh->derive) != 1)
			ret = cw_ossl_err("ECDH derive setup");
	}
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
	/* ECDH: from the cached curve parameters (no curve built by name). */
	if (g->ecdh)
		ctx = EVP_PKEY_CTX_new_from_pkey(NULL, (EVP_PKEY *)cw_ec_params(g->name), NULL);
	else
		ctx = EVP_PKEY_CTX_new_from_name(NULL, "DH", NULL);
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME,
						     (char *)g->name, 0);
	params[1] = OSSL_PARAM_construct_end();
	if (!g->ecdh)
		params[1] = OSSL_PARAM_construct_int(OSSL_PKEY_PARAM_DH_PRIV_LEN, &priv_bits);
	params[2] = OSSL_PARAM_construct_end();
	if (!ctx || EVP_PKEY_keygen_init(ctx) != 1 ||
	    (!g->ecdh && EVP_PKEY_CTX_set_params(ctx, params) != 1) ||
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

/* ECDH: exactly x | y; setting 0x04 | x | y as the public key of our peer
 * key (same curve) decodes the point, which checks that it is on the curve
 * and its coordinates below p. */
static int dh_peer_ecdh(const struct hip_dh *dh, const uint8_t *peer, size_t len)
{
	uint8_t pt[1 + DH_PUB_MAX];

	if (len != dh->grp->pub_len)
		return -EBADMSG;
	pt[0] = 0x04;
	memcpy(pt + 1, peer, len);
	if (EVP_PKEY_set1_encoded_public_key(dh->peer, pt, len + 1) != 1) {
		cw_ossl_err("ECDH peer point");
		return -EBADMSG;
	}
	return 0;
}

/* ECDH with the derive context and peer key made with the key pair. */
static int dh_derive_ecdh(const struct hip_dh *dh, const uint8_t *peer, size_t peer_len,
			  uint8_t *kij, size_t *len)
{
	int ret = dh_peer_ecdh(dh, peer, peer_len);

	if (ret)
		return ret;
	/* validate = 0: the point was curve-checked above. */
	if (EVP_PKEY_derive_set_peer_ex(dh->derive, dh->peer, 0) != 1 ||
	    EVP_PKEY_derive(dh->derive, kij, len) != 1) {
		cw_ossl_err("ECDH derive");
		return -EBADMSG;
	}
	return 0;
}

/* MODP: a context and a peer key per derive (MODP groups are for peers
 * that offer nothing better; their exponentiation dwarfs this). */
static int dh_derive_modp(const struct hip_dh *dh, const uint8_t *peer, size_t peer_len,
			  uint8_t *kij, size_t *len)
{
	unsigned int pad = 1;
	OSSL_PARAM params[2];
	EVP_PKEY_CTX *ctx = NULL;
	EVP_PKEY *peer_key = NULL;
	int ret;

	ret = dh_peer_modp(dh, peer, peer_len, &peer_key);
	if (ret)
		return ret;
	ctx = EVP_PKEY_CTX_new_from_pkey(NULL, dh->pkey, NULL);
	if (!ctx || EVP_PKEY_derive_init(ctx) != 1) {
		ret = cw_ossl_err("derive init");
		goto out;
	}
	/* Keep leading zeros: Kij is always the modulus length. */
	params[0] = OSSL_PARAM_construct_uint(OSSL_EXCHANGE_PARAM_PAD, &pad);
	params[1] = OSSL_PARAM_construct_end();
	if (EVP_PKEY_CTX_set_params(ctx, params) != 1) {
		ret = cw_ossl_err("DH pad");
		goto out;
	}
	/* validate = 0: the peer value was range-checked above. */
	if (EVP_PKEY_derive_set_peer_ex(ctx, peer_key, 0) != 1 ||
	    EVP_PKEY_derive(ctx, kij, len) != 1) {
		cw_ossl_err("derive");
		ret = -EBADMSG;
	}
out:
	EVP_PKEY_CTX_free(ctx);
	EVP_PKEY_free(peer_key);
	return ret;
}

int hip_dh_derive(const struct hip_dh *dh, const uint8_t *peer, size_t peer_len,
		  uint8_t *kij, size_t kij_len)
{
	uint8_t nonzero = 0;
	size_t len = kij_len;
	int ret;

	if (!dh || !peer || !kij || kij_len != dh->grp->secret_len)
		return -EINVAL;
	if (dh->grp->ecdh)
		ret = dh_derive_ecdh(dh, peer, peer_len, kij, &len);
	else
		ret = dh_derive_modp(dh, peer, peer_len, kij, &len);
	if (ret)
		goto out;
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
