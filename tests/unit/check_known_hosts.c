/*
 * check_known_hosts.c - the opportunistic pins (hipd/net/known_hosts.c):
 * the file syntax and every error with its line, all-or-nothing loads,
 * runtime add/del/find with many pins, the KNOWN_HOSTS_MAX limit, atomic
 * save and reload.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/known_hosts.h"
#include "unit.h"

static struct known_hosts *k;
static char err[512];

static void setup(void)
{
	ck_assert_int_eq(known_hosts_create(&k), 0);
}

static void teardown(void)
{
	known_hosts_free(k);
	k = NULL;
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

static int load(const char *text)
{
	err[0] = '\0';
	return known_hosts_load_buf(k, "known_hosts", text, strlen(text), err, sizeof(err));
}

/* The HIT pinned to addr as text, or "(none)". */
static const char *pinned(const char *addr)
{
	static char hs[HIP_HIT_STR_LEN];
	struct hip_addr a = addr_of(addr);
	const struct known_host *p = known_hosts_find(k, &a);

	return p ? hip_hit_to_str(&p->hit, hs, sizeof(hs)) : "(none)";
}

/* The address of the i-th pin as text. */
static const char *addr_at(size_t i)
{
	static char as[INET6_ADDRSTRLEN];
	const struct known_host *p = known_hosts_at(k, i);

	ck_assert_ptr_nonnull(p);
	return hip_addr_to_str(&p->addr, as, sizeof(as));
}

START_TEST(test_parse_file)
{
	const struct known_host *p;
	struct hip_addr a;

	ck_assert_int_eq(load("# pins\n"
			      "\n"
			      "192.0.2.7 2001:2a::1 since=1795800600  # 2026-11-27T17:30:00Z\n"
			      "   \t  \n"
			      "2001:db8::10\t2001:2b::2\r\n"
			      "::ffff:198.51.100.1 2001:2c::3 since=0\n"
			      "  2001:db8::20   2001:2a:0:0:0:0:0:4   since=7#no blank before\n"
			      "fe80::1 2001:2a::5"), 0);
	ck_assert_str_eq(err, "");
	ck_assert_uint_eq(known_hosts_count(k), 5);
	/* in file order, IPv4 as dotted quads */
	ck_assert_str_eq(addr_at(0), "192.0.2.7");
	ck_assert_str_eq(addr_at(1), "2001:db8::10");
	ck_assert_str_eq(addr_at(2), "198.51.100.1");
	ck_assert_str_eq(addr_at(3), "2001:db8::20");
	ck_assert_str_eq(addr_at(4), "fe80::1");
	ck_assert_ptr_null(known_hosts_at(k, 5));
	ck_assert_str_eq(pinned("192.0.2.7"), "2001:2a::1");
	ck_assert_str_eq(pinned("::ffff:192.0.2.7"), "2001:2a::1");
	ck_assert_str_eq(pinned("2001:db8::10"), "2001:2b::2");
	ck_assert_str_eq(pinned("198.51.100.1"), "2001:2c::3");
	ck_assert_str_eq(pinned("2001:db8::20"), "2001:2a::4");
	ck_assert_str_eq(pinned("fe80::1"), "2001:2a::5");
	ck_assert_str_eq(pinned("192.0.2.8"), "(none)");
	a = addr_of("192.0.2.7");
	p = known_hosts_find(k, &a);
	ck_assert_uint_eq(p->since, 1795800600);
	ck_assert_uint_eq(p->line, 3);
	a = addr_of("2001:db8::10");
	p = known_hosts_find(k, &a);
	ck_assert_uint_eq(p->since, 0);
	ck_assert_uint_eq(p->line, 5);
	a = addr_of("2001:db8::20");
	ck_assert_uint_eq(known_hosts_find(k, &a)->since, 7);

	/* a reload replaces everything; an empty text empties the table */
	ck_assert_int_eq(load("192.0.2.9 2001:2a::9\n"), 0);
	ck_assert_uint_eq(known_hosts_count(k), 1);
	ck_assert_str_eq(pinned("192.0.2.7"), "(none)");
	ck_assert_int_eq(load("# nothing\n"), 0);
	ck_assert_uint_eq(known_hosts_count(k), 0);
}
END_TEST

