/*
 * fw_track.c - the association table of hipfw's middlebox mode. Each HIT
 * pair seen in a base exchange has one entry (a fixed pool, hashed on the
 * pair in either order). What each packet type teaches and requires:
 *
 *   I1        creates the entry (or restarts one that was closed);
 *   R1        the Responder's HI (its HOST_ID and HIP_SIGNATURE_2 were
 *             checked by fw_verify.c before we see it);
 *   I2        the Initiator's HI if its HOST_ID is in the clear (checked
 *             the same way), else the policy of D-18; its ESP_INFO gives
 *             the Initiator's inbound SPI (RFC 7402 §6.2); once past I2 an
 *             I2 from another source address is a replay and dropped;
 *   R2        signed by the Responder's HI (RFC 7401 §6.11); its ESP_INFO
 *             gives the Responder's inbound SPI: ESTABLISHED, ESP allowed;
 *   I2 + R2   hipd's LSI_ESP_INFO (docs/decisions.md D-22): the SPI the
 *             Initiator offers for IPv4 between LSIs is learnt when the R2
 *             answers with the Responder's; an R2 without one means the
 *             pair does not exist (both forgotten). The pair keeps its SPIs
 *             across rekeys and moves with the locators;
 *   UPDATE    signed by its sender's HI (§6.12): ESP_INFO with a new SPI is
 *             a rekey (RFC 7402 §6.9), a new source address or preferred
 *             LOCATOR_SET entry a move (RFC 8046 §5.3); both are allowed at
 *             once and replace the old SPI / locator when the peer's UPDATE
 *             ACKs that SEQ;
 *   CLOSE,    signed (§6.14, §6.15): ESP removed; afterwards only a new I1
 *   CLOSE_ACK (or CLOSE/CLOSE_ACK retransmissions) passes.
 *
 * Half-open and closed entries expire; when the table is full the oldest
 * entry that is not established gives way to a new one. Entries restored
 * from the state file after a restart (fw_state.c, docs/decisions.md D-21)
 * are on probation: their ESP passes through userspace until a packet of
 * it, or a packet signed by one of its learnt HIs, confirms them (then
 * their kernel rules go in); unconfirmed ones expire.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "fw_track.h"
#include "hip_crypto.h"
#include "params.h"

enum { NS = 1000000000 };

static const char *const drop_names[FW_TRK_DROP_MAX] = {
	[FW_TRK_OK] = "ok",
	[FW_TRK_BAD_SIGNATURE] = "bad_signature",
	[FW_TRK_I2_REPLAY] = "i2_replay",
	[FW_TRK_UPDATE_FORGED] = "update_forged",
	[FW_TRK_AFTER_CLOSE] = "after_close",
	[FW_TRK_NO_ASSOCIATION] = "no_association",
	[FW_TRK_UNVERIFIED] = "unverified",
	[FW_TRK_BAD_PARAM] = "bad_param",
	[FW_TRK_TABLE_FULL] = "table_full",
	[FW_TRK_ESP_UNKNOWN] = "esp_unknown_spi",
};

static const char *const state_names[] = {
	[FW_TS_I1] = "I1-SEEN", [FW_TS_R1] = "R1-SEEN", [FW_TS_I2] = "I2-SEEN",
	[FW_TS_ESTABLISHED] = "ESTABLISHED", [FW_TS_CLOSING] = "CLOSING",
	[FW_TS_CLOSED] = "CLOSED",
};

const char *fw_track_drop_name(enum fw_track_drop d)
{
	return d < FW_TRK_DROP_MAX ? drop_names[d] : "?";
}

const char *fw_track_state_name(enum fw_track_state s)
{
	return s >= FW_TS_I1 && s <= FW_TS_CLOSED ? state_names[s] : "?";
}

static bool addr_eq(const struct hip_addr *a, const struct hip_addr *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/* FNV-1a over the two HITs, smaller first: the same for either direction. */
static uint32_t pair_hash(const struct hip_hit *x, const struct hip_hit *y)
{
	const struct hip_hit *lo = hip_hit_cmp(x, y) <= 0 ? x : y, *hi = lo == x ? y : x;
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < sizeof(lo->b); i++)
		h = (h ^ lo->b[i]) * 16777619u;
	for (i = 0; i < sizeof(hi->b); i++)
		h = (h ^ hi->b[i]) * 16777619u;
	return h;
}

