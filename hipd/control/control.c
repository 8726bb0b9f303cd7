/*
 * control.c - control socket server: non-blocking accept through the loop,
 * bounded per-connection buffers, strict framing (control_proto.h), the
 * command table. Replies: control_reply.c; permissions and the socket file:
 * control_sock.c.
 */
#include "control.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/base.h"

enum {
	CTL_CONN_MAX = 32,         /* concurrent connections */
	CTL_WORDS_MAX = 4,         /* command words per command */
};

struct ctl_entry {
	const struct control_cmd *cmd;
	void *arg;
	int nw;
	char wbuf[64];
	const char *w[CTL_WORDS_MAX];
};

struct ctl_conn {
	struct control *c;
	struct ctl_conn *next;
	int fd;
	uid_t uid;
	gid_t gid;
	pid_t pid;
	enum control_access access;
	uint8_t in[CTL_HDR_LEN + CTL_REQ_MAX];
	size_t in_len;
	uint8_t *out;              /* whole response frame */
	size_t out_len, out_off;
	bool close_after;          /* malformed request: close once answered */
	uint64_t idle_timer;
};

struct control {
	struct hip_loop *loop;
	int lfd;
	char *path;
	bool have_group;
	gid_t group;
	uid_t self_uid;
	struct ctl_entry *cmds;
	size_t n_cmds, cap_cmds;
	struct ctl_conn *conns;
	size_t n_conns;
	struct log_ratelimit accept_rl;
};

/* ---- the command table ---- */

