/*
 * update_locator.c - mobility (RFC 8046) and multihoming (RFC 8047):
 * LOCATOR_SET out and in, the peer address check, moving the SAs.
 *
 * Readdress (RFC 8046 §5.2; A-9, M-01 - M-03):
 *   MN -> CN  UPDATE(ESP_INFO{old=new=SPI in}, LOCATOR_SET{type 1, P}, SEQ)
 *   CN -> MN  UPDATE(ESP_INFO{old=new}, SEQ, ACK, ECHO_REQUEST_SIGNED), to
 *             the new address
 *   MN -> CN  UPDATE(ACK, ECHO_RESPONSE_SIGNED)
 * The MN moves its SAs at once (ESP is found by SPI, §3.1.2). The CN keeps
 * sending to the old address until the echo comes back (D-3). If the MN
 * moved to the other address family, the CN moves its inbound SA as soon
 * as the UPDATE is verified: the kernel finds an inbound SA by (our
 * address, SPI), and the MN's ESP already comes to our other address.
 *
 * Credit-based authorization (RFC 8046 §3.3.2, §5.6): our credit for an
 * UNVERIFIED address is always 0, the simplest choice the RFC allows: not
 * one data packet goes to an address before its check succeeds, so a peer
 * cannot aim our traffic at a third party at all. The cost is that data
 * towards the MN waits one round trip (the check) after a move.
 *
 * Behind a NAT (RFC 9028 §4.7.1, UDP-ENCAPSULATION): an UPDATE over UDP
 * whose source address is none of its locators was translated; the
 * locators (private addresses) are not reachable from here, so the
 * source address and port seen are the locator checked and used.
 *
 * ICE-HIP-UDP associations (nat_mode 3) move by an ICE restart instead
 * (RFC 9028 §4.9, update_ice.c): our LOCATOR_SET lists host candidates
 * (type 2), goes to the peer directly and through the relays we know, and
 * the checks find the new pair.
 *
 * Multihoming: every announceable own locator is listed as a type 1
 * locator on our inbound SPI, the one in use preferred. Peer locators are
 * kept (at most UPD_PEER_LOC_MAX); only the preferred one is checked and
 * used. A second SA pair per association (ESP_INFO OLD 0) is not supported.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "hit.h"
#include "net/net.h"
#include "base/base.h"
#include "update_int.h"
#include "engine/exchange/exchange.h"

static int addr_family(const struct hip_addr *a)
{
	return hip_addr_is_v4(a) ? AF_INET : AF_INET6;
}

static bool addr_eq(const struct hip_addr *a, const struct hip_addr *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

const struct upd_peer_loc *upd_peer_loc_find(const struct hip_ha *ha,
					     const struct hip_addr *addr)
{
	const struct hip_update *u = ha->upd;
	unsigned i;

	for (i = 0; u && i < u->n_loc; i++)
		if (addr_eq(&u->loc[i].addr, addr))
			return &u->loc[i];
	return NULL;
}

static bool upd_peer_loc_find_in(const struct upd_peer_loc *l, unsigned n,
				 const struct hip_addr *addr)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (addr_eq(&l[i].addr, addr))
			return true;
	return false;
}

static bool addr_in(const struct hip_addr *a, int n, const struct hip_addr *addr)
{
	int i;

	for (i = 0; i < n; i++)
		if (addr_eq(&a[i], addr))
			return true;
	return false;
}

static void gratuitous_esp_info(const struct hip_ha *ha, struct hip_esp_info *ei)
{
	ei->keymat_index = ha->keymat_index;   /* the index in use */
	ei->old_spi = ha->spi_in;
	ei->new_spi = ha->spi_in;
}

/* Where to send from local: a peer address of its family that the routing
 * table reaches from local itself, else one it reaches at all, else any.
 * Candidates: the address in use, the peer's announced locators (verified
 * first), the hosts mapping. */
