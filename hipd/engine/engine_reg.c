/*
 * engine_reg.c - registration (RFC 8003) and rendezvous (RFC 8004) over
 * the engine's life: the registrar and the servers we register with, set
 * up from hipd.conf; the 1 s tick that keeps each registration alive (a
 * base exchange carrying REG_REQUEST in its I2, renewal by UPDATE at 80%
 * of the granted lifetime, retries with back-off, cancellation with
 * lifetime 0, a new exchange when the association with the server is
 * lost, e.g. after the server restarted); servers known by their address
 * only, whose HIT an opportunistic exchange learns (D-16); and the hipconf
 * commands show servers, add server, del server and show registrations.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "control/control.h"
#include "engine_int.h"
#include "net/net.h"
#include "engine/exchange/exchange.h"
#include "engine/reg/reg.h"
#include "engine/update/update.h"
#include "hit.h"

enum { REG_TICK_MS = 1000, REG_CANCEL_TRIES = 3, REG_SHOW_CLIENTS_MAX = 1000 };

static bool ha_up(const struct hip_ha *ha)
{
	return ha && ha->state == HIP_STATE_ESTABLISHED;
}

static bool ha_exchanging(const struct hip_ha *ha)
{
	return ha && (ha->state == HIP_STATE_I1_SENT || ha->state == HIP_STATE_I2_SENT ||
		      ha->state == HIP_STATE_R2_SENT);
}

/* Our REG_REQUEST in an UPDATE: a new registration, a renewal or a cancel. */
static void srv_send_request(struct hipd *d, struct reg_srv *s, struct hip_ha *ha,
			     uint64_t now)
{
	uint8_t lt = hip_reg_lifetime_encode(d->conf.registration_lifetime);
	char hit[HIP_HIT_STR_LEN], tb[16];
	struct hip_reg req;
	int ret;

	hip_hit_to_str(&s->hit, hit, sizeof(hit));
	if (!s->have_info && s->state != REG_SRV_CANCELLING) {
		/* §3.2: no REG_REQUEST without its REG_INFO, which comes in an
		 * R1: the association was not started by us. A new base
		 * exchange of ours learns it (the REG_REQUEST rides in the I2). */
		log_notice("server %s: its services are unknown (we did not start the "
			   "association): closing it for a base exchange of ours", hit);
		(void)hipd_engine_close(d, &s->hit);
		s->state = REG_SRV_WAITING;
		s->next_try_ns = 0;
		return;
	}
	if (!reg_srv_request(s, lt, &req)) {
		/* §3.2: nothing it offers is what we want */
		if (s->state != REG_SRV_REFUSED)
			log_notice("server %s does not offer %s", hit,
				   reg_type_name(s->want[0], tb, sizeof(tb)));
		s->state = REG_SRV_REFUSED;
		reg_srv_retry_later(s, now);
		return;
	}
	ret = upd_reg_request(d, ha, &req);
	if (ret == -EBUSY)
		return;          /* another UPDATE first: next tick */
	if (ret < 0) {
		log_warn("server %s: registration UPDATE: %s", hit, strerror(-ret));
		reg_srv_retry_later(s, now);
		return;
	}
	if (s->state != REG_SRV_REGISTERED && s->state != REG_SRV_CANCELLING)
		s->state = REG_SRV_REQUESTED;
	/* the UPDATE is retransmitted by itself; ask again only after this */
	reg_srv_retry_later(s, now);
}

/* D-16: a server known by its address only. Opportunistic I1s (RFC 7401
 * §4.1.8) with the usual I1 back-off (i1_timeout_ms doubling, i1_retries;
 * on this tick), then a new round after the registration back-off. The R1
 * is taken by eng_reg_learning_r1. */
