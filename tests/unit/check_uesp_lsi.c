/*
 * check_uesp_lsi.c - IPv4 between LSIs on the userspace ESP datapath
 * (docs/decisions.md D-22; hipd/datapath/uesp/: esp.c esp_encap4 /
 * esp_decap4, uesp_io.c tx_packet4, uesp.c policy_lsi_add).
 *
 * The same loop rig as check_uesp.c: one datapath in a private network
 * namespace, a socketpair standing in for hip0, an outbound and an inbound
 * inner_v4 SA with the same SPI and LSIs on 127.0.0.1, so every IPv4
 * packet written to the "TUN" comes back from it; a second raw socket sees
 * the ESP on the wire (NULL encryption where the test reads the payload).
 * The "loop" cases need root and network namespaces and pass without; the
 * "esp" cases need nothing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/loop.h"
#include "datapath/uesp/uesp_int.h"
#include "unit.h"

enum { SPI = 0x3456, SPI6 = 0x4567, CAP_MAX = 8, VNET = sizeof(struct virtio_net_hdr) };

static const char *const LSI_A = "198.18.0.1", *const LSI_B = "198.18.0.2";

struct rig {
	struct hip_loop *loop;
	struct datapath *dp;
	struct uesp *u;
	int tun, cap;
	unsigned acquires, acquires_lsi;
	struct in_addr acq_local, acq_peer;
	uint8_t esp[CAP_MAX][UESP_PKT_MAX];     /* ESP seen on the wire, no IP header */
	size_t esp_len[CAP_MAX];
	unsigned n_esp;
};

static void on_acquire(void *arg, const struct hip_hit *local, const struct hip_hit *peer)
{
	(void)local, (void)peer;
	((struct rig *)arg)->acquires++;
}

static void on_acquire_lsi(void *arg, const struct in_addr *local, const struct in_addr *peer)
{
	struct rig *r = arg;

	r->acquires_lsi++;
	r->acq_local = *local;
	r->acq_peer = *peer;
}

static bool lo_up(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	bool ok;

	if (s < 0)
		return false;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	ok = ioctl(s, SIOCGIFFLAGS, &ifr) == 0;
	ifr.ifr_flags |= IFF_UP;
	ok = ok && ioctl(s, SIOCSIFFLAGS, &ifr) == 0;
	close(s);
	return ok;
}

static bool rig_setup(struct rig *r, bool vnet)
{
	struct datapath_events ev = { .arg = r, .acquire = on_acquire,
				      .acquire_lsi = on_acquire_lsi };
	struct uesp_conf conf = { .tun_vnet = vnet, .tun_mtu = 1400, .udp4 = -1, .udp6 = -1 };
	int sp[2];

	memset(r, 0, sizeof(*r));
	if (geteuid() != 0 || unshare(CLONE_NEWNET) != 0 || !lo_up()) {
		fprintf(stderr, "check_uesp_lsi: needs root and network namespaces: skipped\n");
		return false;
	}
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp), 0);
	ck_assert_int_eq(fcntl(sp[0], F_SETFL, O_NONBLOCK), 0);
	conf.tun_fd = sp[0];
	r->tun = sp[1];
	conf.raw4 = uesp_open_raw(AF_INET);
	conf.raw6 = uesp_open_raw(AF_INET6);
	ck_assert_int_ge(conf.raw4, 0);
	ck_assert_int_ge(conf.raw6, 0);
	r->cap = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_ESP);
	ck_assert_int_ge(r->cap, 0);
	ck_assert_int_eq(hip_loop_create(&r->loop), 0);
	ck_assert_int_eq(uesp_create(r->loop, &conf, &ev, &r->dp), 0);
	r->u = (struct uesp *)r->dp;
	return true;
}

static void rig_free(struct rig *r)
{
	r->dp->ops->free(r->dp);
	hip_loop_free(r->loop);
	close(r->tun);
	close(r->cap);
}

static struct in_addr lsi(const char *s)
{
	struct in_addr a;

	ck_assert_int_eq(inet_pton(AF_INET, s, &a), 1);
	return a;
}

