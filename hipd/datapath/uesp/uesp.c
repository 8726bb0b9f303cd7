/*
 * uesp.c - the userspace ESP datapath's control side, the top of its call
 * graph (uesp.c -> uesp_io.c -> uesp_sa.c): datapath_ops (SA install and
 * replace, policies, stats, flush), sending what waited for a new SA, time
 * lifetimes, and set-up (raw sockets, create, free). The tables, accounting
 * and events are in uesp_sa.c, the packet path in uesp_io.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "uesp_int.h"

static uint64_t uesp_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Send what waited for this peer's SA (first-packet case), then drop the
 * queue. */
static void peer_release(struct uesp *u, struct uesp_peer *p)
{
	struct uesp_hold *h = p->hold;

	u->now_ns = uesp_clock_ns();
	for (unsigned k = 0; h && k < h->n && p->sa; k++)
		uesp_tx_inner(u, p->sa, h->buf[k], h->len[k]);
	uesp_tx_flush(u);
	uesp_hold_free(u, p);
}

static void sa_set_lifetimes(struct uesp_sa *sa, const struct hip_esp_sa *in, uint64_t now)
{
	uint64_t t0 = sa->added_ns;

	sa->soft_bytes = in->soft_bytes;
	sa->hard_bytes = in->hard_bytes;
	sa->soft_at_ns = in->soft_seconds ? t0 + in->soft_seconds * 1000000000u : 0;
	sa->hard_at_ns = in->hard_seconds ? t0 + in->hard_seconds * 1000000000u : 0;
	/* New limits not reached yet: a soft expiry may be reported again. */
	if ((!sa->soft_at_ns || now < sa->soft_at_ns) &&
	    (!sa->soft_bytes || sa->st.bytes < sa->soft_bytes))
		sa->soft_sent = false;
}

/* Attach an outbound SA to its peer (the newest wins, as after a rekey) and
 * send what waited for it. */
static int sa_attach_peer(struct uesp *u, struct uesp_sa *sa)
{
	struct uesp_peer *p;
	struct hip_hit key = sa->out.inner_dst;

	if (sa->out.inner_v4)
		uesp_lsi_key(&key, &sa->out.lsi_dst);   /* the LSI's entry, not the HIT's */
	p = uesp_peer_find(u, &key, true);
	if (!p)
		return -ENOMEM;
	p->sa = sa;
	if (p->hold)
		peer_release(u, p);
	return 0;
}

/* Whether sa belongs to the association in names (the same HIT pair).
 * Outbound SPIs are chosen by the peers, so two peers may pick the same
 * one for our outbound SAs: that must not turn into a replace. */
static bool same_hits(const struct uesp_sa *sa, const struct hip_esp_sa *in)
{
	const struct hip_hit *src = in->inbound ? &sa->in.inner_src : &sa->out.inner_src;
	const struct hip_hit *dst = in->inbound ? &sa->in.inner_dst : &sa->out.inner_dst;

	bool v4 = in->inbound ? sa->in.inner_v4 : sa->out.inner_v4;
	const struct in_addr *lsrc = in->inbound ? &sa->in.lsi_src : &sa->out.lsi_src;
	const struct in_addr *ldst = in->inbound ? &sa->in.lsi_dst : &sa->out.lsi_dst;

	/* the inner family and LSIs stay too: they decide what is rebuilt */
	if (v4 != in->inner_v4 || (v4 && (lsrc->s_addr != in->lsi_src.s_addr ||
					   ldst->s_addr != in->lsi_dst.s_addr)))
		return false;
	return !memcmp(src->b, in->inner_src.b, sizeof(src->b)) &&
	       !memcmp(dst->b, in->inner_dst.b, sizeof(dst->b));
}

