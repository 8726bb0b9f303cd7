/*
 * hip_crypto.h - libcrypto-wrap: the only door to OpenSSL 3 (EVP only).
 *
 * No OpenSSL type appears here. Every function returns 0 on success or a
 * negative errno-style code (-EINVAL bad argument, -EBADMSG failed check,
 * -ENOMEM, -EIO an OpenSSL failure, -ENOTSUP unsupported algorithm, -EACCES
 * key file permissions). Secrets held by these objects are wiped on free.
 */
#ifndef HIP_CRYPTO_H
#define HIP_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* Call once per process before anything else (fetches and caches the EVP
 * algorithms, so no per-call fetch happens on the packet path). Idempotent
 * and thread-safe. */
int hip_crypto_init(void);

/* ---- digests (RHASH) ------------------------------------------------ */

/* Values equal the HIT Suite / OGA IDs, so a suite ID can be used as is. */
enum hip_rhash {
	HIP_RHASH_SHA256 = 1,
	HIP_RHASH_SHA384 = 2,
	HIP_RHASH_SHA1   = 3,
};
enum { HIP_RHASH_MAX_LEN = 48 };

/* Output length of the hash, 0 if unknown. */
size_t hip_rhash_len(enum hip_rhash h);
int hip_digest(enum hip_rhash h, const void *data, size_t len, uint8_t *out);
int hip_digestv(enum hip_rhash h, const struct iovec *iov, size_t n, uint8_t *out);

/* ---- HMAC ------------------------------------------------------------- */

/* Full-length HMAC-RHASH over the concatenation of iov; out gets
 * hip_rhash_len(h) bytes. */
int hip_hmacv(enum hip_rhash h, const uint8_t *key, size_t key_len,
	      const struct iovec *iov, size_t n, uint8_t *out);
/* Recompute and compare in constant time the first mac_len bytes
 * (mac_len must be 1..hip_rhash_len). 0 = match, -EBADMSG = mismatch. */
int hip_hmacv_verify(enum hip_rhash h, const uint8_t *key, size_t key_len,
		     const struct iovec *iov, size_t n,
		     const uint8_t *mac, size_t mac_len);

/* Constant-time equality (true when equal). */
bool hip_memeq_ct(const void *a, const void *b, size_t len);
/* Wipe memory in a way the compiler cannot drop. */
void hip_wipe(void *p, size_t len);
/* Cryptographically secure random bytes. */
int hip_random(void *out, size_t len);

/* ---- HKDF and KEYMAT (RFC 5869; RFC 7401 §6.5; docs/decisions.md A-1) */

int hip_hkdf(enum hip_rhash h,
	     const uint8_t *salt, size_t salt_len,
	     const uint8_t *ikm, size_t ikm_len,
	     const uint8_t *info, size_t info_len,
	     uint8_t *out, size_t out_len);

/* KEYMAT = HKDF-RHASH(salt = I | J, IKM = Kij, info = sort(HIT-I | HIT-R)).
 * ij_len is the RHASH length (length of I and of J). out_len at most
 * 255 * hip_rhash_len(h). */
int hip_keymat(enum hip_rhash h, const uint8_t *i, const uint8_t *j, size_t ij_len,
	       const uint8_t *kij, size_t kij_len,
	       const uint8_t hit_i[16], const uint8_t hit_r[16],
	       uint8_t *out, size_t out_len);

/* The draw order of RFC 7401 §6.5 / RFC 7402 §7. "gl" keys protect what
 * HOST_g (the greater HIT) sends, "lg" keys what HOST_l sends. */
