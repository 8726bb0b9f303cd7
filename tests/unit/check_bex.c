/*
 * check_bex.c - the base exchange between two in-process hipd engines
 * (RFC 7401 §4.4, §6.6-6.10; docs/requirements.md S-01..S-07, P-02, C-04..C-09, W-12):
 * the HI/DH/K matrix, the I2 on the wire, races, loss, a tampered I2 or R2.
 * The harness (bex_harness.c) carries the packets; nothing here mirrors the
 * engine's code: the tests look at states, counters, the keys each side
 * derived on its own, and the packets on the wire. After the exchange
 * (CLOSE, replacement, input checks): check_bex_after.c.
 */
#include <check.h>
#include <string.h>

#include "bex_fixture.h"
#include "coverage.h"
#include "hit.h"
#include "packet.h"
#include "params.h"
#include "unit.h"

/* A starts, packets flow one by one, the states go as S-01 says. */
static void run_bex_checked(struct bex_net *n)
{
	ck_assert_int_eq(hipd_engine_trigger(&A(n)->d, bex_hit(B(n))), 0);
	ck_assert_int_eq(bex_state(A(n)), HIP_STATE_I1_SENT);
	ck_assert_int_eq(bex_deliver_one(n), HIP_I1);
	/* §6.7: the Responder keeps no state for an I1. */
	ck_assert_ptr_null(bex_ha(B(n)));
	ck_assert_int_eq(bex_deliver_one(n), HIP_R1);
	ck_assert_int_eq(bex_state(A(n)), HIP_STATE_I2_SENT);
	ck_assert_int_eq(bex_deliver_one(n), HIP_I2);
	ck_assert_int_eq(bex_state(B(n)), HIP_STATE_R2_SENT);
	ck_assert_int_eq(bex_deliver_one(n), HIP_R2);
	ck_assert_int_eq(bex_state(A(n)), HIP_STATE_ESTABLISHED);
	ck_assert_uint_eq(n->n, 0);
	/* R2-SENT -> ESTABLISHED on the EC timer (S-04). */
	bex_fire(B(n));
	assert_established_pair(n);
	ck_assert_uint_eq(bex_drops(A(n)), 0);
	ck_assert_uint_eq(bex_drops(B(n)), 0);
	ck_assert_uint_eq(A(n)->d.stats->bex_completed, 1);
}

/* ---- the matrix: HI kinds x DH groups x K ---------------------------------- */

static const struct {
	enum hip_hi_kind ka, kb;
	uint8_t group;
	unsigned k;
	bool ipv6;
} matrix[] = {
	{ HIP_HI_KIND_ECDSA_P256, HIP_HI_KIND_ECDSA_P256, HIP_DH_NIST_P256, 0, false },
	{ HIP_HI_KIND_ECDSA_P256, HIP_HI_KIND_ECDSA_P256, HIP_DH_NIST_P384, 10, true },
	{ HIP_HI_KIND_ECDSA_P256, HIP_HI_KIND_ECDSA_P256, HIP_DH_MODP_1536, 0, false },
	{ HIP_HI_KIND_ECDSA_P384, HIP_HI_KIND_ECDSA_P384, HIP_DH_NIST_P256, 10, false },
	{ HIP_HI_KIND_ECDSA_P384, HIP_HI_KIND_ECDSA_P256, HIP_DH_NIST_P384, 0, true },
	{ HIP_HI_KIND_ECDSA_P256, HIP_HI_KIND_ECDSA_P384, HIP_DH_MODP_1536, 10, false },
	/* RSA once (slow key generation): Responder suite 1, RHASH SHA-256. */
	{ HIP_HI_KIND_ECDSA_P256, HIP_HI_KIND_RSA_3072, HIP_DH_NIST_P256, 10, false },
	{ HIP_HI_KIND_ECDSA_P256, HIP_HI_KIND_ECDSA_P256, HIP_DH_MODP_3072, 0, false },
	{ HIP_HI_KIND_ECDSA_P256, HIP_HI_KIND_ECDSA_P256, HIP_DH_NIST_P256, 16, false },
};

