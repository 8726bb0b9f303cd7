/*
 * check_fw_track.c - hipfw's association tracker (firewall/fw_track.c)
 * with packets built by libhipcore and signed by real keys
 * (fw_track_fixture.c): the states a middlebox follows, the SPIs and
 * locators it learns (the ESP triples the kernel is told to pass), each
 * reason to drop, the table's bounds, the same exchange over UDP (RFC 9028
 * §5.1, the ports learnt, matched by the triples, followed when a signed
 * UPDATE shows a NAT rebound them). The state file: check_fw_state.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "coverage.h"
#include "fw_packet.h"
#include "fw_track.h"
#include "fw_track_fixture.h"
#include "hip_crypto.h"
#include "params.h"
#include "unit.h"

/* The base exchange: each step's state, the HIs and SPIs learnt, ESP allowed
 * exactly for the two learnt (source, destination, SPI) triples. */
START_TEST(test_bex)
{
	const struct fw_assoc *a;

	bex(0x1001, 0x2002, 1 * S);
	a = fw_track_find(&t, &hit_i, &hit_r);
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(a->state, FW_TS_ESTABLISHED);
	ck_assert_int_eq(hip_hit_cmp(&a->end[0].hit, &hit_i), 0);
	ck_assert_ptr_nonnull(a->end[0].hi);
	ck_assert_ptr_nonnull(a->end[1].hi);
	ck_assert_uint_eq(a->end[0].spi, 0x1001);
	ck_assert_uint_eq(a->end[1].spi, 0x2002);
	ck_assert_uint_eq(esp_calls, 1);
	ck_assert_uint_eq(triples(), 2);
	/* ESP to the Initiator carries its SPI, and the other way round */
	ck_assert(esp_ok(ADDR_R, ADDR_I, 0x1001));
	ck_assert(esp_ok(ADDR_I, ADDR_R, 0x2002));
	/* the wrong SPI for the direction, an unknown one, a third address */
	ck_assert(!esp_ok(ADDR_I, ADDR_R, 0x1001));
	ck_assert(!esp_ok(ADDR_I, ADDR_R, 0x3003));
	ck_assert(!esp_ok("198.51.100.9", ADDR_R, 0x2002));
	ck_assert_uint_eq(t.ctr.drop[FW_TRK_ESP_UNKNOWN], 3);
	ck_assert_uint_eq(t.ctr.established, 1);
	ck_assert_uint_eq(t.used, 1);
	unit_write_seed("track_bex", "\3", 1, seq_seed, seq_len);
}
END_TEST

/* The same over UDP (RFC 9028 §5.1): the same states and triples, each end's
 * UDP port learnt; ESP in UDP judged by its SPI as raw ESP. */
START_TEST(test_bex_udp)
{
	uint8_t buf[64] = { 0x45 };
	const struct fw_assoc *a;
	struct fw_esp e;

	udp_port_i = 20001;
	bex(0x1001, 0x2002, 1 * S);
	a = fw_track_find(&t, &hit_i, &hit_r);
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(a->state, FW_TS_ESTABLISHED);
	ck_assert_uint_eq(a->end[0].udp_port, 20001);
	ck_assert_uint_eq(a->end[1].udp_port, 10500);
	ck_assert_uint_eq(triples(), 2);
	unit_write_seed("track_bex_udp", "\3", 1, seq_seed, seq_len);
	/* ESP in UDP from I to R: the SPI R receives on passes, another not */
	hip_wr16(buf + 2, 20 + 8 + 16);
	buf[9] = 17;
	buf[12] = 198, buf[13] = 51, buf[14] = 100, buf[15] = 1;
	buf[16] = 203, buf[17] = 0, buf[18] = 113, buf[19] = 2;
	hip_wr16(buf + 20, 20001);
	hip_wr16(buf + 22, 10500);
	hip_wr16(buf + 24, 8 + 16);
	hip_wr32(buf + 28, 0x2002);
	ck_assert_int_eq(fw_esp_parse_udp(buf, 44, 10500, &e), FW_OK);
	ck_assert_int_eq(fw_track_esp(&t, &e.src, &e.dst, e.spi), FW_TRK_OK);
	hip_wr32(buf + 28, 0x3003);
	ck_assert_int_eq(fw_esp_parse_udp(buf, 44, 10500, &e), FW_OK);
	ck_assert_int_eq(fw_track_esp(&t, &e.src, &e.dst, e.spi), FW_TRK_ESP_UNKNOWN);
	ck_assert_uint_eq(t.ctr.drop[FW_TRK_ESP_UNKNOWN], 1);
}
END_TEST

