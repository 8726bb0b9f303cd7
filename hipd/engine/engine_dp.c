/*
 * engine_dp.c - which ESP datapath runs (datapath/datapath.h: the kernel's
 * XFRM, else hipd's own, said in the log), hip0, and what the datapath
 * reports back: ACQUIRE -> base exchange, SA expiry -> rekey or a new
 * exchange, inbound traffic -> R2-SENT confirmed. The SAs of each
 * association are assoc/sa.c's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/udp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "datapath/datapath.h"
#include "engine_int.h"
#include "hit.h"
#include "base/base.h"
#include "datapath/uesp/uesp.h"
#include "engine/update/update.h"
#include "datapath/xfrm/xfrm.h"
#include "net/net.h"

/* ---- events ----------------------------------------------------------------- */

/* The kernel saw a packet from a local HIT to a HIT without SAs. */
static void dp_acquire(void *arg, const struct hip_hit *local, const struct hip_hit *peer)
{
	struct hipd *d = arg;
	char hit[HIP_HIT_STR_LEN];
	int ret;

	if (!hidb_find(d->hidb, local) || !hip_hit_is_orchid(peer))
		return;
	hip_hit_to_str(peer, hit, sizeof(hit));
	ret = hipd_engine_trigger(d, peer);
	if (ret == -ENOENT)
		log_ratelimited(&d->engine->dp_log, LOG_NOTICE,
				"traffic to %s: no locator mapped for it", hit);
	else if (ret < 0)
		log_ratelimited(&d->engine->dp_log, LOG_WARNING,
				"traffic to %s: base exchange not started: %s", hit, strerror(-ret));
	else
		log_info("traffic to %s: base exchange triggered", hit);
}

/* IPv4 from our LSI to a peer's LSI without SAs (D-22): the HITs behind
 * them, then as for a HIT; an association that has no LSI pair (the peer
 * took none) gets none by this. */
void eng_dp_acquire_lsi(void *arg, const struct in_addr *local, const struct in_addr *peer)
{
	struct hipd *d = arg;
	const struct hip_hit *lh = d->hosts ? hosts_lsi_hit(d->hosts, *local) : NULL;
	const struct hip_hit *ph = d->hosts ? hosts_lsi_hit(d->hosts, *peer) : NULL;
	char a[INET_ADDRSTRLEN], hit[HIP_HIT_STR_LEN];
	struct hip_ha *ha;

	inet_ntop(AF_INET, peer, a, sizeof(a));
	if (!lh || !ph || !hidb_find(d->hidb, lh)) {
		d->stats->lsi_unknown++;
		log_ratelimited(&d->engine->dp_log, LOG_NOTICE,
				"IPv4 to %s: no HIT has that LSI (hip-hosts(5) lsi=, or map the HIT)",
				a);
		return;
	}
	ha = hadb_find(d->hadb, lh, ph);
	if (ha && ha->state == HIP_STATE_ESTABLISHED && ha->dp_spi_out &&
	    !(ha->lsi && ha->lsi->dp_spi_out)) {
		log_ratelimited(&d->engine->dp_log, LOG_NOTICE,
				"IPv4 to %s: the association with %s has no LSI SA pair (the peer "
				"took none)", a, hip_hit_to_str(ph, hit, sizeof(hit)));
		return;
	}
	d->stats->lsi_acquires++;
	dp_acquire(d, lh, ph);
}

/* RFC 7401 §4.5.4: ESP from a peer for which we hold no SA. If its
 * address is mapped to a HIT (hosts file, hipconf) with which we have no
 * association, we lost our state (a restart) and the peer did not: we
 * start the base exchange at once instead of letting the peer notice
 * (its liveness probe, D-13). Per source rate-limited, like NOTIFYs. */
struct hit_by_addr {
	const struct hip_addr *addr;
	struct hip_hit hit;
	bool found;
};

static int hit_by_addr_cb(const struct hosts_entry *e, void *arg)
{
	struct hit_by_addr *f = arg;
	size_t i;

	for (i = 0; i < e->n_loc; i++)
		if (!memcmp(&e->loc[i], f->addr, sizeof(*f->addr))) {
			f->hit = e->hit;
			f->found = true;
			return 1;
		}
	return 0;
}

/* ESP for no SA of ours (RFC 7401 §4.3). From a mapped peer we hold no
 * association with: we lost it, so we start anew (§4.5.4). Otherwise the
 * sender hears it from an ICMP (D-14) and checks with a probe. */
