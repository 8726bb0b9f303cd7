/*
 * bex_opp.c - opportunistic mode, the Initiator's side (RFC 7401 §4.1.8,
 * docs/decisions.md D-27): a base exchange with a plain IP address whose
 * HIT we do not know, where hipd.conf opportunistic_peers allows it.
 *
 * `hipconf trigger ADDRESS` sends I1s with the NULL receiver HIT to the
 * address (the I1 back-off of i1_timeout_ms and i1_retries). An R1 is
 * taken only from that address and only naming our HIT of those I1s; its
 * sender HIT makes the association, and every check of §6.8 (signature,
 * HIT = ORCHID(HI)) still applies. When the exchange completes (R2), the
 * HIT is pinned for the address in known_hosts_file (hipd/net/
 * known_hosts.h) and mapped to it, so the peer is then reached by its
 * HIT, its LSI and names like any mapped peer. A later R1 from the
 * address naming another HIT is refused, logged and counted, until the
 * pin is removed (`hipconf del pin ADDRESS`): trust on first use, as ssh's
 * known_hosts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine_int.h"
#include "engine/assoc/assoc.h"
#include "exchange.h"
#include "hit.h"
#include "base/base.h"
#include "net/net.h"

enum {
	OPP_TRIES_MAX = 32,       /* exchanges under way at once */
	OPP_R2_WAIT_S = 60,       /* an R1 taken: look again for the R2 after this */
};

enum opp_stage {
	OPP_FREE,
	OPP_I1,                   /* I1s out, no R1 taken yet */
	OPP_R2,                   /* an R1 taken, I2 out: pinned at the R2 */
};

/* An opportunistic exchange under way. */
struct opp_try {
	enum opp_stage stage;
	struct hip_addr addr;     /* where the I1s go; the R1 must come from it */
	struct hip_hit local;     /* our HIT of the I1s: the R1 must name it */
	struct hip_hit peer;      /* OPP_R2: the HIT the R1 named */
	uint64_t first_ns;        /* the first I1 (the exchange's time) */
	uint64_t next_ns;         /* next I1 (OPP_I1), give up (OPP_R2) */
	unsigned i1s;             /* I1s sent */
};

struct eng_opp {
	struct known_hosts *pins;
	struct opp_try tries[OPP_TRIES_MAX];
	uint64_t timer;           /* at the earliest next_ns, 0 = none */
	uint64_t started, learnt, confirmed, refused, failed;
	struct log_ratelimit log;
};

static void opp_arm(struct hipd *d);

static struct opp_try *try_find(struct eng_opp *o, const struct hip_addr *addr)
{
	size_t i;

	for (i = 0; i < OPP_TRIES_MAX; i++)
		if (o->tries[i].stage != OPP_FREE &&
		    memcmp(&o->tries[i].addr, addr, sizeof(*addr)) == 0)
			return &o->tries[i];
	return NULL;
}

/* t's address is pinned and its association up. */
static bool try_reached(struct hipd *d, const struct opp_try *t)
{
	const struct known_host *pin = known_hosts_find(d->engine->opp->pins, &t->addr);
	const struct hip_ha *ha = pin ? hadb_find_peer(d->hadb, &pin->hit) : NULL;

	return ha && ha->state == HIP_STATE_ESTABLISHED;
}

/* An OPP_R2 try whose association still waits for its R2: its own I2
 * retransmissions (i2_timeout_ms, i2_retries) may outlast OPP_R2_WAIT_S. */
static bool try_r2_waiting(struct hipd *d, const struct opp_try *t)
{
	const struct hip_ha *ha = hadb_find_peer(d->hadb, &t->peer);

	return ha && ha->state == HIP_STATE_I2_SENT;
}

