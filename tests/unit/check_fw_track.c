/*
 * check_fw_track.c - hipfw's association tracker (firewall/fw_track.c)
 * with packets built by libhipcore and signed by real keys: the states a
 * middlebox follows, the SPIs and locators it learns (the ESP triples the
 * kernel is told to pass), each reason to drop, the table's bounds, the
 * same exchange over UDP (RFC 9028 §5.1, the ports learnt); and
 * the state file that carries the table across a restart (firewall/
 * fw_state.c, D-21): a round trip, the probation of what it restores, and
 * the files it refuses (truncated, another version, counts too big, a
 * Host Identity that does not give its HIT).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "byteorder.h"
#include "coverage.h"
#include "fw_packet.h"
#include "fw_state.h"
#include "fw_track.h"
#include "hip_crypto.h"
#include "params.h"
#include "unit.h"

static const uint64_t S = 1000000000ull;

static struct hip_hi *hi_i, *hi_r, *hi_x;
static struct hip_hit hit_i, hit_r;
static struct fw_track t;
static unsigned esp_calls;
/* the packets fed so far, each behind its 16-bit length: a seed of the
 * fuzz target's sequence mode (tests/fuzz/fuzz_fw.c) */
static uint8_t seq_seed[16384];
static size_t seq_len;

static const char *const ADDR_I = "198.51.100.1", *const ADDR_R = "203.0.113.2";
/* != 0: feed() sends over UDP (RFC 9028 §5.1), the Initiator from this
 * port (a NAT's mapping), the Responder from 10500 */
static uint16_t udp_port_i;

static void hit_of(const struct hip_hi *hi, struct hip_hit *hit)
{
	size_t len;
	const uint8_t *w = hip_hi_wire(hi, &len);

	ck_assert_int_eq(hip_hit_from_hi((uint8_t)hip_hi_suite(hi), w, len, hit), 0);
}

static void esp_cb(const struct fw_assoc *a, void *arg)
{
	(void)a;
	(void)arg;
	esp_calls++;
}

static void setup(void)
{
	ck_assert_int_eq(hip_crypto_init(), 0);
	ck_assert_int_eq(hip_hi_generate(HIP_HI_KIND_ECDSA_P256, &hi_i), 0);
	ck_assert_int_eq(hip_hi_generate(HIP_HI_KIND_ECDSA_P256, &hi_r), 0);
	ck_assert_int_eq(hip_hi_generate(HIP_HI_KIND_ECDSA_P256, &hi_x), 0);
	hit_of(hi_i, &hit_i);
	hit_of(hi_r, &hit_r);
	ck_assert_int_eq(fw_track_init(&t, 16, false, esp_cb, NULL), 0);
	esp_calls = 0;
	seq_len = 0;
	udp_port_i = 0;
}

static void teardown(void)
{
	fw_track_free(&t);
	hip_hi_free(hi_i);
	hip_hi_free(hi_r);
	hip_hi_free(hi_x);
}

/* What a packet carries besides its header. */
struct spec {
	uint32_t spi, old_spi;      /* ESP_INFO when spi != 0 */
	uint32_t seq, ack;          /* SEQ / ACK when != 0 */
	const char *locator;        /* LOCATOR_SET with this preferred address */
	bool host_id;               /* the signer's HOST_ID in the clear */
	const struct hip_hi *sign;  /* the key that signs (NULL: no signature) */
};

/* A HIP packet of type from `from` to `to`, in IPv4 (src -> dst), through
 * fw_packet_parse and fw_verify_host_id_keep into the tracker. */
