/*
 * data_relay.c - the data relay server of RFC 9028 (RELAY_UDP_ESP,
 * §4.12, §5.12-5.13; docs/decisions.md D-29): for a client behind a NAT
 * through which no direct path works (symmetric NATs on both sides), a
 * relayed transport address, this server's address and a UDP port of its
 * own (hipd.conf relay_esp_port, relay_esp_ports), which the client offers as its relayed
 * candidate (ICE type preference 0, §4.2). Its peers check it and send
 * their ESP there; we pass it on.
 *
 * One port per client (its allocation), opened at start (under its seccomp
 * filter the engine opens no socket later, hipd/privsep/seccomp.c), without ESP-in-UDP
 * encapsulation (a kernel datapath's UDP socket would take the peers'
 * ESP for its own SAs). On the port:
 *
 *   from the client (its address, any port: its NAT's mapping towards
 *   the port is learnt from its NAT keepalives and from what we pass on;
 *   a host behind the same NAT could take the mapping over with a forged
 *   keepalive, and gets ESP it cannot read until the client's next one):
 *     ESP whose SPI is a permission's OSPI, or HIP whose receiver HIT is a
 *     permission's peer HIT: to that peer, at the port it last sent from;
 *   from a peer the client permitted (PEER_PERMISSION in an UPDATE, §5.13;
 *   by address, its port learnt): ESP whose SPI is that permission's
 *   ISPI, or HIP whose sender HIT is its HIT: to the client's mapping;
 *   anything else: dropped and counted.
 *
 * Both directions leave from the port, so each host's NAT sees answers
 * to what it sent. The allocation goes when the registration does
 * (cancelled, expired); a peer's permissions are replaced by the client's
 * next UPDATE naming that peer.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engine/engine_int.h"
#include "hit.h"
#include "net/net.h"
#include "reg.h"

struct dr_perm {
	struct hip_addr peer;
	uint16_t peer_port;                /* learnt from its packets, 0 = none yet */
	uint64_t heard_ns;                 /* its last packet */
	struct hip_hit hit;
	uint32_t ospi, ispi;
};

struct dr_alloc {
	struct data_relay *owner;
	bool used;
	struct hip_hit client;
	struct hip_addr client_addr;       /* where it registered from */
	uint16_t client_port;              /* its mapping towards our port, 0 = none */
	struct hip_addr local;             /* our address it registered to */
	uint16_t port;
	int fd4, fd6;
	struct dr_perm perm[DATA_RELAY_PERMS_MAX];
	unsigned n_perm;
};

struct data_relay {
	struct hipd *d;
	struct dr_alloc *a;
	unsigned n;                        /* ports (allocations) */
	struct data_relay_counters ctr;
};

static struct dr_alloc *alloc_of(struct data_relay *r, const struct hip_hit *client)
{
	unsigned i;

	for (i = 0; i < r->n; i++)
		if (r->a[i].used && !memcmp(&r->a[i].client, client, sizeof(*client)))
			return &r->a[i];
	return NULL;
}

