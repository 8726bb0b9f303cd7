/*
 * daemon.c - start, reload and stop hipd around the protocol engine.
 */
#include "config.h"
#include "daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/net.h"
#include "control/control.h"
#include "base/base.h"

int hipd_conf_build(struct hipd_conf *conf, const struct hipd_options *o, char *err,
		    size_t errlen)
{
	char path[HIPD_PATH_MAX];
	const char *file = o->config_file;
	size_t i;
	int r;

	hipd_conf_defaults(conf);
	/* --config-dir without --config: the config file lives there too */
	if (!file) {
		file = HIPD_CONF_DEFAULT_FILE;
		for (i = 0; i < o->n_overrides; i++) {
			if (strcmp(o->overrides[i].key, "config_dir") != 0)
				continue;
			snprintf(path, sizeof(path), "%s/hipd.conf", o->overrides[i].value);
			file = path;
		}
	}
	r = hipd_conf_load(conf, file, err, errlen);
	if (r == -ENOENT && !o->config_explicit)
		r = 0;   /* no file: defaults and options only */
	if (r)
		return r;
	for (i = 0; i < o->n_overrides; i++) {
		const struct hipd_override *ov = &o->overrides[i];

		r = hipd_conf_override(conf, ov->opt, ov->key, ov->value, err, errlen);
		if (r)
			return r;
	}
	return hipd_conf_finalize(conf, err, errlen);
}

/* ---- pid file ---- */

static int mkdir_parent(const char *path)
{
	char dir[HIPD_PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* The lock, not the file's existence, says whether a daemon runs: a stale
 * file from a crash is simply reused. */
static int pidfile_open(struct hipd_daemon *hd)
{
	const char *path = hd->d.conf.pid_file;
	char buf[32];
	ssize_t n;
	int fd, r;

	mkdir_parent(path);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		r = -errno;
		log_err("pid file %s: %s", path, strerror(errno));
		return r;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		r = errno == EWOULDBLOCK ? -EALREADY : -errno;
		n = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		if (r == -EALREADY)
			log_err("another hipd (pid %s) is running with pid file %s",
				buf[0] ? buf : "?", path);
		else
			log_err("pid file %s: cannot lock: %s", path, strerror(-r));
		close(fd);
		return r;
	}
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, buf, (size_t)n, 0) != n) {
		r = -errno;
		log_err("pid file %s: cannot write: %s", path, strerror(errno));
		close(fd);
		return r;
	}
	hd->pid_fd = fd;
	hd->pid_written = true;
	return 0;
}

static void pidfile_remove(struct hipd_daemon *hd)
{
	if (hd->pid_fd < 0)
		return;
	/* unlink while still holding the lock: a new daemon never sees our
	 * pid in a file it locked itself */
	if (hd->pid_written)
		unlink(hd->d.conf.pid_file);
	close(hd->pid_fd);
	hd->pid_fd = -1;
}

/* ---- signals ---- */

static void on_stop_signal(struct hip_loop *loop, const struct signalfd_siginfo *si, void *arg)
{
	struct hipd_daemon *hd = arg;
	const char *name = sigabbrev_np((int)si->ssi_signo);

	log_notice("SIG%s received, exiting", name ? name : "?");
	hd->d.stop_requested = 1;
	hip_loop_stop(loop);
}

static void on_sighup(struct hip_loop *loop, const struct signalfd_siginfo *si, void *arg)
{
	struct hipd_daemon *hd = arg;
	char err[HIPD_CONF_ERR_MAX];

	hd->d.reload_requested = 1;
	/* failures are logged by hipd_daemon_reload; the old state stays */
	hipd_daemon_reload(hd, err, sizeof(err));
	hd->d.reload_requested = 0;
}

static void on_sigchld(struct hip_loop *loop, const struct signalfd_siginfo *si, void *arg)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		log_debug("child %d exited with status %d", (int)pid, status);
}

static int signals_setup(struct hipd_daemon *hd)
{
	static const int stop_signals[] = { SIGTERM, SIGINT };
	size_t i;
	int r;

	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++) {
		r = hip_loop_signal_add(hd->d.loop, stop_signals[i], on_stop_signal, hd);
		if (r)
			return r;
	}
	r = hip_loop_signal_add(hd->d.loop, SIGHUP, on_sighup, hd);
	if (!r)
		r = hip_loop_signal_add(hd->d.loop, SIGCHLD, on_sigchld, hd);
	return r;
}

/* ---- start, reload, stop ---- */

static int hosts_load(struct hosts *h, const char *path, char *err, size_t errlen)
{
	size_t n = 0;
	int r = hosts_load_file(h, path, err, errlen, &n);

	if (r == -ENOENT) {
		log_info("no hosts file at %s: no static mappings", path);
		return 0;
	}
	if (r == 0)
		log_info("%zu mapping%s from %s", n, n == 1 ? "" : "s", path);
	return r;
}

