/*
 * daemon.h - hipd's life cycle around the protocol engine: configuration
 * with command-line overrides, pid file, event loop, hosts map, control
 * socket, signals (SIGHUP reload, SIGTERM/SIGINT stop), clean shutdown.
 * main.c parses options and calls these; tests can drive them in-process.
 */
#ifndef HIPD_DAEMON_H
#define HIPD_DAEMON_H

#include <stdbool.h>
#include <stddef.h>

#include "hipd.h"

enum { HIPD_OVERRIDES_MAX = 32 };

struct hipd_override {
	const char *opt;     /* "--hi-file", for messages */
	const char *key;     /* hipd.conf key */
	const char *value;
};

struct hipd_options {
	const char *config_file;     /* NULL: <config-dir>/hipd.conf or the default */
	bool config_explicit;        /* given with -c: must exist */
	struct hipd_override overrides[HIPD_OVERRIDES_MAX];
	size_t n_overrides;
};

/* The protocol engine's entry points (engine.h), called only when set:
 * main.c fills them in once the engine exists. */
struct hipd_engine_hooks {
	int (*start)(struct hipd *d);
	void (*stop)(struct hipd *d);
	int (*reload)(struct hipd *d);
};

struct hipd_daemon {
	struct hipd d;                /* first: handlers get &hd->d or hd */
	struct hipd_options opts;
	const struct hipd_engine_hooks *engine;
	int pid_fd;                   /* locked pid file, -1 = none */
	bool pid_written;
	bool engine_started;
	/* hipconf reload (control_cmds.c): hipd_daemon_reload, handed to
	 * hipd_control_register, so the commands need not call back up here */
	int (*reload)(struct hipd_daemon *hd, char *err, size_t errlen);
};

/* Defaults, the config file, the overrides, derived values, checks: the
 * configuration the daemon runs with (also used on reload). A missing
 * default config file is fine; a missing explicit one is an error. */
int hipd_conf_build(struct hipd_conf *conf, const struct hipd_options *o, char *err,
		    size_t errlen);

/* hd->d.conf must be built. Opens the pid file (refusing a second daemon
 * with the same one), loop, hosts, control socket, signals, engine.
 * Logs why on failure and undoes what it did. */
int hipd_daemon_start(struct hipd_daemon *hd);
/* Until SIGTERM/SIGINT. */
int hipd_daemon_run(struct hipd_daemon *hd);
/* Re-read config and hosts; on error nothing changes and err says why. */
int hipd_daemon_reload(struct hipd_daemon *hd, char *err, size_t errlen);
/* Engine stop, control socket and pid file removed, everything freed. */
void hipd_daemon_stop(struct hipd_daemon *hd);

/* The control commands of this layer: add/del/show map, set loglevel,
 * reload, show config (control_cmds.c). */
int hipd_control_register(struct hipd_daemon *hd,
			  int (*reload)(struct hipd_daemon *hd, char *err, size_t errlen));

#endif
