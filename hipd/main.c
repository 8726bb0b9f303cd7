/*
 * main.c - hipd: options, daemonizing, and the hand-over to daemon.c.
 *
 * Exit status: 0 after a clean stop (SIGTERM/SIGINT), 1 when startup or the
 * event loop fails, 2 for a usage or configuration error.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "privsep/privsep.h"
#include "daemon.h"
#include "engine/engine.h"
#include "net/net.h"
#include "base/base.h"

/* The protocol engine (engine.h), started once the daemon is set up. */
static const struct hipd_engine_hooks engine_hooks = {
	hipd_engine_start, hipd_engine_stop, hipd_engine_reload,
};

enum {
	OPT_LOG_STDERR = 256, OPT_CONFIG_DIR, OPT_HI_FILE, OPT_HOSTS_FILE, OPT_CONTROL_SOCKET,
	OPT_PID_FILE, OPT_STATE_DIR, OPT_USER, OPT_NO_PRIVSEP,
};

static const struct option long_options[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "foreground", no_argument, NULL, 'f' },
	{ "log-stderr", no_argument, NULL, OPT_LOG_STDERR },
	{ "debug", no_argument, NULL, 'd' },
	{ "check-config", no_argument, NULL, 't' },
	{ "config-dir", required_argument, NULL, OPT_CONFIG_DIR },
	{ "hi-file", required_argument, NULL, OPT_HI_FILE },
	{ "hosts-file", required_argument, NULL, OPT_HOSTS_FILE },
	{ "control-socket", required_argument, NULL, OPT_CONTROL_SOCKET },
	{ "pid-file", required_argument, NULL, OPT_PID_FILE },
	{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
	{ "user", required_argument, NULL, OPT_USER },
	{ "no-privsep", no_argument, NULL, OPT_NO_PRIVSEP },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Options that set a hipd.conf key (they beat the file). */
static const struct {
	int opt;
	const char *name, *key;
} key_options[] = {
	{ OPT_CONFIG_DIR, "--config-dir", "config_dir" },
	{ OPT_HI_FILE, "--hi-file", "hi_file" },
	{ OPT_HOSTS_FILE, "--hosts-file", "hosts_file" },
	{ OPT_CONTROL_SOCKET, "--control-socket", "control_socket" },
	{ OPT_PID_FILE, "--pid-file", "pid_file" },
	{ OPT_STATE_DIR, "--state-dir", "state_dir" },
	{ OPT_USER, "--user", "user" },
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: hipd [OPTION]...\n"
		"Host Identity Protocol v2 (RFC 7401) daemon.\n"
		"\n"
		"  -c, --config FILE         configuration file (default " HIPD_CONF_DEFAULT_FILE
		",\n"
		"                            or DIR/hipd.conf with --config-dir DIR)\n"
		"  -f, --foreground          stay in the foreground, log to stderr\n"
		"      --log-stderr          log to stderr with <N> syslog priority prefixes\n"
		"                            (for journald; implies --foreground)\n"
		"  -d, --debug               log_level = debug, implies --foreground\n"
		"  -t, --check-config        check the configuration and hosts file, then exit\n"
		"      --config-dir DIR      config_dir (default /etc/hip)\n"
		"      --hi-file FILE        hi_file (default CONFIG_DIR/hip_host_key.pem)\n"
		"      --hosts-file FILE     hosts_file (default CONFIG_DIR/hosts)\n"
		"      --control-socket PATH control_socket (default /run/hipd/hipd.sock)\n"
		"      --pid-file FILE       pid_file (default /run/hipd/hipd.pid)\n"
		"      --state-dir DIR       state_dir (default /var/lib/hipd)\n"
		"      --user USER           user to run as (default hipd)\n"
		"      --no-privsep          run as one process (tests, debugging); default:\n"
		"                            a privileged process and an unprivileged engine\n"
		"  -V, --version             print the version and exit\n"
		"  -h, --help                print this help and exit\n"
		"\n"
		"Options override the same keys in the configuration file (hipd.conf(5)).\n"
		"Signals: SIGHUP reloads the configuration and hosts file; SIGTERM and SIGINT\n"
		"stop hipd. Exit status: 0 clean stop, 1 failure, 2 usage or configuration error.\n"
		"See hipd(8) and hipconf(8).\n");
}

static int add_override(struct hipd_options *o, const char *opt, const char *key,
			const char *value)
{
	if (o->n_overrides == HIPD_OVERRIDES_MAX) {
		fprintf(stderr, "hipd: too many options\n");
		return -E2BIG;
	}
	o->overrides[o->n_overrides++] = (struct hipd_override){ opt, key, value };
	return 0;
}

/* Detach: the parent exits once the child reports its startup result
 * through a pipe, so `hipd` fails visibly when the daemon cannot start.
 * Returns the write end of the pipe in the daemon (-1 on failure). */
static int daemonize(void)
{
	int p[2];
	char status = 1;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0) {
		close(p[1]);
		if (read(p[0], &status, 1) != 1)
			status = 1;
		_exit(status);
	}
	close(p[0]);
	if (setsid() < 0)
		_exit(1);
	/* second fork: not a session leader, never gets a controlling tty */
	pid = fork();
	if (pid < 0)
		_exit(1);
	if (pid > 0)
		_exit(0);
	if (chdir("/") != 0)
		_exit(1);
	umask(022);
	return p[1];
}

/* After a successful start: report to the waiting parent, log to syslog,
 * let go of the terminal. */
static void daemon_ready(int ready_fd)
{
	char ok = 0;
	int null_fd;

	log_open("hipd", LOG_DEST_SYSLOG);
	null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null_fd >= 0) {
		dup2(null_fd, STDIN_FILENO);
		dup2(null_fd, STDOUT_FILENO);
		dup2(null_fd, STDERR_FILENO);
		if (null_fd > STDERR_FILENO)
			close(null_fd);
	}
	if (write(ready_fd, &ok, 1) != 1)
		log_warn("cannot report readiness to the parent process");
	close(ready_fd);
}

