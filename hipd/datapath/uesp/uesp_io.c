/*
 * uesp_io.c - the userspace ESP packet path.
 *
 * Out: read the TUN (with IFF_VNET_HDR a read can be a 64 KB TCP
 * super-packet, which is cut into MSS-sized segments here, each with its own
 * TCP checksum), encrypt each segment into a slot of the send batch, send
 * the batch with sendmmsg.
 * In: recvmmsg a batch of ESP packets, check and decrypt each in place,
 * then write to the TUN, coalescing consecutive in-order TCP segments of a
 * flow into one GSO packet (one write instead of up to ~45; the kernel's
 * TCP receives it as if GRO had merged it).
 */
#include <errno.h>
#include <linux/virtio_net.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "uesp_csum.h"
#include "uesp_int.h"

enum {
	TCP_FIN = 0x01, TCP_SYN = 0x02, TCP_RST = 0x04, TCP_PSH = 0x08,
	TCP_ACK = 0x10, TCP_URG = 0x20, TCP_ECE = 0x40, TCP_CWR = 0x80,
	TUN_READS_PER_WAKE = 64,
	RAW_BATCHES_PER_WAKE = 16,
};

uint64_t uesp_io_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- out: TUN -> ESP -------------------------------------------------- */

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
enum {
	UDP_GSO_SEGS_MAX = 64,          /* the kernel's UDP_MAX_SEGMENTS */
	UDP_GSO_BYTES_MAX = 65000,      /* one IP datagram's worth of payload */
};

/* ESP in UDP (uesp_udp.c): tx[i..] to one peer as one UDP_SEGMENT send
 * when they can be (equal sizes, the last one shorter): the number sent,
 * 0 when not (sent the normal way). */
static bool same_flow(const struct uesp_tx *a, const struct uesp_tx *b)
{
	if (a->fd != b->fd || !b->udp || a->ctl_len != b->ctl_len ||
	    memcmp(a->ctl.b, b->ctl.b, a->ctl_len))
		return false;
	return a->v4 ? !memcmp(&a->a4, &b->a4, sizeof(a->a4)) : !memcmp(&a->a6, &b->a6, sizeof(a->a6));
}

static unsigned udp_gso_send(struct uesp *u, unsigned i)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct in6_pktinfo)) + CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr align;
	} ctl;
	struct uesp_tx *t = &u->tx[i];
	struct msghdr msg;
	struct cmsghdr *c;
	size_t seg = t->len, total = 0;
	uint16_t gso;
	unsigned n, k;

	if (!u->udp_gso)
		return 0;
	/* equal sizes, the last one may be shorter; within the kernel's limits */
	for (n = 0; i + n < u->tx_n && n < UDP_GSO_SEGS_MAX; n++) {
		struct uesp_tx *x = &u->tx[i + n];

		if (!same_flow(t, x) || x->len > seg || total + x->len > UDP_GSO_BYTES_MAX)
			break;
		total += x->len;
		if (x->len < seg) {
			n++;
			break;
		}
	}
	if (n < 2)
		return 0;
	for (k = 0; k < n; k++) {
		u->tx_iov[i + k].iov_base = u->tx[i + k].buf;
		u->tx_iov[i + k].iov_len = u->tx[i + k].len;
	}
	memset(&msg, 0, sizeof(msg));
	memset(&ctl, 0, sizeof(ctl));
	msg.msg_name = t->v4 ? (void *)&t->a4 : (void *)&t->a6;
	msg.msg_namelen = t->v4 ? sizeof(t->a4) : sizeof(t->a6);
	msg.msg_iov = &u->tx_iov[i];
	msg.msg_iovlen = n;
	memcpy(ctl.buf, t->ctl.b, t->ctl_len);          /* the source address */
	msg.msg_control = ctl.buf;
	msg.msg_controllen = t->ctl_len + CMSG_SPACE(sizeof(uint16_t));
	c = (struct cmsghdr *)(void *)(ctl.buf + t->ctl_len);
	c->cmsg_level = SOL_UDP;
	c->cmsg_type = UDP_SEGMENT;
	c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
	gso = (uint16_t)seg;
	memcpy(CMSG_DATA(c), &gso, sizeof(gso));
	if (sendmsg(t->fd, &msg, MSG_DONTWAIT) < 0) {
		if (errno == EIO || errno == EINVAL || errno == EOPNOTSUPP || errno == ENOPROTOOPT) {
			u->udp_gso = false;     /* no UDP GSO here: one by one from now */
			log_info("uesp: no UDP_SEGMENT (%s): ESP in UDP sent packet by packet",
				 strerror(errno));
			return 0;
		}
		u->tx_send_err++;
	} else {
		u->udp_gso_sends++;
	}
	return n;
}


