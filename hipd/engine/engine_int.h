/*
 * engine_int.h - what the engine's folders share (engine/, assoc/,
 * exchange/, update/): its state, a received packet as the handlers see
 * it, the handler contract and the dispatcher. Not used outside the
 * engine, except by the in-process tests.
 *
 * Layers, each calling only down (README.md "Module map"):
 *   engine.c, engine_ctl.c, engine_dp.c   life cycle, hipconf, datapath events
 *   fsm.c                                 the dispatcher: packets, timers, local events
 *   exchange/, update/                    the handlers of the (type, state) table
 *   assoc/                                associations, their state, timer, keys, SAs
 * What must reach up (an association's timer, the end of an association's
 * UPDATE state) goes through the hooks the engine sets in struct hipd_engine.
 *
 * Handler contract (fsm.c): a handler gets the received packet (or NULL for
 * a timer or local event) and the association (*hap, may be NULL in
 * UNASSOCIATED). It returns 0 when its checks passed (the dispatcher then
 * moves the association to the table's next state, and frees it when that
 * state is UNASSOCIATED), ENG_HANDLED when it moved or freed the
 * association itself (or has none), ENG_CLOSE_NEXT when the association
 * is to be closed (the dispatcher runs CLOSE_REQ), or a negative code after counting the
 * drop exactly once (ENG_DROPPED, state unchanged). Any other negative
 * result for a packet (an internal failure) is counted by the dispatcher.
 */
#ifndef HIPD_ENGINE_INT_H
#define HIPD_ENGINE_INT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "engine.h"
#include "engine/assoc/assoc.h"
#include "hip_crypto.h"
#include "packet.h"
#include "params.h"
#include "state.h"

struct ratelimit;
struct datapath;
struct reg_registrar;
struct reg_client;
struct reg_allow;
struct data_relay;

#define ENG_NS_PER_S   1000000000ULL
#define ENG_NS_PER_MS  1000000ULL

