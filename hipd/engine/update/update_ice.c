/*
 * update_ice.c - ICE-HIP-UDP connectivity checks (RFC 9028 §4.6, §5.7,
 * §5.14-5.15): after a base exchange through a control relay, both hosts
 * check the pairs of our UDP port with each of the peer's candidates
 * (from the ENCRYPTED LOCATOR_SET of the I2 or R2) with UPDATE(SEQ,
 * ECHO_REQUEST_SIGNED, CANDIDATE_PRIORITY), answered with UPDATE(ACK,
 * ECHO_RESPONSE_SIGNED, MAPPED_ADDRESS) from the address that got it.
 * The Initiator (controlling, §4.6) nominates the first pair that worked
 * (aggressive nomination) with NOMINATE; the Responder confirms with its
 * own SEQ and echo, the Initiator ACKs (Figure 5 steps 7-9). Only then
 * does the association get its SAs, at the nominated pair, and its HIP
 * packets leave the relay (§4.5 last paragraph: the relay's locator is
 * not in our LOCATOR_SET, so signaling follows the data path).
 *
 * We have one base per address family (our UDP port on the address the
 * exchange used, and on our preferred address of the other family when we
 * listen on it), so the checklist is the peer's candidates, each paired
 * with our base of its family, highest priority first (RFC 8445 §6.1.2
 * without foundations or frozen pairs, §4.6.2); among host candidates
 * IPv6 comes first (RFC 8421 §4: a dual-stack peer behind an IPv4 NAT is
 * often reachable directly over IPv6). A check from an address not on the
 * list is answered from the address it reached and becomes a
 * peer-reflexive pair checked at once (triggered check, RFC 8445 §7.3.1.4).
 *
 * Restart on mobility (§4.9, docs/decisions.md D-11): the host that moved
 * sends its new host candidates in an UPDATE's LOCATOR_SET (update_locator.c)
 * directly and through the relays it knows; the peer restarts its checks
 * with them and the address the UPDATE came from (RELAY_FROM through a
 * relay: the mover's server-reflexive address), and the mover restarts
 * with the peer's known candidates once its UPDATE is ACKed. The SAs stay
 * where they are until a new pair is nominated; then they move to it
 * (the controlled side only after the nomination's echo came back from
 * that pair, step 9: a replayed NOMINATE moves nothing).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "engine/exchange/exchange.h"
#include "hit.h"
#include "net/net.h"
#include "update_int.h"

enum ice_consts {
	ICE_PAIRS_MAX   = UPD_ICE_PAIRS_MAX,
	ICE_RTO_MS      = 1000,   /* §4.6.2: RTO = max(1000 ms, Ta * N) */
	ICE_TRIES       = 8,      /* sends of one check before it fails */
	ICE_NOM_TRIES   = 8,
	ICE_GIVE_UP_S   = 20,     /* no nominated pair by then: checks failed */
	ICE_LIFETIME_S  = 600,
	ICE_PREF_HOST   = 126,    /* §4.2 type preferences */
	ICE_PREF_PRFLX  = 110,
	ICE_PREF_SRFLX  = 100,
	ICE_PREF_RELAYED = 0,       /* a data relay server's port: the last resort */
	ICE_LOCAL_PREF_V6 = 65535,  /* §4.2 local preference: IPv6 first */
	ICE_LOCAL_PREF_V4 = 65534,  /* (RFC 8421 §4) */
	ICE_KIND_HOST   = 0,
	ICE_KIND_SRFLX  = 1,
	ICE_KIND_PRFLX  = 2,
	ICE_KIND_RELAYED = 3,
};

enum ice_pair_state { PAIR_WAITING, PAIR_IN_PROGRESS, PAIR_SUCCEEDED, PAIR_FAILED };

struct ice_pair {
	struct hip_addr addr;
	struct hip_addr local;             /* our base of addr's family */
	uint16_t port;
	uint8_t kind;
	uint32_t priority;
	enum ice_pair_state st;
	uint32_t seq;                      /* our SEQ of its check (same on resends) */
	uint8_t nonce[UPD_NONCE_LEN];
	unsigned sent;
	uint64_t due_ns;
};

struct hip_ice {
	struct hipd *d;
	struct hip_ha *ha;
	bool controlling;                  /* the Initiator (§4.6) */
	bool restart;                      /* §4.9: the SAs exist, they move */
	enum { ICE_RUNNING, ICE_NOMINATING, ICE_COMPLETED, ICE_FAILED } state;
	struct ice_pair pair[ICE_PAIRS_MAX];
	unsigned n;
	int nominated;                     /* index, -1 none */
	/* the nomination: ours (controlling) or our confirming SEQ (controlled) */
	uint32_t nom_seq;
	uint8_t nom_nonce[UPD_NONCE_LEN];
	unsigned nom_sent;
	uint64_t nom_due_ns;
	bool nom_acked;
	/* the peer's nominating UPDATE's SEQ and echo, answered again on resends */
	uint32_t peer_nom_seq;
	uint8_t peer_echo[UPD_NONCE_LEN * 4];
	size_t peer_echo_len;
	uint64_t timer, started_ns;
	uint64_t checks_sent, checks_answered;
};

