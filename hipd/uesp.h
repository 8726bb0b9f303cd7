/*
 * uesp.h - the userspace ESP datapath (issue 4, "Userspace datapath"): BEET
 * ESP carried by hipd itself where the kernel has no ESP. Packets read from
 * the hip0 TUN are encrypted and sent on raw IPPROTO_ESP sockets; received
 * ESP is checked (ICV, anti-replay) and written to hip0. Wire format as
 * Linux's BEET mode (esp.h).
 *
 * It runs on the engine's epoll loop (one thread, no locks): with 2 cores
 * the sender's and receiver's work already occupy both, so a second thread
 * would add locking on the SA tables without adding a core. Throughput
 * comes from batching instead: TUN offloads (IFF_VNET_HDR, TSO: 64 KB
 * super-packets read in one syscall and segmented here), sendmmsg and
 * recvmmsg on the raw sockets, coalescing of received TCP segments into one
 * GSO write to the TUN, and no allocation per packet.
 */
#ifndef HIPD_UESP_H
#define HIPD_UESP_H

#include <stdbool.h>

#include "datapath.h"

struct hip_loop;

struct uesp_conf {
	int tun_fd;            /* from tun_open() */
	bool tun_vnet;         /* tun_open(..., offload = true) */
	int raw4, raw6;        /* uesp_open_raw(); -1 = that family unused */
	unsigned tun_mtu;      /* hip0 MTU: GSO segments never exceed it */
};

/* A non-blocking raw ESP socket (AF_INET or AF_INET6; CAP_NET_RAW) with
 * large buffers. Returns the fd or -errno. */
int uesp_open_raw(int family);

/* The datapath takes ownership of the fds (closed by ops->free) and
 * registers them on loop. */
int uesp_create(struct hip_loop *loop, const struct uesp_conf *conf,
		const struct datapath_events *ev, struct datapath **out);

/* Packets waiting per peer HIT for its SA (the first-packet case). */
enum { UESP_HOLD_MAX = 8 };

#endif