/* The next I1 of t, or its end after i1_retries retransmissions. */
static void try_step(struct hipd *d, struct opp_try *t, uint64_t now)
{
	struct eng_opp *o = d->engine->opp;
	struct hidb_entry *me = hidb_find(d->hidb, &t->local);
	char a[INET6_ADDRSTRLEN];
	int ret;

	hip_addr_to_str(&t->addr, a, sizeof(a));
	if (t->stage == OPP_R2 && try_r2_waiting(d, t)) {
		t->next_ns = now + (uint64_t)OPP_R2_WAIT_S * ENG_NS_PER_S;
		return;
	}
	if (t->stage == OPP_R2) {
		/* its association ended without an R2 (E-FAILED, closed) */
		log_notice("opportunistic exchange with %s: no R2, given up", a);
		o->failed++;
		t->stage = OPP_FREE;
		return;
	}
	if (t->stage == OPP_I1 && try_reached(d, t)) {
		/* the pinned HIT answered an I1 of its own (traffic to its HIT,
		 * or a trigger by HIT): nothing left to learn */
		o->confirmed++;
		t->stage = OPP_FREE;
		return;
	}
	if (t->i1s > d->conf.i1_retries || !me) {
		log_notice("opportunistic exchange with %s: no acceptable R1 to %u I1s, given up",
			   a, t->i1s);
		o->failed++;
		d->stats->bex_failed++;
		t->stage = OPP_FREE;
		return;
	}
	ret = eng_send_i1_opportunistic(d, me, &t->addr);
	if (ret < 0)
		log_ratelimited(&o->log, LOG_WARNING, "opportunistic I1 to %s: %s", a,
				strerror(-ret));
	/* a failed send is retried at the next timeout like a lost packet */
	t->next_ns = now + eng_retx_delay_ns(d->conf.i1_timeout_ms, t->i1s);
	t->i1s++;
}

static void opp_fired(struct hip_loop *loop, uint64_t timer, void *arg)
{
	struct hipd *d = arg;
	struct eng_opp *o = d->engine->opp;
	uint64_t now = hipd_now_ns();
	size_t i;

	(void)loop;
	(void)timer;
	o->timer = 0;
	for (i = 0; i < OPP_TRIES_MAX; i++)
		if (o->tries[i].stage != OPP_FREE && o->tries[i].next_ns <= now)
			try_step(d, &o->tries[i], now);
	opp_arm(d);
}

static void opp_arm(struct hipd *d)
{
	struct eng_opp *o = d->engine->opp;
	uint64_t at = 0;
	size_t i;

	if (o->timer)
		hip_loop_timer_cancel(d->loop, o->timer);
	o->timer = 0;
	for (i = 0; i < OPP_TRIES_MAX; i++)
		if (o->tries[i].stage != OPP_FREE && (!at || o->tries[i].next_ns < at))
			at = o->tries[i].next_ns;
	if (at)
		o->timer = hip_loop_timer_add_at(d->loop, at, opp_fired, d);
}

int eng_opp_trigger(struct hipd *d, const struct hip_addr *addr, struct hip_hit *known)
{
	struct eng_opp *o = d->engine ? d->engine->opp : NULL;
	const struct known_host *pin;
	struct hidb_entry *me;
	struct opp_try *t;
	struct hip_ha *ha;
	size_t i;

	if (!o)
		return -ENOTCONN;
	if (!hipd_conf_opportunistic_to(&d->conf, addr))
		return -EPERM;
	if (hip_addr_locator_problem(addr))
		return -EINVAL;
	memset(known, 0, sizeof(*known));
	pin = known_hosts_find(o->pins, addr);
	if (pin) {
		*known = pin->hit;
		ha = hadb_find_peer(d->hadb, &pin->hit);
		if (ha && ha->state == HIP_STATE_ESTABLISHED)
			return 0;   /* reached already: nothing to learn */
	}
	t = try_find(o, addr);
	if (t && t->stage == OPP_R2 && !try_r2_waiting(d, t)) {
		o->failed++;    /* its association failed: no R2 to wait for */
		t->stage = OPP_FREE;
		t = NULL;
	}
	if (t)
		return 0;       /* under way */
	me = hidb_default(d->hidb);
	if (!me)
		return -ENOENT;
	for (i = 0; i < OPP_TRIES_MAX && o->tries[i].stage != OPP_FREE; i++)
		;
	if (i == OPP_TRIES_MAX)
		return -EBUSY;
	t = &o->tries[i];
	memset(t, 0, sizeof(*t));
	t->stage = OPP_I1;
	t->addr = *addr;
	t->local = me->hit;   /* one identity per exchange: the R1 must name it */
	t->first_ns = hipd_now_ns();
	o->started++;
	d->stats->bex_started++;
	try_step(d, t, t->first_ns);
	opp_arm(d);
	return 0;
}