int fw_track_init(struct fw_track *t, uint32_t max, bool strict, fw_track_esp_cb cb, void *arg)
{
	uint32_t i;

	memset(t, 0, sizeof(*t));
	if (max < 1 || max > (1u << 20))
		return -EINVAL;
	t->nbuckets = 64;
	while (t->nbuckets < max)
		t->nbuckets <<= 1;
	t->pool = calloc(max, sizeof(*t->pool));
	t->bucket = calloc(t->nbuckets, sizeof(*t->bucket));
	if (!t->pool || !t->bucket) {
		fw_track_free(t);
		return -ENOMEM;
	}
	t->max = max;
	t->strict = strict;
	t->esp_cb = cb;
	t->esp_arg = arg;
	for (i = 0; i < max; i++)
		t->pool[i].next = i + 2 <= max ? i + 2 : 0;
	t->free_head = 1;
	return 0;
}

void fw_track_free(struct fw_track *t)
{
	uint32_t i;

	if (t->pool)
		for (i = 0; i < t->max; i++) {
			hip_hi_free(t->pool[i].end[0].hi);
			hip_hi_free(t->pool[i].end[1].hi);
		}
	free(t->pool);
	free(t->bucket);
	t->pool = NULL;
	t->bucket = NULL;
}

static struct fw_assoc *find(const struct fw_track *t, const struct hip_hit *x,
			     const struct hip_hit *y)
{
	uint32_t i = t->bucket[pair_hash(x, y) & (t->nbuckets - 1)];
	struct fw_assoc *a;

	while (i) {
		a = &t->pool[i - 1];
		if ((hip_hit_cmp(&a->end[0].hit, x) == 0 && hip_hit_cmp(&a->end[1].hit, y) == 0) ||
		    (hip_hit_cmp(&a->end[0].hit, y) == 0 && hip_hit_cmp(&a->end[1].hit, x) == 0))
			return a;
		i = a->next;
	}
	return NULL;
}

const struct fw_assoc *fw_track_find(const struct fw_track *t, const struct hip_hit *x,
				     const struct hip_hit *y)
{
	return find(t, x, y);
}

const struct fw_assoc *fw_track_at(const struct fw_track *t, uint32_t *index)
{
	while (*index < t->max) {
		const struct fw_assoc *a = &t->pool[(*index)++];

		if (a->used)
			return a;
	}
	return NULL;
}

static void esp_changed(struct fw_track *t, struct fw_assoc *a)
{
	a->esp_generation++;
	if (t->esp_cb)
		t->esp_cb(a, t->esp_arg);
}

/* Unlink and free: its ESP triples go first (the callback sees none). */
static void release(struct fw_track *t, struct fw_assoc *a)
{
	uint32_t idx = (uint32_t)(a - t->pool) + 1;
	uint32_t *link = &t->bucket[pair_hash(&a->end[0].hit, &a->end[1].hit) & (t->nbuckets - 1)];
	bool had_esp = a->state == FW_TS_ESTABLISHED;

	a->state = FW_TS_CLOSED;
	if (had_esp)
		esp_changed(t, a);
	while (*link && *link != idx)
		link = &t->pool[*link - 1].next;
	if (*link)
		*link = a->next;
	hip_hi_free(a->end[0].hi);
	hip_hi_free(a->end[1].hi);
	memset(a, 0, sizeof(*a));
	a->next = t->free_head;
	t->free_head = idx;
	t->used--;
	t->dirty = true;
}

/* Room for one more: the oldest entry that is not established (a round
 * over the pool from where the last one stopped, so a flood of I1s costs
 * a step or two per packet, not a scan). */
