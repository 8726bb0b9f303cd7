/*
 * assoc.h - the engine's tables and what acts on one association (the
 * public face of engine/assoc/): the association table (hadb.h), local
 * identities (hidb.h), R1 cache (r1cache.h), I1 storm filter (i1storm.h),
 * the Initiator's puzzle thread (puzzle_worker.h); an association's life
 * cycle, state and timer (ha.c), drops (drop.c), output and retransmission
 * (retx.c), keys (keys.c), locators (locators.c) and SAs (sa.c).
 * Nothing here calls the dispatcher or a handler: see the hooks in
 * engine/engine_int.h.
 */
#ifndef HIPD_ASSOC_H
#define HIPD_ASSOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "hadb.h"
#include "hidb.h"
#include "hip_crypto.h"
#include "i1storm.h"
#include "params.h"
#include "puzzle_worker.h"
#include "r1cache.h"
#include "state.h"

struct hipd;
struct eng_rx;

/* ---- ha.c: life cycle, state, timer -------------------------------- */

/* Every state change; rejects moves the RFC does not have (-EPERM). */
int eng_ha_set_state(struct hipd *d, struct hip_ha *ha, enum hip_state s);
/* The association's one timer (retransmission, EC, CLOSED, E-FAILED). */
int eng_timer_arm(struct hipd *d, struct hip_ha *ha, uint64_t delay_ns);
void eng_timer_cancel(struct hipd *d, struct hip_ha *ha);
/* Cancel the timer, remove the SAs and free the association. */
void eng_ha_free(struct hipd *d, struct hip_ha *ha);
/* Start a fresh association for the pair (cleared if it existed). */
int eng_ha_get(struct hipd *d, struct hidb_entry *local, const struct hip_hit *peer,
	       struct hip_ha **out);
/* The association an R1 makes when it answers our opportunistic I1s
 * (NULL receiver HIT; RFC 7401 §4.1.8, D-16, D-27): peer is its sender,
 * I1-SENT since t_i1_ns (our first I1), at the I1s' addresses. */
int eng_ha_opportunistic(struct hipd *d, struct hidb_entry *local, const struct hip_hit *peer,
			 const struct hip_addr *addr_local, const struct hip_addr *addr_peer,
			 uint64_t t_i1_ns, struct hip_ha **out);
/* Forget negotiated state (keys, DH, peer HOST_ID, SPI index). */
void eng_ha_reset(struct hipd *d, struct hip_ha *ha);
/* Wipe the ESP keys of ha and of its LSI pair once its SAs are gone (CLOSE
 * sent or received, RFC 7401 §5.3.7, §6.14): nothing installs them again;
 * a new exchange draws new ones. The HIP keys stay: CLOSED still answers a
 * repeated CLOSE with a CLOSE_ACK (HIP_MAC) until it ends. */
void eng_ha_wipe_esp_keys(struct hip_ha *ha);
/* I1/I2 retries exhausted: E-FAILED, then expiry (RFC 7401 Table 9). */
void eng_bex_failed(struct hipd *d, struct hip_ha *ha);
/* The base exchange's negotiated fields (suites, rhash, puzzle I/J, HIP
 * and ESP keys, KEYMAT index) from src to dst: R1 save/restore and the I2's
 * scratch association -> the real one use this one copy. */
void eng_ha_copy_negotiated(struct hip_ha *dst, const struct hip_ha *src);

/* ---- drop.c --------------------------------------------------------- */

/* Count one drop, log it (rate-limited); always returns ENG_DROPPED. */
int eng_drop(struct hipd *d, const struct eng_rx *rx, enum hipd_drop why,
	     const char *detail);

/* ---- retx.c: output and retransmission ------------------------------ */

/* Checksum for src/dst, send, count. -errno (SEND_FAILED counted). */
int eng_send(struct hipd *d, struct hip_ha *ha, uint8_t *pkt, size_t len,
	     const struct hip_addr *src, const struct hip_addr *dst);
/* The same over UDP to port (RFC 9028 §5.1: checksum 0, the marker added
 * by d->send_udp); port 0 = raw IP. eng_send uses ha's peer_port. To ha's
 * peer behind a control relay (ha->relay_port): through the relay with
 * RELAY_TO (RFC 9028 §4.5). */
int eng_send_port(struct hipd *d, struct hip_ha *ha, uint8_t *pkt, size_t len,
		  const struct hip_addr *src, const struct hip_addr *dst, uint16_t port);
/* pkt (HIP checksum ignored) with RELAY_TO (to, to_port) appended, over
 * UDP from src to our control relay server relay:relay_port. */
