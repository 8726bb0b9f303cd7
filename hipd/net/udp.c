/*
 * udp.c - the UDP sockets of HIP and ESP over UDP (udp.h): open, receive
 * with both addresses and the sender's port, send from a chosen source.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hip_wire.h"
#include "udp.h"

enum { UDP_RCVBUF = 4 << 20, UDP_SNDBUF = 4 << 20 };

#ifndef UDP_GRO
#define UDP_GRO 104
#endif

int hip_udp_open(int family, uint16_t port)
{
	union {
		struct sockaddr_in v4;
		struct sockaddr_in6 v6;
	} sa;
	int fd, on = 1, buf = UDP_RCVBUF, sbuf = UDP_SNDBUF, ret;
	socklen_t sl;

	if (family != AF_INET && family != AF_INET6)
		return -EAFNOSUPPORT;
	fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
	if (fd < 0)
		return -errno;
	memset(&sa, 0, sizeof(sa));
	if (family == AF_INET) {
		sa.v4.sin_family = AF_INET;
		sa.v4.sin_port = htons(port);
		sl = sizeof(sa.v4);
		ret = setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on));
	} else {
		sa.v6.sin6_family = AF_INET6;
		sa.v6.sin6_port = htons(port);
		sl = sizeof(sa.v6);
		ret = setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on));
		if (ret == 0)
			ret = setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on, sizeof(on));
	}
	/* Best effort: bigger buffers absorb bursts between loop turns. */
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sbuf, sizeof(sbuf));
	if (ret == 0)
		ret = bind(fd, (struct sockaddr *)&sa, sl);
	if (ret != 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

int hip_udp_meta(const struct msghdr *msg, struct hip_udp_rx *rx, size_t *gro_seg)
{
	const struct sockaddr_in *v4 = msg->msg_name;
	const struct sockaddr_in6 *v6 = msg->msg_name;
	struct cmsghdr *cm;
	bool have_dst = false;

	memset(rx, 0, sizeof(*rx));
	if (gro_seg)
		*gro_seg = 0;
	for (cm = CMSG_FIRSTHDR(msg); cm; cm = CMSG_NXTHDR((struct msghdr *)msg, cm)) {
		if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_PKTINFO &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(struct in_pktinfo))) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			hip_addr_from_v4(&rx->dst, &pi.ipi_addr);
			rx->ifindex = pi.ipi_ifindex;
			have_dst = true;
		} else if (cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_PKTINFO &&
			   cm->cmsg_len >= CMSG_LEN(sizeof(struct in6_pktinfo))) {
			struct in6_pktinfo pi;

			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			hip_addr_from_v6(&rx->dst, &pi.ipi6_addr);
			rx->ifindex = (int)pi.ipi6_ifindex;
			have_dst = true;
		} else if (gro_seg && cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO &&
			   cm->cmsg_len >= CMSG_LEN(sizeof(int))) {
			int v;

			memcpy(&v, CMSG_DATA(cm), sizeof(v));
			*gro_seg = v > 0 ? (size_t)v : 0;
		}
	}
	if (msg->msg_namelen >= sizeof(*v4) && v4->sin_family == AF_INET) {
		hip_addr_from_v4(&rx->src, &v4->sin_addr);
		rx->sport = ntohs(v4->sin_port);
	} else if (msg->msg_namelen >= sizeof(*v6) && v6->sin6_family == AF_INET6) {
		hip_addr_from_v6(&rx->src, &v6->sin6_addr);
		rx->sport = ntohs(v6->sin6_port);
	} else {
		return -EAFNOSUPPORT;
	}
	return have_dst ? 0 : -EIO;
}

int hip_udp_recv(int fd, uint8_t *buf, size_t cap, struct hip_udp_rx *rx)
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
	ssize_t n;
	int ret;

	if (!buf || !rx)
		return -EINVAL;
	memset(&from, 0, sizeof(from));
	n = recvmsg(fd, &msg, MSG_DONTWAIT);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
		return -EMSGSIZE;
	ret = hip_udp_meta(&msg, rx, NULL);
	if (ret < 0)
		return ret;
	rx->buf = buf;
	rx->len = (size_t)n;
	return 0;
}

int hip_udp_sendv(int fd4, int fd6, const struct iovec *iov, int iovcnt,
		  const struct hip_addr *src, const struct hip_addr *dst, uint16_t dport)
{
	union {
		struct sockaddr_in v4;
		struct sockaddr_in6 v6;
	} to;
	union {
		char buf[CMSG_SPACE(sizeof(struct in6_pktinfo))];
		struct cmsghdr align;
	} ctrl;
	struct msghdr msg = { .msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)iovcnt };
	struct cmsghdr *cm;
	bool v4;
	ssize_t n;
	size_t total = 0;
	int fd, i;

	if (!dst || !iov || iovcnt <= 0 || dport == 0)
		return -EINVAL;
	for (i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	v4 = hip_addr_is_v4(dst);
	if (src && hip_addr_is_v4(src) != v4)
		return -EINVAL;
	fd = v4 ? fd4 : fd6;
	if (fd < 0)
		return -EAFNOSUPPORT;
	memset(&to, 0, sizeof(to));
	memset(&ctrl, 0, sizeof(ctrl));
	if (v4) {
		to.v4.sin_family = AF_INET;
		to.v4.sin_addr = hip_addr_v4(dst);
		to.v4.sin_port = htons(dport);
		msg.msg_namelen = sizeof(to.v4);
	} else {
		to.v6.sin6_family = AF_INET6;
		to.v6.sin6_addr = dst->in6;
		to.v6.sin6_port = htons(dport);
		msg.msg_namelen = sizeof(to.v6);
	}
	msg.msg_name = &to;
	if (src) {
		msg.msg_control = ctrl.buf;
		cm = (struct cmsghdr *)(void *)ctrl.buf;
		if (v4) {
			struct in_pktinfo pi = { .ipi_spec_dst = hip_addr_v4(src) };

			cm->cmsg_level = IPPROTO_IP;
			cm->cmsg_type = IP_PKTINFO;
			cm->cmsg_len = CMSG_LEN(sizeof(pi));
			memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
			msg.msg_controllen = pi.ipi_spec_dst.s_addr ? CMSG_SPACE(sizeof(pi)) : 0;
		} else {
			struct in6_pktinfo pi = { .ipi6_addr = src->in6 };

			cm->cmsg_level = IPPROTO_IPV6;
			cm->cmsg_type = IPV6_PKTINFO;
			cm->cmsg_len = CMSG_LEN(sizeof(pi));
			memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
			msg.msg_controllen = IN6_IS_ADDR_UNSPECIFIED(&src->in6) ? 0
							       : CMSG_SPACE(sizeof(pi));
		}
		if (!msg.msg_controllen)
			msg.msg_control = NULL;
	}
	n = sendmsg(fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return (size_t)n == total ? 0 : -EIO;
}

enum hip_udp_kind hip_udp_classify(const uint8_t *p, size_t len)
{
	if (len == 1 && p[0] == 0xff)
		return HIP_UDP_KEEPALIVE;
	if (len < HIP_UDP_MARKER)
		return HIP_UDP_BAD;
	if (p[0] | p[1] | p[2] | p[3])
		return len >= 8 ? HIP_UDP_ESP : HIP_UDP_BAD;   /* SPI, sequence number */
	return len >= HIP_UDP_MARKER + HIP_HDR_LEN ? HIP_UDP_HIP : HIP_UDP_BAD;
}
