/*
 * tun.h - the hip0 TUN device that gives applications HIT addresses (issue 4
 * "HIT addressing"): the local HIT/128 on it and 2001:20::/28 routed to it.
 * Used by both datapaths (the kernel one needs the route for its lookup
 * before XFRM takes over). Creating and configuring need CAP_NET_ADMIN (the
 * privileged process); the fd is then handed to whoever does the I/O.
 */
#ifndef HIPD_TUN_H
#define HIPD_TUN_H

#include <stdbool.h>
#include <stddef.h>

#include <netinet/in.h>

#include "hit.h"
#include "hosts_line.h"

enum {
	TUN_DEFAULT_MTU = 1400,        /* 1500 minus outer IPv6 + ESP-GCM + slack */
	TUN_VNET_HDR_LEN = 10,         /* struct virtio_net_hdr */
};

#define TUN_DEFAULT_NAME "hip0"

/* Open (create if needed) the TUN device name (IFF_TUN | IFF_NO_PI, plus
 * IFF_VNET_HDR with TSO/checksum offloads when offload is set: the kernel
 * then hands over up to 64 KB TCP super-packets with a virtio_net_hdr in
 * front). Non-blocking, close-on-exec. Returns the fd or -errno; the actual
 * name lands in ifname (IFNAMSIZ bytes) if not NULL. */
int tun_open(const char *name, bool offload, char *ifname);

/* Put hit/128 on the device (no DAD), route 2001:20::/28 through it, set
 * mtu (0 = TUN_DEFAULT_MTU) and bring it up. Idempotent (existing address
 * and route are fine). -errno. */
int tun_configure(const char *ifname, const struct hip_hit *hit, unsigned mtu);

/* Put our LSI lsi/32 on the device (which tun_configure brought up) and
 * route the LSI range (hipd.conf lsi_range) through it, for IPv4 between
 * LSIs (docs/decisions.md D-20, D-22). Idempotent; both go with the
 * device. -errno. */
int tun_configure_lsi(const char *ifname, const struct in_addr *lsi,
		      const struct hip_lsi_range *range);

/* Remove hit/128 from the device (the route goes with the device). */
int tun_remove_hit(const char *ifname, const struct hip_hit *hit);

#endif