int upd_peer_addr_for(struct hipd *d, struct hip_ha *ha, const struct hip_addr *local,
		      struct hip_addr *out)
{
	struct hip_update *u = ha->upd;
	struct hip_addr cand[1 + UPD_PEER_LOC_MAX + 8], src;
	int fam = addr_family(local), i, n = 0, m, best = -1, pass;

	cand[n++] = ha->addr_peer;
	for (pass = 0; u && pass < 2; pass++)
		for (i = 0; i < (int)u->n_loc; i++)
			if ((u->loc[i].state == UPD_LOC_ACTIVE) == (pass == 0))
				cand[n++] = u->loc[i].addr;
	m = eng_peer_locators(d, &ha->hit_peer, cand + n, 8);
	n += m > 0 ? m : 0;
	for (i = 0; i < n; i++) {
		if (addr_family(&cand[i]) != fam)
			continue;
		if (eng_pick_source(d, &cand[i], &src) == 0) {
			if (addr_eq(&src, local)) {
				best = i;
				break;
			}
			if (best < 0 || eng_pick_source(d, &cand[best], &src) < 0)
				best = i;
		} else if (best < 0) {
			best = i;
		}
	}
	if (best < 0)
		return -ENETUNREACH;
	*out = cand[best];
	return 0;
}

/* Copies of our ICE readdress to the relays that may reach the peer
 * (§4.9, §4.5): the one the base exchange came through and the addresses
 * mapped for the peer (the one we reached it by). Without RELAY_TO: a
 * server relays it to its client with RELAY_FROM, how it saw us. */
static void ice_readdress_relayed(struct hipd *d, struct hip_ha *ha)
{
	static const struct hip_addr zero;
	struct hip_update *u = ha->upd;
	struct hip_addr to[5];
	int n, i;

	n = eng_peer_locators(d, &ha->hit_peer, to, 4);
	if (n < 0)
		n = 0;
	if (!addr_eq(&ha->relay_addr, &zero))
		to[n++] = ha->relay_addr;
	for (i = 0; i < n; i++) {
		if (addr_eq(&to[i], &ha->addr_peer) || addr_family(&to[i]) != addr_family(&u->out_src) ||
		    addr_in(to, i, &to[i]))
			continue;
		(void)eng_send_port(d, ha, u->out_pkt, u->out_len, &u->out_src, &to[i],
				    (uint16_t)d->conf.nat_port);
		d->stats->upd_via_rvs++;
	}
}

/* Our ICE readdress was ACKed (update_out.c) and nothing moved since:
 * upd_kick() asks for the re-announce, which is our restart. */
static bool ice_restart_due(struct hipd *d, struct hip_ha *ha, const struct hip_addr *new_local)
{
	struct hip_update *u = ha->upd;

	if (!u->ice_restart_due || !addr_eq(new_local, &ha->addr_local) ||
	    (d->locset && u->loc_gen != locset_generation(d->locset)))
		return false;
	u->ice_restart_due = false;
	u->reannounce = false;
	return true;
}

/* RFC 9028 §4.9: we moved on an ICE association. ESP leaves from the new
 * address at once (to the pair in use, which may still work); the peer
 * gets our host candidates and restarts its checks, and our own restart
 * follows its ACK (update_out.c). */
