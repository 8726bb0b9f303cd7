/*
 * check_control.c - the control socket: request framing, JSON escaping, the
 * command table, SO_PEERCRED permissions (with a child running as nobody),
 * the socket file. The daemon's own commands: check_control_cmds.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "control/control.h"
#include "ctl_harness.h"
#include "base/loop.h"
#include "unit.h"

enum { NOBODY = 65534, NOGROUP = 65534 };

static int h_detail(const struct control_request *req, struct control_reply *rep, void *arg)
{
	control_reply_printf(rep, "detail");
	return CTL_OK;
}

/* ---- framing ---- */

START_TEST(test_proto)
{
	static const char *const argv[] = { "add", "map", "2001:2a::1", "10.0.0.1" };
	const char *out[CTL_ARGS_MAX], *many[CTL_ARGS_MAX + 1];
	uint8_t buf[CTL_HDR_LEN + CTL_REQ_MAX + 8], flags;
	char longw[CTL_REQ_MAX];
	int n, argc, i;

	n = ctl_request_encode(buf, sizeof(buf), CTL_F_JSON, 4, argv);
	ck_assert_int_eq(n, 4 + 1 + 4 + 4 + 11 + 9);
	ck_assert_uint_eq(ctl_len_get(buf), (uint32_t)n - 4);
	ck_assert_int_eq(buf[0], 0);
	ck_assert_int_eq(buf[3], n - 4);
	ck_assert_int_eq(buf[4], CTL_F_JSON);
	ck_assert(memcmp(buf + 5, "add\0map\0", 8) == 0);
	ck_assert_int_eq(ctl_request_decode(buf + 4, (size_t)n - 4, &flags, out, &argc), 0);
	ck_assert_int_eq(flags, CTL_F_JSON);
	ck_assert_int_eq(argc, 4);
	for (i = 0; i < 4; i++)
		ck_assert_str_eq(out[i], argv[i]);

	/* malformed bodies */
	ck_assert_int_eq(ctl_request_decode((const uint8_t *)"\0a", 2, &flags, out, &argc),
			 -EBADMSG);
	ck_assert_int_eq(ctl_request_decode((const uint8_t *)"\0ab", 3, &flags, out, &argc),
			 -EBADMSG);          /* no final NUL */
	ck_assert_int_eq(ctl_request_decode((const uint8_t *)"\0a\0\0", 4, &flags, out, &argc),
			 -EBADMSG);          /* empty word */
	ck_assert_int_eq(ctl_request_decode((const uint8_t *)"\x02" "a", 3, &flags, out, &argc),
			 -EBADMSG);          /* unknown flag */
	ck_assert_int_eq(ctl_request_decode((const uint8_t *)"\0a\nb", 5, &flags, out, &argc),
			 -EBADMSG);          /* control character */
	ck_assert_int_eq(ctl_request_decode((const uint8_t *)"\0a\x7f", 4, &flags, out, &argc),
			 -EBADMSG);
	for (i = 0; i <= CTL_ARGS_MAX; i++)
		many[i] = "w";
	ck_assert_int_eq(ctl_request_encode(buf, sizeof(buf), 0, CTL_ARGS_MAX + 1, many),
			 -EINVAL);
	buf[0] = 0;
	for (i = 0; i <= CTL_ARGS_MAX; i++)
		memcpy(buf + 1 + 2 * i, "w", 2);
	ck_assert_int_eq(ctl_request_decode(buf, 1 + 2 * (CTL_ARGS_MAX + 1), &flags, out, &argc),
			 -E2BIG);
	/* sizes */
	memset(longw, 'x', sizeof(longw) - 1);
	longw[sizeof(longw) - 1] = '\0';
	many[0] = longw;
	ck_assert_int_eq(ctl_request_encode(buf, sizeof(buf), 0, 1, many), -EMSGSIZE);
	longw[CTL_REQ_MAX - 2] = '\0';     /* flags + word + NUL = CTL_REQ_MAX */
	ck_assert_int_eq(ctl_request_encode(buf, sizeof(buf), 0, 1, many),
			 CTL_HDR_LEN + CTL_REQ_MAX);
	ck_assert_int_eq(ctl_request_encode(buf, 100, 0, 1, many), -EMSGSIZE);
	many[0] = "";
	ck_assert_int_eq(ctl_request_encode(buf, sizeof(buf), 0, 1, many), -EINVAL);
	ck_assert_int_eq(ctl_request_encode(buf, sizeof(buf), 0x80, 1, argv), -EINVAL);
	ck_assert_str_eq(ctl_status_str(CTL_EPERM), "permission denied");
}
END_TEST

