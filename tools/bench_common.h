/*
 * bench_common.h - what the benchmark tools share (tools/bench-crypto.c,
 * tools/bench-floor.c): CPU clocks, the puzzle solver's trial rate and the
 * cost of the primitives that bound a base exchange, measured through
 * libcrypto-wrap exactly as hipd calls them.
 */
#ifndef HIP_BENCH_COMMON_H
#define HIP_BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "hip_crypto.h"

enum {
	BENCH_SIGNED_LEN    = 512,   /* about what an I2 signature covers */
	BENCH_HMAC_LEN      = 1024,
	BENCH_KEYMAT_LEN    = 224,   /* HIP keys AES-128 + SHA-384, ESP AES-128/SHA-256 */
	BENCH_DH_GROUP_P256 = 7,
};

/* User CPU time of this process (what openssl speed divides by). */
double bench_user_seconds(void);
/* User + system CPU time of this process. */
double bench_cpu_seconds(void);

/* Puzzle solver trials (hashes) per second of user CPU time for RHASH h,
 * over at least `seconds`. 0 or -errno. */
int bench_solver_rate(enum hip_rhash h, double seconds, double *rate);

/* Keys and buffers the primitive operations work on. */
struct bench_state {
	struct hip_dh *dh_a, *dh_b;
	uint8_t pub_b[64];
	struct hip_hi *hi, *hi_pub;
	uint8_t msg[BENCH_HMAC_LEN];
	uint8_t sig[128];
	size_t sig_len;
	uint8_t key[48], i[48], j[48], kij[32], hit_i[16], hit_r[16];
	uint8_t out[BENCH_KEYMAT_LEN];
};

int bench_state_setup(struct bench_state *s);
void bench_state_teardown(struct bench_state *s);

/* One operation each, as the base exchange does it (0 or -errno). */
typedef int (*bench_op_fn)(struct bench_state *s);
int bench_op_ecdh_keygen(struct bench_state *s);
int bench_op_ecdh_derive(struct bench_state *s);
int bench_op_ecdsa_sign(struct bench_state *s);
int bench_op_ecdsa_verify(struct bench_state *s);
int bench_op_hmac384(struct bench_state *s);
int bench_op_keymat(struct bench_state *s);
int bench_op_puzzle_verify(struct bench_state *s);

/* Median over `runs` (at most 64) runs of the CPU time of one operation,
 * in microseconds; each run lasts about run_ms of CPU time. */
int bench_measure_op(bench_op_fn op, struct bench_state *s, int runs, double run_ms,
		     double *us);

#endif
