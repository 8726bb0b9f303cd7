/*
 * puzzle_k.c - the Responder's puzzle difficulty (RFC 7401 §4.1.1, §7;
 * docs/requirements.md P-05, D-02): every second the load of that second
 * is compared with i1_rate_threshold. Above it K goes up by one (up to
 * puzzle_k_max_auto); after ENG_K_DECAY_S quiet seconds (below half the
 * threshold) it goes down by one, back to the configured or hipconf-set K.
 * The same tick replaces R1 DH keys that completed an exchange
 * (docs/requirements.md D-04).
 *
 * The load is the I1s answered plus ENG_I2_LOAD_WEIGHT times the I2s that
 * failed after their puzzle was verified (§4.1.1: K follows the Responder's
 * load; D-15). Such an I2 cost a DH derivation and more (T3, some 300 us
 * in bench/README.md, against a few us per R1), and a flood of them need
 * not come with as many I1s (one R1 answered many times). A legitimate
 * exchange's I2 does not fail, and its I1 was counted already. More
 * failed and refused I2s in a second than i1_rate_threshold is an I2
 * flood: puzzles whose I2s failed are refused for I2_GUARD_HOLD_S from
 * then (i2guard.h).
 */
#include <errno.h>
#include <inttypes.h>

#include "exchange.h"
#include "i2guard.h"

enum { ENG_K_DECAY_S = 5, ENG_I2_LOAD_WEIGHT = 16 };

void eng_count_i1(struct hipd *d)
{
	d->engine->i1_this_second++;
}

void eng_count_bad_i2(struct hipd *d)
{
	d->engine->i2_this_second++;
}

static void k_tick_fired(struct hip_loop *loop, uint64_t timer, void *arg)
{
	struct hipd *d = arg;
	struct hipd_engine *e = d->engine;
	uint64_t rate = e->i1_this_second, i2 = e->i2_this_second, now = hipd_now_ns();
	uint64_t load = rate + ENG_I2_LOAD_WEIGHT * i2;
	unsigned max = d->conf.puzzle_k_max_auto > e->k_base ? d->conf.puzzle_k_max_auto
							     : e->k_base;
	struct hidb_entry *me;
	size_t i;

	(void)timer;
	/* an I2 flood: refuse puzzles of failed I2s for a while (i2guard.h) */
	if (i2 + e->i2_refused_this_second > d->conf.i1_rate_threshold) {
		if (!i2_guard_holding(&e->i2_guard, now))
			log_notice("I2 flood (%" PRIu64 " failed I2/s): refusing puzzles whose "
				   "I2s failed", i2);
		i2_guard_hold(&e->i2_guard, now);
	}
	e->i1_this_second = 0;
	e->i2_this_second = 0;
	e->i2_refused_this_second = 0;
	d->stats->i1_rate_per_s = rate;
	if (d->conf.puzzle_auto && load > d->conf.i1_rate_threshold) {
		e->k_idle_ticks = 0;
		if (d->puzzle_k < max && d->puzzle_k < HIP_PUZZLE_K_MAX) {
			d->puzzle_k++;
			log_notice("puzzle K raised to %u (%" PRIu64 " I1/s, %" PRIu64
				   " failed I2/s)",
				   d->puzzle_k, rate, i2);
		}
	} else if (load <= d->conf.i1_rate_threshold / 2) {
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
