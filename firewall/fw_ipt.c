/*
 * fw_ipt.c - hipfw's packet filter rules, made with the iptables-legacy
 * programs (their library, libiptc, has no stable interface): each command
 * is run directly (fork + execvp with a fixed argument vector, no shell),
 * its output discarded, its exit status checked.
 *
 *     -N HIPFW
 *     -A HIPFW -j NFQUEUE --queue-num Q [--queue-bypass]
 *     -I INPUT|OUTPUT|FORWARD 1 -p 139 -j HIPFW
 *
 * and in middlebox mode the ESP fast path (fw_esp.c adds one ACCEPT rule
 * per learnt SPI at the top of HIPFW_ESP; what matches none is queued and
 * dropped by hipfw as an unknown SPI):
 *
 *     -N HIPFW_ESP
 *     -A HIPFW_ESP -j NFQUEUE --queue-num Q [--queue-bypass]
 *     -I INPUT|OUTPUT|FORWARD 1 -p 50 -j HIPFW_ESP
 *
 * A crashed hipfw leaves them in place: fail-closed (no reader, the kernel
 * drops what is queued) unless --queue-bypass was asked for; the next start
 * removes them first.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fw_ipt.h"

#define FW_CHAIN "HIPFW"
#define FW_ESP_CHAIN "HIPFW_ESP"

static const char *const hooks[] = { "INPUT", "OUTPUT", "FORWARD" };

/* 0 if the command exited 0, 1 if it ran and failed, -errno otherwise.
 * input (NULL: none) is written to its standard input. */
static int run_input(const char *const argv[], const char *input)
{
	int st, fd, pfd[2] = { -1, -1 };
	size_t left = input ? strlen(input) : 0;
	ssize_t n;
	pid_t pid;

	if (input && pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		st = -errno;
		if (input) {
			close(pfd[0]);
			close(pfd[1]);
		}
		return st;
	}
	if (pid == 0) {
		/* a hipfw run at real-time priority does not hand it on: rule
		 * changes must not take the CPU from the packets they follow */
		struct sched_param sp = { .sched_priority = 0 };

		(void)sched_setscheduler(0, SCHED_OTHER, &sp);
		fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (fd >= 0) {
			dup2(input ? pfd[0] : fd, STDIN_FILENO);
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (input) {
		close(pfd[0]);
		while (left) {
			n = write(pfd[1], input, left);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			input += n;
			left -= (size_t)n;
		}
		close(pfd[1]);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		return -ENOENT;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

static int run(const char *const argv[])
{
	return run_input(argv, NULL);
}

int fw_ipt_restore(const char *prog, const char *script)
{
	char restore[256];
	const char *const argv[] = { restore, "-w", "--noflush", NULL };

	if ((size_t)snprintf(restore, sizeof(restore), "%s-restore", prog) >= sizeof(restore))
		return -ENAMETOOLONG;
	return run_input(argv, script);
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
	char queue[8];
	size_t i;
	int ret;

	snprintf(queue, sizeof(queue), "%u", c->queue);
	{
		const char *const mk[] = { prog, "-w", "-N", chain, NULL };
		const char *const q[] = { prog, "-w", "-A", chain, "-j", "NFQUEUE",
					  "--queue-num", queue,
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

static int install_one(const char *prog, const struct fw_ipt_conf *c, char *err,
		       size_t err_len)
{
	int ret = install_chain(prog, c, FW_CHAIN, "139", err, err_len);

	if (ret == 0 && c->esp)
		ret = install_chain(prog, c, FW_ESP_CHAIN, "50", err, err_len);
	return ret;
}

static void remove_one(const char *prog)
{
	remove_chain(prog, FW_ESP_CHAIN, "50");
	remove_chain(prog, FW_CHAIN, "139");
}

int fw_ipt_install(const struct fw_ipt_conf *c, char *err, size_t err_len)
{
	int ret = 0;

	fw_ipt_remove(c);
	if (c->iptables)
		ret = install_one(c->iptables, c, err, err_len);
	if (ret == 0 && c->ip6tables)
		ret = install_one(c->ip6tables, c, err, err_len);
	if (ret < 0)
		fw_ipt_remove(c);
	return ret;
}

void fw_ipt_remove(const struct fw_ipt_conf *c)
{
	/* HIPFW_ESP too when this run does not use it: a crashed run may have */
	if (c->iptables)
		remove_one(c->iptables);
	if (c->ip6tables)
		remove_one(c->ip6tables);
}