static bool evict_one(struct fw_track *t)
{
	static const uint32_t window = 64;
	struct fw_assoc *best = NULL;
	uint32_t i, k;

	for (k = 0; k < t->max; k++) {
		i = (t->evict_at + k) % t->max;
		if (t->pool[i].used && t->pool[i].state != FW_TS_ESTABLISHED &&
		    (!best || t->pool[i].changed_ns < best->changed_ns))
			best = &t->pool[i];
		if (best && k >= window)
			break;
	}
	if (!best)
		return false;
	t->evict_at = (t->evict_at + k + 1) % t->max;
	release(t, best);
	t->ctr.evicted++;
	return true;
}

static struct fw_assoc *create(struct fw_track *t, const struct hip_hit *init,
			       const struct hip_hit *resp, uint64_t now)
{
	uint32_t idx, b;
	struct fw_assoc *a;

	if (!t->pool || (!t->free_head && !evict_one(t)))
		return NULL;
	idx = t->free_head;
	if (!idx || idx > t->max)
		return NULL;
	a = &t->pool[idx - 1];
	t->free_head = a->next;
	memset(a, 0, sizeof(*a));
	a->used = true;
	a->end[0].hit = *init;
	a->end[1].hit = *resp;
	a->created_ns = a->changed_ns = now;
	b = pair_hash(init, resp) & (t->nbuckets - 1);
	a->next = t->bucket[b];
	t->bucket[b] = idx;
	t->used++;
	t->ctr.created++;
	return a;
}

struct fw_assoc *fw_track_restore(struct fw_track *t, const struct hip_hit *init,
				  const struct hip_hit *resp, uint64_t now_ns)
{
	struct fw_assoc *a;

	if (!t->pool || !t->free_head || find(t, init, resp))
		return NULL;
	a = create(t, init, resp, now_ns);
	if (a)
		t->ctr.created--;   /* counted as restored by the caller */
	return a;
}

void fw_track_clear(struct fw_track *t)
{
	fw_track_esp_cb cb = t->esp_cb;
	uint32_t i;

	t->esp_cb = NULL;
	for (i = 0; t->pool && i < t->max; i++)
		if (t->pool[i].used)
			release(t, &t->pool[i]);
	t->esp_cb = cb;
}

/* A restored entry proved alive: its ESP goes into the kernel now. */
static void confirm(struct fw_track *t, struct fw_assoc *a)
{
	if (!a->probation_ns)
		return;
	a->probation_ns = 0;
	t->ctr.confirmed++;
	t->dirty = true;
	esp_changed(t, a);
}

/* Start over from I1 (a new exchange after CLOSE): the HIs stay (a HIT
 * names one HI), the rest is forgotten. */
static void restart(struct fw_assoc *a, const struct hip_hit *init, uint64_t now)
{
	int i;

	if (hip_hit_cmp(&a->end[0].hit, init) != 0) {
		struct fw_track_end e = a->end[0];

		a->end[0] = a->end[1];
		a->end[1] = e;
	}
	for (i = 0; i < 2; i++) {
		struct hip_hi *hi = a->end[i].hi;
		struct hip_hit hit = a->end[i].hit;

		memset(&a->end[i], 0, sizeof(a->end[i]));
		a->end[i].hi = hi;
		a->end[i].hit = hit;
	}
	a->state = FW_TS_I1;
	a->unverified = false;
	a->probation_ns = 0;
	a->created_ns = a->changed_ns = now;
}

/* The signature of a packet from end e: OK, or why not (bad: the drop for
 * a signature that does not verify). */
static enum fw_track_drop verify(struct fw_track *t, struct fw_assoc *a,
				 const struct fw_track_end *e, const struct fw_packet *p,
				 enum fw_track_drop bad)
{
	if (!e->hi) {
		if (t->strict)
			return FW_TRK_UNVERIFIED;
		a->unverified = true;
		t->ctr.unverified_accepted++;
		return FW_TRK_OK;
	}
	if (hip_verify_signature(&p->pkt, HIP_COVER_SIGNATURE, e->hi) != 0)
		return bad;
	confirm(t, a);
	return FW_TRK_OK;
}

