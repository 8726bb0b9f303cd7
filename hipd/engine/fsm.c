/*
 * fsm.c - the dispatcher: every received HIP packet and every local or timer
 * event goes through here (RFC 7401 §4.4, §5.4, §6; docs/protocol.md).
 *
 * Packet path: size -> checksum (silent drop, §5.4.2) -> parse (each error
 * its own counter) -> receiver HIT is ours -> association by HIT pair ->
 * libhipcore's table (state, event) -> the action's handler. A handler that
 * succeeds lets the table's next state be applied here, through
 * eng_ha_set_state() (assoc/ha.c), the only place a state changes.
 *
 * Local events enter here too: hipconf or traffic triggers a base
 * exchange, hipconf closes an association, the association's timer fires
 * (assoc/ha.c's ha_timeout hook). Only this file calls the handlers.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "checksum.h"
#include "engine_int.h"
#include "engine/exchange/exchange.h"
#include "engine/reg/reg.h"
#include "engine/update/update.h"
#include "hit.h"

static int act_drop(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
static void eng_ha_close_if_sasless(struct hipd *d, struct hip_ha *ha);

/* One handler per action (state.h); the table says when each runs. */
static const eng_handler_fn handlers[HIP_ACT_COUNT_] = {
	[HIP_ACT_DROP]              = act_drop,
	[HIP_ACT_SEND_I1]           = act_send_i1,
	[HIP_ACT_SEND_R1]           = act_send_r1,
	[HIP_ACT_I1_CROSSED]        = act_i1_crossed,
	[HIP_ACT_PROCESS_R1]        = act_process_r1,
	[HIP_ACT_PROCESS_R1_NEWER]  = act_process_r1_newer,
	[HIP_ACT_PROCESS_I2]        = act_process_i2,
	[HIP_ACT_I2_CROSSED]        = act_i2_crossed,
	[HIP_ACT_RESEND_R2]         = act_resend_r2,
	[HIP_ACT_REPLACE_I2]        = act_replace_i2,
	[HIP_ACT_PROCESS_R2]        = act_process_r2,
	[HIP_ACT_PROCESS_UPDATE]    = act_process_update,
	[HIP_ACT_PROCESS_NOTIFY]    = act_process_notify,
	[HIP_ACT_PROCESS_CLOSE]     = act_process_close,
	[HIP_ACT_RESEND_CLOSE_ACK]  = act_resend_close_ack,
	[HIP_ACT_PROCESS_CLOSE_ACK] = act_process_close_ack,
	[HIP_ACT_CONFIRM]           = act_confirm,
	[HIP_ACT_RETRANSMIT]        = act_retransmit,
	[HIP_ACT_SEND_CLOSE]        = act_send_close,
	[HIP_ACT_EXPIRE]            = act_expire,
};

/* Run one event for ha (NULL: no association) and apply the result. */
static int fsm_run(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha,
		   enum hip_event ev)
{
	enum hip_state s = ha ? ha->state : HIP_STATE_UNASSOCIATED;
	const struct hip_transition *t = hip_fsm_lookup(s, ev);
	eng_handler_fn fn;
	int ret;

	if (!t || (unsigned)t->action >= HIP_ACT_COUNT_ || !handlers[t->action])
		return act_drop(d, rx, &ha);
	fn = handlers[t->action];
	log_debug("%s in %s: %s", hip_event_name(ev), hip_state_name(s),
		  hip_action_name(t->action));
	ret = fn(d, rx, &ha);
	/* Every packet that is not taken is counted once. */
	if (ret < 0 && ret != ENG_DROPPED && rx && rx->pkt) {
		char why[64];

		snprintf(why, sizeof(why), "%s failed: %s", hip_action_name(t->action),
			 strerror(-ret));
		eng_drop(d, rx, HIPD_DROP_MALFORMED, why);
	}
	if (ret == ENG_CLOSE_NEXT && ha)
		return fsm_run(d, NULL, ha, HIP_EV_CLOSE_REQ);
	if (ret < 0 || ret == ENG_HANDLED || !ha)
		return ret < 0 ? ret : 0;
	ret = eng_ha_set_state(d, ha, t->next);
	if (ret < 0)
		return ret;
	if (t->next == HIP_STATE_UNASSOCIATED)
		eng_ha_free(d, ha);
	else
		eng_ha_close_if_sasless(d, ha);
	return 0;
}

int eng_fsm_event(struct hipd *d, struct hip_ha *ha, enum hip_event ev)
{
	return fsm_run(d, NULL, ha, ev);
}

void eng_fsm_timeout(struct hipd *d, struct hip_ha *ha)
{
	d->engine->in_timeout = true;
	(void)fsm_run(d, NULL, ha, HIP_EV_TIMEOUT);
	d->engine->in_timeout = false;
}

