/*
 * xfrm.c - the kernel datapath: ESP BEET SAs and policies over NETLINK_XFRM
 * (xfrm.h; RFC 7402 §3, App. B; docs/protocol.md §10).
 * This file holds the operations: the datapath_ops table (sa_add is
 * xfrm_replace.c's), the pair policies (HITs, and LSIs for IPv4, D-22),
 * the catch-all ACQUIRE policies, flush, the ESP probe and
 * the life cycle; the messages they send are built in xfrm_msg.c.
 *
 * netlink is spoken directly rather than through libnl-xfrm: libnl frees
 * SA key blobs and its receive buffers without wiping them,
 * while here every request lives in a bounded stack buffer and every
 * received buffer is ours, so both are wiped. Each request is
 * sent with NLM_F_ACK and its errno is reported with the message name and
 * the kernel's extended-ACK text (xfrm_nl.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/xfrm.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "hip_crypto.h"
#include "hip_wire.h"
#include "xfrm_int.h"

/* ---- SAs ---------------------------------------------------------------------- */

static bool nosa_on(const struct xfrm_dp *x)
{
	return x->nosa.fd4 >= 0 || x->nosa.fd6 >= 0;
}

/* An inbound SA's ESP is the kernel's: the no-SA filter stops passing it. */
static int x_sa_add(struct datapath *dp, const struct hip_esp_sa *sa)
{
	struct xfrm_dp *x = to_x(dp);
	int ret = xfrm_op_sa_add(dp, sa);

	if (ret == 0 && sa->inbound && nosa_on(x))
		xfrm_nosa_spi(&x->nosa, sa->spi, true);
	return ret;
}

static int x_sa_del(struct datapath *dp, uint32_t spi, bool inbound,
		    const struct hip_addr *outer_dst)
{
	struct xfrm_dp *x = to_x(dp);
	char what[96], a[INET6_ADDRSTRLEN], why[XFRM_WHY_MAX];
	xfrm_address_t daddr;
	int ret;

	xfrm_addr_from_hip(outer_dst, &daddr);
	ret = xfrm_sa_del_raw(x, &daddr, xfrm_addr_family(outer_dst), htonl(spi), IPPROTO_ESP, why,
			      sizeof(why));
	if (inbound && nosa_on(x) && (ret == 0 || ret == -ESRCH))
		xfrm_nosa_spi(&x->nosa, spi, false);
	if (ret < 0) {
		snprintf(what, sizeof(what), "%s SA spi 0x%08x dst %s",
			 inbound ? "inbound" : "outbound", spi,
			 hip_addr_to_str(outer_dst, a, sizeof(a)));
		if (ret == -ESRCH) {   /* gone already: expired, or removed by hand */
			log_info("xfrm: %s: already gone", what);
			return ret;
		}
		return xfrm_log_fail(XFRM_MSG_DELSA, what, ret, why);
	}
	return 0;
}

struct sa_stats_req {
	uint32_t spi_net;
	bool found;
	struct hip_esp_sa_stats *out;
};

/* One SA of a dump (the messages also hold keys; xfrm_nl_talk wipes the
 * receive buffer): the counters of ours with that SPI. */
static int sa_stats_cb(struct xfrm_dp *x, const struct nlmsghdr *h, void *arg)
{
	struct sa_stats_req *q = arg;
	struct xfrm_usersa_info info;

	if (q->found || h->nlmsg_type != XFRM_MSG_NEWSA ||
	    h->nlmsg_len < NLMSG_LENGTH(sizeof(info)))
		return 0;
	memcpy(&info, NLMSG_DATA(h), sizeof(info));
	if (info.reqid == x->reqid && info.id.spi == q->spi_net &&
	    info.id.proto == IPPROTO_ESP) {
		q->found = true;
		q->out->packets = info.curlft.packets;
		q->out->bytes = info.curlft.bytes;
		q->out->replay_drops = info.stats.replay + info.stats.replay_window;
		q->out->auth_drops = info.stats.integrity_failed;
	}
	hip_wipe(&info, sizeof(info));
	return 0;
}