/* Ta, the pacing of our checks: the higher of the two hosts' offers in the
 * base exchange (TRANSACTION_PACING, §4.4; 50 ms without). */
static uint64_t ice_ta_ns(const struct hip_ice *ice)
{
	unsigned ta = ice->ha->nat_ta_ms ? ice->ha->nat_ta_ms : HIP_NAT_TA_DEFAULT_MS;

	return (uint64_t)ta * ENG_NS_PER_MS;
}

/* §4.6.2 (RFC 8445 §14.3): RTO = max(1000 ms, Ta * the pairs). */
static uint64_t ice_rto_ns(const struct hip_ice *ice)
{
	uint64_t rto = ice_ta_ns(ice) * (ice->n ? ice->n : 1);

	return rto > (uint64_t)ICE_RTO_MS * ENG_NS_PER_MS ? rto : (uint64_t)ICE_RTO_MS * ENG_NS_PER_MS;
}

/* §4.2: 2^24 * type preference + 2^8 * local preference + (256 - 1); the
 * local preference puts IPv6 before IPv4 within a type (RFC 8421 §4). */
static uint32_t ice_priority(unsigned type_pref, const struct hip_addr *a)
{
	uint32_t local = hip_addr_is_v4(a) ? ICE_LOCAL_PREF_V4 : ICE_LOCAL_PREF_V6;

	return (uint32_t)type_pref << 24 | local << 8 | 255;
}

static bool same_family(const struct hip_addr *a, const struct hip_addr *b)
{
	return hip_addr_is_v4(a) == hip_addr_is_v4(b);
}

/* We take HIP and ESP over UDP in that family (a socket on nat_port). */
static bool udp_family(const struct hipd *d, bool v4)
{
	return v4 ? d->conf.listen_v4 && d->udp4 >= 0 : d->conf.listen_v6 && d->udp6 >= 0;
}

/* Our base of a family: used (the address the exchange used) if it is of
 * that family, else our preferred address of the family if we listen on
 * it over UDP; -ENOENT when we have none. */
static int ice_base(struct hipd *d, const struct hip_addr *used, bool v4, struct hip_addr *local)
{
	if (hip_addr_is_v4(used) == v4) {
		*local = *used;
		return 0;
	}
	if (!d->locset || !udp_family(d, v4))
		return -ENOENT;
	return locset_preferred(d->locset, v4 ? AF_INET : AF_INET6, local);
}

static int pair_find(const struct hip_ice *ice, const struct hip_addr *a, uint16_t port)
{
	unsigned i;

	for (i = 0; i < ice->n; i++)
		if (ice->pair[i].port == port && !memcmp(&ice->pair[i].addr, a, sizeof(*a)))
			return (int)i;
	return -1;
}

/* local: our base, NULL for the one of a's family (ice_base) */
static int pair_add(struct hip_ice *ice, const struct hip_addr *a, uint16_t port, uint8_t kind,
		    uint32_t priority, const struct hip_addr *local)
{
	struct hip_addr base;
	struct ice_pair *p;
	unsigned i;

	if (pair_find(ice, a, port) >= 0 || ice->n == ICE_PAIRS_MAX || !port ||
	    hip_addr_locator_problem(a))
		return -EINVAL;
	if (local)
		base = *local;
	else if (ice_base(ice->d, &ice->ha->addr_local, hip_addr_is_v4(a), &base) < 0)
		return -ENOENT;
	/* keep the list sorted, highest priority first (RFC 8445 §6.1.2.3) */
	for (i = ice->n; i > 0 && ice->pair[i - 1].priority < priority; i--)
		ice->pair[i] = ice->pair[i - 1];
	p = &ice->pair[i];
	memset(p, 0, sizeof(*p));
	p->addr = *a;
	p->local = base;
	p->port = port;
	p->kind = kind;
	p->priority = priority;
	p->st = PAIR_WAITING;
	ice->n++;
	return (int)i;
}

/* ---- our candidates (the LOCATOR_SET of our I2 or R2, §5.7) ------------- */

