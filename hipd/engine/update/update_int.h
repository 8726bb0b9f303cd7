/*
 * update_int.h - what engine/update/ files share: the per-association UPDATE
 * state (RFC 7401 §6.11-6.12, RFC 8046, RFC 8047, RFC 7402 §6) and the
 * entry points the engine and the in-process tests call.
 *
 * ha->upd is allocated when the base exchange derives its keys (the Kij is
 * kept for rekeys without DIFFIE_HELLMAN, RFC 7402 §6.9) or at the first
 * UPDATE, and freed by upd_ha_ending(). Packet buffers inside it are
 * allocated only while needed.
 *
 * Timing: an association in ESTABLISHED has no other timer, so the
 * association's one timer (assoc/ha.c) is the UPDATE retransmission timer and
 * the end of the grace time of an old inbound SA after a rekey; the table
 * maps ESTABLISHED + TIMEOUT to PROCESS_UPDATE, and act_process_update()
 * without a packet is that timer.
 */
#ifndef HIPD_UPDATE_INT_H
#define HIPD_UPDATE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine_int.h"
#include "engine/reg/reg.h"
#include "update.h"

enum upd_consts {
	UPD_RETRY_MAX      = 5,     /* D-1: UPDATE_RETRY_MAX */
	UPD_RTT_INIT_MS    = 250,   /* RTT guess before the first measurement */
	UPD_RETX_MIN_MS    = 50,
	UPD_RETX_MAX_FIRST = 1000,  /* first timeout at most 1 s */
	UPD_PROBE_FIRST_MS = 100,   /* liveness probe: first wait without an RTT */
	UPD_PROBE_MAX_MS   = 1000,  /* ... and every wait at most */
	UPD_WINDOW         = 16,    /* new Update IDs accepted ahead (§6.12.1) */
	UPD_NONCE_LEN      = 16,
	UPD_PEER_LOC_MAX   = 8,     /* peer locators kept (RFC 8047 §6, MH-06) */
	UPD_LIFETIME_S     = 600,   /* announced locator lifetime */
	UPD_REACK_PER_S    = 10,    /* re-ACKs of duplicates per second */
	UPD_OLD_SA_GRACE_MS = 2000, /* old inbound SA kept after a rekey */
	UPD_KEYMAT_MAX     = 255 * HIP_RHASH_MAX, /* RFC 5869 bound */
};

enum upd_loc_state {
	UPD_LOC_UNVERIFIED,
	UPD_LOC_ACTIVE,
	UPD_LOC_DEPRECATED,
};

struct upd_peer_loc {
	struct hip_addr addr;
	uint16_t        port;       /* its UDP port (RFC 9028 §5.1); 0 = IP */
	uint32_t        spi;        /* 0 for a type 0 locator */
	enum upd_loc_state state;
	bool            preferred;
};

enum upd_out_kind {
	UPD_OUT_NONE,
	UPD_OUT_READDRESS,          /* our LOCATOR_SET (we moved / grew) */
	UPD_OUT_VERIFY,             /* our ECHO_REQUEST_SIGNED to a peer locator */
	UPD_OUT_REKEY,              /* our rekey request (message 1) */
	UPD_OUT_REKEY_REPLY,        /* our answer to a rekey (message 2) */
	UPD_OUT_REG,                /* our REG_REQUEST (RFC 8003 §3.2) */
	UPD_OUT_PERMIT,             /* our PEER_PERMISSIONs (RFC 9028 §5.13) */
	UPD_OUT_PROBE,              /* liveness: ECHO_REQUEST_SIGNED (update_live.c) */
};

struct hip_update {
	/* our one outstanding UPDATE (§6.11: retransmitted until ACKed) */
	enum upd_out_kind out_kind;
	uint8_t        *out_pkt;
	size_t          out_len;
	uint32_t        out_id;
	unsigned        out_retx;
	uint64_t        out_sent_ns, out_due_ns;
	struct hip_addr out_src, out_dst;
	uint16_t        out_port;   /* UDP port of out_dst, 0 = IP */
	uint64_t        rtt_ns;     /* from the last ACK of a first send */

