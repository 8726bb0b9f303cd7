/*
 * check_checksum.c - HIP checksum (RFC 7401 §5.1.1, App. C), the Internet
 * checksum helpers (RFC 1071) and the hip_addr locator helpers.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "checksum.h"
#include "hip_wire.h"
#include "unit.h"

/* RFC 7401 App. C: I1 from 2001:20::1 to 2001:20::2, DH_GROUP_LIST {3,4,8},
 * with the IPv6 checksum 0x1a5e in place. */
static const char app_c_i1[] =
	"3b0501211a5e0000 20010020000000000000000000000001"
	"20010020000000000000000000000002 01ff000303040800";

static void addr(const char *s, struct hip_addr *a)
{
	ck_assert_int_eq(hip_addr_from_str(s, a), 0);
}

static size_t load_i1(uint8_t *pkt)
{
	long n = unit_hex(app_c_i1, pkt, 64);

	ck_assert_int_eq(n, 48);
	return (size_t)n;
}

START_TEST(test_app_c_ipv6)
{
	uint8_t pkt[64];
	size_t len = load_i1(pkt);
	struct hip_addr src, dst;

	addr("2001:db8::1", &src);
	addr("2001:db8::2", &dst);
	/* The stored value counts as zero, so it does not matter whether the
	 * field holds it already. */
	ck_assert_uint_eq(hip_checksum(pkt, len, &src, &dst), 0x1a5e);
	pkt[4] = pkt[5] = 0;
	ck_assert_uint_eq(hip_checksum(pkt, len, &src, &dst), 0x1a5e);
	ck_assert_int_eq(hip_packet_verify_checksum(pkt, len, &src, &dst), -EBADMSG);
	hip_packet_set_checksum(pkt, len, &src, &dst);
	ck_assert_uint_eq(pkt[4], 0x1a);
	ck_assert_uint_eq(pkt[5], 0x5e);
	ck_assert_int_eq(hip_packet_verify_checksum(pkt, len, &src, &dst), 0);
}
END_TEST

START_TEST(test_app_c_ipv4)
{
	uint8_t pkt[64];
	size_t len = load_i1(pkt);
	struct hip_addr src, dst;

	addr("192.0.2.1", &src);
	addr("192.0.2.2", &dst);
	ck_assert(hip_addr_is_v4(&src) && hip_addr_is_v4(&dst));
	ck_assert_uint_eq(hip_checksum(pkt, len, &src, &dst), 0xf1ce);
	/* The IPv6 checksum in the vector is wrong for IPv4 locators. */
	ck_assert_int_eq(hip_packet_verify_checksum(pkt, len, &src, &dst), -EBADMSG);
	hip_packet_set_checksum(pkt, len, &src, &dst);
	ck_assert_uint_eq(pkt[4], 0xf1);
	ck_assert_uint_eq(pkt[5], 0xce);
	ck_assert_int_eq(hip_packet_verify_checksum(pkt, len, &src, &dst), 0);
}
END_TEST

START_TEST(test_verify_rejects_any_flip)
{
	uint8_t pkt[64];
	size_t len = load_i1(pkt);
	struct hip_addr src, dst, other;

	addr("2001:db8::1", &src);
	addr("2001:db8::2", &dst);
	addr("2001:db8::3", &other);
	ck_assert_int_eq(hip_packet_verify_checksum(pkt, len, &src, &dst), 0);
	for (size_t i = 0; i < len; i++) {
		pkt[i] ^= 0x01;
		ck_assert_msg(hip_packet_verify_checksum(pkt, len, &src, &dst) == -EBADMSG,
			      "flip at %zu accepted", i);
		pkt[i] ^= 0x01;
	}
	/* The pseudo-header counts too: wrong address, swapped addresses are
	 * caught only via the pseudo-header. */
	ck_assert_int_eq(hip_packet_verify_checksum(pkt, len, &src, &other), -EBADMSG);
	ck_assert_int_eq(hip_packet_verify_checksum(pkt, len - 8, &src, &dst), -EBADMSG);
	ck_assert_int_eq(hip_packet_verify_checksum(pkt, 39, &src, &dst), -EBADMSG);
}
END_TEST

/* RFC 7401 App. C.3 (and §4.5.1): TCP over HITs uses the IPv6 pseudo-header
 * with the HITs as addresses. SYN 2001:20::1:65500 -> 2001:20::2:22. */