static void cand_add(struct hip_locator_set *s, const struct hip_addr *a, uint16_t port,
		     uint8_t kind, unsigned pref, uint32_t spi)
{
	struct hip_locator *l;
	unsigned i;

	for (i = 0; i < s->n; i++)
		if (s->loc[i].port == port && !memcmp(&s->loc[i].addr, a, sizeof(*a)))
			return;
	if (s->n == HIP_LOCATORS_MAX || hip_addr_locator_problem(a))
		return;
	l = &s->loc[s->n++];
	memset(l, 0, sizeof(*l));
	l->traffic_type = HIP_LOC_TRAFFIC_BOTH;
	l->locator_type = HIP_LOC_TYPE_TRANSPORT;
	l->lifetime = ICE_LIFETIME_S;
	l->port = port;
	l->transport_protocol = IPPROTO_UDP;
	l->kind = kind;
	l->priority = ice_priority(pref, a);
	l->spi = spi;
	l->addr = *a;
}

void upd_ice_candidates(struct hipd *d, const struct hip_addr *local, uint32_t spi_in,
			const struct hip_relay_addr *seen, struct hip_locator_set *out)
{
	struct reg_client *c = d->engine->reg_client;
	struct hip_addr other;
	bool have_other;
	struct reg_srv *s;
	size_t i;

	out->n = 0;
	/* §4.2: the host candidates (the exchange's address, our preferred
	 * one of the other family), and the server-reflexive ones: each
	 * relay server's REG_FROM, and how this exchange's relay saw us
	 * (RELAY_TO of the R1, §4.5 step 5) */
	have_other = ice_base(d, local, !hip_addr_is_v4(local), &other) == 0;
	if (have_other && !hip_addr_is_v4(&other))
		cand_add(out, &other, (uint16_t)d->conf.nat_port, ICE_KIND_HOST, ICE_PREF_HOST, spi_in);
	cand_add(out, local, (uint16_t)d->conf.nat_port, ICE_KIND_HOST, ICE_PREF_HOST, spi_in);
	if (have_other && hip_addr_is_v4(&other))
		cand_add(out, &other, (uint16_t)d->conf.nat_port, ICE_KIND_HOST, ICE_PREF_HOST, spi_in);
	for (i = 0; c && (s = reg_client_at(c, i)) != NULL; i++)
		if (s->have_reg_from && s->reg_from.protocol == IPPROTO_UDP &&
		    (same_family(&s->reg_from.addr, local) ||
		     (have_other && same_family(&s->reg_from.addr, &other))))
			cand_add(out, &s->reg_from.addr, s->reg_from.port, ICE_KIND_SRFLX,
				 ICE_PREF_SRFLX, spi_in);
	if (seen && seen->protocol == IPPROTO_UDP && same_family(&seen->addr, local))
		cand_add(out, &seen->addr, seen->port, ICE_KIND_SRFLX, ICE_PREF_SRFLX, spi_in);
	/* §4.12: our relayed address at each data relay server, last */
	for (i = 0; c && (s = reg_client_at(c, i)) != NULL; i++)
		if (s->have_relayed && (same_family(&s->relayed.addr, local) ||
					(have_other && same_family(&s->relayed.addr, &other))))
			cand_add(out, &s->relayed.addr, s->relayed.port, ICE_KIND_RELAYED,
				 ICE_PREF_RELAYED, spi_in);
}

/* ---- sending ---------------------------------------------------------------- */

static int ice_send(struct hipd *d, struct hip_ha *ha, const struct upd_msg *m,
		    const struct hip_addr *src, const struct hip_addr *dst, uint16_t port)
{
	uint8_t buf[ENG_PKT_BUF];
	int len = upd_build(ha, m, buf, sizeof(buf));

	if (len < 0)
		return len;
	return eng_send_direct(d, ha, buf, (size_t)len, src, dst, port);
}

/* The next Update ID, as upd_send_new() takes it: a check never shares
 * its SEQ with our next ordinary UPDATE (the peer ACKs checks blindly and
 * would take that UPDATE for a duplicate). */
static uint32_t next_seq(struct hip_ha *ha)
{
	return ha->update_id_out++;
}

static int check_send(struct hip_ice *ice, struct ice_pair *p, bool nominate)
{
	struct hip_ha *ha = ice->ha;
	struct upd_msg m = { 0 };

	m.has_seq = true;
	m.seq = nominate ? ice->nom_seq : p->seq;
	m.echo_req = nominate ? ice->nom_nonce : p->nonce;
	m.echo_req_len = UPD_NONCE_LEN;
	m.has_cand_prio = true;
	m.cand_prio = ice_priority(ICE_PREF_PRFLX, &p->local);
	m.nominate = nominate;
	return ice_send(ice->d, ha, &m, &p->local, &p->addr, p->port);
}

