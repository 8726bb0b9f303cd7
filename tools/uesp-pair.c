/*
 * uesp-pair - test and benchmark tool for the userspace ESP datapath without
 * a base exchange: one side of a hand-made SA pair (fixed test keys), a TUN
 * hip0 and raw ESP sockets, run in the current network namespace.
 *
 *   uesp-pair run a|b v4|v6 SUITE [lazy]
 *       side a: HIT 2001:20::a, locator fd00::1 / 192.0.2.1; b: ::b, ::2, .2.
 *       lazy: install the outbound SA only when the datapath asks (acquire),
 *       100 ms later, like a base exchange would (first-packet case).
 *       Prints "ready" when set up; SIGTERM ends it, counters on stderr.
 *       Environment: UESP_NO_OFFLOAD (no IFF_VNET_HDR).
 *   uesp-pair sink PORT            accept one TCP connection on [::]:PORT,
 *                                  print "<bytes> <sha256>"
 *   uesp-pair source ADDR PORT N   send N bytes of a fixed pseudo-random
 *                                  stream, print "<bytes> <sha256> <Mbit/s>"
 * Test keys only: never use this outside a test namespace.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "datapath/datapath.h"
#include "hip_crypto.h"
#include "base/base.h"
#include "datapath/uesp/uesp.h"

struct pair {
	struct hip_loop *loop;
	struct datapath *dp;
	struct hip_esp_sa out, in;
	bool lazy, out_installed;
};

static void side_addrs(char side, bool v4, struct hip_hit *hit, struct hip_addr *loc)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "2001:20::%c", side);
	hip_hit_from_str(buf, hit);
	if (v4)
		snprintf(buf, sizeof(buf), "192.0.2.%d", side == 'a' ? 1 : 2);
	else
		snprintf(buf, sizeof(buf), "fd00::%d", side == 'a' ? 1 : 2);
	hip_addr_from_str(buf, loc);
}

/* The SA protecting what `from` sends; the same on both sides. */
static void make_sa(struct hip_esp_sa *sa, char from, bool v4, uint16_t suite, bool inbound)
{
	struct hip_esp_suite_info in;
	char to = from == 'a' ? 'b' : 'a';

	memset(sa, 0, sizeof(*sa));
	hip_esp_suite_info(suite, &in);
	sa->spi = 0x10000u + (unsigned)from;
	sa->inbound = inbound;
	side_addrs(from, v4, &sa->inner_src, &sa->outer_src);
	side_addrs(to, v4, &sa->inner_dst, &sa->outer_dst);
	sa->suite = suite;
	sa->enc_len = in.enc_key_len;
	sa->auth_len = in.auth_key_len;
	for (size_t k = 0; k < sizeof(sa->enc_key); k++) {
		sa->enc_key[k] = (uint8_t)(from + 3 * k);
		sa->auth_key[k] = (uint8_t)(from + 5 * k + 1);
	}
}

static void install_out(struct hip_loop *loop, uint64_t timer, void *arg)
{
	struct pair *p = arg;

	(void)loop;
	(void)timer;
	if (p->dp->ops->sa_add(p->dp, &p->out))
		fprintf(stderr, "uesp-pair: outbound SA refused\n");
}

static void on_acquire(void *arg, const struct hip_hit *local, const struct hip_hit *peer)
{
	struct pair *p = arg;
	char a[HIP_HIT_STR_LEN], b[HIP_HIT_STR_LEN];

	fprintf(stderr, "uesp-pair: acquire %s -> %s\n", hip_hit_to_str(local, a, sizeof(a)),
		hip_hit_to_str(peer, b, sizeof(b)));
	if (p->lazy && !p->out_installed) {
		p->out_installed = true;
		hip_loop_timer_add(p->loop, 100000000u, install_out, p);
	}
}

static void on_signal(struct hip_loop *loop, const struct signalfd_siginfo *si, void *arg)
{
	(void)si;
	(void)arg;
	hip_loop_stop(loop);
}

