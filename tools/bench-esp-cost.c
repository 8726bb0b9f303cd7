/*
 * bench-esp-cost.c - the instructions hipd's userspace ESP code spends per
 * megabyte, in one process, for callgrind on any architecture
 * (bench/esp-cost-arch.sh; a benchmark tool, not a test).
 *
 * One SA pair for the direction a -> b, made by hand as tools/uesp-pair makes
 * it (fixed test keys, SPI 0x10000 + 'a', HITs 2001:20::a -> 2001:20::b), ESP
 * suite SUITE. MB megabytes (10^6 bytes, rounded up to whole packets) of inner
 * IPv6 packets of 1400 bytes (a TCP segment of about hip0's MTU) are sealed
 * by the sender's outbound SA with esp_encap, what the datapath runs per
 * packet it reads from hip0 (hipd/datapath/uesp/uesp_io.c), and, unless
 * --seal-only, each is opened at once by the receiver's inbound SA with
 * esp_decap (replay check, ICV, decryption, window update, inner header
 * rebuilt), what the datapath runs per ESP packet it receives. The buffers
 * are the datapath's sizes, the received packet sits behind the headroom the
 * datapath leaves. Not here: system calls (TUN, raw sockets), TSO
 * segmentation and its checksums, receive coalescing, the SA lookup, and the
 * kernel: bench/esp-cost.sh counts the whole userspace datapath instead, on
 * amd64 only (network namespaces).
 *
 * The loop makes no system call and takes no time from the clock, so the
 * process's instruction total is start-up plus a part proportional to MB;
 * bench/esp-cost-arch.sh takes it from two sizes. Every packet's inner length
 * is checked and the first and the last are compared whole with what was
 * sealed: a failure ends the run with status 1.
 *
 * Usage: bench-esp-cost [-s SUITE] [-m MB] [--seal-only]
 * Test keys only: never use them outside a benchmark.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/datapath.h"
#include "esp.h"   /* white-box, as bench-bex-cost: -I hipd/datapath/uesp */
#include "hip_crypto.h"

enum {
	INNER_LEN = 1400,               /* inner IPv6 packet, header included */
	PKT_MAX = 2048,                 /* the datapath's UESP_PKT_MAX */
	HEADROOM = 64,                  /* the datapath's UESP_RX_HEADROOM */
	SA_SPI = 0x10000 + 'a',
};

struct esp_cost {
	struct esp_out out;             /* a's outbound SA */
	struct esp_in in;               /* b's inbound SA, same keys */
	uint8_t inner[INNER_LEN];
	uint8_t wire[HEADROOM + PKT_MAX];
};

/* tools/uesp-pair.c's test keys for what side `from` sends. */
static int sa_ctx(uint16_t suite, char from, bool encrypt, struct hip_esp_ctx **ctx)
{
	struct hip_esp_suite_info info;
	uint8_t enc[HIP_ESP_KEY_MAX], auth[HIP_ESP_KEY_MAX];
	int rc;

	rc = hip_esp_suite_info(suite, &info);
	if (rc)
		return rc;
	for (size_t k = 0; k < sizeof(enc); k++) {
		enc[k] = (uint8_t)(from + 3 * k);
		auth[k] = (uint8_t)(from + 5 * k + 1);
	}
	rc = hip_esp_ctx_new(suite, enc, info.enc_key_len, auth, info.auth_key_len, encrypt, ctx);
	hip_wipe(enc, sizeof(enc));
	hip_wipe(auth, sizeof(auth));
	return rc;
}

static int pair_init(struct esp_cost *c, uint16_t suite)
{
	int rc;

	memset(c, 0, sizeof(*c));
	if (hip_hit_from_str("2001:20::a", &c->out.inner_src) ||
	    hip_hit_from_str("2001:20::b", &c->out.inner_dst))
		return -EINVAL;
	c->in.inner_src = c->out.inner_src;
	c->in.inner_dst = c->out.inner_dst;
	c->out.spi = SA_SPI;
	c->in.spi = SA_SPI;
	rc = sa_ctx(suite, 'a', true, &c->out.ctx);
	if (rc)
		return rc;
	rc = sa_ctx(suite, 'a', false, &c->in.ctx);
	if (rc)
		return rc;
	return esp_replay_init(&c->in.replay, 0);
}

/* One inner packet a -> b: IPv6, Next Header TCP, a fixed pseudo-random body
 * (the ciphers' cost does not depend on it). */
static void inner_fill(struct esp_cost *c)
{
	uint64_t state = 0x243f6a8885a308d3u;

	memset(c->inner, 0, ESP_IP6_HDR_LEN);
	c->inner[0] = 6 << 4;
	hip_wr16(c->inner + 4, INNER_LEN - ESP_IP6_HDR_LEN);
	c->inner[6] = IPPROTO_TCP;
	c->inner[7] = 64;
	memcpy(c->inner + 8, c->out.inner_src.b, 16);
	memcpy(c->inner + 24, c->out.inner_dst.b, 16);
	for (size_t k = ESP_IP6_HDR_LEN; k < INNER_LEN; k++) {
		state = state * 6364136223846793005u + 1442695040888963407u;
		c->inner[k] = (uint8_t)(state >> 56);
	}
}

/* Seal one packet into c->wire behind the headroom and, with open, open it
 * in place; check = compare the inner packet whole. */
static int one_packet(struct esp_cost *c, bool open, bool check)
{
	uint8_t *esp = c->wire + HEADROOM, *inner = NULL;
	size_t esp_len = 0, inner_len = 0;
	int rc;

	rc = esp_encap(&c->out, c->inner, INNER_LEN, esp, PKT_MAX, &esp_len);
	if (rc || !open)
		return rc;
	rc = esp_decap(&c->in, esp, esp_len, 64, &inner, &inner_len, NULL);
	if (rc)
		return rc;
	if (inner_len != INNER_LEN)
		return -EBADMSG;
	if (check && memcmp(inner, c->inner, INNER_LEN))
		return -EBADMSG;
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench-esp-cost [-s SUITE] [-m MB] [--seal-only]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct esp_cost *c = NULL;
	unsigned long suite = 13, mb = 1, packets;
	bool open = true;
	int rc = 0, status = 1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-s") && i + 1 < argc)
			suite = strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "-m") && i + 1 < argc)
			mb = strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--seal-only"))
			open = false;
		else
			usage();
	}
	if (suite == 0 || suite > 0xffff || mb == 0 || mb > 100000)
		usage();
	packets = (mb * 1000000 + INNER_LEN - 1) / INNER_LEN;
	c = calloc(1, sizeof(*c));
	if (!c)
		goto out;
	rc = pair_init(c, (uint16_t)suite);
	if (rc) {
		fprintf(stderr, "bench-esp-cost: SA pair for suite %lu: %s\n", suite, strerror(-rc));
		goto out;
	}
	inner_fill(c);
	for (unsigned long n = 0; n < packets && !rc; n++)
		rc = one_packet(c, open, n == 0 || n + 1 == packets);
	if (rc) {
		fprintf(stderr, "bench-esp-cost: packet failed: %s\n", strerror(-rc));
		goto out;
	}
	printf("bench-esp-cost: suite %lu, %lu packets of %d bytes (%lu inner bytes) sealed%s\n",
	       suite, packets, INNER_LEN, packets * INNER_LEN, open ? " and opened" : "");
	status = 0;
out:
	if (c) {
		hip_esp_ctx_free(c->out.ctx);
		hip_esp_ctx_free(c->in.ctx);
		hip_wipe(c, sizeof(*c));
		free(c);
	}
	return status;
}
