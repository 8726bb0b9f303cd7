/*
 * hipfw.c - the HIP-aware firewall (hipfw(8)): HIP packets (IP protocol
 * 139) that cross this host, in, out or forwarded, are queued to hipfw by
 * its own iptables-legacy/ip6tables-legacy chain (fw_ipt.c), checked
 * (fw_packet.c) and allowed or denied by Host Identity Tag, packet type and
 * direction (fw_rules.c, hipfw.rules(5)). The tracker (fw_track.c) follows
 * each association through them and keeps a kernel rule per learnt ESP SPI
 * (fw_esp.c); ESP it never learnt is dropped. The running firewall answers
 * `hipfw show` and `hipfw reload` on a control socket (fw_ctl.c); SIGHUP
 * reloads the rules too. With a state directory the tracked associations
 * are written to a file (fw_state.c) every few seconds while they change
 * and on a clean stop, and read back at the next start (D-21). In host mode
 * (--host) the rules also filter the traffic between HITs, compiled into
 * ip6tables chains (fw_host.c, D-23). HIP and ESP over UDP (RFC 9028) on
 * --udp-port (hipd's nat_port, 10500) are queued and judged the same way.
 *
 *     hipfw [options]                   run (in the foreground)
 *     hipfw --check-config [-f FILE]    parse the rules, say what is wrong
 *     hipfw --flush-fast-path           after a crash: the learnt-SPI rules out
 *     hipfw show [rules] [--json]       ask the running hipfw
 *     hipfw reload
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "control/control.h"
#include "fw_ipt.h"
#include "fw_main.h"
#include "fw_nfq.h"
#include "fw_state.h"
#include "hip_crypto.h"

/* BUSY_POLL_*: --busy-poll (busy_poll below); the longest a poll holds
 * timers and the control socket, the default in middlebox mode (host mode
 * and a machine with one CPU: off; a host's CPU and battery are its own,
 * and with one CPU there is no other to wake), the share of a CPU it may
 * take */
enum { EXPIRE_EVERY_NS = 5000000000ull, STATE_GRACE_S = 120, BUSY_POLL_MAX_US = 10000,
       BUSY_POLL_DEFAULT_US = 1000, BUSY_POLL_SHARE_PCT = 10 };

struct hipfw_run {
	struct hipfw fw;
	struct hip_loop *loop;
	struct fw_nfq *nfq;
	struct control *ctl;
	struct fw_esp_rules *esp;
	uint64_t busy_window_ns, busy_used_ns;   /* this second's polling (busy_poll) */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hipfw [-f RULES] [-q QUEUE[:LAST]] [--fail-open] [--socket PATH]\n"
		"             [--group GROUP] [--iptables PROG] [--ip6tables PROG]\n"
		"             [--no-ipv4] [--no-ipv6]\n"
		"             [--no-track] [--strict] [--max-associations N] [--host]\n"
		"             [--state-dir DIR] [--state-grace SECONDS] [--udp-port PORT]\n"
		"             [--busy-poll USEC] [--log-level LEVEL] [--log-stderr]\n"
		"       hipfw --check-config [-f RULES]\n"
		"       hipfw --flush-fast-path [--iptables PROG] [--ip6tables PROG] [--no-ipv4]\n"
		"             [--no-ipv6] [--socket PATH]\n"
		"       hipfw [--socket PATH] [--json] show [rules|associations] | reload\n"
		"defaults: rules %s, queue 0, fail-closed, socket %s, UDP port %u,\n"
		"          state directory $STATE_DIRECTORY (none if unset), grace %u s,\n"
		"          busy poll %u us (--host or one CPU: 0, off)\n",
		HIPFW_DEFAULT_RULES, HIPFW_DEFAULT_SOCKET, HIPFW_DEFAULT_UDP_PORT, STATE_GRACE_S,
		BUSY_POLL_DEFAULT_US);
}

static bool nfq_decide(const uint8_t *pkt, size_t len, enum fw_dir dir, void *arg)
{
	return hipfw_decide(arg, pkt, len, dir);
}

