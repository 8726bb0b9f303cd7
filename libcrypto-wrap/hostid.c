/*
 * hostid.c - Host Identities: generation, PKCS#8 PEM storage and the Host
 * Identity field of HOST_ID (RFC 7401 §5.2.9). RSA is encoded as in
 * RFC 3110 §2, ECDSA as curve(16) | 0x04 | X | Y, uncompressed only
 * (docs/decisions.md A-3). Signatures live in hostid_sig.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>

#include "byteorder.h"
#include "cw_hostid.h"

enum {
	RSA_GEN_BITS      = 3072,
	RSA_GEN_E         = 65537,
	RSA_MIN_BITS_OWN  = 2048,   /* our own keys: 112-bit strength (SP 800-131A) */
	RSA_MIN_BITS_PEER = 1024,
	RSA_MAX_BITS      = 16384,
	/* OpenSSL refuses exponents over 64 bits above 3072-bit moduli; a huge
	 * exponent would make each verification cost a private-key operation. */
	RSA_MAX_E_BYTES   = 8,
};

struct hi_kind_info {
	enum hip_hi_kind kind;
	const char *name;
	uint16_t curve_id;      /* ECDSA only */
	const char *group;      /* OpenSSL group name, ECDSA only */
	const char *nist_name;  /* the same group's NIST alias */
	size_t field_len;
};

static const struct hi_kind_info hi_kinds[] = {
	{ HIP_HI_KIND_ECDSA_P256, "ecdsa-p256", CW_ECDSA_CURVE_P256, "prime256v1", "P-256", 32 },
	{ HIP_HI_KIND_ECDSA_P384, "ecdsa-p384", CW_ECDSA_CURVE_P384, "secp384r1", "P-384", 48 },
	{ HIP_HI_KIND_RSA_3072,   "rsa-3072",   0, NULL, NULL, 0 },
};
enum { HI_NKINDS = sizeof(hi_kinds) / sizeof(hi_kinds[0]) };

static const struct hi_kind_info *hi_kind_info(enum hip_hi_kind kind)
{
	for (size_t i = 0; i < HI_NKINDS; i++)
		if (hi_kinds[i].kind == kind)
			return &hi_kinds[i];
	return NULL;
}

static const struct hi_kind_info *hi_curve_by_id(uint16_t curve_id)
{
	for (size_t i = 0; i < HI_NKINDS; i++)
		if (hi_kinds[i].group && hi_kinds[i].curve_id == curve_id)
			return &hi_kinds[i];
	return NULL;
}

static const struct hi_kind_info *hi_curve_by_group(const char *group)
{
	for (size_t i = 0; i < HI_NKINDS; i++)
		if (hi_kinds[i].group && (strcmp(group, hi_kinds[i].group) == 0 ||
					  strcmp(group, hi_kinds[i].nist_name) == 0))
			return &hi_kinds[i];
	return NULL;
}

struct hip_hi *hip_hi_ref(struct hip_hi *hi)
{
	if (hi)
		__atomic_add_fetch(&hi->extra_refs, 1, __ATOMIC_RELAXED);
	return hi;
}

