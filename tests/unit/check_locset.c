/*
 * check_locset.c - the host's own locator set (hipd/net/locset.c): what is
 * never a locator, merging of kernel and manual entries, link down, hiding,
 * the announce order and the preferred locator per family, the generation.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "net/locset.h"
#include "unit.h"

static struct hip_locset *ls;

static void setup(void)
{
	ck_assert_int_eq(locset_create(&ls), 0);
}

static void teardown(void)
{
	locset_free(ls);
	ls = NULL;
}

static struct hip_addr A(const char *s)
{
	struct hip_addr a;

	ck_assert_msg(hip_addr_from_str(s, &a) == 0, "%s", s);
	return a;
}

static int add(const char *s, int ifindex, bool manual)
{
	struct hip_addr a = A(s);

	return locset_add(ls, &a, ifindex, manual);
}

static int del(const char *s, bool manual)
{
	struct hip_addr a = A(s);

	return locset_del(ls, &a, manual);
}

static bool has(const char *s)
{
	struct hip_addr a = A(s);

	return locset_has(ls, &a);
}

static int hide(const char *s, bool hidden)
{
	struct hip_addr a = A(s);

	return locset_set_hidden(ls, &a, hidden);
}

/* locset_list as "a b c". */
static const char *list(void)
{
	static char out[HIP_LOCSET_MAX * 48];
	struct hip_addr v[HIP_LOCSET_MAX];
	char s[64];
	size_t i, n = locset_list(ls, v, HIP_LOCSET_MAX);

	out[0] = '\0';
	for (i = 0; i < n; i++) {
		hip_addr_to_str(&v[i], s, sizeof(s));
		if (i)
			strcat(out, " ");
		strcat(out, s);
	}
	return out;
}

static const char *preferred(int family)
{
	static char s[64];
	struct hip_addr a;

	if (locset_preferred(ls, family, &a) != 0)
		return "none";
	return hip_addr_to_str(&a, s, sizeof(s));
}

START_TEST(test_never_locators)
{
	static const char *const bad[] = {
		"127.0.0.1", "127.255.0.9", "0.0.0.0", "0.1.2.3", "224.0.0.1", "239.1.1.1",
		"255.255.255.255", "169.254.7.7", "::", "::1", "fe80::1", "febf::1", "ff02::1",
		"ff0e::5", "2001:20::1", "2001:2f:ffff::1", "::10.0.0.1",
	};
	static const char *const good[] = {
		"192.0.2.1", "10.0.0.1", "1.1.1.1", "223.255.255.254", "fd00::1",
		"2001:db8::7", "fec0::1", "2001:30::1", "2001:1f::1", "::ffff:198.51.100.9",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hip_addr a = A(bad[i]);

		ck_assert_msg(add(bad[i], 2, false) == -EINVAL, "%s accepted", bad[i]);
		ck_assert_msg(add(bad[i], 0, true) == -EINVAL, "%s accepted (manual)", bad[i]);
		ck_assert_ptr_nonnull(locset_addr_problem(&a));
	}
	ck_assert_str_eq(list(), "");
	ck_assert_uint_eq(locset_generation(ls), 1);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(add(good[i], 2, false) == 0, "%s refused", good[i]);
	ck_assert_uint_eq(locset_entries(ls, NULL, 0), 0);
	{
		struct hip_local_locator e[HIP_LOCSET_MAX];

		ck_assert_uint_eq(locset_entries(ls, e, HIP_LOCSET_MAX),
				  sizeof(good) / sizeof(good[0]));
	}
	ck_assert_int_eq(add("192.0.2.1", -1, false), -EINVAL);
	{
		struct hip_addr a = A("127.0.0.1");

		ck_assert_str_eq(locset_addr_problem(&a), "a loopback address");
		a = A("2001:2a::5");
		ck_assert_str_eq(locset_addr_problem(&a), "a HIT (2001:20::/28)");
		a = A("fe80::2");
		ck_assert_str_eq(locset_addr_problem(&a), "a link-local address");
	}
}
END_TEST