static int split_words(struct ctl_entry *e, const char *words)
{
	char *p, *save = NULL;

	if (strlen(words) >= sizeof(e->wbuf))
		return -EINVAL;
	strcpy(e->wbuf, words);
	e->nw = 0;
	for (p = strtok_r(e->wbuf, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
		if (e->nw == CTL_WORDS_MAX)
			return -EINVAL;
		e->w[e->nw++] = p;
	}
	return e->nw ? 0 : -EINVAL;
}

static bool same_words(const struct ctl_entry *a, const struct ctl_entry *b)
{
	int i;

	if (a->nw != b->nw)
		return false;
	for (i = 0; i < a->nw; i++)
		if (strcmp(a->w[i], b->w[i]) != 0)
			return false;
	return true;
}

int control_register(struct control *c, const struct control_cmd *cmd, void *arg)
{
	struct ctl_entry e = { .cmd = cmd, .arg = arg };
	size_t i;

	if (!cmd || !cmd->handler || !cmd->words || cmd->min_args < 0 ||
	    cmd->max_args < cmd->min_args || cmd->max_args > CTL_ARGS_MAX)
		return -EINVAL;
	if (split_words(&e, cmd->words))
		return -EINVAL;
	for (i = 0; i < c->n_cmds; i++)
		if (same_words(&c->cmds[i], &e))
			return -EEXIST;
	if (c->n_cmds == c->cap_cmds) {
		size_t cap = c->cap_cmds ? c->cap_cmds * 2 : 16;
		struct ctl_entry *t = realloc(c->cmds, cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		/* the word pointers point into wbuf: fix them after the move */
		c->cmds = t;
		c->cap_cmds = cap;
		for (i = 0; i < c->n_cmds; i++)
			split_words(&c->cmds[i], c->cmds[i].cmd->words);
	}
	c->cmds[c->n_cmds] = e;
	split_words(&c->cmds[c->n_cmds], cmd->words);
	c->n_cmds++;
	return 0;
}

int control_register_table(struct control *c, const struct control_cmd *cmds, size_t n,
			   void *arg)
{
	size_t i;
	int r;

	for (i = 0; i < n; i++) {
		r = control_register(c, &cmds[i], arg);
		if (r)
			return r;
	}
	return 0;
}

static int cmp_entries(const void *a, const void *b)
{
	const struct ctl_entry *const *x = a, *const *y = b;

	return strcmp((*x)->cmd->words, (*y)->cmd->words);
}

static int cmd_help(const struct control_request *req, struct control_reply *rep, void *arg)
{
	struct control *c = arg;
	const struct ctl_entry **sorted;
	size_t i;

	sorted = malloc(c->n_cmds * sizeof(*sorted));
	if (!sorted)
		return control_reply_error(rep, CTL_EFAILED, "out of memory");
	for (i = 0; i < c->n_cmds; i++)
		sorted[i] = &c->cmds[i];
	qsort(sorted, c->n_cmds, sizeof(*sorted), cmp_entries);
	if (req->json)
		control_reply_printf(rep, "{\"commands\":[");
	for (i = 0; i < c->n_cmds; i++) {
		const struct control_cmd *cmd = sorted[i]->cmd;
		char syn[128];

		snprintf(syn, sizeof(syn), "%s%s%s", cmd->words, cmd->args && *cmd->args ? " " : "",
			 cmd->args ? cmd->args : "");
		if (!req->json) {
			control_reply_printf(rep, "%-28s %s%s\n", syn, cmd->help ? cmd->help : "",
					     cmd->read_only ? "" : " (root)");
			continue;
		}
		control_reply_printf(rep, "%s{\"command\":", i ? "," : "");
		control_reply_json_str(rep, cmd->words);
		control_reply_printf(rep, ",\"args\":");
		control_reply_json_str(rep, cmd->args ? cmd->args : "");
		control_reply_printf(rep, ",\"read_only\":%s,\"help\":",
				     cmd->read_only ? "true" : "false");
		control_reply_json_str(rep, cmd->help ? cmd->help : "");
		control_reply_printf(rep, "}");
	}
	if (req->json)
		control_reply_printf(rep, "]}");
	free(sorted);
	return CTL_OK;
}

static const struct control_cmd help_cmd = {
	"help", "", 0, 0, true, cmd_help, "list the commands"
};

/* The registered command with the most leading words equal to argv's. */
static const struct ctl_entry *match_command(const struct control *c, int argc,
					     const char *const *argv, bool *first_known)
{
	const struct ctl_entry *best = NULL;
	size_t i;
	int j;

	*first_known = false;
	for (i = 0; i < c->n_cmds; i++) {
		const struct ctl_entry *e = &c->cmds[i];

		if (strcmp(e->w[0], argv[0]) == 0)
			*first_known = true;
		if (e->nw > argc || (best && best->nw >= e->nw))
			continue;
		for (j = 0; j < e->nw; j++)
			if (strcmp(e->w[j], argv[j]) != 0)
				break;
		if (j == e->nw)
			best = e;
	}
	return best;
}

static int run_command(struct control *c, struct ctl_conn *cn, int argc, const char **argv,
		       struct control_reply *rep)
{
	struct control_request req = {
		.json = rep->json, .uid = cn->uid, .pid = cn->pid, .access = cn->access,
	};
	const struct ctl_entry *e;
	char line[256] = "";
	bool first_known;
	int i, nargs;

	for (i = 0; i < argc && strlen(line) + 2 < sizeof(line); i++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%s", i ? " " : "",
			 argv[i]);
	if (cn->access == CONTROL_ACCESS_NONE) {
		log_notice("control: uid %u (pid %d) refused: not root and not in the control "
			   "group", (unsigned)cn->uid, (int)cn->pid);
		return control_reply_error(rep, CTL_EPERM, "permission denied");
	}
	e = match_command(c, argc, argv, &first_known);
	if (!e)
		return control_reply_error(rep, CTL_EUSAGE, "unknown command '%s'; 'help' lists "
					   "the commands",
					   first_known && argc > 1 ? line : argv[0]);
	if (!e->cmd->read_only && cn->access != CONTROL_ACCESS_ADMIN) {
		log_notice("control: uid %u (pid %d) refused '%s': read-only access",
			   (unsigned)cn->uid, (int)cn->pid, e->cmd->words);
		return control_reply_error(rep, CTL_EPERM, "permission denied: '%s' needs root",
					   e->cmd->words);
	}
	nargs = argc - e->nw;
	if (nargs < e->cmd->min_args || nargs > e->cmd->max_args)
		return control_reply_error(rep, CTL_EUSAGE, "usage: %s%s%s", e->cmd->words,
					   e->cmd->args && *e->cmd->args ? " " : "",
					   e->cmd->args ? e->cmd->args : "");
	if (e->cmd->read_only)
		log_debug("uid %u: %s", (unsigned)cn->uid, line);
	else
		log_info("control: uid %u: %s", (unsigned)cn->uid, line);
	req.argc = nargs;
	req.argv = argv + e->nw;
	return e->cmd->handler(&req, rep, e->arg);
}

/* ---- connections ---- */

static void conn_close(struct ctl_conn *cn)
{
	struct control *c = cn->c;
	struct ctl_conn **pp;

	for (pp = &c->conns; *pp; pp = &(*pp)->next) {
		if (*pp == cn) {
			*pp = cn->next;
			break;
		}
	}
	c->n_conns--;
	hip_loop_fd_remove(c->loop, cn->fd);
	hip_loop_timer_cancel(c->loop, cn->idle_timer);
	close(cn->fd);
	free(cn->out);
	free(cn);
}

static void conn_idle(struct hip_loop *loop, uint64_t timer, void *arg)
{
	struct ctl_conn *cn = arg;

	cn->idle_timer = 0;
	log_debug("closing idle connection of uid %u", (unsigned)cn->uid);
	conn_close(cn);
}

/* Frame the reply as the pending output. */
static int conn_set_response(struct ctl_conn *cn, int status, struct control_reply *rep)
{
	size_t len;

	if (rep->overflow && status == CTL_OK)
		status = control_reply_error(rep, CTL_EFAILED, "output larger than %d bytes",
					     CTL_RESP_MAX);
	len = CTL_HDR_LEN + 1 + rep->len;
	cn->out = malloc(len);
	if (!cn->out)
		return -ENOMEM;
	ctl_len_put(cn->out, (uint32_t)(1 + rep->len));
	cn->out[CTL_HDR_LEN] = (uint8_t)status;
	if (rep->len)
		memcpy(cn->out + CTL_HDR_LEN + 1, rep->buf, rep->len);
	cn->out_len = len;
	cn->out_off = 0;
	return 0;
}

static void conn_io(struct hip_loop *loop, int fd, uint32_t events, void *arg);

/* Write what is pending; 0 when all sent, -EAGAIN when waiting, else fail. */
static int conn_flush(struct ctl_conn *cn)
{
	while (cn->out_off < cn->out_len) {
		ssize_t n = send(cn->fd, cn->out + cn->out_off, cn->out_len - cn->out_off,
				 MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return -EAGAIN;
		if (n <= 0)
			return -EPIPE;
		cn->out_off += (size_t)n;
	}
	free(cn->out);
	cn->out = NULL;
	cn->out_len = cn->out_off = 0;
	return 0;
}

/* A complete request is in cn->in (or a bad length was seen): answer it. */
static void conn_handle(struct ctl_conn *cn, bool bad_length)
{
	struct control_reply rep = { 0 };
	const char *argv[CTL_ARGS_MAX];
	uint8_t flags = 0;
	int argc, status, r;

	if (bad_length) {
		status = control_reply_error(&rep, CTL_EUSAGE, "malformed request: length %u "
					     "(must be 3..%d)", ctl_len_get(cn->in), CTL_REQ_MAX);
		cn->close_after = true;
	} else {
		r = ctl_request_decode(cn->in + CTL_HDR_LEN, cn->in_len - CTL_HDR_LEN, &flags, argv,
				       &argc);
		rep.json = !r && (flags & CTL_F_JSON);
		if (r) {
			status = control_reply_error(&rep, CTL_EUSAGE, r == -E2BIG ?
						     "malformed request: more than %d words" :
						     "malformed request", CTL_ARGS_MAX);
			cn->close_after = true;
		} else {
			status = run_command(cn->c, cn, argc, argv, &rep);
			if (cn->access == CONTROL_ACCESS_NONE)
				cn->close_after = true;
		}
	}
	r = conn_set_response(cn, status, &rep);
	free(rep.buf);
	cn->in_len = 0;
	if (r) {
		conn_close(cn);
		return;
	}
	r = conn_flush(cn);
	if (r == -EAGAIN) {
		hip_loop_fd_modify(cn->c->loop, cn->fd, EPOLLOUT);
		return;
	}
	if (r || cn->close_after)
		conn_close(cn);
}

static void conn_read(struct ctl_conn *cn)
{
	for (;;) {
		size_t need = CTL_HDR_LEN;
		ssize_t n;

		if (cn->in_len >= CTL_HDR_LEN) {
			uint32_t len = ctl_len_get(cn->in);

			if (len < 3 || len > CTL_REQ_MAX) {
				conn_handle(cn, true);
				return;
			}
			need = CTL_HDR_LEN + len;
		}
		if (cn->in_len == need) {
			conn_handle(cn, false);
			return;   /* one request at a time: the rest waits for EPOLLIN */
		}
		/* read no further than this frame: the next one stays queued */
		n = read(cn->fd, cn->in + cn->in_len, need - cn->in_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			conn_close(cn);   /* EOF (maybe mid-request) or error */
			return;
		}
		cn->in_len += (size_t)n;
		hip_loop_timer_rearm(cn->c->loop, cn->idle_timer,
				     (uint64_t)CTL_IDLE_SECONDS * 1000000000u);
	}
}

static void conn_io(struct hip_loop *loop, int fd, uint32_t events, void *arg)
{
	struct ctl_conn *cn = arg;
	int r;

	if (cn->out) {
		r = conn_flush(cn);
		if (r == -EAGAIN)
			return;
		if (r || cn->close_after) {
			conn_close(cn);
			return;
		}
		hip_loop_fd_modify(loop, fd, EPOLLIN);
		return;   /* a queued request makes EPOLLIN fire again */
	}
	if (events & (EPOLLIN | EPOLLHUP | EPOLLERR))
		conn_read(cn);
}

int control_adopt(struct control *c, int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct ctl_conn *cn;
	int r;

	if (c->n_conns >= CTL_CONN_MAX)
		return -EMFILE;
	cn = calloc(1, sizeof(*cn));
	if (!cn)
		return -ENOMEM;
	cn->c = c;
	cn->fd = fd;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && len == sizeof(cred)) {
		cn->uid = cred.uid;
		cn->gid = cred.gid;
		cn->pid = cred.pid;
		cn->access = control_peer_access(cred.uid, cred.gid, c->self_uid, c->have_group,
						 c->group);
	} else {
		cn->uid = (uid_t)-1;
		cn->access = CONTROL_ACCESS_NONE;
	}
	cn->idle_timer = hip_loop_timer_add(c->loop, (uint64_t)CTL_IDLE_SECONDS * 1000000000u,
					    conn_idle, cn);
	if (!cn->idle_timer) {
		free(cn);
		return -ENOMEM;
	}
	r = hip_loop_fd_add(c->loop, fd, EPOLLIN, conn_io, cn);
	if (r) {
		hip_loop_timer_cancel(c->loop, cn->idle_timer);
		free(cn);
		return r;
	}
	cn->next = c->conns;
	c->conns = cn;
	c->n_conns++;
	return 0;
}

size_t control_connection_count(const struct control *c)
{
	return c->n_conns;
}

static void control_accept(struct hip_loop *loop, int lfd, uint32_t events, void *arg)
{
	struct control *c = arg;

	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				log_ratelimited(&c->accept_rl, LOG_WARNING,
						"control: accept: %s", strerror(errno));
			return;
		}
		if (control_adopt(c, fd) != 0) {
			log_ratelimited(&c->accept_rl, LOG_WARNING, "control: too many "
					"connections, refusing one");
			close(fd);
		}
	}
}