/* The one ESP_INFO of a packet: 1 with *ei, 0 without, <0 malformed. */
static int esp_info(const struct fw_packet *p, struct hip_esp_info *ei)
{
	const struct hip_param_ref *r = hip_packet_find(&p->pkt, HIP_PARAM_ESP_INFO);

	if (!r)
		return 0;
	if (hip_esp_info_decode(hip_param_content(&p->pkt, r), r->len, ei) < 0)
		return -EBADMSG;
	return 1;
}

/* The SPI of hipd's LSI_ESP_INFO (D-22), 0 without one. One that does not
 * decode, or a second one, is taken as none, as hipd takes it (it then
 * makes no LSI pair, update_lsi.c): the packet is judged without it and
 * its exchange goes on, as for any unknown non-critical parameter (RFC
 * 7401 §5.2.1). The LSIs are not checked: a host that refuses them answers
 * with none (or drops its pair), and an SPI left allowed here carries no
 * SA. */
static uint32_t lsi_spi(const struct fw_packet *p)
{
	const struct hip_param_ref *r = hip_packet_find(&p->pkt, HIP_PARAM_LSI_ESP_INFO);
	struct hip_lsi_esp_info li;

	if (!r || hip_lsi_esp_info_decode(hip_param_content(&p->pkt, r), r->len, &li) < 0 ||
	    hip_packet_find_next(&p->pkt, r))
		return 0;
	return li.spi;
}

static void set_hi(struct fw_track_end *e, struct hip_hi *hi)
{
	if (hi && !e->hi)
		e->hi = hip_hi_ref(hi);
}

static enum fw_track_drop on_i1(struct fw_track *t, struct fw_assoc *a,
				const struct fw_packet *p, uint64_t now)
{
	if (!a) {
		a = create(t, &p->sender, &p->receiver, now);
		if (!a)
			return FW_TRK_TABLE_FULL;
	} else if (a->state >= FW_TS_CLOSING) {
		restart(a, &p->sender, now);
	} else {
		return FW_TRK_OK;   /* a retransmission, or a peer starting again */
	}
	a->state = FW_TS_I1;
	a->end[0].loc = p->src;
	a->end[0].have_loc = true;
	a->end[0].udp_port = p->sport;
	return FW_TRK_OK;
}

static enum fw_track_drop on_r1(struct fw_track *t, struct fw_assoc *a,
				const struct fw_packet *p, struct hip_hi *hi, uint64_t now)
{
	/* an R1 may come without the I1 (one through a rendezvous server) */
	if (!a) {
		a = create(t, &p->receiver, &p->sender, now);
		if (!a)
			return FW_TRK_TABLE_FULL;
	}
	if (a->state >= FW_TS_CLOSING)
		return FW_TRK_AFTER_CLOSE;
	set_hi(&a->end[hip_hit_cmp(&a->end[0].hit, &p->sender) == 0 ? 0 : 1], hi);
	if (a->state < FW_TS_R1) {
		a->state = FW_TS_R1;
		a->changed_ns = now;
	}
	return FW_TRK_OK;
}

