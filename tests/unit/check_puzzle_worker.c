/*
 * check_puzzle_worker.c - the Initiator's puzzle search on a second thread
 * (hipd/engine/assoc/puzzle_worker.c) and the stoppable solver under it: solutions that
 * verify, cancellation, the puzzle lifetime, and base exchanges whose
 * Initiator searches on two threads, including an R1 that fails its
 * signature check while the thread searches.
 */
#include <check.h>
#include <errno.h>
#include <string.h>
#include <time.h>

#include "bex_harness.h"
#include "packet.h"
#include "params.h"
#include "engine/assoc/puzzle_worker.h"
#include "unit.h"

#define A(n) (&(n)->h[0])
#define B(n) (&(n)->h[1])

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void task_random(struct puzzle_task *t, unsigned k)
{
	memset(t, 0, sizeof(*t));
	t->rhash = HIP_RHASH_SHA384;
	t->k = k;
	ck_assert_int_eq(hip_random(t->i, 48), 0);
	ck_assert_int_eq(hip_random(t->hit_i, 16), 0);
	ck_assert_int_eq(hip_random(t->hit_r, 16), 0);
	ck_assert_int_eq(hip_random(t->j_start, 48), 0);
}

START_TEST(test_stoppable_solver)
{
	struct puzzle_task t;
	uint8_t j[48];
	uint64_t trials = 1;
	int stop = 1;

	task_random(&t, 12);
	ck_assert_int_eq(hip_puzzle_solve_stoppable(t.rhash, t.k, t.i, t.hit_i, t.hit_r,
						    t.j_start, 0, &stop, j, &trials),
			 -ECANCELED);
	ck_assert_uint_eq(trials, 0);
	ck_assert_int_eq(hip_puzzle_solve_stoppable(t.rhash, t.k, t.i, t.hit_i, t.hit_r,
						    t.j_start, 0, NULL, j, NULL), -EINVAL);
	stop = 0;
	ck_assert_int_eq(hip_puzzle_solve_stoppable(t.rhash, t.k, t.i, t.hit_i, t.hit_r,
						    t.j_start, 0, &stop, j, &trials), 0);
	ck_assert_uint_gt(trials, 0);
	ck_assert_int_eq(hip_puzzle_verify(t.rhash, t.k, t.i, t.hit_i, t.hit_r, j), 0);
}
END_TEST

/* Every answer verifies; both threads find some (the joiner starts at once
 * here, with nothing else to do). */
START_TEST(test_worker_solves)
{
	struct puzzle_worker *w;
	struct puzzle_task t;
	uint64_t by_w, by_j;
	uint8_t j[48];
	unsigned i;

	ck_assert_int_eq(puzzle_worker_start(&w), 0);
	for (i = 0; i < 24; i++) {
		task_random(&t, 10);
		ck_assert_int_eq(puzzle_worker_submit(w, &t), 0);
		memset(j, 0, sizeof(j));
		ck_assert_int_eq(puzzle_worker_finish(w, j), 0);
		ck_assert_int_eq(hip_puzzle_verify(t.rhash, t.k, t.i, t.hit_i, t.hit_r, j), 0);
	}
	puzzle_worker_counts(w, &by_w, &by_j);
	ck_assert_uint_eq(by_w + by_j, 24);
	puzzle_worker_stop(w);
}
END_TEST

/* K = 28 (hours of hashing): a cancel returns at once and the worker takes
 * the next job; the lifetime ends a search with -ETIMEDOUT. */
