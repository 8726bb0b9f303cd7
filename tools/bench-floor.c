/*
 * bench-floor.c - the CPU floor of one HIP base exchange (a tool for
 * bench/bex-latency.sh, not a test): the sum of the public-key work and the
 * puzzle both hosts must do, from primitive costs measured now on this
 * machine through libcrypto-wrap (the code hipd runs).
 *
 * ECDSA P-256 identities, DH group 7 (ECDH P-256), puzzle difficulty K with
 * the Responder's RHASH (SHA-384 for ECDSA P-256):
 *   floor = 1 DH keygen (the Initiator's; the Responder's is precomputed)
 *         + 2 DH derives (one per host)
 *         + 2 signs (I2, R2; the R1 is presigned)
 *         + 3 verifies (R1, I2, R2)
 *         + 2^K puzzle hashes (the expected number of trials)
 * Everything else (parsing, HMAC, KEYMAT, AES, syscalls) is above the floor.
 *
 * Usage: bench-floor [-k K] [--quick] [--json]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

struct floor_item {
	const char *name, *key;
	bench_op_fn op;
	unsigned times;   /* per base exchange */
	double us;        /* per operation */
};

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-k K] [--quick] [--json]\n", argv0);
}

int main(int argc, char **argv)
{
	struct floor_item items[] = {
		{ "ECDH P-256 keygen", "dh_keygen_us", bench_op_ecdh_keygen, 1, 0 },
		{ "ECDH P-256 derive", "dh_derive_us", bench_op_ecdh_derive, 2, 0 },
		{ "ECDSA P-256 sign", "sign_us", bench_op_ecdsa_sign, 2, 0 },
		{ "ECDSA P-256 verify", "verify_us", bench_op_ecdsa_verify, 3, 0 },
	};
	size_t n = sizeof(items) / sizeof(items[0]);
	int runs = 11, k = 10, rc;
	double run_ms = 20, solver_s = 1, rate = 0, puzzle_us, floor_us = 0;
	bool json = false;
	struct bench_state st;

	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-k") && a + 1 < argc) {
			char *end;

			k = (int)strtol(argv[++a], &end, 10);
			if (*end || k < 0 || k > 28) {
				usage(argv[0]);
				return 2;
			}
		} else if (!strcmp(argv[a], "--quick")) {
			runs = 5;
			run_ms = 10;
			solver_s = 0.3;
		} else if (!strcmp(argv[a], "--json")) {
			json = true;
		} else {
			usage(argv[0]);
			return 2;
		}
	}
	if (hip_crypto_init() != 0) {
		fprintf(stderr, "bench-floor: hip_crypto_init failed\n");
		return 1;
	}
	rc = bench_state_setup(&st);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = bench_measure_op(items[i].op, &st, runs, run_ms, &items[i].us);
	bench_state_teardown(&st);
	if (rc == 0)
		rc = bench_solver_rate(HIP_RHASH_SHA384, solver_s, &rate);
	if (rc != 0 || rate <= 0) {
		fprintf(stderr, "bench-floor: measurement failed: %s\n", strerror(-rc));
		return 1;
	}
	puzzle_us = (double)(1UL << k) / rate * 1e6;
	for (size_t i = 0; i < n; i++)
		floor_us += items[i].times * items[i].us;
	floor_us += puzzle_us;

	if (json) {
		printf("{\"k\": %d, \"puzzle_hash\": \"SHA-384\", \"puzzle_hashes_per_s\": %.0f, "
		       "\"puzzle_us\": %.1f", k, rate, puzzle_us);
		for (size_t i = 0; i < n; i++)
			printf(", \"%s\": %.2f", items[i].key, items[i].us);
		printf(", \"floor_us\": %.1f}\n", floor_us);
		return 0;
	}
	printf("CPU floor of one base exchange (ECDSA P-256, DH 7, K=%d, SHA-384 puzzle)\n", k);
	for (size_t i = 0; i < n; i++)
		printf("  %u x %-20s %8.1f us  = %8.1f us\n", items[i].times, items[i].name,
		       items[i].us, items[i].times * items[i].us);
	printf("  2^%d puzzle hashes at %.0f/s       = %8.1f us\n", k, rate, puzzle_us);
	printf("  floor                                  = %8.1f us\n", floor_us);
	return 0;
}