START_TEST(test_app_c3_tcp_over_hits)
{
	uint8_t ph[40], tcp[20];
	struct in6_addr hs, hd;
	uint32_t sum;
	uint16_t c;

	ck_assert_int_eq(inet_pton(AF_INET6, "2001:20::1", &hs), 1);
	ck_assert_int_eq(inet_pton(AF_INET6, "2001:20::2", &hd), 1);
	/* RFC 8200 §8.1: src | dst | length(32) | zero(24) | next header 6 */
	memcpy(ph, &hs, 16);
	memcpy(ph + 16, &hd, 16);
	memset(ph + 32, 0, 8);
	ph[35] = sizeof(tcp);
	ph[39] = 6;
	/* sport 65500, dport 22, seq 1, ack 0, offset 5, SYN, window 65535 */
	memset(tcp, 0, sizeof(tcp));
	tcp[0] = 0xff; tcp[1] = 0xdc;
	tcp[3] = 22;
	tcp[7] = 1;
	tcp[12] = 0x50;
	tcp[13] = 0x02;
	tcp[14] = 0xff; tcp[15] = 0xff;

	sum = hip_csum_add(0, ph, sizeof(ph));
	sum = hip_csum_add(sum, tcp, sizeof(tcp));
	c = (uint16_t)~hip_csum_fold(sum);
	ck_assert_uint_eq(c, 0x6faa);

	/* With the checksum stored, the whole sums to 0xffff. */
	tcp[16] = (uint8_t)(c >> 8);
	tcp[17] = (uint8_t)c;
	sum = hip_csum_add(hip_csum_add(0, ph, sizeof(ph)), tcp, sizeof(tcp));
	ck_assert_uint_eq(hip_csum_fold(sum), 0xffff);
}
END_TEST

/* RFC 1071 §3 example: 00 01 f2 03 f4 f5 f6 f7 sums (folded) to 0xddf2. */
START_TEST(test_rfc1071_example)
{
	static const uint8_t d[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };

	ck_assert_uint_eq(hip_csum_fold(hip_csum_add(0, d, sizeof(d))), 0xddf2);
	/* chained, even chunks */
	ck_assert_uint_eq(hip_csum_fold(hip_csum_add(hip_csum_add(0, d, 2), d + 2, 6)), 0xddf2);
}
END_TEST

START_TEST(test_odd_length)
{
	static const uint8_t odd[] = { 0x00, 0x01, 0xf2 };
	static const uint8_t padded[] = { 0x00, 0x01, 0xf2, 0x00 };

	/* The odd byte is the high byte of a zero-padded word. */
	ck_assert_uint_eq(hip_csum_fold(hip_csum_add(0, odd, 3)), 0xf201);
	ck_assert_uint_eq(hip_csum_add(0, odd, 3), hip_csum_add(0, padded, 4));
	ck_assert_uint_eq(hip_csum_fold(hip_csum_add(0, odd, 1)), 0x0000);
	ck_assert_uint_eq(hip_csum_fold(hip_csum_add(0, odd + 2, 1)), 0xf200);
	ck_assert_uint_eq(hip_csum_add(0x1234, odd, 0), 0x1234);
}
END_TEST

/* Carries are never lost, even over far more than 64 KiB. */
START_TEST(test_long_input_carries)
{
	static uint8_t buf[300000];
	uint32_t sum;

	memset(buf, 0xff, sizeof(buf));
	ck_assert_uint_eq(hip_csum_fold(hip_csum_add(0, buf, sizeof(buf))), 0xffff);
	memset(buf, 0, sizeof(buf));
	buf[0] = 0x12; buf[1] = 0x34;
	buf[sizeof(buf) - 2] = 0x00; buf[sizeof(buf) - 1] = 0x01;
	ck_assert_uint_eq(hip_csum_fold(hip_csum_add(0, buf, sizeof(buf))), 0x1235);
	/* 0xffffffff is a sum of 0xffff, like 0 plus all ones words */
	sum = hip_csum_add(0xffffffffu, buf, 2);
	ck_assert_uint_eq(hip_csum_fold(sum), hip_csum_fold(0xffff + 0x1234));
}
END_TEST