static enum fw_track_drop feed(uint8_t type, const struct hip_hit *from, const struct hip_hit *to,
			       const char *src, const char *dst, const struct spec *sp,
			       uint64_t now)
{
	uint8_t buf[2048];
	struct hip_addr s, d;
	struct hip_builder b;
	struct fw_packet p;
	struct hip_hi *hi = NULL;
	struct in_addr v4;
	enum fw_track_drop why;
	int n;

	ck_assert_int_eq(hip_addr_from_str(src, &s), 0);
	ck_assert_int_eq(hip_addr_from_str(dst, &d), 0);
	memset(buf, 0, sizeof(buf));
	hip_build_init(&b, buf + 20, sizeof(buf) - 20, type, from, to);
	if (sp && sp->spi) {
		struct hip_esp_info ei = { .keymat_index = 0, .old_spi = sp->old_spi,
					   .new_spi = sp->spi };

		hip_esp_info_build(&b, &ei);
	}
	if (type == HIP_R1) {
		struct hip_r1_counter rc;

		hip_r1_counter_set(&rc, 1);
		hip_r1_counter_build(&b, &rc);
	}
	if (sp && sp->locator) {
		struct hip_locator_set ls = { .n = 1 };

		ls.loc[0] = (struct hip_locator){ .traffic_type = 0, .locator_type = 0,
						  .preferred = true, .lifetime = 60 };
		ck_assert_int_eq(hip_addr_from_str(sp->locator, &ls.loc[0].addr), 0);
		hip_locator_set_build(&b, &ls);
	}
	if (sp && sp->seq)
		hip_seq_build(&b, sp->seq);
	if (sp && sp->ack) {
		struct hip_ack ack = { .n = 1, .id = { sp->ack } };

		hip_ack_build(&b, &ack);
	}
	if (sp && sp->host_id) {
		struct hip_host_id hid = { .algorithm = hip_hi_algorithm(sp->sign) };
		size_t wl;

		hid.hi = hip_hi_wire(sp->sign, &wl);
		hid.hi_len = (uint16_t)wl;
		hip_host_id_build(&b, &hid);
	}
	if (sp && sp->sign)
		hip_build_signature(&b, type == HIP_R1 ? HIP_COVER_SIGNATURE_2 :
				    HIP_COVER_SIGNATURE, sp->sign);
	n = hip_build_finish(&b);
	ck_assert_int_gt(n, 0);
	hip_packet_set_checksum(buf + 20, (size_t)n, &s, &d);
	buf[0] = 0x45;
	buf[9] = 139;
	if (udp_port_i) {
		bool from_i = strcmp(src, ADDR_I) == 0;

		/* UDP, the zero marker, the packet with its checksum 0 (as hipd sends) */
		ck_assert_uint_le(32 + (size_t)n, sizeof(buf));
		memmove(buf + 32, buf + 20, (size_t)n);
		memset(buf + 20, 0, 12);
		buf[32 + 4] = buf[32 + 5] = 0;
		hip_wr16(buf + 20, from_i ? udp_port_i : 10500);
		hip_wr16(buf + 22, from_i ? 10500 : udp_port_i);
		hip_wr16(buf + 24, (uint16_t)(12 + n));
		buf[9] = 17;
		n += 12;
	}
	hip_wr16(buf + 2, (uint16_t)(20 + n));
	v4 = hip_addr_v4(&s);
	memcpy(buf + 12, &v4, 4);
	v4 = hip_addr_v4(&d);
	memcpy(buf + 16, &v4, 4);
	ck_assert_int_eq(fw_packet_parse_udp(buf, 20 + (size_t)n, 10500, &p), FW_OK);
	if (seq_len + 2 + 20 + (size_t)n <= sizeof(seq_seed)) {
		hip_wr16(seq_seed + seq_len, (uint16_t)(20 + n));
		memcpy(seq_seed + seq_len + 2, buf, 20 + (size_t)n);
		seq_len += 2 + 20 + (size_t)n;
	}
	if (fw_verify_host_id_keep(&p, &hi) != FW_OK)
		return FW_TRK_BAD_SIGNATURE;   /* not the tracker's: never returned below */
	why = fw_track_hip(&t, &p, hi, now);
	hip_hi_free(hi);
	return why;
}

/* I1, R1, I2 (HOST_ID clear), R2 between ADDR_I and ADDR_R at time now. */
static void bex(uint32_t spi_i, uint32_t spi_r, uint64_t now)
{
	struct spec r1 = { .host_id = true, .sign = hi_r };
	struct spec i2 = { .spi = spi_i, .host_id = true, .sign = hi_i };
	struct spec r2 = { .spi = spi_r, .sign = hi_r };

	ck_assert_int_eq(feed(HIP_I1, &hit_i, &hit_r, ADDR_I, ADDR_R, NULL, now), FW_TRK_OK);
	ck_assert_int_eq(feed(HIP_R1, &hit_r, &hit_i, ADDR_R, ADDR_I, &r1, now), FW_TRK_OK);
	ck_assert_int_eq(feed(HIP_I2, &hit_i, &hit_r, ADDR_I, ADDR_R, &i2, now), FW_TRK_OK);
	ck_assert_int_eq(feed(HIP_R2, &hit_r, &hit_i, ADDR_R, ADDR_I, &r2, now), FW_TRK_OK);
}

static bool esp_ok(const char *src, const char *dst, uint32_t spi)
{
	struct hip_addr s, d;

	ck_assert_int_eq(hip_addr_from_str(src, &s), 0);
	ck_assert_int_eq(hip_addr_from_str(dst, &d), 0);
	return fw_track_esp(&t, &s, &d, spi) == FW_TRK_OK;
}

