/*
 * relay.c - the control relay of RFC 9028 (RELAY_UDP_HIP, §4.5, §4.8,
 * §5.8): as a server, HIP packets for a registered client go to the
 * address and port it registered from, with RELAY_FROM (the sender's
 * transport address as we saw it) and RELAY_HMAC (our outgoing integrity
 * key of the association with the client, docs/decisions.md D-9) appended;
 * the client's packets that carry RELAY_TO go to that transport address.
 * As a client, a packet with RELAY_FROM is believed only when RELAY_HMAC
 * verifies with the association with one of our relay servers.
 *
 * One hop: a packet that already carries RELAY_FROM, RELAY_HMAC, FROM or
 * RVS_HMAC is not relayed again (appending would also break the ascending
 * parameter order), which ends relay loops.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "coverage.h"
#include "engine/engine_int.h"
#include "hit.h"
#include "reg.h"

static bool relayed_before(const struct hip_packet *pkt)
{
	return hip_packet_find(pkt, HIP_PARAM_RELAY_FROM) ||
	       hip_packet_find(pkt, HIP_PARAM_RELAY_HMAC) ||
	       hip_packet_find(pkt, HIP_PARAM_FROM) || hip_packet_find(pkt, HIP_PARAM_RVS_HMAC);
}

int relay_forward_build(const struct hip_packet *pkt, const struct hip_addr *src, uint16_t sport,
			const struct hip_ha *ha, uint8_t *out, size_t cap)
{
	struct hip_relay_addr from = { .port = sport, .protocol = sport ? IPPROTO_UDP : 0 };
	struct hip_builder b;

	if (relayed_before(pkt))
		return -ELOOP;
	if (!ha->hip_keys.int_len)
		return -ENOKEY;
	from.addr = *src;
	hip_build_resume(&b, out, cap, pkt);
	hip_relay_addr_build(&b, HIP_PARAM_RELAY_FROM, &from);
	hip_build_relay_hmac(&b, ha->rhash, eng_key_out_int(ha), ha->hip_keys.int_len);
	return hip_build_finish(&b);
}

int relay_check(const struct hip_packet *pkt, const struct hip_ha *ha, struct hip_relay_addr *from)
{
	const struct hip_param_ref *p = hip_packet_find(pkt, HIP_PARAM_RELAY_FROM);
	int ret;

	if (!p)
		return -ENOENT;
	if (hip_relay_addr_decode(hip_param_content(pkt, p), p->len, from) < 0 ||
	    (from->protocol != IPPROTO_UDP && from->protocol != 0) ||
	    (from->protocol == 0) != (from->port == 0))
		return -EBADMSG;
	if (!ha || !ha->hip_keys.int_len)
		return -ENOKEY;
	ret = hip_verify_relay_hmac(pkt, HIP_PARAM_RELAY_HMAC, ha->rhash, eng_key_in_int(ha),
				    ha->hip_keys.int_len);
	return ret == -ENOENT ? -ENOENT : ret < 0 ? -EBADMSG : 0;
}

/* ---- the server ------------------------------------------------------------ */

static struct hip_ha *client_ha(struct hipd *d, const struct hip_hit *client)
{
	struct hip_ha *ha = hadb_find_peer(d->hadb, client);

	if (!ha || (ha->state != HIP_STATE_ESTABLISHED && ha->state != HIP_STATE_R2_SENT))
		return NULL;
	return ha;
}

/* §4.5: a Control Relay Server MUST drop an R1 or I2 without NAT_TRAVERSAL_MODE. */
static bool lacks_nat_mode(const struct hip_packet *pkt)
{
	return (pkt->type == HIP_R1 || pkt->type == HIP_I2) &&
	       !hip_packet_find(pkt, HIP_PARAM_NAT_TRAVERSAL_MODE);
}

static struct eng_relay_src *relay_src_slot(struct hipd *d, const struct hip_addr *peer,
					    uint16_t port)
{
	const size_t n = sizeof(d->engine->relay_src) / sizeof(d->engine->relay_src[0]);
	uint32_t h = port;
	size_t i;

	for (i = 0; i < sizeof(peer->in6.s6_addr); i++)
		h = h * 31 + peer->in6.s6_addr[i];
	return &d->engine->relay_src[h % n];
}

