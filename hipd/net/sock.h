/*
 * sock.h - raw HIP sockets (IP protocol 139) over IPv4 and IPv6.
 *
 * Receive gives the HIP packet (IPv4 header stripped using its IHL, never
 * assumed to be 20 bytes) with both addresses (IP_PKTINFO/IPV6_PKTINFO), so
 * the checksum and locators can be checked. Send takes source and
 * destination locators; the kernel builds the IP header.
 */
#ifndef HIPD_SOCK_H
#define HIPD_SOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "checksum.h"

struct hip_rx {
	uint8_t *buf;            /* HIP packet (caller's buffer) */
	size_t   len;            /* bytes of HIP packet */
	struct hip_addr src, dst;
	int      ifindex;
};

/* Open the raw sockets (needs CAP_NET_RAW). -errno on failure. */
int hip_sock_open4(void);
int hip_sock_open6(void);
/* Receive one packet; buf must hold HIP_MAX_PACKET + 60 bytes. Returns 0,
 * -EAGAIN when nothing is pending, -EMSGSIZE for an oversize packet or a
 * malformed IPv4 header (dropped, counted by the caller), other -errno. A
 * packet shorter than a HIP header is returned (rx->len < HIP_HDR_LEN):
 * the engine counts it as bad_length. */
int hip_sock_recv(int fd, uint8_t *buf, size_t cap, struct hip_rx *rx);
/* Send a finished packet (checksum already set for src/dst). Picks the
 * socket by family. -errno on failure. */
int hip_sock_send(int fd4, int fd6, const uint8_t *pkt, size_t len,
		  const struct hip_addr *src, const struct hip_addr *dst);
/* Send any datagram on fd (a raw socket of dst's family) to dst, from src
 * (IP_PKTINFO / IPV6_PKTINFO; NULL or unspecified: the kernel's choice).
 * hip_sock_send for HIP packets, icmp.c for ICMP. 0 or -errno. */
int hip_sock_sendto(int fd, const void *buf, size_t len, const struct hip_addr *src,
		    const struct hip_addr *dst);
/* The HIP packet inside an IPv4 datagram as a raw socket delivers it: checks
 * version 4, IHL >= 5 and within the datagram, Total Length within it.
 * Gives the payload offset and length. -EMSGSIZE if malformed. */
int hip_sock_ipv4_payload(const uint8_t *dgram, size_t n, size_t *off, size_t *len);
/* Choose a local source address for dst (connect a UDP socket, getsockname);
 * no packet is sent. */
int hip_sock_pick_source(const struct hip_addr *dst, struct hip_addr *src);

#endif