static size_t triples(void)
{
	struct fw_esp_triple tr[2 * FW_TRACK_ESP_MAX];
	const struct fw_assoc *a = fw_track_find(&t, &hit_i, &hit_r);

	return a ? fw_track_triples(a, tr, sizeof(tr) / sizeof(tr[0])) : 0;
}

static enum fw_track_state state(void)
{
	const struct fw_assoc *a = fw_track_find(&t, &hit_r, &hit_i);

	return a ? a->state : 0;
}

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

/* ---- the state file (fw_state.c) ---- */

/* t encoded, into a fresh tracker of max entries (tracker u), at now. */
static int reload(struct fw_track *u, uint32_t max, const uint8_t *buf, size_t len, uint64_t now,
		  char *err, size_t err_len)
{
	ck_assert_int_eq(fw_track_init(u, max, false, esp_cb, NULL), 0);
	return fw_state_decode(u, buf, len, now, 10 * S, err, err_len);
}

/* A round trip: the established association comes back as it was (HITs,
 * HIs, SPIs, locators, state, verified), on probation: no kernel rules
 * until its ESP (seen in userspace) confirms it; the half-open entry is
 * not written. */
START_TEST(test_state_round_trip)
{
	static const char *const NEW_I = "198.51.100.11";
	struct spec mv = { .seq = 7, .sign = hi_i };
	const struct fw_assoc *a, *b;
	struct hip_hit other = hit_r;
	struct fw_track u;
	uint8_t *buf;
	size_t len;
	char err[256];

	bex(0x1001, 0x2002, 1 * S);
	ck_assert_int_eq(feed(HIP_UPDATE, &hit_i, &hit_r, NEW_I, ADDR_R, &mv, 2 * S), FW_TRK_OK);
	other.b[15] ^= 1;
	ck_assert_int_eq(feed(HIP_I1, &hit_i, &other, ADDR_I, ADDR_R, NULL, 2 * S), FW_TRK_OK);
	ck_assert(t.dirty);
	ck_assert_int_eq(fw_state_encode(&t, &buf, &len), 0);
	ck_assert_int_eq(reload(&u, 16, buf, len, 5 * S, err, sizeof(err)), 1);
	a = fw_track_find(&t, &hit_i, &hit_r);
	b = fw_track_find(&u, &hit_r, &hit_i);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_null(fw_track_find(&u, &hit_i, &other));
	ck_assert_uint_eq(u.used, 1);
	ck_assert_int_eq(b->state, FW_TS_ESTABLISHED);
	ck_assert(!b->unverified);
	ck_assert_int_eq(hip_hit_cmp(&b->end[0].hit, &hit_i), 0);
	for (int i = 0; i < 2; i++) {
		const struct fw_track_end *x = &a->end[i], *y = &b->end[i];
		size_t l1, l2;
		const uint8_t *w1 = hip_hi_wire(x->hi, &l1), *w2 = hip_hi_wire(y->hi, &l2);

		ck_assert_uint_eq(l1, l2);
		ck_assert_mem_eq(w1, w2, l1);
		ck_assert_mem_eq(&x->loc, &y->loc, sizeof(x->loc));
		ck_assert_int_eq(x->have_loc_next, y->have_loc_next);
		ck_assert_mem_eq(&x->loc_next, &y->loc_next, sizeof(x->loc_next));
		ck_assert_uint_eq(x->loc_seq, y->loc_seq);
		ck_assert_uint_eq(x->spi, y->spi);
		ck_assert_uint_eq(x->spi_next, y->spi_next);
	}
	ck_assert_uint_eq(b->probation_ns, 15 * S);
	ck_assert_uint_eq(u.ctr.restored, 1);
	ck_assert(!u.dirty);
	/* on probation: no kernel triples, but its ESP passes and confirms it */
	{
		struct fw_esp_triple tr[2 * FW_TRACK_ESP_MAX];
		struct hip_addr s, d;
		unsigned calls = esp_calls;

		ck_assert_uint_eq(fw_track_triples(b, tr, 2 * FW_TRACK_ESP_MAX), 0);
		ck_assert_int_eq(hip_addr_from_str(ADDR_R, &s), 0);
		ck_assert_int_eq(hip_addr_from_str(ADDR_I, &d), 0);
		ck_assert_int_eq(fw_track_esp(&u, &s, &d, 0x3003), FW_TRK_ESP_UNKNOWN);
		ck_assert_uint_ne(b->probation_ns, 0);
		ck_assert_int_eq(fw_track_esp(&u, &s, &d, 0x1001), FW_TRK_OK);
		ck_assert_uint_eq(b->probation_ns, 0);
		ck_assert_uint_eq(u.ctr.confirmed, 1);
		ck_assert_uint_eq(esp_calls, calls + 1);
		ck_assert_uint_eq(fw_track_triples(b, tr, 2 * FW_TRACK_ESP_MAX), 4);
		ck_assert(u.dirty);
	}
	/* confirmed: it outlives the grace period */
	fw_track_expire(&u, 100 * S);
	ck_assert_uint_eq(u.used, 1);
	fw_track_free(&u);
	free(buf);
}
END_TEST

