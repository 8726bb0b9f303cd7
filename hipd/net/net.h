/*
 * net.h - the public face of hipd/net/: raw HIP sockets (sock.h), the
 * host's own locators (locset.h) and their rtnetlink watch (addrwatch.h),
 * the default routes (defroute.h),
 * the HIT -> locator map of the hosts file and hipconf (hosts.h), ICMP
 * Parameter Problems about HIP and ESP (icmp.h).
 */
#ifndef HIPD_NET_H
#define HIPD_NET_H

#include "addrwatch.h"
#include "defroute.h"
#include "hosts.h"
#include "icmp.h"
#include "known_hosts.h"
#include "locset.h"
#include "lsi_export.h"
#include "lsi_host.h"
#include "sock.h"
#include "udp.h"

#endif
