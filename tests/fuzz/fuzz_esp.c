/*
 * fuzz_esp.c - libFuzzer target: ESP input of the userspace datapath
 * (hipd/datapath/uesp/: esp.c, esp_replay.c, uesp_io.c, uesp_udp.c,
 * uesp_sa.c) with keys. One userspace datapath over a socketpair standing in
 * for hip0 holds an inbound SA of every ESP suite (hip_crypto.h; fixed test
 * keys) and two inbound SAs carrying IPv4 between LSIs (inner_v4, D-22);
 * the peer's outbound SA of each is kept here.
 *
 * Input: byte 0, then records of [length, 2 bytes LE][bytes].
 *   byte 0 bits 0-2  SA: 0-5 the six suites (IPv6 inner), 6 and 7 IPv4
 *                    inner on AES-GCM-16 / AES-128-CBC + HMAC-SHA-256
 *          bits 3-4  mode: 0 raw IPv4 (outer header + ESP, as a raw IPv4
 *                    socket delivers it), 1 raw IPv6 (the ESP alone),
 *                    2 UDP datagrams (uesp_udp_datagram: HIP marker,
 *                    keepalive, ESP; first record byte: GRO segment size
 *                    and source port), 3 plaintext: each record is
 *                    encrypted with the peer's outbound SA, then received
 *   byte 0 bit 5     hip0 with IFF_VNET_HDR (received TCP coalesced)
 *   byte 0 bits 6-7  replay window 32, 128, 1024 or 64
 * Plaintext records: [ctl][inner]. ctl bits 0-3 move the sequence number
 * (jumps forward and back: window, ESN inference), bits 4-5 the framing
 * (raw IPv6, raw IPv4, UDP, UDP from a new port), bit 6 builds the inner
 * IPv6 header (IPv4 on SAs 6 and 7) here (Next Header / Protocol = the
 * first inner byte) so every such record is a valid BEET packet, bit 7
 * sends the previous ESP packet again (a replay). A built record with a
 * sequence number above all earlier ones must reach hip0 exactly as sent
 * (checked without IFF_VNET_HDR; IPv4: with the receiver's own ID).
 *
 * Seeds: fuzz/corpus/esp/, written by this target itself:
 *   HIP_SEED_DIR=fuzz/corpus/esp build-fuzz/fuzz/fuzz_esp -runs=0
 * No crash, no sanitizer report, no wrong delivery, whatever the input.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hip_crypto.h"
#include "hip_wire.h"
#include "base/base.h"
#include "base/loop.h"
#include "datapath/uesp/uesp_int.h"
#include "net/net.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
	N_SUITES = 6,
	N_SAS = 8,                 /* the suites, then two with IPv4 inner */
	SPI_BASE = 0x1000,
	PEER_PORT = 10500,
	HOP_RAW6 = 61,
	HOP_RAW4 = 62,
	HOP_UDP = 64,              /* uesp_udp.c: no hop limit from UDP */
	BUF_MAX = 65536 + 64,
	SOFT_BYTES = 3000,         /* a soft expiry within a few records */
};

static const uint16_t suites[N_SAS] = {
	HIP_ESP_AES128_CBC_SHA1, HIP_ESP_NULL_SHA256, HIP_ESP_AES128_CBC_SHA256,
	HIP_ESP_AES256_CBC_SHA256, HIP_ESP_AES_GCM_8, HIP_ESP_AES_GCM_16,
	HIP_ESP_AES_GCM_16, HIP_ESP_AES128_CBC_SHA256,      /* IPv4 inner */
};
static const uint32_t windows[4] = { 32, 128, 1024, 64 };
/* Sequence number moves before a plaintext record (esp_encap adds 1). */
static const int64_t seq_moves[16] = {
	0, 0, -3, 1, 2, 31, 63, 127, 128, 1000, 1023, 1024, 5000, 0xffff, 0x7fffffff,
	0xffffffffLL,
};

/* The rig: made once (the datapath and its SAs), reset per input. */
struct rig {
	struct hip_loop *loop;
	struct datapath *dp;
	struct uesp *u;
	int tun_peer;                     /* what the datapath writes to hip0 */
	struct esp_out out[N_SAS];        /* the peer's outbound SAs */
	struct hip_hit local, peer;
	struct in_addr lsi_local, lsi_peer;
	struct hip_addr loc_local, loc_peer;
	unsigned events;
	uint8_t pkt[BUF_MAX];             /* one packet, UESP_RX_HEADROOM in front */
	uint8_t inner[BUF_MAX];
	uint8_t esp[BUF_MAX];
	uint8_t last[BUF_MAX];            /* the previous ESP packet (replays) */
	size_t last_len;
	uint8_t got[BUF_MAX];
};

