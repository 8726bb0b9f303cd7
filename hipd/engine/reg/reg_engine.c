/*
 * reg_engine.c - registration and rendezvous as the handlers see them:
 * the REG_* parameters of received R1, I2, R2 and UPDATE packets read into
 * the registrar and the client's server list (RFC 8003 §3-4), the
 * answers built, and the rendezvous server's relaying and the client's
 * acceptance of relayed I1s (RFC 8004 §3.3, §4.3). Drops are counted
 * once, lines logged rate-limited.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "engine/engine_int.h"
#include "reg.h"

enum { REG_REQ_MAX = 4 };   /* REG_REQUESTs read from one packet (§3.2: one is sent) */

/* The hipd.conf policy as registrar.c takes it (codes, §4.1). */
static void policy_of(const struct hipd *d, struct reg_policy *p)
{
	const struct hipd_conf *c = &d->conf;
	unsigned i;
	uint8_t lo, hi;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < c->n_offer_services && i < REG_TYPE_SLOTS; i++)
		p->types[p->n_types++] = c->offer_services[i];
	lo = hip_reg_lifetime_encode(c->registration_min_lifetime);
	hi = hip_reg_lifetime_encode(c->registration_max_lifetime);
	if (hi > lo && hip_reg_lifetime_seconds(hi) > c->registration_max_lifetime)
		hi--;
	if (hi < lo)
		hi = lo;
	p->min_lifetime = lo;
	p->max_lifetime = hi;
	p->allow = d->engine->reg_allow;
	p->max_registrations = c->registration_max;
	p->requests_per_s = c->registration_requests_per_second;
}

bool eng_reg_policy_info(const struct hipd *d, struct hip_reg_info *out)
{
	struct reg_policy p;

	policy_of(d, &p);
	return reg_policy_info(&p, out);
}

static void log_answer(struct hipd *d, const struct hip_hit *client, const struct reg_answer *a)
{
	char hit[HIP_HIT_STR_LEN], tb[16];
	unsigned i, j;

	hip_hit_to_str(client, hit, sizeof(hit));
	for (i = 0; i < a->n_responses; i++)
		for (j = 0; j < a->responses[i].n; j++)
			log_ratelimited(&d->engine->reg_log, LOG_INFO, a->responses[i].value ?
					"registration: %s %s for %.0f s" : "registration: %s "
					"%s cancelled%.0f", hit,
					reg_type_name(a->responses[i].type[j], tb, sizeof(tb)),
					a->responses[i].value ?
					hip_reg_lifetime_seconds(a->responses[i].value) : 0.0);
	for (i = 0; i < a->n_failed; i++)
		for (j = 0; j < a->failed[i].n; j++)
			log_ratelimited(&d->engine->reg_log, LOG_NOTICE,
					"registration: %s refused %s: %s (failure type %u)", hit,
					reg_type_name(a->failed[i].type[j], tb, sizeof(tb)),
					reg_failure_name(a->failed[i].value), a->failed[i].value);
}

/* RFC 9028 §4.12: a grant of RELAY_UDP_ESP gets a port of the data relay
 * (its relayed address in the answer), a cancellation frees it; with no
 * port free the grant becomes REG_FAILED type 2 (insufficient resources). */
static void relay_esp_answer(struct hipd *d, const struct eng_rx *rx, struct reg_answer *ans)
{
	struct data_relay *dr = d->engine->data_relay;
	unsigned i, j;

	for (i = 0; dr && i < ans->n_responses; i++) {
		struct hip_reg *g = &ans->responses[i];

		for (j = 0; j < g->n; ) {
			if (g->type[j] != HIP_REG_RELAY_UDP_ESP) {
				j++;
				continue;
			}
			if (g->value == HIP_REG_LIFETIME_CANCEL) {
				data_relay_free(dr, &rx->pkt->hit_sender);
				j++;
				continue;
			}
			if (data_relay_alloc(dr, &rx->pkt->hit_sender, rx->src, rx->dst,
					     &ans->relayed) == 0) {
				ans->has_relayed = true;
				j++;
				continue;
			}
			reg_registrar_revoke(d->engine->registrar, &rx->pkt->hit_sender,
					     HIP_REG_RELAY_UDP_ESP);
			g->type[j] = g->type[--g->n];   /* out of this response ... */
			if (ans->n_failed < sizeof(ans->failed) / sizeof(ans->failed[0])) {
				struct hip_reg *f = &ans->failed[ans->n_failed++];

				memset(f, 0, sizeof(*f));   /* ... into a REG_FAILED of its own */
				f->value = REG_FAIL_INSUFFICIENT;
				f->type[f->n++] = HIP_REG_RELAY_UDP_ESP;
			}
		}
	}
	for (i = 0; i < ans->n_responses; )   /* a response left empty goes */
		if (ans->responses[i].n == 0)
			ans->responses[i] = ans->responses[--ans->n_responses];
		else
			i++;
}