/* The API names an SA by SPI only (GETSA also needs its destination): a
 * dump, which is fine for hipconf's occasional look. */
static int x_sa_stats(struct datapath *dp, uint32_t spi, bool inbound,
		      struct hip_esp_sa_stats *out)
{
	struct sa_stats_req q = { .spi_net = htonl(spi), .out = out };
	int ret;

	(void)inbound;
	memset(out, 0, sizeof(*out));
	ret = xfrm_dump(to_x(dp), XFRM_MSG_GETSA, sa_stats_cb, &q);
	if (ret < 0)
		return ret;
	return q.found ? 0 : -ENOENT;
}

/* ---- policies ------------------------------------------------------------------- */

/* The out/in pair for the flows out (local -> peer) and in (the
 * reverse), named name in the log: added, or moved to new locators
 * (UPDATE). The larval state an ACQUIRE left for the flow is removed once
 * the pair's policies carry its traffic (xfrm_replace.c). */
static int pair_set(struct xfrm_dp *x, const struct xfrm_selector *out,
		    const struct xfrm_selector *in, const char *name,
		    const struct hip_addr *local_loc, const struct hip_addr *peer_loc)
{
	char what[96];
	bool out_created;
	int ret;

	if (xfrm_addr_family(local_loc) != xfrm_addr_family(peer_loc))
		return -EINVAL;
	snprintf(what, sizeof(what), "out policy to %s", name);
	ret = xfrm_policy_set(x, out, XFRM_POLICY_OUT, local_loc, peer_loc, true, &out_created,
			      what);
	if (ret < 0)
		return ret;
	snprintf(what, sizeof(what), "in policy from %s", name);
	ret = xfrm_policy_set(x, in, XFRM_POLICY_IN, peer_loc, local_loc, true, NULL, what);
	if (ret < 0) {
		if (out_created) {
			snprintf(what, sizeof(what), "out policy to %s (undo)", name);
			xfrm_policy_del_owned(x, out, XFRM_POLICY_OUT, what);
		}
		return ret;
	}
	xfrm_larval_purge_sel(x, out);
	return 0;
}

static int pair_del(struct xfrm_dp *x, const struct xfrm_selector *out,
		    const struct xfrm_selector *in, const char *name)
{
	char what[96];
	int ret, ret2;

	snprintf(what, sizeof(what), "out policy to %s", name);
	ret = xfrm_policy_del_owned(x, out, XFRM_POLICY_OUT, what);
	snprintf(what, sizeof(what), "in policy from %s", name);
	ret2 = xfrm_policy_del_owned(x, in, XFRM_POLICY_IN, what);
	return ret < 0 ? ret : ret2;
}

static int x_policy_add(struct datapath *dp, const struct hip_hit *local,
			const struct hip_hit *peer, const struct hip_addr *local_loc,
			const struct hip_addr *peer_loc)
{
	struct xfrm_selector out, in;
	char hit[HIP_HIT_STR_LEN];

	hip_hit_to_str(peer, hit, sizeof(hit));
	xfrm_sel_hits(&out, local, 128, peer, 128);
	xfrm_sel_hits(&in, peer, 128, local, 128);
	return pair_set(to_x(dp), &out, &in, hit, local_loc, peer_loc);
}

static int x_policy_del(struct datapath *dp, const struct hip_hit *local,
			const struct hip_hit *peer)
{
	struct xfrm_selector out, in;
	char hit[HIP_HIT_STR_LEN];

	hip_hit_to_str(peer, hit, sizeof(hit));
	xfrm_sel_hits(&out, local, 128, peer, 128);
	xfrm_sel_hits(&in, peer, 128, local, 128);
	return pair_del(to_x(dp), &out, &in, hit);
}

/* IPv4 between two LSIs (D-22): the same pair with AF_INET selectors
 * LSI/32; the template's outer family is the locators' (IPv4 or IPv6:
 * BEET may change the family). */