static void dp_no_sa(void *arg, const struct hip_addr *src, const struct hip_addr *dst,
		     uint16_t sport, const uint8_t *esp, size_t len)
{
	struct hipd *d = arg;
	struct hit_by_addr f = { .addr = src };
	char hit[HIP_HIT_STR_LEN], a[INET6_ADDRSTRLEN];

	if (!src || !d->hosts || !ratelimit_allow(d->engine->notify_limit, src, hipd_now_ns()))
		return;
	hosts_foreach(d->hosts, hit_by_addr_cb, &f);
	if (!f.found) {
		eng_icmp_no_sa(d, src, dst, sport, esp, len);
		return;
	}
	if (hadb_find_peer(d->hadb, &f.hit))
		return;
	if (hipd_engine_trigger(d, &f.hit) == 0) {
		d->engine->lost_state_exchanges++;
		log_notice("ESP from %s (%s) for no SA of ours: we lost the association (a "
			   "restart?); base exchange started", hip_addr_to_str(src, a, sizeof(a)),
			   hip_hit_to_str(&f.hit, hit, sizeof(hit)));
	}
}

struct spi_find {
	uint32_t spi;
	struct hip_ha *ha;
};

static int find_by_dp_spi(struct hip_ha *ha, void *arg)
{
	struct spi_find *f = arg;

	if (ha->dp_installed && (ha->dp_spi_in == f->spi || ha->dp_spi_out == f->spi ||
				 (ha->lsi && (ha->lsi->dp_spi_in == f->spi ||
					      ha->lsi->dp_spi_out == f->spi)))) {
		f->ha = ha;
		return 1;
	}
	return 0;
}

/* spi is one of ha's inbound SAs in the datapath (HIT or LSI pair). */
static bool dp_spi_inbound(const struct hip_ha *ha, uint32_t spi)
{
	return ha->dp_spi_in == spi || (ha->lsi && ha->lsi->dp_spi_in == spi);
}

struct eng_dp_expiry {
	uint32_t spi;
	bool hard;
};

/* RFC 7402 §3.3.7 lifetimes: soft -> a new key (an UPDATE rekey, RFC 7402
 * §6.8, or a new base exchange outside ESTABLISHED), hard -> the datapath
 * removed the SA; the association goes. */
static void dp_expire_one(struct hipd *d, uint32_t spi, bool hard)
{
	struct spi_find f = { .spi = spi };
	char hit[HIP_HIT_STR_LEN];
	struct hip_hit peer;

	hadb_foreach(d->hadb, find_by_dp_spi, &f);
	if (!f.ha)
		return;
	peer = f.ha->hit_peer;
	hip_hit_to_str(&peer, hit, sizeof(hit));
	if (hard) {
		log_notice("SA 0x%08x with %s reached its hard lifetime: association removed",
			   spi, hit);
		/* The kernel already deleted that SA (its DELSA finds nothing). */
		eng_ha_free(d, f.ha);
		return;
	}
	if (f.ha->state == HIP_STATE_ESTABLISHED) {
		log_notice("SA 0x%08x with %s reached its soft lifetime: rekey", spi, hit);
		upd_rekey_soft_expiry(d, f.ha);
		return;
	}
	log_notice("SA 0x%08x with %s reached its soft lifetime: new base exchange", spi, hit);
	hipd_engine_close(d, &peer);
	hipd_engine_trigger(d, &peer);
}

static void dp_expiry_run(struct hip_loop *loop, uint64_t timer, void *arg)
{
	struct hipd *d = arg;
	struct hipd_engine *e = d->engine;
	size_t i;

	(void)loop;
	(void)timer;
	e->dp_expiry_timer = 0;
	/* Entries added while these run wait for the next round. */
	for (i = 0; i < e->n_dp_expiry; i++) {
		struct eng_dp_expiry x = e->dp_expiry[i];

		dp_expire_one(d, x.spi, x.hard);
	}
	if (i < e->n_dp_expiry)
		memmove(e->dp_expiry, e->dp_expiry + i, (e->n_dp_expiry - i) * sizeof(*e->dp_expiry));
	e->n_dp_expiry -= i;
}

/* The datapath reports an expiry, possibly while it walks its SAs (the
 * userspace datapath's lifetime tick): acting here would add and delete
 * SAs under that walk, so the event is queued and handled from the loop. */
