/*
 * parser.c - strict HIP packet parser (RFC 7401 §5.1, §5.2.1).
 *
 * Checks the fixed header against the datagram, then walks the TLVs and
 * records where each one is. Contents are left to the decoders (params.h).
 * Ignored on receipt, as the RFC asks: Next Header, the reserved and fixed
 * bits of bytes 2 and 3, unknown Controls bits, padding contents (RB-09).
 */
#include <errno.h>
#include <string.h>

#include "packet.h"

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

bool hip_param_is_known(uint16_t type)
{
	switch (type) {
	case HIP_PARAM_ESP_INFO:
	case HIP_PARAM_R1_COUNTER:
	case HIP_PARAM_LOCATOR_SET:
	case HIP_PARAM_PUZZLE:
	case HIP_PARAM_SOLUTION:
	case HIP_PARAM_SEQ:
	case HIP_PARAM_ACK:
	case HIP_PARAM_DH_GROUP_LIST:
	case HIP_PARAM_DIFFIE_HELLMAN:
	case HIP_PARAM_HIP_CIPHER:
	case HIP_PARAM_NAT_TRAVERSAL_MODE:
	case HIP_PARAM_TRANSACTION_PACING:
	case HIP_PARAM_ENCRYPTED:
	case HIP_PARAM_HOST_ID:
	case HIP_PARAM_HIT_SUITE_LIST:
	case HIP_PARAM_CERT:
	case HIP_PARAM_NOTIFICATION:
	case HIP_PARAM_ECHO_REQUEST_SIGNED:
	case HIP_PARAM_REG_INFO:
	case HIP_PARAM_REG_REQUEST:
	case HIP_PARAM_REG_RESPONSE:
	case HIP_PARAM_REG_FAILED:
	case HIP_PARAM_REG_FROM:
	case HIP_PARAM_ECHO_RESPONSE_SIGNED:
	case HIP_PARAM_TRANSPORT_FORMAT_LIST:
	case HIP_PARAM_ESP_TRANSFORM:
	case HIP_PARAM_HIP_MAC:
	case HIP_PARAM_HIP_MAC_2:
	case HIP_PARAM_HIP_SIGNATURE_2:
	case HIP_PARAM_HIP_SIGNATURE:
	case HIP_PARAM_ECHO_RESPONSE_UNSIGNED:
	case HIP_PARAM_ECHO_REQUEST_UNSIGNED:
	case HIP_PARAM_RELAY_FROM:
	case HIP_PARAM_RELAY_TO:
	case HIP_PARAM_FROM:
	case HIP_PARAM_RVS_HMAC:
	case HIP_PARAM_VIA_RVS:
	case HIP_PARAM_RELAY_HMAC:
		return true;
	default:
		return false;
	}
}

/* Several in a row are legitimate: ESP_INFO (RFC 8047 §4.2.8, one per new
 * SA), NOTIFICATION (§5.3.6, 1..n), unsigned echoes (§5.2.21, any number),
 * CERT groups (RFC 8002), REG_* (RFC 8003 §3.3: MUST accept several), and
 * FROM (RFC 8004 §3.3: a second RVS appends its own). */
bool hip_param_is_repeatable(uint16_t type)
{
	switch (type) {
	case HIP_PARAM_ESP_INFO:
	case HIP_PARAM_CERT:
	case HIP_PARAM_NOTIFICATION:
	case HIP_PARAM_REG_REQUEST:
	case HIP_PARAM_REG_RESPONSE:
	case HIP_PARAM_REG_FAILED:
	case HIP_PARAM_ECHO_RESPONSE_UNSIGNED:
	case HIP_PARAM_ECHO_REQUEST_UNSIGNED:
	case HIP_PARAM_FROM:
		return true;
	default:
		return false;
	}
}