static void lsi_name(const struct in_addr *local, const struct in_addr *peer, char *buf,
		     size_t len)
{
	char l[INET_ADDRSTRLEN], p[INET_ADDRSTRLEN];

	snprintf(buf, len, "LSI %s (from %s)", inet_ntop(AF_INET, peer, p, sizeof(p)) ? p : "?",
		 inet_ntop(AF_INET, local, l, sizeof(l)) ? l : "?");
}

static int x_policy_lsi_add(struct datapath *dp, const struct in_addr *local,
			    const struct in_addr *peer, const struct hip_addr *local_loc,
			    const struct hip_addr *peer_loc)
{
	struct xfrm_selector out, in;
	char name[64];

	if (!local->s_addr || !peer->s_addr)
		return -EINVAL;
	lsi_name(local, peer, name, sizeof(name));
	xfrm_sel_lsis(&out, local, 32, peer, 32);
	xfrm_sel_lsis(&in, peer, 32, local, 32);
	return pair_set(to_x(dp), &out, &in, name, local_loc, peer_loc);
}

static int x_policy_lsi_del(struct datapath *dp, const struct in_addr *local,
			    const struct in_addr *peer)
{
	struct xfrm_selector out, in;
	char name[64];

	lsi_name(local, peer, name, sizeof(name));
	xfrm_sel_lsis(&out, local, 32, peer, 32);
	xfrm_sel_lsis(&in, peer, 32, local, 32);
	return pair_del(to_x(dp), &out, &in, name);
}

/* 2001:20::/28 (RFC 7343) */
static void orchid_prefix(struct hip_hit *p)
{
	memset(p, 0, sizeof(*p));
	p->b[0] = 0x20;
	p->b[1] = 0x01;
	p->b[2] = 0x00;
	p->b[3] = 0x20;
}

/*
 * The template's outer source is the local HIT itself, so the kernel needs
 * no route to pick one, and its destination is unspecified: no SA ever
 * matches it, so a packet to any HIT without a pair policy makes the
 * kernel create a larval SA and send ACQUIRE (selector = the HIT pair).
 */
int xfrm_dp_acquire_policy_add(struct datapath *dp, const struct hip_hit *local)
{
	struct xfrm_dp *x = to_x(dp);
	struct xfrm_selector sel;
	struct hip_addr src, any;
	struct hip_hit prefix;
	char hit[HIP_HIT_STR_LEN], what[96];

	orchid_prefix(&prefix);
	xfrm_sel_hits(&sel, local, 128, &prefix, 28);
	memcpy(&src.in6, local->b, sizeof(src.in6));
	memset(&any, 0, sizeof(any));
	snprintf(what, sizeof(what), "ACQUIRE policy %s -> 2001:20::/28",
		 hip_hit_to_str(local, hit, sizeof(hit)));
	return xfrm_policy_put(x, XFRM_MSG_NEWPOLICY, &sel, XFRM_POLICY_OUT, x->prio_acquire, &src,
			       &any, what);
}

int xfrm_dp_acquire_policy_del(struct datapath *dp, const struct hip_hit *local)
{
	struct xfrm_dp *x = to_x(dp);
	struct xfrm_selector sel;
	struct hip_hit prefix;
	char hit[HIP_HIT_STR_LEN], what[96];

	orchid_prefix(&prefix);
	xfrm_sel_hits(&sel, local, 128, &prefix, 28);
	snprintf(what, sizeof(what), "ACQUIRE policy %s -> 2001:20::/28",
		 hip_hit_to_str(local, hit, sizeof(hit)));
	return xfrm_policy_del_owned(x, &sel, XFRM_POLICY_OUT, what);
}

/*
 * The same for IPv4 (D-22): local LSI/32 -> the LSI range, template local
 * LSI -> 0.0.0.0 (the selector's family, as for HITs). An IPv4 packet from
 * our LSI to a peer's LSI without a pair policy makes the kernel send
 * ACQUIRE with an AF_INET selector (xfrm_event.c: acquire_lsi).
 */