	/* the reply to the peer's last new UPDATE, repeated on duplicates
	 * to wherever they come from (update.c upd_reack) */
	uint8_t        *reply_pkt;
	size_t          reply_len;
	uint32_t        reply_id;
	uint16_t        rx_sport;   /* the UDP port of the UPDATE being handled */
	/* the control relay that relayed it (RFC 9028 §4.5), port 0 = none:
	 * the reply goes back that way too (update_locator.c, update_out.c) */
	struct hip_addr rx_relay;
	uint16_t        rx_relay_port;
	/* our ICE readdress (RFC 9028 §4.9): its ACK restarts our checks;
	 * due: ACKed, the restart comes with upd_kick()'s re-announce step */
	bool            ice_restart_on_ack;
	bool            ice_restart_due;
	uint64_t        reack_second;
	unsigned        reack_count;

	/* peer locators (RFC 8046 §5.1) and the address check (§5.4, D-3) */
	struct upd_peer_loc loc[UPD_PEER_LOC_MAX];
	unsigned        n_loc;
	uint8_t         nonce[UPD_NONCE_LEN];
	struct hip_addr verify_addr;
	uint16_t        verify_port;     /* its UDP port, when over UDP */
	bool            verify_queued;   /* check waits for our outstanding UPDATE */
	bool            reannounce;      /* our readdress waits for a rekey */
	uint64_t        loc_gen;         /* locset generation last announced */

	/* rekey (RFC 7402 §6.8-6.10) */
	enum { UPD_REKEY_NONE, UPD_REKEY_INITIATOR, UPD_REKEY_RESPONDER } rekey_role;
	bool            rekey_acked;      /* our request ACKed (answer follows) */
	bool            rekey_wanted;     /* soft expiry while busy: rekey later */
	uint8_t         new_prk[HIP_RHASH_MAX]; /* of the new DH, until the switch */
	bool            have_new_prk;
	uint32_t        new_spi_in, new_spi_out;
	struct hip_dh  *new_dh;
	uint16_t        new_index;        /* KEYMAT index we proposed / used */
	bool            new_keys_ready;
	struct hip_esp_keys new_keys;

	/* liveness (update_live.c): the datapath's packet counts at the last
	 * look, the last time anything came from the peer, the first send
	 * since then that is still unanswered (0 = none), the probe's nonce */
	uint64_t        live_out_pkts, live_in_pkts;
	uint64_t        live_in_ns, live_unanswered_ns;
	uint8_t         live_nonce[UPD_NONCE_LEN];

	/* the peer's rendezvous server (VIA_RVS of its R1): our UPDATEs go
	 * there too when the peer does not answer (RFC 8046 §3.2.3) */
	struct hip_addr peer_rvs;
	bool            have_peer_rvs;

	/* old inbound SA kept for a grace time after a rekey */
	uint32_t        old_spi_in;
	struct hip_addr old_in_dst;
	uint64_t        old_deadline_ns;

};

/* ---- update_out.c: our UPDATEs and replies ------------------------------- */