/* An SA of suite between HITs a and b on 127.0.0.1, carrying IPv4 from
 * LSI_A to LSI_B (inner_v4) or IPv6 between the HITs. Inbound and outbound
 * SAs with the same SPI pair up on loopback. */
static void add_sa(struct rig *r, uint32_t spi, bool inbound, uint16_t suite, bool v4)
{
	struct hip_esp_suite_info info;
	struct hip_esp_sa sa;

	memset(&sa, 0, sizeof(sa));
	ck_assert_int_eq(hip_esp_suite_info(suite, &info), 0);
	sa.spi = spi;
	sa.inbound = inbound;
	sa.suite = suite;
	ck_assert_int_eq(hip_hit_from_str("2001:20::a", &sa.inner_src), 0);
	ck_assert_int_eq(hip_hit_from_str("2001:20::b", &sa.inner_dst), 0);
	sa.inner_v4 = v4;
	sa.lsi_src = lsi(LSI_A);
	sa.lsi_dst = lsi(LSI_B);
	ck_assert_int_eq(hip_addr_from_str("127.0.0.1", &sa.outer_src), 0);
	sa.outer_dst = sa.outer_src;
	sa.enc_len = info.enc_key_len;
	sa.auth_len = info.auth_key_len;
	memset(sa.enc_key, 3, sa.enc_len);
	memset(sa.auth_key, 5, sa.auth_len);
	ck_assert_int_eq(r->dp->ops->sa_add(r->dp, &sa), 0);
}

static void add_pair(struct rig *r, uint16_t suite)
{
	add_sa(r, SPI, true, suite, true);
	add_sa(r, SPI, false, suite, true);
}

/* Ones' complement sum (RFC 1071) of an IPv4 header, or of a transport
 * segment with its pseudo-header: 0xffff when the checksum in it is right. */
static uint16_t sum_ip4(const uint8_t *ip)
{
	return hip_csum_fold(hip_csum_add(0, ip, (size_t)(ip[0] & 15) * 4));
}

static uint16_t sum_l4(const uint8_t *src_dst, uint8_t proto, const uint8_t *l4, size_t len)
{
	uint8_t ph[12];

	memcpy(ph, src_dst, 8);
	ph[8] = 0;
	ph[9] = proto;
	hip_wr16(ph + 10, (uint16_t)len);
	return hip_csum_fold(hip_csum_add(hip_csum_add(0, ph, sizeof(ph)), l4, len));
}

static void set_l4_csum(uint8_t *ip, size_t len)
{
	size_t at = ip[9] == IPPROTO_TCP ? 16 : ip[9] == IPPROTO_UDP ? 6 : 2;
	uint8_t *l4 = ip + 20;

	l4[at] = l4[at + 1] = 0;
	if (ip[9] == IPPROTO_ICMP)
		hip_wr16(l4 + at, (uint16_t)~hip_csum_fold(hip_csum_add(0, l4, len - 20)));
	else
		hip_wr16(l4 + at, (uint16_t)~sum_l4(ip + 12, ip[9], l4, len - 20));
}

/* IPv4 from src to LSI_B: TCP (ACK, 20-byte header), UDP or ICMP echo with
 * n payload bytes; ID id, DF, TTL 64 (the outer TTL on loopback, which the
 * receiver takes), checksums set: what a stack would write to hip0. */