/* The controlled side's step 8 (SEQ, ACK, both echoes, NOMINATE) or the
 * controlling side's step 9 (ACK, echo response), to the nominated pair. */
static int nominate_reply_send(struct hip_ice *ice, bool with_seq)
{
	struct ice_pair *p = &ice->pair[ice->nominated];
	struct hip_opaque echo = { .data = ice->peer_echo, .len = ice->peer_echo_len };
	struct upd_msg m = { 0 };

	m.has_ack = true;
	m.ack = ice->peer_nom_seq;
	m.echo_resp_signed = &echo;
	if (with_seq) {
		m.has_seq = true;
		m.seq = ice->nom_seq;
		m.echo_req = ice->nom_nonce;
		m.echo_req_len = UPD_NONCE_LEN;
		m.nominate = true;
	}
	return ice_send(ice->d, ice->ha, &m, &p->local, &p->addr, p->port);
}

/* ---- the end: the nominated pair, or nothing -------------------------------- */

static void ice_completed(struct hip_ice *ice)
{
	struct hipd *d = ice->d;
	struct hip_ha *ha = ice->ha;
	struct ice_pair *p = &ice->pair[ice->nominated];
	char hit[HIP_HIT_STR_LEN], a[INET6_ADDRSTRLEN];
	static const char *const kinds[] = { "host", "server-reflexive", "peer-reflexive" };

	ice->state = ICE_COMPLETED;
	/* through a data relay: the peer's relayed candidate, or the port of
	 * one of our servers its checks came from (our relayed address) */
	ha->data_relayed = p->kind == ICE_KIND_RELAYED ||
			   (d->engine->reg_client &&
			    reg_client_find_addr(d->engine->reg_client, &p->addr));
	ha->addr_local = p->local;
	ha->addr_peer = p->addr;
	ha->peer_port = p->port;
	ha->relay_port = 0;            /* signaling follows the data path (§4.5) */
	ha->ice_pending = false;
	log_notice("%s: connectivity checks done in %llu ms%s: %s over UDP to %s port %u "
		   "(%s candidate)", hip_hit_to_str(&ha->hit_peer, hit, sizeof(hit)),
		   (unsigned long long)((hipd_now_ns() - ice->started_ns) / ENG_NS_PER_MS),
		   ice->restart ? " after a restart" : "",
		   ha->data_relayed ? "through the data relay" : "direct",
		   hip_addr_to_str(&p->addr, a, sizeof(a)), p->port,
		   p->kind < 3 ? kinds[p->kind] : "relayed");
	if (ice->restart && ha->dp_installed) {
		d->stats->ice_restarts_done++;
		(void)eng_dp_move(d, ha);      /* §4.9: ESP moves to the new pair */
		return;
	}
	eng_dp_install(d, ha);
}

static void ice_failed(struct hip_ice *ice)
{
	struct hipd *d = ice->d;
	struct hip_ha *ha = ice->ha;
	char hit[HIP_HIT_STR_LEN];

	ice->state = ICE_FAILED;
	d->engine->ice_failed++;
	if (ice->restart) {
		/* the old pair stays; liveness (D-13) ends it if it is dead */
		ha->ice_pending = false;
		log_warn("%s: connectivity checks after a restart failed (%u candidate pairs, "
			 "%llu checks sent): the path in use stays",
			 hip_hit_to_str(&ha->hit_peer, hit, sizeof(hit)), ice->n,
			 (unsigned long long)ice->checks_sent);
		return;
	}
	log_warn("%s: connectivity checks failed (%u candidate pairs, %llu checks sent): no "
		 "direct path and no data relay; closing the association",
		 hip_hit_to_str(&ha->hit_peer, hit, sizeof(hit)), ice->n,
		 (unsigned long long)ice->checks_sent);
	/* §4.6.3: NOTIFY CONNECTIVITY_CHECKS_FAILED, through the relay */
	(void)eng_notify_send(d, ha, HIP_NOTIFY_CONNECTIVITY_CHECKS_FAILED, "", 0);
	eng_ha_free(d, ha);      /* frees ice too: nothing after this */
}

/* ---- the tick: one check per Ta (§4.6.2), retransmissions, nomination ---- */

static void ice_tick(struct hip_loop *loop, uint64_t timer, void *arg);

static void ice_arm(struct hip_ice *ice, uint64_t delay_ns)
{
	if (ice->timer)
		hip_loop_timer_cancel(ice->d->loop, ice->timer);
	ice->timer = hip_loop_timer_add(ice->d->loop, delay_ns, ice_tick, ice);
}

