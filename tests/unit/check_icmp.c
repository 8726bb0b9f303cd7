/*
 * check_icmp.c - ICMP Parameter Problems about HIP and ESP (hipd/net/icmp.c)
 * and what the engine believes of them (engine_icmp.c, docs/decisions.md
 * D-14): formats both ways (RFC 792, RFC 4443 §3.4), the quote's limits,
 * bad input; on two in-process engines, an ICMP quoting our liveness probe
 * with its nonce ends the association, one quoting our ESP starts the probe,
 * and anything else changes nothing.
 *
 * With HIP_SEED_DIR set, the good messages are also written there as the
 * seeds of fuzz/fuzz_icmp.c (fuzz/corpus/icmp/): a byte for the family
 * (0 IPv4, 1 IPv6), then the datagram as the socket gives it.
 */
#include <check.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "byteorder.h"
#include "hip_wire.h"
#include "net/icmp.h"
#include "params.h"
#include "unit.h"
#include "update_fixture.h"
#include "engine/update/update_int.h"

/* An outer IPv4 header before msg, as a raw IPv4 socket delivers it. */
static size_t with_ipv4(uint8_t *out, const uint8_t *msg, size_t len)
{
	memset(out, 0, 20);
	out[0] = 0x45;
	hip_wr16(out + 2, (uint16_t)(20 + len));
	out[8] = 64;
	out[9] = IPPROTO_ICMP;
	memcpy(out + 20, msg, len);
	return 20 + len;
}

static void seed(const char *name, int family, const uint8_t *dg, size_t len)
{
	uint8_t fam = family == AF_INET6;

	unit_write_seed(name, &fam, 1, dg, len);
}

static void fill(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + 1);
}

START_TEST(test_v4_raw_hip_round_trip)
{
	struct hip_addr s = addr("192.0.2.1"), d = addr("192.0.2.2");
	uint8_t hip[120], msg[HIP_ICMP_MSG_MAX], dg[HIP_ICMP_MSG_MAX + 20];
	struct hip_icmp_about a = {
		.src = &s, .dst = &d, .proto = HIP_PROTO, .payload = hip,
		.payload_len = sizeof(hip), .pointer = 8,
	};
	struct hip_icmp_quote q;
	size_t len, n;

	fill(hip, sizeof(hip));
	ck_assert_int_eq(hip_icmp_build(msg, sizeof(msg), &len, &a), 0);
	ck_assert_uint_eq(len, 8 + 20 + sizeof(hip));
	ck_assert_uint_eq(msg[0], 12);                   /* RFC 792 Parameter Problem */
	ck_assert_uint_eq(msg[1], 0);
	ck_assert_uint_eq(msg[4], 20 + 8);               /* the sender HIT */
	n = with_ipv4(dg, msg, len);
	seed("v4-hip", AF_INET, dg, n);
	ck_assert_int_eq(hip_icmp_parse(AF_INET, dg, n, &q), 0);
	ck_assert_uint_eq(q.proto, HIP_PROTO);
	ck_assert(addr_eq(&q.src, &s));
	ck_assert(addr_eq(&q.dst, &d));
	ck_assert_uint_eq(q.pointer, 28);
	ck_assert_uint_eq(q.payload_len, sizeof(hip));
	ck_assert_mem_eq(q.payload, hip, sizeof(hip));
	/* the quoted header's own checksum is right, its length the packet's */
	ck_assert_uint_eq(hip_csum_fold(hip_csum_add(0, msg + 8, 20)), 0xffff);
	ck_assert_uint_eq(hip_rd16(msg + 8 + 2), 20 + sizeof(hip));
	/* one bit off: the ICMP checksum catches it */
	dg[20 + 8 + 30] ^= 1;
	ck_assert_int_eq(hip_icmp_parse(AF_INET, dg, n, &q), -EBADMSG);
}
END_TEST

