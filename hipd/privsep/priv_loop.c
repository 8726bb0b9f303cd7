/*
 * priv_loop.c - the privileged process's main loop (priv.h priv_run()):
 * the engine's requests (priv_dispatch.c), XFRM events, signals passed on
 * to the engine and systemd, and the clean-up once the engine has exited.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/base.h"
#include "priv.h"
#include "priv_int.h"
#include "datapath/xfrm/xfrm.h"

/* ---- the loop -------------------------------------------------------------------------- */

static int signals_open(void)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
		return -errno;
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

/* The engine's exit status once it exited, else -1. */
static int reap(pid_t engine)
{
	int status;
	pid_t r = waitpid(engine, &status, WNOHANG);

	if (r != engine)
		return -1;
	if (WIFEXITED(status)) {
		if (WEXITSTATUS(status))
			log_err("privsep: the engine exited with status %d", WEXITSTATUS(status));
		return WEXITSTATUS(status);
	}
	log_err("privsep: the engine died of signal %d%s", WTERMSIG(status),
		WTERMSIG(status) == SIGSYS ? " (a system call outside the seccomp filter)" : "");
	return 1;
}

static void on_signal(struct priv *p, int sfd, pid_t engine, bool *stopping)
{
	struct signalfd_siginfo si;

	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGHUP:
			/* systemd: RELOADING=1 now, READY=1 when the engine is done */
			hipd_sd_notify_reloading();
			if (priv_send_reload(p) < 0)
				hipd_sd_notify("READY=1");
			break;
		case SIGTERM:
		case SIGINT:
			if (!*stopping)
				hipd_sd_notify("STOPPING=1");
			*stopping = true;
			kill(engine, (int)si.ssi_signo);
			break;
		default:
			break;   /* SIGCHLD: reaped by the loop */
		}
	}
}

int priv_run(struct priv *p, pid_t engine, int dp_event_fd,
	     void (*ready)(void *arg), void *ready_arg)
{
	struct pollfd pfd[3];
	bool stopping = false, ready_sent = false, engine_open = true;
	int sfd, status = -1, ret, reload_result;

	sfd = signals_open();
	if (sfd < 0) {
		log_err("privsep: signals: %s", strerror(-sfd));
		kill(engine, SIGTERM);
	}
	while ((status = reap(engine)) < 0) {
		pfd[0] = (struct pollfd){ .fd = engine_open ? p->fd : -1, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pfd[2] = (struct pollfd){ .fd = dp_event_fd, .events = POLLIN };
		/* a timeout: SIGCHLD is the wake-up, this is the safety net */
		ret = poll(pfd, 3, 1000);
		if (ret < 0 && errno != EINTR) {
			log_err("privsep: poll: %s", strerror(errno));
			kill(engine, SIGKILL);
		}
		if (ret <= 0)
			continue;
		if (pfd[1].revents)
			on_signal(p, sfd, engine, &stopping);
		if (pfd[2].revents && p->dp)
			xfrm_dp_event_read(p->dp);
		if (pfd[0].revents) {
			int i;

			for (i = 0; i < 64; i++) {
				ret = priv_handle(p);
				if (ret == -EAGAIN)
					break;
				if (ret < 0) {
					/* the engine closed its end: it is exiting */
					engine_open = false;
					break;
				}
			}
			if (!ready_sent && priv_hello_seen(p)) {
				ready_sent = true;
				if (ready)
					ready(ready_arg);
			}
			if (priv_take_reloaded(p, &reload_result))
				hipd_sd_notify("READY=1");
		}
	}
	if (!stopping)
		hipd_sd_notify("STOPPING=1");
	if (p->n_sas || p->n_pols)
		log_notice("privsep: the engine is gone: removing its %zu SAs and %zu policies",
			   p->n_sas, p->n_pols);
	priv_flush(p);
	if (sfd >= 0)
		close(sfd);
	return status;
}
