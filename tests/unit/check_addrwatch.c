/*
 * check_addrwatch.c - hipd/net/addrwatch.c against the running kernel: each
 * test in a fresh network namespace (Check forks every test; the child
 * unshares CLONE_NEWNET), a veth pair v0/v1 in it, addresses changed with
 * ip(8) (an independent netlink client), the locator set read back.
 *
 * The engine's addrs_changed hook (UPDATE's readdressing) is a counter
 * here: the test checks it is called once per batch that changed the
 * announceable set.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/addrwatch.h"
#include "hipd.h"
#include "net/locset.h"
#include "base/loop.h"
#include "unit.h"

static unsigned changed_calls;
static uint64_t gen_at_call;

/* The test's stand-in for the engine's hook (update_entry.c). */
static void count_changed(struct hipd *d)
{
	changed_calls++;
	gen_at_call = locset_generation(d->locset);
}

static struct hipd d;
static struct addrwatch *aw;
static bool skipped;

static void sh(const char *cmd)
{
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

/* A fresh namespace with a veth pair v0 (ifindex shown by ip) <-> v1, up. */
static void setup(void)
{
	memset(&d, 0, sizeof(d));
	d.addrs_changed = count_changed;
	aw = NULL;
	changed_calls = 0;
	skipped = geteuid() != 0 || unshare(CLONE_NEWNET) != 0;
	if (skipped) {
		fprintf(stderr, "check_addrwatch: needs root and network namespaces: skipped\n");
		return;
	}
	sh("ip link set lo up && ip link add v0 type veth peer name v1 && "
	   "ip link set v0 up && ip link set v1 up");
	/* DAD that never ends: an address added without nodad stays tentative */
	sh("sysctl -q -w net.ipv6.conf.v0.dad_transmits=100 "
	   "net.ipv6.conf.v0.accept_dad=1");
	ck_assert_int_eq(hip_loop_create(&d.loop), 0);
}

static void teardown(void)
{
	addrwatch_stop(aw);
	ck_assert_ptr_null(d.locset);      /* it made the set: it freed it */
	hip_loop_free(d.loop);
}

static bool has(const char *s)
{
	struct hip_addr a;

	ck_assert_int_eq(hip_addr_from_str(s, &a), 0);
	return locset_has(d.locset, &a);
}

static size_t count(void)
{
	struct hip_addr v[HIP_LOCSET_MAX];

	return locset_list(d.locset, v, HIP_LOCSET_MAX);
}

/* Run the loop until has(s) == want (at most ~5 s). */
static bool run_until(const char *s, bool want)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (has(s) == want)
			return true;
		hip_loop_run_once(d.loop, 50);
	}
	return has(s) == want;
}

/* Run the loop a while: whatever the kernel sent is read. */
static void run_idle(void)
{
	int i;

	for (i = 0; i < 6; i++)
		hip_loop_run_once(d.loop, 50);
}

START_TEST(test_initial_dump)
{
	if (skipped)
		return;
	sh("ip addr add 192.0.2.1/24 dev v0 && ip addr add fd00::1/64 dev v0 nodad && "
	   "ip addr add fd00::2/64 dev v0 && "
	   "ip addr add fd00::3/64 dev v0 nodad preferred_lft 0 && "
	   "ip addr add 127.0.0.2/8 dev lo && ip addr add 2001:2a::1/128 dev v0 nodad");
	ck_assert_int_eq(addrwatch_start(&d, &aw), 0);
	ck_assert_ptr_nonnull(d.locset);
	ck_assert(has("192.0.2.1"));
	ck_assert(has("fd00::1"));
	ck_assert(!has("fd00::2"));        /* tentative: DAD running */
	ck_assert(!has("fd00::3"));        /* deprecated */
	ck_assert(!has("127.0.0.2"));      /* loopback */
	ck_assert(!has("2001:2a::1"));     /* a HIT */
	ck_assert(!has("::1"));
	/* the link-local address of v0 (if any yet) is never listed */
	ck_assert_uint_eq(count(), 2);
	ck_assert_int_eq(locset_preferred(d.locset, AF_INET, &(struct hip_addr){ 0 }), 0);
	/* link names come from rtnetlink too (the engine cannot ask) */
	ck_assert_str_eq(addrwatch_ifname(aw, (int)if_nametoindex("v0")), "v0");
	ck_assert_str_eq(addrwatch_ifname(aw, 1), "lo");
	ck_assert_ptr_null(addrwatch_ifname(aw, 999));
	ck_assert_ptr_null(addrwatch_ifname(NULL, 1));
	/* the first dump is not a change: UPDATE hears nothing at start */
	run_idle();
	ck_assert_uint_eq(changed_calls, 0);
}
END_TEST