/* Probation ends with a verified UPDATE; an entry nothing confirms is
 * forgotten once the grace period is over, its ESP dropped. */
START_TEST(test_state_probation)
{
	struct spec up = { .seq = 3, .sign = hi_i }, forged = { .seq = 4, .sign = hi_x };
	const struct fw_assoc *a;
	struct fw_track keep;
	uint8_t *buf;
	size_t len;
	char err[256];

	bex(0x1001, 0x2002, 1 * S);
	ck_assert_int_eq(fw_state_encode(&t, &buf, &len), 0);
	keep = t;
	/* a forged UPDATE does not confirm; a verified one does */
	ck_assert_int_eq(reload(&t, 16, buf, len, 5 * S, err, sizeof(err)), 1);
	a = fw_track_find(&t, &hit_i, &hit_r);
	ck_assert_int_eq(feed(HIP_UPDATE, &hit_i, &hit_r, ADDR_I, ADDR_R, &forged, 6 * S),
			 FW_TRK_UPDATE_FORGED);
	ck_assert_uint_ne(a->probation_ns, 0);
	ck_assert_int_eq(feed(HIP_UPDATE, &hit_i, &hit_r, ADDR_I, ADDR_R, &up, 6 * S), FW_TRK_OK);
	ck_assert_uint_eq(a->probation_ns, 0);
	ck_assert_uint_eq(triples(), 2);
	fw_track_free(&t);
	/* unconfirmed: kept until the grace period ends, then gone */
	ck_assert_int_eq(reload(&t, 16, buf, len, 5 * S, err, sizeof(err)), 1);
	fw_track_expire(&t, 14 * S);
	ck_assert_uint_eq(t.used, 1);
	ck_assert(esp_ok(ADDR_I, ADDR_R, 0x2002));   /* (confirms it) */
	fw_track_free(&t);
	ck_assert_int_eq(reload(&t, 16, buf, len, 5 * S, err, sizeof(err)), 1);
	fw_track_expire(&t, 15 * S);
	ck_assert_uint_eq(t.used, 0);
	ck_assert_uint_eq(t.ctr.unconfirmed, 1);
	ck_assert(!esp_ok(ADDR_I, ADDR_R, 0x2002));
	fw_track_free(&t);
	t = keep;
	free(buf);
}
END_TEST

/* Every prefix of a good file, and the file with a byte more, refused,
 * the tracker left empty. */
START_TEST(test_state_truncated)
{
	struct fw_track u;
	uint8_t *buf, *big;
	size_t len, n;
	char err[256];

	bex(0x1001, 0x2002, 1 * S);
	ck_assert_int_eq(fw_state_encode(&t, &buf, &len), 0);
	for (n = 0; n < len; n++) {
		ck_assert_int_lt(reload(&u, 16, buf, n, 5 * S, err, sizeof(err)), 0);
		ck_assert_uint_eq(u.used, 0);
		ck_assert_uint_eq(u.ctr.restored, 0);
		fw_track_free(&u);
	}
	big = calloc(1, len + 1);
	ck_assert_ptr_nonnull(big);
	memcpy(big, buf, len);
	ck_assert_int_eq(reload(&u, 16, big, len + 1, 5 * S, err, sizeof(err)), -EBADMSG);
	ck_assert_str_eq(err, "1 bytes after the last association");
	fw_track_free(&u);
	unit_write_seed("state_good", "", 0, buf, len);
	free(big);
	free(buf);
}
END_TEST

/* Another version, another magic, a count larger than the file or the
 * table, a bad state, an HI that does not give its HIT, a pair twice. */
