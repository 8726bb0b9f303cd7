/*
 * check_lsi_pair.c - the LSI SA pair (docs/decisions.md D-22) on two
 * in-process engines with recording datapaths (update_fixture.c): agreed
 * in the I2 / R2 by LSI_ESP_INFO, installed beside the HIT pair with IPv4
 * inner selectors and their own keys, renewed by a rekey, removed by
 * CLOSE; absent with a peer that does not take it, and refused when the
 * two hosts' LSIs differ. The parameter's codec is checked at the end.
 */
#include <arpa/inet.h>
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "update_fixture.h"
#include "hit.h"
#include "params.h"
#include "unit.h"
#include "engine/update/update_int.h"
#include "net/hosts.h"

/* Base exchange A -> B, the LSI parameters seen on the way; *offered:
 * A's inbound LSI SPI once the I2 is built (0: none). */
static void run_bex_spi(struct bex_net *n, bool *i2_offer, bool *r2_answer, uint32_t *offered)
{
	struct hip_packet p;
	struct bex_pkt u;

	ck_assert_int_eq(hipd_engine_trigger(&A(n)->d, bex_hit(B(n))), 0);
	ck_assert(bex_deliver_match(n, 0, HIP_I1));
	ck_assert(bex_deliver_match(n, 1, HIP_R1));
	*offered = bex_ha(A(n))->lsi ? bex_ha(A(n))->lsi->spi_in : 0;
	ck_assert(bex_take(n, 0, HIP_I2, &u));
	ck_assert_int_eq(hip_packet_parse(u.buf, u.len, &p), 0);
	*i2_offer = hip_packet_find(&p, HIP_PARAM_LSI_ESP_INFO) != NULL;
	bex_inject(n, 1, u.buf, u.len, &u.src, &u.dst);
	ck_assert(bex_take(n, 1, HIP_R2, &u));
	ck_assert_int_eq(hip_packet_parse(u.buf, u.len, &p), 0);
	*r2_answer = hip_packet_find(&p, HIP_PARAM_LSI_ESP_INFO) != NULL;
	bex_inject(n, 0, u.buf, u.len, &u.src, &u.dst);
	bex_run(n, 10);
	bex_fire(B(n));          /* R2-SENT -> ESTABLISHED */
	ck_assert_int_eq(bex_state(A(n)), HIP_STATE_ESTABLISHED);
	ck_assert_int_eq(bex_state(B(n)), HIP_STATE_ESTABLISHED);
}

static void run_bex(struct bex_net *n, bool *i2_offer, bool *r2_answer)
{
	uint32_t offered;

	run_bex_spi(n, i2_offer, r2_answer, &offered);
}

static struct in_addr own_lsi(struct bex_host *h)
{
	struct in_addr a;

	ck_assert_int_eq(hosts_lsi_find(h->d.hosts, bex_hit(h), &a, NULL), 0);
	return a;
}

/* What host i's datapath holds for the LSI pair: in and out SAs with the
 * LSIs as inner addresses, IPv4 inner, the HIT pair's locators. */
static void assert_lsi_sas(struct bex_net *n, int i)
{
	struct hip_ha *ha = bex_ha(&n->h[i]);
	const struct hip_esp_sa *in = fake_sa(&fdp[i], ha->lsi->spi_in, true);
	const struct hip_esp_sa *out = fake_sa(&fdp[i], ha->lsi->spi_out, false);

	ck_assert(in->inner_v4 && out->inner_v4);
	ck_assert_uint_eq(in->lsi_src.s_addr, ha->lsi->peer.s_addr);
	ck_assert_uint_eq(in->lsi_dst.s_addr, ha->lsi->local.s_addr);
	ck_assert_uint_eq(out->lsi_src.s_addr, ha->lsi->local.s_addr);
	ck_assert_uint_eq(out->lsi_dst.s_addr, ha->lsi->peer.s_addr);
	ck_assert(addr_eq(&in->outer_dst, &ha->addr_local));
	ck_assert(addr_eq(&out->outer_dst, &ha->addr_peer));
	ck_assert(fdp[i].lsi_policy);
	ck_assert_uint_eq(fdp[i].lsi_pol_local.s_addr, ha->lsi->local.s_addr);
	ck_assert_uint_eq(fdp[i].lsi_pol_peer.s_addr, ha->lsi->peer.s_addr);
	/* the HIT pair is untouched beside it */
	ck_assert(!fake_sa(&fdp[i], ha->spi_in, true)->inner_v4);
	ck_assert(!fake_sa(&fdp[i], ha->spi_out, false)->inner_v4);
}

/* A's outbound LSI SA and B's inbound one hold the same key, and the
 * other way round; neither is a HIT pair key. */
