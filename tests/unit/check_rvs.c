/*
 * check_rvs.c - rendezvous (RFC 8004), hipd/engine/reg/rvs.c: the server's
 * relay appends FROM and RVS_HMAC (§3.3, §4.2) keyed so that the client's
 * check with its side of the association verifies (§4.3.2); tampering,
 * a missing RVS_HMAC and a second relay are refused. The same for the
 * control relay of RFC 9028 (reg/relay.c: RELAY_FROM, RELAY_HMAC), its
 * new parameters (CANDIDATE_PRIORITY, NOMINATE, MAPPED_ADDRESS), the NAT
 * traversal mode choice and the ICE-HIP-UDP candidates
 * (exchange/bex_nat.c, update/update_ice.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coverage.h"
#include "engine/assoc/hadb.h"
#include "engine/engine_int.h"
#include "engine/exchange/exchange.h"
#include "engine/reg/reg.h"
#include "engine/update/update.h"
#include "net/locset.h"
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

/* ---- relay.c: RFC 9028 control relay ------------------------------------ */

/* Relay the I1 as a control relay, the Initiator seen at addr_i:port. */
static int relay9028(uint8_t *out, size_t cap, uint16_t port, struct hip_packet *rp)
{
	uint8_t i1[256];
	struct hip_packet p;
	int n = build_i1(i1, sizeof(i1), NULL);

	ck_assert_int_eq(hip_packet_parse(i1, (size_t)n, &p), 0);
	n = relay_forward_build(&p, &addr_i, port, &srv_ha, out, cap);
	if (n > 0)
		ck_assert_int_eq(hip_packet_parse(out, (size_t)n, rp), 0);
	return n;
}

START_TEST(test_relay_from)
{
	uint8_t out[512], copy[512];
	struct hip_relay_addr from;
	struct hip_packet p, q;
	const uint8_t *c;
	unsigned which;
	int n;

	rvs_setup();
	n = relay9028(out, sizeof(out), 40123, &p);
	ck_assert_int_gt(n, 0);
	/* RELAY_FROM (port | 17 | 0 | address, §5.6) then RELAY_HMAC (§5.8) */
	ck_assert_uint_eq(p.params[p.nparams - 2].type, HIP_PARAM_RELAY_FROM);
	ck_assert_uint_eq(p.params[p.nparams - 2].len, 20);
	c = hip_param_content(&p, &p.params[p.nparams - 2]);
	ck_assert_uint_eq(c[0] << 8 | c[1], 40123);
	ck_assert_uint_eq(c[2], 17);
	ck_assert_uint_eq(c[3], 0);
	ck_assert_mem_eq(c + 4, addr_i.in6.s6_addr, 16);
	ck_assert_uint_eq(p.params[p.nparams - 1].type, HIP_PARAM_RELAY_HMAC);
	/* the client's side of the association verifies; the server's not */
	ck_assert_int_eq(relay_check(&p, &cli_ha, &from), 0);
	ck_assert_uint_eq(from.port, 40123);
	ck_assert_uint_eq(from.protocol, 17);
	ck_assert_mem_eq(&from.addr, &addr_i, sizeof(addr_i));
	ck_assert_int_eq(relay_check(&p, &srv_ha, &from), -EBADMSG);
	ck_assert_int_eq(relay_check(&p, NULL, &from), -ENOKEY);
	/* RVS_HMAC is not RELAY_HMAC: the rendezvous check finds none */
	ck_assert_int_eq(rvs_check_relayed(&p, &cli_ha, &from.addr), -ENOENT);
	/* tampering with the port, the HMAC, the I1 */
	for (which = 0; which < 3; which++) {
		size_t off = which == 0 ? p.params[p.nparams - 2].off + 4u + 1u
			: which == 1 ? p.params[p.nparams - 1].off + 4u + 7u : HIP_HDR_LEN + 4;

		memcpy(copy, out, (size_t)n);
		copy[off] ^= 0x01;
		ck_assert_int_eq(hip_packet_parse(copy, (size_t)n, &q), 0);
		ck_assert_msg(relay_check(&q, &cli_ha, &from) == -EBADMSG,
			      "tampering %u not detected", which);
	}
	/* one hop: a relayed packet, or one a rendezvous server relayed */
	ck_assert_int_eq(relay_forward_build(&p, &addr_i, 1, &srv_ha, copy, sizeof(copy)),
			 -ELOOP);
	n = build_i1(copy, sizeof(copy), &addr_i);
	ck_assert_int_eq(hip_packet_parse(copy, (size_t)n, &q), 0);
	ck_assert_int_eq(relay_forward_build(&q, &addr_i, 1, &srv_ha, out, sizeof(out)), -ELOOP);
	/* raw IP: protocol 0 and port 0 */
	n = relay9028(out, sizeof(out), 0, &p);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(relay_check(&p, &cli_ha, &from), 0);
	ck_assert_uint_eq(from.protocol, 0);
	/* no RELAY_FROM; no room; no keys */
	n = build_i1(copy, sizeof(copy), NULL);
	ck_assert_int_eq(hip_packet_parse(copy, (size_t)n, &q), 0);
	ck_assert_int_eq(relay_check(&q, &cli_ha, &from), -ENOENT);
	ck_assert_int_eq(relay9028(out, (size_t)n + 8, 1, &p), -ENOSPC);
	srv_ha.hip_keys.int_len = 0;
	ck_assert_int_eq(relay9028(out, sizeof(out), 1, &p), -ENOKEY);
}
END_TEST

