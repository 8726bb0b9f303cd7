/*
 * check_bex_after.c - after the base exchange between two in-process hipd
 * engines (RFC 7401 §5.2.1, §6.11-6.15; docs/requirements.md S-05, S-06,
 * S-11..S-14, W-04, RB-04): an R2 or I2 in ESTABLISHED, CLOSE and CLOSE_ACK,
 * the peer HI cache, and input checks (bad checksum, unknown critical
 * parameter -> NOTIFY, unsolicited packets, mutated packets). The harness
 * (bex_harness.c) carries the packets. The exchange itself: check_bex.c.
 */
#include <check.h>
#include <string.h>

#include "bex_fixture.h"
#include "coverage.h"
#include "hit.h"
#include "packet.h"
#include "params.h"
#include "base/ratelimit.h"
#include "unit.h"

static void run_bex_quick(struct bex_net *n)
{
	ck_assert_int_eq(hipd_engine_trigger(&A(n)->d, bex_hit(B(n))), 0);
	bex_run(n, 20);
	bex_fire(B(n));
	assert_established_pair(n);
}

/* ---- after the exchange ------------------------------------------------------------ */

/* S-05: an R2 in ESTABLISHED is dropped; state stays. */
START_TEST(test_r2_in_established)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_pkt r2;

	bex_net_init(&n, &o, &o);
	run_bex_quick(&n);
	r2 = n.last[HIP_R2];
	bex_inject(&n, 0, r2.buf, r2.len, &r2.src, &r2.dst);
	ck_assert_uint_eq(A(&n)->d.stats->drop[HIPD_DROP_WRONG_STATE], 1);
	assert_established_pair(&n);
	bex_net_free(&n);
}
END_TEST

/* S-06: a new valid I2 in ESTABLISHED replaces the association. */
START_TEST(test_replace_i2)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	uint32_t old_b, old_a;

	bex_net_init(&n, &o, &o);
	run_bex_quick(&n);
	old_b = bex_ha(B(&n))->spi_in;
	old_a = bex_ha(A(&n))->spi_in;
	/* A loses its state (reboot) and starts again. */
	eng_ha_free(&A(&n)->d, bex_ha(A(&n)));
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert_int_eq(bex_deliver_one(&n), HIP_I1);
	ck_assert_int_eq(bex_state(B(&n)), HIP_STATE_ESTABLISHED);   /* I1: R1, stay */
	ck_assert_int_eq(bex_deliver_one(&n), HIP_R1);
	ck_assert_int_eq(bex_deliver_one(&n), HIP_I2);
	ck_assert_int_eq(bex_state(B(&n)), HIP_STATE_R2_SENT);
	bex_run(&n, 10);
	bex_fire(B(&n));
	assert_established_pair(&n);
	ck_assert_uint_ne(bex_ha(B(&n))->spi_in, old_b);
	ck_assert_uint_ne(bex_ha(A(&n))->spi_in, old_a);
	bex_net_free(&n);
}
END_TEST

/* D-15: a late copy of an earlier exchange's I2 (still within its puzzle's
 * lifetime, the R1's old DH key still valid) neither replaces the newer
 * association nor desynchronises the SPIs. */
START_TEST(test_late_old_i2)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_pkt old_i2;
	uint32_t b_in, b_out;
	uint64_t replay;

	bex_net_init(&n, &o, &o);
	run_bex_quick(&n);
	old_i2 = n.last[HIP_I2];
	/* A starts again (a restart): a second exchange replaces the first */
	eng_ha_free(&A(&n)->d, bex_ha(A(&n)));
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	bex_run(&n, 10);
	bex_fire(B(&n));
	assert_established_pair(&n);
	b_in = bex_ha(B(&n))->spi_in;
	b_out = bex_ha(B(&n))->spi_out;
	/* the first exchange's I2 arrives late */
	replay = B(&n)->d.stats->drop[HIPD_DROP_REPLAY];
	bex_inject(&n, 1, old_i2.buf, old_i2.len, &old_i2.src, &old_i2.dst);
	bex_run(&n, 10);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_REPLAY], replay + 1);
	ck_assert_uint_eq(bex_ha(B(&n))->spi_in, b_in);
	ck_assert_uint_eq(bex_ha(B(&n))->spi_out, b_out);
	assert_established_pair(&n);
	bex_net_free(&n);
}
END_TEST