/* Our address a peer sent to (its I1 or I2 for a client): its answers
 * leave from there, so the peer's NAT lets them in. */
static void relay_src_learn(struct hipd *d, const struct eng_rx *rx)
{
	struct eng_relay_src *e = relay_src_slot(d, rx->src, rx->sport);

	e->peer = *rx->src;
	e->port = rx->sport;
	e->local = *rx->dst;
}

static int relay_src_for(struct hipd *d, const struct hip_addr *peer, uint16_t port,
			 struct hip_addr *src)
{
	const struct eng_relay_src *e = relay_src_slot(d, peer, port);

	if (e->port == port && !memcmp(&e->peer, peer, sizeof(*peer))) {
		*src = e->local;
		return 0;
	}
	return eng_pick_source(d, peer, src);
}

static bool from_client(const struct eng_rx *rx, const struct hip_ha *ha)
{
	return !memcmp(rx->src, &ha->addr_peer, sizeof(*rx->src)) && rx->sport == ha->peer_port;
}

/* A client's packet with RELAY_TO: to that transport address, unchanged
 * (§4.5 step 4: only the IP and UDP headers are rewritten). */
static int relay_to_peer(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha)
{
	const struct hip_param_ref *p = hip_packet_find(rx->pkt, HIP_PARAM_RELAY_TO);
	struct hip_relay_addr to;
	uint8_t out[ENG_PKT_BUF];
	struct hip_addr src;

	if (!from_client(rx, ha))
		return eng_drop(d, rx, HIPD_DROP_RELAY_UNREGISTERED,
				"RELAY_TO from elsewhere than the client's registered address");
	if (hip_relay_addr_decode(hip_param_content(rx->pkt, p), p->len, &to) < 0 ||
	    (to.protocol != IPPROTO_UDP && to.protocol != 0) ||
	    hip_addr_locator_problem(&to.addr))
		return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "RELAY_TO");
	if (!memcmp(&to.addr, rx->src, sizeof(to.addr)) && to.port == rx->sport)
		return eng_drop(d, rx, HIPD_DROP_RELAY_LOOP, "RELAY_TO names the client");
	if (lacks_nat_mode(rx->pkt))
		return eng_drop(d, rx, HIPD_DROP_MISSING_PARAM, "relayed R1 without NAT_TRAVERSAL_MODE");
	if (relay_src_for(d, &to.addr, to.protocol ? to.port : 0, &src) < 0) {
		d->engine->relay_failed++;
		return eng_drop(d, rx, HIPD_DROP_SEND_FAILED, "no route to RELAY_TO");
	}
	memcpy(out, rx->pkt->buf, rx->pkt->len);
	if (eng_send_direct(d, NULL, out, rx->pkt->len, &src, &to.addr,
			    to.protocol ? to.port : 0) == 0)
		d->engine->relay_forwarded++;
	else
		d->engine->relay_failed++;
	return 0;
}

/* Anyone's packet for a registered client: to the client, with RELAY_FROM
 * and RELAY_HMAC (§4.5 steps 2 and 6, §4.8). */
static int relay_to_client(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha)
{
	uint8_t out[ENG_PKT_BUF];
	int len;

	if (from_client(rx, ha))
		return eng_drop(d, rx, HIPD_DROP_RELAY_LOOP, "the client's own packet");
	if (lacks_nat_mode(rx->pkt))
		return eng_drop(d, rx, HIPD_DROP_MISSING_PARAM, "relayed I2 without NAT_TRAVERSAL_MODE");
	if (rx->pkt->type == HIP_I1) {
		char from[HIP_HIT_STR_LEN], to[HIP_HIT_STR_LEN], a[INET6_ADDRSTRLEN];

		log_ratelimited(&d->engine->reg_log, LOG_INFO, "relay: I1 from %s at %s port %u "
				"to client %s (control relay)",
				hip_hit_to_str(&rx->pkt->hit_sender, from, sizeof(from)),
				hip_addr_to_str(rx->src, a, sizeof(a)), rx->sport,
				hip_hit_to_str(&rx->pkt->hit_receiver, to, sizeof(to)));
	}
	relay_src_learn(d, rx);
	len = relay_forward_build(rx->pkt, rx->src, rx->sport, ha, out, sizeof(out));
	if (len == -ELOOP)
		return eng_drop(d, rx, HIPD_DROP_RELAY_LOOP, "already relayed");
	if (len < 0) {
		d->engine->relay_failed++;
		return eng_drop(d, rx, HIPD_DROP_MALFORMED, "cannot relay");
	}
	if (eng_send_direct(d, NULL, out, (size_t)len, &ha->addr_local, &ha->addr_peer,
			    ha->peer_port) == 0)
		d->engine->relay_forwarded++;
	else
		d->engine->relay_failed++;
	return 0;
}

