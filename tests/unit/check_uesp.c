/*
 * check_uesp.c - the userspace ESP datapath (hipd/uesp*.c, hipd/datapath/tun.c).
 *
 * "loop" tests: one datapath in a private network namespace, a socketpair
 * standing in for hip0 and raw ESP sockets on 127.0.0.1: an SA pair with
 * the same SPI both ways sends every inner packet written to the "TUN" out
 * as ESP and back in, so the tests see what the datapath delivers and, on a
 * second raw socket, the ESP on the wire. They check the datapath.h replace
 * contract (sa_add on an existing SPI and direction changes locators and
 * keys in place: sequence numbers and the replay window carry on, nothing
 * is dropped), policy updates, and the first-packet hold queue.
 *
 * "netns" test: tests/netns/uesp-pair.sh, tools/uesp-pair in two
 * namespaces (hold queue, pings, a TCP transfer compared by SHA-256, the
 * veth carries only ESP) over IPv6 (AES-GCM) and IPv4 (AES-CBC + HMAC).
 *
 * All need root and network namespaces; they say so and pass without.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/loop.h"
#include "datapath/uesp/uesp_int.h"
#include "unit.h"

enum { SPI_AB = 0x1234, SPI_AC = 0x2345, PKT = 200 };

struct rig {
	struct hip_loop *loop;
	struct datapath *dp;
	struct uesp *u;
	int tun;                /* our end of the "TUN" */
	int cap;                /* raw ESP socket: sees what goes on the wire */
	unsigned acquires;
	uint8_t esp[UESP_PKT_MAX];      /* last ESP packet seen (no IP header) */
	size_t esp_len;
	uint8_t esp_src[4], esp_dst[4]; /* its outer IPv4 addresses */
};

static void on_acquire(void *arg, const struct hip_hit *local, const struct hip_hit *peer)
{
	struct rig *r = arg;

	(void)local;
	(void)peer;
	r->acquires++;
}

static bool lo_up(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	bool ok;

	if (s < 0)
		return false;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	ok = ioctl(s, SIOCGIFFLAGS, &ifr) == 0;
	ifr.ifr_flags |= IFF_UP;
	ok = ok && ioctl(s, SIOCSIFFLAGS, &ifr) == 0;
	close(s);
	return ok;
}

/* false (and a note) where there is no root or no network namespace */
static bool rig_setup(struct rig *r)
{
	struct datapath_events ev = { .arg = r, .acquire = on_acquire };
	struct uesp_conf conf = { .tun_vnet = false, .tun_mtu = 1400 };
	int sp[2];

	memset(r, 0, sizeof(*r));
	if (geteuid() != 0 || unshare(CLONE_NEWNET) != 0 || !lo_up()) {
		fprintf(stderr, "check_uesp: needs root and network namespaces: skipped\n");
		return false;
	}
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp), 0);
	ck_assert_int_eq(fcntl(sp[0], F_SETFL, O_NONBLOCK), 0);
	conf.tun_fd = sp[0];
	r->tun = sp[1];
	conf.raw4 = uesp_open_raw(AF_INET);
	conf.raw6 = uesp_open_raw(AF_INET6);
	ck_assert_int_ge(conf.raw4, 0);
	ck_assert_int_ge(conf.raw6, 0);
	r->cap = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_ESP);
	ck_assert_int_ge(r->cap, 0);
	ck_assert_int_eq(hip_loop_create(&r->loop), 0);
	ck_assert_int_eq(uesp_create(r->loop, &conf, &ev, &r->dp), 0);
	r->u = (struct uesp *)r->dp;
	return true;
}

static void rig_free(struct rig *r)
{
	r->dp->ops->free(r->dp);
	hip_loop_free(r->loop);
	close(r->tun);
	close(r->cap);
}

static void hit(char last, struct hip_hit *h)
{
	char s[32];

	snprintf(s, sizeof(s), "2001:20::%c", last);
	ck_assert_int_eq(hip_hit_from_str(s, h), 0);
}

/* An SA on 127.0.0.x with AES-GCM, keys all key_byte. Inbound and outbound
 * SAs with the same SPI and HITs pair up on loopback. */
static void make_sa(struct hip_esp_sa *sa, uint32_t spi, bool inbound, char dst_hit,
		    const char *outer_dst, uint8_t key_byte)
{
	memset(sa, 0, sizeof(*sa));
	sa->spi = spi;
	sa->inbound = inbound;
	sa->suite = HIP_ESP_AES_GCM_16;
	hit('a', &sa->inner_src);
	hit(dst_hit, &sa->inner_dst);
	ck_assert_int_eq(hip_addr_from_str("127.0.0.1", &sa->outer_src), 0);
	ck_assert_int_eq(hip_addr_from_str(outer_dst, &sa->outer_dst), 0);
	sa->enc_len = 20;
	memset(sa->enc_key, key_byte, sa->enc_len);
}