START_TEST(test_add_del_events)
{
	if (skipped)
		return;
	ck_assert_int_eq(addrwatch_start(&d, &aw), 0);
	ck_assert_uint_eq(count(), 0);
	sh("ip addr add 198.51.100.7/24 dev v0");
	ck_assert(run_until("198.51.100.7", true));
	ck_assert_uint_eq(changed_calls, 1);
	ck_assert_uint_eq(gen_at_call, locset_generation(d.locset));
	sh("ip addr add fd00:1::7/64 dev v0 nodad");
	ck_assert(run_until("fd00:1::7", true));
	ck_assert_uint_eq(changed_calls, 2);
	/* an event that changes nothing announceable: no call */
	sh("ip addr add 127.0.0.9/8 dev lo && ip addr add fe80::99/64 dev v0 nodad");
	run_idle();
	ck_assert_uint_eq(changed_calls, 2);
	/* a tentative address is not listed, until DAD ends (here: never) */
	sh("ip addr add fd00:1::8/64 dev v0");
	run_idle();
	ck_assert(!has("fd00:1::8"));
	ck_assert_uint_eq(changed_calls, 2);
	/* several changes read in one turn: one call */
	sh("ip -batch - <<'E'\naddr add 203.0.113.1/24 dev v0\naddr add 203.0.113.2/24 dev v0\n"
	   "addr del 198.51.100.7/24 dev v0\nE");
	ck_assert(run_until("198.51.100.7", false));
	ck_assert(run_until("203.0.113.2", true));
	ck_assert(has("203.0.113.1"));
	ck_assert_uint_ge(changed_calls, 3);
	ck_assert_uint_le(changed_calls, 5);
	ck_assert_uint_eq(gen_at_call, locset_generation(d.locset));
	sh("ip addr del fd00:1::7/64 dev v0");
	ck_assert(run_until("fd00:1::7", false));
	/* a manual locator survives the kernel's RTM_DELADDR */
	{
		struct hip_addr a;

		ck_assert_int_eq(hip_addr_from_str("203.0.113.1", &a), 0);
		ck_assert_int_eq(locset_add(d.locset, &a, 0, true), -EEXIST);
	}
	/* (the secondary first: deleting a primary takes its secondaries) */
	sh("ip addr del 203.0.113.2/24 dev v0 && ip addr del 203.0.113.1/24 dev v0");
	ck_assert(run_until("203.0.113.2", false));
	ck_assert(has("203.0.113.1"));
}
END_TEST

