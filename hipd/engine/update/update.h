/*
 * update.h - UPDATE (RFC 7401 §6.11-6.12): mobility (RFC 8046),
 * multihoming (RFC 8047) and rekeying (RFC 7402 §6): the public face of
 * engine/update/ (docs/requirements.md M-*, E-*; docs/decisions.md).
 *
 * The received-packet side is reached through the dispatcher's table
 * (engine/fsm.c: act_process_update); the rest are the entry points for
 * local events and the engine's hooks.
 */
#ifndef HIPD_UPDATE_H
#define HIPD_UPDATE_H

#include <stdbool.h>
#include <stddef.h>

#include "checksum.h"
#include "hit.h"
#include "mobility_ctl.h"
#include "params.h"

struct hipd;
struct hip_ha;
struct eng_rx;

/* The dispatcher's PROCESS_UPDATE: a received UPDATE, or the association's
 * timer in ESTABLISHED (no packet). Handler contract: engine_int.h. */
int act_process_update(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);

/* The host's announceable locators changed (addrwatch.c after a netlink
 * batch, or hipconf add/del/hide locator). For every association in
 * ESTABLISHED (or R2-SENT) whose local locator is gone, move it to the
 * preferred locator (same family first, else the other family) with a
 * LOCATOR_SET UPDATE; where the set only grew, announce the new set
 * (multihoming). Safe to call when nothing changed (no packet is sent). */
void upd_local_addrs_changed(struct hipd *d);

/* The active default route of family (AF_INET / AF_INET6) changed
 * (addrwatch.c; active NULL: none left). Behind a NAT the path is where
 * the default route leads, and no address event tells of a new uplink
 * whose address was already there (RFC 9028 §4.9). Every ICE association
 * of that family re-announces: from the route's preferred source, or an
 * address on its link, or else its own address (the new NAT maps it
 * anew). Direct associations are left alone: their peers see the same
 * address whichever link it leaves by. */
struct defroute_entry;
void upd_default_route_changed(struct hipd *d, int family, const struct defroute_entry *active);

/* The LSI SA pair (docs/decisions.md D-22, update_lsi.c), agreed in the
 * base exchange. upd_lsi_offer: the I2 offers it (LSI_ESP_INFO) when the
 * datapath carries IPv4 and both LSIs are known; upd_lsi_take: the
 * Responder takes the I2's offer (initiator false) or the Initiator the
 * R2's answer (true), keys derived; no parameter: no pair (0), a bad one
 * or other LSIs: no pair (-EINVAL, counted). upd_lsi_answer: the R2's
 * parameter when the pair was taken. upd_lsi_drop: forget the pair (its
 * SAs must be out of the datapath). */
struct hip_builder;
struct hip_packet;
void upd_lsi_offer(struct hipd *d, struct hip_ha *ha, struct hip_builder *b);
int upd_lsi_take(struct hipd *d, struct hip_ha *ha, const struct hip_packet *pkt,
		 bool initiator);
void upd_lsi_answer(struct hipd *d, struct hip_ha *ha, struct hip_builder *b);
void upd_lsi_drop(struct hipd *d, struct hip_ha *ha);

/* hipconf rekey HIT: start a rekey UPDATE (new ESP_INFO, new DH when
 * conf says so). 0 started; -ENOENT no association with peer; -ENOTCONN
 * not ESTABLISHED; -EBUSY an UPDATE is outstanding. */
int upd_rekey_peer(struct hipd *d, const struct hip_hit *peer);

/* RFC 8003 §3.2: send req (a REG_REQUEST) in an UPDATE to ha's peer.
 * -ENOTCONN not ESTABLISHED; -EBUSY an UPDATE is outstanding (try later). */
int upd_reg_request(struct hipd *d, struct hip_ha *ha, const struct hip_reg *req);
/* PEER_PERMISSIONs to our data relay server (its association ha) in an
 * UPDATE of their own; -EBUSY while another UPDATE is out. */
int upd_permit_send(struct hipd *d, struct hip_ha *ha, const struct hip_peer_permission *perms,
		    unsigned n);
