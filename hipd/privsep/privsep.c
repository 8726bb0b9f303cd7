/*
 * privsep.c - fork into priv and engine (privsep.h).
 *
 * The file descriptors reach the engine by inheritance across fork(): the
 * same effect as passing them with SCM_RIGHTS (the engine never opens
 * them itself), without a window where they exist in one process only.
 * Before it reads any input the engine closes what is priv's (the XFRM
 * netlink sockets) and drops every capability; priv closes everything of
 * the engine's (raw and control sockets, hip0, the event loop) and frees
 * the host identity it no longer needs.
 *
 * What a compromised engine still has: the raw HIP sockets (and, with the
 * userspace datapath, the raw ESP sockets and hip0), so it can send HIP
 * and ESP packets; requests to priv for SAs and policies between our HITs
 * and HITs it chooses. It cannot open sockets, install other SAs, or touch
 * other XFRM state (priv.c checks every request).
 */
#include "config.h"
#include "privsep.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/engine.h"
#include "base/base.h"
#include "priv.h"
#include "priv_client.h"
#include "seccomp.h"
#include "datapath/xfrm/xfrm.h"
#include "net/net.h"

static int hits_collect(struct hipd *d, struct priv_conf *pc)
{
	size_t i;
	int n;

	memset(pc, 0, sizeof(*pc));
	pc->reqid = xfrm_reqid_or_default(d->conf.xfrm_reqid);
	pc->nat_port = (uint16_t)d->conf.nat_port;
	n = hipd_engine_local_hits(d, pc->local, PRIV_LOCAL_HITS_MAX);
	if (n < 0)
		return n;
	pc->n_local = (size_t)n;
	/* and their LSIs (D-20, assigned when the engine started) with the
	 * range, for the IPv4 SAs and policies (D-22) */
	pc->lsi_range = d->conf.lsi_range;
	for (i = 0; i < pc->n_local; i++)
		if (!d->hosts || hosts_lsi_find(d->hosts, &pc->local[i], &pc->local_lsi[i], NULL))
			pc->local_lsi[i].s_addr = 0;
	return 0;
}

/* ---- the engine ----------------------------------------------------------------- */

struct engine_ctx {
	struct hipd_daemon *hd;
	struct priv_client *pc;
};

static void engine_reload(void *arg)
{
	struct engine_ctx *ec = arg;
	char err[HIPD_CONF_ERR_MAX];
	int r = hipd_daemon_reload(ec->hd, err, sizeof(err));

	priv_client_reloaded(ec->pc, r);
}

static int engine_pick_source(struct hipd *d, const struct hip_addr *dst,
			      struct hip_addr *src)
{
	return priv_client_pick_source(d->pick_ctx, dst, src);
}

/* priv is gone (PR_SET_PDEATHSIG is on its way): hipd crashed, and the
 * engine goes as one would, without CLOSEs; nothing can be installed or
 * removed any more anyway. */
static void engine_lost(void *arg)
{
	(void)arg;
	_exit(1);
}

/* The XFRM datapath's sockets are priv's: the engine talks to priv. */
static struct datapath *engine_priv_datapath(void *arg, const struct datapath_events *ev)
{
	return priv_client_datapath(arg, ev);
}

static void engine_take_datapath(struct hipd *d, struct priv_client *pc)
{
	hipd_engine_datapath_hand_over(d, engine_priv_datapath, pc);
}

static void stdio_detach(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
}

