/*
 * icmp.c - ICMP Parameter Problem messages about HIP and ESP (icmp.h).
 *
 * The quoted datagram is rebuilt from what the receive path kept (the
 * addresses, the ports, the HIP or ESP bytes): raw sockets do not give an
 * IPv6 header, and a rebuilt header is the same for both families. Its
 * Total/Payload Length is the packet's real one, so a reader can tell a
 * truncated quote from a short packet. Over UDP the UDP header (and the
 * zero marker of HIP over UDP) come first, as on the wire, so a NAT on the
 * way back can match the quote to its mapping (RFC 5508 §7).
 */
#include <errno.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <linux/icmp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "byteorder.h"
#include "hip_wire.h"
#include "icmp.h"
#include "sock.h"

enum {
	ICMP4_TTL = 64,
	IP4_DF    = 0x4000,
};

int hip_icmp_sock_open(int family)
{
	int fd, ret;

	if (family != AF_INET && family != AF_INET6)
		return -EAFNOSUPPORT;
	fd = socket(family, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6);
	if (fd < 0)
		return -errno;
	if (family == AF_INET) {
		/* ICMP_FILTER: a set bit blocks that type */
		struct icmp_filter f = { .data = ~(1u << HIP_ICMP4_PARAM_PROBLEM) };

		ret = setsockopt(fd, SOL_RAW, ICMP_FILTER, &f, sizeof(f));
	} else {
		struct icmp6_filter f;

		ICMP6_FILTER_SETBLOCKALL(&f);
		ICMP6_FILTER_SETPASS(HIP_ICMP6_PARAM_PROBLEM, &f);
		ret = setsockopt(fd, IPPROTO_ICMPV6, ICMP6_FILTER, &f, sizeof(f));
	}
	if (ret != 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

/* The IP header of the quoted packet, as it reached us. */
static size_t quote_ip_header(uint8_t *p, const struct hip_icmp_about *a, uint8_t proto,
			      size_t total)
{
	if (hip_addr_is_v4(a->src)) {
		memset(p, 0, HIP_ICMP_IP4_HDR);
		p[0] = 0x45;
		hip_wr16(p + 2, (uint16_t)(total + HIP_ICMP_IP4_HDR));
		hip_wr16(p + 6, IP4_DF);
		p[8] = ICMP4_TTL;
		p[9] = proto;
		memcpy(p + 12, a->src->in6.s6_addr + 12, 4);
		memcpy(p + 16, a->dst->in6.s6_addr + 12, 4);
		hip_wr16(p + 10, (uint16_t)~hip_csum_fold(hip_csum_add(0, p, HIP_ICMP_IP4_HDR)));
		return HIP_ICMP_IP4_HDR;
	}
	memset(p, 0, HIP_ICMP_IP6_HDR);
	p[0] = 0x60;
	hip_wr16(p + 4, (uint16_t)total);
	p[6] = proto;
	p[7] = ICMP4_TTL;
	memcpy(p + 8, a->src->in6.s6_addr, 16);
	memcpy(p + 24, a->dst->in6.s6_addr, 16);
	return HIP_ICMP_IP6_HDR;
}

int hip_icmp_build(uint8_t *out, size_t cap, size_t *len, const struct hip_icmp_about *a)
{
	bool v4, udp;
	size_t limit, head, total, pointer, n;
	uint8_t *q;

	if (!out || !len || !a || !a->src || !a->dst || !a->payload ||
	    hip_addr_is_v4(a->src) != hip_addr_is_v4(a->dst) || a->pointer >= a->payload_len)
		return -EINVAL;
	v4 = hip_addr_is_v4(a->src);
	udp = a->sport != 0;
	limit = v4 ? HIP_ICMP4_QUOTE_MAX : HIP_ICMP6_QUOTE_MAX;
	/* the transport headers before the payload, and the packet's length */
	head = udp ? HIP_ICMP_UDP_HDR + (a->proto == HIP_PROTO ? HIP_ICMP_UDP_MARKER : 0) : 0;
	total = head + a->payload_len;
	pointer = (v4 ? HIP_ICMP_IP4_HDR : HIP_ICMP_IP6_HDR) + head + a->pointer;
	if (pointer >= limit || (v4 && pointer > UINT8_MAX) || cap < HIP_ICMP_HDR_LEN + limit ||
	    total > UINT16_MAX - HIP_ICMP_IP6_HDR)
		return -EINVAL;

	memset(out, 0, HIP_ICMP_HDR_LEN);
	out[0] = v4 ? HIP_ICMP4_PARAM_PROBLEM : HIP_ICMP6_PARAM_PROBLEM;
	if (v4)
		out[4] = (uint8_t)pointer;
	else
		hip_wr32(out + 4, (uint32_t)pointer);
	q = out + HIP_ICMP_HDR_LEN;
	n = quote_ip_header(q, a, udp ? IPPROTO_UDP : a->proto, total);
	if (udp) {
		hip_wr16(q + n, a->sport);
		hip_wr16(q + n + 2, a->dport);
		hip_wr16(q + n + 4, (uint16_t)total);
		memset(q + n + 6, 0, head - 6);      /* UDP checksum 0; the zero marker */
		n += head;
	}
	if (a->payload_len < limit - n) {
		memcpy(q + n, a->payload, a->payload_len);
		n += a->payload_len;
	} else {
		memcpy(q + n, a->payload, limit - n);
		n = limit;
	}
	*len = HIP_ICMP_HDR_LEN + n;
	if (v4)
		hip_wr16(out + 2, (uint16_t)~hip_csum_fold(hip_csum_add(0, out, *len)));
	return 0;
}

/* The quoted IP (and UDP) header at q: what we sent, and how far it was quoted. */
static int quote_parse(bool v4, const uint8_t *q, size_t n, struct hip_icmp_quote *out)
{
	size_t hl, total;

	if (v4) {
		struct in_addr a;

		if (n < HIP_ICMP_IP4_HDR || q[0] >> 4 != 4)
			return -EBADMSG;
		hl = (size_t)(q[0] & 0x0f) * 4;
		total = hip_rd16(q + 2);
		if (hl < HIP_ICMP_IP4_HDR || hl > n || total < hl)
			return -EBADMSG;
		if (hip_rd16(q + 6) & 0x1fff)
			return -ENOMSG;          /* a later fragment: no header of ours in it */
		out->proto = q[9];
		memcpy(&a, q + 12, 4);
		hip_addr_from_v4(&out->src, &a);
		memcpy(&a, q + 16, 4);
		hip_addr_from_v4(&out->dst, &a);
		total -= hl;
	} else {
		struct in6_addr a;

		if (n < HIP_ICMP_IP6_HDR || q[0] >> 4 != 6)
			return -EBADMSG;
		hl = HIP_ICMP_IP6_HDR;
		total = hip_rd16(q + 4);
		out->proto = q[6];       /* hipd sends no extension headers */
		memcpy(&a, q + 8, 16);
		hip_addr_from_v6(&out->src, &a);
		memcpy(&a, q + 24, 16);
		hip_addr_from_v6(&out->dst, &a);
	}
	if (out->proto != HIP_PROTO && out->proto != IPPROTO_ESP && out->proto != IPPROTO_UDP)
		return -ENOMSG;
	out->payload = q + hl;
	out->payload_len = n - hl < total ? n - hl : total;
	if (out->proto == IPPROTO_UDP) {
		if (out->payload_len < HIP_ICMP_UDP_HDR)
			return -EBADMSG;
		out->sport = hip_rd16(out->payload);
		out->dport = hip_rd16(out->payload + 2);
		out->payload += HIP_ICMP_UDP_HDR;
		out->payload_len -= HIP_ICMP_UDP_HDR;
	}
	return 0;
}

int hip_icmp_parse(int family, const uint8_t *buf, size_t len, struct hip_icmp_quote *q)
{
	size_t off = 0, n = len;
	bool v4 = family == AF_INET;
	int ret;

	if (!buf || !q || (family != AF_INET && family != AF_INET6))
		return -EINVAL;
	memset(q, 0, sizeof(*q));
	if (v4) {
		if (hip_sock_ipv4_payload(buf, len, &off, &n) < 0)
			return -EBADMSG;
		if (n >= HIP_ICMP_HDR_LEN && hip_csum_fold(hip_csum_add(0, buf + off, n)) != 0xffff)
			return -EBADMSG;
	}
	if (n < HIP_ICMP_HDR_LEN)
		return -EBADMSG;
	buf += off;
	/* code 0: the Pointer names the field (RFC 792; RFC 4443 §3.4) */
	if (buf[0] != (v4 ? HIP_ICMP4_PARAM_PROBLEM : HIP_ICMP6_PARAM_PROBLEM) || buf[1] != 0)
		return -ENOMSG;
	q->pointer = v4 ? buf[4] : hip_rd32(buf + 4);
	ret = quote_parse(v4, buf + HIP_ICMP_HDR_LEN, n - HIP_ICMP_HDR_LEN, q);
	if (ret < 0)
		memset(q, 0, sizeof(*q));
	return ret;
}

int hip_icmp_send(int fd, const uint8_t *msg, size_t len, const struct hip_addr *src,
		  const struct hip_addr *dst)
{
	if (!msg || len < HIP_ICMP_HDR_LEN || len > HIP_ICMP_MSG_MAX)
		return -EINVAL;
	return hip_sock_sendto(fd, msg, len, src, dst);
}