int eng_send_via_relay(struct hipd *d, struct hip_ha *ha, const uint8_t *pkt, size_t len,
		       const struct hip_addr *src, const struct hip_addr *relay,
		       uint16_t relay_port, const struct hip_addr *to, uint16_t to_port);
/* eng_send_port without the relay: to exactly dst/port, even when ha's
 * peer is reached through a control relay (connectivity checks). */
int eng_send_direct(struct hipd *d, struct hip_ha *ha, uint8_t *pkt, size_t len,
		    const struct hip_addr *src, const struct hip_addr *dst, uint16_t port);
/* Same for a packet whose checksum is already set (cached R1), raw IP. */
int eng_xmit(struct hipd *d, struct hip_ha *ha, const uint8_t *pkt, size_t len,
	     const struct hip_addr *src, const struct hip_addr *dst);
/* A kept packet (retransmission, UPDATE's outstanding one and its last
 * reply): *p becomes a copy of pkt, the old one wiped; or wiped and freed. */
int eng_buf_keep(uint8_t **p, size_t *len, const uint8_t *pkt, size_t n);
void eng_buf_free(uint8_t **p, size_t *len);
/* Keep a copy of the packet for retransmission / resending. */
int eng_retx_store(struct hip_ha *ha, const uint8_t *pkt, size_t len);
void eng_retx_clear(struct hip_ha *ha);
/* Send the kept packet again: -ENOENT when none is kept, else eng_send's. */
int eng_retx_resend(struct hipd *d, struct hip_ha *ha);
/* Delay after send number n (0 = the first), doubling from first_ms. */
uint64_t eng_retx_delay_ns(unsigned first_ms, unsigned n);
/* first_ms for the association's state (conf i1/i2_timeout_ms, CLOSE 1 s). */
unsigned eng_retx_first_ms(const struct hipd *d, const struct hip_ha *ha);

/* ---- keys.c: suites, KEYMAT, keys by direction, peer HI, DH ----------- */

int eng_esp_key_sizes(const struct hipd *d, uint16_t suite, size_t *enc, size_t *auth);
/* A HIP_CIPHER we offer and accept. */
bool eng_hip_cipher_ok(const struct hipd *d, uint16_t id);
bool eng_u8_in(const uint8_t *v, size_t n, uint8_t x);
bool eng_u16_in(const uint16_t *v, size_t n, uint16_t x);
/* KEYMAT (I, J, Kij, HITs), HIP keys then ESP keys. ha->rhash, hip_cipher,
 * esp_suite, puzzle_i/j must be set. Sets keymat_index to the ESP start. */
int eng_derive_keys(const struct hipd *d, struct hip_ha *ha,
		    const uint8_t *kij, size_t kij_len, const struct hip_hit *hit_i,
		    const struct hip_hit *hit_r);
/* ESP key start in I2/R2: 2 * (HIP_CIPHER key + RHASH length). */
size_t eng_keymat_esp_index(uint16_t hip_cipher, enum hip_rhash h);
bool eng_local_is_greater(const struct hip_ha *ha);
const uint8_t *eng_key_out_enc(const struct hip_ha *ha);
const uint8_t *eng_key_in_enc(const struct hip_ha *ha);
const uint8_t *eng_key_out_int(const struct hip_ha *ha);
const uint8_t *eng_key_in_int(const struct hip_ha *ha);
/* HOST_ID -> ha->peer_hi (reused when the same key is already imported);
 * checks HIT == ORCHID(HI) == sender. Drops counted. */
int eng_peer_hi(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha,
		const struct hip_host_id *hid, struct hip_hi **tmp_out);
/* Keep hi's octets as the peer's HI (ha->peer_hi_wire; no-op if the same). */
int eng_peer_hi_keep(struct hip_ha *ha, const struct hip_hi *hi);
/* Free the imported peer key (the octets stay). */
void eng_peer_hi_release(struct hip_ha *ha);
/* The peer's key for a signature check: ha->peer_hi, or imported from the
 * kept octets into *tmp (hip_hi_free it after use). -ENOENT: none known. */
int eng_peer_key(struct hipd *d, const struct hip_ha *ha, const struct hip_hi **hi,
		 struct hip_hi **tmp);
/* A peer's HI from a HOST_ID's Algorithm and Host Identity octets: the
 * imported key of the cache when these exact octets were seen lately, else
 * imported (hip_hi_from_wire's errors) and cached. The caller owns one
 * reference (hip_hi_free). */
int eng_hi_import(struct hipd *d, uint16_t algorithm, const uint8_t *wire, size_t len,
		  struct hip_hi **out);
void eng_hi_cache_free(struct hipd *d);
/* HIP_SIGNATURE of an association's packet by the peer's key (§6.14 step 3):
 * 0, or the drop counted (missing, bad, no key known). */
