/*
 * puzzle.c - the HIP puzzle (RFC 7401 §4.1.2, §5.2.4, §6.3; docs/protocol.md §3):
 * find J with Ltrunc(RHASH(I | HIT-I | HIT-R | J), K) == 0, the K lowest-order
 * bits of the digest (its last bytes, big-endian) being zero.
 *
 * Speed matters for the solver: an Initiator facing a high K competes with
 * the puzzle lifetime. I | HIT-I | HIT-R is hashed once into a prefix state;
 * each trial copies that state and hashes only J. Measured on OpenSSL 3.0.19
 * (x86-64, SHA-NI, best of 15 runs) against EVP_DigestInit_ex2 and one
 * update of the whole input per trial: SHA-256 +35% (the prefix is exactly
 * one SHA-256 block, so a compression is saved per trial), SHA-1 +5%,
 * SHA-384 -3% (its larger context costs more to copy). One code path for
 * all three. tools/bench-crypto compares the rate with `openssl speed`.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "byteorder.h"
#include "cw_internal.h"

enum {
	CW_PUZZLE_K_MAX       = 28,    /* RFC 7401 §5.2.4 leaves it open; we cap */
	CW_PUZZLE_CHECK_EVERY = 4096,  /* trials between two deadline checks */
	CW_PUZZLE_STOP_EVERY  = 32,    /* trials between two looks at *stop */
	CW_PUZZLE_IN_MAX      = 2 * HIP_RHASH_MAX_LEN + 32,
};

static uint64_t cw_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* True when the K lowest-order bits of the digest are zero. K <= 28, so the
 * last four bytes (md_len >= 20) hold them all. */
static bool cw_puzzle_ok(const uint8_t *digest, size_t md_len, unsigned k)
{
	const uint8_t *t = digest + md_len - 4;
	uint32_t tail = hip_rd32(t);
	uint32_t mask = k ? UINT32_MAX >> (32 - k) : 0;

	return (tail & mask) == 0;
}

/* J is a big-endian counter; it wraps around after all ones. */
static void cw_be_increment(uint8_t *p, size_t len)
{
	while (len--)
		if (++p[len])
			break;
}

static int puzzle_search(enum hip_rhash h, unsigned k, const uint8_t *i,
			 const uint8_t hit_i[16], const uint8_t hit_r[16],
			 const uint8_t *j_start, uint64_t max_trials, uint64_t deadline_ns,
			 const int *stop, uint8_t *j_out, uint64_t *trials)
{
	const EVP_MD *md = cw_md(h);
	size_t n = hip_rhash_len(h);
	EVP_MD_CTX *prefix = NULL, *ctx = NULL;
	uint8_t j[HIP_RHASH_MAX_LEN];
	uint8_t digest[EVP_MAX_MD_SIZE];
	uint64_t done = 0;
	int rc;

	if (trials)
		*trials = 0;
	if (!md)
		return -ENOTSUP;
	if (k > CW_PUZZLE_K_MAX || !i || !hit_i || !hit_r || !j_start || !j_out)
		return -EINVAL;
	memcpy(j, j_start, n);

	prefix = EVP_MD_CTX_new();
	ctx = EVP_MD_CTX_new();
	if (!prefix || !ctx) {
		rc = -ENOMEM;
		goto out;
	}
	/* Always Initiator then Responder HIT, whichever sent the R1 (docs/protocol.md §3). */
	if (!EVP_DigestInit_ex2(prefix, md, NULL) ||
	    !EVP_DigestUpdate(prefix, i, n) ||
	    !EVP_DigestUpdate(prefix, hit_i, 16) ||
	    !EVP_DigestUpdate(prefix, hit_r, 16)) {
		rc = cw_ossl_err("puzzle prefix");
		goto out;
	}
	for (;;) {
		uint64_t batch = CW_PUZZLE_CHECK_EVERY;

		/* §6.8 step 12: stop at the end of the puzzle lifetime. A clock
		 * read per batch, not per trial, keeps it off the hot path. */
		if (deadline_ns && cw_now_ns() >= deadline_ns) {
			rc = -ETIMEDOUT;
			goto out;
		}
		if (max_trials) {
			if (done >= max_trials) {
				rc = -ETIMEDOUT;
				goto out;
			}
			if (max_trials - done < batch)
				batch = max_trials - done;
		}
		for (; batch; batch--) {
			/* Another thread found it, or the caller gave up: a
			 * load every CW_PUZZLE_STOP_EVERY trials (~10 us). */
			if (stop && done % CW_PUZZLE_STOP_EVERY == 0 &&
			    __atomic_load_n(stop, __ATOMIC_ACQUIRE)) {
				rc = -ECANCELED;
				goto out;
			}
			if (!EVP_MD_CTX_copy_ex(ctx, prefix) ||
			    !EVP_DigestUpdate(ctx, j, n) ||
			    !EVP_DigestFinal_ex(ctx, digest, NULL)) {
				rc = cw_ossl_err("puzzle trial");
				goto out;
			}
			done++;
			if (cw_puzzle_ok(digest, n, k)) {
				memcpy(j_out, j, n);
				rc = 0;
				goto out;
			}
			cw_be_increment(j, n);
		}
	}
out:
	EVP_MD_CTX_free(ctx);
	EVP_MD_CTX_free(prefix);
	if (trials)
		*trials = done;
	return rc;
}

int hip_puzzle_solve(enum hip_rhash h, unsigned k, const uint8_t *i,
		     const uint8_t hit_i[16], const uint8_t hit_r[16],
		     const uint8_t *j_start, uint64_t max_trials,
		     uint64_t deadline_ns, uint8_t *j_out, uint64_t *trials)
{
	return puzzle_search(h, k, i, hit_i, hit_r, j_start, max_trials, deadline_ns, NULL,
			     j_out, trials);
}

int hip_puzzle_solve_stoppable(enum hip_rhash h, unsigned k, const uint8_t *i,
			       const uint8_t hit_i[16], const uint8_t hit_r[16],
			       const uint8_t *j_start, uint64_t deadline_ns, const int *stop,
			       uint8_t *j_out, uint64_t *trials)
{
	if (!stop)
		return -EINVAL;
	return puzzle_search(h, k, i, hit_i, hit_r, j_start, 0, deadline_ns, stop, j_out,
			     trials);
}

int hip_puzzle_verify(enum hip_rhash h, unsigned k, const uint8_t *i,
		      const uint8_t hit_i[16], const uint8_t hit_r[16],
		      const uint8_t *j)
{
	uint8_t in[CW_PUZZLE_IN_MAX];
	uint8_t digest[HIP_RHASH_MAX_LEN];
	size_t n = hip_rhash_len(h);
	int rc;

	if (n == 0)
		return -ENOTSUP;
	if (k > CW_PUZZLE_K_MAX || !i || !hit_i || !hit_r || !j)
		return -EINVAL;

	memcpy(in, i, n);
	memcpy(in + n, hit_i, 16);
	memcpy(in + n + 16, hit_r, 16);
	memcpy(in + n + 32, j, n);
	rc = hip_digest(h, in, 2 * n + 32, digest);
	if (rc)
		return rc;
	return cw_puzzle_ok(digest, n, k) ? 0 : -EBADMSG;
}