/*
 * --busy-poll: after an allowed packet that asks for an answer (I1, R1, I2,
 * UPDATE, CLOSE) the queue is read without sleeping until the answer comes,
 * at most busy_poll_ns after the last such packet, or until one that ends
 * an exchange (R2, CLOSE_ACK) comes without a new question. On a router
 * between hosts a few hundred microseconds apart, each answer then skips
 * the wakeup of a sleeping hipfw (and often of an idle CPU): the base
 * exchange through hipfw gains about a tenth (bench/README.md,
 * bench/hipfw.sh). The cost is a busy CPU, bounded: at most
 * BUSY_POLL_SHARE_PCT of each second (a flood of answerless I1s cannot turn
 * it into a busy core), counted in `hipfw show`. Timers and the control
 * socket wait while it polls. <0 on a queue error, else 0.
 */
static int busy_poll(struct hipfw_run *r)
{
	uint64_t now = hipd_now_ns(), start = now, until = 0, budget;
	int ret = 0;

	if (now - r->busy_window_ns >= 1000000000ull) {
		r->busy_window_ns = now;
		r->busy_used_ns = 0;
	}
	budget = 1000000000ull / 100u * BUSY_POLL_SHARE_PCT;
	if (r->busy_used_ns >= budget) {
		r->fw.ctr.busy_poll_over_budget++;
		return 0;
	}
	r->fw.ctr.busy_polls++;
	for (;;) {
		if (r->fw.answer_awaited) {
			r->fw.answer_awaited = false;
			until = now + r->fw.busy_poll_ns;
			if (until > start + budget - r->busy_used_ns)
				until = start + budget - r->busy_used_ns;
		} else if (r->fw.answer_last) {
			break;   /* the exchange (or the one of several) ended */
		}
		r->fw.answer_last = false;
		if (now >= until)
			break;
		ret = fw_nfq_read(r->nfq);
		if (ret < 0)
			break;
		if (ret > 0) {
			r->fw.ctr.busy_poll_found += (uint64_t)ret;
			fw_esp_rules_flush(r->esp);
		}
		now = hipd_now_ns();
	}
	r->busy_used_ns += now - start;
	r->fw.ctr.busy_poll_ns += now - start;
	return ret < 0 ? ret : 0;
}

static void nfq_readable(struct hip_loop *loop, int fd, uint32_t events, void *arg)
{
	struct hipfw_run *r = arg;
	int ret = fw_nfq_read(r->nfq);

	(void)fd;
	(void)events;
	/* the verdicts are out: now the ESP rules the packets changed */
	fw_esp_rules_flush(r->esp);
	if (ret >= 0 && r->fw.busy_poll_ns && r->fw.answer_awaited)
		ret = busy_poll(r);
	r->fw.answer_awaited = r->fw.answer_last = false;
	if (ret < 0) {
		log_err("netfilter queue: %s", strerror(-ret));
		hip_loop_stop(loop);
	}
}

static void expire_tick(struct hip_loop *loop, uint64_t timer, void *arg)
{
	struct hipfw_run *r = arg;

	(void)timer;
	fw_track_expire(&r->fw.track, hipd_now_ns());
	fw_esp_rules_flush(r->esp);
	/* after a SIGKILL the file is at most this tick old */
	hipfw_state_save(&r->fw, false);
	(void)hip_loop_timer_add(loop, EXPIRE_EVERY_NS, expire_tick, r);
}

static void on_signal(struct hip_loop *loop, const struct signalfd_siginfo *si, void *arg)
{
	struct hipfw_run *r = arg;

	if (si->ssi_signo == SIGHUP) {
		(void)hipfw_reload(&r->fw);
		return;
	}
	if (si->ssi_signo == SIGCHLD) {
		/* an iptables-restore of the fast path ended (fw_esp.c) */
		fw_esp_rules_reap(r->esp);
		return;
	}
	log_notice("signal %u: stopping", si->ssi_signo);
	hip_loop_stop(loop);
}