static void srv_learn_step(struct hipd *d, struct reg_srv *s, uint64_t now)
{
	struct hidb_entry *me = hidb_default(d->hidb);
	char addr[INET6_ADDRSTRLEN];
	int ret;

	if (now < s->next_try_ns || !me)
		return;
	hip_addr_to_str(&s->addr, addr, sizeof(addr));
	if (s->opp_i1s > d->conf.i1_retries) {
		log_notice("server at %s: no R1 to %u opportunistic I1s; trying again later",
			   addr, s->opp_i1s);
		s->opp_i1s = 0;
		s->state = REG_SRV_WAITING;
		reg_srv_retry_later(s, now);
		return;
	}
	if (s->opp_i1s == 0) {
		/* one identity per round: the R1 must name it */
		s->opp_local = me->hit;
		s->opp_first_ns = now;
	}
	ret = eng_send_i1_opportunistic(d, me, &s->addr);
	if (ret < 0)
		log_ratelimited(&d->engine->reg_log, LOG_WARNING, "server at %s: opportunistic "
				"I1: %s", addr, strerror(-ret));
	/* a failed send is retried at the next timeout like a lost packet */
	s->state = REG_SRV_LEARNING;
	s->next_try_ns = now + eng_retx_delay_ns(d->conf.i1_timeout_ms, s->opp_i1s);
	s->opp_i1s++;
}

/* RFC 9028 §4.12 as a data relay client: a NAT keepalive (RFC 3948 §2.3)
 * to our relayed address now and then, so that our NAT lets in what the
 * server passes on from there; our PEER_PERMISSIONs when they changed. */
static void relay_esp_step(struct hipd *d, struct reg_srv *s, struct hip_ha *ha, uint64_t now)
{
	static const uint8_t keepalive = 0xff;
	struct iovec iov = { .iov_base = (void *)&keepalive, .iov_len = 1 };
	char hit[HIP_HIT_STR_LEN];
	int ret;

	if (!s->ka_relayed_ns ||
	    now - s->ka_relayed_ns >= (uint64_t)d->conf.nat_keepalive_seconds * ENG_NS_PER_S) {
		if (hip_udp_sendv(d->udp4, d->udp6, &iov, 1, &ha->addr_local, &s->relayed.addr,
				  s->relayed.port) == 0)
			d->engine->nat_keepalives_out++;
		s->ka_relayed_ns = now;
	}
	if (!s->perm_pending)
		return;
	ret = upd_permit_send(d, ha, s->perm, s->n_perm);
	if (ret == -EBUSY || ret == -ENOTCONN)
		return;                 /* another UPDATE first: next tick */
	s->perm_pending = false;
	if (ret < 0)
		log_warn("server %s: PEER_PERMISSION UPDATE: %s",
			 hip_hit_to_str(&s->hit, hit, sizeof(hit)), strerror(-ret));
}

