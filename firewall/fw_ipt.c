/*
 * fw_ipt.c - hipfw's packet filter rules, made with the iptables-legacy
 * programs (their library, libiptc, has no stable interface): each command
 * is run directly (fork + execvp with a fixed argument vector, no shell),
 * its output discarded, its exit status checked.
 *
 *     -N HIPFW
 *     -A HIPFW -j NFQUEUE --queue-num Q | --queue-balance Q:LAST [--queue-bypass]
 *     -I INPUT|OUTPUT|FORWARD 1 -p 139 -j HIPFW
 *
 * and for HIP's UDP port (--udp-port, hipd's nat_port: HIP, ESP and
 * keepalives over UDP, RFC 9028 §5.1, sorted out by fw_packet.c) a chain
 * that goes to HIPFW, where fw_esp.c puts one ACCEPT rule per learnt SPI
 * as ESP in UDP (u32 match) at the top:
 *
 *     -N HIPFW_UDP
 *     -A HIPFW_UDP -g HIPFW
 *     -I INPUT|OUTPUT|FORWARD 1 -p udp --sport|--dport PORT -j HIPFW_UDP
 *
 * (with --no-track, nothing filters ESP in UDP: only HIP, behind its zero
 * marker, goes to HIPFW: -p udp -m u32 --u32 "0>>22&0x3C@8=0" -g HIPFW,
 * then -j ACCEPT)
 *
 * and in middlebox mode the ESP fast path (fw_esp.c adds one ACCEPT rule
 * per learnt SPI at the top of HIPFW_ESP; what matches none is queued and
 * dropped by hipfw as an unknown SPI):
 *
 *     -N HIPFW_ESP
 *     -A HIPFW_ESP -j NFQUEUE --queue-num Q | --queue-balance Q:LAST [--queue-bypass]
 *     -I INPUT|OUTPUT|FORWARD 1 -p 50 -j HIPFW_ESP
 *
 * In host mode (fw_host.c) two more chains for the traffic between HITs,
 * IPv6 only, filled from the rules and replaced in one iptables-restore
 * commit at each reload:
 *
 *     -I INPUT 1 -s 2001:20::/28 -d 2001:20::/28 ! -i lo -j HIPFW_HIN
 *     -I OUTPUT 1 -s 2001:20::/28 -d 2001:20::/28 ! -o lo -j HIPFW_HOUT
 *
 * A crashed hipfw leaves them in place: fail-closed (no reader, the kernel
 * drops what is queued) unless --queue-bypass was asked for; the next start
 * removes them first. Its fast-path rules would go on passing the ESP of
 * the SPIs it had learnt: `hipfw --flush-fast-path` (the unit's
 * ExecStopPost=, fw_ipt_flush_fast_path) deletes just those, so that ESP
 * meets the queue rules again.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fw_host.h"
#include "fw_ipt.h"

#define FW_CHAIN "HIPFW"
#define FW_ESP_CHAIN FW_IPT_ESP_CHAIN
#define FW_UDP_CHAIN FW_IPT_UDP_CHAIN

static const char *const hooks[] = { "INPUT", "OUTPUT", "FORWARD" };

/* run_io: 0 if the command exited 0, 1 if it ran and failed, -errno
 * otherwise; with output, its standard output is read into *output
 * (malloc'd, NUL-terminated, at most OUTPUT_MAX bytes kept, *output_len of
 * them). */
enum { OUTPUT_MAX = 16 << 20 };

/* Start argv[0] (PATH searched) with stdin from in (-1: /dev/null), stdout
 * to out (-1: /dev/null), stderr to /dev/null. A hipfw run at real-time
 * priority does not hand it on: rule changes must not take the CPU from the
 * packets they follow (where a seccomp filter without @resources forbids
 * the change, the program starts as it is).
 * posix_spawn, not fork: glibc's shares the address space until the exec
 * (CLONE_VM | CLONE_VFORK), so hipfw neither copies its page tables nor
 * takes a copy-on-write fault for each page it writes afterwards
 * (bench/README.md, bench/hipfw.sh). 0 with *pid, or -errno. */
