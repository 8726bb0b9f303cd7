/*
 * icmp.h - ICMP Parameter Problem messages about HIP and ESP packets
 * (RFC 7401 §5.4, §4.3 "the receiver has no association"; RFC 792 and
 * RFC 4443 §3.4 for the formats).
 *
 * Sending: a host that receives an UPDATE or CLOSE for an association it
 * does not have (§5.4.4), or ESP for an SPI it holds no SA of (§4.3), tells
 * the sender with a Parameter Problem quoting the packet, the Pointer at
 * the HIT or SPI that matched nothing. Receiving: the quoted packet is one
 * we sent; the engine (engine_icmp.c, docs/decisions.md D-14) decides what
 * it may believe of it.
 */
#ifndef HIPD_ICMP_H
#define HIPD_ICMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "checksum.h"

enum {
	HIP_ICMP4_PARAM_PROBLEM = 12,     /* RFC 792 */
	HIP_ICMP6_PARAM_PROBLEM = 4,      /* RFC 4443 §3.4 */
	HIP_ICMP_HDR_LEN        = 8,      /* type, code, checksum, pointer (+3 unused in v4) */
	HIP_ICMP_IP4_HDR        = 20,
	HIP_ICMP_IP6_HDR        = 40,
	HIP_ICMP_UDP_HDR        = 8,
	HIP_ICMP_UDP_MARKER     = 4,      /* HIP over UDP: 32 zero bits first (RFC 5770 §5.1) */
	/* The quote: an ICMPv4 error fits 576 bytes (RFC 1812 §4.3.2.3), an
	 * ICMPv6 one the minimum MTU of 1280 (RFC 4443 §2.4 (c)). */
	HIP_ICMP4_QUOTE_MAX     = 576 - 20 - HIP_ICMP_HDR_LEN,
	HIP_ICMP6_QUOTE_MAX     = 1280 - 40 - HIP_ICMP_HDR_LEN,
	HIP_ICMP_MSG_MAX        = HIP_ICMP_HDR_LEN + HIP_ICMP6_QUOTE_MAX,
};

/* A packet we received and object to: the message quotes it. */
struct hip_icmp_about {
	const struct hip_addr *src, *dst;  /* its source (the ICMP goes there) and ours */
	uint8_t proto;                     /* HIP_PROTO (139) or IPPROTO_ESP (50) */
	uint16_t sport, dport;             /* non-zero sport: it came in UDP (RFC 9028) */
	const uint8_t *payload;            /* the HIP packet (no zero marker) or the ESP */
	size_t payload_len;
	size_t pointer;                    /* the offending field, from payload[0] */
};

/* What an ICMP Parameter Problem says about a packet we sent. */
struct hip_icmp_quote {
	uint8_t proto;                     /* the quoted packet's protocol (139, 50, 17) */
	struct hip_addr src, dst;          /* its addresses: ours and the peer's */
	uint16_t sport, dport;             /* proto 17 only */
	size_t pointer;                    /* from the quoted IP header's first byte */
	const uint8_t *payload;            /* after the IP (and UDP) header, in the caller's buffer */
	size_t payload_len;                /* as much of it as was quoted */
};

/* A raw ICMP (AF_INET) or ICMPv6 (AF_INET6) socket that lets only
 * Parameter Problem messages through (ICMP_FILTER / ICMP6_FILTER), non-
 * blocking. Needs CAP_NET_RAW. The fd, or -errno. */
int hip_icmp_sock_open(int family);

/* Build the Parameter Problem about a (family from a->src): the ICMP
 * message without the outer IP header, into out (cap >= HIP_ICMP_MSG_MAX
 * is always enough). IPv4: checksum set; IPv6: the kernel sets it on a
 * raw ICMPv6 socket. 0 and *len, or -EINVAL (the field is not within the
 * quote, or beyond an ICMPv4 Pointer's 255). */
int hip_icmp_build(uint8_t *out, size_t cap, size_t *len, const struct hip_icmp_about *a);

/* Parse one datagram read from a socket of hip_icmp_sock_open: IPv4 with
 * its IP header (raw IPv4 sockets deliver it; the ICMP checksum is checked
 * here), IPv6 from the ICMPv6 header (the kernel checked the checksum).
 * 0 with *q filled (q->payload points into buf), -ENOMSG for another ICMP
 * type or a quoted protocol hipd never sends, -EBADMSG if malformed. */
int hip_icmp_parse(int family, const uint8_t *buf, size_t len, struct hip_icmp_quote *q);

/* Send a message of hip_icmp_build to dst from src (NULL: the kernel's
 * choice) on an ICMP socket of dst's family. 0 or -errno. */
int hip_icmp_send(int fd, const uint8_t *msg, size_t len, const struct hip_addr *src,
		  const struct hip_addr *dst);

#endif
