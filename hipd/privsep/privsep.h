/*
 * privsep.h - the split of a started hipd into the privileged process and
 * the engine (DESIGN.md "Processes"; priv.h, priv_client.h, seccomp.h).
 *
 * Called once everything that needs root is open (hipd_daemon_start: raw
 * sockets, control socket, hip0, ESP sockets, XFRM probe). The process
 * forks: the parent becomes priv (the pid in the pid file, systemd's main
 * process: readiness and stop go through it), the child the engine, which
 * keeps the fds it inherited except the XFRM netlink sockets and runs the
 * protocol with no capabilities under a seccomp filter.
 */
#ifndef HIPD_PRIVSEP_H
#define HIPD_PRIVSEP_H

#include "caps.h"
#include "daemon.h"
#include "base/base.h"

struct privsep_conf {
	const struct caps_plan *plan;
	enum log_dest log_dest;      /* where the log goes now */
	int ready_fd;                /* a waiting parent (daemonized), -1 */
	/* priv, once the engine is set up: tell the waiting parent (it has
	 * already sent READY=1 to systemd) */
	void (*ready)(int ready_fd);
};

/* Runs until the daemon stops, in both processes; returns the exit status
 * of the process that returns (priv returns the engine's). */
int hipd_privsep_run(struct hipd_daemon *hd, const struct privsep_conf *pc);

#endif