static bool ice_checks_step(struct hip_ice *ice, uint64_t now)
{
	unsigned i;
	bool live = false;

	for (i = 0; i < ice->n; i++) {
		struct ice_pair *p = &ice->pair[i];

		if (p->st == PAIR_IN_PROGRESS && p->sent >= ICE_TRIES && p->due_ns <= now)
			p->st = PAIR_FAILED;
		/* the controlled side waits for the nomination of a pair
		 * that worked (up to ICE_GIVE_UP_S) */
		if (p->st == PAIR_WAITING || p->st == PAIR_IN_PROGRESS ||
		    (!ice->controlling && p->st == PAIR_SUCCEEDED))
			live = true;
	}
	for (i = 0; i < ice->n; i++) {
		struct ice_pair *p = &ice->pair[i];

		if ((p->st != PAIR_WAITING && p->st != PAIR_IN_PROGRESS) || p->due_ns > now)
			continue;
		if (p->st == PAIR_WAITING) {
			p->seq = next_seq(ice->ha);
			if (hip_random(p->nonce, sizeof(p->nonce)) < 0)
				continue;
			p->st = PAIR_IN_PROGRESS;
		}
		p->sent++;
		p->due_ns = now + ice_rto_ns(ice);
		ice->checks_sent++;
		ice->d->engine->ice_checks_sent++;
		(void)check_send(ice, p, false);
		break;     /* paced: one per Ta */
	}
	return live;
}

static void ice_tick(struct hip_loop *loop, uint64_t timer, void *arg)
{
	struct hip_ice *ice = arg;
	uint64_t now = hipd_now_ns();
	bool live;

	(void)loop;
	(void)timer;
	ice->timer = 0;
	if (ice->state == ICE_FAILED)
		return;
	if (ice->state != ICE_COMPLETED && now - ice->started_ns > ICE_GIVE_UP_S * ENG_NS_PER_S) {
		ice_failed(ice);
		return;
	}
	live = ice->state == ICE_RUNNING ? ice_checks_step(ice, now) : false;
	if (ice->state == ICE_RUNNING && !live && ice->n) {
		ice_failed(ice);
		return;
	}
	/* our nomination (controlling) or confirmation (controlled), resent
	 * until ACKed */
	if (ice->nominated >= 0 && !ice->nom_acked && ice->nom_due_ns <= now) {
		if (ice->nom_sent >= ICE_NOM_TRIES) {
			if (ice->state != ICE_COMPLETED) {
				ice_failed(ice);
				return;
			}
			ice->nom_acked = true;   /* completed; the peer has its SAs */
		} else {
			ice->nom_sent++;
			ice->nom_due_ns = now + ice_rto_ns(ice);
			if (ice->controlling)
				(void)check_send(ice, &ice->pair[ice->nominated], true);
			else
				(void)nominate_reply_send(ice, true);
		}
	}
	if (ice->state != ICE_COMPLETED || !ice->nom_acked)
		ice_arm(ice, ice_ta_ns(ice));
}

/* ---- start / stop ------------------------------------------------------------ */

static void ice_reset(struct hip_ice *ice)
{
	ice->state = ICE_RUNNING;
	ice->nominated = -1;
	ice->nom_acked = false;
	ice->nom_sent = 0;
	ice->checks_sent = 0;
	ice->started_ns = hipd_now_ns();
}

static void pairs_from(struct hip_ice *ice, const struct hip_locator_set *peer)
{
	unsigned i;

	for (i = 0; peer && i < peer->n; i++) {
		const struct hip_locator *l = &peer->loc[i];

		/* §5.7: UDP transport locators for data; HIP-signaling-only
		 * ones (relays) are never checked (§4.5) */
		if (l->locator_type != HIP_LOC_TYPE_TRANSPORT ||
		    l->transport_protocol != IPPROTO_UDP || l->traffic_type == HIP_LOC_TRAFFIC_SIGNAL)
			continue;
		(void)pair_add(ice, &l->addr, l->port, l->kind, l->priority, NULL);
	}
}

int upd_ice_start(struct hipd *d, struct hip_ha *ha, const struct hip_locator_set *peer)
{
	struct hip_ice *ice = ha->ice;

	if (!ice) {
		ice = calloc(1, sizeof(*ice));
		if (!ice)
			return -ENOMEM;
		ha->ice = ice;
	}
	ice->d = d;
	ice->ha = ha;
	ice->controlling = ha->initiator;
	ice->restart = false;
	ice_reset(ice);
	pairs_from(ice, peer);
	eng_relay_esp_want(d, ha, peer);   /* our data relays let the peer in */
	upd_relay_esp_flush(d);
	ha->ice_pending = true;
	d->engine->ice_started++;
	ice_arm(ice, 0);
	return 0;
}