/* Our R2s are all lost and the Exchange Complete timer moves us to
 * ESTABLISHED: the Initiator's next I2 retransmission still gets the R2
 * (its waits double, the timer's do not), and both end up with the same
 * association. */
START_TEST(test_i2_after_ec_timer)
{
	struct bex_opts o = { 0 };
	struct bex_net n;

	bex_net_init(&n, &o, &o);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert_int_eq(bex_deliver_one(&n), HIP_I1);
	ck_assert_int_eq(bex_deliver_one(&n), HIP_R1);
	ck_assert_int_eq(bex_deliver_one(&n), HIP_I2);
	ck_assert(bex_take(&n, 1, HIP_R2, NULL));                 /* lost */
	bex_fire(B(&n));                                          /* EC timer */
	ck_assert_int_eq(bex_state(B(&n)), HIP_STATE_ESTABLISHED);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_I2_SENT);
	bex_fire(A(&n));                                          /* I2 again */
	ck_assert_int_eq(bex_deliver_one(&n), HIP_I2);
	ck_assert_int_eq(bex_deliver_one(&n), HIP_R2);            /* answered */
	assert_established_pair(&n);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_REPLAY], 0);
	/* a replayed copy gets the R2 at most i2_retries times in all, then
	 * it is a replay */
	{
		struct bex_pkt i2 = n.last[HIP_I2];
		unsigned k, r2s = 0;

		for (k = 0; k < B(&n)->d.conf.i2_retries + 3; k++) {
			bex_inject(&n, 1, i2.buf, i2.len, &i2.src, &i2.dst);
			while (bex_take(&n, 1, HIP_R2, NULL))
				r2s++;
		}
		ck_assert_uint_eq(r2s + 1, B(&n)->d.conf.i2_retries);
		ck_assert_uint_ge(B(&n)->d.stats->drop[HIPD_DROP_REPLAY], 3);
		assert_established_pair(&n);
	}
	bex_net_free(&n);
}
END_TEST

static bool all_zero(const void *p, size_t len)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

/* S-11 / S-12: CLOSE from either side ends both associations; the ESP
 * keys are wiped on both sides once the SAs go, the HIP keys stay for the
 * CLOSE_ACK (eng_ha_wipe_esp_keys). */
START_TEST(test_close)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_host *c, *o2;
	struct bex_pkt close_pkt;

	bex_net_init(&n, &o, &o);
	run_bex_quick(&n);
	c = &n.h[_i];
	o2 = &n.h[1 - _i];
	ck_assert(!all_zero(&bex_ha(c)->esp_keys, sizeof(bex_ha(c)->esp_keys)));
	ck_assert(!all_zero(&bex_ha(o2)->esp_keys, sizeof(bex_ha(o2)->esp_keys)));
	ck_assert_int_eq(hipd_engine_close(&c->d, bex_hit(o2)), 0);
	ck_assert_int_eq(bex_state(c), HIP_STATE_CLOSING);
	ck_assert(all_zero(&bex_ha(c)->esp_keys, sizeof(bex_ha(c)->esp_keys)));
	ck_assert(!all_zero(&bex_ha(c)->hip_keys, sizeof(bex_ha(c)->hip_keys)));
	close_pkt = n.q[0];
	ck_assert_int_eq(bex_deliver_one(&n), HIP_CLOSE);
	ck_assert_int_eq(bex_state(o2), HIP_STATE_CLOSED);
	ck_assert(all_zero(&bex_ha(o2)->esp_keys, sizeof(bex_ha(o2)->esp_keys)));
	/* A repeated CLOSE is answered again (Table 8). */
	bex_inject(&n, o2->idx, close_pkt.buf, close_pkt.len, &close_pkt.src, &close_pkt.dst);
	ck_assert_uint_eq(n.sent[o2->idx][HIP_CLOSE_ACK], 2);
	ck_assert_int_eq(bex_deliver_one(&n), HIP_CLOSE_ACK);
	ck_assert_ptr_null(bex_ha(c));
	/* The second CLOSE_ACK finds nothing to close. */
	ck_assert_int_eq(bex_deliver_one(&n), HIP_CLOSE_ACK);
	ck_assert_uint_eq(c->d.stats->drop[HIPD_DROP_UNKNOWN_HIT] +
			  c->d.stats->drop[HIPD_DROP_NO_ASSOCIATION], 1);
	/* CLOSED ends after UAL + 2 MSL. */
	bex_fire(o2);
	ck_assert_ptr_null(bex_ha(o2));
	bex_net_free(&n);
}
END_TEST

