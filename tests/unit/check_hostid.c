/*
 * check_hostid.c - Host Identities: wire encoding (RFC 7401 §5.2.9,
 * RFC 3110, docs/decisions.md A-3), PEM storage and permissions, signatures
 * (docs/decisions.md A-2) cross-checked against the openssl command line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "hip_crypto.h"
#include "unit.h"

/* One key per kind for the whole suite: RSA-3072 generation takes ~0.5 s.
 * Filled by an unchecked fixture (run once, before the forked tests). */
static struct hip_hi *keys[3];
static char tmpdir[] = "/tmp/check_hostid.XXXXXX";

static const enum hip_hi_kind kinds[3] = {
	HIP_HI_KIND_ECDSA_P256, HIP_HI_KIND_ECDSA_P384, HIP_HI_KIND_RSA_3072,
};

static void keys_setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(hip_hi_generate(kinds[i], &keys[i]), 0);
}

static void keys_teardown(void)
{
	char cmd[128];

	for (int i = 0; i < 3; i++)
		hip_hi_free(keys[i]);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
}

/* Path of a per-test file in the temporary directory (static buffer). */
static const char *tpath(const char *fmt, ...)
{
	static char buf[16][512];
	static int slot;
	char name[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	slot = (slot + 1) % 16;
	snprintf(buf[slot], sizeof(buf[slot]), "%s/%s", tmpdir, name);
	return buf[slot];
}

/* Run a shell command quietly; returns its exit status. */
static int sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	strncat(cmd, " >/dev/null 2>&1", sizeof(cmd) - strlen(cmd) - 1);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *fp = fopen(path, "wb");

	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(data, 1, len, fp), len);
	ck_assert_int_eq(fclose(fp), 0);
}

static size_t read_file(const char *path, uint8_t *buf, size_t cap)
{
	FILE *fp = fopen(path, "rb");
	size_t n;

	ck_assert_ptr_nonnull(fp);
	n = fread(buf, 1, cap, fp);
	fclose(fp);
	return n;
}

static size_t field_len(int i)
{
	return kinds[i] == HIP_HI_KIND_ECDSA_P256 ? 32 : 48;
}

/* raw r|s -> DER, with OpenSSL's own ECDSA_SIG (independent of ours). */
static size_t rs_to_der(const uint8_t *rs, size_t field, uint8_t *der)
{
	ECDSA_SIG *es = ECDSA_SIG_new();
	BIGNUM *r = BN_bin2bn(rs, (int)field, NULL);
	BIGNUM *s = BN_bin2bn(rs + field, (int)field, NULL);
	unsigned char *p = der;
	int len;

	ck_assert(es && r && s && ECDSA_SIG_set0(es, r, s));
	len = i2d_ECDSA_SIG(es, &p);
	ck_assert_int_gt(len, 0);
	ECDSA_SIG_free(es);
	return (size_t)len;
}

static void der_to_rs(const uint8_t *der, size_t len, size_t field, uint8_t *rs)
{
	const unsigned char *p = der;
	ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)len);

	ck_assert_ptr_nonnull(es);
	ck_assert_int_eq(BN_bn2binpad(ECDSA_SIG_get0_r(es), rs, (int)field), (int)field);
	ck_assert_int_eq(BN_bn2binpad(ECDSA_SIG_get0_s(es), rs + field, (int)field), (int)field);
	ECDSA_SIG_free(es);
}

/* Save keys[i] as priv-N.pem and export pub-N.pem with the openssl CLI. */
static void export_pems(int i)
{
	ck_assert_int_eq(hip_hi_save_pem(keys[i], tpath("priv-%d.pem", i)), 0);
	ck_assert_int_eq(sh("openssl pkey -in %s -pubout -out %s", tpath("priv-%d.pem", i),
			    tpath("pub-%d.pem", i)), 0);
}

static const uint8_t msg[] = "HIP_SIGNATURE covers the packet up to here";

START_TEST(test_kind_names)
{
	enum hip_hi_kind k;

	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(hip_hi_kind_from_name(hip_hi_kind_name(kinds[i]), &k), 0);
		ck_assert_int_eq(k, kinds[i]);
	}
	ck_assert_str_eq(hip_hi_kind_name(HIP_HI_KIND_ECDSA_P256), "ecdsa-p256");
	ck_assert_str_eq(hip_hi_kind_name(HIP_HI_KIND_ECDSA_P384), "ecdsa-p384");
	ck_assert_str_eq(hip_hi_kind_name(HIP_HI_KIND_RSA_3072), "rsa-3072");
	ck_assert_int_eq(hip_hi_kind_from_name("dsa", &k), -ENOTSUP);
	ck_assert_int_eq(hip_hi_kind_from_name("ECDSA-P256", &k), -ENOTSUP);
}
END_TEST