START_TEST(test_link_down_up)
{
	if (skipped)
		return;
	sh("ip addr add 192.0.2.1/24 dev v0 && ip addr add fd00::1/64 dev v0 nodad && "
	   "ip addr add 192.0.2.9/24 dev v1");
	ck_assert_int_eq(addrwatch_start(&d, &aw), 0);
	ck_assert(has("192.0.2.1"));
	ck_assert(has("192.0.2.9"));
	/* the peer goes down: v0 loses its carrier (IFF_RUNNING), v1 is down */
	sh("ip link set v1 down");
	ck_assert(run_until("192.0.2.1", false));
	ck_assert(!has("fd00::1"));
	ck_assert(!has("192.0.2.9"));
	ck_assert_uint_eq(count(), 0);
	ck_assert_uint_ge(changed_calls, 1);
	/* while down, a new address on it is not usable */
	sh("ip addr add 192.0.2.2/24 dev v0");
	run_idle();
	ck_assert(!has("192.0.2.2"));
	/* back up: no RTM_NEWADDR for IPv4, the addresses are read again */
	sh("ip link set v1 up");
	ck_assert(run_until("192.0.2.1", true));
	ck_assert(run_until("192.0.2.2", true));
	ck_assert(run_until("192.0.2.9", true));
	ck_assert_uint_eq(gen_at_call, locset_generation(d.locset));
	/* renamed: the new name shows */
	sh("ip link set v1 down && ip link set v1 name w1 && ip link set w1 up");
	run_idle();
	ck_assert(run_until("192.0.2.9", true));
	ck_assert_str_eq(addrwatch_ifname(aw, (int)if_nametoindex("w1")), "w1");
	/* the device goes away: its addresses with it */
	sh("ip link del v0");
	ck_assert(run_until("192.0.2.9", false));
	ck_assert(!has("192.0.2.1"));
	ck_assert_ptr_null(addrwatch_ifname(aw, (int)if_nametoindex("lo") + 1000));
}
END_TEST

/* Shrink every NETLINK_ROUTE socket's receive queue (the watcher's). */
static int shrink_rtnl_rcvbuf(void)
{
	int fd, n = 0, dom, proto, small = 1;
	socklen_t l;

	for (fd = 3; fd < 1024; fd++) {
		l = sizeof(dom);
		if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &l) != 0 || dom != AF_NETLINK)
			continue;
		l = sizeof(proto);
		if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &l) != 0 ||
		    proto != NETLINK_ROUTE)
			continue;
		ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)), 0);
		n++;
	}
	return n;
}

START_TEST(test_overrun_resync)
{
	char cmd[4096], a[32];
	size_t len = 0;
	int i;

	if (skipped)
		return;
	sh("ip addr add 192.0.2.1/24 dev v0 && ip addr add 198.51.100.2/24 dev v0");
	ck_assert_int_eq(addrwatch_start(&d, &aw), 0);
	ck_assert_uint_eq(count(), 2);
	ck_assert_int_eq(shrink_rtnl_rcvbuf(), 1);
	/* far more events than the queue holds, while nobody reads: the kernel
	 * drops some and reports ENOBUFS; one removal is among them */
	len += (size_t)snprintf(cmd + len, sizeof(cmd) - len,
				"ip -batch - <<'E'\naddr del 192.0.2.1/24 dev v0\n");
	for (i = 0; i < 24; i++)
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len,
					"addr add 10.9.%d.1/24 dev v0\n", i);
	snprintf(cmd + len, sizeof(cmd) - len, "E");
	sh(cmd);
	ck_assert(run_until("10.9.23.1", true));
	ck_assert(run_until("192.0.2.1", false));
	run_idle();
	for (i = 0; i < 24; i++) {
		snprintf(a, sizeof(a), "10.9.%d.1", i);
		ck_assert_msg(has(a), "%s missing after the resync", a);
	}
	ck_assert(has("198.51.100.2"));
	ck_assert_uint_eq(count(), 25);
	ck_assert_uint_eq(gen_at_call, locset_generation(d.locset));
}
END_TEST

static Suite *addrwatch_suite(void)
{
	Suite *s = suite_create("addrwatch");
	TCase *tc = tcase_create("rtnetlink");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_initial_dump);
	tcase_add_test(tc, test_add_del_events);
	tcase_add_test(tc, test_link_down_up);
	tcase_add_test(tc, test_overrun_resync);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(addrwatch_suite)
