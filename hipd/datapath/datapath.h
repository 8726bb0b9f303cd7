/*
 * datapath.h - where ESP happens: the kernel's XFRM (BEET mode SAs and
 * policies over netlink, hipd/datapath/xfrm/xfrm.c) or hipd's userspace ESP over a TUN
 * device (hipd/uesp*.c). The engine sees only this interface; the choice is
 * made once at start (datapath = auto | kernel | userspace in hipd.conf):
 * auto probes whether the kernel accepts an ESP SA and logs the choice.
 *
 * With privilege separation the kernel datapath runs in the privileged
 * process; the engine's calls become validated requests (priv_proto.h).
 */
#ifndef HIPD_DATAPATH_H
#define HIPD_DATAPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <netinet/in.h>

#include "checksum.h"
#include "hit.h"

enum { HIP_ESP_KEY_MAX = 48 };

/* One ESP SA in BEET mode (RFC 7402 App. B): outer = locators, inner =
 * HITs. Always 64-bit ESN with anti-replay (RFC 7402 §3.3.6, A-7). */
struct hip_esp_sa {
	uint32_t        spi;
	bool            inbound;          /* we receive on it */
	struct hip_addr outer_src, outer_dst;
	struct hip_hit  inner_src, inner_dst;
	/* IPv4 inner (docs/decisions.md D-22): the SA carries IPv4 between
	 * these LSIs (inner source, destination; network order) instead of
	 * IPv6 between the HITs, which still name the association. BEET
	 * rebuilds the inner header from them (RFC 7402 App. B). */
	bool            inner_v4;
	struct in_addr  lsi_src, lsi_dst;
	uint16_t        suite;            /* RFC 7402 suite ID (8, 9, 12, 13, ...) */
	uint8_t         enc_key[HIP_ESP_KEY_MAX];  /* GCM: key | 4-byte salt */
	size_t          enc_len;
	uint8_t         auth_key[HIP_ESP_KEY_MAX];
	size_t          auth_len;
	uint32_t        replay_window;    /* packets, default 128 */
	uint64_t        soft_bytes, hard_bytes;    /* 0 = none */
	uint64_t        soft_seconds, hard_seconds;
	/* ESP in UDP (RFC 3948, RFC 9028 §5.1): ports in host order; 0 = ESP
	 * straight over IP. Outbound: from sport to the peer's dport. */
	uint16_t        encap_sport, encap_dport;
};

/* Traffic counters of one SA (hipconf show associations). */
struct hip_esp_sa_stats {
	uint64_t packets, bytes, replay_drops, auth_drops;
};

/* Events a datapath reports back to the engine. */
struct datapath_events {
	void *arg;
	/* Outbound packet to a HIT with no SA (XFRM ACQUIRE, or the TUN saw a
	 * packet for an unknown peer): start a base exchange. */
	void (*acquire)(void *arg, const struct hip_hit *local, const struct hip_hit *peer);
	/* Outbound IPv4 packet from our LSI local to a peer LSI with no SA
	 * (D-22: XFRM ACQUIRE on the LSI range's policy, or the TUN saw it).
	 * The engine maps the LSIs to HITs. NULL: ignored. */
	void (*acquire_lsi)(void *arg, const struct in_addr *local, const struct in_addr *peer);
	/* SA lifetime: soft -> rekey, hard -> gone. */
	void (*expire)(void *arg, uint32_t spi, bool hard);
	/* ESP arrived on an inbound SA (R2-SENT -> ESTABLISHED, activity). */
	void (*traffic)(void *arg, uint32_t spi);
	/* Authentic ESP in UDP on inbound SA spi came from another source
	 * port than the SA's: the peer's NAT mapping changed. NULL: ignored. */
	void (*udp_peer)(void *arg, uint32_t spi, const struct hip_addr *src, uint16_t sport);
	/* A HIP control packet (the zero marker stripped) read by a datapath
	 * that reads the UDP sockets itself (userspace). */
	void (*hip_udp)(void *arg, const uint8_t *pkt, size_t len, const struct hip_addr *src,
			const struct hip_addr *dst, uint16_t sport);
	/* ESP from src to dst (NULL: unknown) for an SPI we hold no SA of
	 * (dropped; sport non-zero: it came in UDP): perhaps we lost the
	 * association and the peer did not (RFC 7401 §4.3, §4.5.4). The ESP
	 * bytes are for the ICMP quote. NULL: ignored. Only a datapath that
	 * sees such packets reports them. */
	void (*no_sa)(void *arg, const struct hip_addr *src, const struct hip_addr *dst,
		      uint16_t sport, const uint8_t *esp, size_t len);
};