/* Host Identity field layout and the accessors (loop: _i = key index). */
START_TEST(test_wire_shape)
{
	const struct hip_hi *hi = keys[_i];
	uint8_t fp[32], want[32];
	const uint8_t *w;
	size_t len;

	w = hip_hi_wire(hi, &len);
	ck_assert(hip_hi_has_private(hi));
	ck_assert_int_eq(hip_hi_kind(hi), kinds[_i]);
	if (kinds[_i] == HIP_HI_KIND_RSA_3072) {
		ck_assert_uint_eq(hip_hi_algorithm(hi), 5);
		ck_assert_int_eq(hip_hi_suite(hi), HIP_RHASH_SHA256);
		ck_assert_uint_eq(len, 1 + 3 + 384);
		ck_assert_uint_eq(w[0], 3);
		ck_assert(w[1] == 0x01 && w[2] == 0x00 && w[3] == 0x01);
		ck_assert_uint_ge(w[4], 0x80);          /* a full 3072-bit n */
		ck_assert_uint_eq(hip_hi_sig_len(hi), 384);
	} else {
		size_t f = field_len(_i);

		ck_assert_uint_eq(hip_hi_algorithm(hi), 7);
		ck_assert_int_eq(hip_hi_suite(hi), HIP_RHASH_SHA384);
		ck_assert_uint_eq(len, 2 + 1 + 2 * f);   /* 67 / 99 */
		ck_assert_uint_eq(w[0], 0);
		ck_assert_uint_eq(w[1], f == 32 ? 1 : 2);
		ck_assert_uint_eq(w[2], 0x04);
		ck_assert_uint_eq(hip_hi_sig_len(hi), 2 * f);
	}
	ck_assert_int_eq(hip_hi_fingerprint(hi, fp), 0);
	ck_assert(EVP_Digest(w, len, want, NULL, EVP_sha256(), NULL));
	ck_assert_mem_eq(fp, want, 32);
}
END_TEST

/* The wire encoding against the public key as the openssl CLI exports it. */
START_TEST(test_wire_matches_openssl)
{
	const struct hip_hi *hi = keys[_i];
	uint8_t der[2048];
	const unsigned char *p = der;
	EVP_PKEY *pk;
	const uint8_t *w;
	size_t len, dlen;

	w = hip_hi_wire(hi, &len);
	ck_assert_int_eq(hip_hi_save_pem(hi, tpath("w-%d.pem", _i)), 0);
	ck_assert_int_eq(sh("openssl pkey -in %s -pubout -outform DER -out %s",
			    tpath("w-%d.pem", _i), tpath("w-%d.der", _i)), 0);
	dlen = read_file(tpath("w-%d.der", _i), der, sizeof(der));
	if (kinds[_i] != HIP_HI_KIND_RSA_3072) {
		/* SubjectPublicKeyInfo ends with the BIT STRING 04 | X | Y */
		ck_assert_uint_gt(dlen, len - 2);
		ck_assert_mem_eq(der + dlen - (len - 2), w + 2, len - 2);
	} else {
		BIGNUM *n = NULL, *e = NULL;
		uint8_t nb[384], eb[3];

		pk = d2i_PUBKEY(NULL, &p, (long)dlen);
		ck_assert_ptr_nonnull(pk);
		ck_assert(EVP_PKEY_get_bn_param(pk, OSSL_PKEY_PARAM_RSA_N, &n));
		ck_assert(EVP_PKEY_get_bn_param(pk, OSSL_PKEY_PARAM_RSA_E, &e));
		ck_assert_int_eq(BN_bn2binpad(e, eb, 3), 3);
		ck_assert_int_eq(BN_bn2binpad(n, nb, 384), 384);
		ck_assert_mem_eq(w + 1, eb, 3);
		ck_assert_mem_eq(w + 4, nb, 384);
		BN_free(n);
		BN_free(e);
		EVP_PKEY_free(pk);
	}
}
END_TEST

