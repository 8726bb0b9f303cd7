/*
 * xfrm.h - the kernel datapath (datapath.h): ESP SAs in BEET mode and their
 * policies in the kernel's XFRM, over NETLINK_XFRM (RFC 7402 App. B,
 * docs/protocol.md §10).
 *
 * Ownership: every SA and policy this hipd installs carries its reqid (the
 * SA's reqid, the reqid of each policy template). flush and the start-up
 * clean-up remove exactly the entries with that reqid, never another
 * daemon's. A mark cannot serve: an XFRM mark also selects which packets
 * an SA or policy applies to. Several hipd in one network namespace need
 * different reqids; namespaces have separate XFRM tables.
 *
 * Traffic trigger: a catch-all "out" policy from each local HIT to the HIT
 * prefix 2001:20::/28 (and from each local LSI to the LSI range, D-22) with
 * an ESP BEET template makes the kernel send XFRM_MSG_ACQUIRE for a peer
 * without SAs; the pair policies (higher priority) then take over. With
 * net.core.xfrm_larval_drop = 0 the packets wait in the policy's hold
 * queue until the SAs exist.
 *
 * Replace in place (datapath.h, for UPDATE): sa_add on an SPI and HIT pair
 * we have replaces that SA (a new destination: the new one is added before
 * the old one goes; same destination: deleted and re-added at once), the
 * pair policy of its direction follows (XFRM_MSG_UPDPOLICY), and with
 * unchanged keys the replay state is carried over. policy_add on an
 * existing pair of ours updates it. Details and why not XFRM_MSG_UPDSA or
 * XFRM_MSG_MIGRATE: xfrm_replace.c. The larval state an ACQUIRE leaves is
 * removed once the pair policies are in (it would hold back ACQUIREs from
 * that HIT for net.core.xfrm_acq_expires).
 *
 * Secrets: requests are built in a bounded stack buffer and wiped after
 * sending; received buffers (an SA dump or GETSA reply carries keys) are
 * wiped after parsing. NETLINK_CAP_ACK keeps the kernel from echoing a
 * failed request (with its keys) in the error.
 */
#ifndef HIPD_XFRM_H
#define HIPD_XFRM_H

#include <stdint.h>

#include "datapath/datapath.h"
#include "hit.h"
#include "hosts_line.h"

/* "HIP" in the top bytes; the low byte tells instances apart. */
#define HIP_XFRM_REQID_DEFAULT 0x48495000u

/* The reqid in force: the configured one, or the default for 0 (none). */
static inline uint32_t xfrm_reqid_or_default(uint32_t reqid)
{
	return reqid ? reqid : HIP_XFRM_REQID_DEFAULT;
}
/* Linux: the lower value wins. The pair policies beat the catch-all. */
#define HIP_XFRM_PRIO_PAIR     0x3000u
#define HIP_XFRM_PRIO_ACQUIRE  0x3100u

struct xfrm_dp_conf {
	uint32_t reqid;       /* 0: HIP_XFRM_REQID_DEFAULT */
	uint32_t prio_pair;   /* 0: default */
	uint32_t prio_acquire;
};

/* Open the request and event sockets (needs CAP_NET_ADMIN: -EPERM
 * otherwise). ev is copied into the datapath. */
int xfrm_dp_create(struct datapath **out, const struct xfrm_dp_conf *conf,
		   const struct datapath_events *ev);

/* Does the kernel take an ESP SA? Adds a throw-away SA with our reqid and
 * removes it. 0 yes; -EPROTONOSUPPORT no ESP in this kernel (the kernel's
 * own message goes to why); other -errno: the probe failed. */
int xfrm_dp_probe_esp(struct datapath *dp, char *why, size_t whylen);

/* Remove every SA and policy with our reqid; the number removed. */
int xfrm_dp_flush_count(struct datapath *dp);

/* The catch-all policy local HIT -> 2001:20::/28 (dir out) for ACQUIRE. */
int xfrm_dp_acquire_policy_add(struct datapath *dp, const struct hip_hit *local);
int xfrm_dp_acquire_policy_del(struct datapath *dp, const struct hip_hit *local);

/* The same for IPv4 (docs/decisions.md D-22): local LSI/32 -> the LSI
 * range (hipd.conf lsi_range, D-20); its ACQUIREs (AF_INET selector) go to
 * datapath_events.acquire_lsi. */
int xfrm_dp_acquire_lsi_policy_add(struct datapath *dp, const struct in_addr *local,
				   const struct hip_lsi_range *range);
int xfrm_dp_acquire_lsi_policy_del(struct datapath *dp, const struct in_addr *local,
				   const struct hip_lsi_range *range);

/* net.core.xfrm_larval_drop = 0 in this namespace: packets that trigger
 * an ACQUIRE are held, not dropped. */
int xfrm_set_larval_drop(int value);

/* The fd to poll for EPOLLIN: the multicast socket (ACQUIRE, EXPIRE,
 * MAPPING), or an epoll fd holding it and the raw ESP sockets that see
 * ESP for no SA of ours (xfrm_nosa.c); and the handler that drains them
 * and calls the datapath_events (MAPPING: udp_peer, repeats and floods
 * held back, xfrm_event.c; no SA: no_sa, rate-limited). */
int xfrm_dp_event_fd(const struct datapath *dp);
void xfrm_dp_event_read(struct datapath *dp);

/* Netlink message names, for logs. */
const char *xfrm_msg_name(uint16_t type);

#endif
