/*
 * check_daemon.c - the real hipd and hipconf binaries (from the build
 * directory, or $HIPD_BIN / $HIPCONF_BIN): options and exit codes, config
 * errors, pid file and control socket life cycle, SIGHUP reload, SIGTERM,
 * daemonizing, and hipconf's messages.
 *
 * Waiting for the daemon polls with an upper bound; nothing asserts on time.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

enum { NOBODY = 65534, NOGROUP = 65534 };

static char dir[64], conf[128], sock[128], pidf[128], log_path[128];
static char out[65536], errout[65536];

static const char *bin(const char *env, const char *rel)
{
	const char *p = getenv(env);

	p = p ? p : rel;
	ck_assert_msg(access(p, X_OK) == 0, "%s not built (cwd must be the build directory, "
		      "or set %s)", p, env);
	return p;
}

#define HIPD bin("HIPD_BIN", "hipd/hipd")
#define HIPCONF bin("HIPCONF_BIN", "tools/hipconf")

static void write_file(const char *path, const char *fmt, ...)
{
	va_list ap;
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	ck_assert_int_eq(fclose(f), 0);
}

static void read_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return;
	n = read(fd, buf, cap - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
}

static void setup(void)
{
	strcpy(dir, "/tmp/check_daemon.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(conf, sizeof(conf), "%s/hipd.conf", dir);
	snprintf(sock, sizeof(sock), "%s/run/hipd.sock", dir);
	snprintf(pidf, sizeof(pidf), "%s/run/hipd.pid", dir);
	snprintf(log_path, sizeof(log_path), "%s/hipd.log", dir);
	/* user = root: run as root (with only CAP_NET_ADMIN/CAP_NET_RAW), no hipd user needed */
	write_file(conf, "config_dir = %s\ncontrol_socket = %s\npid_file = %s\nstate_dir = %s\n"
		   "lsi_file = %s/lsi\nlog_level = debug\nuser = root\n", dir, sock, pidf, dir, dir);
	write_file(strcat(strcpy(out, dir), "/hosts"), "2001:2a::1 192.0.2.1\n");
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

/* In a child: optionally become nobody, redirect, exec. */
static pid_t spawn(char *const argv[], const char *out_path, const char *err_path,
		   bool as_nobody)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(120);
		if (as_nobody && (setgroups(0, NULL) || setgid(NOGROUP) || setuid(NOBODY)))
			_exit(121);
		execv(argv[0], argv);
		_exit(122);
	}
	return pid;
}

/* Run to completion; stdout in out, stderr in errout; returns the exit
 * status (or 128 + signal). */
