/*
 * engine_int.h - what the protocol engine's files share (fsm.c, retx.c,
 * keys.c, bex_*.c, close.c, notify.c, engine*.c). Not used outside the
 * engine, except by the in-process tests.
 *
 * Handler contract (fsm.c): a handler gets the received packet (or NULL for
 * a timer or local event) and the association (*hap, may be NULL in
 * UNASSOCIATED). It returns 0 when its checks passed (the dispatcher then
 * moves the association to the table's next state, and frees it when that
 * state is UNASSOCIATED), ENG_HANDLED when it moved or freed the
 * association itself (or has none), or a negative code after counting the
 * drop exactly once (ENG_DROPPED, state unchanged). Any other negative
 * result for a packet (an internal failure) is counted by the dispatcher.
 */
#ifndef HIPD_ENGINE_INT_H
#define HIPD_ENGINE_INT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "engine/assoc/hadb.h"
#include "engine/assoc/hidb.h"
#include "hip_crypto.h"
#include "engine/exchange/i1storm.h"
#include "base/log.h"
#include "packet.h"
#include "params.h"
#include "state.h"
#include "base/stats.h"

struct ratelimit;
struct datapath;

#define ENG_NS_PER_S   1000000000ULL
#define ENG_NS_PER_MS  1000000ULL

enum eng_consts {
	ENG_HANDLED         = 1,   /* handler result: it set the state itself */
	ENG_DROPPED         = -ECANCELED, /* a drop, already counted */
	ENG_I1_PARALLEL_MAX = 3,   /* §6.6.1: first I1 to at most 3 locators */
	ENG_RETX_FIRST_MS   = 1000,/* D-1: CLOSE 1 s, doubling */
	ENG_RETX_MAX_MS     = 64000,
	ENG_EFAILED_WAIT_S  = 5,   /* Table 9: implementation-defined wait */
	ENG_NONCE_LEN       = 16,  /* CLOSE echo nonce */
	/* KEYMAT long enough for every draw: 4 HIP keys + 4 ESP keys. */
	ENG_KEYMAT_LEN      = 4 * HIP_KEY_MAX + 4 * HIP_KEY_MAX,
	ENG_HIP_CIPHER_SCAN = 6,   /* §5.2.8: only the first 6 IDs count */
	ENG_PKT_BUF         = HIP_MAX_PACKET,
	ENG_DROP_LOG_BURST  = 20,  /* drop log lines per second */
	ENG_NOTIFY_RATE     = 2,   /* NOTIFYs per second per source, burst 4 */
	ENG_NOTIFY_BURST    = 4,
	ENG_DH_SPARES       = 4,   /* spare DH keys: groups at a time */
	ENG_HI_CACHE        = 16,  /* peer HIs kept imported (about 3 KiB each) */
	ENG_PUZZLE_THREAD_MIN_K = 8, /* below, the puzzle is solved in line (< 0.1 ms) */
};

/* Engine state that struct hipd does not carry (d->engine). */
struct eng_dp_expiry;