/* The triple of a learnt direction with its UDP ports; NULL if none. */
static const struct fw_esp_triple *triple_of(const char *src, const char *dst, uint32_t spi,
					     struct fw_esp_triple tr[2 * FW_TRACK_ESP_MAX])
{
	const struct fw_assoc *a = fw_track_find(&t, &hit_i, &hit_r);
	struct hip_addr s, d;
	size_t n, i;

	ck_assert_int_eq(hip_addr_from_str(src, &s), 0);
	ck_assert_int_eq(hip_addr_from_str(dst, &d), 0);
	n = a ? fw_track_triples(a, tr, 2 * FW_TRACK_ESP_MAX) : 0;
	for (i = 0; i < n; i++)
		if (tr[i].spi == spi && memcmp(&tr[i].src, &s, sizeof(s)) == 0 &&
		    memcmp(&tr[i].dst, &d, sizeof(d)) == 0)
			return &tr[i];
	return NULL;
}

static enum fw_track_drop esp_udp(const char *src, const char *dst, uint32_t spi,
				  uint16_t sport, uint16_t dport)
{
	struct hip_addr s, d;

	ck_assert_int_eq(hip_addr_from_str(src, &s), 0);
	ck_assert_int_eq(hip_addr_from_str(dst, &d), 0);
	return fw_track_esp_udp(&t, &s, &d, spi, sport, dport);
}

/* Over UDP the triples carry the learnt ports (the kernel's u32 rule
 * matches them, D-24): ESP in UDP of a learnt SPI from another port still
 * passes in userspace, counted; a signed UPDATE from a new port of the same
 * address (a NAT rebinding) moves the triples to it, a forged one does not;
 * a move carries its port to the new locator. */
