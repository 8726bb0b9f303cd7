/*
 * priv_dispatch.c - the privileged process's request path (priv.h
 * priv_handle()): one table of the requests the engine may send
 * (priv_proto.h) with each one's exact size, name and handler, consulted
 * by validation, logging, execution and the reply.
 *
 * The order of the checks is the protocol's: a header, our version, a
 * known request type, exactly its size, our reqid and zero padding; only
 * then does a handler (priv.c) see the body and check its fields.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "hip_crypto.h"
#include "base/base.h"
#include "priv.h"
#include "priv_int.h"
#include "priv_proto.h"

/* ---- the request table ------------------------------------------------------- */

/* What a request's execution fills in for its reply. */
struct req_out {
	struct priv_msg_stats st;
	struct priv_msg_addr ad;
};

enum req_reply {
	REPLY_RESULT,   /* PRIV_REPLY: the error alone */
	REPLY_NONE,     /* the engine's notices: no reply when they succeed */
	REPLY_STATS,    /* PRIV_REPLY_STATS */
	REPLY_ADDR,     /* PRIV_REPLY_ADDR */
};

/* buf holds exactly the request's size (checked before the call). */
typedef int (*req_fn)(struct priv *p, const uint8_t *buf, struct req_out *out,
		      const char **why);

static int on_hello(struct priv *p, const uint8_t *buf, struct req_out *out, const char **why)
{
	(void)buf, (void)out, (void)why;
	p->hello = true;
	return 0;
}

static int on_flush(struct priv *p, const uint8_t *buf, struct req_out *out, const char **why)
{
	(void)buf, (void)out, (void)why;
	priv_flush(p);
	return 0;
}

static int on_reloaded(struct priv *p, const uint8_t *buf, struct req_out *out,
		       const char **why)
{
	struct priv_msg_result m;

	(void)out, (void)why;
	memcpy(&m, buf, sizeof(m));
	p->reloaded = true;
	p->reload_result = m.res.error;
	return 0;
}

static int on_sa_add(struct priv *p, const uint8_t *buf, struct req_out *out, const char **why)
{
	struct priv_msg_sa m;
	int ret;

	(void)out;
	memcpy(&m, buf, sizeof(m));
	ret = priv_req_sa_add(p, &m.sa, why);
	hip_wipe(&m, sizeof(m));
	return ret;
}

static int on_sa_del(struct priv *p, const uint8_t *buf, struct req_out *out, const char **why)
{
	struct priv_msg_sa_ref m;

	(void)out;
	memcpy(&m, buf, sizeof(m));
	return priv_req_sa_del(p, &m.ref, why);
}

static int on_sa_stats(struct priv *p, const uint8_t *buf, struct req_out *out,
		       const char **why)
{
	struct priv_msg_sa_ref m;

	memcpy(&m, buf, sizeof(m));
	return priv_req_sa_stats(p, &m.ref, &out->st.st, why);
}

static int on_policy_add(struct priv *p, const uint8_t *buf, struct req_out *out,
			 const char **why)
{
	struct priv_msg_policy m;

	(void)out;
	memcpy(&m, buf, sizeof(m));
	return priv_req_policy_add(p, &m.pol, why);
}

static int on_policy_del(struct priv *p, const uint8_t *buf, struct req_out *out,
			 const char **why)
{
	struct priv_msg_policy m;

	(void)out;
	memcpy(&m, buf, sizeof(m));
	return priv_req_policy_del(p, &m.pol, why);
}

static int on_policy_lsi_add(struct priv *p, const uint8_t *buf, struct req_out *out,
			     const char **why)
{
	struct priv_msg_policy_lsi m;

	(void)out;
	memcpy(&m, buf, sizeof(m));
	return priv_req_policy_lsi_add(p, &m.pol, why);
}

static int on_policy_lsi_del(struct priv *p, const uint8_t *buf, struct req_out *out,
			     const char **why)
{
	struct priv_msg_policy_lsi m;

	(void)out;
	memcpy(&m, buf, sizeof(m));
	return priv_req_policy_lsi_del(p, &m.pol, why);
}

static int on_pick_source(struct priv *p, const uint8_t *buf, struct req_out *out,
			  const char **why)
{
	struct priv_msg_addr m;

	(void)p;
	memcpy(&m, buf, sizeof(m));
	return priv_req_pick_source(&m.a, &out->ad.a, why);
}

struct req_desc {
	const char *name;      /* for the log */
	size_t size;           /* the exact datagram size: header and body */
	req_fn handle;
	enum req_reply reply;  /* what a success is answered with */
};

/* Every request the engine may send (priv_proto.h), indexed by type: the
 * one place validation (size), logging (name), execution and the reply
 * look at. A type without an entry (size 0) is refused. */