static enum fw_track_drop on_i2(struct fw_track *t, struct fw_assoc *a,
				const struct fw_packet *p, struct hip_hi *hi, uint64_t now)
{
	struct fw_track_end *e, *o;
	struct hip_esp_info ei;
	enum fw_track_drop why;
	bool past;

	if (!a) {
		a = create(t, &p->sender, &p->receiver, now);
		if (!a)
			return FW_TRK_TABLE_FULL;
	}
	if (a->state >= FW_TS_CLOSING)
		return FW_TRK_AFTER_CLOSE;
	e = &a->end[hip_hit_cmp(&a->end[0].hit, &p->sender) == 0 ? 0 : 1];
	o = &a->end[e == &a->end[0] ? 1 : 0];
	past = a->state >= FW_TS_I2;
	/* a replay of a recorded I2 from elsewhere (RFC 7401 §4.4.2: hosts
	 * drop it after the R1 counter check; here it goes no further) */
	if (past && e->have_loc && !addr_eq(&p->src, &e->loc) &&
	    !(e->have_loc_next && addr_eq(&p->src, &e->loc_next)))
		return FW_TRK_I2_REPLAY;
	if (hi) {
		set_hi(e, hi);
	} else {
		why = verify(t, a, e, p, FW_TRK_BAD_SIGNATURE);
		if (why != FW_TRK_OK)
			return why;
	}
	if (esp_info(p, &ei) != 1 || ei.new_spi == 0)
		return FW_TRK_BAD_PARAM;
	/* the LSI pair's SPI, like the SPI, counts from the R2 */
	e->lsi_spi_offer = lsi_spi(p);
	if (past) {
		/* a new exchange over an established one: its SPI counts from R2 */
		if (a->state == FW_TS_ESTABLISHED) {
			e->spi_next = ei.new_spi;
			e->spi_seq = 0;
		} else {
			e->spi = ei.new_spi;
		}
		return FW_TRK_OK;
	}
	e->spi = ei.new_spi;
	e->loc = p->src;
	e->have_loc = true;
	o->loc = p->dst;
	o->have_loc = true;
	e->udp_port = p->sport;
	o->udp_port = p->dport;
	a->state = FW_TS_I2;
	a->changed_ns = now;
	return FW_TRK_OK;
}

static enum fw_track_drop on_r2(struct fw_track *t, struct fw_assoc *a,
				const struct fw_packet *p, uint64_t now)
{
	struct fw_track_end *e, *o;
	struct hip_esp_info ei;
	enum fw_track_drop why;
	uint32_t lsi;

	if (!a || a->state < FW_TS_I2)
		return FW_TRK_NO_ASSOCIATION;
	if (a->state >= FW_TS_CLOSING)
		return FW_TRK_AFTER_CLOSE;
	e = &a->end[hip_hit_cmp(&a->end[0].hit, &p->sender) == 0 ? 0 : 1];
	o = &a->end[e == &a->end[0] ? 1 : 0];
	why = verify(t, a, e, p, FW_TRK_BAD_SIGNATURE);
	if (why != FW_TRK_OK)
		return why;
	if (esp_info(p, &ei) != 1 || ei.new_spi == 0)
		return FW_TRK_BAD_PARAM;
	if (a->state == FW_TS_ESTABLISHED && e->spi == ei.new_spi && !o->spi_next)
		return FW_TRK_OK;   /* the R2 again, for a retransmitted I2 */
	e->spi = ei.new_spi;
	if (o->spi_next && !o->spi_seq) {
		o->spi = o->spi_next;
		o->spi_next = 0;
	}
	/* the Responder's answer makes the LSI pair (D-22); no answer (or no
	 * offer) means none */
	lsi = lsi_spi(p);
	e->lsi_spi = lsi && o->lsi_spi_offer ? lsi : 0;
	o->lsi_spi = lsi ? o->lsi_spi_offer : 0;
	e->lsi_spi_offer = o->lsi_spi_offer = 0;
	e->loc = p->src;
	e->have_loc = true;
	o->loc = p->dst;
	o->have_loc = true;
	e->udp_port = p->sport;
	o->udp_port = p->dport;
	if (a->state != FW_TS_ESTABLISHED)
		t->ctr.established++;
	a->state = FW_TS_ESTABLISHED;
	a->changed_ns = now;
	esp_changed(t, a);
	return FW_TRK_OK;
}