START_TEST(test_bex_matrix)
{
	struct bex_opts a = { .kind = matrix[_i].ka, .ipv6 = matrix[_i].ipv6 };
	struct bex_opts b = { .kind = matrix[_i].kb, .k = matrix[_i].k, .ipv6 = matrix[_i].ipv6,
			      .groups = { 8, 7, 3 }, .n_groups = 3 };
	struct bex_net n;
	struct hip_ha *ha;

	a.groups[0] = matrix[_i].group;
	a.n_groups = 1;
	if (matrix[_i].group == HIP_DH_MODP_3072) {
		b.groups[0] = HIP_DH_MODP_3072;
		b.n_groups = 1;
	}
	bex_net_init(&n, &a, &b);
	run_bex_checked(&n);
	ha = bex_ha(A(&n));
	ck_assert_int_eq(ha->dh_group, matrix[_i].group);
	ck_assert_int_eq(ha->r1_k, matrix[_i].k);
	/* RHASH is the Responder's suite: SHA-256 for RSA, SHA-384 for ECDSA. */
	ck_assert_int_eq(ha->rhash, matrix[_i].kb == HIP_HI_KIND_RSA_3072 ? HIP_RHASH_SHA256
									   : HIP_RHASH_SHA384);
	/* Defaults: first of the Responder's lists that we support. */
	ck_assert_int_eq(ha->hip_cipher, HIP_CIPHER_AES_128_CBC);
	ck_assert_int_eq(ha->esp_suite, HIP_ESP_AES_GCM_16);
	ck_assert_uint_eq(ha->esp_keys.enc_len, 20);
	ck_assert_uint_eq(ha->esp_keys.auth_len, 0);
	bex_net_free(&n);
}
END_TEST

/* W-12: the I2 on the wire, parameter by parameter. */
START_TEST(test_i2_wire)
{
	struct bex_opts a = { 0 }, b = { .k = 4 };
	struct hip_packet p;
	const struct hip_param_ref *r;
	struct hip_u16_list l;
	struct hip_esp_info ei;
	struct bex_net n;
	struct bex_pkt r1, i2;
	static const uint16_t order[] = {
		HIP_PARAM_ESP_INFO, HIP_PARAM_R1_COUNTER, HIP_PARAM_SOLUTION,
		HIP_PARAM_DIFFIE_HELLMAN, HIP_PARAM_HIP_CIPHER, HIP_PARAM_ENCRYPTED,
		HIP_PARAM_TRANSPORT_FORMAT_LIST, HIP_PARAM_ESP_TRANSFORM, HIP_PARAM_HIP_MAC,
		HIP_PARAM_HIP_SIGNATURE,
	};
	unsigned i;

	bex_net_init(&n, &a, &b);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	bex_deliver_one(&n);
	ck_assert(bex_take(&n, 1, HIP_R1, &r1));
	bex_inject(&n, 0, r1.buf, r1.len, &r1.src, &r1.dst);
	ck_assert(bex_take(&n, 0, HIP_I2, &i2));
	ck_assert_int_eq(hip_packet_parse(i2.buf, i2.len, &p), 0);
	ck_assert_uint_eq(p.nparams, sizeof(order) / sizeof(order[0]));
	for (i = 0; i < p.nparams; i++)
		ck_assert_uint_eq(p.params[i].type, order[i]);
	/* R1_COUNTER echoed byte for byte. */
	ck_assert_ptr_nonnull(r = hip_packet_find(&p, HIP_PARAM_R1_COUNTER));
	{
		struct hip_packet pr;
		const struct hip_param_ref *rr;

		ck_assert_int_eq(hip_packet_parse(r1.buf, r1.len, &pr), 0);
		ck_assert_ptr_nonnull(rr = hip_packet_find(&pr, HIP_PARAM_R1_COUNTER));
		ck_assert_uint_eq(rr->len, r->len);
		ck_assert_mem_eq(hip_param_content(&pr, rr), hip_param_content(&p, r), r->len);
	}
	r = hip_packet_find(&p, HIP_PARAM_HIP_CIPHER);
	ck_assert_int_eq(hip_hip_cipher_decode(hip_param_content(&p, r), r->len, &l), 0);
	ck_assert_uint_eq(l.n, 1);
	r = hip_packet_find(&p, HIP_PARAM_TRANSPORT_FORMAT_LIST);
	ck_assert_int_eq(hip_transport_format_list_decode(hip_param_content(&p, r), r->len, &l),
			 0);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_uint_eq(l.v[0], HIP_PARAM_ESP_TRANSFORM);
	r = hip_packet_find(&p, HIP_PARAM_ESP_TRANSFORM);
	ck_assert_int_eq(hip_esp_transform_decode(hip_param_content(&p, r), r->len, &l), 0);
	ck_assert_uint_eq(l.n, 1);
	/* C-07 / A-8: KEYMAT index = 2 * (AES-128 key 16 + SHA-384 48) = 128. */
	r = hip_packet_find(&p, HIP_PARAM_ESP_INFO);
	ck_assert_int_eq(hip_esp_info_decode(hip_param_content(&p, r), r->len, &ei), 0);
	ck_assert_uint_eq(ei.keymat_index, 128);
	ck_assert_uint_eq(ei.old_spi, 0);
	ck_assert_uint_eq(ei.new_spi, bex_ha(A(&n))->spi_in);
	/* Not a HOST_ID in the clear. */
	ck_assert_ptr_null(hip_packet_find(&p, HIP_PARAM_HOST_ID));
	bex_net_free(&n);
}
END_TEST