static int ice_readdress(struct hipd *d, struct hip_ha *ha, const struct hip_addr *new_local)
{
	struct hip_update *u = ha->upd;
	struct hip_locator_set *ls;
	struct upd_msg m = { 0 };
	int ret;

	if (ice_restart_due(d, ha, new_local))
		return upd_ice_restart(d, ha, NULL, NULL, "we moved");
	u->ice_restart_due = false;
	if (addr_family(new_local) != addr_family(&ha->addr_peer))
		return -EAFNOSUPPORT;      /* checks are of one family (update_ice.c) */
	if (!addr_eq(new_local, &ha->addr_local)) {
		ha->addr_local = *new_local;
		ret = eng_dp_move(d, ha);
		if (ret < 0)
			return ret;
	}
	if (u->out_kind == UPD_OUT_REKEY || u->out_kind == UPD_OUT_REKEY_REPLY) {
		u->out_src = ha->addr_local;
		u->reannounce = true;
		return 0;
	}
	u->verify_queued = false;
	u->ice_restart_on_ack = false;
	if (u->out_kind != UPD_OUT_NONE)
		upd_out_done(d, ha);   /* superseded by this LOCATOR_SET */
	u->reannounce = false;
	ls = calloc(1, sizeof(*ls));
	if (!ls)
		return -ENOMEM;
	upd_ice_host_candidates(d, ha, ls);
	m.locs = ls;
	ret = upd_send_new(d, ha, UPD_OUT_READDRESS, &m, &ha->addr_local, &ha->addr_peer);
	free(ls);
	if (ret < 0)
		return ret;
	u->ice_restart_on_ack = true;
	ice_readdress_relayed(d, ha);
	/* its retransmissions go through our relay too (update.c, as to a
	 * rendezvous server): the peer may have moved as well */
	if (!u->have_peer_rvs && !addr_eq(&ha->relay_addr, &(struct hip_addr){ 0 }))
		upd_peer_rvs_set(ha, &ha->relay_addr);
	d->stats->upd_readdressed++;
	if (d->locset)
		u->loc_gen = locset_generation(d->locset);
	return 0;
}

int upd_readdress(struct hipd *d, struct hip_ha *ha, const struct hip_addr *new_local)
{
	struct hip_update *u = upd_get(ha);
	struct hip_locator_set *ls;
	struct hip_addr peer, own[HIP_LOCATORS_MAX];
	struct hip_esp_info ei;
	struct upd_msg m = { 0 };
	size_t i, n = 0;
	bool moved;
	int ret;

	if (!u)
		return -ENOMEM;
	if (upd_ice_active(ha))
		return ice_readdress(d, ha, new_local);
	ret = upd_peer_addr_for(d, ha, new_local, &peer);
	if (ret < 0)
		return ret;
	moved = !addr_eq(new_local, &ha->addr_local) || !addr_eq(&peer, &ha->addr_peer);
	if (moved) {
		/* ESP follows at once: our SAs use the new locators (§3.2.1). */
		ha->addr_local = *new_local;
		ha->addr_peer = peer;
		/* moved behind a NAT: UDP from here on (RFC 9028 §4.7.1 keeps it
		 * for the rest of the association) */
		if (!ha->peer_port)
			ha->peer_port = eng_nat_port_for(d, new_local, &peer);
		ret = eng_dp_move(d, ha);
		if (ret < 0)
			return ret;
	}
	if (u->out_kind == UPD_OUT_REKEY || u->out_kind == UPD_OUT_REKEY_REPLY) {
		/* §6.8: nothing else while a rekey is outstanding; its
		 * retransmissions leave from the new address. */
		u->out_src = ha->addr_local;
		u->out_dst = ha->addr_peer;
		u->reannounce = true;
		return 0;
	}
	if (u->out_kind == UPD_OUT_VERIFY)
		u->verify_queued = true;
	if (u->out_kind != UPD_OUT_NONE)
		upd_out_done(d, ha);   /* superseded by this LOCATOR_SET */
	u->reannounce = false;
	ls = calloc(1, sizeof(*ls));
	if (!ls)
		return -ENOMEM;
	if (d->locset)
		n = locset_list(d->locset, own, HIP_LOCATORS_MAX);
	/* The one in use first and preferred, then the others (RFC 8047). */
	ls->loc[ls->n++].addr = ha->addr_local;
	for (i = 0; i < n && ls->n < HIP_LOCATORS_MAX; i++)
		if (!addr_eq(&own[i], &ha->addr_local))
			ls->loc[ls->n++].addr = own[i];
	for (i = 0; i < ls->n; i++) {
		ls->loc[i].traffic_type = HIP_LOC_TRAFFIC_BOTH;
		ls->loc[i].locator_type = HIP_LOC_TYPE_ESP_SPI;
		ls->loc[i].preferred = i == 0;
		ls->loc[i].lifetime = UPD_LIFETIME_S;
		ls->loc[i].spi = ha->spi_in;
	}
	gratuitous_esp_info(ha, &ei);
	m.esp_info = &ei;
	m.locs = ls;
	ret = upd_send_new(d, ha, UPD_OUT_READDRESS, &m, &ha->addr_local, &ha->addr_peer);
	free(ls);
	if (ret == 0) {
		d->stats->upd_readdressed++;
		if (d->locset)
			u->loc_gen = locset_generation(d->locset);
	}
	return ret;
}