static const struct {
	const char *text, *msg;
} bad[] = {
	{ "x 2001:2a::1\n", "known_hosts:1: 'x' is not an IP address" },
	{ "# c\n\nfe80::1%eth0 2001:2a::1\n",
	  "known_hosts:3: 'fe80::1%eth0' is not an IP address" },
	{ "192.0.2.7\n", "known_hosts:1: no HIT after '192.0.2.7' (expected 'ADDRESS HIT "
	  "[since=UNIXSECONDS]')" },
	{ "192.0.2.7 # 2001:2a::1\n", "known_hosts:1: no HIT after '192.0.2.7' (expected "
	  "'ADDRESS HIT [since=UNIXSECONDS]')" },
	{ "192.0.2.7 2001:2a::1\n192.0.2.8 2001:db8::1\n",
	  "known_hosts:2: '2001:db8::1' is not a HIT (not in 2001:20::/28)" },
	{ "192.0.2.7 tablet\n", "known_hosts:1: 'tablet' is not a HIT (not an IPv6 address)" },
	{ "192.0.2.7 198.18.0.1\n",
	  "known_hosts:1: '198.18.0.1' is not a HIT (not an IPv6 address)" },
	{ "192.0.2.7 2001:2a::1\n\n192.0.2.7 2001:2a::2\n",
	  "known_hosts:3: 192.0.2.7 is pinned twice (line 1)" },
	{ "2001:db8::1 2001:2a::1\n2001:DB8:0::1 2001:2a::1\n",
	  "known_hosts:2: 2001:db8::1 is pinned twice (line 1)" },
	{ "192.0.2.7 2001:2a::1\n::ffff:192.0.2.7 2001:2a::2\n",
	  "known_hosts:2: 192.0.2.7 is pinned twice (line 1)" },
	{ "0.0.0.0 2001:2a::1\n", "known_hosts:1: address '0.0.0.0' is the unspecified address" },
	{ ":: 2001:2a::1\n", "known_hosts:1: address '::' is the unspecified address" },
	{ "224.0.0.1 2001:2a::1\n", "known_hosts:1: address '224.0.0.1' is a multicast address" },
	{ "ff02::1 2001:2a::1\n", "known_hosts:1: address 'ff02::1' is a multicast address" },
	{ "255.255.255.255 2001:2a::1\n",
	  "known_hosts:1: address '255.255.255.255' is the broadcast address" },
	{ "2001:2a::7 2001:2a::1\n",
	  "known_hosts:1: address '2001:2a::7' is a HIT (2001:20::/28), not a locator" },
	{ "192.0.2.7 2001:2a::1 lsi=198.18.0.1\n", "known_hosts:1: unknown word 'lsi=198.18.0.1' "
	  "(expected 'ADDRESS HIT [since=UNIXSECONDS]')" },
	{ "192.0.2.7 2001:2a::1 192.0.2.8\n", "known_hosts:1: unknown word '192.0.2.8' (expected "
	  "'ADDRESS HIT [since=UNIXSECONDS]')" },
	{ "192.0.2.7 2001:2a::1 Since=5\n", "known_hosts:1: unknown word 'Since=5' (expected "
	  "'ADDRESS HIT [since=UNIXSECONDS]')" },
	{ "192.0.2.7 2001:2a::1 since=1 since=2\n", "known_hosts:1: since= is given twice" },
	{ "192.0.2.7 2001:2a::1 since=\n",
	  "known_hosts:1: 'since=' is not a time in Unix seconds" },
	{ "192.0.2.7 2001:2a::1 since=-1\n",
	  "known_hosts:1: 'since=-1' is not a time in Unix seconds" },
	{ "192.0.2.7 2001:2a::1 since=12x\n",
	  "known_hosts:1: 'since=12x' is not a time in Unix seconds" },
	{ "192.0.2.7 2001:2a::1 since=0x10\n",
	  "known_hosts:1: 'since=0x10' is not a time in Unix seconds" },
	{ "192.0.2.7 2001:2a::1 since=253402300800\n",
	  "known_hosts:1: 'since=253402300800' is out of range (at most 253402300799)" },
	{ "192.0.2.7 2001:2a::1 since=99999999999999999999999\n",
	  "known_hosts:1: 'since=99999999999999999999999' is out of range (at most "
	  "253402300799)" },
	/* line by line: the first problem wins, whatever its kind */
	{ "192.0.2.7 2001:2a::1\n192.0.2.7 2001:2a::1\nx y\n",
	  "known_hosts:2: 192.0.2.7 is pinned twice (line 1)" },
	{ "192.0.2.7 2001:2a::1\nx y\n192.0.2.7 2001:2a::1\n",
	  "known_hosts:2: 'x' is not an IP address" },
	{ "192.0.2.7 2001:2a::1\n192.0.2.8 2001:2a::1\0 junk\n",
	  "known_hosts:2: NUL byte in line" },
};