void hip_hi_free(struct hip_hi *hi)
{
	unsigned refs;

	if (!hi)
		return;
	/* Not the last reference: drop it (compare-and-swap, so two threads
	 * releasing the last two cannot both skip the free). */
	refs = __atomic_load_n(&hi->extra_refs, __ATOMIC_ACQUIRE);
	while (refs > 0) {
		if (__atomic_compare_exchange_n(&hi->extra_refs, &refs, refs - 1, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return;
	}
	EVP_MD_CTX_free(hi->sign_tpl);
	EVP_MD_CTX_free(hi->verify_tpl);
	EVP_PKEY_free(hi->pkey);
	free(hi->wire);
	free(hi);
}

/* curve | 0x04 | X | Y, each coordinate left-padded to the field size. */
static int hi_encode_ecdsa(struct hip_hi *hi, const struct hi_kind_info *ki)
{
	size_t f = ki->field_len, len = 3 + 2 * f;
	uint8_t *w;
	int ret;

	w = malloc(len);
	if (!w)
		return -ENOMEM;
	hip_wr16(w, ki->curve_id);
	w[2] = 0x04;
	ret = cw_ec_public_xy(hi->pkey, f, w + 3);
	if (ret) {
		free(w);
		return ret;
	}
	hi->wire = w;
	hi->wire_len = len;
	return 0;
}

/* RFC 3110 §2: e_len (1 byte, or 0 and 2 bytes) | e | n, minimal big-endian. */
static int hi_encode_rsa(struct hip_hi *hi)
{
	BIGNUM *n = NULL, *e = NULL;
	size_t e_len, n_len, off, len;
	uint8_t *w = NULL;
	int ret;

	if (!EVP_PKEY_get_bn_param(hi->pkey, OSSL_PKEY_PARAM_RSA_N, &n) ||
	    !EVP_PKEY_get_bn_param(hi->pkey, OSSL_PKEY_PARAM_RSA_E, &e)) {
		ret = cw_ossl_err("RSA public key");
		goto out;
	}
	e_len = (size_t)BN_num_bytes(e);
	n_len = (size_t)BN_num_bytes(n);
	/* An even or unit exponent, or an even modulus, is no RSA key. */
	if (e_len == 0 || e_len > RSA_MAX_E_BYTES || !BN_is_odd(e) || BN_is_one(e) ||
	    !BN_is_odd(n)) {
		ret = -ENOTSUP;
		goto out;
	}
	off = e_len > 255 ? 3 : 1;
	len = off + e_len + n_len;
	w = malloc(len);
	if (!w) {
		ret = -ENOMEM;
		goto out;
	}
	if (off == 3) {
		w[0] = 0;
		hip_wr16(w + 1, (uint16_t)e_len);
	} else {
		w[0] = (uint8_t)e_len;
	}
	BN_bn2bin(e, w + off);
	BN_bn2bin(n, w + off + e_len);
	hi->wire = w;
	hi->wire_len = len;
	w = NULL;
	ret = 0;
out:
	free(w);
	BN_free(n);
	BN_free(e);
	return ret;
}

/* An ECDSA key of curve ki: its wire encoding is made from the key, or,
 * for a key just imported from wire bytes, is those bytes (exact length,
 * uncompressed, coordinates < p and on the curve: checked by the import,
 * so they are the canonical encoding; re-encoding would cost a conversion
 * to affine coordinates). */
static int hi_set_ecdsa(struct hip_hi *hi, const struct hi_kind_info *ki,
			const uint8_t *wire, size_t wire_len)
{
	hi->kind = ki->kind;
	hi->algorithm = CW_HI_ALG_ECDSA;
	hi->field_len = ki->field_len;
	hi->sig_len = 2 * ki->field_len;
	if (!wire)
		return hi_encode_ecdsa(hi, ki);
	hi->wire = malloc(wire_len);
	if (!hi->wire)
		return -ENOMEM;
	memcpy(hi->wire, wire, wire_len);
	hi->wire_len = wire_len;
	return 0;
}

/* Wrap pkey (ownership passes, also on failure) after checking that it is a
 * kind we support, and compute its wire encoding once. wire_ki and wire:
 * an ECDSA key imported from these wire bytes of that curve (else NULL). */
static int hi_from_pkey(EVP_PKEY *pkey, bool has_private, int rsa_min_bits,
			const struct hi_kind_info *wire_ki, const uint8_t *wire,
			size_t wire_len, struct hip_hi **out)
{
	struct hip_hi *hi;
	int ret;

	hi = calloc(1, sizeof(*hi));
	if (!hi) {
		EVP_PKEY_free(pkey);
		return -ENOMEM;
	}
	hi->pkey = pkey;
	hi->has_private = has_private;
	if (wire_ki) {
		ret = hi_set_ecdsa(hi, wire_ki, wire, wire_len);
	} else if (EVP_PKEY_is_a(pkey, "EC")) {
		const struct hi_kind_info *ki;
		char group[64];

		if (!EVP_PKEY_get_utf8_string_param(pkey, OSSL_PKEY_PARAM_GROUP_NAME,
						    group, sizeof(group), NULL)) {
			cw_ossl_err("EC group name");
			ret = -ENOTSUP; /* explicit curve parameters */
			goto out;
		}
		ki = hi_curve_by_group(group);
		if (!ki) {
			ret = -ENOTSUP;
			goto out;
		}
		ret = hi_set_ecdsa(hi, ki, NULL, 0);
	} else if (EVP_PKEY_is_a(pkey, "RSA")) {
		int bits = EVP_PKEY_get_bits(pkey);

		if (bits < rsa_min_bits || bits > RSA_MAX_BITS) {
			ret = -ENOTSUP;
			goto out;
		}
		hi->kind = HIP_HI_KIND_RSA_3072;
		hi->algorithm = CW_HI_ALG_RSA;
		hi->sig_len = (size_t)EVP_PKEY_get_size(pkey);
		ret = hi_encode_rsa(hi);
	} else {
		ret = -ENOTSUP;     /* RSA-PSS-only keys, Ed25519, DSA ... */
	}
	if (!ret)
		ret = cw_hi_sig_prepare(hi);
out:
	if (ret) {
		hip_hi_free(hi);
		return ret;
	}
	*out = hi;
	return 0;
}

int hip_hi_generate(enum hip_hi_kind kind, struct hip_hi **out)
{
	const struct hi_kind_info *ki = hi_kind_info(kind);
	size_t bits = RSA_GEN_BITS;
	unsigned int e = RSA_GEN_E;
	EVP_PKEY_CTX *ctx = NULL;
	EVP_PKEY *pkey = NULL;
	OSSL_PARAM params[3];
	int ret;

	if (!ki || !out)
		return -EINVAL;
	if (ki->group) {
		ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
		params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME,
							     (char *)ki->group, 0);
		params[1] = OSSL_PARAM_construct_end();
	} else {
		ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
		params[0] = OSSL_PARAM_construct_size_t(OSSL_PKEY_PARAM_RSA_BITS, &bits);
		params[1] = OSSL_PARAM_construct_uint(OSSL_PKEY_PARAM_RSA_E, &e);
		params[2] = OSSL_PARAM_construct_end();
	}
	if (!ctx || EVP_PKEY_keygen_init(ctx) != 1 || EVP_PKEY_CTX_set_params(ctx, params) != 1 ||
	    EVP_PKEY_generate(ctx, &pkey) != 1) {
		ret = cw_ossl_err("HI keygen");
		goto out;
	}
	ret = hi_from_pkey(pkey, true, RSA_MIN_BITS_OWN, NULL, NULL, 0, out);
out:
	EVP_PKEY_CTX_free(ctx);
	return ret;
}

/* Never prompt on a terminal for an encrypted key: fail instead. */
static int hi_no_passphrase(char *buf, int size, int rwflag, void *u)
{
	(void)buf;
	(void)size;
	(void)rwflag;
	(void)u;
	return -1;
}

int hip_hi_load_pem(const char *path, struct hip_hi **out)
{
	EVP_PKEY *pkey = NULL;
	FILE *fp = NULL;
	struct stat st;
	int fd, ret;

	if (!path || !out)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	/* Check the file we opened, not the name (no check-then-open race). */
	if (fstat(fd, &st) != 0) {
		ret = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		goto out;
	}
	if (st.st_mode & 077) {
		ret = -EACCES;
		goto out;
	}
	fp = fdopen(fd, "r");
	if (!fp) {
		ret = -errno;
		goto out;
	}
	fd = -1;
	pkey = PEM_read_PrivateKey(fp, NULL, hi_no_passphrase, NULL);
	if (!pkey) {
		cw_ossl_err("PEM read");
		ret = -EBADMSG;
		goto out;
	}
	ret = hi_from_pkey(pkey, true, RSA_MIN_BITS_OWN, NULL, NULL, 0, out);
out:
	if (fp)
		fclose(fp);
	if (fd >= 0)
		close(fd);
	return ret;
}

int hip_hi_save_pem(const struct hip_hi *hi, const char *path)
{
	size_t plen;
	char *tmp = NULL;
	FILE *fp = NULL;
	int fd = -1, ret;

	if (!hi || !path || !hi->has_private)
		return -EINVAL;
	plen = strlen(path);
	tmp = malloc(plen + sizeof(".XXXXXX"));
	if (!tmp)
		return -ENOMEM;
	memcpy(tmp, path, plen);
	memcpy(tmp + plen, ".XXXXXX", sizeof(".XXXXXX"));
	/* A fresh file in the same directory, created O_EXCL with mode 0600,
	 * so the key is never readable by others; rename() makes the switch
	 * atomic and never writes through an existing file or link. */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		free(tmp);
		return ret;
	}
	fp = fdopen(fd, "w");
	if (!fp) {
		ret = -errno;
		goto out;
	}
	fd = -1;
	if (PEM_write_PKCS8PrivateKey(fp, hi->pkey, NULL, NULL, 0, NULL, NULL) != 1) {
		ret = cw_ossl_err("PEM write");
		goto out;
	}
	if (fflush(fp) != 0 || fsync(fileno(fp)) != 0) {
		ret = -errno;
		goto out;
	}
	ret = fclose(fp) == 0 ? 0 : -errno;
	fp = NULL;
	if (ret == 0 && rename(tmp, path) != 0)
		ret = -errno;
out:
	if (fp)
		fclose(fp);
	if (fd >= 0)
		close(fd);
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

/* Import public key material; bad material (a point off the curve) fails. */
static int hi_import_public(const char *type, const OSSL_PARAM *params, EVP_PKEY **pkey)
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
	int ret = 0;

	if (!ctx || EVP_PKEY_fromdata_init(ctx) != 1) {
		ret = cw_ossl_err("fromdata init");
		goto out;
	}
	if (EVP_PKEY_fromdata(ctx, pkey, EVP_PKEY_PUBLIC_KEY, (OSSL_PARAM *)params) != 1) {
		cw_ossl_err("public key import");
		ret = -EBADMSG;
	}
out:
	EVP_PKEY_CTX_free(ctx);
	return ret;
}