static void add_sa(struct rig *r, uint32_t spi, bool inbound, char dst_hit, const char *outer_dst,
		   uint8_t key_byte)
{
	struct hip_esp_sa sa;

	make_sa(&sa, spi, inbound, dst_hit, outer_dst, key_byte);
	ck_assert_int_eq(r->dp->ops->sa_add(r->dp, &sa), 0);
}

/* An inner IPv6/UDP packet 2001:20::a -> 2001:20::<dst_hit>, tagged. */
static size_t inner_packet(uint8_t *p, char dst_hit, uint8_t tag)
{
	struct hip_hit s, d;

	hit('a', &s);
	hit(dst_hit, &d);
	memset(p, 0, PKT);
	p[0] = 0x60;
	p[4] = (PKT - 40) >> 8;
	p[5] = (PKT - 40) & 0xff;
	p[6] = IPPROTO_UDP;
	p[7] = 64;              /* = the outer TTL, so what comes back is equal */
	memcpy(p + 8, s.b, 16);
	memcpy(p + 24, d.b, 16);
	for (size_t k = 48; k < PKT; k++)
		p[k] = (uint8_t)(tag + k);
	return PKT;
}

/* Keep the last ESP packet the capture socket saw. */
static void rig_capture(struct rig *r)
{
	uint8_t buf[UESP_PKT_MAX];
	ssize_t n;
	size_t hl;

	while ((n = recv(r->cap, buf, sizeof(buf), 0)) > 0) {
		hl = (size_t)(buf[0] & 0x0f) * 4;
		if ((size_t)n <= hl)
			continue;
		memcpy(r->esp, buf + hl, (size_t)n - hl);
		r->esp_len = (size_t)n - hl;
		memcpy(r->esp_src, buf + 12, 4);
		memcpy(r->esp_dst, buf + 16, 4);
	}
}

/* Run the loop until the datapath writes a packet to the "TUN" (true, and
 * it is compared with want) or half a second passes (false). */
static bool rig_deliver(struct rig *r, const uint8_t *want, size_t want_len)
{
	uint8_t got[UESP_PKT_MAX];
	ssize_t n;

	for (int k = 0; k < 50; k++) {
		hip_loop_run_once(r->loop, 10);
		rig_capture(r);
		n = recv(r->tun, got, sizeof(got), MSG_DONTWAIT);
		if (n > 0) {
			ck_assert_uint_eq((size_t)n, want_len);
			ck_assert(memcmp(got, want, want_len) == 0);
			return true;
		}
	}
	return false;
}

static bool send_one(struct rig *r, char dst_hit, uint8_t tag)
{
	uint8_t p[PKT];
	size_t len = inner_packet(p, dst_hit, tag);

	ck_assert_int_eq(send(r->tun, p, len, 0), (ssize_t)len);
	return rig_deliver(r, p, len);
}

static uint32_t esp_seq(const struct rig *r)
{
	return (uint32_t)r->esp[4] << 24 | (uint32_t)r->esp[5] << 16 |
	       (uint32_t)r->esp[6] << 8 | r->esp[7];
}

static struct hip_esp_sa_stats stats(struct rig *r, uint32_t spi, bool inbound)
{
	struct hip_esp_sa_stats st;

	ck_assert_int_eq(r->dp->ops->sa_stats(r->dp, spi, inbound, &st), 0);
	return st;
}

/* New outer locators on the outbound SA (mobility): the next packet goes
 * from and to them with the next sequence number, and the receiver takes
 * it. */
START_TEST(test_replace_out_locator)
{
	struct rig r;
	struct hip_esp_sa sa;

	if (!rig_setup(&r))
		return;
	add_sa(&r, SPI_AB, true, 'b', "127.0.0.1", 1);
	add_sa(&r, SPI_AB, false, 'b', "127.0.0.1", 1);
	for (uint8_t k = 0; k < 3; k++)
		ck_assert(send_one(&r, 'b', k));
	ck_assert_uint_eq(esp_seq(&r), 3);
	ck_assert_int_eq(r.esp_src[3], 1);
	make_sa(&sa, SPI_AB, false, 'b', "127.0.0.2", 1);
	ck_assert_int_eq(hip_addr_from_str("127.0.0.3", &sa.outer_src), 0);
	ck_assert_int_eq(r.dp->ops->sa_add(r.dp, &sa), 0);
	ck_assert(send_one(&r, 'b', 9));
	ck_assert_uint_eq(esp_seq(&r), 4);
	ck_assert_int_eq(r.esp_src[3], 3);
	ck_assert_int_eq(r.esp_dst[3], 2);
	ck_assert_uint_eq(stats(&r, SPI_AB, false).packets, 4);
	ck_assert_uint_eq(stats(&r, SPI_AB, true).packets, 4);
	ck_assert_uint_eq(stats(&r, SPI_AB, true).replay_drops, 0);
	rig_free(&r);
}
END_TEST

