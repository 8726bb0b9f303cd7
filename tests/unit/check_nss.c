/*
 * check_nss.c - the NSS module's entry points called directly (nss/,
 * D-19), on a hosts file this suite writes at HIP_NSS_HOSTS_FILE (set for
 * this binary by tests/local.mk): answers, the status that keeps HIP-only
 * names away from DNS, ERANGE for every too-small buffer, reverse lookups;
 * the LSIs hipd exports at HIP_NSS_LSI_FILE for lines without lsi= (D-26)
 * and that file's parser.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lsi_file.h"
#include "nss_hip.h"
#include "unit.h"

static const char hosts_text[] =
	"# check_nss\n"
	"2001:2a::1 192.0.2.1 name=tablet name=tab.lan lsi=198.18.0.1\n"
	"2001:2a::2 2001:db8::2 name=printer\n"
	"2001:2a::3 192.0.2.3\n"
	"2001:2a::4 192.0.2.4 name=broken lsi=banana\n";

static void write_hosts(void)
{
	FILE *f = fopen(HIP_NSS_HOSTS_FILE, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(hosts_text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
}

static void setup(void)
{
	write_hosts();
}

static void teardown(void)
{
	unlink(HIP_NSS_HOSTS_FILE);
	unlink(HIP_NSS_LSI_FILE);
}

static void write_lsi_file(const char *text)
{
	FILE *f = fopen(HIP_NSS_LSI_FILE, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
}

static char buf[4096];
static int e, he;

static const char *ntop(int af, const void *a)
{
	static char s[INET6_ADDRSTRLEN];

	return inet_ntop(af, a, s, sizeof(s));
}

START_TEST(test_byname4)
{
	static const char *const forms[] = { "tablet", "tablet.hip", "TABLET.Hip.", "tab.lan" };
	struct gaih_addrtuple *t = NULL;
	size_t i;

	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		t = NULL;
		ck_assert_int_eq(_nss_hip_gethostbyname4_r(forms[i], &t, buf, sizeof(buf), &e, &he,
							   NULL), NSS_STATUS_SUCCESS);
		ck_assert_str_eq(t->name, "tablet");
		ck_assert_int_eq(t->family, AF_INET6);
		ck_assert_str_eq(ntop(AF_INET6, t->addr), "2001:2a::1");
		ck_assert_ptr_nonnull(t->next);
		ck_assert_int_eq(t->next->family, AF_INET);
		ck_assert_str_eq(ntop(AF_INET, t->next->addr), "198.18.0.1");
		ck_assert_ptr_null(t->next->next);
	}
	/* no LSI: the HIT alone */
	t = NULL;
	ck_assert_int_eq(_nss_hip_gethostbyname4_r("printer.hip", &t, buf, sizeof(buf), &e, &he,
						   NULL), NSS_STATUS_SUCCESS);
	ck_assert_str_eq(ntop(AF_INET6, t->addr), "2001:2a::2");
	ck_assert_ptr_null(t->next);
}
END_TEST

START_TEST(test_byname3)
{
	struct hostent he_r;
	char *canon = NULL;
	int32_t ttl = 99;

	ck_assert_int_eq(_nss_hip_gethostbyname3_r("tab.lan.hip", AF_INET6, &he_r, buf, sizeof(buf),
						   &e, &he, &ttl, &canon), NSS_STATUS_SUCCESS);
	ck_assert_str_eq(he_r.h_name, "tablet");
	ck_assert_str_eq(canon, "tablet");
	ck_assert_int_eq(ttl, 0);
	ck_assert_str_eq(he_r.h_aliases[0], "tab.lan");
	ck_assert_ptr_null(he_r.h_aliases[1]);
	ck_assert_int_eq(he_r.h_length, 16);
	ck_assert_str_eq(ntop(AF_INET6, he_r.h_addr_list[0]), "2001:2a::1");
	ck_assert_ptr_null(he_r.h_addr_list[1]);
	ck_assert_int_eq(_nss_hip_gethostbyname2_r("tablet", AF_INET, &he_r, buf, sizeof(buf),
						   &e, &he), NSS_STATUS_SUCCESS);
	ck_assert_int_eq(he_r.h_addrtype, AF_INET);
	ck_assert_str_eq(ntop(AF_INET, he_r.h_addr_list[0]), "198.18.0.1");
	ck_assert_int_eq(_nss_hip_gethostbyname_r("tablet.hip", &he_r, buf, sizeof(buf), &e, &he),
			 NSS_STATUS_SUCCESS);
	ck_assert_str_eq(ntop(AF_INET, he_r.h_addr_list[0]), "198.18.0.1");
	/* ours, but no IPv4 without an LSI: no data, and no fall-through */
	ck_assert_int_eq(_nss_hip_gethostbyname2_r("printer", AF_INET, &he_r, buf, sizeof(buf),
						   &e, &he), NSS_STATUS_NOTFOUND);
	ck_assert_int_eq(he, NO_DATA);
}
END_TEST