START_TEST(test_save_load)
{
	const char *path = tpath("sl-%d.pem", _i);
	struct hip_hi *loaded = NULL;
	uint8_t sig[512];
	size_t wl, ll, sl = sizeof(sig);
	const uint8_t *w, *l;
	struct stat st;

	ck_assert_int_eq(hip_hi_save_pem(keys[_i], path), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	/* PKCS#8, not a traditional per-algorithm format */
	ck_assert_int_eq(sh("grep -q '^-----BEGIN PRIVATE KEY-----$' %s", path), 0);
	/* Saving again replaces the file and keeps the mode. */
	ck_assert_int_eq(hip_hi_save_pem(keys[_i], path), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	/* no temporary file left next to it */
	ck_assert_int_ne(sh("ls %s.* ", path), 0);

	ck_assert_int_eq(hip_hi_load_pem(path, &loaded), 0);
	ck_assert(hip_hi_has_private(loaded));
	ck_assert_int_eq(hip_hi_kind(loaded), kinds[_i]);
	w = hip_hi_wire(keys[_i], &wl);
	l = hip_hi_wire(loaded, &ll);
	ck_assert_uint_eq(wl, ll);
	ck_assert_mem_eq(w, l, wl);
	/* the loaded private key signs for the original identity */
	ck_assert_int_eq(hip_hi_sign(loaded, msg, sizeof(msg), sig, &sl), 0);
	ck_assert_int_eq(hip_hi_verify(keys[_i], msg, sizeof(msg), sig, sl), 0);
	hip_hi_free(loaded);
}
END_TEST

START_TEST(test_load_refuses_open_permissions)
{
	const char *path = tpath("perm.pem");
	struct hip_hi *hi = NULL;
	static const mode_t bad[] = { 0644, 0640, 0604, 0660, 0606, 0610, 0601 };

	ck_assert_int_eq(hip_hi_save_pem(keys[0], path), 0);
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		ck_assert_int_eq(chmod(path, bad[k]), 0);
		ck_assert_int_eq(hip_hi_load_pem(path, &hi), -EACCES);
	}
	ck_assert_int_eq(chmod(path, 0400), 0);
	ck_assert_int_eq(hip_hi_load_pem(path, &hi), 0);
	hip_hi_free(hi);
	ck_assert_int_eq(hip_hi_load_pem(tpath("missing.pem"), &hi), -ENOENT);
	ck_assert_int_eq(hip_hi_load_pem(tmpdir, &hi), -EINVAL);   /* a directory */
}
END_TEST

/* Keys made by the openssl CLI: supported ones load, others -ENOTSUP. */
START_TEST(test_load_foreign_keys)
{
	static const struct {
		const char *args;
		int want;
		enum hip_hi_kind kind;
	} cases[] = {
		{ "-algorithm EC -pkeyopt ec_paramgen_curve:P-256", 0, HIP_HI_KIND_ECDSA_P256 },
		{ "-algorithm EC -pkeyopt ec_paramgen_curve:P-384", 0, HIP_HI_KIND_ECDSA_P384 },
		{ "-algorithm RSA -pkeyopt rsa_keygen_bits:2048", 0, HIP_HI_KIND_RSA_3072 },
		{ "-algorithm RSA -pkeyopt rsa_keygen_bits:1024", -ENOTSUP, 0 },
		{ "-algorithm EC -pkeyopt ec_paramgen_curve:P-521", -ENOTSUP, 0 },
		{ "-algorithm EC -pkeyopt ec_paramgen_curve:secp256k1", -ENOTSUP, 0 },
		{ "-algorithm ED25519", -ENOTSUP, 0 },
		{ "-algorithm RSA-PSS -pkeyopt rsa_keygen_bits:2048", -ENOTSUP, 0 },
	};
	const char *path = tpath("foreign.pem");
	struct hip_hi *hi;

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		unlink(path);
		ck_assert_int_eq(sh("umask 077 && openssl genpkey %s -out %s", cases[k].args,
				    path), 0);
		hi = NULL;
		ck_assert_int_eq(hip_hi_load_pem(path, &hi), cases[k].want);
		if (cases[k].want == 0) {
			ck_assert_int_eq(hip_hi_kind(hi), cases[k].kind);
			hip_hi_free(hi);
		}
	}
	/* not a key at all */
	unlink(path);
	ck_assert_int_eq(sh("umask 077 && echo garbage > %s", path), 0);
	ck_assert_int_eq(hip_hi_load_pem(path, &hi), -EBADMSG);
	/* an encrypted key must fail, never prompt */
	unlink(path);
	ck_assert_int_eq(sh("umask 077 && openssl genpkey -algorithm EC -pkeyopt "
			    "ec_paramgen_curve:P-256 -aes128 -pass pass:secret -out %s < /dev/null",
			    path), 0);
	ck_assert_int_eq(hip_hi_load_pem(path, &hi), -EBADMSG);
}
END_TEST

