/*
 * priv_client.c - the kernel datapath as requests to the privileged
 * process (priv_client.h, priv_proto.h).
 *
 * What priv sends is checked too (exact sizes, known types), although priv
 * is the trusted side: a confused reply must not be read as another one.
 * Keys are wiped from the request after sending.
 */
#include "config.h"
#include "priv_client.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "hip_crypto.h"
#include "base/base.h"
#include "priv_proto.h"

enum {
	PC_EVQ = 32,               /* events held while a request waits */
	PC_REPLY_TIMEOUT_S = 10,   /* priv answers at once; this is a hang guard */
};

struct pc_event {
	uint16_t type;
	struct hip_hit local, peer;
	struct in_addr local_lsi, peer_lsi;   /* PRIV_EV_ACQUIRE_LSI */
	uint32_t spi;
	bool hard;
	struct hip_addr addr;      /* PRIV_EV_MAPPING; PRIV_EV_NO_SA: the source */
	uint16_t port;
	bool have_dst;             /* PRIV_EV_NO_SA */
	struct hip_addr dst;
	uint16_t esp_len;
	uint8_t esp[PRIV_NO_SA_QUOTE];
};

struct priv_client {
	struct datapath dp;        /* first: ops get &c->dp */
	bool dp_active;
	struct hip_loop *loop;
	bool polled;
	int fd;
	uint32_t reqid, seq;
	struct priv_client_hooks hooks;
	struct pc_event q[PC_EVQ];
	size_t nq;
	uint64_t q_timer;
	struct log_ratelimit log;
};

static struct priv_client *to_c(struct datapath *dp)
{
	return (struct priv_client *)dp;
}

/* ---- events ---------------------------------------------------------------- */

static void deliver(struct priv_client *c, const struct pc_event *ev)
{
	switch (ev->type) {
	case PRIV_EV_ACQUIRE:
		if (c->dp_active && c->dp.ev.acquire)
			c->dp.ev.acquire(c->dp.ev.arg, &ev->local, &ev->peer);
		break;
	case PRIV_EV_ACQUIRE_LSI:
		if (c->dp_active && c->dp.ev.acquire_lsi)
			c->dp.ev.acquire_lsi(c->dp.ev.arg, &ev->local_lsi, &ev->peer_lsi);
		break;
	case PRIV_EV_EXPIRE:
		if (c->dp_active && c->dp.ev.expire)
			c->dp.ev.expire(c->dp.ev.arg, ev->spi, ev->hard);
		break;
	case PRIV_EV_MAPPING:
		if (c->dp_active && c->dp.ev.udp_peer)
			c->dp.ev.udp_peer(c->dp.ev.arg, ev->spi, &ev->addr, ev->port);
		break;
	case PRIV_EV_NO_SA:
		if (c->dp_active && c->dp.ev.no_sa)
			c->dp.ev.no_sa(c->dp.ev.arg, &ev->addr, ev->have_dst ? &ev->dst : NULL, 0,
				       ev->esp, ev->esp_len);
		break;
	case PRIV_EV_RELOAD:
		if (c->hooks.reload)
			c->hooks.reload(c->hooks.arg);
		break;
	default:
		break;
	}
}

static void queue_fired(struct hip_loop *loop, uint64_t timer, void *arg)
{
	struct priv_client *c = arg;
	struct pc_event ev;

	(void)loop;
	(void)timer;
	c->q_timer = 0;
	/* deliver may make requests that queue more: take one at a time */
	while (c->nq) {
		ev = c->q[0];
		memmove(c->q, c->q + 1, (c->nq - 1) * sizeof(c->q[0]));
		c->nq--;
		deliver(c, &ev);
	}
}