int upd_ice_restart(struct hipd *d, struct hip_ha *ha, const struct hip_locator_set *peer,
		    const struct hip_relay_addr *seen, const char *why)
{
	struct hip_ice *ice = ha->ice;
	char hit[HIP_HIT_STR_LEN];
	unsigned i;

	if (!ice || ha->nat_mode != HIP_NAT_MODE_ICE_HIP_UDP)
		return -ENOENT;
	ice->restart = ha->dp_installed;
	ice_reset(ice);
	if (peer) {
		ice->n = 0;            /* the peer moved: its old candidates went */
		pairs_from(ice, peer);
		eng_relay_esp_want(d, ha, peer);
		upd_relay_esp_flush(d);
	}
	/* the pairs kept (we moved: the peer's candidates stay) get our
	 * bases anew: the address in use may have changed */
	for (i = 0; i < ice->n; i++)
		ice->pair[i].st = ice_base(d, &ha->addr_local, hip_addr_is_v4(&ice->pair[i].addr),
					   &ice->pair[i].local) == 0 ? PAIR_WAITING : PAIR_FAILED;
	if (seen && seen->protocol == IPPROTO_UDP)
		(void)pair_add(ice, &seen->addr, seen->port, ICE_KIND_SRFLX,
			       ice_priority(ICE_PREF_SRFLX, &seen->addr), NULL);
	ha->ice_pending = true;
	d->engine->ice_started++;
	d->stats->ice_restarts++;
	log_notice("%s: ICE restart (%s): connectivity checks again over %u candidate pairs",
		   hip_hit_to_str(&ha->hit_peer, hit, sizeof(hit)), why, ice->n);
	ice_arm(ice, 0);
	return 0;
}

bool upd_ice_active(const struct hip_ha *ha)
{
	return ha->ice && ha->nat_mode == HIP_NAT_MODE_ICE_HIP_UDP;
}

int upd_ice_locator_rx(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha,
		       const struct hip_locator_set *ls)
{
	struct hip_relay_addr seen = { .port = rx->sport, .protocol = IPPROTO_UDP };
	struct hip_update *u = ha->upd;
	unsigned i;

	if (!rx->sport)
		return 0;
	seen.addr = *rx->src;
	/* both moved: our own readdress went to the peer's old address; the
	 * relay that reached us now reaches the peer (§4.9, like RFC 8046
	 * §3.2.3's double jump) */
	if (rx->relay && u && u->out_kind == UPD_OUT_READDRESS && u->ice_restart_on_ack &&
	    u->out_pkt)
		(void)eng_send_port(d, ha, u->out_pkt, u->out_len, &u->out_src, rx->relay,
				    rx->relay_port);
	/* the pair in use is still one of the peer's: nothing moved for us */
	if (rx->sport == ha->peer_port && !memcmp(rx->src, &ha->addr_peer, sizeof(*rx->src)))
		return 0;
	for (i = 0; i < ls->n; i++)
		if (ls->loc[i].locator_type == HIP_LOC_TYPE_TRANSPORT &&
		    ls->loc[i].port == ha->peer_port &&
		    !memcmp(&ls->loc[i].addr, &ha->addr_peer, sizeof(ha->addr_peer)))
			return 0;
	return upd_ice_restart(d, ha, ls, &seen, rx->relay ? "the peer moved; its UPDATE came "
			       "through the relay" : "the peer moved");
}

void upd_ice_host_candidates(struct hipd *d, const struct hip_ha *ha, struct hip_locator_set *out)
{
	struct hip_addr own[HIP_LOCATORS_MAX];
	size_t i, n = 0;

	out->n = 0;
	cand_add(out, &ha->addr_local, (uint16_t)d->conf.nat_port, ICE_KIND_HOST, ICE_PREF_HOST,
		 ha->spi_in);
	if (d->locset)
		n = locset_list(d->locset, own, HIP_LOCATORS_MAX);
	for (i = 0; i < n; i++)
		if (same_family(&own[i], &ha->addr_local) || udp_family(d, hip_addr_is_v4(&own[i])))
			cand_add(out, &own[i], (uint16_t)d->conf.nat_port, ICE_KIND_HOST,
				 ICE_PREF_HOST, ha->spi_in);
	if (out->n)
		out->loc[0].preferred = true;
}

void upd_ice_free(struct hip_ha *ha)
{
	struct hip_ice *ice = ha->ice;

	if (!ice)
		return;
	if (ice->timer && ice->d && ice->d->loop)
		hip_loop_timer_cancel(ice->d->loop, ice->timer);
	hip_wipe(ice, sizeof(*ice));
	free(ice);
	ha->ice = NULL;
	ha->ice_pending = false;
}