/* Replacing the inbound SA keeps its replay window: a packet captured
 * before is still a replay after. */
START_TEST(test_replace_in_keeps_window)
{
	struct rig r;
	uint8_t old[UESP_PKT_MAX];
	size_t old_len;
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct hip_esp_sa_stats st;

	if (!rig_setup(&r))
		return;
	add_sa(&r, SPI_AB, true, 'b', "127.0.0.1", 1);
	add_sa(&r, SPI_AB, false, 'b', "127.0.0.1", 1);
	ck_assert(send_one(&r, 'b', 1));
	memcpy(old, r.esp, r.esp_len);
	old_len = r.esp_len;
	ck_assert(send_one(&r, 'b', 2));
	add_sa(&r, SPI_AB, true, 'b', "127.0.0.2", 1);
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(sendto(r.cap, old, old_len, 0, (struct sockaddr *)&to, sizeof(to)),
			 (ssize_t)old_len);
	ck_assert(!rig_deliver(&r, old, 0));
	st = stats(&r, SPI_AB, true);
	ck_assert_uint_eq(st.replay_drops, 1);
	ck_assert_uint_eq(st.packets, 2);
	ck_assert(send_one(&r, 'b', 3));
	ck_assert_uint_eq(stats(&r, SPI_AB, true).packets, 3);
	rig_free(&r);
}
END_TEST

/* New keys on the same SPIs: the outbound side encrypts with them at once
 * (the old inbound keys fail the ICV, the window does not move), and once
 * the inbound side has them too the next packet passes. */
START_TEST(test_replace_keys)
{
	struct rig r;
	struct hip_esp_sa_stats st;

	if (!rig_setup(&r))
		return;
	add_sa(&r, SPI_AB, true, 'b', "127.0.0.1", 1);
	add_sa(&r, SPI_AB, false, 'b', "127.0.0.1", 1);
	ck_assert(send_one(&r, 'b', 1));
	add_sa(&r, SPI_AB, false, 'b', "127.0.0.1", 7);
	ck_assert(!send_one(&r, 'b', 2));
	st = stats(&r, SPI_AB, true);
	ck_assert_uint_eq(st.auth_drops, 1);
	ck_assert_uint_eq(st.packets, 1);
	add_sa(&r, SPI_AB, true, 'b', "127.0.0.1", 7);
	ck_assert(send_one(&r, 'b', 3));
	ck_assert_uint_eq(esp_seq(&r), 3);
	ck_assert_uint_eq(stats(&r, SPI_AB, false).packets, 3);
	rig_free(&r);
}
END_TEST

/* A replacement that cannot be installed, or another association's SA on the
 * same SPI, leaves the SA as it was. */
START_TEST(test_replace_refused)
{
	struct rig r;
	struct hip_esp_sa sa;

	if (!rig_setup(&r))
		return;
	add_sa(&r, SPI_AB, true, 'b', "127.0.0.1", 1);
	add_sa(&r, SPI_AB, false, 'b', "127.0.0.1", 1);
	ck_assert(send_one(&r, 'b', 1));
	make_sa(&sa, SPI_AB, false, 'b', "127.0.0.2", 9);
	sa.suite = 0x7777;
	ck_assert_int_lt(r.dp->ops->sa_add(r.dp, &sa), 0);
	make_sa(&sa, SPI_AB, true, 'b', "127.0.0.2", 9);
	sa.replay_window = ESP_REPLAY_MAX + 1;
	ck_assert_int_eq(r.dp->ops->sa_add(r.dp, &sa), -EINVAL);
	/* another peer (HIT c) that chose the same SPI: its SA is refused,
	 * b's stays (no silent replace of another association's SA) */
	make_sa(&sa, SPI_AB, false, 'c', "127.0.0.3", 9);
	ck_assert_int_eq(r.dp->ops->sa_add(r.dp, &sa), -EEXIST);
	make_sa(&sa, SPI_AB, true, 'c', "127.0.0.3", 9);
	ck_assert_int_eq(r.dp->ops->sa_add(r.dp, &sa), -EEXIST);
	ck_assert(send_one(&r, 'b', 2));
	ck_assert_uint_eq(esp_seq(&r), 2);
	ck_assert_int_eq(r.esp_dst[3], 1);
	rig_free(&r);
}
END_TEST

/* A second policy for the same HITs updates the locators of the one peer
 * entry; deleting removes it. */