static int check_config(const struct hipd_conf *conf)
{
	char err[HIPD_CONF_ERR_MAX];
	struct hosts *h;
	size_t n = 0;
	int r;

	r = lsi_host_check_range(&conf->lsi_range, LSI_HOST_OWN_DEV, err, sizeof(err));
	if (r) {
		fprintf(stderr, "hipd: %s\n", err);
		return 2;
	}
	if (hosts_create(&h) != 0)
		return 1;
	if (hosts_set_lsi_range(h, &conf->lsi_range) != 0) {
		hosts_free(h);
		return 1;
	}
	r = hosts_load_file(h, conf->hosts_file, err, sizeof(err), &n);
	hosts_free(h);
	if (r && r != -ENOENT) {
		fprintf(stderr, "hipd: %s\n", err);
		return 2;
	}
	printf("%s: ok\n%s: %s\n", conf->config_file[0] ? conf->config_file :
	       "(no config file)", conf->hosts_file, r ? "absent" : "ok");
	return 0;
}

struct run_flags {
	bool foreground, check_only, no_privsep;
	enum log_dest dest;
};

/* Options into hd->opts and fl. Returns -1 to go on, else an exit status. */
static int parse_options(int argc, char **argv, struct hipd_daemon *hd, struct run_flags *fl)
{
	size_t i;
	int c;

	while ((c = getopt_long(argc, argv, "c:fdtVh", long_options, NULL)) != -1) {
		switch (c) {
		case 'c':
			hd->opts.config_file = optarg;
			hd->opts.config_explicit = true;
			break;
		case 'f':
			fl->foreground = true;
			break;
		case OPT_LOG_STDERR:
			fl->foreground = true;
			fl->dest = LOG_DEST_STDERR_PRI;
			break;
		case 'd':
			fl->foreground = true;
			if (add_override(&hd->opts, "--debug", "log_level", "debug"))
				return 2;
			break;
		case 't':
			fl->check_only = true;
			break;
		case OPT_NO_PRIVSEP:
			fl->no_privsep = true;
			break;
		case 'V':
			printf("hipd " PACKAGE_VERSION "\n");
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			for (i = 0; i < sizeof(key_options) / sizeof(key_options[0]); i++)
				if (key_options[i].opt == c)
					break;
			if (i == sizeof(key_options) / sizeof(key_options[0])) {
				fprintf(stderr, "Try 'hipd --help' for more information.\n");
				return 2;
			}
			if (add_override(&hd->opts, key_options[i].name, key_options[i].key,
					 optarg))
				return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hipd: unexpected argument '%s'\n"
			"Try 'hipd --help' for more information.\n", argv[optind]);
		return 2;
	}
	return -1;
}

static int run(struct hipd_daemon *hd, const struct run_flags *fl)
{
	char err[HIPD_CONF_ERR_MAX];
	struct caps_plan plan;
	int ready_fd = -1, r;

	r = hipd_conf_build(&hd->d.conf, &hd->opts, err, sizeof(err));
	if (r) {
		fprintf(stderr, "hipd: %s\n", err);
		return 2;
	}
	if (fl->check_only)
		return check_config(&hd->d.conf);

	log_open("hipd", fl->dest);
	/* Before anything is opened: an unknown user or an exposed key stops
	 * hipd here, with the message on the terminal. */
	r = caps_prepare(&plan, &hd->d.conf, err, sizeof(err));
	if (r) {
		log_err("%s", err);
		return r == -ENOENT ? 2 : 1;   /* -ENOENT: no such user (configuration) */
	}
	if (!fl->foreground) {
		ready_fd = daemonize();
		if (ready_fd < 0) {
			log_err("cannot daemonize: %s", strerror(errno));
			return 1;
		}
	}
	hd->engine = &engine_hooks;
	if (hipd_daemon_start(hd) != 0)
		return 1;   /* the waiting parent sees the pipe close: exit 1 */
	if (!fl->no_privsep) {
		/* priv and engine (privsep.h): both return here when done */
		struct privsep_conf pc = {
			.plan = &plan, .log_dest = fl->dest, .ready_fd = ready_fd,
			.ready = daemon_ready,
		};

		return hipd_privsep_run(hd, &pc);
	}
	/* Everything that needs root is open: give it up (caps.h). */
	r = caps_drop(&plan, &hd->d.conf, err, sizeof(err));
	if (r) {
		log_err("cannot drop privileges: %s", err);
		hipd_daemon_stop(hd);
		return 1;
	}
	hipd_engine_threads_start(&hd->d);
	hipd_sd_notify("READY=1");
	if (ready_fd >= 0)
		daemon_ready(ready_fd);
	r = hipd_daemon_run(hd);
	hipd_sd_notify("STOPPING=1");
	hipd_daemon_stop(hd);
	log_notice("stopped");
	return r ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct run_flags fl = { .dest = LOG_DEST_STDERR };
	struct hipd_daemon hd;
	char *config_abs = NULL;
	int r;

	memset(&hd, 0, sizeof(hd));
	r = parse_options(argc, argv, &hd, &fl);
	if (r >= 0)
		return r;
	/* absolute, so SIGHUP still finds it after daemonize's chdir("/") */
	if (hd.opts.config_file && hd.opts.config_file[0] != '/') {
		config_abs = realpath(hd.opts.config_file, NULL);
		if (config_abs)
			hd.opts.config_file = config_abs;
	}
	r = run(&hd, &fl);
	free(config_abs);
	return r;
}
