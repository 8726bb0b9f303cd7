/*
 * engine.h - the protocol engine's entry points, called by main.c, by the
 * socket callbacks, by control commands and by in-process tests.
 */
#ifndef HIPD_ENGINE_H
#define HIPD_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "checksum.h"
#include "hipd.h"
#include "hit.h"

/* Load identities, build R1 caches, create the association table and rate
 * limiter, register control commands and socket/timer callbacks with the
 * loop. Sockets: uses d->raw4/raw6 if >= 0 (opened by the privileged
 * side), else opens them. */
int hipd_engine_start(struct hipd *d);
/* The engine's second thread (the Initiator's puzzle search), if it may run
 * on more than one CPU. Call after the privilege drop (capabilities and IDs
 * are per thread) and before the seccomp filter, which then covers it too. */
void hipd_engine_threads_start(struct hipd *d);
/* Back to one thread (the puzzle thread stopped, if there is one). */
void hipd_engine_threads_stop(struct hipd *d);
/* Close every association (CLOSE sent, best effort) and free everything. */
void hipd_engine_stop(struct hipd *d);
/* SIGHUP: re-read what can change at runtime (puzzle, suites, policy). */
int hipd_engine_reload(struct hipd *d);
/* One received HIP packet (from a socket or a test). Never fails: bad
 * input is counted in d->stats and dropped. */
void hipd_engine_input(struct hipd *d, const uint8_t *pkt, size_t len,
		       const struct hip_addr *src, const struct hip_addr *dst);
/* The same for a packet that came over UDP from port sport (RFC 9028
 * §5.2: the marker stripped; sport 0 = raw IP): answers go back over UDP. */
void hipd_engine_input_udp(struct hipd *d, const uint8_t *pkt, size_t len,
			   const struct hip_addr *src, const struct hip_addr *dst, uint16_t sport);
/* Start a base exchange with peer now (hipconf trigger, XFRM ACQUIRE).
 * -ENOENT no locator is mapped for peer; 0 if started or already running. */
int hipd_engine_trigger(struct hipd *d, const struct hip_hit *peer);
/* Close the association with peer (hipconf close). -ENOENT if none. */
int hipd_engine_close(struct hipd *d, const struct hip_hit *peer);

/* ---- for the privilege separation (privsep/privsep.c) ---------------- */

struct datapath;
struct datapath_events;

/* Our HITs into out (at most max): their number, -E2BIG if more. */
int hipd_engine_local_hits(const struct hipd *d, struct hip_hit *out, size_t max);
/* The puzzle thread runs (hipd_engine_threads_start started it). */
bool hipd_engine_threaded(const struct hipd *d);
/* priv's copy of the engine: no host key, no DH keys, no peer keys. */
void hipd_engine_drop_secrets(struct hipd *d);
/* The datapath in use is the kernel's (XFRM over netlink). */
bool hipd_engine_kernel_datapath(const struct hipd *d);
/* The kernel datapath's netlink sockets go to priv: the engine drops its
 * own and uses client(arg, events) instead, with the same event callbacks.
 * No-op unless the kernel datapath is in use. */
void hipd_engine_datapath_hand_over(struct hipd *d,
				    struct datapath *(*client)(void *arg,
							       const struct datapath_events *ev),
				    void *arg);

#endif
