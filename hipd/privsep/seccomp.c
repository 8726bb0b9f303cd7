/*
 * seccomp.c - the engine's allow-list filter (seccomp.h), classic BPF by
 * hand (seccomp(2), <linux/filter.h>; libseccomp is not a dependency).
 *
 * The program: a system call of another ABI (architecture field, or the
 * x32 bit on x86-64) kills the process; a call on the list is allowed;
 * anything else returns EPERM, so an unforeseen call on a rare path (a
 * reload, say) fails visibly in the log instead of killing the daemon.
 * Names that an architecture lacks are left out by the preprocessor, so
 * one list serves 32- and 64-bit ABIs (mmap2, _llseek, *_time64 ...).
 */
#include "config.h"
#include "seccomp.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SC_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SC_SANITIZER 1
#endif

#if defined(SC_SANITIZER)
/* The leak checker stops the process with a ptrace()ing thread at exit. */
#elif defined(__x86_64__) && !defined(__ILP32__)
#define SC_ARCH AUDIT_ARCH_X86_64
#define SC_X32_BIT 0x40000000u
#elif defined(__i386__)
#define SC_ARCH AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define SC_ARCH AUDIT_ARCH_AARCH64
#elif defined(__arm__) && defined(__ARMEL__)
#define SC_ARCH AUDIT_ARCH_ARM
#endif

#ifdef SC_ARCH
/* What the engine does after start (loop.c, sock.c, uesp*.c, control*.c,
 * r1cache.c's counter file, conf.c/hosts.c on reload, log.c, OpenSSL). */