/* Parse an event datagram; 0 and *ev filled, or -EBADMSG. */
static int parse_event(const uint8_t *buf, size_t n, struct pc_event *ev)
{
	struct priv_hdr h;

	if (n < sizeof(h))
		return -EBADMSG;
	memcpy(&h, buf, sizeof(h));
	memset(ev, 0, sizeof(*ev));
	ev->type = h.type;
	switch (h.type) {
	case PRIV_EV_ACQUIRE: {
		struct priv_msg_hit_pair m;

		if (n != sizeof(m))
			return -EBADMSG;
		memcpy(&m, buf, sizeof(m));
		ev->local = m.hits.local;
		ev->peer = m.hits.peer;
		return 0;
	}
	case PRIV_EV_ACQUIRE_LSI: {
		struct priv_msg_lsi_pair m;

		if (n != sizeof(m))
			return -EBADMSG;
		memcpy(&m, buf, sizeof(m));
		if (!m.lsis.local.s_addr || !m.lsis.peer.s_addr ||
		    m.lsis.local.s_addr == m.lsis.peer.s_addr)
			return -EBADMSG;
		ev->local_lsi = m.lsis.local;
		ev->peer_lsi = m.lsis.peer;
		return 0;
	}
	case PRIV_EV_EXPIRE: {
		struct priv_msg_expire m;

		if (n != sizeof(m))
			return -EBADMSG;
		memcpy(&m, buf, sizeof(m));
		ev->spi = m.exp.spi;
		ev->hard = m.exp.hard != 0;
		return 0;
	}
	case PRIV_EV_MAPPING: {
		struct priv_msg_mapping m;

		if (n != sizeof(m))
			return -EBADMSG;
		memcpy(&m, buf, sizeof(m));
		if (!m.map.port || m.map.pad)
			return -EBADMSG;
		ev->spi = m.map.spi;
		ev->addr = m.map.addr;
		ev->port = m.map.port;
		return 0;
	}
	case PRIV_EV_NO_SA: {
		struct priv_msg_no_sa m;

		if (n != sizeof(m))
			return -EBADMSG;
		memcpy(&m, buf, sizeof(m));
		if (m.nosa.have_dst > 1 || m.nosa.pad0 || m.nosa.pad1 || m.nosa.len < 8 ||
		    m.nosa.len > PRIV_NO_SA_QUOTE)
			return -EBADMSG;
		ev->addr = m.nosa.src;
		ev->have_dst = m.nosa.have_dst;
		ev->dst = m.nosa.dst;
		ev->esp_len = m.nosa.len;
		memcpy(ev->esp, m.nosa.esp, m.nosa.len);
		return 0;
	}
	case PRIV_EV_RELOAD:
		return n == sizeof(h) ? 0 : -EBADMSG;
	default:
		return -EBADMSG;
	}
}

static void enqueue(struct priv_client *c, const struct pc_event *ev)
{
	if (c->nq == PC_EVQ) {
		log_ratelimited(&c->log, LOG_WARNING, "privsep: event queue full, one dropped");
		return;
	}
	c->q[c->nq++] = *ev;
	if (c->polled && !c->q_timer)
		c->q_timer = hip_loop_timer_add(c->loop, 0, queue_fired, c);
}

static void readable(struct hip_loop *loop, int fd, uint32_t events, void *arg)
{
	uint8_t buf[PRIV_MSG_MAX + 1];
	struct priv_client *c = arg;
	struct pc_event ev;
	ssize_t n;
	int i;

	(void)loop;
	(void)events;
	for (i = 0; i < 64; i++) {
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		if (n <= 0) {
			log_err("privsep: the privileged process is gone");
			priv_client_detach(c);
			if (c->hooks.lost)
				c->hooks.lost(c->hooks.arg);
			return;
		}
		if (parse_event(buf, (size_t)n, &ev) < 0) {
			log_ratelimited(&c->log, LOG_WARNING, "privsep: unexpected message from "
					"the privileged process");
			continue;
		}
		/* in order: what was queued during a request goes first */
		if (c->nq)
			enqueue(c, &ev);
		else
			deliver(c, &ev);
	}
}

/* ---- requests ------------------------------------------------------------------ */

/* A reply's error as the callers take it: 0 or -errno; anything else from
 * a confused priv (positive, INT_MIN: its negation overflows in strerror()
 * calls) is -EIO. */
static int reply_error(int32_t error)
{
	return error <= 0 && error >= -4095 ? error : -EIO;
}

/* Send msg (len bytes, header filled here) and wait for its reply: the
 * reply's error (0 or -errno), stats copied to st when asked for. */
static int request(struct priv_client *c, void *msg, size_t len, uint16_t type,
		   struct priv_stats *st, struct hip_addr *addr)
{
	uint8_t buf[PRIV_MSG_MAX + 1];
	struct priv_hdr h;
	struct pc_event ev;
	ssize_t n;