void hipfw_state_save(struct hipfw *fw, bool always)
{
	int ret;

	if (!fw->tracking || !fw->state_dir || (!always && !fw->track.dirty))
		return;
	ret = fw_state_save(&fw->track, fw->state_dir);
	if (ret < 0) {
		fw->ctr.state_save_errors++;
		if (!fw->state_failing)
			log_err("state file %s/%s not written: %s", fw->state_dir, FW_STATE_FILE,
				strerror(-ret));
		fw->state_failing = true;
		return;
	}
	if (fw->state_failing)
		log_notice("state file %s/%s written again", fw->state_dir, FW_STATE_FILE);
	fw->state_failing = false;
	fw->ctr.state_saves++;
	fw->track.dirty = false;
}

/* The associations of the last run, on probation (D-21); a bad file is
 * named and left for whoever looks, and hipfw starts empty. */
static void state_load(struct hipfw *fw)
{
	char err[512];
	int ret;

	if (!fw->state_dir)
		return;
	ret = fw_state_load(&fw->track, fw->state_dir, hipd_now_ns(),
			    (uint64_t)fw->state_grace_s * 1000000000ull, err, sizeof(err));
	if (ret < 0)
		log_err("state file refused, starting with no associations: %s", err);
	else if (ret > 0)
		log_notice("state file %s/%s: %d associations restored, on probation for %u s",
			   fw->state_dir, FW_STATE_FILE, ret, fw->state_grace_s);
	if (ret > 0 && err[0])
		log_notice("state file %s", err);
}

/* Host mode: the new rules into the kernel before they replace the old. */
static int host_apply(struct hipfw *fw, const struct fw_rules *fresh)
{
	return fw_ipt_host_apply(fw->host_prog, fresh, false, &fw->host_map);
}

static int check_config(const char *path)
{
	char err[FW_ERR_MAX + 64];
	struct fw_rules *rules = malloc(sizeof(*rules));
	size_t i, hip = 0, data = 0;
	int ret;

	if (!rules) {
		fprintf(stderr, "hipfw: no memory\n");
		return 1;
	}
	ret = fw_rules_load(path, rules, err, sizeof(err));
	for (i = 0; ret == 0 && i < rules->n; i++) {
		hip += rules->rule[i].hip_only;
		data += rules->rule[i].data_only;
	}
	if (ret < 0)
		fprintf(stderr, "hipfw: %s\n", err);
	else
		printf("%s: %zu rules, default %s%s; %zu for HIP packets only, %zu for traffic "
		       "between HITs only (host mode)\n", path, rules->n,
		       rules->policy == FW_ALLOW ? "allow" : "deny",
		       rules->policy_line ? "" : " (not set in the file)", hip, data);
	free(rules);
	return ret < 0 ? 1 : 0;
}

/* Whether a hipfw answers on its control socket. */
static bool running(const char *sock)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	bool up;
	int fd;

	if (strlen(sock) >= sizeof(sa.sun_path))
		return false;
	memcpy(sa.sun_path, sock, strlen(sock) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	up = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return up;
}

/* --flush-fast-path (the unit's ExecStopPost=): a hipfw that died, even by
 * SIGKILL, leaves its queue rules (fail-closed unless --fail-open) and the
 * kernel rules of the SPIs it learnt, which would pass their ESP while
 * nobody judges it. Those go; a running hipfw's are its own. */
static int flush_fast_path(const struct fw_ipt_conf *ipt, const char *sock)
{
	const char *prog[2] = { ipt->iptables, ipt->ip6tables };
	unsigned n[2] = { 0, 0 };
	int i, ret, status = 0;

	if (running(sock)) {
		fprintf(stderr, "hipfw: a hipfw answers on %s: its fast path is its own, not "
			"flushed\n", sock);
		return 1;
	}
	for (i = 0; i < 2; i++) {
		if (!prog[i])
			continue;
		ret = fw_ipt_flush_fast_path(prog[i], &n[i]);
		if (ret != 0) {
			fprintf(stderr, "hipfw: %s: fast path not flushed: %s\n", prog[i],
				ret == -ENOENT ? "program not found" : ret > 0 ?
				"the program failed (CAP_NET_ADMIN and CAP_NET_RAW needed)" :
				strerror(-ret));
			status = 1;
		}
	}
	printf("hipfw: ESP fast path flushed: %u rules removed (IPv4 %u, IPv6 %u)%s\n",
	       n[0] + n[1], n[0], n[1], n[0] + n[1] ? ": their ESP meets hipfw's queue again" :
	       "");
	return status;
}