struct datapath;

/* One named counter of a datapath (datapath_ops.counters). */
struct datapath_counter {
	const char *name;                 /* static: a C identifier */
	uint64_t value;
};
enum { DATAPATH_COUNTERS_MAX = 32 };

struct datapath_ops {
	const char *name;                 /* "kernel" or "userspace" */
	/* Install one SA (keys are wiped by the caller afterwards). An SA that
	 * exists with the same SPI and direction is replaced in place (new
	 * outer locators and/or keys; UPDATE readdress and rekey rely on it),
	 * with no window where packets on that SPI are dropped. If that SA
	 * belongs to another HIT pair (two peers chose the same SPI for our
	 * outbound SAs) it stays and -EEXIST is returned; the engine then
	 * closes the new association at once, and traffic starts an exchange
	 * with new SPIs (eng_ha_close_if_sasless). */
	int  (*sa_add)(struct datapath *dp, const struct hip_esp_sa *sa);
	int  (*sa_del)(struct datapath *dp, uint32_t spi, bool inbound,
		       const struct hip_addr *outer_dst);
	/* The out/in policy pair between two HITs over two locators; an
	 * existing pair for the same HITs is updated to the new locators. */
	int  (*policy_add)(struct datapath *dp, const struct hip_hit *local,
			   const struct hip_hit *peer, const struct hip_addr *local_loc,
			   const struct hip_addr *peer_loc);
	int  (*policy_del)(struct datapath *dp, const struct hip_hit *local,
			   const struct hip_hit *peer);
	/* The same for IPv4 between two LSIs (D-22), for the SA pair whose
	 * inner_v4 is set. NULL: the datapath carries no IPv4, and the engine
	 * offers no LSI SA pair. */
	int  (*policy_lsi_add)(struct datapath *dp, const struct in_addr *local,
			       const struct in_addr *peer, const struct hip_addr *local_loc,
			       const struct hip_addr *peer_loc);
	int  (*policy_lsi_del)(struct datapath *dp, const struct in_addr *local,
			       const struct in_addr *peer);
	int  (*sa_stats)(struct datapath *dp, uint32_t spi, bool inbound,
			 struct hip_esp_sa_stats *out);
	/* Its own counters (drops by reason, batching), at most max of them
	 * into out, for hipconf show stats; the number written. NULL: none
	 * kept in this process. */
	size_t (*counters)(struct datapath *dp, struct datapath_counter *out, size_t max);
	/* Remove everything this hipd installed. */
	void (*flush)(struct datapath *dp);
	void (*free)(struct datapath *dp);
	/* ESP that arrived on the engine's UDP socket (RFC 3948 framing: the
	 * UDP payload starts with the SPI). NULL: the datapath takes none
	 * (the kernel decapsulates on the socket itself). */
	void (*udp_input)(struct datapath *dp, const uint8_t *esp, size_t len,
			  const struct hip_addr *src, const struct hip_addr *dst, uint16_t sport);
};

struct datapath {
	const struct datapath_ops *ops;
	struct datapath_events     ev;
};

/* hip0, the TUN device both datapaths use */
#include "tun.h"

#endif