/* A locator we can use at all: not one of our own, not unspecified. */
static bool locator_usable(struct hipd *d, const struct hip_ha *ha, const struct hip_addr *a)
{
	static const struct hip_addr zero;

	if (addr_eq(a, &zero) || addr_eq(a, &ha->addr_local))
		return false;
	return !d->locset || !locset_has(d->locset, a);
}

/* Over UDP, from an address none of the locators names, not relayed: a
 * NAT translated it (RFC 9028 §4.7.1). */
static bool behind_nat(const struct eng_rx *rx, const struct hip_locator_set *ls, uint32_t spi)
{
	unsigned i;

	if (!rx->sport || rx->relay || rx->via_rvs)
		return false;
	for (i = 0; i < ls->n; i++)
		if (addr_eq(&ls->loc[i].addr, rx->src) &&
		    (ls->loc[i].locator_type != HIP_LOC_TYPE_ESP_SPI || ls->loc[i].spi == spi))
			return false;
	return true;
}

/* The NAT's address is the one locator we can reach: the set becomes it
 * (preferred, on the peer's SPI), checked at the port seen. */
static void nat_seen(const struct eng_rx *rx, struct hip_locator_set *ls, uint32_t spi)
{
	struct hip_locator *l = &ls->loc[0];
	char a[INET6_ADDRSTRLEN];

	memset(l, 0, sizeof(*l));
	l->traffic_type = HIP_LOC_TRAFFIC_BOTH;
	l->locator_type = HIP_LOC_TYPE_ESP_SPI;
	l->preferred = true;
	l->lifetime = UPD_LIFETIME_S;
	l->spi = spi;
	l->addr = *rx->src;
	ls->n = 1;
	log_info("LOCATOR_SET over UDP from %s, none of its locators: behind a NAT, that "
		 "address is checked", hip_addr_to_str(rx->src, a, sizeof(a)));
}