void eng_relay_esp_permit(struct hipd *d, const struct eng_rx *rx)
{
	struct data_relay *dr = d->engine->data_relay;
	const struct hip_param_ref *p;
	struct hip_peer_permission pp;
	char hit[HIP_HIT_STR_LEN];
	int ret;

	/* the peers this UPDATE names: their old permissions go first */
	for (p = hip_packet_find(rx->pkt, HIP_PARAM_PEER_PERMISSION); dr && p;
	     p = hip_packet_find_next(rx->pkt, p))
		if (hip_peer_permission_decode(hip_param_content(rx->pkt, p), p->len, &pp) == 0)
			data_relay_forget_peer(dr, &rx->pkt->hit_sender, &pp.hit);
	for (p = hip_packet_find(rx->pkt, HIP_PARAM_PEER_PERMISSION); p;
	     p = hip_packet_find_next(rx->pkt, p)) {
		ret = hip_peer_permission_decode(hip_param_content(rx->pkt, p), p->len, &pp);
		if (ret == 0)
			ret = dr ? data_relay_permit(dr, &rx->pkt->hit_sender, &pp) : -ENOENT;
		if (ret < 0)
			log_ratelimited(&d->engine->reg_log, LOG_NOTICE, "data relay: %s's "
					"PEER_PERMISSION refused: %s",
					hip_hit_to_str(&rx->pkt->hit_sender, hit, sizeof(hit)),
					ret == -ENOENT ? "no relay-esp registration" :
					ret == -EEXIST ? "its OSPI leads to another peer" :
					ret == -ENOSPC ? "too many permissions" : "malformed");
	}
}

bool eng_reg_answer(struct hipd *d, const struct eng_rx *rx, struct reg_answer *ans)
{
	struct hip_reg reqs[REG_REQ_MAX];
	const struct hip_param_ref *p;
	struct reg_policy pol;
	unsigned n = 0;

	memset(ans, 0, sizeof(*ans));
	for (p = hip_packet_find(rx->pkt, HIP_PARAM_REG_REQUEST); p && n < REG_REQ_MAX;
	     p = hip_packet_find_next(rx->pkt, p))
		if (hip_reg_decode(hip_param_content(rx->pkt, p), p->len, &reqs[n]) == 0)
			n++;
	if (n == 0)
		return false;
	policy_of(d, &pol);
	if (!d->engine->registrar)
		pol.n_types = 0;    /* we offer nothing: every type is unavailable */
	if (d->engine->registrar) {
		reg_registrar_request(d->engine->registrar, &pol, &rx->pkt->hit_sender, reqs, n,
				      hipd_now_ns(), ans);
	} else {
		struct reg_registrar *none = NULL;

		/* no table: answer REG_FAILED type 1 for everything asked */
		if (reg_registrar_create(&none) == 0) {
			reg_registrar_request(none, &pol, &rx->pkt->hit_sender, reqs, n,
					      hipd_now_ns(), ans);
			reg_registrar_free(none);
		}
	}
	relay_esp_answer(d, rx, ans);
	log_answer(d, &rx->pkt->hit_sender, ans);
	/* RFC 9028 §4.1: a relay or candidate discovery client learns its
	 * server-reflexive candidate from REG_FROM */
	if (d->engine->registrar &&
	    (reg_registrar_has(d->engine->registrar, &rx->pkt->hit_sender, HIP_REG_RELAY_UDP_HIP,
			       hipd_now_ns()) ||
	     reg_registrar_has(d->engine->registrar, &rx->pkt->hit_sender,
			       HIP_REG_CANDIDATE_DISCOVERY, hipd_now_ns()))) {
		ans->has_reg_from = true;
		ans->reg_from.port = rx->sport;
		ans->reg_from.protocol = rx->sport ? IPPROTO_UDP : 0;
		ans->reg_from.addr = *rx->src;
	}
	return ans->n_responses > 0 || ans->n_failed > 0;
}

void eng_reg_build_answer(struct hip_builder *b, const struct reg_answer *ans)
{
	unsigned i;

	for (i = 0; i < ans->n_responses; i++)
		hip_reg_build(b, HIP_PARAM_REG_RESPONSE, &ans->responses[i]);
	for (i = 0; i < ans->n_failed; i++)
		hip_reg_build(b, HIP_PARAM_REG_FAILED, &ans->failed[i]);
	if (ans->has_reg_from)
		hip_relay_addr_build(b, HIP_PARAM_REG_FROM, &ans->reg_from);
}

void eng_reg_build_relayed(struct hip_builder *b, const struct reg_answer *ans)
{
	if (ans->has_relayed)
		hip_relay_addr_build(b, HIP_PARAM_RELAYED_ADDRESS, &ans->relayed);
}

