/*
 * engine.c - the protocol engine's life cycle (engine.h): identities and
 * their R1 caches, the association table, rate limiters, raw sockets and
 * their read callbacks, the R1 rotation timer, the hooks through which
 * assoc/ reports up, the puzzle thread; shutdown with CLOSE to every peer.
 */
#include <errno.h>
#include <arpa/inet.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine_int.h"
#include "engine/exchange/exchange.h"
#include "engine/update/update.h"
#include "hit.h"
#include "net/net.h"

enum {
	ENG_PUZZLE_LIFETIME = 37,      /* 2^(37-32) = 32 s (RFC 7401 §5.2.4) */
	ENG_RECV_BUDGET     = 1024,    /* packets per readable event */
	ENG_RL_SLOTS        = 4096,
	ENG_R1_RL_SLOTS     = 65536,
};

/* Default output: the raw sockets (tests install their own). */
static int eng_sock_send(struct hipd *d, const uint8_t *pkt, size_t len,
			 const struct hip_addr *src, const struct hip_addr *dst)
{
	return hip_sock_send(d->raw4, d->raw6, pkt, len, src, dst);
}

/* ---- sockets ------------------------------------------------------------ */

/* Drain the socket: level-triggered, so a budget keeps other work going
 * under a flood and the rest is read on the next round. */
static void sock_readable(struct hip_loop *loop, int fd, uint32_t events, void *arg)
{
	uint8_t buf[HIP_MAX_PACKET + 60];
	struct hipd *d = arg;
	struct hip_rx rx;
	int i, ret;

	(void)loop;
	(void)events;
	for (i = 0; i < ENG_RECV_BUDGET; i++) {
		ret = hip_sock_recv(fd, buf, sizeof(buf), &rx);
		if (ret == -EAGAIN)
			break;
		if (ret == -EMSGSIZE) {
			hipd_drop_count(d->stats, HIPD_DROP_OVERSIZE);
			continue;
		}
		if (ret < 0) {
			log_ratelimited(&d->engine->drop_log, LOG_WARNING, "raw socket: %s",
					strerror(-ret));
			break;
		}
		hipd_engine_input(d, rx.buf, rx.len, &rx.src, &rx.dst);
	}
}

static int sockets_open(struct hipd *d)
{
	struct hipd_engine *e = d->engine;
	int ret;

	if (d->raw4 < 0 && d->conf.listen_v4) {
		ret = hip_sock_open4();
		if (ret < 0) {
			log_err("raw IPv4 socket for protocol 139: %s", strerror(-ret));
			return ret;
		}
		d->raw4 = ret;
		e->own_raw4 = true;
	}
	if (d->raw6 < 0 && d->conf.listen_v6) {
		ret = hip_sock_open6();
		/* A kernel without IPv6 still runs HIP over IPv4. */
		if (ret == -EAFNOSUPPORT && d->raw4 >= 0) {
			log_warn("no IPv6 in this kernel: HIP over IPv4 only");
		} else if (ret < 0) {
			log_err("raw IPv6 socket for protocol 139: %s", strerror(-ret));
			return ret;
		} else {
			d->raw6 = ret;
			e->own_raw6 = true;
		}
	}
	if (d->raw4 >= 0) {
		ret = hip_loop_fd_add(d->loop, d->raw4, EPOLLIN, sock_readable, d);
		if (ret < 0)
			return ret;
	}
	if (d->raw6 >= 0) {
		ret = hip_loop_fd_add(d->loop, d->raw6, EPOLLIN, sock_readable, d);
		if (ret < 0)
			return ret;
	}
	eng_icmp_open(d);
	return 0;
}

static void sockets_close(struct hipd *d)
{
	struct hipd_engine *e = d->engine;

	if (d->raw4 >= 0) {
		hip_loop_fd_remove(d->loop, d->raw4);
		if (e->own_raw4) {
			close(d->raw4);
			d->raw4 = -1;
		}
	}
	if (d->raw6 >= 0) {
		hip_loop_fd_remove(d->loop, d->raw6);
		if (e->own_raw6) {
			close(d->raw6);
			d->raw6 = -1;
		}
	}
}

/* ---- identities and R1 caches -------------------------------------------- */