START_TEST(test_order_and_preferred)
{
	ck_assert_str_eq(preferred(AF_INET), "none");
	ck_assert_str_eq(preferred(AF_INET6), "none");
	ck_assert_int_eq(add("192.0.2.1", 2, false), 0);
	ck_assert_int_eq(add("fd00::1", 2, false), 0);
	ck_assert_int_eq(add("198.51.100.1", 3, false), 0);
	ck_assert_int_eq(add("fd00:1::1", 3, false), 0);
	/* IPv6 first, oldest first within a family */
	ck_assert_str_eq(list(), "fd00::1 fd00:1::1 192.0.2.1 198.51.100.1");
	ck_assert_str_eq(preferred(AF_INET), "192.0.2.1");
	ck_assert_str_eq(preferred(AF_INET6), "fd00::1");
	ck_assert_int_eq(locset_preferred(ls, AF_UNIX, &(struct hip_addr){ 0 }), -EINVAL);
	/* the oldest goes: the next oldest takes over */
	ck_assert_int_eq(del("192.0.2.1", false), 0);
	ck_assert_str_eq(preferred(AF_INET), "198.51.100.1");
	/* it comes back: now the youngest */
	ck_assert_int_eq(add("192.0.2.1", 2, false), 0);
	ck_assert_str_eq(preferred(AF_INET), "198.51.100.1");
	ck_assert_str_eq(list(), "fd00::1 fd00:1::1 198.51.100.1 192.0.2.1");
	/* a manual locator beats every learnt one of its family */
	ck_assert_int_eq(add("203.0.113.5", 0, true), 0);
	ck_assert_str_eq(preferred(AF_INET), "203.0.113.5");
	ck_assert_str_eq(preferred(AF_INET6), "fd00::1");
	/* an existing learnt address made manual by hipconf moves up */
	ck_assert_int_eq(add("fd00:1::1", 0, true), -EEXIST);
	ck_assert_str_eq(preferred(AF_INET6), "fd00:1::1");
	ck_assert_str_eq(list(), "fd00:1::1 fd00::1 203.0.113.5 198.51.100.1 192.0.2.1");
	/* max smaller than the set: the first ones */
	{
		struct hip_addr v[2];
		char s[64];

		ck_assert_uint_eq(locset_list(ls, v, 2), 2);
		ck_assert_str_eq(hip_addr_to_str(&v[1], s, sizeof(s)), "fd00::1");
	}
}
END_TEST

START_TEST(test_merge_manual_and_kernel)
{
	struct hip_local_locator e[4];
	uint64_t g;

	ck_assert_int_eq(add("192.0.2.1", 0, true), 0);
	ck_assert_uint_eq(locset_entries(ls, e, 4), 1);
	ck_assert_int_eq(e[0].ifindex, 0);
	ck_assert(e[0].manual);
	/* the kernel reports the same address: one entry, its ifindex, still manual */
	g = locset_generation(ls);
	ck_assert_int_eq(add("192.0.2.1", 5, false), -EEXIST);
	ck_assert_uint_eq(locset_entries(ls, e, 4), 1);
	ck_assert_int_eq(e[0].ifindex, 5);
	ck_assert(e[0].manual);
	ck_assert_uint_eq(locset_generation(ls), g);     /* nothing announceable changed */
	/* RTM_DELADDR: a manual entry stays (without its interface) */
	ck_assert_int_eq(del("192.0.2.1", false), 0);
	ck_assert(has("192.0.2.1"));
	ck_assert_uint_eq(locset_entries(ls, e, 4), 1);
	ck_assert_int_eq(e[0].ifindex, 0);
	ck_assert_uint_eq(locset_generation(ls), g);
	/* hipconf del removes it whatever its origin */
	ck_assert_int_eq(add("192.0.2.1", 5, false), -EEXIST);
	ck_assert_int_eq(del("192.0.2.1", true), 0);
	ck_assert(!has("192.0.2.1"));
	ck_assert_uint_gt(locset_generation(ls), g);
	ck_assert_int_eq(del("192.0.2.1", true), -ENOENT);
	ck_assert_int_eq(del("192.0.2.1", false), -ENOENT);
	/* a learnt one goes on RTM_DELADDR, also by hipconf del */
	ck_assert_int_eq(add("192.0.2.2", 5, false), 0);
	ck_assert_int_eq(add("192.0.2.3", 5, false), 0);
	ck_assert_int_eq(del("192.0.2.2", false), 0);
	ck_assert_int_eq(del("192.0.2.3", true), 0);
	ck_assert_str_eq(list(), "");
}
END_TEST

START_TEST(test_link_down)
{
	struct hip_local_locator e[8];
	uint64_t g;

	ck_assert_int_eq(add("192.0.2.1", 2, false), 0);
	ck_assert_int_eq(add("fd00::1", 2, false), 0);
	ck_assert_int_eq(add("198.51.100.1", 3, false), 0);
	ck_assert_int_eq(add("203.0.113.1", 2, true), 0);
	g = locset_generation(ls);
	ck_assert_int_eq(locset_del_ifindex(ls, 9), 0);
	ck_assert_int_eq(locset_del_ifindex(ls, 0), 0);
	ck_assert_uint_eq(locset_generation(ls), g);
	ck_assert_int_eq(locset_del_ifindex(ls, 2), 2);
	ck_assert_uint_gt(locset_generation(ls), g);
	ck_assert_str_eq(list(), "203.0.113.1 198.51.100.1");
	ck_assert_uint_eq(locset_entries(ls, e, 8), 2);
	ck_assert_int_eq(e[0].ifindex, 3);       /* arrival order */
	ck_assert_int_eq(e[1].ifindex, 0);       /* manual: kept, detached */
	ck_assert_int_eq(locset_del_ifindex(ls, 2), 0);
}
END_TEST

