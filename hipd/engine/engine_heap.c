/*
 * engine_heap.c - the engine's heap housekeeping: once a minute, the free
 * pages glibc holds are handed back to the kernel.
 *
 * A daemon that runs for months: exchanges, retransmission copies and kept
 * first packets are freed in an order that leaves free chunks between live
 * ones, which glibc keeps resident (it only trims the top of the heap), so
 * the resident set creeps up to every new high-water mark. malloc_trim gives
 * the free pages back (bench/soak.sh measures RSS growth, issue 14).
 */
#include <errno.h>
#include <malloc.h>

#include "engine_int.h"

enum {
	HEAP_TRIM_S = 60,                /* a trim a minute at most */
	HEAP_TRIM_MIN_FREE = 64 * 1024,  /* less held free is not worth a syscall */
};

static void heap_trim_fired(struct hip_loop *loop, uint64_t timer, void *arg)
{
	struct hipd *d = arg;

	(void)timer;
	if (mallinfo2().fordblks >= HEAP_TRIM_MIN_FREE)
		malloc_trim(0);
	d->engine->heap_timer = hip_loop_timer_add(loop, HEAP_TRIM_S * ENG_NS_PER_S,
						   heap_trim_fired, d);
}

int eng_heap_start(struct hipd *d)
{
	d->engine->heap_timer = hip_loop_timer_add(d->loop, HEAP_TRIM_S * ENG_NS_PER_S,
						   heap_trim_fired, d);
	return d->engine->heap_timer ? 0 : -ENOMEM;
}

void eng_heap_stop(struct hipd *d)
{
	if (d->engine->heap_timer)
		hip_loop_timer_cancel(d->loop, d->engine->heap_timer);
	d->engine->heap_timer = 0;
}