	memset(&h, 0, sizeof(h));
	h.version = PRIV_PROTO_VERSION;
	h.type = type;
	h.seq = ++c->seq ? c->seq : ++c->seq;
	h.reqid = c->reqid;
	memcpy(msg, &h, sizeof(h));
	n = send(c->fd, msg, len, MSG_NOSIGNAL);
	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	if (type == PRIV_REQ_HELLO || type == PRIV_REQ_RELOADED)
		return 0;   /* notices: no reply */
	for (;;) {
		n = recv(c->fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
		if (n == 0)
			return -EPIPE;
		if ((size_t)n < sizeof(h))
			return -EBADMSG;
		memcpy(&h, buf, sizeof(h));
		if (h.type == PRIV_REPLY || h.type == PRIV_REPLY_STATS ||
		    h.type == PRIV_REPLY_ADDR) {
			if (h.seq != c->seq)
				continue;   /* a reply to a request that timed out */
			break;
		}
		if (parse_event(buf, (size_t)n, &ev) == 0)
			enqueue(c, &ev);
	}
	if (h.type == PRIV_REPLY_STATS) {
		struct priv_msg_stats m;

		if ((size_t)n != sizeof(m) || !st)
			return -EBADMSG;
		memcpy(&m, buf, sizeof(m));
		*st = m.st;
		return reply_error(m.st.error);
	} else if (h.type == PRIV_REPLY_ADDR) {
		struct priv_msg_addr m;

		if ((size_t)n != sizeof(m) || !addr)
			return -EBADMSG;
		memcpy(&m, buf, sizeof(m));
		*addr = m.a.addr;
		return reply_error(m.a.error);
	} else {
		struct priv_msg_result m;

		if ((size_t)n != sizeof(m))
			return -EBADMSG;
		memcpy(&m, buf, sizeof(m));
		return reply_error(m.res.error);
	}
}

static int pc_sa_add(struct datapath *dp, const struct hip_esp_sa *sa)
{
	struct priv_msg_sa m;
	int ret;

	if (sa->enc_len > HIP_ESP_KEY_MAX || sa->auth_len > HIP_ESP_KEY_MAX)
		return -EINVAL;
	memset(&m, 0, sizeof(m));
	m.sa.spi = sa->spi;
	m.sa.inbound = sa->inbound;
	m.sa.enc_len = (uint8_t)sa->enc_len;
	m.sa.auth_len = (uint8_t)sa->auth_len;
	m.sa.suite = sa->suite;
	m.sa.replay_window = sa->replay_window;
	m.sa.encap_sport = sa->encap_sport;
	m.sa.encap_dport = sa->encap_dport;
	m.sa.outer_src = sa->outer_src;
	m.sa.outer_dst = sa->outer_dst;
	m.sa.inner_src = sa->inner_src;
	m.sa.inner_dst = sa->inner_dst;
	m.sa.inner_v4 = sa->inner_v4;
	if (sa->inner_v4) {
		m.sa.lsi_src = sa->lsi_src;
		m.sa.lsi_dst = sa->lsi_dst;
	}
	memcpy(m.sa.enc_key, sa->enc_key, sa->enc_len);
	memcpy(m.sa.auth_key, sa->auth_key, sa->auth_len);
	m.sa.soft_bytes = sa->soft_bytes;
	m.sa.hard_bytes = sa->hard_bytes;
	m.sa.soft_seconds = sa->soft_seconds;
	m.sa.hard_seconds = sa->hard_seconds;
	ret = request(to_c(dp), &m, sizeof(m), PRIV_REQ_SA_ADD, NULL, NULL);
	hip_wipe(&m, sizeof(m));
	return ret;
}

static int pc_sa_del(struct datapath *dp, uint32_t spi, bool inbound,
		     const struct hip_addr *outer_dst)
{
	struct priv_msg_sa_ref m;

	memset(&m, 0, sizeof(m));
	m.ref.spi = spi;
	m.ref.inbound = inbound;
	m.ref.outer_dst = *outer_dst;
	return request(to_c(dp), &m, sizeof(m), PRIV_REQ_SA_DEL, NULL, NULL);
}

static int pc_policy_add(struct datapath *dp, const struct hip_hit *local,
			 const struct hip_hit *peer, const struct hip_addr *local_loc,
			 const struct hip_addr *peer_loc)
{
	struct priv_msg_policy m;

	memset(&m, 0, sizeof(m));
	m.pol.local = *local;
	m.pol.peer = *peer;
	m.pol.local_loc = *local_loc;
	m.pol.peer_loc = *peer_loc;
	return request(to_c(dp), &m, sizeof(m), PRIV_REQ_POLICY_ADD, NULL, NULL);
}

static int pc_policy_del(struct datapath *dp, const struct hip_hit *local,
			 const struct hip_hit *peer)
{
	struct priv_msg_policy m;

	memset(&m, 0, sizeof(m));
	m.pol.local = *local;
	m.pol.peer = *peer;
	return request(to_c(dp), &m, sizeof(m), PRIV_REQ_POLICY_DEL, NULL, NULL);
}

static int pc_policy_lsi_add(struct datapath *dp, const struct in_addr *local,
			     const struct in_addr *peer, const struct hip_addr *local_loc,
			     const struct hip_addr *peer_loc)
{
	struct priv_msg_policy_lsi m;

	memset(&m, 0, sizeof(m));
	m.pol.local = *local;
	m.pol.peer = *peer;
	m.pol.local_loc = *local_loc;
	m.pol.peer_loc = *peer_loc;
	return request(to_c(dp), &m, sizeof(m), PRIV_REQ_POLICY_LSI_ADD, NULL, NULL);
}

static int pc_policy_lsi_del(struct datapath *dp, const struct in_addr *local,
			     const struct in_addr *peer)
{
	struct priv_msg_policy_lsi m;

	memset(&m, 0, sizeof(m));
	m.pol.local = *local;
	m.pol.peer = *peer;
	return request(to_c(dp), &m, sizeof(m), PRIV_REQ_POLICY_LSI_DEL, NULL, NULL);
}

static int pc_sa_stats(struct datapath *dp, uint32_t spi, bool inbound,
		       struct hip_esp_sa_stats *out)
{
	struct priv_msg_sa_ref m;
	struct priv_stats st;
	int ret;