START_TEST(test_udp_ports)
{
	static const char *const NEW_I = "198.51.100.11";
	struct spec up = { .seq = 3, .sign = hi_i }, forged = { .seq = 4, .sign = hi_x };
	struct spec mv = { .seq = 5, .sign = hi_i }, ack = { .ack = 5, .sign = hi_r };
	struct fw_esp_triple tr[2 * FW_TRACK_ESP_MAX];
	const struct fw_esp_triple *x;
	const struct fw_assoc *a;
	unsigned calls;

	udp_port_i = 20001;
	bex(0x1001, 0x2002, 1 * S);
	a = fw_track_find(&t, &hit_i, &hit_r);
	x = triple_of(ADDR_I, ADDR_R, 0x2002, tr);
	ck_assert_ptr_nonnull(x);
	ck_assert_uint_eq(x->sport, 20001);
	ck_assert_uint_eq(x->dport, 10500);
	x = triple_of(ADDR_R, ADDR_I, 0x1001, tr);
	ck_assert_ptr_nonnull(x);
	ck_assert_uint_eq(x->sport, 10500);
	ck_assert_uint_eq(x->dport, 20001);
	/* the learnt ports, raw ESP, another source port: all pass, the last counted */
	ck_assert_int_eq(esp_udp(ADDR_I, ADDR_R, 0x2002, 20001, 10500), FW_TRK_OK);
	ck_assert_int_eq(esp_udp(ADDR_I, ADDR_R, 0x2002, 0, 0), FW_TRK_OK);
	ck_assert_uint_eq(t.ctr.esp_udp_other_port, 0);
	ck_assert_int_eq(esp_udp(ADDR_I, ADDR_R, 0x2002, 40000, 10500), FW_TRK_OK);
	ck_assert_int_eq(esp_udp(ADDR_R, ADDR_I, 0x1001, 10500, 20009), FW_TRK_OK);
	ck_assert_uint_eq(t.ctr.esp_udp_other_port, 2);
	ck_assert_int_eq(esp_udp(ADDR_I, ADDR_R, 0x1001, 20001, 10500), FW_TRK_ESP_UNKNOWN);
	/* the Initiator's NAT rebinds: a forged UPDATE from there changes nothing */
	udp_port_i = 20002;
	calls = esp_calls;
	ck_assert_int_eq(feed(HIP_UPDATE, &hit_i, &hit_r, ADDR_I, ADDR_R, &forged, 2 * S),
			 FW_TRK_UPDATE_FORGED);
	ck_assert_uint_eq(a->end[0].udp_port, 20001);
	ck_assert_int_eq(feed(HIP_UPDATE, &hit_i, &hit_r, ADDR_I, ADDR_R, &up, 2 * S), FW_TRK_OK);
	ck_assert_uint_eq(a->end[0].udp_port, 20002);
	ck_assert_uint_eq(t.ctr.udp_rebinds, 1);
	ck_assert_uint_eq(esp_calls, calls + 1);
	ck_assert_uint_eq(triple_of(ADDR_I, ADDR_R, 0x2002, tr)->sport, 20002);
	ck_assert_uint_eq(triple_of(ADDR_R, ADDR_I, 0x1001, tr)->dport, 20002);
	/* the same again: nothing new */
	up.seq = 6;
	ck_assert_int_eq(feed(HIP_UPDATE, &hit_i, &hit_r, ADDR_I, ADDR_R, &up, 2 * S), FW_TRK_OK);
	ck_assert_uint_eq(t.ctr.udp_rebinds, 1);
	/* a move to NEW_I behind another NAT port: the port goes with it */
	udp_port_i = 20003;
	ck_assert_int_eq(feed(HIP_UPDATE, &hit_i, &hit_r, NEW_I, ADDR_R, &mv, 3 * S), FW_TRK_OK);
	ck_assert(a->end[0].have_loc_next);
	ck_assert_uint_eq(a->end[0].udp_port_next, 20003);
	ck_assert_uint_eq(triple_of(NEW_I, ADDR_R, 0x2002, tr)->sport, 20003);
	ck_assert_uint_eq(triple_of(ADDR_I, ADDR_R, 0x2002, tr)->sport, 20002);
	ck_assert_uint_eq(triple_of(ADDR_R, NEW_I, 0x1001, tr)->dport, 20003);
	ck_assert_int_eq(feed(HIP_UPDATE, &hit_r, &hit_i, ADDR_R, NEW_I, &ack, 3 * S), FW_TRK_OK);
	ck_assert(!a->end[0].have_loc_next);
	ck_assert_uint_eq(a->end[0].udp_port, 20003);
	ck_assert_uint_eq(a->end[0].udp_port_next, 0);
	ck_assert_ptr_null(triple_of(ADDR_I, ADDR_R, 0x2002, tr));
	ck_assert_uint_eq(triple_of(NEW_I, ADDR_R, 0x2002, tr)->sport, 20003);
	ck_assert_uint_eq(t.ctr.udp_rebinds, 1);
}
END_TEST

START_TEST(test_i2_replay)
{
	struct spec i2 = { .spi = 0x1001, .host_id = true, .sign = hi_i };

	bex(0x1001, 0x2002, 1 * S);
	/* the same I2 from another address: dropped, state kept */
	ck_assert_int_eq(feed(HIP_I2, &hit_i, &hit_r, "198.51.100.77", ADDR_R, &i2, 2 * S),
			 FW_TRK_I2_REPLAY);
	ck_assert_uint_eq(t.ctr.drop[FW_TRK_I2_REPLAY], 1);
	ck_assert_int_eq(state(), FW_TS_ESTABLISHED);
	/* a retransmission from the Initiator's own address passes, ESP stays */
	ck_assert_int_eq(feed(HIP_I2, &hit_i, &hit_r, ADDR_I, ADDR_R, &i2, 2 * S), FW_TRK_OK);
	ck_assert_uint_eq(triples(), 2);
}
END_TEST