void eng_reg_info_rx(struct hipd *d, const struct eng_rx *rx)
{
	struct reg_srv *s = d->engine->reg_client ?
		reg_client_find(d->engine->reg_client, &rx->pkt->hit_sender) : NULL;
	const struct hip_param_ref *p;
	struct hip_reg_info info;

	if (!s)
		return;
	p = hip_packet_find(rx->pkt, HIP_PARAM_REG_INFO);
	if (!p || hip_reg_info_decode(hip_param_content(rx->pkt, p), p->len, &info) < 0)
		memset(&info, 0, sizeof(info));   /* offers nothing (now) */
	reg_srv_info(s, &info);
}

bool eng_reg_request_for(struct hipd *d, const struct hip_hit *peer, struct hip_reg *req)
{
	struct reg_srv *s = d->engine->reg_client ?
		reg_client_find(d->engine->reg_client, peer) : NULL;
	uint8_t lt = hip_reg_lifetime_encode(d->conf.registration_lifetime);

	return s && reg_srv_request(s, lt, req);
}

/* Client: REG_RESPONSE / REG_FAILED of the server's R2 or UPDATE. */
void eng_reg_result_rx(struct hipd *d, const struct eng_rx *rx)
{
	struct reg_srv *s = d->engine->reg_client ?
		reg_client_find(d->engine->reg_client, &rx->pkt->hit_sender) : NULL;
	const struct hip_param_ref *p;
	char hit[HIP_HIT_STR_LEN], tb[16];
	uint64_t now = hipd_now_ns();
	struct hip_reg r;
	bool any = false;
	unsigned i;

	if (!s)
		return;
	hip_hit_to_str(&s->hit, hit, sizeof(hit));
	p = hip_packet_find(rx->pkt, HIP_PARAM_RELAYED_ADDRESS);
	if (p && hip_relay_addr_decode(hip_param_content(rx->pkt, p), p->len, &s->relayed) == 0 &&
	    !hip_addr_locator_problem(&s->relayed.addr) && s->relayed.port &&
	    s->relayed.protocol == IPPROTO_UDP) {
		if (!s->have_relayed)
			log_info("server %s: our relayed address (data relay) is port %u", hit,
				 s->relayed.port);
		s->have_relayed = true;
		s->ka_relayed_ns = 0;          /* a keepalive there at the next tick */
		s->perm_pending = s->n_perm > 0;
	}
	p = hip_packet_find(rx->pkt, HIP_PARAM_REG_FROM);
	if (p && hip_relay_addr_decode(hip_param_content(rx->pkt, p), p->len, &s->reg_from) == 0 &&
	    !hip_addr_locator_problem(&s->reg_from.addr)) {
		const struct hip_ha *ha = hadb_find_peer(d->hadb, &s->hit);

		s->have_reg_from = true;
		s->have_reg_local = ha != NULL;
		if (ha)
			s->reg_local = ha->addr_local;
	}
	for (p = hip_packet_find(rx->pkt, HIP_PARAM_REG_RESPONSE); p;
	     p = hip_packet_find_next(rx->pkt, p)) {
		if (hip_reg_decode(hip_param_content(rx->pkt, p), p->len, &r) < 0)
			continue;
		any = true;
		reg_srv_response(s, &r, now);
		for (i = 0; i < r.n; i++)
			log_info("server %s: %s %s%.0f s", hit, reg_type_name(r.type[i], tb,
				 sizeof(tb)), r.value ? "registered for " : "cancelled",
				 r.value ? hip_reg_lifetime_seconds(r.value) : 0.0);
	}
	for (p = hip_packet_find(rx->pkt, HIP_PARAM_REG_FAILED); p;
	     p = hip_packet_find_next(rx->pkt, p)) {
		if (hip_reg_decode(hip_param_content(rx->pkt, p), p->len, &r) < 0)
			continue;
		any = true;
		reg_srv_failed(s, &r, now);
		for (i = 0; i < r.n; i++)
			log_notice("server %s refused %s: %s (failure type %u)", hit,
				   reg_type_name(r.type[i], tb, sizeof(tb)),
				   reg_failure_name(r.value), r.value);
	}
	if (s->have_relayed && !reg_srv_granted(s, HIP_REG_RELAY_UDP_ESP))
		s->have_relayed = false;
	if (s->state == REG_SRV_CANCELLING && s->n_granted == 0 && any)
		reg_client_remove(d->engine->reg_client, s);
}

