/*
 * uesp.h - the userspace ESP datapath (issue 4, "Userspace datapath"): BEET
 * ESP carried by hipd itself where the kernel has no ESP. Packets read from
 * the hip0 TUN are encrypted and sent on raw IPPROTO_ESP sockets; received
 * ESP is checked (ICV, anti-replay) and written to hip0. Wire format as
 * Linux's BEET mode (esp.h). hip0 carries IPv6 between HITs and IPv4
 * between LSIs, each on its own SA pair (D-22).
 *
 * It runs on the engine's epoll loop (one thread, no locks): with 2 cores
 * the sender's and receiver's work already occupy both, so a second thread
 * would add locking on the SA tables without adding a core. Throughput
 * comes from batching instead: TUN offloads (IFF_VNET_HDR, TSO: 64 KB
 * super-packets read in one syscall and segmented here), sendmmsg and
 * recvmmsg on the raw sockets, coalescing of received TCP segments into one
 * GSO write to the TUN, and no allocation per packet. Outbound packets leave
 * from the SA's outer source (IP(V6)_PKTINFO), as with the kernel's BEET SA.
 *
 * Where the time goes (perf record -p on each engine, iperf3 over ESP in
 * IPv4 between two namespaces on one veth, 2-core VM; bench/README.md): the
 * sending hipd is the bottleneck, on one core all the time and never
 * sleeping, about 5 us of CPU per 1.4 KB packet: 76% in sendmmsg (of which a
 * third is the receiving namespace's IPv4 input and raw delivery, run by
 * veth inside the sender's call, and a sixth ip_append_data with its copy
 * and checksum), 8% AES-GCM, 2% the TSO segments' TCP checksums. The
 * receiver uses about 60% of the other core: recvmmsg, the GSO write to
 * hip0 (the kernel's TCP receive) and AES-GCM. Raw IP has no GSO/GRO, so the
 * per-packet kernel cost stays (wireguard-go sends UDP with UDP_SEGMENT and
 * receives with UDP_GRO: one trip through the stack per 64 KB). Tried and
 * dropped: IP_HDRINCL (skips ip_append_data, but lets the engine send any
 * IP packet from any source: a hole in the privsep model, for ~10% of the
 * sender's CPU); a second thread (the receiver and the applications fill the
 * second core: at most ~15% on an idle box). Latency: nothing here waits;
 * per ping each engine makes 7 syscalls (2 epoll_wait, 2 reads of hip0, one
 * write, one recvmmsg, one sendmmsg); the RTT overhead is the wakeups of the
 * processes on the path (ping -> hipd -> peer hipd -> hipd -> ping). Busy
 * polling after a lone small packet was tried twice and made it worse on a
 * shared 2-core box (the spinning engine takes the core its peer needs).
 */
#ifndef HIPD_UESP_H
#define HIPD_UESP_H

#include <stdbool.h>

#include "datapath/datapath.h"

struct hip_loop;

struct uesp_conf {
	int tun_fd;            /* from tun_open() */
	bool tun_vnet;         /* tun_open(..., offload = true) */
	int raw4, raw6;        /* uesp_open_raw(); -1 = that family unused */
	bool udp;              /* use udp4/udp6 (else no ESP in UDP) */
	int udp4, udp6;        /* the engine's UDP sockets for ESP in UDP
				* (RFC 3948): read by the datapath (HIP
				* control goes to ev->hip_udp), not owned;
				* -1 = that family none */
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