static int spawn(const char *const argv[], int in, int out, pid_t *pid)
{
	struct sched_param sp = { .sched_priority = 0 };
	int policy = sched_getscheduler(0), ret;
	bool rt = policy == SCHED_FIFO || policy == SCHED_RR;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;

	if (posix_spawn_file_actions_init(&fa) != 0)
		return -ENOMEM;
	if (posix_spawnattr_init(&at) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return -ENOMEM;
	}
	ret = in >= 0 ? posix_spawn_file_actions_adddup2(&fa, in, STDIN_FILENO) :
	      posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	if (!ret)
		ret = out >= 0 ? posix_spawn_file_actions_adddup2(&fa, out, STDOUT_FILENO) :
		      posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null",
							O_WRONLY, 0);
	if (!ret)
		ret = posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY,
						       0);
	if (!ret && rt && (posix_spawnattr_setschedpolicy(&at, SCHED_OTHER) != 0 ||
			   posix_spawnattr_setschedparam(&at, &sp) != 0 ||
			   posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSCHEDULER) != 0))
		rt = false;
	if (!ret) {
		ret = posix_spawnp(pid, argv[0], &fa, &at, (char *const *)argv, environ);
		/* the policy may not be changed (EPERM): the program runs as is */
		if (ret == EPERM && rt) {
			(void)posix_spawnattr_setflags(&at, 0);
			ret = posix_spawnp(pid, argv[0], &fa, &at, (char *const *)argv, environ);
		}
	}
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return -ret;
}