struct hip_ha *eng_opp_r1(struct hipd *d, const struct eng_rx *rx)
{
	struct eng_opp *o = d->engine->opp;
	const struct hip_hit *peer = &rx->pkt->hit_sender;
	char hit[HIP_HIT_STR_LEN], pinned[HIP_HIT_STR_LEN], a[INET6_ADDRSTRLEN], where[64];
	const struct known_host *pin;
	struct opp_try *t;
	struct hip_ha *ha;

	/* §4.1.8: from the address our I1s went to (the IPs of an R1 matter
	 * only here, §6.8 step 1), to our HIT of those I1s */
	t = o && rx->local ? try_find(o, rx->src) : NULL;
	if (!t || t->stage != OPP_I1 || hip_hit_cmp(&t->local, &rx->local->hit) != 0)
		return NULL;
	hip_addr_to_str(&t->addr, a, sizeof(a));
	hip_hit_to_str(peer, hit, sizeof(hit));
	pin = known_hosts_find(o->pins, &t->addr);
	if (pin && hip_hit_cmp(&pin->hit, peer) != 0) {
		o->refused++;
		if (pin->line)
			snprintf(where, sizeof(where), " line %u", pin->line);
		else
			snprintf(where, sizeof(where), ", learnt since hipd started");
		log_ratelimited(&o->log, LOG_WARNING, "%s answers as %s, but it is pinned to %s "
				"(%s%s): refused; if that host's identity changed, remove the "
				"pin with 'hipconf del pin %s'", a, hit,
				hip_hit_to_str(&pin->hit, pinned, sizeof(pinned)),
				d->conf.known_hosts_file[0] ? d->conf.known_hosts_file : "pins",
				where, a);
		return NULL;
	}
	ha = hadb_find_peer(d->hadb, peer);
	if (ha && (ha->local != rx->local || !(ha->state == HIP_STATE_E_FAILED ||
					       ha->state == HIP_STATE_CLOSED ||
					       ha->state == HIP_STATE_UNASSOCIATED))) {
		log_ratelimited(&o->log, LOG_NOTICE, "%s answers as %s, a peer we have an "
				"association with: not taken as new", a, hit);
		return NULL;
	}
	if (ha)
		eng_ha_free(d, ha);   /* failed or closed: this exchange starts afresh */
	if (eng_ha_opportunistic(d, rx->local, peer, rx->dst, &t->addr, t->first_ns, &ha) < 0)
		return NULL;
	return ha;
}

void eng_opp_r1_done(struct hipd *d, const struct eng_rx *rx)
{
	struct eng_opp *o = d->engine->opp;
	const struct hip_hit *peer = &rx->pkt->hit_sender;
	struct opp_try *t = o ? try_find(o, rx->src) : NULL;
	struct hip_ha *ha = hadb_find_peer(d->hadb, peer);

	if (!t || t->stage != OPP_I1)
		return;
	/* Taken: the I2 is out (its signature verified, §6.8 step 2), or the
	 * R1 restarted the exchange with another identity of ours (step 4). */
	if (ha && (ha->state == HIP_STATE_I2_SENT || ha->local != rx->local)) {
		t->stage = OPP_R2;
		t->peer = *peer;
		t->next_ns = hipd_now_ns() + (uint64_t)OPP_R2_WAIT_S * ENG_NS_PER_S;
		opp_arm(d);
		return;
	}
	if (ha)
		eng_ha_free(d, ha);   /* refused by the R1 checks (counted as a drop) */
}