/* The peer HI cache (keys.c): a peer coming back after CLOSE is not
 * imported again, its CLOSE is verified with the cached key, and the cache
 * keeps the last ENG_HI_CACHE keys (least recently used goes; a reference
 * held elsewhere outlives the eviction). */
START_TEST(test_peer_hi_cache)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct hipd_engine *ea, *eb;
	struct hip_hi *keys[ENG_HI_CACHE + 1], *got, *held;
	const uint8_t *w;
	size_t wl;
	unsigned i;

	bex_net_init(&n, &o, &o);
	ea = A(&n)->d.engine;
	eb = B(&n)->d.engine;
	run_bex_quick(&n);
	ck_assert_uint_eq(ea->hi_cache_misses, 1);   /* R1's HOST_ID */
	ck_assert_uint_eq(eb->hi_cache_misses, 1);   /* I2's */
	ck_assert_int_eq(hipd_engine_close(&A(&n)->d, bex_hit(B(&n))), 0);
	bex_run(&n, 10);
	bex_fire(B(&n));
	ck_assert_ptr_null(bex_ha(A(&n)));
	ck_assert_ptr_null(bex_ha(B(&n)));
	run_bex_quick(&n);
	ck_assert_uint_eq(ea->hi_cache_misses, 1);
	ck_assert_uint_eq(eb->hi_cache_misses, 1);
	ck_assert_uint_ge(ea->hi_cache_hits, 1);
	ck_assert_uint_ge(eb->hi_cache_hits, 2);     /* the CLOSE, the new I2 */

	/* Fill A's cache with other keys: B's (least recently used) goes. */
	for (i = 0; i < ENG_HI_CACHE + 1; i++)
		ck_assert_int_eq(hip_hi_generate(HIP_HI_KIND_ECDSA_P256, &keys[i]), 0);
	w = hip_hi_wire(keys[0], &wl);
	ck_assert_int_eq(eng_hi_import(&A(&n)->d, hip_hi_algorithm(keys[0]), w, wl, &held), 0);
	for (i = 1; i < ENG_HI_CACHE; i++) {
		w = hip_hi_wire(keys[i], &wl);
		ck_assert_int_eq(eng_hi_import(&A(&n)->d, hip_hi_algorithm(keys[i]), w, wl, &got),
				 0);
		ck_assert(!hip_hi_has_private(got));
		hip_hi_free(got);
	}
	ck_assert_uint_eq(ea->hi_cache_misses, 1 + ENG_HI_CACHE);   /* B's went */
	/* keys[0] used again: now the most recent; the next new key evicts
	 * keys[1] instead. */
	w = hip_hi_wire(keys[0], &wl);
	ck_assert_int_eq(eng_hi_import(&A(&n)->d, hip_hi_algorithm(keys[0]), w, wl, &got), 0);
	ck_assert_ptr_eq(got, held);
	hip_hi_free(got);
	w = hip_hi_wire(keys[ENG_HI_CACHE], &wl);
	ck_assert_int_eq(eng_hi_import(&A(&n)->d, hip_hi_algorithm(keys[0]), w, wl, &got), 0);
	hip_hi_free(got);
	ck_assert_uint_eq(ea->hi_cache_misses, ENG_HI_CACHE + 2);
	for (i = 0; i < ENG_HI_CACHE; i++) {
		if (ea->hi_cache[i].hi == held)
			break;
	}
	ck_assert_uint_lt(i, ENG_HI_CACHE);
	w = hip_hi_wire(keys[1], &wl);
	ck_assert_int_eq(eng_hi_import(&A(&n)->d, hip_hi_algorithm(keys[1]), w, wl, &got), 0);
	hip_hi_free(got);
	ck_assert_uint_eq(ea->hi_cache_misses, ENG_HI_CACHE + 3);
	/* Bad octets are not cached. */
	ck_assert_int_lt(eng_hi_import(&A(&n)->d, hip_hi_algorithm(keys[1]), w, wl - 1, &got),
			 0);
	ck_assert_ptr_null(got);
	/* Evict everything: the held reference still verifies. */
	eng_hi_cache_free(&A(&n)->d);
	ck_assert_uint_eq(hip_hi_sig_len(held), 64);
	hip_hi_free(held);
	for (i = 0; i < ENG_HI_CACHE + 1; i++)
		hip_hi_free(keys[i]);
	bex_net_free(&n);
}
END_TEST

