/*
 * check_rvs.c - rendezvous (RFC 8004), hipd/engine/reg/rvs.c: the server's
 * relay appends FROM and RVS_HMAC (§3.3, §4.2) keyed so that the client's
 * check with its side of the association verifies (§4.3.2); tampering,
 * a missing RVS_HMAC and a second relay are refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coverage.h"
#include "engine/assoc/hadb.h"
#include "engine/reg/reg.h"
#include "params.h"
#include "unit.h"

#define SEC 1000000000ULL

static struct hip_hit mkhit(uint32_t n)
{
	struct hip_hit h = { { 0x20, 0x01, 0x00, 0x21 } };

	h.b[12] = (uint8_t)(n >> 24);
	h.b[13] = (uint8_t)(n >> 16);
	h.b[14] = (uint8_t)(n >> 8);
	h.b[15] = (uint8_t)n;
	return h;
}

static struct hip_addr mkaddr(const char *s)
{
	struct hip_addr a;

	ck_assert_int_eq(hip_addr_from_str(s, &a), 0);
	return a;
}

/* ---- rvs.c: RFC 8004 -------------------------------------------------- */

/* The RVS's association with its client and the client's mirror of it:
 * the same keys (one KEYMAT), HITs swapped, so the server's outgoing
 * integrity key is the client's incoming one. */
static struct hip_ha srv_ha, cli_ha;
static struct hip_hit hit_i, hit_c, hit_s;
static struct hip_addr addr_i;

static void rvs_setup(void)
{
	memset(&srv_ha, 0, sizeof(srv_ha));
	hit_i = mkhit(0x100);
	hit_c = mkhit(0x200);
	hit_s = mkhit(0x300);
	addr_i = mkaddr("198.51.100.7");
	srv_ha.hit_local = hit_s;
	srv_ha.hit_peer = hit_c;
	srv_ha.rhash = HIP_RHASH_SHA256;
	srv_ha.hip_keys.int_len = 32;
	memset(srv_ha.hip_keys.gl_int, 0x11, 32);
	memset(srv_ha.hip_keys.lg_int, 0x22, 32);
	memset(srv_ha.hip_keys.gl_enc, 0x33, 16);
	memset(srv_ha.hip_keys.lg_enc, 0x44, 16);
	srv_ha.hip_keys.enc_len = 16;
	cli_ha = srv_ha;
	cli_ha.hit_local = hit_c;
	cli_ha.hit_peer = hit_s;
}

/* An I1 from hit_i to hit_c, with FROM (as if relayed) when from. */
static int build_i1(uint8_t *buf, size_t cap, const struct hip_addr *from)
{
	struct hip_u8_list g = { 2, { HIP_DH_NIST_P256, HIP_DH_NIST_P384 } };
	struct hip_builder b;

	hip_build_init(&b, buf, cap, HIP_I1, &hit_i, &hit_c);
	hip_dh_group_list_build(&b, &g);
	if (from)
		hip_from_build(&b, from);
	return hip_build_finish(&b);
}

/* Relay an I1 through the RVS into out; the parsed result in *rp. */
static int relay(uint8_t *out, size_t cap, struct hip_packet *rp)
{
	uint8_t i1[256];
	struct hip_packet p;
	int n = build_i1(i1, sizeof(i1), NULL);

	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(hip_packet_parse(i1, (size_t)n, &p), 0);
	n = rvs_relay_build(&p, &addr_i, &srv_ha, out, cap);
	if (n > 0)
		ck_assert_int_eq(hip_packet_parse(out, (size_t)n, rp), 0);
	return n;
}