/* IPv6, ESP in UDP, longer than the quote may be: cut at 1280 bytes in all. */
START_TEST(test_v6_udp_esp_truncated)
{
	struct hip_addr s = addr("2001:db8::1"), d = addr("2001:db8::2");
	uint8_t esp[1500], msg[HIP_ICMP_MSG_MAX];
	struct hip_icmp_about a = {
		.src = &s, .dst = &d, .proto = IPPROTO_ESP, .sport = 40000, .dport = 10500,
		.payload = esp, .payload_len = sizeof(esp), .pointer = 0,
	};
	struct hip_icmp_quote q;
	size_t len;

	fill(esp, sizeof(esp));
	ck_assert_int_eq(hip_icmp_build(msg, sizeof(msg), &len, &a), 0);
	ck_assert_uint_eq(40 + len, 1280);               /* RFC 4443 §2.4 (c) */
	ck_assert_uint_eq(msg[0], 4);
	ck_assert_uint_eq(hip_rd32(msg + 4), 40 + 8);    /* the SPI after the UDP header */
	seed("v6-udp-esp", AF_INET6, msg, len);
	ck_assert_int_eq(hip_icmp_parse(AF_INET6, msg, len, &q), 0);
	ck_assert_uint_eq(q.proto, IPPROTO_UDP);
	ck_assert_uint_eq(q.sport, 40000);
	ck_assert_uint_eq(q.dport, 10500);
	ck_assert(addr_eq(&q.src, &s));
	ck_assert(addr_eq(&q.dst, &d));
	ck_assert_uint_eq(q.payload_len, 1280 - 40 - 8 - 40 - 8);
	ck_assert_mem_eq(q.payload, esp, q.payload_len);
	/* the Payload Length says what the packet was, not what was quoted */
	ck_assert_uint_eq(hip_rd16(msg + 8 + 4), 8 + sizeof(esp));
}
END_TEST

/* HIP over UDP: the zero marker is quoted too (RFC 5770 §5.1). */
START_TEST(test_v4_udp_hip_marker)
{
	struct hip_addr s = addr("198.51.100.7"), d = addr("203.0.113.1");
	uint8_t hip[1000], msg[HIP_ICMP_MSG_MAX], dg[HIP_ICMP_MSG_MAX + 20];
	struct hip_icmp_about a = {
		.src = &s, .dst = &d, .proto = HIP_PROTO, .sport = 1025, .dport = 10500,
		.payload = hip, .payload_len = sizeof(hip), .pointer = 8,
	};
	struct hip_icmp_quote q;
	size_t len, n;

	fill(hip, sizeof(hip));
	ck_assert_int_eq(hip_icmp_build(msg, sizeof(msg), &len, &a), 0);
	ck_assert_uint_eq(20 + len, 576);                /* RFC 1812 §4.3.2.3 */
	ck_assert_uint_eq(msg[4], 20 + 8 + 4 + 8);
	n = with_ipv4(dg, msg, len);
	seed("v4-udp-hip", AF_INET, dg, n);
	ck_assert_int_eq(hip_icmp_parse(AF_INET, dg, n, &q), 0);
	ck_assert_uint_eq(q.proto, IPPROTO_UDP);
	ck_assert_uint_eq(q.payload_len, 548 - 20 - 8);
	ck_assert_uint_eq(hip_rd32(q.payload), 0);
	ck_assert_mem_eq(q.payload + 4, hip, q.payload_len - 4);
}
END_TEST

START_TEST(test_build_refuses)
{
	struct hip_addr s4 = addr("192.0.2.1"), d4 = addr("192.0.2.2"), d6 = addr("2001:db8::2");
	uint8_t p[400], msg[HIP_ICMP_MSG_MAX];
	struct hip_icmp_about a = {
		.src = &s4, .dst = &d4, .proto = HIP_PROTO, .payload = p,
		.payload_len = sizeof(p), .pointer = 8,
	};
	size_t len;

	memset(p, 0, sizeof(p));
	ck_assert_int_eq(hip_icmp_build(msg, sizeof(msg), &len, &a), 0);
	a.pointer = sizeof(p);                           /* beyond the packet */
	ck_assert_int_eq(hip_icmp_build(msg, sizeof(msg), &len, &a), -EINVAL);
	a.pointer = 300;                                 /* an ICMPv4 Pointer is one byte */
	ck_assert_int_eq(hip_icmp_build(msg, sizeof(msg), &len, &a), -EINVAL);
	a.pointer = 8;
	a.dst = &d6;                                     /* families mixed */
	ck_assert_int_eq(hip_icmp_build(msg, sizeof(msg), &len, &a), -EINVAL);
	a.dst = &d4;
	ck_assert_int_eq(hip_icmp_build(msg, 100, &len, &a), -EINVAL);
	a.payload = NULL;
	ck_assert_int_eq(hip_icmp_build(msg, sizeof(msg), &len, &a), -EINVAL);
}
END_TEST

