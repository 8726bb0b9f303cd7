/*
 * loop.c - epoll + timer min-heap + signalfd.
 *
 * fds: a table indexed by fd number. The epoll cookie carries the fd and a
 * generation, so an event that was already collected for an fd removed (or
 * removed and re-added) by an earlier callback of the same round is ignored.
 *
 * timers: slots with a free list, and a binary min-heap of slot numbers
 * ordered by (deadline, sequence). A handle is generation << 32 | slot + 1:
 * O(1) to validate, never 0, stale once the slot is freed. The sequence
 * number keeps equal deadlines in FIFO order and stops a timer that re-adds
 * itself with delay 0 from running twice in one round.
 */
#include "loop.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


enum { LOOP_EVENTS_MAX = 64, SLOT_NONE = UINT32_MAX };

struct fd_entry {
	hip_loop_fd_cb cb;
	void *arg;
	uint32_t gen;
	bool used;
};

struct timer_slot {
	uint64_t deadline;
	uint64_t seq;
	hip_loop_timer_cb cb;
	void *arg;
	uint32_t gen;
	uint32_t heap_pos;    /* SLOT_NONE when free */
	uint32_t next_free;
};

struct signal_entry {
	hip_loop_signal_cb cb;
	void *arg;
};

struct hip_loop {
	int epfd;
	bool stop;

	struct fd_entry *fds;
	size_t n_fds;            /* table size (max fd + 1 ever seen) */

	struct timer_slot *slots;
	uint32_t n_slots, cap_slots, free_head;
	uint32_t *heap;
	uint32_t heap_len;
	uint64_t next_seq;

	int sigfd;
	sigset_t sigmask, old_sigmask;
	bool sigmask_saved;
	struct signal_entry signals[_NSIG];
};

uint64_t hipd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int hip_loop_create(struct hip_loop **out)
{
	struct hip_loop *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		int err = -errno;

		free(l);
		return err;
	}
	l->sigfd = -1;
	l->free_head = SLOT_NONE;
	l->next_seq = 1;
	sigemptyset(&l->sigmask);
	*out = l;
	return 0;
}