enum { HIP_KEY_MAX = 48 };
struct hip_hip_keys {
	size_t  enc_len, int_len;       /* HIP_CIPHER key length, RHASH length */
	uint8_t gl_enc[HIP_KEY_MAX], gl_int[HIP_KEY_MAX];
	uint8_t lg_enc[HIP_KEY_MAX], lg_int[HIP_KEY_MAX];
};
struct hip_esp_keys {
	size_t  enc_len, auth_len;      /* per ESP suite (GCM: key+salt, 0) */
	uint8_t gl_enc[HIP_KEY_MAX], gl_auth[HIP_KEY_MAX];
	uint8_t lg_enc[HIP_KEY_MAX], lg_auth[HIP_KEY_MAX];
};
/* Draw the four HIP keys from the start of keymat; returns the KEYMAT index
 * (bytes consumed) through *next, which is where ESP keys start. */
int hip_keymat_draw_hip(const uint8_t *keymat, size_t keymat_len,
			size_t enc_len, size_t int_len,
			struct hip_hip_keys *out, size_t *next);
/* Draw the four ESP keys starting at index. */
int hip_keymat_draw_esp(const uint8_t *keymat, size_t keymat_len, size_t index,
			size_t enc_len, size_t auth_len, struct hip_esp_keys *out);

/* ---- HIP_CIPHER for the ENCRYPTED parameter (docs/decisions.md A-5) ---- */

/* Key length of a HIP_CIPHER ID: NULL 0, AES-128-CBC 16, AES-256-CBC 32;
 * returns -ENOTSUP for anything else. */
int hip_cipher_key_len(uint16_t cipher_id);
/* IV length on the wire: 16 for AES-CBC, 0 for NULL. */
int hip_cipher_iv_len(uint16_t cipher_id);
/* out = IV(random) | AES-CBC(plain | PKCS#7 pad 1..16). For NULL: a copy.
 * *out_len receives the length written (at most plain_len + 32). */
int hip_cipher_seal(uint16_t cipher_id, const uint8_t *key,
		    const uint8_t *plain, size_t plain_len,
		    uint8_t *out, size_t out_cap, size_t *out_len);
/* in = IV | ciphertext; decrypts without removing padding (the caller parses
 * inner TLVs by their Length). -EBADMSG if in_len is not IV + n*16. */
int hip_cipher_open(uint16_t cipher_id, const uint8_t *key,
		    const uint8_t *in, size_t in_len,
		    uint8_t *out, size_t out_cap, size_t *out_len);

/* ---- Host identities (RFC 7401 §5.2.9; docs/decisions.md) ----- */

enum hip_hi_kind {
	HIP_HI_KIND_ECDSA_P256,  /* default */
	HIP_HI_KIND_ECDSA_P384,
	HIP_HI_KIND_RSA_3072,
};
struct hip_hi; /* opaque: a public key, possibly with its private half */

int hip_hi_generate(enum hip_hi_kind kind, struct hip_hi **out);
/* Private key PEM (PKCS#8). Load refuses (-EACCES) a file readable or
 * writable by group or others. Save creates it with mode 0600. */
int hip_hi_load_pem(const char *path, struct hip_hi **out);
int hip_hi_save_pem(const struct hip_hi *hi, const char *path);
/* Build a public-only identity from a HOST_ID's Algorithm and Host Identity
 * field (RSA: RFC 3110; ECDSA: curve(16) | 0x04 | X | Y). The key is
 * imported once; keep the object to avoid re-parsing per packet. */
int hip_hi_from_wire(uint16_t algorithm, const uint8_t *hi, size_t hi_len,
		     struct hip_hi **out);
/* Drops one reference; the object goes with the last. */
void hip_hi_free(struct hip_hi *hi);
/* One more reference to hi (each is released by hip_hi_free): a cache and
 * its users share one imported key. Returns hi. */
struct hip_hi *hip_hi_ref(struct hip_hi *hi);

