/*
 * bench-reg.c - the rendezvous server's costs in one process, no network
 * (a benchmark tool, bench/README.md, not a test):
 *
 *  (a) memory per registration: N client HITs (default 100,000) registered
 *      for rendezvous through reg_registrar_request() as an I2's
 *      REG_REQUEST would be; reg_registrar_bytes() / count (the table's own
 *      accounting) and the growth of this process's resident set
 *      (/proc/self/statm) per registration (malloc's overhead included);
 *  (b) relayed I1s per second on one core: I1s from one Initiator to
 *      I1_CLIENTS different registered clients (built with libhipcore's
 *      builder, parsed once), then for about SECONDS s a loop of
 *      reg_registrar_has() + rvs_relay_build() (FROM and RVS_HMAC-SHA256
 *      over a 32-byte integrity key, as hipd's eng_rvs_relay does), and
 *      the same loop with hip_packet_parse() of each input and the
 *      checksum of the output (closer to the daemon's per-packet work
 *      without the association lookup and the sockets), and that loop
 *      again with RVS_HMAC-SHA384 and a 48-byte key (RHASH of ECDSA HITs,
 *      hipd's default identities; SECONDS / 2).
 *
 * Usage: bench-reg [-n N] [-s SECONDS] [--json]
 * Prints the details, then
 *   bench-reg: memory_per_registration_bytes N (target <= 1024)
 *   bench-reg: relayed_i1_per_s N (target >= 100000)
 * the larger of the table's count and the RSS growth, and the SHA-256
 * rate with the parse; or one JSON object with --json.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "checksum.h"
#include "engine/assoc/assoc.h"
#include "engine/reg/reg.h"
#include "hip_crypto.h"
#include "packet.h"
#include "params.h"

enum { I1_CLIENTS = 1024, I1_BUF = 256, OUT_BUF = 512, CHECK_EVERY = 1024, ROUNDS = 4 };

#define NS_PER_S 1000000000ULL
#define TARGET_BYTES 1024
#define TARGET_RATE 100000

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Resident set of this process in bytes (/proc/self/statm, field 2). */
static long rss_bytes(void)
{
	unsigned long size, resident;
	FILE *f = fopen("/proc/self/statm", "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%lu %lu", &size, &resident);
	fclose(f);
	return n == 2 ? (long)resident * sysconf(_SC_PAGESIZE) : -1;
}

/* Client HIT number i: the ORCHID prefix, the rest random-looking (a
 * multiplicative hash of i: distinct for distinct i, spread over the table). */
static struct hip_hit client_hit(uint32_t i)
{
	struct hip_hit h = { { 0x20, 0x01, 0x00, 0x21 } };
	uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ULL;

	for (int k = 0; k < 8; k++)
		h.b[4 + k] = (uint8_t)(x >> (8 * k));
	h.b[12] = (uint8_t)(i >> 24);
	h.b[13] = (uint8_t)(i >> 16);
	h.b[14] = (uint8_t)(i >> 8);
	h.b[15] = (uint8_t)i;
	return h;
}

struct result {
	unsigned long n;
	size_t count, table_bytes;
	double table_per_reg, rss_per_reg, insert_ns;
	double relay_per_s, relay_parse_per_s, relay384_parse_per_s;
	unsigned long relayed, relayed_parse, relayed384_parse;
};

/* (a): n registrations; the registrar stays filled for (b). */
static int fill(struct reg_registrar *r, const struct reg_policy *pol, unsigned long n,
		uint64_t now, struct result *res)
{
	struct hip_reg req = { .value = 0, .n = 1, .type = { HIP_REG_RENDEZVOUS } };
	struct reg_answer ans;
	long before, after;
	double t;

	req.value = hip_reg_lifetime_encode(3600);
	before = rss_bytes();
	t = now_s();
	for (unsigned long i = 0; i < n; i++) {
		struct hip_hit h = client_hit((uint32_t)i);

		reg_registrar_request(r, pol, &h, &req, 1, now, &ans);
		if (ans.n_responses != 1 || ans.n_failed != 0) {
			fprintf(stderr, "bench-reg: registration %lu not granted\n", i);
			return -1;
		}
	}
	t = now_s() - t;
	after = rss_bytes();
	res->n = n;
	res->count = reg_registrar_count(r);
	res->table_bytes = reg_registrar_bytes(r);
	if (res->count != n || before < 0 || after < 0) {
		fprintf(stderr, "bench-reg: %zu registrations held of %lu\n", res->count, n);
		return -1;
	}
	res->table_per_reg = (double)res->table_bytes / (double)n;
	res->rss_per_reg = (double)(after - before) / (double)n;
	res->insert_ns = t * 1e9 / (double)n;
	return 0;
}

/* The server's association with the clients: keys as after a base
 * exchange with RHASH SHA-256 (tests/unit/check_rvs.c). */