/* RELAY_FROM whose protocol and port disagree is refused even when the
 * HMAC is right (a relay bug or a forgery). */
START_TEST(test_relay_from_bad_protocol)
{
	uint8_t i1[256], out[512];
	static const uint8_t protos[3][2] = { { 17, 0 }, { 6, 1 }, { 0, 1 } };
	struct hip_relay_addr ra = { .port = 7 }, from;
	struct hip_builder b;
	struct hip_packet p;
	unsigned i;
	int n;

	rvs_setup();
	ra.addr = addr_i;
	/* protocol 17 with a port verifies; TCP, or raw IP with a port, not */
	for (i = 0; i < 3; i++) {
		ra.protocol = protos[i][0];
		n = build_i1(i1, sizeof(i1), NULL);
		ck_assert_int_eq(hip_packet_parse(i1, (size_t)n, &p), 0);
		hip_build_resume(&b, out, sizeof(out), &p);
		hip_relay_addr_build(&b, HIP_PARAM_RELAY_FROM, &ra);
		hip_build_relay_hmac(&b, srv_ha.rhash, eng_key_out_int(&srv_ha), 32);
		n = hip_build_finish(&b);
		ck_assert_int_gt(n, 0);
		ck_assert_int_eq(hip_packet_parse(out, (size_t)n, &p), 0);
		ck_assert_int_eq(relay_check(&p, &cli_ha, &from), protos[i][1] ? -EBADMSG : 0);
	}
}
END_TEST

/* ---- RFC 9028 parameters ------------------------------------------------- */