struct hipd_engine {
	uint64_t r1_timer;            /* R1 cache rotation, 0 = none */
	uint64_t k_timer;             /* 1 s puzzle difficulty tick */
	uint64_t i1_this_second;      /* I1s answered since the last tick */
	unsigned k_base;              /* difficulty when idle (conf / hipconf) */
	unsigned k_idle_ticks;        /* quiet seconds in a row */
	struct ratelimit *notify_limit; /* per-source NOTIFY bucket */
	bool own_raw4, own_raw6;      /* we opened the raw sockets */
	bool own_stats, own_hosts;    /* we allocated them (not main.c) */
	/* the lists the R1 caches were built with (reload compares) */
	uint8_t built_groups[HIPD_CONF_LIST_MAX];
	uint16_t built_ciphers[HIPD_CONF_LIST_MAX], built_esp[HIPD_CONF_LIST_MAX];
	size_t n_built_groups, n_built_ciphers, n_built_esp;
	/* counters beyond stats.h */
	uint64_t dh_derives;          /* Kij computations (P-02 checks) */
	uint64_t i2_no_r1_counter;    /* I2s accepted without R1_COUNTER */
	uint64_t notify_sent, notify_received;
	/* rate-limited logging of peer-triggered lines */
	struct log_ratelimit drop_log, notify_log;
	/* ESP datapath (engine_dp.c): NULL when none (in-process tests) */
	struct datapath *dp;
	bool dp_kernel;               /* dp is XFRM (its event fd is polled) */
	bool dp_tun_open;             /* kernel datapath: we hold hip0's fd */
	int dp_tun_fd;                /* (the userspace datapath owns its own) */
	char dp_tun_name[16];         /* hip0's name (IFNAMSIZ), "" = none */
	struct log_ratelimit dp_log;
	/* SA expiries reported by the datapath, handled from the loop (the
	 * report may come from inside the datapath's walk of its SAs) */
	struct eng_dp_expiry *dp_expiry;
	size_t n_dp_expiry, cap_dp_expiry;
	uint64_t dp_expiry_timer;     /* 0-delay, 0 = none */
	/* one spare DH key per group for the next I2, made while idle
	 * (keys.c); each handed out once (D-04) */
	uint8_t dh_spare_group[ENG_DH_SPARES];
	struct hip_dh *dh_spare[ENG_DH_SPARES];
	uint64_t dh_spare_timer;      /* 0-delay refill, 0 = none */
	struct i1_storm i1_storm;     /* I1 storm filter (bex_resp.c, P-11) */
	/* the peer HIs imported last (keys.c): a peer coming back (a new
	 * exchange, its CLOSE, UPDATE or NOTIFY) is not imported again */
	struct eng_hi_cached {
		struct hip_hi *hi;        /* holds one reference */
		uint64_t used;            /* hi_cache_tick of the last use, 0 = empty */
	} hi_cache[ENG_HI_CACHE];
	uint64_t hi_cache_tick;
	uint64_t hi_cache_hits, hi_cache_misses;
	/* the Initiator's puzzle search beside the R1 checks (bex_r1.c),
	 * NULL on one CPU and in in-process tests */
	struct puzzle_worker *puzzle_worker;
};

/* One received packet as the handlers see it. */
struct eng_rx {
	const struct hip_packet *pkt;
	const struct hip_addr *src, *dst;
	struct hidb_entry *local;     /* identity named by the receiver HIT */
};

typedef int (*eng_handler_fn)(struct hipd *d, const struct eng_rx *rx,
			      struct hip_ha **hap);

/* ---- engine.c ------------------------------------------------------ */

/* Locators mapped for peer (hosts file, hipconf), at most max; count. */
int eng_peer_locators(struct hipd *d, const struct hip_hit *peer,
		      struct hip_addr *out, int max);
/* Our source address towards dst. */
int eng_pick_source(struct hipd *d, const struct hip_addr *dst, struct hip_addr *src);
/* Called for every I1 received (puzzle difficulty input). */
void eng_count_i1(struct hipd *d);
/* hipconf set puzzle K: the new idle difficulty, effective at once. */
void hipd_engine_set_puzzle_k(struct hipd *d, unsigned k);

/* ---- engine_ctl.c: hipconf commands --------------------------------- */

int eng_control_register(struct hipd *d);
void eng_control_unregister(struct hipd *d);

/* ---- fsm.c --------------------------------------------------------- */

/* Every state change; rejects moves the RFC does not have (-EPERM). */
int ha_set_state(struct hipd *d, struct hip_ha *ha, enum hip_state s);
/* Run a local or timer event through the table. */
int eng_fsm_event(struct hipd *d, struct hip_ha *ha, enum hip_event ev);
/* Count one drop, log it (rate-limited); always returns ENG_DROPPED. */
int eng_drop(struct hipd *d, const struct eng_rx *rx, enum hipd_drop why,
	     const char *detail);

/* ---- retx.c: output, retransmission, association timers ----------- */

/* Checksum for src/dst, send, count. -errno (SEND_FAILED counted). */
int eng_send(struct hipd *d, struct hip_ha *ha, uint8_t *pkt, size_t len,
	     const struct hip_addr *src, const struct hip_addr *dst);
/* Same for a packet whose checksum is already set (cached R1). */
int eng_xmit(struct hipd *d, struct hip_ha *ha, const uint8_t *pkt, size_t len,
	     const struct hip_addr *src, const struct hip_addr *dst);
