/*
 * check_hosts_names.c - names and LSIs in the hosts file (D-19): the line
 * splitter shared with the NSS module (libhipcore/hosts_line.c) and hipd's
 * map (hipd/net/hosts.c): what is stored, errors with line numbers,
 * duplicates, the LSI range, old lines unchanged.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hosts_line.h"
#include "net/hosts.h"
#include "unit.h"

static struct hosts *h;
static char err[512];

static void setup(void)
{
	ck_assert_int_eq(hosts_create(&h), 0);
}

static void teardown(void)
{
	hosts_free(h);
	h = NULL;
}

static int load(const char *text)
{
	err[0] = '\0';
	return hosts_load_buf(h, "hosts", text, strlen(text), err, sizeof(err), NULL);
}

static const struct hosts_entry *entry(const char *hit)
{
	struct hip_hit x;

	ck_assert_int_eq(hip_hit_from_str(hit, &x), 0);
	return hosts_lookup(h, &x);
}

/* "name1 name2 | lsi" of an entry. */
static const char *names_of(const char *hit)
{
	static char out[600];
	const struct hosts_entry *e = entry(hit);
	const char *p;
	size_t i, len = 0;

	ck_assert_ptr_nonnull(e);
	out[0] = '\0';
	for (i = 0, p = e->names; i < e->n_names; i++, p += strlen(p) + 1)
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s", i ? " " : "", p);
	if (e->has_lsi) {
		char as[INET_ADDRSTRLEN];

		snprintf(out + len, sizeof(out) - len, " | %s",
			 inet_ntop(AF_INET, &e->lsi, as, sizeof(as)));
	}
	return out;
}

START_TEST(test_names_and_lsi_stored)
{
	ck_assert_int_eq(load("# old line, unchanged\n"
			      "2001:2a::1 192.0.2.1\n"
			      "2001:2a::2 name=tablet 192.0.2.2 lsi=198.18.0.2 # any order\n"
			      "2001:2a::3\t2001:db8::3 name=Printer.lan name=p3\n"
			      "2001:2a::4 192.0.2.4 lsi=198.19.255.254\n"), 0);
	ck_assert_uint_eq(hosts_count(h), 4);
	ck_assert_str_eq(names_of("2001:2a::1"), "");
	ck_assert_str_eq(names_of("2001:2a::2"), "tablet | 198.18.0.2");
	ck_assert_str_eq(names_of("2001:2a::3"), "Printer.lan p3");
	ck_assert_str_eq(names_of("2001:2a::4"), " | 198.19.255.254");
	ck_assert_uint_eq(entry("2001:2a::2")->n_loc, 1);
	ck_assert_uint_eq(entry("2001:2a::2")->line, 3);
	/* a reload replaces the names; runtime locators do not bring any */
	ck_assert_int_eq(load("2001:2a::2 192.0.2.2 name=slate\n"), 0);
	ck_assert_str_eq(names_of("2001:2a::2"), "slate");
	ck_assert_ptr_null(entry("2001:2a::3"));
}
END_TEST

static const struct {
	const char *text;
	const char *msg;
} bad[] = {
	{ "2001:2a::1 192.0.2.1\n2001:2a::2 192.0.2.2 name=-tablet\n",
	  "hosts:2: name '-tablet' has a label that starts or ends with '-'" },
	{ "2001:2a::1 192.0.2.1 name=tab_let\n",
	  "hosts:1: name 'tab_let' has a character other than letters, digits, '-' and '.'" },
	{ "2001:2a::1 192.0.2.1 name=a..b\n", "hosts:1: name 'a..b' has an empty label" },
	{ "2001:2a::1 192.0.2.1 name=\n", "hosts:1: name '' is empty" },
	{ "2001:2a::1 192.0.2.1 name=tablet.\n", "hosts:1: name 'tablet.' has an empty label" },
	{ "2001:2a::1 192.0.2.1 name=10.1.2.3\n",
	  "hosts:1: name '10.1.2.3' ends in an all-digit label (it would read as an address)" },
	{ "2001:2a::1 192.0.2.1 name=tablet.HIP\n",
	  "hosts:1: name 'tablet.HIP' ends in .hip (write it without: NAME.hip is implied)" },
	{ "2001:2a::1 192.0.2.1 name=a23456789012345678901234567890123456789012345678901"
	  "2345678901234\n",
	  "hosts:1: name 'a23456789012345678901234567890123456789012345678901234567890...' has a "
	  "label longer than 63 characters" },
	{ "2001:2a::1 192.0.2.1 name=a name=b name=c name=d name=e name=f name=g name=h name=i\n",
	  "hosts:1: more than 8 names for one HIT" },
	{ "2001:2a::1 192.0.2.1 name=tablet\n\n2001:2a::2 192.0.2.2 name=TABLET\n",
	  "hosts:3: name 'TABLET' is already used on line 1" },
	{ "2001:2a::1 192.0.2.1 name=x name=x\n", "hosts:1: name 'x' is listed twice" },
	{ "2001:2a::1 192.0.2.1 lsi=198.18.0.1\n2001:2a::2 192.0.2.2 lsi=198.18.0.1\n",
	  "hosts:2: LSI 198.18.0.1 is already used on line 1" },
	{ "2001:2a::1 192.0.2.1 lsi=1.0.0.1\n",
	  "hosts:1: LSI 1.0.0.1 is outside the LSI range 198.18.0.0/15" },
	{ "2001:2a::1 192.0.2.1 lsi=198.18.0.0\n",
	  "hosts:1: LSI 198.18.0.0 is the network or broadcast address of the LSI range "
	  "198.18.0.0/15" },
	{ "2001:2a::1 192.0.2.1 lsi=198.19.255.255\n",
	  "hosts:1: LSI 198.19.255.255 is the network or broadcast address of the LSI range "
	  "198.18.0.0/15" },
	{ "2001:2a::1 192.0.2.1 lsi=198.18.1\n",
	  "hosts:1: LSI '198.18.1' is not an IPv4 address (A.B.C.D)" },
	{ "2001:2a::1 192.0.2.1 lsi=2001:db8::1\n",
	  "hosts:1: LSI '2001:db8::1' is not an IPv4 address (A.B.C.D)" },
	{ "2001:2a::1 192.0.2.1 lsi=198.18.0.1 lsi=198.18.0.2\n",
	  "hosts:1: more than one LSI for one HIT" },
	{ "2001:2a::1 192.0.2.1 alias=tablet\n",
	  "hosts:1: unknown keyword in 'alias=tablet' (expected name= or lsi=)" },
	{ "2001:2a::1 name=tablet\n",
	  "hosts:1: HIT 2001:2a::1 has no locator (expected 'HIT IP [IP...]')" },
	{ "tablet 2001:2a::1 192.0.2.1\n",
	  "hosts:1: 'tablet' is not a HIT (expected an IPv6 address in 2001:20::/28)" },
};