/* One server's step; false when it was removed. */
static bool srv_step(struct hipd *d, struct reg_srv *s, uint64_t now)
{
	struct hip_ha *ha;
	char hit[HIP_HIT_STR_LEN];
	int ret;

	if (reg_srv_learning(s)) {
		if (s->state != REG_SRV_CANCELLING) {
			srv_learn_step(d, s, now);
			return true;
		}
		/* no association: nothing to cancel */
		log_info("server at %s removed", hip_addr_to_str(&s->addr, hit, sizeof(hit)));
		reg_client_remove(d->engine->reg_client, s);
		return false;
	}
	ha = hadb_find_peer(d->hadb, &s->hit);
	hip_hit_to_str(&s->hit, hit, sizeof(hit));
	if (s->state == REG_SRV_CANCELLING) {
		if (!ha_up(ha) || s->n_granted == 0 || s->attempts >= REG_CANCEL_TRIES) {
			/* nothing (more) to tell: the registration runs out */
			log_info("server %s removed", hit);
			reg_client_remove(d->engine->reg_client, s);
			return false;
		}
		if (now >= s->next_try_ns)
			srv_send_request(d, s, ha, now);
		return true;
	}
	if (s->state == REG_SRV_REGISTERED && s->expiry_ns && now >= s->expiry_ns) {
		log_notice("registration with server %s expired", hit);
		s->n_granted = 0;
		s->expiry_ns = s->renew_ns = 0;
		s->state = REG_SRV_WAITING;
		s->next_try_ns = 0;
	}
	if (!ha_up(ha)) {
		if (ha_exchanging(ha))
			return true;
		if (s->state == REG_SRV_REGISTERED || s->state == REG_SRV_REQUESTED) {
			log_notice("association with server %s lost: registering again", hit);
			s->n_granted = 0;
			s->expiry_ns = s->renew_ns = 0;
			s->state = REG_SRV_WAITING;
			s->next_try_ns = 0;
		}
		if (now < s->next_try_ns)
			return true;
		s->state = REG_SRV_EXCHANGE;
		ret = hipd_engine_trigger(d, &s->hit);
		if (ret < 0)
			log_warn("server %s: base exchange: %s", hit, strerror(-ret));
		reg_srv_retry_later(s, now);
		return true;
	}
	/* RFC 9028 §4.1: the server's REG_FROM is our server-reflexive
	 * candidate for new exchanges; after a move it names the old NAT, so
	 * the renewal comes now, not at 80 % of the lifetime */
	if (s->state == REG_SRV_REGISTERED && s->have_reg_local &&
	    memcmp(&s->reg_local, &ha->addr_local, sizeof(ha->addr_local))) {
		log_info("server %s: we moved: renewing the registration to learn our new address",
			 hit);
		s->have_reg_local = false;       /* the answer sets it again */
		s->renew_ns = now;
		s->next_try_ns = 0;
	}
	if (s->state == REG_SRV_REGISTERED && s->have_relayed)
		relay_esp_step(d, s, ha, now);
	if (now < s->next_try_ns)
		return true;
	if (s->state != REG_SRV_REGISTERED || now >= s->renew_ns)
		srv_send_request(d, s, ha, now);
	return true;
}

/* The data relay's allocations last as long as the registration. */
static bool relay_esp_held(const struct hip_hit *client, void *arg)
{
	struct hipd *d = arg;

	return reg_registrar_has(d->engine->registrar, client, HIP_REG_RELAY_UDP_ESP,
				 hipd_now_ns());
}

static void reg_tick_run(struct hipd *d)
{
	struct hipd_engine *e = d->engine;
	uint64_t now = hipd_now_ns();
	struct reg_srv *s;
	size_t i = 0;

	if (e->registrar) {
		reg_registrar_expire(e->registrar, now);
		if (e->data_relay)
			data_relay_gc(e->data_relay, relay_esp_held, d);
	}
	while (e->reg_client && (s = reg_client_at(e->reg_client, i)) != NULL)
		if (srv_step(d, s, now))
			i++;
}

static void reg_tick(struct hip_loop *loop, uint64_t timer, void *arg)
{
	struct hipd *d = arg;

	(void)timer;
	reg_tick_run(d);
	d->engine->reg_timer = hip_loop_timer_add(loop, REG_TICK_MS * ENG_NS_PER_MS, reg_tick, d);
	if (!d->engine->reg_timer)
		log_err("registration timer: out of memory");
}

static int allow_load(struct hipd *d)
{
	struct hipd_engine *e = d->engine;
	char err[HIPD_CONF_ERR_MAX];
	struct reg_allow *a = NULL;
	int ret;

	if (d->conf.registration_allow_file[0]) {
		ret = reg_allow_load(&a, d->conf.registration_allow_file, err, sizeof(err));
		if (ret < 0) {
			log_err("registration allow-list: %s", err);
			return ret;
		}
	}
	reg_allow_free(e->reg_allow);
	e->reg_allow = a;
	return 0;
}