/* RFC 3110 §2. Syntax errors give -EBADMSG, sizes we refuse -ENOTSUP. */
static int hi_rsa_from_wire(const uint8_t *w, size_t len, EVP_PKEY **pkey)
{
	OSSL_PARAM_BLD *bld = NULL;
	OSSL_PARAM *params = NULL;
	BIGNUM *e = NULL, *n = NULL;
	size_t off, e_len, n_len;
	int ret = -EBADMSG, bits;

	if (len < 1)
		goto out;
	e_len = w[0];
	off = 1;
	if (e_len == 0) {
		/* 0, then a 16-bit length, only for exponents over 255 bytes */
		if (len < 3)
			goto out;
		e_len = hip_rd16(w + 1);
		off = 3;
		if (e_len <= 255)
			goto out;
	}
	if (e_len >= len - off)
		goto out;       /* overruns, or leaves no modulus */
	n_len = len - off - e_len;
	/* "Leading zero octets are prohibited in the exponent and modulus." */
	if (w[off] == 0 || w[off + e_len] == 0)
		goto out;
	if (e_len > RSA_MAX_E_BYTES) {
		ret = -ENOTSUP;
		goto out;
	}
	e = BN_bin2bn(w + off, (int)e_len, NULL);
	n = BN_bin2bn(w + off + e_len, (int)n_len, NULL);
	if (!e || !n) {
		ret = -ENOMEM;
		goto out;
	}
	if (!BN_is_odd(e) || BN_is_one(e) || !BN_is_odd(n) || BN_cmp(e, n) >= 0)
		goto out;
	bits = BN_num_bits(n);
	if (bits < RSA_MIN_BITS_PEER || bits > RSA_MAX_BITS) {
		ret = -ENOTSUP;
		goto out;
	}
	bld = OSSL_PARAM_BLD_new();
	if (!bld || !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e) ||
	    !(params = OSSL_PARAM_BLD_to_param(bld))) {
		ret = cw_ossl_err("RSA params");
		goto out;
	}
	ret = hi_import_public("RSA", params, pkey);
