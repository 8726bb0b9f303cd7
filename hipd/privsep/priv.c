/*
 * priv.c - the privileged process (priv.h): its state, the checks and the
 * execution of each of the engine's requests (their table and dispatch:
 * priv_dispatch.c; the process's loop: priv_loop.c), messages and kernel
 * events to the engine, clean-up.
 *
 * The engine parses untrusted input and so may be compromised; whatever
 * it sends is checked here before anything reaches XFRM (DESIGN.md):
 *  - the datagram has exactly the size of its type, the version and the
 *    reqid are ours, padding is zero;
 *  - inner selectors are HITs (ORCHIDv2, 2001:20::/28, RFC 7343) and the
 *    local one is one of the HITs priv learnt at start, the peer is not;
 *    for IPv4 (D-22) also LSIs: the local one the LSI of one of those
 *    HITs, the peer's in the LSI range and not ours;
 *  - SPIs are >= 256 (RFC 4303 §2.1), key lengths are those of the suite
 *    (hip_esp_suite_info), locators are unicast addresses of one family;
 *  - only SAs and policies installed through priv can be deleted or
 *    queried; an SA is replaced only for the same HIT pair.
 * Keys are wiped from every buffer they passed through.
 */
#include "config.h"
#include "priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "hip_crypto.h"
#include "base/base.h"
#include "priv_int.h"
#include "priv_proto.h"
#include "net/net.h"

/* ---- checks ---------------------------------------------------------------- */

static bool is_local_hit(const struct priv *p, const struct hip_hit *h)
{
	size_t i;

	for (i = 0; i < p->conf.n_local; i++)
		if (!memcmp(p->conf.local[i].b, h->b, HIP_HIT_LEN))
			return true;
	return false;
}

/* 0, or the reason in why. */
static int check_hits(const struct priv *p, const struct hip_hit *local,
		      const struct hip_hit *peer, const char **why)
{
	if (!hip_hit_is_orchid(local) || !hip_hit_is_orchid(peer)) {
		*why = "selector is not a HIT in 2001:20::/28";
		return -EINVAL;
	}
	if (!is_local_hit(p, local)) {
		*why = "local HIT is not one of ours";
		return -EPERM;
	}
	if (is_local_hit(p, peer)) {
		*why = "peer HIT is one of ours";
		return -EINVAL;
	}
	return 0;
}

static bool is_local_lsi(const struct priv *p, const struct in_addr *lsi)
{
	size_t i;

	for (i = 0; i < p->conf.n_local; i++)
		if (lsi->s_addr && p->conf.local_lsi[i].s_addr == lsi->s_addr)
			return true;
	return false;
}

/* Neither the network nor the broadcast address of the range (D-20: the
 * usable LSIs). */
static bool lsi_host_part_ok(const struct in_addr *lsi, const struct hip_lsi_range *r)
{
	uint32_t host_mask = r->prefix >= 32 ? 0 : 0xffffffffu >> r->prefix;
	uint32_t host = ntohl(lsi->s_addr) & host_mask;

	return r->prefix > 30 || (host != 0 && host != host_mask);
}

/* IPv4 between LSIs (D-22): 0, or the reason in why. */
static int check_lsis(const struct priv *p, const struct in_addr *local,
		      const struct in_addr *peer, const char **why)
{
	uint8_t b[4];

	if (!local->s_addr || !peer->s_addr) {
		*why = "LSI is 0.0.0.0";
		return -EINVAL;
	}
	if (!is_local_lsi(p, local)) {
		*why = "local LSI is not one of ours";
		return -EPERM;
	}
	memcpy(b, &peer->s_addr, sizeof(b));
	if (hip_hosts_lsi_problem(b, &p->conf.lsi_range) ||
	    !lsi_host_part_ok(peer, &p->conf.lsi_range)) {
		*why = "peer LSI is not in the LSI range";
		return -EINVAL;
	}
	if (is_local_lsi(p, peer)) {
		*why = "peer LSI is one of ours";
		return -EINVAL;
	}
	return 0;
}

