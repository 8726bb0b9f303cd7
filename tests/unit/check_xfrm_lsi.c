/*
 * check_xfrm_lsi.c - IPv4 between LSIs on the kernel datapath
 * (docs/decisions.md D-22; hipd/datapath/xfrm/): the LSI pair policies and
 * the catch-all ACQUIRE policy with AF_INET selectors, the ACQUIRE it
 * makes the kernel send (acquire_lsi), BEET SAs whose selector is the LSI
 * pair (the inner IPv4 header is rebuilt from it), replaced in place like
 * the HIT SAs, and flush. Each test in a fresh network namespace, read
 * back with iproute2, as check_xfrm.c.
 *
 * Without ESP in the kernel (this machine) the SA tests check the refusal;
 * under an ESP kernel (tools/kvm/run-in-esp-vm.sh
 * 'top_srcdir=/work/main build-.../tests/unit/check_xfrm_lsi') they install
 * real SAs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hip_wire.h"
#include "unit.h"
#include "datapath/xfrm/xfrm_int.h"

#define HIT_L "2001:22::1"
#define HIT_P "2001:21::2"
#define LSI_L "198.18.0.1"
#define LSI_P "198.19.255.254"
#define LOC_L "192.0.2.1"
#define LOC_P "192.0.2.2"
#define LOC6_L "fd00::1"
#define LOC6_P "fd00::2"
#define REQID_DEC "1212764160"   /* HIP_XFRM_REQID_DEFAULT */

static const struct hip_lsi_range range = HIP_LSI_RANGE_DEFAULT;   /* 198.18.0.0/15 */

static void netns_enter(void)
{
	ck_assert_msg(unshare(CLONE_NEWNET) == 0, "unshare(CLONE_NEWNET): %s (needs root)",
		      strerror(errno));
	ck_assert_int_eq(system("ip link set lo up"), 0);
}

