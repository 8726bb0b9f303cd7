/*
 * check_fw_track_lsi.c - hipfw's tracker and hipd's LSI SA pair
 * (firewall/fw_track.c, docs/decisions.md D-22): the SPI the Initiator
 * offers in hipd's LSI_ESP_INFO in its I2 is learnt when the R2 answers
 * with the Responder's, and ESP on both then passes like ESP on the
 * ordinary SPIs; without an answer (or with a malformed parameter) there
 * is no pair and its ESP stays unknown; the pair keeps its SPIs across a
 * rekey, moves with the locators and follows a new exchange. Packets built
 * by libhipcore and signed by real keys (fw_track_fixture.c).
 */
#include <string.h>

#include "fw_track.h"
#include "fw_track_fixture.h"
#include "hip_crypto.h"
#include "params.h"
#include "unit.h"

static const struct fw_assoc *assoc(void)
{
	const struct fw_assoc *a = fw_track_find(&t, &hit_i, &hit_r);

	ck_assert_ptr_nonnull(a);
	return a;
}

/* The offer is pending after the I2 (no ESP on it yet), learnt with the
 * answer of the R2: ESP to each end on its LSI SPI passes, from the other
 * end's locator only; the kernel is told two triples more. */
START_TEST(test_lsi_bex)
{
	struct spec r1 = { .host_id = true, .sign = hi_r };
	struct spec i2 = { .spi = 0x1001, .lsi_spi = 0x1101, .host_id = true, .sign = hi_i };
	struct spec r2 = { .spi = 0x2002, .lsi_spi = 0x2202, .sign = hi_r };
	const struct fw_assoc *a;

	ck_assert_int_eq(feed(HIP_I1, &hit_i, &hit_r, ADDR_I, ADDR_R, NULL, 1 * S), FW_TRK_OK);
	ck_assert_int_eq(feed(HIP_R1, &hit_r, &hit_i, ADDR_R, ADDR_I, &r1, 1 * S), FW_TRK_OK);
	ck_assert_int_eq(feed(HIP_I2, &hit_i, &hit_r, ADDR_I, ADDR_R, &i2, 1 * S), FW_TRK_OK);
	a = assoc();
	ck_assert_uint_eq(a->end[0].lsi_spi_offer, 0x1101);
	ck_assert_uint_eq(a->end[0].lsi_spi, 0);
	ck_assert(!esp_ok(ADDR_R, ADDR_I, 0x1101));
	ck_assert_int_eq(feed(HIP_R2, &hit_r, &hit_i, ADDR_R, ADDR_I, &r2, 1 * S), FW_TRK_OK);
	ck_assert_int_eq(a->state, FW_TS_ESTABLISHED);
	ck_assert_uint_eq(a->end[0].lsi_spi, 0x1101);
	ck_assert_uint_eq(a->end[1].lsi_spi, 0x2202);
	ck_assert_uint_eq(a->end[0].lsi_spi_offer, 0);
	ck_assert_uint_eq(triples(), 4);
	ck_assert(esp_ok(ADDR_R, ADDR_I, 0x1101));
	ck_assert(esp_ok(ADDR_I, ADDR_R, 0x2202));
	ck_assert(esp_ok(ADDR_R, ADDR_I, 0x1001));
	ck_assert(esp_ok(ADDR_I, ADDR_R, 0x2002));
	/* each SPI only towards the end that receives on it */
	ck_assert(!esp_ok(ADDR_I, ADDR_R, 0x1101));
	ck_assert(!esp_ok(ADDR_R, ADDR_I, 0x2202));
	ck_assert(!esp_ok("198.51.100.9", ADDR_I, 0x1101));
	/* the R2 again (a retransmitted I2) changes nothing */
	ck_assert_int_eq(feed(HIP_R2, &hit_r, &hit_i, ADDR_R, ADDR_I, &r2, 2 * S), FW_TRK_OK);
	ck_assert_uint_eq(a->end[0].lsi_spi, 0x1101);
	ck_assert_uint_eq(a->end[1].lsi_spi, 0x2202);
	unit_write_seed("track_lsi", "\3", 1, seq_seed, seq_len);
}
END_TEST

