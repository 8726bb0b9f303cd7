/*
 * xfrm_int.h - what the kernel datapath's files share: xfrm.c (SAs,
 * policies, flush, probe), xfrm_nl.c (netlink requests in bounded,
 * wiped buffers) and xfrm_event.c (ACQUIRE and EXPIRE).
 */
#ifndef HIPD_XFRM_INT_H
#define HIPD_XFRM_INT_H

#include <linux/netlink.h>
#include <linux/xfrm.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"
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
};

struct xfrm_dp {
	struct datapath dp;        /* first: the handle the engine holds */
	int fd;                    /* requests, replies and ACKs */
	int ev_fd;                 /* XFRMGRP_ACQUIRE | XFRMGRP_EXPIRE */
	uint32_t portid, seq;
	uint32_t reqid, prio_pair, prio_acquire;
	uint8_t *rx;               /* XFRM_RX_MAX, wiped after each use */
	struct log_ratelimit ev_log;
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

/* A fresh request of type with its fixed body. */
struct nlmsghdr *req_init(struct xfrm_req *r, uint16_t type, const void *body, size_t len);
/* Append an attribute (a struct, then key bytes); -EMSGSIZE past the
 * buffer, never a partial write. */
int req_put2(struct xfrm_req *r, uint16_t type, const void *a, size_t alen, const void *b,
	     size_t blen);
int req_put(struct xfrm_req *r, uint16_t type, const void *a, size_t alen);
/* Send r (wiped afterwards whatever happens) and read the answers: with
 * dump every message until NLMSG_DONE goes to cb, else (NLM_F_ACK) the
 * answers before the ACK do. The kernel's -errno; its text in why. */
int nl_talk(struct xfrm_dp *x, struct xfrm_req *r, bool dump, xfrm_msg_cb cb, void *arg,
	    char *why, size_t whylen);
/* A NETLINK_XFRM socket bound to groups, CAP_ACK and EXT_ACK on. */
int nl_open(int groups, uint32_t *portid);
/* Log a refused-before-sending request / a failed one; return err. */
int log_bad(uint16_t type, const char *what, int err, const char *check);
int log_fail(uint16_t type, const char *what, int err, const char *why);

#endif
