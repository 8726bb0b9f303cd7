/*
 * parser.c - strict HIP packet parser (RFC 7401 §5.1, §5.2.1).
 *
 * Checks the fixed header against the datagram, then walks the TLVs and
 * records where each one is. Contents are left to the decoders (params.h).
 * Ignored on receipt, as the RFC asks: Next Header, the reserved and fixed
 * bits of bytes 2 and 3, unknown Controls bits, padding contents (RB-09).
 *
 * Also the tables of parameter types and packet types (names, which
 * parameters may repeat, which encoder family a type belongs to): every
 * other list of them is derived from these.
 */
#include <errno.h>
#include <string.h>

#include "packet.h"

/* Every parameter type we know (IANA "Parameter Types"; RFC 7401 §5.2,
 * RFC 7402 §5.1, RFC 8046 §4, RFC 8003 §4, RFC 8004 §4, RFC 5770): the one
 * list the parser, the builder, the encoders and the logs consult. Sorted
 * by type, the wire order (§5.2.1), for the binary search below.
 *
 * REPEAT: several in a row are legitimate: ESP_INFO (RFC 8047 §4.2.8, one
 * per new SA), NOTIFICATION (§5.3.6, 1..n), unsigned echoes (§5.2.21, any
 * number), CERT groups (RFC 8002), REG_* (RFC 8003 §3.3: MUST accept
 * several), FROM (RFC 8004 §3.3: a second RVS appends its own), and
 * PEER_PERMISSION (RFC 9028 §5.13: one per peer address). */
#define P(t, layout, flags) { HIP_PARAM_##t, layout, flags, #t }
#define REPEAT HIP_PARAM_F_REPEATABLE
static const struct hip_param_info param_table[] = {
	P(ESP_INFO,               HIP_PL_OTHER,      REPEAT),
	P(R1_COUNTER,             HIP_PL_OTHER,      0),
	P(LOCATOR_SET,            HIP_PL_OTHER,      0),
	P(PUZZLE,                 HIP_PL_OTHER,      0),
	P(SOLUTION,               HIP_PL_OTHER,      0),
	P(SEQ,                    HIP_PL_OTHER,      0),
	P(ACK,                    HIP_PL_OTHER,      0),
	P(DH_GROUP_LIST,          HIP_PL_OTHER,      0),
	P(DIFFIE_HELLMAN,         HIP_PL_OTHER,      0),
	P(HIP_CIPHER,             HIP_PL_OTHER,      0),
	P(NAT_TRAVERSAL_MODE,     HIP_PL_OTHER,      0),
	P(TRANSACTION_PACING,     HIP_PL_OTHER,      0),
	P(ENCRYPTED,              HIP_PL_OTHER,      0),
	P(HOST_ID,                HIP_PL_OTHER,      0),
	P(HIT_SUITE_LIST,         HIP_PL_OTHER,      0),
	P(CERT,                   HIP_PL_OTHER,      REPEAT),
	P(NOTIFICATION,           HIP_PL_OTHER,      REPEAT),
	P(ECHO_REQUEST_SIGNED,    HIP_PL_ECHO,       0),
	P(REG_INFO,               HIP_PL_OTHER,      0),
	P(REG_REQUEST,            HIP_PL_REG,        REPEAT),
	P(REG_RESPONSE,           HIP_PL_REG,        REPEAT),
	P(REG_FAILED,             HIP_PL_REG,        REPEAT),
	P(REG_FROM,               HIP_PL_RELAY_ADDR, 0),
	P(ECHO_RESPONSE_SIGNED,   HIP_PL_ECHO,       0),
	P(TRANSPORT_FORMAT_LIST,  HIP_PL_OTHER,      0),
	P(ESP_TRANSFORM,          HIP_PL_OTHER,      0),
	P(RELAYED_ADDRESS,        HIP_PL_RELAY_ADDR, 0),
	P(MAPPED_ADDRESS,         HIP_PL_RELAY_ADDR, 0),
	P(PEER_PERMISSION,        HIP_PL_OTHER,      REPEAT),
	P(CANDIDATE_PRIORITY,     HIP_PL_OTHER,      0),
	P(NOMINATE,               HIP_PL_OTHER,      0),
	P(LSI_ESP_INFO,           HIP_PL_OTHER,      0),
	P(HIP_MAC,                HIP_PL_OTHER,      0),
	P(HIP_MAC_2,              HIP_PL_OTHER,      0),
	P(HIP_SIGNATURE_2,        HIP_PL_OTHER,      0),
	P(HIP_SIGNATURE,          HIP_PL_OTHER,      0),
	P(ECHO_RESPONSE_UNSIGNED, HIP_PL_ECHO,       REPEAT),
	P(ECHO_REQUEST_UNSIGNED,  HIP_PL_ECHO,       REPEAT),
	P(RELAY_FROM,             HIP_PL_RELAY_ADDR, 0),
	P(RELAY_TO,               HIP_PL_RELAY_ADDR, 0),
	P(FROM,                   HIP_PL_OTHER,      REPEAT),
	P(RVS_HMAC,               HIP_PL_OTHER,      0),
	P(VIA_RVS,                HIP_PL_OTHER,      0),
	P(RELAY_HMAC,             HIP_PL_OTHER,      0),
};
#undef REPEAT
#undef P

const struct hip_param_info *hip_param_info(uint16_t type)
{
	size_t lo = 0, hi = sizeof(param_table) / sizeof(param_table[0]);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (param_table[mid].type == type)
			return &param_table[mid];
		if (param_table[mid].type < type)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

bool hip_param_is_known(uint16_t type)
{
	return hip_param_info(type) != NULL;
}

bool hip_param_is_repeatable(uint16_t type)
{
	const struct hip_param_info *pi = hip_param_info(type);

	return pi && (pi->flags & HIP_PARAM_F_REPEATABLE);
}

const char *hip_param_name(uint16_t type)
{
	const struct hip_param_info *pi = hip_param_info(type);

	return pi ? pi->name : "UNKNOWN";
}

/* Packet types (RFC 7401 §5.3 Table 11, RFC 8046 §5): also the parser's
 * list of types it accepts. Indexed by type; a NULL name is no type. */
static const char *const packet_type_names[] = {
	[HIP_I1]        = "I1",
	[HIP_R1]        = "R1",
	[HIP_I2]        = "I2",
	[HIP_R2]        = "R2",
	[HIP_UPDATE]    = "UPDATE",
	[HIP_NOTIFY]    = "NOTIFY",
	[HIP_CLOSE]     = "CLOSE",
	[HIP_CLOSE_ACK] = "CLOSE_ACK",
};

static bool packet_type_known(uint8_t type)
{
	return type < sizeof(packet_type_names) / sizeof(packet_type_names[0]) &&
	       packet_type_names[type];
}

const char *hip_packet_type_name(uint8_t type)
{
	return packet_type_known(type) ? packet_type_names[type] : "UNKNOWN";
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
		type = hip_rd16(buf + off);
		plen = hip_rd16(buf + off + 2);
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
	pkt->controls = hip_rd16(buf + 6);
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
