/*
 * params_misc.c - mobility, update, notification, echo, certificate,
 * registration, rendezvous and relay parameters: LOCATOR_SET (RFC 8046 §4),
 * SEQ, ACK, NOTIFICATION, ECHO_*, CERT (RFC 7401 §5.2), REG_* (RFC 8003 §4),
 * FROM/VIA_RVS (RFC 8004 §4.2), RELAY_FROM/RELAY_TO/REG_FROM (RFC 5770).
 * Encoders that serve several types check them against the parameter
 * table (parser.c); byte order helpers come from byteorder.h.
 */
#include <errno.h>
#include <string.h>

#include "params.h"

static void build_fail(struct hip_builder *b, int err)
{
	if (!b->err)
		b->err = err;
}

/* Encoders shared by several types take only the types of their layout,
 * as the parameter table (parser.c) lists them. */
static bool param_has_layout(uint16_t type, enum hip_param_layout layout)
{
	const struct hip_param_info *pi = hip_param_info(type);

	return pi && pi->layout == layout;
}

/* ---- LOCATOR_SET (193), RFC 8046 §4 ---- */

/* Locator Length in 4-byte words per Locator Type; 0 = not supported. */
static unsigned locator_words(uint8_t type)
{
	switch (type) {
	case HIP_LOC_TYPE_ADDR:      return 4;  /* address */
	case HIP_LOC_TYPE_ESP_SPI:   return 5;  /* SPI | address */
	case HIP_LOC_TYPE_TRANSPORT: return 7;  /* RFC 5770 §5.7 */
	default:                     return 0;
	}
}

/* RFC 8046 §4: broadcast and multicast MUST NOT be announced and received ones
 * MUST be rejected; an unspecified address is no locator either. */
static bool locator_addr_ok(const uint8_t a[16])
{
	static const uint8_t zero[16];
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (a[0] == 0xff || memcmp(a, zero, 16) == 0)
		return false;
	if (memcmp(a, v4mapped, sizeof(v4mapped)) == 0) {
		const uint8_t *v4 = a + 12;

		if ((v4[0] & 0xf0) == 0xe0)                     /* 224.0.0.0/4 */
			return false;
		if (hip_rd32(v4) == 0xffffffffu || hip_rd32(v4) == 0)   /* broadcast, 0.0.0.0 */
			return false;
	}
	return true;
}

/* One locator whose length and type were checked: body points after the
 * 8-byte locator header. */
static void locator_read(const uint8_t *hdr, const uint8_t *body, struct hip_locator *l)
{
	memset(l, 0, sizeof(*l));
	l->traffic_type = hdr[0];
	l->locator_type = hdr[1];
	l->preferred = hdr[3] & HIP_LOC_PREFERRED;
	l->lifetime = hip_rd32(hdr + 4);
	switch (l->locator_type) {
	case HIP_LOC_TYPE_ESP_SPI:
		l->spi = hip_rd32(body);
		body += 4;
		break;
	case HIP_LOC_TYPE_TRANSPORT:
		l->port = hip_rd16(body);
		l->transport_protocol = body[2];
		l->kind = body[3];
		l->priority = hip_rd32(body + 4);
		l->spi = hip_rd32(body + 8);
		body += 12;
		break;
	default:
		break;
	}
	memcpy(&l->addr.in6, body, 16);
}

int hip_locator_set_decode(const uint8_t *c, size_t len, struct hip_locator_set *out)
{
	bool unsupported = false;
	unsigned count = 0;
	size_t off = 0;

	out->n = 0;
	while (off < len) {
		const uint8_t *hdr = c + off;
		size_t body_len;
		unsigned words;

		if (len - off < HIP_LOC_HDR_LEN)
			return -EBADMSG;
		body_len = (size_t)hdr[2] * 4;
		if (body_len > len - off - HIP_LOC_HDR_LEN)
			return -EBADMSG;
		if (hdr[0] > HIP_LOC_TRAFFIC_DATA || hip_rd32(hdr + 4) == 0)
			return -EBADMSG;
		if (++count > HIP_LOCATORS_MAX)
			return -EBADMSG;
		off += HIP_LOC_HDR_LEN + body_len;
		words = locator_words(hdr[1]);
		if (!words) {
			/* Walk on: a malformed set is -EBADMSG whatever its types. */
			unsupported = true;
			continue;
		}
		if (hdr[2] != words)
			return -EBADMSG;
		/* The address is always the last 16 bytes of the locator. */
		if (!locator_addr_ok(hdr + HIP_LOC_HDR_LEN + body_len - 16))
			return -EBADMSG;
		locator_read(hdr, hdr + HIP_LOC_HDR_LEN, &out->loc[out->n++]);
	}
	return unsupported ? -ENOTSUP : 0;
}