/* The datapath.h replace contract: same SPI, direction and HITs -> new locators
 * and keys on the live SA. The sequence number (outbound) and the replay
 * window (inbound) carry on, since the peer's SA on that SPI carries on too:
 * restarting at 1 would have the receiver drop everything as replays until
 * the new numbers pass its window. Counters stay; lifetimes keep counting
 * from the first install (the kernel's XFRM_MSG_UPDSA does the same). One
 * thread runs the packet path, so no packet sees a half-updated SA. */
static int sa_replace(struct uesp *u, struct uesp_sa *sa, const struct hip_esp_sa *in)
{
	struct hip_esp_ctx *ctx = NULL, **slot;
	int rc;

	rc = hip_esp_ctx_new(in->suite, in->enc_key, in->enc_len, in->auth_key, in->auth_len,
			     !in->inbound, &ctx);
	if (rc)
		return rc;              /* the old SA stays as it was */
	if (in->inbound) {
		if (in->replay_window > ESP_REPLAY_MAX) {
			hip_esp_ctx_free(ctx);
			return -EINVAL;
		}
		/* The ring keeps ESP_REPLAY_MAX bits, so any window fits. */
		sa->in.replay.window = in->replay_window ? in->replay_window : ESP_REPLAY_DEFAULT;
		slot = &sa->in.ctx;
	} else {
		slot = &sa->out.ctx;
	}
	hip_esp_ctx_free(*slot);        /* wipes the old keys */
	*slot = ctx;
	sa->outer_src = in->outer_src;
	sa->outer_dst = in->outer_dst;
	sa->encap_dport = in->encap_dport;
	sa->encap_sport = in->encap_sport;
	sa_set_lifetimes(sa, in, uesp_clock_ns());
	if (in->inbound)
		return 0;
	return sa_attach_peer(u, sa);
}

static int uesp_sa_add(struct datapath *dp, const struct hip_esp_sa *in)
{
	struct uesp *u = (struct uesp *)dp;
	struct uesp_sa *sa;
	int rc;

	if (!in || in->spi < 256)
		return -EINVAL;
	sa = uesp_sa_find(u, in->spi, in->inbound);
	if (sa && !same_hits(sa, in))
		return -EEXIST;   /* another association's SPI (datapath.h) */
	if (sa)
		return sa_replace(u, sa, in);
	sa = calloc(1, sizeof(*sa));
	if (!sa)
		return -ENOMEM;
	sa->inbound = in->inbound;
	sa->outer_src = in->outer_src;
	sa->outer_dst = in->outer_dst;
	sa->encap_dport = in->encap_dport;
	sa->encap_sport = in->encap_sport;
	sa->added_ns = uesp_clock_ns();
	sa_set_lifetimes(sa, in, sa->added_ns);
	rc = hip_esp_ctx_new(in->suite, in->enc_key, in->enc_len, in->auth_key, in->auth_len,
			     !in->inbound, in->inbound ? &sa->in.ctx : &sa->out.ctx);
	if (rc) {
		free(sa);
		return rc;
	}
	if (in->inbound) {
		sa->in.spi = in->spi;
		sa->in.inner_src = in->inner_src;
		sa->in.inner_dst = in->inner_dst;
		sa->in.inner_v4 = in->inner_v4;
		sa->in.lsi_src = in->lsi_src;
		sa->in.lsi_dst = in->lsi_dst;
		rc = esp_replay_init(&sa->in.replay, in->replay_window);
		if (rc) {
			uesp_sa_free(sa);
			return rc;
		}
	} else {
		sa->out.spi = in->spi;
		sa->out.inner_src = in->inner_src;
		sa->out.inner_dst = in->inner_dst;
		sa->out.inner_v4 = in->inner_v4;
		sa->out.lsi_src = in->lsi_src;
		sa->out.lsi_dst = in->lsi_dst;
	}
	uesp_sa_link(u, sa);
	if (in->inbound)
		return 0;
	rc = sa_attach_peer(u, sa);
	if (rc) {
		uesp_sa_unlink(u, in->spi, false);
		uesp_sa_free(sa);
	}
	return rc;
}

