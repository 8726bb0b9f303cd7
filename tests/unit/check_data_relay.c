/*
 * check_data_relay.c - the data relay server (RFC 9028 §4.12, §5.13;
 * hipd/engine/reg/data_relay.c, docs/decisions.md D-29) and PEER_PERMISSION:
 * the parameter's bounds (44 bytes sent, 48 taken), one port per client and
 * REG_FAILED when all are held, permissions and what they let through, and
 * the datagrams passed on, received on loopback sockets standing for the
 * client's and the peer's NATs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/loop.h"
#include "engine/engine_int.h"
#include "engine/reg/reg.h"
#include "net/net.h"
#include "packet.h"
#include "params.h"
#include "unit.h"

static struct hipd d;
static struct hipd_engine e;
static struct data_relay *r;
static struct hip_hit client_a, client_b, client_c, peer_b;

static struct hip_addr mkaddr(const char *s)
{
	struct hip_addr a;

	ck_assert_int_eq(hip_addr_from_str(s, &a), 0);
	return a;
}

/* A UDP socket on ip, its port in *port. */
static int udp_on(const char *ip, uint16_t *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	struct timeval tv = { .tv_sec = 1 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(inet_pton(AF_INET, ip, &sa.sin_addr), 1);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	*port = ntohs(sa.sin_port);
	return fd;
}

static void setup(void)
{
	memset(&d, 0, sizeof(d));
	memset(&e, 0, sizeof(e));
	d.engine = &e;
	d.conf.listen_v4 = true;
	/* two ports somewhere high, per process (parallel test runs) */
	d.conf.relay_esp_port = 40000 + (unsigned)getpid() % 20000;
	d.conf.relay_esp_ports = 2;
	ck_assert_int_eq(hip_loop_create(&d.loop), 0);
	ck_assert_int_eq(data_relay_open(&d, &r), 0);
	memset(&client_a, 0, sizeof(client_a));
	client_a.b[0] = 0x20;
	client_a.b[1] = 0x01;
	client_a.b[15] = 0xa;
	client_b = client_c = peer_b = client_a;
	client_b.b[15] = 0xb;
	client_c.b[15] = 0xc;
	peer_b.b[15] = 0xb;
}

static void teardown(void)
{
	data_relay_close(r);
	r = NULL;
	hip_loop_free(d.loop);
}

START_TEST(test_peer_permission_param)
{
	struct hip_peer_permission in = { .ospi = 0x11223344, .ispi = 0x55667788 }, out;
	uint8_t buf[256], c48[48];
	struct hip_packet pkt;
	struct hip_builder b;
	const struct hip_param_ref *p;
	int len;

	in.peer.port = 10500;
	in.peer.protocol = IPPROTO_UDP;
	in.peer.addr = mkaddr("203.0.113.2");
	in.hit = peer_b;
	hip_build_init(&b, buf, sizeof(buf), HIP_UPDATE, &client_a, &client_b);
	hip_peer_permission_build(&b, &in);
	hip_peer_permission_build(&b, &in);     /* one per peer address: repeatable */
	len = hip_build_finish(&b);
	ck_assert_int_gt(len, 0);
	ck_assert_int_eq(hip_packet_parse(buf, (size_t)len, &pkt), 0);
	p = hip_packet_find(&pkt, HIP_PARAM_PEER_PERMISSION);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->len, 44);           /* D-29: the fields' sum */
	ck_assert_int_eq(hip_peer_permission_decode(hip_param_content(&pkt, p), p->len, &out), 0);
	ck_assert_uint_eq(out.peer.port, 10500);
	ck_assert_uint_eq(out.peer.protocol, IPPROTO_UDP);
	ck_assert_mem_eq(&out.peer.addr, &in.peer.addr, sizeof(in.peer.addr));
	ck_assert_mem_eq(&out.hit, &peer_b, sizeof(peer_b));
	ck_assert_uint_eq(out.ospi, 0x11223344);
	ck_assert_uint_eq(out.ispi, 0x55667788);
	ck_assert_ptr_nonnull(hip_packet_find_next(&pkt, p));
	/* the RFC's stated 48 is taken too; anything else is not */
	memset(c48, 0xee, sizeof(c48));
	memcpy(c48, hip_param_content(&pkt, p), 44);
	ck_assert_int_eq(hip_peer_permission_decode(c48, 48, &out), 0);
	ck_assert_uint_eq(out.ispi, 0x55667788);
	ck_assert_int_eq(hip_peer_permission_decode(c48, 43, &out), -EBADMSG);
	ck_assert_int_eq(hip_peer_permission_decode(c48, 45, &out), -EBADMSG);
	ck_assert_int_eq(hip_peer_permission_decode(c48, 0, &out), -EBADMSG);
}
END_TEST