START_TEST(test_policy_update)
{
	struct rig r;
	struct hip_hit a, b;
	struct hip_addr l1, p1, l2, p2;
	struct uesp_peer *p;

	if (!rig_setup(&r))
		return;
	hit('a', &a);
	hit('b', &b);
	hip_addr_from_str("192.0.2.1", &l1);
	hip_addr_from_str("192.0.2.2", &p1);
	hip_addr_from_str("fd00::1", &l2);
	hip_addr_from_str("fd00::2", &p2);
	ck_assert_int_eq(r.dp->ops->policy_add(r.dp, &a, &b, &l1, &p1), 0);
	ck_assert_int_eq(r.dp->ops->policy_add(r.dp, &a, &b, &l2, &p2), 0);
	ck_assert_uint_eq(r.u->n_peers, 1);
	p = uesp_peer_find(r.u, &b, false);
	ck_assert_ptr_nonnull(p);
	ck_assert(memcmp(&p->loc_local, &l2, sizeof(l2)) == 0);
	ck_assert(memcmp(&p->loc_peer, &p2, sizeof(p2)) == 0);
	ck_assert_int_eq(r.dp->ops->policy_del(r.dp, &a, &b), 0);
	ck_assert_int_eq(r.dp->ops->policy_del(r.dp, &a, &b), -ENOENT);
	ck_assert_uint_eq(r.u->n_peers, 0);
	rig_free(&r);
}
END_TEST

/* First packets to a peer without SA: one acquire, held, sent in order once
 * the SA comes; the hold queue exists only meanwhile. */
START_TEST(test_hold_queue)
{
	struct rig r;
	uint8_t p1[PKT], p2[PKT];
	struct hip_hit c;

	if (!rig_setup(&r))
		return;
	hit('c', &c);
	inner_packet(p1, 'c', 1);
	inner_packet(p2, 'c', 2);
	ck_assert_int_eq(send(r.tun, p1, PKT, 0), PKT);
	ck_assert_int_eq(send(r.tun, p2, PKT, 0), PKT);
	ck_assert(!rig_deliver(&r, p1, PKT));
	ck_assert_uint_eq(r.acquires, 1);
	ck_assert_uint_eq(r.u->n_holds, 1);
	ck_assert_ptr_nonnull(uesp_peer_find(r.u, &c, false)->hold);
	add_sa(&r, SPI_AC, true, 'c', "127.0.0.1", 3);
	add_sa(&r, SPI_AC, false, 'c', "127.0.0.1", 3);
	ck_assert_uint_eq(r.u->n_holds, 0);
	ck_assert_ptr_null(uesp_peer_find(r.u, &c, false)->hold);
	ck_assert(rig_deliver(&r, p1, PKT));
	ck_assert(rig_deliver(&r, p2, PKT));
	ck_assert(send_one(&r, 'c', 3));
	ck_assert_uint_eq(r.acquires, 1);
	/* What an association keeps here stays far below the 4 KiB budget
	 * (issue 3): no packet buffers in the peer entry. */
	ck_assert_uint_lt(sizeof(struct uesp_peer) + 2 * sizeof(struct uesp_sa), 2048);
	rig_free(&r);
}
END_TEST

START_TEST(test_uesp_netns)
{
	char cmd[4096];
	const char *build = getenv("abs_builddir");
	int rc;

	if (geteuid() != 0 || access("/dev/net/tun", R_OK | W_OK) != 0 ||
	    system("ip netns list >/dev/null 2>&1") != 0) {
		fprintf(stderr, "check_uesp: needs root, /dev/net/tun and ip netns: skipped\n");
		return;
	}
	if (!build)
		build = ".";
	/* the script finds tools/uesp-pair through BUILD */
	snprintf(cmd, sizeof(cmd), "BUILD=$(cd %s && pwd) bash %s 20", build,
		 unit_srcpath("tests/netns/uesp-pair.sh"));
	rc = system(cmd);
	ck_assert_msg(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "uesp-pair.sh failed (%d)", rc);
}
END_TEST

static Suite *uesp_suite(void)
{
	Suite *s = suite_create("uesp");
	TCase *tc = tcase_create("loop");
	TCase *tn = tcase_create("netns");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_replace_out_locator);
	tcase_add_test(tc, test_replace_in_keeps_window);
	tcase_add_test(tc, test_replace_keys);
	tcase_add_test(tc, test_replace_refused);
	tcase_add_test(tc, test_policy_update);
	tcase_add_test(tc, test_hold_queue);
	suite_add_tcase(s, tc);
	tcase_set_timeout(tn, 300);
	tcase_add_test(tn, test_uesp_netns);
	suite_add_tcase(s, tn);
	return s;
}

UNIT_MAIN(uesp_suite)