START_TEST(test_json_escape)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "", "\"\"" },
		{ "plain", "\"plain\"" },
		{ "q\"b\\s", "\"q\\\"b\\\\s\"" },
		{ "l1\nl2\tt\r", "\"l1\\nl2\\tt\\r\"" },
		{ "\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		  "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"" },
		{ "bad\xff", "\"bad\\ufffd\"" },
		{ "\xc3", "\"\\ufffd\"" },                   /* truncated sequence */
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },        /* overlong '/' */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" }, /* surrogate */
	};
	char out[128];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = control_json_escape(out, sizeof(out), cases[i].in);

		ck_assert_str_eq(out, cases[i].out);
		ck_assert_uint_eq(n, strlen(cases[i].out));
		ck_assert(json_valid(out));
	}
	/* a short buffer: the needed length, a terminated prefix */
	ck_assert_uint_eq(control_json_escape(out, 4, "abcdef"), 8);
	ck_assert_str_eq(out, "\"ab");
	ck_assert_uint_eq(control_json_escape(NULL, 0, "a\""), 5);
	/* the validator itself refuses what it should */
	ck_assert(!json_valid("{\"a\":}"));
	ck_assert(!json_valid("\"raw\nnewline\""));
	ck_assert(!json_valid("[1,]"));
	ck_assert(json_valid("{\"a\":[1,true,null,\"x\"],\"b\":{}}"));
}
END_TEST

/* ---- the command table ---- */

START_TEST(test_commands)
{
	struct resp r;
	int fd;

	make_server(NULL);
	fd = client_pair();
	REQ(fd, 0, &r, "show", "thing");
	ck_assert_int_eq(r.status, CTL_OK);
	ck_assert_str_eq(r.text, "thing");
	ck_assert_int_eq(show_calls, 1);
	REQ(fd, CTL_F_JSON, &r, "show", "thing");
	ck_assert_str_eq(r.text, "{\"thing\":1}");
	/* the longest registered match wins */
	REQ(fd, 0, &r, "show", "thing", "detail");
	ck_assert_str_eq(r.text, "detail");
	REQ(fd, 0, &r, "set", "thing", "v", "extra");
	ck_assert_int_eq(r.status, CTL_OK);
	ck_assert_str_eq(r.text, "set v argc=2 uid=0");
	/* argument counts */
	REQ(fd, 0, &r, "set", "thing");
	ck_assert_int_eq(r.status, CTL_EUSAGE);
	ck_assert_str_eq(r.text, "usage: set thing VALUE [EXTRA]");
	REQ(fd, 0, &r, "set", "thing", "a", "b", "c");
	ck_assert_int_eq(r.status, CTL_EUSAGE);
	REQ(fd, 0, &r, "show", "thing", "x");
	ck_assert_int_eq(r.status, CTL_EUSAGE);
	ck_assert_str_eq(r.text, "usage: show thing");
	/* unknown commands */
	REQ(fd, 0, &r, "frobnicate");
	ck_assert_int_eq(r.status, CTL_EUSAGE);
	ck_assert_str_eq(r.text, "unknown command 'frobnicate'; 'help' lists the commands");
	REQ(fd, 0, &r, "show", "associations");
	ck_assert_str_eq(r.text, "unknown command 'show associations'; 'help' lists the "
			 "commands");
	REQ(fd, CTL_F_JSON, &r, "show", "nothing");
	ck_assert_int_eq(r.status, CTL_EUSAGE);
	ck_assert_str_eq(r.text, "{\"error\":\"unknown command 'show nothing'; 'help' lists "
			 "the commands\"}");
	/* an error replaces partial output, and is escaped in JSON */
	REQ(fd, 0, &r, "fail");
	ck_assert_int_eq(r.status, CTL_ENOENT);
	ck_assert_str_eq(r.text, "no such \"thing\"");
	REQ(fd, CTL_F_JSON, &r, "fail");
	ck_assert_str_eq(r.text, "{\"error\":\"no such \\\"thing\\\"\"}");
	/* the connection survived all of that */
	ck_assert_uint_eq(control_connection_count(ctl), 1);
	close(fd);
}
END_TEST