/* RFC 8046 §5.3: the set is complete and replaces the earlier one. */
int upd_locator_rx(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha,
		   uint32_t spi, bool *check)
{
	struct hip_update *u = upd_get(ha);
	const struct hip_param_ref *p = hip_packet_find(rx->pkt, HIP_PARAM_LOCATOR_SET);
	struct upd_peer_loc next[UPD_PEER_LOC_MAX];
	const struct upd_peer_loc *old;
	struct hip_locator_set *ls;
	const struct hip_addr *pref = NULL;
	unsigned i, n = 0;
	int ret;

	*check = false;
	if (!u)
		return -ENOMEM;
	/* relayed (RFC 9028 §4.5): our reply goes back through the relay too */
	u->rx_relay_port = rx->relay ? rx->relay_port : 0;
	if (rx->relay)
		u->rx_relay = *rx->relay;
	if (!p)
		return 0;
	ls = calloc(1, sizeof(*ls));
	if (!ls)
		return -ENOMEM;
	ret = hip_locator_set_decode(hip_param_content(rx->pkt, p), p->len, ls);
	if (ret == -ENOTSUP) {
		eng_notify(d, rx, HIP_NOTIFY_LOCATOR_TYPE_UNSUPPORTED, NULL, 0);
		ret = eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "LOCATOR_SET type");
		goto out;
	}
	if (ret < 0) {
		ret = eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "LOCATOR_SET");
		goto out;
	}
	if (upd_ice_active(ha)) {
		ret = upd_ice_locator_rx(d, rx, ha, ls);   /* §4.9: an ICE restart */
		goto out;
	}
	if (behind_nat(rx, ls, spi))
		nat_seen(rx, ls, spi);
	for (i = 0; i < ls->n && n < UPD_PEER_LOC_MAX; i++) {
		const struct hip_locator *l = &ls->loc[i];

		/* Type 1 on our SA, or a bare address (type 0). */
		if (l->locator_type == HIP_LOC_TYPE_ESP_SPI ? l->spi != spi
		    : l->locator_type != HIP_LOC_TYPE_ADDR)
			continue;
		if (!locator_usable(d, ha, &l->addr) || upd_peer_loc_find_in(next, n, &l->addr))
			continue;
		next[n].addr = l->addr;
		next[n].spi = l->locator_type == HIP_LOC_TYPE_ESP_SPI ? l->spi : 0;
		next[n].preferred = l->preferred;
		/* §5.1: ACTIVE stays; DEPRECATED and new ones are UNVERIFIED. */
		old = upd_peer_loc_find(ha, &l->addr);
		/* over UDP (RFC 9028 §5.1): the port this UPDATE came from for
		 * its source address, the one known, else the NAT port (a peer
		 * on a public address listens there) */
		next[n].port = !(ha->peer_port || rx->sport) ? 0 :
			       ha->peer_port && addr_eq(&l->addr, &ha->addr_peer) ?
			       ha->peer_port : addr_eq(&l->addr, rx->src) ? rx->sport :
			       old && old->port ? old->port : (uint16_t)d->conf.nat_port;
		if (addr_eq(&l->addr, &ha->addr_peer))
			next[n].state = UPD_LOC_ACTIVE;
		else
			next[n].state = old && old->state == UPD_LOC_ACTIVE ? UPD_LOC_ACTIVE
									    : UPD_LOC_UNVERIFIED;
		if (l->preferred && !pref)
			pref = &next[n].addr;
		n++;
	}
	if (i < ls->n)
		log_info("LOCATOR_SET: %u locators, %u kept", ls->n, n);
	/* The address in use stays until a new one is verified (DEPRECATED). */
	if (!upd_peer_loc_find_in(next, n, &ha->addr_peer) && n < UPD_PEER_LOC_MAX) {
		next[n].addr = ha->addr_peer;
		next[n].port = ha->peer_port;
		next[n].spi = spi;
		next[n].state = UPD_LOC_DEPRECATED;
		next[n].preferred = false;
		n++;
	}
	memcpy(u->loc, next, n * sizeof(next[0]));
	u->n_loc = n;
	ret = 0;
	if (!pref || addr_eq(pref, &ha->addr_peer))
		goto out;
	old = upd_peer_loc_find(ha, pref);
	if (old && old->state == UPD_LOC_ACTIVE) {
		/* Verified before: use it now (RFC 8047 failover). */
		ha->addr_peer = *pref;
		ha->peer_port = old->port;
		ret = eng_dp_move(d, ha);
		goto out;
	}
	u->verify_addr = *pref;
	u->verify_port = upd_peer_loc_find(ha, pref)->port;
	*check = true;
	/* The peer moved to the other address family and reaches us there
	 * (this UPDATE did): its ESP follows at once (the MN moves its SAs at
	 * once), to an address our inbound SA is not on. Receiving there
	 * gives the peer no credit, so the inbound SA moves now rather than
	 * after the check (a round trip less of lost ESP); our outbound SA
	 * keeps going to the old address until the check succeeds. */
	if (addr_family(rx->dst) != addr_family(&ha->dp_loc_local) && addr_eq(rx->src, pref))
		(void)eng_dp_move_inbound(d, ha, rx->dst, rx->src);
