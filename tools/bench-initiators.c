/*
 * bench-initiators.c - many HIP Initiators in one process, for
 * bench/scale.sh (a benchmark tool, not a test; run it only inside a network
 * namespace you created).
 *
 * Initiator number i has its own ECDSA P-256 identity (so its own HIT) and
 * its own IPv4 source address src-base + i (the Responder rate-limits R1s
 * per source), and completes a real base exchange with one Responder:
 * I1 -> R1 (puzzle solved, ECDH, KEYMAT with hipd's own key derivation
 * code, keys.c) -> I2 (encrypted HOST_ID, HIP_MAC, signature) -> R2. The
 * Responder's signatures and MACs are not checked: hipd is what is measured.
 * Packets go out through an IP_HDRINCL raw socket; the host must deliver
 * src-base/16 locally (`ip route add local 10.2.0.0/16 dev lo`).
 *
 * Usage: bench-initiators --dst IPV4 --hit-r HIT [--src-base IPV4]
 *          [--first I] --count N [--window W]
 * Prints one JSON line: completed, failed, seconds, exchanges per second.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "coverage.h"
#include "bench_i2.h"
#include "engine/assoc/assoc.h"
#include "hipd.h"
#include "hit.h"
#include "packet.h"
#include "params.h"

enum {
	IP_HDR       = 20,
	PKT_BUF      = HIP_MAX_PACKET + 64,
	TLV_MAX      = 1024,
	KIJ_MAX      = 512,
	ENC_MAX      = TLV_MAX + 64,
	RETRIES      = 5,
	DH_P256      = 7,
};

enum ini_state { INI_IDLE, INI_I1_SENT, INI_I2_SENT, INI_DONE, INI_FAILED };

struct ini {
	struct hip_hi *hi;
	uint8_t host_id_tlv[TLV_MAX];
	size_t host_id_tlv_len;
	struct in_addr src;
	enum ini_state state;
	unsigned tries;
	double t_sent;
	uint8_t *pkt;                 /* last packet sent (IP header included) */
	size_t pkt_len;
	struct hip_ha ha;             /* keys and suites, hipd's own layout */
};

struct run {
	struct in_addr dst, src_base;
	struct hip_hit hit_r;
	unsigned long first, count, window;
	int tx, rx;
	struct hipd d;                /* only conf, for eng_derive_keys() */
	struct ini *ini;
	unsigned long done, failed, in_flight, next;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Our HOST_ID TLV (DI none), as hidb.c builds it: header and padding. */
static int ini_identity(struct ini *in)
{
	return bench_identity_make(&in->hi, &in->ha.hit_local, in->host_id_tlv,
				   sizeof(in->host_id_tlv), &in->host_id_tlv_len);
}

/* Checksum, IPv4 header, keep a copy for retransmission, send. */
static int ini_send(struct run *r, struct ini *in, uint8_t *buf, int hip_len)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_addr = r->dst };
	struct hip_addr src, dst;
	struct iphdr ip;
	size_t len = IP_HDR + (size_t)hip_len;

	hip_addr_from_v4(&src, &in->src);
	hip_addr_from_v4(&dst, &r->dst);
	hip_packet_set_checksum(buf + IP_HDR, (size_t)hip_len, &src, &dst);
	memset(&ip, 0, sizeof(ip));
	ip.version = 4;
	ip.ihl = 5;
	ip.ttl = 64;
	ip.protocol = 139;
	ip.tot_len = htons((uint16_t)len);
	ip.saddr = in->src.s_addr;
	ip.daddr = r->dst.s_addr;
	memcpy(buf, &ip, sizeof(ip));
	free(in->pkt);
	in->pkt = malloc(len);
	if (!in->pkt)
		return -ENOMEM;
	memcpy(in->pkt, buf, len);
	in->pkt_len = len;
	in->t_sent = now_s();
	if (sendto(r->tx, buf, len, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		return -errno;
	return 0;
}

static int send_i1(struct run *r, struct ini *in)
{
	uint8_t buf[PKT_BUF];
	struct hip_u8_list groups = { .n = 1, .v = { DH_P256 } };
	struct hip_builder b;
	int len;

	hip_build_init(&b, buf + IP_HDR, sizeof(buf) - IP_HDR, HIP_I1, &in->ha.hit_local,
		       &r->hit_r);
	hip_dh_group_list_build(&b, &groups);
	len = hip_build_finish(&b);
	if (len < 0)
		return len;
	in->state = INI_I1_SENT;
	return ini_send(r, in, buf, len);
}

/* R1 -> I2 (bench_i2.c, as hipd's bex_r1.c builds it), sent. */
static int process_r1(struct run *r, struct ini *in, const struct hip_packet *p)
{
	uint8_t buf[PKT_BUF];
	int len;

	len = bench_i2_build(&r->d, &in->ha, &r->hit_r, p, in->host_id_tlv, in->host_id_tlv_len,
			     in->hi, HIP_SPI_MIN + (uint32_t)(in - r->ini), buf + IP_HDR,
			     sizeof(buf) - IP_HDR);
	if (len < 0)
		return len;
	in->state = INI_I2_SENT;
	in->tries = 0;
	return ini_send(r, in, buf, len);
}

static void ini_finish(struct run *r, struct ini *in, enum ini_state s)
{
	in->state = s;
	free(in->pkt);
	in->pkt = NULL;
	hip_wipe(&in->ha.hip_keys, sizeof(in->ha.hip_keys));
	hip_wipe(&in->ha.esp_keys, sizeof(in->ha.esp_keys));
	r->in_flight--;
	if (s == INI_DONE)
		r->done++;
	else
		r->failed++;
}

/* One received packet: find the Initiator by its destination address. */
static void receive(struct run *r, const uint8_t *dgram, size_t n)
{
	size_t ihl = n ? (size_t)(dgram[0] & 0x0f) * 4 : 0;
	struct hip_packet p;
	struct in_addr daddr;
	struct ini *in;
	unsigned long idx;

	if (n < IP_HDR || ihl < IP_HDR || ihl > n)
		return;
	memcpy(&daddr, dgram + 16, sizeof(daddr));
	idx = (unsigned long)(ntohl(daddr.s_addr) - ntohl(r->src_base.s_addr));
	if (idx < r->first || idx >= r->first + r->count)
		return;
	in = &r->ini[idx - r->first];
	if (hip_packet_parse(dgram + ihl, n - ihl, &p) < 0)
		return;
	if (p.type == HIP_R1 && in->state == INI_I1_SENT) {
		if (process_r1(r, in, &p) < 0)
			ini_finish(r, in, INI_FAILED);
	} else if (p.type == HIP_R2 && in->state == INI_I2_SENT) {
		ini_finish(r, in, INI_DONE);
	}
}

/* Start Initiators up to the window; resend what timed out (1 s, x2). */
static void tick(struct run *r, double now)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_addr = r->dst };

	while (r->in_flight < r->window && r->next < r->count) {
		struct ini *in = &r->ini[r->next++];

		r->in_flight++;
		if (send_i1(r, in) < 0)
			ini_finish(r, in, INI_FAILED);
	}
	for (unsigned long i = 0; i < r->next; i++) {
		struct ini *in = &r->ini[i];

		if ((in->state != INI_I1_SENT && in->state != INI_I2_SENT) ||
		    now - in->t_sent < (double)(1u << in->tries))
			continue;
		if (++in->tries > RETRIES) {
			ini_finish(r, in, INI_FAILED);
			continue;
		}
		in->t_sent = now;
		(void)sendto(r->tx, in->pkt, in->pkt_len, 0, (struct sockaddr *)&to, sizeof(to));
	}
}