/* i2_host_id = clear (D-18): the I2 carries the Initiator's HOST_ID in the
 * clear, byte for byte its identity's TLV, no ENCRYPTED; the Responder takes
 * it and the exchange completes. */
START_TEST(test_i2_clear_host_id)
{
	struct bex_opts a = { 0 }, b = { 0 };
	const struct hidb_entry *me;
	const struct hip_param_ref *r;
	struct hip_packet p;
	struct bex_net n;
	struct bex_pkt r1, i2;

	bex_net_init(&n, &a, &b);
	A(&n)->d.conf.i2_host_id = HIPD_I2_HOST_ID_CLEAR;
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	bex_deliver_one(&n);
	ck_assert(bex_take(&n, 1, HIP_R1, &r1));
	bex_inject(&n, 0, r1.buf, r1.len, &r1.src, &r1.dst);
	ck_assert(bex_take(&n, 0, HIP_I2, &i2));
	ck_assert_int_eq(hip_packet_parse(i2.buf, i2.len, &p), 0);
	ck_assert_ptr_null(hip_packet_find(&p, HIP_PARAM_ENCRYPTED));
	ck_assert_ptr_nonnull(r = hip_packet_find(&p, HIP_PARAM_HOST_ID));
	me = bex_ha(A(&n))->local;
	ck_assert_uint_eq(r->len, hip_rd16(me->host_id_tlv + 2));
	ck_assert_mem_eq(hip_param_content(&p, r), me->host_id_tlv + HIP_TLV_HDR_LEN, r->len);
	bex_inject(&n, 1, i2.buf, i2.len, &i2.src, &i2.dst);
	ck_assert_int_eq(bex_deliver_one(&n), HIP_R2);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_ESTABLISHED);
	ck_assert_int_eq(bex_state(B(&n)), HIP_STATE_R2_SENT);
	ck_assert_uint_eq(bex_drops(B(&n)), 0);
	bex_net_free(&n);
}
END_TEST

/* ---- races ---------------------------------------------------------------- */

/* S-02: simultaneous I1s; the lower HIT drops the peer's I1. */
START_TEST(test_simultaneous_i1)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_host *lower;

	bex_net_init(&n, &o, &o);
	lower = hip_hit_cmp(bex_hit(A(&n)), bex_hit(B(&n))) < 0 ? A(&n) : B(&n);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert_int_eq(hipd_engine_trigger(&B(&n)->d, bex_hit(A(&n))), 0);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_I1_SENT);
	ck_assert_int_eq(bex_state(B(&n)), HIP_STATE_I1_SENT);
	bex_run(&n, 20);
	ck_assert_uint_eq(lower->d.stats->drop[HIPD_DROP_CROSSED_LOWER_HIT], 1);
	/* Only the greater HIT answered with an R1; the lower one initiated. */
	ck_assert_uint_eq(n.sent[lower->idx][HIP_R1], 0);
	ck_assert_uint_eq(n.sent[1 - lower->idx][HIP_R1], 1);
	ck_assert_int_eq(bex_state(lower), HIP_STATE_ESTABLISHED);
	ck_assert_int_eq(bex_state(&n.h[1 - lower->idx]), HIP_STATE_R2_SENT);
	bex_fire(&n.h[1 - lower->idx]);
	assert_established_pair(&n);
	bex_net_free(&n);
}
END_TEST