void hip_locator_set_build(struct hip_builder *b, const struct hip_locator_set *v)
{
	unsigned i;

	if (v->n > HIP_LOCATORS_MAX) {
		build_fail(b, -EINVAL);
		return;
	}
	for (i = 0; i < v->n; i++) {
		const struct hip_locator *l = &v->loc[i];

		if (l->traffic_type > HIP_LOC_TRAFFIC_DATA || !locator_words(l->locator_type) ||
		    l->lifetime == 0 || !locator_addr_ok(l->addr.in6.s6_addr)) {
			build_fail(b, -EINVAL);
			return;
		}
	}
	hip_build_begin(b, HIP_PARAM_LOCATOR_SET);
	for (i = 0; i < v->n; i++) {
		const struct hip_locator *l = &v->loc[i];

		hip_build_put_u8(b, l->traffic_type);
		hip_build_put_u8(b, l->locator_type);
		hip_build_put_u8(b, (uint8_t)locator_words(l->locator_type));
		hip_build_put_u8(b, l->preferred ? HIP_LOC_PREFERRED : 0);
		hip_build_put_u32(b, l->lifetime);
		if (l->locator_type == HIP_LOC_TYPE_TRANSPORT) {
			hip_build_put_u16(b, l->port);
			hip_build_put_u8(b, l->transport_protocol);
			hip_build_put_u8(b, l->kind);
			hip_build_put_u32(b, l->priority);
		}
		if (l->locator_type != HIP_LOC_TYPE_ADDR)
			hip_build_put_u32(b, l->spi);
		hip_build_put(b, l->addr.in6.s6_addr, 16);
	}
	hip_build_end(b);
}

/* ---- SEQ (385) §5.2.16, ACK (449) §5.2.17 ---- */

/* The parameters that are one 32-bit value (SEQ, TRANSACTION_PACING,
 * CANDIDATE_PRIORITY): exactly 4 bytes of content. */
int hip_u32_param_decode(const uint8_t *c, size_t len, uint32_t *out)
{
	if (len != HIP_LEN_U32_PARAM)
		return -EBADMSG;
	*out = hip_rd32(c);
	return 0;
}

void hip_u32_param_build(struct hip_builder *b, uint16_t type, uint32_t v)
{
	hip_build_begin(b, type);
	hip_build_put_u32(b, v);
	hip_build_end(b);
}

int hip_seq_decode(const uint8_t *c, size_t len, uint32_t *update_id)
{
	return hip_u32_param_decode(c, len, update_id);
}

void hip_seq_build(struct hip_builder *b, uint32_t update_id)
{
	hip_u32_param_build(b, HIP_PARAM_SEQ, update_id);
}

int hip_ack_decode(const uint8_t *c, size_t len, struct hip_ack *out)
{
	size_t i;

	if (len == 0 || len % 4 || len / 4 > HIP_ACK_MAX)
		return -EBADMSG;
	out->n = (unsigned)(len / 4);
	for (i = 0; i < out->n; i++)
		out->id[i] = hip_rd32(c + 4 * i);
	return 0;
}

void hip_ack_build(struct hip_builder *b, const struct hip_ack *v)
{
	unsigned i;

	if (v->n < 1 || v->n > HIP_ACK_MAX) {
		build_fail(b, -EINVAL);
		return;
	}
	hip_build_begin(b, HIP_PARAM_ACK);
	for (i = 0; i < v->n; i++)
		hip_build_put_u32(b, v->id[i]);
	hip_build_end(b);
}

/* ---- NOTIFICATION (832) §5.2.19: Reserved(16) | type(16) | data ---- */

int hip_notification_decode(const uint8_t *c, size_t len, struct hip_notification *out)
{
	if (len < HIP_LEN_NOTIFY_FIXED)
		return -EBADMSG;
	out->type = hip_rd16(c + 2);
	out->len = len - HIP_LEN_NOTIFY_FIXED;
	out->data = out->len ? c + HIP_LEN_NOTIFY_FIXED : NULL;
	return 0;
}

void hip_notification_build(struct hip_builder *b, uint16_t type, const void *data, size_t len)
{
	hip_build_begin(b, HIP_PARAM_NOTIFICATION);
	hip_build_put_u16(b, 0);
	hip_build_put_u16(b, type);
	hip_build_put(b, data, len);
	hip_build_end(b);
}

/* ---- ECHO_REQUEST/RESPONSE_SIGNED/UNSIGNED §5.2.20-23: opaque, non-empty ---- */