uint16_t hip_hi_algorithm(const struct hip_hi *hi);     /* 5 or 7 */
enum hip_hi_kind hip_hi_kind(const struct hip_hi *hi);
const char *hip_hi_kind_name(enum hip_hi_kind kind);    /* "ecdsa-p256" ... */
int hip_hi_kind_from_name(const char *name, enum hip_hi_kind *out);
/* The HIT Suite (= ORCHID OGA ID = RHASH) of this identity: RSA 1, ECDSA 2. */
enum hip_rhash hip_hi_suite(const struct hip_hi *hi);
/* Host Identity field bytes, as carried in HOST_ID and hashed into the HIT. */
const uint8_t *hip_hi_wire(const struct hip_hi *hi, size_t *len);
bool hip_hi_has_private(const struct hip_hi *hi);
/* Signature length: ECDSA P-256 64, P-384 96 (r|s); RSA modulus length. */
size_t hip_hi_sig_len(const struct hip_hi *hi);
/* Sign / verify data (hashed inside: RSA-PSS SHA-256 salt 32; ECDSA SHA-384
 * raw r|s). sig_len in: capacity, out: bytes written. */
int hip_hi_sign(const struct hip_hi *hi, const uint8_t *data, size_t len,
		uint8_t *sig, size_t *sig_len);
int hip_hi_signv(const struct hip_hi *hi, const struct iovec *iov, size_t n,
		 uint8_t *sig, size_t *sig_len);
int hip_hi_verify(const struct hip_hi *hi, const uint8_t *data, size_t len,
		  const uint8_t *sig, size_t sig_len);
int hip_hi_verifyv(const struct hip_hi *hi, const struct iovec *iov, size_t n,
		   const uint8_t *sig, size_t sig_len);
/* SHA-256 fingerprint of the public Host Identity field (for display). */
int hip_hi_fingerprint(const struct hip_hi *hi, uint8_t out[32]);

/* ---- Diffie-Hellman (RFC 7401 §5.2.7; docs/decisions.md A-4) --------- */

struct hip_dh; /* an ephemeral key pair */

bool hip_dh_group_supported(uint8_t group_id);      /* 3, 4, 7, 8 */
/* Public value length on the wire: MODP modulus length; ECDH 2 x field. */
size_t hip_dh_pub_len(uint8_t group_id);
/* Shared secret (Kij) length: modulus length, or the field size for ECDH. */
size_t hip_dh_secret_len(uint8_t group_id);
int hip_dh_generate(uint8_t group_id, struct hip_dh **out);
uint8_t hip_dh_group(const struct hip_dh *dh);
/* Our public value, encoded for DIFFIE_HELLMAN (MODP left-padded). */
int hip_dh_public(const struct hip_dh *dh, uint8_t *out, size_t len);
/* Derive Kij from the peer's public value, validating it first: MODP
 * 1 < y < p-1 (a shorter value is accepted, a longer one rejected); ECDH an
 * exact-length x|y point on the curve. Kij is left-padded to
 * hip_dh_secret_len(). Rejects an all-zero result. -EBADMSG on bad input. */
int hip_dh_derive(const struct hip_dh *dh, const uint8_t *peer, size_t peer_len,
		  uint8_t *kij, size_t kij_len);
void hip_dh_free(struct hip_dh *dh);

/* ---- Puzzle (RFC 7401 §4.1.2, §6.3; docs/protocol.md §3) -------------- */

/* Find J with Ltrunc(RHASH(I | HIT-I | HIT-R | J), K) == 0, i.e. the K
 * lowest-order bits of the digest are zero. I and J are hip_rhash_len(h)
 * bytes. J starts at j_start (big-endian counter, may be random) and counts
 * up. Gives up with -ETIMEDOUT after max_trials (0 = no limit) or when
 * deadline_ns (CLOCK_MONOTONIC, 0 = none) has passed. *trials (may be NULL)
 * receives the number of hashes computed. */
int hip_puzzle_solve(enum hip_rhash h, unsigned k, const uint8_t *i,
		     const uint8_t hit_i[16], const uint8_t hit_r[16],
		     const uint8_t *j_start, uint64_t max_trials,
		     uint64_t deadline_ns, uint8_t *j_out, uint64_t *trials);
/* The same without a trial limit, also giving up with -ECANCELED once *stop
 * (read atomically, set by another thread) is non-zero: for searching one
 * puzzle on several threads, each from its own j_start. */
