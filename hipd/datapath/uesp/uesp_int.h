/*
 * uesp_int.h - what the userspace ESP datapath's files share. Calls go one
 * way: uesp.c (datapath_ops, set-up) -> uesp_io.c (the packet path) ->
 * uesp_sa.c (SA and peer tables, accounting, events to the engine); uesp.c
 * also uses uesp_sa.c; uesp_io.c puts IPv4 fragments back together with
 * uesp_frag.c (self-contained). Not used elsewhere (but by tests/unit/check_uesp.c).
 */
#ifndef HIPD_UESP_INT_H
#define HIPD_UESP_INT_H

#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "datapath/datapath.h"
#include "esp.h"
#include "datapath/tun.h"
#include "uesp.h"
#include "uesp_frag.h"

enum {
	UESP_BATCH = 64,                /* packets per sendmmsg / recvmmsg */
	UESP_PKT_MAX = 2048,            /* one ESP packet or inner packet */
	UESP_RX_HEADROOM = 64,          /* vnet header + inner header rebuild */
	UESP_INNER_MAX = 1600,          /* a held inner packet */
	UESP_GSO_MAX = 65536 + 64,      /* one TUN super-packet */
	UESP_UDP_RX_MAX = 65536 + 64,   /* one UDP_GRO datagram + headroom */
	UESP_UDP_RX_SLOTS = 16,         /* datagrams per recvmmsg */
	UESP_BIG_MAX = 65536 + 256,     /* one ESP packet of a reassembled datagram */
	UESP_RX_BIG = UESP_RX_HEADROOM + 65536, /* one raw ESP packet over a slot */
	UESP_BUCKETS = 256,
	UESP_PEERS_MAX = 4096,          /* peers with a pending acquire, bounded */
	UESP_HOLDS_MAX = 256,           /* peers with held packets at once, bounded */
	UESP_TRAFFIC_EVERY_NS = 1000000000, /* traffic events: 1/s per SA */
	UESP_ACQUIRE_EVERY_NS = 1000000000, /* acquire events: 1/s per peer */
};

struct uesp_sa {
	struct uesp_sa *next;           /* bucket chain by SPI */
	bool inbound;
	struct esp_out out;             /* outbound SAs */
	struct esp_in in;               /* inbound SAs */
	struct hip_addr outer_src, outer_dst;
	uint16_t encap_dport;           /* ESP in UDP to this port; 0 = raw ESP */
	uint16_t encap_sport;           /* inbound: the peer's port we expect */
	struct hip_esp_sa_stats st;
	uint64_t soft_bytes, hard_bytes;
	uint64_t soft_at_ns, hard_at_ns;   /* 0 = none */
	bool soft_sent;
	uint64_t added_ns;              /* first install: lifetimes count from it */
	uint64_t traffic_ns;            /* last traffic event */
};

/* Packets waiting for a peer's SA: allocated when the first one arrives
 * while a base exchange is pending, wiped and freed once sent, so an
 * established association carries no buffer. */
struct uesp_hold {
	unsigned n;
	uint16_t len[UESP_HOLD_MAX];
	uint8_t buf[UESP_HOLD_MAX][UESP_INNER_MAX];
};

/* A peer HIT: its outbound SA, or packets waiting for one. A peer LSI
 * (D-22) has its own entry in the same table, keyed by the IPv4-mapped
 * form ::ffff:a.b.c.d (uesp_lsi_key): one lookup on the TX path for both
 * families, the hold queue and acquire rate limit as for HITs, and no
 * clash (an ORCHID never starts with 80 zero bits). */
struct uesp_peer {
	struct uesp_peer *next;
	struct hip_hit hit;             /* or the LSI key */
	struct uesp_sa *sa;
	uint64_t acquire_ns;            /* last acquire event, 0 = never */
	struct uesp_hold *hold;         /* NULL unless packets wait */
	struct hip_addr loc_local, loc_peer;  /* from policy_add */
};

struct uesp_udp_rx;