void uesp_tx_flush(struct uesp *u)
{
	unsigned i = 0, run;
	int n;

	for (unsigned k = 0; k < u->tx_n; k++) {
		struct uesp_tx *t = &u->tx[k];
		struct msghdr *h = &u->tx_msg[k].msg_hdr;

		memset(h, 0, sizeof(*h));
		u->tx_iov[k].iov_base = t->buf;
		u->tx_iov[k].iov_len = t->len;
		h->msg_iov = &u->tx_iov[k];
		h->msg_iovlen = 1;
		if (t->ctl_len) {
			h->msg_control = t->ctl.b;
			h->msg_controllen = t->ctl_len;
		}
		if (t->v4) {
			h->msg_name = &t->a4;
			h->msg_namelen = sizeof(t->a4);
		} else {
			h->msg_name = &t->a6;
			h->msg_namelen = sizeof(t->a6);
		}
	}
	/* One sendmmsg per run of packets on the same socket; ESP in UDP
	 * to one peer goes as one UDP_SEGMENT send where it can. */
	while (i < u->tx_n) {
		if (u->tx[i].udp) {
			run = udp_gso_send(u, i);
			if (run) {
				i += run;
				continue;
			}
		}
		for (run = 1; i + run < u->tx_n && u->tx[i + run].fd == u->tx[i].fd &&
			      !u->tx[i + run].udp; run++)
			;
		n = sendmmsg(u->tx[i].fd, &u->tx_msg[i], run, 0);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			u->tx_send_err++;       /* e.g. no route: drop this one */
			n = 1;
		}
		i += (unsigned)n;
	}
	u->tx_n = 0;
}

/* The SA's outer source as IP(V6)_PKTINFO, as the kernel's BEET SA sends
 * from its saddr: the right locator after a readdress (UPDATE), and the
 * kernel skips source address selection per packet. */
static void tx_source(struct uesp_tx *t, const struct hip_addr *src, bool v4)
{
	struct cmsghdr *c = (struct cmsghdr *)(void *)t->ctl.b;   /* aligned: the union */

	t->ctl_len = 0;
	if (v4) {
		struct in_pktinfo pi = { .ipi_spec_dst = hip_addr_v4(src) };

		if (pi.ipi_spec_dst.s_addr == htonl(INADDR_ANY))
			return;
		c->cmsg_level = IPPROTO_IP;
		c->cmsg_type = IP_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
		t->ctl_len = CMSG_SPACE(sizeof(pi));
	} else {
		struct in6_pktinfo pi = { .ipi6_addr = src->in6 };

		if (IN6_IS_ADDR_UNSPECIFIED(&pi.ipi6_addr))
			return;
		c->cmsg_level = IPPROTO_IPV6;
		c->cmsg_type = IPV6_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
		t->ctl_len = CMSG_SPACE(sizeof(pi));
	}
}

static struct uesp_tx *tx_slot(struct uesp *u, struct uesp_sa *sa)
{
	struct uesp_tx *t;
	bool v4 = hip_addr_is_v4(&sa->outer_dst);
	/* RFC 3948: ESP in UDP on the engine's port, or ESP over IP */
	int fd = sa->encap_dport ? (v4 ? u->udp4 : u->udp6) : (v4 ? u->raw4 : u->raw6);