struct hip_update *upd_get(struct hip_ha *ha);
/* One UPDATE message, built in wire order. NULL / false fields are left out. */
struct upd_msg {
	const struct hip_esp_info *esp_info;
	const struct hip_locator_set *locs;
	bool            has_seq, has_ack;
	uint32_t        seq, ack;
	const struct hip_dh *dh;
	const uint8_t  *echo_req;         /* ECHO_REQUEST_SIGNED */
	size_t          echo_req_len;
	const struct hip_reg *reg_req;     /* REG_REQUEST (RFC 8003 §3.2) */
	const struct reg_answer *reg_ans;  /* REG_RESPONSE / REG_FAILED (§3.3) */
	const struct hip_opaque *echo_resp_signed;
	const struct hip_opaque *echo_resp_unsigned;
	unsigned        n_echo_resp_unsigned;
	/* connectivity checks (RFC 9028 §5.12-5.15) */
	const struct hip_relay_addr *mapped; /* MAPPED_ADDRESS */
	/* PEER_PERMISSIONs to our data relay server (RFC 9028 §5.13) */
	const struct hip_peer_permission *perms;
	unsigned        n_perms;
	bool            has_cand_prio, nominate;
	uint32_t        cand_prio;
	/* VIA_RVS in a reply to an UPDATE a rendezvous server relayed (RFC
	 * 8046 §3.2.3 item 3) */
	const struct hip_addr *via_rvs;
};
int upd_build(struct hip_ha *ha, const struct upd_msg *m, uint8_t *buf, size_t cap);
/* Send m with a new Update ID as our outstanding UPDATE (retransmitted). */
int upd_send_new(struct hipd *d, struct hip_ha *ha, enum upd_out_kind kind,
		 struct upd_msg *m, const struct hip_addr *src, const struct hip_addr *dst);
/* Re-arm the association's timer for the UPDATE deadlines. */
void upd_rearm(struct hipd *d, struct hip_ha *ha);
/* A reply without SEQ (ACK, echo responses), kept for duplicates. */
int upd_send_reply(struct hipd *d, struct hip_ha *ha, const struct upd_msg *m,
		   const struct hip_addr *src, const struct hip_addr *dst);
/* The outstanding UPDATE now goes to dst (port): sent there at once. */
void upd_out_retarget(struct hipd *d, struct hip_ha *ha, const struct hip_addr *dst,
		      uint16_t port);
/* The outstanding UPDATE was ACKed, abandoned or given up. */
void upd_out_done(struct hipd *d, struct hip_ha *ha);
/* Retransmission delay of our UPDATE number n (2·RTT doubling, bounded). */
uint64_t upd_retx_delay_ns(const struct hip_update *u, unsigned n);

/* ---- update.c: received UPDATEs and the timer ---------------------------- */

/* Start queued work (address check, re-announce) once nothing is outstanding. */
void upd_kick(struct hipd *d, struct hip_ha *ha);
/* The peer's Update ID id was accepted (an UPDATE or a connectivity check):
 * it may raise the replay window's upper bound (update.c seq_classify). */
static inline void upd_seq_accepted(struct hip_ha *ha, uint32_t id)
{
	if (!ha->update_id_top_valid || (int32_t)(id - ha->update_id_top) > 0) {
		ha->update_id_top = id;
		ha->update_id_top_valid = true;
	}
}

/* ---- update_locator.c: RFC 8046 / 8047 ------------------------------------ */

/* Readdress ha to new_local (our address changed): move our SAs and send
 * the LOCATOR_SET UPDATE. */
int upd_readdress(struct hipd *d, struct hip_ha *ha, const struct hip_addr *new_local);
/* Received: the LOCATOR_SET part of a new UPDATE. *check set when a
 * locator must be verified. Drops counted. */
int upd_locator_rx(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha,
		   uint32_t spi, bool *check);
/* Our ECHO_REQUEST_SIGNED UPDATE to the address waiting for its check;
 * with reply (ACK and echo responses for rx) when it answers the peer. */
int upd_verify_start(struct hipd *d, struct hip_ha *ha, struct upd_msg *reply,
		     const struct eng_rx *rx);
/* ACK of our check with its echo: the address becomes ACTIVE. */
int upd_verify_rx(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha);
/* The peer address to use from our locator local (its family, routed). */
int upd_peer_addr_for(struct hipd *d, struct hip_ha *ha, const struct hip_addr *local,
		      struct hip_addr *out);
/* The peer's locator state of addr, or NULL. */
const struct upd_peer_loc *upd_peer_loc_find(const struct hip_ha *ha,
					     const struct hip_addr *addr);

/* ---- update_live.c: peer liveness (docs/decisions.md D-13) ---------------- */

