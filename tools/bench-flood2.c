/*
 * bench-flood2.c - flooder of expensive packets for bench/floods.sh (a
 * benchmark tool, not a test; run it only inside a network namespace you
 * created). IPv4, IP_HDRINCL; replies to src-base/16 must be delivered
 * locally (`ip route add local 10.1.0.0/16 dev lo`).
 *
 *   --mode i2         I2s with valid puzzle solutions at the Responder's K:
 *                     W Initiators in flight, each from its own source and
 *                     with its own fresh ECDSA P-256 identity per I2: I1,
 *                     R1, puzzle, ECDH, KEYMAT (hipd's keys.c), encrypted
 *                     HOST_ID, HIP_MAC and a valid signature (--badsig: a
 *                     wrong one, no signing cost to the attacker)
 *   --mode i2replay   solve W such I2s once, then send them again and again
 *   --mode update     one base exchange, then UPDATEs (new SEQ each) with a
 *                     valid HIP_MAC and signature (--badmac: a wrong MAC)
 *   --mode close      CLOSEs with a wrong HIP_MAC for --peer-hit's
 *                     association (and for ours), from spoofed sources
 *   --mode closereplay  one base exchange, one valid CLOSE, then that CLOSE
 *                     again and again
 *
 * Usage: bench-flood2 --mode M --dst IPV4 --hit-r HIT [--src-base IPV4]
 *          [--sources N] [--window W] [--seconds S] [--peer-hit HIT]
 *          [--badsig 1] [--badmac 1]
 * Prints one JSON line: packets sent, per second, R1s and R2s received.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <signal.h>
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
	IP_HDR   = 20,
	PKT_BUF  = HIP_MAX_PACKET + 64,
	TLV_MAX  = 1024,
	KIJ_MAX  = 512,
	ENC_MAX  = TLV_MAX + 64,
	DH_P256  = 7,
	BATCH    = 32,
	NONCE    = 16,
};

enum fl_mode { M_I2, M_I2REPLAY, M_UPDATE, M_CLOSE, M_CLOSEREPLAY };
enum sl_state { SL_IDLE, SL_I1_SENT, SL_I2_SENT, SL_DONE };

struct slot {
	struct hip_hi *hi;
	uint8_t host_id_tlv[TLV_MAX];
	size_t host_id_tlv_len;
	unsigned long src_idx;
	enum sl_state state;
	double t_sent;
	struct hip_ha ha;             /* keys and suites, hipd's own layout */
	uint8_t *pkt;                 /* the I2 (IP header included), i2replay */
	size_t pkt_len;
};

struct run {
	enum fl_mode mode;
	struct in_addr dst, src_base;
	struct hip_hit hit_r, peer_hit;
	bool have_peer, badsig, badmac;
	unsigned long sources, window, next_src;
	double seconds;
	int tx, rx;
	struct hipd d;                /* only conf, for eng_derive_keys() */
	struct slot *sl;
	unsigned long sent, r1_rx, r2_rx, i2_built, errors, acks;
	uint32_t acked;               /* highest Update ID the Responder ACKed */
	bool have_acked;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* SIGTERM (blocked in main) ends the flood early; the figures still print. */
static bool terminated(void)
{
	sigset_t pending;

	return sigpending(&pending) == 0 && sigismember(&pending, SIGTERM) == 1;
}

/* Until end, or SIGTERM. */
static bool flooding(double end)
{
	return now_s() < end && !terminated();
}

static struct in_addr src_of(const struct run *r, unsigned long idx)
{
	struct in_addr a = { htonl(ntohl(r->src_base.s_addr) + (uint32_t)idx) };