enum eng_consts {
	ENG_HANDLED         = 1,   /* handler result: it set the state itself */
	ENG_CLOSE_NEXT      = 2,   /* handler result: close the association */
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

/* Puzzles whose I2s failed after the puzzle check (exchange/i2guard.h,
 * P-10): keyed hashes, failures, and until when they are refused. */
enum {
	ENG_I2_GUARD_SLOTS = 4096,   /* power of two */
	ENG_I2_SPENT       = 256,    /* accepted I2s remembered */
};
struct i2_guard {
	struct hip_siphash_key key;
	bool keyed;                /* key made (lazily: a zeroed struct is valid) */
	uint64_t tag[ENG_I2_GUARD_SLOTS];
	uint8_t bad[ENG_I2_GUARD_SLOTS];   /* failures of that puzzle, 0 = empty */
	uint64_t hold_until_ns;    /* refusing until then (monotonic) */
	/* the last I2s accepted (keyed hashes of HIT-I, HIT-R, #I and #J,
	 * 0 = empty): a copy of one is a replay, D-15 */
	uint64_t spent[ENG_I2_SPENT];
	unsigned spent_next;
};

/* Engine state that struct hipd does not carry (d->engine). */
struct eng_dp_expiry;

struct hipd_engine {
	/* set by engine.c: what assoc/ reports up without calling up */
	void (*ha_timeout)(struct hipd *d, struct hip_ha *ha);  /* its timer fired */
	void (*ha_ending)(struct hipd *d, struct hip_ha *ha);   /* closing, reset or freed */
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
	struct i1_storm i1_storm;     /* I1 storm filter (assoc/i1storm.c, P-11) */
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
	/* registration and rendezvous (reg/, engine_reg.c): what we offer
	 * (registrar NULL when nothing), the servers we register with */
	struct reg_registrar *registrar;
	struct reg_allow *reg_allow;
	struct reg_client *reg_client;
	struct data_relay *data_relay;     /* offer_services relay-esp (reg/data_relay.c) */
	struct hip_reg_info reg_info;      /* in our R1s when n > 0 */
	uint64_t reg_timer;                /* 1 s tick, 0 = none */
	uint64_t rvs_relayed, rvs_relay_failed; /* I1s / UPDATEs relayed */
	uint64_t rvs_received;             /* relayed I1s accepted (client) */
	/* RFC 9028 control relay (reg/relay.c): packets relayed as a server,
	 * relayed packets accepted as a client */
	uint64_t relay_forwarded, relay_failed, relay_received;
	/* the address each recent Initiator reached us at, by its transport
	 * address: the source of the client's answers to it, without asking
	 * priv for a route per packet (reg/relay.c) */
	struct eng_relay_src {
		struct hip_addr peer, local;
		uint16_t port;
	} relay_src[64];
	/* ICE-HIP-UDP (update/update_ice.c) */
	uint64_t ice_started, ice_checks_sent, ice_failed;
	/* exchanges we started for ESP we had no SA of (engine_dp.c) */
	uint64_t lost_state_exchanges;
	/* HIP and ESP over UDP (engine_udp.c) */
	uint64_t nat_keepalives_in, nat_keepalives_out, udp_esp_dropped, nat_rebinds;
	uint64_t nat_timer;                /* keepalive tick, 0 = none */
	uint64_t live_timer;               /* peer liveness tick (engine_live.c) */
	uint64_t heap_timer;               /* heap trim, once a minute (engine_heap.c) */
	bool udp_by_dp;                    /* the datapath reads the UDP sockets */
	struct log_ratelimit reg_log;
	/* opportunistic exchanges and the pins (exchange/bex_opp.c, D-27) */
	struct eng_opp *opp;
	/* ICMP Parameter Problems (engine_icmp.c, D-14): sockets (-1 = none),
	 * per-address limits of those we send and read, a global bucket for
	 * sending (RFC 4443 §2.4 (f)), counters */
	int icmp4, icmp6;
	struct ratelimit *icmp_tx_limit, *icmp_rx_limit;
	uint64_t icmp_bucket_ns;
	unsigned icmp_bucket;
	uint64_t icmp_sent, icmp_received, icmp_verdicts, icmp_probes, icmp_ignored;
	struct log_ratelimit icmp_log;
	/* I2 floods (exchange/i2guard.h, puzzle_k.c): puzzles refused after
	 * failed I2s (P-10); since the last tick, I2s failed after the DH
	 * work and I2s refused */
	struct i2_guard i2_guard;
	uint64_t i2_this_second, i2_refused_this_second;
	bool in_timeout;              /* fsm.c: handling an association's timer */
};

/* One received packet as the handlers see it. */
struct eng_rx {
	const struct hip_packet *pkt;
	const struct hip_addr *src, *dst;
	struct hidb_entry *local;     /* identity named by the receiver HIT */
	uint16_t sport;               /* came over UDP from this port; 0 = raw IP */
	/* relayed by our control relay server (RFC 9028 §4.5): src/sport are
	 * the sender's (RELAY_FROM), relay/relay_port the server's */
	const struct hip_addr *relay;
	uint16_t relay_port;
	/* an UPDATE our rendezvous server relayed (FROM, RVS_HMAC verified,
	 * RFC 8046 §3.2.3): src is FROM, via_rvs the server */
	const struct hip_addr *via_rvs;
};

typedef int (*eng_handler_fn)(struct hipd *d, const struct eng_rx *rx,
			      struct hip_ha **hap);

/* ---- fsm.c: the dispatcher ------------------------------------------ */

/* Run a local or timer event through the table. */
int eng_fsm_event(struct hipd *d, struct hip_ha *ha, enum hip_event ev);
/* The association's timer fired: a TIMEOUT event (the ha_timeout hook). */
void eng_fsm_timeout(struct hipd *d, struct hip_ha *ha);

/* ---- engine_ctl.c: hipconf commands --------------------------------- */

int eng_control_register(struct hipd *d);
void eng_control_unregister(struct hipd *d);

/* ---- engine_reg.c: registration and rendezvous ------------------------ */

/* The registrar (hipd.conf offer_services), the servers of hipd.conf and
 * the registration tick; before the R1 caches (their REG_INFO). */
int eng_reg_start(struct hipd *d);
void eng_reg_stop(struct hipd *d);
/* SIGHUP: the allow-list file again. */
int eng_reg_reload(struct hipd *d);
int eng_reg_control_register(struct hipd *d);

/* ---- engine_opp.c: opportunistic mode's hipconf commands (D-27) --------- */

struct control_request;
struct control_reply;
/* `trigger ADDRESS` (exchange/bex_opp.c does the work). */
int eng_opp_cmd_trigger(struct hipd *d, const struct control_request *req,
			struct control_reply *rep, const struct hip_addr *addr);
/* show pins, del pin */
int eng_opp_control_register(struct hipd *d);

/* ---- engine_udp.c: HIP and ESP over UDP -------------------------------- */

/* The UDP sockets on nat_port and d->send_udp (nat_traversal != never). */
int eng_udp_open(struct hipd *d);
void eng_udp_close(struct hipd *d);
/* Who reads the UDP sockets: the engine, or (false) the userspace
 * datapath, which batches ESP and hands HIP back. */
void eng_udp_reader(struct hipd *d, bool engine);



/* ---- engine_live.c: peer liveness ------------------------------------- */

int eng_live_start(struct hipd *d);
void eng_live_stop(struct hipd *d);

/* ---- engine_heap.c: free heap pages back to the kernel, once a minute --- */

int eng_heap_start(struct hipd *d);
void eng_heap_stop(struct hipd *d);

/* ---- engine_icmp.c: ICMP Parameter Problems (docs/decisions.md D-14) --- */

/* Limits and counters (no sockets yet); 0 or -ENOMEM. */
int eng_icmp_init(struct hipd *d);
/* The ICMP sockets, beside raw HIP sockets we opened ourselves; a failure
 * is logged, not fatal (hipd then neither sends nor hears them). */
void eng_icmp_open(struct hipd *d);
/* Sockets and limits. */
void eng_icmp_close(struct hipd *d);
/* rx (an UPDATE or CLOSE) names an association we do not have: tell its
 * sender, rate-limited (RFC 7401 §5.4.4). */
void eng_icmp_no_association(struct hipd *d, const struct eng_rx *rx);
/* ESP from src to dst for an SPI we hold no SA of: tell its sender
 * (RFC 7401 §4.3); the caller limits it per source, this globally. */
void eng_icmp_no_sa(struct hipd *d, const struct hip_addr *src, const struct hip_addr *dst,
		    uint16_t sport, const uint8_t *esp, size_t len);
/* One datagram from an ICMP socket of this family (tests call it too). */
void eng_icmp_input(struct hipd *d, int family, const uint8_t *buf, size_t len,
		    const struct hip_addr *from);

/* ---- engine_dp.c: which datapath, and its events --------------------- */


/* Choose (conf datapath = auto | kernel | userspace), log, set up. */
int eng_dp_start(struct hipd *d);
/* Remove everything this hipd installed and close the datapath. */
void eng_dp_stop(struct hipd *d);

/* engine_dp.c: the datapath's acquire_lsi event (datapath.h, D-22). */
void eng_dp_acquire_lsi(void *arg, const struct in_addr *local, const struct in_addr *peer);

#endif