/* Signatures: R2, CLOSE and UPDATE signed by another key are dropped; an
 * R1 whose HOST_ID does not give its HIT never reaches the tracker. */
START_TEST(test_signatures)
{
	struct spec r1 = { .host_id = true, .sign = hi_r };
	struct spec i2 = { .spi = 0x1001, .host_id = true, .sign = hi_i };
	struct spec bad_r2 = { .spi = 0x2002, .sign = hi_x };
	struct spec r2 = { .spi = 0x2002, .sign = hi_r };
	struct spec forged = { .seq = 1, .spi = 0x1005, .old_spi = 0x1001, .sign = hi_x };
	struct spec close = { .sign = hi_x };
	struct spec x_r1 = { .host_id = true, .sign = hi_x };

	ck_assert_int_eq(feed(HIP_I1, &hit_i, &hit_r, ADDR_I, ADDR_R, NULL, S), FW_TRK_OK);
	/* X's HOST_ID under R's HIT: fw_verify refuses it before the tracker */
	ck_assert_int_eq(feed(HIP_R1, &hit_r, &hit_i, ADDR_R, ADDR_I, &x_r1, S),
			 FW_TRK_BAD_SIGNATURE);
	ck_assert_int_eq(state(), FW_TS_I1);
	ck_assert_int_eq(feed(HIP_R1, &hit_r, &hit_i, ADDR_R, ADDR_I, &r1, S), FW_TRK_OK);
	ck_assert_int_eq(feed(HIP_I2, &hit_i, &hit_r, ADDR_I, ADDR_R, &i2, S), FW_TRK_OK);
	ck_assert_int_eq(feed(HIP_R2, &hit_r, &hit_i, ADDR_R, ADDR_I, &bad_r2, S),
			 FW_TRK_BAD_SIGNATURE);
	ck_assert_int_eq(state(), FW_TS_I2);
	ck_assert_uint_eq(triples(), 0);
	ck_assert_int_eq(feed(HIP_R2, &hit_r, &hit_i, ADDR_R, ADDR_I, &r2, S), FW_TRK_OK);
	/* a forged UPDATE: dropped, its rekey not learnt */
	ck_assert_int_eq(feed(HIP_UPDATE, &hit_i, &hit_r, ADDR_I, ADDR_R, &forged, S),
			 FW_TRK_UPDATE_FORGED);
	ck_assert_uint_eq(fw_track_find(&t, &hit_i, &hit_r)->end[0].spi_next, 0);
	/* a forged CLOSE: dropped, ESP stays */
	ck_assert_int_eq(feed(HIP_CLOSE, &hit_i, &hit_r, ADDR_I, ADDR_R, &close, S),
			 FW_TRK_BAD_SIGNATURE);
	ck_assert_int_eq(state(), FW_TS_ESTABLISHED);
	ck_assert_uint_eq(t.ctr.drop[FW_TRK_UPDATE_FORGED], 1);
	ck_assert_uint_eq(t.ctr.drop[FW_TRK_BAD_SIGNATURE], 2);
}
END_TEST