static size_t ip4_packet(uint8_t *p, const char *src, uint8_t proto, uint16_t id, size_t n)
{
	size_t l4 = proto == IPPROTO_TCP ? 20 : 8, len = 20 + l4 + n;
	struct in_addr s = lsi(src), d = lsi(LSI_B);

	memset(p, 0, len);
	p[0] = 0x45;
	hip_wr16(p + 2, (uint16_t)len);
	hip_wr16(p + 4, id);
	p[6] = 0x40;
	p[8] = 64;
	p[9] = proto;
	memcpy(p + 12, &s, 4);
	memcpy(p + 16, &d, 4);
	hip_wr16(p + 10, (uint16_t)~sum_ip4(p));
	if (proto == IPPROTO_TCP) {
		hip_wr16(p + 20, 40000);
		hip_wr16(p + 22, 80);
		hip_wr32(p + 24, 1000);
		p[32] = 5 << 4;
		p[33] = 0x10;
		hip_wr16(p + 34, 512);
	} else if (proto == IPPROTO_UDP) {
		hip_wr16(p + 20, 5000);
		hip_wr16(p + 22, 53);
		hip_wr16(p + 24, (uint16_t)(8 + n));
	} else {
		p[20] = 8;      /* echo request */
	}
	for (size_t k = 0; k < n; k++)
		p[20 + l4 + k] = (uint8_t)(id + k);
	set_l4_csum(p, len);
	return len;
}

static void rig_capture(struct rig *r)
{
	uint8_t buf[UESP_PKT_MAX];
	ssize_t n;
	size_t hl;

	while ((n = recv(r->cap, buf, sizeof(buf), 0)) > 0) {
		hl = (size_t)(buf[0] & 0x0f) * 4;
		if ((size_t)n <= hl || r->n_esp == CAP_MAX)
			continue;
		memcpy(r->esp[r->n_esp], buf + hl, (size_t)n - hl);
		r->esp_len[r->n_esp++] = (size_t)n - hl;
	}
}

/* Run the loop until the datapath writes to the "TUN": the length read
 * into got, 0 after half a second without. */
static size_t rig_read(struct rig *r, uint8_t *got, size_t cap)
{
	ssize_t n;

	for (int k = 0; k < 50; k++) {
		hip_loop_run_once(r->loop, 10);
		rig_capture(r);
		n = recv(r->tun, got, cap, MSG_DONTWAIT);
		if (n > 0)
			return (size_t)n;
	}
	return 0;
}

static bool send_expect(struct rig *r, const uint8_t *p, size_t len)
{
	uint8_t got[UESP_PKT_MAX];
	size_t n;

	ck_assert_int_eq(send(r->tun, p, len, 0), (ssize_t)len);
	n = rig_read(r, got, sizeof(got));
	if (!n)
		return false;
	ck_assert_uint_eq(n, len);
	ck_assert(memcmp(got, p, len) == 0);
	ck_assert_uint_eq(sum_ip4(got), 0xffff);
	if (got[9] != IPPROTO_ICMP)
		ck_assert_uint_eq(sum_l4(got + 12, got[9], got + 20, n - 20), 0xffff);
	return true;
}

/* TCP, UDP and ICMP over an LSI SA pair (AES-GCM) come back byte for byte:
 * the receiver rebuilds the IPv4 header (IHL 5, DF, ID counting from 0,
 * TTL from the outer one, the SA's LSIs) with a valid checksum, and the
 * TCP and UDP checksums over the LSIs hold. */
START_TEST(test_lsi_roundtrip)
{
	static const uint8_t protos[3] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP };
	struct rig r;
	uint8_t p[UESP_PKT_MAX];

	if (!rig_setup(&r, false))
		return;
	add_pair(&r, HIP_ESP_AES_GCM_16);
	for (uint16_t k = 0; k < 6; k++) {
		size_t len = ip4_packet(p, LSI_A, protos[k % 3], k, 100 + 300 * k);

		ck_assert(send_expect(&r, p, len));
	}
	ck_assert_uint_eq(r.u->tx_bad + r.u->rx_bad + r.u->tx_no_sa, 0);
	ck_assert_uint_eq(r.acquires + r.acquires_lsi, 0);
	rig_free(&r);
}
END_TEST

/* The ESP payload is what Linux's BEET sends for IPv4 inner (xfrm4 BEET,
 * RFC 7402 App. B): the transport header first (the IPv4 header is gone),
 * Next Header = the IPv4 Protocol. NULL encryption shows it on the wire. */