static void server_ha(struct hip_ha *ha, enum hip_rhash rhash)
{
	size_t klen = rhash == HIP_RHASH_SHA384 ? 48 : 32;

	memset(ha, 0, sizeof(*ha));
	ha->hit_local = client_hit(0xfffffff0u);
	ha->hit_peer = client_hit(0);
	ha->rhash = rhash;
	ha->hip_keys.int_len = klen;
	memset(ha->hip_keys.gl_int, 0x11, klen);
	memset(ha->hip_keys.lg_int, 0x22, klen);
	ha->hip_keys.enc_len = 16;
	memset(ha->hip_keys.gl_enc, 0x33, 16);
	memset(ha->hip_keys.lg_enc, 0x44, 16);
	if (hip_addr_from_str("203.0.113.2", &ha->addr_peer) < 0 ||
	    hip_addr_from_str("203.0.113.1", &ha->addr_local) < 0)
		abort();
}

/* (b): relayed I1s per second over about secs seconds; with_parse: each
 * input parsed and each output's checksum set, as the daemon does. */
static int relay_rate(struct reg_registrar *r, unsigned long nreg, uint64_t now, double secs,
		      enum hip_rhash rhash, bool with_parse, double *rate, unsigned long *done)
{
	static uint8_t in[I1_CLIENTS][I1_BUF];
	static size_t in_len[I1_CLIENTS];
	static struct hip_packet parsed[I1_CLIENTS];
	struct hip_u8_list groups = { 2, { HIP_DH_NIST_P256, HIP_DH_NIST_P384 } };
	struct hip_hit initiator = client_hit(0xfffffff1u);
	struct hip_addr src;
	uint8_t out[OUT_BUF];
	struct hip_ha ha;
	unsigned long n = 0;
	double t0, t;

	server_ha(&ha, rhash);
	if (hip_addr_from_str("198.51.100.7", &src) < 0)
		return -1;
	for (unsigned i = 0; i < I1_CLIENTS; i++) {
		/* clients spread over the table */
		struct hip_hit c = client_hit((uint32_t)(i * (nreg / I1_CLIENTS)));
		struct hip_builder b;
		int len;

		hip_build_init(&b, in[i], sizeof(in[i]), HIP_I1, &initiator, &c);
		hip_dh_group_list_build(&b, &groups);
		len = hip_build_finish(&b);
		if (len <= 0)
			return -1;
		in_len[i] = (size_t)len;
		hip_packet_set_checksum(in[i], in_len[i], &src, &ha.addr_local);
		if (hip_packet_parse(in[i], in_len[i], &parsed[i]) < 0)
			return -1;
	}
	t0 = now_s();
	do {
		for (unsigned k = 0; k < CHECK_EVERY; k++, n++) {
			unsigned i = (unsigned)(n % I1_CLIENTS);
			struct hip_packet pp, *p = &parsed[i];
			int len;

			if (with_parse) {
				if (hip_packet_parse(in[i], in_len[i], &pp) < 0)
					return -1;
				p = &pp;
			}
			if (!reg_registrar_has(r, &p->hit_receiver, HIP_REG_RENDEZVOUS, now))
				return -1;
			len = rvs_relay_build(p, &src, &ha, out, sizeof(out));
			if (len <= 0)
				return -1;
			if (with_parse)
				hip_packet_set_checksum(out, (size_t)len, &ha.addr_local,
							&ha.addr_peer);
		}
		t = now_s() - t0;
	} while (t < secs);
	*rate = (double)n / t;
	*done = n;
	return 0;
}

