/*
 * deny-seccomp.c - run a program under a seccomp filter that refuses
 * seccomp(2) itself (EPERM) and allows everything else, as a service
 * manager's SystemCallFilter= without it does (tests/system/privsep.sh).
 * Usage: deny-seccomp PROGRAM [ARGS...]
 */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/audit.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <errno.h>
int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_seccomp, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = { .len = 4, .filter = f };
	if (argc < 2) return 2;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p, 0, 0)) {
		perror("filter");
		return 1;
	}
	execv(argv[1], argv + 1);
	perror("exec");
	return 1;
}