/* S-13: crossing CLOSEs, both end in CLOSED and then with nothing. */
START_TEST(test_crossing_close)
{
	struct bex_opts o = { 0 };
	struct bex_net n;

	bex_net_init(&n, &o, &o);
	run_bex_quick(&n);
	ck_assert_int_eq(hipd_engine_close(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert_int_eq(hipd_engine_close(&B(&n)->d, bex_hit(A(&n))), 0);
	ck_assert_int_eq(bex_deliver_one(&n), HIP_CLOSE);
	ck_assert_int_eq(bex_deliver_one(&n), HIP_CLOSE);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_CLOSED);
	ck_assert_int_eq(bex_state(B(&n)), HIP_STATE_CLOSED);
	bex_run(&n, 10);
	ck_assert_ptr_null(bex_ha(A(&n)));
	ck_assert_ptr_null(bex_ha(B(&n)));
	ck_assert_uint_eq(bex_drops(A(&n)) + bex_drops(B(&n)), 0);
	bex_net_free(&n);
}
END_TEST

/* A CLOSE_ACK that does not echo our nonce is refused (§6.15). */
START_TEST(test_close_ack_bad_echo)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_pkt ack;
	struct hip_packet p;
	const struct hip_param_ref *r;

	bex_net_init(&n, &o, &o);
	run_bex_quick(&n);
	ck_assert_int_eq(hipd_engine_close(&A(&n)->d, bex_hit(B(&n))), 0);
	/* Take B's answer to A's CLOSE and change the echoed nonce. */
	ck_assert_int_eq(bex_deliver_one(&n), HIP_CLOSE);
	ck_assert(bex_take(&n, 1, HIP_CLOSE_ACK, &ack));
	ck_assert_int_eq(hip_packet_parse(ack.buf, ack.len, &p), 0);
	r = hip_packet_find(&p, HIP_PARAM_ECHO_RESPONSE_SIGNED);
	ack.buf[r->off + HIP_TLV_HDR_LEN] ^= 1;
	bex_inject(&n, 0, ack.buf, ack.len, &ack.src, &ack.dst);
	/* The echo is inside the MAC: the change is caught there first. */
	ck_assert_uint_eq(A(&n)->d.stats->drop[HIPD_DROP_BAD_MAC], 1);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_CLOSING);
	/* CLOSING retransmits the CLOSE (S-11). */
	bex_fire(A(&n));
	ck_assert_uint_eq(n.sent[0][HIP_CLOSE], 2);
	bex_run(&n, 10);
	ck_assert_ptr_null(bex_ha(A(&n)));
	bex_net_free(&n);
}
END_TEST