	memset(&m, 0, sizeof(m));
	memset(&st, 0, sizeof(st));
	m.ref.spi = spi;
	m.ref.inbound = inbound;
	ret = request(to_c(dp), &m, sizeof(m), PRIV_REQ_SA_STATS, &st, NULL);
	if (ret == 0) {
		out->packets = st.packets;
		out->bytes = st.bytes;
		out->replay_drops = st.replay_drops;
		out->auth_drops = st.auth_drops;
	}
	return ret;
}

static void pc_flush(struct datapath *dp)
{
	struct priv_hdr h;
	int ret = request(to_c(dp), &h, sizeof(h), PRIV_REQ_FLUSH, NULL, NULL);

	if (ret < 0)
		log_warn("privsep: flush: %s", strerror(-ret));
}

static void pc_free(struct datapath *dp)
{
	to_c(dp)->dp_active = false;
}

static const struct datapath_ops priv_client_ops = {
	.name = "kernel",
	.sa_add = pc_sa_add,
	.sa_del = pc_sa_del,
	.policy_add = pc_policy_add,
	.policy_del = pc_policy_del,
	.policy_lsi_add = pc_policy_lsi_add,
	.policy_lsi_del = pc_policy_lsi_del,
	.sa_stats = pc_sa_stats,
	.flush = pc_flush,
	.free = pc_free,
};

/* ---- life cycle ------------------------------------------------------------------- */

int priv_client_create(struct priv_client **out, struct hip_loop *loop, int fd,
		       uint32_t reqid, const struct priv_client_hooks *hooks)
{
	struct timeval tv = { .tv_sec = PC_REPLY_TIMEOUT_S };
	struct priv_client *c = calloc(1, sizeof(*c));
	int ret;

	*out = NULL;
	if (!c) {
		close(fd);
		return -ENOMEM;
	}
	c->fd = fd;
	c->loop = loop;
	c->reqid = reqid;
	c->dp.ops = &priv_client_ops;
	if (hooks)
		c->hooks = *hooks;
	log_ratelimit_init(&c->log, 1000, 5);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		ret = -errno;
		goto fail;
	}
	if (loop) {
		ret = hip_loop_fd_add(loop, fd, EPOLLIN, readable, c);
		if (ret < 0)
			goto fail;
		c->polled = true;
	}
	*out = c;
	return 0;
fail:
	close(fd);
	free(c);
	return ret;
}

struct datapath *priv_client_datapath(struct priv_client *c, const struct datapath_events *ev)
{
	c->dp.ev = *ev;
	c->dp_active = true;
	return &c->dp;
}

int priv_client_pick_source(struct priv_client *c, const struct hip_addr *dst,
			    struct hip_addr *src)
{
	struct priv_msg_addr m;

	memset(&m, 0, sizeof(m));
	m.a.addr = *dst;
	return request(c, &m, sizeof(m), PRIV_REQ_PICK_SOURCE, NULL, src);
}

int priv_client_hello(struct priv_client *c)
{
	struct priv_hdr h;

	return request(c, &h, sizeof(h), PRIV_REQ_HELLO, NULL, NULL);
}

int priv_client_reloaded(struct priv_client *c, int result)
{
	struct priv_msg_result m;

	memset(&m, 0, sizeof(m));
	m.res.error = result;
	return request(c, &m, sizeof(m), PRIV_REQ_RELOADED, NULL, NULL);
}

void priv_client_detach(struct priv_client *c)
{
	if (!c || !c->polled)
		return;
	if (c->q_timer)
		hip_loop_timer_cancel(c->loop, c->q_timer);
	c->q_timer = 0;
	hip_loop_fd_remove(c->loop, c->fd);
	c->polled = false;
}

void priv_client_free(struct priv_client *c)
{
	if (!c)
		return;
	priv_client_detach(c);
	close(c->fd);
	free(c);
}
