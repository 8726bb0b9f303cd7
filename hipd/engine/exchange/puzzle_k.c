/*
 * puzzle_k.c - the Responder's puzzle difficulty (RFC 7401 §4.1.1, §7;
 * docs/requirements.md P-05, D-02): every second the number of I1s answered
 * in that second is compared with i1_rate_threshold. Above it K goes up by
 * one (up to puzzle_k_max_auto); after ENG_K_DECAY_S quiet seconds (below
 * half the threshold) it goes down by one, back to the configured or
 * hipconf-set K. The same tick replaces R1 DH keys that completed an
 * exchange (docs/requirements.md D-04).
 */
#include <errno.h>
#include <inttypes.h>

#include "exchange.h"

enum { ENG_K_DECAY_S = 5 };

void eng_count_i1(struct hipd *d)
{
	d->engine->i1_this_second++;
}

static void k_tick_fired(struct hip_loop *loop, uint64_t timer, void *arg)
{
	struct hipd *d = arg;
	struct hipd_engine *e = d->engine;
	uint64_t rate = e->i1_this_second, now = hipd_now_ns();
	unsigned max = d->conf.puzzle_k_max_auto > e->k_base ? d->conf.puzzle_k_max_auto
							     : e->k_base;
	struct hidb_entry *me;
	size_t i;

	(void)timer;
	e->i1_this_second = 0;
	d->stats->i1_rate_per_s = rate;
	if (d->conf.puzzle_auto && rate > d->conf.i1_rate_threshold) {
		e->k_idle_ticks = 0;
		if (d->puzzle_k < max && d->puzzle_k < HIP_PUZZLE_K_MAX) {
			d->puzzle_k++;
			log_notice("puzzle K raised to %u (%" PRIu64 " I1/s)", d->puzzle_k, rate);
		}
	} else if (rate <= d->conf.i1_rate_threshold / 2) {
		if (d->puzzle_k > e->k_base && ++e->k_idle_ticks >= ENG_K_DECAY_S) {
			e->k_idle_ticks = 0;
			d->puzzle_k--;
			log_notice("puzzle K lowered to %u", d->puzzle_k);
		}
	}
	d->stats->puzzle_k_current = d->puzzle_k;
	/* D-04: replace R1 DH keys that completed an exchange. */
	for (i = 0; (me = hidb_at(d->hidb, i)); i++)
		r1cache_tick(me->r1, now);
	e->k_timer = hip_loop_timer_add(loop, ENG_NS_PER_S, k_tick_fired, d);
}

void eng_puzzle_k_set(struct hipd *d, unsigned k)
{
	d->engine->k_base = k;
	d->engine->k_idle_ticks = 0;
	d->puzzle_k = k;
	d->stats->puzzle_k_current = k;
	log_notice("puzzle K set to %u", k);
}

int eng_puzzle_k_start(struct hipd *d)
{
	d->engine->k_timer = hip_loop_timer_add(d->loop, ENG_NS_PER_S, k_tick_fired, d);
	return d->engine->k_timer ? 0 : -ENOMEM;
}

void eng_puzzle_k_stop(struct hipd *d)
{
	if (d->engine->k_timer)
		hip_loop_timer_cancel(d->loop, d->engine->k_timer);
	d->engine->k_timer = 0;
}
