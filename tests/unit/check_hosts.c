/*
 * check_hosts.c - the HIT -> locator map: hosts file syntax and errors,
 * runtime add/del, reload keeping runtime entries, hash table behaviour
 * with many entries.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static struct hip_hit hit_of(const char *s)
{
	struct hip_hit hit;

	ck_assert_int_eq(hip_hit_from_str(s, &hit), 0);
	return hit;
}

static struct hip_addr addr_of(const char *s)
{
	struct hip_addr a;

	ck_assert_int_eq(hip_addr_from_str(s, &a), 0);
	return a;
}

static int load(const char *text, size_t *n)
{
	err[0] = '\0';
	return hosts_load_buf(h, "hosts", text, strlen(text), err, sizeof(err), n);
}

/* The locators of hit as "a b c" with origins: "a(f) b(r) c(fr)". */
static const char *locators(const char *hit)
{
	static char out[512];
	struct hip_hit x = hit_of(hit);
	const struct hosts_entry *e = hosts_lookup(h, &x);
	size_t i, len = 0;

	out[0] = '\0';
	if (!e)
		return "(none)";
	ck_assert_uint_ge(e->n_loc, 1);
	for (i = 0; i < e->n_loc; i++) {
		char as[INET6_ADDRSTRLEN];

		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s(%s%s)", i ? " " : "",
					hip_addr_to_str(&e->loc[i], as, sizeof(as)),
					e->origin[i] & HOSTS_ORIGIN_FILE ? "f" : "",
					e->origin[i] & HOSTS_ORIGIN_RUNTIME ? "r" : "");
	}
	return out;
}