/* Other ICMP, other protocols, broken quotes; every cut of a good one. */
START_TEST(test_parse_refuses)
{
	struct hip_addr s = addr("2001:db8::1"), d = addr("2001:db8::2");
	uint8_t hip[64], msg[HIP_ICMP_MSG_MAX], bad[HIP_ICMP_MSG_MAX], dg[HIP_ICMP_MSG_MAX + 20];
	struct hip_icmp_about a = {
		.src = &s, .dst = &d, .proto = HIP_PROTO, .payload = hip,
		.payload_len = sizeof(hip), .pointer = 8,
	};
	struct hip_icmp_quote q;
	size_t len, i, n;
	int r;

	fill(hip, sizeof(hip));
	ck_assert_int_eq(hip_icmp_build(msg, sizeof(msg), &len, &a), 0);
	for (i = 0; i < len; i++) {
		r = hip_icmp_parse(AF_INET6, msg, i, &q);
		if (i < 8 + 40)
			ck_assert_int_eq(r, -EBADMSG);
		else
			ck_assert(r == 0 && q.payload_len == i - 48);
	}
	memcpy(bad, msg, len);
	bad[0] = 1;                                      /* Destination Unreachable */
	ck_assert_int_eq(hip_icmp_parse(AF_INET6, bad, len, &q), -ENOMSG);
	memcpy(bad, msg, len);
	bad[1] = 1;                                      /* no Pointer */
	ck_assert_int_eq(hip_icmp_parse(AF_INET6, bad, len, &q), -ENOMSG);
	memcpy(bad, msg, len);
	bad[8 + 6] = IPPROTO_TCP;                        /* nothing hipd sends */
	ck_assert_int_eq(hip_icmp_parse(AF_INET6, bad, len, &q), -ENOMSG);
	memcpy(bad, msg, len);
	bad[8] = 0x40;                                   /* not IPv6 */
	ck_assert_int_eq(hip_icmp_parse(AF_INET6, bad, len, &q), -EBADMSG);
	ck_assert_int_eq(hip_icmp_parse(AF_INET, msg, len, &q), -EBADMSG);

	/* IPv4: a later fragment, a quoted header longer than the quote */
	{
		struct hip_addr s4 = addr("192.0.2.1"), d4 = addr("192.0.2.2");

		a.src = &s4;
		a.dst = &d4;
		ck_assert_int_eq(hip_icmp_build(msg, sizeof(msg), &len, &a), 0);
		memcpy(bad, msg, len);
		hip_wr16(bad + 8 + 6, 0x0010);
		bad[2] = bad[3] = 0;
		hip_wr16(bad + 2, (uint16_t)~hip_csum_fold(hip_csum_add(0, bad, len)));
		n = with_ipv4(dg, bad, len);
		ck_assert_int_eq(hip_icmp_parse(AF_INET, dg, n, &q), -ENOMSG);
		memcpy(bad, msg, len);
		bad[8] = 0x4f;                           /* IHL 60 > what is there */
		bad[2] = bad[3] = 0;
		hip_wr16(bad + 2, (uint16_t)~hip_csum_fold(hip_csum_add(0, bad, 8 + 40)));
		n = with_ipv4(dg, bad, 8 + 40);
		ck_assert_int_eq(hip_icmp_parse(AF_INET, dg, n, &q), -EBADMSG);
		for (i = 0; i < 20 + len; i++) {             /* cut short: never read past */
			n = with_ipv4(dg, msg, len);
			hip_wr16(dg + 2, (uint16_t)i);
			r = hip_icmp_parse(AF_INET, dg, i, &q);
			ck_assert(r == -EBADMSG || (r == 0 && q.payload_len <= i));
		}
	}
}
END_TEST

/* ---- the engine ----------------------------------------------------------------- */

/* The ICMP a peer with no association sends about pkt (from src to dst),
 * fed to host h's engine as its socket would deliver it. */
static void icmp_to(struct bex_host *h, const uint8_t *pkt, size_t len, uint8_t proto,
		    const struct hip_addr *src, const struct hip_addr *dst, size_t pointer)
{
	struct hip_icmp_about a = {
		.src = src, .dst = dst, .proto = proto, .payload = pkt, .payload_len = len,
		.pointer = pointer,
	};
	uint8_t msg[HIP_ICMP_MSG_MAX], dg[HIP_ICMP_MSG_MAX + 20];
	size_t n;
	bool v4 = hip_addr_is_v4(src);

	ck_assert_int_eq(hip_icmp_build(msg, sizeof(msg), &n, &a), 0);
	if (v4)
		n = with_ipv4(dg, msg, n);
	else
		memcpy(dg, msg, n);
	eng_icmp_input(&h->d, v4 ? AF_INET : AF_INET6, dg, n, dst);
}

