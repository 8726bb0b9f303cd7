/*
 * check_xfrm_nosa.c - the filter that passes only ESP for no SA of ours
 * to the kernel datapath's raw ESP sockets (hipd/datapath/xfrm/xfrm_nosa.c).
 * The program is attached to a datagram socketpair, which runs socket
 * filters as raw sockets do, and packets are sent through it: ESP of a
 * listed SPI is dropped, every other SPI arrives cut to XFRM_NOSA_SNAP
 * bytes; with an IPv4 header (with and without options) the SPI is read
 * behind it. No privileges needed.
 */
#include <errno.h>
#include <linux/filter.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "datapath/xfrm/xfrm_int.h"
#include "unit.h"

static int sv[2];

static void pair_setup(const uint32_t *spi, size_t n, bool v4)
{
	struct sock_filter f[XFRM_NOSA_SPIS_MAX + 4];
	struct sock_fprog prog;
	size_t len;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), 0);
	ck_assert_int_eq(xfrm_nosa_filter(spi, n, v4, f, sizeof(f) / sizeof(f[0]), &len), 0);
	ck_assert_uint_eq(len, n + (v4 ? 4 : 3));
	prog.len = (unsigned short)len;
	prog.filter = f;
	ck_assert_int_eq(setsockopt(sv[1], SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)), 0);
}

/* Send a packet: IPv4 header of ihl words (0: none), then the SPI, then
 * pad bytes; -1 if it did not arrive, else its length at the receiver. */
static ssize_t through(unsigned ihl, uint32_t spi, size_t pad)
{
	uint8_t p[512] = { 0 }, r[512];
	size_t off = ihl * 4;
	ssize_t n;

	if (ihl)
		p[0] = (uint8_t)(0x40 | ihl);
	p[off] = (uint8_t)(spi >> 24);
	p[off + 1] = (uint8_t)(spi >> 16);
	p[off + 2] = (uint8_t)(spi >> 8);
	p[off + 3] = (uint8_t)spi;
	ck_assert_int_eq(send(sv[0], p, off + 8 + pad, 0), (ssize_t)(off + 8 + pad));
	n = recv(sv[1], r, sizeof(r), MSG_DONTWAIT);
	if (n < 0)
		ck_assert_int_eq(errno, EAGAIN);
	return n;
}

static void pair_close(void)
{
	close(sv[0]);
	close(sv[1]);
}

START_TEST(test_v6_listed_dropped)
{
	static const uint32_t spi[] = { 0x100, 0xdeadbeef, 7 };

	pair_setup(spi, 3, false);
	ck_assert_int_eq(through(0, 0x100, 0), -1);
	ck_assert_int_eq(through(0, 0xdeadbeef, 100), -1);
	ck_assert_int_eq(through(0, 7, 0), -1);
	ck_assert_int_eq(through(0, 0x101, 0), 8);
	ck_assert_int_eq(through(0, 0xdeadbeee, 0), 8);
	/* a long one is cut to the headers and the quote */
	ck_assert_int_eq(through(0, 8, 400), XFRM_NOSA_SNAP);
	pair_close();
}
END_TEST

START_TEST(test_v4_behind_header)
{
	static const uint32_t spi[] = { 0x1234 };

	pair_setup(spi, 1, true);
	ck_assert_int_eq(through(5, 0x1234, 0), -1);
	ck_assert_int_eq(through(6, 0x1234, 0), -1);     /* with 4 bytes of options */
	ck_assert_int_eq(through(15, 0x1234, 0), -1);
	ck_assert_int_eq(through(5, 0x1235, 0), 28);
	ck_assert_int_eq(through(6, 0x1235, 0), 32);
	pair_close();
}
END_TEST

START_TEST(test_none_listed_all_pass)
{
	pair_setup(NULL, 0, false);
	ck_assert_int_eq(through(0, 0x100, 0), 8);
	ck_assert_int_eq(through(0, 0, 0), 8);
	pair_close();
}
END_TEST

START_TEST(test_bounds)
{
	static uint32_t spi[XFRM_NOSA_SPIS_MAX + 1];
	struct sock_filter f[XFRM_NOSA_SPIS_MAX + 8];
	size_t len;

	ck_assert_int_eq(xfrm_nosa_filter(spi, XFRM_NOSA_SPIS_MAX + 1, false, f,
					  sizeof(f) / sizeof(f[0]), &len), -ENOSPC);
	ck_assert_int_eq(xfrm_nosa_filter(spi, 10, false, f, 13, &len), -ENOSPC);
	ck_assert_int_eq(xfrm_nosa_filter(spi, XFRM_NOSA_SPIS_MAX, true, f,
					  sizeof(f) / sizeof(f[0]), &len), 0);
	ck_assert_uint_eq(len, XFRM_NOSA_SPIS_MAX + 4);
}
END_TEST

/* The SPI list the filters are built from: added once, removed, bounded. */
START_TEST(test_spi_list)
{
	struct xfrm_nosa t;
	uint32_t i;

	memset(&t, 0, sizeof(t));
	t.fd4 = t.fd6 = -1;
	xfrm_nosa_spi(&t, 5, true);
	xfrm_nosa_spi(&t, 5, true);
	xfrm_nosa_spi(&t, 6, true);
	ck_assert_uint_eq(t.n, 2);
	xfrm_nosa_spi(&t, 5, false);
	xfrm_nosa_spi(&t, 9, false);
	ck_assert_uint_eq(t.n, 1);
	ck_assert_uint_eq(t.spi[0], 6);
	for (i = 100; i < 100 + XFRM_NOSA_SPIS_MAX + 3; i++)
		xfrm_nosa_spi(&t, i, true);
	ck_assert_uint_eq(t.n, XFRM_NOSA_SPIS_MAX);
	ck_assert_uint_eq(t.overflow, 4);
	xfrm_nosa_clear(&t);
	ck_assert_uint_eq(t.n, 0);
}
END_TEST

static Suite *nosa_suite(void)
{
	Suite *s = suite_create("xfrm_nosa");
	TCase *tc = tcase_create("filter");

	tcase_add_test(tc, test_v6_listed_dropped);
	tcase_add_test(tc, test_v4_behind_header);
	tcase_add_test(tc, test_none_listed_all_pass);
	tcase_add_test(tc, test_bounds);
	tcase_add_test(tc, test_spi_list);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(nosa_suite)