static int parse_args(int argc, char **argv, struct run *r)
{
	bool have_dst = false, have_hit = false;

	inet_pton(AF_INET, "10.2.0.0", &r->src_base);
	r->window = 64;
	for (int a = 1; a + 1 < argc; a += 2) {
		const char *v = argv[a + 1];

		if (!strcmp(argv[a], "--dst"))
			have_dst = inet_pton(AF_INET, v, &r->dst) == 1;
		else if (!strcmp(argv[a], "--hit-r"))
			have_hit = hip_hit_from_str(v, &r->hit_r) == 0;
		else if (!strcmp(argv[a], "--src-base"))
			inet_pton(AF_INET, v, &r->src_base);
		else if (!strcmp(argv[a], "--first"))
			r->first = strtoul(v, NULL, 10);
		else if (!strcmp(argv[a], "--count"))
			r->count = strtoul(v, NULL, 10);
		else if (!strcmp(argv[a], "--window"))
			r->window = strtoul(v, NULL, 10);
		else
			return -EINVAL;
	}
	if (argc % 2 == 0 || !have_dst || !have_hit || r->count == 0 || r->window == 0 ||
	    r->first + r->count > 65000)
		return -EINVAL;
	return 0;
}

int main(int argc, char **argv)
{
	static uint8_t dgram[PKT_BUF];
	struct run r;
	double t0, tk, t;
	int on = 1;

	memset(&r, 0, sizeof(r));
	if (parse_args(argc, argv, &r) < 0) {
		fprintf(stderr, "usage: %s --dst IPV4 --hit-r HIT [--src-base IPV4] [--first I] "
			"--count N [--window W]\n", argv[0]);
		return 2;
	}
	if (hip_crypto_init() != 0)
		return 1;
	hipd_conf_defaults(&r.d.conf);
	r.tx = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	r.rx = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK, 139);
	if (r.tx < 0 || r.rx < 0 ||
	    setsockopt(r.tx, IPPROTO_IP, IP_HDRINCL, &on, sizeof(on)) < 0) {
		perror("bench-initiators: raw sockets");
		return 1;
	}
	r.ini = calloc(r.count, sizeof(*r.ini));
	if (!r.ini)
		return 1;
	tk = now_s();
	for (unsigned long i = 0; i < r.count; i++) {
		struct in_addr s = { htonl(ntohl(r.src_base.s_addr) + (uint32_t)(r.first + i)) };

		r.ini[i].src = s;
		if (ini_identity(&r.ini[i]) < 0) {
			fprintf(stderr, "bench-initiators: generating identity %lu failed\n", i);
			return 1;
		}
	}
	t0 = now_s();
	while (r.done + r.failed < r.count) {
		struct pollfd pfd = { .fd = r.rx, .events = POLLIN };
		ssize_t n;

		tick(&r, now_s());
		if (poll(&pfd, 1, 10) <= 0)
			continue;
		while ((n = recv(r.rx, dgram, sizeof(dgram), 0)) > 0)
			receive(&r, dgram, (size_t)n);
	}
	t = now_s() - t0;
	printf("{\"completed\": %lu, \"failed\": %lu, \"seconds\": %.3f, \"per_s\": %.1f, "
	       "\"keygen_seconds\": %.3f}\n", r.done, r.failed, t, (double)r.done / t, t0 - tk);
	for (unsigned long i = 0; i < r.count; i++) {
		hip_hi_free(r.ini[i].hi);
		free(r.ini[i].pkt);
	}
	free(r.ini);
	return r.failed ? 1 : 0;
}
