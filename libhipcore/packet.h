/*
 * packet.h - HIP packet builder and strict parser.
 *
 * Builder: reserve the header, append parameters in ascending type order
 * (the builder refuses anything else), patch the header length at finish,
 * write the checksum last (checksum.h). Errors stick: after the first
 * failure every call is a no-op and hip_build_finish() returns the error.
 *
 * Parser: takes (buf, len) from the network and checks before every read:
 * header fields, Header Length == datagram length, every TLV within bounds,
 * strictly ascending types (equal types only for repeatable parameters and
 * only consecutive), unknown critical parameters. It records where each
 * parameter is; typed decoders (params.h) then check contents.
 */
#ifndef HIP_PACKET_H
#define HIP_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "hip_wire.h"
#include "hit.h"

/* ---- builder ---------------------------------------------------------- */

struct hip_builder {
	uint8_t  *buf;
	size_t    cap;       /* at most HIP_MAX_PACKET is ever used */
	size_t    len;       /* bytes written so far */
	uint16_t  last_type; /* last parameter type appended (order check) */
	size_t    open_off;  /* offset of an open TLV (begin/end), 0 if none */
	int       err;       /* first error, sticky */
};

/* Start a packet: fixed header with type, sender and receiver HIT (receiver
 * may be NULL for a NULL HIT), controls 0, checksum 0. */
void hip_build_init(struct hip_builder *b, uint8_t *buf, size_t cap,
		    uint8_t type, const struct hip_hit *sender,
		    const struct hip_hit *receiver);
struct hip_packet;
/* Go on appending to a copy of a parsed packet (an RVS adds FROM and
 * RVS_HMAC, RFC 8004 §3.3): pkt is copied into buf (buf may be pkt->buf). */
void hip_build_resume(struct hip_builder *b, uint8_t *buf, size_t cap,
		      const struct hip_packet *pkt);
void hip_build_set_controls(struct hip_builder *b, uint16_t controls);
/* Append a whole TLV: header, contents, zero padding. */
void hip_build_param(struct hip_builder *b, uint16_t type,
		     const void *content, size_t len);
/* Variable contents: begin returns a cursor; append bytes with
 * hip_build_put(); end patches the Length and pads. */
void hip_build_begin(struct hip_builder *b, uint16_t type);
void hip_build_put(struct hip_builder *b, const void *data, size_t len);
void hip_build_put_u8(struct hip_builder *b, uint8_t v);
void hip_build_put_u16(struct hip_builder *b, uint16_t v);  /* host order in */
void hip_build_put_u32(struct hip_builder *b, uint32_t v);
void hip_build_put_u64(struct hip_builder *b, uint64_t v);
/* Reserve len zeroed bytes in the open TLV and return a pointer to them
 * (NULL on error) so they can be filled later (e.g. a MAC). */
uint8_t *hip_build_reserve(struct hip_builder *b, size_t len);
void hip_build_end(struct hip_builder *b);
/* Patch Header Length; returns the packet length (> 0) or the sticky error.
 * The checksum is left 0: set it with hip_packet_set_checksum() last. */
int hip_build_finish(struct hip_builder *b);
/* Current length with the Header Length field patched to it: used to build
 * MAC/signature coverage before the MAC/signature parameter is appended. */
int hip_build_snapshot(struct hip_builder *b);

/* ---- parser ----------------------------------------------------------- */

/* Why a packet was rejected; names map to drop counters in hipd. */
enum hip_parse_error {
	HIP_PERR_NONE = 0,
	HIP_PERR_TRUNCATED,         /* shorter than the fixed header */
	HIP_PERR_BAD_LENGTH,        /* Header Length disagrees with datagram */
	HIP_PERR_BAD_VERSION,       /* version != 2 */
	HIP_PERR_BAD_TYPE,          /* unknown packet type */
	HIP_PERR_TLV_OVERRUN,       /* a TLV runs past the packet end */
	HIP_PERR_TLV_SHORT,         /* fewer than 4 bytes left for a TLV header */
	HIP_PERR_BAD_ORDER,         /* types not ascending */
	HIP_PERR_DUPLICATE,         /* a non-repeatable parameter twice */
	HIP_PERR_UNKNOWN_CRITICAL,  /* unknown critical type (NOTIFY 1) */
	HIP_PERR_TOO_MANY,          /* more than HIP_MAX_PARAMS parameters */
	HIP_PERR_COUNT_
};
const char *hip_parse_error_str(enum hip_parse_error e);

struct hip_param_ref {
	uint16_t type;
	uint16_t len;     /* contents length */
	uint16_t off;     /* offset of the TLV header in the packet */
};

struct hip_packet {
	const uint8_t *buf;       /* the datagram (not copied) */
	size_t   len;             /* (Header Length + 1) * 8 */
	uint8_t  type;
	uint8_t  version;
	uint16_t controls;        /* host order */
	struct hip_hit hit_sender;
	struct hip_hit hit_receiver;
	unsigned nparams;
	struct hip_param_ref params[HIP_MAX_PARAMS];
	/* on failure: */
	enum hip_parse_error error;
	uint16_t error_type;      /* the offending parameter type, if any */
	size_t   error_off;       /* byte offset of the problem */
};

/* 0 on success; -EBADMSG (pkt->error says why) otherwise. */
int hip_packet_parse(const uint8_t *buf, size_t len, struct hip_packet *pkt);

/* The parameter type table (parser.c): one entry per type we know. */
enum hip_param_layout {
	HIP_PL_OTHER = 0,      /* a layout of its own (see params.h) */
	HIP_PL_ECHO,           /* opaque echo data (hip_echo_build) */
	HIP_PL_REG,            /* value | reg types (hip_reg_build) */
	HIP_PL_RELAY_ADDR,     /* port | protocol | address (hip_relay_addr_build) */
};
enum hip_param_flags {
	HIP_PARAM_F_REPEATABLE = 1 << 0,  /* may appear several times in a row */
};
struct hip_param_info {
	uint16_t type;
	uint8_t  layout;       /* enum hip_param_layout */
	uint8_t  flags;        /* enum hip_param_flags */
	const char *name;      /* "PUZZLE" */
};
/* The table entry of a type, or NULL for a type we do not know. */
const struct hip_param_info *hip_param_info(uint16_t type);
/* Parameters the parser knows (unknown critical ones are rejected). */
bool hip_param_is_known(uint16_t type);
/* Parameters that may appear several times in a row. */
bool hip_param_is_repeatable(uint16_t type);
const char *hip_param_name(uint16_t type);     /* "PUZZLE", or "UNKNOWN" */
const char *hip_packet_type_name(uint8_t type);/* "I1", ... or "UNKNOWN" */

/* First parameter of a type, or NULL. */
const struct hip_param_ref *hip_packet_find(const struct hip_packet *pkt,
					    uint16_t type);
/* Next parameter of the same type after prev (repeatable types), or NULL. */
const struct hip_param_ref *hip_packet_find_next(const struct hip_packet *pkt,
						 const struct hip_param_ref *prev);
/* Pointer to a parameter's contents (after the 4-byte TLV header). */
static inline const uint8_t *hip_param_content(const struct hip_packet *pkt,
					       const struct hip_param_ref *p)
{
	return pkt->buf + p->off + HIP_TLV_HDR_LEN;
}

#endif