/* The peer's ACKs make a pending move or rekey of end o final. */
static bool acked(const struct fw_packet *p, struct fw_track_end *o, struct fw_track *t)
{
	const struct hip_param_ref *r = hip_packet_find(&p->pkt, HIP_PARAM_ACK);
	struct hip_ack ack;
	bool changed = false;
	unsigned i;

	if (!r || hip_ack_decode(hip_param_content(&p->pkt, r), r->len, &ack) < 0)
		return false;
	for (i = 0; i < ack.n; i++) {
		if (o->have_loc_next && ack.id[i] == o->loc_seq) {
			o->loc = o->loc_next;
			o->udp_port = o->udp_port_next;
			o->have_loc_next = false;
			o->udp_port_next = 0;
			t->ctr.moves++;
			changed = true;
		}
		if (o->spi_next && o->spi_seq && ack.id[i] == o->spi_seq) {
			o->spi = o->spi_next;
			o->spi_next = 0;
			t->ctr.rekeys++;
			changed = true;
		}
	}
	return changed;
}

/* The address end e moves to: the UPDATE's source if new (with its source
 * port), else the preferred address of its LOCATOR_SET (RFC 8046 §4) if new
 * (the port it has now). */
static bool new_locator(const struct fw_packet *p, const struct fw_track_end *e,
			struct hip_addr *out, uint16_t *port)
{
	const struct hip_param_ref *r = hip_packet_find(&p->pkt, HIP_PARAM_LOCATOR_SET);
	struct hip_locator_set ls;
	unsigned i;

	*port = e->udp_port;
	if (!addr_eq(&p->src, &e->loc)) {
		*out = p->src;
		*port = p->sport;
		return true;
	}
	if (!r || hip_locator_set_decode(hip_param_content(&p->pkt, r), r->len, &ls) < 0)
		return false;
	for (i = 0; i < ls.n; i++)
		if (ls.loc[i].preferred && ls.loc[i].locator_type != 2 &&
		    !addr_eq(&ls.loc[i].addr, &e->loc) &&
		    hip_addr_is_v4(&ls.loc[i].addr) == hip_addr_is_v4(&p->src)) {
			*out = ls.loc[i].addr;
			return true;
		}
	return false;
}

/* End e over UDP seen at its locator addr from port: a new port there. */
static bool rebound(struct fw_track *t, struct fw_track_end *e, const struct hip_addr *addr,
		    uint16_t port)
{
	if (!port || !e->udp_port || port == e->udp_port || !e->have_loc ||
	    !addr_eq(addr, &e->loc))
		return false;
	e->udp_port = port;
	t->ctr.udp_rebinds++;
	return true;
}

static enum fw_track_drop on_update(struct fw_track *t, struct fw_assoc *a,
				    const struct fw_packet *p, uint64_t now)
{
	const struct hip_param_ref *r;
	struct fw_track_end *e, *o;
	struct hip_esp_info ei;
	struct hip_addr moved;
	enum fw_track_drop why;
	uint16_t moved_port;
	uint32_t seq = 0;
	bool changed, have_seq = false;
	int n;

	if (!a)
		return FW_TRK_NO_ASSOCIATION;
	if (a->state >= FW_TS_CLOSING)
		return FW_TRK_AFTER_CLOSE;
	if (a->state != FW_TS_ESTABLISHED)
		return FW_TRK_NO_ASSOCIATION;
	e = &a->end[hip_hit_cmp(&a->end[0].hit, &p->sender) == 0 ? 0 : 1];
	o = &a->end[e == &a->end[0] ? 1 : 0];
	why = verify(t, a, e, p, FW_TRK_UPDATE_FORGED);
	if (why != FW_TRK_OK)
		return why;
	r = hip_packet_find(&p->pkt, HIP_PARAM_SEQ);
	if (r) {
		if (hip_seq_decode(hip_param_content(&p->pkt, r), r->len, &seq) < 0)
			return FW_TRK_BAD_PARAM;
		have_seq = true;
	}
	n = esp_info(p, &ei);
	if (n < 0)
		return FW_TRK_BAD_PARAM;
	t->ctr.updates++;
	changed = acked(p, o, t);
	if (have_seq && n == 1 && ei.new_spi && ei.new_spi != e->spi &&
	    ei.new_spi != e->spi_next) {
		e->spi_next = ei.new_spi;
		e->spi_seq = seq;
		changed = true;
	}
	if (have_seq && new_locator(p, e, &moved, &moved_port) &&
	    !(e->have_loc_next && addr_eq(&moved, &e->loc_next) &&
	      moved_port == e->udp_port_next)) {
		e->loc_next = moved;
		e->udp_port_next = moved_port;
		e->have_loc_next = true;
		e->loc_seq = seq;
		changed = true;
	}
	/* signed, over UDP, from or to a known locator at another port: that
	 * end's NAT rebound (hipd follows it, RFC 9028 §5.1), and so does the
	 * fast path */
	changed |= rebound(t, e, &p->src, p->sport);
	changed |= rebound(t, o, &p->dst, p->dport);
	a->changed_ns = now;
	if (changed)
		esp_changed(t, a);
	return FW_TRK_OK;
}

