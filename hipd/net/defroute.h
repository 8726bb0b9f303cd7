/*
 * defroute.h - the host's default routes, as rtnetlink reports them
 * (RTM_NEWROUTE / RTM_DELROUTE events and an RTM_GETROUTE dump; addrwatch.c
 * reads the socket and hands each route message here).
 *
 * Why hipd follows them: behind a NAT the path to a peer is the NAT the
 * default route leads to. When the default route moves to another
 * uplink while the host's addresses stay (a laptop whose Wi-Fi gives way
 * to LTE, or the address came first and the route later, as with DHCP),
 * no address event comes, yet the peer can no longer reach us through
 * the old NAT. The UPDATE code re-announces then (RFC 9028 §4.9).
 *
 * Only unicast routes of the main table with prefix length 0 count. The
 * active one of a family is the one with the lowest metric, as the
 * kernel chooses.
 */
#ifndef HIPD_DEFROUTE_H
#define HIPD_DEFROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "checksum.h"

enum {
	DEFROUTE_MAX = 16,              /* default routes kept per host */
};

/* A default route: where it leaves and the source the kernel prefers. */
struct defroute_entry {
	uint8_t         family;         /* AF_INET or AF_INET6 */
	int             oif;            /* 0 if the message gave none */
	uint32_t        metric;         /* RTA_PRIORITY, 0 if absent */
	struct hip_addr gw;             /* RTA_GATEWAY, zero if absent */
	struct hip_addr prefsrc;        /* RTA_PREFSRC, zero if absent */
	bool            has_prefsrc;
};

struct defroute {
	struct defroute_entry e[DEFROUTE_MAX];
	size_t n;
	/* the active route per family ([0] IPv4, [1] IPv6) at the last settle */
	struct defroute_entry active[2];
	bool have_active[2];
	bool changed[2];                /* since defroute_take_changed() */
};

/* Parse the body of an RTM_NEWROUTE / RTM_DELROUTE message (after the
 * netlink header). 1 and *out filled: a default route we follow; 0: some
 * other route; -EINVAL: malformed. */
int  defroute_parse(const uint8_t *body, size_t len, struct defroute_entry *out);
/* An event (add: RTM_NEWROUTE, else RTM_DELROUTE; replace: its
 * NLM_F_REPLACE), then settle. */
void defroute_event(struct defroute *dr, bool add, bool replace, const struct defroute_entry *e);
/* A dump: forget all, add what it lists, settle at its end. */
void defroute_dump_begin(struct defroute *dr);
void defroute_dump_add(struct defroute *dr, const struct defroute_entry *e);
void defroute_settle(struct defroute *dr);
/* Did the active route of family (AF_INET / AF_INET6) change since the
 * last call? Clears the flag; *out is the active route (false: none). */
bool defroute_take_changed(struct defroute *dr, int family, struct defroute_entry *out,
			   bool *have);

#endif