/* CLOSE removes ESP; afterwards only CLOSE/CLOSE_ACK and a new I1 pass. */
START_TEST(test_close)
{
	struct spec ci = { .sign = hi_i }, cr = { .sign = hi_r };
	struct spec upd = { .seq = 2, .sign = hi_i };

	bex(0x1001, 0x2002, 1 * S);
	ck_assert_int_eq(feed(HIP_CLOSE, &hit_i, &hit_r, ADDR_I, ADDR_R, &ci, 2 * S), FW_TRK_OK);
	ck_assert_int_eq(state(), FW_TS_CLOSING);
	ck_assert_uint_eq(triples(), 0);
	ck_assert_uint_eq(esp_calls, 2);
	ck_assert(!esp_ok(ADDR_I, ADDR_R, 0x2002));
	ck_assert_int_eq(feed(HIP_UPDATE, &hit_i, &hit_r, ADDR_I, ADDR_R, &upd, 2 * S),
			 FW_TRK_AFTER_CLOSE);
	ck_assert_int_eq(feed(HIP_CLOSE_ACK, &hit_r, &hit_i, ADDR_R, ADDR_I, &cr, 2 * S),
			 FW_TRK_OK);
	ck_assert_int_eq(state(), FW_TS_CLOSED);
	ck_assert_int_eq(feed(HIP_UPDATE, &hit_r, &hit_i, ADDR_R, ADDR_I, &upd, 2 * S),
			 FW_TRK_AFTER_CLOSE);
	ck_assert_uint_eq(t.ctr.drop[FW_TRK_AFTER_CLOSE], 2);
	/* a new exchange, the other way round this time */
	ck_assert_int_eq(feed(HIP_I1, &hit_r, &hit_i, ADDR_R, ADDR_I, NULL, 3 * S), FW_TRK_OK);
	ck_assert_int_eq(state(), FW_TS_I1);
	ck_assert_int_eq(hip_hit_cmp(&fw_track_find(&t, &hit_i, &hit_r)->end[0].hit, &hit_r), 0);
	ck_assert_uint_eq(t.ctr.closed, 1);
	unit_write_seed("track_close", "\3", 1, seq_seed, seq_len);
}
END_TEST

/* UPDATE: a move and a rekey are allowed at once beside the old locator and
 * SPI, which go when the peer ACKs (RFC 8046 §5.3, RFC 7402 §6.9). */
START_TEST(test_update_move_rekey)
{
	static const char *const NEW_I = "198.51.100.11";
	struct spec mv = { .seq = 7, .spi = 0x1003, .old_spi = 0x1001, .sign = hi_i };
	struct spec ack = { .seq = 9, .ack = 7, .spi = 0x2002, .old_spi = 0x2002, .sign = hi_r };
	struct spec ack2 = { .ack = 9, .sign = hi_i };
	const struct fw_assoc *a;

	bex(0x1001, 0x2002, 1 * S);
	ck_assert_int_eq(feed(HIP_UPDATE, &hit_i, &hit_r, NEW_I, ADDR_R, &mv, 2 * S), FW_TRK_OK);
	a = fw_track_find(&t, &hit_i, &hit_r);
	ck_assert(a->end[0].have_loc_next);
	ck_assert_uint_eq(a->end[0].spi_next, 0x1003);
	/* old and new both allowed, either SPI, either address of the Initiator */
	ck_assert(esp_ok(ADDR_I, ADDR_R, 0x2002));
	ck_assert(esp_ok(NEW_I, ADDR_R, 0x2002));
	ck_assert(esp_ok(ADDR_R, NEW_I, 0x1003));
	ck_assert(esp_ok(ADDR_R, ADDR_I, 0x1001));
	ck_assert_uint_eq(triples(), 2 + 4);
	/* the Responder ACKs SEQ 7: only the new address and SPI remain */
	ck_assert_int_eq(feed(HIP_UPDATE, &hit_r, &hit_i, ADDR_R, NEW_I, &ack, 2 * S), FW_TRK_OK);
	ck_assert(!a->end[0].have_loc_next);
	ck_assert_uint_eq(a->end[0].spi, 0x1003);
	ck_assert(!esp_ok(ADDR_I, ADDR_R, 0x2002));
	ck_assert(!esp_ok(ADDR_R, ADDR_I, 0x1001));
	ck_assert(esp_ok(NEW_I, ADDR_R, 0x2002));
	ck_assert(esp_ok(ADDR_R, NEW_I, 0x1003));
	ck_assert_uint_eq(triples(), 2);
	ck_assert_int_eq(feed(HIP_UPDATE, &hit_i, &hit_r, NEW_I, ADDR_R, &ack2, 2 * S), FW_TRK_OK);
	ck_assert_uint_eq(t.ctr.moves, 1);
	ck_assert_uint_eq(t.ctr.rekeys, 1);
	ck_assert_uint_eq(t.ctr.updates, 3);
	/* a move announced in LOCATOR_SET, sent from the old address */
	mv = (struct spec){ .seq = 8, .locator = "198.51.100.12", .sign = hi_i };
	ck_assert_int_eq(feed(HIP_UPDATE, &hit_i, &hit_r, NEW_I, ADDR_R, &mv, 3 * S), FW_TRK_OK);
	ck_assert(esp_ok("198.51.100.12", ADDR_R, 0x2002));
	unit_write_seed("track_update", "\3", 1, seq_seed, seq_len);
}
END_TEST

