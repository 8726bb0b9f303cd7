/*
 * builder.c - HIP packet builder (RFC 7401 §5.1, §5.2.1).
 *
 * Writes the fixed header, then TLVs in ascending type order, each padded
 * with zeros to a multiple of 8 bytes. Every write is preceded by a capacity
 * check; the first error sticks and turns every later call into a no-op.
 */
#include <errno.h>
#include <string.h>

#include "packet.h"

static void build_fail(struct hip_builder *b, int err)
{
	if (!b->err)
		b->err = err;
}

/* Room for n more bytes without going past cap (which is <= HIP_MAX_PACKET). */
static bool build_has_room(const struct hip_builder *b, size_t n)
{
	return n <= b->cap - b->len;
}

/* §5.2.1: strictly ascending types; the same type again only for the
 * parameters that may repeat, and then only consecutively. */
static bool build_order_ok(const struct hip_builder *b, uint16_t type)
{
	if (type == 0)
		return false;
	if (type > b->last_type)
		return true;
	return type == b->last_type && hip_param_is_repeatable(type);
}

void hip_build_init(struct hip_builder *b, uint8_t *buf, size_t cap,
		    uint8_t type, const struct hip_hit *sender,
		    const struct hip_hit *receiver)
{
	memset(b, 0, sizeof(*b));
	b->buf = buf;
	b->cap = cap > HIP_MAX_PACKET ? HIP_MAX_PACKET : cap;
	if (!buf || !sender || (type & 0x80)) {
		b->err = -EINVAL;
		return;
	}
	if (b->cap < HIP_HDR_LEN) {
		b->err = -ENOSPC;
		return;
	}
	memset(buf, 0, HIP_HDR_LEN);
	buf[0] = HIP_NEXT_HDR_NONE;
	buf[1] = HIP_HDR_LEN_MIN;
	buf[2] = type;          /* bit 7 stays 0 (SHIM6 fixed bit) */
	buf[3] = HIP_VER_BYTE;
	memcpy(buf + 8, sender->b, HIP_HIT_LEN);
	if (receiver)
		memcpy(buf + 24, receiver->b, HIP_HIT_LEN);
	b->len = HIP_HDR_LEN;
}

void hip_build_resume(struct hip_builder *b, uint8_t *buf, size_t cap,
		      const struct hip_packet *pkt)
{
	memset(b, 0, sizeof(*b));
	b->buf = buf;
	b->cap = cap > HIP_MAX_PACKET ? HIP_MAX_PACKET : cap;
	if (!buf || !pkt || pkt->len < HIP_HDR_LEN || pkt->len % 8) {
		b->err = -EINVAL;
		return;
	}
	if (pkt->len > b->cap) {
		b->err = -ENOSPC;
		return;
	}
	if (buf != pkt->buf)
		memmove(buf, pkt->buf, pkt->len);
	b->len = pkt->len;
	b->last_type = pkt->nparams ? pkt->params[pkt->nparams - 1].type : 0;
}

void hip_build_set_controls(struct hip_builder *b, uint16_t controls)
{
	if (b->err)
		return;
	hip_wr16(b->buf + 6, controls);
}

void hip_build_param(struct hip_builder *b, uint16_t type,
		     const void *content, size_t len)
{
	size_t total;

	if (b->err)
		return;
	if (b->open_off || !build_order_ok(b, type) || (len && !content)) {
		build_fail(b, -EINVAL);
		return;
	}
	if (len > HIP_MAX_PACKET) {
		build_fail(b, -ENOSPC);
		return;
	}
	total = hip_tlv_total_len((unsigned)len);
	if (!build_has_room(b, total)) {
		build_fail(b, -ENOSPC);
		return;
	}
	hip_wr16(b->buf + b->len, type);
	hip_wr16(b->buf + b->len + 2, (uint16_t)len);
	if (len)
		memcpy(b->buf + b->len + HIP_TLV_HDR_LEN, content, len);
	memset(b->buf + b->len + HIP_TLV_HDR_LEN + len, 0, total - HIP_TLV_HDR_LEN - len);
	b->len += total;
	b->last_type = type;
}

void hip_build_begin(struct hip_builder *b, uint16_t type)
{
	if (b->err)
		return;
	if (b->open_off || !build_order_ok(b, type)) {
		build_fail(b, -EINVAL);
		return;
	}
	if (!build_has_room(b, HIP_TLV_HDR_LEN)) {
		build_fail(b, -ENOSPC);
		return;
	}
	hip_wr16(b->buf + b->len, type);
	hip_wr16(b->buf + b->len + 2, 0);
	b->open_off = b->len;   /* never 0: the header comes first */
	b->len += HIP_TLV_HDR_LEN;
	b->last_type = type;
}

uint8_t *hip_build_reserve(struct hip_builder *b, size_t len)
{
	uint8_t *p;

	if (b->err)
		return NULL;
	if (!b->open_off) {
		build_fail(b, -EINVAL);
		return NULL;
	}
	if (!build_has_room(b, len)) {
		build_fail(b, -ENOSPC);
		return NULL;
	}
	p = b->buf + b->len;
	memset(p, 0, len);
	b->len += len;
	return p;
}

void hip_build_put(struct hip_builder *b, const void *data, size_t len)
{
	uint8_t *p;

	if (!b->err && len && !data) {
		build_fail(b, -EINVAL);
		return;
	}
	p = hip_build_reserve(b, len);
	if (p && len)
		memcpy(p, data, len);
}

void hip_build_put_u8(struct hip_builder *b, uint8_t v)
{
	hip_build_put(b, &v, 1);
}

void hip_build_put_u16(struct hip_builder *b, uint16_t v)
{
	uint8_t w[2];

	hip_wr16(w, v);
	hip_build_put(b, w, sizeof(w));
}

void hip_build_put_u32(struct hip_builder *b, uint32_t v)
{
	uint8_t w[4];

	hip_wr32(w, v);
	hip_build_put(b, w, sizeof(w));
}

void hip_build_put_u64(struct hip_builder *b, uint64_t v)
{
	hip_build_put_u32(b, (uint32_t)(v >> 32));
	hip_build_put_u32(b, (uint32_t)v);
}

void hip_build_end(struct hip_builder *b)
{
	size_t content_len, pad;

	if (b->err)
		return;
	if (!b->open_off) {
		build_fail(b, -EINVAL);
		return;
	}
	content_len = b->len - b->open_off - HIP_TLV_HDR_LEN;
	pad = hip_tlv_total_len((unsigned)content_len) - HIP_TLV_HDR_LEN - content_len;
	if (!build_has_room(b, pad)) {
		build_fail(b, -ENOSPC);
		return;
	}
	memset(b->buf + b->len, 0, pad);
	b->len += pad;
	hip_wr16(b->buf + b->open_off + 2, (uint16_t)content_len);
	b->open_off = 0;
}

int hip_build_snapshot(struct hip_builder *b)
{
	if (b->err)
		return b->err;
	if (b->open_off) {
		build_fail(b, -EINVAL);
		return b->err;
	}
	/* len is a multiple of 8 here: header and every closed TLV are. */
	b->buf[1] = (uint8_t)(b->len / 8 - 1);
	return (int)b->len;
}

int hip_build_finish(struct hip_builder *b)
{
	return hip_build_snapshot(b);
}