/* One port per client; a renewal keeps it; the third client finds none. */
START_TEST(test_alloc)
{
	struct hip_addr srv = mkaddr("198.51.100.1"), a = mkaddr("192.0.2.10");
	struct hip_relay_addr ra, rb, rc;

	ck_assert_uint_eq(data_relay_ports(r), 2);
	ck_assert_int_eq(data_relay_alloc(r, &client_a, &a, &srv, &ra), 0);
	ck_assert_mem_eq(&ra.addr, &srv, sizeof(srv));
	ck_assert_uint_eq(ra.port, d.conf.relay_esp_port);
	ck_assert_uint_eq(ra.protocol, IPPROTO_UDP);
	ck_assert_int_eq(data_relay_alloc(r, &client_a, &a, &srv, &rc), 0);   /* renewal */
	ck_assert_uint_eq(rc.port, ra.port);
	ck_assert_int_eq(data_relay_alloc(r, &client_b, &a, &srv, &rb), 0);
	ck_assert_uint_eq(rb.port, d.conf.relay_esp_port + 1);
	ck_assert_int_eq(data_relay_alloc(r, &client_c, &a, &srv, &rc), -ENOSPC);
	ck_assert_uint_eq(data_relay_counters(r)->full, 1);
	ck_assert_uint_eq(data_relay_used(r), 2);
	data_relay_free(r, &client_a);
	ck_assert_int_eq(data_relay_alloc(r, &client_c, &a, &srv, &rc), 0);
	ck_assert_uint_eq(rc.port, ra.port);
	ck_assert_uint_eq(data_relay_counters(r)->allocated, 3);
	ck_assert_uint_eq(data_relay_counters(r)->freed, 1);
}
END_TEST

static bool held_none(const struct hip_hit *client, void *arg)
{
	(void)client;
	(void)arg;
	return false;
}

START_TEST(test_permit_bounds)
{
	struct hip_addr srv = mkaddr("198.51.100.1"), a = mkaddr("192.0.2.10");
	struct hip_peer_permission pp = { .hit = peer_b, .ospi = 0x1000, .ispi = 0x2000 };
	struct hip_relay_addr ra;
	unsigned i;

	pp.peer.addr = mkaddr("203.0.113.2");
	pp.peer.protocol = IPPROTO_UDP;
	ck_assert_int_eq(data_relay_permit(r, &client_a, &pp), -ENOENT);   /* no allocation */
	ck_assert_int_eq(data_relay_alloc(r, &client_a, &a, &srv, &ra), 0);
	ck_assert_int_eq(data_relay_permit(r, &client_a, &pp), 0);
	ck_assert_int_eq(data_relay_permit(r, &client_a, &pp), 0);         /* again: replaced */
	pp.ospi = 255;                                                     /* RFC 4303: reserved */
	ck_assert_int_eq(data_relay_permit(r, &client_a, &pp), -EINVAL);
	pp.ospi = 0x1000;
	pp.peer.protocol = 6;
	ck_assert_int_eq(data_relay_permit(r, &client_a, &pp), -EINVAL);
	pp.peer.protocol = IPPROTO_UDP;
	pp.peer.addr = mkaddr("224.0.0.1");
	ck_assert_int_eq(data_relay_permit(r, &client_a, &pp), -EINVAL);
	/* §4.12.3: the OSPI already leads to another peer */
	pp.peer.addr = mkaddr("203.0.113.3");
	pp.hit = client_c;
	ck_assert_int_eq(data_relay_permit(r, &client_a, &pp), -EEXIST);
	/* at most DATA_RELAY_PERMS_MAX */
	for (i = 1; i < DATA_RELAY_PERMS_MAX; i++) {
		pp.hit = client_c;
		pp.hit.b[14] = (uint8_t)i;
		pp.ospi = 0x3000 + i;
		ck_assert_int_eq(data_relay_permit(r, &client_a, &pp), 0);
	}
	pp.hit.b[14] = 0xff;
	pp.ospi = 0x4000;
	ck_assert_int_eq(data_relay_permit(r, &client_a, &pp), -ENOSPC);
	/* a peer's permissions go at once (its next UPDATE names them) */
	pp.hit = peer_b;
	pp.ospi = 0x1000;
	pp.peer.addr = mkaddr("203.0.113.2");
	data_relay_forget_peer(r, &client_a, &peer_b);
	pp.hit = client_c;
	pp.peer.addr = mkaddr("203.0.113.3");
	ck_assert_int_eq(data_relay_permit(r, &client_a, &pp), 0);   /* OSPI free again */
	/* gone with the registration */
	data_relay_gc(r, held_none, NULL);
	ck_assert_uint_eq(data_relay_used(r), 0);
	ck_assert_int_eq(data_relay_permit(r, &client_a, &pp), -ENOENT);
}
END_TEST

/* ESP: SPI(32) | sequence(32) | 8 bytes; HIP over UDP: 4 zero bytes, then
 * the header with the two HITs. */
static size_t esp(uint8_t *p, uint32_t spi)
{
	memset(p, 0x5a, 16);
	hip_wr32(p, spi);
	hip_wr32(p + 4, 1);
	return 16;
}