static enum fw_track_drop on_close(struct fw_track *t, struct fw_assoc *a,
				   const struct fw_packet *p, uint64_t now)
{
	const struct fw_track_end *e;
	enum fw_track_drop why;
	bool had_esp;

	if (!a)
		return FW_TRK_NO_ASSOCIATION;
	e = &a->end[hip_hit_cmp(&a->end[0].hit, &p->sender) == 0 ? 0 : 1];
	why = verify(t, a, e, p, FW_TRK_BAD_SIGNATURE);
	if (why != FW_TRK_OK)
		return why;
	had_esp = a->state == FW_TS_ESTABLISHED;
	if (p->type == HIP_CLOSE_ACK || a->state < FW_TS_CLOSING) {
		if (p->type == HIP_CLOSE_ACK && a->state != FW_TS_CLOSED)
			t->ctr.closed++;
		a->state = p->type == HIP_CLOSE_ACK ? FW_TS_CLOSED : FW_TS_CLOSING;
		a->changed_ns = now;
	}
	if (had_esp)
		esp_changed(t, a);
	return FW_TRK_OK;
}

enum fw_track_drop fw_track_hip(struct fw_track *t, const struct fw_packet *p,
				struct hip_hi *hi, uint64_t now_ns)
{
	struct fw_assoc *a = find(t, &p->sender, &p->receiver);
	enum fw_track_drop why;

	switch (p->type) {
	case HIP_I1:
		why = on_i1(t, a, p, now_ns);
		break;
	case HIP_R1:
		why = on_r1(t, a, p, hi, now_ns);
		break;
	case HIP_I2:
		why = on_i2(t, a, p, hi, now_ns);
		break;
	case HIP_R2:
		why = on_r2(t, a, p, now_ns);
		break;
	case HIP_UPDATE:
		why = on_update(t, a, p, now_ns);
		break;
	case HIP_CLOSE:
	case HIP_CLOSE_ACK:
		why = on_close(t, a, p, now_ns);
		break;
	default:
		/* NOTIFY and the rest: signed if we can tell, nothing learnt */
		why = FW_TRK_OK;
		if (a && a->state >= FW_TS_CLOSING)
			why = FW_TRK_AFTER_CLOSE;
		break;
	}
	if (why != FW_TRK_OK) {
		t->ctr.drop[why]++;
		return why;
	}
	t->dirty = true;
	a = find(t, &p->sender, &p->receiver);
	if (a)
		a->end[hip_hit_cmp(&a->end[0].hit, &p->sender) == 0 ? 0 : 1].packets++;
	return FW_TRK_OK;
}