/* Not ours: UNAVAIL (the next source answers). Ours but absent: NOTFOUND. */
START_TEST(test_not_found)
{
	struct gaih_addrtuple *t = NULL;
	struct hostent he_r;

	ck_assert_int_eq(_nss_hip_gethostbyname4_r("example.org", &t, buf, sizeof(buf), &e, &he,
						   NULL), NSS_STATUS_UNAVAIL);
	ck_assert_int_eq(he, HOST_NOT_FOUND);
	ck_assert_int_eq(_nss_hip_gethostbyname4_r("tablets", &t, buf, sizeof(buf), &e, &he,
						   NULL), NSS_STATUS_UNAVAIL);
	ck_assert_int_eq(_nss_hip_gethostbyname4_r("nothere.hip", &t, buf, sizeof(buf), &e, &he,
						   NULL), NSS_STATUS_NOTFOUND);
	ck_assert_int_eq(e, ENOENT);
	ck_assert_int_eq(he, HOST_NOT_FOUND);
	ck_assert_int_eq(_nss_hip_gethostbyname2_r(".hip", AF_INET6, &he_r, buf, sizeof(buf),
						   &e, &he), NSS_STATUS_UNAVAIL);
	ck_assert_int_eq(_nss_hip_gethostbyname2_r("", AF_INET6, &he_r, buf, sizeof(buf),
						   &e, &he), NSS_STATUS_UNAVAIL);
	/* a name on a line hipd rejects is still ours: never sent to DNS */
	ck_assert_int_eq(_nss_hip_gethostbyname4_r("broken", &t, buf, sizeof(buf), &e, &he,
						   NULL), NSS_STATUS_NOTFOUND);
	ck_assert_ptr_null(t);
	ck_assert_int_eq(_nss_hip_gethostbyname2_r("tablet", AF_UNIX, &he_r, buf, sizeof(buf),
						   &e, &he), NSS_STATUS_UNAVAIL);
	/* no file: the suffix is still ours */
	unlink(HIP_NSS_HOSTS_FILE);
	ck_assert_int_eq(_nss_hip_gethostbyname4_r("tablet", &t, buf, sizeof(buf), &e, &he,
						   NULL), NSS_STATUS_UNAVAIL);
	ck_assert_int_eq(_nss_hip_gethostbyname4_r("tablet.hip", &t, buf, sizeof(buf), &e, &he,
						   NULL), NSS_STATUS_NOTFOUND);
}
END_TEST

/* Every buffer shorter than needed: TRYAGAIN + ERANGE (glibc retries with
 * a larger one); the first one long enough: the answer. */
