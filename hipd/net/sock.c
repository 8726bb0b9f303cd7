/*
 * sock.c - raw HIP sockets, IP protocol 139 (RFC 7401 §5.1).
 *
 * The kernel builds the IP header on send; the source address is set per
 * packet with IP_PKTINFO / IPV6_PKTINFO (multihoming, replies from the
 * address the I1 reached). IPV6_CHECKSUM stays off: the HIP checksum is ours
 * (hip_packet_set_checksum). IPv4 may fragment (RFC 7401 §5.1.3: HIP over
 * IPv4 relies on fragmentation for packets above the path MTU), so
 * IP_PMTUDISC_DONT; IPv6 uses the default path MTU and the kernel fragments
 * at the source (IPV6_DONTFRAG 0).
 *
 * On receive an IPv4 raw socket delivers the IP header: it is stripped by
 * its IHL after checking it; IPv6 raw sockets deliver the payload only.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hip_wire.h"
#include "sock.h"

enum {
	IPV4_HDR_MIN   = 20,
	SOCK_RCVBUF    = 1 << 20,  /* absorb I1 bursts between loop turns */
	PICK_PORT      = 10500,    /* any port: a UDP connect sends nothing */
};

static void sock_tune(int fd)
{
	int v = SOCK_RCVBUF;

	/* Best effort: the default still works, only smaller bursts fit. */
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
}

int hip_sock_open4(void)
{
	int fd, on = 1, pmtu = IP_PMTUDISC_DONT, ret;

	fd = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, HIP_PROTO);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on)) != 0 ||
	    setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof(pmtu)) != 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	sock_tune(fd);
	return fd;
}

int hip_sock_open6(void)
{
	int fd, on = 1, off = 0, no_csum = -1, ret;

	fd = socket(AF_INET6, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, HIP_PROTO);
	if (fd < 0)
		return -errno;
	/* (IPV6_V6ONLY does not apply: raw IPv6 sockets never see IPv4.) */
	if (setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on, sizeof(on)) != 0 ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_CHECKSUM, &no_csum, sizeof(no_csum)) != 0 ||
	    /* 0 is the default: where the option is unknown (qemu-user) nothing changes */
	    (setsockopt(fd, IPPROTO_IPV6, IPV6_DONTFRAG, &off, sizeof(off)) != 0 &&
	     errno != ENOPROTOOPT)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	sock_tune(fd);
	return fd;
}

int hip_sock_ipv4_payload(const uint8_t *dgram, size_t n, size_t *off, size_t *len)
{
	size_t ihl, total;

	if (!dgram || n < IPV4_HDR_MIN || dgram[0] >> 4 != 4)
		return -EMSGSIZE;
	ihl = (size_t)(dgram[0] & 0x0f) * 4;
	total = hip_rd16(dgram + 2);
	if (ihl < IPV4_HDR_MIN || ihl > n || total < ihl || total > n)
		return -EMSGSIZE;
	/* Linux trims link padding before raw delivery, so total == n; a
	 * shorter Total Length still wins over trailing bytes. */
	*off = ihl;
	*len = total - ihl;
	return 0;
}

int hip_sock_recv(int fd, uint8_t *buf, size_t cap, struct hip_rx *rx)
{
	union {
		struct sockaddr_in v4;
		struct sockaddr_in6 v6;
	} from;
	union {
		char buf[CMSG_SPACE(sizeof(struct in6_pktinfo)) +
			 CMSG_SPACE(sizeof(struct in_pktinfo))];
		struct cmsghdr align;
	} ctrl;
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	struct msghdr msg = {
		.msg_name = &from, .msg_namelen = sizeof(from),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctrl.buf, .msg_controllen = sizeof(ctrl.buf),
	};
	struct cmsghdr *cm;
	size_t off = 0, len;
	ssize_t n;
	int ret;

	if (!buf || !rx)
		return -EINVAL;
	memset(rx, 0, sizeof(*rx));
	memset(&from, 0, sizeof(from));
	n = recvmsg(fd, &msg, MSG_DONTWAIT);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
		return -EMSGSIZE;
	len = (size_t)n;

	if (from.v4.sin_family == AF_INET) {
		struct in_addr a;

		ret = hip_sock_ipv4_payload(buf, len, &off, &len);
		if (ret < 0)
			return ret;
		/* The addresses the checksum pseudo-header uses: the header's. */
		memcpy(&a, buf + 12, 4);
		hip_addr_from_v4(&rx->src, &a);
		memcpy(&a, buf + 16, 4);
		hip_addr_from_v4(&rx->dst, &a);
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			struct in_pktinfo pi;

			if (cm->cmsg_level != IPPROTO_IP || cm->cmsg_type != IP_PKTINFO)
				continue;
			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			rx->ifindex = pi.ipi_ifindex;
		}
	} else if (from.v6.sin6_family == AF_INET6) {
		bool have_dst = false;

		hip_addr_from_v6(&rx->src, &from.v6.sin6_addr);
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			struct in6_pktinfo pi;

			if (cm->cmsg_level != IPPROTO_IPV6 || cm->cmsg_type != IPV6_PKTINFO)
				continue;
			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			hip_addr_from_v6(&rx->dst, &pi.ipi6_addr);
			rx->ifindex = (int)pi.ipi6_ifindex;
			have_dst = true;
		}
		/* Without the destination the checksum cannot be checked. */
		if (!have_dst)
			return -EIO;
	} else {
		return -EAFNOSUPPORT;
	}
	/* Only oversize is an error here; a datagram shorter than a HIP
	 * header is handed on, so the engine counts it as a bad length, not
	 * as oversize. */
	if (len > HIP_MAX_PACKET)
		return -EMSGSIZE;
	rx->buf = buf + off;
	rx->len = len;
	return 0;
}