START_TEST(test_addr_v4)
{
	struct hip_addr a;
	struct in_addr v4;
	char buf[INET6_ADDRSTRLEN];

	addr("192.0.2.1", &a);
	ck_assert(hip_addr_is_v4(&a));
	ck_assert_str_eq(hip_addr_to_str(&a, buf, sizeof(buf)), "192.0.2.1");
	v4 = hip_addr_v4(&a);
	ck_assert_uint_eq(ntohl(v4.s_addr), 0xc0000201u);
	/* stored as ::ffff:192.0.2.1 */
	ck_assert_int_eq(inet_ntop(AF_INET6, &a.in6, buf, sizeof(buf)) != NULL, 1);
	ck_assert_str_eq(buf, "::ffff:192.0.2.1");

	addr("::ffff:198.51.100.7", &a);
	ck_assert(hip_addr_is_v4(&a));
	ck_assert_str_eq(hip_addr_to_str(&a, buf, sizeof(buf)), "198.51.100.7");

	v4.s_addr = htonl(0x0a000001);
	hip_addr_from_v4(&a, &v4);
	ck_assert(hip_addr_is_v4(&a));
	ck_assert_str_eq(hip_addr_to_str(&a, buf, sizeof(buf)), "10.0.0.1");
}
END_TEST

START_TEST(test_addr_v6)
{
	struct hip_addr a, b;
	char buf[INET6_ADDRSTRLEN];

	addr("2001:0DB8:0000:0000:0000:0000:0000:0001", &a);
	ck_assert(!hip_addr_is_v4(&a));
	ck_assert_str_eq(hip_addr_to_str(&a, buf, sizeof(buf)), "2001:db8::1");
	hip_addr_from_v6(&b, &a.in6);
	ck_assert_int_eq(memcmp(&a, &b, sizeof(a)), 0);
	/* neither :: nor ::1 nor an IPv4-compatible address is IPv4-mapped */
	addr("::", &a);
	ck_assert(!hip_addr_is_v4(&a));
	addr("::1", &a);
	ck_assert(!hip_addr_is_v4(&a));
	addr("::192.0.2.1", &a);
	ck_assert(!hip_addr_is_v4(&a));
	addr("::fffe:192.0.2.1", &a);
	ck_assert(!hip_addr_is_v4(&a));
}
END_TEST

START_TEST(test_addr_reject)
{
	static const char *const bad[] = {
		"", "foo", "192.0.2.256", "192.0.2", "2001:db8::1::2", "2001:db8::g",
		"192.0.2.1/24", " 192.0.2.1",
	};
	struct hip_addr a;
	char small[8];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(hip_addr_from_str(bad[i], &a) == -EINVAL, "accepted '%s'", bad[i]);
	ck_assert_int_eq(hip_addr_from_str(NULL, &a), -EINVAL);
	/* too small a buffer fails cleanly */
	addr("2001:db8::1", &a);
	ck_assert_ptr_null(hip_addr_to_str(&a, small, sizeof(small)));
	ck_assert_str_eq(small, "");
}
END_TEST

/* A v4-mapped source with an IPv6 destination is an IPv6 packet: it must use
 * the IPv6 pseudo-header (computed here by hand). */
START_TEST(test_mixed_family_uses_ipv6)
{
	uint8_t pkt[64], ph[40];
	size_t len = load_i1(pkt);
	struct hip_addr src, dst;
	uint32_t sum;

	addr("192.0.2.1", &src);
	addr("2001:db8::2", &dst);
	memcpy(ph, &src.in6, 16);
	memcpy(ph + 16, &dst.in6, 16);
	memset(ph + 32, 0, 8);
	ph[35] = (uint8_t)len;
	ph[39] = HIP_PROTO;
	pkt[4] = pkt[5] = 0;
	sum = hip_csum_add(hip_csum_add(0, ph, sizeof(ph)), pkt, len);
	ck_assert_uint_eq(hip_checksum(pkt, len, &src, &dst), (uint16_t)~hip_csum_fold(sum));
}
END_TEST

static Suite *checksum_suite(void)
{
	Suite *s = suite_create("checksum");
	TCase *tc = tcase_create("hip");

	tcase_add_test(tc, test_app_c_ipv6);
	tcase_add_test(tc, test_app_c_ipv4);
	tcase_add_test(tc, test_verify_rejects_any_flip);
	tcase_add_test(tc, test_mixed_family_uses_ipv6);
	suite_add_tcase(s, tc);

	tc = tcase_create("inet");
	tcase_add_test(tc, test_app_c3_tcp_over_hits);
	tcase_add_test(tc, test_rfc1071_example);
	tcase_add_test(tc, test_odd_length);
	tcase_add_test(tc, test_long_input_carries);
	suite_add_tcase(s, tc);

	tc = tcase_create("addr");
	tcase_add_test(tc, test_addr_v4);
	tcase_add_test(tc, test_addr_v6);
	tcase_add_test(tc, test_addr_reject);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(checksum_suite)