START_TEST(test_ice_params)
{
	struct hip_relay_addr m = { .port = 10500, .protocol = 17 }, back;
	uint8_t buf[256];
	struct hip_builder b;
	struct hip_packet p;
	const uint8_t *c;
	uint32_t prio = 0;
	int n;

	m.addr = mkaddr("203.0.113.9");
	hip_build_init(&b, buf, sizeof(buf), HIP_UPDATE, &hit_i, &hit_c);
	hip_relay_addr_build(&b, HIP_PARAM_MAPPED_ADDRESS, &m);
	hip_candidate_priority_build(&b, 0x6effffffu);
	hip_nominate_build(&b);
	n = hip_build_finish(&b);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(hip_packet_parse(buf, (size_t)n, &p), 0);
	ck_assert_uint_eq(p.nparams, 3);
	/* §5.12, §5.14, §5.15: types 4660, 4700, 4710; lengths 20, 4, 4 */
	ck_assert_uint_eq(p.params[0].type, 4660);
	ck_assert_uint_eq(p.params[1].type, 4700);
	ck_assert_uint_eq(p.params[2].type, 4710);
	ck_assert_int_eq(hip_relay_addr_decode(hip_param_content(&p, &p.params[0]),
					       p.params[0].len, &back), 0);
	ck_assert_uint_eq(back.port, 10500);
	ck_assert_mem_eq(&back.addr, &m.addr, sizeof(m.addr));
	c = hip_param_content(&p, &p.params[1]);
	ck_assert_uint_eq(p.params[1].len, 4);
	ck_assert_uint_eq(c[0], 0x6e);
	ck_assert_int_eq(hip_candidate_priority_decode(c, 4, &prio), 0);
	ck_assert_uint_eq(prio, 0x6effffffu);
	ck_assert_int_eq(hip_nominate_decode(hip_param_content(&p, &p.params[2]), 4), 0);
	/* bounds */
	ck_assert_int_eq(hip_candidate_priority_decode(c, 3, &prio), -EBADMSG);
	ck_assert_int_eq(hip_candidate_priority_decode(c, 8, &prio), -EBADMSG);
	ck_assert_int_eq(hip_nominate_decode(c, 0), -EBADMSG);
	ck_assert_int_eq(hip_relay_addr_decode(c, 16, &back), -EBADMSG);
	/* the builder refuses the RELAY layout for another type */
	hip_build_init(&b, buf, sizeof(buf), HIP_UPDATE, &hit_i, &hit_c);
	hip_relay_addr_build(&b, HIP_PARAM_CANDIDATE_PRIORITY, &m);
	ck_assert_int_lt(hip_build_finish(&b), 0);
}
END_TEST

START_TEST(test_nat_mode_choice)
{
	struct hip_u16_list l = { 2, { 1, 3 } };

	/* the Responder's order, but never UDP-ENCAPSULATION through a
	 * relay (RFC 9028 §4.7.2) */
	ck_assert_uint_eq(bex_nat_mode_choose(&l, false), 1);
	ck_assert_uint_eq(bex_nat_mode_choose(&l, true), 3);
	l.v[0] = 3;
	l.v[1] = 1;
	ck_assert_uint_eq(bex_nat_mode_choose(&l, false), 3);
	l.n = 1;
	l.v[0] = 1;
	ck_assert_uint_eq(bex_nat_mode_choose(&l, true), 0);
	l.v[0] = 2;            /* ICE-STUN-UDP: not ours */
	ck_assert_uint_eq(bex_nat_mode_choose(&l, false), 0);
	/* only the first 6 count (§5.4) */
	l.n = 7;
	memset(l.v, 0, sizeof(l.v));
	l.v[6] = 1;
	ck_assert_uint_eq(bex_nat_mode_choose(&l, false), 0);
	l.v[5] = 1;
	ck_assert_uint_eq(bex_nat_mode_choose(&l, false), 1);
}
END_TEST

/* RFC 9028 §4.4: the checks go at the higher of the two Ta; 50 ms for a
 * host that offers none; a malformed TRANSACTION_PACING is refused. */
static uint16_t ta_with(unsigned own, int peer_ta, bool malformed)
{
	static const struct hip_hit h1 = { { 0x20, 0x01, 0x00, 0x20 } }, h2 = { { 0x20, 0x01, 0x00, 0x21 } };
	uint8_t buf[256];
	struct hip_builder b;
	struct hip_packet p;
	struct hipd d;
	uint16_t ta = 0;
	int n;

	memset(&d, 0, sizeof(d));
	d.conf.nat_ta_ms = own;
	hip_build_init(&b, buf, sizeof(buf), HIP_R1, &h1, &h2);
	if (peer_ta >= 0)
		hip_transaction_pacing_build(&b, (uint32_t)peer_ta);
	n = hip_build_finish(&b);
	ck_assert_int_gt(n, 0);
	if (malformed)
		buf[HIP_HDR_LEN + 3] = 2;           /* Length 2: not a 32-bit value */
	ck_assert_int_eq(hip_packet_parse(buf, (size_t)n, &p), 0);
	if (malformed) {
		ck_assert_int_eq(bex_nat_ta(&d, &p, &ta), -EBADMSG);
		return 0;
	}
	ck_assert_int_eq(bex_nat_ta(&d, &p, &ta), 0);
	return ta;
}