	return a;
}

/* A fresh identity: key, HIT and the HOST_ID TLV (DI none), as hidb.c. */
static int slot_identity(struct slot *s)
{
	return bench_identity_make(&s->hi, &s->ha.hit_local, s->host_id_tlv,
				   sizeof(s->host_id_tlv), &s->host_id_tlv_len);
}

/* Checksum and IPv4 header for a HIP packet at buf + IP_HDR: total length. */
static size_t frame(const struct run *r, struct in_addr src, uint8_t *buf, size_t hip_len)
{
	struct hip_addr s, d;
	struct iphdr ip;

	hip_addr_from_v4(&s, &src);
	hip_addr_from_v4(&d, &r->dst);
	hip_packet_set_checksum(buf + IP_HDR, hip_len, &s, &d);
	memset(&ip, 0, sizeof(ip));
	ip.version = 4;
	ip.ihl = 5;
	ip.ttl = 64;
	ip.protocol = 139;
	ip.tot_len = htons((uint16_t)(IP_HDR + hip_len));
	ip.saddr = src.s_addr;
	ip.daddr = r->dst.s_addr;
	memcpy(buf, &ip, sizeof(ip));
	return IP_HDR + hip_len;
}

static int send_pkt(struct run *r, const uint8_t *buf, size_t len)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_addr = r->dst };

	if (sendto(r->tx, buf, len, 0, (struct sockaddr *)&to, sizeof(to)) < 0) {
		r->errors++;
		return -errno;
	}
	r->sent++;
	return 0;
}

/* Slot s starts over: the next source, a fresh identity (so a fresh
 * puzzle: #I depends on HIT-I), an I1. */
static int slot_start(struct run *r, struct slot *s)
{
	uint8_t buf[PKT_BUF];
	struct hip_u8_list groups = { .n = 1, .v = { DH_P256 } };
	struct hip_builder b;
	int ret, len;

	ret = slot_identity(s);
	if (ret < 0)
		return ret;
	s->src_idx = r->next_src;
	r->next_src = (r->next_src + 1) % r->sources;
	hip_build_init(&b, buf + IP_HDR, sizeof(buf) - IP_HDR, HIP_I1, &s->ha.hit_local,
		       &r->hit_r);
	hip_dh_group_list_build(&b, &groups);
	len = hip_build_finish(&b);
	if (len < 0)
		return len;
	s->state = SL_I1_SENT;
	s->t_sent = now_s();
	return send_pkt(r, buf, frame(r, src_of(r, s->src_idx), buf, (size_t)len));
}

/* R1 -> I2 (bench_i2.c, as hipd's bex_r1.c builds it); a wrong signature
 * with --badsig. Keeps the I2 in s->pkt. */
static int build_i2(struct run *r, struct slot *s, const struct hip_packet *p)
{
	uint8_t buf[PKT_BUF];
	int ret = 0, len;

	len = bench_i2_build(&r->d, &s->ha, &r->hit_r, p, s->host_id_tlv, s->host_id_tlv_len, s->hi,
			     HIP_SPI_MIN + (uint32_t)(s - r->sl), buf + IP_HDR, sizeof(buf) - IP_HDR);
	if (len < 0)
		return len;
	if (r->badsig) {
		/* the last octet of the signature itself (the TLV is padded) */
		struct hip_packet q;
		const struct hip_param_ref *sp;

		ret = hip_packet_parse(buf + IP_HDR, (size_t)len, &q);
		sp = ret == 0 ? hip_packet_find(&q, HIP_PARAM_HIP_SIGNATURE) : NULL;
		if (!sp || sp->len < 3) {
			ret = -EBADMSG;
			goto out;
		}
		buf[IP_HDR + sp->off + HIP_TLV_HDR_LEN + sp->len - 1] ^= 0x5a;
	}
	free(s->pkt);
	s->pkt_len = frame(r, src_of(r, s->src_idx), buf, (size_t)len);
	s->pkt = malloc(s->pkt_len);
	if (!s->pkt) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(s->pkt, buf, s->pkt_len);
	r->i2_built++;
out:
	return ret;
}

/* One received datagram (IPv4 header first): the slot it is for, by its
 * destination address. */
