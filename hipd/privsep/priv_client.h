/*
 * priv_client.h - the engine's end of the privilege separation: a struct
 * datapath (datapath.h) whose calls become requests to the privileged
 * process (priv_proto.h), and the events it sends back (ACQUIRE, EXPIRE,
 * reload) as callbacks. Requests are synchronous: the caller waits for the
 * reply; events that arrive meanwhile are delivered afterwards from the
 * event loop, never inside a datapath call.
 */
#ifndef HIPD_PRIV_CLIENT_H
#define HIPD_PRIV_CLIENT_H

#include <stdint.h>

#include "datapath/datapath.h"

struct hip_loop;
struct priv_client;

struct priv_client_hooks {
	void *arg;
	void (*reload)(void *arg);   /* SIGHUP reached priv */
	void (*lost)(void *arg);     /* priv closed its end */
};

/* fd (owned from here on) is the engine's end of the socketpair; it is
 * polled in loop. */
int priv_client_create(struct priv_client **out, struct hip_loop *loop, int fd,
		       uint32_t reqid, const struct priv_client_hooks *hooks);
/* The kernel datapath through priv, reporting to ev. Its free() only
 * detaches it; the client lives on. */
struct datapath *priv_client_datapath(struct priv_client *c, const struct datapath_events *ev);
/* The kernel's source address towards dst (sock.c's route lookup needs a
 * socket; the engine may not open one). */
int priv_client_pick_source(struct priv_client *c, const struct hip_addr *dst,
			    struct hip_addr *src);
/* The engine is set up / finished a reload (result 0 or -errno). */
int priv_client_hello(struct priv_client *c);
int priv_client_reloaded(struct priv_client *c, int result);
/* Stop polling (before the loop is freed); requests still work. */
void priv_client_detach(struct priv_client *c);
void priv_client_free(struct priv_client *c);

#endif
