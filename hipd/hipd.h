/*
 * hipd.h - the daemon's context. No globals: every module gets a struct
 * hipd pointer (the signal handlers only set flags in it).
 */
#ifndef HIPD_H
#define HIPD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"

struct defroute_entry;

struct hip_loop;
struct hidb;
struct hadb;
struct hosts;
struct hipd_stats;
struct control;
struct r1cache;
struct ratelimit;
struct hip_addr;
struct hipd_engine;
struct hip_locset;
struct addrwatch;

struct hipd {
	struct hipd_conf   conf;     /* parsed config + command-line overrides */
	struct hip_loop   *loop;     /* epoll + timers */
	struct hidb       *hidb;     /* local host identities */
	struct hadb       *hadb;     /* host associations */
	struct hosts      *hosts;    /* HIT -> locator mappings */
	struct hipd_stats *stats;    /* drop counters, BEX counts/timings */
	struct control    *control;  /* control socket server */
	struct ratelimit  *r1_limit; /* per-source R1 token buckets */
	int raw4, raw6;              /* raw HIP sockets (proto 139), -1 if absent */
	/* Packet output: raw sockets by default; in-process tests replace it. */
	int (*send_packet)(struct hipd *d, const uint8_t *pkt, size_t len,
			   const struct hip_addr *src, const struct hip_addr *dst);
	void *send_ctx;
	/* HIP over UDP (RFC 9028 §5.1): the sockets bound to nat_port (-1 if
	 * absent) and the output, which adds the 32-bit zero marker; NULL
	 * (in-process tests) = no UDP. */
	int udp4, udp6;
	int (*send_udp)(struct hipd *d, const uint8_t *pkt, size_t len,
			const struct hip_addr *src, const struct hip_addr *dst, uint16_t dport);
	unsigned puzzle_k;           /* current difficulty (auto or hipconf) */
	int priv_fd;                 /* socketpair to the privileged process, -1 */
	volatile sig_atomic_t reload_requested;
	volatile sig_atomic_t stop_requested;
	uint64_t start_ns;           /* CLOCK_MONOTONIC at start */
	struct hipd_engine *engine;  /* engine-private state (engine_int.h) */
	struct hip_locset  *locset;  /* own locators (locset.h), NULL if not watched */
	struct addrwatch   *addrwatch; /* rtnetlink address watcher (addrwatch.h) */
	/* Source address selection: NULL = the route lookup of sock.c; the
	 * engine of the privilege separation asks priv (it opens no sockets). */
	int (*pick_source)(struct hipd *d, const struct hip_addr *dst, struct hip_addr *src);
	void *pick_ctx;
	/* Our announceable locators changed (net/addrwatch.c after a netlink
	 * batch): set by the engine to UPDATE's readdressing, NULL = nobody. */
	void (*addrs_changed)(struct hipd *d);
	/* The active default route of a family (AF_INET / AF_INET6) changed
	 * (net/defroute.h; NULL: none left): set by the engine to UPDATE's
	 * re-announcement on ICE associations, NULL = nobody. */
	void (*route_changed)(struct hipd *d, int family, const struct defroute_entry *active);
};

#endif