static int act_drop(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap)
{
	if (!rx || !rx->pkt)
		return -EAGAIN;  /* a local event the state ignores: nothing to count */
	return eng_drop(d, rx, *hap ? HIPD_DROP_WRONG_STATE : HIPD_DROP_NO_ASSOCIATION,
			NULL);
}

static enum hipd_drop parse_drop(enum hip_parse_error e)
{
	switch (e) {
	case HIP_PERR_BAD_LENGTH:       return HIPD_DROP_BAD_LENGTH;
	case HIP_PERR_BAD_VERSION:      return HIPD_DROP_BAD_VERSION;
	case HIP_PERR_BAD_TYPE:         return HIPD_DROP_BAD_TYPE;
	case HIP_PERR_BAD_ORDER:        return HIPD_DROP_BAD_ORDER;
	case HIP_PERR_DUPLICATE:        return HIPD_DROP_DUPLICATE_PARAM;
	case HIP_PERR_UNKNOWN_CRITICAL: return HIPD_DROP_UNKNOWN_CRITICAL;
	default:                        return HIPD_DROP_MALFORMED;
	}
}

/* A packet the parser refused. An unknown critical parameter inside an
 * association is answered with NOTIFY (§5.2.1, type 1 with the 2-byte
 * parameter type); nothing else is (RB-01, RB-02). */
static void input_parse_failed(struct hipd *d, struct eng_rx *rx)
{
	const struct hip_packet *p = rx->pkt;
	struct hidb_entry *local;
	struct hip_ha *ha;
	uint8_t type[2];

	eng_drop(d, rx, parse_drop(p->error), hip_parse_error_str(p->error));
	/* Never for a malformed I1 or R1 (§6.7.2, §6.8.1; RB-01, RB-02). */
	if (p->error != HIP_PERR_UNKNOWN_CRITICAL || p->type == HIP_I1 || p->type == HIP_R1)
		return;
	local = hidb_find(d->hidb, &p->hit_receiver);
	ha = local ? hadb_find(d->hadb, &local->hit, &p->hit_sender) : NULL;
	if (!ha)
		return;
	rx->local = local;
	hip_wr16(type, p->error_type);
	eng_notify(d, rx, HIP_NOTIFY_UNSUPPORTED_CRITICAL_PARAMETER_TYPE, type, sizeof(type));
}

static bool lost_state_restart(struct hipd *d, const struct eng_rx *rx);

void hipd_engine_input(struct hipd *d, const uint8_t *pkt, size_t len,
		       const struct hip_addr *src, const struct hip_addr *dst)
{
	hipd_engine_input_udp(d, pkt, len, src, dst, 0);
}