/* S-03: crossing I2s; the lower HIT drops, the greater answers with R2. */
START_TEST(test_crossing_i2)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_host *g, *l;

	bex_net_init(&n, &o, &o);
	if (hip_hit_cmp(bex_hit(A(&n)), bex_hit(B(&n))) > 0) {
		g = A(&n);
		l = B(&n);
	} else {
		g = B(&n);
		l = A(&n);
	}
	/* The greater host's I1 reaches the lower one before it triggers, so
	 * both get an R1 and both send an I2. */
	ck_assert_int_eq(hipd_engine_trigger(&g->d, bex_hit(l)), 0);
	ck_assert(bex_deliver_match(&n, g->idx, HIP_I1));
	ck_assert_int_eq(hipd_engine_trigger(&l->d, bex_hit(g)), 0);
	ck_assert(bex_deliver_match(&n, l->idx, HIP_I1));   /* g answers: greater */
	ck_assert(bex_deliver_match(&n, l->idx, HIP_R1));
	ck_assert(bex_deliver_match(&n, g->idx, HIP_R1));
	ck_assert_int_eq(bex_state(g), HIP_STATE_I2_SENT);
	ck_assert_int_eq(bex_state(l), HIP_STATE_I2_SENT);
	ck_assert(bex_deliver_match(&n, g->idx, HIP_I2));
	ck_assert_uint_eq(l->d.stats->drop[HIPD_DROP_CROSSED_LOWER_HIT], 1);
	ck_assert_int_eq(bex_state(l), HIP_STATE_I2_SENT);
	ck_assert(bex_deliver_match(&n, l->idx, HIP_I2));
	ck_assert_int_eq(bex_state(g), HIP_STATE_R2_SENT);
	ck_assert(bex_deliver_match(&n, g->idx, HIP_R2));
	ck_assert_int_eq(bex_state(l), HIP_STATE_ESTABLISHED);
	bex_fire(g);
	assert_established_pair(&n);
	bex_net_free(&n);
}
END_TEST

/* ---- loss (S-07) ----------------------------------------------------------------- */

START_TEST(test_lost_packet)
{
	static const uint8_t lost[] = { HIP_I1, HIP_R1, HIP_I2, HIP_R2 };
	struct bex_opts o = { 0 };
	struct bex_net n;
	uint32_t spi_b;

	bex_net_init(&n, &o, &o);
	n.drop_next[lost[_i]] = 1;
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	bex_run(&n, 20);
	ck_assert_uint_eq(n.dropped, 1);
	ck_assert_int_ne(bex_state(A(&n)), HIP_STATE_ESTABLISHED);
	spi_b = bex_ha(B(&n)) ? bex_ha(B(&n))->spi_in : 0;
	/* The Initiator's timer recovers every loss. */
	bex_fire(A(&n));
	bex_run(&n, 20);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_ESTABLISHED);
	if (lost[_i] == HIP_R2) {
		/* Duplicate I2 in R2-SENT: the same R2 again, same SPI. */
		ck_assert_uint_eq(bex_ha(B(&n))->spi_in, spi_b);
		ck_assert_uint_eq(n.sent[1][HIP_R2], 2);
		ck_assert_uint_eq(n.sent[0][HIP_I2], 2);
	}
	bex_fire(B(&n));
	assert_established_pair(&n);
	ck_assert_uint_eq(bex_drops(B(&n)), 0);
	bex_net_free(&n);
}
END_TEST

/* S-07: no answer at all -> E-FAILED after the retries -> UNASSOCIATED;
 * in I1-SENT (_i = 0, I1s lost) and in I2-SENT (_i = 1, I2s lost). */
START_TEST(test_e_failed)
{
	struct bex_opts a = { .i1_retries = 2 }, b = { 0 };
	uint8_t lost = _i ? HIP_I2 : HIP_I1;
	enum hip_state waiting = _i ? HIP_STATE_I2_SENT : HIP_STATE_I1_SENT;
	unsigned retries;
	struct bex_net n;
	unsigned i;

	bex_net_init(&n, &a, &b);
	retries = _i ? A(&n)->d.conf.i2_retries : 2;
	n.drop_next[lost] = 100;
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	bex_run(&n, 10);
	for (i = 0; i < retries; i++) {
		ck_assert_int_eq(bex_state(A(&n)), waiting);
		bex_fire(A(&n));
		bex_run(&n, 10);
	}
	ck_assert_uint_eq(n.sent[0][lost], retries + 1);
	bex_fire(A(&n));
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_E_FAILED);
	ck_assert_uint_eq(A(&n)->d.stats->bex_failed, 1);
	ck_assert_uint_eq(n.sent[0][lost], retries + 1);
	/* The E-FAILED wait (Table 9) ends it. */
	bex_fire(A(&n));
	ck_assert_ptr_null(bex_ha(A(&n)));
	ck_assert_ptr_null(bex_ha(B(&n)));
	bex_net_free(&n);
}
END_TEST