static const unsigned engine_syscalls[] = {
#ifdef __NR_read
	__NR_read,
#endif
#ifdef __NR_write
	__NR_write,
#endif
#ifdef __NR_readv
	__NR_readv,
#endif
#ifdef __NR_writev
	__NR_writev,
#endif
#ifdef __NR_pread64
	__NR_pread64,
#endif
#ifdef __NR_pwrite64
	__NR_pwrite64,
#endif
#ifdef __NR_close
	__NR_close,
#endif
#ifdef __NR_lseek
	__NR_lseek,
#endif
#ifdef __NR__llseek
	__NR__llseek,
#endif
#ifdef __NR_fstat
	__NR_fstat,
#endif
#ifdef __NR_fstat64
	__NR_fstat64,
#endif
#ifdef __NR_newfstatat
	__NR_newfstatat,
#endif
#ifdef __NR_fstatat64
	__NR_fstatat64,
#endif
#ifdef __NR_stat
	__NR_stat,
#endif
#ifdef __NR_stat64
	__NR_stat64,
#endif
#ifdef __NR_lstat
	__NR_lstat,
#endif
#ifdef __NR_lstat64
	__NR_lstat64,
#endif
#ifdef __NR_statx
	__NR_statx,
#endif
#ifdef __NR_openat
	__NR_openat,
#endif
#ifdef __NR_open
	__NR_open,
#endif
#ifdef __NR_access
	__NR_access,
#endif
#ifdef __NR_faccessat
	__NR_faccessat,
#endif
#ifdef __NR_faccessat2
	__NR_faccessat2,
#endif
#ifdef __NR_readlink
	__NR_readlink,
#endif
#ifdef __NR_readlinkat
	__NR_readlinkat,
#endif
#ifdef __NR_fcntl
	__NR_fcntl,
#endif
#ifdef __NR_fcntl64
	__NR_fcntl64,
#endif
#ifdef __NR_mmap
	__NR_mmap,
#endif
#ifdef __NR_mmap2
	__NR_mmap2,
#endif
#ifdef __NR_munmap
	__NR_munmap,
#endif
#ifdef __NR_mremap
	__NR_mremap,
#endif
#ifdef __NR_brk
	__NR_brk,
#endif
#ifdef __NR_mprotect
	__NR_mprotect,
#endif
#ifdef __NR_madvise
	__NR_madvise,
#endif
#ifdef __NR_futex
	__NR_futex,
#endif
#ifdef __NR_futex_time64
	__NR_futex_time64,
#endif
#ifdef __NR_set_robust_list
	__NR_set_robust_list,
#endif
#ifdef __NR_exit
	__NR_exit,
#endif
#ifdef __NR_exit_group
	__NR_exit_group,
#endif
#ifdef __NR_rt_sigreturn
	__NR_rt_sigreturn,
#endif
#ifdef __NR_sigreturn
	__NR_sigreturn,
#endif
#ifdef __NR_rt_sigprocmask
	__NR_rt_sigprocmask,
#endif
#ifdef __NR_sigprocmask
	__NR_sigprocmask,
#endif
#ifdef __NR_rt_sigaction
	__NR_rt_sigaction,
#endif
#ifdef __NR_sigaction
	__NR_sigaction,
#endif
#ifdef __NR_epoll_wait
	__NR_epoll_wait,
#endif
#ifdef __NR_epoll_pwait
	__NR_epoll_pwait,
#endif
#ifdef __NR_epoll_pwait2
	__NR_epoll_pwait2,
#endif
#ifdef __NR_epoll_ctl
	__NR_epoll_ctl,
#endif
#ifdef __NR_timerfd_settime
	__NR_timerfd_settime,
#endif
#ifdef __NR_timerfd_settime64
	__NR_timerfd_settime64,
#endif
#ifdef __NR_timerfd_gettime
	__NR_timerfd_gettime,
#endif
#ifdef __NR_timerfd_gettime64
	__NR_timerfd_gettime64,
#endif
#ifdef __NR_clock_gettime
	__NR_clock_gettime,
#endif
#ifdef __NR_clock_gettime64
	__NR_clock_gettime64,
#endif
#ifdef __NR_clock_getres
	__NR_clock_getres,
#endif
#ifdef __NR_clock_getres_time64
	__NR_clock_getres_time64,
#endif
#ifdef __NR_gettimeofday
	__NR_gettimeofday,
#endif
#ifdef __NR_time
	__NR_time,
#endif
#ifdef __NR_clock_nanosleep
	__NR_clock_nanosleep,
#endif
#ifdef __NR_clock_nanosleep_time64
	__NR_clock_nanosleep_time64,
#endif
#ifdef __NR_nanosleep
	__NR_nanosleep,
#endif
#ifdef __NR_getrandom
	__NR_getrandom,
#endif
#ifdef __NR_getpid
	__NR_getpid,
#endif
#ifdef __NR_gettid
	__NR_gettid,
#endif
#ifdef __NR_getppid
	__NR_getppid,
#endif
#ifdef __NR_getuid
	__NR_getuid,
#endif
#ifdef __NR_geteuid
	__NR_geteuid,
#endif
#ifdef __NR_getgid
	__NR_getgid,
#endif
#ifdef __NR_getegid
	__NR_getegid,
#endif
#ifdef __NR_getuid32
	__NR_getuid32,
#endif
#ifdef __NR_geteuid32
	__NR_geteuid32,
#endif
#ifdef __NR_getgid32
	__NR_getgid32,
#endif
#ifdef __NR_getegid32
	__NR_getegid32,
#endif
#ifdef __NR_recvfrom
	__NR_recvfrom,
#endif
#ifdef __NR_recvmsg
	__NR_recvmsg,
#endif
#ifdef __NR_recvmmsg
	__NR_recvmmsg,
#endif
#ifdef __NR_recvmmsg_time64
	__NR_recvmmsg_time64,
#endif
#ifdef __NR_recv
	__NR_recv,
#endif
#ifdef __NR_sendto
	__NR_sendto,
#endif
#ifdef __NR_sendmsg
	__NR_sendmsg,
#endif
#ifdef __NR_sendmmsg
	__NR_sendmmsg,
#endif
#ifdef __NR_send
	__NR_send,
#endif
#ifdef __NR_accept
	__NR_accept,
#endif
#ifdef __NR_accept4
	__NR_accept4,
#endif
#ifdef __NR_getsockopt
	__NR_getsockopt,
#endif
#ifdef __NR_getsockname
	__NR_getsockname,
#endif
#ifdef __NR_getpeername
	__NR_getpeername,
#endif
#ifdef __NR_shutdown
	__NR_shutdown,
#endif
#ifdef __NR_rename
	__NR_rename,
#endif
#ifdef __NR_renameat
	__NR_renameat,
#endif
#ifdef __NR_renameat2
	__NR_renameat2,
#endif
#ifdef __NR_unlink
	__NR_unlink,
#endif
#ifdef __NR_unlinkat
	__NR_unlinkat,
#endif
#ifdef __NR_mkdir
	__NR_mkdir,
#endif
#ifdef __NR_mkdirat
	__NR_mkdirat,
#endif
#ifdef __NR_fsync
	__NR_fsync,
#endif
#ifdef __NR_fdatasync
	__NR_fdatasync,
#endif
#ifdef __NR_fchmod
	__NR_fchmod,
#endif
#ifdef __NR_umask
	__NR_umask,
#endif
#ifdef __NR_sched_yield
	__NR_sched_yield,
#endif
#ifdef __NR_restart_syscall
	__NR_restart_syscall,
#endif
#ifdef __NR_tgkill
	__NR_tgkill,
#endif
#ifdef __NR_sysinfo
	__NR_sysinfo,   /* glibc's qsort() sizes its buffer by the memory size */
#endif
};
#define N_ALLOWED (sizeof(engine_syscalls) / sizeof(engine_syscalls[0]))