static int run(struct hipfw_run *r, uint16_t queue, bool fail_open,
	       const struct fw_ipt_conf *ipt, const char *sock, const char *group)
{
	char err[256], qtext[32];
	int lfd = -1, ret;

	ret = hip_loop_create(&r->loop);
	if (ret < 0) {
		log_err("event loop: %s", strerror(-ret));
		return 1;
	}
	if (hip_loop_signal_add(r->loop, SIGHUP, on_signal, r) < 0 ||
	    hip_loop_signal_add(r->loop, SIGTERM, on_signal, r) < 0 ||
	    hip_loop_signal_add(r->loop, SIGINT, on_signal, r) < 0 ||
	    hip_loop_signal_add(r->loop, SIGCHLD, on_signal, r) < 0) {
		log_err("signals: %s", strerror(errno));
		ret = -EIO;
		goto out;
	}
	ret = control_socket_open(sock, group, &lfd, err, sizeof(err));
	if (ret == 0)
		ret = control_create(&r->ctl, r->loop, lfd, sock, group);
	if (ret == 0)
		lfd = -1;   /* the server's now */
	if (ret == 0)
		ret = hipfw_ctl_register(r->ctl, &r->fw);
	if (ret < 0) {
		log_err("control socket %s: %s", sock, ret == -EADDRINUSE ?
			"another hipfw is running" : strerror(-ret));
		goto out;
	}
	if (r->fw.tracking) {
		/* HIPFW_RULES_SYNC=1: wait for each run, as hipfw once did
		 * (bench/hipfw.sh hold measures both) */
		const char *sync_env = getenv("HIPFW_RULES_SYNC");

		ret = fw_esp_rules_create(&r->esp, ipt, &r->fw.track, r->loop,
					  sync_env && strcmp(sync_env, "1") == 0);
		if (ret < 0) {
			log_err("ESP rules: %s", strerror(-ret));
			goto out;
		}
		r->fw.track.esp_cb = fw_esp_rules_sync;
		r->fw.track.esp_arg = r->esp;
		r->fw.esp_rules = r->esp;
		if (!hip_loop_timer_add(r->loop, EXPIRE_EVERY_NS, expire_tick, r)) {
			ret = -ENOMEM;
			goto out;
		}
	}
	ret = fw_nfq_open(&r->nfq, queue, ipt->queues, fail_open, nfq_decide, &r->fw, err,
			  sizeof(err));
	if (ret == 0)
		ret = hip_loop_fd_add(r->loop, fw_nfq_fd(r->nfq), EPOLLIN, nfq_readable, r);
	if (ret < 0) {
		log_err("%s", err);
		goto out;
	}
	/* the queue has its reader before any rule sends packets to it */
	ret = fw_ipt_install(ipt, err, sizeof(err));
	if (ret < 0) {
		log_err("packet filter rules: %s", err);
		goto out;
	}
	if (r->fw.host) {
		ret = fw_ipt_host_apply(r->fw.host_prog, r->fw.rules, true, &r->fw.host_map);
		if (ret != 0) {
			log_err("host mode: %s-restore %s", r->fw.host_prog,
				ret > 0 ? "refused the chains HIPFW_HIN and HIPFW_HOUT" :
				strerror(-ret));
			fw_ipt_remove(ipt);
			ret = -EPERM;
			goto out;
		}
		r->fw.host_apply = host_apply;
		log_notice("host mode: traffic between HITs filtered in %s and %s, %zu and %zu "
			   "kernel rules", FW_HOST_IN_CHAIN, FW_HOST_OUT_CHAIN,
			   r->fw.host_map.n[0], r->fw.host_map.n[1]);
	}
	if (ipt->queues > 1)
		snprintf(qtext, sizeof(qtext), "queues %u-%u", queue,
			 fw_queue_last(queue, ipt->queues));
	else
		snprintf(qtext, sizeof(qtext), "queue %u", queue);
	log_notice("filtering HIP%s on %s (%s%s%s), %s: %zu rules, default %s, "
		   "UDP port %u", r->fw.tracking ? " and ESP" : "", qtext,
		   ipt->iptables ? "IPv4" : "", ipt->iptables && ipt->ip6tables ? " and " : "",
		   ipt->ip6tables ? "IPv6" : "", fail_open ? "fail-open" : "fail-closed",
		   r->fw.rules->n, r->fw.rules->policy == FW_ALLOW ? "allow" : "deny",
		   r->fw.udp_port);
	hipd_sd_notify("READY=1");
	ret = hip_loop_run(r->loop);
	hipd_sd_notify("STOPPING=1");
	hipfw_state_save(&r->fw, true);
	r->fw.host_apply = NULL;
	/* a fast-path run still going would put its rules back after */
	fw_esp_rules_drain(r->esp);
	fw_ipt_remove(ipt);
out:
	if (lfd >= 0)
		close(lfd);
	control_free(r->ctl);
	fw_nfq_close(r->nfq);
	r->fw.track.esp_cb = NULL;
	r->fw.esp_rules = NULL;
	fw_esp_rules_free(r->esp);
	hip_loop_free(r->loop);
	return ret < 0 ? 1 : 0;
}