static int relayed_ok(struct reg_registrar *r, uint64_t now)
{
	/* one relayed I1 checked by the client's side (sanity, not timed) */
	uint8_t in[I1_BUF], out[OUT_BUF];
	struct hip_u8_list groups = { 1, { HIP_DH_NIST_P256 } };
	struct hip_hit initiator = client_hit(0xfffffff1u), c = client_hit(5);
	struct hip_packet p, q;
	struct hip_addr src, from;
	struct hip_builder b;
	struct hip_ha srv, cli;
	int len;

	server_ha(&srv, HIP_RHASH_SHA256);
	cli = srv;
	cli.hit_local = srv.hit_peer;
	cli.hit_peer = srv.hit_local;
	if (hip_addr_from_str("198.51.100.7", &src) < 0)
		return -1;
	hip_build_init(&b, in, sizeof(in), HIP_I1, &initiator, &c);
	hip_dh_group_list_build(&b, &groups);
	len = hip_build_finish(&b);
	if (len <= 0 || hip_packet_parse(in, (size_t)len, &p) < 0 ||
	    !reg_registrar_has(r, &c, HIP_REG_RENDEZVOUS, now))
		return -1;
	len = rvs_relay_build(&p, &src, &srv, out, sizeof(out));
	if (len <= 0 || hip_packet_parse(out, (size_t)len, &q) < 0 ||
	    rvs_check_relayed(&q, &cli, &from) != 0 || memcmp(&from, &src, sizeof(src)))
		return -1;
	return 0;
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-n REGISTRATIONS] [-s SECONDS] [--json]\n", argv0);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "registrations", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct reg_policy pol = { .types = { HIP_REG_RENDEZVOUS }, .n_types = 1 };
	struct reg_registrar *r = NULL;
	unsigned long n = 100000;
	double secs = 2.0;
	bool json = false;
	struct result res = { 0 };
	uint64_t now = 1000 * NS_PER_S;
	int c;

	while ((c = getopt_long(argc, argv, "n:s:", opts, NULL)) != -1) {
		switch (c) {
		case 'n': n = strtoul(optarg, NULL, 10); break;
		case 's': secs = strtod(optarg, NULL); break;
		case 'j': json = true; break;
		default: usage(argv[0]); return 2;
		}
	}
	if (optind != argc || n < I1_CLIENTS || n > 0xfffffff0ul || secs <= 0) {
		usage(argv[0]);
		fprintf(stderr, "bench-reg: %d to %lu registrations, SECONDS > 0\n",
			I1_CLIENTS, 0xfffffff0ul);
		return 2;
	}
	pol.min_lifetime = hip_reg_lifetime_encode(10);
	pol.max_lifetime = hip_reg_lifetime_encode(3600);
	pol.max_registrations = n;
	pol.requests_per_s = 0;
	if (hip_crypto_init() != 0 || reg_registrar_create(&r) < 0)
		return 1;
	if (fill(r, &pol, n, now, &res) < 0 || relayed_ok(r, now) < 0) {
		fprintf(stderr, "bench-reg: setup failed\n");
		reg_registrar_free(r);
		return 1;
	}
	/* ROUNDS rounds of the three loops in turn, the best of each: a
	 * shared machine's noise falls on all three alike */
	for (int round = 0; round < ROUNDS; round++) {
		double rate;
		unsigned long done;

		if (relay_rate(r, n, now, secs / ROUNDS, HIP_RHASH_SHA256, false, &rate,
			       &done) < 0)
			goto relay_failed;
		res.relayed += done;
		res.relay_per_s = rate > res.relay_per_s ? rate : res.relay_per_s;
		if (relay_rate(r, n, now, secs / ROUNDS, HIP_RHASH_SHA256, true, &rate,
			       &done) < 0)
			goto relay_failed;
		res.relayed_parse += done;
		res.relay_parse_per_s = rate > res.relay_parse_per_s ? rate : res.relay_parse_per_s;
		if (relay_rate(r, n, now, secs / 2 / ROUNDS, HIP_RHASH_SHA384, true, &rate,
			       &done) < 0)
			goto relay_failed;
		res.relayed384_parse += done;
		res.relay384_parse_per_s = rate > res.relay384_parse_per_s ? rate
			: res.relay384_parse_per_s;
	}
	reg_registrar_free(r);
	r = NULL;
	if (json) {
		printf("{\"registrations\": %lu, \"table_bytes\": %zu, \"table_bytes_per_"
		       "registration\": %.1f, \"rss_bytes_per_registration\": %.1f, "
		       "\"insert_ns\": %.1f, \"relayed_i1_per_s\": %.0f, "
		       "\"relayed_i1_with_parse_per_s\": %.0f, "
		       "\"relayed_i1_with_parse_sha384_per_s\": %.0f}\n", res.n, res.table_bytes,
		       res.table_per_reg, res.rss_per_reg, res.insert_ns, res.relay_per_s,
		       res.relay_parse_per_s, res.relay384_parse_per_s);
		return 0;
	}
	printf("bench-reg: %lu registrations: table %zu bytes (%.1f per registration), "
	       "RSS growth %.1f bytes per registration, %.0f ns per insert\n", res.n,
	       res.table_bytes, res.table_per_reg, res.rss_per_reg, res.insert_ns);
	printf("bench-reg: RVS_HMAC-SHA256 (best of %d rounds): has + relay_build: %.0f I1/s "
	       "(%lu in %.1f s); with parse + checksum: %.0f I1/s (%lu)\n", ROUNDS,
	       res.relay_per_s, res.relayed, secs, res.relay_parse_per_s, res.relayed_parse);
	printf("bench-reg: RVS_HMAC-SHA384 (ECDSA HITs): with parse + checksum: %.0f I1/s "
	       "(%lu in %.1f s)\n", res.relay384_parse_per_s, res.relayed384_parse, secs / 2);
	/* the headline figures: the larger of the table's own count and the
	 * RSS growth; the rate with the parse, the daemon's per-packet work */
	printf("bench-reg: memory_per_registration_bytes %.0f (target <= %d)\n",
	       res.rss_per_reg > res.table_per_reg ? res.rss_per_reg : res.table_per_reg,
	       TARGET_BYTES);
	printf("bench-reg: relayed_i1_per_s %.0f (target >= %d)\n", res.relay_parse_per_s,
	       TARGET_RATE);
	return 0;
relay_failed:
	fprintf(stderr, "bench-reg: relaying failed\n");
	reg_registrar_free(r);
	return 1;
}