static struct rig *rig;

static void ev_any(void *arg)
{
	((struct rig *)arg)->events++;
}

static void on_traffic(void *arg, uint32_t spi)
{
	(void)spi;
	ev_any(arg);
}

static void on_expire(void *arg, uint32_t spi, bool hard)
{
	(void)spi, (void)hard;
	ev_any(arg);
}

static void on_udp_peer(void *arg, uint32_t spi, const struct hip_addr *src, uint16_t sport)
{
	(void)spi, (void)src, (void)sport;
	ev_any(arg);
}

static void on_hip_udp(void *arg, const uint8_t *pkt, size_t len, const struct hip_addr *src,
		       const struct hip_addr *dst, uint16_t sport)
{
	(void)src, (void)dst, (void)sport;
	if (len)
		((struct rig *)arg)->events += pkt[0] + pkt[len - 1];
}

static void on_no_sa(void *arg, const struct hip_addr *src, const struct hip_addr *dst,
		     uint16_t sport, const uint8_t *esp, size_t len)
{
	(void)src, (void)dst, (void)sport;
	if (len)
		((struct rig *)arg)->events += esp[0] + esp[len - 1];
}

static void test_keys(uint16_t suite, struct hip_esp_sa *sa)
{
	struct hip_esp_suite_info info;
	size_t i;

	if (hip_esp_suite_info(suite, &info) < 0)
		abort();
	sa->suite = suite;
	sa->enc_len = info.enc_key_len;
	sa->auth_len = info.auth_key_len;
	for (i = 0; i < sa->enc_len; i++)
		sa->enc_key[i] = (uint8_t)(0x10 + i + suite);
	for (i = 0; i < sa->auth_len; i++)
		sa->auth_key[i] = (uint8_t)(0x80 + i + suite);
}

static void rig_init(void)
{
	struct datapath_events ev = { 0 };
	struct uesp_conf conf = { .raw4 = -1, .raw6 = -1, .udp4 = -1, .udp6 = -1, .tun_mtu = 1400 };
	struct hip_esp_sa sa;
	int sp[2], i;

	rig = calloc(1, sizeof(*rig));
	if (!rig || hip_loop_create(&rig->loop) != 0)
		abort();
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sp) != 0)
		abort();
	rig->tun_peer = sp[1];
	conf.tun_fd = sp[0];
	ev.arg = rig;
	ev.traffic = on_traffic;
	ev.expire = on_expire;
	ev.udp_peer = on_udp_peer;
	ev.hip_udp = on_hip_udp;
	ev.no_sa = on_no_sa;
	if (uesp_create(rig->loop, &conf, &ev, &rig->dp) != 0)
		abort();
	rig->u = (struct uesp *)rig->dp;
	if (hip_hit_from_str("2001:20::a", &rig->peer) ||
	    hip_hit_from_str("2001:20::b", &rig->local) ||
	    hip_addr_from_str("192.0.2.2", &rig->loc_peer) ||
	    hip_addr_from_str("192.0.2.1", &rig->loc_local) ||
	    inet_pton(AF_INET, "198.18.0.10", &rig->lsi_peer) != 1 ||
	    inet_pton(AF_INET, "198.18.0.11", &rig->lsi_local) != 1)
		abort();
	for (i = 0; i < N_SAS; i++) {
		memset(&sa, 0, sizeof(sa));
		test_keys(suites[i], &sa);
		sa.spi = SPI_BASE + (uint32_t)i;
		sa.inbound = true;
		sa.inner_src = rig->peer;
		sa.inner_dst = rig->local;
		sa.outer_src = rig->loc_peer;
		sa.outer_dst = rig->loc_local;
		sa.encap_sport = PEER_PORT;
		sa.soft_bytes = SOFT_BYTES;
		sa.inner_v4 = i >= N_SUITES;
		sa.lsi_src = rig->lsi_peer;
		sa.lsi_dst = rig->lsi_local;
		if (rig->dp->ops->sa_add(rig->dp, &sa) != 0)
			abort();
		/* the peer's end of the pair */
		if (hip_esp_ctx_new(sa.suite, sa.enc_key, sa.enc_len, sa.auth_key, sa.auth_len,
				    true, &rig->out[i].ctx) != 0)
			abort();
		rig->out[i].spi = sa.spi;
		rig->out[i].inner_src = rig->peer;
		rig->out[i].inner_dst = rig->local;
		rig->out[i].inner_v4 = sa.inner_v4;
		rig->out[i].lsi_src = rig->lsi_peer;
		rig->out[i].lsi_dst = rig->lsi_local;
		hip_wipe(&sa, sizeof(sa));
	}
}

