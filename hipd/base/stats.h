/*
 * stats.h - named counters: every dropped packet increments exactly one
 * drop counter (hipconf show stats), plus base-exchange counts and timings.
 */
#ifndef HIPD_STATS_H
#define HIPD_STATS_H

#include <stdint.h>

#define HIPD_DROP_COUNTERS(X) \
	X(BAD_CHECKSUM,      "bad_checksum") \
	X(MALFORMED,         "malformed") \
	X(BAD_LENGTH,        "bad_length") \
	X(BAD_VERSION,       "bad_version") \
	X(BAD_TYPE,          "bad_type") \
	X(BAD_ORDER,         "bad_order") \
	X(DUPLICATE_PARAM,   "duplicate_param") \
	X(UNKNOWN_CRITICAL,  "unknown_critical") \
	X(MISSING_PARAM,     "missing_param") \
	X(BAD_PARAM,         "bad_param") \
	X(UNKNOWN_HIT,       "unknown_hit") \
	X(NO_ASSOCIATION,    "no_association") \
	X(WRONG_STATE,       "wrong_state") \
	X(RATE_LIMITED,      "rate_limited") \
	X(PUZZLE_FAILED,     "puzzle_failed") \
	X(PUZZLE_STALE,      "puzzle_stale") \
	X(R1_COUNTER,        "r1_counter") \
	X(BAD_MAC,           "bad_mac") \
	X(BAD_SIGNATURE,     "bad_signature") \
	X(BAD_HIT,           "hit_mismatch") \
	X(BAD_DH,            "bad_dh") \
	X(DH_DOWNGRADE,      "dh_downgrade") \
	X(NO_PROPOSAL,       "no_proposal") \
	X(BAD_ENCRYPTED,     "bad_encrypted") \
	X(BAD_ECHO,          "bad_echo") \
	X(POLICY,            "policy_denied") \
	X(CROSSED_LOWER_HIT, "crossed_lower_hit") \
	X(REPLAY,            "replay") \
	X(SEND_FAILED,       "send_failed") \
	X(OVERSIZE,          "oversize") \
	X(I1_STORM,          "i1_storm") \
	X(HIT_SUITE,         "hit_suite_unsupported") \
	X(RVS_UNREGISTERED,  "rvs_unregistered") \
	X(RVS_BAD_HMAC,      "rvs_bad_hmac") \
	X(RVS_LOOP,          "rvs_loop") \
	X(RELAY_UNREGISTERED, "relay_unregistered") \
	X(RELAY_BAD_HMAC,    "relay_bad_hmac") \
	X(RELAY_LOOP,        "relay_loop") \
	X(I2_REFUSED,        "i2_refused")   /* P-10, engine/exchange/i2guard.h */

enum hipd_drop {
#define X(id, name) HIPD_DROP_##id,
	HIPD_DROP_COUNTERS(X)
#undef X
	HIPD_DROP_COUNT_
};

/* Base exchange stage times, as the HIP measurement papers split them:
 * each is from the arrival of a packet to the moment hipd's answer is
 * handed to the socket (T4: to the end of R2 processing). */
enum hipd_bex_stage {
	HIPD_BEX_T1,       /* Responder: I1 received -> R1 sent */
	HIPD_BEX_T2,       /* Initiator: R1 received -> I2 sent (puzzle, DH, sign) */
	HIPD_BEX_T3,       /* Responder: I2 received -> R2 sent */
	HIPD_BEX_T4,       /* Initiator: R2 received -> processed */
	HIPD_BEX_TOTAL,    /* Initiator: I1 sent -> R2 processed */
	HIPD_BEX_STAGE_COUNT_
};

enum { HIPD_BEX_SAMPLES = 1024 };

/* The last HIPD_BEX_SAMPLES durations of one stage, in ns (a ring). */
struct hipd_bex_samples {
	uint64_t n;                    /* samples ever recorded */
	uint32_t ns[HIPD_BEX_SAMPLES]; /* saturated at UINT32_MAX (4.3 s) */
};

struct hipd_stats {
	uint64_t drop[HIPD_DROP_COUNT_];
	uint64_t rx_packets[20];       /* by HIP packet type (1..19) */
	uint64_t tx_packets[20];
	uint64_t bex_started, bex_completed, bex_failed;
	uint64_t bex_last_ns;          /* duration of the last completed BEX */
	uint64_t bex_total_ns;         /* sum, for the mean */
	uint64_t r1_sent, i1_rate_per_s;
	unsigned puzzle_k_current;
	uint64_t rx_ns;                /* arrival of the packet being handled */
	struct hipd_bex_samples bex_stage[HIPD_BEX_STAGE_COUNT_];
	/* UPDATE (hipd/update*.c) */
	uint64_t upd_sent, upd_received, upd_retransmitted, upd_reacked, upd_failed;
	uint64_t upd_via_rvs;        /* copies to the peer's rendezvous server (RFC 8046 §3.2.3) */
	uint64_t live_probes, live_answered, live_dead;   /* peer liveness (update_live.c) */
	uint64_t upd_readdressed, upd_verified, upd_rekeyed;
	/* NAT mapping changes a datapath reported (authentic ESP in UDP from a
	 * new port: engine_dp.c dp_udp_peer): followed, or not ours / not a
	 * port change (RFC 3948 §4) */
	uint64_t nat_mappings_followed, nat_mappings_ignored;
	/* ICE restarts on mobility (RFC 9028 §4.9, engine/update/update_ice.c):
	 * checks run again, and those that moved the SAs to a new pair */
	uint64_t ice_restarts, ice_restarts_done;
	/* re-announcements after the default route moved (update_entry.c) */
	uint64_t upd_route_moves;
	/* LSI SA pairs (D-22, update_lsi.c): agreed, refused (bad parameter or
	 * other LSIs), exchanges started by IPv4 to an LSI, such packets for
	 * an LSI no HIT holds */
	uint64_t lsi_pairs, lsi_refused, lsi_acquires, lsi_unknown;
};

const char *hipd_drop_name(enum hipd_drop d);
static inline void hipd_drop_count(struct hipd_stats *s, enum hipd_drop d)
{
	s->drop[d]++;
}

static inline void hipd_bex_sample(struct hipd_stats *s, enum hipd_bex_stage st,
				   uint64_t ns)
{
	struct hipd_bex_samples *b = &s->bex_stage[st];

	b->ns[b->n % HIPD_BEX_SAMPLES] = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
	b->n++;
}

/* Time since the current packet arrived (0 outside packet handling). */
static inline uint64_t hipd_rx_elapsed(const struct hipd_stats *s, uint64_t now_ns)
{
	return s->rx_ns && now_ns > s->rx_ns ? now_ns - s->rx_ns : 0;
}

#endif
