/*
 * lsi_host.h - does an LSI range collide with the host's own networks?
 * (hipd.conf lsi_range, docs/decisions.md D-20). Reads the IPv4 routes of
 * every table and the IPv4 addresses with rtnetlink dumps: read-only, no
 * capability needed.
 */
#ifndef HIPD_LSI_HOST_H
#define HIPD_LSI_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "lsi_derive.h"

/* hipd's TUN device (datapath/tun.h TUN_DEFAULT_NAME): routes to LSIs on
 * it are hipd's own. */
#define LSI_HOST_OWN_DEV "hip0"

/* 0 if range overlaps none of the host's IPv4 routes and addresses
 * (default routes and routes on own_dev, hipd's device, do not count);
 * -EADDRINUSE with the message in err if it does; other -errno if the
 * tables cannot be read. */
int lsi_host_check_range(const struct hip_lsi_range *range, const char *own_dev, char *err,
			 size_t errlen);

/* Parse one rtnetlink dump reply buf[0..len) (RTM_NEWROUTE, RTM_NEWADDR
 * messages; others are skipped) into rt (at most max, *n updated).
 * Returns 1 at NLMSG_DONE, 0 to read on, -errno for an error reply or a
 * malformed message. Exposed for tests and the fuzzer. */
int lsi_host_parse_dump(const uint8_t *buf, size_t len, struct hip_lsi_route *rt, size_t max,
			size_t *n);

#endif
