/*
 * engine_ctl.h - a hipconf connection to an in-process engine for the
 * unit suites (check_engine.c, check_reg_opp.c): the daemon's own control
 * server (hipd/control) on one end of a socket pair, the test on the other.
 */
#ifndef HIP_UNIT_ENGINE_CTL_H
#define HIP_UNIT_ENGINE_CTL_H

#include <stdbool.h>
#include <stddef.h>

struct control;
struct hip_loop;

struct ctl_fixture {
	struct control *ctl;
	int fd;                 /* our end of the connection */
};

/* A control server on loop with one connection adopted; f->fd is ours. */
void ctl_open(struct ctl_fixture *f, struct hip_loop *loop);
/* Send one command (space-separated words), run the loop until the
 * answer is there; returns the status, text in out. */
int ctl_call(struct ctl_fixture *f, struct hip_loop *loop, bool json, const char *line,
	     char *out, size_t cap);
/* Our end closed, the server freed. */
void ctl_close(struct ctl_fixture *f);

#endif