START_TEST(test_nat_ta)
{
	ck_assert_uint_eq(ta_with(50, -1, false), 50);     /* none: 50 */
	ck_assert_uint_eq(ta_with(50, 200, false), 200);   /* the higher */
	ck_assert_uint_eq(ta_with(300, 200, false), 300);
	ck_assert_uint_eq(ta_with(20, -1, false), 50);     /* the peer's 50 */
	ck_assert_uint_eq(ta_with(5, 1, false), 5);        /* never below ours (>= 5) */
	ck_assert_uint_eq(ta_with(50, 100000, false), HIP_NAT_TA_MAX_MS);
	ck_assert_uint_eq(ta_with(0, -1, false), 50);      /* unconfigured */
	ta_with(50, 0, true);
}
END_TEST

/* Inner parameters of ENCRYPTED: LOCATOR_SET then HOST_ID, then padding. */
START_TEST(test_inner_params)
{
	uint8_t plain[64];
	const uint8_t *c;
	size_t len;

	memset(plain, 0, sizeof(plain));
	hip_wr16(plain, HIP_PARAM_LOCATOR_SET);
	hip_wr16(plain + 2, 12);          /* 4 + 12 -> 16 */
	plain[4] = 0xaa;
	hip_wr16(plain + 16, HIP_PARAM_HOST_ID);
	hip_wr16(plain + 18, 20);         /* 4 + 20 -> 24 */
	plain[20] = 0xbb;
	memset(plain + 40, 0x07, 8);      /* block padding */
	ck_assert_int_eq(bex_inner_find(plain, 48, HIP_PARAM_HOST_ID, &c, &len), 0);
	ck_assert_uint_eq(len, 20);
	ck_assert_uint_eq(c[0], 0xbb);
	ck_assert_int_eq(bex_inner_find(plain, 48, HIP_PARAM_LOCATOR_SET, &c, &len), 0);
	ck_assert_uint_eq(c[0], 0xaa);
	/* truncated: the HOST_ID runs past the end */
	ck_assert_int_eq(bex_inner_find(plain, 30, HIP_PARAM_HOST_ID, &c, &len), -ENOENT);
	/* anything else ends the walk */
	hip_wr16(plain, HIP_PARAM_ESP_INFO);
	ck_assert_int_eq(bex_inner_find(plain, 48, HIP_PARAM_HOST_ID, &c, &len), -ENOENT);
	ck_assert_int_eq(bex_inner_find(plain, 3, HIP_PARAM_HOST_ID, &c, &len), -ENOENT);
}
END_TEST

/* Our candidates (RFC 9028 §4.2, §5.7): the host one, each relay
 * server's REG_FROM, how this exchange's relay saw us; no duplicates;
 * the other family's host and server-reflexive candidates only where we
 * take UDP in it; priorities from the type preferences, IPv6 first. */