START_TEST(test_probe_quoted_ends_association)
{
	struct bex_net n;
	struct bex_pkt probe, forged;
	struct hip_packet p;
	const struct hip_param_ref *r;
	struct hip_addr elsewhere;
	struct hip_ha *a;

	setup(&n, _i == 1);
	a = bex_ha(A(&n));
	/* no probe out: an ICMP quoting an UPDATE believes nothing */
	ck_assert_int_eq(upd_liveness_probe_now(&A(&n)->d, a), 0);
	ck_assert(bex_take(&n, 0, HIP_UPDATE, &probe));
	ck_assert_str_eq(upd_liveness(a), "probing");
	/* a quote of the probe with another nonce: ignored */
	forged = probe;
	parse(&forged, &p);
	r = hip_packet_find(&p, HIP_PARAM_ECHO_REQUEST_SIGNED);
	ck_assert_ptr_nonnull(r);
	forged.buf[r->off + HIP_TLV_HDR_LEN] ^= 0x80;
	icmp_to(A(&n), forged.buf, forged.len, HIP_PROTO, &probe.src, &probe.dst, 8);
	ck_assert_ptr_eq(bex_ha(A(&n)), a);
	ck_assert_uint_eq(A(&n)->d.engine->icmp_ignored, 1);
	/* the probe, quoted as sent to another address than the peer's: ignored */
	elsewhere = addr(_i == 1 ? "2001:db8::99" : "192.0.2.99");
	icmp_to(A(&n), probe.buf, probe.len, HIP_PROTO, &probe.src, &elsewhere, 8);
	ck_assert_ptr_eq(bex_ha(A(&n)), a);
	/* the probe, nonce and all: the peer has no association */
	icmp_to(A(&n), probe.buf, probe.len, HIP_PROTO, &probe.src, &probe.dst, 8);
	ck_assert_ptr_null(bex_ha(A(&n)));
	ck_assert_uint_eq(A(&n)->d.engine->icmp_verdicts, 1);
	ck_assert_uint_eq(A(&n)->d.stats->live_dead, 1);
	ck_assert(!bex_take(&n, 0, HIP_CLOSE, NULL));   /* nobody to tell */
	teardown(&n);
}
END_TEST

START_TEST(test_esp_quoted_starts_probe)
{
	struct bex_net n;
	struct bex_pkt probe;
	struct hip_packet p;
	struct hip_ha *a;
	uint8_t esp[64];

	setup(&n, _i == 1);
	a = bex_ha(A(&n));
	ck_assert_uint_ne(a->dp_spi_out, 0);
	memset(esp, 0xab, sizeof(esp));
	/* an SPI that is not ours to that peer: nothing */
	hip_wr32(esp, a->dp_spi_out + 1);
	icmp_to(A(&n), esp, sizeof(esp), IPPROTO_ESP, &a->addr_local, &a->addr_peer, 0);
	ck_assert(!bex_take(&n, 0, HIP_UPDATE, NULL));
	/* ours: probed at once, not after peer_timeout_seconds */
	hip_wr32(esp, a->dp_spi_out);
	icmp_to(A(&n), esp, sizeof(esp), IPPROTO_ESP, &a->addr_local, &a->addr_peer, 0);
	ck_assert(bex_take(&n, 0, HIP_UPDATE, &probe));
	parse(&probe, &p);
	ck_assert_ptr_nonnull(hip_packet_find(&p, HIP_PARAM_ECHO_REQUEST_SIGNED));
	ck_assert_uint_eq(A(&n)->d.engine->icmp_probes, 1);
	ck_assert_uint_eq(A(&n)->d.stats->live_probes, 1);
	/* another while the probe is out: no second probe */
	icmp_to(A(&n), esp, sizeof(esp), IPPROTO_ESP, &a->addr_local, &a->addr_peer, 0);
	ck_assert(!bex_take(&n, 0, HIP_UPDATE, NULL));
	/* the peer is there after all (a forged ICMP): it answers, all stays */
	bex_inject(&n, 1, probe.buf, probe.len, &probe.src, &probe.dst);
	bex_run(&n, 10);
	ck_assert_uint_eq(A(&n)->d.stats->live_answered, 1);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_ESTABLISHED);
	teardown(&n);
}
END_TEST

static Suite *icmp_suite(void)
{
	Suite *s = suite_create("icmp");
	TCase *tc = tcase_create("format");

	tcase_add_test(tc, test_v4_raw_hip_round_trip);
	tcase_add_test(tc, test_v6_udp_esp_truncated);
	tcase_add_test(tc, test_v4_udp_hip_marker);
	tcase_add_test(tc, test_build_refuses);
	tcase_add_test(tc, test_parse_refuses);
	suite_add_tcase(s, tc);
	tc = tcase_create("engine");
	tcase_add_unchecked_fixture(tc, bex_tmp_setup, bex_tmp_teardown);
	tcase_add_loop_test(tc, test_probe_quoted_ends_association, 0, 2);
	tcase_add_loop_test(tc, test_esp_quoted_starts_probe, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(icmp_suite)