/* from_wire(wire) gives a public-only identity that verifies our signature. */
START_TEST(test_from_wire_sign_verify)
{
	const struct hip_hi *priv = keys[_i];
	struct hip_hi *pub = NULL;
	uint8_t sig[512], data[sizeof(msg)];
	size_t wl, pl, sl = sizeof(sig), n;
	const uint8_t *w;
	const size_t flips[] = { 0, 1, 17, 31, 32, 33 };

	w = hip_hi_wire(priv, &wl);
	ck_assert_int_eq(hip_hi_from_wire(hip_hi_algorithm(priv), w, wl, &pub), 0);
	ck_assert(!hip_hi_has_private(pub));
	ck_assert_int_eq(hip_hi_kind(pub), kinds[_i]);
	ck_assert_mem_eq(hip_hi_wire(pub, &pl), w, wl);
	ck_assert_uint_eq(pl, wl);
	ck_assert_uint_eq(hip_hi_sig_len(pub), hip_hi_sig_len(priv));
	ck_assert_int_eq(hip_hi_sign(pub, msg, sizeof(msg), sig, &sl), -EINVAL);

	sl = hip_hi_sig_len(priv) - 1;
	ck_assert_int_eq(hip_hi_sign(priv, msg, sizeof(msg), sig, &sl), -EINVAL);
	sl = sizeof(sig);
	ck_assert_int_eq(hip_hi_sign(priv, msg, sizeof(msg), sig, &sl), 0);
	ck_assert_uint_eq(sl, hip_hi_sig_len(priv));
	ck_assert_int_eq(hip_hi_verify(pub, msg, sizeof(msg), sig, sl), 0);
	ck_assert_int_eq(hip_hi_verify(priv, msg, sizeof(msg), sig, sl), 0);

	memcpy(data, msg, sizeof(msg));
	for (size_t k = 0; k < sizeof(msg); k += 7) {
		data[k] ^= 0x01;
		ck_assert_int_eq(hip_hi_verify(pub, data, sizeof(data), sig, sl), -EBADMSG);
		data[k] ^= 0x01;
	}
	for (size_t k = 0; k < sizeof(flips) / sizeof(flips[0]) + 1; k++) {
		n = k < sizeof(flips) / sizeof(flips[0]) ? flips[k] : sl - 1;
		sig[n] ^= 0x80;
		ck_assert_int_eq(hip_hi_verify(pub, msg, sizeof(msg), sig, sl), -EBADMSG);
		sig[n] ^= 0x80;
	}
	ck_assert_int_eq(hip_hi_verify(pub, msg, sizeof(msg), sig, sl - 1), -EBADMSG);
	ck_assert_int_eq(hip_hi_verify(pub, msg, sizeof(msg), sig, sl + 1), -EBADMSG);
	ck_assert_int_eq(hip_hi_verify(pub, msg, sizeof(msg), sig, 0), -EBADMSG);
	ck_assert_int_eq(hip_hi_verify(pub, msg, sizeof(msg) - 1, sig, sl), -EBADMSG);
	/* all-zero and all-ones signatures (r, s out of range) */
	memset(sig, 0, sl);
	ck_assert_int_eq(hip_hi_verify(pub, msg, sizeof(msg), sig, sl), -EBADMSG);
	memset(sig, 0xff, sl);
	ck_assert_int_eq(hip_hi_verify(pub, msg, sizeof(msg), sig, sl), -EBADMSG);
	/* the empty message is signable */
	sl = sizeof(sig);
	ck_assert_int_eq(hip_hi_sign(priv, NULL, 0, sig, &sl), 0);
	ck_assert_int_eq(hip_hi_verify(pub, NULL, 0, sig, sl), 0);
	ck_assert_int_eq(hip_hi_verify(pub, msg, 1, sig, sl), -EBADMSG);
	hip_hi_free(pub);
}
END_TEST

/* hip_hi_ref: every reference is released by hip_hi_free and the key
 * works until the last goes (ASAN sees a double free or a leak). */
START_TEST(test_ref)
{
	const struct hip_hi *priv = keys[_i];
	struct hip_hi *pub = NULL, *r1, *r2;
	uint8_t sig[512];
	size_t wl, sl = sizeof(sig);
	const uint8_t *w = hip_hi_wire(priv, &wl);

	ck_assert_ptr_null(hip_hi_ref(NULL));
	ck_assert_int_eq(hip_hi_from_wire(hip_hi_algorithm(priv), w, wl, &pub), 0);
	ck_assert_int_eq(hip_hi_sign(priv, msg, sizeof(msg), sig, &sl), 0);
	r1 = hip_hi_ref(pub);
	r2 = hip_hi_ref(pub);
	ck_assert_ptr_eq(r1, pub);
	ck_assert_ptr_eq(r2, pub);
	hip_hi_free(pub);
	ck_assert_int_eq(hip_hi_verify(r1, msg, sizeof(msg), sig, sl), 0);
	hip_hi_free(r1);
	ck_assert_int_eq(hip_hi_verify(r2, msg, sizeof(msg), sig, sl), 0);
	hip_hi_free(r2);
}
END_TEST

/* The public key of another identity of the same kind does not verify. */
START_TEST(test_verify_wrong_key)
{
	struct hip_hi *other = NULL, *other_pub = NULL;
	uint8_t sig[512], w[400];
	size_t sl = sizeof(sig);

	if (kinds[_i] != HIP_HI_KIND_RSA_3072) {
		ck_assert_int_eq(hip_hi_generate(kinds[_i], &other), 0);
	} else {
		/* a second RSA-3072 modulus, made outside our code */
		EVP_PKEY *pk = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)3072);
		BIGNUM *n = NULL;

		ck_assert(pk && EVP_PKEY_get_bn_param(pk, OSSL_PKEY_PARAM_RSA_N, &n));
		w[0] = 3;
		w[1] = 1;
		w[2] = 0;
		w[3] = 1;
		ck_assert_int_eq(BN_bn2binpad(n, w + 4, 384), 384);
		ck_assert_int_eq(hip_hi_from_wire(5, w, 388, &other_pub), 0);
		BN_free(n);
		EVP_PKEY_free(pk);
	}
	ck_assert_int_eq(hip_hi_sign(keys[_i], msg, sizeof(msg), sig, &sl), 0);
	ck_assert_int_eq(hip_hi_verify(other ? other : other_pub, msg, sizeof(msg), sig, sl),
			 -EBADMSG);
	/* ... nor a key of another kind (wrong signature length) */
	ck_assert_int_eq(hip_hi_verify(keys[(_i + 1) % 3], msg, sizeof(msg), sig, sl), -EBADMSG);
	hip_hi_free(other);
	hip_hi_free(other_pub);
}
END_TEST

