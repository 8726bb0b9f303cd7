/*
 * priv.h - the privileged process of the privilege separation (DESIGN.md
 * "Processes"): the only part of hipd that keeps CAP_NET_ADMIN and
 * CAP_NET_RAW after the start. It owns the kernel datapath (XFRM netlink)
 * and answers the engine's requests (priv_proto.h) after validating every
 * field; it removes what it installed when the engine goes.
 *
 * priv_handle() is the whole request path (receive, validate, execute,
 * reply), so the unit tests drive it over a socketpair with a datapath of
 * their own.
 */
#ifndef HIPD_PRIV_H
#define HIPD_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "datapath/datapath.h"
#include "hit.h"
#include "hosts_line.h"

enum { PRIV_LOCAL_HITS_MAX = 16 };

struct priv_conf {
	struct hip_hit local[PRIV_LOCAL_HITS_MAX];  /* our HITs, learnt at start */
	struct in_addr local_lsi[PRIV_LOCAL_HITS_MAX];  /* their LSIs (D-20); 0: none */
	size_t n_local;
	struct hip_lsi_range lsi_range;  /* peer LSIs lie in it (hipd.conf lsi_range) */
	uint32_t reqid;          /* the reqid the engine must name */
	uint16_t nat_port;       /* our side of ESP in UDP (hipd.conf nat_port) */
};

struct priv;

/* fd: priv's end of the socketpair. dp: the kernel datapath, or NULL when
 * there is none (userspace ESP: SA requests are refused with -ENOTSUP).
 * dp's events are redirected to the engine. priv does not own dp or fd. */
int priv_create(struct priv **out, int fd, struct datapath *dp, const struct priv_conf *conf);
/* Remove every SA and policy installed on the engine's request. */
void priv_flush(struct priv *p);
void priv_free(struct priv *p);

/* Receive one message and answer it. 0 also when the request was refused
 * (the engine got an error reply; the reason is logged); -EAGAIN nothing to
 * read (MSG_DONTWAIT); -EPIPE the engine closed its end; other -errno. */
int priv_handle(struct priv *p);

/* State the loop needs: the engine said hello / finished a reload. */
bool priv_hello_seen(const struct priv *p);
bool priv_take_reloaded(struct priv *p, int *result);
/* How many SAs / policies priv holds for the engine. */
size_t priv_sa_count(const struct priv *p);
size_t priv_policy_count(const struct priv *p);

/* Events to the engine (non-blocking; dropped with a log line if the
 * socket is full). */
int priv_send_reload(struct priv *p);

/* The privileged process's main loop: requests, XFRM events (dp_event_fd,
 * -1 if none), signals (SIGTERM/SIGINT/SIGHUP are passed on to the engine,
 * SIGHUP with RELOADING=1/READY=1 to systemd). Returns when the engine
 * process (pid engine) has exited, after removing what it installed; the
 * engine's exit status (0..255). ready is called once the engine said
 * hello (readiness to systemd and to a waiting parent). */
int priv_run(struct priv *p, pid_t engine, int dp_event_fd,
	     void (*ready)(void *arg), void *ready_arg);

#endif
