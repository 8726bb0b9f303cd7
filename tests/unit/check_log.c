/*
 * check_log.c - hipd logging: levels, stderr formats (plain, "<N>" for
 * journald), one line per event, rate limiting.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "unit.h"

/* Capture fd 2 into a temporary file for the duration of a test. */
struct capture {
	int saved, fd;
	char path[64];
};

static void capture_start(struct capture *c)
{
	strcpy(c->path, "/tmp/check_log.XXXXXX");
	c->fd = mkstemp(c->path);
	ck_assert_int_ge(c->fd, 0);
	unlink(c->path);
	fflush(stderr);
	c->saved = dup(STDERR_FILENO);
	ck_assert_int_ge(c->saved, 0);
	ck_assert_int_eq(dup2(c->fd, STDERR_FILENO), STDERR_FILENO);
}

/* Stop capturing; returns what was written (static buffer). */
static const char *capture_end(struct capture *c)
{
	static char buf[8192];
	ssize_t n;

	dup2(c->saved, STDERR_FILENO);
	close(c->saved);
	n = pread(c->fd, buf, sizeof(buf) - 1, 0);
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	close(c->fd);
	return buf;
}

static void teardown(void)
{
	log_close();
	log_set_level(LOG_INFO);
	unsetenv("JOURNAL_STREAM");
}

START_TEST(test_level_names)
{
	static const struct { const char *name; int level; } ok[] = {
		{ "err", LOG_ERR }, { "warning", LOG_WARNING }, { "notice", LOG_NOTICE },
		{ "info", LOG_INFO }, { "debug", LOG_DEBUG }, { "error", LOG_ERR },
		{ "warn", LOG_WARNING },
	};
	size_t i;
	int level;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_int_eq(log_level_from_name(ok[i].name, &level), 0);
		ck_assert_int_eq(level, ok[i].level);
	}
	ck_assert_int_eq(log_level_from_name("loud", &level), -EINVAL);
	ck_assert_int_eq(log_level_from_name("INFO", &level), -EINVAL);
	ck_assert_int_eq(log_level_from_name("", &level), -EINVAL);
	ck_assert_str_eq(log_level_name(LOG_WARNING), "warning");
	ck_assert_str_eq(log_level_name(LOG_ERR), "err");
}
END_TEST

START_TEST(test_plain_stderr_levels)
{
	struct capture c;
	const char *out, *debug;

	capture_start(&c);
	log_open("tst", LOG_DEST_STDERR);
	log_set_level(LOG_NOTICE);
	log_err("bad %d", 1);
	log_warn("careful");
	log_notice("note %s", "x");
	log_info("not shown");
	log_debug("not shown either");
	log_set_level(LOG_DEBUG);
	ck_assert(log_enabled(LOG_DEBUG));
	log_debug("shown %u", 7u);
	out = capture_end(&c);
	/* debug lines name their function (Check names it after the test) */
	debug = strstr(out, "tst: debug: ");
	ck_assert_ptr_nonnull(debug);
	ck_assert(strncmp(out, "tst: err: bad 1\n"
			       "tst: warning: careful\n"
			       "tst: notice: note x\n", (size_t)(debug - out)) == 0);
	ck_assert_ptr_nonnull(strstr(debug, "test_plain_stderr_levels"));
	ck_assert_str_eq(strchr(debug + 12, ' '), " shown 7\n");
}
END_TEST

START_TEST(test_priority_prefix)
{
	struct capture c;
	const char *out;

	capture_start(&c);
	log_open("tst", LOG_DEST_STDERR_PRI);
	log_err("e");
	log_info("i");
	out = capture_end(&c);
	ck_assert_str_eq(out, "<3>e\n<6>i\n");
}
END_TEST

/* JOURNAL_STREAM counts only when it names our stderr (systemd.exec(5)). */
START_TEST(test_journal_stream)
{
	struct capture c;
	struct stat st;
	char env[64];
	const char *out;

	capture_start(&c);
	ck_assert_int_eq(fstat(STDERR_FILENO, &st), 0);
	snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino + 1);
	setenv("JOURNAL_STREAM", env, 1);
	log_open("tst", LOG_DEST_STDERR);
	log_warn("other stream");
	snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", env, 1);
	log_open("tst", LOG_DEST_STDERR);
	log_warn("journal");
	out = capture_end(&c);
	ck_assert_str_eq(out, "tst: warning: other stream\n<4>journal\n");
}
END_TEST