static int run_io(const char *const argv[], char **output, size_t *output_len)
{
	int st, ofd[2] = { -1, -1 };
	size_t cap = 0, got = 0;
	char *buf = NULL, *nb;
	ssize_t n;
	pid_t pid = -1;   /* set by spawn() when it succeeds */

	if (output && pipe2(ofd, O_CLOEXEC) < 0)
		return -errno;
	/* a missing program: posix_spawnp says so itself (-ENOENT) */
	st = spawn(argv, -1, output ? ofd[1] : -1, &pid);
	if (st < 0) {
		if (output) {
			close(ofd[0]);
			close(ofd[1]);
		}
		return st;
	}
	if (output) {
		close(ofd[1]);
		for (;;) {
			if (cap - got < 4096 && cap < OUTPUT_MAX) {
				nb = realloc(buf, cap ? cap * 2 : 65536);
				if (!nb)
					break;
				buf = nb;
				cap = cap ? cap * 2 : 65536;
			}
			n = cap - got > 1 ? read(ofd[0], buf + got, cap - got - 1) : -1;
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		close(ofd[0]);
	}
	st = fw_ipt_restore_reap(pid, true);
	if (st < 0) {
		free(buf);
		return st;
	}
	if (output) {
		if (!buf)
			return -ENOMEM;
		buf[got] = '\0';
		*output = buf;
		*output_len = got;
	}
	return st;
}

static int run(const char *const argv[])
{
	return run_io(argv, NULL, NULL);
}

int fw_ipt_restore_reap(pid_t pid, bool block)
{
	int st;
	pid_t got;

	while ((got = waitpid(pid, &st, block ? 0 : WNOHANG)) < 0)
		if (errno != EINTR)
			return -errno;
	if (got == 0)
		return -EAGAIN;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

int fw_ipt_restore_start(const char *prog, const char *script, pid_t *pid)
{
	char restore[256];
	const char *const argv[] = { restore, "-w", "--noflush", NULL };
	size_t left = strlen(script);
	int pfd[2], ret;
	ssize_t n;

	if ((size_t)snprintf(restore, sizeof(restore), "%s-restore", prog) >= sizeof(restore))
		return -ENAMETOOLONG;
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	ret = spawn(argv, pfd[0], -1, pid);
	close(pfd[0]);
	/* a script that fits the pipe's buffer (64 KiB unless the system ran
	 * short of pipe pages) is written at once; a longer one waits for the
	 * program to read, which it does first thing */
	while (ret == 0 && left) {
		n = write(pfd[1], script, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;   /* it died early: its exit status says so */
		script += n;
		left -= (size_t)n;
	}
	close(pfd[1]);
	return ret;
}

int fw_ipt_restore(const char *prog, const char *script)
{
	pid_t pid = -1;
	int ret = fw_ipt_restore_start(prog, script, &pid);

	return ret != 0 ? ret : fw_ipt_restore_reap(pid, true);
}

int fw_ipt_host_apply(const char *prog, const struct fw_rules *r, bool jumps,
		      struct fw_host_map *map)
{
	struct fw_host_map fresh = { { 0, 0 }, { NULL, NULL } };
	char *script = NULL;
	int ret;

	ret = fw_host_script(r, jumps, &script, &fresh);
	if (ret == 0)
		ret = fw_ipt_restore(prog, script);
	free(script);
	if (ret != 0) {
		/* the kernel kept the chains as they were: so does the map */
		fw_host_map_free(&fresh);
		return ret;
	}
	fw_host_map_free(map);
	*map = fresh;
	return 0;
}

int fw_ipt_host_counts(const char *prog, const struct fw_host_map *map,
		       struct fw_host_counts *out)
{
	char save[256], *text = NULL;
	const char *const argv[] = { save, "-c", "-t", "filter", NULL };
	size_t len = 0;
	int ret;

	if ((size_t)snprintf(save, sizeof(save), "%s-save", prog) >= sizeof(save))
		return -ENAMETOOLONG;
	ret = run_io(argv, &text, &len);
	if (ret > 0)
		ret = -EIO;
	if (ret == 0)
		ret = fw_host_counts_parse(text, len, map, out);
	free(text);
	return ret;
}

/* Delete every copy of the jump HOOK ARGS... (what is missing is no error). */
static void remove_jump(const char *prog, const char *hook, const char *const args[])
{
	const char *argv[16] = { prog, "-w", "-D", hook };
	size_t i;
	int tries;

	for (i = 0; args[i] && i + 5 < sizeof(argv) / sizeof(argv[0]); i++)
		argv[4 + i] = args[i];
	argv[4 + i] = NULL;
	for (tries = 0; tries < 8 && run(argv) == 0; tries++)
		;
}

static void remove_host(const char *prog)
{
	const char *const flush_in[] = { prog, "-w", "-F", FW_HOST_IN_CHAIN, NULL };
	const char *const flush_out[] = { prog, "-w", "-F", FW_HOST_OUT_CHAIN, NULL };
	const char *const drop_in[] = { prog, "-w", "-X", FW_HOST_IN_CHAIN, NULL };
	const char *const drop_out[] = { prog, "-w", "-X", FW_HOST_OUT_CHAIN, NULL };

	remove_jump(prog, "INPUT", fw_host_jump_in);
	remove_jump(prog, "OUTPUT", fw_host_jump_out);
	(void)run(flush_in);
	(void)run(flush_out);
	(void)run(drop_in);
	(void)run(drop_out);
}

static void remove_chain(const char *prog, const char *chain, const char *proto)
{
	size_t i;
	int tries;

	for (i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) {
		const char *const del[] = { prog, "-w", "-D", hooks[i], "-p", proto, "-j",
					    chain, NULL };

		/* every copy a crash or a double start may have left */
		for (tries = 0; tries < 8 && run(del) == 0; tries++)
			;
	}
	{
		const char *const flush[] = { prog, "-w", "-F", chain, NULL };
		const char *const drop[] = { prog, "-w", "-X", chain, NULL };

		(void)run(flush);
		(void)run(drop);
	}
}

static int install_chain(const char *prog, const struct fw_ipt_conf *c, const char *chain,
			 const char *proto, char *err, size_t err_len)
{
	char queue[16];
	size_t i;
	int ret;

	/* several queues: the kernel spreads packets over them by address
	 * hash (both directions of a host pair meet in the same queue) */
	if (c->queues > 1)
		snprintf(queue, sizeof(queue), "%u:%u", c->queue, fw_queue_last(c->queue, c->queues));
	else
		snprintf(queue, sizeof(queue), "%u", c->queue);
	{
		const char *const mk[] = { prog, "-w", "-N", chain, NULL };
		const char *const q[] = { prog, "-w", "-A", chain, "-j", "NFQUEUE",
					  c->queues > 1 ? "--queue-balance" : "--queue-num", queue,
					  c->fail_open ? "--queue-bypass" : NULL, NULL };

		ret = run(mk);
		if (ret == 0)
			ret = run(q);
		if (ret != 0) {
			snprintf(err, err_len, "%s: cannot create chain %s%s", prog, chain,
				 ret == -ENOENT ? " (program not found)" : "");
			return ret < 0 ? ret : -EPERM;
		}
	}
	for (i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) {
		const char *const jump[] = { prog, "-w", "-I", hooks[i], "1", "-p", proto, "-j",
					     chain, NULL };

		ret = run(jump);
		if (ret != 0) {
			snprintf(err, err_len, "%s: cannot add the jump from %s to %s", prog,
				 hooks[i], chain);
			return ret < 0 ? ret : -EPERM;
		}
	}
	return 0;
}

bool fw_ipt_probe_u32(const char *prog)
{
	const char *const mk[] = { prog, "-w", "-N", "HIPFW_U32", NULL };
	const char *const add[] = { prog, "-w", "-A", "HIPFW_U32", "-p", "udp", "-m", "u32",
				    "--u32", "0=0", "-j", "RETURN", NULL };
	const char *const flush[] = { prog, "-w", "-F", "HIPFW_U32", NULL };
	const char *const drop[] = { prog, "-w", "-X", "HIPFW_U32", NULL };
	bool ok;

	(void)run(flush);
	(void)run(drop);
	ok = run(mk) == 0 && run(add) == 0;
	(void)run(flush);
	(void)run(drop);
	return ok;
}

/* The jumps of HIP's UDP port into HIPFW_UDP: "--sport" or "--dport" (way). */
static void udp_jump_args(const char *way, const char *port, const char *args[6])
{
	args[0] = "-p";
	args[1] = "udp";
	args[2] = way;
	args[3] = port;
	args[4] = "-j";
	args[5] = FW_UDP_CHAIN;
}

/* esp_pass: without the tracker, ESP in UDP is not filtered: only what
 * starts with a zero marker (HIP) goes to the queue, the rest passes here
 * (with u32; else hipfw passes it packet by packet). */
static int install_udp(const char *prog, uint16_t udp_port, bool esp_pass, bool v4, char *err,
		       size_t err_len)
{
	static const char *const ways[] = { "--sport", "--dport" };
	const char *const mk[] = { prog, "-w", "-N", FW_UDP_CHAIN, NULL };
	const char *const go[] = { prog, "-w", "-A", FW_UDP_CHAIN, "-g", FW_CHAIN, NULL };
	const char *const hip[] = { prog, "-w", "-A", FW_UDP_CHAIN, "-p", "udp", "-m", "u32",
				    "--u32", v4 ? "0>>22&0x3C@8=0" : "48=0", "-g", FW_CHAIN,
				    NULL };
	const char *const pass[] = { prog, "-w", "-A", FW_UDP_CHAIN, "-j", "ACCEPT", NULL };
	const char *argv[12] = { prog, "-w", "-I", NULL, "1" };
	char port[8];
	size_t i, w;
	int ret;

	ret = run(mk);
	if (ret == 0 && esp_pass) {
		ret = run(hip);
		if (ret == 0)
			ret = run(pass);
	} else if (ret == 0) {
		ret = run(go);
	}
	if (ret != 0) {
		snprintf(err, err_len, "%s: cannot create chain %s", prog, FW_UDP_CHAIN);
		return ret < 0 ? ret : -EPERM;
	}
	snprintf(port, sizeof(port), "%u", udp_port);
	for (i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) {
		for (w = 0; w < 2; w++) {
			argv[3] = hooks[i];
			udp_jump_args(ways[w], port, argv + 5);
			argv[11] = NULL;
			ret = run(argv);
			if (ret != 0) {
				snprintf(err, err_len, "%s: cannot add the UDP jump from %s to %s",
					 prog, hooks[i], FW_UDP_CHAIN);
				return ret < 0 ? ret : -EPERM;
			}
		}
	}
	return 0;
}

static void remove_udp(const char *prog, uint16_t udp_port)
{
	static const char *const ways[] = { "--sport", "--dport" };
	const char *const flush[] = { prog, "-w", "-F", FW_UDP_CHAIN, NULL };
	const char *const drop[] = { prog, "-w", "-X", FW_UDP_CHAIN, NULL };
	const char *args[7];
	char port[8];
	size_t i, w;

	snprintf(port, sizeof(port), "%u", udp_port);
	for (i = 0; udp_port && i < sizeof(hooks) / sizeof(hooks[0]); i++) {
		for (w = 0; w < 2; w++) {
			udp_jump_args(ways[w], port, args);
			args[6] = NULL;
			remove_jump(prog, hooks[i], args);
		}
	}
	(void)run(flush);
	(void)run(drop);
}

static int install_one(const char *prog, bool v4, const struct fw_ipt_conf *c, char *err,
		       size_t err_len)
{
	int ret = install_chain(prog, c, FW_CHAIN, "139", err, err_len);

	if (ret == 0 && c->udp_port)
		ret = install_udp(prog, c->udp_port, !c->esp && (v4 ? c->u32_v4 : c->u32_v6), v4,
				  err, err_len);
	if (ret == 0 && c->esp)
		ret = install_chain(prog, c, FW_ESP_CHAIN, "50", err, err_len);
	return ret;
}

static void remove_one(const char *prog, uint16_t udp_port)
{
	/* the jumps first: a chain still jumped to cannot be deleted (a
	 * HIPFW_UDP left by a run on another port keeps its jumps and HIPFW) */
	remove_udp(prog, udp_port);
	remove_chain(prog, FW_ESP_CHAIN, "50");
	remove_chain(prog, FW_CHAIN, "139");
}

int fw_ipt_install(const struct fw_ipt_conf *c, char *err, size_t err_len)
{
	int ret = 0;

	fw_ipt_remove(c);
	if (c->iptables)
		ret = install_one(c->iptables, true, c, err, err_len);
	if (ret == 0 && c->ip6tables)
		ret = install_one(c->ip6tables, false, c, err, err_len);
	if (ret < 0)
		fw_ipt_remove(c);
	return ret;
}

void fw_ipt_remove(const struct fw_ipt_conf *c)
{
	/* HIPFW_ESP and the host chains too when this run does not use them:
	 * a crashed run may have */
	if (c->iptables)
		remove_one(c->iptables, c->udp_port);
	if (c->ip6tables) {
		remove_host(c->ip6tables);
		remove_one(c->ip6tables, c->udp_port);
	}
}

int fw_ipt_flush_fast_path(const char *prog, unsigned *removed)
{
	char save[256], *text = NULL, *script = NULL;
	/* "-t filter": the list of tables (/proc/net/ip_tables_names) is for
	 * root only; a network namespace without a filter table gets one,
	 * empty, as from any reader of it (nothing passes differently) */
	const char *const argv[] = { save, "-t", "filter", NULL };
	const char *line, *nl, *end;
	size_t len = 0, at;
	bool filter = false;
	unsigned n = 0;
	int ret;

	*removed = 0;
	if ((size_t)snprintf(save, sizeof(save), "%s-save", prog) >= sizeof(save))
		return -ENAMETOOLONG;
	ret = run_io(argv, &text, &len);
	if (ret != 0)
		goto out;
	/* each "-A CHAIN spec" kept becomes "-D CHAIN spec": no longer */
	script = malloc(len + 32);
	if (!script) {
		ret = -ENOMEM;
		goto out;
	}
	at = (size_t)sprintf(script, "*filter\n");
	for (line = text, end = text + len; line < end; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			nl = end;
		if (*line == '*')
			filter = nl - line == 7 && memcmp(line, "*filter", 7) == 0;
		if (!filter || !fw_esp_rule_is_ours(line, (size_t)(nl - line)))
			continue;
		memcpy(script + at, "-D", 2);
		memcpy(script + at + 2, line + 2, (size_t)(nl - line) - 2);
		at += (size_t)(nl - line);
		script[at++] = '\n';
		n++;
	}
	if (n) {
		memcpy(script + at, "COMMIT\n", sizeof("COMMIT\n"));
		ret = fw_ipt_restore(prog, script);
	}
	if (ret == 0)
		*removed = n;
out:
	free(text);
	free(script);
	return ret;
}