enum {
	SC_HEAD = 4,               /* arch load + check + kill, nr load */
	SC_X32 = 2,
	SC_MAX = SC_HEAD + SC_X32 + 2 * 256 + 1,
};

size_t seccomp_engine_count(void)
{
	return N_ALLOWED;
}

int seccomp_engine_install(bool all_threads, char *why, size_t whylen)
{
	struct sock_filter prog[SC_MAX];
	struct sock_fprog fprog;
	size_t n = 0, i;
	long r;

	_Static_assert(N_ALLOWED <= 256, "seccomp: SC_MAX too small");
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						  offsetof(struct seccomp_data, arch));
	prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SC_ARCH, 1, 0);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						  offsetof(struct seccomp_data, nr));
#ifdef SC_X32_BIT
	prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, SC_X32_BIT, 0, 1);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
#endif
	for (i = 0; i < N_ALLOWED; i++) {
		prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							  engine_syscalls[i], 0, 1);
		prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	}
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
						  SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
	fprog.len = (unsigned short)n;
	fprog.filter = prog;
	if (all_threads) {
		/* TSYNC: every thread (the puzzle thread, started before) gets
		 * the filter, and no_new_privs with it. */
		r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC,
			    &fprog);
		if (r > 0) {
			snprintf(why, whylen, "seccomp: thread %ld cannot take the filter", r);
			return -EPERM;
		}
		if (r != 0) {
			int e = errno;

			/* never -ENOTSUP: the caller then filters one thread by
			 * prctl(), which older kernels (no seccomp(2)) do have */
			snprintf(why, whylen, "seccomp(2): %s", strerror(e));
			return -e;
		}
		return 0;
	}
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) != 0) {
		int e = errno;

		snprintf(why, whylen, "PR_SET_SECCOMP: %s", strerror(e));
		/* EINVAL: no CONFIG_SECCOMP_FILTER (or qemu-user, which has none) */
		return e == EINVAL || e == ENOSYS ? -ENOTSUP : -e;
	}
	return 0;
}

#else   /* no list for this architecture */

size_t seccomp_engine_count(void)
{
	return 0;
}

int seccomp_engine_install(bool all_threads, char *why, size_t whylen)
{
	(void)all_threads;
#ifdef SC_SANITIZER
	snprintf(why, whylen, "sanitizer build (the leak checker needs ptrace and clone)");
#else
	snprintf(why, whylen, "no system call list for this architecture");
#endif
	return -ENOTSUP;
}

#endif
