/*
 * check_defroute.c - the default routes from rtnetlink (hipd/net/defroute.c):
 * which messages count (main table, unicast, prefix 0), the attributes
 * read, malformed ones refused; the active route is the lowest metric, a
 * replace drops the route it replaced, a delete falls back to the next;
 * a change is reported once, a dump that lists the same routes is none.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "net/defroute.h"
#include "unit.h"

struct msg {
	uint8_t b[256];
	size_t len;
};

static void msg_start(struct msg *m, uint8_t family, uint8_t dst_len, uint8_t table, uint8_t type)
{
	struct rtmsg rtm = { .rtm_family = family, .rtm_dst_len = dst_len, .rtm_table = table,
			     .rtm_type = type };

	memset(m, 0, sizeof(*m));
	memcpy(m->b, &rtm, sizeof(rtm));
	m->len = NLMSG_ALIGN(sizeof(rtm));
}

static void msg_attr(struct msg *m, uint16_t type, const void *v, size_t vlen)
{
	struct rtattr ra = { .rta_len = (unsigned short)RTA_LENGTH(vlen), .rta_type = type };

	ck_assert_uint_le(m->len + RTA_SPACE(vlen), sizeof(m->b));
	memcpy(m->b + m->len, &ra, sizeof(ra));
	memcpy(m->b + m->len + RTA_LENGTH(0), v, vlen);
	m->len += RTA_SPACE(vlen);
}

static void msg_u32(struct msg *m, uint16_t type, uint32_t v)
{
	msg_attr(m, type, &v, sizeof(v));
}

/* a default IPv4 route of the main table via GW on OIF with METRIC */
static struct defroute_entry route4(const char *gw, int oif, uint32_t metric)
{
	struct defroute_entry e;
	struct in_addr a;
	struct msg m;

	msg_start(&m, AF_INET, 0, RT_TABLE_MAIN, RTN_UNICAST);
	ck_assert_int_eq(inet_pton(AF_INET, gw, &a), 1);
	msg_attr(&m, RTA_GATEWAY, &a, sizeof(a));
	msg_u32(&m, RTA_OIF, (uint32_t)oif);
	msg_u32(&m, RTA_PRIORITY, metric);
	ck_assert_int_eq(defroute_parse(m.b, m.len, &e), 1);
	return e;
}

static int active_oif(struct defroute *dr, int family, bool *changed)
{
	struct defroute_entry e;
	bool have;

	*changed = defroute_take_changed(dr, family, &e, &have);
	return have ? e.oif : -1;
}

START_TEST(test_parse)
{
	struct defroute_entry e;
	struct in_addr gw, src;
	struct in6_addr gw6;
	struct msg m;
	char s[INET6_ADDRSTRLEN];

	msg_start(&m, AF_INET, 0, RT_TABLE_MAIN, RTN_UNICAST);
	inet_pton(AF_INET, "10.255.13.2", &gw);
	inet_pton(AF_INET, "10.255.13.1", &src);
	msg_attr(&m, RTA_GATEWAY, &gw, sizeof(gw));
	msg_u32(&m, RTA_OIF, 7);
	msg_attr(&m, RTA_PREFSRC, &src, sizeof(src));
	ck_assert_int_eq(defroute_parse(m.b, m.len, &e), 1);
	ck_assert_int_eq(e.family, AF_INET);
	ck_assert_int_eq(e.oif, 7);
	ck_assert_uint_eq(e.metric, 0);
	ck_assert_str_eq(hip_addr_to_str(&e.gw, s, sizeof(s)), "10.255.13.2");
	ck_assert(e.has_prefsrc);
	ck_assert_str_eq(hip_addr_to_str(&e.prefsrc, s, sizeof(s)), "10.255.13.1");

	/* IPv6, the table given as an attribute (tables above 255) */
	msg_start(&m, AF_INET6, 0, RT_TABLE_UNSPEC, RTN_UNICAST);
	inet_pton(AF_INET6, "fe80::1", &gw6);
	msg_attr(&m, RTA_GATEWAY, &gw6, sizeof(gw6));
	msg_u32(&m, RTA_TABLE, RT_TABLE_MAIN);
	msg_u32(&m, RTA_PRIORITY, 1024);
	ck_assert_int_eq(defroute_parse(m.b, m.len, &e), 1);
	ck_assert_int_eq(e.family, AF_INET6);
	ck_assert_uint_eq(e.metric, 1024);
	ck_assert(!e.has_prefsrc);
	msg_start(&m, AF_INET6, 0, RT_TABLE_UNSPEC, RTN_UNICAST);
	msg_u32(&m, RTA_TABLE, 1000);
	ck_assert_int_eq(defroute_parse(m.b, m.len, &e), 0);
}
END_TEST

