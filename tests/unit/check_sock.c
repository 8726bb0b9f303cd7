/*
 * check_sock.c - raw HIP sockets (hipd/net/sock.c) over loopback, in a private
 * network namespace so other hipd instances on the host see nothing and
 * send nothing. Needs CAP_NET_ADMIN/CAP_NET_RAW; without them the tests
 * say so and pass without checking.
 */
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "packet.h"
#include "params.h"
#include "net/sock.h"
#include "unit.h"

/* Each Check test runs in its own forked process: move it into a fresh
 * network namespace with only lo, up, at the given MTU. False = skip. */
static bool private_netns(int mtu)
{
	struct ifreq ifr;
	int fd;

	if (unshare(CLONE_NEWNET) != 0) {
		fprintf(stderr, "check_sock: SKIP, unshare(CLONE_NEWNET): %s\n", strerror(errno));
		return false;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fd, 0);
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	ifr.ifr_mtu = mtu;
	ck_assert_int_eq(ioctl(fd, SIOCSIFMTU, &ifr), 0);
	ck_assert_int_eq(ioctl(fd, SIOCGIFFLAGS, &ifr), 0);
	ifr.ifr_flags |= IFF_UP;
	ck_assert_int_eq(ioctl(fd, SIOCSIFFLAGS, &ifr), 0);
	close(fd);
	return true;
}

static bool open_both(int *fd4, int *fd6)
{
	*fd4 = hip_sock_open4();
	if (*fd4 == -EPERM || *fd4 == -EACCES) {
		fprintf(stderr, "check_sock: SKIP, raw socket: %s\n", strerror(-*fd4));
		return false;
	}
	ck_assert_int_ge(*fd4, 0);
	*fd6 = hip_sock_open6();
	ck_assert_int_ge(*fd6, 0);
	return true;
}

/* An I1 padded with one ECHO_REQUEST_UNSIGNED to reach about len bytes. */
static size_t make_packet(uint8_t *buf, size_t len, const struct hip_addr *src,
			  const struct hip_addr *dst)
{
	static uint8_t fill[HIP_MAX_PACKET];
	struct hip_u8_list groups = { 2, { 7, 3 } };
	struct hip_hit hi, hr;
	struct hip_builder b;
	int n;

	ck_assert_int_eq(hip_hit_from_str("2001:22::1", &hi), 0);
	ck_assert_int_eq(hip_hit_from_str("2001:22::2", &hr), 0);
	memset(fill, 0xa5, sizeof(fill));
	hip_build_init(&b, buf, HIP_MAX_PACKET, HIP_I1, &hi, &hr);
	hip_dh_group_list_build(&b, &groups);
	if (len > 64)
		hip_echo_build(&b, HIP_PARAM_ECHO_REQUEST_UNSIGNED, fill, len - 64);
	n = hip_build_finish(&b);
	ck_assert_int_gt(n, 0);
	hip_packet_set_checksum(buf, (size_t)n, src, dst);
	return (size_t)n;
}

static void wait_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	ck_assert_int_eq(poll(&p, 1, 2000), 1);
}

/* Send to ourselves over loopback; the socket of the family gets it with
 * the right addresses, length and bytes; the other family's does not. */
static void loop_once(const char *local, size_t size)
{
	static uint8_t pkt[HIP_MAX_PACKET], rbuf[HIP_MAX_PACKET + 60];
	struct hip_addr a, picked;
	struct hip_rx rx;
	int fd4, fd6, fd, other;
	size_t len;

	if (!open_both(&fd4, &fd6))
		return;
	ck_assert_int_eq(hip_addr_from_str(local, &a), 0);
	fd = hip_addr_is_v4(&a) ? fd4 : fd6;
	other = hip_addr_is_v4(&a) ? fd6 : fd4;
	ck_assert_int_eq(hip_sock_recv(fd, rbuf, sizeof(rbuf), &rx), -EAGAIN);

	ck_assert_int_eq(hip_sock_pick_source(&a, &picked), 0);
	ck_assert_mem_eq(&picked, &a, sizeof(a));

	len = make_packet(pkt, size, &a, &a);
	ck_assert_int_eq(hip_sock_send(fd4, fd6, pkt, len, &a, &a), 0);
	wait_readable(fd);
	ck_assert_int_eq(hip_sock_recv(fd, rbuf, sizeof(rbuf), &rx), 0);
	ck_assert_uint_eq(rx.len, len);
	ck_assert_mem_eq(rx.buf, pkt, len);
	ck_assert_mem_eq(&rx.src, &a, sizeof(a));
	ck_assert_mem_eq(&rx.dst, &a, sizeof(a));
	ck_assert_int_eq(rx.ifindex, (int)if_nametoindex("lo"));
	ck_assert_int_eq(hip_packet_verify_checksum(rx.buf, rx.len, &rx.src, &rx.dst), 0);
	ck_assert_int_eq(hip_sock_recv(fd, rbuf, sizeof(rbuf), &rx), -EAGAIN);
	ck_assert_int_eq(hip_sock_recv(other, rbuf, sizeof(rbuf), &rx), -EAGAIN);

	/* no source given: the kernel picks one */
	ck_assert_int_eq(hip_sock_send(fd4, fd6, pkt, len, NULL, &a), 0);
	wait_readable(fd);
	ck_assert_int_eq(hip_sock_recv(fd, rbuf, sizeof(rbuf), &rx), 0);
	ck_assert_uint_eq(rx.len, len);
	ck_assert_mem_eq(&rx.src, &a, sizeof(a));
	close(fd4);
	close(fd6);
}