int hipd_daemon_start(struct hipd_daemon *hd)
{
	struct hipd *d = &hd->d;
	char err[HIPD_CONF_ERR_MAX];
	int fd, r;

	hd->pid_fd = -1;
	d->raw4 = d->raw6 = d->priv_fd = -1;
	d->udp4 = d->udp6 = -1;
	d->puzzle_k = d->conf.puzzle_k;
	d->start_ns = hipd_now_ns();
	log_set_level(d->conf.log_level);

	r = pidfile_open(hd);
	if (r)
		return r;
	r = hip_loop_create(&d->loop);
	if (r) {
		log_err("event loop: %s", strerror(-r));
		goto fail;
	}
	/* Signals are taken over before anything can be observed from outside
	 * (the control socket): a SIGTERM sent as soon as the socket appears
	 * must still give a clean exit. */
	r = signals_setup(hd);
	if (r) {
		log_err("startup: %s", strerror(-r));
		goto fail;
	}
	/* an LSI range on one of the host's networks would hide it (D-20) */
	r = lsi_host_check_range(&d->conf.lsi_range, LSI_HOST_OWN_DEV, err, sizeof(err));
	if (r) {
		log_err("%s", err);
		goto fail;
	}
	r = hosts_create(&d->hosts);
	if (!r)
		r = hosts_set_lsi_range(d->hosts, &d->conf.lsi_range);
	if (!r)
		r = hosts_load(d->hosts, d->conf.hosts_file, err, sizeof(err));
	if (r) {
		log_err("%s", r == -ENOMEM ? "out of memory" : err);
		goto fail;
	}
	lsi_export_write(d->hosts, d->conf.lsi_file);   /* D-26 */
	r = control_socket_open(d->conf.control_socket, d->conf.control_group, &fd, err,
				sizeof(err));
	if (r) {
		log_err("control socket %s", err);
		goto fail;
	}
	r = control_create(&d->control, d->loop, fd, d->conf.control_socket,
			   d->conf.control_group);
	if (r) {
		close(fd);
		unlink(d->conf.control_socket);
		log_err("control socket: %s", strerror(-r));
		goto fail;
	}
	r = hipd_control_register(hd, hipd_daemon_reload);
	if (r) {
		log_err("startup: %s", strerror(-r));
		goto fail;
	}
	if (hd->engine && hd->engine->start) {
		r = hd->engine->start(d);
		if (r) {
			log_err("protocol engine: %s", strerror(-r));
			goto fail;
		}
		hd->engine_started = true;
		/* own addresses by rtnetlink (engine side: needs no capability) */
		r = addrwatch_start(d, &d->addrwatch);
		if (r) {
			log_err("watching the host's addresses (rtnetlink): %s", strerror(-r));
			goto fail;
		}
	}
	log_notice("hipd " PACKAGE_VERSION " started (pid %d, config %s, control socket %s)",
		   (int)getpid(), d->conf.config_file[0] ? d->conf.config_file : "(defaults)",
		   d->conf.control_socket);
	return 0;
fail:
	hipd_daemon_stop(hd);
	return r;
}

int hipd_daemon_run(struct hipd_daemon *hd)
{
	int r = hip_loop_run(hd->d.loop);

	if (r)
		log_err("event loop: %s", strerror(-r));
	return r;
}

static int daemon_reload(struct hipd_daemon *hd, char *err, size_t errlen)
{
	struct hipd *d = &hd->d;
	const char *restart[8];
	struct hipd_conf fresh;
	size_t n, i;
	int r;

	r = hipd_conf_build(&fresh, &hd->opts, err, errlen);
	if (r) {
		log_err("reload failed, configuration unchanged: %s", err);
		return r;
	}
	/* hosts first: all or nothing, so a bad hosts file changes nothing */
	r = hosts_load(d->hosts, fresh.hosts_file, err, errlen);
	if (r) {
		log_err("reload failed, configuration unchanged: %s", err);
		return r;
	}
	lsi_export_write(d->hosts, d->conf.lsi_file);   /* D-26 */
	n = hipd_conf_apply_reload(&d->conf, &fresh, restart, 8);
	memcpy(d->conf.config_file, fresh.config_file, sizeof(d->conf.config_file));
	for (i = 0; i < n && i < 8; i++)
		log_warn("reload: %s changed; it takes effect when hipd restarts", restart[i]);
	log_set_level(d->conf.log_level);
	d->puzzle_k = d->conf.puzzle_k;
	if (hd->engine_started && hd->engine->reload) {
		r = hd->engine->reload(d);
		if (r) {
			snprintf(err, errlen, "protocol engine: %s", strerror(-r));
			log_err("reload: %s", err);
			return r;
		}
	}
	log_notice("reloaded %s and %s",
		   d->conf.config_file[0] ? d->conf.config_file : "(default configuration)",
		   d->conf.hosts_file);
	return 0;
}

/* SIGHUP or hipconf reload: systemd sees the unit reloading until READY=1. */
int hipd_daemon_reload(struct hipd_daemon *hd, char *err, size_t errlen)
{
	int r;

	hipd_sd_notify_reloading();
	r = daemon_reload(hd, err, errlen);
	hipd_sd_notify("READY=1");
	return r;
}

void hipd_daemon_stop(struct hipd_daemon *hd)
{
	struct hipd *d = &hd->d;

	addrwatch_stop(d->addrwatch);   /* before the engine: it calls UPDATE */
	d->addrwatch = NULL;
	if (hd->engine_started && hd->engine->stop)
		hd->engine->stop(d);
	hd->engine_started = false;
	control_free(d->control);    /* removes the socket file */
	d->control = NULL;
	lsi_export_remove(d->hosts, d->conf.lsi_file);
	hosts_free(d->hosts);
	d->hosts = NULL;
	hip_loop_free(d->loop);      /* restores the signal mask */
	d->loop = NULL;
	pidfile_remove(hd);
}