static int run(char side, bool v4, uint16_t suite, bool lazy)
{
	struct datapath_events ev = { 0 };
	struct uesp_conf conf = { .udp = false, .udp4 = -1, .udp6 = -1 };
	struct hip_esp_sa_stats so = { 0 }, si = { 0 };
	struct hip_hit hit;
	struct hip_addr loc;
	struct pair p = { 0 };
	char ifname[32];
	int rc;

	side_addrs(side, v4, &hit, &loc);
	make_sa(&p.out, side, v4, suite, false);
	make_sa(&p.in, side == 'a' ? 'b' : 'a', v4, suite, true);
	p.lazy = lazy;
	conf.tun_vnet = getenv("UESP_NO_OFFLOAD") == NULL;
	conf.tun_mtu = v4 ? 1440 : 1420;
	conf.tun_fd = tun_open("hip0", conf.tun_vnet, ifname);
	if (conf.tun_fd < 0) {
		fprintf(stderr, "tun_open: %s\n", strerror(-conf.tun_fd));
		return 1;
	}
	rc = tun_configure(ifname, &hit, conf.tun_mtu);
	if (rc) {
		fprintf(stderr, "tun_configure: %s\n", strerror(-rc));
		return 1;
	}
	conf.raw4 = uesp_open_raw(AF_INET);
	conf.raw6 = uesp_open_raw(AF_INET6);
	if (conf.raw4 < 0 || conf.raw6 < 0) {
		fprintf(stderr, "raw ESP sockets: %s\n", strerror(errno));
		return 1;
	}
	if (hip_loop_create(&p.loop))
		return 1;
	ev.arg = &p;
	ev.acquire = on_acquire;
	rc = uesp_create(p.loop, &conf, &ev, &p.dp);
	if (rc) {
		fprintf(stderr, "uesp_create: %s\n", strerror(-rc));
		return 1;
	}
	if (p.dp->ops->sa_add(p.dp, &p.in) || (!lazy && p.dp->ops->sa_add(p.dp, &p.out))) {
		fprintf(stderr, "sa_add failed\n");
		return 1;
	}
	hip_loop_signal_add(p.loop, SIGTERM, on_signal, NULL);
	hip_loop_signal_add(p.loop, SIGINT, on_signal, NULL);
	printf("ready\n");
	fflush(stdout);
	hip_loop_run(p.loop);
	p.dp->ops->sa_stats(p.dp, p.out.spi, false, &so);
	p.dp->ops->sa_stats(p.dp, p.in.spi, true, &si);
	fprintf(stderr, "uesp-pair %c: out %llu pkts %llu bytes; in %llu pkts %llu bytes, "
		"replay drops %llu, auth drops %llu\n", side,
		(unsigned long long)so.packets, (unsigned long long)so.bytes,
		(unsigned long long)si.packets, (unsigned long long)si.bytes,
		(unsigned long long)si.replay_drops, (unsigned long long)si.auth_drops);
	p.dp->ops->free(p.dp);
	hip_loop_free(p.loop);
	return 0;
}

static void stream_fill(uint8_t *buf, size_t len, uint64_t *state)
{
	for (size_t k = 0; k < len; k++) {
		*state = *state * 6364136223846793005u + 1442695040888963407u;
		buf[k] = (uint8_t)(*state >> 56);
	}
}

static void print_digest(EVP_MD_CTX *md, uint64_t bytes, double secs)
{
	uint8_t d[32];
	unsigned dl = 0;

	EVP_DigestFinal_ex(md, d, &dl);
	printf("%llu ", (unsigned long long)bytes);
	for (unsigned k = 0; k < dl; k++)
		printf("%02x", d[k]);
	if (secs > 0)
		printf(" %.1f", (double)bytes * 8 / secs / 1e6);
	printf("\n");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int sink(int port)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port) };
	static uint8_t buf[1 << 16];
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	uint64_t total = 0;
	int s, c, on = 1;
	ssize_t n;

	s = socket(AF_INET6, SOCK_STREAM, 0);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 1))
		return 1;
	printf("listening\n");
	fflush(stdout);
	c = accept(s, NULL, NULL);
	if (c < 0)
		return 1;
	EVP_DigestInit_ex(md, EVP_sha256(), NULL);
	while ((n = read(c, buf, sizeof(buf))) > 0) {
		EVP_DigestUpdate(md, buf, (size_t)n);
		total += (uint64_t)n;
	}
	print_digest(md, total, 0);
	EVP_MD_CTX_free(md);
	return 0;
}

static int source(const char *addr, int port, uint64_t bytes)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port) };
	static uint8_t buf[1 << 16];
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	uint64_t state = 42, sent = 0;
	double t0;
	int s;

	if (inet_pton(AF_INET6, addr, &a.sin6_addr) != 1)
		return 1;
	s = socket(AF_INET6, SOCK_STREAM, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a))) {
		perror("connect");
		return 1;
	}
	EVP_DigestInit_ex(md, EVP_sha256(), NULL);
	stream_fill(buf, sizeof(buf), &state);
	t0 = now_s();
	while (sent < bytes) {
		size_t chunk = bytes - sent < sizeof(buf) ? (size_t)(bytes - sent) : sizeof(buf);
		ssize_t n = write(s, buf, chunk);

		if (n <= 0) {
			perror("write");
			return 1;
		}
		EVP_DigestUpdate(md, buf, (size_t)n);
		sent += (uint64_t)n;
		/* vary the data cheaply: rotate one byte per write */
		buf[sent % sizeof(buf)] ^= 0x5a;
	}
	shutdown(s, SHUT_WR);
	{
		uint8_t tmp[16];

		while (read(s, tmp, sizeof(tmp)) > 0)
			;
	}
	print_digest(md, sent, now_s() - t0);
	EVP_MD_CTX_free(md);
	close(s);
	return 0;
}

int main(int argc, char **argv)
{
	if (hip_crypto_init())
		return 1;
	if (argc >= 5 && !strcmp(argv[1], "run") && (argv[2][0] == 'a' || argv[2][0] == 'b'))
		return run(argv[2][0], !strcmp(argv[3], "v4"), (uint16_t)atoi(argv[4]),
			   argc >= 6 && !strcmp(argv[5], "lazy"));
	if (argc == 3 && !strcmp(argv[1], "sink"))
		return sink(atoi(argv[2]));
	if (argc == 5 && !strcmp(argv[1], "source"))
		return source(argv[2], atoi(argv[3]), strtoull(argv[4], NULL, 0));
	fprintf(stderr, "usage: uesp-pair run a|b v4|v6 SUITE [lazy] | sink PORT | "
		"source ADDR PORT BYTES\n");
	return 2;
}