/* An I2 with its HOST_ID encrypted (no HOST_ID here): accepted and marked
 * by default, dropped when strict (D-18); an UPDATE of an unknown pair. */
START_TEST(test_unverified)
{
	struct spec r1 = { .host_id = true, .sign = hi_r };
	struct spec i2 = { .spi = 0x1001 };
	struct spec r2 = { .spi = 0x2002, .sign = hi_r };
	struct spec upd = { .seq = 1, .sign = hi_i };

	ck_assert_int_eq(feed(HIP_I1, &hit_i, &hit_r, ADDR_I, ADDR_R, NULL, S), FW_TRK_OK);
	ck_assert_int_eq(feed(HIP_R1, &hit_r, &hit_i, ADDR_R, ADDR_I, &r1, S), FW_TRK_OK);
	ck_assert_int_eq(feed(HIP_I2, &hit_i, &hit_r, ADDR_I, ADDR_R, &i2, S), FW_TRK_OK);
	ck_assert_int_eq(feed(HIP_R2, &hit_r, &hit_i, ADDR_R, ADDR_I, &r2, S), FW_TRK_OK);
	ck_assert(fw_track_find(&t, &hit_i, &hit_r)->unverified);
	ck_assert_uint_eq(t.ctr.unverified_accepted, 1);
	ck_assert_uint_eq(triples(), 2);
	fw_track_free(&t);
	ck_assert_int_eq(fw_track_init(&t, 16, true, NULL, NULL), 0);
	ck_assert_int_eq(feed(HIP_UPDATE, &hit_i, &hit_r, ADDR_I, ADDR_R, &upd, S),
			 FW_TRK_NO_ASSOCIATION);
	ck_assert_int_eq(feed(HIP_I1, &hit_i, &hit_r, ADDR_I, ADDR_R, NULL, S), FW_TRK_OK);
	ck_assert_int_eq(feed(HIP_R1, &hit_r, &hit_i, ADDR_R, ADDR_I, &r1, S), FW_TRK_OK);
	ck_assert_int_eq(feed(HIP_I2, &hit_i, &hit_r, ADDR_I, ADDR_R, &i2, S), FW_TRK_UNVERIFIED);
	ck_assert_int_eq(state(), FW_TS_R1);
	/* an R2 without its I2 seen */
	ck_assert_int_eq(feed(HIP_R2, &hit_r, &hit_i, ADDR_R, ADDR_I, &r2, S),
			 FW_TRK_NO_ASSOCIATION);
	ck_assert_uint_eq(t.ctr.drop[FW_TRK_UNVERIFIED], 1);
	ck_assert_uint_eq(t.ctr.drop[FW_TRK_NO_ASSOCIATION], 2);
}
END_TEST

/* The table holds at most max entries: a new I1 pushes out the oldest
 * half-open one, never an established one; half-open and closed entries
 * expire. */
