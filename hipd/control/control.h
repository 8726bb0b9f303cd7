/*
 * control.h - the control socket server (protocol: control_proto.h).
 *
 * Modules register their commands in a table; the server does the framing,
 * the SO_PEERCRED permission check and the usage messages, and calls the
 * handler with the arguments after the command words:
 *
 *     static const struct control_cmd cmds[] = {
 *         { "show maps", "", 0, 0, true, show_maps, "list HIT -> locator mappings" },
 *         { "del map", "HIT [IP]", 1, 2, false, del_map, "remove a mapping" },
 *     };
 *     control_register_table(ctl, cmds, 2, d);
 *
 * Handlers return an enum ctl_status. They write text (or, when req->json,
 * exactly one JSON value) with control_reply_printf()/control_reply_json_str(),
 * or give up with return control_reply_error(rep, CTL_ENOENT, "...").
 */
#ifndef HIPD_CONTROL_H
#define HIPD_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "control_proto.h"

struct hip_loop;
struct control;

/* An answer being built; use the functions below, not the fields. */
struct control_reply {
	char *buf;
	size_t len, cap;
	bool json;
	bool overflow;      /* more than CTL_RESP_MAX - 1 bytes were written */
};

enum control_access {
	CONTROL_ACCESS_NONE,    /* refused: status 2 */
	CONTROL_ACCESS_READ,    /* control_group members: read-only commands */
	CONTROL_ACCESS_ADMIN,   /* root (or hipd's own uid): everything */
};

struct control_request {
	int argc;                    /* arguments after the command words */
	const char *const *argv;
	bool json;
	uid_t uid;                   /* the peer (SO_PEERCRED) */
	pid_t pid;
	enum control_access access;
};

typedef int (*control_handler)(const struct control_request *req, struct control_reply *rep,
			       void *arg);

struct control_cmd {
	const char *words;       /* command words, space-separated: "add map" */
	const char *args;        /* argument synopsis for usage and help: "HIT IP" */
	int min_args, max_args;
	bool read_only;          /* allowed for control_group members */
	control_handler handler;
	const char *help;        /* one line */
};

/* Privileged part: create the listening socket at path (parent directory
 * made 0755 if missing; a stale socket is replaced, a live one is
 * -EADDRINUSE), mode 0660, group `group` if it exists. */
int control_socket_open(const char *path, const char *group, int *fd, char *err, size_t errlen);

/* Serve listen_fd through loop. path (may be NULL) is unlinked by
 * control_free. Peers in group may run read-only commands. Registers the
 * built-in "help". */
int control_create(struct control **out, struct hip_loop *loop, int listen_fd,
		   const char *path, const char *group);
/* Closes every connection and the listening socket, unlinks the path. */
void control_free(struct control *c);

/* cmd must outlive the server (static tables). -EEXIST if the words are
 * taken, -EINVAL for more than 4 words or bad counts. */
int control_register(struct control *c, const struct control_cmd *cmd, void *arg);
int control_register_table(struct control *c, const struct control_cmd *cmds, size_t n,
			   void *arg);

/* Serve an already connected socket (tests; sockets from the privileged
 * process). The peer is identified by SO_PEERCRED as for accepted ones. */
int control_adopt(struct control *c, int fd);
size_t control_connection_count(const struct control *c);

/* The permission rule: root and self_uid get ADMIN; a peer whose gid is
 * group, or whose user has it as a supplementary group (getgrouplist),
 * gets READ when have_group; everyone else NONE. */
enum control_access control_peer_access(uid_t uid, gid_t gid, uid_t self_uid, bool have_group,
					gid_t group);
/* gid of the named group; -ENOENT if it does not exist (or name is NULL). */
int control_group_gid(const char *name, gid_t *gid);

/* ---- replies ---- */
bool control_reply_is_json(const struct control_reply *r);
void control_reply_printf(struct control_reply *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void control_reply_write(struct control_reply *r, const char *s, size_t len);
/* s as a JSON string literal, quotes included (invalid UTF-8 -> U+FFFD). */
void control_reply_json_str(struct control_reply *r, const char *s);
/* Replace what was written with an error message (text, or {"error": ...}
 * in JSON mode). Returns status, for `return control_reply_error(...)`. */
int control_reply_error(struct control_reply *r, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct hip_addr;
/* A command's address argument s into *a: CTL_OK, or a usage error saying
 * that s is no address, or what problem(a) finds wrong with it (followed
 * by suffix). */
int control_arg_addr(struct control_reply *r, const char *s, struct hip_addr *a,
		     const char *(*problem)(const struct hip_addr *a), const char *suffix);

/* JSON string escaping into a buffer (quotes included); returns the length
 * it needs (like snprintf), out is NUL-terminated when cap > 0. */
size_t control_json_escape(char *out, size_t cap, const char *s);

#endif