/* Triples to end `to` (its SPIs, its locators) from end `from`. */
static size_t triples_to(const struct fw_track_end *to, const struct fw_track_end *from,
			 struct fw_esp_triple *out, size_t n, size_t cap)
{
	const struct hip_addr *dst[2] = { to->have_loc ? &to->loc : NULL,
					  to->have_loc_next ? &to->loc_next : NULL };
	const struct hip_addr *src[2] = { from->have_loc ? &from->loc : NULL,
					  from->have_loc_next ? &from->loc_next : NULL };
	const uint16_t dport[2] = { to->udp_port, to->udp_port_next };
	const uint16_t sport[2] = { from->udp_port, from->udp_port_next };
	/* the LSI pair's SPI (D-22) moves with the same locators */
	uint32_t spi[3] = { to->spi, to->spi_next != to->spi ? to->spi_next : 0,
			    to->lsi_spi != to->spi && to->lsi_spi != to->spi_next ? to->lsi_spi : 0 };
	int s, d, k;

	for (k = 0; k < 3; k++)
		for (d = 0; d < 2; d++)
			for (s = 0; s < 2; s++) {
				if (!spi[k] || !dst[d] || !src[s] || n >= cap ||
				    hip_addr_is_v4(dst[d]) != hip_addr_is_v4(src[s]))
					continue;
				out[n].src = *src[s];
				out[n].dst = *dst[d];
				out[n].spi = spi[k];
				out[n].sport = sport[s];
				out[n].dport = dport[d];
				n++;
			}
	return n;
}

/* Every triple of an established association, on probation or not. */
static size_t all_triples(const struct fw_assoc *a, struct fw_esp_triple *out, size_t cap)
{
	size_t n;

	if (!a->used || a->state != FW_TS_ESTABLISHED)
		return 0;
	n = triples_to(&a->end[0], &a->end[1], out, 0, cap);
	return triples_to(&a->end[1], &a->end[0], out, n, cap);
}

size_t fw_track_triples(const struct fw_assoc *a, struct fw_esp_triple *out, size_t cap)
{
	return a->probation_ns ? 0 : all_triples(a, out, cap);
}

enum fw_track_drop fw_track_esp(struct fw_track *t, const struct hip_addr *src,
				const struct hip_addr *dst, uint32_t spi)
{
	return fw_track_esp_udp(t, src, dst, spi, 0, 0);
}

enum fw_track_drop fw_track_esp_udp(struct fw_track *t, const struct hip_addr *src,
				    const struct hip_addr *dst, uint32_t spi, uint16_t sport,
				    uint16_t dport)
{
	struct fw_esp_triple tr[2 * FW_TRACK_ESP_MAX];
	size_t n, k;
	uint32_t i;

	/* the kernel passes every learnt triple; one here raced its rule or
	 * belongs to a restored association on probation */
	for (i = 0; i < t->max; i++) {
		if (!t->pool[i].used || t->pool[i].state != FW_TS_ESTABLISHED)
			continue;
		n = all_triples(&t->pool[i], tr, sizeof(tr) / sizeof(tr[0]));
		for (k = 0; k < n; k++)
			if (tr[k].spi == spi && addr_eq(&tr[k].src, src) &&
			    addr_eq(&tr[k].dst, dst)) {
				if (dport && ((tr[k].sport && tr[k].sport != sport) ||
					      (tr[k].dport && tr[k].dport != dport)))
					t->ctr.esp_udp_other_port++;
				confirm(t, &t->pool[i]);
				return FW_TRK_OK;
			}
	}
	t->ctr.drop[FW_TRK_ESP_UNKNOWN]++;
	return FW_TRK_ESP_UNKNOWN;
}

void fw_track_expire(struct fw_track *t, uint64_t now_ns)
{
	uint64_t age;
	uint32_t i;

	for (i = 0; i < t->max; i++) {
		struct fw_assoc *a = &t->pool[i];

		if (!a->used)
			continue;
		age = now_ns - a->changed_ns;
		if (a->probation_ns && now_ns >= a->probation_ns) {
			release(t, a);
			t->ctr.unconfirmed++;
			continue;
		}
		if ((a->state < FW_TS_ESTABLISHED && age > (uint64_t)FW_TRACK_HALF_OPEN_S * NS) ||
		    (a->state >= FW_TS_CLOSING && age > (uint64_t)FW_TRACK_CLOSED_S * NS)) {
			release(t, a);
			t->ctr.expired++;
		}
	}
}