static void acquire_lsi_sel(struct xfrm_selector *sel, const struct in_addr *local,
			    const struct hip_lsi_range *range, char *what, size_t len)
{
	struct in_addr net;
	char l[INET_ADDRSTRLEN], n[INET_ADDRSTRLEN];

	memcpy(&net.s_addr, range->net, sizeof(net.s_addr));
	xfrm_sel_lsis(sel, local, 32, &net, (uint8_t)range->prefix);
	snprintf(what, len, "ACQUIRE policy %s -> %s/%u",
		 inet_ntop(AF_INET, local, l, sizeof(l)) ? l : "?",
		 inet_ntop(AF_INET, &net, n, sizeof(n)) ? n : "?", range->prefix);
}

int xfrm_dp_acquire_lsi_policy_add(struct datapath *dp, const struct in_addr *local,
				   const struct hip_lsi_range *range)
{
	struct xfrm_dp *x = to_x(dp);
	struct xfrm_selector sel;
	struct hip_addr src, any;
	char what[96];

	if (!local->s_addr || range->prefix < 1 || range->prefix > 32)
		return -EINVAL;
	acquire_lsi_sel(&sel, local, range, what, sizeof(what));
	hip_addr_from_v4(&src, local);
	hip_addr_from_v4(&any, &(struct in_addr){ 0 });
	return xfrm_policy_put(x, XFRM_MSG_NEWPOLICY, &sel, XFRM_POLICY_OUT, x->prio_acquire, &src,
			       &any, what);
}

int xfrm_dp_acquire_lsi_policy_del(struct datapath *dp, const struct in_addr *local,
				   const struct hip_lsi_range *range)
{
	struct xfrm_selector sel;
	char what[96];

	if (range->prefix < 1 || range->prefix > 32)
		return -EINVAL;
	acquire_lsi_sel(&sel, local, range, what, sizeof(what));
	return xfrm_policy_del_owned(to_x(dp), &sel, XFRM_POLICY_OUT, what);
}

/* ---- flush: dump, keep ours, delete ---------------------------------------------- */

struct collect {
	void *v;
	size_t n, cap, size;
};

static int collect_add(struct collect *c, const void *e)
{
	void *nv;

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;

		if (cap > XFRM_COLLECT_MAX)
			return -E2BIG;
		nv = realloc(c->v, cap * c->size);
		if (!nv)
			return -ENOMEM;
		c->v = nv;
		c->cap = cap;
	}
	memcpy((uint8_t *)c->v + c->n * c->size, e, c->size);
	c->n++;
	return 0;
}

static int sa_dump_cb(struct xfrm_dp *x, const struct nlmsghdr *h, void *arg)
{
	struct xfrm_usersa_info info;
	struct xfrm_usersa_id id;

	if (h->nlmsg_type != XFRM_MSG_NEWSA || h->nlmsg_len < NLMSG_LENGTH(sizeof(info)))
		return 0;
	memcpy(&info, NLMSG_DATA(h), sizeof(info));
	if (info.reqid != x->reqid || info.id.spi == 0)
		return 0;     /* not ours, or a larval (ACQUIRE) state: xfrm_larval_purge */
	memset(&id, 0, sizeof(id));
	id.daddr = info.id.daddr;
	id.spi = info.id.spi;
	id.family = info.family;
	id.proto = info.id.proto;
	hip_wipe(&info, sizeof(info));
	return collect_add(arg, &id);
}

static int policy_dump_cb(struct xfrm_dp *x, const struct nlmsghdr *h, void *arg)
{
	struct xfrm_userpolicy_id id;

	if (!xfrm_policy_is_ours(x, h, &id))
		return 0;
	return collect_add(arg, &id);
}


