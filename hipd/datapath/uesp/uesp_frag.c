/*
 * uesp_frag.c - IPv4 reassembly of our own fragments before BEET
 * (uesp_frag.h; RFC 791 §3.2, overlaps handled as RFC 5722 does for IPv6).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "uesp_csum.h"
#include "uesp_frag.h"

enum { SLOT_FREE = 0, SLOT_BUSY = 1, SLOT_OUT = 2 };

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void slot_drop(struct uesp_frag_dgram *d)
{
	free(d->buf);
	memset(d, 0, sizeof(*d));
}

static bool unit_seen(const struct uesp_frag_dgram *d, size_t u)
{
	return (d->seen[u / 8] >> (u % 8)) & 1;
}

/* Units first..end-1: all seen (1), none (0), some (-1). */
static int units_state(const struct uesp_frag_dgram *d, size_t first, size_t end)
{
	size_t n = 0;

	if (first == end)
		return 0;               /* an empty last fragment: only the end */
	for (size_t u = first; u < end; u++)
		n += unit_seen(d, u);
	return n == end - first ? 1 : n == 0 ? 0 : -1;
}

/* Any unit at or after first seen? (a last fragment ending before data
 * we hold) */
static bool seen_from(const struct uesp_frag_dgram *d, size_t first)
{
	for (size_t u = first; u < UESP_FRAG_UNITS; u++)
		if (unit_seen(d, u))
			return true;
	return false;
}

void uesp_frag_expire(struct uesp_frag *f, uint64_t now_ns)
{
	for (unsigned i = 0; i < UESP_FRAG_SLOTS; i++) {
		struct uesp_frag_dgram *d = &f->d[i];

		if (d->state == SLOT_BUSY && now_ns - d->start_ns > UESP_FRAG_TIMEOUT_NS) {
			f->st.timeouts++;
			slot_drop(d);
		}
	}
}

static struct uesp_frag_dgram *slot_get(struct uesp_frag *f, const uint8_t *key, uint64_t now_ns,
					int *rc)
{
	struct uesp_frag_dgram *free_slot = NULL;

	for (unsigned i = 0; i < UESP_FRAG_SLOTS; i++) {
		struct uesp_frag_dgram *d = &f->d[i];

		if (d->state == SLOT_BUSY && !memcmp(d->key, key, sizeof(d->key)))
			return d;
		if (d->state == SLOT_FREE && !free_slot)
			free_slot = &f->d[i];
	}
	if (!free_slot) {
		*rc = -ENOSPC;
		return NULL;
	}
	free_slot->buf = malloc(UESP_FRAG_DGRAM_MAX);
	if (!free_slot->buf) {
		*rc = -ENOMEM;
		return NULL;
	}
	memcpy(free_slot->key, key, sizeof(free_slot->key));
	free_slot->state = SLOT_BUSY;
	free_slot->start_ns = now_ns;
	return free_slot;
}

/* The datagram is whole: its header without fragment fields. */
static void finish(struct uesp_frag_dgram *d, uint8_t **dgram, size_t *dgram_len)
{
	uint8_t *ip = d->buf;
	uint16_t c;

	ip[2] = (uint8_t)(d->total >> 8);
	ip[3] = (uint8_t)d->total;
	ip[6] &= 0x40;                  /* DF kept (never set on fragments); MF, offset go */
	ip[7] = 0;
	ip[10] = ip[11] = 0;
	c = (uint16_t)~csum_fold(csum_add(0, ip, IP4_HDR));
	memcpy(ip + 10, &c, 2);
	d->state = SLOT_OUT;
	*dgram = ip;
	*dgram_len = d->total;
}

int uesp_frag_add(struct uesp_frag *f, const uint8_t *ip4, size_t len, uint64_t now_ns,
		  uint8_t **dgram, size_t *dgram_len)
{
	struct uesp_frag_dgram *d;
	uint8_t key[11];
	size_t off, plen, first, end;
	bool more;
	int rc = 0, seen;

	if (!f || !ip4 || !dgram || !dgram_len)
		return -EINVAL;
	*dgram = NULL;
	*dgram_len = 0;
	if (len < IP4_HDR || (ip4[0] >> 4) != 4 || rd16(ip4 + 2) != len || !uesp_frag_is(ip4, len))
		return -EINVAL;
	if ((ip4[0] & 0x0f) != 5)
		return -EPROTONOSUPPORT;
	off = (size_t)(rd16(ip4 + 6) & 0x1fff) * 8;
	more = (ip4[6] & 0x20) != 0;
	plen = len - IP4_HDR;
	/* RFC 791: every fragment but the last carries whole 8-byte units */
	if (more && (plen == 0 || plen % 8)) {
		f->st.bad++;
		return -EINVAL;
	}
	f->st.frags++;
	uesp_frag_expire(f, now_ns);
	memcpy(key, ip4 + 12, 8);
	key[8] = ip4[9];
	memcpy(key + 9, ip4 + 4, 2);
	d = slot_get(f, key, now_ns, &rc);
	if (!d) {
		f->st.limits++;
		return rc;
	}
	if (IP4_HDR + off + plen > UESP_FRAG_DGRAM_MAX) {
		f->st.limits++;
		slot_drop(d);
		return -EMSGSIZE;
	}
	first = off / 8;
	end = (off + plen + 7) / 8;
	/* the end: one only, and nothing received beyond it */
	if ((!more && ((d->total && d->total != IP4_HDR + off + plen) || seen_from(d, end))) ||
	    (d->total && IP4_HDR + off + plen > d->total) ||
	    (d->total && more && IP4_HDR + off + plen == d->total))
		goto inconsistent;
	seen = units_state(d, first, end);
	if (seen == 1 && !memcmp(d->buf + IP4_HDR + off, ip4 + IP4_HDR, plen)) {
		f->st.dups++;
		return 0;
	}
	if (seen)
		goto inconsistent;
	for (size_t u = first; u < end; u++)
		d->seen[u / 8] |= (uint8_t)(1u << (u % 8));
	memcpy(d->buf + IP4_HDR + off, ip4 + IP4_HDR, plen);
	if (off == 0)
		memcpy(d->buf, ip4, IP4_HDR);
	d->have += plen;
	if (!more)
		d->total = IP4_HDR + off + plen;
	if (d->total && d->have == d->total - IP4_HDR) {
		f->st.reassembled++;
		finish(d, dgram, dgram_len);
	}
	return 0;
inconsistent:
	f->st.overlaps++;
	slot_drop(d);
	return -EEXIST;
}

void uesp_frag_release(struct uesp_frag *f, const uint8_t *dgram)
{
	if (!f || !dgram)
		return;
	for (unsigned i = 0; i < UESP_FRAG_SLOTS; i++)
		if (f->d[i].state == SLOT_OUT && f->d[i].buf == dgram)
			slot_drop(&f->d[i]);
}

void uesp_frag_clear(struct uesp_frag *f)
{
	if (!f)
		return;
	for (unsigned i = 0; i < UESP_FRAG_SLOTS; i++)
		if (f->d[i].state != SLOT_FREE)
			slot_drop(&f->d[i]);
}
