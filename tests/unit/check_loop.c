/*
 * check_loop.c - the event loop: fd callbacks, the timer heap (order,
 * cancel, re-arm, stale handles), signalfd, run/stop.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hipd.h"
#include "base/loop.h"
#include "unit.h"

static struct hip_loop *loop;

static void setup(void)
{
	ck_assert_int_eq(hip_loop_create(&loop), 0);
}

static void teardown(void)
{
	hip_loop_free(loop);
	loop = NULL;
}

/* ---- fds ---- */

struct fd_seen {
	int calls;
	uint32_t events;
	char data[16];
	int other_fd;     /* removed by the callback, if >= 0 */
};

static void fd_cb(struct hip_loop *l, int fd, uint32_t events, void *arg)
{
	struct fd_seen *s = arg;
	ssize_t n;

	s->calls++;
	s->events = events;
	n = read(fd, s->data, sizeof(s->data) - 1);
	s->data[n > 0 ? n : 0] = '\0';
	if (s->other_fd >= 0)
		ck_assert_int_eq(hip_loop_fd_remove(l, s->other_fd), 0);
}

START_TEST(test_fd_callback)
{
	struct fd_seen s = { .other_fd = -1 };
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(hip_loop_fd_add(loop, p[0], EPOLLIN, fd_cb, &s), 0);
	ck_assert_int_eq(hip_loop_fd_add(loop, p[0], EPOLLIN, fd_cb, &s), -EEXIST);
	/* nothing to read: the round times out without callbacks */
	ck_assert_int_eq(hip_loop_run_once(loop, 0), 0);
	ck_assert_int_eq(s.calls, 0);
	ck_assert_int_eq(write(p[1], "ping", 4), 4);
	ck_assert_int_eq(hip_loop_run_once(loop, 1000), 1);
	ck_assert_int_eq(s.calls, 1);
	ck_assert(s.events & EPOLLIN);
	ck_assert_str_eq(s.data, "ping");
	/* modify to no events: data waits */
	ck_assert_int_eq(hip_loop_fd_modify(loop, p[0], 0), 0);
	ck_assert_int_eq(write(p[1], "x", 1), 1);
	ck_assert_int_eq(hip_loop_run_once(loop, 0), 0);
	ck_assert_int_eq(hip_loop_fd_remove(loop, p[0]), 0);
	ck_assert_int_eq(hip_loop_fd_remove(loop, p[0]), -ENOENT);
	ck_assert_int_eq(hip_loop_fd_modify(loop, p[0], EPOLLIN), -ENOENT);
	ck_assert_int_eq(hip_loop_fd_add(loop, -1, EPOLLIN, fd_cb, &s), -EINVAL);
	close(p[0]);
	close(p[1]);
}
END_TEST

/* Two fds ready in the same round; whichever runs first removes the other,
 * whose already collected event must not be delivered. */
START_TEST(test_fd_remove_during_dispatch)
{
	struct fd_seen a = { 0 }, b = { 0 };
	int pa[2], pb[2];

	ck_assert_int_eq(pipe(pa), 0);
	ck_assert_int_eq(pipe(pb), 0);
	a.other_fd = pb[0];
	b.other_fd = pa[0];
	ck_assert_int_eq(hip_loop_fd_add(loop, pa[0], EPOLLIN, fd_cb, &a), 0);
	ck_assert_int_eq(hip_loop_fd_add(loop, pb[0], EPOLLIN, fd_cb, &b), 0);
	ck_assert_int_eq(write(pa[1], "a", 1), 1);
	ck_assert_int_eq(write(pb[1], "b", 1), 1);
	ck_assert_int_eq(hip_loop_run_once(loop, 1000), 1);
	ck_assert_int_eq(a.calls + b.calls, 1);
	close(pa[0]); close(pa[1]); close(pb[0]); close(pb[1]);
}
END_TEST

/* ---- timers ---- */

struct fired {
	int order[4096];
	int n;
	uint64_t handle_seen[4096];
};

struct tmark {
	struct fired *f;
	int id;
};

static void timer_cb(struct hip_loop *l, uint64_t timer, void *arg)
{
	struct tmark *m = arg;

	m->f->handle_seen[m->f->n] = timer;
	m->f->order[m->f->n++] = m->id;
}

/* Deadlines in the past fire in one round, earliest first, equal deadlines
 * in the order they were added. */