static void dp_expire(void *arg, uint32_t spi, bool hard)
{
	struct hipd *d = arg;
	struct hipd_engine *e = d->engine;

	if (!e)
		return;
	if (e->n_dp_expiry == e->cap_dp_expiry) {
		size_t cap = e->cap_dp_expiry ? 2 * e->cap_dp_expiry : 16;
		struct eng_dp_expiry *n = realloc(e->dp_expiry, cap * sizeof(*n));

		if (!n) {
			log_err("SA 0x%08x expiry lost: out of memory", spi);
			return;
		}
		e->dp_expiry = n;
		e->cap_dp_expiry = cap;
	}
	e->dp_expiry[e->n_dp_expiry].spi = spi;
	e->dp_expiry[e->n_dp_expiry].hard = hard;
	e->n_dp_expiry++;
	if (!e->dp_expiry_timer)
		e->dp_expiry_timer = hip_loop_timer_add(d->loop, 0, dp_expiry_run, d);
}

/* ESP arrived on an inbound SA (userspace datapath, at most once a second
 * per SA): the association is in use, and on the Responder the first data
 * from the Initiator confirms R2-SENT (RFC 7401 §4.4.2, Table 5). */
static void dp_traffic(void *arg, uint32_t spi)
{
	struct hipd *d = arg;
	struct spi_find f = { .spi = spi };

	hadb_foreach(d->hadb, find_by_dp_spi, &f);
	if (!f.ha || !dp_spi_inbound(f.ha, spi))
		return;
	f.ha->t_last_activity_ns = hipd_now_ns();
	if (f.ha->state == HIP_STATE_R2_SENT)
		eng_fsm_event(d, f.ha, HIP_EV_DATA_IN);
	else if (f.ha->state == HIP_STATE_ESTABLISHED && f.ha->retx_pkt)
		eng_retx_clear(f.ha);   /* the R2 kept after the EC timer: heard now */
}

/* HIP control the userspace datapath read on the UDP sockets. */
static void dp_hip_udp(void *arg, const uint8_t *pkt, size_t len, const struct hip_addr *src,
		       const struct hip_addr *dst, uint16_t sport)
{
	hipd_engine_input_udp(arg, pkt, len, src, dst, sport);
}

/* The peer's NAT gave it another port: authentic ESP in UDP from there on
 * our inbound SA spi (userspace: uesp_io.c; kernel: XFRM_MSG_MAPPING,
 * xfrm_event.c, through priv under privilege separation). Followed only
 * for an association of ours over UDP, a port change from the address we
 * know (eng_nat_rebind, locators.c); ignored otherwise. */
static void dp_udp_peer(void *arg, uint32_t spi, const struct hip_addr *src, uint16_t sport)
{
	struct hipd *d = arg;
	struct spi_find f = { .spi = spi };

	hadb_foreach(d->hadb, find_by_dp_spi, &f);
	if (!f.ha || !dp_spi_inbound(f.ha, spi)) {
		d->stats->nat_mappings_ignored++;
		return;
	}
	if (eng_nat_rebind(d, f.ha, src, sport))
		d->stats->nat_mappings_followed++;
	else
		d->stats->nat_mappings_ignored++;
}

static void dp_events_readable(struct hip_loop *loop, int fd, uint32_t events, void *arg)
{
	struct hipd *d = arg;

	(void)loop;
	(void)fd;
	(void)events;
	if (d->engine && d->engine->dp)
		xfrm_dp_event_read(d->engine->dp);
}

/* ---- hip0 ------------------------------------------------------------------------ */

/* Our LSI of HIT me (D-20: assigned when the engine started), false if
 * it has none (the range is full). */
static bool dp_local_lsi(struct hipd *d, const struct hidb_entry *me, struct in_addr *lsi,
			 char *text, size_t len)
{
	if (!d->hosts || hosts_lsi_find(d->hosts, &me->hit, lsi, NULL) != 0 || !lsi->s_addr)
		return false;
	if (!inet_ntop(AF_INET, lsi, text, (socklen_t)len))
		snprintf(text, len, "?");
	return true;
}

/* Our LSI/32 on hip0 and the LSI range routed to it, so IPv4 programs
 * reach peers by LSI (D-22). Without it only IPv4 is missing: a warning. */