/* A CLOSE/CLOSE_ACK-shaped packet made with host h's real keys, as a
 * misbehaving but authenticated peer would send it. */
static int build_authentic(struct bex_host *h, uint8_t type, uint16_t echo_type,
			   const uint8_t *echo, size_t echo_len, uint8_t *buf, size_t cap)
{
	struct hip_ha *ha = bex_ha(h);
	struct hip_builder b;

	hip_build_init(&b, buf, cap, type, &ha->hit_local, &ha->hit_peer);
	hip_echo_build(&b, echo_type, echo, echo_len);
	hip_build_mac(&b, HIP_COVER_MAC, ha->rhash, eng_key_out_int(ha), ha->hip_keys.int_len,
		      NULL, 0);
	hip_build_signature(&b, HIP_COVER_SIGNATURE, ha->local->hi);
	return hip_build_finish(&b);
}

/* §6.15: a CLOSE_ACK is accepted only with our nonce, and only after we
 * sent a CLOSE. */
START_TEST(test_close_ack_checks)
{
	static const uint8_t wrong[16] = { 1, 2, 3 };
	struct bex_opts o = { 0 };
	uint8_t buf[HIP_MAX_PACKET];
	struct bex_net n;
	int len;

	bex_net_init(&n, &o, &o);
	run_bex_quick(&n);
	len = build_authentic(B(&n), HIP_CLOSE_ACK, HIP_PARAM_ECHO_RESPONSE_SIGNED, wrong,
			      sizeof(wrong), buf, sizeof(buf));
	ck_assert_int_gt(len, 0);
	/* In ESTABLISHED: not expected at all. */
	bex_inject(&n, 0, buf, (size_t)len, &B(&n)->addr, &A(&n)->addr);
	ck_assert_uint_eq(A(&n)->d.stats->drop[HIPD_DROP_WRONG_STATE], 1);
	/* In CLOSING: authentic, but not our nonce. */
	ck_assert_int_eq(hipd_engine_close(&A(&n)->d, bex_hit(B(&n))), 0);
	bex_inject(&n, 0, buf, (size_t)len, &B(&n)->addr, &A(&n)->addr);
	ck_assert_uint_eq(A(&n)->d.stats->drop[HIPD_DROP_BAD_ECHO], 1);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_CLOSING);
	/* B answers the CLOSE and sits in CLOSED; a CLOSE_ACK there, for a
	 * CLOSE B never sent, is refused. */
	ck_assert_int_eq(bex_deliver_one(&n), HIP_CLOSE);
	ck_assert_int_eq(bex_state(B(&n)), HIP_STATE_CLOSED);
	len = build_authentic(A(&n), HIP_CLOSE_ACK, HIP_PARAM_ECHO_RESPONSE_SIGNED, wrong,
			      sizeof(wrong), buf, sizeof(buf));
	bex_inject(&n, 1, buf, (size_t)len, &A(&n)->addr, &B(&n)->addr);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_WRONG_STATE], 1);
	ck_assert_int_eq(bex_state(B(&n)), HIP_STATE_CLOSED);
	bex_run(&n, 10);
	ck_assert_ptr_null(bex_ha(A(&n)));
	bex_net_free(&n);
}
END_TEST

/* ---- input checks ------------------------------------------------------------------ */