START_TEST(test_timer_order)
{
	static struct fired f;
	static struct tmark marks[2000];
	static uint64_t deadline[2000], handle[2000];
	uint64_t base = hipd_now_ns() - 1000000000ull;
	uint32_t x = 12345;
	int i;

	memset(&f, 0, sizeof(f));
	for (i = 0; i < 2000; i++) {
		x ^= x << 13; x ^= x >> 17; x ^= x << 5;
		deadline[i] = base + (x % 500) * 1000;   /* many equal deadlines */
		marks[i] = (struct tmark){ &f, i };
		handle[i] = hip_loop_timer_add_at(loop, deadline[i], timer_cb, &marks[i]);
		ck_assert_uint_ne(handle[i], 0);
		ck_assert(hip_loop_timer_pending(loop, handle[i]));
		ck_assert_uint_eq(hip_loop_timer_deadline(loop, handle[i]), deadline[i]);
	}
	ck_assert_uint_eq(hip_loop_timer_count(loop), 2000);
	ck_assert_int_eq(hip_loop_run_once(loop, 0), 2000);
	ck_assert_int_eq(f.n, 2000);
	for (i = 1; i < 2000; i++) {
		int p = f.order[i - 1], q = f.order[i];

		ck_assert(deadline[p] < deadline[q] || (deadline[p] == deadline[q] && p < q));
	}
	/* the callback got the handle, which is stale by then */
	for (i = 0; i < 2000; i++) {
		ck_assert_uint_eq(f.handle_seen[i], handle[f.order[i]]);
		ck_assert(!hip_loop_timer_pending(loop, handle[i]));
		ck_assert_int_eq(hip_loop_timer_cancel(loop, handle[i]), -ENOENT);
	}
	ck_assert_uint_eq(hip_loop_timer_count(loop), 0);
}
END_TEST

START_TEST(test_timer_cancel_rearm)
{
	static struct fired f;
	struct tmark m[5];
	uint64_t h[5], past = hipd_now_ns() - 1000;
	int i;

	memset(&f, 0, sizeof(f));
	for (i = 0; i < 5; i++) {
		m[i] = (struct tmark){ &f, i };
		h[i] = hip_loop_timer_add_at(loop, past + (uint64_t)i, timer_cb, &m[i]);
	}
	ck_assert_int_eq(hip_loop_timer_cancel(loop, h[2]), 0);
	ck_assert_int_eq(hip_loop_timer_cancel(loop, h[2]), -ENOENT);
	ck_assert_int_eq(hip_loop_timer_cancel(loop, 0), -ENOENT);
	/* push h[0] an hour ahead, pull... nothing fires for it this round */
	ck_assert_int_eq(hip_loop_timer_rearm(loop, h[0], 3600ull * 1000000000ull), 0);
	ck_assert_int_eq(hip_loop_run_once(loop, 0), 3);
	ck_assert_int_eq(f.n, 3);
	ck_assert_int_eq(f.order[0], 1);
	ck_assert_int_eq(f.order[1], 3);
	ck_assert_int_eq(f.order[2], 4);
	ck_assert(hip_loop_timer_pending(loop, h[0]));
	/* the next timer is an hour away: a round returns without it */
	ck_assert_int_eq(hip_loop_run_once(loop, 0), 0);
	ck_assert_int_eq(hip_loop_timer_rearm(loop, h[0], 0), 0);
	ck_assert_int_eq(hip_loop_run_once(loop, 1000), 1);
	ck_assert_int_eq(f.order[3], 0);
	ck_assert_int_eq(hip_loop_timer_rearm(loop, h[0], 0), -ENOENT);
	/* slots are reused, old handles stay stale */
	m[0].id = 9;
	ck_assert_uint_ne(hip_loop_timer_add(loop, 0, timer_cb, &m[0]), h[0]);
	ck_assert(!hip_loop_timer_pending(loop, h[0]));
}
END_TEST

struct self_readd {
	int runs;
	uint64_t victim;
};

/* Re-adds itself with delay 0: must run once per round, not forever. */
static void readd_cb(struct hip_loop *l, uint64_t timer, void *arg)
{
	struct self_readd *s = arg;

	s->runs++;
	if (s->victim)
		ck_assert_int_eq(hip_loop_timer_cancel(l, s->victim), 0);
	s->victim = 0;
	ck_assert_uint_ne(hip_loop_timer_add(l, 0, readd_cb, s), 0);
}