static void assert_lsi_keys_agree(struct bex_net *n)
{
	struct hip_ha *a = bex_ha(A(n)), *b = bex_ha(B(n));
	size_t len = a->lsi->keys.enc_len;

	ck_assert_uint_gt(len, 0);
	ck_assert_mem_eq(fake_sa(&fdp[0], a->lsi->spi_out, false)->enc_key,
			 fake_sa(&fdp[1], b->lsi->spi_in, true)->enc_key, len);
	ck_assert_mem_eq(fake_sa(&fdp[1], b->lsi->spi_out, false)->enc_key,
			 fake_sa(&fdp[0], a->lsi->spi_in, true)->enc_key, len);
	ck_assert(memcmp(fake_sa(&fdp[0], a->lsi->spi_out, false)->enc_key,
			 fake_sa(&fdp[0], a->spi_out, false)->enc_key, len) != 0);
	ck_assert(memcmp(a->lsi->keys.gl_enc, a->esp_keys.gl_enc, len) != 0);
	ck_assert(memcmp(a->lsi->keys.lg_enc, a->esp_keys.lg_enc, len) != 0);
}

START_TEST(test_lsi_pair_agreed)
{
	struct bex_net n;
	struct hip_ha *a, *b;
	bool offer, answer;

	setup_fake_dps_lsi(&n, _i != 0, true, true);
	run_bex(&n, &offer, &answer);
	ck_assert(offer && answer);
	a = bex_ha(A(&n));
	b = bex_ha(B(&n));
	ck_assert_uint_ne(a->lsi->spi_out, 0);
	ck_assert_uint_eq(a->lsi->spi_out, b->lsi->spi_in);
	ck_assert_uint_eq(b->lsi->spi_out, a->lsi->spi_in);
	ck_assert_uint_ne(a->lsi->spi_in, a->spi_in);
	ck_assert_uint_eq(a->lsi->local.s_addr, own_lsi(A(&n)).s_addr);
	ck_assert_uint_eq(a->lsi->peer.s_addr, own_lsi(B(&n)).s_addr);
	ck_assert_uint_eq(b->lsi->local.s_addr, a->lsi->peer.s_addr);
	ck_assert_uint_eq(b->lsi->peer.s_addr, a->lsi->local.s_addr);
	/* the inbound LSI SPI finds its association (events, SPI choice) */
	ck_assert_ptr_eq(hadb_find_spi(A(&n)->d.hadb, a->lsi->spi_in), a);
	ck_assert_ptr_eq(hadb_find_spi(B(&n)->d.hadb, b->lsi->spi_in), b);
	ck_assert_uint_eq(fake_count(&fdp[0], true), 2);
	ck_assert_uint_eq(fake_count(&fdp[0], false), 2);
	assert_lsi_sas(&n, 0);
	assert_lsi_sas(&n, 1);
	assert_lsi_keys_agree(&n);
	ck_assert_uint_eq(A(&n)->d.stats->lsi_pairs, 1);
	ck_assert_uint_eq(B(&n)->d.stats->lsi_pairs, 1);
	ck_assert_uint_eq(bex_drops(A(&n)) + bex_drops(B(&n)), 0);
	/* CLOSE takes both pairs out of both datapaths */
	ck_assert_int_eq(hipd_engine_close(&A(&n)->d, bex_hit(B(&n))), 0);
	bex_run(&n, 10);
	ck_assert_uint_eq(fake_count(&fdp[0], true) + fake_count(&fdp[0], false), 0);
	ck_assert_uint_eq(fake_count(&fdp[1], true) + fake_count(&fdp[1], false), 0);
	ck_assert(!fdp[0].lsi_policy && !fdp[1].lsi_policy);
	teardown(&n);
}
END_TEST

/* A peer that does not take the offer (its datapath carries no IPv4 here;
 * a strict HIPv2 peer ignores the parameter the same way): the HIT pair
 * only, on both sides, and A's offered SPI is free again. */
START_TEST(test_lsi_pair_not_taken)
{
	struct bex_net n;
	struct hip_ha *a, *b;
	bool offer, answer;
	uint32_t offered;

	setup_fake_dps_lsi(&n, false, true, false);
	run_bex_spi(&n, &offer, &answer, &offered);
	ck_assert(offer && !answer);
	ck_assert_uint_ne(offered, 0);
	a = bex_ha(A(&n));
	b = bex_ha(B(&n));
	ck_assert_ptr_null(a->lsi);
	ck_assert_ptr_null(b->lsi);
	ck_assert_ptr_null(hadb_find_spi(A(&n)->d.hadb, offered));
	ck_assert_uint_eq(fake_count(&fdp[0], true), 1);
	ck_assert_uint_eq(fake_count(&fdp[0], false), 1);
	ck_assert(!fdp[0].lsi_policy);
	assert_up_with_sas(&n);
	ck_assert_uint_eq(bex_drops(A(&n)) + bex_drops(B(&n)), 0);
	teardown(&n);

	/* B offers nothing when A's I2 had no offer */
	setup_fake_dps_lsi(&n, false, false, true);
	run_bex(&n, &offer, &answer);
	ck_assert(!offer && !answer);
	ck_assert_ptr_null(bex_ha(B(&n))->lsi);
	assert_up_with_sas(&n);
	teardown(&n);
}
END_TEST

/* B knows A's HIT under another LSI (a hosts-file lsi= on one side only):
 * the inner checksums could not verify, so no pair; counted, logged, and
 * the association itself is made. */