static bool addr_unicast(const struct hip_addr *a)
{
	const struct in6_addr *v6 = &a->in6;

	if (hip_addr_is_v4(a)) {
		uint32_t v4 = ntohl(hip_addr_v4(a).s_addr);

		return v4 != 0 && v4 != 0xffffffffu && (v4 >> 28) != 0xe;   /* 224/4 */
	}
	return !IN6_IS_ADDR_UNSPECIFIED(v6) && !IN6_IS_ADDR_MULTICAST(v6);
}

static int check_locators(const struct hip_addr *a, const struct hip_addr *b, const char **why)
{
	if (!addr_unicast(a) || !addr_unicast(b)) {
		*why = "locator is not a unicast address";
		return -EINVAL;
	}
	if (hip_addr_is_v4(a) != hip_addr_is_v4(b)) {
		*why = "locators of different families";
		return -EINVAL;
	}
	return 0;
}

static bool all_zero(const void *buf, size_t len)
{
	const uint8_t *b = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

static struct priv_sa_ent *sa_find(struct priv *p, uint32_t spi, bool inbound)
{
	size_t i;

	for (i = 0; i < p->n_sas; i++)
		if (p->sas[i].spi == spi && p->sas[i].inbound == inbound)
			return &p->sas[i];
	return NULL;
}

static struct priv_pol_ent *pol_find(struct priv *p, const struct hip_hit *local,
				     const struct hip_hit *peer)
{
	size_t i;

	for (i = 0; i < p->n_pols; i++)
		if (!p->pols[i].lsi && !memcmp(&p->pols[i].local, local, sizeof(*local)) &&
		    !memcmp(&p->pols[i].peer, peer, sizeof(*peer)))
			return &p->pols[i];
	return NULL;
}

static struct priv_pol_ent *pol_lsi_find(struct priv *p, const struct in_addr *local,
					 const struct in_addr *peer)
{
	size_t i;

	for (i = 0; i < p->n_pols; i++)
		if (p->pols[i].lsi && p->pols[i].local_lsi.s_addr == local->s_addr &&
		    p->pols[i].peer_lsi.s_addr == peer->s_addr)
			return &p->pols[i];
	return NULL;
}

/* A datapath, and room for one more policy entry unless it updates one
 * (ent): 0, or -errno with why. */
static int pol_room(struct priv *p, const struct priv_pol_ent *ent, const char **why)
{
	if (!ent && p->n_pols == PRIV_MAX_POLICIES) {
		*why = "too many policies";
		return -ENOSPC;
	}
	if (!p->dp) {
		*why = "no kernel datapath";
		return -ENOTSUP;
	}
	if (!ent && p->n_pols == p->cap_pols) {
		size_t cap = p->cap_pols ? p->cap_pols * 2 : 16;
		struct priv_pol_ent *n = realloc(p->pols, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->pols = n;
		p->cap_pols = cap;
	}
	return 0;
}

/* ---- requests ----------------------------------------------------------------- */

int priv_req_sa_add(struct priv *p, struct priv_sa *in, const char **why)
{
	const struct hip_hit *local = in->inbound ? &in->inner_dst : &in->inner_src;
	const struct hip_hit *peer = in->inbound ? &in->inner_src : &in->inner_dst;
	struct hip_esp_suite_info info;
	struct priv_sa_ent *ent;
	struct hip_esp_sa sa;
	int ret;

	if (in->inbound > 1 || in->inner_v4 > 1 || in->pad1) {
		*why = "malformed SA";
		return -EINVAL;
	}
	if (in->inner_v4) {
		ret = in->inbound ? check_lsis(p, &in->lsi_dst, &in->lsi_src, why)
				  : check_lsis(p, &in->lsi_src, &in->lsi_dst, why);
		if (ret)
			return ret;
	} else if (in->lsi_src.s_addr || in->lsi_dst.s_addr) {
		*why = "LSIs on an SA without IPv4 inner";
		return -EINVAL;
	}
	/* ESP in UDP: both ports or none, and our side is our NAT port */
	if (!in->encap_sport != !in->encap_dport ||
	    (in->encap_sport && (in->inbound ? in->encap_dport : in->encap_sport) != p->conf.nat_port)) {
		*why = "UDP encapsulation ports";
		return -EINVAL;
	}
	if (in->spi < PRIV_SPI_MIN) {
		*why = "SPI below 256";
		return -EINVAL;
	}
	ret = check_hits(p, local, peer, why);
	if (ret)
		return ret;
	ret = check_locators(&in->outer_src, &in->outer_dst, why);
	if (ret)
		return ret;
	if (hip_esp_suite_info(in->suite, &info) < 0) {
		*why = "unknown ESP suite";
		return -EINVAL;
	}
	if (in->enc_len != info.enc_key_len || in->auth_len != info.auth_key_len ||
	    in->enc_len > HIP_ESP_KEY_MAX || in->auth_len > HIP_ESP_KEY_MAX ||
	    !all_zero(in->enc_key + in->enc_len, HIP_ESP_KEY_MAX - in->enc_len) ||
	    !all_zero(in->auth_key + in->auth_len, HIP_ESP_KEY_MAX - in->auth_len)) {
		*why = "key lengths do not match the suite";
		return -EINVAL;
	}
	if (in->replay_window == 0 || in->replay_window > PRIV_REPLAY_MAX) {
		*why = "replay window out of range";
		return -EINVAL;
	}
	ent = sa_find(p, in->spi, in->inbound);
	if (ent && (memcmp(&ent->local, local, sizeof(*local)) ||
		    memcmp(&ent->peer, peer, sizeof(*peer)) || ent->inner_v4 != in->inner_v4)) {
		*why = "SPI in use by another association";
		return -EEXIST;
	}
	if (!ent && p->n_sas == PRIV_MAX_SAS) {
		*why = "too many SAs";
		return -ENOSPC;
	}
	if (!p->dp) {
		*why = "no kernel datapath";
		return -ENOTSUP;
	}
	if (!ent && p->n_sas == p->cap_sas) {
		size_t cap = p->cap_sas ? p->cap_sas * 2 : 16;
		struct priv_sa_ent *n = realloc(p->sas, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->sas = n;
		p->cap_sas = cap;
	}
	memset(&sa, 0, sizeof(sa));
	sa.spi = in->spi;
	sa.inbound = in->inbound;
	sa.outer_src = in->outer_src;
	sa.outer_dst = in->outer_dst;
	sa.inner_src = in->inner_src;
	sa.inner_dst = in->inner_dst;
	sa.inner_v4 = in->inner_v4;
	sa.lsi_src = in->lsi_src;
	sa.lsi_dst = in->lsi_dst;
	sa.suite = in->suite;
	memcpy(sa.enc_key, in->enc_key, in->enc_len);
	sa.enc_len = in->enc_len;
	memcpy(sa.auth_key, in->auth_key, in->auth_len);
	sa.auth_len = in->auth_len;
	sa.replay_window = in->replay_window;
	sa.encap_sport = in->encap_sport;
	sa.encap_dport = in->encap_dport;
	sa.soft_bytes = in->soft_bytes;
	sa.hard_bytes = in->hard_bytes;
	sa.soft_seconds = in->soft_seconds;
	sa.hard_seconds = in->hard_seconds;
	ret = p->dp->ops->sa_add(p->dp, &sa);
	hip_wipe(&sa, sizeof(sa));
	if (ret < 0) {
		*why = "the datapath refused it";
		return ret;
	}
	if (!ent)
		ent = &p->sas[p->n_sas++];
	ent->spi = in->spi;
	ent->inbound = in->inbound;
	ent->inner_v4 = in->inner_v4;
	ent->outer_dst = in->outer_dst;
	ent->local = *local;
	ent->peer = *peer;
	return 0;
}

int priv_req_sa_del(struct priv *p, const struct priv_sa_ref *r, const char **why)
{
	struct priv_sa_ent *ent;
	int ret;

	if (r->inbound > 1 || !all_zero(r->pad, sizeof(r->pad))) {
		*why = "malformed SA reference";
		return -EINVAL;
	}
	ent = sa_find(p, r->spi, r->inbound);
	if (!ent) {
		*why = "not an SA priv installed";
		return -EPERM;
	}
	/* The kernel keys an SA by (destination, SPI): the destination is the
	 * one priv installed, whatever the request says (an SPI at another
	 * destination may be another daemon's). */
	ret = p->dp ? p->dp->ops->sa_del(p->dp, r->spi, r->inbound, &ent->outer_dst) : 0;
	/* -ESRCH (the kernel's DELSA answer; -ENOENT from other datapaths):
	 * the kernel already removed it (hard lifetime). Forgotten here too,
	 * else each such SA would hold a slot of the table for good. */
	if (ret < 0 && ret != -ENOENT && ret != -ESRCH) {
		*why = "the datapath refused it";
		return ret;
	}
	*ent = p->sas[--p->n_sas];
	return ret;
}

int priv_req_sa_stats(struct priv *p, const struct priv_sa_ref *r, struct priv_stats *st,
		      const char **why)
{
	struct hip_esp_sa_stats s;
	int ret;

	if (r->inbound > 1 || !all_zero(r->pad, sizeof(r->pad))) {
		*why = "malformed SA reference";
		return -EINVAL;
	}
	if (!sa_find(p, r->spi, r->inbound)) {
		*why = "not an SA priv installed";
		return -EPERM;
	}
	if (!p->dp || !p->dp->ops->sa_stats)
		return -ENOTSUP;
	memset(&s, 0, sizeof(s));
	ret = p->dp->ops->sa_stats(p->dp, r->spi, r->inbound, &s);
	st->packets = s.packets;
	st->bytes = s.bytes;
	st->replay_drops = s.replay_drops;
	st->auth_drops = s.auth_drops;
	return ret;
}

int priv_req_policy_add(struct priv *p, const struct priv_policy *pol, const char **why)
{
	struct priv_pol_ent *ent;
	int ret;

	ret = check_hits(p, &pol->local, &pol->peer, why);
	if (ret)
		return ret;
	ret = check_locators(&pol->local_loc, &pol->peer_loc, why);
	if (ret)
		return ret;
	ent = pol_find(p, &pol->local, &pol->peer);
	ret = pol_room(p, ent, why);
	if (ret)
		return ret;
	ret = p->dp->ops->policy_add(p->dp, &pol->local, &pol->peer, &pol->local_loc,
				     &pol->peer_loc);
	if (ret < 0) {
		*why = "the datapath refused it";
		return ret;
	}
	if (!ent) {
		ent = &p->pols[p->n_pols++];
		memset(ent, 0, sizeof(*ent));
		ent->local = pol->local;
		ent->peer = pol->peer;
	}
	return 0;
}

int priv_req_policy_del(struct priv *p, const struct priv_policy *pol, const char **why)
{
	struct priv_pol_ent *ent = pol_find(p, &pol->local, &pol->peer);
	int ret;

	if (!ent || !all_zero(&pol->local_loc, sizeof(pol->local_loc)) ||
	    !all_zero(&pol->peer_loc, sizeof(pol->peer_loc))) {
		*why = !ent ? "not a policy priv installed" : "malformed policy reference";
		return !ent ? -EPERM : -EINVAL;
	}
	ret = p->dp ? p->dp->ops->policy_del(p->dp, &pol->local, &pol->peer) : 0;
	if (ret < 0 && ret != -ENOENT) {
		*why = "the datapath refused it";
		return ret;
	}
	*ent = p->pols[--p->n_pols];
	return ret;
}

int priv_req_policy_lsi_add(struct priv *p, const struct priv_policy_lsi *pol,
			    const char **why)
{
	struct priv_pol_ent *ent;
	int ret;

	ret = check_lsis(p, &pol->local, &pol->peer, why);
	if (ret)
		return ret;
	ret = check_locators(&pol->local_loc, &pol->peer_loc, why);
	if (ret)
		return ret;
	ent = pol_lsi_find(p, &pol->local, &pol->peer);
	ret = pol_room(p, ent, why);
	if (ret)
		return ret;
	if (!p->dp->ops->policy_lsi_add) {
		*why = "the datapath carries no IPv4";
		return -ENOTSUP;
	}
	ret = p->dp->ops->policy_lsi_add(p->dp, &pol->local, &pol->peer, &pol->local_loc,
					 &pol->peer_loc);
	if (ret < 0) {
		*why = "the datapath refused it";
		return ret;
	}
	if (!ent) {
		ent = &p->pols[p->n_pols++];
		memset(ent, 0, sizeof(*ent));
		ent->lsi = true;
		ent->local_lsi = pol->local;
		ent->peer_lsi = pol->peer;
	}
	return 0;
}

int priv_req_policy_lsi_del(struct priv *p, const struct priv_policy_lsi *pol,
			    const char **why)
{
	struct priv_pol_ent *ent = pol_lsi_find(p, &pol->local, &pol->peer);
	int ret;

	if (!ent || !all_zero(&pol->local_loc, sizeof(pol->local_loc)) ||
	    !all_zero(&pol->peer_loc, sizeof(pol->peer_loc))) {
		*why = !ent ? "not a policy priv installed" : "malformed policy reference";
		return !ent ? -EPERM : -EINVAL;
	}
	ret = p->dp && p->dp->ops->policy_lsi_del
		      ? p->dp->ops->policy_lsi_del(p->dp, &pol->local, &pol->peer) : 0;
	if (ret < 0 && ret != -ENOENT) {
		*why = "the datapath refused it";
		return ret;
	}
	*ent = p->pols[--p->n_pols];
	return ret;
}

void priv_flush(struct priv *p)
{
	/* by reqid: also the catch-all ACQUIRE policies set up at start */
	if (p->dp)
		p->dp->ops->flush(p->dp);
	p->n_sas = p->n_pols = 0;
}

/* The route lookup needs no privilege, but a socket, which the engine may
 * not open. */
int priv_req_pick_source(const struct priv_addr *in, struct priv_addr *out,
			 const char **why)
{
	if (in->error || in->pad || !addr_unicast(&in->addr)) {
		*why = "not a unicast destination";
		return -EINVAL;
	}
	return hip_sock_pick_source(&in->addr, &out->addr);
}

/* ---- messages ------------------------------------------------------------------ */

void priv_msg_init(struct priv_hdr *h, uint16_t type, uint32_t seq, uint32_t reqid)
{
	memset(h, 0, sizeof(*h));
	h->version = PRIV_PROTO_VERSION;
	h->type = type;
	h->seq = seq;
	h->reqid = reqid;
}

int priv_msg_send(struct priv *p, const void *msg, size_t len)
{
	ssize_t n = send(p->fd, msg, len, MSG_NOSIGNAL | MSG_DONTWAIT);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

/* ---- events from the kernel ------------------------------------------------------ */

static void ev_acquire(void *arg, const struct hip_hit *local, const struct hip_hit *peer)
{
	struct priv *p = arg;
	struct priv_msg_hit_pair m;

	priv_msg_init(&m.h, PRIV_EV_ACQUIRE, 0, p->conf.reqid);
	m.hits.local = *local;
	m.hits.peer = *peer;
	if (priv_msg_send(p, &m, sizeof(m)) < 0)
		log_ratelimited(&p->refuse_log, LOG_WARNING, "privsep: ACQUIRE not passed on");
}

/* IPv4 from our LSI to a peer's without SAs (D-22): only from the
 * catch-all policies of our LSIs. */
static void ev_acquire_lsi(void *arg, const struct in_addr *local, const struct in_addr *peer)
{
	struct priv *p = arg;
	struct priv_msg_lsi_pair m;

	if (!is_local_lsi(p, local) || !peer->s_addr)
		return;
	priv_msg_init(&m.h, PRIV_EV_ACQUIRE_LSI, 0, p->conf.reqid);
	m.lsis.local = *local;
	m.lsis.peer = *peer;
	if (priv_msg_send(p, &m, sizeof(m)) < 0)
		log_ratelimited(&p->refuse_log, LOG_WARNING, "privsep: ACQUIRE not passed on");
}

static void ev_expire(void *arg, uint32_t spi, bool hard)
{
	struct priv *p = arg;
	struct priv_msg_expire m;

	priv_msg_init(&m.h, PRIV_EV_EXPIRE, 0, p->conf.reqid);
	memset(&m.exp, 0, sizeof(m.exp));
	m.exp.spi = spi;
	m.exp.hard = hard;
	if (priv_msg_send(p, &m, sizeof(m)) < 0)
		log_ratelimited(&p->refuse_log, LOG_WARNING, "privsep: EXPIRE not passed on");
}

/* Only for an inbound SA priv installed for this engine: priv passes on
 * nothing about SAs that are not the engine's. */
static void ev_udp_peer(void *arg, uint32_t spi, const struct hip_addr *src, uint16_t sport)
{
	struct priv *p = arg;
	struct priv_msg_mapping m;

	if (!sport || !sa_find(p, spi, true))
		return;
	priv_msg_init(&m.h, PRIV_EV_MAPPING, 0, p->conf.reqid);
	memset(&m.map, 0, sizeof(m.map));
	m.map.spi = spi;
	m.map.port = sport;
	m.map.addr = *src;
	if (priv_msg_send(p, &m, sizeof(m)) < 0)
		log_ratelimited(&p->refuse_log, LOG_WARNING, "privsep: MAPPING not passed on");
}

/* The kernel dropped ESP for an SPI we hold no SA of; the engine decides
 * (an ICMP to the sender, or a base exchange with a mapped peer). */
static void ev_no_sa(void *arg, const struct hip_addr *src, const struct hip_addr *dst,
		     uint16_t sport, const uint8_t *esp, size_t len)
{
	struct priv *p = arg;
	struct priv_msg_no_sa m;

	(void)sport;
	if (len < 8)
		return;
	priv_msg_init(&m.h, PRIV_EV_NO_SA, 0, p->conf.reqid);
	memset(&m.nosa, 0, sizeof(m.nosa));
	m.nosa.src = *src;
	if (dst) {
		m.nosa.dst = *dst;
		m.nosa.have_dst = 1;
	}
	m.nosa.len = (uint16_t)(len < PRIV_NO_SA_QUOTE ? len : PRIV_NO_SA_QUOTE);
	memcpy(m.nosa.esp, esp, m.nosa.len);
	if (priv_msg_send(p, &m, sizeof(m)) < 0)
		log_ratelimited(&p->refuse_log, LOG_WARNING, "privsep: NO_SA not passed on");
}

int priv_send_reload(struct priv *p)
{
	struct priv_hdr h;

	priv_msg_init(&h, PRIV_EV_RELOAD, 0, p->conf.reqid);
	return priv_msg_send(p, &h, sizeof(h));
}

/* ---- life cycle ---------------------------------------------------------------------- */

int priv_create(struct priv **out, int fd, struct datapath *dp, const struct priv_conf *conf)
{
	struct priv *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return -ENOMEM;
	p->fd = fd;
	p->dp = dp;
	p->conf = *conf;
	if (p->conf.n_local > PRIV_LOCAL_HITS_MAX)
		p->conf.n_local = PRIV_LOCAL_HITS_MAX;
	log_ratelimit_init(&p->refuse_log, 1000, 10);
	if (dp) {
		dp->ev.arg = p;
		dp->ev.acquire = ev_acquire;
		dp->ev.acquire_lsi = ev_acquire_lsi;
		dp->ev.expire = ev_expire;
		dp->ev.udp_peer = ev_udp_peer;
		dp->ev.no_sa = ev_no_sa;
		dp->ev.traffic = NULL;
	}
	*out = p;
	return 0;
}

void priv_free(struct priv *p)
{
	if (!p)
		return;
	free(p->sas);
	free(p->pols);
	free(p);
}

bool priv_hello_seen(const struct priv *p)
{
	return p->hello;
}

bool priv_take_reloaded(struct priv *p, int *result)
{
	bool r = p->reloaded;

	p->reloaded = false;
	if (r && result)
		*result = p->reload_result;
	return r;
}

size_t priv_sa_count(const struct priv *p)
{
	return p->n_sas;
}

size_t priv_policy_count(const struct priv *p)
{
	return p->n_pols;
}