START_TEST(test_help)
{
	struct resp r;
	int fd;

	make_server(NULL);
	fd = client_pair();
	REQ(fd, 0, &r, "help");
	ck_assert_int_eq(r.status, CTL_OK);
	/* sorted, with synopsis, help and the root-only mark */
	ck_assert_str_eq(r.text,
			 "big                          too much output\n"
			 "fail                         always fails\n"
			 "help                         list the commands\n"
			 "set thing VALUE [EXTRA]      set the thing (root)\n"
			 "show thing                   show the thing\n"
			 "show thing detail            more\n");
	REQ(fd, CTL_F_JSON, &r, "help");
	ck_assert(json_valid(r.text));
	ck_assert_ptr_nonnull(strstr(r.text, "{\"command\":\"set thing\",\"args\":\"VALUE "
				     "[EXTRA]\",\"read_only\":false,\"help\":\"set the thing\"}"));
	close(fd);
}
END_TEST

START_TEST(test_register_errors)
{
	static const struct control_cmd five = { "a b c d e", "", 0, 0, true, h_detail, "" };
	static const struct control_cmd counts = { "x", "", 2, 1, true, h_detail, "" };
	static const struct control_cmd nohandler = { "y", "", 0, 0, true, NULL, "" };
	static const struct control_cmd dup = { "show  thing", "", 0, 0, true, h_detail, "" };

	make_server(NULL);
	static const struct control_cmd again = { "show thing", "", 0, 0, true, h_detail, "" };

	ck_assert_int_eq(control_register(ctl, &again, NULL), -EEXIST);
	ck_assert_int_eq(control_register(ctl, &dup, NULL), -EEXIST);
	ck_assert_int_eq(control_register(ctl, &five, NULL), -EINVAL);
	ck_assert_int_eq(control_register(ctl, &counts, NULL), -EINVAL);
	ck_assert_int_eq(control_register(ctl, &nohandler, NULL), -EINVAL);
}
END_TEST

/* Many registrations (the table grows) keep every command reachable. */
START_TEST(test_many_commands)
{
	static struct control_cmd cmds[40];
	static char names[40][16];
	struct resp r;
	int i, fd;

	make_server(NULL);
	for (i = 0; i < 40; i++) {
		snprintf(names[i], sizeof(names[i]), "cmd%d now", i);
		cmds[i] = (struct control_cmd){ names[i], "", 0, 0, true, h_detail, "x" };
		ck_assert_int_eq(control_register(ctl, &cmds[i], NULL), 0);
	}
	fd = client_pair();
	REQ(fd, 0, &r, "cmd0", "now");
	ck_assert_str_eq(r.text, "detail");
	REQ(fd, 0, &r, "cmd39", "now");
	ck_assert_str_eq(r.text, "detail");
	REQ(fd, 0, &r, "show", "thing");
	ck_assert_str_eq(r.text, "thing");
	close(fd);
}
END_TEST

/* ---- framing on a live connection ---- */

