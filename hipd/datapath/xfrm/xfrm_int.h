/*
 * xfrm_int.h - what the kernel datapath's files share. Calls go one way:
 * xfrm.c (datapath_ops, flush, probe, the catch-all policy) -> xfrm_replace.c
 * (sa_add with replace in place, larval states) -> xfrm_msg.c (selectors,
 * algorithms, SA and policy messages, dumps) -> xfrm_nl.c (netlink requests
 * in bounded, wiped buffers); xfrm_event.c (ACQUIRE, EXPIRE and MAPPING)
 * stands alone. Not used outside hipd/datapath/xfrm/.
 */
#ifndef HIPD_XFRM_INT_H
#define HIPD_XFRM_INT_H

#include <linux/netlink.h>
#include <linux/xfrm.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "xfrm.h"

enum {
	XFRM_REQ_MAX        = 2048,   /* the largest request: an SA with keys + ESN */
	XFRM_RX_MAX         = 32768,  /* netlink caps a dump skb at 32 KiB */
	XFRM_COLLECT_MAX    = 65536,  /* entries removed by one flush */
	XFRM_REPLAY_DEFAULT = 128,
	XFRM_REPLAY_MAX     = 4096,
	XFRM_ACK_TIMEOUT_S  = 5,
	XFRM_EV_BUDGET      = 256,    /* events per readable callback */
	XFRM_WHY_MAX        = 160,
	XFRM_SEQ_SKIP       = 1024,   /* outbound counter advance on a carried-over replace */
	XFRM_LARVAL_MAX     = 64,     /* larval states removed per call */
	XFRM_MAP_PER_S      = 8,      /* MAPPING events passed on per second */
	XFRM_MAP_REPEAT_MS  = 1000,   /* the same mapping again: not before this */
	XFRM_NOSA_SPIS_MAX  = 1000,   /* inbound SPIs one ESP filter lists (xfrm_nosa.c) */
	XFRM_NOSA_SNAP      = 128,    /* bytes of a no-SA packet read: headers and the quote */
	XFRM_NOSA_PER_S     = 20,     /* no-SA packets passed on per second */
	XFRM_NOSA_BUDGET    = 64,     /* packets per readable callback */
};

struct sock_filter;

/* xfrm_nosa.c: ESP for no SA of ours, from raw ESP sockets whose filter
 * passes only SPIs we hold no inbound SA of. */
struct xfrm_nosa {
	int fd4, fd6;                 /* -1: none (no CAP_NET_RAW, no family) */
	uint32_t spi[XFRM_NOSA_SPIS_MAX];
	size_t n;
	uint64_t seen, malformed, overflow;
	struct log_ratelimit log, rate;
};

/* The last XFRM_MSG_MAPPING passed on (xfrm_event.c): the kernel reports
 * one per packet until the SA's encapsulation is changed. */
struct xfrm_map_last {
	uint32_t spi;
	uint16_t sport;
	struct hip_addr saddr;
	uint64_t at_ns;
};

struct xfrm_dp {
	struct datapath dp;        /* first: the handle the engine holds */
	int fd;                    /* requests, replies and ACKs */
	int ev_fd;                 /* groups ACQUIRE, EXPIRE and MAPPING */
	uint32_t portid, seq;
	uint32_t reqid, prio_pair, prio_acquire;
	uint8_t *rx;               /* XFRM_RX_MAX, wiped after each use */
	struct log_ratelimit ev_log;
	struct xfrm_map_last map_last;
	struct log_ratelimit map_rl;   /* XFRM_MAP_PER_S (its decision only) */
	struct xfrm_nosa nosa;
	int ep;                    /* epoll of ev_fd and nosa's fds; -1: ev_fd alone */
};

/* A request: header, body and attributes in one aligned bounded buffer. */
struct xfrm_req {
	union {
		struct nlmsghdr n;
		uint8_t b[XFRM_REQ_MAX];
	};
} __attribute__((aligned(8)));

static inline struct xfrm_dp *to_x(struct datapath *dp)
{
	return (struct xfrm_dp *)dp;
}

typedef int (*xfrm_msg_cb)(struct xfrm_dp *x, const struct nlmsghdr *h, void *arg);

/* xfrm.c: the datapath on sockets the caller opened (xfrm_dp_create opens
 * the NETLINK_XFRM ones; tests/fuzz/fuzz_xfrm.c a socketpair standing in for
 * the kernel). Takes fd and ev_fd, also on failure. */
int xfrm_dp_create_fds(struct datapath **out, const struct xfrm_dp_conf *conf,
		       const struct datapath_events *ev, int fd, uint32_t portid, int ev_fd);

/* xfrm_nosa.c */
/* Open the raw ESP sockets (CAP_NET_RAW; -errno if neither opens). */
int  xfrm_nosa_open(struct xfrm_nosa *t);
void xfrm_nosa_close(struct xfrm_nosa *t);
/* Our inbound SA spi came (add) or went: the filters follow. */
void xfrm_nosa_spi(struct xfrm_nosa *t, uint32_t spi, bool add);
void xfrm_nosa_clear(struct xfrm_nosa *t);
/* Read fd (one of t's), passing each packet to ev->no_sa (rate-limited). */
void xfrm_nosa_read(struct xfrm_nosa *t, int fd, const struct datapath_events *ev);
/* The filter program: drop the listed SPIs, keep the first XFRM_NOSA_SNAP
 * bytes of the rest; v4: the socket reads the IPv4 header first. */
int  xfrm_nosa_filter(const uint32_t *spi, size_t n_spi, bool v4, struct sock_filter *out,
		      size_t cap, size_t *len);