const char *upd_ice_state(const struct hip_ha *ha)
{
	static const char *const names[] = { "checking", "nominating", "completed", "failed" };

	return ha->ice ? names[ha->ice->state] : NULL;
}

size_t upd_ice_pairs(const struct hip_ha *ha, struct upd_ice_pair_info *out, size_t max)
{
	static const char *const kinds[] = { "host", "server-reflexive", "peer-reflexive" };
	static const char *const states[] = { "waiting", "in-progress", "succeeded", "failed" };
	const struct hip_ice *ice = ha->ice;
	size_t i;

	for (i = 0; ice && i < ice->n && i < max; i++) {
		const struct ice_pair *p = &ice->pair[i];

		out[i] = (struct upd_ice_pair_info){
			.local = p->local, .peer = p->addr, .port = p->port,
			.kind = p->kind < 3 ? kinds[p->kind] : "relayed", .state = states[p->st],
			.checks = p->sent, .nominated = ice->nominated == (int)i,
		};
	}
	return i;
}

/* ---- received ----------------------------------------------------------------- */

bool upd_ice_owns(const struct hip_ha *ha, const struct eng_rx *rx, const struct hip_ack *ack)
{
	const struct hip_ice *ice = ha->ice;
	unsigned i, j;

	if (!ice)
		return false;
	if (hip_packet_find(rx->pkt, HIP_PARAM_CANDIDATE_PRIORITY) ||
	    hip_packet_find(rx->pkt, HIP_PARAM_NOMINATE))
		return true;
	for (j = 0; ack && j < ack->n; j++) {
		if (ice->nominated >= 0 && ack->id[j] == ice->nom_seq)
			return true;
		for (i = 0; i < ice->n; i++)
			if (ice->pair[i].st != PAIR_WAITING && ack->id[j] == ice->pair[i].seq)
				return true;
	}
	return false;
}

static bool echo_is(const struct eng_rx *rx, const uint8_t *nonce)
{
	const struct hip_param_ref *p = hip_packet_find(rx->pkt, HIP_PARAM_ECHO_RESPONSE_SIGNED);
	struct hip_opaque echo;

	return p && hip_echo_decode(hip_param_content(rx->pkt, p), p->len, &echo) == 0 &&
	       echo.len == UPD_NONCE_LEN && hip_memeq_ct(echo.data, nonce, UPD_NONCE_LEN);
}

/* The answer to a check: ACK, the echo, where we saw it come from. */
static int check_answer(struct hip_ice *ice, const struct eng_rx *rx, uint32_t seq,
			const struct hip_opaque *echo)
{
	struct hip_relay_addr mapped = { .port = rx->sport, .protocol = IPPROTO_UDP };
	struct upd_msg m = { 0 };

	mapped.addr = *rx->src;
	m.has_ack = true;
	m.ack = seq;
	m.echo_resp_signed = echo;
	m.mapped = &mapped;
	ice->checks_answered++;
	return ice_send(ice->d, ice->ha, &m, rx->dst, rx->src, rx->sport);
}

/* Our check's answer: the pair is valid (same UDP port pair, §4.6.2). */
static int ack_rx(struct hip_ice *ice, const struct eng_rx *rx, const struct hip_ack *ack)
{
	struct hipd *d = ice->d;
	unsigned i, j;
	int k;

	for (j = 0; j < ack->n; j++) {
		if (ice->nominated >= 0 && ack->id[j] == ice->nom_seq) {
			k = pair_find(ice, rx->src, rx->sport);
			if (k != ice->nominated || !echo_is(rx, ice->nom_nonce))
				return eng_drop(d, rx, HIPD_DROP_BAD_ECHO, "nomination answer");
			ice->nom_acked = true;
			/* §4.9: the controlled side moves its SAs once the
			 * nominated pair echoed (step 9) */
			if (!ice->controlling && ice->restart && ice->state != ICE_COMPLETED)
				ice_completed(ice);
			continue;
		}
		for (i = 0; i < ice->n; i++) {
			struct ice_pair *p = &ice->pair[i];

			if (p->st == PAIR_WAITING || ack->id[j] != p->seq)
				continue;
			if ((int)i != pair_find(ice, rx->src, rx->sport) || !echo_is(rx, p->nonce))
				return eng_drop(d, rx, HIPD_DROP_BAD_ECHO,
						"check answer from another address or nonce");
			p->st = PAIR_SUCCEEDED;
			if (ice->controlling && ice->state == ICE_RUNNING) {
				/* aggressive nomination: the first valid pair */
				ice->state = ICE_NOMINATING;
				ice->nominated = (int)i;
				ice->nom_seq = next_seq(ice->ha);
				if (hip_random(ice->nom_nonce, sizeof(ice->nom_nonce)) < 0)
					return -EIO;
				ice->nom_due_ns = 0;
				ice_arm(ice, 0);
			}
		}
	}
	return 0;
}