static const struct req_desc requests[] = {
	[PRIV_REQ_HELLO]       = { "hello", sizeof(struct priv_hdr), on_hello, REPLY_NONE },
	[PRIV_REQ_SA_ADD]      = { "SA add", sizeof(struct priv_msg_sa), on_sa_add,
				   REPLY_RESULT },
	[PRIV_REQ_SA_DEL]      = { "SA delete", sizeof(struct priv_msg_sa_ref), on_sa_del,
				   REPLY_RESULT },
	[PRIV_REQ_POLICY_ADD]  = { "policy add", sizeof(struct priv_msg_policy),
				   on_policy_add, REPLY_RESULT },
	[PRIV_REQ_POLICY_DEL]  = { "policy delete", sizeof(struct priv_msg_policy),
				   on_policy_del, REPLY_RESULT },
	[PRIV_REQ_FLUSH]       = { "flush", sizeof(struct priv_hdr), on_flush, REPLY_RESULT },
	[PRIV_REQ_SA_STATS]    = { "SA statistics", sizeof(struct priv_msg_sa_ref),
				   on_sa_stats, REPLY_STATS },
	[PRIV_REQ_RELOADED]    = { "reloaded", sizeof(struct priv_msg_result), on_reloaded,
				   REPLY_NONE },
	[PRIV_REQ_PICK_SOURCE] = { "source address", sizeof(struct priv_msg_addr),
				   on_pick_source, REPLY_ADDR },
	[PRIV_REQ_POLICY_LSI_ADD] = { "LSI policy add", sizeof(struct priv_msg_policy_lsi),
				      on_policy_lsi_add, REPLY_RESULT },
	[PRIV_REQ_POLICY_LSI_DEL] = { "LSI policy delete", sizeof(struct priv_msg_policy_lsi),
				      on_policy_lsi_del, REPLY_RESULT },
};

/* The entry of a request type, or NULL for anything else (replies and
 * events included: the engine must not send those). */
static const struct req_desc *req_find(uint16_t type)
{
	if (type >= sizeof(requests) / sizeof(requests[0]) || !requests[type].size)
		return NULL;
	return &requests[type];
}

/* Validate and execute one request in buf (n bytes); replies with a body
 * (stats, address) filled in out. */
static int dispatch(struct priv *p, const uint8_t *buf, size_t n, struct req_out *out,
		    const char **why)
{
	const struct req_desc *d;
	struct priv_hdr h;

	if (n < sizeof(h)) {
		*why = "shorter than a header";
		return -EBADMSG;
	}
	memcpy(&h, buf, sizeof(h));
	if (h.version != PRIV_PROTO_VERSION) {
		*why = "wrong protocol version";
		return -EPROTO;
	}
	d = req_find(h.type);
	if (!d) {
		*why = "unknown message type";
		return -EBADMSG;
	}
	if (n != d->size) {
		*why = "wrong length for its type";
		return -EBADMSG;
	}
	if (h.reqid != p->conf.reqid || h.pad) {
		*why = "not our reqid";
		return -EPERM;
	}
	return d->handle(p, buf, out, why);
}

int priv_handle(struct priv *p)
{
	uint8_t buf[PRIV_MSG_MAX + 1];
	const struct req_desc *d;
	struct req_out out;
	struct priv_hdr h = { 0 };
	const char *why = NULL;
	ssize_t n;
	int ret;

	n = recv(p->fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (n == 0)
		return -EPIPE;
	memset(&out, 0, sizeof(out));
	if ((size_t)n > sizeof(buf)) {
		why = "longer than any message";
		ret = -EBADMSG;
	} else {
		ret = dispatch(p, buf, (size_t)n, &out, &why);
	}
	if ((size_t)n >= sizeof(h))
		memcpy(&h, buf, sizeof(h));
	hip_wipe(buf, sizeof(buf));
	d = req_find(h.type);
	if (ret < 0 && why)
		log_ratelimited(&p->refuse_log, LOG_WARNING, "privsep: refused %s from the "
				"engine: %s (%s)", d ? d->name : "unknown request", why,
				strerror(-ret));
	/* Success means dispatch found d; failures all get PRIV_REPLY. */
	if (ret == 0 && d->reply == REPLY_NONE)
		return 0;
	if (ret == 0 && d->reply == REPLY_STATS) {
		priv_msg_init(&out.st.h, PRIV_REPLY_STATS, h.seq, p->conf.reqid);
		out.st.st.error = 0;
		ret = priv_msg_send(p, &out.st, sizeof(out.st));
	} else if (ret == 0 && d->reply == REPLY_ADDR) {
		priv_msg_init(&out.ad.h, PRIV_REPLY_ADDR, h.seq, p->conf.reqid);
		ret = priv_msg_send(p, &out.ad, sizeof(out.ad));
	} else {
		struct priv_msg_result r;

		priv_msg_init(&r.h, PRIV_REPLY, h.seq, p->conf.reqid);
		memset(&r.res, 0, sizeof(r.res));
		r.res.error = ret;
		ret = priv_msg_send(p, &r, sizeof(r));
	}
	return ret == -EPIPE || ret == -ECONNRESET ? -EPIPE : 0;
}