/* The ACK of our probe: it must echo our nonce (signed). */
int upd_probe_acked(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha);
/* The probe's retransmissions ran out: the association goes (ENG_HANDLED). */
int upd_probe_failed(struct hipd *d, struct hip_ha *ha);

/* ---- update_ice.c: ICE-HIP-UDP connectivity checks (RFC 9028 §4.6) ------ */

/* The received UPDATE is one of the checks (CANDIDATE_PRIORITY, NOMINATE,
 * or an ACK of one of ours). */
bool upd_ice_owns(const struct hip_ha *ha, const struct eng_rx *rx, const struct hip_ack *ack);
/* A check, its answer or a nomination (MAC and signature verified). */
int upd_ice_rx(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha, const uint32_t *seq,
	       const struct hip_ack *ack);
void upd_ice_free(struct hip_ha *ha);
/* RFC 9028 §4.9: run the checks again. peer: the peer's new candidates
 * (replacing the list), NULL to check the known ones again (we moved);
 * seen: where the peer's UPDATE came from (its server-reflexive address,
 * RELAY_FROM through a relay), or NULL. why: for the log. */
int upd_ice_restart(struct hipd *d, struct hip_ha *ha, const struct hip_locator_set *peer,
		    const struct hip_relay_addr *seen, const char *why);
/* The LOCATOR_SET of the peer's UPDATE on an ICE association: restart the
 * checks unless the pair in use is among its candidates. */
int upd_ice_locator_rx(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha,
		       const struct hip_locator_set *ls);
/* Our LOCATOR_SET after a move: host candidates of our own addresses of
 * the family in use (type 2 locators on our inbound SPI, §5.7). */
void upd_ice_host_candidates(struct hipd *d, const struct hip_ha *ha, struct hip_locator_set *out);
/* An ICE association whose checks are done or running (nat_mode 3). */
bool upd_ice_active(const struct hip_ha *ha);

/* ---- update_rekey.c: RFC 7402 §6 ---------------------------------------- */

/* Start a rekey (message 1). -EBUSY while an UPDATE is outstanding. */
int upd_rekey_start(struct hipd *d, struct hip_ha *ha, bool with_dh);
/* A received ESP_INFO of a new UPDATE with old != new: the peer's rekey
 * request (we answer, message 2) or its answer to ours (we finish and
 * send the ACK, message 3). *replied: the reply (with ACK) was sent. */
int upd_rekey_rx(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha,
		 const struct hip_esp_info *ei, struct upd_msg *reply, bool *replied);
/* Our answer was ACKed (message 3 received): switch outbound. */
void upd_rekey_acked(struct hipd *d, struct hip_ha *ha);
/* Forget a rekey in progress (new SA and DH key). */
void upd_rekey_abort(struct hipd *d, struct hip_ha *ha);
/* Old inbound SA grace time over (or forced): remove it. */
void upd_old_sa_expire(struct hipd *d, struct hip_ha *ha, bool force);
/* KEYMAT[index .. index + len) of the PRK (HKDF-Expand, RFC 5869 §2.3). */
int upd_keymat_expand(const struct hip_ha *ha, const uint8_t *prk, size_t index,
		      uint8_t *out, size_t len);
/* Bytes of KEYMAT one SA pair's ESP keys take (0: unknown suite). */
size_t upd_esp_draw1(const struct hipd *d, const struct hip_ha *ha);

/* One SA pair's ESP keys at index of prk's KEYMAT (RFC 7402 §7). */
int upd_esp_keys_at(const struct hipd *d, const struct hip_ha *ha, const uint8_t *prk,
		    size_t index, struct hip_esp_keys *out);
/* update_lsi.c: a rekey switched the HIT pair to KEYMAT index - draw1 of
 * prk; the LSI pair takes the keys at index, in place on its SPIs. */
void upd_lsi_rekey(struct hipd *d, struct hip_ha *ha, const uint8_t *prk, size_t index);

#endif