int upd_ice_rx(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha, const uint32_t *seq,
	       const struct hip_ack *ack)
{
	struct hip_ice *ice = ha->ice;
	const struct hip_param_ref *p;
	struct hip_opaque echo = { 0 };
	bool nominate = hip_packet_find(rx->pkt, HIP_PARAM_NOMINATE) != NULL;
	int ret, k;

	if (!rx->sport)
		return eng_drop(d, rx, HIPD_DROP_POLICY, "connectivity check over raw IP");
	/* §4.6.2: checks are ACKed blindly; their IDs only move the window's
	 * upper bound (update.c seq_classify) */
	if (seq)
		upd_seq_accepted(ha, *seq);
	if (ack) {
		ret = ack_rx(ice, rx, ack);
		if (ret < 0)
			return ret;
	}
	if (!seq)
		goto done;
	p = hip_packet_find(rx->pkt, HIP_PARAM_ECHO_REQUEST_SIGNED);
	if (!p || hip_echo_decode(hip_param_content(rx->pkt, p), p->len, &echo) < 0 ||
	    echo.len > sizeof(ice->peer_echo))
		return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "check without ECHO_REQUEST_SIGNED");
	k = pair_find(ice, rx->src, rx->sport);
	if (!nominate) {
		/* a check: answered; its source checked at once (triggered) */
		if (k < 0)
			k = pair_add(ice, rx->src, rx->sport, ICE_KIND_PRFLX,
				     ice_priority(ICE_PREF_PRFLX, rx->src), rx->dst);
		/* RFC 8445 §7.3.1.4: an In-Progress pair is checked again at
		 * once too: our first check may have hit the peer's NAT before
		 * its own opened the way (the race of hole punching), and the
		 * next retransmission is an RTO away */
		if (k >= 0 && ice->state == ICE_RUNNING &&
		    (ice->pair[k].st == PAIR_WAITING || ice->pair[k].st == PAIR_IN_PROGRESS))
			ice->pair[k].due_ns = 0;
		ret = check_answer(ice, rx, *seq, &echo);
		goto done_ret;
	}
	if (ice->controlling) {
		/* step 8: the controlled side's confirmation, answered (step 9) */
		if (ice->nominated < 0 || k != ice->nominated || !ack)
			return eng_drop(d, rx, HIPD_DROP_WRONG_STATE, "NOMINATE to the controlling side");
		ice->peer_nom_seq = *seq;
		memcpy(ice->peer_echo, echo.data, echo.len);
		ice->peer_echo_len = echo.len;
		ret = nominate_reply_send(ice, false);
		if (ice->state != ICE_COMPLETED && ice->nom_acked)
			ice_completed(ice);
		goto done_ret;
	}
	/* the controlled side: step 7, the Initiator nominates this pair */
	if (k < 0)
		k = pair_add(ice, rx->src, rx->sport, ICE_KIND_PRFLX,
			     ice_priority(ICE_PREF_PRFLX, rx->src), rx->dst);
	if (k < 0)
		return eng_drop(d, rx, HIPD_DROP_POLICY, "nomination: no room for the pair");
	if (ice->nominated != k) {
		if (ice->state == ICE_COMPLETED || ice->state == ICE_FAILED) {
			/* the controlling side restarted (it moved, §4.9) and
			 * nominates another pair: we follow after step 9 */
			ice->restart = ha->dp_installed;
			ice->state = ICE_NOMINATING;
			ice->started_ns = hipd_now_ns();
			d->stats->ice_restarts++;
		}
		ice->nominated = k;
		ice->nom_seq = next_seq(ha);
		if (hip_random(ice->nom_nonce, sizeof(ice->nom_nonce)) < 0)
			return -EIO;
		ice->nom_acked = false;
		ice->nom_sent = 0;
	}
	ice->peer_nom_seq = *seq;
	memcpy(ice->peer_echo, echo.data, echo.len);
	ice->peer_echo_len = echo.len;
	ice->nom_sent++;
	ice->nom_due_ns = hipd_now_ns() + ice_rto_ns(ice);
	ret = nominate_reply_send(ice, true);
	if (ice->state != ICE_COMPLETED && !ice->restart)
		ice_completed(ice);    /* §4.6.1 step 8: the SAs may be made now */
	else if (ice->state == ICE_RUNNING)
		ice->state = ICE_NOMINATING;
	ice_arm(ice, ice_ta_ns(ice));
done_ret:
	if (ret < 0)
		return ret;
done:
	return 0;
}