void eng_opp_established(struct hipd *d, const struct hip_ha *ha)
{
	struct eng_opp *o = d->engine->opp;
	char hit[HIP_HIT_STR_LEN], a[INET6_ADDRSTRLEN];
	struct opp_try *t = NULL;
	const char *file = d->conf.known_hosts_file;
	size_t i;
	int ret;

	for (i = 0; o && i < OPP_TRIES_MAX && !t; i++)
		if (o->tries[i].stage == OPP_R2 &&
		    hip_hit_cmp(&o->tries[i].peer, &ha->hit_peer) == 0)
			t = &o->tries[i];
	if (!t)
		return;
	t->stage = OPP_FREE;
	opp_arm(d);
	hip_addr_to_str(&t->addr, a, sizeof(a));
	hip_hit_to_str(&ha->hit_peer, hit, sizeof(hit));
	if (known_hosts_find(o->pins, &t->addr)) {
		o->confirmed++;
		log_info("%s is still %s (pinned)", a, hit);
		return;
	}
	ret = known_hosts_add(o->pins, &t->addr, &ha->hit_peer, (uint64_t)time(NULL));
	if (ret == 0 && file[0])
		ret = known_hosts_save(o->pins, file);
	if (ret < 0)
		log_warn("pin of %s for %s not saved in %s: %s", hit, a, file[0] ? file : "memory",
			 strerror(-ret));
	o->learnt++;
	log_notice("learnt HIT %s for %s (opportunistic, trusted on first use): pinned%s%s", hit,
		   a, file[0] ? " in " : " until hipd stops", file);
	/* from now on a mapped peer: its HIT, LSI and names reach it */
	ret = d->hosts ? hosts_add(d->hosts, &ha->hit_peer, &t->addr) : -ENOENT;
	if (ret == 0)
		lsi_export_write(d->hosts, d->conf.lsi_file);   /* D-26 */
}

/* ---- the pins: loaded at start, shown and removed by hipconf ---------------- */

int eng_opp_start(struct hipd *d)
{
	struct eng_opp *o;
	char err[256];
	size_t i;
	int ret;

	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	log_ratelimit_init(&o->log, 1000, 10);
	ret = known_hosts_create(&o->pins);
	if (ret == 0 && d->conf.known_hosts_file[0])
		ret = known_hosts_load_file(o->pins, d->conf.known_hosts_file, err, sizeof(err));
	if (ret < 0) {
		/* pins ignored would be trust given away: refuse to start */
		log_err("known_hosts_file: %s", ret == -ENOMEM ? "out of memory" : err);
		known_hosts_free(o->pins);
		free(o);
		return ret;
	}
	d->engine->opp = o;
	/* a pinned peer is a mapped peer (its HIT and LSI reach it) */
	for (i = 0; d->hosts && i < known_hosts_count(o->pins); i++) {
		const struct known_host *k = known_hosts_at(o->pins, i);

		(void)hosts_add(d->hosts, &k->hit, &k->addr);
	}
	if (i)
		lsi_export_write(d->hosts, d->conf.lsi_file);
	return 0;
}

void eng_opp_stop(struct hipd *d)
{
	struct eng_opp *o = d->engine ? d->engine->opp : NULL;

	if (!o)
		return;
	if (o->timer)
		hip_loop_timer_cancel(d->loop, o->timer);
	known_hosts_free(o->pins);
	free(o);
	d->engine->opp = NULL;
}

int eng_opp_unpin(struct hipd *d, const struct hip_addr *addr, struct hip_hit *was)
{
	struct eng_opp *o = d->engine ? d->engine->opp : NULL;
	const struct known_host *pin = o ? known_hosts_find(o->pins, addr) : NULL;
	int ret;

	if (!pin)
		return -ENOENT;
	*was = pin->hit;
	ret = known_hosts_del(o->pins, addr);
	if (ret == 0 && d->conf.known_hosts_file[0])
		ret = known_hosts_save(o->pins, d->conf.known_hosts_file);
	if (ret < 0)
		return ret;
	/* the mapping the pin made goes too: the address may be someone else's */
	if (d->hosts && hosts_del(d->hosts, was, addr) == 0)
		lsi_export_write(d->hosts, d->conf.lsi_file);
	return 0;
}

const struct known_hosts *eng_opp_pins(const struct hipd *d, struct eng_opp_counters *c)
{
	const struct eng_opp *o = d->engine ? d->engine->opp : NULL;
	size_t i;

	memset(c, 0, sizeof(*c));
	if (!o)
		return NULL;
	c->started = o->started;
	c->learnt = o->learnt;
	c->confirmed = o->confirmed;
	c->refused = o->refused;
	c->failed = o->failed;
	for (i = 0; i < OPP_TRIES_MAX; i++)
		c->under_way += o->tries[i].stage != OPP_FREE;
	return o->pins;
}