void hip_loop_free(struct hip_loop *l)
{
	struct signalfd_siginfo si;

	if (!l)
		return;
	if (l->sigfd >= 0) {
		/* Consume what is pending, or unblocking below would deliver it
		 * with its default action (SIGHUP, SIGTERM: exit). */
		while (read(l->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			;
		close(l->sigfd);
	}
	if (l->sigmask_saved)
		sigprocmask(SIG_SETMASK, &l->old_sigmask, NULL);
	close(l->epfd);
	free(l->fds);
	free(l->slots);
	free(l->heap);
	free(l);
}

/* ---- file descriptors ---- */

static uint64_t fd_cookie(int fd, uint32_t gen)
{
	return (uint64_t)gen << 32 | (uint32_t)fd;
}

static int fd_table_reserve(struct hip_loop *l, int fd)
{
	size_t n = l->n_fds ? l->n_fds : 16;
	struct fd_entry *t;

	if ((size_t)fd < l->n_fds)
		return 0;
	while (n <= (size_t)fd)
		n *= 2;
	t = realloc(l->fds, n * sizeof(*t));
	if (!t)
		return -ENOMEM;
	memset(t + l->n_fds, 0, (n - l->n_fds) * sizeof(*t));
	l->fds = t;
	l->n_fds = n;
	return 0;
}

int hip_loop_fd_add(struct hip_loop *l, int fd, uint32_t events, hip_loop_fd_cb cb, void *arg)
{
	struct epoll_event ev = { .events = events };
	struct fd_entry *e;
	int err;

	if (fd < 0 || !cb)
		return -EINVAL;
	err = fd_table_reserve(l, fd);
	if (err)
		return err;
	e = &l->fds[fd];
	if (e->used)
		return -EEXIST;
	ev.data.u64 = fd_cookie(fd, e->gen + 1);
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
		return -errno;
	e->gen++;
	e->used = true;
	e->cb = cb;
	e->arg = arg;
	return 0;
}

int hip_loop_fd_modify(struct hip_loop *l, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events };

	if (fd < 0 || (size_t)fd >= l->n_fds || !l->fds[fd].used)
		return -ENOENT;
	ev.data.u64 = fd_cookie(fd, l->fds[fd].gen);
	if (epoll_ctl(l->epfd, EPOLL_CTL_MOD, fd, &ev) != 0)
		return -errno;
	return 0;
}

int hip_loop_fd_remove(struct hip_loop *l, int fd)
{
	if (fd < 0 || (size_t)fd >= l->n_fds || !l->fds[fd].used)
		return -ENOENT;
	/* The fd may already be closed by a careless caller: ignore EBADF,
	 * our table entry is what matters for dispatch. */
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
	l->fds[fd].used = false;
	l->fds[fd].cb = NULL;
	l->fds[fd].arg = NULL;
	return 0;
}

/* ---- timers ---- */

static bool timer_before(const struct timer_slot *a, const struct timer_slot *b)
{
	return a->deadline < b->deadline || (a->deadline == b->deadline && a->seq < b->seq);
}

static void heap_set(struct hip_loop *l, uint32_t pos, uint32_t slot)
{
	l->heap[pos] = slot;
	l->slots[slot].heap_pos = pos;
}

static void heap_up(struct hip_loop *l, uint32_t pos)
{
	uint32_t slot = l->heap[pos];

	while (pos > 0) {
		uint32_t parent = (pos - 1) / 2;

		if (!timer_before(&l->slots[slot], &l->slots[l->heap[parent]]))
			break;
		heap_set(l, pos, l->heap[parent]);
		pos = parent;
	}
	heap_set(l, pos, slot);
}

static void heap_down(struct hip_loop *l, uint32_t pos)
{
	uint32_t slot = l->heap[pos];

	for (;;) {
		uint32_t child = 2 * pos + 1;

		if (child >= l->heap_len)
			break;
		if (child + 1 < l->heap_len &&
		    timer_before(&l->slots[l->heap[child + 1]], &l->slots[l->heap[child]]))
			child++;
		if (!timer_before(&l->slots[l->heap[child]], &l->slots[slot]))
			break;
		heap_set(l, pos, l->heap[child]);
		pos = child;
	}
	heap_set(l, pos, slot);
}

static void heap_remove(struct hip_loop *l, uint32_t pos)
{
	uint32_t last = l->heap[--l->heap_len];

	if (pos == l->heap_len)
		return;
	heap_set(l, pos, last);
	heap_up(l, pos);
	heap_down(l, l->slots[last].heap_pos);
}

static int slot_alloc(struct hip_loop *l, uint32_t *out)
{
	if (l->free_head != SLOT_NONE) {
		*out = l->free_head;
		l->free_head = l->slots[*out].next_free;
		return 0;
	}
	if (l->n_slots == l->cap_slots) {
		uint32_t cap = l->cap_slots ? l->cap_slots * 2 : 64;
		struct timer_slot *s;
		uint32_t *h;

		if (cap >= SLOT_NONE / 2)
			return -ENOMEM;
		s = realloc(l->slots, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		l->slots = s;
		h = realloc(l->heap, cap * sizeof(*h));
		if (!h)
			return -ENOMEM;
		l->heap = h;
		l->cap_slots = cap;
	}
	l->slots[l->n_slots].gen = 1;
	*out = l->n_slots++;
	return 0;
}

static void slot_free(struct hip_loop *l, uint32_t slot)
{
	struct timer_slot *s = &l->slots[slot];

	s->gen++;             /* every handle to this slot is now stale */
	s->heap_pos = SLOT_NONE;
	s->cb = NULL;
	s->arg = NULL;
	s->next_free = l->free_head;
	l->free_head = slot;
}

/* Slot of a pending timer, or SLOT_NONE. */
static uint32_t timer_slot_of(const struct hip_loop *l, uint64_t timer)
{
	uint32_t slot = (uint32_t)timer - 1;

	if ((uint32_t)timer == 0 || slot >= l->n_slots)
		return SLOT_NONE;
	if (l->slots[slot].gen != (uint32_t)(timer >> 32) ||
	    l->slots[slot].heap_pos == SLOT_NONE)
		return SLOT_NONE;
	return slot;
}

uint64_t hip_loop_timer_add_at(struct hip_loop *l, uint64_t deadline_ns, hip_loop_timer_cb cb,
			       void *arg)
{
	struct timer_slot *s;
	uint32_t slot;

	if (!cb || slot_alloc(l, &slot) != 0)
		return 0;
	s = &l->slots[slot];
	s->deadline = deadline_ns;
	s->seq = l->next_seq++;
	s->cb = cb;
	s->arg = arg;
	l->heap[l->heap_len] = slot;
	s->heap_pos = l->heap_len++;
	heap_up(l, s->heap_pos);
	return (uint64_t)s->gen << 32 | (slot + 1);
}

uint64_t hip_loop_timer_add(struct hip_loop *l, uint64_t delay_ns, hip_loop_timer_cb cb,
			    void *arg)
{
	return hip_loop_timer_add_at(l, hipd_now_ns() + delay_ns, cb, arg);
}

int hip_loop_timer_cancel(struct hip_loop *l, uint64_t timer)
{
	uint32_t slot = timer_slot_of(l, timer);

	if (slot == SLOT_NONE)
		return -ENOENT;
	heap_remove(l, l->slots[slot].heap_pos);
	slot_free(l, slot);
	return 0;
}

int hip_loop_timer_rearm(struct hip_loop *l, uint64_t timer, uint64_t delay_ns)
{
	uint32_t slot = timer_slot_of(l, timer);
	struct timer_slot *s;

	if (slot == SLOT_NONE)
		return -ENOENT;
	s = &l->slots[slot];
	s->deadline = hipd_now_ns() + delay_ns;
	s->seq = l->next_seq++;
	heap_up(l, s->heap_pos);
	heap_down(l, s->heap_pos);
	return 0;
}

bool hip_loop_timer_pending(const struct hip_loop *l, uint64_t timer)
{
	return timer_slot_of(l, timer) != SLOT_NONE;
}

uint64_t hip_loop_timer_deadline(const struct hip_loop *l, uint64_t timer)
{
	uint32_t slot = timer_slot_of(l, timer);

	return slot == SLOT_NONE ? 0 : l->slots[slot].deadline;
}

size_t hip_loop_timer_count(const struct hip_loop *l)
{
	return l->heap_len;
}

/* Run the timers due at the start of this phase, earliest first. */
static int run_timers(struct hip_loop *l)
{
	uint64_t now = hipd_now_ns(), seq_limit = l->next_seq;
	int ran = 0;

	while (l->heap_len > 0 && !l->stop) {
		uint32_t slot = l->heap[0];
		struct timer_slot *s = &l->slots[slot];
		uint64_t handle = (uint64_t)s->gen << 32 | (slot + 1);
		hip_loop_timer_cb cb = s->cb;
		void *arg = s->arg;

		if (s->deadline > now || s->seq >= seq_limit)
			break;
		heap_remove(l, 0);
		slot_free(l, slot);
		cb(l, handle, arg);
		ran++;
	}
	return ran;
}

/* ---- signals ---- */

static void signalfd_ready(struct hip_loop *l, int fd, uint32_t events, void *arg)
{
	struct signalfd_siginfo si;

	while (!l->stop && read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		struct signal_entry *e;

		if (si.ssi_signo >= (uint32_t)_NSIG)
			continue;
		e = &l->signals[si.ssi_signo];
		if (e->cb)
			e->cb(l, &si, e->arg);
	}
}

int hip_loop_signal_add(struct hip_loop *l, int signo, hip_loop_signal_cb cb, void *arg)
{
	sigset_t block;
	int fd, err;

	if (signo <= 0 || signo >= _NSIG || !cb)
		return -EINVAL;
	if (l->signals[signo].cb)
		return -EEXIST;
	if (sigaddset(&l->sigmask, signo) != 0)
		return -EINVAL;
	/* Block before the signalfd exists, so no instance is lost between. */
	sigemptyset(&block);
	sigaddset(&block, signo);
	if (sigprocmask(SIG_BLOCK, &block, l->sigmask_saved ? NULL : &l->old_sigmask) != 0) {
		err = -errno;
		goto fail;
	}
	l->sigmask_saved = true;
	fd = signalfd(l->sigfd, &l->sigmask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto fail;
	}
	if (l->sigfd < 0) {
		err = hip_loop_fd_add(l, fd, EPOLLIN, signalfd_ready, NULL);
		if (err) {
			close(fd);
			goto fail;
		}
		l->sigfd = fd;
	}
	l->signals[signo].cb = cb;
	l->signals[signo].arg = arg;
	return 0;
fail:
	sigdelset(&l->sigmask, signo);
	return err;
}

/* A signalfd wakes the epoll waiters of the process that added it to the
 * epoll set (its wait queue is that process's signal queue): a child after
 * fork() must add it again to be woken by its own signals. */
int hip_loop_forked(struct hip_loop *l)
{
	if (l->sigfd < 0)
		return 0;
	hip_loop_fd_remove(l, l->sigfd);
	return hip_loop_fd_add(l, l->sigfd, EPOLLIN, signalfd_ready, NULL);
}

/* ---- dispatch ---- */

static int next_timeout_ms(const struct hip_loop *l, int timeout_ms)
{
	uint64_t now, deadline, ms;

	if (l->heap_len == 0)
		return timeout_ms;
	now = hipd_now_ns();
	deadline = l->slots[l->heap[0]].deadline;
	/* round up: waking early would just spin once more */
	ms = deadline <= now ? 0 : (deadline - now + 999999) / 1000000;
	if (ms > INT_MAX)
		ms = INT_MAX;
	if (timeout_ms >= 0 && (uint64_t)timeout_ms < ms)
		return timeout_ms;
	return (int)ms;
}

int hip_loop_run_once(struct hip_loop *l, int timeout_ms)
{
	struct epoll_event ev[LOOP_EVENTS_MAX];
	int n, i, ran = 0;

	l->stop = false;   /* a round was asked for; a stop inside it cuts it short */
	n = epoll_wait(l->epfd, ev, LOOP_EVENTS_MAX, next_timeout_ms(l, timeout_ms));
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (i = 0; i < n && !l->stop; i++) {
		int fd = (int)(uint32_t)ev[i].data.u64;
		uint32_t gen = (uint32_t)(ev[i].data.u64 >> 32);
		struct fd_entry *e;

		if ((size_t)fd >= l->n_fds)
			continue;
		e = &l->fds[fd];
		if (!e->used || e->gen != gen)
			continue;   /* removed by an earlier callback this round */
		e->cb(l, fd, ev[i].events, e->arg);
		ran++;
	}
	if (!l->stop)
		ran += run_timers(l);
	return ran;
}

int hip_loop_run(struct hip_loop *l)
{
	/* A stop requested before (a SIGTERM during startup) is kept. */
	while (!l->stop) {
		int r = hip_loop_run_once(l, -1);

		if (r < 0)
			return r;
	}
	return 0;
}

void hip_loop_stop(struct hip_loop *l)
{
	l->stop = true;
}

bool hip_loop_stopped(const struct hip_loop *l)
{
	return l->stop;
}