/* W-04: a bad checksum is dropped silently. */
START_TEST(test_bad_checksum_silent)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_pkt i1;

	bex_net_init(&n, &o, &o);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert(bex_take(&n, 0, HIP_I1, &i1));
	i1.buf[i1.len - 1] ^= 0x40;
	hipd_engine_input(&B(&n)->d, i1.buf, i1.len, &i1.src, &i1.dst);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_BAD_CHECKSUM], 1);
	ck_assert_uint_eq(bex_drops(B(&n)), 1);
	ck_assert_uint_eq(n.n, 0);
	bex_net_free(&n);
}
END_TEST

/* §5.2.1: an unknown critical parameter inside an association gets NOTIFY
 * UNSUPPORTED_CRITICAL_PARAMETER_TYPE with the type; the NOTIFY changes no
 * state at the receiver (S-14). */
START_TEST(test_unknown_critical_notify)
{
	struct bex_opts o = { 0 };
	uint8_t buf[HIP_MAX_PACKET], data[4] = { 1, 2, 3, 4 };
	const struct hip_param_ref *r;
	struct hip_notification nt;
	struct hip_builder bld;
	struct hip_packet p;
	struct bex_pkt out;
	struct bex_net n;
	int len;

	bex_net_init(&n, &o, &o);
	run_bex_quick(&n);
	hip_build_init(&bld, buf, sizeof(buf), HIP_UPDATE, bex_hit(B(&n)), bex_hit(A(&n)));
	hip_build_param(&bld, 4097, data, sizeof(data));
	len = hip_build_finish(&bld);
	ck_assert_int_gt(len, 0);
	bex_inject(&n, 0, buf, (size_t)len, &B(&n)->addr, &A(&n)->addr);
	ck_assert_uint_eq(A(&n)->d.stats->drop[HIPD_DROP_UNKNOWN_CRITICAL], 1);
	ck_assert(bex_take(&n, 0, HIP_NOTIFY, &out));
	ck_assert_int_eq(hip_packet_parse(out.buf, out.len, &p), 0);
	r = hip_packet_find(&p, HIP_PARAM_NOTIFICATION);
	ck_assert_int_eq(hip_notification_decode(hip_param_content(&p, r), r->len, &nt), 0);
	ck_assert_uint_eq(nt.type, HIP_NOTIFY_UNSUPPORTED_CRITICAL_PARAMETER_TYPE);
	ck_assert_uint_eq(nt.len, 2);
	ck_assert_uint_eq(nt.data[0] << 8 | nt.data[1], 4097);
	ck_assert_ptr_nonnull(hip_packet_find(&p, HIP_PARAM_HIP_SIGNATURE));
	bex_inject(&n, 1, out.buf, out.len, &out.src, &out.dst);
	ck_assert_uint_eq(B(&n)->d.engine->notify_received, 1);
	ck_assert_uint_eq(bex_drops(B(&n)), 0);
	assert_established_pair(&n);
	bex_net_free(&n);
}
END_TEST

/* An I1 for a HIT that is not ours is dropped; so is an R1 nobody asked for. */
START_TEST(test_unsolicited)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_pkt i1, r1;

	bex_net_init(&n, &o, &o);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert(bex_take(&n, 0, HIP_I1, &i1));
	/* To A itself (A is not the receiver HIT named). */
	bex_inject(&n, 0, i1.buf, i1.len, &i1.src, &i1.dst);
	ck_assert_uint_eq(A(&n)->d.stats->drop[HIPD_DROP_BAD_HIT], 1);
	bex_inject(&n, 1, i1.buf, i1.len, &i1.src, &i1.dst);
	ck_assert(bex_take(&n, 1, HIP_R1, &r1));
	/* B gets its own R1 back: its sender HIT is B's own. */
	bex_inject(&n, 1, r1.buf, r1.len, &r1.src, &r1.dst);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_BAD_HIT], 1);
	/* Delivered to A, the R1 completes the exchange... */
	bex_inject(&n, 0, r1.buf, r1.len, &r1.src, &r1.dst);
	bex_run(&n, 10);
	bex_fire(B(&n));
	assert_established_pair(&n);
	/* ...and again in ESTABLISHED it is dropped (S-05). */
	bex_inject(&n, 0, r1.buf, r1.len, &r1.src, &r1.dst);
	ck_assert_uint_eq(A(&n)->d.stats->drop[HIPD_DROP_WRONG_STATE], 1);
	bex_net_free(&n);
}
END_TEST