START_TEST(test_pipelined_and_split)
{
	static const char *const a[] = { "show", "thing" }, *const b[] = { "fail" };
	uint8_t buf[256];
	struct resp r;
	int n1, n2, fd, i;

	make_server(NULL);
	fd = client_pair();
	n1 = ctl_request_encode(buf, sizeof(buf), 0, 2, a);
	n2 = ctl_request_encode(buf + n1, sizeof(buf) - (size_t)n1, 0, 1, b);
	/* two requests in one write: two answers, in order */
	send_all(fd, buf, (size_t)(n1 + n2));
	read_response(fd, &r);
	ck_assert_int_eq(r.status, CTL_OK);
	ck_assert_str_eq(r.text, "thing");
	read_response(fd, &r);
	ck_assert_int_eq(r.status, CTL_ENOENT);
	/* one request a byte at a time */
	for (i = 0; i < n1; i++) {
		send_all(fd, buf + i, 1);
		hip_loop_run_once(loop, 0);
	}
	read_response(fd, &r);
	ck_assert_str_eq(r.text, "thing");
	ck_assert_int_eq(show_calls, 2);
	close(fd);
}
END_TEST

START_TEST(test_malformed)
{
	static const struct {
		const char *raw;
		size_t len;
		const char *msg;
	} cases[] = {
		{ "\x00\x00\x13\x88", 4, "malformed request: length 5000 (must be 3..4096)" },
		{ "\x00\x00\x00\x00", 4, "malformed request: length 0 (must be 3..4096)" },
		{ "\x00\x00\x00\x03\x00" "ab", 7, "malformed request" },
		{ "\x00\x00\x00\x04\x04" "ab", 8, "malformed request" },
		{ "\x00\x00\x00\x04\x00" "a\0\0", 8, "malformed request" },
	};
	struct resp r;
	size_t i;

	make_server(NULL);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fd = client_pair();

		send_all(fd, cases[i].raw, cases[i].len);
		read_response(fd, &r);
		ck_assert_int_eq(r.status, CTL_EUSAGE);
		ck_assert_str_eq(r.text, cases[i].msg);
		assert_closed(fd);
		close(fd);
	}
	ck_assert_uint_eq(control_connection_count(ctl), 0);
	ck_assert_int_eq(show_calls, 0);
}
END_TEST

START_TEST(test_eof_mid_request)
{
	int fd;

	make_server(NULL);
	fd = client_pair();
	send_all(fd, "\x00\x00\x00\x10\x00sh", 7);
	hip_loop_run_once(loop, 0);
	ck_assert_uint_eq(control_connection_count(ctl), 1);
	close(fd);
	ck_assert_int_eq(hip_loop_run_once(loop, 1000), 1);
	ck_assert_uint_eq(control_connection_count(ctl), 0);
}
END_TEST

START_TEST(test_output_limit)
{
	struct resp r;
	int fd;

	make_server(NULL);
	fd = client_pair();
	REQ(fd, 0, &r, "big");
	ck_assert_int_eq(r.status, CTL_EFAILED);
	ck_assert_str_eq(r.text, "output larger than 1048576 bytes");
	close(fd);
}
END_TEST

/* ---- permissions ---- */

START_TEST(test_peer_access_rule)
{
	ck_assert_int_eq(control_peer_access(0, 0, 1000, false, 0), CONTROL_ACCESS_ADMIN);
	ck_assert_int_eq(control_peer_access(1000, 1000, 1000, false, 0), CONTROL_ACCESS_ADMIN);
	ck_assert_int_eq(control_peer_access(NOBODY, NOGROUP, 0, false, NOGROUP),
			 CONTROL_ACCESS_NONE);
	ck_assert_int_eq(control_peer_access(NOBODY, NOGROUP, 0, true, NOGROUP),
			 CONTROL_ACCESS_READ);
	/* the peer's gid is another, but nobody's groups (getgrouplist) have it */
	ck_assert_int_eq(control_peer_access(NOBODY, 4242, 0, true, NOGROUP),
			 CONTROL_ACCESS_READ);
	ck_assert_int_eq(control_peer_access(NOBODY, NOGROUP, 0, true, 1), CONTROL_ACCESS_NONE);
	/* a uid without a passwd entry: only its gid counts */
	ck_assert_int_eq(control_peer_access(54321, 54321, 0, true, NOGROUP),
			 CONTROL_ACCESS_NONE);
	ck_assert_int_eq(control_peer_access(54321, NOGROUP, 0, true, NOGROUP),
			 CONTROL_ACCESS_READ);
}
END_TEST

