/*
 * check_sdnotify.c - the sd_notify(3) datagram: path and abstract sockets,
 * the sender's credentials systemd checks (NotifyAccess=main), RELOADING=1
 * with MONOTONIC_USEC, and addresses hipd must not use.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/sdnotify.h"
#include "unit.h"

static char dir[64], path[128];

static void setup(void)
{
	strcpy(dir, "/tmp/check_sdnotify.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/notify", dir);
}

static void teardown(void)
{
	unlink(path);
	rmdir(dir);
	unsetenv("NOTIFY_SOCKET");
}

/* A datagram socket like systemd's, bound to name (len bytes of sun_path),
 * with SO_PASSCRED so every message carries the sender's pid. */
static int listener(const char *name, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int one = 1, fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_uint_le(len, sizeof(sa.sun_path));
	memcpy(sa.sun_path, name, len);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa,
			      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)), 0);
	ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)), 0);
	return fd;
}

/* One message (NUL-terminated into buf); returns the sender's pid. */
static pid_t receive(int fd, char *buf, size_t cap)
{
	char cbuf[CMSG_SPACE(sizeof(struct ucred))];
	struct iovec iov = { buf, cap - 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	struct ucred cred = { 0 };
	ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);

	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS)
			memcpy(&cred, CMSG_DATA(c), sizeof(cred));
	return cred.pid;
}

START_TEST(test_not_under_systemd)
{
	unsetenv("NOTIFY_SOCKET");
	ck_assert_int_eq(hipd_sd_notify("READY=1"), 0);
	setenv("NOTIFY_SOCKET", "", 1);
	ck_assert_int_eq(hipd_sd_notify("READY=1"), 0);
}
END_TEST

START_TEST(test_path_socket)
{
	char buf[256];
	int fd = listener(path, strlen(path) + 1);

	setenv("NOTIFY_SOCKET", path, 1);
	ck_assert_int_eq(hipd_sd_notify("READY=1"), 1);
	ck_assert_int_eq(receive(fd, buf, sizeof(buf)), getpid());
	ck_assert_str_eq(buf, "READY=1");
	ck_assert_int_eq(hipd_sd_notify("STOPPING=1\nSTATUS=bye"), 1);
	receive(fd, buf, sizeof(buf));
	ck_assert_str_eq(buf, "STOPPING=1\nSTATUS=bye");
	close(fd);
}
END_TEST

/* "@name" is the abstract name "\0name" (no trailing NUL in the address). */
START_TEST(test_abstract_socket)
{
	char name[64], env[64], buf[256];
	int fd;

	snprintf(name, sizeof(name), "%chipd-check-sdnotify-%d", '\0', (int)getpid());
	fd = listener(name, 1 + strlen(name + 1));
	snprintf(env, sizeof(env), "@%s", name + 1);
	setenv("NOTIFY_SOCKET", env, 1);
	ck_assert_int_eq(hipd_sd_notify("READY=1"), 1);
	ck_assert_int_eq(receive(fd, buf, sizeof(buf)), getpid());
	ck_assert_str_eq(buf, "READY=1");
	close(fd);
}
END_TEST

START_TEST(test_reloading_carries_monotonic_time)
{
	struct timespec t0, t1;
	uint64_t us0, us1, us;
	char buf[256];
	int fd = listener(path, strlen(path) + 1);

	setenv("NOTIFY_SOCKET", path, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(hipd_sd_notify_reloading(), 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	receive(fd, buf, sizeof(buf));
	ck_assert_msg(strncmp(buf, "RELOADING=1\nMONOTONIC_USEC=", 27) == 0, "%s", buf);
	us = strtoull(buf + 27, NULL, 10);
	us0 = (uint64_t)t0.tv_sec * 1000000u + (uint64_t)t0.tv_nsec / 1000u;
	us1 = (uint64_t)t1.tv_sec * 1000000u + (uint64_t)t1.tv_nsec / 1000u;
	ck_assert_msg(us >= us0 && us <= us1, "%" PRIu64 " not in [%" PRIu64 ", %" PRIu64 "]",
		      us, us0, us1);
	close(fd);
}
END_TEST

START_TEST(test_unusable_addresses)
{
	char longp[200];

	setenv("NOTIFY_SOCKET", "run/notify", 1);
	ck_assert_int_eq(hipd_sd_notify("READY=1"), -EAFNOSUPPORT);
	setenv("NOTIFY_SOCKET", "vsock:2:1234", 1);
	ck_assert_int_eq(hipd_sd_notify("READY=1"), -EAFNOSUPPORT);
	setenv("NOTIFY_SOCKET", "@", 1);
	ck_assert_int_eq(hipd_sd_notify("READY=1"), -EAFNOSUPPORT);
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	setenv("NOTIFY_SOCKET", longp, 1);
	ck_assert_int_eq(hipd_sd_notify("READY=1"), -EAFNOSUPPORT);
	/* nobody listening there */
	setenv("NOTIFY_SOCKET", path, 1);
	ck_assert_int_eq(hipd_sd_notify("READY=1"), -ENOENT);
}
END_TEST

static Suite *sdnotify_suite(void)
{
	Suite *s = suite_create("sdnotify");
	TCase *tc = tcase_create("notify");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_not_under_systemd);
	tcase_add_test(tc, test_path_socket);
	tcase_add_test(tc, test_abstract_socket);
	tcase_add_test(tc, test_reloading_carries_monotonic_time);
	tcase_add_test(tc, test_unusable_addresses);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(sdnotify_suite)
