/*
 * bench_common.c - CPU clocks, puzzle solver rate and primitive costs for
 * the benchmark tools (bench_common.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <time.h>

#include "bench_common.h"

enum {
	SOLVER_K     = 28,       /* too hard to finish: every trial counts */
	SOLVER_CHUNK = 200000,   /* trials per solver call */
	MEASURE_MAX  = 64,
};

double bench_user_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
}

double bench_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int bench_solver_rate(enum hip_rhash h, double seconds, double *rate)
{
	size_t n = hip_rhash_len(h);
	uint8_t i[HIP_RHASH_MAX_LEN], hit_i[16], hit_r[16];
	uint8_t j[HIP_RHASH_MAX_LEN], j_out[HIP_RHASH_MAX_LEN];
	uint64_t total = 0;
	double t0, elapsed;
	int rc;

	if ((rc = hip_random(i, n)) || (rc = hip_random(hit_i, 16)) ||
	    (rc = hip_random(hit_r, 16)))
		return rc;
	t0 = bench_user_seconds();
	do {
		uint64_t trials = 0;

		if ((rc = hip_random(j, n)) != 0)
			return rc;
		rc = hip_puzzle_solve(h, SOLVER_K, i, hit_i, hit_r, j, SOLVER_CHUNK, 0,
				      j_out, &trials);
		if (rc != 0 && rc != -ETIMEDOUT)
			return rc;
		total += trials;
		elapsed = bench_user_seconds() - t0;
	} while (elapsed < seconds);
	*rate = (double)total / elapsed;
	return 0;
}

int bench_op_ecdh_keygen(struct bench_state *s)
{
	struct hip_dh *dh = NULL;
	int rc = hip_dh_generate(BENCH_DH_GROUP_P256, &dh);

	(void)s;
	hip_dh_free(dh);
	return rc;
}

int bench_op_ecdh_derive(struct bench_state *s)
{
	return hip_dh_derive(s->dh_a, s->pub_b, sizeof(s->pub_b), s->out, 32);
}

int bench_op_ecdsa_sign(struct bench_state *s)
{
	uint8_t sig[128];
	size_t len = sizeof(sig);

	return hip_hi_sign(s->hi, s->msg, BENCH_SIGNED_LEN, sig, &len);
}

int bench_op_ecdsa_verify(struct bench_state *s)
{
	return hip_hi_verify(s->hi_pub, s->msg, BENCH_SIGNED_LEN, s->sig, s->sig_len);
}

int bench_op_hmac384(struct bench_state *s)
{
	struct iovec iov = { s->msg, BENCH_HMAC_LEN };

	return hip_hmacv(HIP_RHASH_SHA384, s->key, 48, &iov, 1, s->out);
}

int bench_op_keymat(struct bench_state *s)
{
	return hip_keymat(HIP_RHASH_SHA384, s->i, s->j, 48, s->kij, 32, s->hit_i, s->hit_r,
			  s->out, BENCH_KEYMAT_LEN);
}

int bench_op_puzzle_verify(struct bench_state *s)
{
	int rc = hip_puzzle_verify(HIP_RHASH_SHA384, 0, s->i, s->hit_i, s->hit_r, s->j);

	return rc == -EBADMSG ? 0 : rc;
}

int bench_state_setup(struct bench_state *s)
{
	const uint8_t *wire;
	size_t wire_len;
	int rc;

	memset(s, 0, sizeof(*s));
	if ((rc = hip_random(s->msg, sizeof(s->msg))) || (rc = hip_random(s->key, 48)) ||
	    (rc = hip_random(s->i, 48)) || (rc = hip_random(s->j, 48)) ||
	    (rc = hip_random(s->kij, 32)) || (rc = hip_random(s->hit_i, 16)) ||
	    (rc = hip_random(s->hit_r, 16)))
		return rc;
	if (hip_dh_pub_len(BENCH_DH_GROUP_P256) != sizeof(s->pub_b))
		return -ENOTSUP;
	if ((rc = hip_dh_generate(BENCH_DH_GROUP_P256, &s->dh_a)) ||
	    (rc = hip_dh_generate(BENCH_DH_GROUP_P256, &s->dh_b)) ||
	    (rc = hip_dh_public(s->dh_b, s->pub_b, sizeof(s->pub_b))))
		return rc;
	if ((rc = hip_hi_generate(HIP_HI_KIND_ECDSA_P256, &s->hi)) != 0)
		return rc;
	/* Verify with a public-only identity built from the wire, as a
	 * Responder does with the Initiator's HOST_ID. */
	wire = hip_hi_wire(s->hi, &wire_len);
	if (!wire)
		return -EIO;
	if ((rc = hip_hi_from_wire(hip_hi_algorithm(s->hi), wire, wire_len, &s->hi_pub)))
		return rc;
	s->sig_len = sizeof(s->sig);
	return hip_hi_sign(s->hi, s->msg, BENCH_SIGNED_LEN, s->sig, &s->sig_len);
}

void bench_state_teardown(struct bench_state *s)
{
	hip_dh_free(s->dh_a);
	hip_dh_free(s->dh_b);
	hip_hi_free(s->hi);
	hip_hi_free(s->hi_pub);
	hip_wipe(s, sizeof(*s));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int bench_measure_op(bench_op_fn op, struct bench_state *s, int runs, double run_ms,
		     double *us)
{
	double per_op[MEASURE_MAX], t0, t;
	unsigned long m = 0, k;
	int rc;

	if (runs < 1)
		return -EINVAL;
	if (runs > MEASURE_MAX)
		runs = MEASURE_MAX;
	/* Calibrate (and warm up): how many operations fill one run. */
	t0 = bench_cpu_seconds();
	do {
		if ((rc = op(s)) != 0)
			return rc;
		m++;
		t = bench_cpu_seconds() - t0;
	} while (t * 1e3 < run_ms);
	for (int r = 0; r < runs; r++) {
		t0 = bench_cpu_seconds();
		for (k = 0; k < m; k++)
			if ((rc = op(s)) != 0)
				return rc;
		per_op[r] = (bench_cpu_seconds() - t0) / (double)m;
	}
	qsort(per_op, (size_t)runs, sizeof(per_op[0]), cmp_double);
	*us = per_op[runs / 2] * 1e6;
	return 0;
}