START_TEST(test_parse_file)
{
	struct hip_hit x;
	size_t n = 99;

	ck_assert_int_eq(load("# comment line\n"
			      "\n"
			      "2001:2a::1 192.0.2.1\n"
			      "  2001:2A:0::2\t2001:db8::2   198.51.100.2 # both families\n"
			      "2001:2b:1:2:3:4:5:6 ::ffff:203.0.113.9#no space needed\n"
			      "\t\n", &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(hosts_count(h), 3);
	ck_assert_str_eq(locators("2001:2a::1"), "192.0.2.1(f)");
	ck_assert_str_eq(locators("2001:2a::2"), "2001:db8::2(f) 198.51.100.2(f)");
	ck_assert_str_eq(locators("2001:2b:1:2:3:4:5:6"), "203.0.113.9(f)");
	ck_assert_str_eq(locators("2001:2a::3"), "(none)");
	x = hit_of("2001:2a::2");
	ck_assert_uint_eq(hosts_lookup(h, &x)->line, 4);
	/* empty text: no entries */
	ck_assert_int_eq(load("", &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_uint_eq(hosts_count(h), 0);
}
END_TEST

static const struct {
	const char *text;
	const char *msg;
} bad[] = {
	{ "2001:2a::1 192.0.2.1\nfoo 192.0.2.1\n",
	  "hosts:2: 'foo' is not a HIT (expected an IPv6 address in 2001:20::/28)" },
	{ "192.0.2.1 192.0.2.2\n",
	  "hosts:1: '192.0.2.1' is not a HIT (expected an IPv6 address in 2001:20::/28)" },
	{ "2001:db8::1 192.0.2.1\n",
	  "hosts:1: '2001:db8::1' is not a HIT: not in the ORCHIDv2 prefix 2001:20::/28" },
	{ "2001:2a::1 192.0.2.300\n", "hosts:1: '192.0.2.300' is not an IPv4 or IPv6 address" },
	{ "2001:2a::1 192.0.2.1 fe80::1%eth0\n",
	  "hosts:1: 'fe80::1%eth0' is not an IPv4 or IPv6 address" },
	{ "# x\n2001:2a::1 192.0.2.1\n\n2001:2A:0::1 192.0.2.2\n",
	  "hosts:4: HIT 2001:2a::1 is already listed on line 2" },
	{ "2001:2a::1\n", "hosts:1: HIT 2001:2a::1 has no locator (expected 'HIT IP [IP...]')" },
	{ "2001:2a::1   # only a comment\n",
	  "hosts:1: HIT 2001:2a::1 has no locator (expected 'HIT IP [IP...]')" },
	{ "2001:2a::1 10.0.0.1 10.0.0.2 10.0.0.3 10.0.0.4 10.0.0.5 10.0.0.6 10.0.0.7 10.0.0.8 "
	  "10.0.0.9\n", "hosts:1: more than 8 locators for one HIT" },
	{ "2001:2a::1 10.0.0.1 10.0.0.1\n", "hosts:1: locator 10.0.0.1 is listed twice" },
	{ "2001:2a::1 2001:2b::1\n",
	  "hosts:1: locator 2001:2b::1 is a HIT (2001:20::/28), not a locator" },
	{ "2001:2a::1 224.0.0.1\n", "hosts:1: locator 224.0.0.1 is a multicast address" },
	{ "2001:2a::1 ff02::1\n", "hosts:1: locator ff02::1 is a multicast address" },
	{ "2001:2a::1 ::\n", "hosts:1: locator :: is the unspecified address" },
	{ "2001:2a::1 0.0.0.0\n", "hosts:1: locator 0.0.0.0 is the unspecified address" },
	{ "2001:2a::1 255.255.255.255\n",
	  "hosts:1: locator 255.255.255.255 is the broadcast address" },
	{ "2001:2a::1 192.0.2.1\n"
	  "2001:2a::2 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n",
	  "hosts:2: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' is not an "
	  "IPv4 or IPv6 address" },
};

/* A bad file: exact message, and the map keeps what it had. */
START_TEST(test_parse_errors)
{
	struct hip_hit x = hit_of("2001:2c::9");
	struct hip_addr a = addr_of("192.0.2.99");

	ck_assert_int_eq(load("2001:2c::9 192.0.2.9\n", NULL), 0);
	ck_assert_int_eq(hosts_add(h, &x, &a), 0);
	ck_assert_int_eq(load(bad[_i].text, NULL), -EINVAL);
	ck_assert_str_eq(err, bad[_i].msg);
	ck_assert_uint_eq(hosts_count(h), 1);
	ck_assert_str_eq(locators("2001:2c::9"), "192.0.2.9(f) 192.0.2.99(r)");
}
END_TEST

START_TEST(test_line_limits)
{
	char text[1100];

	ck_assert_int_eq(hosts_load_buf(h, "hosts", "2001:2a::1 10.0.0.1\n\0", 21, err,
					sizeof(err), NULL), -EINVAL);
	ck_assert_str_eq(err, "hosts:2: NUL byte in line");
	memset(text, ' ', sizeof(text));
	ck_assert_int_eq(hosts_load_buf(h, "hosts", text, sizeof(text), err, sizeof(err), NULL),
			 -EINVAL);
	ck_assert_str_eq(err, "hosts:1: line longer than 1024 characters");
}
END_TEST

START_TEST(test_runtime_add_del)
{
	struct hip_hit a = hit_of("2001:2a::1"), b = hit_of("2001:2a::2");
	struct hip_addr l[9], bad_loc = addr_of("ff02::1");
	char s[32];
	int i;

	for (i = 0; i < 9; i++) {
		snprintf(s, sizeof(s), "10.0.0.%d", i + 1);
		l[i] = addr_of(s);
	}
	ck_assert_int_eq(hosts_add(h, &a, &l[0]), 0);
	ck_assert_int_eq(hosts_add(h, &a, &l[0]), -EEXIST);
	ck_assert_int_eq(hosts_add(h, &a, &bad_loc), -EINVAL);
	for (i = 1; i < 8; i++)
		ck_assert_int_eq(hosts_add(h, &a, &l[i]), 0);
	ck_assert_int_eq(hosts_add(h, &a, &l[8]), -ENOSPC);
	ck_assert_uint_eq(hosts_lookup(h, &a)->n_loc, 8);
	ck_assert_int_eq(hosts_add(h, &b, &l[8]), 0);
	ck_assert_uint_eq(hosts_count(h), 2);
	/* delete one locator: the order of the others stays */
	ck_assert_int_eq(hosts_del(h, &a, &l[1]), 0);
	ck_assert_int_eq(hosts_del(h, &a, &l[1]), -ENOENT);
	ck_assert_str_eq(locators("2001:2a::1"), "10.0.0.1(r) 10.0.0.3(r) 10.0.0.4(r) "
			 "10.0.0.5(r) 10.0.0.6(r) 10.0.0.7(r) 10.0.0.8(r)");
	/* the last locator takes the HIT with it */
	ck_assert_int_eq(hosts_del(h, &b, &l[8]), 0);
	ck_assert_ptr_null(hosts_lookup(h, &b));
	ck_assert_int_eq(hosts_del(h, &b, NULL), -ENOENT);
	/* all of a HIT at once */
	ck_assert_int_eq(hosts_del(h, &a, NULL), 0);
	ck_assert_uint_eq(hosts_count(h), 0);
}
END_TEST

/* A reload replaces what came from the file and keeps runtime mappings. */
START_TEST(test_reload_keeps_runtime)
{
	struct hip_hit a = hit_of("2001:2a::a"), b = hit_of("2001:2a::b");
	struct hip_addr both = addr_of("192.0.2.2"), y = addr_of("2001:db8::9");
	struct hip_addr z = addr_of("192.0.2.26");
	struct hip_hit c = hit_of("2001:2a::c"), zero = { 0 };
	size_t n;

	ck_assert_int_eq(load("2001:2a::a 192.0.2.1 192.0.2.2\n", &n), 0);
	ck_assert_int_eq(hosts_add(h, &a, &y), 0);
	ck_assert_int_eq(hosts_add(h, &a, &both), 0);   /* also in the file */
	ck_assert_int_eq(hosts_add(h, &b, &z), 0);
	ck_assert_str_eq(locators("2001:2a::a"), "192.0.2.1(f) 192.0.2.2(fr) 2001:db8::9(r)");
	ck_assert_int_eq(load("2001:2a::c 198.51.100.3\n2001:2a::b 198.51.100.1\n", &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(hosts_count(h), 3);
	ck_assert_str_eq(locators("2001:2a::a"), "192.0.2.2(r) 2001:db8::9(r)");
	/* the file's locators come first */
	ck_assert_str_eq(locators("2001:2a::b"), "198.51.100.1(f) 192.0.2.26(r)");
	ck_assert_str_eq(locators("2001:2a::c"), "198.51.100.3(f)");
	/* the HIT has only file locators: deleting it lasts until a reload */
	ck_assert_int_eq(hosts_del(h, &zero, NULL), -ENOENT);
	ck_assert_int_eq(hosts_del(h, &c, NULL), 0);
	ck_assert_str_eq(locators("2001:2a::c"), "(none)");
	ck_assert_int_eq(load("2001:2a::c 198.51.100.3\n", &n), 0);
	ck_assert_str_eq(locators("2001:2a::c"), "198.51.100.3(f)");
	ck_assert_str_eq(locators("2001:2a::b"), "192.0.2.26(r)");
}
END_TEST

/* A file full for a HIT wins over its runtime locators on reload. */
START_TEST(test_reload_overflow)
{
	struct hip_hit a = hit_of("2001:2a::1");
	struct hip_addr r = addr_of("10.9.9.9");

	ck_assert_int_eq(hosts_add(h, &a, &r), 0);
	ck_assert_int_eq(load("2001:2a::1 10.0.0.1 10.0.0.2 10.0.0.3 10.0.0.4 10.0.0.5 10.0.0.6 "
			      "10.0.0.7 10.0.0.8\n", NULL), 0);
	ck_assert_uint_eq(hosts_lookup(h, &a)->n_loc, 8);
	ck_assert_int_eq(hosts_del(h, &a, &r), -ENOENT);
}
END_TEST

/* Deterministic pseudo-random ORCHIDs. */
static struct hip_hit random_hit(uint64_t *state)
{
	struct hip_hit hit;
	size_t i;

	for (i = 0; i < sizeof(hit.b); i++) {
		*state ^= *state << 13;
		*state ^= *state >> 7;
		*state ^= *state << 17;
		hit.b[i] = (uint8_t)*state;
	}
	hit.b[0] = 0x20;
	hit.b[1] = 0x01;
	hit.b[2] = 0x00;
	hit.b[3] = (uint8_t)(0x20 | (hit.b[3] & 0x0f));
	return hit;
}

struct walk {
	size_t n;
	uint64_t sum;
};

static int walk_cb(const struct hosts_entry *e, void *arg)
{
	struct walk *w = arg;

	w->n++;
	w->sum += e->hit.b[15];
	return 0;
}

static int stop_cb(const struct hosts_entry *e, void *arg)
{
	(*(int *)arg)++;
	return 1;
}

/* Growth and backward-shift deletion keep every remaining HIT findable. */
START_TEST(test_many_entries)
{
	static struct hip_hit hits[10000];
	struct hip_addr loc = addr_of("192.0.2.1");
	uint64_t st = 0x9e3779b97f4a7c15ull, want_sum = 0;
	struct walk w = { 0 };
	int i, stops = 0;

	for (i = 0; i < 10000; i++) {
		hits[i] = random_hit(&st);
		ck_assert_int_eq(hosts_add(h, &hits[i], &loc), 0);
	}
	ck_assert_uint_eq(hosts_count(h), 10000);
	for (i = 0; i < 10000; i += 2)
		ck_assert_int_eq(hosts_del(h, &hits[i], NULL), 0);
	ck_assert_uint_eq(hosts_count(h), 5000);
	for (i = 0; i < 10000; i++) {
		const struct hosts_entry *e = hosts_lookup(h, &hits[i]);

		if (i % 2) {
			ck_assert_ptr_nonnull(e);
			ck_assert(memcmp(e->hit.b, hits[i].b, 16) == 0);
			want_sum += hits[i].b[15];
		} else {
			ck_assert_ptr_null(e);
		}
	}
	hosts_foreach(h, walk_cb, &w);
	ck_assert_uint_eq(w.n, 5000);
	ck_assert_uint_eq(w.sum, want_sum);
	hosts_foreach(h, stop_cb, &stops);
	ck_assert_int_eq(stops, 1);
}
END_TEST

START_TEST(test_load_file)
{
	char path[] = "/tmp/check_hosts.XXXXXX";
	struct hip_hit r = hit_of("2001:2a::77");
	struct hip_addr l = addr_of("192.0.2.77");
	size_t n = 0;
	FILE *f;
	int fd;

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fputs("2001:2a::1 192.0.2.1\n2001:2a::2 bogus\n", f);
	fclose(f);
	ck_assert_int_eq(hosts_add(h, &r, &l), 0);
	ck_assert_int_eq(hosts_load_file(h, path, err, sizeof(err), &n), -EINVAL);
	ck_assert(strncmp(err, path, strlen(path)) == 0);
	ck_assert_str_eq(err + strlen(path), ":2: 'bogus' is not an IPv4 or IPv6 address");
	f = fopen(path, "w");
	fputs("2001:2a::1 192.0.2.1\n", f);
	fclose(f);
	ck_assert_int_eq(hosts_load_file(h, path, err, sizeof(err), &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(hosts_count(h), 2);
	/* the file goes away: its entries too, the runtime one stays */
	unlink(path);
	ck_assert_int_eq(hosts_load_file(h, path, err, sizeof(err), &n), -ENOENT);
	ck_assert_uint_eq(hosts_count(h), 1);
	ck_assert_str_eq(locators("2001:2a::77"), "192.0.2.77(r)");
}
END_TEST

/* conf/hosts.example: its example lines, uncommented, are valid. */
START_TEST(test_example_file)
{
	char line[512], text[4096];
	size_t len = 0, n = 0, want = 0;
	FILE *f = fopen(unit_srcpath("conf/hosts.example"), "r");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s",
					strncmp(line, "# 2001:", 7) == 0 ? line + 2 : line);
		want += strncmp(line, "# 2001:", 7) == 0;
	}
	fclose(f);
	ck_assert_uint_ge(want, 2);
	ck_assert_int_eq(load(text, &n), 0);
	ck_assert_uint_eq(n, want);
}
END_TEST

START_TEST(test_locator_problem)
{
	static const struct { const char *addr; const char *why; } cases[] = {
		{ "192.0.2.1", NULL }, { "2001:db8::1", NULL }, { "fe80::1", NULL },
		{ "::1", NULL }, { "127.0.0.1", NULL }, { "2001:30::1", NULL },
		{ "2001:10::1", NULL },
		{ "0.0.0.0", "the unspecified address" }, { "::", "the unspecified address" },
		{ "239.1.1.1", "a multicast address" }, { "ff05::2", "a multicast address" },
		{ "255.255.255.255", "the broadcast address" },
		{ "2001:20::1", "a HIT (2001:20::/28), not a locator" },
		{ "2001:2f:ffff::1", "a HIT (2001:20::/28), not a locator" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct hip_addr a = addr_of(cases[i].addr);
		const char *why = hip_addr_locator_problem(&a);

		if (!cases[i].why)
			ck_assert_msg(why == NULL, "%s: %s", cases[i].addr, why);
		else
			ck_assert_str_eq(why, cases[i].why);
	}
}
END_TEST

static Suite *hosts_suite(void)
{
	Suite *s = suite_create("hosts");
	TCase *tc = tcase_create("hosts");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_parse_file);
	tcase_add_loop_test(tc, test_parse_errors, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, test_line_limits);
	tcase_add_test(tc, test_runtime_add_del);
	tcase_add_test(tc, test_reload_keeps_runtime);
	tcase_add_test(tc, test_reload_overflow);
	tcase_add_test(tc, test_many_entries);
	tcase_add_test(tc, test_load_file);
	tcase_add_test(tc, test_example_file);
	tcase_add_test(tc, test_locator_problem);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(hosts_suite)
