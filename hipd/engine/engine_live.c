/*
 * engine_live.c - the peer liveness tick (docs/decisions.md D-13): once
 * a second each ESTABLISHED association with SAs is looked at with its
 * SAs' packet counts (update/update_live.c decides whether to probe).
 * peer_timeout_seconds = 0 turns it off.
 */
#include <errno.h>

#include "datapath/datapath.h"
#include "engine_int.h"
#include "engine/update/update.h"

enum {
	LIVE_TICK_S = 1,
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
	/* the LSI pair's packets count too (D-22): IPv4 alone keeps a peer alive */
	if (ha->lsi && ha->lsi->dp_spi_out && ha->lsi->dp_spi_in) {
		struct hip_esp_sa_stats lo, li;

		if (dp->ops->sa_stats(dp, ha->lsi->dp_spi_out, false, &lo) == 0 &&
		    dp->ops->sa_stats(dp, ha->lsi->dp_spi_in, true, &li) == 0) {
			out.packets += lo.packets;
			in.packets += li.packets;
		}
	}
	upd_liveness_check(d, ha, out.packets, in.packets, hipd_now_ns(),
			   (uint64_t)d->conf.peer_timeout_seconds * ENG_NS_PER_S);
	return 0;
}

static void live_tick(struct hip_loop *loop, uint64_t timer, void *arg)
{
	struct hipd *d = arg;

	(void)timer;
	if (d->conf.peer_timeout_seconds && d->engine->dp)
		hadb_foreach(d->hadb, live_one, d);
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