START_TEST(test_lsi_pair_other_lsis)
{
	struct bex_net n;
	bool offer, answer;
	char line[160], hs[HIP_HIT_STR_LEN], err[160];

	setup_fake_dps_lsi(&n, false, true, true);
	snprintf(line, sizeof(line), "%s 127.0.0.1 lsi=198.18.200.7\n",
		 hip_hit_to_str(bex_hit(A(&n)), hs, sizeof(hs)));
	ck_assert_int_eq(hosts_load_buf(B(&n)->d.hosts, "hosts", line, strlen(line), err,
					sizeof(err), NULL), 0);
	run_bex(&n, &offer, &answer);
	ck_assert(offer && !answer);
	ck_assert_uint_eq(B(&n)->d.stats->lsi_refused, 1);
	ck_assert_ptr_null(bex_ha(A(&n))->lsi);
	ck_assert_ptr_null(bex_ha(B(&n))->lsi);
	assert_up_with_sas(&n);
	teardown(&n);
}
END_TEST

/* A rekey without DH draws the HIT pair's keys and then the LSI pair's
 * (two pairs of KEYMAT); the LSI SAs keep their SPIs, take the new keys,
 * and still agree. */
START_TEST(test_lsi_pair_rekey)
{
	struct bex_net n;
	struct hip_ha *a, *b;
	struct hip_esp_keys old;
	uint32_t lin, lout;
	uint16_t idx;
	bool offer, answer;
	size_t draw;

	setup_fake_dps_lsi(&n, false, true, true);
	run_bex(&n, &offer, &answer);
	a = bex_ha(A(&n));
	b = bex_ha(B(&n));
	old = a->lsi->keys;
	lin = a->lsi->spi_in;
	lout = a->lsi->spi_out;
	idx = a->keymat_index;
	draw = 2 * (old.enc_len + old.auth_len);
	ck_assert_int_eq(upd_rekey_start(&A(&n)->d, a, false), 0);
	bex_run(&n, 10);
	bex_fire(A(&n));
	bex_fire(B(&n));
	ck_assert_uint_eq(A(&n)->d.stats->upd_rekeyed, 1);
	ck_assert_uint_eq(B(&n)->d.stats->upd_rekeyed, 1);
	ck_assert_uint_eq(a->keymat_index, idx + 2 * draw);
	ck_assert_uint_eq(b->keymat_index, a->keymat_index);
	ck_assert_uint_eq(a->lsi->spi_in, lin);
	ck_assert_uint_eq(a->lsi->spi_out, lout);
	ck_assert(memcmp(a->lsi->keys.gl_enc, old.gl_enc, old.enc_len) != 0);
	ck_assert_mem_eq(&a->lsi->keys, &b->lsi->keys, sizeof(old));
	assert_lsi_sas(&n, 0);
	assert_lsi_sas(&n, 1);
	assert_lsi_keys_agree(&n);
	ck_assert_uint_eq(bex_drops(A(&n)) + bex_drops(B(&n)), 0);
	teardown(&n);
}
END_TEST

START_TEST(test_lsi_esp_info_codec)
{
	struct hip_lsi_esp_info v = { .spi = 0x12345678 }, w;
	uint8_t c[HIP_LEN_LSI_ESP_INFO];

	inet_pton(AF_INET, "198.18.0.1", &v.sender_lsi);
	inet_pton(AF_INET, "198.18.0.2", &v.receiver_lsi);
	memcpy(c, &v.sender_lsi, 4);
	memcpy(c + 4, &v.receiver_lsi, 4);
	c[8] = 0x12, c[9] = 0x34, c[10] = 0x56, c[11] = 0x78;
	ck_assert_int_eq(hip_lsi_esp_info_decode(c, sizeof(c), &w), 0);
	ck_assert_uint_eq(w.sender_lsi.s_addr, v.sender_lsi.s_addr);
	ck_assert_uint_eq(w.receiver_lsi.s_addr, v.receiver_lsi.s_addr);
	ck_assert_uint_eq(w.spi, v.spi);
	ck_assert_int_eq(hip_lsi_esp_info_decode(c, sizeof(c) - 1, &w), -EBADMSG);
	c[11] = 0, c[10] = 0, c[9] = 0, c[8] = 0;      /* SPI 0 */
	ck_assert_int_eq(hip_lsi_esp_info_decode(c, sizeof(c), &w), -EINVAL);
	ck_assert(!hip_param_is_critical(HIP_PARAM_LSI_ESP_INFO));
	ck_assert(hip_param_is_known(HIP_PARAM_LSI_ESP_INFO));
}
END_TEST

static Suite *lsi_pair_suite(void)
{
	Suite *s = suite_create("lsi_pair");
	TCase *tc = tcase_create("core");

	tcase_add_unchecked_fixture(tc, bex_tmp_setup, bex_tmp_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_lsi_pair_agreed, 0, 2);
	tcase_add_test(tc, test_lsi_pair_not_taken);
	tcase_add_test(tc, test_lsi_pair_other_lsis);
	tcase_add_test(tc, test_lsi_pair_rekey);
	tcase_add_test(tc, test_lsi_esp_info_codec);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(lsi_pair_suite)
