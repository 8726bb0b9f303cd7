/*
 * engine_live.c - the peer liveness tick (docs/decisions.md D-13): once
 * a second each ESTABLISHED association with SAs is looked at with its
 * SAs' packet counts (update/update_live.c decides whether to probe).
 * peer_timeout_seconds = 0 turns it off. Once a minute the same tick
 * hands the heap's free pages back to the kernel.
 */
#include <errno.h>
#include <malloc.h>

#include "datapath/datapath.h"
#include "engine_int.h"
#include "engine/update/update.h"

enum {
	LIVE_TICK_S = 1,
	HEAP_TRIM_TICKS = 60,            /* a trim a minute at most */
	HEAP_TRIM_MIN_FREE = 64 * 1024,  /* less held free is not worth a syscall */
};

static int live_one(struct hip_ha *ha, void *arg)
{
	struct hipd *d = arg;
	struct datapath *dp = d->engine->dp;
	struct hip_esp_sa_stats out, in;

	if (ha->state != HIP_STATE_ESTABLISHED || !ha->dp_spi_out || !ha->dp_spi_in ||
	    dp->ops->sa_stats(dp, ha->dp_spi_out, false, &out) < 0 ||
	    dp->ops->sa_stats(dp, ha->dp_spi_in, true, &in) < 0)
		return 0;
	upd_liveness_check(d, ha, out.packets, in.packets, hipd_now_ns(),
			   (uint64_t)d->conf.peer_timeout_seconds * ENG_NS_PER_S);
	return 0;
}

/* A daemon that runs for months: exchanges, retransmission copies and kept
 * first packets are freed in an order that leaves free chunks between live
 * ones, which glibc keeps resident (it only trims the top of the heap), so
 * the resident set creeps up to every new high-water mark. malloc_trim gives
 * the free pages back (bench/soak.sh measures RSS growth, issue 14). */
static void heap_trim(struct hipd_engine *e)
{
	if (++e->live_ticks < HEAP_TRIM_TICKS)
		return;
	e->live_ticks = 0;
	if (mallinfo2().fordblks >= HEAP_TRIM_MIN_FREE)
		malloc_trim(0);
}

static void live_tick(struct hip_loop *loop, uint64_t timer, void *arg)
{
	struct hipd *d = arg;

	(void)timer;
	if (d->conf.peer_timeout_seconds && d->engine->dp)
		hadb_foreach(d->hadb, live_one, d);
	heap_trim(d->engine);
	d->engine->live_timer = hip_loop_timer_add(loop, LIVE_TICK_S * ENG_NS_PER_S, live_tick, d);
}

int eng_live_start(struct hipd *d)
{
	d->engine->live_timer = hip_loop_timer_add(d->loop, LIVE_TICK_S * ENG_NS_PER_S,
						   live_tick, d);
	return d->engine->live_timer ? 0 : -ENOMEM;
}

void eng_live_stop(struct hipd *d)
{
	if (d->engine->live_timer)
		hip_loop_timer_cancel(d->loop, d->engine->live_timer);
	d->engine->live_timer = 0;
}