struct uesp_tx {
	int fd;
	bool v4;
	bool udp;                       /* ESP in UDP (a4/a6 carry the port) */
	struct sockaddr_in6 a6;
	struct sockaddr_in a4;
	size_t ctl_len;                 /* 0 or the source address cmsg */
	union {                         /* aligned for struct cmsghdr, whose
					 * first member is a size_t (its
					 * flexible array may not sit here) */
		size_t align;
		uint8_t b[CMSG_SPACE(sizeof(struct in6_pktinfo))];
	} ctl;
	size_t len;
	uint8_t buf[UESP_PKT_MAX];
};

struct uesp {
	struct datapath dp;
	struct hip_loop *loop;
	int tun, raw4, raw6;
	int udp4, udp6;                 /* ESP in UDP: the engine's sockets */
	bool udp_attached;              /* we read them (uesp_udp.c) */
	bool udp_gso;                   /* UDP_SEGMENT works (else off for good) */
	struct uesp_udp_rx *udp_rx;     /* receive batch (uesp_udp.c) */
	uint64_t udp_gso_sends, udp_gro_segs, udp_keepalives;
	bool vnet;
	unsigned mtu;
	uint64_t timer;                 /* 1 s lifetime tick */
	uint64_t now_ns;                /* per batch */
	struct uesp_sa *sa_out[UESP_BUCKETS], *sa_in[UESP_BUCKETS];
	struct uesp_peer *peers[UESP_BUCKETS];
	unsigned n_peers;
	unsigned n_holds;               /* peers with a hold queue */
	struct uesp_peer *last_peer;    /* one-entry cache for the TX path */
	/* counters for tests and hipconf */
	uint64_t tx_no_sa, tx_bad, tx_send_err, rx_no_sa, rx_bad, tun_write_err;
	uint64_t rx_coalesced, tx_gso;
	/* IPv4 over LSIs (D-22) dropped on the way out: header options (no
	 * BEET pseudo-header sent), a source other than the SA's LSI;
	 * tx_v4_frag: fragments read from hip0, put back together (BEET has
	 * no fragment offset; uesp_frag.h, its own counters in frag.st) */
	uint64_t tx_v4_opts, tx_v4_frag, tx_v4_src;
	struct uesp_frag frag;
	/* ESP packets over a batch slot (reassembled datagrams): sent alone;
	 * received (the kernel reassembled the outer fragments) */
	uint64_t tx_big, rx_big_pkts;
	uint8_t big_tx[UESP_BIG_MAX];
	/* TX: segments waiting for sendmmsg */
	unsigned tx_n;
	struct uesp_tx tx[UESP_BATCH];
	struct mmsghdr tx_msg[UESP_BATCH];
	struct iovec tx_iov[UESP_BATCH];
	uint8_t tun_buf[UESP_GSO_MAX];
	/* RX: recvmmsg batch */
	struct mmsghdr rx_msg[UESP_BATCH];
	struct iovec rx_iov[UESP_BATCH][2];     /* the slot, then rx_big */
	uint8_t rx_ctl[UESP_BATCH][64];
	struct sockaddr_in6 rx_name[UESP_BATCH];   /* raw IPv6: the sender */
	uint8_t rx_buf[UESP_BATCH][UESP_PKT_MAX];
	/* Raw ESP larger than its slot continues in the slot's own
	 * UESP_RX_BIG bytes here (UESP_BATCH of them, calloc'd at create:
	 * pages that no large packet touched take no memory) */
	uint8_t *rx_big;
	uint8_t gro_buf[UESP_GSO_MAX];
};

/* The peer table key of an LSI: ::ffff:a.b.c.d */
static inline void uesp_lsi_key(struct hip_hit *key, const void *lsi)
{
	memset(key->b, 0, 10);
	key->b[10] = key->b[11] = 0xff;
	memcpy(key->b + 12, lsi, 4);
}

static inline bool uesp_key_is_lsi(const struct hip_hit *key)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(key->b, mapped, sizeof(mapped));
}

static inline uint32_t uesp_sa_spi(const struct uesp_sa *sa)
{
	return sa->inbound ? sa->in.spi : sa->out.spi;
}