/* Peer-controlled text cannot split or forge log lines. */
START_TEST(test_one_line_per_event)
{
	char big[3000];
	struct capture c;
	const char *out, *nl;

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	capture_start(&c);
	log_open("tst", LOG_DEST_STDERR_PRI);
	log_notice("peer said %s", "hi\n<3>forged\r\x1b[2J");
	log_notice("%s", big);
	out = capture_end(&c);
	nl = strchr(out, '\n');
	ck_assert_ptr_nonnull(nl);
	ck_assert_int_eq((int)(nl - out + 1), (int)strlen("<5>peer said hi?<3>forged??[2J\n"));
	ck_assert(strncmp(out, "<5>peer said hi?<3>forged??[2J\n", (size_t)(nl - out + 1)) == 0);
	/* the long line is cut, marked, and still one line */
	ck_assert_ptr_nonnull(strstr(nl + 1, "aaa...\n"));
	ck_assert_ptr_null(strchr(strchr(nl + 1, '\n') + 1, '\n'));
}
END_TEST

START_TEST(test_errno_preserved)
{
	struct capture c;

	capture_start(&c);
	log_open("tst", LOG_DEST_STDERR);
	errno = EADDRINUSE;
	log_err("x");
	ck_assert_int_eq(errno, EADDRINUSE);
	capture_end(&c);
}
END_TEST

START_TEST(test_ratelimit_check)
{
	struct log_ratelimit rl = LOG_RATELIMIT_INIT(1000, 3);
	const uint64_t t0 = 5000000000ull, ms = 1000000ull;
	unsigned report;
	int i;

	for (i = 0; i < 3; i++) {
		ck_assert(log_ratelimit_check(&rl, t0 + (uint64_t)i * ms, &report));
		ck_assert_uint_eq(report, 0);
	}
	for (i = 0; i < 4; i++)
		ck_assert(!log_ratelimit_check(&rl, t0 + 500 * ms, &report));
	/* still inside the interval */
	ck_assert(!log_ratelimit_check(&rl, t0 + 999 * ms, &report));
	/* a new interval: the first line carries the count of the dropped */
	ck_assert(log_ratelimit_check(&rl, t0 + 1000 * ms, &report));
	ck_assert_uint_eq(report, 5);
	ck_assert(log_ratelimit_check(&rl, t0 + 1001 * ms, &report));
	ck_assert_uint_eq(report, 0);
}
END_TEST

START_TEST(test_ratelimited_output)
{
	struct log_ratelimit rl;
	struct capture c;
	const char *out;
	int i;

	log_ratelimit_init(&rl, 3600 * 1000, 2);
	capture_start(&c);
	log_open("tst", LOG_DEST_STDERR_PRI);
	for (i = 0; i < 5; i++)
		log_ratelimited(&rl, LOG_WARNING, "bad packet %d", i);
	/* pretend the interval is over */
	rl.window_start -= rl.interval_ns;
	log_ratelimited(&rl, LOG_WARNING, "bad packet %d", 5);
	/* a disabled level neither prints nor counts */
	log_ratelimited(&rl, LOG_DEBUG, "debug %d", 6);
	out = capture_end(&c);
	ck_assert_str_eq(out, "<4>bad packet 0\n<4>bad packet 1\n"
			      "<4>... 3 similar messages suppressed\n<4>bad packet 5\n");
	ck_assert_uint_eq(rl.suppressed, 0);
}
END_TEST

static Suite *log_suite(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("log");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, test_level_names);
	tcase_add_test(tc, test_plain_stderr_levels);
	tcase_add_test(tc, test_priority_prefix);
	tcase_add_test(tc, test_journal_stream);
	tcase_add_test(tc, test_one_line_per_event);
	tcase_add_test(tc, test_errno_preserved);
	tcase_add_test(tc, test_ratelimit_check);
	tcase_add_test(tc, test_ratelimited_output);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(log_suite)