static void must_not_run(struct hip_loop *l, uint64_t timer, void *arg)
{
	ck_abort_msg("a cancelled timer ran");
}

START_TEST(test_timer_readd_and_cancel_from_callback)
{
	struct self_readd s = { 0 };
	uint64_t now = hipd_now_ns();

	ck_assert_uint_ne(hip_loop_timer_add_at(loop, now - 10, readd_cb, &s), 0);
	/* due in the same round, after readd_cb, which cancels it */
	s.victim = hip_loop_timer_add_at(loop, now - 5, must_not_run, NULL);
	ck_assert_int_eq(hip_loop_run_once(loop, 0), 1);
	ck_assert_int_eq(s.runs, 1);
	ck_assert_int_eq(hip_loop_run_once(loop, 1000), 1);
	ck_assert_int_eq(s.runs, 2);
}
END_TEST

static void stop_cb(struct hip_loop *l, uint64_t timer, void *arg)
{
	(*(int *)arg)++;
	hip_loop_stop(l);
}

START_TEST(test_run_until_stop)
{
	int stops = 0;

	ck_assert_uint_ne(hip_loop_timer_add(loop, 1000, stop_cb, &stops), 0);
	ck_assert_int_eq(hip_loop_run(loop), 0);
	ck_assert_int_eq(stops, 1);
	ck_assert(hip_loop_stopped(loop));
	/* a stop before run is kept: run returns at once */
	ck_assert_uint_ne(hip_loop_timer_add(loop, 0, stop_cb, &stops), 0);
	ck_assert_int_eq(hip_loop_run(loop), 0);
	ck_assert_int_eq(stops, 1);
}
END_TEST

/* ---- signals ---- */

struct sig_seen {
	int calls;
	uint32_t signo;
	int pid;
};

static void sig_cb(struct hip_loop *l, const struct signalfd_siginfo *si, void *arg)
{
	struct sig_seen *s = arg;

	s->calls++;
	s->signo = si->ssi_signo;
	s->pid = (int)si->ssi_pid;
}

START_TEST(test_signals)
{
	struct sig_seen hup = { 0 }, usr = { 0 };
	sigset_t cur;

	ck_assert_int_eq(hip_loop_signal_add(loop, SIGHUP, sig_cb, &hup), 0);
	ck_assert_int_eq(hip_loop_signal_add(loop, SIGUSR1, sig_cb, &usr), 0);
	ck_assert_int_eq(hip_loop_signal_add(loop, SIGHUP, sig_cb, &hup), -EEXIST);
	ck_assert_int_eq(hip_loop_signal_add(loop, 0, sig_cb, &hup), -EINVAL);
	/* blocked now: raise() does not kill us, the loop reads it */
	ck_assert_int_eq(raise(SIGHUP), 0);
	ck_assert_int_eq(hip_loop_run_once(loop, 5000), 1);
	ck_assert_int_eq(hup.calls, 1);
	ck_assert_uint_eq(hup.signo, SIGHUP);
	ck_assert_int_eq(hup.pid, getpid());
	ck_assert_int_eq(usr.calls, 0);
	ck_assert_int_eq(kill(getpid(), SIGUSR1), 0);
	ck_assert_int_eq(hip_loop_run_once(loop, 5000), 1);
	ck_assert_int_eq(usr.calls, 1);
	ck_assert_uint_eq(usr.signo, SIGUSR1);
	/* freeing restores the mask, after consuming a pending signal */
	ck_assert_int_eq(raise(SIGHUP), 0);
	hip_loop_free(loop);
	loop = NULL;
	ck_assert_int_eq(sigprocmask(SIG_BLOCK, NULL, &cur), 0);
	ck_assert(!sigismember(&cur, SIGHUP));
	ck_assert(!sigismember(&cur, SIGUSR1));
}
END_TEST

static Suite *loop_suite(void)
{
	Suite *s = suite_create("loop");
	TCase *tc = tcase_create("loop");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_fd_callback);
	tcase_add_test(tc, test_fd_remove_during_dispatch);
	tcase_add_test(tc, test_timer_order);
	tcase_add_test(tc, test_timer_cancel_rearm);
	tcase_add_test(tc, test_timer_readd_and_cancel_from_callback);
	tcase_add_test(tc, test_run_until_stop);
	tcase_add_test(tc, test_signals);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(loop_suite)