/* In a child running as nobody:nogroup, send argv and return the status
 * (or 100 + reason on a client failure; +20 if the connection was not
 * closed after the answer when must_close). */
static int nobody_request(const char *path, bool must_close, int argc, const char *const *argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint8_t buf[CTL_HDR_LEN + 1024];
	size_t have = 0, need = CTL_HDR_LEN;
	struct timeval tv = { .tv_sec = 5 };
	int fd, n;

	if (setgroups(0, NULL) != 0 || setgid(NOGROUP) != 0 || setuid(NOBODY) != 0)
		return 101;
	if (getuid() != NOBODY || geteuid() != NOBODY)
		return 102;
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	/* never hang the test: a missing answer or close shows as a failure */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	strcpy(sa.sun_path, path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		return 103;
	n = ctl_request_encode(buf, sizeof(buf), 0, argc, argv);
	if (n < 0 || write(fd, buf, (size_t)n) != n)
		return 104;
	while (have < need) {
		ssize_t r = read(fd, buf + have, need - have);

		if (r <= 0)
			return 105;
		have += (size_t)r;
		if (have == CTL_HDR_LEN && need == CTL_HDR_LEN) {
			need += ctl_len_get(buf);
			if (need > sizeof(buf))
				return 106;
		}
	}
	if (must_close && read(fd, buf, 1) != 0)
		return 120 + buf[CTL_HDR_LEN];
	return buf[CTL_HDR_LEN];
}

static int run_as_nobody(bool must_close, int argc, const char *const *argv)
{
	int status, rounds;
	pid_t pid;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(nobody_request(sock_path, must_close, argc, argv));
	for (rounds = 0; rounds < 3000; rounds++) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		ck_assert_int_ge(w, 0);
		if (w == pid) {
			ck_assert(WIFEXITED(status));
			return WEXITSTATUS(status);
		}
		hip_loop_run_once(loop, 10);
	}
	kill(pid, SIGKILL);
	ck_abort_msg("child did not finish");
	return -1;
}

#define AS_NOBODY(close_, ...) \
	({ \
		const char *const a_[] = { __VA_ARGS__ }; \
		run_as_nobody(close_, (int)(sizeof(a_) / sizeof(a_[0])), a_); \
	})

/* Let nobody reach the socket at all (mode 0660 would stop it at
 * connect(2)), so that SO_PEERCRED is what refuses. */
static void open_up_socket(void)
{
	char run[128];

	snprintf(run, sizeof(run), "%s/run", dir);
	ck_assert_int_eq(chmod(dir, 0755), 0);
	ck_assert_int_eq(chmod(run, 0755), 0);
	ck_assert_int_eq(chmod(sock_path, 0666), 0);
}

START_TEST(test_nobody_refused)
{
	if (geteuid() != 0) {
		fprintf(stderr, "test_nobody_refused: needs root to setuid, skipped\n");
		return;
	}
	/* group "daemon" (gid 1): nobody is not a member */
	make_server("daemon");
	open_up_socket();
	ck_assert_int_eq(AS_NOBODY(true, "show", "thing"), CTL_EPERM);
	ck_assert_int_eq(AS_NOBODY(true, "set", "thing", "x"), CTL_EPERM);
	ck_assert_int_eq(AS_NOBODY(true, "help"), CTL_EPERM);
	ck_assert_int_eq(show_calls, 0);
}
END_TEST