START_TEST(test_state_refused)
{
	struct fw_track u;
	uint8_t *buf, *two;
	size_t len, one;
	char err[256];

	bex(0x1001, 0x2002, 1 * S);
	ck_assert_int_eq(fw_state_encode(&t, &buf, &len), 0);
	ck_assert_uint_eq(hip_rd32(buf + 12), 1);
	buf[9] = 2;
	ck_assert_int_eq(reload(&u, 16, buf, len, 5 * S, err, sizeof(err)), -EPROTONOSUPPORT);
	ck_assert_ptr_nonnull(strstr(err, "version 2"));
	fw_track_free(&u);
	buf[9] = 1;
	buf[0] = 'X';
	ck_assert_int_eq(reload(&u, 16, buf, len, 5 * S, err, sizeof(err)), -EBADMSG);
	fw_track_free(&u);
	buf[0] = 'H';
	hip_wr32(buf + 12, 0xffffffffu);
	ck_assert_int_eq(reload(&u, 16, buf, len, 5 * S, err, sizeof(err)), -E2BIG);
	fw_track_free(&u);
	hip_wr32(buf + 12, 2);
	ck_assert_int_eq(reload(&u, 16, buf, len, 5 * S, err, sizeof(err)), -E2BIG);
	fw_track_free(&u);
	hip_wr32(buf + 12, 1);
	/* a table of one entry takes it; the state byte out of range does not */
	ck_assert_int_eq(reload(&u, 1, buf, len, 5 * S, err, sizeof(err)), 1);
	fw_track_free(&u);
	buf[FW_STATE_HEADER] = 9;
	ck_assert_int_eq(reload(&u, 16, buf, len, 5 * S, err, sizeof(err)), -EBADMSG);
	fw_track_free(&u);
	buf[FW_STATE_HEADER] = FW_TS_ESTABLISHED;
	/* the Initiator's HIT changed: its HI no longer gives it */
	buf[FW_STATE_HEADER + FW_STATE_ENTRY + 15] ^= 1;
	ck_assert_int_eq(reload(&u, 16, buf, len, 5 * S, err, sizeof(err)), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "does not give its HIT"));
	ck_assert_uint_eq(u.used, 0);
	fw_track_free(&u);
	buf[FW_STATE_HEADER + FW_STATE_ENTRY + 15] ^= 1;
	/* the same association twice: the second refused, the first undone */
	one = len - FW_STATE_HEADER;
	two = malloc(len + one);
	ck_assert_ptr_nonnull(two);
	memcpy(two, buf, len);
	memcpy(two + len, buf + FW_STATE_HEADER, one);
	hip_wr32(two + 12, 2);
	ck_assert_int_eq(reload(&u, 16, two, len + one, 5 * S, err, sizeof(err)), -EBADMSG);
	ck_assert_uint_eq(u.used, 0);
	fw_track_free(&u);
	free(two);
	free(buf);
}
END_TEST

/* fw_state_save and fw_state_load: mode 0600, no temporary file left, a
 * missing file is no error, a garbage file is refused. */
START_TEST(test_state_file)
{
	char dir[] = "/tmp/check_fw_state.XXXXXX", path[256], err[512];
	struct fw_track u;
	struct stat st;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(fw_track_init(&u, 16, false, NULL, NULL), 0);
	ck_assert_int_eq(fw_state_load(&u, dir, 1 * S, 10 * S, err, sizeof(err)), 0);
	bex(0x1001, 0x2002, 1 * S);
	ck_assert_int_eq(fw_state_save(&t, dir), 0);
	snprintf(path, sizeof(path), "%s/hipfw.state", dir);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	snprintf(path, sizeof(path), "%s/hipfw.state.tmp", dir);
	ck_assert_int_ne(access(path, F_OK), 0);
	ck_assert_int_eq(fw_state_load(&u, dir, 1 * S, 10 * S, err, sizeof(err)), 1);
	ck_assert_ptr_nonnull(fw_track_find(&u, &hit_i, &hit_r));
	fw_track_free(&u);
	snprintf(path, sizeof(path), "%s/hipfw.state", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("not a state file\n", f);
	fclose(f);
	ck_assert_int_eq(fw_track_init(&u, 16, false, NULL, NULL), 0);
	ck_assert_int_lt(fw_state_load(&u, dir, 1 * S, 10 * S, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "not a hipfw state file"));
	ck_assert_uint_eq(u.used, 0);
	fw_track_free(&u);
	unlink(path);
	rmdir(dir);
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
	tcase_add_test(tc, test_state_round_trip);
	tcase_add_test(tc, test_state_probation);
	tcase_add_test(tc, test_state_truncated);
	tcase_add_test(tc, test_state_refused);
	tcase_add_test(tc, test_state_file);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(track_suite)