void hipd_engine_input_udp(struct hipd *d, const uint8_t *pkt, size_t len,
			   const struct hip_addr *src, const struct hip_addr *dst, uint16_t sport)
{
	struct hip_packet p;
	struct eng_rx rx = { .pkt = NULL, .src = src, .dst = dst, .sport = sport };
	struct hip_ha *ha = NULL;
	struct hip_relay_addr relay_from;
	struct hip_addr rvs_from;
	bool null_receiver, learning_r1 = false, opp_r1 = false;
	struct hip_ha *opp_ha;

	d->stats->rx_ns = hipd_now_ns();   /* stage times (stats.h) start here */
	if (len > HIP_MAX_PACKET) {
		eng_drop(d, &rx, HIPD_DROP_OVERSIZE, NULL);
		return;
	}
	if (len < HIP_HDR_LEN) {
		eng_drop(d, &rx, HIPD_DROP_BAD_LENGTH, "shorter than the header");
		return;
	}
	/* §5.4.2: silently, never ICMP or NOTIFY. Over UDP the checksum is 0
	 * (RFC 9028 §5.1; UDP's own covers the packet); a set one must be right. */
	if ((!sport || pkt[4] || pkt[5]) && hip_packet_verify_checksum(pkt, len, src, dst) < 0) {
		hipd_drop_count(d->stats, HIPD_DROP_BAD_CHECKSUM);
		return;
	}
	rx.pkt = &p;
	if (hip_packet_parse(pkt, len, &p) < 0) {
		input_parse_failed(d, &rx);
		return;
	}
	if (p.type < sizeof(d->stats->rx_packets) / sizeof(d->stats->rx_packets[0]))
		d->stats->rx_packets[p.type]++;
	if (!hip_hit_is_orchid(&p.hit_sender) || hidb_find(d->hidb, &p.hit_sender)) {
		eng_drop(d, &rx, HIPD_DROP_BAD_HIT, "sender HIT");
		return;
	}
	null_receiver = hip_hit_is_null(&p.hit_receiver);
	rx.local = null_receiver ? NULL : hidb_find(d->hidb, &p.hit_receiver);
	if (null_receiver && p.type == HIP_NOTIFY) {
		/* §5.3.6: a NOTIFY may leave the receiver HIT zero. */
		ha = hadb_find_peer(d->hadb, &p.hit_sender);
		rx.local = ha ? ha->local : NULL;
	} else if (!rx.local && !null_receiver && eng_relay_forward(d, &rx) <= 0) {
		return;   /* RFC 9028 §4.5: relayed for a control relay client, or dropped */
	} else if (!rx.local && !null_receiver && (p.type == HIP_I1 || p.type == HIP_UPDATE) &&
		   eng_rvs_relay(d, &rx) <= 0) {
		return;   /* RFC 8004 §3.3: relayed to a registered client, or dropped */
	} else if (!rx.local && !(null_receiver && p.type == HIP_I1 &&
				  (d->conf.opportunistic || d->conf.n_offer_services))) {
		/* D-6; D-16: a host offering services answers them too */
		eng_drop(d, &rx, HIPD_DROP_UNKNOWN_HIT, "receiver HIT is not ours");
		return;
	}
	if (rx.local && hip_packet_find(&p, HIP_PARAM_RELAY_FROM)) {
		/* RFC 9028 §4.5: relayed by our control relay server; from here
		 * on the sender's transport address is RELAY_FROM's */
		if (eng_relay_accept(d, &rx, &relay_from) < 0)
			return;
		rx.relay = src;
		rx.relay_port = sport;
		rx.src = &relay_from.addr;
		rx.sport = relay_from.port;
	}
	if (rx.local && p.type == HIP_UPDATE && hip_packet_find(&p, HIP_PARAM_FROM)) {
		/* RFC 8046 §3.2.3: an UPDATE our rendezvous server relayed */
		if (eng_rvs_accept(d, &rx, &rvs_from) < 0)
			return;
		rx.via_rvs = src;
		rx.src = &rvs_from;
	}
	if (rx.local && !ha)
		ha = hadb_find(d->hadb, &rx.local->hit, &p.hit_sender);
	/* D-16: the R1 to opportunistic I1s of ours, to a server known by
	 * its address only, makes the association it goes to */
	if (!ha && rx.local && p.type == HIP_R1)
		learning_r1 = (ha = eng_reg_learning_r1(d, &rx)) != NULL;
	/* D-27: the R1 to opportunistic I1s of ours to a plain address
	 * (an association with its sender that failed starts afresh) */
	if (rx.local && p.type == HIP_R1 && (!ha || ha->state == HIP_STATE_E_FAILED) &&
	    (opp_ha = eng_opp_r1(d, &rx)) != NULL) {
		ha = opp_ha;
		opp_r1 = true;
	}
	if (rx.via_rvs)
		rx.sport = ha ? ha->peer_port : 0;   /* FROM has no port: the old one */
	if (ha) {
		ha->pkts_in++;
		ha->t_last_activity_ns = hipd_now_ns();
	}
	fsm_run(d, &rx, ha, hip_event_for_packet(p.type));
	if (learning_r1)
		eng_reg_learning_r1_done(d, &rx);
	if (opp_r1)
		eng_opp_r1_done(d, &rx);
	/* D-27: an opportunistic exchange of ours is pinned once up (looked
	 * up again: the handler may have ended the association) */
	if (p.type == HIP_R2 && rx.local &&
	    (ha = hadb_find(d->hadb, &rx.local->hit, &p.hit_sender)) != NULL &&
	    ha->state == HIP_STATE_ESTABLISHED)
		eng_opp_established(d, ha);
	/* RFC 7401 §5.4.4: an UPDATE or CLOSE for no association of ours;
	 * the sender learns it at once (D-14), unless we start anew */
	if (!ha && rx.local && (p.type == HIP_UPDATE || p.type == HIP_CLOSE) &&
	    !(p.type == HIP_UPDATE && lost_state_restart(d, &rx)))
		eng_icmp_no_association(d, &rx);
}

/* RFC 7401 §4.5.4: an UPDATE (the peer's liveness probe, D-13) from a
 * peer we hold no association with: we lost ours (a restart) and the peer
 * did not. For a peer our hosts map knows we start a base exchange to its
 * mapped locators; the peer answers our I1 statelessly and replaces its
 * association on our I2. Not for others: an UPDATE proves nothing before
 * an association exists, and strangers' UPDATEs must not make us keep
 * state or send anywhere. Rate-limited per source, like NOTIFYs. */