static int uesp_sa_del(struct datapath *dp, uint32_t spi, bool inbound,
		       const struct hip_addr *outer_dst)
{
	struct uesp *u = (struct uesp *)dp;
	struct uesp_sa *sa;

	(void)outer_dst;
	sa = uesp_sa_unlink(u, spi, inbound);
	if (!sa)
		return -ENOENT;
	if (!inbound)
		uesp_peers_forget_sa(u, sa);
	uesp_sa_free(sa);
	return 0;
}

/* The userspace datapath needs no policy: what has an SA is protected, any
 * other HIT-addressed packet raises an acquire. A policy prepares the peer
 * entry and records its locators; a second one for the same HITs updates
 * them (datapath.h). Packets take their outer addresses from the SA. */
static int uesp_policy_add(struct datapath *dp, const struct hip_hit *local,
			   const struct hip_hit *peer, const struct hip_addr *local_loc,
			   const struct hip_addr *peer_loc)
{
	struct uesp_peer *p;

	(void)local;
	if (!peer)
		return -EINVAL;
	p = uesp_peer_find((struct uesp *)dp, peer, true);
	if (!p)
		return -ENOMEM;
	if (local_loc)
		p->loc_local = *local_loc;
	if (peer_loc)
		p->loc_peer = *peer_loc;
	return 0;
}

static int uesp_policy_del(struct datapath *dp, const struct hip_hit *local,
			   const struct hip_hit *peer)
{
	struct uesp *u = (struct uesp *)dp;
	struct uesp_peer *p = uesp_peer_find(u, peer, false);

	(void)local;
	if (!p)
		return -ENOENT;
	uesp_peer_unlink(u, p);
	return 0;
}

/* The same for a peer LSI (D-22): its entry in the peer table under the
 * LSI key (uesp_int.h), which the outbound inner_v4 SA attaches to. */
static int uesp_policy_lsi_add(struct datapath *dp, const struct in_addr *local,
			       const struct in_addr *peer, const struct hip_addr *local_loc,
			       const struct hip_addr *peer_loc)
{
	struct hip_hit key;

	(void)local;
	if (!peer)
		return -EINVAL;
	uesp_lsi_key(&key, peer);
	return uesp_policy_add(dp, NULL, &key, local_loc, peer_loc);
}

static int uesp_policy_lsi_del(struct datapath *dp, const struct in_addr *local,
			       const struct in_addr *peer)
{
	struct hip_hit key;

	(void)local;
	if (!peer)
		return -EINVAL;
	uesp_lsi_key(&key, peer);
	return uesp_policy_del(dp, NULL, &key);
}

static int uesp_sa_stats(struct datapath *dp, uint32_t spi, bool inbound,
			 struct hip_esp_sa_stats *out)
{
	struct uesp_sa *sa = uesp_sa_find((struct uesp *)dp, spi, inbound);

	if (!sa || !out)
		return -ENOENT;
	*out = sa->st;
	return 0;
}

static void uesp_flush(struct datapath *dp)
{
	struct uesp *u = (struct uesp *)dp;
	struct uesp_sa *sa;
	struct uesp_peer *p;

	for (unsigned b = 0; b < UESP_BUCKETS; b++) {
		while ((sa = u->sa_in[b])) {
			u->sa_in[b] = sa->next;
			uesp_sa_free(sa);
		}
		while ((sa = u->sa_out[b])) {
			u->sa_out[b] = sa->next;
			uesp_sa_free(sa);
		}
		while ((p = u->peers[b]))
			uesp_peer_unlink(u, p);
	}
}

