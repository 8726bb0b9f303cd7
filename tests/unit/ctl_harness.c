/*
 * ctl_harness.c - see ctl_harness.h.
 */
#include "ctl_harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "unit.h"

struct hip_loop *loop;
struct control *ctl;
char dir[64], sock_path[128];
int show_calls;

/* ---- a minimal JSON validator (RFC 8259 grammar), independent of ours ---- */

static const char *json_value(const char *p, int depth);

static const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static const char *json_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
						return NULL;
				p += 4;
			} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
				return NULL;
			}
		}
		p++;
	}
	return p + 1;
}

static const char *json_number(const char *p)
{
	const char *s = p;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return NULL;
	return p > s ? p : NULL;
}

static const char *json_seq(const char *p, char close, bool members, int depth)
{
	p = json_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (members) {
			p = json_string(json_ws(p));
			if (!p || *(p = json_ws(p)) != ':')
				return NULL;
			p++;
		}
		p = json_value(p, depth + 1);
		if (!p)
			return NULL;
		p = json_ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *json_value(const char *p, int depth)
{
	if (depth > 32)
		return NULL;
	p = json_ws(p);
	switch (*p) {
	case '{': return json_seq(p, '}', true, depth);
	case '[': return json_seq(p, ']', false, depth);
	case '"': return json_string(p);
	case 't': return strncmp(p, "true", 4) ? NULL : p + 4;
	case 'f': return strncmp(p, "false", 5) ? NULL : p + 5;
	case 'n': return strncmp(p, "null", 4) ? NULL : p + 4;
	default: return json_number(p);
	}
}

bool json_valid(const char *s)
{
	const char *end = json_value(s, 0);

	return end && *json_ws(end) == '\0';
}

/* ---- test commands ---- */

static int h_show_thing(const struct control_request *req, struct control_reply *rep,
			void *arg)
{
	(*(int *)arg)++;
	if (req->json)
		control_reply_printf(rep, "{\"thing\":1}");
	else
		control_reply_printf(rep, "thing");
	return CTL_OK;
}

static int h_detail(const struct control_request *req, struct control_reply *rep, void *arg)
{
	control_reply_printf(rep, "detail");
	return CTL_OK;
}

static int h_set_thing(const struct control_request *req, struct control_reply *rep,
		       void *arg)
{
	control_reply_printf(rep, "set %s argc=%d uid=%u", req->argv[0], req->argc,
			     (unsigned)req->uid);
	return CTL_OK;
}

static int h_fail(const struct control_request *req, struct control_reply *rep, void *arg)
{
	control_reply_printf(rep, "partial output that must not be seen");
	return control_reply_error(rep, CTL_ENOENT, "no such \"thing\"");
}

static int h_big(const struct control_request *req, struct control_reply *rep, void *arg)
{
	static char chunk[4096];
	int i;

	memset(chunk, 'b', sizeof(chunk));
	for (i = 0; i < 300; i++)
		control_reply_write(rep, chunk, sizeof(chunk));
	return CTL_OK;
}

static const struct control_cmd test_cmds[] = {
	{ "show thing", "", 0, 0, true, h_show_thing, "show the thing" },
	{ "show thing detail", "", 0, 0, true, h_detail, "more" },
	{ "set thing", "VALUE [EXTRA]", 1, 2, false, h_set_thing, "set the thing" },
	{ "fail", "", 0, 0, true, h_fail, "always fails" },
	{ "big", "", 0, 0, true, h_big, "too much output" },
};

void make_server(const char *group)
{
	char err[256];
	int fd;

	snprintf(sock_path, sizeof(sock_path), "%s/run/ctl.sock", dir);
	ck_assert_msg(control_socket_open(sock_path, group, &fd, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert_int_eq(control_create(&ctl, loop, fd, sock_path, group), 0);
	ck_assert_int_eq(control_register_table(ctl, test_cmds, 3, &show_calls), 0);
	ck_assert_int_eq(control_register(ctl, &test_cmds[3], NULL), 0);
	ck_assert_int_eq(control_register(ctl, &test_cmds[4], NULL), 0);
}

void ctl_setup(void)
{
	strcpy(dir, "/tmp/check_control.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(hip_loop_create(&loop), 0);
	show_calls = 0;
}

void ctl_teardown(void)
{
	char cmd[128];

	control_free(ctl);
	ctl = NULL;
	hip_loop_free(loop);
	loop = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* ---- client side ---- */

/* A connected client whose server end the control adopted. */
int client_pair(void)
{
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	ck_assert_int_eq(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_eq(control_adopt(ctl, sv[0]), 0);
	ck_assert_int_eq(fcntl(sv[1], F_SETFL, O_NONBLOCK), 0);
	return sv[1];
}

/* Run the loop until one whole response is read from fd (bounded). */
void read_response(int fd, struct resp *r)
{
	static uint8_t buf[CTL_HDR_LEN + CTL_RESP_MAX];
	size_t have = 0, need = CTL_HDR_LEN;
	int rounds;

	r->status = -1;
	r->len = 0;
	r->text[0] = '\0';
	for (rounds = 0; rounds < 2000; rounds++) {
		ssize_t n = read(fd, buf + have, need - have);

		if (n == 0)
			return;
		if (n > 0) {
			have += (size_t)n;
			if (have == CTL_HDR_LEN && need == CTL_HDR_LEN) {
				uint32_t len = ctl_len_get(buf);

				ck_assert_uint_ge(len, 1);
				ck_assert_uint_le(len, CTL_RESP_MAX);
				need = CTL_HDR_LEN + len;
			}
			if (have == need && need > CTL_HDR_LEN) {
				r->status = buf[CTL_HDR_LEN];
				r->len = need - CTL_HDR_LEN - 1;
				memcpy(r->text, buf + CTL_HDR_LEN + 1, r->len);
				r->text[r->len] = '\0';
				return;
			}
			continue;
		}
		ck_assert_int_eq(errno, EAGAIN);
		ck_assert_int_ge(hip_loop_run_once(loop, 10), 0);
	}
	ck_abort_msg("no response");
}

void send_all(int fd, const void *p, size_t len)
{
	ck_assert_int_eq(write(fd, p, len), (ssize_t)len);
}

void request(int fd, uint8_t flags, struct resp *r, int argc, const char *const *argv)
{
	uint8_t buf[CTL_HDR_LEN + CTL_REQ_MAX];
	int n = ctl_request_encode(buf, sizeof(buf), flags, argc, argv);

	ck_assert_int_gt(n, 0);
	send_all(fd, buf, (size_t)n);
	read_response(fd, r);
}

/* After a response that closes the connection: EOF once the loop ran. */
void assert_closed(int fd)
{
	char ch;
	int rounds;

	for (rounds = 0; rounds < 100; rounds++) {
		ssize_t n = read(fd, &ch, 1);

		if (n == 0)
			return;
		ck_assert_int_eq(n, -1);
		hip_loop_run_once(loop, 10);
	}
	ck_abort_msg("connection still open");
}

