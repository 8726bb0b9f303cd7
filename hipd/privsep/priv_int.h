/*
 * priv_int.h - inside the privileged process: its state, shared by the
 * request table and dispatch (priv_dispatch.c) and the checks and
 * execution of each request (priv.c). Not for use outside hipd/privsep.
 */
#ifndef HIPD_PRIV_INT_H
#define HIPD_PRIV_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "priv.h"
#include "priv_proto.h"

struct priv_sa_ent {
	uint32_t spi;
	bool inbound;
	bool inner_v4;             /* IPv4 between LSIs (D-22) */
	struct hip_addr outer_dst;
	struct hip_hit local, peer;
};

/* A HIT pair, or (lsi) an LSI pair for IPv4 (D-22; the HITs zero). */
struct priv_pol_ent {
	bool lsi;
	struct hip_hit local, peer;
	struct in_addr local_lsi, peer_lsi;
};

struct priv {
	int fd;
	struct datapath *dp;
	struct priv_conf conf;
	struct priv_sa_ent *sas;
	size_t n_sas, cap_sas;
	struct priv_pol_ent *pols;
	size_t n_pols, cap_pols;
	bool hello, reloaded;
	int reload_result;
	struct log_ratelimit refuse_log;
};

/* Messages to the engine: a header of ours, a non-blocking send of one
 * datagram (0, or -errno; -EIO when it went out short). */
void priv_msg_init(struct priv_hdr *h, uint16_t type, uint32_t seq, uint32_t reqid);
int priv_msg_send(struct priv *p, const void *msg, size_t len);

/* Check one request's body and execute it: 0 or -errno, the reason for a
 * refusal in why (priv.c). */
int priv_req_sa_add(struct priv *p, struct priv_sa *in, const char **why);
int priv_req_sa_del(struct priv *p, const struct priv_sa_ref *r, const char **why);
int priv_req_sa_stats(struct priv *p, const struct priv_sa_ref *r, struct priv_stats *st,
		      const char **why);
int priv_req_policy_add(struct priv *p, const struct priv_policy *pol, const char **why);
int priv_req_policy_del(struct priv *p, const struct priv_policy *pol, const char **why);
int priv_req_policy_lsi_add(struct priv *p, const struct priv_policy_lsi *pol,
			    const char **why);
int priv_req_policy_lsi_del(struct priv *p, const struct priv_policy_lsi *pol,
			    const char **why);
int priv_req_pick_source(const struct priv_addr *in, struct priv_addr *out,
			 const char **why);

#endif