int eng_relay_forward(struct hipd *d, const struct eng_rx *rx)
{
	struct reg_registrar *r = d->engine->registrar;
	uint64_t now = hipd_now_ns();
	struct hip_ha *ha;

	if (!r)
		return 1;
	/* from a client (it names the peer in RELAY_TO) first: two clients of
	 * ours talk through us in both directions */
	if (hip_packet_find(rx->pkt, HIP_PARAM_RELAY_TO) &&
	    reg_registrar_has(r, &rx->pkt->hit_sender, HIP_REG_RELAY_UDP_HIP, now)) {
		ha = client_ha(d, &rx->pkt->hit_sender);
		if (!ha)
			return eng_drop(d, rx, HIPD_DROP_NO_ASSOCIATION, "relay client unknown");
		return relay_to_peer(d, rx, ha);
	}
	if (reg_registrar_has(r, &rx->pkt->hit_receiver, HIP_REG_RELAY_UDP_HIP, now)) {
		ha = client_ha(d, &rx->pkt->hit_receiver);
		if (!ha) {
			d->engine->relay_failed++;
			return eng_drop(d, rx, HIPD_DROP_NO_ASSOCIATION, "relay client unreachable");
		}
		return relay_to_client(d, rx, ha);
	}
	/* not for a client of ours: a rendezvous server may still relay an I1
	 * or UPDATE (rvs.c); anything else for a stranger is counted here */
	if (eng_u8_in(d->engine->reg_info.type, d->engine->reg_info.n, HIP_REG_RELAY_UDP_HIP) &&
	    (!eng_u8_in(d->engine->reg_info.type, d->engine->reg_info.n, HIP_REG_RENDEZVOUS) ||
	     (rx->pkt->type != HIP_I1 && rx->pkt->type != HIP_UPDATE)))
		return eng_drop(d, rx, HIPD_DROP_RELAY_UNREGISTERED, "no relay registration");
	return 1;
}

/* ---- the client ------------------------------------------------------------ */

int eng_relay_accept(struct hipd *d, const struct eng_rx *rx, struct hip_relay_addr *from)
{
	struct reg_client *c = d->engine->reg_client;
	struct reg_srv *s = c ? reg_client_find_addr(c, rx->src) : NULL;
	struct hip_ha *ha = s ? hadb_find_peer(d->hadb, &s->hit) : NULL;
	int ret;

	/* §4.5 step 3: a relayed packet whose RELAY_HMAC does not verify with
	 * the server it came from is dropped silently */
	ret = ha ? relay_check(rx->pkt, ha, from) : -ENOKEY;
	if (ret < 0)
		return eng_drop(d, rx, HIPD_DROP_RELAY_BAD_HMAC, ret == -ENOKEY ?
				"RELAY_FROM from no relay server of ours" : "RELAY_FROM or RELAY_HMAC");
	/* §7.8 of RFC 9028 (5770 §5.9): RVS_HMAC with a relay is refused */
	if (hip_packet_find(rx->pkt, HIP_PARAM_RVS_HMAC))
		return eng_drop(d, rx, HIPD_DROP_RELAY_LOOP, "RVS_HMAC through a relay");
	if (hip_addr_locator_problem(&from->addr))
		return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "RELAY_FROM address");
	d->engine->relay_received++;
	return 0;
}
