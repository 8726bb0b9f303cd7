/*
 * uesp_sa.c - the userspace ESP datapath's tables (uesp_int.h): SAs by SPI
 * and direction, peers by HIT with their first-packet hold queue, byte
 * accounting (soft byte lifetime) and the rate-limited acquire and traffic
 * events to the engine. The bottom of the datapath: uesp.c (datapath_ops,
 * set-up) and uesp_io.c (the packet path) call it; it calls neither.
 */
#include <stdlib.h>
#include <string.h>

#include "uesp_int.h"

static unsigned spi_bucket(uint32_t spi)
{
	return (spi * 2654435761u) >> 24;   /* Fibonacci hashing, 8 bits */
}

static unsigned hit_bucket(const struct hip_hit *h)
{
	/* The last bytes of an ORCHID are hash output already. */
	return (unsigned)(h->b[15] ^ h->b[14] * 31u ^ h->b[13] * 131u) % UESP_BUCKETS;
}

struct uesp_sa *uesp_sa_find(struct uesp *u, uint32_t spi, bool inbound)
{
	struct uesp_sa *sa = (inbound ? u->sa_in : u->sa_out)[spi_bucket(spi)];

	for (; sa; sa = sa->next) {
		if ((inbound ? sa->in.spi : sa->out.spi) == spi)
			return sa;
	}
	return NULL;
}

struct uesp_peer *uesp_peer_find(struct uesp *u, const struct hip_hit *hit, bool create)
{
	unsigned b = hit_bucket(hit);
	struct uesp_peer *p;

	if (u->last_peer && !memcmp(u->last_peer->hit.b, hit->b, sizeof(hit->b)))
		return u->last_peer;
	for (p = u->peers[b]; p; p = p->next) {
		if (!memcmp(p->hit.b, hit->b, sizeof(hit->b))) {
			u->last_peer = p;
			return p;
		}
	}
	if (!create || u->n_peers >= UESP_PEERS_MAX)
		return NULL;
	/* Allocated per peer (first packet or policy), never per packet. */
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->hit = *hit;
	p->next = u->peers[b];
	u->peers[b] = p;
	u->n_peers++;
	return p;
}

void uesp_ev_acquire(struct uesp *u, struct uesp_peer *p, const uint8_t *local_hit)
{
	struct hip_hit local;

	if (p->acquire_ns && u->now_ns - p->acquire_ns < UESP_ACQUIRE_EVERY_NS)
		return;
	p->acquire_ns = u->now_ns ? u->now_ns : 1;
	memcpy(local.b, local_hit, sizeof(local.b));
	if (uesp_key_is_lsi(&p->hit)) {
		struct in_addr l4, p4;

		memcpy(&l4, local.b + 12, 4);
		memcpy(&p4, p->hit.b + 12, 4);
		if (u->dp.ev.acquire_lsi)
			u->dp.ev.acquire_lsi(u->dp.ev.arg, &l4, &p4);
		return;
	}
	if (u->dp.ev.acquire)
		u->dp.ev.acquire(u->dp.ev.arg, &local, &p->hit);
}

void uesp_ev_traffic(struct uesp *u, struct uesp_sa *sa)
{
	if (sa->traffic_ns && u->now_ns - sa->traffic_ns < UESP_TRAFFIC_EVERY_NS)
		return;
	sa->traffic_ns = u->now_ns ? u->now_ns : 1;
	if (u->dp.ev.traffic)
		u->dp.ev.traffic(u->dp.ev.arg, sa->in.spi);
}

/* Byte lifetimes (the time ones run from the tick). */
void uesp_account(struct uesp *u, struct uesp_sa *sa, size_t bytes)
{
	sa->st.packets++;
	sa->st.bytes += bytes;
	if (sa->soft_bytes && !sa->soft_sent && sa->st.bytes >= sa->soft_bytes) {
		sa->soft_sent = true;
		if (u->dp.ev.expire)
			u->dp.ev.expire(u->dp.ev.arg, uesp_sa_spi(sa), false);
	}
}

void uesp_sa_free(struct uesp_sa *sa)
{
	if (!sa)
		return;
	hip_esp_ctx_free(sa->inbound ? sa->in.ctx : sa->out.ctx);
	hip_wipe(sa, sizeof(*sa));
	free(sa);
}

/* Unlink the SA with spi from its table; returns it (or NULL). */
struct uesp_sa *uesp_sa_unlink(struct uesp *u, uint32_t spi, bool inbound)
{
	struct uesp_sa **pp = &(inbound ? u->sa_in : u->sa_out)[spi_bucket(spi)];
	struct uesp_sa *sa;

	for (; *pp; pp = &(*pp)->next) {
		sa = *pp;
		if (uesp_sa_spi(sa) == spi) {
			*pp = sa->next;
			return sa;
		}
	}
	return NULL;
}

/* Put a new SA at the head of its bucket (its SPI and direction set). */
void uesp_sa_link(struct uesp *u, struct uesp_sa *sa)
{
	struct uesp_sa **head = &(sa->inbound ? u->sa_in : u->sa_out)[spi_bucket(uesp_sa_spi(sa))];

	sa->next = *head;
	*head = sa;
}

void uesp_peers_forget_sa(struct uesp *u, const struct uesp_sa *sa)
{
	for (unsigned b = 0; b < UESP_BUCKETS; b++) {
		for (struct uesp_peer *p = u->peers[b]; p; p = p->next) {
			if (p->sa == sa)
				p->sa = NULL;
		}
	}
}

void uesp_hold_free(struct uesp *u, struct uesp_peer *p)
{
	if (!p->hold)
		return;
	hip_wipe(p->hold, sizeof(*p->hold));
	free(p->hold);
	p->hold = NULL;
	u->n_holds--;
}

void uesp_hold_packet(struct uesp *u, struct uesp_peer *p, const uint8_t *pkt, size_t len)
{
	struct uesp_hold *h = p->hold;

	if (len > UESP_INNER_MAX)
		return;
	if (!h) {
		/* Once per pending exchange, never per packet; bounded so a
		 * scan of many HITs cannot pin memory. */
		if (u->n_holds >= UESP_HOLDS_MAX)
			return;
		h = malloc(sizeof(*h));
		if (!h)
			return;
		h->n = 0;
		p->hold = h;
		u->n_holds++;
	}
	if (h->n < UESP_HOLD_MAX) {
		memcpy(h->buf[h->n], pkt, len);
		h->len[h->n++] = (uint16_t)len;
	}
}

void uesp_peer_unlink(struct uesp *u, struct uesp_peer *p)
{
	struct uesp_peer **pp = &u->peers[hit_bucket(&p->hit)];

	for (; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	if (u->last_peer == p)
		u->last_peer = NULL;
	u->n_peers--;
	uesp_hold_free(u, p);
	free(p);
}