/* A fresh inbound SA state: window, counters, the peer's port. */
static void rig_reset(unsigned suite, uint32_t window, bool vnet)
{
	struct uesp_sa *sa = uesp_sa_find(rig->u, SPI_BASE + suite, true);

	if (!sa || esp_replay_init(&sa->in.replay, window) != 0)
		abort();
	memset(&sa->st, 0, sizeof(sa->st));
	sa->traffic_ns = 0;
	sa->soft_sent = false;
	sa->encap_sport = PEER_PORT;
	rig->u->vnet = vnet;
	rig->u->now_ns = 5000000000u;
	rig->out[suite].seq = 0;
	rig->last_len = 0;
}

/* Everything written to hip0 since the last call; the last packet's length
 * in *len (0: none), the number of packets returned. */
static unsigned tun_drain(size_t *len)
{
	unsigned n = 0;
	ssize_t r;

	*len = 0;
	while ((r = recv(rig->tun_peer, rig->got, sizeof(rig->got), MSG_DONTWAIT)) >= 0) {
		*len = (size_t)r;
		n++;
	}
	return n;
}

/* ---- framings of one ESP packet (esp, elen) ---- */

static void rx_raw6(struct uesp_gro *g, const uint8_t *esp, size_t elen)
{
	uint8_t *p = rig->pkt + UESP_RX_HEADROOM;

	if (elen > UESP_PKT_MAX - UESP_RX_HEADROOM)
		return;   /* a raw socket reads no more (uesp_io.c raw_drain) */
	memcpy(p, esp, elen);
	uesp_rx_esp(rig->u, g, p, elen, HOP_RAW6, &rig->loc_peer, NULL, 0);
}

/* As uesp_io.c rx_packet: the IPv4 header a raw socket delivers, parsed. */
static void rx_raw4_pkt(struct uesp_gro *g, size_t len)
{
	uint8_t *p = rig->pkt + UESP_RX_HEADROOM, hop = 0;
	struct hip_addr src;
	size_t off, elen;

	if (esp_outer_parse(p, len, true, &off, &elen, &hop, &src, NULL)) {
		rig->u->rx_bad++;
		return;
	}
	uesp_rx_esp(rig->u, g, p + off, elen, hop, &src, NULL, 0);
}

static void rx_raw4(struct uesp_gro *g, const uint8_t *esp, size_t elen)
{
	uint8_t *p = rig->pkt + UESP_RX_HEADROOM;
	int hl;

	if (elen > UESP_PKT_MAX - UESP_RX_HEADROOM - ESP_IP4_HDR_LEN)
		return;
	hl = esp_outer_build(&rig->loc_peer, &rig->loc_local, HOP_RAW4, elen, p,
			     UESP_PKT_MAX - UESP_RX_HEADROOM);
	if (hl < 0)
		abort();
	memcpy(p + hl, esp, elen);
	rx_raw4_pkt(g, (size_t)hl + elen);
}

static void rx_udp(struct uesp_gro *g, const uint8_t *dgram, size_t len, size_t seg,
		   uint16_t sport)
{
	struct hip_udp_rx rx;
	uint8_t *p = rig->pkt + UESP_RX_HEADROOM;

	if (len > BUF_MAX - UESP_RX_HEADROOM)
		return;
	memset(&rx, 0, sizeof(rx));
	memcpy(p, dgram, len);
	rx.buf = p;
	rx.len = len;
	rx.src = rig->loc_peer;
	rx.dst = rig->loc_local;
	rx.sport = sport;
	uesp_udp_datagram(rig->u, g, p, len, seg, &rx);
}

/* ---- plaintext records ---- */

/* Encrypt one record with the peer's SA into rig->esp: its length, 0 if
 * the datapath's encapsulation refused it. *expect (length of the packet
 * hip0 must get, in rig->inner) is set for a built record. */