/* Keep a copy of the packet for retransmission / resending. */
int eng_retx_store(struct hip_ha *ha, const uint8_t *pkt, size_t len);
void eng_retx_clear(struct hip_ha *ha);
/* The association's one timer (retransmission, EC, CLOSED, E-FAILED). */
int eng_timer_arm(struct hipd *d, struct hip_ha *ha, uint64_t delay_ns);
void eng_timer_cancel(struct hipd *d, struct hip_ha *ha);
/* Delay after send number n (0 = the first), doubling from first_ms. */
uint64_t eng_retx_delay_ns(unsigned first_ms, unsigned n);
/* first_ms for the association's state (conf i1/i2_timeout_ms, CLOSE 1 s). */
unsigned eng_retx_first_ms(const struct hipd *d, const struct hip_ha *ha);
/* Cancel the timer and free the association. */
void eng_ha_free(struct hipd *d, struct hip_ha *ha);
/* Start a fresh association for the pair (cleared if it existed). */
int eng_ha_get(struct hipd *d, struct hidb_entry *local, const struct hip_hit *peer,
	       struct hip_ha **out);
/* Forget negotiated state (keys, DH, peer HOST_ID, SPI index). */
void eng_ha_reset(struct hipd *d, struct hip_ha *ha);
void eng_bex_failed(struct hipd *d, struct hip_ha *ha);
int act_retransmit(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int act_expire(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);

/* ---- keys.c: suites, KEYMAT, keys by direction, peer HI ------------ */

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

/* ---- bex_init.c / bex_r1.c: Initiator ------------------------------ */

int act_send_i1(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int eng_send_i1(struct hipd *d, struct hip_ha *ha, bool parallel);
int act_process_r1(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int act_process_r1_newer(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
/* The base exchange's negotiated fields (suites, rhash, puzzle I/J, HIP
 * and ESP keys, KEYMAT index) from src to dst: R1 save/restore and the I2's
 * scratch association -> the real one use this one copy. */
void eng_ha_copy_negotiated(struct hip_ha *dst, const struct hip_ha *src);
int act_process_r2(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);

/* ---- bex_resp.c / bex_i2.c: Responder ------------------------------ */

int act_send_r1(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int act_i1_crossed(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int act_process_i2(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int act_i2_crossed(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int act_resend_r2(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int act_replace_i2(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int act_confirm(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);

/* ---- close.c ------------------------------------------------------- */

int act_send_close(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int act_process_close(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int act_resend_close_ack(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
int act_process_close_ack(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
/* CLOSING retransmission; false once UAL + MSL has passed. */
bool eng_close_may_retransmit(const struct hipd *d, const struct hip_ha *ha);

/* ---- engine_dp.c: the ESP datapath (datapath.h) --------------------- */

/* Choose (conf datapath = auto | kernel | userspace), log, set up. */
int eng_dp_start(struct hipd *d);
/* Remove everything this hipd installed and close the datapath. */
void eng_dp_stop(struct hipd *d);
/* The SA pair and the policies of an association whose SPIs, suite, keys
 * and locators are set (R2 received; I2 accepted, RFC 7401 §6.9 step 15).
 * Replaces what the association had installed. */
int eng_dp_install(struct hipd *d, struct hip_ha *ha);
/* Remove exactly what eng_dp_install put in; nothing if nothing. */
void eng_dp_remove(struct hipd *d, struct hip_ha *ha);
/* There is a datapath but ha has no outbound SA and policies in it (its
 * eng_dp_install failed). */
bool eng_ha_lacks_sas(const struct hipd *d, const struct hip_ha *ha);
/* ha is in R2-SENT or ESTABLISHED but lacks its SAs: close it (CLOSE
 * sent). After each state change (fsm.c) and on traffic for an
 * established peer (engine.c). */
void eng_ha_close_if_sasless(struct hipd *d, struct hip_ha *ha);

/* ---- notify.c ------------------------------------------------------ */

/* NOTIFY to rx's sender (only call after the puzzle was verified or inside
 * an association); rate-limited per source. */
void eng_notify(struct hipd *d, const struct eng_rx *rx, uint16_t type,
		const void *data, size_t len);
int act_process_notify(struct hipd *d, const struct eng_rx *rx, struct hip_ha **hap);
const char *eng_notify_name(uint16_t type);

#endif