int xfrm_dp_flush_count(struct datapath *dp)
{
	struct xfrm_dp *x = to_x(dp);
	struct collect sas = { .size = sizeof(struct xfrm_usersa_id) };
	struct collect pols = { .size = sizeof(struct xfrm_userpolicy_id) };
	char why[XFRM_WHY_MAX];
	size_t i;
	int ret, removed = 0;

	ret = xfrm_dump(x, XFRM_MSG_GETPOLICY, policy_dump_cb, &pols);
	for (i = 0; ret == 0 && i < pols.n; i++) {
		const struct xfrm_userpolicy_id *id =
			(const struct xfrm_userpolicy_id *)pols.v + i;
		int r = xfrm_policy_del_by_index(x, id, why, sizeof(why));

		if (r == 0)
			removed++;
		else if (r != -ENOENT)
			xfrm_log_fail(XFRM_MSG_DELPOLICY, "flush", r, why);
	}
	ret = xfrm_dump(x, XFRM_MSG_GETSA, sa_dump_cb, &sas);
	for (i = 0; ret == 0 && i < sas.n; i++) {
		const struct xfrm_usersa_id *id = (const struct xfrm_usersa_id *)sas.v + i;
		int r = xfrm_sa_del_raw(x, &id->daddr, id->family, id->spi, id->proto, why,
					sizeof(why));

		if (r == 0)
			removed++;
		else if (r != -ESRCH && r != -ENOENT)
			xfrm_log_fail(XFRM_MSG_DELSA, "flush", r, why);
	}
	/* The larval states of ACQUIREs not answered yet (or of a crashed hipd). */
	if (ret == 0)
		removed += xfrm_larval_purge(x, NULL, NULL);
	free(pols.v);
	free(sas.v);
	return ret < 0 ? ret : removed;
}

static void x_flush(struct datapath *dp)
{
	struct xfrm_dp *x = to_x(dp);
	int n = xfrm_dp_flush_count(dp);

	if (nosa_on(x))
		xfrm_nosa_clear(&x->nosa);
	if (n > 0)
		log_info("xfrm: removed %d SAs and policies of this hipd", n);
}

/* ---- probe -------------------------------------------------------------------------- */

int xfrm_dp_probe_esp(struct datapath *dp, char *why, size_t whylen)
{
	struct xfrm_dp *x = to_x(dp);
	struct hip_esp_sa sa;
	struct in_addr a = { htonl(0x7f000001) }, b = { htonl(0x7f000002) };
	int ret;

	/* No secret here: zero keys on a loopback SA that lives a moment. */
	memset(&sa, 0, sizeof(sa));
	sa.spi = HIP_SPI_MIN + 0x4850;
	hip_addr_from_v4(&sa.outer_src, &a);
	hip_addr_from_v4(&sa.outer_dst, &b);
	sa.suite = HIP_ESP_AES128_CBC_SHA256;
	sa.enc_len = 16;
	sa.auth_len = 32;
	ret = xfrm_sa_new(x, &sa, NULL, 0, true, why, whylen);
	if (ret == 0 || ret == -EEXIST) {
		int r = xfrm_sa_del_raw(x, &(xfrm_address_t){ .a4 = b.s_addr }, AF_INET,
					htonl(sa.spi), IPPROTO_ESP, NULL, 0);

		if (ret == 0 && r < 0)
			log_warn("xfrm: removing the probe SA: %s", strerror(-r));
		return 0;
	}
	/* Linux: "Requested type not found" when xfrm_get_type() finds no
	 * esp4/esp6. */
	return ret;
}

/* ---- life cycle --------------------------------------------------------------------------- */
static void x_free(struct datapath *dp)
{
	struct xfrm_dp *x = to_x(dp);

	if (!x)
		return;
	if (x->fd >= 0)
		close(x->fd);
	if (x->ev_fd >= 0)
		close(x->ev_fd);
	xfrm_nosa_close(&x->nosa);
	if (x->ep >= 0)
		close(x->ep);
	if (x->rx) {
		hip_wipe(x->rx, XFRM_RX_MAX);
		free(x->rx);
	}
	free(x);
}

static const struct datapath_ops xfrm_ops = {
	.name = "kernel",
	.sa_add = x_sa_add,
	.sa_del = x_sa_del,
	.policy_add = x_policy_add,
	.policy_del = x_policy_del,
	.policy_lsi_add = x_policy_lsi_add,
	.policy_lsi_del = x_policy_lsi_del,
	.sa_stats = x_sa_stats,
	.flush = x_flush,
	.free = x_free,
};