START_TEST(test_bounds)
{
	struct hip_hi *k[6];
	struct hip_hit h[6];
	int i;

	fw_track_free(&t);
	ck_assert_int_eq(fw_track_init(&t, 4, false, NULL, NULL), 0);
	bex(0x1001, 0x2002, 1 * S);
	for (i = 0; i < 6; i++) {
		ck_assert_int_eq(hip_hi_generate(HIP_HI_KIND_ECDSA_P256, &k[i]), 0);
		hit_of(k[i], &h[i]);
	}
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(feed(HIP_I1, &h[i], &hit_r, ADDR_I, ADDR_R, NULL,
				      (uint64_t)(2 + i) * S), FW_TRK_OK);
	ck_assert_uint_eq(t.used, 4);
	ck_assert_uint_eq(t.ctr.evicted, 2);
	ck_assert_ptr_null(fw_track_find(&t, &h[0], &hit_r));
	ck_assert_ptr_null(fw_track_find(&t, &h[1], &hit_r));
	ck_assert_ptr_nonnull(fw_track_find(&t, &h[4], &hit_r));
	ck_assert_int_eq(state(), FW_TS_ESTABLISHED);
	/* half-open ones go after FW_TRACK_HALF_OPEN_S, the established one stays */
	fw_track_expire(&t, (6 + FW_TRACK_HALF_OPEN_S) * S);
	ck_assert_uint_eq(t.used, 2);
	fw_track_expire(&t, (7 + FW_TRACK_HALF_OPEN_S) * S);
	ck_assert_uint_eq(t.used, 1);
	ck_assert_uint_eq(t.ctr.expired, 3);
	ck_assert_int_eq(state(), FW_TS_ESTABLISHED);
	/* a full table of established associations refuses a new one */
	fw_track_free(&t);
	ck_assert_int_eq(fw_track_init(&t, 1, false, NULL, NULL), 0);
	bex(0x1001, 0x2002, 1 * S);
	ck_assert_int_eq(feed(HIP_I1, &h[5], &hit_r, ADDR_I, ADDR_R, NULL, 2 * S),
			 FW_TRK_TABLE_FULL);
	ck_assert_uint_eq(t.ctr.drop[FW_TRK_TABLE_FULL], 1);
	for (i = 0; i < 6; i++)
		hip_hi_free(k[i]);
}
END_TEST

/* ESP through fw_esp_parse: addresses and SPI, non-ESP told apart. */
START_TEST(test_esp_parse)
{
	uint8_t buf[64] = { 0x45 };
	struct fw_esp e;

	hip_wr16(buf + 2, 20 + 16);
	buf[9] = 50;
	buf[12] = 192, buf[15] = 1, buf[16] = 192, buf[19] = 2;
	hip_wr32(buf + 20, 0x11223344);
	unit_write_seed("ip4_esp", "\1", 1, buf, 36);
	ck_assert_int_eq(fw_esp_parse(buf, 36, &e), FW_OK);
	ck_assert_uint_eq(e.spi, 0x11223344);
	ck_assert(hip_addr_is_v4(&e.src));
	ck_assert_int_eq(fw_esp_parse(buf, 24, &e), FW_BAD_IP);
	hip_wr16(buf + 2, 20 + 4);
	ck_assert_int_eq(fw_esp_parse(buf, 36, &e), FW_BAD_IP);
	buf[9] = 139;
	ck_assert_int_eq(fw_esp_parse(buf, 36, &e), FW_NOT_HIP);
}
END_TEST

static Suite *track_suite(void)
{
	Suite *s = suite_create("hipfw-track");
	TCase *tc = tcase_create("track");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_bex);
	tcase_add_test(tc, test_i2_replay);
	tcase_add_test(tc, test_signatures);
	tcase_add_test(tc, test_close);
	tcase_add_test(tc, test_update_move_rekey);
	tcase_add_test(tc, test_unverified);
	tcase_add_test(tc, test_bounds);
	tcase_add_test(tc, test_esp_parse);
	tcase_add_test(tc, test_bex_udp);
	tcase_add_test(tc, test_udp_ports);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(track_suite)