	if (fd < 0)
		return NULL;
	if (u->tx_n == UESP_BATCH)
		uesp_tx_flush(u);
	t = &u->tx[u->tx_n];
	t->fd = fd;
	t->v4 = v4;
	t->udp = sa->encap_dport != 0;
	if (v4) {
		t->a4.sin_family = AF_INET;
		t->a4.sin_port = htons(sa->encap_dport);
		t->a4.sin_addr = hip_addr_v4(&sa->outer_dst);
	} else {
		memset(&t->a6, 0, sizeof(t->a6));
		t->a6.sin6_family = AF_INET6;
		t->a6.sin6_port = htons(sa->encap_dport);
		t->a6.sin6_addr = sa->outer_dst.in6;
	}
	tx_source(t, &sa->outer_src, v4);
	return t;
}

static int tx_commit(struct uesp *u, struct uesp_sa *sa, int rc, size_t inner_len)
{
	if (rc) {
		u->tx_bad++;
		return rc;
	}
	u->tx_n++;
	uesp_account(u, sa, inner_len);
	return 0;
}

int uesp_tx_inner(struct uesp *u, struct uesp_sa *sa, const uint8_t *ip6, size_t len)
{
	struct uesp_tx *t = tx_slot(u, sa);

	if (!t)
		return -ENETUNREACH;
	return tx_commit(u, sa, esp_encap(&sa->out, ip6, len, t->buf, sizeof(t->buf), &t->len),
			 len);
}

/* One ESP packet larger than a batch slot (a reassembled IPv4 datagram,
 * uesp_frag.h): sent alone after the batch (order kept). The kernel
 * fragments the outer packet, as it does for XFRM's: raw IPv4 sockets
 * (IP_PMTUDISC_WANT by default) clear DF on a packet over the path MTU,
 * IPv6 fragments at the source, the engine's UDP sockets are
 * IP_PMTUDISC_DONT / IPV6_DONTFRAG 0 (net/sock.c). Not a UDP_SEGMENT
 * send: its segments may not exceed the MTU. */
static void tx_big(struct uesp *u, struct uesp_sa *sa, const uint8_t *ip, size_t len)
{
	struct uesp_tx *t;
	struct msghdr msg;
	struct iovec iov;
	size_t elen = 0;

	uesp_tx_flush(u);
	t = tx_slot(u, sa);             /* addresses only: u->tx_n stays 0 */
	if (!t)
		return;
	if (esp_encap(&sa->out, ip, len, u->big_tx, sizeof(u->big_tx), &elen)) {
		u->tx_bad++;
		return;
	}
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = u->big_tx;
	iov.iov_len = elen;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_name = t->v4 ? (void *)&t->a4 : (void *)&t->a6;
	msg.msg_namelen = t->v4 ? sizeof(t->a4) : sizeof(t->a6);
	if (t->ctl_len) {
		msg.msg_control = t->ctl.b;
		msg.msg_controllen = t->ctl_len;
	}
	if (sendmsg(t->fd, &msg, 0) < 0) {
		u->tx_send_err++;       /* e.g. EMSGSIZE: over 64 KB with ESP */
		return;
	}
	u->tx_big++;
	uesp_account(u, sa, len);
}

static int tx_segment(struct uesp *u, struct uesp_sa *sa, const struct iovec *iov, size_t n,
		      size_t len, size_t hl)
{
	struct uesp_tx *t = tx_slot(u, sa);

	if (!t)
		return -ENETUNREACH;
	return tx_commit(u, sa, esp_encap_v(&sa->out, IPPROTO_TCP, iov, n, t->buf,
					    sizeof(t->buf), &t->len), len + hl);
}

/* Cut a TSO super-packet (TCP over IPv6 without extension headers, or over
 * IPv4 without options, checked by the caller) into gso_size segments, each
 * with a correct checksum. BEET sends no inner IP header, so IPv4's Total
 * Length, ID and header checksum per segment are not needed: the receiver
 * builds its own (esp.c). */