/* xfrm_nl.c */
/* A fresh request of type with its fixed body. */
struct nlmsghdr *xfrm_req_init(struct xfrm_req *r, uint16_t type, const void *body, size_t len);
/* Append an attribute (a struct, then key bytes); -EMSGSIZE past the
 * buffer, never a partial write. */
int xfrm_req_put2(struct xfrm_req *r, uint16_t type, const void *a, size_t alen, const void *b,
		  size_t blen);
int xfrm_req_put(struct xfrm_req *r, uint16_t type, const void *a, size_t alen);
/* Send r (wiped afterwards whatever happens) and read the answers: with
 * dump every message until NLMSG_DONE goes to cb, else (NLM_F_ACK) the
 * answers before the ACK do. The kernel's -errno; its text in why. */
int xfrm_nl_talk(struct xfrm_dp *x, struct xfrm_req *r, bool dump, xfrm_msg_cb cb, void *arg,
		 char *why, size_t whylen);
/* A NETLINK_XFRM socket bound to groups, CAP_ACK and EXT_ACK on. */
int xfrm_nl_open(int groups, uint32_t *portid);
/* Log a refused-before-sending request / a failed one; return err. */
int xfrm_log_bad(uint16_t type, const char *what, int err, const char *check);
int xfrm_log_fail(uint16_t type, const char *what, int err, const char *why);

/* xfrm_msg.c */
struct alg_spec {
	const char *enc, *auth, *aead;
	size_t enc_len, auth_len;    /* bytes the engine hands over */
	unsigned trunc_bits, icv_bits;
};
/* RFC 7402 §5.1.2 suite -> Linux algorithm names and key sizes. */
int xfrm_alg_for_suite(uint16_t suite, struct alg_spec *s);
uint16_t xfrm_addr_family(const struct hip_addr *a);
/* a as an xfrm_address_t (IPv4 in its first 4 bytes). */
void xfrm_addr_from_hip(const struct hip_addr *a, xfrm_address_t *out);
void xfrm_sel_hits(struct xfrm_selector *sel, const struct hip_hit *src, uint8_t src_len,
		   const struct hip_hit *dst, uint8_t dst_len);
/* The same for IPv4 between LSIs (D-22). */
void xfrm_sel_lsis(struct xfrm_selector *sel, const struct in_addr *src, uint8_t src_len,
		   const struct in_addr *dst, uint8_t dst_len);
/* The selector of an SA: its HITs/128, or its LSIs/32 when inner_v4. */
void xfrm_sel_of_sa(struct xfrm_selector *sel, const struct hip_esp_sa *sa);
/* Same family, source and destination address (prefix lengths aside)? */
bool xfrm_sel_same_hosts(const struct xfrm_selector *a, const struct xfrm_selector *b);
void xfrm_lifetime_inf(struct xfrm_lifetime_cfg *lft);
void xfrm_sa_what(const struct hip_esp_sa *sa, char *buf, size_t len);
int xfrm_sa_new(struct xfrm_dp *x, const struct hip_esp_sa *sa, const void *esn, size_t esn_len,
		bool quiet, char *kwhy, size_t kwhylen);
/* The same message as XFRM_MSG_UPDSA: the kernel changes the valid SA's
 * encapsulation and lifetimes in place, nothing else (xfrm_replace.c). */
int xfrm_sa_update(struct xfrm_dp *x, const struct hip_esp_sa *sa);
int xfrm_sa_del_raw(struct xfrm_dp *x, const xfrm_address_t *daddr, uint16_t family,
		    uint32_t spi_net, uint8_t proto, char *why, size_t whylen);
/* XFRM_MSG_NEWPOLICY or UPDPOLICY (type) with one ESP BEET template of
 * our reqid, tmpl_src -> tmpl_dst. */
int xfrm_policy_put(struct xfrm_dp *x, uint16_t type, const struct xfrm_selector *sel,
		    uint8_t dir, uint32_t prio, const struct hip_addr *tmpl_src,
		    const struct hip_addr *tmpl_dst, const char *what);
/* Is the policy in h one of ours (every template has our reqid)? Its
 * index and direction go to *id. */
bool xfrm_policy_is_ours(const struct xfrm_dp *x, const struct nlmsghdr *h,
			 struct xfrm_userpolicy_id *id);
int xfrm_policy_del_by_index(struct xfrm_dp *x, const struct xfrm_userpolicy_id *id,
			     char *why, size_t whylen);
/* Remove the policy (sel, dir) if it is ours. -ENOENT if absent, -EPERM
 * if it belongs to someone else. */
int xfrm_policy_del_owned(struct xfrm_dp *x, const struct xfrm_selector *sel, uint8_t dir,
			  const char *what);
int xfrm_policy_set(struct xfrm_dp *x, const struct xfrm_selector *sel, uint8_t dir,
		    const struct hip_addr *tmpl_src, const struct hip_addr *tmpl_dst, bool create,
		    bool *created, const char *what);
/* Dump SAs or policies (type GETSA / GETPOLICY), each message to cb. */
int xfrm_dump(struct xfrm_dp *x, uint16_t type, xfrm_msg_cb cb, void *arg);

/* xfrm_replace.c */
/* datapath_ops.sa_add: install, or replace the SA with this SPI and HIT
 * pair in place (datapath.h). */
int xfrm_op_sa_add(struct datapath *dp, const struct hip_esp_sa *sa);
/* Remove the larval (ACQUIRE) states of ours for local -> peer, or all of
 * ours when local is NULL; the number removed. */
int xfrm_larval_purge(struct xfrm_dp *x, const struct hip_hit *local, const struct hip_hit *peer);
/* The same for the flow of sel (its family and addresses; NULL: all). */
int xfrm_larval_purge_sel(struct xfrm_dp *x, const struct xfrm_selector *sel);

#endif
