/*
 * ctl_harness.h - a control server in the test process (its loop, a
 * listening socket in a temporary directory), clients over socketpairs or
 * that socket, and an independent JSON validator (RFC 8259 grammar).
 * Shared by check_control.c and check_control_cmds.c.
 */
#ifndef CTL_HARNESS_H
#define CTL_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "control/control.h"
#include "base/loop.h"

extern struct hip_loop *loop;
extern struct control *ctl;
extern char dir[64], sock_path[128];
extern int show_calls;        /* calls of the test command "show thing" */

/* Fixture: temporary directory and loop; teardown frees and removes all. */
void ctl_setup(void);
void ctl_teardown(void);
/* The server at dir/run/ctl.sock, group may be NULL, with the test commands
 * "show thing", "show thing detail", "set thing VALUE [EXTRA]", "fail" and
 * "big" (1.2 MB of output). */
void make_server(const char *group);

/* A client connected through a socketpair the server adopted. */
int client_pair(void);

struct resp {
	int status;     /* -1: connection closed first */
	char text[CTL_RESP_MAX + 1];
	size_t len;
};

/* Run the loop until one whole response is read from fd (bounded). */
void read_response(int fd, struct resp *r);
void send_all(int fd, const void *p, size_t len);
void request(int fd, uint8_t flags, struct resp *r, int argc, const char *const *argv);
/* After a response that closes the connection: EOF once the loop ran. */
void assert_closed(int fd);

#define REQ(fd, flags, r, ...) \
	do { \
		const char *const a_[] = { __VA_ARGS__ }; \
		request(fd, flags, r, (int)(sizeof(a_) / sizeof(a_[0])), a_); \
	} while (0)

bool json_valid(const char *s);

#endif