START_TEST(test_rvs_relay)
{
	uint8_t out[512], i1[256];
	struct hip_packet p, orig;
	struct hip_addr from;
	int n, n1;

	rvs_setup();
	n1 = build_i1(i1, sizeof(i1), NULL);
	ck_assert_int_eq(hip_packet_parse(i1, (size_t)n1, &orig), 0);
	n = relay(out, sizeof(out), &p);
	ck_assert_int_gt(n, n1);
	/* the I1 as it was, then FROM (the Initiator) and RVS_HMAC (§4.2) */
	ck_assert_uint_eq(p.type, HIP_I1);
	ck_assert_mem_eq(p.hit_sender.b, hit_i.b, 16);
	ck_assert_mem_eq(p.hit_receiver.b, hit_c.b, 16);
	ck_assert_uint_eq(p.nparams, orig.nparams + 2);
	ck_assert_mem_eq(out + HIP_HDR_LEN, i1 + HIP_HDR_LEN, (size_t)n1 - HIP_HDR_LEN);
	ck_assert_uint_eq(p.params[p.nparams - 2].type, HIP_PARAM_FROM);
	ck_assert_mem_eq(hip_param_content(&p, &p.params[p.nparams - 2]), addr_i.in6.s6_addr,
			 16);
	ck_assert_uint_eq(p.params[p.nparams - 1].type, HIP_PARAM_RVS_HMAC);
	ck_assert_uint_eq(p.params[p.nparams - 1].len, 32);
	/* the client trusts FROM once RVS_HMAC verifies; the checksum the RVS
	 * sets on sending does not matter */
	hip_packet_set_checksum(out, (size_t)n, &addr_i, &addr_i);
	memset(&from, 0, sizeof(from));
	ck_assert_int_eq(rvs_check_relayed(&p, &cli_ha, &from), 0);
	ck_assert_mem_eq(&from, &addr_i, sizeof(from));
	/* keyed by direction: the server's own incoming key does not verify */
	ck_assert_int_eq(rvs_check_relayed(&p, &srv_ha, &from), -EBADMSG);
	/* no keys with that server */
	ck_assert_int_eq(rvs_check_relayed(&p, NULL, &from), -ENOKEY);
	/* an IPv6 Initiator */
	addr_i = mkaddr("2001:db8:1::7");
	n = relay(out, sizeof(out), &p);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(rvs_check_relayed(&p, &cli_ha, &from), 0);
	ck_assert_mem_eq(&from, &addr_i, sizeof(from));
}
END_TEST

START_TEST(test_rvs_tampered)
{
	uint8_t out[512], copy[512];
	struct hip_packet p, q;
	struct hip_addr from;
	unsigned which;
	int n;

	rvs_setup();
	n = relay(out, sizeof(out), &p);
	ck_assert_int_gt(n, 0);
	/* a flipped bit in FROM, in RVS_HMAC, in the I1 itself */
	for (which = 0; which < 3; which++) {
		size_t off = which == 2 ? HIP_HDR_LEN + 4
			: p.params[p.nparams - 2 + which].off + 4u + 5u;

		memcpy(copy, out, (size_t)n);
		copy[off] ^= 0x08;
		ck_assert_int_eq(hip_packet_parse(copy, (size_t)n, &q), 0);
		ck_assert_msg(rvs_check_relayed(&q, &cli_ha, &from) == -EBADMSG,
			      "tampering %u not detected", which);
	}
	/* one hop only: FROM or RVS_HMAC already there */
	ck_assert_int_eq(rvs_relay_build(&p, &addr_i, &srv_ha, copy, sizeof(copy)), -ELOOP);
	n = build_i1(copy, sizeof(copy), &addr_i);
	ck_assert_int_eq(hip_packet_parse(copy, (size_t)n, &q), 0);
	ck_assert_int_eq(rvs_relay_build(&q, &addr_i, &srv_ha, out, sizeof(out)), -ELOOP);
	/* FROM without RVS_HMAC, and no FROM at all */
	ck_assert_int_eq(rvs_check_relayed(&q, &cli_ha, &from), -ENOENT);
	n = build_i1(copy, sizeof(copy), NULL);
	ck_assert_int_eq(hip_packet_parse(copy, (size_t)n, &q), 0);
	ck_assert_int_eq(rvs_check_relayed(&q, &cli_ha, &from), -ENOENT);
	/* no keys, no room */
	ck_assert_int_eq(relay(out, (size_t)n + 8, &p), -ENOSPC);
	srv_ha.hip_keys.int_len = 0;
	ck_assert_int_eq(relay(out, sizeof(out), &p), -ENOKEY);
}
END_TEST

static Suite *rvs_suite(void)
{
	Suite *s = suite_create("rvs");
	TCase *tc = tcase_create("relay");

	tcase_add_test(tc, test_rvs_relay);
	tcase_add_test(tc, test_rvs_tampered);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(rvs_suite)