int eng_reg_start(struct hipd *d)
{
	struct hipd_engine *e = d->engine;
	char tb[16], list[64] = "";
	size_t i;
	int ret;

	log_ratelimit_init(&e->reg_log, 1000, 20);
	for (i = 0; i < d->conf.n_offer_services; i++) {
		if (d->conf.offer_services[i] == HIP_REG_RELAY_UDP_ESP && !e->data_relay) {
			ret = data_relay_open(d, &e->data_relay);
			if (ret < 0)
				return ret;
		} else if (d->conf.offer_services[i] != HIP_REG_RENDEZVOUS &&
		    d->conf.offer_services[i] != HIP_REG_RELAY_UDP_HIP &&
		    d->conf.offer_services[i] != HIP_REG_RELAY_UDP_ESP &&
		    d->conf.offer_services[i] != HIP_REG_CANDIDATE_DISCOVERY) {
			/* a service we would grant but not give is worse than none */
			log_err("offer_services: %s is not implemented; rendezvous, relay "
				"(the control relay), relay-esp (the data relay) and "
				"candidate-discovery are",
				reg_type_name(d->conf.offer_services[i], tb, sizeof(tb)));
			return -ENOTSUP;
		}
	}
	if (d->conf.n_offer_services) {
		ret = reg_registrar_create(&e->registrar);
		if (ret == 0)
			ret = allow_load(d);
		if (ret < 0)
			return ret;
		eng_reg_policy_info(d, &e->reg_info);
		for (i = 0; i < e->reg_info.n; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? " " : "", reg_type_name(e->reg_info.type[i], tb, sizeof(tb)));
		log_notice("offering %s to %s", list, e->reg_allow ?
			   "the HITs of the allow-list" : "any host");
	}
	ret = reg_client_create(&e->reg_client);
	if (ret < 0)
		return ret;
	for (i = 0; i < d->conf.n_servers; i++) {
		const struct hipd_conf_server *sv = &d->conf.servers[i];

		/* no HIT: known by its address only (D-16) */
		ret = hip_hit_is_null(&sv->hit) ?
			reg_client_add_addr(e->reg_client, &sv->addr, sv->types,
					    (unsigned)sv->n_types, true, NULL) :
			reg_client_add(e->reg_client, &sv->hit, &sv->addr, sv->types,
				       (unsigned)sv->n_types, true, NULL);
		if (ret < 0)
			return ret;
	}
	e->reg_timer = hip_loop_timer_add(d->loop, REG_TICK_MS * ENG_NS_PER_MS, reg_tick, d);
	return e->reg_timer ? 0 : -ENOMEM;
}

void eng_reg_stop(struct hipd *d)
{
	struct hipd_engine *e = d->engine;

	if (e->reg_timer)
		hip_loop_timer_cancel(d->loop, e->reg_timer);
	e->reg_timer = 0;
	data_relay_close(e->data_relay);
	e->data_relay = NULL;
	reg_registrar_free(e->registrar);
	e->registrar = NULL;
	reg_allow_free(e->reg_allow);
	e->reg_allow = NULL;
	reg_client_free(e->reg_client);
	e->reg_client = NULL;
}

int eng_reg_reload(struct hipd *d)
{
	return d->engine->registrar ? allow_load(d) : 0;
}

/* ---- hipconf ---------------------------------------------------------------- */

static void types_text(const uint8_t *t, unsigned n, char *buf, size_t len)
{
	char tb[16];
	unsigned i;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? " " : "",
			 reg_type_name(t[i], tb, sizeof(tb)));
	if (n == 0)
		snprintf(buf, len, "-");
}