static const struct {
	uint16_t type;
	const char *name;
} param_names[] = {
	{ HIP_PARAM_ESP_INFO, "ESP_INFO" },
	{ HIP_PARAM_R1_COUNTER, "R1_COUNTER" },
	{ HIP_PARAM_LOCATOR_SET, "LOCATOR_SET" },
	{ HIP_PARAM_PUZZLE, "PUZZLE" },
	{ HIP_PARAM_SOLUTION, "SOLUTION" },
	{ HIP_PARAM_SEQ, "SEQ" },
	{ HIP_PARAM_ACK, "ACK" },
	{ HIP_PARAM_DH_GROUP_LIST, "DH_GROUP_LIST" },
	{ HIP_PARAM_DIFFIE_HELLMAN, "DIFFIE_HELLMAN" },
	{ HIP_PARAM_HIP_CIPHER, "HIP_CIPHER" },
	{ HIP_PARAM_NAT_TRAVERSAL_MODE, "NAT_TRAVERSAL_MODE" },
	{ HIP_PARAM_TRANSACTION_PACING, "TRANSACTION_PACING" },
	{ HIP_PARAM_ENCRYPTED, "ENCRYPTED" },
	{ HIP_PARAM_HOST_ID, "HOST_ID" },
	{ HIP_PARAM_HIT_SUITE_LIST, "HIT_SUITE_LIST" },
	{ HIP_PARAM_CERT, "CERT" },
	{ HIP_PARAM_NOTIFICATION, "NOTIFICATION" },
	{ HIP_PARAM_ECHO_REQUEST_SIGNED, "ECHO_REQUEST_SIGNED" },
	{ HIP_PARAM_REG_INFO, "REG_INFO" },
	{ HIP_PARAM_REG_REQUEST, "REG_REQUEST" },
	{ HIP_PARAM_REG_RESPONSE, "REG_RESPONSE" },
	{ HIP_PARAM_REG_FAILED, "REG_FAILED" },
	{ HIP_PARAM_REG_FROM, "REG_FROM" },
	{ HIP_PARAM_ECHO_RESPONSE_SIGNED, "ECHO_RESPONSE_SIGNED" },
	{ HIP_PARAM_TRANSPORT_FORMAT_LIST, "TRANSPORT_FORMAT_LIST" },
	{ HIP_PARAM_ESP_TRANSFORM, "ESP_TRANSFORM" },
	{ HIP_PARAM_HIP_MAC, "HIP_MAC" },
	{ HIP_PARAM_HIP_MAC_2, "HIP_MAC_2" },
	{ HIP_PARAM_HIP_SIGNATURE_2, "HIP_SIGNATURE_2" },
	{ HIP_PARAM_HIP_SIGNATURE, "HIP_SIGNATURE" },
	{ HIP_PARAM_ECHO_RESPONSE_UNSIGNED, "ECHO_RESPONSE_UNSIGNED" },
	{ HIP_PARAM_ECHO_REQUEST_UNSIGNED, "ECHO_REQUEST_UNSIGNED" },
	{ HIP_PARAM_RELAY_FROM, "RELAY_FROM" },
	{ HIP_PARAM_RELAY_TO, "RELAY_TO" },
	{ HIP_PARAM_FROM, "FROM" },
	{ HIP_PARAM_RVS_HMAC, "RVS_HMAC" },
	{ HIP_PARAM_VIA_RVS, "VIA_RVS" },
	{ HIP_PARAM_RELAY_HMAC, "RELAY_HMAC" },
};

const char *hip_param_name(uint16_t type)
{
	size_t i;

	for (i = 0; i < sizeof(param_names) / sizeof(param_names[0]); i++)
		if (param_names[i].type == type)
			return param_names[i].name;
	return "UNKNOWN";
}

const char *hip_packet_type_name(uint8_t type)
{
	switch (type) {
	case HIP_I1:        return "I1";
	case HIP_R1:        return "R1";
	case HIP_I2:        return "I2";
	case HIP_R2:        return "R2";
	case HIP_UPDATE:    return "UPDATE";
	case HIP_NOTIFY:    return "NOTIFY";
	case HIP_CLOSE:     return "CLOSE";
	case HIP_CLOSE_ACK: return "CLOSE_ACK";
	default:            return "UNKNOWN";
	}
}

/* Short snake-case names: they double as drop counter names in hipd. */
static const char *const parse_error_names[HIP_PERR_COUNT_] = {
	[HIP_PERR_NONE]             = "none",
	[HIP_PERR_TRUNCATED]        = "truncated",
	[HIP_PERR_BAD_LENGTH]       = "bad_length",
	[HIP_PERR_BAD_VERSION]      = "bad_version",
	[HIP_PERR_BAD_TYPE]         = "bad_type",
	[HIP_PERR_TLV_OVERRUN]      = "tlv_overrun",
	[HIP_PERR_TLV_SHORT]        = "tlv_short",
	[HIP_PERR_BAD_ORDER]        = "bad_order",
	[HIP_PERR_DUPLICATE]        = "duplicate",
	[HIP_PERR_UNKNOWN_CRITICAL] = "unknown_critical",
	[HIP_PERR_TOO_MANY]         = "too_many",
};

const char *hip_parse_error_str(enum hip_parse_error e)
{
	if ((unsigned)e >= HIP_PERR_COUNT_)
		return "unknown";
	return parse_error_names[e];
}

static bool packet_type_known(uint8_t type)
{
	return strcmp(hip_packet_type_name(type), "UNKNOWN") != 0;
}

static int parse_fail(struct hip_packet *pkt, enum hip_parse_error e,
		      size_t off, uint16_t type)
{
	pkt->error = e;
	pkt->error_off = off;
	pkt->error_type = type;
	return -EBADMSG;
}

