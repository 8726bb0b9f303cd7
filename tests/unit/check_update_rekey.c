/*
 * check_update_rekey.c - rekeying with UPDATE on two in-process engines
 * (bex_harness; RFC 7402 §6, E-03, E-07, E-13): with and without DH,
 * crossed requests, a lost ACK, SA soft expiry, the KEYMAT continuation;
 * and the SAs as the datapath holds them: an install the datapath refuses,
 * an association whose SAs are gone. A recording datapath (update_fixture.c)
 * stands in for the kernel / userspace ESP. Mobility: check_update.c.
 */
#include <check.h>
#include <string.h>

#include "update_fixture.h"
#include "coverage.h"
#include "hit.h"
#include "params.h"
#include "unit.h"
#include "engine/update/update_int.h"

/* ---- rekeying -------------------------------------------------------------- */

static void rekey(bool with_dh)
{
	struct bex_net n;
	struct hip_ha *a, *b;
	struct hip_esp_keys ka;
	struct hip_packet p;
	struct bex_pkt u;
	uint32_t a_in, a_out;
	uint16_t idx;

	setup(&n, false);
	a = bex_ha(A(&n));
	b = bex_ha(B(&n));
	a_in = a->spi_in;
	a_out = a->spi_out;
	ka = a->esp_keys;
	idx = a->keymat_index;
	if (with_dh)
		ck_assert_int_eq(upd_rekey_peer(&A(&n)->d, bex_hit(B(&n))), 0);
	else
		ck_assert_int_eq(upd_rekey_start(&A(&n)->d, a, false), 0);
	ck_assert_int_eq(upd_rekey_peer(&A(&n)->d, bex_hit(B(&n))), -EBUSY);   /* E-13 */
	ck_assert_str_eq(upd_activity(a), "rekey");    /* hipconf shows it */
	ck_assert_str_eq(upd_activity(b), "idle");
	/* 1. ESP_INFO (+ DH), SEQ */
	ck_assert(bex_take(&n, 0, HIP_UPDATE, &u));
	parse(&u, &p);
	ck_assert_int_eq(hip_packet_find(&p, HIP_PARAM_DIFFIE_HELLMAN) != NULL, with_dh);
	bex_inject(&n, 1, u.buf, u.len, &u.src, &u.dst);
	/* The responder has its new inbound SA, the old pair still in use. */
	ck_assert_uint_eq(fake_count(&fdp[1], true), 2);
	ck_assert_uint_eq(b->spi_out, a_in);
	/* 2. ESP_INFO (+ DH), SEQ, ACK */
	ck_assert(bex_take(&n, 1, HIP_UPDATE, &u));
	parse(&u, &p);
	ck_assert_ptr_nonnull(hip_packet_find(&p, HIP_PARAM_ACK));
	ck_assert_int_eq(hip_packet_find(&p, HIP_PARAM_DIFFIE_HELLMAN) != NULL, with_dh);
	bex_inject(&n, 0, u.buf, u.len, &u.src, &u.dst);
	/* 3. ACK */
	ck_assert(bex_take(&n, 0, HIP_UPDATE, &u));
	parse(&u, &p);
	ck_assert_ptr_null(hip_packet_find(&p, HIP_PARAM_SEQ));
	bex_inject(&n, 1, u.buf, u.len, &u.src, &u.dst);
	ck_assert_uint_eq(n.n, 0);
	/* E-03 / E-07: new SPIs and keys on both sides, agreeing. */
	ck_assert_uint_ne(a->spi_in, a_in);
	ck_assert_uint_ne(a->spi_out, a_out);
	ck_assert_uint_eq(a->spi_out, b->spi_in);
	ck_assert_uint_eq(b->spi_out, a->spi_in);
	ck_assert_mem_eq(&a->esp_keys, &b->esp_keys, sizeof(ka));
	ck_assert(memcmp(a->esp_keys.gl_enc, ka.gl_enc, sizeof(ka.gl_enc)) != 0);
	ck_assert(memcmp(a->esp_keys.lg_enc, ka.lg_enc, sizeof(ka.lg_enc)) != 0);
	if (with_dh)
		ck_assert_uint_eq(a->keymat_index, 0);
	else
		ck_assert_uint_eq(a->keymat_index, idx + 2 * (ka.enc_len + ka.auth_len));
	ck_assert_uint_eq(b->keymat_index, a->keymat_index);
	ck_assert_ptr_eq(hadb_find_spi(A(&n)->d.hadb, a->spi_in), a);
	/* The datapaths: what A sends on, B receives on, with the same key. */
	ck_assert_mem_eq(fake_sa(&fdp[0], a->spi_out, false)->enc_key,
			 fake_sa(&fdp[1], b->spi_in, true)->enc_key, ka.enc_len);
	ck_assert_mem_eq(fake_sa(&fdp[1], b->spi_out, false)->enc_key,
			 fake_sa(&fdp[0], a->spi_in, true)->enc_key, ka.enc_len);
	/* Old outbound SAs gone; old inbound ones after the grace time. */
	ck_assert_uint_eq(fake_count(&fdp[0], false), 1);
	ck_assert_uint_eq(fake_count(&fdp[1], false), 1);
	ck_assert_uint_eq(fake_count(&fdp[0], true), 2);
	bex_fire(A(&n));
	bex_fire(B(&n));
	ck_assert_uint_eq(fake_count(&fdp[0], true), 1);
	ck_assert_uint_eq(fake_count(&fdp[1], true), 1);
	assert_dp_matches(&n, 0);
	assert_dp_matches(&n, 1);
	ck_assert_str_eq(upd_activity(a), "idle");
	ck_assert_str_eq(upd_activity(b), "idle");
	ck_assert_uint_eq(A(&n)->d.stats->upd_rekeyed, 1);
	ck_assert_uint_eq(B(&n)->d.stats->upd_rekeyed, 1);
	ck_assert_uint_eq(bex_drops(A(&n)) + bex_drops(B(&n)), 0);
	teardown(&n);
}

