/*
 * puzzle_worker.h - the Initiator's puzzle search on a second thread.
 *
 * The puzzle (RFC 7401 §6.8 step 9) is the Initiator's longest step; the
 * R1 signature check, the Kij derivation and the other checks of §6.8 do not
 * need its result. With a second CPU the search starts as soon as the R1 is
 * parsed and runs beside them; the engine then joins the search from the
 * other end of the J space until one of the two finds a solution. Nothing is
 * sent, and no solution used, before every check of §6.8 has passed; an R1
 * that fails one cancels the search (within ~10 us).
 *
 * One job at a time, owned by the engine's thread; the worker only reads
 * the job and writes its result.
 */
#ifndef HIPD_PUZZLE_WORKER_H
#define HIPD_PUZZLE_WORKER_H

#include <stdint.h>

#include "hip_crypto.h"

struct puzzle_worker;

struct puzzle_task {
	enum hip_rhash rhash;
	unsigned k;
	uint8_t i[HIP_RHASH_MAX_LEN];
	uint8_t hit_i[16], hit_r[16];
	uint8_t j_start[HIP_RHASH_MAX_LEN];  /* the worker's; the joiner flips bit 0 */
	uint64_t deadline_ns;                 /* CLOCK_MONOTONIC, 0 = none */
};

/* Starts the thread (all signals blocked in it). -errno on failure. */
int puzzle_worker_start(struct puzzle_worker **out);
/* Stops and joins the thread (a job in progress is cancelled). */
void puzzle_worker_stop(struct puzzle_worker *w);
/* Starts searching t in the background. -EBUSY if a job is in progress. */
int puzzle_worker_submit(struct puzzle_worker *w, const struct puzzle_task *t);
/* Searches too, until either thread has a solution (0, J in j_out) or the
 * deadline passed (-ETIMEDOUT); the worker has left the job on return. */
int puzzle_worker_finish(struct puzzle_worker *w, uint8_t *j_out);
/* Abandons the job in progress, if any, and waits for the worker to leave it. */
void puzzle_worker_cancel(struct puzzle_worker *w);
/* Solutions found by the worker / by the joining thread (statistics). */
void puzzle_worker_counts(const struct puzzle_worker *w, uint64_t *by_worker,
			  uint64_t *by_joiner);

#endif