static int r1caches_build(struct hipd *d)
{
	struct hipd_engine *e = d->engine;
	char path[HIPD_PATH_MAX + 64], hit[HIP_HIT_STR_LEN];
	struct r1cache_conf rc = {
		.dh_groups = d->conf.dh_groups, .n_dh_groups = d->conf.n_dh_groups,
		.hip_ciphers = d->conf.hip_ciphers, .n_hip_ciphers = d->conf.n_hip_ciphers,
		.esp_suites = d->conf.esp_suites, .n_esp_suites = d->conf.n_esp_suites,
		.size = d->conf.r1_cache_size, .rotate_seconds = d->conf.r1_rotate_seconds,
		.reg_info = d->engine->reg_info.n ? &d->engine->reg_info : NULL,
		.nat_udp = d->conf.nat_traversal != HIPD_NAT_NEVER,
		.nat_ta_ms = d->conf.nat_ta_ms,
	};
	struct hidb_entry *me;
	bool persist = d->conf.state_dir[0] != '\0';
	size_t i;
	int ret;

	/* App. A: a secret outlives its replacement by one rotation period,
	 * which must cover the puzzle lifetime 2^(L-32) s. */
	rc.lifetime = ENG_PUZZLE_LIFETIME;
	while (rc.lifetime > 32 && rc.rotate_seconds < (1u << (rc.lifetime - 32)))
		rc.lifetime--;
	if (persist && mkdir(d->conf.state_dir, 0700) < 0 && errno != EEXIST) {
		log_warn("state directory %s: %s: R1 counters are not persisted",
			 d->conf.state_dir, strerror(errno));
		persist = false;
	}
	e->n_built_groups = d->conf.n_dh_groups;
	memcpy(e->built_groups, d->conf.dh_groups, sizeof(e->built_groups));
	e->n_built_ciphers = d->conf.n_hip_ciphers;
	memcpy(e->built_ciphers, d->conf.hip_ciphers, sizeof(e->built_ciphers));
	e->n_built_esp = d->conf.n_esp_suites;
	memcpy(e->built_esp, d->conf.esp_suites, sizeof(e->built_esp));
	for (i = 0; (me = hidb_at(d->hidb, i)); i++) {
		hip_hit_to_str(&me->hit, hit, sizeof(hit));
		/* P-08: one persisted R1 counter per HI. */
		if (persist) {
			snprintf(path, sizeof(path), "%s/r1counter-%s", d->conf.state_dir, hit);
			rc.counter_path = path;
		}
		r1cache_free(me->r1);
		me->r1 = NULL;
		ret = r1cache_create(&me->r1, me, &rc);
		if (ret < 0) {
			log_err("R1 cache for %s: %s", hit, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static void r1_rotate_fired(struct hip_loop *loop, uint64_t timer, void *arg)
{
	struct hipd *d = arg;
	struct hidb_entry *me;
	size_t i;
	int ret;

	(void)timer;
	for (i = 0; (me = hidb_at(d->hidb, i)); i++) {
		ret = r1cache_rotate(me->r1, hipd_now_ns());
		if (ret < 0)
			log_warn("R1 cache rotation: %s", strerror(-ret));
	}
	d->engine->r1_timer = hip_loop_timer_add(loop, (uint64_t)d->conf.r1_rotate_seconds *
						 ENG_NS_PER_S, r1_rotate_fired, d);
}

/* ---- start / stop ------------------------------------------------------------ */

static int engine_alloc(struct hipd *d)
{
	struct hipd_engine *e = calloc(1, sizeof(*e));
	int ret;

	if (!e)
		return -ENOMEM;
	d->engine = e;
	e->icmp4 = e->icmp6 = -1;
	log_ratelimit_init(&e->drop_log, 1000, ENG_DROP_LOG_BURST);
	log_ratelimit_init(&e->notify_log, 1000, ENG_DROP_LOG_BURST);
	ret = ratelimit_create(&e->notify_limit, ENG_NOTIFY_RATE, ENG_NOTIFY_BURST,
			       ENG_RL_SLOTS);
	if (ret == 0)
		ret = eng_icmp_init(d);
	if (ret < 0)
		return ret;
	if (!d->stats) {
		d->stats = calloc(1, sizeof(*d->stats));
		if (!d->stats)
			return -ENOMEM;
		e->own_stats = true;
	}
	if (!d->hosts) {
		ret = hosts_create(&d->hosts);
		if (ret < 0)
			return ret;
		e->own_hosts = true;
	}
	if (!d->r1_limit) {
		ret = ratelimit_create(&d->r1_limit, d->conf.ratelimit_r1_per_source,
				       d->conf.ratelimit_r1_burst, ENG_R1_RL_SLOTS);
		if (ret < 0)
			return ret;
	}
	/* what assoc/ reports up (engine_int.h) */
	e->ha_timeout = eng_fsm_timeout;
	e->ha_ending = upd_ha_ending;
	d->addrs_changed = upd_local_addrs_changed;
	d->route_changed = upd_default_route_changed;
	ret = hadb_create(&d->hadb);
	if (ret < 0)
		return ret;
	hadb_set_free_hook(d->hadb, upd_state_free);
	return 0;
}

/* Our identities, logged, each with its LSI (D-20): given here, before any
 * peer's, so a collision probe never moves our own. */
static void own_identities(struct hipd *d)
{
	char hit[HIP_HIT_STR_LEN], ls[INET_ADDRSTRLEN];
	struct hidb_entry *me;
	struct in_addr lsi;
	size_t i;

	for (i = 0; (me = hidb_at(d->hidb, i)); i++) {
		hip_hit_to_str(&me->hit, hit, sizeof(hit));
		if (hosts_lsi(d->hosts, &me->hit, &lsi, NULL) == 0 &&
		    inet_ntop(AF_INET, &lsi, ls, sizeof(ls)))
			log_notice("host identity %s (%s), LSI %s", hit,
				   hip_hi_kind_name(hip_hi_kind(me->hi)), ls);
		else
			log_notice("host identity %s (%s), no LSI (the LSI range is full)", hit,
				   hip_hi_kind_name(hip_hi_kind(me->hi)));
	}
}

int hipd_engine_start(struct hipd *d)
{
	int ret;

	/* Idempotent; the algorithms must be cached before any key work. */
	ret = hip_crypto_init();
	if (ret < 0)
		return ret;
	ret = engine_alloc(d);
	if (ret < 0)
		goto fail;
	if (!d->hidb) {
		ret = hidb_open(&d->hidb, d->conf.hi_file, d->conf.hi_algorithm);
		if (ret < 0) {
			log_err("host identity %s: %s", d->conf.hi_file, strerror(-ret));
			goto fail;
		}
	}
	own_identities(d);
	ret = eng_reg_start(d);   /* before the R1s: their REG_INFO */
	if (ret == 0)
		ret = eng_opp_start(d);   /* the pins (D-27) */
	if (ret < 0)
		goto fail;
	ret = r1caches_build(d);
	if (ret < 0)
		goto fail;
	d->puzzle_k = d->conf.puzzle_k;
	d->engine->k_base = d->conf.puzzle_k;
	d->stats->puzzle_k_current = d->puzzle_k;
	/* Sockets only for the default output: in-process tests bring both
	 * ends of the wire themselves. */
	if (!d->send_packet) {
		d->send_packet = eng_sock_send;
		ret = sockets_open(d);
		if (ret == 0)
			ret = eng_udp_open(d);   /* before the datapath: ESP in UDP */
		if (ret < 0)
			goto fail;
		ret = eng_dp_start(d);
		if (ret < 0)
			goto fail;
	}
	d->engine->r1_timer = hip_loop_timer_add(d->loop, (uint64_t)d->conf.r1_rotate_seconds *
						 ENG_NS_PER_S, r1_rotate_fired, d);
	if (!d->engine->r1_timer || eng_puzzle_k_start(d) < 0 || eng_live_start(d) < 0 ||
	    eng_heap_start(d) < 0) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = eng_control_register(d);
	if (ret < 0)
		goto fail;
	return 0;
fail:
	hipd_engine_stop(d);
	return ret;
}

static int close_one(struct hip_ha *ha, void *arg)
{
	struct hipd *d = arg;

	if (ha->state == HIP_STATE_R2_SENT)
		eng_ha_set_state(d, ha, HIP_STATE_ESTABLISHED);
	if (ha->state == HIP_STATE_ESTABLISHED)
		eng_fsm_event(d, ha, HIP_EV_CLOSE_REQ);
	return 0;
}

static int cancel_one(struct hip_ha *ha, void *arg)
{
	eng_timer_cancel(arg, ha);
	return 0;
}

void hipd_engine_threads_start(struct hipd *d)
{
	struct hipd_engine *e = d->engine;
	cpu_set_t cpus;
	int r;

	if (!e || e->puzzle_worker)
		return;
	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0 && CPU_COUNT(&cpus) < 2) {
		log_info("one CPU: the puzzle is solved on the engine's thread");
		return;
	}
	r = puzzle_worker_start(&e->puzzle_worker);
	if (r < 0)
		log_warn("no puzzle thread (%s): the puzzle is solved on the engine's thread",
			 strerror(-r));
	else
		log_info("puzzle search on two threads");
}

void hipd_engine_threads_stop(struct hipd *d)
{
	struct hipd_engine *e = d->engine;

	if (!e)
		return;
	puzzle_worker_stop(e->puzzle_worker);   /* NULL: none */
	e->puzzle_worker = NULL;
}

void hipd_engine_stop(struct hipd *d)
{
	struct hipd_engine *e = d->engine;

	if (!e)
		return;
	if (d->hadb) {
		/* Best effort: one CLOSE each, no waiting for CLOSE_ACKs. */
		if (d->hidb)
			hadb_foreach(d->hadb, close_one, d);
		hadb_foreach(d->hadb, cancel_one, d);
		hadb_free(d->hadb);
		d->hadb = NULL;
	}
	eng_dp_stop(d);   /* after the CLOSEs: removes what is left, ours only */
	eng_reg_stop(d);
	eng_opp_stop(d);
	eng_control_unregister(d);
	if (e->r1_timer)
		hip_loop_timer_cancel(d->loop, e->r1_timer);
	eng_puzzle_k_stop(d);
	eng_live_stop(d);
	eng_heap_stop(d);
	hipd_engine_threads_stop(d);
	sockets_close(d);
	eng_icmp_close(d);
	eng_udp_close(d);
	if (d->send_packet == eng_sock_send)
		d->send_packet = NULL;
	hipd_engine_drop_secrets(d);
	ratelimit_free(d->r1_limit);
	d->r1_limit = NULL;
	ratelimit_free(e->notify_limit);
	if (e->own_hosts) {
		hosts_free(d->hosts);
		d->hosts = NULL;
	}
	if (e->own_stats) {
		free(d->stats);
		d->stats = NULL;
	}
	d->addrs_changed = NULL;
	d->route_changed = NULL;
	free(e);
	d->engine = NULL;
}

/* SIGHUP, after main.c applied the runtime keys of the new configuration:
 * puzzle K and policy take effect at once; new suite or group lists
 * rebuild the R1 caches (the R1 counter keeps increasing). */
int hipd_engine_reload(struct hipd *d)
{
	struct hipd_engine *e = d->engine;

	if (!e)
		return -EINVAL;
	if (e->k_base != d->conf.puzzle_k)
		eng_puzzle_k_set(d, d->conf.puzzle_k);
	if (eng_reg_reload(d) < 0)
		log_warn("registration allow-list unchanged (see above)");
	if (e->n_built_groups != d->conf.n_dh_groups ||
	    memcmp(e->built_groups, d->conf.dh_groups, sizeof(e->built_groups)) ||
	    e->n_built_ciphers != d->conf.n_hip_ciphers ||
	    memcmp(e->built_ciphers, d->conf.hip_ciphers, sizeof(e->built_ciphers)) ||
	    e->n_built_esp != d->conf.n_esp_suites ||
	    memcmp(e->built_esp, d->conf.esp_suites, sizeof(e->built_esp))) {
		log_notice("suites changed: rebuilding the R1 caches");
		return r1caches_build(d);
	}
	return 0;
}

/* ---- hipconf trigger / close ------------------------------------------------- */

/* ---- for the privilege separation ------------------------------------------ */

int hipd_engine_local_hits(const struct hipd *d, struct hip_hit *out, size_t max)
{
	struct hidb_entry *me;
	size_t i;

	for (i = 0; d->hidb && (me = hidb_at(d->hidb, i)); i++) {
		if (i == max)
			return -E2BIG;
		out[i] = me->hit;
	}
	return (int)i;
}

bool hipd_engine_threaded(const struct hipd *d)
{
	return d->engine && d->engine->puzzle_worker;
}

void hipd_engine_drop_secrets(struct hipd *d)
{
	eng_dh_spares_free(d);
	eng_hi_cache_free(d);
	hidb_free(d->hidb);
	d->hidb = NULL;
}