/* signv over pieces is the signature of their concatenation. */
START_TEST(test_signv_matches_sign)
{
	const struct hip_hi *hi = keys[_i];
	struct iovec iov[4] = {
		{ .iov_base = (void *)msg, .iov_len = 5 },
		{ .iov_base = (void *)(msg + 5), .iov_len = 0 },
		{ .iov_base = (void *)(msg + 5), .iov_len = 20 },
		{ .iov_base = (void *)(msg + 25), .iov_len = sizeof(msg) - 25 },
	};
	uint8_t sig[512];
	size_t sl = sizeof(sig);

	ck_assert_int_eq(hip_hi_signv(hi, iov, 4, sig, &sl), 0);
	ck_assert_int_eq(hip_hi_verify(hi, msg, sizeof(msg), sig, sl), 0);
	ck_assert_int_eq(hip_hi_verifyv(hi, iov, 4, sig, sl), 0);
	sl = sizeof(sig);
	ck_assert_int_eq(hip_hi_sign(hi, msg, sizeof(msg), sig, &sl), 0);
	ck_assert_int_eq(hip_hi_verifyv(hi, iov, 4, sig, sl), 0);
	/* dropping a piece breaks it */
	ck_assert_int_eq(hip_hi_verifyv(hi, iov, 3, sig, sl), -EBADMSG);
}
END_TEST

/* Our signatures verify with `openssl dgst` (A-2 parameters). */
START_TEST(test_openssl_verifies_ours)
{
	const struct hip_hi *hi = keys[_i];
	uint8_t sig[512], der[128];
	size_t sl = sizeof(sig);
	const char *data = tpath("data-%d", _i), *sigf = tpath("sig-%d", _i);
	const char *pub = tpath("pub-%d.pem", _i);
	const char *opts;

	export_pems(_i);
	write_file(data, msg, sizeof(msg));
	ck_assert_int_eq(hip_hi_sign(hi, msg, sizeof(msg), sig, &sl), 0);
	if (kinds[_i] == HIP_HI_KIND_RSA_3072) {
		write_file(sigf, sig, sl);
		opts = "-sha256 -sigopt rsa_padding_mode:pss -sigopt rsa_pss_saltlen:32";
	} else {
		write_file(sigf, der, rs_to_der(sig, field_len(_i), der));
		opts = "-sha384";
	}
	ck_assert_int_eq(sh("openssl dgst %s -verify %s -signature %s %s", opts, pub, sigf,
			    data), 0);
	/* negative control: the command does check */
	write_file(data, msg, sizeof(msg) - 1);
	ck_assert_int_ne(sh("openssl dgst %s -verify %s -signature %s %s", opts, pub, sigf,
			    data), 0);
	if (kinds[_i] == HIP_HI_KIND_RSA_3072) {
		/* salt length is exactly 32: a verifier expecting 20 fails */
		write_file(data, msg, sizeof(msg));
		ck_assert_int_ne(sh("openssl dgst -sha256 -sigopt rsa_padding_mode:pss "
				    "-sigopt rsa_pss_saltlen:20 -verify %s -signature %s %s",
				    pub, sigf, data), 0);
	}
}
END_TEST

/* Signatures made by `openssl dgst` verify with ours; wrong schemes fail. */
START_TEST(test_ours_verifies_openssl)
{
	const struct hip_hi *hi = keys[_i];
	const char *data = tpath("odata-%d", _i), *sigf = tpath("osig-%d", _i);
	const char *priv = tpath("priv-%d.pem", _i);
	uint8_t buf[512], rs[96];
	size_t n;

	export_pems(_i);
	write_file(data, msg, sizeof(msg));
	if (kinds[_i] != HIP_HI_KIND_RSA_3072) {
		size_t f = field_len(_i);

		ck_assert_int_eq(sh("openssl dgst -sha384 -sign %s -out %s %s", priv, sigf,
				    data), 0);
		n = read_file(sigf, buf, sizeof(buf));
		der_to_rs(buf, n, f, rs);
		ck_assert_int_eq(hip_hi_verify(hi, msg, sizeof(msg), rs, 2 * f), 0);
		/* the DER form itself is not accepted */
		ck_assert_int_eq(hip_hi_verify(hi, msg, sizeof(msg), buf, n), -EBADMSG);
		/* RFC 4754's SHA-256 pairing for P-256 is not what A-2 uses */
		ck_assert_int_eq(sh("openssl dgst -sha256 -sign %s -out %s %s", priv, sigf,
				    data), 0);
		n = read_file(sigf, buf, sizeof(buf));
		der_to_rs(buf, n, f, rs);
		ck_assert_int_eq(hip_hi_verify(hi, msg, sizeof(msg), rs, 2 * f), -EBADMSG);
		return;
	}
	ck_assert_int_eq(sh("openssl dgst -sha256 -sigopt rsa_padding_mode:pss "
			    "-sigopt rsa_pss_saltlen:32 -sign %s -out %s %s", priv, sigf, data), 0);
	n = read_file(sigf, buf, sizeof(buf));
	ck_assert_uint_eq(n, 384);
	ck_assert_int_eq(hip_hi_verify(hi, msg, sizeof(msg), buf, n), 0);
	/* PKCS#1 v1.5 is rejected (C-11) */
	ck_assert_int_eq(sh("openssl dgst -sha256 -sign %s -out %s %s", priv, sigf, data), 0);
	n = read_file(sigf, buf, sizeof(buf));
	ck_assert_uint_eq(n, 384);
	ck_assert_int_eq(hip_hi_verify(hi, msg, sizeof(msg), buf, n), -EBADMSG);
	/* PSS with another salt length or hash */
	ck_assert_int_eq(sh("openssl dgst -sha256 -sigopt rsa_padding_mode:pss "
			    "-sigopt rsa_pss_saltlen:20 -sign %s -out %s %s", priv, sigf, data), 0);
	n = read_file(sigf, buf, sizeof(buf));
	ck_assert_int_eq(hip_hi_verify(hi, msg, sizeof(msg), buf, n), -EBADMSG);
	ck_assert_int_eq(sh("openssl dgst -sha384 -sigopt rsa_padding_mode:pss "
			    "-sigopt rsa_pss_saltlen:32 -sign %s -out %s %s", priv, sigf, data), 0);
	n = read_file(sigf, buf, sizeof(buf));
	ck_assert_int_eq(hip_hi_verify(hi, msg, sizeof(msg), buf, n), -EBADMSG);
}
END_TEST