static void dp_tun_lsi(struct hipd *d, const struct hidb_entry *me)
{
	const struct hip_lsi_range *r = &d->conf.lsi_range;
	char ls[INET_ADDRSTRLEN], net[INET_ADDRSTRLEN];
	struct in_addr lsi;
	int ret;

	if (!dp_local_lsi(d, me, &lsi, ls, sizeof(ls)))
		return;
	if (!inet_ntop(AF_INET, r->net, net, sizeof(net)))
		snprintf(net, sizeof(net), "?");
	ret = tun_configure_lsi(d->engine->dp_tun_name, &lsi, r);
	if (ret < 0)
		log_warn("datapath: %s/32 on %s, route %s/%u: %s: no IPv4 by LSI", ls,
			 d->engine->dp_tun_name, net, r->prefix, strerror(-ret));
	else
		log_info("datapath: %s/32 on %s, %s/%u routed to it", ls, d->engine->dp_tun_name,
			 net, r->prefix);
}

/* hip0 with every local HIT/128 on it and 2001:20::/28 routed to it, so
 * applications reach peer HITs (issue 4 "HIT addressing"), and the same
 * for IPv4: each HIT's LSI/32 and the LSI range (D-22). The device is
 * not persistent: it goes when its fd is closed, with its addresses and
 * routes. Returns the fd or -errno. */
static int dp_tun_up(struct hipd *d, bool offload, unsigned mtu)
{
	struct hipd_engine *e = d->engine;
	struct hidb_entry *me;
	char hit[HIP_HIT_STR_LEN];
	size_t i;
	int fd, ret;

	fd = tun_open(TUN_DEFAULT_NAME, offload, e->dp_tun_name);
	if (fd < 0) {
		log_err("datapath: TUN device %s: %s", TUN_DEFAULT_NAME, strerror(-fd));
		e->dp_tun_name[0] = '\0';
		return fd;
	}
	for (i = 0; (me = hidb_at(d->hidb, i)); i++) {
		hip_hit_to_str(&me->hit, hit, sizeof(hit));
		ret = tun_configure(e->dp_tun_name, &me->hit, mtu);
		if (ret < 0) {
			log_err("datapath: %s/128 on %s, route 2001:20::/28: %s", hit,
				e->dp_tun_name, strerror(-ret));
			close(fd);
			e->dp_tun_name[0] = '\0';
			return ret;
		}
		log_info("datapath: %s/128 on %s, 2001:20::/28 routed to it", hit, e->dp_tun_name);
		dp_tun_lsi(d, me);
	}
	return fd;
}

/* Kernel datapath: XFRM takes HIT-addressed packets before they reach
 * hip0; what still arrives had no policy (not from a local HIT) and goes. */
static void dp_tun_drain(struct hip_loop *loop, int fd, uint32_t events, void *arg)
{
	uint8_t buf[2048];
	int n;

	(void)loop;
	(void)events;
	(void)arg;
	for (n = 0; n < 64; n++) {
		if (read(fd, buf, sizeof(buf)) <= 0)
			break;
	}
}

static void dp_tun_close(struct hipd *d)
{
	struct hipd_engine *e = d->engine;

	if (!e->dp_tun_open)
		return;
	hip_loop_fd_remove(d->loop, e->dp_tun_fd);
	close(e->dp_tun_fd);
	e->dp_tun_open = false;
	e->dp_tun_fd = -1;
}

/* ---- start / stop --------------------------------------------------------------- */

/* The datapath object and, for XFRM, its event socket in the loop. */
static void dp_release(struct hipd *d)
{
	struct hipd_engine *e = d->engine;

	if (e->dp_kernel)
		hip_loop_fd_remove(d->loop, xfrm_dp_event_fd(e->dp));
	/* The userspace datapath closes hip0 (its fd) and the ESP sockets. */
	e->dp->ops->free(e->dp);
	e->dp = NULL;
	e->dp_kernel = false;
}

static void dp_close(struct hipd *d)
{
	struct hipd_engine *e = d->engine;

	dp_tun_close(d);
	if (!e->dp)
		return;
	dp_release(d);
	e->dp_tun_name[0] = '\0';
}

static int dp_raw_open(int family)
{
	int fd = uesp_open_raw(family);

	if (fd < 0)
		log_warn("datapath: raw ESP socket (%s): %s: no ESP over %s",
			 family == AF_INET ? "IPv4" : "IPv6", strerror(-fd),
			 family == AF_INET ? "IPv4" : "IPv6");
	return fd < 0 ? -1 : fd;
}