static size_t seal_record(unsigned suite, uint8_t ctl, const uint8_t *in, size_t len,
			  size_t *expect)
{
	struct esp_out *out = &rig->out[suite];
	int64_t move = seq_moves[ctl & 15];
	size_t elen = 0;
	int rc;

	*expect = 0;
	if (move < 0 && out->seq < (uint64_t)-move)
		move = 0;
	out->seq = (uint64_t)((int64_t)out->seq + move);
	if ((ctl & 0x40) && out->inner_v4) {
		/* built here: IPv4 peer LSI -> local LSI, Protocol in[0] */
		if (len < 1 || len - 1 > 0xffff - ESP_IP4_HDR_LEN)
			return 0;
		memset(rig->inner, 0, ESP_IP4_HDR_LEN);
		rig->inner[0] = 0x45;
		hip_wr16(rig->inner + 2, (uint16_t)(ESP_IP4_HDR_LEN + len - 1));
		rig->inner[6] = 0x40;
		rig->inner[8] = 1;
		rig->inner[9] = in[0];
		memcpy(rig->inner + 12, &rig->lsi_peer, 4);
		memcpy(rig->inner + 16, &rig->lsi_local, 4);
		memcpy(rig->inner + ESP_IP4_HDR_LEN, in + 1, len - 1);
		rc = esp_encap(out, rig->inner, ESP_IP4_HDR_LEN + len - 1, rig->esp,
			       sizeof(rig->esp), &elen);
		if (rc != 0)
			abort();
		if (in[0] != ESP_NH_NONE && in[0] != ESP_NH_BEET_PH)
			*expect = ESP_IP4_HDR_LEN + len - 1;
		return elen;
	}
	if (ctl & 0x40) {
		/* built here: IPv6 peer HIT -> local HIT, Next Header in[0] */
		if (len < 1 || len - 1 > 0xffff || len - 1 + ESP_IP6_HDR_LEN > BUF_MAX)
			return 0;
		memset(rig->inner, 0, ESP_IP6_HDR_LEN);
		rig->inner[0] = 0x60;
		hip_wr16(rig->inner + 4, (uint16_t)(len - 1));
		rig->inner[6] = in[0];
		rig->inner[7] = 1;
		memcpy(rig->inner + 8, rig->peer.b, 16);
		memcpy(rig->inner + 24, rig->local.b, 16);
		memcpy(rig->inner + ESP_IP6_HDR_LEN, in + 1, len - 1);
		rc = esp_encap(out, rig->inner, ESP_IP6_HDR_LEN + len - 1, rig->esp,
			       sizeof(rig->esp), &elen);
		if (rc != 0)
			abort();   /* a well-formed inner packet always fits */
		if (in[0] != ESP_NH_NONE && in[0] != ESP_NH_BEET_PH)
			*expect = ESP_IP6_HDR_LEN + len - 1;
		return elen;
	}
	rc = esp_encap(out, in, len, rig->esp, sizeof(rig->esp), &elen);
	return rc == 0 ? elen : 0;
}