/* §5.2.1: strictly ascending; a type may repeat only consecutively, and only
 * if it is one that may appear several times. Unknown non-critical types are
 * let through repeated: we ignore them and cannot know their rules. */
static enum hip_parse_error parse_check_order(const struct hip_packet *pkt, uint16_t type)
{
	uint16_t prev;

	if (pkt->nparams == 0)
		return HIP_PERR_NONE;
	prev = pkt->params[pkt->nparams - 1].type;
	if (type < prev)
		return HIP_PERR_BAD_ORDER;
	if (type == prev && hip_param_is_known(type) && !hip_param_is_repeatable(type))
		return HIP_PERR_DUPLICATE;
	return HIP_PERR_NONE;
}

static int parse_params(struct hip_packet *pkt)
{
	const uint8_t *buf = pkt->buf;
	size_t off = HIP_HDR_LEN;

	while (off < pkt->len) {
		struct hip_param_ref *ref;
		enum hip_parse_error e;
		uint16_t type, plen;
		size_t total;

		if (pkt->len - off < HIP_TLV_HDR_LEN)
			return parse_fail(pkt, HIP_PERR_TLV_SHORT, off, 0);
		type = rd16(buf + off);
		plen = rd16(buf + off + 2);
		/* The padding must fit too: Header Length counts 8-byte units. */
		total = hip_tlv_total_len(plen);
		if (total > pkt->len - off)
			return parse_fail(pkt, HIP_PERR_TLV_OVERRUN, off, type);
		e = parse_check_order(pkt, type);
		if (e != HIP_PERR_NONE)
			return parse_fail(pkt, e, off, type);
		if (!hip_param_is_known(type) && hip_param_is_critical(type))
			return parse_fail(pkt, HIP_PERR_UNKNOWN_CRITICAL, off, type);
		if (pkt->nparams >= HIP_MAX_PARAMS)
			return parse_fail(pkt, HIP_PERR_TOO_MANY, off, type);
		/* Unknown non-critical ones stay listed (ignored by the decoders)
		 * so MAC and signature coverage still sees every byte. */
		ref = &pkt->params[pkt->nparams++];
		ref->type = type;
		ref->len = plen;
		ref->off = (uint16_t)off;
		off += total;
	}
	return 0;
}

int hip_packet_parse(const uint8_t *buf, size_t len, struct hip_packet *pkt)
{
	uint8_t hdr_len;

	pkt->buf = buf;
	pkt->len = 0;
	pkt->type = 0;
	pkt->version = 0;
	pkt->controls = 0;
	memset(&pkt->hit_sender, 0, sizeof(pkt->hit_sender));
	memset(&pkt->hit_receiver, 0, sizeof(pkt->hit_receiver));
	pkt->nparams = 0;
	pkt->error = HIP_PERR_NONE;
	pkt->error_type = 0;
	pkt->error_off = 0;

	if (!buf || len < HIP_HDR_LEN)
		return parse_fail(pkt, HIP_PERR_TRUNCATED, len, 0);
	/* W-02: the Header Length must describe exactly this datagram. */
	hdr_len = buf[1];
	if (hdr_len < HIP_HDR_LEN_MIN || ((size_t)hdr_len + 1) * 8 != len)
		return parse_fail(pkt, HIP_PERR_BAD_LENGTH, 1, 0);
	pkt->version = buf[3] >> 4;
	if (pkt->version != HIP_VERSION)
		return parse_fail(pkt, HIP_PERR_BAD_VERSION, 3, 0);
	pkt->type = buf[2] & 0x7f;
	if (!packet_type_known(pkt->type))
		return parse_fail(pkt, HIP_PERR_BAD_TYPE, 2, 0);
	pkt->len = len;
	pkt->controls = rd16(buf + 6);
	memcpy(pkt->hit_sender.b, buf + 8, HIP_HIT_LEN);
	memcpy(pkt->hit_receiver.b, buf + 24, HIP_HIT_LEN);
	return parse_params(pkt);
}

const struct hip_param_ref *hip_packet_find(const struct hip_packet *pkt,
					    uint16_t type)
{
	unsigned i;

	for (i = 0; i < pkt->nparams; i++) {
		if (pkt->params[i].type == type)
			return &pkt->params[i];
		if (pkt->params[i].type > type)
			break;  /* sorted: it cannot come later */
	}
	return NULL;
}

const struct hip_param_ref *hip_packet_find_next(const struct hip_packet *pkt,
						 const struct hip_param_ref *prev)
{
	size_t i;

	if (!prev || prev < pkt->params || prev >= pkt->params + pkt->nparams)
		return NULL;
	i = (size_t)(prev - pkt->params) + 1;
	if (i < pkt->nparams && pkt->params[i].type == prev->type)
		return &pkt->params[i];
	return NULL;
}