START_TEST(test_worker_cancel_and_deadline)
{
	struct puzzle_worker *w;
	struct puzzle_task t;
	uint8_t j[48];
	uint64_t t0;

	ck_assert_int_eq(puzzle_worker_start(&w), 0);
	task_random(&t, 28);
	ck_assert_int_eq(puzzle_worker_submit(w, &t), 0);
	ck_assert_int_eq(puzzle_worker_submit(w, &t), -EBUSY);   /* one job at a time */
	t0 = mono_ns();
	puzzle_worker_cancel(w);
	ck_assert_uint_lt(mono_ns() - t0, 500000000u);
	puzzle_worker_cancel(w);   /* nothing in progress: a no-op */

	task_random(&t, 28);
	t.deadline_ns = mono_ns() + 50000000u;     /* 50 ms */
	ck_assert_int_eq(puzzle_worker_submit(w, &t), 0);
	t0 = mono_ns();
	ck_assert_int_eq(puzzle_worker_finish(w, j), -ETIMEDOUT);
	ck_assert_uint_lt(mono_ns() - t0, 2000000000u);

	task_random(&t, 6);
	ck_assert_int_eq(puzzle_worker_submit(w, &t), 0);
	ck_assert_int_eq(puzzle_worker_finish(w, j), 0);
	ck_assert_int_eq(hip_puzzle_verify(t.rhash, t.k, t.i, t.hit_i, t.hit_r, j), 0);
	puzzle_worker_stop(w);
	puzzle_worker_stop(NULL);
}
END_TEST

/* A stopped worker with a job in progress: stop cancels it. */
START_TEST(test_worker_stop_busy)
{
	struct puzzle_worker *w;
	struct puzzle_task t;

	ck_assert_int_eq(puzzle_worker_start(&w), 0);
	task_random(&t, 28);
	ck_assert_int_eq(puzzle_worker_submit(w, &t), 0);
	puzzle_worker_stop(w);
}
END_TEST

static uint64_t solved(struct bex_host *h)
{
	uint64_t by_w, by_j;

	puzzle_worker_counts(h->d.engine->puzzle_worker, &by_w, &by_j);
	return by_w + by_j;
}

/* Base exchanges at K = 10 with the Initiator's puzzle thread: they
 * complete, the solutions came from the threads, and an R1 whose signature
 * fails while the thread searches is dropped, the search abandoned (the
 * thread takes the genuine R1's search next). */
START_TEST(test_bex_with_worker)
{
	struct bex_opts o = { .k = 10 };
	struct bex_net n;
	struct bex_pkt r1, bad;
	struct hip_packet p;
	const struct hip_param_ref *r;

	bex_net_init(&n, &o, &o);
	ck_assert_int_eq(puzzle_worker_start(&A(&n)->d.engine->puzzle_worker), 0);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert_int_eq(bex_deliver_one(&n), HIP_I1);
	ck_assert(bex_take(&n, 1, HIP_R1, &r1));
	ck_assert_int_eq(hip_packet_parse(r1.buf, r1.len, &p), 0);
	r = hip_packet_find(&p, HIP_PARAM_HIP_SIGNATURE_2);
	ck_assert_ptr_nonnull(r);
	bad = r1;
	bad.buf[r->off + HIP_TLV_HDR_LEN + 9] ^= 0x01;
	bex_inject(&n, 0, bad.buf, bad.len, &bad.src, &bad.dst);
	ck_assert_uint_eq(A(&n)->d.stats->drop[HIPD_DROP_BAD_SIGNATURE], 1);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_I1_SENT);
	ck_assert_uint_eq(solved(A(&n)), 0);
	bex_inject(&n, 0, r1.buf, r1.len, &r1.src, &r1.dst);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_I2_SENT);
	ck_assert_uint_eq(solved(A(&n)), 1);
	bex_run(&n, 20);
	bex_fire(B(&n));
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_ESTABLISHED);
	ck_assert_int_eq(bex_state(B(&n)), HIP_STATE_ESTABLISHED);
	ck_assert_uint_eq(A(&n)->d.stats->drop[HIPD_DROP_PUZZLE_FAILED], 0);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_PUZZLE_FAILED], 0);
	bex_net_free(&n);
}
END_TEST

static Suite *puzzle_worker_suite(void)
{
	Suite *s = suite_create("puzzle_worker");
	TCase *t = tcase_create("worker");

	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_stoppable_solver);
	tcase_add_test(t, test_worker_solves);
	tcase_add_test(t, test_worker_cancel_and_deadline);
	tcase_add_test(t, test_worker_stop_busy);
	suite_add_tcase(s, t);
	t = tcase_create("bex");
	tcase_set_timeout(t, 60);
	tcase_add_unchecked_fixture(t, bex_tmp_setup, bex_tmp_teardown);
	tcase_add_test(t, test_bex_with_worker);
	suite_add_tcase(s, t);
	return s;
}

UNIT_MAIN(puzzle_worker_suite)