static void receive(struct run *r, const uint8_t *dgram, size_t n)
{
	size_t ihl = n ? (size_t)(dgram[0] & 0x0f) * 4 : 0;
	unsigned long idx;
	struct hip_packet p;
	struct in_addr daddr;
	struct slot *s = NULL;

	if (n < IP_HDR || (dgram[0] >> 4) != 4 || ihl < IP_HDR || ihl > n || dgram[9] != 139)
		return;
	memcpy(&daddr, dgram + 16, sizeof(daddr));
	idx = (unsigned long)(uint32_t)(ntohl(daddr.s_addr) - ntohl(r->src_base.s_addr));
	if (idx >= r->sources || hip_packet_parse(dgram + ihl, n - ihl, &p) < 0)
		return;
	for (unsigned long i = 0; i < r->window; i++) {
		if (r->sl[i].state != SL_IDLE && r->sl[i].src_idx == idx &&
		    !memcmp(&p.hit_receiver, &r->sl[i].ha.hit_local, sizeof(p.hit_receiver))) {
			s = &r->sl[i];
			break;
		}
	}
	if (!s)
		return;
	if (p.type == HIP_R1 && s->state == SL_I1_SENT) {
		r->r1_rx++;
		if (build_i2(r, s, &p) < 0) {
			r->errors++;
			s->state = SL_IDLE;
			return;
		}
		s->state = SL_I2_SENT;
		s->t_sent = now_s();
		(void)send_pkt(r, s->pkt, s->pkt_len);
	} else if (p.type == HIP_R2 && s->state == SL_I2_SENT) {
		r->r2_rx++;
		s->state = SL_DONE;
	} else if (p.type == HIP_UPDATE && s->state == SL_DONE) {
		const struct hip_param_ref *pa = hip_packet_find(&p, HIP_PARAM_ACK);
		struct hip_ack ack;

		if (!pa || hip_ack_decode(hip_param_content(&p, pa), pa->len, &ack) < 0)
			return;
		r->acks++;
		for (unsigned i = 0; i < ack.n; i++) {
			if (!r->have_acked || (int32_t)(ack.id[i] - r->acked) > 0)
				r->acked = ack.id[i];
			r->have_acked = true;
		}
	}
}

static void drain(struct run *r, int timeout_ms)
{
	static uint8_t dgram[PKT_BUF];
	struct pollfd pfd = { .fd = r->rx, .events = POLLIN };
	ssize_t n;

	if (poll(&pfd, 1, timeout_ms) <= 0)
		return;
	while ((n = recv(r->rx, dgram, sizeof(dgram), 0)) > 0)
		receive(r, dgram, (size_t)n);
}

/* --mode i2: every slot loops I1 -> R1 -> I2 with a fresh identity; an
 * I2 does not wait for its R2 (the attacker does not care). */
static int run_i2(struct run *r, double end)
{
	for (double t = now_s(); flooding(end); t = now_s()) {
		for (unsigned long i = 0; i < r->window; i++) {
			struct slot *s = &r->sl[i];

			if (s->state == SL_I1_SENT && t - s->t_sent < 1.0)
				continue;
			if (slot_start(r, s) < 0)
				r->errors++;
		}
		drain(r, 1);
	}
	return 0;
}

/* Slots 0..window-1 each complete I1 -> R1 -> I2 (once, in 10 s). */
static int solve_all(struct run *r, bool want_r2)
{
	double end = now_s() + 10, t;
	unsigned long ready;

	for (unsigned long i = 0; i < r->window; i++)
		if (slot_start(r, &r->sl[i]) < 0)
			return -EIO;
	for (t = now_s(); t < end; t = now_s()) {
		drain(r, 10);
		ready = 0;
		for (unsigned long i = 0; i < r->window; i++) {
			struct slot *s = &r->sl[i];

			ready += want_r2 ? s->state == SL_DONE : s->state >= SL_I2_SENT;
			if (s->state == SL_I1_SENT && t - s->t_sent > 1.0) {
				s->t_sent = t;
				s->state = SL_IDLE;
				if (slot_start(r, s) < 0)
					return -EIO;
			} else if (want_r2 && s->state == SL_I2_SENT && t - s->t_sent > 1.0) {
				s->t_sent = t;
				(void)send_pkt(r, s->pkt, s->pkt_len);
			}
		}
		if (ready == r->window)
			return 0;
	}
	return -ETIMEDOUT;
}