START_TEST(test_loop_ipv6)
{
	if (private_netns(65536))
		loop_once("::1", 48);
}
END_TEST

START_TEST(test_loop_ipv4)
{
	if (private_netns(65536))
		loop_once("127.0.0.1", 48);
}
END_TEST

/* A 2 KB packet over a 1280-byte MTU: the kernel fragments it (RFC 7401
 * §5.1.3 for IPv4; IPv6 source fragmentation) and it arrives whole. */
START_TEST(test_fragmented_ipv4)
{
	if (private_netns(1280))
		loop_once("127.0.0.1", HIP_MAX_PACKET);
}
END_TEST

START_TEST(test_fragmented_ipv6)
{
	if (private_netns(1280))
		loop_once("::1", HIP_MAX_PACKET);
}
END_TEST

START_TEST(test_bad_send_args)
{
	uint8_t pkt[64] = { 0 };
	struct hip_addr v4, v6;

	ck_assert_int_eq(hip_addr_from_str("127.0.0.1", &v4), 0);
	ck_assert_int_eq(hip_addr_from_str("::1", &v6), 0);
	ck_assert_int_eq(hip_sock_send(-1, -1, pkt, 48, &v4, &v6), -EINVAL);
	ck_assert_int_eq(hip_sock_send(-1, -1, pkt, 20, &v4, &v4), -EINVAL);
	ck_assert_int_eq(hip_sock_send(-1, -1, pkt, 48, &v4, &v4), -EAFNOSUPPORT);
}
END_TEST

/* A datagram shorter than a HIP header is delivered with its true length
 * (the engine counts it as bad_length); it is not reported as oversize. */
START_TEST(test_short_packet)
{
	static uint8_t rbuf[HIP_MAX_PACKET + 60];
	uint8_t pkt[64] = { 0 };
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct hip_rx rx;
	int fd4, fd6;

	if (!private_netns(65536) || !open_both(&fd4, &fd6))
		return;
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(sendto(fd4, pkt, 24, 0, (struct sockaddr *)&to, sizeof(to)), 24);
	wait_readable(fd4);
	ck_assert_int_eq(hip_sock_recv(fd4, rbuf, sizeof(rbuf), &rx), 0);
	ck_assert_uint_eq(rx.len, 24);
	ck_assert_uint_lt(rx.len, HIP_HDR_LEN);
	close(fd4);
	close(fd6);
}
END_TEST

START_TEST(test_ipv4_header_checks)
{
	uint8_t d[64] = { 0 };
	size_t off, len;

	d[0] = 0x45;
	d[3] = 60;                         /* Total Length 60 */
	ck_assert_int_eq(hip_sock_ipv4_payload(d, 60, &off, &len), 0);
	ck_assert_uint_eq(off, 20);
	ck_assert_uint_eq(len, 40);
	d[0] = 0x46;                       /* IHL 6: 24-byte header with options */
	ck_assert_int_eq(hip_sock_ipv4_payload(d, 60, &off, &len), 0);
	ck_assert_uint_eq(off, 24);
	ck_assert_uint_eq(len, 36);
	d[0] = 0x44;                       /* IHL < 5 */
	ck_assert_int_eq(hip_sock_ipv4_payload(d, 60, &off, &len), -EMSGSIZE);
	d[0] = 0x4f;                       /* 60-byte header in a 40-byte datagram */
	d[3] = 40;
	ck_assert_int_eq(hip_sock_ipv4_payload(d, 40, &off, &len), -EMSGSIZE);
	d[0] = 0x45;
	d[3] = 61;                         /* Total Length beyond the datagram */
	ck_assert_int_eq(hip_sock_ipv4_payload(d, 60, &off, &len), -EMSGSIZE);
	d[3] = 19;                         /* Total Length inside the header */
	ck_assert_int_eq(hip_sock_ipv4_payload(d, 60, &off, &len), -EMSGSIZE);
	d[3] = 60;
	d[0] = 0x65;                       /* not IPv4 */
	ck_assert_int_eq(hip_sock_ipv4_payload(d, 60, &off, &len), -EMSGSIZE);
	ck_assert_int_eq(hip_sock_ipv4_payload(d, 19, &off, &len), -EMSGSIZE);
}
END_TEST

static Suite *sock_suite(void)
{
	Suite *s = suite_create("sock");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_loop_ipv6);
	tcase_add_test(tc, test_loop_ipv4);
	tcase_add_test(tc, test_fragmented_ipv4);
	tcase_add_test(tc, test_fragmented_ipv6);
	tcase_add_test(tc, test_bad_send_args);
	tcase_add_test(tc, test_short_packet);
	tcase_add_test(tc, test_ipv4_header_checks);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(sock_suite)