int control_create(struct control **out, struct hip_loop *loop, int listen_fd,
		   const char *path, const char *group)
{
	struct control *c = calloc(1, sizeof(*c));
	int r;

	if (!c)
		return -ENOMEM;
	c->loop = loop;
	c->lfd = listen_fd;
	c->self_uid = geteuid();
	log_ratelimit_init(&c->accept_rl, 5000, 5);
	c->have_group = control_group_gid(group, &c->group) == 0;
	if (!c->have_group && group && *group)
		log_notice("control: group '%s' does not exist: only root may use the control "
			   "socket", group);
	if (path) {
		c->path = strdup(path);
		if (!c->path) {
			r = -ENOMEM;
			goto fail;
		}
	}
	r = control_register(c, &help_cmd, c);
	if (r)
		goto fail;
	r = hip_loop_fd_add(loop, listen_fd, EPOLLIN, control_accept, c);
	if (r)
		goto fail;
	*out = c;
	return 0;
fail:
	free(c->cmds);
	free(c->path);
	free(c);
	return r;
}

void control_free(struct control *c)
{
	struct ctl_conn *cn, *next;

	if (!c)
		return;
	for (cn = c->conns; cn; cn = next) {
		next = cn->next;
		conn_close(cn);
	}
	hip_loop_fd_remove(c->loop, c->lfd);
	close(c->lfd);
	if (c->path)
		unlink(c->path);
	free(c->path);
	free(c->cmds);
	free(c);
}