START_TEST(test_lsi_wire_format)
{
	static const uint8_t protos[3] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP };
	struct hip_esp_suite_info info;
	struct rig r;
	uint8_t p[UESP_PKT_MAX];

	if (!rig_setup(&r, false))
		return;
	ck_assert_int_eq(hip_esp_suite_info(HIP_ESP_NULL_SHA256, &info), 0);
	add_pair(&r, HIP_ESP_NULL_SHA256);
	for (uint16_t k = 0; k < 3; k++) {
		size_t len = ip4_packet(p, LSI_A, protos[k], k, 33), plain, elen;
		const uint8_t *e;

		r.n_esp = 0;
		ck_assert(send_expect(&r, p, len));
		ck_assert_uint_eq(r.n_esp, 1);
		e = r.esp[0];
		elen = r.esp_len[0];
		ck_assert_uint_eq(hip_rd32(e), SPI);
		ck_assert_uint_eq(hip_rd32(e + 4), k + 1u);
		plain = elen - ESP_HDR_LEN - info.iv_len - info.icv_len;
		/* payload | pad 1, 2, ... | Pad Length | Next Header */
		ck_assert_uint_eq(plain, (len - 20 + 2 + info.block - 1) / info.block * info.block);
		ck_assert(memcmp(e + ESP_HDR_LEN + info.iv_len, p + 20, len - 20) == 0);
		ck_assert_uint_eq(e[elen - info.icv_len - 1], protos[k]);
		ck_assert_uint_eq(e[elen - info.icv_len - 2], plain - (len - 20) - 2);
	}
	rig_free(&r);
}
END_TEST

/* What the datapath does not send, each counted: another source than our
 * LSI, header options (no BEET pseudo-header, D-22), fragments (two pieces
 * that never complete a datagram); IPv4 to a LSI without an SA is held
 * and raises acquire_lsi (not acquire). */
START_TEST(test_lsi_drops)
{
	struct rig r;
	uint8_t p[UESP_PKT_MAX], got[UESP_PKT_MAX];
	size_t len;

	if (!rig_setup(&r, false))
		return;
	add_pair(&r, HIP_ESP_AES_GCM_16);
	len = ip4_packet(p, "198.18.0.9", IPPROTO_UDP, 0, 50);
	ck_assert_int_eq(send(r.tun, p, len, 0), (ssize_t)len);
	ck_assert_uint_eq(rig_read(&r, got, sizeof(got)), 0);
	ck_assert_uint_eq(r.u->tx_v4_src, 1);
	/* options: IHL 6 with a NOP word before the UDP header */
	len = ip4_packet(p + 4, LSI_A, IPPROTO_UDP, 0, 50);
	memmove(p, p + 4, 20);
	memset(p + 20, 1, 4);
	p[0] = 0x46;
	hip_wr16(p + 2, (uint16_t)(len + 4));
	ck_assert_int_eq(send(r.tun, p, len + 4, 0), (ssize_t)len + 4);
	ck_assert_uint_eq(rig_read(&r, got, sizeof(got)), 0);
	ck_assert_uint_eq(r.u->tx_v4_opts, 1);
	/* a first fragment (MF) and a later one (offset) */
	len = ip4_packet(p, LSI_A, IPPROTO_UDP, 0, 50);
	p[6] = 0x20;
	ck_assert_int_eq(send(r.tun, p, len, 0), (ssize_t)len);
	p[6] = 0;
	p[7] = 8;
	ck_assert_int_eq(send(r.tun, p, len, 0), (ssize_t)len);
	ck_assert_uint_eq(rig_read(&r, got, sizeof(got)), 0);
	ck_assert_uint_eq(r.u->tx_v4_frag, 2);
	/* a Total Length that does not match */
	len = ip4_packet(p, LSI_A, IPPROTO_UDP, 0, 50);
	ck_assert_int_eq(send(r.tun, p, len - 1, 0), (ssize_t)len - 1);
	ck_assert_uint_eq(rig_read(&r, got, sizeof(got)), 0);
	ck_assert_uint_eq(r.u->tx_bad, 1);
	ck_assert_uint_eq(r.n_esp, 0);
	/* and a good one still passes */
	len = ip4_packet(p, LSI_A, IPPROTO_UDP, 0, 50);
	ck_assert(send_expect(&r, p, len));
	ck_assert_uint_eq(r.u->tx_no_sa + r.acquires + r.acquires_lsi, 0);
	rig_free(&r);
}
END_TEST