static bool lost_state_restart(struct hipd *d, const struct eng_rx *rx)
{
	const struct hip_hit *peer = &rx->pkt->hit_sender;
	char hit[HIP_HIT_STR_LEN], a[INET6_ADDRSTRLEN];

	if (!d->conf.peer_timeout_seconds || eng_peer_locators(d, peer, NULL, 0) <= 0 ||
	    hadb_find_peer(d->hadb, peer))
		return false;
	/* limited, not refused: an exchange of ours is underway */
	if (!ratelimit_allow(d->engine->notify_limit, rx->src, hipd_now_ns()) ||
	    hipd_engine_trigger(d, peer) < 0)
		return true;
	d->engine->lost_state_exchanges++;
	log_notice("UPDATE from %s at %s without an association: we lost it (a restart?); "
		   "base exchange started", hip_hit_to_str(peer, hit, sizeof(hit)),
		   hip_addr_to_str(rx->src, a, sizeof(a)));
	return true;
}

/* ---- local events: hipconf trigger / close --------------------------------- */

static int eng_ha_close(struct hipd *d, struct hip_ha *ha)
{
	char hit[HIP_HIT_STR_LEN];

	switch (ha->state) {
	case HIP_STATE_R2_SENT:
		eng_ha_set_state(d, ha, HIP_STATE_ESTABLISHED);
		/* fall through */
	case HIP_STATE_ESTABLISHED:
		return eng_fsm_event(d, ha, HIP_EV_CLOSE_REQ);
	case HIP_STATE_CLOSING:
	case HIP_STATE_CLOSED:
		return 0;
	default:
		/* No keys yet: nothing to tell the peer. */
		log_notice("base exchange with %s aborted in %s",
			   hip_hit_to_str(&ha->hit_peer, hit, sizeof(hit)),
			   hip_state_name(ha->state));
		eng_ha_free(d, ha);
		return 0;
	}
}

/* The datapath refused the SAs of an exchange (eng_dp_install logged why;
 * e.g. another peer chose the same SPI for our outbound SA): a CLOSE right
 * away, so the peer drops its SAs too and traffic from either side starts
 * a new exchange with new SPIs, instead of an association that carries
 * nothing. */
static void eng_ha_close_if_sasless(struct hipd *d, struct hip_ha *ha)
{
	char hit[HIP_HIT_STR_LEN];

	if ((ha->state != HIP_STATE_R2_SENT && ha->state != HIP_STATE_ESTABLISHED) ||
	    !eng_ha_lacks_sas(d, ha))
		return;
	log_warn("%s: established without ESP SAs; closing the association, traffic "
		 "starts a new base exchange", hip_hit_to_str(&ha->hit_peer, hit, sizeof(hit)));
	(void)eng_ha_close(d, ha);
}

int hipd_engine_close(struct hipd *d, const struct hip_hit *peer)
{
	struct hip_ha *ha = hadb_find_peer(d->hadb, peer);

	return ha ? eng_ha_close(d, ha) : -ENOENT;
}

int hipd_engine_trigger(struct hipd *d, const struct hip_hit *peer)
{
	struct hidb_entry *local;
	struct hip_ha *ha;
	int ret;

	if (!hip_hit_is_orchid(peer) || hidb_find(d->hidb, peer))
		return -EINVAL;
	ha = hadb_find_peer(d->hadb, peer);
	if (ha) {
		switch (ha->state) {
		case HIP_STATE_CLOSING:
		case HIP_STATE_CLOSED:
			if (eng_peer_locators(d, peer, NULL, 0) <= 0)
				return -ENOENT;
			ret = eng_fsm_event(d, ha, HIP_EV_DATA);
			return ret < 0 ? ret : 0;
		case HIP_STATE_E_FAILED:
			/* An explicit request does not wait for E-FAILED. */
			eng_ha_free(d, ha);
			break;
		case HIP_STATE_R2_SENT:
		case HIP_STATE_ESTABLISHED:
			/* SAs gone: closed, the next packet starts anew. */
			eng_ha_close_if_sasless(d, ha);
			return 0;
		default:
			return 0;    /* running */
		}
	}
	if (eng_peer_locators(d, peer, NULL, 0) <= 0)
		return -ENOENT;
	local = hidb_for_suite(d->hidb, hip_hit_suite(peer));
	if (!local)
		return -ENOENT;
	ret = eng_ha_get(d, local, peer, &ha);
	if (ret < 0)
		return ret;
	ret = eng_fsm_event(d, ha, HIP_EV_DATA);
	if (ret < 0 || ha->state != HIP_STATE_I1_SENT) {
		eng_ha_free(d, ha);
		return ret < 0 ? ret : -EIO;
	}
	return 0;
}