START_TEST(test_hidden)
{
	struct hip_local_locator e[4];
	struct hip_addr h[4];
	uint64_t g;

	ck_assert_int_eq(add("192.0.2.1", 2, false), 0);
	ck_assert_int_eq(add("198.51.100.1", 2, false), 0);
	g = locset_generation(ls);
	/* hiding an absent address changes nothing announceable */
	ck_assert_int_eq(hide("203.0.113.1", true), 0);
	ck_assert_int_eq(hide("203.0.113.1", true), -EEXIST);
	ck_assert_uint_eq(locset_generation(ls), g);
	ck_assert_uint_eq(locset_hidden_list(ls, h, 4), 1);
	/* ... and it stays hidden when it appears */
	ck_assert_int_eq(add("203.0.113.1", 3, false), 0);
	ck_assert_uint_eq(locset_generation(ls), g);
	ck_assert(!has("203.0.113.1"));
	ck_assert_str_eq(list(), "192.0.2.1 198.51.100.1");
	ck_assert_uint_eq(locset_entries(ls, e, 4), 3);
	ck_assert(e[2].hidden);
	/* hiding the preferred one: the next takes over */
	ck_assert_int_eq(hide("192.0.2.1", true), 0);
	ck_assert_uint_gt(locset_generation(ls), g);
	ck_assert_str_eq(preferred(AF_INET), "198.51.100.1");
	ck_assert_str_eq(list(), "198.51.100.1");
	/* a hidden address going away is not a change either */
	g = locset_generation(ls);
	ck_assert_int_eq(del("203.0.113.1", false), 0);
	ck_assert_uint_eq(locset_generation(ls), g);
	ck_assert_uint_eq(locset_hidden_list(ls, h, 4), 2);
	/* unhide */
	ck_assert_int_eq(hide("192.0.2.1", false), 0);
	ck_assert_uint_gt(locset_generation(ls), g);
	ck_assert_str_eq(preferred(AF_INET), "192.0.2.1");
	ck_assert_int_eq(hide("192.0.2.1", false), -ENOENT);
	ck_assert_int_eq(hide("203.0.113.1", false), 0);
	ck_assert_uint_eq(locset_hidden_list(ls, h, 4), 0);
	ck_assert_int_eq(add("203.0.113.1", 3, false), 0);
	ck_assert(has("203.0.113.1"));
}
END_TEST

START_TEST(test_full_and_generation)
{
	char s[32];
	uint64_t g = locset_generation(ls);
	int i;

	for (i = 0; i < HIP_LOCSET_MAX; i++) {
		snprintf(s, sizeof(s), "10.0.%d.1", i);
		ck_assert_int_eq(add(s, 2, false), 0);
		ck_assert_uint_gt(locset_generation(ls), g);
		g = locset_generation(ls);
	}
	ck_assert_int_eq(add("10.1.0.1", 2, false), -ENOSPC);
	ck_assert_int_eq(add("10.1.0.1", 0, true), -ENOSPC);
	ck_assert_int_eq(add("10.0.3.1", 2, false), -EEXIST);
	ck_assert_uint_eq(locset_generation(ls), g);
	ck_assert_int_eq(del("10.0.3.1", false), 0);
	ck_assert_int_eq(add("10.1.0.1", 2, false), 0);
	ck_assert_str_eq(preferred(AF_INET), "10.0.0.1");
	for (i = 0; i < HIP_LOCSET_MAX; i++) {
		snprintf(s, sizeof(s), "fd00::%x", i + 1);
		ck_assert_int_eq(hide(s, true), 0);
	}
	ck_assert_int_eq(hide("fd00::1000", true), -ENOSPC);
}
END_TEST

static Suite *locset_suite(void)
{
	Suite *s = suite_create("locset");
	TCase *tc = tcase_create("locset");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_never_locators);
	tcase_add_test(tc, test_order_and_preferred);
	tcase_add_test(tc, test_merge_manual_and_kernel);
	tcase_add_test(tc, test_link_down);
	tcase_add_test(tc, test_hidden);
	tcase_add_test(tc, test_full_and_generation);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(locset_suite)