static void show_server(struct control_reply *rep, bool json, bool first,
			const struct reg_srv *s, uint64_t now)
{
	char hit[HIP_HIT_STR_LEN], addr[INET6_ADDRSTRLEN], want[64], got[64], tb[16];
	char seen[INET6_ADDRSTRLEN] = "", relayed[INET6_ADDRSTRLEN] = "";
	uint64_t left = s->expiry_ns > now ? (s->expiry_ns - now) / ENG_NS_PER_S : 0;
	unsigned i;

	hip_hit_to_str(&s->hit, hit, sizeof(hit));
	if (reg_srv_learning(s))   /* D-16: known by its address only */
		snprintf(hit, sizeof(hit), "%s", json ? "" : "unknown HIT");
	hip_addr_to_str(&s->addr, addr, sizeof(addr));
	if (s->have_reg_from)   /* RFC 9028 §4.1: our address as the server sees it */
		hip_addr_to_str(&s->reg_from.addr, seen, sizeof(seen));
	if (s->have_relayed)    /* §4.12: our address at its data relay */
		hip_addr_to_str(&s->relayed.addr, relayed, sizeof(relayed));
	types_text(s->want, s->n_want, want, sizeof(want));
	types_text(s->granted, s->n_granted, got, sizeof(got));
	if (json) {
		control_reply_printf(rep, "%s{\"hit\": \"%s\", \"opportunistic\": %s, \"learnt\": "
				     "%s, \"opportunistic_i1s\": %u, ", first ? "" : ", ", hit,
				     s->opportunistic ? "true" : "false",
				     s->learnt ? "true" : "false", s->opp_i1s);
		control_reply_printf(rep, "\"address\": \"%s\", \"state\": "
				     "\"%s\", \"services\": \"%s\", \"granted\": \"%s\", "
				     "\"not_offered\": %s, "
				     "\"lifetime_s\": %.0f, \"expires_in_s\": %" PRIu64
				     ", \"registrations\": %" PRIu64 ", \"renewals\": %" PRIu64
				     ", \"refusals\": %" PRIu64 ", \"reflexive\": \"%s\", "
				     "\"reflexive_port\": %u, \"relayed\": \"%s\", \"relayed_port\": %u, "
				     "\"failed\": [",
				     addr, reg_srv_state_name(s->state),
				     want, got, s->not_offered ? "true" : "false", s->n_granted ?
				     hip_reg_lifetime_seconds(s->lifetime) : 0.0, left,
				     s->registrations, s->renewals, s->refusals, seen,
				     s->have_reg_from ? s->reg_from.port : 0u, relayed,
				     s->have_relayed ? s->relayed.port : 0u);
		for (i = 0; i < s->n_failed; i++)
			control_reply_printf(rep, "%s{\"service\": \"%s\", \"failure_type\": %u, "
					     "\"reason\": \"%s\"}", i ? ", " : "",
					     reg_type_name(s->failed[i], tb, sizeof(tb)),
					     s->failure[i], reg_failure_name(s->failure[i]));
		control_reply_printf(rep, "]}");
		return;
	}
	control_reply_printf(rep, "%s%s at %s: %s; services %s; granted %s", first ? "" : "\n",
			     hit, addr, reg_srv_state_name(s->state), want, got);
	if (reg_srv_learning(s) && s->opp_i1s)
		control_reply_printf(rep, "; %u opportunistic I1%s, no R1 yet", s->opp_i1s,
				     s->opp_i1s == 1 ? "" : "s");
	if (s->learnt)
		control_reply_printf(rep, "; HIT learnt from its R1 (opportunistic: trusted on "
				     "first use)");
	if (s->n_granted)
		control_reply_printf(rep, " for %.0f s, expires in %" PRIu64 " s",
				     hip_reg_lifetime_seconds(s->lifetime), left);
	if (s->have_reg_from)
		control_reply_printf(rep, "; seen as %s port %u", seen, s->reg_from.port);
	if (s->have_relayed)
		control_reply_printf(rep, "; relayed address %s port %u", relayed,
				     s->relayed.port);
	if (s->not_offered)
		control_reply_printf(rep, "; not offered by the server (its REG_INFO)");
	for (i = 0; i < s->n_failed; i++)
		control_reply_printf(rep, "; refused %s: %s (failure type %u)",
				     reg_type_name(s->failed[i], tb, sizeof(tb)),
				     reg_failure_name(s->failure[i]), s->failure[i]);
}