static void uesp_free(struct datapath *dp)
{
	struct uesp *u = (struct uesp *)dp;

	if (!u)
		return;
	uesp_flush(dp);
	if (u->timer)
		hip_loop_timer_cancel(u->loop, u->timer);
	if (u->tun >= 0) {
		hip_loop_fd_remove(u->loop, u->tun);
		close(u->tun);
	}
	if (u->raw4 >= 0) {
		hip_loop_fd_remove(u->loop, u->raw4);
		close(u->raw4);
	}
	if (u->raw6 >= 0) {
		hip_loop_fd_remove(u->loop, u->raw6);
		close(u->raw6);
	}
	if (u->udp_attached)
		log_info("uesp: ESP in UDP: %llu UDP_SEGMENT sends, %llu packets received "
			 "coalesced (UDP_GRO), %llu NAT keepalives",
			 (unsigned long long)u->udp_gso_sends, (unsigned long long)u->udp_gro_segs,
			 (unsigned long long)u->udp_keepalives);
	if (u->tx_v4_frag || u->rx_big_pkts)
		log_info("uesp: IPv4 fragments from hip0 %llu: datagrams reassembled %llu, "
			 "dropped: timeouts %llu, overlaps %llu, limits %llu, bad %llu; "
			 "ESP over 2 KB sent %llu, received %llu",
			 (unsigned long long)u->tx_v4_frag,
			 (unsigned long long)u->frag.st.reassembled,
			 (unsigned long long)u->frag.st.timeouts,
			 (unsigned long long)u->frag.st.overlaps,
			 (unsigned long long)u->frag.st.limits, (unsigned long long)u->frag.st.bad,
			 (unsigned long long)u->tx_big, (unsigned long long)u->rx_big_pkts);
	uesp_frag_clear(&u->frag);
	free(u->rx_big);
	uesp_udp_detach(u);   /* the engine's sockets: not closed */
	free(u);
}

/* What this datapath counted (uesp_int.h), for hipconf show stats. */
static size_t uesp_counters(struct datapath *dp, struct datapath_counter *out, size_t max)
{
	const struct uesp *u = (const struct uesp *)dp;
	const struct datapath_counter all[] = {
		{ "tx_no_sa", u->tx_no_sa }, { "tx_bad", u->tx_bad },
		{ "tx_send_err", u->tx_send_err }, { "rx_no_sa", u->rx_no_sa },
		{ "rx_bad", u->rx_bad }, { "tun_write_err", u->tun_write_err },
		{ "tx_gso", u->tx_gso }, { "rx_coalesced", u->rx_coalesced },
		{ "tx_v4_opts", u->tx_v4_opts }, { "tx_v4_src", u->tx_v4_src },
		{ "tx_v4_frag", u->tx_v4_frag }, { "v4_reassembled", u->frag.st.reassembled },
		{ "v4_frag_timeouts", u->frag.st.timeouts },
		{ "v4_frag_overlaps", u->frag.st.overlaps },
		{ "v4_frag_limits", u->frag.st.limits }, { "v4_frag_bad", u->frag.st.bad },
		{ "tx_big", u->tx_big }, { "rx_big", u->rx_big_pkts },
		{ "udp_gso_sends", u->udp_gso_sends }, { "udp_gro_segs", u->udp_gro_segs },
		{ "udp_keepalives", u->udp_keepalives },
	};
	size_t n = sizeof(all) / sizeof(all[0]);

	if (n > max)
		n = max;
	memcpy(out, all, n * sizeof(all[0]));
	return n;
}

static const struct datapath_ops uesp_ops = {
	.name = "userspace",
	.sa_add = uesp_sa_add,
	.sa_del = uesp_sa_del,
	.policy_add = uesp_policy_add,
	.policy_del = uesp_policy_del,
	.policy_lsi_add = uesp_policy_lsi_add,
	.policy_lsi_del = uesp_policy_lsi_del,
	.sa_stats = uesp_sa_stats,
	.counters = uesp_counters,
	.flush = uesp_flush,
	.free = uesp_free,
};