START_TEST(test_erange)
{
	size_t len, ok4 = 0, ok3 = 0, okr = 0;
	struct in6_addr hit;

	inet_pton(AF_INET6, "2001:2a::1", &hit);
	for (len = 0; len < 512 && !(ok4 && ok3 && okr); len++) {
		struct gaih_addrtuple *t = NULL;
		struct hostent he_r;
		enum nss_status st;

		if (!ok4) {
			st = _nss_hip_gethostbyname4_r("tablet", &t, buf, len, &e, &he, NULL);
			if (st == NSS_STATUS_SUCCESS)
				ok4 = len;
			else
				ck_assert(st == NSS_STATUS_TRYAGAIN && e == ERANGE &&
					  he == NETDB_INTERNAL);
		}
		if (!ok3) {
			st = _nss_hip_gethostbyname3_r("tablet", AF_INET6, &he_r, buf, len, &e, &he,
						       NULL, NULL);
			if (st == NSS_STATUS_SUCCESS)
				ok3 = len;
			else
				ck_assert(st == NSS_STATUS_TRYAGAIN && e == ERANGE);
		}
		if (!okr) {
			st = _nss_hip_gethostbyaddr_r(&hit, 16, AF_INET6, &he_r, buf, len, &e, &he);
			if (st == NSS_STATUS_SUCCESS)
				okr = len;
			else
				ck_assert(st == NSS_STATUS_TRYAGAIN && e == ERANGE);
		}
	}
	ck_assert_uint_gt(ok4, 0);
	ck_assert_uint_gt(ok3, 0);
	ck_assert_uint_gt(okr, 0);
}
END_TEST

START_TEST(test_byaddr)
{
	struct in6_addr a6;
	struct in_addr a4;
	struct hostent he_r;
	int32_t ttl = 5;

	inet_pton(AF_INET6, "2001:2a::1", &a6);
	ck_assert_int_eq(_nss_hip_gethostbyaddr2_r(&a6, 16, AF_INET6, &he_r, buf, sizeof(buf),
						   &e, &he, &ttl), NSS_STATUS_SUCCESS);
	ck_assert_str_eq(he_r.h_name, "tablet");
	ck_assert_str_eq(he_r.h_aliases[0], "tab.lan");
	ck_assert_str_eq(ntop(AF_INET6, he_r.h_addr_list[0]), "2001:2a::1");
	ck_assert_int_eq(ttl, 0);
	inet_pton(AF_INET, "198.18.0.1", &a4);
	ck_assert_int_eq(_nss_hip_gethostbyaddr_r(&a4, 4, AF_INET, &he_r, buf, sizeof(buf),
						  &e, &he), NSS_STATUS_SUCCESS);
	ck_assert_str_eq(he_r.h_name, "tablet");
	/* a listed HIT without a name, a HIT not listed: ours, no answer */
	inet_pton(AF_INET6, "2001:2a::3", &a6);
	ck_assert_int_eq(_nss_hip_gethostbyaddr_r(&a6, 16, AF_INET6, &he_r, buf, sizeof(buf),
						  &e, &he), NSS_STATUS_NOTFOUND);
	inet_pton(AF_INET6, "2001:2f::77", &a6);
	ck_assert_int_eq(_nss_hip_gethostbyaddr_r(&a6, 16, AF_INET6, &he_r, buf, sizeof(buf),
						  &e, &he), NSS_STATUS_NOTFOUND);
	/* not a HIT, not an LSI of ours, a bad length: the next source */
	inet_pton(AF_INET6, "2001:db8::2", &a6);
	ck_assert_int_eq(_nss_hip_gethostbyaddr_r(&a6, 16, AF_INET6, &he_r, buf, sizeof(buf),
						  &e, &he), NSS_STATUS_UNAVAIL);
	inet_pton(AF_INET, "198.18.0.9", &a4);
	ck_assert_int_eq(_nss_hip_gethostbyaddr_r(&a4, 4, AF_INET, &he_r, buf, sizeof(buf),
						  &e, &he), NSS_STATUS_UNAVAIL);
	ck_assert_int_eq(_nss_hip_gethostbyaddr_r(&a4, 16, AF_INET, &he_r, buf, sizeof(buf),
						  &e, &he), NSS_STATUS_UNAVAIL);
}
END_TEST

/* nscd passes a tuple of its own: the first answer goes there. */
START_TEST(test_byname4_preset_tuple)
{
	struct gaih_addrtuple mine = { 0 }, *t = &mine;

	ck_assert_int_eq(_nss_hip_gethostbyname4_r("tablet", &t, buf, sizeof(buf), &e, &he, NULL),
			 NSS_STATUS_SUCCESS);
	ck_assert_ptr_eq(t, &mine);
	ck_assert_int_eq(mine.family, AF_INET6);
	ck_assert_int_eq(mine.next->family, AF_INET);
}
END_TEST