/* ---- tampering -------------------------------------------------------------------- */

/* Stop A's exchange at the I2 and return it (not delivered). */
static void capture_i2(struct bex_net *n, struct bex_pkt *i2)
{
	ck_assert_int_eq(hipd_engine_trigger(&A(n)->d, bex_hit(B(n))), 0);
	ck_assert_int_eq(bex_deliver_one(n), HIP_I1);
	ck_assert_int_eq(bex_deliver_one(n), HIP_R1);
	ck_assert(bex_take(n, 0, HIP_I2, i2));
	ck_assert_uint_eq(n->n, 0);
}

static const struct {
	uint16_t type;
	unsigned off;                /* byte of the contents flipped */
	enum hipd_drop expect;
} tamper[] = {
	{ HIP_PARAM_ESP_INFO, 6, HIPD_DROP_BAD_PARAM },          /* OLD SPI != 0 */
	{ HIP_PARAM_ESP_INFO, 3, HIPD_DROP_BAD_PARAM },          /* KEYMAT index */
	{ HIP_PARAM_R1_COUNTER, 0, HIPD_DROP_R1_COUNTER },       /* Reserved */
	{ HIP_PARAM_R1_COUNTER, 11, HIPD_DROP_PUZZLE_STALE },    /* the counter */
	{ HIP_PARAM_SOLUTION, 0, HIPD_DROP_PUZZLE_FAILED },      /* K */
	{ HIP_PARAM_SOLUTION, 2, HIPD_DROP_PUZZLE_STALE },       /* Opaque */
	{ HIP_PARAM_SOLUTION, 10, HIPD_DROP_PUZZLE_FAILED },     /* #I */
	{ HIP_PARAM_DIFFIE_HELLMAN, 20, HIPD_DROP_BAD_DH },      /* public value */
	{ HIP_PARAM_HIP_CIPHER, 1, HIPD_DROP_NO_PROPOSAL },
	{ HIP_PARAM_ENCRYPTED, 4, HIPD_DROP_BAD_ENCRYPTED },     /* IV -> inner TLV type */
	{ HIP_PARAM_TRANSPORT_FORMAT_LIST, 1, HIPD_DROP_NO_PROPOSAL },
	{ HIP_PARAM_ESP_TRANSFORM, 3, HIPD_DROP_NO_PROPOSAL },
	{ HIP_PARAM_ESP_TRANSFORM, 0, HIPD_DROP_BAD_MAC },       /* Reserved: MAC only */
	{ HIP_PARAM_HIP_MAC, 7, HIPD_DROP_BAD_MAC },
	{ HIP_PARAM_HIP_SIGNATURE, 9, HIPD_DROP_BAD_SIGNATURE },
};

/* Every change to the I2 is caught, by the check for that parameter, and
 * the Responder keeps no state; the untouched I2 still works afterwards. */
START_TEST(test_tampered_i2)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_pkt i2, bad;
	struct hip_packet p;
	const struct hip_param_ref *r;
	uint64_t before, total;
	unsigned i;

	bex_net_init(&n, &o, &o);
	capture_i2(&n, &i2);
	ck_assert_int_eq(hip_packet_parse(i2.buf, i2.len, &p), 0);
	for (i = 0; i < sizeof(tamper) / sizeof(tamper[0]); i++) {
		r = hip_packet_find(&p, tamper[i].type);
		ck_assert_ptr_nonnull(r);
		ck_assert_uint_lt(tamper[i].off, r->len);
		bad = i2;
		bad.buf[r->off + HIP_TLV_HDR_LEN + tamper[i].off] ^= 0x01;
		before = B(&n)->d.stats->drop[tamper[i].expect];
		total = bex_drops(B(&n));
		bex_inject(&n, 1, bad.buf, bad.len, &bad.src, &bad.dst);
		ck_assert_msg(B(&n)->d.stats->drop[tamper[i].expect] == before + 1,
			      "%s byte %u: expected %s", hip_param_name(tamper[i].type),
			      tamper[i].off, hipd_drop_name(tamper[i].expect));
		ck_assert_uint_eq(bex_drops(B(&n)), total + 1);
		ck_assert_ptr_null(bex_ha(B(&n)));
		ck_assert(!bex_take(&n, 1, HIP_R2, NULL));
		n.n = 0;   /* NOTIFYs after a solved puzzle: not under test here */
	}
	bex_inject(&n, 1, i2.buf, i2.len, &i2.src, &i2.dst);
	ck_assert_int_eq(bex_state(B(&n)), HIP_STATE_R2_SENT);
	bex_run(&n, 10);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_ESTABLISHED);
	bex_net_free(&n);
}
END_TEST