/* A Responder that does not take the pair (a strict HIPv2 peer, or one
 * without IPv4 on its datapath) answers with none: both SPIs forgotten,
 * their ESP unknown. An answer nobody offered makes no pair either. */
START_TEST(test_lsi_no_answer)
{
	const struct fw_assoc *a;

	bex_lsi(0x1001, 0x2002, 0x1101, 0, 1 * S);
	a = assoc();
	ck_assert_int_eq(a->state, FW_TS_ESTABLISHED);
	ck_assert_uint_eq(a->end[0].lsi_spi, 0);
	ck_assert_uint_eq(a->end[0].lsi_spi_offer, 0);
	ck_assert_uint_eq(a->end[1].lsi_spi, 0);
	ck_assert_uint_eq(triples(), 2);
	ck_assert(!esp_ok(ADDR_R, ADDR_I, 0x1101));
	ck_assert_uint_eq(t.ctr.drop[FW_TRK_ESP_UNKNOWN], 1);
	ck_assert(esp_ok(ADDR_R, ADDR_I, 0x1001));
	fw_track_free(&t);
	ck_assert_int_eq(fw_track_init(&t, 16, false, esp_cb, NULL), 0);
	bex_lsi(0x1001, 0x2002, 0, 0x2202, 1 * S);
	ck_assert_uint_eq(assoc()->end[1].lsi_spi, 0);
	ck_assert_uint_eq(triples(), 2);
	ck_assert(!esp_ok(ADDR_I, ADDR_R, 0x2202));
}
END_TEST

/* A malformed LSI_ESP_INFO is taken as none, as hipd takes it: the I2 or
 * R2 that carries it passes (its exchange goes on), no pair is learnt. A
 * forged R2 with an answer teaches nothing. */
START_TEST(test_lsi_malformed)
{
	struct spec bad = { .spi = 0x2002, .lsi_spi = 0x2202, .lsi_bad = true, .sign = hi_r };
	struct spec forged = { .spi = 0x2002, .lsi_spi = 0x2202, .sign = hi_x };
	struct spec r1 = { .host_id = true, .sign = hi_r };
	struct spec i2 = { .spi = 0x1001, .lsi_spi = 0x1101, .lsi_bad = true, .host_id = true,
			   .sign = hi_i };
	struct spec r2 = { .spi = 0x2002, .lsi_spi = 0x2202, .sign = hi_r };

	ck_assert_int_eq(feed(HIP_I1, &hit_i, &hit_r, ADDR_I, ADDR_R, NULL, 1 * S), FW_TRK_OK);
	ck_assert_int_eq(feed(HIP_R1, &hit_r, &hit_i, ADDR_R, ADDR_I, &r1, 1 * S), FW_TRK_OK);
	ck_assert_int_eq(feed(HIP_I2, &hit_i, &hit_r, ADDR_I, ADDR_R, &i2, 1 * S), FW_TRK_OK);
	ck_assert_uint_eq(assoc()->end[0].lsi_spi_offer, 0);
	ck_assert_int_eq(feed(HIP_R2, &hit_r, &hit_i, ADDR_R, ADDR_I, &r2, 1 * S), FW_TRK_OK);
	ck_assert_int_eq(state(), FW_TS_ESTABLISHED);
	ck_assert_uint_eq(triples(), 2);
	ck_assert(!esp_ok(ADDR_I, ADDR_R, 0x2202));
	/* a good offer, a malformed answer */
	fw_track_free(&t);
	ck_assert_int_eq(fw_track_init(&t, 16, false, esp_cb, NULL), 0);
	i2.lsi_bad = false;
	ck_assert_int_eq(feed(HIP_I1, &hit_i, &hit_r, ADDR_I, ADDR_R, NULL, 1 * S), FW_TRK_OK);
	ck_assert_int_eq(feed(HIP_R1, &hit_r, &hit_i, ADDR_R, ADDR_I, &r1, 1 * S), FW_TRK_OK);
	ck_assert_int_eq(feed(HIP_I2, &hit_i, &hit_r, ADDR_I, ADDR_R, &i2, 1 * S), FW_TRK_OK);
	ck_assert_int_eq(feed(HIP_R2, &hit_r, &hit_i, ADDR_R, ADDR_I, &forged, 1 * S),
			 FW_TRK_BAD_SIGNATURE);
	ck_assert_uint_eq(assoc()->end[1].lsi_spi, 0);
	ck_assert_int_eq(feed(HIP_R2, &hit_r, &hit_i, ADDR_R, ADDR_I, &bad, 1 * S), FW_TRK_OK);
	ck_assert_int_eq(state(), FW_TS_ESTABLISHED);
	ck_assert_uint_eq(assoc()->end[0].lsi_spi, 0);
	ck_assert_uint_eq(assoc()->end[1].lsi_spi, 0);
	ck_assert(!esp_ok(ADDR_R, ADDR_I, 0x1101));
}
END_TEST