/* A bad file: the exact message with its line, the map unchanged. */
START_TEST(test_errors)
{
	ck_assert_int_eq(load("2001:2c::9 192.0.2.9 name=keep\n"), 0);
	ck_assert_int_eq(load(bad[_i].text), -EINVAL);
	ck_assert_str_eq(err, bad[_i].msg);
	ck_assert_uint_eq(hosts_count(h), 1);
	ck_assert_str_eq(names_of("2001:2c::9"), "keep");
}
END_TEST

/* The longest name: 253 characters in labels of 63 at most. */
START_TEST(test_name_lengths)
{
	char name[300], line[400];

	memset(name, 'a', 253);
	name[63] = name[127] = name[191] = '.';
	name[253] = '\0';
	ck_assert_ptr_null(hip_hosts_name_problem(name));
	snprintf(line, sizeof(line), "2001:2a::1 192.0.2.1 name=%s\n", name);
	ck_assert_int_eq(load(line), 0);
	name[253] = 'a';
	name[254] = '\0';
	ck_assert_str_eq(hip_hosts_name_problem(name), "is longer than 253 characters");
	ck_assert_ptr_null(hip_hosts_name_problem("1tablet"));
	ck_assert_ptr_null(hip_hosts_name_problem("host.1a"));
	ck_assert_ptr_null(hip_hosts_name_problem("hipster"));
}
END_TEST

START_TEST(test_lsi_range)
{
	struct hip_lsi_range r;

	ck_assert_int_eq(hip_lsi_range_from_str("10.200.0.0/16", &r), 0);
	hosts_set_lsi_range(h, &r);
	ck_assert_int_eq(load("2001:2a::1 192.0.2.1 lsi=10.200.3.4\n"), 0);
	ck_assert_int_eq(load("2001:2a::1 192.0.2.1 lsi=198.18.0.1\n"), -EINVAL);
	ck_assert_str_eq(err, "hosts:1: LSI 198.18.0.1 is outside the LSI range 10.200.0.0/16");
	ck_assert_int_eq(hip_lsi_range_from_str("10.200.0.1/16", &r), -EINVAL);
	ck_assert_int_eq(hip_lsi_range_from_str("10.200.0.0/33", &r), -EINVAL);
	ck_assert_int_eq(hip_lsi_range_from_str("10.200.0.0", &r), -EINVAL);
	ck_assert_int_eq(hip_lsi_range_from_str("10.200.0.0/", &r), -EINVAL);
	ck_assert_int_eq(hip_lsi_range_from_str("/8", &r), -EINVAL);
}
END_TEST

START_TEST(test_name_matches)
{
	ck_assert(hip_hosts_name_matches("tablet", "tablet"));
	ck_assert(hip_hosts_name_matches("tablet", "TABLET.Hip"));
	ck_assert(hip_hosts_name_matches("Tablet.lan", "tablet.lan.hip"));
	ck_assert(!hip_hosts_name_matches("tablet", "tablet.lan"));
	ck_assert(!hip_hosts_name_matches("tablet", "tablets"));
	ck_assert(!hip_hosts_name_matches("tablet", "tabletxhip"));
	ck_assert(!hip_hosts_name_matches("tablet", "table"));
}
END_TEST

static Suite *hosts_names_suite(void)
{
	Suite *s = suite_create("hosts_names");
	TCase *tc = tcase_create("hosts_names");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_names_and_lsi_stored);
	tcase_add_loop_test(tc, test_errors, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, test_name_lengths);
	tcase_add_test(tc, test_lsi_range);
	tcase_add_test(tc, test_name_matches);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(hosts_names_suite)