START_TEST(test_ice_candidates)
{
	struct hipd d;
	struct hipd_engine e;
	struct hip_locator_set s;
	struct hip_relay_addr seen = { .port = 10500, .protocol = 17 };
	struct hip_addr local = mkaddr("10.255.10.1"), srv = mkaddr("198.51.100.1");
	struct hip_addr v6 = mkaddr("2001:db8::7");
	struct hip_hit h = mkhit(0x400);
	struct reg_srv *rs;
	uint8_t relay = HIP_REG_RELAY_UDP_HIP;

	memset(&d, 0, sizeof(d));
	memset(&e, 0, sizeof(e));
	d.engine = &e;
	d.conf.nat_port = 10500;
	ck_assert_int_eq(reg_client_create(&e.reg_client), 0);
	/* no server: the host candidate alone */
	upd_ice_candidates(&d, &local, 0x1234, NULL, &s);
	ck_assert_uint_eq(s.n, 1);
	ck_assert_uint_eq(s.loc[0].locator_type, HIP_LOC_TYPE_TRANSPORT);
	ck_assert_uint_eq(s.loc[0].transport_protocol, 17);
	ck_assert_uint_eq(s.loc[0].kind, 0);
	ck_assert_uint_eq(s.loc[0].port, 10500);
	ck_assert_uint_eq(s.loc[0].spi, 0x1234);
	/* IPv4: local preference 65534 (IPv6 65535, RFC 8421 §4) */
	ck_assert_uint_eq(s.loc[0].priority, 126u << 24 | 65534u << 8 | 255u);
	ck_assert_uint_eq(s.loc[0].traffic_type, HIP_LOC_TRAFFIC_BOTH);
	/* a relay server's REG_FROM, and the R1's RELAY_TO saying the same:
	 * one server-reflexive candidate */
	ck_assert_int_eq(reg_client_add(e.reg_client, &h, &srv, &relay, 1, true, &rs), 0);
	rs->have_reg_from = true;
	rs->reg_from.port = 10500;
	rs->reg_from.protocol = 17;
	rs->reg_from.addr = mkaddr("198.51.100.2");
	seen.addr = rs->reg_from.addr;
	upd_ice_candidates(&d, &local, 0x1234, &seen, &s);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_uint_eq(s.loc[1].kind, 1);
	ck_assert_uint_eq(s.loc[1].priority, 100u << 24 | 65534u << 8 | 255u);
	ck_assert_mem_eq(&s.loc[1].addr, &rs->reg_from.addr, sizeof(s.loc[1].addr));
	/* a different mapping seen by this exchange's relay: a third */
	seen.port = 20001;
	upd_ice_candidates(&d, &local, 0x1234, &seen, &s);
	ck_assert_uint_eq(s.n, 3);
	ck_assert_uint_eq(s.loc[2].port, 20001);
	/* the other family: nothing while we do not take UDP in it */
	seen.addr = mkaddr("2001:db8::5");
	rs->reg_from.addr = mkaddr("2001:db8::6");
	upd_ice_candidates(&d, &local, 0x1234, &seen, &s);
	ck_assert_uint_eq(s.n, 1);
	/* with an IPv6 address and UDP over IPv6: our IPv6 host candidate
	 * first, the server's IPv6 REG_FROM too; the IPv6 address the relay
	 * of an IPv4 exchange saw cannot be (it saw IPv4) and is left out */
	ck_assert_int_eq(locset_create(&d.locset), 0);
	ck_assert_int_eq(locset_add(d.locset, &v6, 2, false), 0);
	upd_ice_candidates(&d, &local, 0x1234, &seen, &s);
	ck_assert_uint_eq(s.n, 1);               /* listen_v6 off */
	d.conf.listen_v6 = true;
	d.udp6 = -1;
	upd_ice_candidates(&d, &local, 0x1234, &seen, &s);
	ck_assert_uint_eq(s.n, 1);               /* no IPv6 UDP socket */
	d.udp6 = 7;
	upd_ice_candidates(&d, &local, 0x1234, &seen, &s);
	ck_assert_uint_eq(s.n, 3);
	ck_assert_mem_eq(&s.loc[0].addr, &v6, sizeof(v6));
	ck_assert_uint_eq(s.loc[0].priority, 126u << 24 | 65535u << 8 | 255u);
	ck_assert_mem_eq(&s.loc[1].addr, &local, sizeof(local));
	ck_assert_mem_eq(&s.loc[2].addr, &rs->reg_from.addr, sizeof(local));
	ck_assert_uint_eq(s.loc[2].priority, 100u << 24 | 65535u << 8 | 255u);
	locset_free(d.locset);
	d.locset = NULL;
	/* raw IP REG_FROM (protocol 0) is no UDP candidate */
	rs->reg_from.addr = mkaddr("198.51.100.2");
	rs->reg_from.protocol = 0;
	upd_ice_candidates(&d, &local, 0x1234, NULL, &s);
	ck_assert_uint_eq(s.n, 1);
	reg_client_free(e.reg_client);
}
END_TEST

static Suite *rvs_suite(void)
{
	Suite *s = suite_create("rvs");
	TCase *tc = tcase_create("relay");

	tcase_add_test(tc, test_rvs_relay);
	tcase_add_test(tc, test_rvs_tampered);
	tcase_add_test(tc, test_relay_from);
	tcase_add_test(tc, test_relay_from_bad_protocol);
	tcase_add_test(tc, test_ice_params);
	tcase_add_test(tc, test_nat_mode_choice);
	tcase_add_test(tc, test_nat_ta);
	tcase_add_test(tc, test_inner_params);
	tcase_add_test(tc, test_ice_candidates);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(rvs_suite)