static int engine_main(struct hipd_daemon *hd, const struct privsep_conf *pc, int fd,
		       pid_t priv_pid)
{
	struct hipd *d = &hd->d;
	struct engine_ctx ec = { .hd = hd };
	struct priv_client_hooks hooks = { &ec, engine_reload, engine_lost };
	char err[HIPD_CONF_ERR_MAX];
	int r;

	/* systemd hears from priv, its main process; the pid file and its
	 * lock are priv's too (a new hipd must not wait for a dying engine) */
	unsetenv("NOTIFY_SOCKET");
	if (hd->pid_fd >= 0)
		close(hd->pid_fd);
	hd->pid_fd = -1;
	if (pc->ready_fd >= 0)
		close(pc->ready_fd);
	r = hip_loop_forked(d->loop);
	if (r < 0) {
		log_err("privsep: engine: signals: %s", strerror(-r));
		goto fail;
	}
	r = priv_client_create(&ec.pc, d->loop, fd, xfrm_reqid_or_default(d->conf.xfrm_reqid),
			       &hooks);
	if (r < 0) {
		log_err("privsep: engine: %s", strerror(-r));
		goto fail;
	}
	d->priv_fd = fd;
	d->pick_source = engine_pick_source;
	d->pick_ctx = ec.pc;
	engine_take_datapath(d, ec.pc);
	r = caps_drop_to(pc->plan, &d->conf, 0, err, sizeof(err));
	if (r < 0) {
		log_err("privsep: engine: cannot drop privileges: %s", err);
		goto fail;
	}
	/* After the user switch (which clears it): die with priv. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != priv_pid) {
		log_err("privsep: the privileged process is gone");
		goto fail;
	}
	if (pc->ready_fd >= 0) {
		/* daemonized: syslog, connected now (LOG_NDELAY), before the filter */
		log_open("hipd", LOG_DEST_SYSLOG);
		stdio_detach();
	}
	hipd_engine_threads_start(d);
	if (hipd_engine_threaded(d)) {
		r = seccomp_engine_install(true, err, sizeof(err));
		/* Refused (e.g. a service manager's filter without seccomp(2)
		 * itself, or a kernel without TSYNC): prctl() filters one
		 * thread, so one thread it is. Without seccomp at all
		 * (-ENOTSUP) the thread stays. */
		if (r < 0 && r != -ENOTSUP) {
			hipd_engine_threads_stop(d);
			log_notice("privsep: engine: %s: the puzzle is solved on the engine's "
				   "thread", err);
			r = seccomp_engine_install(false, err, sizeof(err));
		}
	} else {
		r = seccomp_engine_install(false, err, sizeof(err));
	}
	if (r == -ENOTSUP)
		log_warn("privsep: engine pid %d without a seccomp filter: %s", (int)getpid(), err);
	else if (r < 0) {
		log_err("privsep: engine: seccomp: %s", err);
		goto fail;
	} else {
		log_notice("privsep: engine pid %d: no capabilities, seccomp filter allowing %zu "
			   "system calls", (int)getpid(), seccomp_engine_count());
	}
	r = priv_client_hello(ec.pc);
	if (r < 0) {
		log_err("privsep: engine: %s", strerror(-r));
		goto fail;
	}
	r = hipd_daemon_run(hd);
	priv_client_detach(ec.pc);
	hipd_daemon_stop(hd);
	priv_client_free(ec.pc);
	d->priv_fd = -1;
	d->pick_source = NULL;
	log_notice("stopped");
	return r ? 1 : 0;
fail:
	priv_client_detach(ec.pc);
	hipd_daemon_stop(hd);
	priv_client_free(ec.pc);
	return 1;
}

/* ---- priv ------------------------------------------------------------------------- */

/* close_range(2) (Linux 5.9), else one by one up to the fd limit. */
static void close_span(unsigned lo, unsigned hi)
{
	long max;

	if (close_range(lo, hi, 0) == 0)
		return;
	max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (; lo <= hi && lo < (unsigned)max; lo++)
		close((int)lo);
}

static bool kept(int fd, const int *keep, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (keep[i] == fd)
			return true;
	return false;
}

/* Close the engine's fds in priv: every socket, epoll/timer/signal fd and
 * hip0 but keep[]. Regular files stay (the pid file's lock; under
 * qemu-user, the emulator's own files). Without /proc: everything above
 * stderr but keep[]. */
static void close_engine_fds(const int *keep, size_t n)
{
	char path[64], target[64];
	struct dirent *de;
	DIR *dir = opendir("/proc/self/fd");
	int fd, max = -1;
	ssize_t len;
	size_t i;

	if (!dir) {
		for (i = 0; i < n; i++)
			max = keep[i] > max ? keep[i] : max;
		for (fd = STDERR_FILENO + 1; fd < max; fd++)
			if (!kept(fd, keep, n))
				close(fd);
		close_span((unsigned)(max > STDERR_FILENO ? max + 1 : STDERR_FILENO + 1), ~0u);
		return;
	}
	while ((de = readdir(dir))) {
		fd = atoi(de->d_name);
		if (de->d_name[0] < '0' || de->d_name[0] > '9' || fd <= STDERR_FILENO ||
		    fd == dirfd(dir) || kept(fd, keep, n))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (!strncmp(target, "socket:", 7) || !strncmp(target, "anon_inode:", 11) ||
		    !strcmp(target, "/dev/net/tun"))
			close(fd);
	}
	closedir(dir);
}

