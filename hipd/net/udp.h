/*
 * udp.h - HIP and ESP over UDP (RFC 9028 §5.1, RFC 5770 §5.1; RFC 3948):
 * one UDP socket per family bound to the NAT traversal port (10500). A
 * datagram is a HIP control packet when it starts with 32 zero bits (the
 * non-ESP marker, then the HIP header, checksum 0), ESP when it starts with
 * a non-zero SPI, a NAT keepalive when it is the single byte 0xFF.
 */
#ifndef HIPD_UDP_H
#define HIPD_UDP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "checksum.h"

enum {
	HIP_UDP_PORT   = 10500,   /* RFC 9028 §5.1 / RFC 5770 §5.1 (IANA) */
	HIP_UDP_MARKER = 4,       /* 32 zero bits before a HIP header */
};

enum hip_udp_kind {
	HIP_UDP_BAD,              /* too short or otherwise nothing of ours */
	HIP_UDP_HIP,              /* marker + HIP packet (at offset 4) */
	HIP_UDP_ESP,              /* RFC 3948: SPI != 0 */
	HIP_UDP_KEEPALIVE,        /* RFC 3948 §2.3: one byte 0xFF */
};

struct hip_udp_rx {
	uint8_t *buf;             /* the UDP payload (caller's buffer) */
	size_t   len;
	struct hip_addr src, dst;
	uint16_t sport;           /* the sender's port, host order */
	int      ifindex;
};

/* A non-blocking UDP socket bound to port on any address of the family,
 * with the destination address delivered (IP(V6)_PKTINFO). -errno. */
int hip_udp_open(int family, uint16_t port);
struct msghdr;
/* A received datagram's addresses and sender port (msg_name, IP(V6)_PKTINFO)
 * and, with gro_seg, the UDP_GRO segment size (0 = one packet) into rx
 * (buf and len left 0). -EIO without the destination address. */
int hip_udp_meta(const struct msghdr *msg, struct hip_udp_rx *rx, size_t *gro_seg);
/* One datagram; -EAGAIN when none, -EMSGSIZE when truncated. */
int hip_udp_recv(int fd, uint8_t *buf, size_t cap, struct hip_udp_rx *rx);
/* iov (the whole UDP payload) from src (any if unspecified) to dst:dport,
 * on the socket of dst's family. -errno. */
int hip_udp_sendv(int fd4, int fd6, const struct iovec *iov, int iovcnt,
		  const struct hip_addr *src, const struct hip_addr *dst, uint16_t dport);
/* What a received payload is (bounds-checked). */
enum hip_udp_kind hip_udp_classify(const uint8_t *p, size_t len);

#endif