static int run_argv(bool as_nobody, char *const argv[])
{
	char op[160], ep[160];
	int status;
	pid_t pid;

	snprintf(op, sizeof(op), "%s/out", dir);
	snprintf(ep, sizeof(ep), "%s/err", dir);
	if (as_nobody) {
		/* nobody must be able to write them */
		write_file(op, "%s", "");
		write_file(ep, "%s", "");
		ck_assert_int_eq(chmod(op, 0666) | chmod(ep, 0666), 0);
	}
	pid = spawn(argv, op, ep, as_nobody);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	read_file(op, out, sizeof(out));
	read_file(ep, errout, sizeof(errout));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#define RUN(...) run_argv(false, (char *const[]){ __VA_ARGS__, NULL })
#define RUN_NOBODY(...) run_argv(true, (char *const[]){ __VA_ARGS__, NULL })
#define HC(...) RUN((char *)HIPCONF, "--socket", sock, __VA_ARGS__)

/* Poll (bounded) until cond holds. */
#define WAIT_FOR(cond, what) \
	do { \
		int tries_; \
		for (tries_ = 0; tries_ < 1000 && !(cond); tries_++) \
			usleep(10000); \
		ck_assert_msg(cond, "timed out waiting for %s", what); \
	} while (0)

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static pid_t start_foreground(void)
{
	pid_t pid = spawn((char *const[]){ (char *)HIPD, "--foreground", "--log-stderr", "-c",
					   conf, NULL }, "/dev/null", log_path, false);

	WAIT_FOR(exists(sock) || waitpid(pid, NULL, WNOHANG) != 0, "the control socket");
	if (!exists(sock)) {
		read_file(log_path, errout, sizeof(errout));
		ck_abort_msg("hipd did not start: %s", errout);
	}
	return pid;
}

static int stop(pid_t pid)
{
	int status;

	ck_assert_int_eq(kill(pid, SIGTERM), 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

START_TEST(test_help_and_version)
{
	ck_assert_int_eq(RUN((char *)HIPD, "--help"), 0);
	ck_assert_ptr_nonnull(strstr(out, "Usage: hipd [OPTION]..."));
	ck_assert_ptr_nonnull(strstr(out, "--control-socket PATH"));
	ck_assert_ptr_nonnull(strstr(out, "--no-privsep"));
	ck_assert_int_eq(RUN((char *)HIPD, "-V"), 0);
	ck_assert_str_eq(out, "hipd " PACKAGE_VERSION "\n");
	ck_assert_int_eq(RUN((char *)HIPD, "--bogus"), 2);
	ck_assert_ptr_nonnull(strstr(errout, "Try 'hipd --help'"));
	ck_assert_int_eq(RUN((char *)HIPD, "-f", "stray"), 2);
	ck_assert_ptr_nonnull(strstr(errout, "hipd: unexpected argument 'stray'"));

	ck_assert_int_eq(RUN((char *)HIPCONF, "--help"), 0);
	ck_assert_ptr_nonnull(strstr(out, "Usage: hipconf [--socket PATH] [--json] COMMAND"));
	ck_assert_ptr_nonnull(strstr(out, "  add map HIT IP "));
	ck_assert_ptr_nonnull(strstr(out, "  show associations "));
	ck_assert_ptr_nonnull(strstr(out, "  set puzzle K|auto "));
	ck_assert_ptr_nonnull(strstr(out, "5 hipd not running"));
	ck_assert_int_eq(RUN((char *)HIPCONF), 1);
	ck_assert_ptr_nonnull(strstr(errout, "Usage: hipconf"));
}
END_TEST

START_TEST(test_config_errors)
{
	char want[256], bad[160];

	snprintf(bad, sizeof(bad), "%s/bad.conf", dir);
	write_file(bad, "# fine\nbogus = 1\n");
	ck_assert_int_eq(RUN((char *)HIPD, "-f", "-c", bad), 2);
	snprintf(want, sizeof(want), "hipd: %s:2: unknown key 'bogus'\n", bad);
	ck_assert_str_eq(errout, want);
	ck_assert(!exists(pidf));
	ck_assert_int_eq(RUN((char *)HIPD, "-f", "-c", "/nonexistent/hipd.conf"), 2);
	ck_assert_str_eq(errout, "hipd: /nonexistent/hipd.conf: No such file or directory\n");
	ck_assert_int_eq(RUN((char *)HIPD, "-f", "-c", conf, "--pid-file", "run/x.pid"), 2);
	ck_assert_str_eq(errout, "hipd: --pid-file: pid_file: 'run/x.pid' is not an absolute "
			 "path\n");
	/* --check-config reads the hosts file too */
	ck_assert_int_eq(RUN((char *)HIPD, "-t", "-c", conf), 0);
	snprintf(want, sizeof(want), "%s: ok\n%s/hosts: ok\n", conf, dir);
	ck_assert_str_eq(out, want);
	snprintf(bad, sizeof(bad), "%s/hosts", dir);
	write_file(bad, "2001:2a::1 192.0.2.1\n2001:2a::1 192.0.2.2\n");
	ck_assert_int_eq(RUN((char *)HIPD, "-t", "-c", conf), 2);
	snprintf(want, sizeof(want), "hipd: %s:2: HIT 2001:2a::1 is already listed on line 1\n",
		 bad);
	ck_assert_str_eq(errout, want);
}
END_TEST

/* hipconf checks arguments itself, before it even looks for hipd. */
START_TEST(test_hipconf_client_side)
{
	char want[256];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	ck_assert_int_eq(HC("add", "map", "foo", "192.0.2.1"), 1);
	ck_assert_str_eq(errout, "hipconf: 'foo' is not a HIT (expected an IPv6 address in "
			 "2001:20::/28)\n");
	ck_assert_int_eq(HC("trigger", "tablet"), 1);   /* a HIT or an address (D-27) */
	ck_assert_str_eq(errout, "hipconf: 'tablet' is neither a HIT (2001:20::/28) nor an IP "
			 "address\n");
	ck_assert_int_eq(HC("add", "map", "2001:2a::1", "192.0.2"), 1);
	ck_assert_str_eq(errout, "hipconf: '192.0.2' is not an IPv4 or IPv6 address\n");
	ck_assert_int_eq(HC("add", "map", "2001:2a::1", "2001:2b::1"), 1);
	ck_assert_str_eq(errout, "hipconf: '2001:2b::1' is a HIT (2001:20::/28), not a "
			 "locator\n");
	ck_assert_int_eq(HC("del", "map", "2001:2a::1", "224.0.0.5"), 1);
	ck_assert_int_eq(HC("set", "loglevel", "loud"), 1);
	ck_assert_str_eq(errout, "hipconf: 'loud' is not a log level (err, warning, notice, "
			 "info, debug)\n");
	ck_assert_int_eq(HC("set", "puzzle", "29"), 1);
	ck_assert_str_eq(errout, "hipconf: '29' is not a puzzle difficulty (0..28 or auto)\n");
	ck_assert_int_eq(HC("set", "puzzle", "-1"), 1);
	ck_assert_int_eq(HC("add", "map", "2001:2a::1"), 1);
	ck_assert_str_eq(errout, "hipconf: usage: hipconf add map HIT IP\n");
	ck_assert_int_eq(HC("show"), 1);
	ck_assert_str_eq(errout, "hipconf: unknown command 'show'\nTry 'hipconf --help' for "
			 "the list of commands.\n");
	ck_assert_int_eq(HC("frobnicate"), 1);
	/* valid arguments, no daemon */
	ck_assert_int_eq(HC("show", "maps"), 5);
	snprintf(want, sizeof(want), "hipconf: hipd is not running (no socket at %s)\n", sock);
	ck_assert_str_eq(errout, want);
	ck_assert_str_eq(out, "");
	/* a socket file nobody listens on (hipd was killed) */
	ck_assert_int_eq(mkdir(strcat(strcpy(want, dir), "/run"), 0755), 0);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	strcpy(sa.sun_path, sock);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
	ck_assert_int_eq(HC("show", "maps"), 5);
	snprintf(want, sizeof(want), "hipconf: hipd is not running (nothing listens on %s)\n",
		 sock);
	ck_assert_str_eq(errout, want);
}
END_TEST

START_TEST(test_lifecycle)
{
	char buf[256], want[256], other_pid[160];
	pid_t pid = start_foreground();

	/* pid file = our child */
	read_file(pidf, buf, sizeof(buf));
	snprintf(want, sizeof(want), "%d\n", (int)pid);
	ck_assert_str_eq(buf, want);
	ck_assert_int_eq(HC("show", "config"), 0);
	ck_assert_ptr_nonnull(strstr(out, "\npuzzle_k = 0\n"));
	ck_assert_ptr_nonnull(strstr(out, "\nlog_level = debug\n"));
	ck_assert_int_eq(HC("--json", "show", "maps"), 0);
	ck_assert_str_eq(out, "{\"maps\":[{\"hit\":\"2001:2a::1\",\"locators\":[{\"address\":"
			 "\"192.0.2.1\",\"source\":\"file\"}],\"lsi\":\"198.19.78.93\","
			 "\"lsi_source\":\"derived\"}]}\n");
	ck_assert_int_eq(HC("add", "map", "2001:2a::2", "fd00::2"), 0);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(HC("del", "map", "2001:2a::3"), 3);
	ck_assert_str_eq(errout, "hipconf: no mapping for 2001:2a::3\n");
	ck_assert_int_eq(HC("--json", "del", "map", "2001:2a::3"), 3);
	ck_assert_str_eq(out, "{\"error\":\"no mapping for 2001:2a::3\"}\n");

	/* a second hipd with the same pid file refuses to start */
	ck_assert_int_eq(RUN((char *)HIPD, "-f", "-c", conf), 1);
	snprintf(want, sizeof(want), "another hipd (pid %d) is running with pid file %s",
		 (int)pid, pidf);
	ck_assert_msg(strstr(errout, want), "stderr: %s", errout);
	/* another pid file, the same socket: refused too, files left alone */
	snprintf(other_pid, sizeof(other_pid), "%s/other.pid", dir);
	ck_assert_int_eq(RUN((char *)HIPD, "-f", "-c", conf, "--pid-file", other_pid), 1);
	ck_assert_msg(strstr(errout, "another hipd is listening there"), "stderr: %s", errout);
	ck_assert(!exists(other_pid));
	ck_assert(exists(sock));
	ck_assert_int_eq(HC("show", "maps"), 0);

	/* SIGHUP: new config and hosts; runtime maps stay */
	snprintf(buf, sizeof(buf), "%s/hosts", dir);
	write_file(buf, "2001:2a::5 192.0.2.5\n");
	write_file(conf, "config_dir = %s\ncontrol_socket = %s\npid_file = %s\nstate_dir = %s\n"
		   "lsi_file = %s/lsi\nlog_level = debug\npuzzle_k = 7\nuser = root\n", dir, sock,
		   pidf, dir, dir);
	ck_assert_int_eq(kill(pid, SIGHUP), 0);
	WAIT_FOR(HC("show", "config") == 0 && strstr(out, "\npuzzle_k = 7\n"), "the reload");
	ck_assert_int_eq(HC("show", "maps"), 0);
	ck_assert_ptr_nonnull(strstr(out, "2001:2a::5"));
	ck_assert_ptr_nonnull(strstr(out, "2001:2a::2"));
	ck_assert_ptr_null(strstr(out, "2001:2a::1 "));
	/* hipconf reload reports a broken file; nothing changes */
	write_file(conf, "puzzle_k = 9\n\nnope = 1\n");
	ck_assert_int_eq(HC("reload"), 4);
	snprintf(want, sizeof(want), "hipconf: reload failed, nothing changed: %s:3: unknown key "
		 "'nope'\n", conf);
	ck_assert_str_eq(errout, want);
	ck_assert_int_eq(HC("show", "config"), 0);
	ck_assert_ptr_nonnull(strstr(out, "\npuzzle_k = 7\n"));

	/* SIGTERM: exit 0, socket and pid file gone */
	ck_assert_int_eq(stop(pid), 0);
	ck_assert(!exists(sock));
	ck_assert(!exists(pidf));
	read_file(log_path, out, sizeof(out));
	ck_assert_ptr_nonnull(strstr(out, "<5>SIGTERM received, exiting\n"));
	ck_assert_ptr_nonnull(strstr(out, "<5>reloaded "));
	ck_assert_ptr_nonnull(strstr(out, "<3>reload failed, configuration unchanged: "));
	/* a pid file left by a crash does not block the next start */
	write_file(conf, "config_dir = %s\ncontrol_socket = %s\npid_file = %s\nlsi_file = %s/lsi\n"
		   "user = root\n", dir, sock, pidf, dir);
	write_file(pidf, "999999\n");
	pid = start_foreground();
	ck_assert_int_eq(stop(pid), 0);
}
END_TEST

START_TEST(test_daemonize)
{
	char buf[64], bad[160], badsock[180];
	pid_t pid;

	/* returns once the daemon is ready, with its socket in place */
	ck_assert_int_eq(RUN((char *)HIPD, "-c", conf), 0);
	ck_assert(exists(sock));
	read_file(pidf, buf, sizeof(buf));
	pid = (pid_t)atoi(buf);
	ck_assert_int_gt(pid, 1);
	ck_assert_int_eq(kill(pid, 0), 0);
	ck_assert_int_eq(HC("show", "maps"), 0);
	ck_assert_ptr_nonnull(strstr(out, "2001:2a::1"));
	ck_assert_int_eq(kill(pid, SIGTERM), 0);
	WAIT_FOR(!exists(pidf) && kill(pid, 0) != 0, "the daemon to exit");
	ck_assert(!exists(sock));
	/* a daemon that cannot start makes `hipd` fail */
	snprintf(bad, sizeof(bad), "%s/file", dir);
	write_file(bad, "x");
	snprintf(badsock, sizeof(badsock), "%s/file/hipd.sock", dir);
	ck_assert_int_eq(RUN((char *)HIPD, "-c", conf, "--control-socket", badsock), 1);
	ck_assert_msg(strstr(errout, "cannot create its directory: Not a directory"), "%s",
		      errout);
	ck_assert(!exists(pidf));
}
END_TEST

/* A user neither root nor in control_group: refused by the socket's mode,
 * and by SO_PEERCRED when the mode lets it connect. */
START_TEST(test_permission_denied)
{
	pid_t pid;

	if (geteuid() != 0) {
		fprintf(stderr, "test_permission_denied: needs root, skipped\n");
		return;
	}
	ck_assert_int_eq(chmod(dir, 0755), 0);
	pid = start_foreground();
	ck_assert_int_eq(RUN_NOBODY((char *)HIPCONF, "--socket", sock, "show", "maps"), 2);
	ck_assert_ptr_nonnull(strstr(errout, "Permission denied (root or the hipd group "
				     "needed)"));
	ck_assert_int_eq(chmod(sock, 0666), 0);
	ck_assert_int_eq(RUN_NOBODY((char *)HIPCONF, "--socket", sock, "show", "maps"), 2);
	ck_assert_str_eq(errout, "hipconf: permission denied\n");
	ck_assert_int_eq(RUN_NOBODY((char *)HIPCONF, "--socket", sock, "--json", "reload"), 2);
	ck_assert_str_eq(out, "{\"error\":\"permission denied\"}\n");
	ck_assert_int_eq(stop(pid), 0);
}
END_TEST

static Suite *daemon_suite(void)
{
	Suite *s = suite_create("daemon");
	TCase *tc = tcase_create("binaries");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_help_and_version);
	tcase_add_test(tc, test_config_errors);
	tcase_add_test(tc, test_hipconf_client_side);
	tcase_add_test(tc, test_lifecycle);
	tcase_add_test(tc, test_daemonize);
	tcase_add_test(tc, test_permission_denied);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(daemon_suite)