/* One sendmmsg of n <= BATCH packets. */
static void send_batch(struct run *r, uint8_t *const *pkts, const size_t *lens, size_t n)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_addr = r->dst };
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	int sent;

	memset(msgs, 0, sizeof(msgs));
	for (size_t i = 0; i < n && i < BATCH; i++) {
		iov[i].iov_base = pkts[i];
		iov[i].iov_len = lens[i];
		msgs[i].msg_hdr.msg_name = &to;
		msgs[i].msg_hdr.msg_namelen = sizeof(to);
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	sent = sendmmsg(r->tx, msgs, (unsigned)(n < BATCH ? n : BATCH), 0);
	if (sent < 0)
		r->errors++;   /* ENOBUFS under load: the packets are gone */
	else
		r->sent += (unsigned long)sent;
	/* keep the receive buffer from filling (R2s, ACKs) */
	drain(r, 0);
}

/* Send the n packets pkts[] (lengths lens[]) round robin until end. */
static void blast(struct run *r, uint8_t **pkts, const size_t *lens, size_t n, double end)
{
	uint8_t *bp[BATCH];
	size_t bl[BATCH], next = 0;

	if (!n)
		return;
	while (flooding(end)) {
		for (int i = 0; i < BATCH; i++) {
			bp[i] = pkts[next];
			bl[i] = lens[next];
			next = (next + 1) % n;
		}
		send_batch(r, bp, bl, BATCH);
	}
}

static int run_i2replay(struct run *r, double end)
{
	uint8_t *pkts[256] = { 0 };
	size_t lens[256] = { 0 }, n = 0;
	int ret;

	ret = solve_all(r, false);
	if (ret < 0)
		return ret;
	for (unsigned long i = 0; i < r->window && n < 256; i++, n++) {
		pkts[n] = r->sl[i].pkt;
		lens[n] = r->sl[i].pkt_len;
	}
	blast(r, pkts, lens, n, end);
	return 0;
}

/* An UPDATE (SEQ id) or CLOSE (ECHO_REQUEST_SIGNED) of slot 0's
 * association: HIP_MAC (a wrong key with badmac) and signature. */
static int build_assoc_pkt(struct run *r, struct slot *s, uint8_t type, uint32_t id,
			   bool badmac, uint8_t *buf, size_t cap)
{
	uint8_t nonce[NONCE], wrong[sizeof(s->ha.hip_keys.gl_int)];
	struct hip_builder b;
	int len;

	if (hip_random(nonce, sizeof(nonce)) < 0 || hip_random(wrong, sizeof(wrong)) < 0)
		return -EIO;
	hip_build_init(&b, buf + IP_HDR, cap - IP_HDR, type, &s->ha.hit_local, &s->ha.hit_peer);
	if (type == HIP_UPDATE)
		hip_seq_build(&b, id);
	else
		hip_echo_build(&b, HIP_PARAM_ECHO_REQUEST_SIGNED, nonce, sizeof(nonce));
	hip_build_mac(&b, HIP_COVER_MAC, s->ha.rhash, badmac ? wrong : eng_key_out_int(&s->ha),
		      s->ha.hip_keys.int_len, NULL, 0);
	hip_build_signature(&b, HIP_COVER_SIGNATURE, s->hi);
	len = hip_build_finish(&b);
	if (len < 0)
		return len;
	return (int)frame(r, src_of(r, s->src_idx), buf, (size_t)len);
}

