/*
 * xfrm_event.c - what the kernel tells the kernel datapath on its multicast
 * groups: ACQUIRE (a packet to a HIT without SAs, or IPv4 to an LSI
 * without SAs, D-22), EXPIRE (an SA's lifetime) and MAPPING (ESP in UDP
 * that authenticated on one of our inbound SAs came from another address
 * or port than the SA's: the peer's NAT mapping changed), passed on to the engine's datapath_events; and the
 * larval-drop switch that keeps the triggering packet.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hip_wire.h"
#include "xfrm_int.h"

int xfrm_dp_event_fd(const struct datapath *dp)
{
	const struct xfrm_dp *x = (const struct xfrm_dp *)dp;

	return x->ep >= 0 ? x->ep : x->ev_fd;
}

/* Does the ACQUIRE come from one of our policies (templates with our
 * reqid)? Another IPsec daemon's ACQUIREs are not ours to answer. */
static bool acquire_is_ours(const struct xfrm_dp *x, const struct nlmsghdr *h)
{
	size_t off = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct xfrm_user_acquire));
	size_t end = h->nlmsg_len;
	struct xfrm_user_tmpl t;
	struct nlattr a;

	while (off + NLA_HDRLEN <= end) {
		memcpy(&a, (const uint8_t *)h + off, sizeof(a));
		if (a.nla_len < NLA_HDRLEN || off + a.nla_len > end)
			return false;
		if (a.nla_type == XFRMA_TMPL && a.nla_len >= NLA_HDRLEN + sizeof(t)) {
			memcpy(&t, (const uint8_t *)h + off + NLA_HDRLEN, sizeof(t));
			return t.reqid == x->reqid;
		}
		off += NLA_ALIGN(a.nla_len);
	}
	return false;
}

/* XFRM_MSG_MAPPING. The kernel sends one for every such packet until the
 * SA's encapsulation names the new port, and nothing limits the packets
 * (an on-path attacker may rewrite the UDP source of authentic ESP): the
 * same mapping again within XFRM_MAP_REPEAT_MS is dropped here, and at
 * most XFRM_MAP_PER_S others a second pass. */
static void mapping_one(struct xfrm_dp *x, const struct nlmsghdr *h)
{
	const struct datapath_events *ev = &x->dp.ev;
	struct xfrm_user_mapping m;
	struct xfrm_map_last cur;
	uint64_t now = hipd_now_ns();
	char a[INET6_ADDRSTRLEN];
	unsigned suppressed;
	struct in_addr a4;
	struct in6_addr a6;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(m)))
		return;
	memcpy(&m, NLMSG_DATA(h), sizeof(m));
	if (m.reqid != x->reqid || m.id.proto != IPPROTO_ESP || !m.new_sport ||
	    ntohl(m.id.spi) < HIP_SPI_MIN)
		return;
	memset(&cur, 0, sizeof(cur));
	if (m.id.family == AF_INET) {
		memcpy(&a4, &m.new_saddr.a4, sizeof(a4));
		hip_addr_from_v4(&cur.saddr, &a4);
	} else if (m.id.family == AF_INET6) {
		memcpy(&a6, m.new_saddr.a6, sizeof(a6));
		hip_addr_from_v6(&cur.saddr, &a6);
	} else {
		return;
	}
	cur.spi = ntohl(m.id.spi);
	cur.sport = ntohs(m.new_sport);
	cur.at_ns = now;
	if (x->map_last.at_ns && cur.spi == x->map_last.spi && cur.sport == x->map_last.sport &&
	    !memcmp(&cur.saddr, &x->map_last.saddr, sizeof(cur.saddr)) &&
	    now - x->map_last.at_ns < (uint64_t)XFRM_MAP_REPEAT_MS * 1000000u)
		return;
	if (!log_ratelimit_check(&x->map_rl, now, &suppressed))
		return;
	x->map_last = cur;
	log_info("xfrm: XFRM_MSG_MAPPING: ESP in UDP on SA 0x%08x from %s port %u (the SA's: %u)",
		 cur.spi, hip_addr_to_str(&cur.saddr, a, sizeof(a)), cur.sport,
		 ntohs(m.old_sport));
	if (ev->udp_peer)
		ev->udp_peer(ev->arg, cur.spi, &cur.saddr, cur.sport);
}

