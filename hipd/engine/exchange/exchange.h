/*
 * exchange.h - the public face of engine/exchange/: the handlers of the
 * base exchange (RFC 7401 §6.6-6.10), CLOSE (§6.14-6.15), NOTIFY (§6.13)
 * and the association timer's meaning (§4.4.1), which the dispatcher
 * (engine/fsm.c) calls from its (packet type, state) table; NOTIFY
 * output; the Responder's puzzle difficulty.
 *
 * Handler contract: engine/engine_int.h.
 */
#ifndef HIPD_EXCHANGE_H
#define HIPD_EXCHANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine_int.h"

/* ---- bex_init.c / bex_r1.c: Initiator ------------------------------ */

int act_send_i1(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
/* I1 to the peer's locators (parallel: to up to 3 at once, §6.6.1). */
int eng_send_i1(struct hipd *d, struct hip_ha *ha, bool parallel);
/* An opportunistic I1 (NULL receiver HIT) from local to dst (D-16). */
int eng_send_i1_opportunistic(struct hipd *d, const struct hidb_entry *local,
			      const struct hip_addr *dst);
int act_process_r1(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);

/* ---- bex_opp.c: opportunistic mode, Initiator (§4.1.8, D-27) ------- */

/* Start (or find under way) an opportunistic exchange with addr. known
 * receives its pinned HIT (zero if none). 0 also when an association
 * with the pinned HIT is up already; -EPERM not in opportunistic_peers,
 * -EINVAL not a usable address, -EBUSY too many under way. */
int eng_opp_trigger(struct hipd *d, const struct hip_addr *addr, struct hip_hit *known);
/* fsm.c: an R1 for no association of ours answering our opportunistic
 * I1s: the association it is processed in, or NULL (not ours, or
 * refused: another HIT than the address's pin). _done after processing. */
struct hip_ha *eng_opp_r1(struct hipd *d, const struct eng_rx *rx);
void eng_opp_r1_done(struct hipd *d, const struct eng_rx *rx);
/* fsm.c, after an R2: ha is up; if an opportunistic exchange made it, pin. */
void eng_opp_established(struct hipd *d, const struct hip_ha *ha);
int eng_opp_start(struct hipd *d);
void eng_opp_stop(struct hipd *d);
/* Remove addr's pin (and the mapping it made); was = its HIT. -ENOENT. */
int eng_opp_unpin(struct hipd *d, const struct hip_addr *addr, struct hip_hit *was);
struct eng_opp_counters {
	uint64_t started, learnt, confirmed, refused, failed, under_way;
};
/* The pins (NULL before start) and the counters. */
const struct known_hosts *eng_opp_pins(const struct hipd *d, struct eng_opp_counters *c);
int act_process_r1_newer(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int act_process_r2(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);

/* ---- bex_resp.c / bex_i2.c: Responder ------------------------------ */

int act_send_r1(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int act_i1_crossed(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int act_process_i2(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int act_i2_crossed(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int act_resend_r2(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int act_replace_i2(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int act_confirm(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);

/* ---- bex_nat.c: NAT traversal in the base exchange (RFC 9028) ------ */

/* The mode for our I2 among the R1's offer (§4.3, §4.7.2): 0 = none. */
uint16_t bex_nat_mode_choose(const struct hip_u16_list *offered, bool via_relay);
/* RFC 9028 §4.4: the Ta of the connectivity checks, the higher of ours
 * (hipd.conf nat_ta_ms) and the peer's TRANSACTION_PACING in pkt (50 ms
 * without one; a peer's offer counts up to HIP_NAT_TA_MAX_MS). 0, or
 * -EBADMSG when the parameter is malformed. */
int bex_nat_ta(const struct hipd *d, const struct hip_packet *pkt, uint16_t *ta);
/* ENCRYPTED content of our ICE-HIP-UDP candidates (a LOCATOR_SET, §5.7)
 * followed by tail (the I2's HOST_ID TLV, or nothing), sealed with ha's
 * outgoing HIP_CIPHER key. */
int bex_candidates_seal(struct hipd *d, const struct hip_ha *ha, const struct hip_addr *local,
			const struct hip_relay_addr *seen, const uint8_t *tail, size_t tail_len,
			uint8_t *enc, size_t cap, size_t *enc_len);
/* The peer's candidates from pkt's ENCRYPTED (ha's incoming key):
 * -ENOENT no ENCRYPTED or no LOCATOR_SET in it, -EBADMSG. */
int bex_candidates_open(const struct hip_ha *ha, const struct hip_packet *pkt,
			struct hip_locator_set *out);
/* Inside decrypted ENCRYPTED content: the parameter of type (LOCATOR_SET
 * or HOST_ID): its content; -ENOENT. */
int bex_inner_find(const uint8_t *plain, size_t n, uint16_t type, const uint8_t **content,
		   size_t *len);

/* ---- close.c ------------------------------------------------------- */

int act_send_close(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int act_process_close(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int act_resend_close_ack(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int act_process_close_ack(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
/* CLOSING retransmission; false once UAL + MSL has passed. */
bool eng_close_may_retransmit(const struct hipd *d, const struct hip_ha *ha);

/* ---- timeout.c: the association timer ------------------------------ */

int act_retransmit(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int act_expire(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);

/* ---- notify.c ------------------------------------------------------ */

/* NOTIFY to rx's sender (only call after the puzzle was verified or inside
 * an association); rate-limited per source. */
void eng_notify(struct hipd *d, const struct eng_rx *rx, uint16_t type,
		const void *data, size_t len);
int act_process_notify(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
/* A signed NOTIFY of type to ha's peer over the association's path (the
 * NAT keepalive, RFC 9028 §5.3). 0 or the send's error. */
int eng_notify_send(struct hipd *d, struct hip_ha *ha, uint16_t type, const void *data,
		    size_t len);
const char *eng_notify_name(uint16_t type);

/* ---- puzzle_k.c: the Responder's puzzle difficulty ------------------ */

/* Start the 1 s tick (0, or -ENOMEM); stop it. */
int eng_puzzle_k_start(struct hipd *d);
void eng_puzzle_k_stop(struct hipd *d);
/* hipconf set puzzle K, or a reload: the new idle difficulty, at once. */
void eng_puzzle_k_set(struct hipd *d, unsigned k);
/* Called for every I1 answered (the tick's input). */
void eng_count_i1(struct hipd *d);
/* Called for every I2 that failed after its puzzle was verified (the DH
 * work done): load too, ENG_I2_LOAD_WEIGHT I1s' worth (puzzle_k.c). */
void eng_count_bad_i2(struct hipd *d);

#endif