static bool same_addr(const struct hip_addr *a, const struct hip_addr *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static void relay_send(struct data_relay *r, struct dr_alloc *a, const uint8_t *p, size_t len,
		       const struct hip_addr *dst, uint16_t port)
{
	struct iovec iov = { .iov_base = (void *)p, .iov_len = len };

	if (hip_udp_sendv(a->fd4, a->fd6, &iov, 1, &a->local, dst, port) == 0) {
		r->ctr.forwarded++;
		r->ctr.bytes += len;
	} else {
		r->ctr.send_failed++;
	}
}

/* What a datagram on the port is and whose: *spi for ESP, the HITs for
 * HIP (after the 32-bit zero marker); false for anything else. */
static bool classify(const uint8_t *p, size_t len, uint32_t *spi, const uint8_t **sender,
		     const uint8_t **receiver)
{
	switch (hip_udp_classify(p, len)) {
	case HIP_UDP_ESP:
		*spi = hip_rd32(p);           /* never 0: that is HIP's marker */
		*sender = *receiver = p;      /* not read for ESP */
		return true;
	case HIP_UDP_HIP:
		if (len < HIP_UDP_MARKER + HIP_HDR_LEN)
			return false;
		*spi = 0;
		*sender = p + HIP_UDP_MARKER + 8;
		*receiver = p + HIP_UDP_MARKER + 8 + HIP_HIT_LEN;
		return true;
	default:
		return false;
	}
}

/* One datagram on a's port from src:sport: 1 passed on, 0 a keepalive
 * (the client's mapping learnt), <0 dropped (counted). */
static int route(struct data_relay *r, struct dr_alloc *a, const uint8_t *p, size_t len,
		 const struct hip_addr *src, uint16_t sport)
{
	const uint8_t *sender, *receiver;
	struct dr_perm *best = NULL;
	bool found = false;
	uint32_t spi;
	unsigned i;

	if (same_addr(src, &a->client_addr)) {
		/* its NAT's mapping towards us: from a keepalive, or a packet
		 * we pass on (not from anything else its address sends) */
		if (hip_udp_classify(p, len) == HIP_UDP_KEEPALIVE) {
			a->client_port = sport;
			return 0;
		}
		if (!classify(p, len, &spi, &sender, &receiver))
			goto drop;
		/* the peer's permissions (one per address of it): the one it
		 * was last heard from */
		for (i = 0; i < a->n_perm; i++) {
			struct dr_perm *m = &a->perm[i];

			if (spi ? spi != m->ospi : memcmp(receiver, m->hit.b, HIP_HIT_LEN))
				continue;
			found = true;
			if (m->peer_port && (!best || m->heard_ns > best->heard_ns))
				best = m;
		}
		if (!found)
			goto drop;
		a->client_port = sport;
		if (!best) {
			r->ctr.peer_unknown++;   /* it has not sent to us yet */
			return -ENOENT;
		}
		relay_send(r, a, p, len, &best->peer, best->peer_port);
		return 1;
	}
	if (!classify(p, len, &spi, &sender, &receiver))
		goto drop;
	for (i = 0; i < a->n_perm; i++) {
		struct dr_perm *m = &a->perm[i];

		if (!same_addr(src, &m->peer) ||
		    (spi ? spi != m->ispi : memcmp(sender, m->hit.b, HIP_HIT_LEN)))
			continue;
		m->peer_port = sport;
		m->heard_ns = hipd_now_ns();
		if (!a->client_port) {
			r->ctr.client_unknown++;
			return -ENOENT;
		}
		relay_send(r, a, p, len, &a->client_addr, a->client_port);
		return 1;
	}
drop:
	r->ctr.no_permission++;
	return -EPERM;
}

static void port_readable(struct hip_loop *loop, int fd, uint32_t events, void *arg)
{
	struct dr_alloc *a = arg;
	uint8_t buf[HIP_MAX_PACKET + 2 * HIP_UDP_MARKER];
	struct hip_udp_rx rx;
	unsigned i;
	int ret;

	(void)loop;
	(void)events;
	for (i = 0; i < DATA_RELAY_READS; i++) {
		ret = hip_udp_recv(fd, buf, sizeof(buf), &rx);
		if (ret == -EAGAIN)
			break;
		if (ret < 0)
			continue;
		if (!a->used) {
			a->owner->ctr.no_permission++;   /* a port nobody holds */
			continue;
		}
		(void)route(a->owner, a, rx.buf, rx.len, &rx.src, rx.sport);
	}
}

int data_relay_route(struct data_relay *r, const struct hip_hit *client, const uint8_t *p,
		     size_t len, const struct hip_addr *src, uint16_t sport)
{
	struct dr_alloc *a = alloc_of(r, client);

	return a ? route(r, a, p, len, src, sport) : -ENOENT;
}

int data_relay_open(struct hipd *d, struct data_relay **out)
{
	unsigned first = d->conf.relay_esp_port, last = first + d->conf.relay_esp_ports - 1u, i;
	struct data_relay *r;
	int ret = 0;

	*out = NULL;
	if (!d->conf.relay_esp_ports || last > 65535)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r || !(r->a = calloc(last - first + 1, sizeof(*r->a)))) {
		free(r);
		return -ENOMEM;
	}
	r->d = d;
	for (i = 0; i <= last - first; i++) {
		struct dr_alloc *a = &r->a[i];

		a->owner = r;
		a->port = (uint16_t)(first + i);
		a->fd4 = d->conf.listen_v4 ? hip_udp_open(AF_INET, a->port) : -EAFNOSUPPORT;
		a->fd6 = d->conf.listen_v6 ? hip_udp_open(AF_INET6, a->port) : -EAFNOSUPPORT;
		r->n = i + 1;
		if ((a->fd4 < 0 && a->fd4 != -EAFNOSUPPORT) ||
		    (a->fd6 < 0 && a->fd6 != -EAFNOSUPPORT) || (a->fd4 < 0 && a->fd6 < 0)) {
			ret = a->fd4 < 0 && a->fd4 != -EAFNOSUPPORT ? a->fd4 : a->fd6;
			log_err("data relay: UDP port %u: %s", a->port, strerror(-ret));
			goto fail;
		}
		if ((a->fd4 >= 0 && (ret = hip_loop_fd_add(d->loop, a->fd4, EPOLLIN, port_readable,
							  a)) < 0) ||
		    (a->fd6 >= 0 && (ret = hip_loop_fd_add(d->loop, a->fd6, EPOLLIN, port_readable,
							  a)) < 0))
			goto fail;
	}
	log_notice("data relay (relay-esp): UDP ports %u-%u, one client each", first, last);
	*out = r;
	return 0;
fail:
	data_relay_close(r);
	return ret < 0 ? ret : -EIO;
}