/* A line longer than hipd accepts is skipped, the lines after it count. */
START_TEST(test_long_line)
{
	FILE *f = fopen(HIP_NSS_HOSTS_FILE, "w");
	struct gaih_addrtuple *t = NULL;
	size_t i;

	ck_assert_ptr_nonnull(f);
	fputs("2001:2a::9 192.0.2.9 name=longline ", f);
	for (i = 0; i < 2000; i++)
		fputc('x', f);
	fputs("\n2001:2a::8 192.0.2.8 name=after\n", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(_nss_hip_gethostbyname4_r("after", &t, buf, sizeof(buf), &e, &he, NULL),
			 NSS_STATUS_SUCCESS);
	ck_assert_int_eq(_nss_hip_gethostbyname4_r("longline", &t, buf, sizeof(buf), &e, &he,
						   NULL), NSS_STATUS_UNAVAIL);
}
END_TEST

/* Lookups from several threads at once each get their own right answer
 * (the shared index is locked; a busy lock is not waited for). */
static void *lookup_loop(void *arg)
{
	const char *name = arg;
	bool printer = strncmp(name, "printer", 7) == 0;
	char b[512];
	size_t i;

	for (i = 0; i < 300; i++) {
		struct gaih_addrtuple *t = NULL;
		int err, herr;

		if (_nss_hip_gethostbyname4_r(name, &t, b, sizeof(b), &err, &herr, NULL) !=
			    NSS_STATUS_SUCCESS ||
		    strcmp(t->name, printer ? "printer" : "tablet") != 0 ||
		    t->addr[3] != htonl(printer ? 2 : 1))
			return (void *)1;
	}
	return NULL;
}

START_TEST(test_threads)
{
	static const char *const names[] = { "tablet", "printer.hip", "tab.lan", "printer" };
	pthread_t th[4];
	size_t i;

	for (i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, lookup_loop, (void *)names[i]), 0);
	for (i = 0; i < 4; i++) {
		void *r;

		ck_assert_int_eq(pthread_join(th[i], &r), 0);
		ck_assert_msg(r == NULL, "thread %zu (%s) got a wrong answer", i, names[i]);
	}
}
END_TEST

/* hipd's table as hipd writes it, with lines the module must skip */
static const char lsi_text[] =
	"# hipd: the LSI of each mapped HIT (HIT LSI), see hipd.conf(5) lsi_file\n"
	"2001:2a::1 198.18.9.9\n"             /* tablet: its lsi= wins */
	"2001:2a::2 banana\n"                 /* printer, broken: skipped */
	"2001:2a::2 198.18.7.7 extra\n"       /* three words: skipped */
	"2001:2a::2 127.0.0.1\n"              /* not unicast: skipped */
	"2001:2a::2 198.18.7.7\n"             /* printer */
	"\n"
	"   2001:2a::3\t198.18.7.8  # no name in the hosts file\r\n"
	"2001:2f::5 198.18.7.9\n";            /* not in the hosts file */