int eng_verify_peer_signature(struct hipd *d, const struct eng_rx *rx, const struct hip_ha *ha);
/* Our DH key for an I2: the spare made while idle if there is one (it is
 * handed out once, D-04), else a new one; a new spare follows at once. */
int eng_dh_take(struct hipd *d, uint8_t group, struct hip_dh **out);
/* Have a spare key of group ready (0-delay timer; no-op if there is one). */
void eng_dh_spare_want(struct hipd *d, uint8_t group);
/* Cancel the refill and free the spares (engine stop). */
void eng_dh_spares_free(struct hipd *d);
/* Derive Kij with the P-02 counter. */
int eng_dh_derive(struct hipd *d, const struct hip_dh *dh, const uint8_t *peer,
		  size_t peer_len, uint8_t *kij, size_t kij_len);
/* Decode helper: first parameter of type, -ENOENT missing, counts drops. */
const struct hip_param_ref *eng_param(struct hipd *d, const struct eng_rx *rx,
				      uint16_t type, bool required, int *err);
/* Keep the PRK of the base exchange's KEYMAT for later rekeys (RFC 7402
 * §6.8 draws new keys from it; update/update_rekey.c). */
void eng_keep_prk(struct hip_ha *ha, const uint8_t *kij, size_t kij_len);
/* PRK = HMAC-RHASH(#I | #J, Kij), the HKDF extract of the KEYMAT (RFC 7401
 * §6.5): into prk (RHASH length). ha->rhash and puzzle I/J set. */
int eng_keymat_prk(const struct hip_ha *ha, const uint8_t *kij, size_t kij_len, uint8_t *prk);

/* ---- locators.c ----------------------------------------------------- */

/* Locators mapped for peer (hosts file, hipconf), at most max; count. */
int eng_peer_locators(struct hipd *d, const struct hip_hit *peer,
		      struct hip_addr *out, int max);
/* Our source address towards dst. */
int eng_pick_source(struct hipd *d, const struct hip_addr *dst, struct hip_addr *src);
/* The UDP port to reach dst at from src when we start an exchange: the
 * peer's NAT port when nat_traversal wants UDP for this pair, else 0. */
uint16_t eng_nat_port_for(const struct hipd *d, const struct hip_addr *src,
			  const struct hip_addr *dst);
/* Authentic ESP or HIP from ha's peer address at another UDP port: the
 * peer's NAT rebound; HIP and the SAs move to sport (a new address is
 * mobility, RFC 8046, and is left to UPDATE). Returns whether ha moved. */
bool eng_nat_rebind(struct hipd *d, struct hip_ha *ha, const struct hip_addr *src,
		    uint16_t sport);

/* ---- sa.c: the association's SAs in the datapath -------------------- */

/* The SA pair and the policies of an association whose SPIs, suite, keys
 * and locators are set (R2 received; I2 accepted, RFC 7401 §6.9 step 15).
 * Replaces what the association had installed. */
int eng_dp_install(struct hipd *d, struct hip_ha *ha);
/* The LSI pair's SAs with new keys k, in place (a rekey, update_lsi.c);
 * its SAs and policy out of the datapath (D-22). */
int eng_dp_lsi_rekey(struct hipd *d, struct hip_ha *ha, const struct hip_esp_keys *k);
void eng_dp_lsi_remove(struct hipd *d, struct hip_ha *ha);
/* The datapath can carry IPv4 between LSIs (policy_lsi_add/del). */
bool eng_dp_carries_ipv4(const struct hipd *d);
/* Remove exactly what eng_dp_install put in; nothing if nothing. */
void eng_dp_remove(struct hipd *d, struct hip_ha *ha);
/* There is a datapath but ha has no outbound SA and policies in it (its
 * eng_dp_install failed). */
bool eng_ha_lacks_sas(const struct hipd *d, const struct hip_ha *ha);
/* One more SA of ha with other keys (a rekey's new pair), at ha's locators. */
int eng_dp_sa_add(struct hipd *d, struct hip_ha *ha, bool inbound, uint32_t spi,
		  const struct hip_esp_keys *keys);
int eng_dp_sa_del(struct hipd *d, bool inbound, uint32_t spi, const struct hip_addr *dst);
/* The inbound SA alone onto new locators (the peer moved to the other
 * family and sends there before we may send there). */
int eng_dp_move_inbound(struct hipd *d, struct hip_ha *ha, const struct hip_addr *local,
			const struct hip_addr *peer);
/* Same SPIs and keys on ha's new locators, replaced in place. */
int eng_dp_move(struct hipd *d, struct hip_ha *ha);

#endif