/* A rekey leaves the LSI SPIs as they are (the pair takes new keys in
 * place, D-22); a move takes them to the new locator with the ordinary
 * SPI. With both ends moving and rekeying at once every triple fits:
 * three SPIs, two sources, two destinations per direction. */
START_TEST(test_lsi_rekey_move)
{
	static const char *const NEW_I = "198.51.100.11", *const NEW_R = "203.0.113.12";
	struct spec mv = { .seq = 7, .spi = 0x1003, .old_spi = 0x1001, .sign = hi_i };
	struct spec mv_r = { .seq = 8, .spi = 0x2004, .old_spi = 0x2002, .sign = hi_r };
	struct spec ack = { .seq = 9, .ack = 7, .sign = hi_r };
	struct fw_esp_triple tr[2 * FW_TRACK_ESP_MAX];
	const struct fw_assoc *a;
	size_t n, i, j;

	bex_lsi(0x1001, 0x2002, 0x1101, 0x2202, 1 * S);
	a = assoc();
	ck_assert_int_eq(feed(HIP_UPDATE, &hit_i, &hit_r, NEW_I, ADDR_R, &mv, 2 * S), FW_TRK_OK);
	ck_assert_int_eq(feed(HIP_UPDATE, &hit_r, &hit_i, NEW_R, ADDR_I, &mv_r, 2 * S),
			 FW_TRK_OK);
	n = fw_track_triples(a, tr, sizeof(tr) / sizeof(tr[0]));
	ck_assert_uint_eq(n, 2 * FW_TRACK_ESP_MAX);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			ck_assert(memcmp(&tr[i], &tr[j], sizeof(tr[i])) != 0);
	ck_assert(esp_ok(NEW_R, NEW_I, 0x1101));
	ck_assert(esp_ok(ADDR_I, NEW_R, 0x2202));
	/* the Responder ACKs the Initiator's move and rekey */
	ck_assert_int_eq(feed(HIP_UPDATE, &hit_r, &hit_i, NEW_R, NEW_I, &ack, 3 * S), FW_TRK_OK);
	ck_assert_uint_eq(a->end[0].spi, 0x1003);
	ck_assert_uint_eq(a->end[0].lsi_spi, 0x1101);
	ck_assert_uint_eq(a->end[1].lsi_spi, 0x2202);
	ck_assert(!esp_ok(ADDR_R, ADDR_I, 0x1101));
	ck_assert(esp_ok(ADDR_R, NEW_I, 0x1101));
	ck_assert(esp_ok(NEW_I, ADDR_R, 0x2202));
	ck_assert_uint_eq(t.ctr.rekeys, 1);
	ck_assert_uint_eq(t.ctr.moves, 1);
}
END_TEST

/* A new exchange over an established association: the old LSI SPIs pass
 * until its R2, which brings the new ones; a new exchange whose R2 takes
 * no pair ends it. */