/* First packets to a peer LSI: one acquire_lsi naming both LSIs, held, sent
 * in order once the inner_v4 SA comes. The association's HIT SA pair does
 * not carry them, and the LSI SA does not take the HIT's traffic. */
START_TEST(test_lsi_hold_acquire)
{
	struct rig r;
	uint8_t p1[UESP_PKT_MAX], p2[UESP_PKT_MAX], got[UESP_PKT_MAX];
	size_t l1, l2;
	struct hip_hit hb, key;
	struct in_addr b = lsi(LSI_B);

	if (!rig_setup(&r, false))
		return;
	/* the HIT pair first: IPv4 still has no SA */
	add_sa(&r, SPI6, true, HIP_ESP_AES_GCM_16, false);
	add_sa(&r, SPI6, false, HIP_ESP_AES_GCM_16, false);
	l1 = ip4_packet(p1, LSI_A, IPPROTO_TCP, 0, 10);
	l2 = ip4_packet(p2, LSI_A, IPPROTO_TCP, 1, 20);
	ck_assert_int_eq(send(r.tun, p1, l1, 0), (ssize_t)l1);
	ck_assert_int_eq(send(r.tun, p2, l2, 0), (ssize_t)l2);
	ck_assert_uint_eq(rig_read(&r, got, sizeof(got)), 0);
	ck_assert_uint_eq(r.acquires_lsi, 1);
	ck_assert_uint_eq(r.acquires, 0);
	ck_assert_uint_eq(r.acq_local.s_addr, lsi(LSI_A).s_addr);
	ck_assert_uint_eq(r.acq_peer.s_addr, b.s_addr);
	ck_assert_uint_eq(r.u->tx_no_sa, 2);
	ck_assert_uint_eq(r.u->n_holds, 1);
	add_pair(&r, HIP_ESP_AES_GCM_16);
	ck_assert_uint_eq(r.u->n_holds, 0);
	ck_assert_uint_eq(rig_read(&r, got, sizeof(got)), l1);
	ck_assert(memcmp(got, p1, l1) == 0);
	ck_assert_uint_eq(rig_read(&r, got, sizeof(got)), l2);
	ck_assert(memcmp(got, p2, l2) == 0);
	ck_assert_uint_eq(r.acquires_lsi, 1);
	/* two peer entries: the HIT's on the HIT SA, the LSI's on the LSI SA */
	ck_assert_int_eq(hip_hit_from_str("2001:20::b", &hb), 0);
	uesp_lsi_key(&key, &b);
	ck_assert_uint_eq(uesp_sa_spi(uesp_peer_find(r.u, &hb, false)->sa), SPI6);
	ck_assert_uint_eq(uesp_sa_spi(uesp_peer_find(r.u, &key, false)->sa), SPI);
	rig_free(&r);
}
END_TEST

/* policy_lsi_add makes or updates the one peer entry of the LSI;
 * policy_lsi_del removes it. */
START_TEST(test_lsi_policy)
{
	struct rig r;
	struct in_addr a = lsi(LSI_A), b = lsi(LSI_B);
	struct hip_addr l1, p1, l2, p2;
	struct hip_hit key;
	struct uesp_peer *p;

	if (!rig_setup(&r, false))
		return;
	hip_addr_from_str("192.0.2.1", &l1);
	hip_addr_from_str("192.0.2.2", &p1);
	hip_addr_from_str("fd00::1", &l2);
	hip_addr_from_str("fd00::2", &p2);
	ck_assert_int_eq(r.dp->ops->policy_lsi_add(r.dp, &a, &b, &l1, &p1), 0);
	ck_assert_int_eq(r.dp->ops->policy_lsi_add(r.dp, &a, &b, &l2, &p2), 0);
	ck_assert_uint_eq(r.u->n_peers, 1);
	uesp_lsi_key(&key, &b);
	p = uesp_peer_find(r.u, &key, false);
	ck_assert_ptr_nonnull(p);
	ck_assert(memcmp(&p->loc_local, &l2, sizeof(l2)) == 0);
	ck_assert(memcmp(&p->loc_peer, &p2, sizeof(p2)) == 0);
	ck_assert_int_eq(r.dp->ops->policy_lsi_del(r.dp, &a, &b), 0);
	ck_assert_int_eq(r.dp->ops->policy_lsi_del(r.dp, &a, &b), -ENOENT);
	ck_assert_uint_eq(r.u->n_peers, 0);
	rig_free(&r);
}
END_TEST