START_TEST(test_parse_errors)
{
	const char *text = bad[_i].text;
	/* the NUL case: the length of the literal, not strlen */
	size_t len = strlen(text);

	if (strstr(bad[_i].msg, "NUL byte"))
		len = strlen(text) + 1 + strlen(text + strlen(text) + 1);
	ck_assert_int_eq(load("203.0.113.1 2001:2a::aa since=5\n"), 0);
	err[0] = '\0';
	ck_assert_int_eq(known_hosts_load_buf(k, "known_hosts", text, len, err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, bad[_i].msg);
	/* all or nothing: the table is as before */
	ck_assert_uint_eq(known_hosts_count(k), 1);
	ck_assert_str_eq(pinned("203.0.113.1"), "2001:2a::aa");
	ck_assert_str_eq(pinned("192.0.2.7"), "(none)");
}
END_TEST

START_TEST(test_line_limits)
{
	char line[1100];
	size_t n;

	/* 1024 characters are fine (padded with blanks), 1025 are not */
	n = (size_t)snprintf(line, sizeof(line), "192.0.2.7 2001:2a::1");
	memset(line + n, ' ', 1024 - n);
	strcpy(line + 1024, "\n");
	ck_assert_int_eq(load(line), 0);
	ck_assert_uint_eq(known_hosts_count(k), 1);
	memset(line + n, ' ', 1025 - n);
	strcpy(line + 1025, "\n");
	ck_assert_int_eq(load(line), -EINVAL);
	ck_assert_str_eq(err, "known_hosts:1: line longer than 1024 characters");
	ck_assert_uint_eq(known_hosts_count(k), 1);
	/* a long word is cut in the message */
	memset(line, 'a', 1000);
	strcpy(line + 1000, " 2001:2a::1");
	ck_assert_int_eq(load(line), -EINVAL);
	ck_assert_uint_lt(strlen(err), 128);
	ck_assert_ptr_nonnull(strstr(err, "aaa...' is not an IP address"));
}
END_TEST

START_TEST(test_add_del_find)
{
	struct hip_addr a = addr_of("192.0.2.7"), b = addr_of("2001:db8::1"), c;
	struct hip_hit h1 = hit_of("2001:2a::1"), h2 = hit_of("2001:2b::2"), bad_hit;

	ck_assert_int_eq(known_hosts_add(k, &a, &h1, 1795800600), 0);
	ck_assert_int_eq(known_hosts_add(k, &b, &h2, 0), 0);
	ck_assert_int_eq(known_hosts_add(k, &a, &h2, 0), -EEXIST);
	c = addr_of("::ffff:192.0.2.7");
	ck_assert_int_eq(known_hosts_add(k, &c, &h1, 0), -EEXIST);
	ck_assert_str_eq(pinned("192.0.2.7"), "2001:2a::1");         /* not replaced */
	ck_assert_uint_eq(known_hosts_at(k, 0)->line, 0);
	ck_assert_uint_eq(known_hosts_at(k, 0)->since, 1795800600);
	/* addresses hipd would never contact, HITs outside ORCHIDv2, late dates */
	c = addr_of("0.0.0.0");
	ck_assert_int_eq(known_hosts_add(k, &c, &h1, 0), -EINVAL);
	c = addr_of("ff02::1");
	ck_assert_int_eq(known_hosts_add(k, &c, &h1, 0), -EINVAL);
	c = addr_of("2001:2a::9");
	ck_assert_int_eq(known_hosts_add(k, &c, &h1, 0), -EINVAL);
	c = addr_of("192.0.2.8");
	memcpy(bad_hit.b, b.in6.s6_addr, sizeof(bad_hit.b));
	ck_assert_int_eq(known_hosts_add(k, &c, &bad_hit, 0), -EINVAL);
	ck_assert_int_eq(known_hosts_add(k, &c, &h1, KNOWN_HOSTS_SINCE_MAX + 1), -EINVAL);
	ck_assert_int_eq(known_hosts_add(k, &c, &h1, KNOWN_HOSTS_SINCE_MAX), 0);
	ck_assert_uint_eq(known_hosts_count(k), 3);
	/* loopback is a usable address (hip_addr_locator_problem) */
	c = addr_of("127.0.0.1");
	ck_assert_int_eq(known_hosts_add(k, &c, &h1, 0), 0);

	ck_assert_int_eq(known_hosts_del(k, &a), 0);
	ck_assert_int_eq(known_hosts_del(k, &a), -ENOENT);
	ck_assert_str_eq(pinned("192.0.2.7"), "(none)");
	ck_assert_uint_eq(known_hosts_count(k), 3);
	ck_assert_str_eq(addr_at(0), "2001:db8::1");
	ck_assert_str_eq(addr_at(1), "192.0.2.8");
	ck_assert_str_eq(addr_at(2), "127.0.0.1");
	ck_assert_str_eq(pinned("2001:db8::1"), "2001:2b::2");
	ck_assert_str_eq(pinned("127.0.0.1"), "2001:2a::1");
	/* a new HIT for the address once the pin is gone */
	ck_assert_int_eq(known_hosts_add(k, &a, &h2, 0), 0);
	ck_assert_str_eq(pinned("192.0.2.7"), "2001:2b::2");
	ck_assert_str_eq(addr_at(3), "192.0.2.7");
}
END_TEST

/* Address i of a scrambled sequence: IPv4 for even i, IPv6 for odd. */
static struct hip_addr addr_n(unsigned i)
{
	char s[64];
	unsigned x = (i * 2654435761u) >> 8;

	if (i % 2)
		snprintf(s, sizeof(s), "2001:db8:%x:%x::%x", x >> 16, x & 0xffff, i);
	else
		snprintf(s, sizeof(s), "10.%u.%u.%u", (i >> 16) & 255, (i >> 8) & 255, i & 255);
	return addr_of(s);
}

static struct hip_hit hit_n(unsigned i)
{
	char s[64];

	snprintf(s, sizeof(s), "2001:2a::%x:%x", i >> 16, i & 0xffff);
	return hit_of(s);
}

/* Many pins, deletions in between: every lookup agrees with the order list. */
START_TEST(test_many_pins)
{
	unsigned i;
	size_t j;

	for (i = 0; i < KNOWN_HOSTS_MAX; i++) {
		struct hip_addr a = addr_n(i);
		struct hip_hit h = hit_n(i);

		ck_assert_int_eq(known_hosts_add(k, &a, &h, i), 0);
	}
	{
		struct hip_addr a = addr_of("192.0.2.1");
		struct hip_hit h = hit_n(1);

		ck_assert_int_eq(known_hosts_add(k, &a, &h, 0), -ENOSPC);
		a = addr_n(5);
		ck_assert_int_eq(known_hosts_add(k, &a, &h, 0), -EEXIST);     /* checked first */
	}
	for (i = 0; i < KNOWN_HOSTS_MAX; i += 3) {
		struct hip_addr a = addr_n(i);

		ck_assert_int_eq(known_hosts_del(k, &a), 0);
	}
	ck_assert_uint_eq(known_hosts_count(k), KNOWN_HOSTS_MAX - (KNOWN_HOSTS_MAX + 2) / 3);
	for (i = 0; i < KNOWN_HOSTS_MAX; i++) {
		struct hip_addr a = addr_n(i);
		struct hip_hit h = hit_n(i);
		const struct known_host *p = known_hosts_find(k, &a);

		if (i % 3 == 0) {
			ck_assert_ptr_null(p);
			continue;
		}
		ck_assert_ptr_nonnull(p);
		ck_assert_mem_eq(p->hit.b, h.b, sizeof(h.b));
		ck_assert_uint_eq(p->since, i);
	}
	/* the order is kept: the since values still ascend */
	for (j = 1; j < known_hosts_count(k); j++)
		ck_assert_uint_lt(known_hosts_at(k, j - 1)->since, known_hosts_at(k, j)->since);
}
END_TEST

/* The text of n pins, one a line, each ending in tail. */
static char *pins_text(unsigned n, const char *tail)
{
	char *t = malloc((size_t)n * (80 + strlen(tail)) + 1);
	size_t len = 0;
	unsigned i;

	ck_assert_ptr_nonnull(t);
	t[0] = '\0';
	for (i = 0; i < n; i++) {
		struct hip_addr a = addr_n(i);
		struct hip_hit h = hit_n(i);
		char as[INET6_ADDRSTRLEN], hs[HIP_HIT_STR_LEN];

		len += (size_t)sprintf(t + len, "%s %s%s\n", hip_addr_to_str(&a, as, sizeof(as)),
				       hip_hit_to_str(&h, hs, sizeof(hs)), tail);
	}
	return t;
}

START_TEST(test_limit_file)
{
	char *t = pins_text(KNOWN_HOSTS_MAX, "");

	ck_assert_int_eq(load(t), 0);
	ck_assert_uint_eq(known_hosts_count(k), KNOWN_HOSTS_MAX);
	free(t);
	ck_assert_int_eq(load("192.0.2.1 2001:2a::1\n"), 0);
	t = pins_text(KNOWN_HOSTS_MAX + 1, "");
	ck_assert_int_eq(load(t), -EINVAL);
	ck_assert_str_eq(err, "known_hosts:4097: more than 4096 pins");
	ck_assert_uint_eq(known_hosts_count(k), 1);
	free(t);
}
END_TEST

static char dir[64];

static void dir_setup(void)
{
	setup();
	strcpy(dir, "/tmp/check_known_hosts.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void dir_teardown(void)
{
	char cmd[128];

	teardown();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static char *read_text(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n;

	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The names in dir, sorted, blank-separated. */
static const char *dir_list(const char *d)
{
	static char out[1024];
	struct dirent **ents;
	int n, i;

	out[0] = '\0';
	n = scandir(d, &ents, NULL, alphasort);
	ck_assert_int_ge(n, 0);
	for (i = 0; i < n; i++) {
		if (strcmp(ents[i]->d_name, ".") && strcmp(ents[i]->d_name, ".."))
			snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s",
				 out[0] ? " " : "", ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	return out;
}

#define LAST_LINE "198.51.100.1 2001:2c::3 since=1  # 1970-01-01T00:00:01Z\n"

START_TEST(test_save_reload)
{
	char path[128];
	const char *text;
	struct stat st;
	struct known_hosts *k2;
	size_t i;
	mode_t old_mask = umask(077);

	snprintf(path, sizeof(path), "%s/known_hosts", dir);
	ck_assert_int_eq(load("192.0.2.7 2001:2a::1 since=1795800600\n"
			      "2001:db8::10 2001:2b::2\n"), 0);
	{
		struct hip_addr a = addr_of("198.51.100.1");
		struct hip_hit h = hit_of("2001:2c::3");

		ck_assert_int_eq(known_hosts_add(k, &a, &h, 1), 0);
	}
	ck_assert_int_eq(known_hosts_save(k, path), 0);
	umask(old_mask);
	ck_assert_str_eq(dir_list(dir), "known_hosts");
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	text = read_text(path);
	ck_assert_msg(text[0] == '#', "%s", text);
	ck_assert_ptr_nonnull(strstr(text, "\n192.0.2.7 2001:2a::1 since=1795800600  "
				     "# 2026-11-27T17:30:00Z\n"
				     "2001:db8::10 2001:2b::2\n"
				     "198.51.100.1 2001:2c::3 since=1  # 1970-01-01T00:00:01Z\n"));
	/* the last line ends the file */
	ck_assert_str_eq(text + strlen(text) - strlen(LAST_LINE), LAST_LINE);

	/* reload: the same pins in the same order, now with their lines */
	ck_assert_int_eq(known_hosts_create(&k2), 0);
	ck_assert_int_eq(known_hosts_load_file(k2, path, err, sizeof(err)), 0);
	ck_assert_uint_eq(known_hosts_count(k2), 3);
	for (i = 0; i < 3; i++) {
		const struct known_host *x = known_hosts_at(k, i), *y = known_hosts_at(k2, i);

		ck_assert_mem_eq(&x->addr, &y->addr, sizeof(x->addr));
		ck_assert_mem_eq(&x->hit, &y->hit, sizeof(x->hit));
		ck_assert_uint_eq(x->since, y->since);
		ck_assert_uint_gt(y->line, 1);
	}
	ck_assert_uint_eq(known_hosts_at(k2, 1)->line, known_hosts_at(k2, 0)->line + 1);

	/* saving again replaces the file; the largest table fits in a file */
	known_hosts_free(k2);
	{
		char *t = pins_text(KNOWN_HOSTS_MAX, " since=253402300799");

		ck_assert_int_eq(load(t), 0);
		free(t);
	}
	ck_assert_int_eq(known_hosts_save(k, path), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_lt(st.st_size, KNOWN_HOSTS_FILE_MAX);
	ck_assert_int_eq(known_hosts_create(&k2), 0);
	ck_assert_int_eq(known_hosts_load_file(k2, path, err, sizeof(err)), 0);
	ck_assert_uint_eq(known_hosts_count(k2), KNOWN_HOSTS_MAX);
	ck_assert_uint_eq(known_hosts_at(k2, 9)->since, KNOWN_HOSTS_SINCE_MAX);
	known_hosts_free(k2);
	ck_assert_str_eq(dir_list(dir), "known_hosts");

	/* an empty table: the header only, and it loads */
	ck_assert_int_eq(load(""), 0);
	ck_assert_int_eq(known_hosts_save(k, path), 0);
	ck_assert_int_eq(known_hosts_load_file(k, path, err, sizeof(err)), 0);
	ck_assert_uint_eq(known_hosts_count(k), 0);
}
END_TEST

START_TEST(test_save_failure)
{
	char path[128], sub[128];
	const char *before;
	char copy[4096];

	ck_assert_int_eq(load("192.0.2.7 2001:2a::1\n"), 0);
	/* no such directory */
	snprintf(path, sizeof(path), "%s/missing/known_hosts", dir);
	ck_assert_int_eq(known_hosts_save(k, path), -ENOENT);
	ck_assert_str_eq(dir_list(dir), "");
	/* rename fails (the path is a directory): it stays, the temporary goes */
	snprintf(sub, sizeof(sub), "%s/known_hosts", dir);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	ck_assert_int_eq(known_hosts_save(k, sub), -EISDIR);
	ck_assert_str_eq(dir_list(dir), "known_hosts");
	ck_assert_str_eq(dir_list(sub), "");
	ck_assert_int_eq(rmdir(sub), 0);
	/* an existing file is kept when the save fails */
	ck_assert_int_eq(known_hosts_save(k, sub), 0);
	before = read_text(sub);
	snprintf(copy, sizeof(copy), "%s", before);
	{
		struct hip_addr a = addr_of("192.0.2.7");

		ck_assert_int_eq(known_hosts_del(k, &a), 0);
	}
	snprintf(path, sizeof(path), "%s/known_hosts/x", dir);      /* a file as directory */
	ck_assert_int_eq(known_hosts_save(k, path), -ENOTDIR);
	ck_assert_str_eq(read_text(sub), copy);
	ck_assert_str_eq(dir_list(dir), "known_hosts");
}
END_TEST

START_TEST(test_load_file)
{
	char path[128];
	FILE *f;
	char *big;

	snprintf(path, sizeof(path), "%s/known_hosts", dir);
	ck_assert_int_eq(load("192.0.2.7 2001:2a::1\n"), 0);
	/* missing: no pins */
	ck_assert_int_eq(known_hosts_load_file(k, path, err, sizeof(err)), 0);
	ck_assert_uint_eq(known_hosts_count(k), 0);
	/* an error names the path and the line */
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("192.0.2.7 2001:2a::1\n192.0.2.8 nohit\n", f);
	fclose(f);
	ck_assert_int_eq(known_hosts_load_file(k, path, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "/known_hosts:2: 'nohit' is not a HIT (not an IPv6 "
				     "address)"));
	ck_assert_int_eq(strncmp(err, dir, strlen(dir)), 0);
	/* over 1 MiB: refused before reading */
	big = malloc(KNOWN_HOSTS_FILE_MAX + 1);
	ck_assert_ptr_nonnull(big);
	memset(big, '\n', KNOWN_HOSTS_FILE_MAX + 1);
	f = fopen(path, "w");
	ck_assert_uint_eq(fwrite(big, 1, KNOWN_HOSTS_FILE_MAX, f), KNOWN_HOSTS_FILE_MAX);
	fclose(f);
	ck_assert_int_eq(known_hosts_load_file(k, path, err, sizeof(err)), 0);   /* 1 MiB: fine */
	f = fopen(path, "w");
	ck_assert_uint_eq(fwrite(big, 1, KNOWN_HOSTS_FILE_MAX + 1, f), KNOWN_HOSTS_FILE_MAX + 1);
	fclose(f);
	free(big);
	ck_assert_int_eq(load("192.0.2.7 2001:2a::1\n"), 0);
	ck_assert_int_eq(known_hosts_load_file(k, path, err, sizeof(err)), -EFBIG);
	ck_assert_ptr_nonnull(strstr(err, "/known_hosts: larger than 1048576 bytes"));
	ck_assert_uint_eq(known_hosts_count(k), 1);
	/* not a regular file */
	ck_assert_int_eq(known_hosts_load_file(k, dir, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, ": not a regular file"));
	ck_assert_uint_eq(known_hosts_count(k), 1);
}
END_TEST

static Suite *known_hosts_suite(void)
{
	Suite *s = suite_create("known_hosts");
	TCase *tc = tcase_create("table");
	TCase *tf = tcase_create("file");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_parse_file);
	tcase_add_loop_test(tc, test_parse_errors, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, test_line_limits);
	tcase_add_test(tc, test_add_del_find);
	tcase_add_test(tc, test_many_pins);
	tcase_add_test(tc, test_limit_file);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(tf, dir_setup, dir_teardown);
	tcase_add_test(tf, test_save_reload);
	tcase_add_test(tf, test_save_failure);
	tcase_add_test(tf, test_load_file);
	suite_add_tcase(s, tf);
	return s;
}

UNIT_MAIN(known_hosts_suite)
