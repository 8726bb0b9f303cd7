/*
 * bench-flood.c - I1 flooder for bench/r1-flood.sh (a benchmark tool, not a
 * test; run it only inside a network namespace you created).
 *
 * Sends valid I1s (RFC 7401 §5.3.1: DH_GROUP_LIST, correct checksum) to one
 * Responder over IPv4, from `sources` spoofed addresses src-base + 0 ..
 * src-base + sources - 1 in turn (IP_HDRINCL), each with its own ORCHID
 * sender HIT, as fast as one core can (sendmmsg batches) or at --rate
 * packets per second, for --seconds. Prints what it sent.
 *
 * Usage: bench-flood --dst IPV4 --hit-r HIT [--src-base IPV4] [--sources N]
 *                    [--rate PPS|0] [--seconds S]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "checksum.h"
#include "hit.h"
#include "packet.h"
#include "params.h"

enum {
	BATCH   = 64,
	PKT_MAX = 128,
	IP_HDR  = 20,
	DH_P256 = 7,
	DH_P384 = 8,
};

struct flood_opts {
	struct in_addr dst, src_base;
	struct hip_hit hit_r;
	unsigned long sources, rate;
	double seconds;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s --dst IPV4 --hit-r HIT [--src-base IPV4] [--sources N] "
		"[--rate PPS|0] [--seconds S]\n", argv0);
}

static int parse_args(int argc, char **argv, struct flood_opts *o)
{
	bool have_dst = false, have_hit = false;

	inet_pton(AF_INET, "10.1.0.0", &o->src_base);
	o->sources = 65536;
	o->rate = 0;
	o->seconds = 10;
	/* --option value pairs */
	for (int a = 1; a < argc; a += 2) {
		const char *v = a + 1 < argc ? argv[a + 1] : NULL;

		if (!v)
			return -EINVAL;
		if (!strcmp(argv[a], "--dst"))
			have_dst = inet_pton(AF_INET, v, &o->dst) == 1;
		else if (!strcmp(argv[a], "--src-base"))
			inet_pton(AF_INET, v, &o->src_base);
		else if (!strcmp(argv[a], "--hit-r"))
			have_hit = hip_hit_from_str(v, &o->hit_r) == 0;
		else if (!strcmp(argv[a], "--sources"))
			o->sources = strtoul(v, NULL, 10);
		else if (!strcmp(argv[a], "--rate"))
			o->rate = strtoul(v, NULL, 10);
		else if (!strcmp(argv[a], "--seconds"))
			o->seconds = strtod(v, NULL);
		else
			return -EINVAL;
	}
	if (!have_dst || !have_hit || o->sources == 0 || o->seconds <= 0)
		return -EINVAL;
	return 0;
}

/* The I1 of source number idx, IPv4 header included: its length. */
static int build_i1(const struct flood_opts *o, unsigned long idx, uint8_t *out)
{
	struct hip_u8_list groups = { .n = 2, .v = { DH_P256, DH_P384 } };
	struct hip_builder b;
	struct hip_hit hit_i;
	struct hip_addr src, dst;
	struct in_addr s4 = { htonl(ntohl(o->src_base.s_addr) + (uint32_t)idx) };
	struct iphdr ip;
	int len;

	/* An ORCHID (2001:20::/28, suite ECDSA) unique per source. */
	memset(&hit_i, 0, sizeof(hit_i));
	hit_i.b[0] = 0x20;
	hit_i.b[1] = 0x01;
	hit_i.b[2] = 0x00;
	hit_i.b[3] = 0x22;
	hit_i.b[8] = 0xbe;
	hit_i.b[9] = 0x4c;
	hit_i.b[12] = (uint8_t)(idx >> 24);
	hit_i.b[13] = (uint8_t)(idx >> 16);
	hit_i.b[14] = (uint8_t)(idx >> 8);
	hit_i.b[15] = (uint8_t)idx;
	hip_build_init(&b, out + IP_HDR, PKT_MAX - IP_HDR, HIP_I1, &hit_i, &o->hit_r);
	hip_dh_group_list_build(&b, &groups);
	len = hip_build_finish(&b);
	if (len < 0)
		return len;
	hip_addr_from_v4(&src, &s4);
	hip_addr_from_v4(&dst, &o->dst);
	hip_packet_set_checksum(out + IP_HDR, (size_t)len, &src, &dst);
	memset(&ip, 0, sizeof(ip));
	ip.version = 4;
	ip.ihl = 5;
	ip.ttl = 64;
	ip.protocol = 139;
	ip.tot_len = htons((uint16_t)(IP_HDR + len));
	ip.saddr = s4.s_addr;
	ip.daddr = o->dst.s_addr;    /* id and checksum: the kernel fills them */
	memcpy(out, &ip, sizeof(ip));
	return IP_HDR + len;
}

int main(int argc, char **argv)
{
	static uint8_t pkts[BATCH][PKT_MAX];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct flood_opts o;
	unsigned long next = 0, sent = 0, errors = 0;
	double t0, t, end;
	int fd, on = 1;

	if (parse_args(argc, argv, &o) < 0) {
		usage(argv[0]);
		return 2;
	}
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0 || setsockopt(fd, IPPROTO_IP, IP_HDRINCL, &on, sizeof(on)) < 0) {
		perror("bench-flood: raw socket");
		return 1;
	}
	to.sin_addr = o.dst;
	memset(msgs, 0, sizeof(msgs));
	for (int i = 0; i < BATCH; i++) {
		iov[i].iov_base = pkts[i];
		msgs[i].msg_hdr.msg_name = &to;
		msgs[i].msg_hdr.msg_namelen = sizeof(to);
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	t0 = now_s();
	end = t0 + o.seconds;
	for (t = t0; t < end; t = now_s()) {
		int n;

		if (o.rate && (double)sent > (t - t0) * (double)o.rate) {
			usleep(100);
			continue;
		}
		for (int i = 0; i < BATCH; i++) {
			int len = build_i1(&o, next, pkts[i]);

			if (len < 0) {
				fprintf(stderr, "bench-flood: building an I1 failed\n");
				return 1;
			}
			iov[i].iov_len = (size_t)len;
			next = (next + 1) % o.sources;
		}
		n = sendmmsg(fd, msgs, BATCH, 0);
		if (n < 0) {
			errors++;   /* ENOBUFS under load: the packets are gone */
			continue;
		}
		sent += (unsigned long)n;
	}
	t = now_s() - t0;
	printf("{\"sent\": %lu, \"seconds\": %.3f, \"per_s\": %.0f, \"sources\": %lu, "
	       "\"send_errors\": %lu}\n", sent, t, (double)sent / t, o.sources, errors);
	close(fd);
	return 0;
}