static void event_one(struct xfrm_dp *x, const struct nlmsghdr *h)
{
	const struct datapath_events *ev = &x->dp.ev;

	if (h->nlmsg_type == XFRM_MSG_ACQUIRE) {
		struct xfrm_user_acquire acq;
		struct hip_hit local, peer;

		if (h->nlmsg_len < NLMSG_LENGTH(sizeof(acq)))
			return;
		memcpy(&acq, NLMSG_DATA(h), sizeof(acq));
		if ((acq.sel.family != AF_INET6 && acq.sel.family != AF_INET) ||
		    !acquire_is_ours(x, h))
			return;
		if (acq.sel.family == AF_INET) {
			/* IPv4 from our LSI to a peer's (D-22) */
			struct in_addr l4, p4;

			memcpy(&l4.s_addr, &acq.sel.saddr.a4, sizeof(l4.s_addr));
			memcpy(&p4.s_addr, &acq.sel.daddr.a4, sizeof(p4.s_addr));
			if (ev->acquire_lsi && l4.s_addr && p4.s_addr)
				ev->acquire_lsi(ev->arg, &l4, &p4);
			return;
		}
		memcpy(local.b, acq.sel.saddr.a6, sizeof(local.b));
		memcpy(peer.b, acq.sel.daddr.a6, sizeof(peer.b));
		if (ev->acquire)
			ev->acquire(ev->arg, &local, &peer);
	} else if (h->nlmsg_type == XFRM_MSG_EXPIRE) {
		struct xfrm_user_expire e;

		if (h->nlmsg_len < NLMSG_LENGTH(sizeof(e)))
			return;
		memcpy(&e, NLMSG_DATA(h), sizeof(e));
		if (e.state.reqid != x->reqid || e.state.id.proto != IPPROTO_ESP)
			return;
		if (ev->expire)
			ev->expire(ev->arg, ntohl(e.state.id.spi), e.hard != 0);
	} else if (h->nlmsg_type == XFRM_MSG_MAPPING) {
		mapping_one(x, h);
	}
}

static void netlink_events_read(struct xfrm_dp *x)
{
	uint8_t buf[8192] __attribute__((aligned(8)));
	int i;

	for (i = 0; i < XFRM_EV_BUDGET; i++) {
		const struct nlmsghdr *h;
		ssize_t r = recv(x->ev_fd, buf, sizeof(buf), MSG_DONTWAIT);
		ssize_t left;   /* signed: see xfrm_nl_talk */

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			break;
		if (r < 0) {
			/* ENOBUFS: the kernel dropped events for us; an ACQUIRE
			 * comes again with the next packet after the larval SA. */
			log_ratelimited(&x->ev_log, LOG_WARNING, "xfrm events: %s",
					strerror(errno));
			break;
		}
		left = r;
		for (h = (const struct nlmsghdr *)buf; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left))
			event_one(x, h);
	}
}

/* ev_fd alone, or the epoll of ev_fd and the no-SA ESP sockets (xfrm.c). */
void xfrm_dp_event_read(struct datapath *dp)
{
	struct xfrm_dp *x = to_x(dp);
	struct epoll_event e[3];
	int n, i;

	if (x->ep < 0) {
		netlink_events_read(x);
		return;
	}
	n = epoll_wait(x->ep, e, 3, 0);
	for (i = 0; i < n; i++) {
		if (e[i].data.fd == x->ev_fd)
			netlink_events_read(x);
		else
			xfrm_nosa_read(&x->nosa, e[i].data.fd, &x->dp.ev);
	}
}
int xfrm_set_larval_drop(int value)
{
	const char *path = "/proc/sys/net/core/xfrm_larval_drop";
	char v[4];
	int fd, ret = 0, len;

	len = snprintf(v, sizeof(v), "%d\n", value ? 1 : 0);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, v, (size_t)len) != len)
		ret = errno ? -errno : -EIO;
	close(fd);
	return ret;
}