static void tx_gso_tcp(struct uesp *u, struct uesp_sa *sa, const struct virtio_net_hdr *vh,
		       uint8_t *pkt, size_t len)
{
	uint8_t th[60];
	struct iovec iov[2];
	size_t hl = ip_hl(pkt);
	const uint8_t *tcp = pkt + hl, *data;
	size_t thl, dlen, mss = vh->gso_size, seg;
	uint32_t seq0;
	uint64_t sum;

	if (ip_proto(pkt) != IPPROTO_TCP || len < hl + 20 || mss == 0) {
		u->tx_bad++;
		return;
	}
	thl = (size_t)(tcp[12] >> 4) * 4;
	if (thl < 20 || hl + thl > len) {
		u->tx_bad++;
		return;
	}
	data = tcp + thl;
	dlen = len - hl - thl;
	seq0 = hip_rd32(tcp + 4);
	u->tx_gso++;
	for (size_t off = 0; off < dlen || (off == 0 && dlen == 0); off += mss) {
		seg = dlen - off < mss ? dlen - off : mss;
		memcpy(th, tcp, thl);
		hip_wr32(th + 4, seq0 + (uint32_t)off);
		if (off + seg < dlen)
			th[13] &= (uint8_t)~(TCP_FIN | TCP_PSH);
		if (off)
			th[13] &= (uint8_t)~TCP_CWR;
		th[16] = th[17] = 0;
		sum = csum_pseudo(pkt, (uint32_t)(thl + seg), IPPROTO_TCP);
		sum = csum_add(sum, th, thl);
		sum = csum_add(sum, data + off, seg);
		{
			uint16_t c = (uint16_t)~csum_fold(sum);

			memcpy(th + 16, &c, 2);
		}
		iov[0].iov_base = th;
		iov[0].iov_len = thl;
		iov[1].iov_base = (void *)(data + off);
		iov[1].iov_len = seg;
		tx_segment(u, sa, iov, 2, thl + seg, hl);
		if (dlen == 0)
			break;
	}
}

/* CHECKSUM_PARTIAL from the kernel: the field holds the pseudo-header sum;
 * finish it over csum_start..end. */