/* P-02: a wrong J, I or K costs no DH derivation (and hence no signature). */
START_TEST(test_wrong_solution_no_dh)
{
	struct bex_opts a = { 0 }, b = { .k = 10 };
	struct bex_net n;
	struct bex_pkt i2, bad;
	struct hip_packet p;
	const struct hip_param_ref *r;
	struct hip_solution sol;
	uint64_t derives;
	uint8_t *c;
	unsigned bit;

	bex_net_init(&n, &a, &b);
	capture_i2(&n, &i2);
	ck_assert_int_eq(hip_packet_parse(i2.buf, i2.len, &p), 0);
	r = hip_packet_find(&p, HIP_PARAM_SOLUTION);
	ck_assert_int_eq(hip_solution_decode(hip_param_content(&p, r), r->len, 48, &sol), 0);
	derives = B(&n)->d.engine->dh_derives;
	/* Wrong J: flip bits of the last byte until it no longer solves the
	 * puzzle (with K = 10 the first flip almost always does). */
	for (bit = 0; bit < 8; bit++) {
		bad = i2;
		c = bad.buf + r->off + HIP_TLV_HDR_LEN + 4 + 2 * 48 - 1;
		*c ^= (uint8_t)(1u << bit);
		if (hip_puzzle_verify(HIP_RHASH_SHA384, 10, sol.i, bex_hit(A(&n))->b,
				      bex_hit(B(&n))->b, c - 47) < 0)
			break;
	}
	ck_assert_uint_lt(bit, 8);
	bex_inject(&n, 1, bad.buf, bad.len, &bad.src, &bad.dst);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_PUZZLE_FAILED], 1);
	/* Wrong K (claims less work). */
	bad = i2;
	bad.buf[r->off + HIP_TLV_HDR_LEN] = 0;
	bex_inject(&n, 1, bad.buf, bad.len, &bad.src, &bad.dst);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_PUZZLE_FAILED], 2);
	ck_assert_uint_eq(B(&n)->d.engine->dh_derives, derives);
	ck_assert_ptr_null(bex_ha(B(&n)));
	/* No NOTIFY to a host that has not solved the puzzle. */
	ck_assert_uint_eq(n.n, 0);
	bex_inject(&n, 1, i2.buf, i2.len, &i2.src, &i2.dst);
	ck_assert_uint_eq(B(&n)->d.engine->dh_derives, derives + 1);
	ck_assert_int_eq(bex_state(B(&n)), HIP_STATE_R2_SENT);
	bex_net_free(&n);
}
END_TEST

/* C-04: an attacker trims the (unsigned) I1 list to a weak group; the
 * Responder answers honestly, the Initiator sees the downgrade. */
START_TEST(test_dh_downgrade)
{
	struct bex_opts a = { .groups = { 7, 8 }, .n_groups = 2 };
	struct bex_opts b = { .groups = { 8, 7 }, .n_groups = 2 };
	struct hip_u8_list only7 = { .n = 1, .v = { 7 } };
	uint8_t buf[HIP_MAX_PACKET];
	struct hip_builder bld;
	struct bex_pkt i1;
	struct bex_net n;
	int len;

	bex_net_init(&n, &a, &b);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert(bex_take(&n, 0, HIP_I1, &i1));
	hip_build_init(&bld, buf, sizeof(buf), HIP_I1, bex_hit(A(&n)), bex_hit(B(&n)));
	hip_dh_group_list_build(&bld, &only7);
	len = hip_build_finish(&bld);
	ck_assert_int_gt(len, 0);
	bex_inject(&n, 1, buf, (size_t)len, &i1.src, &i1.dst);
	ck_assert_int_eq(bex_deliver_one(&n), HIP_R1);
	ck_assert_uint_eq(A(&n)->d.stats->drop[HIPD_DROP_DH_DOWNGRADE], 1);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_I1_SENT);
	ck_assert_uint_eq(n.n, 0);
	/* The real I1 gets group 8, the first of B's list in A's. */
	bex_inject(&n, 1, i1.buf, i1.len, &i1.src, &i1.dst);
	bex_run(&n, 10);
	bex_fire(B(&n));
	assert_established_pair(&n);
	ck_assert_int_eq(bex_ha(A(&n))->dh_group, 8);
	bex_net_free(&n);
}
END_TEST