/* The data relay's ports and counters (reg/data_relay.c, D-29). */
static void show_data_relay(struct control_reply *rep, bool json, const struct data_relay *r)
{
	const struct data_relay_counters *c = data_relay_counters(r);

	if (!r) {
		if (json)
			control_reply_printf(rep, ", \"data_relay\": null");
		return;
	}
	control_reply_printf(rep, json ? ", \"data_relay\": {\"ports\": %zu, \"used\": %zu, "
			     "\"allocated\": %" PRIu64 ", \"freed\": %" PRIu64 ", \"full\": %" PRIu64
			     ", \"permissions\": %" PRIu64 ", \"forwarded\": %" PRIu64 ", \"bytes\": %"
			     PRIu64 ", \"send_failed\": %" PRIu64 ", \"no_permission\": %" PRIu64
			     ", \"peer_unknown\": %" PRIu64 ", \"client_unknown\": %" PRIu64 "}"
			     : "\ndata relay: %zu ports, %zu held; allocated %" PRIu64 " freed %" PRIu64
			     " refused (full) %" PRIu64 "; permissions %" PRIu64 "; passed on %" PRIu64
			     " packets (%" PRIu64 " bytes), send failed %" PRIu64 "; dropped: no "
			     "permission %" PRIu64 ", peer not heard yet %" PRIu64 ", client not "
			     "heard yet %" PRIu64,
			     data_relay_ports(r), data_relay_used(r), c->allocated, c->freed, c->full,
			     c->permissions, c->forwarded, c->bytes, c->send_failed, c->no_permission,
			     c->peer_unknown, c->client_unknown);
}

static int cmd_show_servers(const struct control_request *req, struct control_reply *rep,
			    void *arg)
{
	struct hipd *d = arg;
	struct reg_srv *s;
	uint64_t now = hipd_now_ns();
	size_t i;

	if (!d->engine || !d->engine->reg_client)
		return control_reply_error(rep, CTL_EFAILED, "the engine is not running");
	if (req->json)
		control_reply_printf(rep, "{\"servers\": [");
	for (i = 0; (s = reg_client_at(d->engine->reg_client, i)) != NULL; i++)
		show_server(rep, req->json, i == 0, s, now);
	if (req->json)
		control_reply_printf(rep, "]}");
	else if (i == 0)
		control_reply_printf(rep, "no servers (add one with 'hipconf add server')");
	return CTL_OK;
}

/* add server [HIT] IP [SERVICE...]: a HIT is in 2001:20::/28 (RFC 7343),
 * which no usable address is, so the first word tells the forms apart;
 * without a HIT the server is known by its address only (D-16). */
static int cmd_add_server(const struct control_request *req, struct control_reply *rep,
			  void *arg)
{
	struct hipd *d = arg;
	uint8_t types[REG_TYPE_SLOTS];
	struct hip_hit hit;
	struct hip_addr addr, other;
	const char *ip, *why;
	unsigned n = 0;
	bool by_addr;
	int i, ret;

	if (!d->engine || !d->engine->reg_client)
		return control_reply_error(rep, CTL_EFAILED, "the engine is not running");
	by_addr = hip_hit_from_str(req->argv[0], &hit) < 0;
	if (by_addr && hip_addr_from_str(req->argv[0], &addr) < 0)
		return control_reply_error(rep, CTL_EUSAGE, "'%s' is neither a HIT nor an IP "
					   "address", req->argv[0]);
	if (!by_addr && hidb_find(d->hidb, &hit))
		return control_reply_error(rep, CTL_EUSAGE, "%s is one of our own HITs",
					   req->argv[0]);
	if (!by_addr && req->argc < 2)
		return control_reply_error(rep, CTL_EUSAGE, "the server's address is missing "
					   "after its HIT");
	ip = req->argv[by_addr ? 0 : 1];
	if (hip_addr_from_str(ip, &addr) < 0)
		return control_reply_error(rep, CTL_EUSAGE, "'%s' is not a usable address", ip);
	why = hip_addr_locator_problem(&addr);
	if (why)
		return control_reply_error(rep, CTL_EUSAGE, "'%s' is not a usable address: %s",
					   ip, why);
	for (i = by_addr ? 1 : 2; i < req->argc; i++) {
		uint8_t t = reg_type_from_name(req->argv[i]);
		unsigned j;

		if (hip_addr_from_str(req->argv[i], &other) == 0)
			return control_reply_error(rep, CTL_EUSAGE, "'%s' is not a service: one "
						   "server is [HIT] IP [SERVICE...], its HIT first",
						   req->argv[i]);
		if (!t)   /* every type reg_type_from_name knows is a service of ours */
			return control_reply_error(rep, CTL_EUSAGE, "'%s' is not a service "
						   "(rendezvous, relay, relay-esp or candidate-discovery)",
						   req->argv[i]);
		for (j = 0; j < n && types[j] != t; j++)
			;
		if (j == n && n < REG_TYPE_SLOTS)
			types[n++] = t;
	}
	if (n == 0)
		types[n++] = HIP_REG_RENDEZVOUS;
	ret = by_addr ? reg_client_add_addr(d->engine->reg_client, &addr, types, n, false, NULL) :
		reg_client_add(d->engine->reg_client, &hit, &addr, types, n, false, NULL);
	if (ret == -ENOSPC)
		return control_reply_error(rep, CTL_EFAILED, "already %d servers", REG_SERVERS_MAX);
	if (ret == -EEXIST)
		return control_reply_error(rep, CTL_EFAILED, "the server at %s is known by its "
					   "HIT already (hipconf show servers)", ip);
	if (ret < 0)
		return control_reply_error(rep, CTL_EFAILED, "%s", strerror(-ret));
	reg_tick_run(d);
	if (req->json)
		control_reply_printf(rep, by_addr ? "{\"result\": \"learning\", \"address\": "
				     "\"%s\"}" : "{\"result\": \"registering\", \"hit\": \"%s\"}",
				     req->argv[0]);
	else if (by_addr)
		control_reply_printf(rep, "registering with the server at %s, its HIT learnt from "
				     "its R1 (opportunistic: trusted on first use)", ip);
	else
		control_reply_printf(rep, "registering with %s at %s", req->argv[0], ip);
	return CTL_OK;
}