out:
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	BN_free(e);
	BN_free(n);
	return ret;
}

/* curve(16) | 0x04 | X | Y at exactly the field size (docs/decisions.md A-3). */
static int hi_ecdsa_from_wire(const uint8_t *w, size_t len, EVP_PKEY **pkey,
			      const struct hi_kind_info **ki_out)
{
	const struct hi_kind_info *ki;

	if (len < 2)
		return -EBADMSG;
	ki = hi_curve_by_id(hip_rd16(w));
	if (!ki)
		return -ENOTSUP;
	if (len != 3 + 2 * ki->field_len || w[2] != 0x04)
		return -EBADMSG;
	*ki_out = ki;
	/* From the cached curve parameters: building the curve from its name
	 * (EVP_PKEY_fromdata) would cost more than the rest of the import. */
	return cw_ec_public_from_point(cw_ec_params(ki->group), w + 2, len - 2, pkey);
}

int hip_hi_from_wire(uint16_t algorithm, const uint8_t *hi_wire, size_t hi_len,
		     struct hip_hi **out)
{
	const struct hi_kind_info *ki = NULL;
	EVP_PKEY *pkey = NULL;
	struct hip_hi *hi = NULL;
	int ret;

	if (!hi_wire || !out)
		return -EINVAL;
	if (algorithm == CW_HI_ALG_RSA)
		ret = hi_rsa_from_wire(hi_wire, hi_len, &pkey);
	else if (algorithm == CW_HI_ALG_ECDSA)
		ret = hi_ecdsa_from_wire(hi_wire, hi_len, &pkey, &ki);
	else
		ret = -ENOTSUP;
	if (ret)
		return ret;
	ret = hi_from_pkey(pkey, false, RSA_MIN_BITS_PEER, ki, hi_wire, hi_len, &hi);
	if (ret)
		return ret;
	/* The HIT hashes these exact bytes: our canonical re-encoding must
	 * match them, which the strict parsing above guarantees (ECDSA keeps
	 * the checked bytes themselves). */
	if (hi->wire_len != hi_len || memcmp(hi->wire, hi_wire, hi_len) != 0) {
		hip_hi_free(hi);
		return -EBADMSG;
	}
	*out = hi;
	return 0;
}