/* hipd carries ESP itself (uesp.c): hip0 with offloads, raw ESP sockets.
 * Without it the daemon still runs base exchanges, so a failure is fatal
 * only when the configuration asked for this datapath. */
static int dp_start_userspace(struct hipd *d, const char *why, bool configured)
{
	struct hipd_engine *e = d->engine;
	struct datapath_events ev = {
		.arg = d, .acquire = dp_acquire, .acquire_lsi = eng_dp_acquire_lsi,
		.expire = dp_expire, .traffic = dp_traffic,
		.udp_peer = dp_udp_peer, .hip_udp = dp_hip_udp, .no_sa = dp_no_sa,
	};
	struct uesp_conf conf = {
		.tun_fd = -1, .tun_vnet = true, .raw4 = -1, .raw6 = -1,
		.udp = true, .udp4 = d->udp4, .udp6 = d->udp6, .tun_mtu = TUN_DEFAULT_MTU,
	};
	int ret;

	log_notice("datapath: userspace%s%s%s", why ? " (" : "", why ? why : "", why ? ")" : "");
	conf.tun_fd = dp_tun_up(d, conf.tun_vnet, conf.tun_mtu);
	if (conf.tun_fd < 0) {
		ret = conf.tun_fd;
		goto fail;
	}
	if (d->conf.listen_v4)
		conf.raw4 = dp_raw_open(AF_INET);
	if (d->conf.listen_v6)
		conf.raw6 = dp_raw_open(AF_INET6);
	if (conf.raw4 < 0 && conf.raw6 < 0) {
		close(conf.tun_fd);
		ret = -EAFNOSUPPORT;
		goto fail;
	}
	/* uesp_create owns the fds from here; it reads our UDP sockets
	 * (ESP in UDP batched; HIP control comes back through hip_udp) */
	eng_udp_reader(d, false);
	ret = uesp_create(d->loop, &conf, &ev, &e->dp);
	if (ret < 0) {
		eng_udp_reader(d, true);
		goto fail;
	}
	log_info("datapath: userspace ESP on %s (MTU %u), ESP over%s%s", e->dp_tun_name,
		 conf.tun_mtu, conf.raw4 >= 0 ? " IPv4" : "", conf.raw6 >= 0 ? " IPv6" : "");
	return 0;
fail:
	e->dp = NULL;
	e->dp_tun_name[0] = '\0';
	if (configured) {
		log_err("datapath = userspace, but it cannot start: %s", strerror(-ret));
		return ret;
	}
	log_err("datapath: the userspace ESP datapath cannot start (%s): no ESP traffic",
		strerror(-ret));
	return 0;
}