/* --mode update: as fast as we can sign (or, with a bad MAC, build), each
 * a new Update ID; when the Responder's window (16 IDs ahead of the last
 * one it took, update_int.h) is passed, back to just after its last ACK. */
static int run_update(struct run *r, double end)
{
	static uint8_t buf[PKT_BUF];
	struct slot *s = &r->sl[0];
	uint32_t id = 0;
	int len, ret;

	r->window = 1;
	ret = solve_all(r, true);
	if (ret < 0)
		return ret;
	while (flooding(end)) {
		if (r->have_acked && (int32_t)(id - r->acked) > 16)
			id = r->acked + 1;
		if (r->badmac)
			id %= 16;   /* inside the window: the MAC check is reached */
		len = build_assoc_pkt(r, s, HIP_UPDATE, id++, r->badmac, buf, sizeof(buf));
		if (len < 0)
			return len;
		(void)send_pkt(r, buf, (size_t)len);
		drain(r, 0);
	}
	return 0;
}

/* --mode close: wrong-MAC CLOSEs for the peer's association and ours
 * (built once each), from every source in turn (the checksum covers the
 * source, so each copy is framed again). */
static int run_close(struct run *r, double end)
{
	static uint8_t tmpl[2][PKT_BUF], pk[BATCH][PKT_BUF];
	uint8_t *pkts[BATCH];
	size_t lens[BATCH], tlen[2];
	struct slot *s = &r->sl[0];
	struct hip_hit own;
	int len, ret;

	r->window = 1;
	ret = solve_all(r, true);
	if (ret < 0)
		return ret;
	own = s->ha.hit_local;
	for (int t = 0; t < 2; t++) {
		s->ha.hit_local = t && r->have_peer ? r->peer_hit : own;
		len = build_assoc_pkt(r, s, HIP_CLOSE, 0, true, tmpl[t], PKT_BUF);
		if (len < 0)
			return len;
		tlen[t] = (size_t)len;
	}
	s->ha.hit_local = own;
	while (flooding(end)) {
		for (int i = 0; i < BATCH; i++) {
			memcpy(pk[i], tmpl[i % 2], tlen[i % 2]);
			lens[i] = frame(r, src_of(r, r->next_src), pk[i], tlen[i % 2] - IP_HDR);
			pkts[i] = pk[i];
			r->next_src = (r->next_src + 1) % r->sources;
		}
		send_batch(r, pkts, lens, BATCH);
	}
	return 0;
}

/* --mode closereplay: our association closed by one valid CLOSE, which is
 * then sent again and again (hipd answers each from CLOSED). */
static int run_closereplay(struct run *r, double end)
{
	static uint8_t buf[PKT_BUF];
	uint8_t *pkts[1] = { buf };
	size_t lens[1];
	int len, ret;

	r->window = 1;
	ret = solve_all(r, true);
	if (ret < 0)
		return ret;
	len = build_assoc_pkt(r, &r->sl[0], HIP_CLOSE, 0, false, buf, sizeof(buf));
	if (len < 0)
		return len;
	lens[0] = (size_t)len;
	blast(r, pkts, lens, 1, end);
	return 0;
}