START_TEST(test_rekey_with_dh)
{
	rekey(true);
}
END_TEST

START_TEST(test_rekey_without_dh)
{
	rekey(false);
}
END_TEST

/* E-13 / RFC 7402 §6.8: crossed rekey requests end in one rekey; a lost
 * message 3 is recovered (message 2 again -> the cached ACK again). */
START_TEST(test_rekey_crossed_lost_ack)
{
	struct bex_net n;
	struct hip_ha *a, *b;
	uint32_t a_in;

	setup(&n, false);
	a = bex_ha(A(&n));
	b = bex_ha(B(&n));
	a_in = a->spi_in;
	ck_assert_int_eq(upd_rekey_start(&A(&n)->d, a, true), 0);
	ck_assert_int_eq(upd_rekey_start(&B(&n)->d, b, false), 0);
	bex_run(&n, 20);
	ck_assert_uint_eq(n.n, 0);
	ck_assert_uint_eq(A(&n)->d.stats->upd_rekeyed, 1);
	ck_assert_uint_eq(B(&n)->d.stats->upd_rekeyed, 1);
	ck_assert_uint_ne(a->spi_in, a_in);
	ck_assert_uint_eq(a->spi_out, b->spi_in);
	ck_assert_uint_eq(b->spi_out, a->spi_in);
	ck_assert_mem_eq(&a->esp_keys, &b->esp_keys, sizeof(a->esp_keys));
	ck_assert_int_eq(a->upd->out_kind, UPD_OUT_NONE);
	ck_assert_int_eq(b->upd->out_kind, UPD_OUT_NONE);
	/* Again, A asking; its message 3 is lost. */
	a_in = a->spi_in;
	ck_assert_int_eq(upd_rekey_peer(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert(bex_deliver_match(&n, 0, HIP_UPDATE));
	ck_assert(bex_deliver_match(&n, 1, HIP_UPDATE));
	ck_assert(bex_take(&n, 0, HIP_UPDATE, NULL));
	ck_assert_uint_ne(a->spi_in, a_in);
	ck_assert_uint_ne(b->spi_out, a->spi_in);     /* B still on the old SA */
	bex_fire(B(&n));                              /* message 2 again */
	bex_run(&n, 10);
	ck_assert_uint_eq(b->spi_out, a->spi_in);
	ck_assert_uint_eq(a->spi_out, b->spi_in);
	ck_assert_mem_eq(&a->esp_keys, &b->esp_keys, sizeof(a->esp_keys));
	ck_assert_uint_eq(A(&n)->d.stats->upd_reacked, 1);
	ck_assert_uint_eq(bex_drops(A(&n)) + bex_drops(B(&n)), 0);
	bex_fire(A(&n));
	bex_fire(B(&n));
	for (int i = 0; i < 2; i++) {
		ck_assert_uint_eq(fake_count(&fdp[i], true), 1);
		ck_assert_uint_eq(fake_count(&fdp[i], false), 1);
		assert_dp_matches(&n, i);
	}
	ck_assert_int_eq(upd_rekey_peer(&A(&n)->d, bex_hit(A(&n))), -ENOENT);
	teardown(&n);
}
END_TEST

/* SA soft expiry (datapath event) while a readdress is outstanding: the
 * rekey (without DH, RFC 7402 §6.8) follows once the readdress is done. */
START_TEST(test_soft_expiry_rekey)
{
	struct bex_net n;
	struct hip_addr na = addr("127.0.0.3");
	struct hip_ha *a, *b;
	uint32_t a_in;
	uint16_t idx;

	setup(&n, false);
	a = bex_ha(A(&n));
	b = bex_ha(B(&n));
	a_in = a->spi_in;
	idx = a->keymat_index;
	ck_assert_int_eq(upd_readdress(&A(&n)->d, a, &na), 0);
	upd_rekey_soft_expiry(&A(&n)->d, a);
	ck_assert_uint_eq(a->spi_in, a_in);
	bex_run(&n, 20);
	ck_assert(addr_eq(&b->addr_peer, &na));
	ck_assert_uint_ne(a->spi_in, a_in);
	ck_assert_uint_eq(b->spi_out, a->spi_in);
	ck_assert_uint_gt(a->keymat_index, idx);
	ck_assert_mem_eq(&a->esp_keys, &b->esp_keys, sizeof(a->esp_keys));
	ck_assert_uint_eq(bex_drops(A(&n)) + bex_drops(B(&n)), 0);
	teardown(&n);
}
END_TEST

/* The KEYMAT continuation for rekeys without DH (kept PRK, HKDF-Expand
 * here) equals libcrypto-wrap's KEYMAT (RFC 5869 KATs) at any index. */
START_TEST(test_keymat_continuation)
{
	struct hip_ha ha;
	uint8_t kij[32], km[600], part[100];
	size_t idx[] = { 0, 1, 31, 32, 96, 200, 500 };
	unsigned i;

	memset(&ha, 0, sizeof(ha));
	for (i = 0; i < sizeof(kij); i++)
		kij[i] = (uint8_t)(i + 1);
	ha.rhash = HIP_RHASH_SHA256;
	ha.puzzle_len = 32;
	memset(ha.puzzle_i, 0x11, 32);
	memset(ha.puzzle_j, 0x22, 32);
	memset(ha.hit_peer.b, 0x20, sizeof(ha.hit_peer.b));
	memset(ha.hit_local.b, 0x30, sizeof(ha.hit_local.b));
	eng_keep_prk(&ha, kij, sizeof(kij));
	ck_assert(ha.upd_have_prk);
	ck_assert_int_eq(hip_keymat(ha.rhash, ha.puzzle_i, ha.puzzle_j, 32, kij, sizeof(kij),
				    ha.hit_peer.b, ha.hit_local.b, km, sizeof(km)), 0);
	for (i = 0; i < sizeof(idx) / sizeof(idx[0]); i++) {
		ck_assert_int_eq(upd_keymat_expand(&ha, ha.upd_prk, idx[i], part, sizeof(part)), 0);
		ck_assert_mem_eq(part, km + idx[i], sizeof(part));
	}
	ck_assert_int_eq(upd_keymat_expand(&ha, ha.upd_prk, 255 * 32 - 10, part, 11), -ERANGE);
}
END_TEST

/* ---- the SAs in the datapath ----------------------------------------------- */

static unsigned fake_total(const struct fake_dp *f)
{
	return fake_count(f, true) + fake_count(f, false);
}

static bool gone(struct bex_host *h)
{
	return bex_state(h) == HIP_STATE_CLOSED || bex_state(h) == HIP_STATE_UNASSOCIATED;
}

/* The datapath refuses an SA of the exchange (as when two peers chose the
 * same SPI for our outbound SAs): the association is closed at once, on
 * both sides, with no SA left; the peer's next packet starts a new
 * exchange whose SAs are installed. Either side may be the one refused. */
static void refused_install_closes(int refusing)
{
	struct bex_net n;
	struct bex_host *peer;

	setup_fake_dps(&n, false);
	peer = &n.h[1 - refusing];
	fdp[refusing].refuse_out = true;
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	bex_run(&n, 30);
	bex_fire(B(&n));
	bex_run(&n, 30);
	ck_assert_msg(gone(A(&n)) && gone(B(&n)), "states %d %d", bex_state(A(&n)),
		      bex_state(B(&n)));
	ck_assert_uint_eq(fake_total(&fdp[0]), 0);
	ck_assert_uint_eq(fake_total(&fdp[1]), 0);
	ck_assert(!fdp[0].policy && !fdp[1].policy);

	fdp[refusing].refuse_out = false;
	ck_assert_int_eq(hipd_engine_trigger(&peer->d, bex_hit(&n.h[refusing])), 0);
	bex_run(&n, 30);
	bex_fire(&n.h[refusing]);     /* the Responder's R2-SENT -> ESTABLISHED */
	assert_up_with_sas(&n);
	teardown(&n);
}

START_TEST(test_install_refused_initiator)
{
	refused_install_closes(0);
}
END_TEST

START_TEST(test_install_refused_responder)
{
	refused_install_closes(1);
}
END_TEST

/* An established association whose SAs are gone from the datapath: the
 * next outbound packet (TUN or ACQUIRE) closes it, the one after that
 * starts a new exchange; one with its SAs is left alone by traffic. */
START_TEST(test_traffic_without_sas_restarts)
{
	struct bex_net n;

	setup_fake_dps(&n, false);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	bex_run(&n, 20);
	bex_fire(B(&n));
	assert_up_with_sas(&n);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_ESTABLISHED);
	ck_assert_uint_eq(bex_run(&n, 20), 0);

	eng_dp_remove(&A(&n)->d, bex_ha(A(&n)));
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_CLOSING);
	bex_run(&n, 20);
	ck_assert(gone(A(&n)) && gone(B(&n)));
	ck_assert_uint_eq(fake_total(&fdp[1]), 0);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	bex_run(&n, 20);
	bex_fire(B(&n));
	assert_up_with_sas(&n);
	teardown(&n);
}
END_TEST

static Suite *update_rekey_suite(void)
{
	Suite *s = suite_create("update_rekey");
	TCase *tc = tcase_create("rekey");

	tcase_add_unchecked_fixture(tc, bex_tmp_setup, bex_tmp_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_rekey_with_dh);
	tcase_add_test(tc, test_rekey_without_dh);
	tcase_add_test(tc, test_rekey_crossed_lost_ack);
	tcase_add_test(tc, test_soft_expiry_rekey);
	tcase_add_test(tc, test_keymat_continuation);
	tcase_add_test(tc, test_install_refused_initiator);
	tcase_add_test(tc, test_install_refused_responder);
	tcase_add_test(tc, test_traffic_without_sas_restarts);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(update_rekey_suite)