/* uesp_sa.c */
struct uesp_sa *uesp_sa_find(struct uesp *u, uint32_t spi, bool inbound);
/* Put a new SA (its SPI and direction set) in its table / take the SA
 * with spi out of it (returned, or NULL); uesp_sa_free wipes its keys. */
void uesp_sa_link(struct uesp *u, struct uesp_sa *sa);
struct uesp_sa *uesp_sa_unlink(struct uesp *u, uint32_t spi, bool inbound);
void uesp_sa_free(struct uesp_sa *sa);
/* The peer entry of hit (created with create, bounded by UESP_PEERS_MAX). */
struct uesp_peer *uesp_peer_find(struct uesp *u, const struct hip_hit *hit, bool create);
/* Drop the outbound SA sa from the peers that point at it. */
void uesp_peers_forget_sa(struct uesp *u, const struct uesp_sa *sa);
/* Remove a peer with its hold queue. */
void uesp_peer_unlink(struct uesp *u, struct uesp_peer *p);
/* local_hit: our HIT, or our LSI key for an LSI peer (acquire_lsi) */
void uesp_ev_acquire(struct uesp *u, struct uesp_peer *p, const uint8_t *local_hit);
void uesp_ev_traffic(struct uesp *u, struct uesp_sa *sa);
void uesp_account(struct uesp *u, struct uesp_sa *sa, size_t bytes);
/* uesp_io.c: received inner packets to hip0, TCP segments coalesced
 * (GRO-like) into one GSO write; the batch's clock. */
struct uesp_gro {
	size_t len;             /* bytes in u->gro_buf after the vnet header */
	size_t hl;              /* its IP header: 40 (IPv6) or 20 (IPv4) */
	size_t thl, mss;
	unsigned segs;
	uint32_t next_seq;
	bool closed;            /* a short segment or PSH ended it */
};
uint64_t uesp_io_now(void);
void uesp_rx_deliver(struct uesp *u, struct uesp_gro *g, uint8_t *ip, size_t len);
void uesp_gro_flush(struct uesp *u, struct uesp_gro *g);
/* One received ESP packet (SPI first) from src to dst (dst NULL when
 * unknown; sport 0 = raw ESP): decrypted and delivered. */
void uesp_rx_esp(struct uesp *u, struct uesp_gro *g, uint8_t *esp, size_t len, uint8_t hop,
		 const struct hip_addr *src, const struct hip_addr *dst, uint16_t sport);

/* uesp_udp.c: ESP in UDP on the engine's sockets (RFC 3948) */
int uesp_udp_attach(struct uesp *u);
/* One UDP datagram as read (HIP control, a keepalive, or ESP: packets of
 * seg bytes with UDP_GRO, seg 0 = one), UESP_RX_HEADROOM writable bytes
 * before p (tests/fuzz/fuzz_esp.c feeds it). */
struct hip_udp_rx;
void uesp_udp_datagram(struct uesp *u, struct uesp_gro *g, uint8_t *p, size_t len, size_t seg,
		       const struct hip_udp_rx *rx);
void uesp_udp_detach(struct uesp *u);
/* Keep a packet for a peer without SA (bounded; drops when full). */
void uesp_hold_packet(struct uesp *u, struct uesp_peer *p, const uint8_t *pkt, size_t len);
/* Wipe and free the peer's hold queue (sent, or given up). */
void uesp_hold_free(struct uesp *u, struct uesp_peer *p);

/* uesp_io.c */
void uesp_tun_readable(struct hip_loop *loop, int fd, uint32_t events, void *arg);
void uesp_raw_readable(struct hip_loop *loop, int fd, uint32_t events, void *arg);
/* Encrypt one inner IPv6 packet (IPv4 on an inner_v4 SA; no GSO, checksums
 * complete) to its peer's SA and queue it; flushes when the batch is full. */
int uesp_tx_inner(struct uesp *u, struct uesp_sa *sa, const uint8_t *ip6, size_t len);
void uesp_tx_flush(struct uesp *u);

#endif