/* ECDSA wire forms that must be refused (docs/decisions.md A-3). */
START_TEST(test_from_wire_rejects_ecdsa)
{
	const struct hip_hi *hi = keys[_i];
	size_t len, f = field_len(_i);
	const uint8_t *w = hip_hi_wire(hi, &len);
	struct hip_hi *out = NULL;
	uint8_t b[128];

	memcpy(b, w, len);
	/* truncated at every length, and one byte too long */
	for (size_t n = 0; n < len; n++)
		ck_assert_int_lt(hip_hi_from_wire(7, b, n, &out), 0);
	b[len] = 0;
	ck_assert_int_eq(hip_hi_from_wire(7, b, len + 1, &out), -EBADMSG);
	/* compressed forms: 02/03 | X, and a 0x02 prefix at full length */
	b[2] = 0x02 | (w[len - 1] & 1);
	ck_assert_int_eq(hip_hi_from_wire(7, b, 3 + f, &out), -EBADMSG);
	ck_assert_int_eq(hip_hi_from_wire(7, b, len, &out), -EBADMSG);
	b[2] = 0x06;    /* hybrid form */
	ck_assert_int_eq(hip_hi_from_wire(7, b, len, &out), -EBADMSG);
	b[2] = 0x04;
	/* curve IDs: 0 and 3 unknown, the other curve mismatches the length */
	b[1] = 0;
	ck_assert_int_eq(hip_hi_from_wire(7, b, len, &out), -ENOTSUP);
	b[1] = 3;
	ck_assert_int_eq(hip_hi_from_wire(7, b, len, &out), -ENOTSUP);
	b[0] = 1;
	b[1] = w[1];
	ck_assert_int_eq(hip_hi_from_wire(7, b, len, &out), -ENOTSUP);
	b[0] = 0;
	b[1] = w[1] == 1 ? 2 : 1;
	ck_assert_int_eq(hip_hi_from_wire(7, b, len, &out), -EBADMSG);
	b[1] = w[1];
	/* point not on the curve: a flipped bit of Y, of X */
	b[len - 1] ^= 0x01;
	ck_assert_int_eq(hip_hi_from_wire(7, b, len, &out), -EBADMSG);
	b[len - 1] ^= 0x01;
	b[3 + f / 2] ^= 0x10;
	ck_assert_int_eq(hip_hi_from_wire(7, b, len, &out), -EBADMSG);
	b[3 + f / 2] ^= 0x10;
	/* the all-zero point, and X = 2^n - 1 (above p) */
	memset(b + 3, 0, 2 * f);
	ck_assert_int_eq(hip_hi_from_wire(7, b, len, &out), -EBADMSG);
	memset(b + 3, 0xff, 2 * f);
	ck_assert_int_eq(hip_hi_from_wire(7, b, len, &out), -EBADMSG);
	/* other HI algorithms, and the ECDSA bytes labelled RSA */
	memcpy(b, w, len);
	ck_assert_int_eq(hip_hi_from_wire(3, b, len, &out), -ENOTSUP);
	ck_assert_int_eq(hip_hi_from_wire(9, b, len, &out), -ENOTSUP);
	ck_assert_int_eq(hip_hi_from_wire(13, b, len, &out), -ENOTSUP);
	ck_assert_int_lt(hip_hi_from_wire(5, b, len, &out), 0);
	ck_assert_ptr_null(out);
	/* and the intact encoding still passes */
	ck_assert_int_eq(hip_hi_from_wire(7, b, len, &out), 0);
	hip_hi_free(out);
}
END_TEST

