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
 * A crashed hipfw leaves them in place: fail-closed (no reader, the kernel
 * drops what is queued) unless --queue-bypass was asked for; the next start
 * removes them first.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fw_ipt.h"

#define FW_CHAIN "HIPFW"

static const char *const hooks[] = { "INPUT", "OUTPUT", "FORWARD" };

/* 0 if the command exited 0, 1 if it ran and failed, -errno otherwise. */
static int run(const char *const argv[])
{
	pid_t pid;
	int st, fd;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (fd >= 0) {
			dup2(fd, STDIN_FILENO);
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		return -ENOENT;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

static void remove_one(const char *prog)
{
	size_t i;
	int tries;

	for (i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) {
		const char *const del[] = { prog, "-w", "-D", hooks[i], "-p", "139", "-j",
					    FW_CHAIN, NULL };

		/* every copy a crash or a double start may have left */
		for (tries = 0; tries < 8 && run(del) == 0; tries++)
			;
	}
	{
		const char *const flush[] = { prog, "-w", "-F", FW_CHAIN, NULL };
		const char *const drop[] = { prog, "-w", "-X", FW_CHAIN, NULL };

		(void)run(flush);
		(void)run(drop);
	}
}

static int install_one(const char *prog, const struct fw_ipt_conf *c, char *err,
		       size_t err_len)
{
	char queue[8];
	size_t i;
	int ret;

	snprintf(queue, sizeof(queue), "%u", c->queue);
	{
		const char *const mk[] = { prog, "-w", "-N", FW_CHAIN, NULL };
		const char *const q[] = { prog, "-w", "-A", FW_CHAIN, "-j", "NFQUEUE",
					  "--queue-num", queue,
					  c->fail_open ? "--queue-bypass" : NULL, NULL };

		ret = run(mk);
		if (ret == 0)
			ret = run(q);
		if (ret != 0) {
			snprintf(err, err_len, "%s: cannot create chain %s%s", prog, FW_CHAIN,
				 ret == -ENOENT ? " (program not found)" : "");
			return ret < 0 ? ret : -EPERM;
		}
	}
	for (i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) {
		const char *const jump[] = { prog, "-w", "-I", hooks[i], "1", "-p", "139", "-j",
					     FW_CHAIN, NULL };

		ret = run(jump);
		if (ret != 0) {
			snprintf(err, err_len, "%s: cannot add the jump from %s to %s", prog,
				 hooks[i], FW_CHAIN);
			return ret < 0 ? ret : -EPERM;
		}
	}
	return 0;
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
	if (c->iptables)
		remove_one(c->iptables);
	if (c->ip6tables)
		remove_one(c->ip6tables);
}