void eng_relay_esp_want(struct hipd *d, const struct hip_ha *ha,
			const struct hip_locator_set *peer)
{
	struct reg_client *c = d->engine->reg_client;
	struct hip_peer_permission pp = { .hit = ha->hit_peer, .ospi = ha->spi_out,
					  .ispi = ha->spi_in };
	struct reg_srv *s;
	size_t i, j, k;

	for (i = 0; c && (s = reg_client_at(c, i)) != NULL; i++) {
		if (!s->have_relayed)
			continue;
		/* this peer's old permissions go: its candidates now */
		for (j = 0; j < s->n_perm; )
			if (!memcmp(&s->perm[j].hit, &ha->hit_peer, sizeof(ha->hit_peer)))
				s->perm[j] = s->perm[--s->n_perm];
			else
				j++;
		for (j = 0; peer && j < peer->n; j++) {
			const struct hip_locator *l = &peer->loc[j];

			if (l->locator_type != HIP_LOC_TYPE_TRANSPORT ||
			    l->transport_protocol != IPPROTO_UDP ||
			    hip_addr_is_v4(&l->addr) != hip_addr_is_v4(&s->relayed.addr))
				continue;
			for (k = 0; k < s->n_perm; k++)   /* by address: one each */
				if (!memcmp(&s->perm[k].hit, &pp.hit, sizeof(pp.hit)) &&
				    !memcmp(&s->perm[k].peer.addr, &l->addr, sizeof(l->addr)))
					break;
			if (k < s->n_perm ||
			    s->n_perm == sizeof(s->perm) / sizeof(s->perm[0]))
				continue;
			pp.peer.addr = l->addr;
			pp.peer.port = 0;           /* any: its NAT picks it */
			pp.peer.protocol = IPPROTO_UDP;
			s->perm[s->n_perm++] = pp;
		}
		s->perm_pending = true;
	}
}

/* ---- rendezvous ----------------------------------------------------------- */

int eng_rvs_relay(struct hipd *d, const struct eng_rx *rx)
{
	const struct hip_hit *client = &rx->pkt->hit_receiver;
	uint8_t out[ENG_PKT_BUF];
	struct hip_ha *ha;
	int len;

	if (!d->engine->registrar)
		return 1;
	if (!reg_registrar_has(d->engine->registrar, client, HIP_REG_RENDEZVOUS, hipd_now_ns()))
		return eng_drop(d, rx, HIPD_DROP_RVS_UNREGISTERED, "no rendezvous registration");
	ha = hadb_find_peer(d->hadb, client);
	if (!ha || (ha->state != HIP_STATE_ESTABLISHED && ha->state != HIP_STATE_R2_SENT)) {
		d->engine->rvs_relay_failed++;
		return eng_drop(d, rx, HIPD_DROP_NO_ASSOCIATION, "registered client unreachable");
	}
	/* §3.3: never back to where it came from */
	if (!memcmp(rx->src, &ha->addr_peer, sizeof(*rx->src)))
		return eng_drop(d, rx, HIPD_DROP_RVS_LOOP, "relayed packet from the client");
	len = rvs_relay_build(rx->pkt, rx->src, ha, out, sizeof(out));
	if (len == -ELOOP)
		return eng_drop(d, rx, HIPD_DROP_RVS_LOOP, "already relayed (FROM present)");
	if (len < 0) {
		d->engine->rvs_relay_failed++;
		return eng_drop(d, rx, HIPD_DROP_MALFORMED, "cannot relay");
	}
	/* from our address towards the client, the checksum for that pair */
	if (eng_send_port(d, NULL, out, (size_t)len, &ha->addr_local, &ha->addr_peer,
			  ha->peer_port) == 0)
		d->engine->rvs_relayed++;
	else
		d->engine->rvs_relay_failed++;
	return 0;
}

/* The association with the server that relayed rx: the one at the
 * packet's source first (RFC 8004 §3.3: the server rewrites it), else any
 * server whose key verifies. */
int eng_rvs_accept(struct hipd *d, const struct eng_rx *rx, struct hip_addr *from)
{
	struct reg_client *c = d->engine->reg_client;
	struct reg_srv *s = c ? reg_client_find_addr(c, rx->src) : NULL;
	struct hip_ha *ha;
	size_t i;
	int ret = -ENOENT;

	if (s && (ha = hadb_find_peer(d->hadb, &s->hit)) != NULL) {
		ret = rvs_check_relayed(rx->pkt, ha, from);
		if (ret == 0)
			goto ok;
	}
	for (i = 0; c && (s = reg_client_at(c, i)) != NULL; i++) {
		ha = hadb_find_peer(d->hadb, &s->hit);
		if (ha && rvs_check_relayed(rx->pkt, ha, from) == 0)
			goto ok;
	}
	/* §4.3.2: with FROM present, a bad or missing RVS_HMAC MUST drop */
	return eng_drop(d, rx, HIPD_DROP_RVS_BAD_HMAC, ret == -ENOENT && !s ?
			"relayed I1 from no server of ours" : "RVS_HMAC");
ok:
	if (hip_addr_locator_problem(from))
		return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "FROM address");
	d->engine->rvs_received++;
	return 0;
}