static int cmd_del_server(const struct control_request *req, struct control_reply *rep,
			  void *arg)
{
	struct hipd *d = arg;
	struct reg_srv *s;
	struct hip_hit hit;
	struct hip_addr addr;

	if (!d->engine || !d->engine->reg_client)
		return control_reply_error(rep, CTL_EFAILED, "the engine is not running");
	/* by HIT, or by address (one known by its address only, D-16) */
	if (hip_hit_from_str(req->argv[0], &hit) == 0)
		s = reg_client_find(d->engine->reg_client, &hit);
	else if (hip_addr_from_str(req->argv[0], &addr) == 0)
		s = reg_client_find_addr(d->engine->reg_client, &addr);
	else
		return control_reply_error(rep, CTL_EUSAGE, "'%s' is neither a HIT nor an IP "
					   "address", req->argv[0]);
	if (!s)
		return control_reply_error(rep, CTL_ENOENT, "%s is not a server of ours",
					   req->argv[0]);
	/* RFC 8003 §3.2: lifetime 0 cancels; the tick sends it */
	s->state = REG_SRV_CANCELLING;
	s->next_try_ns = 0;
	s->attempts = 0;
	reg_tick_run(d);
	if (req->json)
		control_reply_printf(rep, "{\"result\": \"cancelling\", \"hit\": \"%s\"}",
				     req->argv[0]);
	else
		control_reply_printf(rep, "cancelling the registrations with %s", req->argv[0]);
	return CTL_OK;
}

struct show_clients {
	struct control_reply *rep;
	bool json;
	size_t n;
	uint64_t now;
};

static int show_client(const struct hip_hit *client, const uint64_t *expiry_ns, void *arg)
{
	struct show_clients *sc = arg;
	char hit[HIP_HIT_STR_LEN], tb[16];
	unsigned t;

	if (sc->n++ >= REG_SHOW_CLIENTS_MAX)
		return 1;
	hip_hit_to_str(client, hit, sizeof(hit));
	control_reply_printf(sc->rep, sc->json ? "%s{\"hit\": \"%s\"" : "%s%s", sc->json &&
			     sc->n > 1 ? ", " : sc->json ? "" : "\n  ", hit);
	for (t = 1; t < REG_TYPE_SLOTS; t++) {
		uint64_t left = expiry_ns[t] > sc->now ? (expiry_ns[t] - sc->now) / ENG_NS_PER_S : 0;

		if (!expiry_ns[t])
			continue;
		control_reply_printf(sc->rep, sc->json ? ", \"%s_expires_in_s\": %" PRIu64
				     : " %s (expires in %" PRIu64 " s)",
				     reg_type_name((uint8_t)t, tb, sizeof(tb)), left);
	}
	if (sc->json)
		control_reply_printf(sc->rep, "}");
	return 0;
}

