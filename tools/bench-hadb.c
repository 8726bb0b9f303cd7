/*
 * bench-hadb.c - association lookup cost against table size (a benchmark
 * tool for bench/scale.sh, not a test): hipd's own hadb (hadb.c) filled
 * with N associations of random HITs and SPIs, then hadb_find (by HIT
 * pair, every received packet) and hadb_find_spi (by inbound SPI, every
 * ESP packet) timed over random present keys and over absent ones.
 *
 * Usage: bench-hadb [N ...]   (default: 1000 10000 100000)
 * Prints one line per N, ns per lookup (best of 5 rounds).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "engine/assoc/assoc.h"

enum { LOOKUPS = 1000000, ROUNDS = 5 };

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int measure(unsigned long n)
{
	struct hip_hit local = { .b = { 0x20, 0x01, 0x00, 0x22, 1 } };
	struct hip_hit *peers = calloc(n, sizeof(*peers)), absent;
	uint32_t *spis = calloc(n, sizeof(*spis));
	unsigned long *order = calloc(LOOKUPS, sizeof(*order));
	double best_hit = 1e18, best_spi = 1e18, best_miss = 1e18, t;
	struct hadb *db = NULL;
	unsigned long found = 0;
	int ret = -1;

	if (!peers || !spis || !order || hadb_create(&db) < 0)
		goto out;
	for (unsigned long i = 0; i < n; i++) {
		struct hip_ha *ha;

		if (hip_random(peers[i].b, sizeof(peers[i].b)) < 0 ||
		    hadb_add(db, &local, &peers[i], &ha) < 0)
			goto out;
		spis[i] = hadb_new_spi(db);
		if (!spis[i] || hadb_set_spi(db, ha, spis[i]) < 0)
			goto out;
	}
	for (unsigned long k = 0; k < LOOKUPS; k++)
		order[k] = (unsigned long)rand() % n;
	if (hip_random(absent.b, sizeof(absent.b)) < 0)
		goto out;
	for (int r = 0; r < ROUNDS; r++) {
		t = now_ns();
		for (unsigned long k = 0; k < LOOKUPS; k++)
			found += hadb_find(db, &local, &peers[order[k]]) != NULL;
		t = (now_ns() - t) / LOOKUPS;
		best_hit = t < best_hit ? t : best_hit;
		t = now_ns();
		for (unsigned long k = 0; k < LOOKUPS; k++)
			found += hadb_find_spi(db, spis[order[k]]) != NULL;
		t = (now_ns() - t) / LOOKUPS;
		best_spi = t < best_spi ? t : best_spi;
		t = now_ns();
		for (unsigned long k = 0; k < LOOKUPS; k++) {
			absent.b[15] = (uint8_t)k;
			found += hadb_find(db, &local, &absent) != NULL;
		}
		t = (now_ns() - t) / LOOKUPS;
		best_miss = t < best_miss ? t : best_miss;
	}
	printf("{\"associations\": %lu, \"find_hit_ns\": %.1f, \"find_spi_ns\": %.1f, "
	       "\"find_absent_ns\": %.1f, \"found\": %lu}\n", n, best_hit, best_spi, best_miss,
	       found);
	ret = 0;
out:
	hadb_free(db);
	free(peers);
	free(spis);
	free(order);
	return ret;
}

int main(int argc, char **argv)
{
	static const unsigned long defaults[] = { 1000, 10000, 100000 };

	if (hip_crypto_init() != 0)
		return 1;
	if (argc < 2) {
		for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
			if (measure(defaults[i]) < 0)
				return 1;
		return 0;
	}
	for (int a = 1; a < argc; a++) {
		unsigned long n = strtoul(argv[a], NULL, 10);

		if (n == 0 || measure(n) < 0) {
			fprintf(stderr, "usage: %s [N ...]\n", argv[0]);
			return n == 0 ? 2 : 1;
		}
	}
	return 0;
}