/* Time lifetimes, once a second. */
static void uesp_tick(struct hip_loop *loop, uint64_t timer, void *arg)
{
	struct uesp *u = arg;
	uint64_t now = uesp_clock_ns();

	(void)timer;
	uesp_frag_expire(&u->frag, now);        /* datagrams whose rest never came */
	for (unsigned b = 0; b < UESP_BUCKETS; b++) {
		for (int dir = 0; dir < 2; dir++) {
			struct uesp_sa *sa = (dir ? u->sa_in : u->sa_out)[b];

			for (; sa; sa = sa->next) {
				bool hard = (sa->hard_at_ns && now >= sa->hard_at_ns) ||
					    (sa->hard_bytes && sa->st.bytes >= sa->hard_bytes);
				bool soft = sa->soft_at_ns && now >= sa->soft_at_ns;

				if (hard && u->dp.ev.expire) {
					sa->hard_at_ns = 0;
					sa->hard_bytes = 0;
					u->dp.ev.expire(u->dp.ev.arg, uesp_sa_spi(sa), true);
				} else if (soft && !sa->soft_sent && u->dp.ev.expire) {
					sa->soft_sent = true;
					u->dp.ev.expire(u->dp.ev.arg, uesp_sa_spi(sa), false);
				}
			}
		}
	}
	u->timer = hip_loop_timer_add(loop, 1000000000u, uesp_tick, u);
}

/* ---- set-up ------------------------------------------------------------- */

int uesp_open_raw(int family)
{
	int fd, on = 1, size = 8 << 20;

	if (family != AF_INET && family != AF_INET6)
		return -EINVAL;
	/* Blocking for sends (backpressure instead of drops); receives use
	 * MSG_DONTWAIT. */
	fd = socket(family, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ESP);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	/* IPv6: the hop limit (BEET's inner header) and our address (the
	 * quote of an ICMP error about ESP we hold no SA for, engine_icmp.c) */
	if (family == AF_INET6 &&
	    (setsockopt(fd, IPPROTO_IPV6, IPV6_RECVHOPLIMIT, &on, sizeof(on)) < 0 ||
	     setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on, sizeof(on)) < 0)) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	return fd;
}

int uesp_create(struct hip_loop *loop, const struct uesp_conf *conf,
		const struct datapath_events *ev, struct datapath **out)
{
	struct uesp *u;
	int rc = 0;

	if (!loop || !conf || !out || conf->tun_fd < 0)
		return -EINVAL;
	*out = NULL;
	rc = hip_crypto_init();
	if (rc)
		return rc;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->dp.ops = &uesp_ops;
	if (ev)
		u->dp.ev = *ev;
	u->loop = loop;
	u->tun = conf->tun_fd;
	u->raw4 = conf->raw4;
	u->raw6 = conf->raw6;
	u->udp4 = conf->udp ? conf->udp4 : -1;
	u->udp6 = conf->udp ? conf->udp6 : -1;
	u->vnet = conf->tun_vnet;
	u->mtu = conf->tun_mtu ? conf->tun_mtu : TUN_DEFAULT_MTU;
	u->rx_big = calloc(UESP_BATCH, UESP_RX_BIG);
	rc = u->rx_big ? hip_loop_fd_add(loop, u->tun, EPOLLIN, uesp_tun_readable, u) : -ENOMEM;
	if (!rc && u->raw4 >= 0)
		rc = hip_loop_fd_add(loop, u->raw4, EPOLLIN, uesp_raw_readable, u);
	if (!rc && u->raw6 >= 0)
		rc = hip_loop_fd_add(loop, u->raw6, EPOLLIN, uesp_raw_readable, u);
	if (!rc)
		rc = uesp_udp_attach(u);
	if (!rc) {
		u->timer = hip_loop_timer_add(loop, 1000000000u, uesp_tick, u);
		if (!u->timer)
			rc = -ENOMEM;
	}
	if (rc) {
		uesp_free(&u->dp);
		return rc;
	}
	*out = &u->dp;
	return 0;
}