static int cmd_show_registrations(const struct control_request *req, struct control_reply *rep,
				  void *arg)
{
	struct hipd *d = arg;
	struct hipd_engine *e = d->engine;
	const struct reg_registrar_counters *c;
	struct show_clients sc = { rep, req->json, 0, hipd_now_ns() };
	char offered[64];

	if (!e)
		return control_reply_error(rep, CTL_EFAILED, "the engine is not running");
	if (!e->registrar) {
		if (req->json)
			control_reply_printf(rep, "{\"offered\": \"\", \"clients\": []}");
		else
			control_reply_printf(rep, "no services offered (hipd.conf offer_services)");
		return CTL_OK;
	}
	c = reg_registrar_counters(e->registrar);
	types_text(e->reg_info.type, e->reg_info.n, offered, sizeof(offered));
	control_reply_printf(rep, req->json ? "{\"offered\": \"%s\", \"allow_list\": %zu, "
			     "\"registrations\": %zu, \"bytes\": %zu, \"granted\": %" PRIu64
			     ", \"renewed\": %" PRIu64 ", \"cancelled\": %" PRIu64 ", \"refused\": %"
			     PRIu64 ", \"refused_simultaneous\": %" PRIu64 ", \"expired\": %"
			     PRIu64 ", \"rate_limited\": %" PRIu64 ", \"relayed\": %" PRIu64
			     ", \"relay_failed\": %" PRIu64
			     ", \"clients\": ["
			     : "offered: %s; allow-list: %zu HITs\nregistrations: %zu (%zu bytes)\n"
			     "granted %" PRIu64 " renewed %" PRIu64 " cancelled %" PRIu64 " refused %"
			     PRIu64 " (rendezvous with relay %" PRIu64 ") expired %" PRIu64
			     " rate-limited %" PRIu64 "\nrendezvous: "
			     "relayed %" PRIu64 " relay failed %" PRIu64 "\nclients:",
			     offered, reg_allow_count(e->reg_allow), reg_registrar_count(e->registrar),
			     reg_registrar_bytes(e->registrar), c->granted, c->renewed, c->cancelled,
			     c->refused, c->simultaneous, c->expired, c->rate_limited,
			     e->rvs_relayed, e->rvs_relay_failed);
	reg_registrar_foreach(e->registrar, show_client, &sc);
	if (req->json)
		control_reply_printf(rep, "]");
	else if (sc.n == 0)
		control_reply_printf(rep, " none");
	show_data_relay(rep, req->json, e->data_relay);
	if (req->json)
		control_reply_printf(rep, "}");
	return CTL_OK;
}

static const struct control_cmd reg_cmds[] = {
	{ "show servers", "", 0, 0, true, cmd_show_servers,
	  "servers we register with: state, services, lifetime, refusals" },
	{ "add server", "[HIT] IP [SERVICE...]", 1, 2 + REG_TYPE_SLOTS, false, cmd_add_server,
	  "register with a server (rendezvous, relay, relay-esp, candidate-discovery; default "
	  "rendezvous); without a HIT, it is learnt from the R1 (opportunistic)" },
	{ "del server", "HIT|IP", 1, 1, false, cmd_del_server,
	  "cancel the registrations with a server (lifetime 0)" },
	{ "show registrations", "", 0, 0, true, cmd_show_registrations,
	  "as a server: services offered, clients registered, relay counters" },
};

int eng_reg_control_register(struct hipd *d)
{
	if (!d->control)
		return 0;
	return control_register_table(d->control, reg_cmds, sizeof(reg_cmds) / sizeof(reg_cmds[0]),
				      d);
}