static void plain_records(unsigned suite, const uint8_t *data, size_t size, bool vnet)
{
	struct uesp_gro g = { 0 };
	/* the highest sequence number sealed, the last one seen delivered */
	uint64_t max_sent = 0, last_ok = 0, seq;
	size_t off = 0, got;

	while (size - off >= 3) {
		size_t len = (size_t)data[off] | (size_t)data[off + 1] << 8, elen, expect = 0;
		const uint8_t *rec = data + off + 3, *esp;
		uint8_t ctl = data[off + 2];
		unsigned framing = (ctl >> 4) & 3;
		bool fresh;

		if (len > size - off - 3)
			len = size - off - 3;
		off += 3 + len;
		if (ctl & 0x80) {
			if (!rig->last_len)
				continue;
			esp = rig->last;
			elen = rig->last_len;
		} else {
			elen = seal_record(suite, ctl, rec, len, &expect);
			if (!elen)
				continue;
			esp = rig->esp;
			memcpy(rig->last, esp, elen);
			rig->last_len = elen;
		}
		/* Must arrive: above every earlier number, and near enough to
		 * one the receiver took that its ESN inference (RFC 4303 App.
		 * A2) finds the high half. */
		seq = rig->out[suite].seq;
		fresh = expect && seq > max_sent && seq - last_ok < 0x7fffffff &&
			elen <= UESP_PKT_MAX - UESP_RX_HEADROOM - ESP_IP4_HDR_LEN;
		if (!(ctl & 0x80) && seq > max_sent)
			max_sent = seq;
		switch (framing) {
		case 0:
			rx_raw6(&g, esp, elen);
			break;
		case 1:
			rx_raw4(&g, esp, elen);
			break;
		default:
			rx_udp(&g, esp, elen, 0, framing == 3 ? PEER_PORT + 1 : PEER_PORT);
			break;
		}
		if (vnet)
			continue;   /* TCP may be coalesced: not compared here */
		tun_drain(&got);
		if (fresh) {
			uint8_t hop = framing == 0 ? HOP_RAW6 : framing == 1 ? HOP_RAW4 : HOP_UDP;

			/* BEET (RFC 7402 App. B): the header rebuilt from the SA,
			 * traffic class and flow label zero, the outer hop limit;
			 * IPv4: TOS 0, DF, the outer TTL, the receiver's own ID
			 * and a header checksum that holds */
			if (rig->out[suite].inner_v4) {
				rig->inner[8] = hop;
				if (got >= ESP_IP4_HDR_LEN)
					memcpy(rig->inner + 4, rig->got + 4, 2);
				hip_wr16(rig->inner + 10, 0);
				hip_wr16(rig->inner + 10, (uint16_t)~hip_csum_fold(
					 hip_csum_add(0, rig->inner, ESP_IP4_HDR_LEN)));
			} else {
				rig->inner[7] = hop;
			}
			if (got != expect || memcmp(rig->got, rig->inner, expect) != 0)
				abort();
			last_ok = seq;
		}
	}
	uesp_gro_flush(rig->u, &g);
}

/* ---- received records as they are ---- */

static void raw_records(unsigned mode, const uint8_t *data, size_t size)
{
	struct uesp_gro g = { 0 };
	size_t off = 0, got;

	while (size - off >= 2) {
		size_t len = (size_t)data[off] | (size_t)data[off + 1] << 8;
		const uint8_t *rec = data + off + 2;

		if (len > size - off - 2)
			len = size - off - 2;
		off += 2 + len;
		if (mode == 0) {
			if (len > UESP_PKT_MAX - UESP_RX_HEADROOM)
				continue;
			memcpy(rig->pkt + UESP_RX_HEADROOM, rec, len);
			rx_raw4_pkt(&g, len);
		} else if (mode == 1) {
			rx_raw6(&g, rec, len);
		} else if (len >= 1) {
			/* [segment size / 16 and port][datagram] */
			rx_udp(&g, rec + 1, len - 1, (size_t)(rec[0] & 0x7f) * 16,
			       rec[0] & 0x80 ? PEER_PORT + 1 : PEER_PORT);
		}
	}
	uesp_gro_flush(rig->u, &g);
	tun_drain(&got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned suite, mode;
	size_t got;
	bool vnet;

	if (size < 1)
		return 0;
	if (!rig)
		rig_init();
	suite = data[0] & 7;
	mode = (data[0] >> 3) & 3;
	vnet = (data[0] >> 5) & 1;
	rig_reset(suite, windows[data[0] >> 6], vnet);
	tun_drain(&got);
	if (mode == 3)
		plain_records(suite, data + 1, size - 1, vnet);
	else
		raw_records(mode, data + 1, size - 1);
	tun_drain(&got);
	return 0;
}

/* ---- seeds (HIP_SEED_DIR) ---- */

struct seed {
	uint8_t b[8192];
	size_t len;
};

static void seed_rec(struct seed *s, const uint8_t *p, size_t len)
{
	if (s->len + 2 + len > sizeof(s->b))
		abort();
	s->b[s->len++] = (uint8_t)len;
	s->b[s->len++] = (uint8_t)(len >> 8);
	memcpy(s->b + s->len, p, len);
	s->len += len;
}

static void seed_plain(struct seed *s, uint8_t ctl, uint8_t nh, const uint8_t *p, size_t len)
{
	uint8_t r[2048];

	r[0] = ctl;
	r[1] = nh;
	memcpy(r + 2, p, len);
	s->b[s->len++] = (uint8_t)(len + 1);
	s->b[s->len++] = (uint8_t)((len + 1) >> 8);
	memcpy(s->b + s->len, r, len + 2);
	s->len += len + 2;
}

static void seed_write(const char *dir, const char *name, unsigned suite, const struct seed *s)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s-%u%s", dir, name, suites[suite],
		 suite >= N_SUITES ? "-v4" : "");
	f = fopen(path, "wb");
	if (!f || fwrite(s->b, 1, s->len, f) != s->len || fclose(f) != 0)
		abort();
}