/* -q N or -q FIRST:LAST (iptables' --queue-balance notation). */
static int parse_queues(const char *arg, unsigned long *first, unsigned long *count)
{
	unsigned long a, b;
	char *end;

	if (*arg < '0' || *arg > '9')
		return -EINVAL;
	errno = 0;
	a = strtoul(arg, &end, 10);
	b = a;
	if (!errno && *end == ':') {
		if (end[1] < '0' || end[1] > '9')
			return -EINVAL;
		b = strtoul(end + 1, &end, 10);
	}
	if (errno || *end || a > 65535 || b > 65535 || b < a || b - a >= FW_NFQ_QUEUES_MAX)
		return -EINVAL;
	*first = a;
	*count = b - a + 1;
	return 0;
}

int main(int argc, char **argv)
{
	enum { O_CHECK = 256, O_FAIL_OPEN, O_SOCKET, O_GROUP, O_IPT, O_IP6T, O_NO4, O_NO6,
	       O_LEVEL, O_STDERR, O_JSON, O_NO_TRACK, O_STRICT, O_MAX_ASSOC, O_STATE_DIR,
	       O_STATE_GRACE, O_HOST, O_UDP_PORT, O_FLUSH, O_BUSY_POLL };
	static const struct option opts[] = {
		{ "rules", required_argument, NULL, 'f' },
		{ "queue", required_argument, NULL, 'q' },
		{ "check-config", no_argument, NULL, O_CHECK },
		{ "fail-open", no_argument, NULL, O_FAIL_OPEN },
		{ "socket", required_argument, NULL, O_SOCKET },
		{ "group", required_argument, NULL, O_GROUP },
		{ "iptables", required_argument, NULL, O_IPT },
		{ "ip6tables", required_argument, NULL, O_IP6T },
		{ "no-ipv4", no_argument, NULL, O_NO4 },
		{ "no-ipv6", no_argument, NULL, O_NO6 },
		{ "log-level", required_argument, NULL, O_LEVEL },
		{ "log-stderr", no_argument, NULL, O_STDERR },
		{ "json", no_argument, NULL, O_JSON },
		{ "no-track", no_argument, NULL, O_NO_TRACK },
		{ "strict", no_argument, NULL, O_STRICT },
		{ "max-associations", required_argument, NULL, O_MAX_ASSOC },
		{ "state-dir", required_argument, NULL, O_STATE_DIR },
		{ "state-grace", required_argument, NULL, O_STATE_GRACE },
		{ "host", no_argument, NULL, O_HOST },
		{ "udp-port", required_argument, NULL, O_UDP_PORT },
		{ "flush-fast-path", no_argument, NULL, O_FLUSH },
		{ "busy-poll", required_argument, NULL, O_BUSY_POLL },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fw_ipt_conf ipt = { .iptables = "iptables-legacy", .ip6tables = "ip6tables-legacy" };
	const char *sock = HIPFW_DEFAULT_SOCKET, *group = "hipd";
	struct hipfw_run r = { .fw.rules_path = HIPFW_DEFAULT_RULES };
	bool check = false, flush = false, fail_open = false, json = false, track = true;
	bool strict = false;
	unsigned long max_assoc = FW_TRACK_MAX_DEFAULT, grace = STATE_GRACE_S;
	unsigned long udp_port = HIPFW_DEFAULT_UDP_PORT, busy_us = 0;
	bool busy_set = false;
	const char *state_dir = getenv("STATE_DIRECTORY");
	enum log_dest dest = LOG_DEST_STDERR;
	int c, level = LOG_NOTICE, ret;
	char *end, err[FW_ERR_MAX + 64];
	unsigned long q = 0, nq = 1;

	/* the child that runs iptables-restore for us (fw_runner.c) */
	if (argc == 1 && strcmp(argv[0], FW_RUNNER_NAME) == 0)
		return fw_runner_main();
	while ((c = getopt_long(argc, argv, "+f:q:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f': r.fw.rules_path = optarg; break;
		case 'q':
			if (parse_queues(optarg, &q, &nq) < 0) {
				fprintf(stderr, "hipfw: bad queue '%s' (N or FIRST:LAST, 0-65535, "
					"at most %u queues)\n", optarg, FW_NFQ_QUEUES_MAX);
				return 2;
			}
			break;
		case O_CHECK: check = true; break;
		case O_FLUSH: flush = true; break;
		case O_FAIL_OPEN: fail_open = true; break;
		case O_SOCKET: sock = optarg; break;
		case O_GROUP: group = optarg; break;
		case O_IPT: ipt.iptables = optarg; break;
		case O_IP6T: ipt.ip6tables = optarg; break;
		case O_NO4: ipt.iptables = NULL; break;
		case O_NO6: ipt.ip6tables = NULL; break;
		case O_LEVEL:
			if (log_level_from_name(optarg, &level) < 0) {
				fprintf(stderr, "hipfw: bad log level '%s'\n", optarg);
				return 2;
			}
			break;
		case O_STDERR: dest = LOG_DEST_STDERR_PRI; break;
		case O_JSON: json = true; break;
		case O_NO_TRACK: track = false; break;
		case O_STRICT: strict = true; break;
		case O_MAX_ASSOC:
			errno = 0;
			max_assoc = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || max_assoc < 1 || max_assoc > (1ul << 20)) {
				fprintf(stderr, "hipfw: bad --max-associations '%s' (1-1048576)\n",
					optarg);
				return 2;
			}
			break;
		case O_STATE_DIR: state_dir = optarg; break;
		case O_STATE_GRACE:
			errno = 0;
			grace = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || grace < 1 || grace > 86400) {
				fprintf(stderr, "hipfw: bad --state-grace '%s' (1-86400)\n",
					optarg);
				return 2;
			}
			break;
		case O_HOST: r.fw.host = true; break;
		case O_UDP_PORT:
			errno = 0;
			udp_port = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || udp_port > 65535) {
				fprintf(stderr, "hipfw: bad --udp-port '%s' (0-65535, 0: none)\n",
					optarg);
				return 2;
			}
			break;
		case O_BUSY_POLL:
			errno = 0;
			busy_us = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || busy_us > BUSY_POLL_MAX_US) {
				fprintf(stderr, "hipfw: bad --busy-poll '%s' (0-%u microseconds, "
					"0: off)\n", optarg, BUSY_POLL_MAX_US);
				return 2;
			}
			busy_set = true;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (check)
		return optind == argc ? check_config(r.fw.rules_path) : (usage(stderr), 2);
	if (flush)
		return optind == argc ? flush_fast_path(&ipt, sock) : (usage(stderr), 2);
	if (optind < argc) {
		if (strcmp(argv[optind], "show") && strcmp(argv[optind], "reload")) {
			fprintf(stderr, "hipfw: unknown command '%s'\n", argv[optind]);
			usage(stderr);
			return 2;
		}
		return fw_client_run(sock, json, argc - optind, (const char *const *)argv + optind);
	}
	if (!ipt.iptables && !ipt.ip6tables) {
		fprintf(stderr, "hipfw: --no-ipv4 and --no-ipv6: nothing to filter\n");
		return 2;
	}
	if (r.fw.host && !ipt.ip6tables) {
		fprintf(stderr, "hipfw: --host filters HITs, IPv6: not with --no-ipv6\n");
		return 2;
	}
	r.fw.host_prog = ipt.ip6tables;
	if (!busy_set)
		busy_us = r.fw.host || sysconf(_SC_NPROCESSORS_ONLN) < 2 ? 0 :
			  BUSY_POLL_DEFAULT_US;
	r.fw.busy_poll_ns = (uint64_t)busy_us * 1000u;
	/* a program that exits before reading its script must not kill us
	 * (fw_ipt.c writes it into a pipe; ignored stays ignored in it) */
	signal(SIGPIPE, SIG_IGN);
	log_open("hipfw", dest);
	log_set_level(level);
	if (hip_crypto_init() != 0) {
		log_err("the crypto library (OpenSSL 3) cannot start");
		return 1;
	}
	log_ratelimit_init(&r.fw.drop_log, 1000, 10);
	r.fw.rules = malloc(sizeof(*r.fw.rules));
	if (!r.fw.rules) {
		log_err("no memory");
		return 1;
	}
	ret = fw_rules_load(r.fw.rules_path, r.fw.rules, err, sizeof(err));
	if (ret < 0) {
		log_err("%s", err);
		free(r.fw.rules);
		return 1;
	}
	ipt.queue = (uint16_t)q;
	ipt.queues = (uint16_t)nq;
	r.fw.queue_first = (uint16_t)q;
	r.fw.queues = (uint16_t)nq;
	ipt.fail_open = fail_open;
	ipt.esp = track;
	ipt.udp_port = (uint16_t)udp_port;
	/* ESP in UDP stays in the kernel where u32 works, else comes to us */
	ipt.u32_v4 = udp_port && ipt.iptables && fw_ipt_probe_u32(ipt.iptables);
	ipt.u32_v6 = udp_port && ipt.ip6tables && fw_ipt_probe_u32(ipt.ip6tables);
	if (udp_port && ((ipt.iptables && !ipt.u32_v4) || (ipt.ip6tables && !ipt.u32_v6)))
		log_warn("no u32 match (xt_u32) in %s: ESP in UDP is judged in userspace",
			 ipt.iptables && !ipt.u32_v4 ? ipt.iptables : ipt.ip6tables);
	r.fw.udp_port = (uint16_t)udp_port;
	r.fw.tracking = track;
	if (track) {
		ret = fw_track_init(&r.fw.track, (uint32_t)max_assoc, strict, NULL, NULL);
		if (ret < 0) {
			log_err("association table: %s", strerror(-ret));
			free(r.fw.rules);
			return 1;
		}
		/* systemd's STATE_DIRECTORY may list several: the first */
		if (state_dir && *state_dir) {
			r.fw.state_dir = strndup(state_dir, strcspn(state_dir, ":"));
			if (!r.fw.state_dir) {
				log_err("no memory");
				fw_track_free(&r.fw.track);
				free(r.fw.rules);
				return 1;
			}
		}
		r.fw.state_grace_s = (unsigned)grace;
		state_load(&r.fw);
	}
	ret = run(&r, (uint16_t)q, fail_open, &ipt, sock, group);
	fw_track_free(&r.fw.track);
	fw_verify_cache_free(&r.fw.r1_verified);
	fw_host_map_free(&r.fw.host_map);
	free(r.fw.rules);
	free((char *)r.fw.state_dir);
	log_notice("stopped");
	return ret;
}
