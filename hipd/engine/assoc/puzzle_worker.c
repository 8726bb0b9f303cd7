/*
 * puzzle_worker.c - the Initiator's puzzle search on a second thread
 * (puzzle_worker.h). A mutex and two condition variables hand one job over
 * and back; the search itself shares only an atomic stop flag, which the
 * solver reads every few dozen trials (hip_puzzle_solve_stoppable).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "puzzle_worker.h"

struct puzzle_worker {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv_job;        /* a job or quit for the worker */
	pthread_cond_t cv_idle;       /* the worker left its job */
	/* under mu */
	struct puzzle_task task;
	bool pending;                 /* submitted, not picked up yet */
	bool busy;                    /* the worker is searching */
	bool quit;
	bool started;                 /* the thread runs (its libc set-up done) */
	int result;                   /* the worker's: 0, -ETIMEDOUT, -ECANCELED */
	uint8_t j[HIP_RHASH_MAX_LEN]; /* its solution when result is 0 */
	uint64_t by_worker, by_joiner;
	/* atomic: the job is over (solved by either, out of time, cancelled) */
	int stop;
};

static void *worker_main(void *arg)
{
	struct puzzle_worker *w = arg;
	struct puzzle_task t;
	uint8_t j[HIP_RHASH_MAX_LEN];
	int r;

	pthread_mutex_lock(&w->mu);
	w->started = true;
	pthread_cond_signal(&w->cv_idle);
	for (;;) {
		while (!w->pending && !w->quit)
			pthread_cond_wait(&w->cv_job, &w->mu);
		if (w->quit)
			break;
		t = w->task;
		w->pending = false;
		w->busy = true;
		pthread_mutex_unlock(&w->mu);
		r = hip_puzzle_solve_stoppable(t.rhash, t.k, t.i, t.hit_i, t.hit_r, t.j_start,
					       t.deadline_ns, &w->stop, j, NULL);
		/* Solved or out of time: the joiner stops too. */
		__atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
		pthread_mutex_lock(&w->mu);
		w->result = r;
		if (r == 0)
			memcpy(w->j, j, sizeof(j));
		w->busy = false;
		pthread_cond_signal(&w->cv_idle);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

int puzzle_worker_start(struct puzzle_worker **out)
{
	struct puzzle_worker *w = calloc(1, sizeof(*w));
	sigset_t all, old;
	int r;

	*out = NULL;
	if (!w)
		return -ENOMEM;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv_job, NULL);
	pthread_cond_init(&w->cv_idle, NULL);
	w->result = -ECANCELED;
	/* Signals stay with the engine's thread (its signalfd). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&w->thread, NULL, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		pthread_cond_destroy(&w->cv_idle);
		pthread_cond_destroy(&w->cv_job);
		pthread_mutex_destroy(&w->mu);
		free(w);
		return -r;
	}
	/* Running before a seccomp filter comes (libc's own set-up of a new
	 * thread makes system calls the filter does not allow). */
	pthread_mutex_lock(&w->mu);
	while (!w->started)
		pthread_cond_wait(&w->cv_idle, &w->mu);
	pthread_mutex_unlock(&w->mu);
	*out = w;
	return 0;
}

/* Under mu: until the worker has neither a job waiting nor one running. */
static void wait_idle(struct puzzle_worker *w)
{
	while (w->pending || w->busy)
		pthread_cond_wait(&w->cv_idle, &w->mu);
}

void puzzle_worker_stop(struct puzzle_worker *w)
{
	if (!w)
		return;
	__atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&w->mu);
	w->quit = true;
	pthread_cond_signal(&w->cv_job);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->cv_idle);
	pthread_cond_destroy(&w->cv_job);
	pthread_mutex_destroy(&w->mu);
	free(w);
}

int puzzle_worker_submit(struct puzzle_worker *w, const struct puzzle_task *t)
{
	int ret = 0;

	pthread_mutex_lock(&w->mu);
	if (w->pending || w->busy) {
		ret = -EBUSY;
		goto out;
	}
	w->task = *t;
	w->result = -ECANCELED;
	__atomic_store_n(&w->stop, 0, __ATOMIC_RELEASE);
	w->pending = true;
	pthread_cond_signal(&w->cv_job);
out:
	pthread_mutex_unlock(&w->mu);
	return ret;
}

int puzzle_worker_finish(struct puzzle_worker *w, uint8_t *j_out)
{
	/* Only this thread writes the task: reading it unlocked is safe. */
	const struct puzzle_task *t = &w->task;
	size_t n = hip_rhash_len(t->rhash);
	uint8_t j_start[HIP_RHASH_MAX_LEN];
	int r;

	/* From the other half of the J space: the two never overlap in the
	 * time a puzzle can take. */
	memcpy(j_start, t->j_start, sizeof(j_start));
	j_start[0] ^= 0x80;
	r = hip_puzzle_solve_stoppable(t->rhash, t->k, t->i, t->hit_i, t->hit_r, j_start,
				       t->deadline_ns, &w->stop, j_out, NULL);
	if (r == 0)
		__atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&w->mu);
	wait_idle(w);
	if (r == 0) {
		w->by_joiner++;
	} else if (w->result == 0) {
		memcpy(j_out, w->j, n);
		w->by_worker++;
		r = 0;
	} else if (r == -ECANCELED) {
		/* stopped by the worker, which did not solve it: its deadline */
		r = w->result == -ECANCELED ? -ETIMEDOUT : w->result;
	}
	pthread_mutex_unlock(&w->mu);
	return r;
}

void puzzle_worker_cancel(struct puzzle_worker *w)
{
	if (!w)
		return;
	__atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&w->mu);
	wait_idle(w);
	pthread_mutex_unlock(&w->mu);
}

void puzzle_worker_counts(const struct puzzle_worker *w, uint64_t *by_worker,
			  uint64_t *by_joiner)
{
	struct puzzle_worker *m = (struct puzzle_worker *)w;

	pthread_mutex_lock(&m->mu);
	*by_worker = w->by_worker;
	*by_joiner = w->by_joiner;
	pthread_mutex_unlock(&m->mu);
}