static int dp_start_kernel(struct hipd *d, char *why, size_t whylen)
{
	struct hipd_engine *e = d->engine;
	struct datapath_events ev = {
		.arg = d, .acquire = dp_acquire, .acquire_lsi = eng_dp_acquire_lsi,
		.expire = dp_expire, .udp_peer = dp_udp_peer,
		.no_sa = dp_no_sa,
	};
	struct hidb_entry *me;
	struct xfrm_dp_conf xconf = { .reqid = d->conf.xfrm_reqid };
	size_t i;
	int ret, n;

	ret = xfrm_dp_create(&e->dp, &xconf, &ev);
	if (ret < 0) {
		snprintf(why, whylen, "no XFRM netlink: %s", strerror(-ret));
		return ret;
	}
	e->dp_kernel = true;
	ret = hip_loop_fd_add(d->loop, xfrm_dp_event_fd(e->dp), EPOLLIN, dp_events_readable, d);
	if (ret < 0) {
		e->dp_kernel = false;
		snprintf(why, whylen, "event socket: %s", strerror(-ret));
		return ret;
	}
	/* Stale entries of a hipd that died with our reqid. */
	n = xfrm_dp_flush_count(e->dp);
	if (n > 0)
		log_notice("xfrm: removed %d stale SAs and policies of an earlier hipd", n);
	ret = xfrm_dp_probe_esp(e->dp, why, whylen);
	if (ret < 0)
		return ret;
	/* ESP in UDP (RFC 3948): the kernel takes ESP off our UDP sockets
	 * and passes HIP (the zero marker) on to us */
	for (i = 0; i < 2; i++) {
		int fd = i ? d->udp6 : d->udp4, t = UDP_ENCAP_ESPINUDP;

		if (fd >= 0 && setsockopt(fd, IPPROTO_UDP, UDP_ENCAP, &t, sizeof(t)) != 0)
			log_warn("xfrm: UDP_ENCAP on the NAT traversal socket: %s: no ESP in "
				 "UDP", strerror(errno));
	}
	/* Hold the packet that triggers an ACQUIRE (the first ping). */
	ret = xfrm_set_larval_drop(0);
	if (ret < 0)
		log_warn("xfrm: net.core.xfrm_larval_drop = 0: %s: the first packet to a "
			 "new peer is dropped", strerror(-ret));
	for (i = 0; (me = hidb_at(d->hidb, i)); i++) {
		char ls[INET_ADDRSTRLEN];
		struct in_addr lsi;

		ret = xfrm_dp_acquire_policy_add(e->dp, &me->hit);
		if (ret < 0)
			log_warn("xfrm: no traffic-triggered base exchange from this HIT");
		/* and from its LSI to the LSI range (D-22) */
		if (dp_local_lsi(d, me, &lsi, ls, sizeof(ls)) &&
		    xfrm_dp_acquire_lsi_policy_add(e->dp, &lsi, &d->conf.lsi_range) < 0)
			log_warn("xfrm: no traffic-triggered base exchange from LSI %s", ls);
	}
	/* hip0 gives the HITs an interface and the route for the lookup that
	 * precedes XFRM; its fd is only drained. Without it, applications need
	 * the HIT and the route set by hand, so it is not fatal. */
	ret = dp_tun_up(d, false, 0);
	if (ret >= 0) {
		e->dp_tun_fd = ret;
		ret = hip_loop_fd_add(d->loop, e->dp_tun_fd, EPOLLIN, dp_tun_drain, d);
		if (ret < 0) {
			close(e->dp_tun_fd);
			e->dp_tun_name[0] = '\0';
		} else {
			e->dp_tun_open = true;
		}
	}
	if (ret < 0)
		log_warn("datapath: no %s: applications cannot reach HITs unless the HIT "
			 "and a route to 2001:20::/28 are set up by hand", TUN_DEFAULT_NAME);
	return 0;
}

int eng_dp_start(struct hipd *d)
{
	struct hipd_engine *e = d->engine;
	char why[192] = "";
	int ret;

	log_ratelimit_init(&e->dp_log, 1000, 5);
	e->dp_tun_open = false;
	e->dp_tun_fd = -1;
	if (d->conf.datapath == HIPD_DATAPATH_USERSPACE)
		return dp_start_userspace(d, "configured", true);
	ret = dp_start_kernel(d, why, sizeof(why));
	if (ret == 0) {
		log_notice("datapath: kernel (XFRM, ESP BEET mode, reqid 0x%08x)",
			   xfrm_reqid_or_default(d->conf.xfrm_reqid));
		return 0;
	}
	if (e->dp)
		e->dp->ops->flush(e->dp);
	dp_close(d);
	if (d->conf.datapath == HIPD_DATAPATH_KERNEL) {
		log_err("datapath = kernel, but the kernel cannot carry ESP: %s", why);
		return ret;
	}
	/* Said once, here: the kernel takes no ESP SA (or no XFRM at all). */
	if (ret == -EPROTONOSUPPORT)
		return dp_start_userspace(d, "this kernel has no ESP", false);
	return dp_start_userspace(d, why, false);
}

void eng_dp_stop(struct hipd *d)
{
	struct hipd_engine *e = d->engine;

	if (!e)
		return;
	if (e->dp)
		e->dp->ops->flush(e->dp);
	dp_close(d);
	if (e->dp_expiry_timer)
		hip_loop_timer_cancel(d->loop, e->dp_expiry_timer);
	e->dp_expiry_timer = 0;
	free(e->dp_expiry);
	e->dp_expiry = NULL;
	e->n_dp_expiry = e->cap_dp_expiry = 0;
}

bool hipd_engine_kernel_datapath(const struct hipd *d)
{
	return d->engine && d->engine->dp && d->engine->dp_kernel;
}

void hipd_engine_datapath_hand_over(struct hipd *d,
				    struct datapath *(*client)(void *arg,
							       const struct datapath_events *ev),
				    void *arg)
{
	struct hipd_engine *e = d->engine;
	struct datapath_events ev;

	if (!hipd_engine_kernel_datapath(d))
		return;
	ev = e->dp->ev;
	dp_release(d);
	e->dp = client(arg, &ev);
}