/* §6.10, C-09: the R2 is checked byte by byte, and HIP_MAC_2 covers the
 * R1's HOST_ID as the Initiator kept it. */
static const struct {
	uint16_t type;
	unsigned off;
	enum hipd_drop expect;
} r2_tamper[] = {
	{ HIP_PARAM_ESP_INFO, 2, HIPD_DROP_BAD_PARAM },      /* KEYMAT index */
	{ HIP_PARAM_ESP_INFO, 5, HIPD_DROP_BAD_PARAM },      /* OLD SPI */
	{ HIP_PARAM_ESP_INFO, 11, HIPD_DROP_BAD_MAC },       /* NEW SPI: only the MAC */
	{ HIP_PARAM_HIP_MAC_2, 0, HIPD_DROP_BAD_MAC },
	{ HIP_PARAM_HIP_SIGNATURE, 9, HIPD_DROP_BAD_SIGNATURE },
};

START_TEST(test_tampered_r2)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_pkt r2, bad;
	struct hip_packet p;
	const struct hip_param_ref *r;
	struct hip_ha *ha;
	unsigned i;

	bex_net_init(&n, &o, &o);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	bex_deliver_one(&n);
	bex_deliver_one(&n);
	bex_deliver_one(&n);
	ck_assert(bex_take(&n, 1, HIP_R2, &r2));
	ck_assert_int_eq(hip_packet_parse(r2.buf, r2.len, &p), 0);
	for (i = 0; i < sizeof(r2_tamper) / sizeof(r2_tamper[0]); i++) {
		r = hip_packet_find(&p, r2_tamper[i].type);
		ck_assert_ptr_nonnull(r);
		bad = r2;
		bad.buf[r->off + HIP_TLV_HDR_LEN + r2_tamper[i].off] ^= 0x01;
		bex_inject(&n, 0, bad.buf, bad.len, &bad.src, &bad.dst);
		ck_assert_msg(A(&n)->d.stats->drop[r2_tamper[i].expect] == 1,
			      "%s byte %u", hip_param_name(r2_tamper[i].type), r2_tamper[i].off);
		A(&n)->d.stats->drop[r2_tamper[i].expect] = 0;
		ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_I2_SENT);
	}
	/* One byte of the kept R1 HOST_ID changed: the genuine R2 fails. */
	ha = bex_ha(A(&n));
	ha->peer_host_id_tlv[ha->peer_host_id_tlv_len - 9] ^= 0x01;
	bex_inject(&n, 0, r2.buf, r2.len, &r2.src, &r2.dst);
	ck_assert_uint_eq(A(&n)->d.stats->drop[HIPD_DROP_BAD_MAC], 1);
	ha->peer_host_id_tlv[ha->peer_host_id_tlv_len - 9] ^= 0x01;
	bex_inject(&n, 0, r2.buf, r2.len, &r2.src, &r2.dst);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_ESTABLISHED);
	bex_net_free(&n);
}
END_TEST

static Suite *bex_suite(void)
{
	Suite *s = suite_create("bex");
	TCase *t = tcase_create("exchange");

	tcase_add_unchecked_fixture(t, bex_tmp_setup, bex_tmp_teardown);
	tcase_set_timeout(t, 120);
	tcase_add_loop_test(t, test_bex_matrix, 0, sizeof(matrix) / sizeof(matrix[0]));
	tcase_add_test(t, test_i2_wire);
	tcase_add_test(t, test_i2_clear_host_id);
	tcase_add_test(t, test_simultaneous_i1);
	tcase_add_test(t, test_crossing_i2);
	tcase_add_loop_test(t, test_lost_packet, 0, 4);
	tcase_add_loop_test(t, test_e_failed, 0, 2);
	tcase_add_test(t, test_tampered_i2);
	tcase_add_test(t, test_wrong_solution_no_dh);
	tcase_add_test(t, test_dh_downgrade);
	tcase_add_test(t, test_tampered_r2);
	suite_add_tcase(s, t);
	return s;
}

UNIT_MAIN(bex_suite)