static size_t hip_udp(uint8_t *p, const struct hip_hit *from, const struct hip_hit *to)
{
	memset(p, 0, HIP_UDP_MARKER + HIP_HDR_LEN);
	p[HIP_UDP_MARKER + 1] = 4;                 /* header length: 40 bytes */
	p[HIP_UDP_MARKER + 2] = HIP_UPDATE;
	memcpy(p + HIP_UDP_MARKER + 8, from->b, HIP_HIT_LEN);
	memcpy(p + HIP_UDP_MARKER + 8 + HIP_HIT_LEN, to->b, HIP_HIT_LEN);
	return HIP_UDP_MARKER + HIP_HDR_LEN;
}

static void got(int fd, const uint8_t *want, size_t len)
{
	uint8_t buf[256];
	ssize_t n = recv(fd, buf, sizeof(buf), 0);

	ck_assert_int_eq(n, (ssize_t)len);
	ck_assert_mem_eq(buf, want, len);
}

/* The client A at 127.0.0.1 (its NAT's port: a socket), B at 127.0.0.2:
 * what each may send through A's port, and what arrives. */
START_TEST(test_route)
{
	struct hip_addr srv = mkaddr("127.0.0.1"), a = mkaddr("127.0.0.1"), b = mkaddr("127.0.0.2");
	struct hip_addr stranger = mkaddr("127.0.0.3");
	struct hip_peer_permission pp = { .hit = peer_b, .ospi = 0x1000, .ispi = 0x2000 };
	const struct data_relay_counters *c = data_relay_counters(r);
	uint16_t pa, pb;
	int fa = udp_on("127.0.0.1", &pa), fb = udp_on("127.0.0.2", &pb);
	struct hip_relay_addr ra;
	uint8_t p[64], ka = 0xff;
	size_t n;

	ck_assert_int_eq(data_relay_alloc(r, &client_a, &a, &srv, &ra), 0);
	pp.peer.addr = b;
	pp.peer.protocol = IPPROTO_UDP;
	ck_assert_int_eq(data_relay_permit(r, &client_a, &pp), 0);
	/* the peer first: A's way in is not known yet */
	n = esp(p, 0x2000);
	ck_assert_int_eq(data_relay_route(r, &client_a, p, n, &b, pb), -ENOENT);
	ck_assert_uint_eq(c->client_unknown, 1);
	/* A's keepalive: its mapping; garbage from A's address elsewhere does
	 * not move it */
	ck_assert_int_eq(data_relay_route(r, &client_a, &ka, 1, &a, pa), 0);
	ck_assert_int_eq(data_relay_route(r, &client_a, p, 3, &a, (uint16_t)(pa + 1)), -EPERM);
	/* B's ESP on A's inbound SPI: to A */
	ck_assert_int_eq(data_relay_route(r, &client_a, p, n, &b, pb), 1);
	got(fa, p, n);
	/* B's check (HIP, its own HIT as sender): to A */
	n = hip_udp(p, &peer_b, &client_a);
	ck_assert_int_eq(data_relay_route(r, &client_a, p, n, &b, pb), 1);
	got(fa, p, n);
	/* A's answer (receiver B) and A's ESP on its OSPI: to B, at the
	 * port B was heard from */
	n = hip_udp(p, &client_a, &peer_b);
	ck_assert_int_eq(data_relay_route(r, &client_a, p, n, &a, pa), 1);
	got(fb, p, n);
	n = esp(p, 0x1000);
	ck_assert_int_eq(data_relay_route(r, &client_a, p, n, &a, pa), 1);
	got(fb, p, n);
	ck_assert_uint_eq(c->forwarded, 4);
	/* not let through: B on another SPI or as another HIT, a stranger,
	 * A towards a peer it never permitted, garbage */
	n = esp(p, 0x2001);
	ck_assert_int_eq(data_relay_route(r, &client_a, p, n, &b, pb), -EPERM);
	n = hip_udp(p, &client_c, &client_a);
	ck_assert_int_eq(data_relay_route(r, &client_a, p, n, &b, pb), -EPERM);
	n = esp(p, 0x2000);
	ck_assert_int_eq(data_relay_route(r, &client_a, p, n, &stranger, pb), -EPERM);
	n = esp(p, 0x1001);
	ck_assert_int_eq(data_relay_route(r, &client_a, p, n, &a, pa), -EPERM);
	ck_assert_int_eq(data_relay_route(r, &client_a, p, 3, &a, pa), -EPERM);
	ck_assert_uint_eq(c->no_permission, 6);
	ck_assert_uint_eq(c->forwarded, 4);
	/* no allocation: nothing */
	data_relay_free(r, &client_a);
	ck_assert_int_eq(data_relay_route(r, &client_a, p, n, &a, pa), -ENOENT);
	close(fa);
	close(fb);
}
END_TEST

static Suite *data_relay_suite(void)
{
	Suite *s = suite_create("data_relay");
	TCase *tc = tcase_create("data_relay");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_peer_permission_param);
	tcase_add_test(tc, test_alloc);
	tcase_add_test(tc, test_permit_bounds);
	tcase_add_test(tc, test_route);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(data_relay_suite)