int xfrm_dp_create_fds(struct datapath **out, const struct xfrm_dp_conf *conf,
		       const struct datapath_events *ev, int fd, uint32_t portid, int ev_fd)
{
	struct xfrm_dp *x = calloc(1, sizeof(*x));

	*out = NULL;
	if (!x) {
		close(fd);
		if (ev_fd >= 0)
			close(ev_fd);
		return -ENOMEM;
	}
	x->fd = fd;
	x->ev_fd = ev_fd;
	x->ep = -1;
	x->nosa.fd4 = x->nosa.fd6 = -1;
	x->portid = portid;
	x->dp.ops = &xfrm_ops;
	if (ev)
		x->dp.ev = *ev;
	x->reqid = xfrm_reqid_or_default(conf ? conf->reqid : 0);
	x->prio_pair = conf && conf->prio_pair ? conf->prio_pair : HIP_XFRM_PRIO_PAIR;
	x->prio_acquire = conf && conf->prio_acquire ? conf->prio_acquire
						     : HIP_XFRM_PRIO_ACQUIRE;
	log_ratelimit_init(&x->ev_log, 1000, 5);
	log_ratelimit_init(&x->map_rl, 1000, XFRM_MAP_PER_S);
	x->rx = malloc(XFRM_RX_MAX);
	if (!x->rx) {
		x_free(&x->dp);
		return -ENOMEM;
	}
	*out = &x->dp;
	return 0;
}

/* ESP for no SA of ours (xfrm_nosa.c): its raw sockets and ev_fd behind
 * one epoll fd, which xfrm_dp_event_fd() hands out. Without them the
 * kernel datapath works as before; a restarted peer is then found by
 * liveness alone. */
static void nosa_start(struct xfrm_dp *x)
{
	struct epoll_event e = { .events = EPOLLIN };
	int r = xfrm_nosa_open(&x->nosa), fds[3] = { x->ev_fd, x->nosa.fd4, x->nosa.fd6 }, i;

	if (r < 0) {
		log_info("xfrm: ESP for no SA of ours is not seen (raw ESP socket: %s)",
			 strerror(-r));
		return;
	}
	x->ep = epoll_create1(EPOLL_CLOEXEC);
	for (i = 0; x->ep >= 0 && i < 3; i++) {
		if (fds[i] < 0)
			continue;
		e.data.fd = fds[i];
		if (epoll_ctl(x->ep, EPOLL_CTL_ADD, fds[i], &e) < 0)
			break;
	}
	if (x->ep < 0 || i < 3) {
		log_warn("xfrm: ESP for no SA of ours is not seen (epoll: %s)", strerror(errno));
		if (x->ep >= 0)
			close(x->ep);
		x->ep = -1;
		xfrm_nosa_close(&x->nosa);
	}
}

int xfrm_dp_create(struct datapath **out, const struct xfrm_dp_conf *conf,
		   const struct datapath_events *ev)
{
	struct timeval tv = { .tv_sec = XFRM_ACK_TIMEOUT_S };
	int fd, ev_fd = -1, ret;
	uint32_t portid = 0;

	*out = NULL;
	fd = xfrm_nl_open(0, &portid);
	if (fd < 0)
		return fd;
	/* A lost ACK must not hang the daemon. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		ret = -errno;
		goto fail;
	}
	/* XFRMNLGRP_MAPPING has no XFRMGRP_ bit in the header: group n is bit
	 * n - 1 of the bind mask */
	ev_fd = xfrm_nl_open(XFRMGRP_ACQUIRE | XFRMGRP_EXPIRE | 1 << (XFRMNLGRP_MAPPING - 1), NULL);
	if (ev_fd < 0) {
		ret = ev_fd;
		goto fail;
	}
	if (fcntl(ev_fd, F_SETFL, O_NONBLOCK) < 0) {
		ret = -errno;
		goto fail;
	}
	ret = xfrm_dp_create_fds(out, conf, ev, fd, portid, ev_fd);
	if (ret == 0)
		nosa_start(to_x(*out));
	return ret;
fail:
	close(fd);
	if (ev_fd >= 0)
		close(ev_fd);
	return ret;
}
