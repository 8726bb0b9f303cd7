/*
 * uesp_udp.c - ESP in UDP for the userspace datapath (RFC 3948; RFC 9028
 * §5.1: one UDP flow per peer on hipd's port, HIP control after a 32-bit
 * zero marker, ESP from the SPI). The engine's UDP sockets are read here,
 * not by the engine, so ESP is batched: UDP_GRO hands many ESP packets of
 * one flow over in one datagram, cut at the segment size the kernel
 * reports; the TCP segments inside are coalesced into one GSO write to
 * hip0 as on the raw path. HIP control goes to the engine (datapath
 * events), NAT keepalives (0xFF) are counted. Out, a run of equal-sized ESP
 * packets to one peer leaves in one sendmsg with UDP_SEGMENT (uesp_io.c),
 * as wireguard-go does with its packets.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "base/base.h"
#include "net/net.h"
#include "uesp_int.h"

#ifndef UDP_GRO
#define UDP_GRO 104
#endif

enum { UDP_READS_PER_WAKE = 16 };

void uesp_udp_datagram(struct uesp *u, struct uesp_gro *g, uint8_t *p, size_t len, size_t seg,
		       const struct hip_udp_rx *rx)
{
	size_t off;

	switch (hip_udp_classify(p, len)) {
	case HIP_UDP_HIP:
		if (u->dp.ev.hip_udp)
			u->dp.ev.hip_udp(u->dp.ev.arg, p + HIP_UDP_MARKER, len - HIP_UDP_MARKER,
					 &rx->src, &rx->dst, rx->sport);
		return;
	case HIP_UDP_KEEPALIVE:
		u->udp_keepalives++;
		return;
	case HIP_UDP_BAD:
		u->rx_bad++;
		return;
	case HIP_UDP_ESP:
		break;
	}
	/* UDP_GRO: segments of seg bytes, the last one shorter. Decrypted in
	 * place, one after the other: a segment's inner header is rebuilt in
	 * the tail of the one before, already delivered (copied). */
	if (!seg || seg > len)
		seg = len;
	for (off = 0; off < len; off += seg) {
		size_t n = len - off < seg ? len - off : seg;

		if (off)
			u->udp_gro_segs++;
		uesp_rx_esp(u, g, p + off, n, 64, &rx->src, &rx->dst, rx->sport);
	}
}

struct uesp_udp_rx {
	struct mmsghdr msg[UESP_UDP_RX_SLOTS];
	struct iovec iov[UESP_UDP_RX_SLOTS];
	union {
		struct sockaddr_in v4;
		struct sockaddr_in6 v6;
	} from[UESP_UDP_RX_SLOTS];
	union {
		char buf[CMSG_SPACE(sizeof(struct in6_pktinfo)) + CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl[UESP_UDP_RX_SLOTS];
	uint8_t buf[UESP_UDP_RX_SLOTS][UESP_UDP_RX_MAX];
};

/* recvmmsg batches; each datagram one ESP packet, or many (UDP_GRO). */
static void udp_drain(struct uesp *u, int fd)
{
	struct uesp_udp_rx *r = u->udp_rx;
	struct uesp_gro g = { 0 };
	struct hip_udp_rx rx;
	unsigned k;
	size_t seg;
	int i, n;

	for (i = 0; i < UDP_READS_PER_WAKE; i++) {
		for (k = 0; k < UESP_UDP_RX_SLOTS; k++) {
			struct msghdr *h = &r->msg[k].msg_hdr;

			r->iov[k].iov_base = r->buf[k] + UESP_RX_HEADROOM;
			r->iov[k].iov_len = UESP_UDP_RX_MAX - UESP_RX_HEADROOM;
			memset(h, 0, sizeof(*h));
			h->msg_name = &r->from[k];
			h->msg_namelen = sizeof(r->from[k]);
			memset(&r->from[k], 0, sizeof(r->from[k]));
			h->msg_iov = &r->iov[k];
			h->msg_iovlen = 1;
			h->msg_control = r->ctl[k].buf;
			h->msg_controllen = sizeof(r->ctl[k].buf);
		}
		n = recvmmsg(fd, r->msg, UESP_UDP_RX_SLOTS, MSG_DONTWAIT, NULL);
		if (n <= 0)
			break;
		u->now_ns = uesp_io_now();
		for (k = 0; k < (unsigned)n; k++) {
			if (r->msg[k].msg_hdr.msg_flags & MSG_TRUNC) {
				u->rx_bad++;
				continue;
			}
			if (hip_udp_meta(&r->msg[k].msg_hdr, &rx, &seg) < 0 || !rx.sport)
				continue;
			uesp_udp_datagram(u, &g, r->buf[k] + UESP_RX_HEADROOM, r->msg[k].msg_len, seg, &rx);
		}
		if (n < UESP_UDP_RX_SLOTS)
			break;
	}
	uesp_gro_flush(u, &g);
}

static void udp_readable(struct hip_loop *loop, int fd, uint32_t events, void *arg)
{
	(void)loop;
	(void)events;
	udp_drain(arg, fd);
}

int uesp_udp_attach(struct uesp *u)
{
	int fds[2] = { u->udp4, u->udp6 }, one = 1, i, rc;

	if (u->udp4 < 0 && u->udp6 < 0)
		return 0;
	u->udp_rx = malloc(sizeof(*u->udp_rx));
	if (!u->udp_rx)
		return -ENOMEM;
	for (i = 0; i < 2; i++) {
		if (fds[i] < 0)
			continue;
		/* best effort: without it each ESP packet is one datagram */
		(void)setsockopt(fds[i], SOL_UDP, UDP_GRO, &one, sizeof(one));
		rc = hip_loop_fd_add(u->loop, fds[i], EPOLLIN, udp_readable, u);
		if (rc < 0)
			return rc;
	}
	u->udp_attached = true;
	u->udp_gso = true;
	return 0;
}

void uesp_udp_detach(struct uesp *u)
{
	if (u->udp_attached) {
		if (u->udp4 >= 0)
			hip_loop_fd_remove(u->loop, u->udp4);
		if (u->udp6 >= 0)
			hip_loop_fd_remove(u->loop, u->udp6);
	}
	u->udp_attached = false;
	free(u->udp_rx);
	u->udp_rx = NULL;
}