int hip_echo_decode(const uint8_t *c, size_t len, struct hip_opaque *out)
{
	if (len == 0 || len > HIP_MAX_PACKET)
		return -EBADMSG;
	out->data = c;
	out->len = len;
	return 0;
}

void hip_echo_build(struct hip_builder *b, uint16_t type, const void *data, size_t len)
{
	if (!param_has_layout(type, HIP_PL_ECHO) || !data || len == 0) {
		build_fail(b, -EINVAL);
		return;
	}
	hip_build_param(b, type, data, len);
}

/* ---- CERT (768): group | count | id | type | certificate ---- */

int hip_cert_decode(const uint8_t *c, size_t len, struct hip_cert *out)
{
	if (len < 5)
		return -EBADMSG;
	out->group = c[0];
	out->count = c[1];
	out->id = c[2];
	out->type = c[3];
	out->data = c + 4;
	out->len = len - 4;
	return 0;
}

void hip_cert_build(struct hip_builder *b, const struct hip_cert *v)
{
	if (!v->data || v->len == 0) {
		build_fail(b, -EINVAL);
		return;
	}
	hip_build_begin(b, HIP_PARAM_CERT);
	hip_build_put_u8(b, v->group);
	hip_build_put_u8(b, v->count);
	hip_build_put_u8(b, v->id);
	hip_build_put_u8(b, v->type);
	hip_build_put(b, v->data, v->len);
	hip_build_end(b);
}

/* ---- Registration, RFC 8003 §4 ---- */

/* Reg types beyond HIP_LIST_MAX are not kept (no registrar offers that many). */
static void reg_types_read(const uint8_t *c, size_t len, unsigned *n, uint8_t *types)
{
	*n = len < HIP_LIST_MAX ? (unsigned)len : HIP_LIST_MAX;
	memcpy(types, c, *n);
}

/* §4.1: an empty REG_INFO says the services are temporarily unavailable. */
int hip_reg_info_decode(const uint8_t *c, size_t len, struct hip_reg_info *out)
{
	if (len < HIP_LEN_REG_INFO_FIXED)
		return -EBADMSG;
	out->min_lifetime = c[0];
	out->max_lifetime = c[1];
	reg_types_read(c + 2, len - 2, &out->n, out->type);
	return 0;
}

void hip_reg_info_build(struct hip_builder *b, const struct hip_reg_info *v)
{
	if (v->n > HIP_LIST_MAX) {
		build_fail(b, -EINVAL);
		return;
	}
	hip_build_begin(b, HIP_PARAM_REG_INFO);
	hip_build_put_u8(b, v->min_lifetime);
	hip_build_put_u8(b, v->max_lifetime);
	hip_build_put(b, v->type, v->n);
	hip_build_end(b);
}

int hip_reg_decode(const uint8_t *c, size_t len, struct hip_reg *out)
{
	if (len < HIP_LEN_REG_REQ_FIXED + 1)
		return -EBADMSG;
	out->value = c[0];
	reg_types_read(c + 1, len - 1, &out->n, out->type);
	return 0;
}

void hip_reg_build(struct hip_builder *b, uint16_t param_type, const struct hip_reg *v)
{
	if (!param_has_layout(param_type, HIP_PL_REG) || v->n < 1 || v->n > HIP_LIST_MAX) {
		build_fail(b, -EINVAL);
		return;
	}
	hip_build_begin(b, param_type);
	hip_build_put_u8(b, v->value);
	hip_build_put(b, v->type, v->n);
	hip_build_end(b);
}

/* 2^(r/8) for r = 0..7: the lifetime is 2^((v-64)/8) seconds (§4.1) and
 * this keeps libm out of the library. */
static const double lifetime_frac[8] = {
	1.0, 1.0905077326652577, 1.1892071150027210, 1.2968395546510096,
	1.4142135623730951, 1.5422108254079407, 1.6817928305074290, 1.8340080864093424,
};

double hip_reg_lifetime_seconds(uint8_t v)
{
	int e = (int)v - 64;
	int q = e >= 0 ? e / 8 : -((-e + 7) / 8);   /* floor(e / 8) */
	double s;

	if (v == HIP_REG_LIFETIME_CANCEL)
		return 0.0;
	s = lifetime_frac[e - 8 * q];
	for (; q > 0; q--)
		s *= 2.0;
	for (; q < 0; q++)
		s /= 2.0;
	return s;
}

/* Smallest encoding that lasts at least seconds, clamped to 1..255: a real
 * request never encodes as 0 (cancel) by accident. */
uint8_t hip_reg_lifetime_encode(double seconds)
{
	unsigned v;

	for (v = 1; v < 255; v++)
		if (hip_reg_lifetime_seconds((uint8_t)v) >= seconds)
			return (uint8_t)v;
	return 255;
}