static bool addr_unspecified(const struct hip_addr *a)
{
	static const uint8_t zero[16];

	if (hip_addr_is_v4(a))
		return !memcmp(a->in6.s6_addr + 12, zero, 4);
	return !memcmp(a->in6.s6_addr, zero, 16);
}

int hip_sock_send(int fd4, int fd6, const uint8_t *pkt, size_t len,
		  const struct hip_addr *src, const struct hip_addr *dst)
{
	if (!pkt || !dst || len < HIP_HDR_LEN || len > HIP_MAX_PACKET)
		return -EINVAL;
	return hip_sock_sendto(hip_addr_is_v4(dst) ? fd4 : fd6, pkt, len, src, dst);
}

int hip_sock_sendto(int fd, const void *buf, size_t len, const struct hip_addr *src,
		    const struct hip_addr *dst)
{
	union {
		struct sockaddr_in v4;
		struct sockaddr_in6 v6;
	} to;
	union {
		char buf[CMSG_SPACE(sizeof(struct in6_pktinfo))];
		struct cmsghdr align;
	} ctrl;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	bool v4;
	ssize_t n;

	if (!buf || !dst)
		return -EINVAL;
	v4 = hip_addr_is_v4(dst);
	if (src && hip_addr_is_v4(src) != v4)
		return -EINVAL;
	if (fd < 0)
		return -EAFNOSUPPORT;
	memset(&to, 0, sizeof(to));
	memset(&ctrl, 0, sizeof(ctrl));
	if (v4) {
		to.v4.sin_family = AF_INET;
		to.v4.sin_addr = hip_addr_v4(dst);
		msg.msg_namelen = sizeof(to.v4);
	} else {
		to.v6.sin6_family = AF_INET6;
		to.v6.sin6_addr = dst->in6;
		msg.msg_namelen = sizeof(to.v6);
	}
	msg.msg_name = &to;
	if (src && !addr_unspecified(src)) {
		msg.msg_control = ctrl.buf;
		msg.msg_controllen = v4 ? CMSG_SPACE(sizeof(struct in_pktinfo))
					: CMSG_SPACE(sizeof(struct in6_pktinfo));
		cm = CMSG_FIRSTHDR(&msg);
		if (v4) {
			struct in_pktinfo pi = { 0 };

			pi.ipi_spec_dst = hip_addr_v4(src);   /* the source address */
			cm->cmsg_level = IPPROTO_IP;
			cm->cmsg_type = IP_PKTINFO;
			cm->cmsg_len = CMSG_LEN(sizeof(pi));
			memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
		} else {
			struct in6_pktinfo pi = { 0 };

			pi.ipi6_addr = src->in6;
			cm->cmsg_level = IPPROTO_IPV6;
			cm->cmsg_type = IPV6_PKTINFO;
			cm->cmsg_len = CMSG_LEN(sizeof(pi));
			memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
		}
	}
	n = sendmsg(fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return (size_t)n == len ? 0 : -EIO;
}

int hip_sock_pick_source(const struct hip_addr *dst, struct hip_addr *src)
{
	union {
		struct sockaddr_in v4;
		struct sockaddr_in6 v6;
	} sa;
	socklen_t sl;
	int fd, ret;
	bool v4;

	if (!dst || !src)
		return -EINVAL;
	v4 = hip_addr_is_v4(dst);
	memset(&sa, 0, sizeof(sa));
	if (v4) {
		sa.v4.sin_family = AF_INET;
		sa.v4.sin_port = htons(PICK_PORT);
		sa.v4.sin_addr = hip_addr_v4(dst);
		sl = sizeof(sa.v4);
	} else {
		sa.v6.sin6_family = AF_INET6;
		sa.v6.sin6_port = htons(PICK_PORT);
		sa.v6.sin6_addr = dst->in6;
		sl = sizeof(sa.v6);
	}
	fd = socket(v4 ? AF_INET : AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* connect() on UDP only routes: the kernel picks the source address. */
	if (connect(fd, (struct sockaddr *)&sa, sl) != 0) {
		ret = -errno;
		goto out;
	}
	sl = sizeof(sa);
	if (getsockname(fd, (struct sockaddr *)&sa, &sl) != 0) {
		ret = -errno;
		goto out;
	}
	if (v4)
		hip_addr_from_v4(src, &sa.v4.sin_addr);
	else
		hip_addr_from_v6(src, &sa.v6.sin6_addr);
	ret = 0;
out:
	close(fd);
	return ret;
}