static int parse_args(int argc, char **argv, struct run *r)
{
	static const char *const names[] = { "i2", "i2replay", "update", "close",
					     "closereplay" };
	bool have_dst = false, have_hit = false, have_mode = false;

	inet_pton(AF_INET, "10.1.0.0", &r->src_base);
	r->sources = 65536;
	r->window = 64;
	r->seconds = 10;
	for (int a = 1; a + 1 < argc; a += 2) {
		const char *v = argv[a + 1];

		if (!strcmp(argv[a], "--mode")) {
			for (size_t m = 0; m < sizeof(names) / sizeof(names[0]); m++)
				if (!strcmp(v, names[m])) {
					r->mode = (enum fl_mode)m;
					have_mode = true;
				}
		} else if (!strcmp(argv[a], "--dst")) {
			have_dst = inet_pton(AF_INET, v, &r->dst) == 1;
		} else if (!strcmp(argv[a], "--hit-r")) {
			have_hit = hip_hit_from_str(v, &r->hit_r) == 0;
		} else if (!strcmp(argv[a], "--peer-hit")) {
			r->have_peer = hip_hit_from_str(v, &r->peer_hit) == 0;
		} else if (!strcmp(argv[a], "--src-base")) {
			inet_pton(AF_INET, v, &r->src_base);
		} else if (!strcmp(argv[a], "--sources")) {
			r->sources = strtoul(v, NULL, 10);
		} else if (!strcmp(argv[a], "--window")) {
			r->window = strtoul(v, NULL, 10);
		} else if (!strcmp(argv[a], "--seconds")) {
			r->seconds = strtod(v, NULL);
		} else if (!strcmp(argv[a], "--badsig")) {
			r->badsig = strtoul(v, NULL, 10) != 0;
		} else if (!strcmp(argv[a], "--badmac")) {
			r->badmac = strtoul(v, NULL, 10) != 0;
		} else {
			return -EINVAL;
		}
	}
	if (argc % 2 == 0 || !have_mode || !have_dst || !have_hit || r->sources == 0 ||
	    r->sources > 65536 || r->window == 0 || r->window > 256 || r->seconds <= 0)
		return -EINVAL;
	if (r->window > r->sources)
		r->window = r->sources;
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "i2", "i2replay", "update", "close",
					     "closereplay" };
	struct run r;
	double t0, t;
	int on = 1, ret = 0;

	sigset_t term;

	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, NULL);
	memset(&r, 0, sizeof(r));
	if (parse_args(argc, argv, &r) < 0) {
		fprintf(stderr, "usage: %s --mode i2|i2replay|update|close|closereplay --dst IPV4 "
			"--hit-r HIT [--src-base IPV4] [--sources N] [--window W] [--seconds S] "
			"[--peer-hit HIT] [--badsig 1] [--badmac 1]\n", argv[0]);
		return 2;
	}
	if (hip_crypto_init() != 0)
		return 1;
	hipd_conf_defaults(&r.d.conf);
	r.tx = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	r.rx = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK, 139);
	if (r.tx < 0 || r.rx < 0 ||
	    setsockopt(r.tx, IPPROTO_IP, IP_HDRINCL, &on, sizeof(on)) < 0) {
		perror("bench-flood2: raw sockets");
		return 1;
	}
	r.sl = calloc(r.window, sizeof(*r.sl));
	if (!r.sl)
		return 1;
	t0 = now_s();
	switch (r.mode) {
	case M_I2: ret = run_i2(&r, t0 + r.seconds); break;
	case M_I2REPLAY: ret = run_i2replay(&r, t0 + r.seconds); break;
	case M_UPDATE: ret = run_update(&r, t0 + r.seconds); break;
	case M_CLOSE: ret = run_close(&r, t0 + r.seconds); break;
	case M_CLOSEREPLAY: ret = run_closereplay(&r, t0 + r.seconds); break;
	}
	t = now_s() - t0;
	printf("{\"mode\": \"%s\", \"ok\": %s, \"sent\": %lu, \"seconds\": %.3f, \"per_s\": %.0f, "
	       "\"r1_received\": %lu, \"i2_built\": %lu, \"r2_received\": %lu, \"acks\": %lu, "
	       "\"errors\": %lu}\n",
	       names[r.mode], ret < 0 ? "false" : "true", r.sent, t, (double)r.sent / t,
	       r.r1_rx, r.i2_built, r.r2_rx, r.acks, r.errors);
	for (unsigned long i = 0; i < r.window; i++) {
		hip_hi_free(r.sl[i].hi);
		free(r.sl[i].pkt);
		hip_wipe(&r.sl[i].ha, sizeof(r.sl[i].ha));
	}
	free(r.sl);
	return ret < 0 ? 1 : 0;
}
