/*
 * udp_peer_seen.h - a datapath_events.udp_peer callback for the unit
 * suites that check NAT mapping reports (check_xfrm.c: the kernel's
 * XFRM_MSG_MAPPING; check_priv.c: PRIV_EV_MAPPING): it records the last
 * report and counts them.
 */
#ifndef HIPD_TEST_UDP_PEER_SEEN_H
#define HIPD_TEST_UDP_PEER_SEEN_H

#include <stdint.h>

#include "datapath/datapath.h"

struct map_seen {
	int n;
	uint32_t spi;
	uint16_t port;
	struct hip_addr addr;
};

static inline void on_udp_peer(void *arg, uint32_t spi, const struct hip_addr *src,
			       uint16_t sport)
{
	struct map_seen *m = arg;

	m->n++;
	m->spi = spi;
	m->port = sport;
	m->addr = *src;
}

#endif