/* Robustness (RB-04): thousands of damaged copies of real packets (bytes
 * flipped, lengths cut, a fixed seed) against both engines; nothing
 * crashes (run under ASAN), every one is counted as a drop or answered,
 * and a clean exchange still works afterwards. */
static uint32_t xorshift(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

START_TEST(test_mutated_packets)
{
	static const uint8_t types[] = { HIP_I1, HIP_R1, HIP_I2, HIP_R2 };
	struct bex_opts o = { 0 };
	struct bex_pkt pkt[4], bad;
	struct bex_net n;
	uint32_t seed = 0x1234567u;
	unsigned i, j, flips;
	uint64_t before;

	bex_net_init(&n, &o, &o);
	run_bex_quick(&n);
	for (i = 0; i < 4; i++)
		pkt[i] = n.last[types[i]];
	before = bex_drops(A(&n)) + bex_drops(B(&n));
	for (i = 0; i < 4000; i++) {
		bad = pkt[xorshift(&seed) % 4];
		flips = 1 + xorshift(&seed) % 4;
		for (j = 0; j < flips; j++)
			bad.buf[xorshift(&seed) % bad.len] ^= (uint8_t)(1 + xorshift(&seed) % 255);
		if (xorshift(&seed) % 8 == 0)
			bad.len = 8 * (xorshift(&seed) % (bad.len / 8 + 1));
		if (bad.len >= HIP_HDR_LEN && xorshift(&seed) % 16)
			hip_packet_set_checksum(bad.buf, bad.len, &bad.src, &bad.dst);
		hipd_engine_input(&n.h[1 - bad.from].d, bad.buf, bad.len, &bad.src, &bad.dst);
		n.n = 0;
	}
	ck_assert_uint_gt(bex_drops(A(&n)) + bex_drops(B(&n)), before + 3000);
	/* Both forget and start over: the engines still work (with fresh R1
	 * buckets: the storm used up the source's tokens). */
	for (i = 0; i < 2; i++) {
		ratelimit_free(n.h[i].d.r1_limit);
		ck_assert_int_eq(ratelimit_create(&n.h[i].d.r1_limit, 10, 20, 64), 0);
	}
	if (bex_ha(A(&n)))
		eng_ha_free(&A(&n)->d, bex_ha(A(&n)));
	if (bex_ha(B(&n)))
		eng_ha_free(&B(&n)->d, bex_ha(B(&n)));
	run_bex_quick(&n);
	bex_net_free(&n);
}
END_TEST

static Suite *bex_after_suite(void)
{
	Suite *s = suite_create("bex_after");
	TCase *t = tcase_create("after");

	tcase_add_unchecked_fixture(t, bex_tmp_setup, bex_tmp_teardown);
	tcase_set_timeout(t, 120);
	tcase_add_test(t, test_r2_in_established);
	tcase_add_test(t, test_replace_i2);
	tcase_add_test(t, test_late_old_i2);
	tcase_add_test(t, test_i2_after_ec_timer);
	tcase_add_loop_test(t, test_close, 0, 2);
	tcase_add_test(t, test_peer_hi_cache);
	tcase_add_test(t, test_crossing_close);
	tcase_add_test(t, test_close_ack_bad_echo);
	tcase_add_test(t, test_close_ack_checks);
	tcase_add_test(t, test_bad_checksum_silent);
	tcase_add_test(t, test_unknown_critical_notify);
	tcase_add_test(t, test_unsolicited);
	tcase_add_test(t, test_mutated_packets);
	suite_add_tcase(s, t);
	return s;
}

UNIT_MAIN(bex_after_suite)