/* The pid file (priv's, locked), and after an engine crash the control
 * socket it would have removed; only while the pid file is still ours (no
 * new hipd can have made new ones: it needs our lock first). */
static void remove_files(struct hipd_daemon *hd, bool crashed)
{
	struct stat a, b;

	if (hd->pid_fd < 0 || fstat(hd->pid_fd, &a) != 0 ||
	    stat(hd->d.conf.pid_file, &b) != 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return;
	if (crashed) {
		unlink(hd->d.conf.control_socket);
		/* the engine's LSI table (D-26): stale without it */
		if (hd->d.conf.lsi_file[0])
			unlink(hd->d.conf.lsi_file);
	}
	unlink(hd->d.conf.pid_file);
}

static void priv_ready(void *arg)
{
	const struct privsep_conf *pc = arg;

	hipd_sd_notify("READY=1");
	if (pc->ready_fd >= 0 && pc->ready)
		pc->ready(pc->ready_fd);
}

static int priv_main(struct hipd_daemon *hd, const struct privsep_conf *pc, int fd,
		     pid_t engine)
{
	struct hipd *d = &hd->d;
	struct datapath *dp = NULL;
	struct priv_conf conf;
	struct priv *p = NULL;
	char err[HIPD_CONF_ERR_MAX];
	bool kernel = hipd_engine_kernel_datapath(d);
	int keep[2] = { fd, hd->pid_fd }, status = 1, r;

	r = hits_collect(d, &conf);
	if (r < 0) {
		log_err("privsep: more than %d host identities", PRIV_LOCAL_HITS_MAX);
		goto fail;
	}
	/* The engine's copies: no host key, no sockets, no loop in here. */
	hipd_engine_drop_secrets(d);
	close_engine_fds(keep, 2);
	log_open("hipd", pc->log_dest);
	r = caps_drop_to(pc->plan, &d->conf, CAPS_KEEP_MASK, err, sizeof(err));
	if (r < 0) {
		log_err("privsep: cannot drop privileges: %s", err);
		goto fail;
	}
	if (kernel) {
		struct xfrm_dp_conf xconf = { .reqid = conf.reqid };

		r = xfrm_dp_create(&dp, &xconf, NULL);
		if (r < 0) {
			log_err("privsep: XFRM netlink: %s", strerror(-r));
			goto fail;
		}
	}
	r = priv_create(&p, fd, dp, &conf);
	if (r < 0)
		goto fail;
	log_info("privsep: privileged process pid %d (%s datapath requests), engine pid %d",
		 (int)getpid(), kernel ? "kernel" : "no", (int)engine);
	status = priv_run(p, engine, dp ? xfrm_dp_event_fd(dp) : -1, priv_ready, (void *)pc);
	goto out;
fail:
	kill(engine, SIGKILL);
	waitpid(engine, NULL, 0);
	status = 1;
out:
	remove_files(hd, status != 0);
	priv_free(p);
	if (dp)
		dp->ops->free(dp);
	close(fd);
	if (hd->pid_fd >= 0)
		close(hd->pid_fd);
	hd->pid_fd = -1;
	/* The rest of priv's memory is the engine's, copied by fork(): freeing
	 * it would act on kernel objects both share (the epoll set, hip0), so
	 * priv leaves without the exit-time leak check. */
	_exit(status);
}

int hipd_privsep_run(struct hipd_daemon *hd, const struct privsep_conf *pc)
{
	char err[HIPD_CONF_ERR_MAX];
	pid_t pid, parent = getpid();
	int sv[2], r;

	r = caps_hand_over(pc->plan, &hd->d.conf, err, sizeof(err));
	if (r < 0) {
		log_err("cannot drop privileges: %s", err);
		hipd_daemon_stop(hd);
		return 1;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		log_err("privsep: socketpair: %s", strerror(errno));
		hipd_daemon_stop(hd);
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		log_err("privsep: fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		hipd_daemon_stop(hd);
		return 1;
	}
	if (pid == 0) {
		close(sv[0]);
		return engine_main(hd, pc, sv[1], parent);
	}
	close(sv[1]);
	return priv_main(hd, pc, sv[0], pid);
}