/* A P-256 point with a small X (found with BN_mod_sqrt, independently of
 * the code under test) is accepted; the same point with X + p, which fits
 * in 32 bytes and is the same residue, is not: the wire form must be the
 * canonical one, since the HIT hashes these bytes. */
START_TEST(test_from_wire_rejects_ecdsa_above_p)
{
	EC_GROUP *g = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
	BIGNUM *p = BN_new(), *a = BN_new(), *b = BN_new(), *x = BN_new(), *y = BN_new();
	BIGNUM *rhs = BN_new(), *t = BN_new();
	BN_CTX *ctx = BN_CTX_new();
	uint8_t w[3 + 64] = { 0, 1, 0x04 };
	struct hip_hi *out = NULL;
	unsigned long xv;

	ck_assert_ptr_nonnull(g);
	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_eq(EC_GROUP_get_curve(g, p, a, b, ctx), 1);
	/* the first x with x^3 + ax + b a square mod p */
	for (xv = 1; xv < 1000; xv++) {
		ck_assert_int_eq(BN_set_word(x, xv), 1);
		ck_assert_int_eq(BN_mod_sqr(t, x, p, ctx), 1);
		ck_assert_int_eq(BN_mod_add(t, t, a, p, ctx), 1);
		ck_assert_int_eq(BN_mod_mul(rhs, t, x, p, ctx), 1);
		ck_assert_int_eq(BN_mod_add(rhs, rhs, b, p, ctx), 1);
		ERR_set_mark();
		if (BN_mod_sqrt(y, rhs, p, ctx)) {
			ERR_pop_to_mark();
			break;
		}
		ERR_pop_to_mark();
	}
	ck_assert_uint_lt(xv, 1000);
	ck_assert_int_eq(BN_bn2binpad(y, w + 3 + 32, 32), 32);
	ck_assert_int_eq(BN_bn2binpad(x, w + 3, 32), 32);
	ck_assert_int_eq(hip_hi_from_wire(7, w, sizeof(w), &out), 0);
	hip_hi_free(out);
	out = NULL;
	ck_assert_int_eq(BN_add(x, x, p), 1);
	ck_assert_int_eq(BN_num_bytes(x), 32);
	ck_assert_int_eq(BN_bn2binpad(x, w + 3, 32), 32);
	ck_assert_int_eq(hip_hi_from_wire(7, w, sizeof(w), &out), -EBADMSG);
	ck_assert_ptr_null(out);
	BN_CTX_free(ctx);
	BN_free(p);
	BN_free(a);
	BN_free(b);
	BN_free(x);
	BN_free(y);
	BN_free(rhs);
	BN_free(t);
	EC_GROUP_free(g);
}
END_TEST

/* Build e_len | e | n into b; returns the length. */
static size_t rsa_wire(uint8_t *b, const uint8_t *e, size_t e_len, const uint8_t *n, size_t n_len)
{
	b[0] = (uint8_t)e_len;
	memcpy(b + 1, e, e_len);
	memcpy(b + 1 + e_len, n, n_len);
	return 1 + e_len + n_len;
}

/* RSA wire forms that must be refused (RFC 3110 §2), and a 1024-bit peer
 * key that must be accepted. */