START_TEST(test_group_read_only)
{
	if (geteuid() != 0) {
		fprintf(stderr, "test_group_read_only: needs root to setuid, skipped\n");
		return;
	}
	make_server("nogroup");
	open_up_socket();
	ck_assert_int_eq(AS_NOBODY(false, "show", "thing"), CTL_OK);
	ck_assert_int_eq(show_calls, 1);
	ck_assert_int_eq(AS_NOBODY(false, "set", "thing", "x"), CTL_EPERM);
	ck_assert_int_eq(AS_NOBODY(false, "help"), CTL_OK);
	ck_assert_int_eq(AS_NOBODY(false, "nonsense"), CTL_EUSAGE);
}
END_TEST

/* ---- the socket file ---- */

START_TEST(test_socket_file)
{
	char path[160], err[256], run[128];
	struct stat st;
	int fd, fd2;

	snprintf(run, sizeof(run), "%s/a/b", dir);
	snprintf(path, sizeof(path), "%s/ctl.sock", run);
	ck_assert_msg(control_socket_open(path, "nogroup", &fd, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_int_eq(stat(run, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(st.st_mode & 07777, 0755);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISSOCK(st.st_mode));
	ck_assert_int_eq(st.st_mode & 07777, 0660);
	if (geteuid() == 0)
		ck_assert_int_eq(st.st_gid, NOGROUP);
	/* a live socket is not taken over */
	ck_assert_int_eq(control_socket_open(path, NULL, &fd2, err, sizeof(err)), -EADDRINUSE);
	ck_assert_ptr_nonnull(strstr(err, "another hipd is listening"));
	/* a stale one (its daemon died without cleaning up) is replaced */
	close(fd);
	ck_assert_int_eq(control_socket_open(path, NULL, &fd, err, sizeof(err)), 0);
	close(fd);
	unlink(path);
	/* never delete something that is not a socket */
	fd2 = open(path, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd2, 0);
	close(fd2);
	ck_assert_int_eq(control_socket_open(path, NULL, &fd, err, sizeof(err)), -EEXIST);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(control_socket_open("relative.sock", NULL, &fd, err, sizeof(err)),
			 -EINVAL);
	/* control_free removes the file it serves */
	unlink(path);
	make_server(NULL);
	ck_assert_int_eq(lstat(sock_path, &st), 0);
	control_free(ctl);
	ctl = NULL;
	ck_assert_int_eq(lstat(sock_path, &st), -1);
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

START_TEST(test_accept)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct resp r;
	int fd;

	make_server(NULL);
	strcpy(sa.sun_path, sock_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	REQ(fd, 0, &r, "set", "thing", "through-accept");
	ck_assert_int_eq(r.status, CTL_OK);
	ck_assert_str_eq(r.text, "set through-accept argc=1 uid=0");
	close(fd);
}
END_TEST

static Suite *control_suite(void)
{
	Suite *s = suite_create("control");
	TCase *tc = tcase_create("server");

	tcase_add_checked_fixture(tc, ctl_setup, ctl_teardown);
	tcase_add_test(tc, test_proto);
	tcase_add_test(tc, test_json_escape);
	tcase_add_test(tc, test_commands);
	tcase_add_test(tc, test_help);
	tcase_add_test(tc, test_register_errors);
	tcase_add_test(tc, test_many_commands);
	tcase_add_test(tc, test_pipelined_and_split);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_eof_mid_request);
	tcase_add_test(tc, test_output_limit);
	tcase_add_test(tc, test_peer_access_rule);
	tcase_add_test(tc, test_nobody_refused);
	tcase_add_test(tc, test_group_read_only);
	tcase_add_test(tc, test_socket_file);
	tcase_add_test(tc, test_accept);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(control_suite)