static int tx_finish_csum(const struct virtio_net_hdr *vh, uint8_t *pkt, size_t len)
{
	size_t start = vh->csum_start, at = start + vh->csum_offset;
	uint16_t c;

	if (!(vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		return 0;
	if (start >= len || at + 2 > len || (start & 1))
		return -EINVAL;
	c = (uint16_t)~csum_fold(csum_add(0, pkt + start, len - start));
	if (c == 0 && ip_proto(pkt) == IPPROTO_UDP)
		c = 0xffff;
	memcpy(pkt + at, &c, 2);
	return 0;
}

/* No SA for the peer yet: tell the engine (1/s) and keep a few packets. */
static void tx_hold(struct uesp *u, const uint8_t *pkt, size_t len)
{
	struct hip_hit dst;
	struct uesp_peer *p;

	u->tx_no_sa++;
	memcpy(dst.b, pkt + 24, sizeof(dst.b));
	if (!hip_hit_is_orchid(&dst))
		return;
	p = uesp_peer_find(u, &dst, true);
	if (!p)
		return;
	uesp_hold_packet(u, p, pkt, len);
	uesp_ev_acquire(u, p, pkt + 8);
}

/* An IPv4 datagram on hip0: to a peer's LSI (D-22; the TUN has our LSI
 * and the LSI range's route). BEET carries it on the peer's inner_v4 SA;
 * whole: put back together from fragments (sent alone, tx_big). */
static void tx_datagram4(struct uesp *u, const struct virtio_net_hdr *vh, uint8_t *pkt,
			 size_t len, bool whole)
{
	struct uesp_peer *p;
	struct hip_hit key, local;
	int rc = esp_ip4_check(pkt, len);

	if (rc) {
		if (rc == -EPROTONOSUPPORT)
			u->tx_v4_opts++;
		else
			u->tx_bad++;
		return;
	}
	uesp_lsi_key(&key, pkt + 16);
	p = uesp_peer_find(u, &key, false);
	if (vh->gso_type == VIRTIO_NET_HDR_GSO_NONE && tx_finish_csum(vh, pkt, len)) {
		u->tx_bad++;
		return;
	}
	if (!p || !p->sa) {
		u->tx_no_sa++;
		if (vh->gso_type != VIRTIO_NET_HDR_GSO_NONE)
			return;
		p = uesp_peer_find(u, &key, true);
		if (!p)
			return;
		uesp_hold_packet(u, p, pkt, len);
		uesp_lsi_key(&local, pkt + 12);
		uesp_ev_acquire(u, p, local.b);
		return;
	}
	/* BEET output check (App. B): only our LSI as source */
	if (memcmp(pkt + 12, &p->sa->out.lsi_src, 4)) {
		u->tx_v4_src++;
		return;
	}
	if (whole) {
		tx_big(u, p->sa, pkt, len);
		return;
	}
	if (vh->gso_type == VIRTIO_NET_HDR_GSO_NONE) {
		uesp_tx_inner(u, p->sa, pkt, len);
		return;
	}
	if ((vh->gso_type & ~VIRTIO_NET_HDR_GSO_ECN) != VIRTIO_NET_HDR_GSO_TCPV4) {
		u->tx_bad++;
		return;
	}
	tx_gso_tcp(u, p->sa, vh, pkt, len);
}

/* A fragment (the kernel fragmented a datagram over hip0's MTU): into
 * reassembly; the whole datagram then as any other. The kernel completes
 * checksums before it fragments, so fragments need no offload. */
static void tx_packet4(struct uesp *u, const struct virtio_net_hdr *vh, uint8_t *pkt,
		       size_t len)
{
	static const struct virtio_net_hdr none = { .gso_type = VIRTIO_NET_HDR_GSO_NONE };
	uint8_t *dgram = NULL;
	size_t dlen = 0;
	int rc;

	if (!uesp_frag_is(pkt, len)) {
		tx_datagram4(u, vh, pkt, len, false);
		return;
	}
	u->tx_v4_frag++;
	if (vh->gso_type != VIRTIO_NET_HDR_GSO_NONE || (vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)) {
		u->tx_bad++;
		return;
	}
	rc = uesp_frag_add(&u->frag, pkt, len, u->now_ns, &dgram, &dlen);
	if (rc == -EPROTONOSUPPORT)
		u->tx_v4_opts++;
	if (rc || !dgram)
		return;
	tx_datagram4(u, &none, dgram, dlen, true);
	uesp_frag_release(&u->frag, dgram);
}

static void tx_packet(struct uesp *u, uint8_t *buf, size_t n)
{
	struct virtio_net_hdr vh;
	struct uesp_peer *p;
	struct hip_hit dst;
	uint8_t *pkt = buf;
	size_t len = n;

	memset(&vh, 0, sizeof(vh));
	if (u->vnet) {
		if (n < sizeof(vh))
			return;
		memcpy(&vh, buf, sizeof(vh));
		pkt = buf + sizeof(vh);
		len = n - sizeof(vh);
	}
	if (len >= IP4_HDR && (pkt[0] >> 4) == 4) {
		tx_packet4(u, &vh, pkt, len);
		return;
	}
	if (len < IP6_HDR || (pkt[0] >> 4) != 6) {
		u->tx_bad++;            /* hip0 carries IPv6 between HITs, IPv4 between LSIs */
		return;
	}
	memcpy(dst.b, pkt + 24, sizeof(dst.b));
	p = uesp_peer_find(u, &dst, false);
	if (vh.gso_type == VIRTIO_NET_HDR_GSO_NONE && tx_finish_csum(&vh, pkt, len)) {
		u->tx_bad++;
		return;
	}
	if (!p || !p->sa) {
		if (vh.gso_type == VIRTIO_NET_HDR_GSO_NONE)
			tx_hold(u, pkt, len);
		else
			u->tx_no_sa++;
		return;
	}
	if (vh.gso_type == VIRTIO_NET_HDR_GSO_NONE) {
		uesp_tx_inner(u, p->sa, pkt, len);
		return;
	}
	/* BEET output check (App. B) for the super-packet as a whole. */
	if ((vh.gso_type & ~VIRTIO_NET_HDR_GSO_ECN) != VIRTIO_NET_HDR_GSO_TCPV6 ||
	    memcmp(pkt + 8, p->sa->out.inner_src.b, 16)) {
		u->tx_bad++;
		return;
	}
	tx_gso_tcp(u, p->sa, &vh, pkt, len);
}

/* Read the TUN until it is empty (or for a while); returns packets read. */
static unsigned tun_drain(struct uesp *u)
{
	unsigned k;
	ssize_t n;

	u->now_ns = uesp_io_now();
	for (k = 0; k < TUN_READS_PER_WAKE; k++) {
		n = read(u->tun, u->tun_buf, sizeof(u->tun_buf));
		if (n <= 0)
			break;
		tx_packet(u, u->tun_buf, (size_t)n);
	}
	uesp_tx_flush(u);
	return k;
}

/* ---- in: ESP -> TUN, with TCP coalescing ------------------------------ */

enum { RX_SLOT = UESP_PKT_MAX - UESP_RX_HEADROOM };    /* raw ESP in one slot */

/* Where slot k's packet continues when longer than RX_SLOT: the outer
 * packet the kernel reassembled from fragments (a reassembled inner
 * datagram, uesp_frag.h; up to 64 KB). */
static uint8_t *rx_big(struct uesp *u, unsigned k)
{
	return u->rx_big + (size_t)k * UESP_RX_BIG;
}

static void tun_write(struct uesp *u, uint8_t *vnet_at, size_t len)
{
	if (write(u->tun, vnet_at, len) < 0)
		u->tun_write_err++;
}

void uesp_gro_flush(struct uesp *u, struct uesp_gro *g)
{
	struct virtio_net_hdr vh;
	uint8_t *ip = u->gro_buf + sizeof(vh);
	size_t plen, hl = g->hl;
	uint16_t c;

	if (!g->len)
		return;
	memset(&vh, 0, sizeof(vh));
	if (g->segs > 1) {
		plen = g->len - hl;
		if (hl == IP4_HDR) {
			/* the merged packet's Total Length, its header checksum */
			hip_wr16(ip + 2, (uint16_t)g->len);
			ip[10] = ip[11] = 0;
			c = (uint16_t)~csum_fold(csum_add(0, ip, IP4_HDR));
			memcpy(ip + 10, &c, 2);
		} else {
			ip[4] = (uint8_t)(plen >> 8);
			ip[5] = (uint8_t)plen;
		}
		/* CHECKSUM_PARTIAL: the field holds the pseudo-header sum. */
		c = csum_fold(csum_pseudo(ip, (uint32_t)plen, IPPROTO_TCP));
		memcpy(ip + hl + 16, &c, 2);
		vh.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		vh.gso_type = hl == IP4_HDR ? VIRTIO_NET_HDR_GSO_TCPV4 : VIRTIO_NET_HDR_GSO_TCPV6;
		vh.hdr_len = (uint16_t)(hl + g->thl);
		vh.gso_size = (uint16_t)g->mss;
		vh.csum_start = (uint16_t)hl;
		vh.csum_offset = 16;
		u->rx_coalesced += g->segs;
	}
	memcpy(u->gro_buf, &vh, sizeof(vh));
	tun_write(u, u->gro_buf, sizeof(vh) + g->len);
	g->len = 0;
	g->segs = 0;
}

/* Can this TCP segment extend the pending one? Same family, addresses (the
 * SA fixes them), hop limit / TTL, ports, ack, window and options; the next
 * sequence number; only ACK (and PSH, which ends it) set; not longer than
 * the first. */
static bool gro_fits(struct uesp *u, const struct uesp_gro *g, const uint8_t *ip, size_t hl,
		     size_t thl, size_t plen)
{
	const uint8_t *a = u->gro_buf + sizeof(struct virtio_net_hdr), *b = ip;

	if (!g->len || g->closed || hl != g->hl || thl != g->thl || plen > g->mss)
		return false;
	if (g->len + plen > 65535)
		return false;
	if (hl == IP4_HDR ? memcmp(a + 12, b + 12, 8) || a[8] != b[8] || a[1] != b[1]
			  : memcmp(a + 8, b + 8, 32) || a[7] != b[7])
		return false;
	a += hl;
	b += hl;
	if (hip_rd32(b + 4) != g->next_seq || memcmp(a, b, 4) || memcmp(a + 8, b + 8, 5) ||
	    memcmp(a + 14, b + 14, 2) || memcmp(a + 18, b + 18, thl - 18))
		return false;
	return true;
}

/* ip: an inner packet esp.c rebuilt (IPv6, or IPv4 with IHL 5). */
void uesp_rx_deliver(struct uesp *u, struct uesp_gro *g, uint8_t *ip, size_t len)
{
	size_t hl = ip_hl(ip), thl, plen;
	uint8_t *tcp = ip + hl, *dst;
	uint8_t flags;

	if (!u->vnet) {
		tun_write(u, ip, len);
		return;
	}
	if (ip_proto(ip) != IPPROTO_TCP || len < hl + 20)
		goto single;
	thl = (size_t)(tcp[12] >> 4) * 4;
	flags = tcp[13];
	if (thl < 20 || hl + thl > len || len == hl + thl ||
	    (flags & ~(TCP_ACK | TCP_PSH)) || !(flags & TCP_ACK))
		goto single;
	plen = len - hl - thl;
	if (gro_fits(u, g, ip, hl, thl, plen)) {
		dst = u->gro_buf + sizeof(struct virtio_net_hdr);
		memcpy(dst + g->len, tcp + thl, plen);
		g->len += plen;
		g->segs++;
		g->next_seq += (uint32_t)plen;
		if (flags & TCP_PSH) {
			dst[hl + 13] |= TCP_PSH;
			g->closed = true;
		}
		if (plen < g->mss)
			g->closed = true;
		return;
	}
	uesp_gro_flush(u, g);
	memcpy(u->gro_buf + sizeof(struct virtio_net_hdr), ip, len);
	g->len = len;
	g->hl = hl;
	g->thl = thl;
	g->mss = plen;
	g->segs = 1;
	g->next_seq = hip_rd32(tcp + 4) + (uint32_t)plen;
	g->closed = (flags & TCP_PSH) != 0;
	return;
single:
	uesp_gro_flush(u, g);
	memset(ip - sizeof(struct virtio_net_hdr), 0, sizeof(struct virtio_net_hdr));
	tun_write(u, ip - sizeof(struct virtio_net_hdr), len + sizeof(struct virtio_net_hdr));
}

/* IPv6 raw ESP: the hop limit and our address (IPV6_RECVHOPLIMIT,
 * IPV6_RECVPKTINFO); *have_dst false when the kernel gave none. */
static uint8_t rx_v6_info(const struct msghdr *h, struct hip_addr *dst, bool *have_dst)
{
	uint8_t hop = 64;

	*have_dst = false;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR((struct msghdr *)h, c)) {
		if (c->cmsg_level != IPPROTO_IPV6)
			continue;
		if (c->cmsg_type == IPV6_HOPLIMIT && c->cmsg_len >= CMSG_LEN(sizeof(int))) {
			int v;

			memcpy(&v, CMSG_DATA(c), sizeof(v));
			hop = (uint8_t)v;
		} else if (c->cmsg_type == IPV6_PKTINFO &&
			   c->cmsg_len >= CMSG_LEN(sizeof(struct in6_pktinfo))) {
			struct in6_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			hip_addr_from_v6(dst, &pi.ipi6_addr);
			*have_dst = true;
		}
	}
	return hop;
}

void uesp_rx_esp(struct uesp *u, struct uesp_gro *g, uint8_t *esp, size_t elen, uint8_t hop,
		 const struct hip_addr *src, const struct hip_addr *dst, uint16_t sport)
{
	uint8_t *inner;
	size_t inner_len;
	struct uesp_sa *sa;
	int rc;

	if (elen < ESP_HDR_LEN) {
		u->rx_bad++;
		return;
	}
	sa = uesp_sa_find(u, hip_rd32(esp), true);
	if (!sa) {
		u->rx_no_sa++;          /* E-11: silent drop (the engine may react) */
		if (u->dp.ev.no_sa)
			u->dp.ev.no_sa(u->dp.ev.arg, src, dst, sport, esp, elen);
		return;
	}
	rc = esp_decap(&sa->in, esp, elen, hop, &inner, &inner_len, NULL);
	if (rc == -EALREADY || rc == -ESTALE) {
		sa->st.replay_drops++;
		return;
	}
	if (rc == -EBADMSG) {
		sa->st.auth_drops++;
		return;
	}
	if (rc) {
		u->rx_bad++;
		return;
	}
	uesp_account(u, sa, inner_len);
	uesp_ev_traffic(u, sa);
	/* ESP in UDP, authentic, from another port: the peer's NAT rebound
	 * (reported once; the engine moves the SAs there, RFC 9028 §5.1) */
	if (src && sport && sa->encap_sport && sport != sa->encap_sport &&
	    !memcmp(src, &sa->outer_src, sizeof(*src))) {
		sa->encap_sport = sport;
		if (u->dp.ev.udp_peer)
			u->dp.ev.udp_peer(u->dp.ev.arg, sa->in.spi, src, sport);
	}
	uesp_rx_deliver(u, g, inner, inner_len);
}

static void rx_packet(struct uesp *u, struct uesp_gro *g, unsigned k, bool v4)
{
	uint8_t *buf = u->rx_buf[k] + UESP_RX_HEADROOM;
	size_t len = u->rx_msg[k].msg_len, off = 0, elen = len;
	struct hip_addr src, dst;
	bool have_dst = true;
	uint8_t hop = 64;

	if (u->rx_msg[k].msg_hdr.msg_flags & MSG_TRUNC) {
		u->rx_bad++;
		return;
	}
	if (len > RX_SLOT) {
		/* one piece: the head before its tail (the headroom stays) */
		u->rx_big_pkts++;
		memcpy(rx_big(u, k) + UESP_RX_HEADROOM, buf, RX_SLOT);
		buf = rx_big(u, k) + UESP_RX_HEADROOM;
	}

	if (v4) {
		if (esp_outer_parse(buf, len, true, &off, &elen, &hop, &src, &dst)) {
			u->rx_bad++;
			return;
		}
	} else {
		hop = rx_v6_info(&u->rx_msg[k].msg_hdr, &dst, &have_dst);
		hip_addr_from_v6(&src, &u->rx_name[k].sin6_addr);
	}
	/* raw ESP: the addresses only tell the engine about ESP it has no SA for */
	uesp_rx_esp(u, g, buf + off, elen, hop, &src, have_dst ? &dst : NULL, 0);
}

static unsigned raw_drain(struct uesp *u, int fd)
{
	bool v4 = fd == u->raw4;
	struct uesp_gro g = { 0 };
	unsigned total = 0;
	int n;

	for (int round = 0; round < RAW_BATCHES_PER_WAKE; round++) {
		for (unsigned k = 0; k < UESP_BATCH; k++) {
			struct msghdr *h = &u->rx_msg[k].msg_hdr;

			u->rx_iov[k][0].iov_base = u->rx_buf[k] + UESP_RX_HEADROOM;
			u->rx_iov[k][0].iov_len = RX_SLOT;
			u->rx_iov[k][1].iov_base = rx_big(u, k) + UESP_RX_HEADROOM + RX_SLOT;
			u->rx_iov[k][1].iov_len = UESP_RX_BIG - UESP_RX_HEADROOM - RX_SLOT;
			memset(h, 0, sizeof(*h));
			h->msg_iov = u->rx_iov[k];
			h->msg_iovlen = 2;
			h->msg_control = u->rx_ctl[k];
			h->msg_controllen = sizeof(u->rx_ctl[k]);
			h->msg_name = &u->rx_name[k];
			h->msg_namelen = sizeof(u->rx_name[k]);
		}
		n = recvmmsg(fd, u->rx_msg, UESP_BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			break;
		u->now_ns = uesp_io_now();
		for (int k = 0; k < n; k++)
			rx_packet(u, &g, (unsigned)k, v4);
		uesp_gro_flush(u, &g);
		total += (unsigned)n;
		if (n < UESP_BATCH)
			break;
	}
	return total;
}

void uesp_tun_readable(struct hip_loop *loop, int fd, uint32_t events, void *arg)
{
	struct uesp *u = arg;

	(void)loop;
	(void)fd;
	(void)events;
	tun_drain(u);
}

void uesp_raw_readable(struct hip_loop *loop, int fd, uint32_t events, void *arg)
{
	struct uesp *u = arg;

	(void)loop;
	(void)events;
	raw_drain(u, fd);
}
