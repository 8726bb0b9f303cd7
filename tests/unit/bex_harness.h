/*
 * bex_harness.h - two hipd engines in one process, wired back to back
 * (strongSwan's exchange_test_helper idea). Each host has its own temporary
 * directory (identity key, R1 counter), its own hosts map naming the other,
 * and its packet output hooked into a FIFO that the test delivers one packet
 * at a time, possibly dropping, duplicating or altering it. Addresses are
 * real (127.0.0.x / ::1 as the kernel picks them), so checksums are real.
 * Timers live in one shared loop; a test fires an association's timer at
 * once with bex_fire() (no waiting, no clock dependence).
 */
#ifndef BEX_HARNESS_H
#define BEX_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine_int.h"
#include "hip_wire.h"

enum {
	BEX_QUEUE_MAX = 64,
	BEX_TYPES     = 20,
	BEX_PATH      = 256,
};

struct bex_net;

struct bex_host {
	struct hipd d;
	struct bex_net *net;
	int idx;
	char dir[BEX_PATH];
	struct hip_addr addr;      /* the locator the other host maps */
};

struct bex_pkt {
	uint8_t buf[HIP_MAX_PACKET];
	size_t len;
	struct hip_addr src, dst;
	int from;
};

struct bex_net {
	struct hip_loop *loop;
	struct bex_host h[2];
	struct bex_pkt q[BEX_QUEUE_MAX];
	unsigned n;
	unsigned drop_next[BEX_TYPES];      /* drop the next N packets of a type */
	unsigned sent[2][BEX_TYPES];        /* packets sent per host and type */
	unsigned dropped;
	struct bex_pkt last[BEX_TYPES];     /* last packet of each type sent */
	/* Packets are delivered with no time passing; unless this is set,
	 * the receiver's I1 storm filter (100 ms, i1storm.h) forgets what it
	 * saw before each delivery, as if the usual time had passed. */
	bool keep_i1_storm;
};

/* Per-host settings; zero fields take the defaults noted. */
struct bex_opts {
	enum hip_hi_kind kind;              /* default P-256 (0) */
	uint8_t groups[6];                  /* default {7, 8} */
	size_t n_groups;
	unsigned k;                         /* puzzle K (auto off) */
	bool ipv6;                          /* locator ::1 instead of 127.0.0.x */
	unsigned i1_retries;                /* 0 = default 5 */
	struct control *control;
};

/* Unchecked fixture (runs in the test runner): a base directory for the
 * hosts' files, removed with everything in it afterwards. */
void bex_tmp_setup(void);
void bex_tmp_teardown(void);

void bex_net_init(struct bex_net *n, const struct bex_opts *a, const struct bex_opts *b);
void bex_net_free(struct bex_net *n);

/* Deliver the first queued packet to the other host. Returns its type, 0
 * when the queue is empty, -type when it was dropped by drop_next. */
int bex_deliver_one(struct bex_net *n);
/* Deliver until the queue is empty (at most limit packets). */
unsigned bex_run(struct bex_net *n, unsigned limit);
/* Remove the first queued packet sent by host from of the given type into
 * out (if not NULL) without delivering it. True if one was found. */
bool bex_take(struct bex_net *n, int from, uint8_t type, struct bex_pkt *out);
/* Deliver the first queued packet from host `from` of `type`. */
bool bex_deliver_match(struct bex_net *n, int from, uint8_t type);
/* Hand a packet to host `to` as if it came from the other host; the
 * checksum is recomputed first. */
void bex_inject(struct bex_net *n, int to, uint8_t *pkt, size_t len,
		const struct hip_addr *src, const struct hip_addr *dst);
/* Fire host's association timer now (no-op if none). */
void bex_fire(struct bex_host *h);

/* The association of host with the other host, NULL if none. */
struct hip_ha *bex_ha(struct bex_host *h);
enum hip_state bex_state(struct bex_host *h);
const struct hip_hit *bex_hit(struct bex_host *h);
/* Sum of all drop counters of a host. */
uint64_t bex_drops(struct bex_host *h);

#endif