/* A line without lsi= gets the LSI hipd uses; lsi= wins over the table. */
START_TEST(test_lsi_from_hipd)
{
	struct gaih_addrtuple *t = NULL;
	struct hostent he_r;
	struct in_addr a4;

	write_lsi_file(lsi_text);
	ck_assert_int_eq(_nss_hip_gethostbyname4_r("printer", &t, buf, sizeof(buf), &e, &he,
						   NULL), NSS_STATUS_SUCCESS);
	ck_assert_str_eq(ntop(AF_INET6, t->addr), "2001:2a::2");
	ck_assert_ptr_nonnull(t->next);
	ck_assert_int_eq(t->next->family, AF_INET);
	ck_assert_str_eq(ntop(AF_INET, t->next->addr), "198.18.7.7");
	ck_assert_int_eq(_nss_hip_gethostbyname2_r("printer.hip", AF_INET, &he_r, buf, sizeof(buf),
						   &e, &he), NSS_STATUS_SUCCESS);
	ck_assert_str_eq(ntop(AF_INET, he_r.h_addr_list[0]), "198.18.7.7");
	ck_assert_str_eq(he_r.h_name, "printer");
	ck_assert_int_eq(_nss_hip_gethostbyname2_r("tablet", AF_INET, &he_r, buf, sizeof(buf),
						   &e, &he), NSS_STATUS_SUCCESS);
	ck_assert_str_eq(ntop(AF_INET, he_r.h_addr_list[0]), "198.18.0.1");
	/* reverse: hipd's LSI names the line of its HIT */
	inet_pton(AF_INET, "198.18.7.7", &a4);
	ck_assert_int_eq(_nss_hip_gethostbyaddr_r(&a4, 4, AF_INET, &he_r, buf, sizeof(buf),
						  &e, &he), NSS_STATUS_SUCCESS);
	ck_assert_str_eq(he_r.h_name, "printer");
	ck_assert_str_eq(ntop(AF_INET, he_r.h_addr_list[0]), "198.18.7.7");
	/* ours without a name: a line without one, a HIT without a line */
	inet_pton(AF_INET, "198.18.7.8", &a4);
	ck_assert_int_eq(_nss_hip_gethostbyaddr_r(&a4, 4, AF_INET, &he_r, buf, sizeof(buf),
						  &e, &he), NSS_STATUS_NOTFOUND);
	inet_pton(AF_INET, "198.18.7.9", &a4);
	ck_assert_int_eq(_nss_hip_gethostbyaddr_r(&a4, 4, AF_INET, &he_r, buf, sizeof(buf),
						  &e, &he), NSS_STATUS_NOTFOUND);
	/* the table's LSI for a HIT pinned otherwise by lsi=: the table is stale */
	inet_pton(AF_INET, "198.18.9.9", &a4);
	ck_assert_int_eq(_nss_hip_gethostbyaddr_r(&a4, 4, AF_INET, &he_r, buf, sizeof(buf),
						  &e, &he), NSS_STATUS_UNAVAIL);
	/* hipd gone (no table): no IPv4 answer, as without lsi= */
	unlink(HIP_NSS_LSI_FILE);
	ck_assert_int_eq(_nss_hip_gethostbyname2_r("printer", AF_INET, &he_r, buf, sizeof(buf),
						   &e, &he), NSS_STATUS_NOTFOUND);
	inet_pton(AF_INET, "198.18.7.7", &a4);
	ck_assert_int_eq(_nss_hip_gethostbyaddr_r(&a4, 4, AF_INET, &he_r, buf, sizeof(buf),
						  &e, &he), NSS_STATUS_UNAVAIL);
}
END_TEST

START_TEST(test_lsi_line_parse)
{
	static const char *const bad[] = {
		"banana 198.18.0.1", "2001:db8::1 198.18.0.1", "2001:2a::1",
		"2001:2a::1 198.18.0.256", "2001:2a::1 0.1.2.3", "2001:2a::1 224.0.0.1",
		"2001:2a::1 198.18.0.1 x", "198.18.0.1 2001:2a::1", "2001:2a::1 198.018.0.1",
		"2001:2a::1 2001:2a::2",
		"2001:2a::1:2:3:4:5:6:7:8:9:a:b:c:d:e:f:1:2:3:4:5:6:7:8:9:0:1 198.18.0.1",
	};
	uint8_t hit[16], lsi[4];
	size_t i;

	ck_assert_int_eq(hip_lsi_line_parse("2001:2a::1 198.18.0.1", hit, lsi), 0);
	ck_assert_str_eq(ntop(AF_INET6, hit), "2001:2a::1");
	ck_assert_str_eq(ntop(AF_INET, lsi), "198.18.0.1");
	ck_assert_int_eq(hip_lsi_line_parse(" 2001:2a::1\t198.18.0.1 # x", hit, lsi), 0);
	ck_assert_int_eq(hip_lsi_line_parse("", hit, lsi), 1);
	ck_assert_int_eq(hip_lsi_line_parse("  # comment", hit, lsi), 1);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(hip_lsi_line_parse(bad[i], hit, lsi) == -EINVAL, "accepted '%s'",
			      bad[i]);
}
END_TEST