/* A TSO4 super-packet (IFF_VNET_HDR, GSO_TCPV4, checksum partial) is cut
 * into gso_size segments, each a valid TCP segment between the LSIs with
 * the next sequence number (NULL encryption: read on the wire); the
 * receiver coalesces them into one GSO_TCPV4 write whose IPv4 header
 * (Total Length, checksum) is valid and whose payload is the original. */
START_TEST(test_lsi_tso4)
{
	enum { MSS = 1000, DATA = 3 * MSS + 500 };
	struct hip_esp_suite_info info;
	struct virtio_net_hdr vh;
	struct rig r;
	static uint8_t buf[VNET + 20 + 20 + DATA], got[UESP_GSO_MAX];
	uint8_t *ip = buf + VNET;
	size_t len = 20 + 20 + DATA, n;

	if (!rig_setup(&r, true))
		return;
	ck_assert_int_eq(hip_esp_suite_info(HIP_ESP_NULL_SHA256, &info), 0);
	add_pair(&r, HIP_ESP_NULL_SHA256);
	ck_assert_uint_eq(ip4_packet(ip, LSI_A, IPPROTO_TCP, 7, DATA), len);
	/* CHECKSUM_PARTIAL as the kernel hands it over; the segmentation
	 * computes each segment's checksum afresh, whatever the field holds */
	ip[36] = ip[37] = 0;
	memset(&vh, 0, sizeof(vh));
	vh.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	vh.hdr_len = 40;
	vh.gso_size = MSS;
	vh.csum_start = 20;
	vh.csum_offset = 16;
	memcpy(buf, &vh, sizeof(vh));
	ck_assert_int_eq(send(r.tun, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	n = rig_read(&r, got, sizeof(got));
	for (int k = 0; k < 20 && r.n_esp < 4; k++) {
		hip_loop_run_once(r.loop, 10);
		rig_capture(&r);
	}
	ck_assert_uint_eq(r.u->tx_gso, 1);
	ck_assert_uint_eq(r.n_esp, 4);
	for (unsigned k = 0; k < 4; k++) {
		const uint8_t *tcp = r.esp[k] + ESP_HDR_LEN + info.iv_len;
		size_t seg = k < 3 ? MSS : DATA - 3 * MSS;
		size_t elen = r.esp_len[k];

		ck_assert_uint_eq(r.esp[k][elen - info.icv_len - 1], IPPROTO_TCP);
		ck_assert_uint_eq(hip_rd32(tcp + 4), 1000 + k * MSS);
		ck_assert_uint_eq(sum_l4(ip + 12, IPPROTO_TCP, tcp, 20 + seg), 0xffff);
		ck_assert(memcmp(tcp + 20, ip + 40 + k * MSS, seg) == 0);
	}
	/* received: one coalesced write of everything */
	ck_assert_uint_eq(n, VNET + len);
	memcpy(&vh, got, sizeof(vh));
	ck_assert_uint_eq(vh.gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
	ck_assert_uint_eq(vh.gso_size, MSS);
	ck_assert_uint_eq(vh.csum_start, 20);
	ck_assert_uint_eq(hip_rd16(got + VNET + 2), len);
	ck_assert_uint_eq(sum_ip4(got + VNET), 0xffff);
	ck_assert(memcmp(got + VNET + 12, ip + 12, 8) == 0);
	ck_assert(memcmp(got + VNET + 40, ip + 40, DATA) == 0);
	ck_assert_uint_eq(r.u->rx_coalesced, 4);
	rig_free(&r);
}
END_TEST

/* esp.c alone: Next Header 94 (the BEET pseudo-header Linux sends for
 * IPv4 options) is refused on an inner_v4 SA; an inner_v4 outbound SA
 * takes only IPv4 between its LSIs. */
START_TEST(test_esp_v4_refusals)
{
	struct hip_esp_suite_info info;
	struct esp_out out;
	struct esp_in in;
	uint8_t key[20], p[256], esp[512], *inner;
	size_t elen, ilen, len;
	struct iovec iov = { .iov_base = p, .iov_len = 30 };

	ck_assert_int_eq(hip_crypto_init(), 0);
	ck_assert_int_eq(hip_esp_suite_info(HIP_ESP_AES_GCM_16, &info), 0);
	memset(key, 9, sizeof(key));
	memset(&out, 0, sizeof(out));
	memset(&in, 0, sizeof(in));
	ck_assert_int_eq(hip_esp_ctx_new(HIP_ESP_AES_GCM_16, key, 20, NULL, 0, true, &out.ctx), 0);
	ck_assert_int_eq(hip_esp_ctx_new(HIP_ESP_AES_GCM_16, key, 20, NULL, 0, false, &in.ctx), 0);
	out.spi = in.spi = SPI;
	out.inner_v4 = in.inner_v4 = true;
	out.lsi_src = in.lsi_src = lsi(LSI_A);
	out.lsi_dst = in.lsi_dst = lsi(LSI_B);
	ck_assert_int_eq(esp_replay_init(&in.replay, 0), 0);
	memset(p, 1, sizeof(p));
	ck_assert_int_eq(esp_encap_v(&out, ESP_NH_BEET_PH, &iov, 1, esp + 64, 400, &elen), 0);
	ck_assert_int_eq(esp_decap(&in, esp + 64, elen, 64, &inner, &ilen, NULL),
			 -EPROTONOSUPPORT);
	/* from another LSI, to another LSI, IPv6 */
	len = ip4_packet(p, "198.18.0.9", IPPROTO_UDP, 0, 20);
	ck_assert_int_eq(esp_encap(&out, p, len, esp, sizeof(esp), &elen), -EINVAL);
	len = ip4_packet(p, LSI_A, IPPROTO_UDP, 0, 20);
	p[19] ^= 1;
	ck_assert_int_eq(esp_encap(&out, p, len, esp, sizeof(esp), &elen), -EINVAL);
	p[19] ^= 1;
	p[0] = 0x60;
	ck_assert_int_eq(esp_encap(&out, p, len, esp, sizeof(esp), &elen), -EINVAL);
	p[0] = 0x45;
	ck_assert_int_eq(esp_encap(&out, p, len, esp + 64, 400, &elen), 0);
	ck_assert_int_eq(esp_decap(&in, esp + 64, elen, 9, &inner, &ilen, NULL), 0);
	ck_assert_uint_eq(ilen, len);
	ck_assert_uint_eq(inner[8], 9);         /* TTL: the outer one */
	ck_assert(memcmp(inner + 20, p + 20, len - 20) == 0);
	hip_esp_ctx_free(out.ctx);
	hip_esp_ctx_free(in.ctx);
}
END_TEST

static Suite *uesp_lsi_suite(void)
{
	Suite *s = suite_create("uesp_lsi");
	TCase *tc = tcase_create("loop");
	TCase *te = tcase_create("esp");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_lsi_roundtrip);
	tcase_add_test(tc, test_lsi_wire_format);
	tcase_add_test(tc, test_lsi_drops);
	tcase_add_test(tc, test_lsi_hold_acquire);
	tcase_add_test(tc, test_lsi_policy);
	tcase_add_test(tc, test_lsi_tso4);
	suite_add_tcase(s, tc);
	tcase_add_test(te, test_esp_v4_refusals);
	suite_add_tcase(s, te);
	return s;
}

UNIT_MAIN(uesp_lsi_suite)