START_TEST(test_parse_ignored_and_bad)
{
	struct defroute_entry e;
	struct in_addr gw;
	struct msg m;

	msg_start(&m, AF_INET, 24, RT_TABLE_MAIN, RTN_UNICAST);     /* not a default route */
	ck_assert_int_eq(defroute_parse(m.b, m.len, &e), 0);
	msg_start(&m, AF_INET, 0, RT_TABLE_LOCAL, RTN_UNICAST);     /* another table */
	ck_assert_int_eq(defroute_parse(m.b, m.len, &e), 0);
	msg_start(&m, AF_INET, 0, RT_TABLE_MAIN, RTN_UNREACHABLE);  /* not unicast */
	ck_assert_int_eq(defroute_parse(m.b, m.len, &e), 0);
	msg_start(&m, AF_BRIDGE, 0, RT_TABLE_MAIN, RTN_UNICAST);
	ck_assert_int_eq(defroute_parse(m.b, m.len, &e), 0);
	/* too short for the header */
	ck_assert_int_eq(defroute_parse(m.b, sizeof(struct rtmsg) - 1, &e), -EINVAL);
	/* an IPv6-sized gateway in an IPv4 route */
	msg_start(&m, AF_INET, 0, RT_TABLE_MAIN, RTN_UNICAST);
	msg_attr(&m, RTA_GATEWAY, (uint8_t[16]){ 0 }, 16);
	ck_assert_int_eq(defroute_parse(m.b, m.len, &e), -EINVAL);
	/* an OIF of two bytes */
	msg_start(&m, AF_INET, 0, RT_TABLE_MAIN, RTN_UNICAST);
	msg_attr(&m, RTA_OIF, (uint8_t[2]){ 1, 0 }, 2);
	ck_assert_int_eq(defroute_parse(m.b, m.len, &e), -EINVAL);
	/* an attribute longer than the message */
	msg_start(&m, AF_INET, 0, RT_TABLE_MAIN, RTN_UNICAST);
	inet_pton(AF_INET, "192.0.2.1", &gw);
	msg_attr(&m, RTA_GATEWAY, &gw, sizeof(gw));
	ck_assert_int_eq(defroute_parse(m.b, m.len - 1, &e), -EINVAL);
}
END_TEST

START_TEST(test_active_and_changes)
{
	struct defroute dr;
	struct defroute_entry nb = route4("10.255.11.2", 3, 0);
	struct defroute_entry nd = route4("10.255.13.2", 5, 0);
	struct defroute_entry backup = route4("10.255.13.2", 5, 100);
	bool changed;

	memset(&dr, 0, sizeof(dr));
	defroute_dump_begin(&dr);
	defroute_dump_add(&dr, &nb);
	defroute_settle(&dr);
	ck_assert_int_eq(active_oif(&dr, AF_INET, &changed), 3);
	ck_assert(changed);                 /* the first one is news */
	ck_assert_int_eq(active_oif(&dr, AF_INET, &changed), 3);
	ck_assert(!changed);                /* told once */
	ck_assert_int_eq(active_oif(&dr, AF_INET6, &changed), -1);
	ck_assert(!changed);

	/* a backup route with a higher metric changes nothing */
	defroute_event(&dr, true, false, &backup);
	ck_assert_int_eq(active_oif(&dr, AF_INET, &changed), 3);
	ck_assert(!changed);
	/* `ip route replace default via nd`: the same metric, replaced */
	defroute_event(&dr, true, true, &nd);
	ck_assert_int_eq(active_oif(&dr, AF_INET, &changed), 5);
	ck_assert(changed);
	ck_assert_uint_eq(dr.n, 2);         /* nd and the backup; nb gone */
	/* the active route deleted: the backup takes over (same link) */
	defroute_event(&dr, false, false, &nd);
	ck_assert_int_eq(active_oif(&dr, AF_INET, &changed), 5);
	ck_assert(changed);                 /* its metric differs: another route */
	/* none left */
	defroute_event(&dr, false, false, &backup);
	ck_assert_int_eq(active_oif(&dr, AF_INET, &changed), -1);
	ck_assert(changed);
	/* a dump listing what we know is no change */
	defroute_event(&dr, true, false, &nb);
	(void)active_oif(&dr, AF_INET, &changed);
	defroute_dump_begin(&dr);
	defroute_dump_add(&dr, &nb);
	defroute_settle(&dr);
	ck_assert_int_eq(active_oif(&dr, AF_INET, &changed), 3);
	ck_assert(!changed);
}
END_TEST

START_TEST(test_table_bounded)
{
	struct defroute dr;
	uint32_t i;
	bool changed;

	memset(&dr, 0, sizeof(dr));
	for (i = 0; i < 3 * DEFROUTE_MAX; i++) {
		struct defroute_entry e = route4("192.0.2.1", (int)i + 1, 1000 - i);

		defroute_event(&dr, true, false, &e);
		ck_assert_uint_le(dr.n, DEFROUTE_MAX);
	}
	/* the newest (lowest metric) is kept and active */
	ck_assert_int_eq(active_oif(&dr, AF_INET, &changed), 3 * DEFROUTE_MAX);
}
END_TEST

static Suite *defroute_suite(void)
{
	Suite *s = suite_create("defroute");
	TCase *tc = tcase_create("defroute");

	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_parse_ignored_and_bad);
	tcase_add_test(tc, test_active_and_changes);
	tcase_add_test(tc, test_table_bounded);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(defroute_suite)
