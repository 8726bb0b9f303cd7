/*
 * check_nss.c - the NSS module's entry points called directly (nss/,
 * D-19), on a hosts file this suite writes at HIP_NSS_HOSTS_FILE (set for
 * this binary by tests/local.mk): answers, the status that keeps HIP-only
 * names away from DNS, ERANGE for every too-small buffer, reverse lookups.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
 * (no state shared between calls). */
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
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(nss_suite)