void data_relay_close(struct data_relay *r)
{
	unsigned i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++) {
		struct dr_alloc *a = &r->a[i];

		if (a->fd4 >= 0) {
			hip_loop_fd_remove(r->d->loop, a->fd4);
			close(a->fd4);
		}
		if (a->fd6 >= 0) {
			hip_loop_fd_remove(r->d->loop, a->fd6);
			close(a->fd6);
		}
	}
	hip_wipe(r->a, r->n * sizeof(*r->a));
	free(r->a);
	free(r);
}

int data_relay_alloc(struct data_relay *r, const struct hip_hit *client,
		     const struct hip_addr *client_addr, const struct hip_addr *local,
		     struct hip_relay_addr *relayed)
{
	struct dr_alloc *a = alloc_of(r, client);
	unsigned i;

	for (i = 0; !a && i < r->n; i++)
		if (!r->a[i].used && (r->a[i].fd4 >= 0 || r->a[i].fd6 >= 0) &&
		    (hip_addr_is_v4(local) ? r->a[i].fd4 >= 0 : r->a[i].fd6 >= 0)) {
			a = &r->a[i];
			memset(a->perm, 0, sizeof(a->perm));
			a->n_perm = 0;
			a->client_port = 0;
			a->used = true;
			a->client = *client;
			r->ctr.allocated++;
		}
	if (!a) {
		r->ctr.full++;
		return -ENOSPC;
	}
	/* a renewal from elsewhere (the client moved): its new address */
	if (!same_addr(&a->client_addr, client_addr))
		a->client_port = 0;
	a->client_addr = *client_addr;
	a->local = *local;
	relayed->addr = *local;
	relayed->port = a->port;
	relayed->protocol = IPPROTO_UDP;
	return 0;
}

void data_relay_free(struct data_relay *r, const struct hip_hit *client)
{
	struct dr_alloc *a = alloc_of(r, client);

	if (!a)
		return;
	a->used = false;
	a->n_perm = 0;
	a->client_port = 0;
	r->ctr.freed++;
}

void data_relay_gc(struct data_relay *r, bool (*held)(const struct hip_hit *client, void *arg),
		   void *arg)
{
	unsigned i;

	for (i = 0; i < r->n; i++)
		if (r->a[i].used && !held(&r->a[i].client, arg))
			data_relay_free(r, &r->a[i].client);
}

int data_relay_permit(struct data_relay *r, const struct hip_hit *client,
		      const struct hip_peer_permission *pp)
{
	struct dr_alloc *a = alloc_of(r, client);
	struct dr_perm *m = NULL;
	unsigned i;

	if (!a)
		return -ENOENT;
	if (hip_addr_locator_problem(&pp->peer.addr) || pp->ospi < 256 || pp->ispi < 256 ||
	    (pp->peer.protocol != IPPROTO_UDP && pp->peer.protocol != 0))
		return -EINVAL;
	for (i = 0; i < a->n_perm; i++)
		if (!memcmp(&a->perm[i].hit, &pp->hit, sizeof(pp->hit)) &&
		    same_addr(&a->perm[i].peer, &pp->peer.addr))
			m = &a->perm[i];
	/* §4.12.3: one OSPI leads to one peer (else the client's ESP could
	 * not be told apart) */
	for (i = 0; i < a->n_perm; i++)
		if (&a->perm[i] != m && a->perm[i].ospi == pp->ospi &&
		    memcmp(&a->perm[i].hit, &pp->hit, sizeof(pp->hit)))
			return -EEXIST;
	if (!m) {
		if (a->n_perm == DATA_RELAY_PERMS_MAX)
			return -ENOSPC;
		m = &a->perm[a->n_perm++];
		m->peer = pp->peer.addr;
		m->hit = pp->hit;
		m->peer_port = pp->peer.port;
	}
	m->ospi = pp->ospi;
	m->ispi = pp->ispi;
	r->ctr.permissions++;
	return 0;
}

void data_relay_forget_peer(struct data_relay *r, const struct hip_hit *client,
			    const struct hip_hit *peer)
{
	struct dr_alloc *a = alloc_of(r, client);
	unsigned i;

	for (i = 0; a && i < a->n_perm; )
		if (!memcmp(&a->perm[i].hit, peer, sizeof(*peer)))
			a->perm[i] = a->perm[--a->n_perm];
		else
			i++;
}

size_t data_relay_used(const struct data_relay *r)
{
	size_t i, n = 0;

	for (i = 0; r && i < r->n; i++)
		n += r->a[i].used;
	return n;
}

size_t data_relay_ports(const struct data_relay *r)
{
	return r ? r->n : 0;
}

const struct data_relay_counters *data_relay_counters(const struct data_relay *r)
{
	static const struct data_relay_counters none;

	return r ? &r->ctr : &none;
}