uint16_t hip_hi_algorithm(const struct hip_hi *hi)
{
	return hi ? hi->algorithm : 0;
}

enum hip_hi_kind hip_hi_kind(const struct hip_hi *hi)
{
	return hi ? hi->kind : HIP_HI_KIND_ECDSA_P256;
}

const char *hip_hi_kind_name(enum hip_hi_kind kind)
{
	const struct hi_kind_info *ki = hi_kind_info(kind);

	return ki ? ki->name : "unknown";
}

int hip_hi_kind_from_name(const char *name, enum hip_hi_kind *out)
{
	if (!name || !out)
		return -EINVAL;
	for (size_t i = 0; i < HI_NKINDS; i++) {
		if (strcmp(name, hi_kinds[i].name) == 0) {
			*out = hi_kinds[i].kind;
			return 0;
		}
	}
	return -ENOTSUP;
}

enum hip_rhash hip_hi_suite(const struct hip_hi *hi)
{
	/* HIT Suite 1 = RSA/DSA with SHA-256, 2 = ECDSA with SHA-384 (§5.2.10) */
	return hi && hi->algorithm == CW_HI_ALG_RSA ? HIP_RHASH_SHA256 : HIP_RHASH_SHA384;
}

const uint8_t *hip_hi_wire(const struct hip_hi *hi, size_t *len)
{
	if (!hi) {
		if (len)
			*len = 0;
		return NULL;
	}
	if (len)
		*len = hi->wire_len;
	return hi->wire;
}

bool hip_hi_has_private(const struct hip_hi *hi)
{
	return hi && hi->has_private;
}

size_t hip_hi_sig_len(const struct hip_hi *hi)
{
	return hi ? hi->sig_len : 0;
}

int hip_hi_fingerprint(const struct hip_hi *hi, uint8_t out[32])
{
	const EVP_MD *md = cw_md(HIP_RHASH_SHA256);

	if (!hi || !out)
		return -EINVAL;
	if (!md)
		return -EIO;
	if (EVP_Digest(hi->wire, hi->wire_len, out, NULL, md, NULL) != 1)
		return cw_ossl_err("fingerprint");
	return 0;
}