out:
	free(ls);
	return ret;
}

/* Our source towards the address to check: where the peer reached us if
 * the family fits, else our current locator, else the routing table. */
static int verify_source(struct hipd *d, struct hip_ha *ha, const struct eng_rx *rx,
			 struct hip_addr *src)
{
	int fam = addr_family(&ha->upd->verify_addr);

	if (rx && rx->dst && addr_family(rx->dst) == fam) {
		*src = *rx->dst;
		return 0;
	}
	if (addr_family(&ha->addr_local) == fam) {
		*src = ha->addr_local;
		return 0;
	}
	return eng_pick_source(d, &ha->upd->verify_addr, src);
}

int upd_verify_start(struct hipd *d, struct hip_ha *ha, struct upd_msg *reply,
		     const struct eng_rx *rx)
{
	struct hip_update *u = upd_get(ha);
	struct upd_msg plain = { 0 };
	struct upd_msg *m = reply ? reply : &plain;
	struct hip_esp_info ei;
	struct hip_addr src;
	int ret;

	if (!u)
		return -ENOMEM;
	u->verify_queued = false;
	ret = verify_source(d, ha, rx, &src);
	if (ret == 0)
		ret = hip_random(u->nonce, sizeof(u->nonce));
	if (ret < 0) {
		/* Cannot check it: the peer still gets its ACK. */
		if (reply)
			(void)upd_send_reply(d, ha, m, rx->dst, rx->src);
		return ret;
	}
	gratuitous_esp_info(ha, &ei);
	m->esp_info = &ei;
	m->echo_req = u->nonce;
	m->echo_req_len = sizeof(u->nonce);
	return upd_send_new(d, ha, UPD_OUT_VERIFY, m, &src, &u->verify_addr);
}

/* The ACK of our check: it must carry ECHO_RESPONSE_SIGNED with our nonce
 * (D-3: an unsigned response does not count). */
int upd_verify_rx(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha)
{
	struct hip_update *u = ha->upd;
	const struct hip_param_ref *p;
	struct hip_opaque echo;
	char a[INET6_ADDRSTRLEN];
	unsigned i;

	p = hip_packet_find(rx->pkt, HIP_PARAM_ECHO_RESPONSE_SIGNED);
	if (!p)
		return eng_drop(d, rx, HIPD_DROP_BAD_ECHO, "no ECHO_RESPONSE_SIGNED");
	if (hip_echo_decode(hip_param_content(rx->pkt, p), p->len, &echo) < 0 ||
	    echo.len != sizeof(u->nonce) || !hip_memeq_ct(echo.data, u->nonce, sizeof(u->nonce)))
		return eng_drop(d, rx, HIPD_DROP_BAD_ECHO, "address check nonce");
	/* ACTIVE; the old address goes (RFC 8046 §5.4). */
	for (i = 0; i < u->n_loc; i++) {
		if (addr_eq(&u->loc[i].addr, &u->verify_addr))
			u->loc[i].state = UPD_LOC_ACTIVE;
		else if (addr_eq(&u->loc[i].addr, &ha->addr_peer))
			u->loc[i].state = UPD_LOC_DEPRECATED;
	}
	ha->addr_peer = u->verify_addr;
	ha->addr_local = u->out_src;
	ha->peer_port = u->verify_port;   /* over UDP (or now UDP): its port too */
	hip_wipe(u->nonce, sizeof(u->nonce));
	d->stats->upd_verified++;
	log_info("peer locator %s verified: ESP moved there",
		 hip_addr_to_str(&ha->addr_peer, a, sizeof(a)));
	return eng_dp_move(d, ha);
}