int hip_puzzle_solve_stoppable(enum hip_rhash h, unsigned k, const uint8_t *i,
			       const uint8_t hit_i[16], const uint8_t hit_r[16],
			       const uint8_t *j_start, uint64_t deadline_ns, const int *stop,
			       uint8_t *j_out, uint64_t *trials);
/* 0 if J solves the puzzle, -EBADMSG if not, -EINVAL for K > 28. */
int hip_puzzle_verify(enum hip_rhash h, unsigned k, const uint8_t *i,
		      const uint8_t hit_i[16], const uint8_t hit_r[16],
		      const uint8_t *j);

/* ==== ESP packet crypto (RFC 4303, RFC 4106; RFC 7402 §3, §5.1.2;
 * docs/decisions.md) ========================================== */

/* Suites implemented (IDs of enum hip_esp_suite, hip_wire.h): 1 AES-128-CBC
 * + HMAC-SHA1-96, 7 NULL + HMAC-SHA-256-128, 8 / 9 AES-128 / AES-256-CBC +
 * HMAC-SHA-256-128, 12 / 13 AES-128-GCM with an 8 / 16-octet ICV. */
struct hip_esp_suite_info {
	uint16_t suite;
	size_t enc_key_len;   /* GCM: AES-128 key | 4-byte salt = 20 */
	size_t auth_key_len;
	size_t iv_len;        /* on the wire after the sequence number */
	size_t icv_len;
	size_t block;         /* the plaintext (payload | pad | 2) aligns to it */
};
/* -ENOTSUP for a suite not implemented. out may be NULL. */
int hip_esp_suite_info(uint16_t suite, struct hip_esp_suite_info *out);

/* One SA's crypto state, for one direction (encrypt = outbound SA). Keys are
 * expanded once; seal/open do not allocate. Not thread-safe per ctx. */
struct hip_esp_ctx;
int hip_esp_ctx_new(uint16_t suite, const uint8_t *enc_key, size_t enc_len,
		    const uint8_t *auth_key, size_t auth_len, bool encrypt,
		    struct hip_esp_ctx **out);
void hip_esp_ctx_free(struct hip_esp_ctx *ctx);
const struct hip_esp_suite_info *hip_esp_ctx_info(const struct hip_esp_ctx *ctx);

/* Protect in place. esp points at the ESP header; the plaintext (payload |
 * padding | Pad Length | Next Header, plain_len a multiple of info.block) is
 * at esp + 8 + info.iv_len. Writes SPI, seq_lo, IV, the ciphertext and the
 * ICV after it (8 + iv + plain + icv bytes: *esp_len). The ICV covers
 * seq_hi (ESN, A-7); the GCM explicit IV is seq. */
int hip_esp_seal(struct hip_esp_ctx *ctx, uint32_t spi, uint64_t seq, uint8_t *esp,
		 size_t plain_len, size_t *esp_len);
/* Verify and decrypt in place the whole ESP packet (header to ICV) with the
 * receiver's inferred seq_hi. The plaintext (with its trailer) is at
 * esp + 8 + info.iv_len, *plain_len bytes. -EBADMSG: too short, not block
 * aligned, or ICV mismatch (nothing decrypted for HMAC suites). */
int hip_esp_open(struct hip_esp_ctx *ctx, uint32_t seq_hi, uint8_t *esp, size_t esp_len,
		 size_t *plain_len);

/* Test seams, not for production use: an SA whose ICV leaves out seq_hi
 * (32-bit sequence numbers) so tshark 4.0, which has no ESN, can verify it;
 * and one raw AES-GCM operation with the ctx's key and salt on any AAD
 * (known-answer tests). */
void hip_esp_ctx_set_no_esn_for_test(struct hip_esp_ctx *ctx);
int hip_esp_gcm_raw_for_test(struct hip_esp_ctx *ctx, const uint8_t iv[8],
			     const uint8_t *aad, size_t aad_len, uint8_t *buf, size_t len,
			     uint8_t *tag);

#endif /* HIP_CRYPTO_H */