START_TEST(test_from_wire_rejects_rsa)
{
	size_t len;
	const uint8_t *w = hip_hi_wire(keys[2], &len);
	const uint8_t *n = w + 4, e3[] = { 1, 0, 1 };
	struct hip_hi *out = NULL;
	uint8_t b[1024];
	EVP_PKEY *pk;
	BIGNUM *bn = NULL;
	size_t l;

	ck_assert_uint_eq(len, 388);
	/* Truncated while the modulus is under 1024 bits. Longer truncations
	 * are just other (possibly valid) numbers: RFC 3110 has no length. */
	for (size_t k = 0; k < 4 + 128; k++)
		ck_assert_int_lt(hip_hi_from_wire(5, w, k, &out), 0);
	/* e_len 0 in the long form, and the long form for a 3-byte e */
	b[0] = 0;
	b[1] = 0;
	b[2] = 0;
	memcpy(b + 3, n, 384);
	ck_assert_int_eq(hip_hi_from_wire(5, b, 3 + 384, &out), -EBADMSG);
	b[2] = 3;
	memcpy(b + 3, e3, 3);
	memcpy(b + 6, n, 384);
	ck_assert_int_eq(hip_hi_from_wire(5, b, 6 + 384, &out), -EBADMSG);
	/* e_len overrunning the data, or leaving no modulus */
	b[0] = 255;
	memcpy(b + 1, e3, 3);
	ck_assert_int_eq(hip_hi_from_wire(5, b, 4 + 100, &out), -EBADMSG);
	ck_assert_int_eq(hip_hi_from_wire(5, b, 256, &out), -EBADMSG);
	/* leading zero octets in e or n */
	b[0] = 4;
	b[1] = 0;
	memcpy(b + 2, e3, 3);
	memcpy(b + 5, n, 384);
	ck_assert_int_eq(hip_hi_from_wire(5, b, 5 + 384, &out), -EBADMSG);
	l = rsa_wire(b, e3, 3, n, 384);
	memmove(b + 5, b + 4, 384);
	b[4] = 0;
	ck_assert_int_eq(hip_hi_from_wire(5, b, l + 1, &out), -EBADMSG);
	/* even e, e = 1, even n */
	l = rsa_wire(b, (const uint8_t[]){ 1, 0, 0 }, 3, n, 384);
	ck_assert_int_eq(hip_hi_from_wire(5, b, l, &out), -EBADMSG);
	l = rsa_wire(b, (const uint8_t[]){ 1 }, 1, n, 384);
	ck_assert_int_eq(hip_hi_from_wire(5, b, l, &out), -EBADMSG);
	l = rsa_wire(b, e3, 3, n, 384);
	b[l - 1] &= 0xfe;
	ck_assert_int_eq(hip_hi_from_wire(5, b, l, &out), -EBADMSG);
	/* a modulus under 1024 bits, an exponent over 64 bits */
	l = rsa_wire(b, e3, 3, n, 127);
	b[l - 1] |= 1;
	ck_assert_int_eq(hip_hi_from_wire(5, b, l, &out), -ENOTSUP);
	memset(b + 200, 0x01, 9);
	l = rsa_wire(b, b + 200, 9, n, 384);
	ck_assert_int_eq(hip_hi_from_wire(5, b, l, &out), -ENOTSUP);
	ck_assert_ptr_null(out);

	/* A 1024-bit peer key (the floor for peers) is accepted. */
	pk = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)1024);
	ck_assert_ptr_nonnull(pk);
	ck_assert(EVP_PKEY_get_bn_param(pk, OSSL_PKEY_PARAM_RSA_N, &bn));
	ck_assert_int_eq(BN_bn2binpad(bn, b + 4, 128), 128);
	b[0] = 3;
	memcpy(b + 1, e3, 3);
	ck_assert_int_eq(hip_hi_from_wire(5, b, 4 + 128, &out), 0);
	ck_assert_uint_eq(hip_hi_sig_len(out), 128);
	ck_assert_uint_eq(hip_hi_suite(out), HIP_RHASH_SHA256);
	hip_hi_free(out);
	BN_free(bn);
	EVP_PKEY_free(pk);
}
END_TEST

START_TEST(test_bad_arguments)
{
	struct hip_hi *hi = NULL, *pub = NULL;
	uint8_t sig[64];
	size_t len, sl = sizeof(sig);
	const uint8_t *w = hip_hi_wire(keys[0], &len);

	ck_assert_int_eq(hip_hi_generate((enum hip_hi_kind)7, &hi), -EINVAL);
	ck_assert_int_eq(hip_hi_from_wire(7, NULL, 0, &hi), -EINVAL);
	ck_assert_int_eq(hip_hi_sign(NULL, msg, 1, sig, &sl), -EINVAL);
	ck_assert_int_eq(hip_hi_verify(NULL, msg, 1, sig, sl), -EINVAL);
	/* a public-only identity cannot be saved */
	ck_assert_int_eq(hip_hi_from_wire(7, w, len, &pub), 0);
	ck_assert_int_eq(hip_hi_save_pem(pub, tpath("pub-only.pem")), -EINVAL);
	hip_hi_free(pub);
	/* saving into a missing directory fails cleanly */
	ck_assert_int_eq(hip_hi_save_pem(keys[0], tpath("nodir/key.pem")), -ENOENT);
	hip_hi_free(NULL);
}
END_TEST

static Suite *hostid_suite(void)
{
	Suite *s = suite_create("hostid");
	TCase *tc = tcase_create("hostid");

	/* RSA-3072 keygen and the openssl CLI runs take a while */
	tcase_set_timeout(tc, 120);
	tcase_add_unchecked_fixture(tc, keys_setup, keys_teardown);
	tcase_add_test(tc, test_kind_names);
	tcase_add_loop_test(tc, test_wire_shape, 0, 3);
	tcase_add_loop_test(tc, test_wire_matches_openssl, 0, 3);
	tcase_add_loop_test(tc, test_save_load, 0, 3);
	tcase_add_test(tc, test_load_refuses_open_permissions);
	tcase_add_test(tc, test_load_foreign_keys);
	tcase_add_loop_test(tc, test_from_wire_sign_verify, 0, 3);
	tcase_add_loop_test(tc, test_ref, 0, 3);
	tcase_add_loop_test(tc, test_verify_wrong_key, 0, 3);
	tcase_add_loop_test(tc, test_signv_matches_sign, 0, 3);
	tcase_add_loop_test(tc, test_openssl_verifies_ours, 0, 3);
	tcase_add_loop_test(tc, test_ours_verifies_openssl, 0, 3);
	tcase_add_loop_test(tc, test_from_wire_rejects_ecdsa, 0, 2);
	tcase_add_test(tc, test_from_wire_rejects_ecdsa_above_p);
	tcase_add_test(tc, test_from_wire_rejects_rsa);
	tcase_add_test(tc, test_bad_arguments);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(hostid_suite)