static const char *sh(const char *cmd)
{
	static char out[16384];
	FILE *f = popen(cmd, "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	pclose(f);
	return out;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

static struct hip_hit hit(const char *s)
{
	struct hip_hit h;

	ck_assert_int_eq(inet_pton(AF_INET6, s, h.b), 1);
	return h;
}

static struct in_addr lsi(const char *s)
{
	struct in_addr a;

	ck_assert_int_eq(inet_pton(AF_INET, s, &a), 1);
	return a;
}

static struct hip_addr addr(const char *s)
{
	struct hip_addr a;

	ck_assert_int_eq(hip_addr_from_str(s, &a), 0);
	return a;
}

static int kernel_has_esp(void)
{
	int rc = system("ip xfrm state add src 192.0.2.7 dst 192.0.2.8 proto esp spi 0x777 "
			"enc 'cbc(aes)' 0x000102030405060708090a0b0c0d0e0f auth-trunc "
			"'hmac(sha256)' 0x000102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f "
			"128 2>/dev/null");

	if (rc == 0)
		ck_assert_int_eq(system("ip xfrm state del src 192.0.2.7 dst 192.0.2.8 proto esp "
					"spi 0x777"), 0);
	return rc == 0;
}

static struct datapath *dp_new(const struct datapath_events *ev)
{
	struct datapath *dp = NULL;

	ck_assert_int_eq(xfrm_dp_create(&dp, NULL, ev), 0);
	ck_assert_ptr_nonnull(dp);
	ck_assert_ptr_nonnull(dp->ops->policy_lsi_add);
	ck_assert_ptr_nonnull(dp->ops->policy_lsi_del);
	return dp;
}

/* The LSI pair: out and in, LSI/32 both ways, the locators' template;
 * updated in place on a move, also to the other outer family. */
START_TEST(test_lsi_policy_pair)
{
	struct in_addr l = lsi(LSI_L), p = lsi(LSI_P), zero = { 0 };
	struct hip_addr ll = addr(LOC_L), pl = addr(LOC_P);
	struct datapath *dp;
	const char *out;

	netns_enter();
	dp = dp_new(NULL);
	ck_assert_int_eq(dp->ops->policy_lsi_add(dp, &l, &p, &ll, &pl), 0);
	out = sh("ip xfrm policy");
	ck_assert_msg(strstr(out, "src " LSI_L "/32 dst " LSI_P "/32 \n\tdir out priority 12288"),
		      "%s", out);
	ck_assert_msg(strstr(out, "src " LSI_P "/32 dst " LSI_L "/32 \n\tdir in priority 12288"),
		      "%s", out);
	ck_assert_msg(strstr(out, "tmpl src " LOC_L " dst " LOC_P "\n\t\tproto esp reqid "
			     REQID_DEC " mode beet"), "%s", out);
	ck_assert_msg(strstr(out, "tmpl src " LOC_P " dst " LOC_L "\n\t\tproto esp reqid "
			     REQID_DEC " mode beet"), "%s", out);
	ck_assert_int_eq(dp->ops->policy_lsi_add(dp, &l, &p, &ll, &pl), 0);
	ck_assert_int_eq(count(sh("ip xfrm policy"), "mode beet"), 2);
	/* Moved to IPv6 locators: IPv4 inner over IPv6 outer. */
	ll = addr(LOC6_L);
	pl = addr(LOC6_P);
	ck_assert_int_eq(dp->ops->policy_lsi_add(dp, &l, &p, &ll, &pl), 0);
	out = sh("ip xfrm policy");
	ck_assert_int_eq(count(out, "mode beet"), 2);
	ck_assert_int_eq(count(out, LOC_L), 0);
	ck_assert_msg(strstr(out, "src " LSI_L "/32 dst " LSI_P "/32 \n\tdir out priority 12288"),
		      "%s", out);
	ck_assert_msg(strstr(out, "tmpl src " LOC6_L " dst " LOC6_P "\n"), "%s", out);
	ck_assert_msg(strstr(out, "tmpl src " LOC6_P " dst " LOC6_L "\n"), "%s", out);
	/* Locators of two families, or no LSI: refused, nothing installed. */
	pl = addr(LOC_P);
	ck_assert_int_eq(dp->ops->policy_lsi_add(dp, &l, &p, &ll, &pl), -EINVAL);
	ck_assert_int_eq(dp->ops->policy_lsi_add(dp, &zero, &p, &pl, &pl), -EINVAL);
	ck_assert_int_eq(count(sh("ip xfrm policy"), "\tdir "), 2);
	/* The HIT pair is another pair: its delete leaves this one. */
	ck_assert_int_eq(dp->ops->policy_del(dp, &(struct hip_hit){ .b = { 0x20, 0x01, 0x00,
				0x22 } }, &(struct hip_hit){ .b = { 0x20, 0x01, 0x00, 0x21 } }),
			 -ENOENT);
	ck_assert_int_eq(dp->ops->policy_lsi_del(dp, &l, &p), 0);
	ck_assert_str_eq(sh("ip xfrm policy"), "");
	ck_assert_int_eq(dp->ops->policy_lsi_del(dp, &l, &p), -ENOENT);
	dp->ops->free(dp);
}
END_TEST

/* The catch-all: local LSI/32 -> the LSI range, template local LSI ->
 * 0.0.0.0, the ACQUIRE priority; flush removes it with everything else. */
START_TEST(test_lsi_acquire_policy)
{
	struct in_addr l = lsi(LSI_L), p = lsi(LSI_P);
	struct hip_hit hl = hit(HIT_L);
	struct hip_addr ll = addr(LOC_L), pl = addr(LOC_P);
	struct datapath *dp;
	const char *out;

	netns_enter();
	dp = dp_new(NULL);
	ck_assert_int_eq(xfrm_dp_acquire_lsi_policy_add(dp, &l, &range), 0);
	out = sh("ip xfrm policy");
	ck_assert_msg(strstr(out, "src " LSI_L "/32 dst 198.18.0.0/15 \n\tdir out priority 12544"),
		      "%s", out);
	ck_assert_msg(strstr(out, "tmpl src " LSI_L " dst 0.0.0.0\n\t\tproto esp reqid " REQID_DEC
			     " mode beet"), "%s", out);
	ck_assert_int_eq(count(out, "level use"), 0);
	ck_assert_int_eq(xfrm_dp_acquire_lsi_policy_del(dp, &l, &range), 0);
	ck_assert_str_eq(sh("ip xfrm policy"), "");
	/* flush: the LSI policies of ours go with the HIT ones, a foreign
	 * one on the same LSIs stays */
	ck_assert_int_eq(system("ip xfrm policy add src " LSI_L "/32 dst 198.18.7.7/32 dir out "
				"tmpl src 192.0.2.1 dst 192.0.2.9 proto esp reqid 7 mode beet"), 0);
	ck_assert_int_eq(xfrm_dp_acquire_lsi_policy_add(dp, &l, &range), 0);
	ck_assert_int_eq(xfrm_dp_acquire_policy_add(dp, &hl), 0);
	ck_assert_int_eq(dp->ops->policy_lsi_add(dp, &l, &p, &ll, &pl), 0);
	ck_assert_int_eq(count(sh("ip xfrm policy"), "\tdir "), 5);
	ck_assert_int_eq(xfrm_dp_flush_count(dp), 4);
	out = sh("ip xfrm policy");
	ck_assert_int_eq(count(out, "\tdir "), 1);
	ck_assert_int_eq(count(out, "reqid 7 mode beet"), 1);
	dp->ops->free(dp);
}
END_TEST

struct acq_seen {
	int n, n_hit;
	struct in_addr local, peer;
};

static void on_acquire(void *arg, const struct hip_hit *local, const struct hip_hit *peer)
{
	struct acq_seen *s = arg;

	(void)local;
	(void)peer;
	s->n_hit++;
}

static void on_acquire_lsi(void *arg, const struct in_addr *local, const struct in_addr *peer)
{
	struct acq_seen *s = arg;

	s->n++;
	s->local = *local;
	s->peer = *peer;
}

/* IPv4 from our LSI to a peer's LSI makes the kernel ask with an AF_INET
 * selector: acquire_lsi gets the pair; the larval state goes once the LSI
 * pair policies are in. */
START_TEST(test_lsi_acquire_event)
{
	struct acq_seen seen = { 0 };
	struct datapath_events ev = { .arg = &seen, .acquire = on_acquire,
				      .acquire_lsi = on_acquire_lsi };
	struct in_addr l = lsi(LSI_L), p = lsi(LSI_P);
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(9) };
	struct hip_addr ll = addr(LOC_L), pl = addr(LOC_P);
	struct datapath *dp;
	struct pollfd pfd;
	int fd, i;

	netns_enter();
	/* IPv4 on lo skips XFRM by default (net.ipv4.conf.lo.disable_xfrm = 1;
	 * hip0, a new device, has 0) */
	ck_assert_int_eq(system("echo 0 >/proc/sys/net/ipv4/conf/lo/disable_xfrm && "
				"echo 0 >/proc/sys/net/ipv4/conf/lo/disable_policy"), 0);
	ck_assert_int_eq(system("ip addr add " LSI_L "/32 dev lo && "
				"ip route add 198.18.0.0/15 dev lo src " LSI_L), 0);
	dp = dp_new(&ev);
	ck_assert_int_eq(xfrm_set_larval_drop(0), 0);
	ck_assert_int_eq(xfrm_dp_acquire_lsi_policy_add(dp, &l, &range), 0);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	ck_assert_int_ge(fd, 0);
	dst.sin_addr = p;
	(void)sendto(fd, "x", 1, MSG_DONTWAIT, (struct sockaddr *)&dst, sizeof(dst));
	pfd.fd = xfrm_dp_event_fd(dp);
	pfd.events = POLLIN;
	for (i = 0; i < 20 && seen.n == 0; i++) {
		if (poll(&pfd, 1, 100) > 0)
			xfrm_dp_event_read(dp);
	}
	ck_assert_int_eq(seen.n, 1);
	ck_assert_int_eq(seen.n_hit, 0);
	ck_assert_uint_eq(seen.local.s_addr, l.s_addr);
	ck_assert_uint_eq(seen.peer.s_addr, p.s_addr);
	close(fd);
	ck_assert_int_eq(count(sh("ip xfrm state"), "proto esp spi 0x00000000 reqid " REQID_DEC),
			 1);
	ck_assert_int_eq(count(sh("ip xfrm state"), "src " LSI_L " dst 0.0.0.0\n"), 1);
	ck_assert_int_eq(dp->ops->policy_lsi_add(dp, &l, &p, &ll, &pl), 0);
	ck_assert_int_eq(count(sh("ip xfrm state"), " dst 0.0.0.0\n"), 0);
	ck_assert_int_ge(xfrm_dp_flush_count(dp), 3);
	ck_assert_str_eq(sh("ip xfrm state"), "");
	ck_assert_str_eq(sh("ip xfrm policy"), "");
	dp->ops->free(dp);
}
END_TEST

static struct hip_esp_sa lsi_sa(bool inbound, const char *loc_l, const char *loc_p)
{
	struct hip_esp_sa sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.spi = inbound ? 0x1001 : 0x2002;
	sa.inbound = inbound;
	sa.outer_src = addr(inbound ? loc_p : loc_l);
	sa.outer_dst = addr(inbound ? loc_l : loc_p);
	sa.inner_src = hit(inbound ? HIT_P : HIT_L);
	sa.inner_dst = hit(inbound ? HIT_L : HIT_P);
	sa.inner_v4 = true;
	sa.lsi_src = lsi(inbound ? LSI_P : LSI_L);
	sa.lsi_dst = lsi(inbound ? LSI_L : LSI_P);
	sa.suite = HIP_ESP_AES128_CBC_SHA256;
	for (i = 0; i < sizeof(sa.enc_key); i++) {
		sa.enc_key[i] = (uint8_t)(0x40 + i);
		sa.auth_key[i] = (uint8_t)(0x80 + i);
	}
	sa.enc_len = 16;
	sa.auth_len = 32;
	sa.replay_window = 128;
	return sa;
}

/* An IPv4-inner SA without both LSIs never reaches the kernel. */
START_TEST(test_lsi_sa_bad_input)
{
	struct hip_esp_sa sa = lsi_sa(false, LOC_L, LOC_P);
	struct datapath *dp;

	netns_enter();
	dp = dp_new(NULL);
	sa.lsi_dst.s_addr = 0;
	ck_assert_int_eq(dp->ops->sa_add(dp, &sa), -EINVAL);
	ck_assert_str_eq(sh("ip xfrm state"), "");
	dp->ops->free(dp);
}
END_TEST

/* BEET SAs with the LSI pair as selector (loop 0: IPv4 outer, 1: IPv6
 * outer), beside the HIT SAs of the same association; replaced in place
 * on a move (the out policy follows); flush. */
START_TEST(test_lsi_sa)
{
	const char *loc_l = _i ? LOC6_L : LOC_L, *loc_p = _i ? LOC6_P : LOC_P;
	struct hip_esp_sa out = lsi_sa(false, loc_l, loc_p), in = lsi_sa(true, loc_l, loc_p);
	struct hip_esp_sa hout = out;
	struct in_addr l = lsi(LSI_L), p = lsi(LSI_P);
	struct hip_addr ll = addr(loc_l), pl = addr(loc_p);
	char want[160];
	struct datapath *dp;
	const char *o;

	netns_enter();
	dp = dp_new(NULL);
	if (!kernel_has_esp()) {
		ck_assert_int_eq(dp->ops->sa_add(dp, &out), -EPROTONOSUPPORT);
		ck_assert_str_eq(sh("ip xfrm state"), "");
		dp->ops->free(dp);
		return;
	}
	ck_assert_int_eq(dp->ops->sa_add(dp, &out), 0);
	ck_assert_int_eq(dp->ops->sa_add(dp, &in), 0);
	ck_assert_int_eq(dp->ops->sa_add(dp, &in), 0);    /* again: replaced, not doubled */
	/* the association's HIT SA, another SPI */
	hout.inner_v4 = false;
	hout.lsi_src.s_addr = hout.lsi_dst.s_addr = 0;
	hout.spi = 0x3003;
	ck_assert_int_eq(dp->ops->sa_add(dp, &hout), 0);
	ck_assert_int_eq(dp->ops->policy_lsi_add(dp, &l, &p, &ll, &pl), 0);
	o = sh("ip xfrm state");
	ck_assert_int_eq(count(o, "proto esp spi"), 3);
	ck_assert_int_eq(count(o, "sel src " LSI_L "/32 dst " LSI_P "/32"), 1);
	ck_assert_int_eq(count(o, "sel src " LSI_P "/32 dst " LSI_L "/32"), 1);
	ck_assert_int_eq(count(o, "sel src " HIT_L "/128 dst " HIT_P "/128"), 1);
	snprintf(want, sizeof(want), "src %s dst %s\n\tproto esp spi 0x00002002 reqid " REQID_DEC
		 " mode beet\n", loc_l, loc_p);
	ck_assert_msg(strstr(o, want), "%s", o);

	/* Rekey under the same SPI (D-22: the LSI pair takes its new keys in
	 * place): one SA, the new key, the IPv4 selector kept. */
	out.enc_key[0] = 0x50;
	ck_assert_int_eq(dp->ops->sa_add(dp, &out), 0);
	o = sh("ip xfrm state");
	ck_assert_int_eq(count(o, "proto esp spi 0x00002002 "), 1);
	ck_assert_int_eq(count(o, "enc cbc(aes) 0x504142434445464748494a4b4c4d4e4f"), 1);
	ck_assert_int_eq(count(o, "sel src " LSI_L "/32 dst " LSI_P "/32"), 1);

	/* The peer moved: a new destination, the out policy follows. */
	out.outer_dst = addr(_i ? "fd00::3" : "192.0.2.3");
	ck_assert_int_eq(dp->ops->sa_add(dp, &out), 0);
	o = sh("ip xfrm state");
	ck_assert_int_eq(count(o, "proto esp spi 0x00002002 "), 1);
	ck_assert_int_eq(count(o, "sel src " LSI_L "/32 dst " LSI_P "/32"), 1);
	o = sh("ip xfrm policy");
	snprintf(want, sizeof(want), "tmpl src %s dst %s\n", loc_l, _i ? "fd00::3" : "192.0.2.3");
	ck_assert_msg(strstr(o, want), "%s", o);
	ck_assert_int_eq(xfrm_dp_flush_count(dp), 5);
	ck_assert_str_eq(sh("ip xfrm state"), "");
	ck_assert_str_eq(sh("ip xfrm policy"), "");
	dp->ops->free(dp);
}
END_TEST

static Suite *xfrm_lsi_suite(void)
{
	Suite *s = suite_create("xfrm_lsi");
	TCase *tc = tcase_create("netns");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_lsi_policy_pair);
	tcase_add_test(tc, test_lsi_acquire_policy);
	tcase_add_test(tc, test_lsi_acquire_event);
	tcase_add_test(tc, test_lsi_sa_bad_input);
	tcase_add_loop_test(tc, test_lsi_sa, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(xfrm_lsi_suite)
