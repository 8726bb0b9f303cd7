/*
 * fw_runner.c - a child process that runs the ESP fast path's
 * PROG-restore commands for hipfw's event loop (fw_esp.c, D-25). The loop
 * sends a script over a socket and reads the exit status when the socket
 * turns readable, so not even the start of a program holds the netfilter
 * queue: posix_spawn waits until the child has exec'd, and on a loaded
 * machine the new process waits for a CPU first (0.5-5 ms a run measured
 * by bench/hipfw.sh hold, against a send of the script here).
 *
 * The child execs hipfw's own program again as "hipfw-runner" (hipfw.c's
 * main comes here), so that it holds nothing of hipfw's memory, and ps or
 * pgrep -f tell it from hipfw by its command line; where /proc/self/exe
 * cannot be run it goes on as the copy it is.
 *
 * One request (a SOCK_SEQPACKET message): a tag byte, PROG and its NUL,
 * the script and its NUL. One reply per request, in order: the tag and
 * fw_ipt_restore's result (0, 1, -errno). The runner keeps only its socket
 * open, leaves real-time priority (the programs it starts must not take
 * the CPU from the packets), ignores the signals that stop hipfw (a stop
 * waits for the run going: fw_esp_rules_drain) and ends when its socket
 * closes or hipfw dies (PR_SET_PDEATHSIG).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fw_ipt.h"

enum { REQUEST_MAX = 128 << 10 };

struct fw_runner {
	int fd;
	pid_t pid;
};

struct reply {
	uint8_t tag;
	int32_t ret;
};

static void runner_main(int fd)
{
	struct sched_param sp = { .sched_priority = 0 };
	char *buf = malloc(REQUEST_MAX), *prog, *script, *end;
	struct reply rep;
	sigset_t none;
	ssize_t n;

	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGCHLD, SIG_DFL);
	(void)prctl(PR_SET_NAME, FW_RUNNER_NAME);
	/* where the policy may not be changed (a seccomp filter), as it is */
	if (sched_getscheduler(0) != SCHED_OTHER)
		(void)sched_setscheduler(0, SCHED_OTHER, &sp);
	if (!buf)
		_exit(1);
	for (;;) {
		n = recv(fd, buf, REQUEST_MAX - 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(0);
		buf[n] = '\0';
		rep.tag = (uint8_t)buf[0];
		prog = buf + 1;
		end = memchr(prog, '\0', (size_t)n - 1);
		script = end ? end + 1 : NULL;
		rep.ret = n > 1 && script && script < buf + n ? fw_ipt_restore(prog, script) :
			  -EINVAL;
		while (send(fd, &rep, sizeof(rep), MSG_NOSIGNAL) < 0 && errno == EINTR)
			;
	}
}

int fw_runner_start(struct fw_runner **out)
{
	struct fw_runner *r = calloc(1, sizeof(*r));
	pid_t parent = getpid();
	int sv[2], ret;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		ret = -errno;
		free(r);
		return ret;
	}
	r->pid = fork();
	if (r->pid < 0) {
		ret = -errno;
		close(sv[0]);
		close(sv[1]);
		free(r);
		return ret;
	}
	if (r->pid == 0) {
		/* nothing of hipfw's stays open here: its queue, control
		 * socket, epoll and signalfd are its own */
		char *const argv[] = { (char *)FW_RUNNER_NAME, NULL };
		long fd, max = sysconf(_SC_OPEN_MAX);

		/* it ends with hipfw (kept across the exec) */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent ||
		    dup2(sv[1], FW_RUNNER_FD) < 0 || fcntl(FW_RUNNER_FD, F_SETFD, 0) < 0)
			_exit(1);
		/* close_range where a seccomp filter allows it */
		if (close_range(FW_RUNNER_FD + 1, ~0u, 0) < 0)
			for (fd = FW_RUNNER_FD + 1; fd < (max > 0 ? max : 1024); fd++)
				close((int)fd);
		execv("/proc/self/exe", argv);
		runner_main(FW_RUNNER_FD);
	}
	close(sv[1]);
	r->fd = sv[0];
	*out = r;
	return 0;
}

int fw_runner_main(void)
{
	runner_main(FW_RUNNER_FD);
	return 0;
}

int fw_runner_fd(const struct fw_runner *r)
{
	return r->fd;
}

int fw_runner_submit(struct fw_runner *r, uint8_t tag, const char *prog, const char *script)
{
	struct iovec iov[3] = {
		{ .iov_base = &tag, .iov_len = 1 },
		{ .iov_base = (char *)prog, .iov_len = strlen(prog) + 1 },
		{ .iov_base = (char *)script, .iov_len = strlen(script) + 1 },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 3 };

	if (1 + iov[1].iov_len + iov[2].iov_len >= REQUEST_MAX)
		return -E2BIG;
	while (sendmsg(r->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

int fw_runner_result(struct fw_runner *r, bool block, uint8_t *tag)
{
	struct pollfd p = { .fd = r->fd, .events = POLLIN };
	struct reply rep;
	ssize_t n;

	if (block && poll(&p, 1, -1) < 0 && errno != EINTR)
		return -errno;
	n = recv(r->fd, &rep, sizeof(rep), MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return -EAGAIN;
	if (n < 0 || (size_t)n != sizeof(rep))
		return -EPIPE;   /* it ended (0) or spoke nonsense */
	*tag = rep.tag;
	return rep.ret;
}

void fw_runner_free(struct fw_runner *r)
{
	if (!r)
		return;
	close(r->fd);   /* it ends at the next recv */
	while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
		;
	free(r);
}