/* The data relay servers' pending PEER_PERMISSIONs, now where their
 * association is idle (else the registration tick sends them). */
void upd_relay_esp_flush(struct hipd *d);

/* Forget an association's UPDATE state (timers, cached replies, pending
 * rekey keys); called by hadb/close paths before the association goes. */
void upd_ha_ending(struct hipd *d, struct hip_ha *ha);
/* What the association's UPDATE machinery is doing, for hipconf: "idle",
 * "readdress", "address check" or "rekey". */
const char *upd_activity(const struct hip_ha *ha);
/* Its memory only (hadb.c, when an association is destroyed). */
void upd_state_free(struct hip_ha *ha);
/* The datapath's soft expiry of one of ha's SAs: rekey now, or when the
 * outstanding UPDATE is done (RFC 7402 §6.8). */
void upd_rekey_soft_expiry(struct hipd *d, struct hip_ha *ha);

/* Peer liveness (RFC 7401 §4.4.1 / RFC 8046 §5.4's echo; docs/decisions.md
 * D-13): one look at ha with the datapath's packet counts of its SAs;
 * starts a probe (UPDATE with ECHO_REQUEST_SIGNED) when we have been
 * sending for timeout_ns without hearing anything. */
void upd_liveness_check(struct hipd *d, struct hip_ha *ha, uint64_t out_pkts, uint64_t in_pkts,
			uint64_t now, uint64_t timeout_ns);
/* Probe ha now (an ICMP said the peer has no SA for our ESP, D-14):
 * 0, -EBUSY (not ESTABLISHED, or an UPDATE is outstanding) or -errno. */
int upd_liveness_probe_now(struct hipd *d, struct hip_ha *ha);
/* An ICMP Parameter Problem quoting hip (len bytes, maybe cut short), sent
 * to ha's peer: if it is our liveness probe, with its nonce, the peer has
 * no association; ha is freed (ENG_HANDLED). -ENOENT if it is not. */
int upd_probe_icmp(struct hipd *d, struct hip_ha *ha, const uint8_t *hip, size_t len);
/* "ok", "unanswered" (we send, nothing came back yet) or "probing". */
const char *upd_liveness(const struct hip_ha *ha);

/* The peer's rendezvous server (VIA_RVS of its R1): our readdress goes
 * there too when the peer does not answer (RFC 8046 §3.2.3). */
void upd_peer_rvs_set(struct hip_ha *ha, const struct hip_addr *rvs);

/* ICE-HIP-UDP (RFC 9028 §4.6): our candidates for the ENCRYPTED
 * LOCATOR_SET of an I2 or R2 (local: our address of the exchange; seen:
 * how the relay saw us, RELAY_TO of the R1, or NULL); then the checks with the peer's candidates, after
 * which the association gets its SAs at the nominated pair. */
void upd_ice_candidates(struct hipd *d, const struct hip_addr *local, uint32_t spi_in,
			const struct hip_relay_addr *seen, struct hip_locator_set *out);
int upd_ice_start(struct hipd *d, struct hip_ha *ha, const struct hip_locator_set *peer);
/* "checking", "nominating", "completed", "failed"; NULL without checks. */
const char *upd_ice_state(const struct hip_ha *ha);
/* The checklist as it stands (hipconf show associations): up to max pairs
 * (it holds UPD_ICE_PAIRS_MAX), highest priority first; how many were
 * written. */
enum { UPD_ICE_PAIRS_MAX = 8 };
struct upd_ice_pair_info {
	struct hip_addr local, peer;       /* our base, the peer's candidate */
	uint16_t port;                     /* the candidate's UDP port */
	const char *kind;                  /* "host", "server-reflexive", "peer-reflexive" */
	const char *state;                 /* "waiting", "in-progress", "succeeded", "failed" */
	unsigned checks;                   /* checks sent on it */
	bool nominated;
};
size_t upd_ice_pairs(const struct hip_ha *ha, struct upd_ice_pair_info *out, size_t max);

#endif
