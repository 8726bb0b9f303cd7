/*
 * loop.h - the daemon's event loop: epoll over file descriptors, a min-heap
 * of timers on CLOCK_MONOTONIC nanoseconds, and signals through signalfd.
 * One thread; every callback runs from hip_loop_run().
 *
 * Conventions: 0 or -errno. Timer handles are nonzero uint64_t values (0
 * means "no timer", so a handle field can be zero-initialised); a handle
 * goes stale when its timer fires or is cancelled and is never reused.
 */
#ifndef HIPD_LOOP_H
#define HIPD_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>

struct hip_loop;

/* events: EPOLLIN / EPOLLOUT / EPOLLERR / EPOLLHUP as reported. */
typedef void (*hip_loop_fd_cb)(struct hip_loop *loop, int fd, uint32_t events, void *arg);
/* The handle is already stale when the callback runs: re-add to repeat. */
typedef void (*hip_loop_timer_cb)(struct hip_loop *loop, uint64_t timer, void *arg);
typedef void (*hip_loop_signal_cb)(struct hip_loop *loop, const struct signalfd_siginfo *si,
				   void *arg);

int hip_loop_create(struct hip_loop **out);
/* Closes the epoll and signal fds (not the registered fds), restores the
 * signal mask that hip_loop_signal_add changed. */
void hip_loop_free(struct hip_loop *loop);

/* Watch fd for events (EPOLLIN, EPOLLOUT). -EEXIST if already watched. */
int hip_loop_fd_add(struct hip_loop *loop, int fd, uint32_t events, hip_loop_fd_cb cb,
		    void *arg);
int hip_loop_fd_modify(struct hip_loop *loop, int fd, uint32_t events);
/* Stop watching fd (the caller closes it). Safe from any callback, also for
 * an fd whose event is pending in the current round: it is not delivered.
 * -ENOENT if not watched. */
int hip_loop_fd_remove(struct hip_loop *loop, int fd);

/* Run cb once, delay_ns from now (0 = on the next round). Returns the
 * handle, 0 if out of memory. */
uint64_t hip_loop_timer_add(struct hip_loop *loop, uint64_t delay_ns, hip_loop_timer_cb cb,
			    void *arg);
/* Same, at an absolute CLOCK_MONOTONIC time (hipd_now_ns()). */
uint64_t hip_loop_timer_add_at(struct hip_loop *loop, uint64_t deadline_ns,
			       hip_loop_timer_cb cb, void *arg);
/* -ENOENT if the handle is stale (fired, cancelled) or 0. */
int hip_loop_timer_cancel(struct hip_loop *loop, uint64_t timer);
/* Move a pending timer to delay_ns from now; -ENOENT if stale. */
int hip_loop_timer_rearm(struct hip_loop *loop, uint64_t timer, uint64_t delay_ns);
bool hip_loop_timer_pending(const struct hip_loop *loop, uint64_t timer);
/* Deadline of a pending timer, 0 if stale. */
uint64_t hip_loop_timer_deadline(const struct hip_loop *loop, uint64_t timer);
size_t hip_loop_timer_count(const struct hip_loop *loop);

/* Deliver signo through the loop: blocks it for the process and reads it
 * from a signalfd. One callback per signal; -EEXIST if already set. */
int hip_loop_signal_add(struct hip_loop *loop, int signo, hip_loop_signal_cb cb, void *arg);

/* Dispatch until hip_loop_stop(). Returns 0, or -errno if epoll fails. */
int hip_loop_run(struct hip_loop *loop);
/* In the child after fork(), before the loop runs there (the signalfd's
 * epoll registration follows the process that made it). */
int hip_loop_forked(struct hip_loop *loop);
/* One round: wait at most timeout_ms (-1 = until the next timer or event),
 * then run ready fd callbacks and due timers. Returns the number of
 * callbacks run, or -errno. For tests and for embedding. */
int hip_loop_run_once(struct hip_loop *loop, int timeout_ms);
/* Make hip_loop_run() return after the current callback; sticky until the
 * next hip_loop_run_once(), so a stop before hip_loop_run() is kept. */
void hip_loop_stop(struct hip_loop *loop);
bool hip_loop_stopped(const struct hip_loop *loop);

/* Monotonic clock in nanoseconds (CLOCK_MONOTONIC). */
uint64_t hipd_now_ns(void);

#endif