/* A TCP segment (20-byte header, ACK) of n payload bytes, sequence seq. */
static size_t tcp_seg(uint8_t *p, uint32_t seq, size_t n, uint8_t flags)
{
	memset(p, 0, 20 + n);
	hip_wr16(p, 40000);
	hip_wr16(p + 2, 80);
	hip_wr32(p + 4, seq);
	p[12] = 5 << 4;
	p[13] = flags;
	hip_wr16(p + 14, 512);
	memset(p + 20, 'd', n);
	return 20 + n;
}

static void write_seeds(const char *dir)
{
	static const uint8_t echo[] = { 128, 0, 0, 0, 0, 1, 0, 1, 'p', 'i', 'n', 'g' };
	uint8_t tcp[256];
	struct seed s;
	unsigned k;
	size_t n, elen, expect;

	for (k = 0; k < N_SAS; k++) {
		uint8_t icmp = k >= N_SUITES ? IPPROTO_ICMP : IPPROTO_ICMPV6;

		/* plaintext: ICMPv6 echo (ICMP on the IPv4 SAs) over each
		 * framing, a replay, a jump */
		memset(&s, 0, sizeof(s));
		s.b[s.len++] = (uint8_t)(k | 3 << 3);
		seed_plain(&s, 0x40, icmp, echo, sizeof(echo));
		seed_plain(&s, 0x50, icmp, echo, sizeof(echo));
		seed_plain(&s, 0x60, icmp, echo, sizeof(echo));
		seed_plain(&s, 0x80, 0, NULL, 0);
		seed_plain(&s, 0x4c, icmp, echo, sizeof(echo));
		seed_plain(&s, 0x42, icmp, echo, sizeof(echo));
		seed_plain(&s, 0x40, ESP_NH_NONE, NULL, 0);
		seed_write(dir, "plain", k, &s);
		/* plaintext with IFF_VNET_HDR: two TCP segments to coalesce */
		memset(&s, 0, sizeof(s));
		s.b[s.len++] = (uint8_t)(k | 3 << 3 | 1 << 5);
		n = tcp_seg(tcp, 1000, 100, 0x10);
		seed_plain(&s, 0x40, IPPROTO_TCP, tcp, n);
		n = tcp_seg(tcp, 1100, 100, 0x10);
		seed_plain(&s, 0x40, IPPROTO_TCP, tcp, n);
		n = tcp_seg(tcp, 1200, 40, 0x18);
		seed_plain(&s, 0x40, IPPROTO_TCP, tcp, n);
		seed_write(dir, "tcp", k, &s);
		/* received as they are: raw IPv6, raw IPv4, UDP */
		for (unsigned mode = 0; mode < 3; mode++) {
			uint8_t rec[2048];

			rig_reset(k, 128, false);
			memset(&s, 0, sizeof(s));
			s.b[s.len++] = (uint8_t)(k | mode << 3);
			for (int i = 0; i < 2; i++) {
				elen = seal_record(k, 0x40, (const uint8_t[]){ icmp,
						   128, 0, 0, 0, 0, 1, 0, (uint8_t)i }, 9, &expect);
				if (mode == 0) {
					int hl = esp_outer_build(&rig->loc_peer, &rig->loc_local,
								 HOP_RAW4, elen, rec, sizeof(rec));

					memcpy(rec + hl, rig->esp, elen);
					seed_rec(&s, rec, (size_t)hl + elen);
				} else if (mode == 1) {
					seed_rec(&s, rig->esp, elen);
				} else {
					rec[0] = 0;
					memcpy(rec + 1, rig->esp, elen);
					seed_rec(&s, rec, elen + 1);
				}
			}
			if (mode == 2) {
				static const uint8_t hip[] = { 1, 0, 0, 0, 0, 0x3b, 1, 0x11 };
				static const uint8_t ka[] = { 0, 0xff };

				seed_rec(&s, hip, sizeof(hip));
				seed_rec(&s, ka, sizeof(ka));
			}
			seed_write(dir, mode == 0 ? "raw4" : mode == 1 ? "raw6" : "udp", k, &s);
		}
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("HIP_SEED_DIR");

	(void)argc, (void)argv;
	log_set_level(LOG_ERR);
	rig_init();
	if (dir)
		write_seeds(dir);
	return 0;
}