/* ---- FROM (65498), VIA_RVS (65502): RFC 8004 §4.2.2-3 ---- */

int hip_from_decode(const uint8_t *c, size_t len, struct hip_addr *out)
{
	if (len != HIP_LEN_FROM)
		return -EBADMSG;
	memcpy(&out->in6, c, 16);
	return 0;
}

void hip_from_build(struct hip_builder *b, const struct hip_addr *a)
{
	hip_build_param(b, HIP_PARAM_FROM, a->in6.s6_addr, 16);
}

int hip_via_rvs_decode(const uint8_t *c, size_t len, struct hip_via_rvs *out)
{
	size_t i;

	if (len == 0 || len % 16 || len / 16 > HIP_VIA_RVS_MAX)
		return -EBADMSG;
	out->n = (unsigned)(len / 16);
	for (i = 0; i < out->n; i++)
		memcpy(&out->addr[i].in6, c + 16 * i, 16);
	return 0;
}

void hip_via_rvs_build(struct hip_builder *b, const struct hip_via_rvs *v)
{
	unsigned i;

	if (v->n < 1 || v->n > HIP_VIA_RVS_MAX) {
		build_fail(b, -EINVAL);
		return;
	}
	hip_build_begin(b, HIP_PARAM_VIA_RVS);
	for (i = 0; i < v->n; i++)
		hip_build_put(b, v->addr[i].in6.s6_addr, 16);
	hip_build_end(b);
}

/* ---- RELAY_FROM / RELAY_TO / REG_FROM (RFC 5770): port | proto | reserved | addr ---- */

int hip_relay_addr_decode(const uint8_t *c, size_t len, struct hip_relay_addr *out)
{
	if (len != HIP_LEN_RELAY_ADDR)
		return -EBADMSG;
	out->port = hip_rd16(c);
	out->protocol = c[2];
	memcpy(&out->addr.in6, c + 4, 16);
	return 0;
}

void hip_relay_addr_build(struct hip_builder *b, uint16_t param_type,
			  const struct hip_relay_addr *v)
{
	if (!param_has_layout(param_type, HIP_PL_RELAY_ADDR)) {
		build_fail(b, -EINVAL);
		return;
	}
	hip_build_begin(b, param_type);
	hip_build_put_u16(b, v->port);
	hip_build_put_u8(b, v->protocol);
	hip_build_put_u8(b, 0);
	hip_build_put(b, v->addr.in6.s6_addr, 16);
	hip_build_end(b);
}

/* ---- PEER_PERMISSION (RFC 9028 §5.13, D-29) ---- */

int hip_peer_permission_decode(const uint8_t *c, size_t len, struct hip_peer_permission *out)
{
	if (len != HIP_LEN_PEER_PERMISSION && len != HIP_LEN_PEER_PERMISSION_48)
		return -EBADMSG;
	out->peer.port = hip_rd16(c);
	out->peer.protocol = c[2];
	memcpy(&out->peer.addr.in6, c + 4, 16);
	memcpy(out->hit.b, c + 20, 16);
	out->ospi = hip_rd32(c + 36);
	out->ispi = hip_rd32(c + 40);
	return 0;
}

void hip_peer_permission_build(struct hip_builder *b, const struct hip_peer_permission *v)
{
	hip_build_begin(b, HIP_PARAM_PEER_PERMISSION);
	hip_build_put_u16(b, v->peer.port);
	hip_build_put_u8(b, v->peer.protocol);
	hip_build_put_u8(b, 0);
	hip_build_put(b, v->peer.addr.in6.s6_addr, 16);
	hip_build_put(b, v->hit.b, 16);
	hip_build_put_u32(b, v->ospi);
	hip_build_put_u32(b, v->ispi);
	hip_build_end(b);
}

/* ---- CANDIDATE_PRIORITY / NOMINATE (RFC 9028 §5.14-5.15) ---- */

int hip_candidate_priority_decode(const uint8_t *c, size_t len, uint32_t *out)
{
	return hip_u32_param_decode(c, len, out);
}

void hip_candidate_priority_build(struct hip_builder *b, uint32_t priority)
{
	hip_u32_param_build(b, HIP_PARAM_CANDIDATE_PRIORITY, priority);
}

/* The reserved field is ignored on receipt (RFC 7401 §5.2.1). */
int hip_nominate_decode(const uint8_t *c, size_t len)
{
	uint32_t reserved;

	return hip_u32_param_decode(c, len, &reserved);
}

void hip_nominate_build(struct hip_builder *b)
{
	hip_u32_param_build(b, HIP_PARAM_NOMINATE, 0);
}