/* A line longer than hipd writes is skipped whole (its tail is not read as
 * a line), and the file is read up to HIP_LSI_FILE_MAX bytes only. */
START_TEST(test_lsi_file_bounds)
{
	FILE *f = fopen(HIP_NSS_LSI_FILE, "w");
	uint8_t hit[16], lsi[4];
	size_t i;

	ck_assert_ptr_nonnull(f);
	fputs("2001:2a::2 198.18.1.1 ", f);
	for (i = 0; i < 300; i++)
		fputc('x', f);
	fputs(" 2001:2a::2 198.18.1.2\n2001:2a::2 198.18.1.3\n", f);
	ck_assert_int_eq(fclose(f), 0);
	inet_pton(AF_INET6, "2001:2a::2", hit);
	ck_assert_int_eq(hip_lsi_file_lsi_of(HIP_NSS_LSI_FILE, hit, lsi), 0);
	ck_assert_str_eq(ntop(AF_INET, lsi), "198.18.1.3");
	/* a table larger than one read: every line found, both ways, the
	 * last without its newline */
	f = fopen(HIP_NSS_LSI_FILE, "w");
	ck_assert_ptr_nonnull(f);
	for (i = 1; i <= 4000; i++)
		fprintf(f, "2001:2a::%zx 198.18.%zu.%zu%s", i, i / 256, i % 256,
			i < 4000 ? "\n" : "");
	ck_assert_int_eq(fclose(f), 0);
	for (i = 1; i <= 4000; i++) {
		uint8_t want[4] = { 198, 18, (uint8_t)(i / 256), (uint8_t)(i % 256) }, h2[16];

		memset(hit, 0, sizeof(hit));
		hit[0] = 0x20, hit[1] = 0x01, hit[3] = 0x2a;
		hit[14] = (uint8_t)(i >> 8), hit[15] = (uint8_t)i;
		ck_assert_msg(hip_lsi_file_lsi_of(HIP_NSS_LSI_FILE, hit, lsi) == 0 &&
			      memcmp(lsi, want, 4) == 0, "line %zu", i);
		ck_assert_msg(hip_lsi_file_hit_of(HIP_NSS_LSI_FILE, want, h2) == 0 &&
			      memcmp(h2, hit, 16) == 0, "line %zu (by LSI)", i);
	}
	/* past the bound: not read */
	f = fopen(HIP_NSS_LSI_FILE, "w");
	ck_assert_ptr_nonnull(f);
	for (i = 0; i < HIP_LSI_FILE_MAX / 64; i++)
		fprintf(f, "# %061zu\n", i);
	fputs("2001:2a::2 198.18.1.4\n", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(hip_lsi_file_lsi_of(HIP_NSS_LSI_FILE, hit, lsi), -ENOENT);
	/* one endless line: read no further than the bound either */
	f = fopen(HIP_NSS_LSI_FILE, "w");
	ck_assert_ptr_nonnull(f);
	for (i = 0; i < HIP_LSI_FILE_MAX / 64 + 1; i++)
		fprintf(f, "%064zu", i);
	fputs("\n2001:2a::2 198.18.1.4\n", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(hip_lsi_file_lsi_of(HIP_NSS_LSI_FILE, hit, lsi), -ENOENT);
	ck_assert_int_eq(hip_lsi_file_hit_of(HIP_NSS_LSI_FILE, (const uint8_t[]){ 198, 18, 1, 4 },
					     hit), -ENOENT);
}
END_TEST

static Suite *nss_suite(void)
{
	Suite *s = suite_create("nss");
	TCase *tc = tcase_create("nss");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_byname4);
	tcase_add_test(tc, test_byname3);
	tcase_add_test(tc, test_not_found);
	tcase_add_test(tc, test_erange);
	tcase_add_test(tc, test_byaddr);
	tcase_add_test(tc, test_byname4_preset_tuple);
	tcase_add_test(tc, test_long_line);
	tcase_add_test(tc, test_threads);
	tcase_add_test(tc, test_lsi_from_hipd);
	tcase_add_test(tc, test_lsi_line_parse);
	tcase_add_test(tc, test_lsi_file_bounds);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(nss_suite)
