/*
 * drop.c - every dropped packet is counted once (stats.h) and logged at
 * most ENG_DROP_LOG_BURST times a second (RFC 7401 §5.4: silent drops are
 * not answered, but an operator sees them).
 */
#include <stdio.h>

#include "assoc.h"
#include "engine/engine_int.h"
#include "hit.h"

static const char *rx_type_name(const struct eng_rx *rx)
{
	return rx && rx->pkt ? hip_packet_type_name(rx->pkt->type) : "event";
}

int eng_drop(struct hipd *d, const struct eng_rx *rx, enum hipd_drop why,
	     const char *detail)
{
	char addr[INET6_ADDRSTRLEN] = "-", hit[HIP_HIT_STR_LEN] = "-";
	unsigned suppressed = 0;

	hipd_drop_count(d->stats, why);
	/* Decide before formatting: under a flood most lines are skipped. */
	if (!log_enabled(LOG_INFO) ||
	    !log_ratelimit_check(&d->engine->drop_log, hipd_now_ns(), &suppressed))
		return ENG_DROPPED;
	if (suppressed)
		log_info("%u similar messages suppressed", suppressed);
	if (rx && rx->src)
		hip_addr_to_str(rx->src, addr, sizeof(addr));
	if (rx && rx->pkt)
		hip_hit_to_str(&rx->pkt->hit_sender, hit, sizeof(hit));
	log_info("drop %s from %s (%s): %s%s%s", rx_type_name(rx), addr, hit,
		 hipd_drop_name(why), detail ? ": " : "", detail ? detail : "");
	return ENG_DROPPED;
}