START_TEST(test_lsi_new_exchange)
{
	struct spec i2 = { .spi = 0x1003, .lsi_spi = 0x1103, .host_id = true, .sign = hi_i };
	struct spec r2 = { .spi = 0x2004, .lsi_spi = 0x2204, .sign = hi_r };
	const struct fw_assoc *a;

	bex_lsi(0x1001, 0x2002, 0x1101, 0x2202, 1 * S);
	a = assoc();
	ck_assert_int_eq(feed(HIP_I2, &hit_i, &hit_r, ADDR_I, ADDR_R, &i2, 2 * S), FW_TRK_OK);
	ck_assert_uint_eq(a->end[0].lsi_spi, 0x1101);
	ck_assert_uint_eq(a->end[0].lsi_spi_offer, 0x1103);
	ck_assert(esp_ok(ADDR_R, ADDR_I, 0x1101));
	ck_assert(!esp_ok(ADDR_R, ADDR_I, 0x1103));
	ck_assert_int_eq(feed(HIP_R2, &hit_r, &hit_i, ADDR_R, ADDR_I, &r2, 2 * S), FW_TRK_OK);
	ck_assert_uint_eq(a->end[0].spi, 0x1003);
	ck_assert_uint_eq(a->end[0].lsi_spi, 0x1103);
	ck_assert_uint_eq(a->end[1].lsi_spi, 0x2204);
	ck_assert(esp_ok(ADDR_R, ADDR_I, 0x1103));
	ck_assert(esp_ok(ADDR_I, ADDR_R, 0x2204));
	ck_assert(!esp_ok(ADDR_R, ADDR_I, 0x1101));
	ck_assert(!esp_ok(ADDR_I, ADDR_R, 0x2202));
	ck_assert_uint_eq(triples(), 4);
	/* again, the Responder now taking none */
	i2.spi = 0x1005;
	i2.lsi_spi = 0x1105;
	r2 = (struct spec){ .spi = 0x2006, .sign = hi_r };
	ck_assert_int_eq(feed(HIP_I2, &hit_i, &hit_r, ADDR_I, ADDR_R, &i2, 3 * S), FW_TRK_OK);
	ck_assert_int_eq(feed(HIP_R2, &hit_r, &hit_i, ADDR_R, ADDR_I, &r2, 3 * S), FW_TRK_OK);
	ck_assert_uint_eq(a->end[0].lsi_spi, 0);
	ck_assert_uint_eq(a->end[1].lsi_spi, 0);
	ck_assert_uint_eq(triples(), 2);
	ck_assert(!esp_ok(ADDR_R, ADDR_I, 0x1103));
	ck_assert(!esp_ok(ADDR_R, ADDR_I, 0x1105));
}
END_TEST

/* CLOSE takes the LSI SPIs' ESP away with the rest. */
START_TEST(test_lsi_close)
{
	struct spec close = { .sign = hi_i };

	bex_lsi(0x1001, 0x2002, 0x1101, 0x2202, 1 * S);
	ck_assert_int_eq(feed(HIP_CLOSE, &hit_i, &hit_r, ADDR_I, ADDR_R, &close, 2 * S),
			 FW_TRK_OK);
	ck_assert_uint_eq(triples(), 0);
	ck_assert(!esp_ok(ADDR_R, ADDR_I, 0x1101));
	ck_assert(!esp_ok(ADDR_I, ADDR_R, 0x2202));
}
END_TEST

static Suite *track_lsi_suite(void)
{
	Suite *s = suite_create("hipfw-track-lsi");
	TCase *tc = tcase_create("lsi");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_lsi_bex);
	tcase_add_test(tc, test_lsi_no_answer);
	tcase_add_test(tc, test_lsi_malformed);
	tcase_add_test(tc, test_lsi_rekey_move);
	tcase_add_test(tc, test_lsi_new_exchange);
	tcase_add_test(tc, test_lsi_close);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(track_lsi_suite)
