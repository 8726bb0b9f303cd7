/*
 * priv_proto.h - the messages between the engine (no capabilities, parses
 * every untrusted byte) and the privileged process (CAP_NET_ADMIN +
 * CAP_NET_RAW, owns the XFRM netlink socket), over a SOCK_SEQPACKET
 * socketpair (DESIGN.md "Processes").
 *
 * Every message is one datagram of a fixed size for its type: a header and
 * the body of that type, nothing else. Both ends are the same binary, so
 * the structures are in host byte order and layout; explicit padding
 * fields must be zero. Requests go engine -> priv and each gets exactly
 * one PRIV_REPLY (or PRIV_REPLY_STATS) with the same seq; events go
 * priv -> engine at any time (seq 0).
 */
#ifndef HIPD_PRIV_PROTO_H
#define HIPD_PRIV_PROTO_H

#include <stdint.h>

#include "checksum.h"
#include "datapath/datapath.h"
#include "hit.h"

#define PRIV_PROTO_VERSION 1

enum priv_msg_type {
	/* engine -> priv */
	PRIV_REQ_HELLO      = 1,   /* the engine is set up (no body) */
	PRIV_REQ_SA_ADD     = 2,
	PRIV_REQ_SA_DEL     = 3,
	PRIV_REQ_POLICY_ADD = 4,
	PRIV_REQ_POLICY_DEL = 5,
	PRIV_REQ_FLUSH      = 6,   /* remove everything (no body) */
	PRIV_REQ_SA_STATS   = 7,   /* body: priv_sa_ref */
	PRIV_REQ_RELOADED   = 8,   /* PRIV_EV_RELOAD done (body: priv_result) */
	PRIV_REQ_PICK_SOURCE = 9,  /* the kernel's source address for a
				    * destination (body: priv_addr) */
	PRIV_REQ_POLICY_LSI_ADD = 10,  /* IPv4 between LSIs, D-22 (body: priv_policy_lsi) */
	PRIV_REQ_POLICY_LSI_DEL = 11,
	/* priv -> engine */
	PRIV_REPLY          = 64,  /* body: priv_result */
	PRIV_REPLY_STATS    = 65,  /* body: priv_stats */
	PRIV_REPLY_ADDR     = 66,  /* body: priv_addr */
	PRIV_EV_ACQUIRE     = 128, /* body: priv_hit_pair */
	PRIV_EV_EXPIRE      = 129, /* body: priv_expire */
	PRIV_EV_RELOAD      = 130, /* SIGHUP reached priv: reload (no body) */
	PRIV_EV_MAPPING     = 131, /* a peer's NAT mapping changed (body: priv_mapping) */
	PRIV_EV_NO_SA       = 132, /* ESP for no SA of ours (body: priv_no_sa) */
	PRIV_EV_ACQUIRE_LSI = 133, /* IPv4 to an LSI without SAs (body: priv_lsi_pair) */
};

enum { PRIV_NO_SA_QUOTE = 64 };   /* ESP bytes passed on: the ICMP quote's start */

struct priv_hdr {
	uint16_t version;          /* PRIV_PROTO_VERSION */
	uint16_t type;             /* enum priv_msg_type */
	uint32_t seq;              /* request number; 0 in events */
	uint32_t reqid;            /* the XFRM reqid priv owns (requests) */
	uint32_t pad;
};

/* PRIV_REQ_SA_ADD: struct hip_esp_sa in fixed-width fields. */
struct priv_sa {
	uint32_t        spi;
	uint8_t         inbound;   /* 0 or 1 */
	uint8_t         enc_len, auth_len;
	uint8_t         inner_v4;  /* 0 or 1: IPv4 between lsi_src and lsi_dst (D-22) */
	uint16_t        suite;
	uint16_t        pad1;
	uint32_t        replay_window;
	uint16_t        encap_sport, encap_dport;  /* ESP in UDP; 0 = none */
	struct hip_addr outer_src, outer_dst;
	struct hip_hit  inner_src, inner_dst;
	struct in_addr  lsi_src, lsi_dst;          /* inner_v4: not 0; else 0 */
	uint8_t         enc_key[HIP_ESP_KEY_MAX];
	uint8_t         auth_key[HIP_ESP_KEY_MAX];
	uint64_t        soft_bytes, hard_bytes;
	uint64_t        soft_seconds, hard_seconds;
};

/* PRIV_REQ_SA_DEL, PRIV_REQ_SA_STATS */
struct priv_sa_ref {
	uint32_t        spi;
	uint8_t         inbound;
	uint8_t         pad[3];
	struct hip_addr outer_dst;
};

/* PRIV_REQ_POLICY_ADD (locators used), PRIV_REQ_POLICY_DEL (zero) */
struct priv_policy {
	struct hip_hit  local, peer;
	struct hip_addr local_loc, peer_loc;
};

/* PRIV_REQ_POLICY_LSI_ADD (locators used), PRIV_REQ_POLICY_LSI_DEL (zero):
 * LSIs in network order, not 0. */
struct priv_policy_lsi {
	struct in_addr  local, peer;
	struct hip_addr local_loc, peer_loc;
};

struct priv_result {
	int32_t  error;            /* 0 or -errno */
	uint32_t pad;
};

struct priv_stats {
	int32_t  error;
	uint32_t pad;
	uint64_t packets, bytes, replay_drops, auth_drops;
};

/* PRIV_REQ_PICK_SOURCE (error 0, the destination), PRIV_REPLY_ADDR */
struct priv_addr {
	int32_t  error;
	uint32_t pad;
	struct hip_addr addr;
};

struct priv_hit_pair {
	struct hip_hit local, peer;
};

/* PRIV_EV_ACQUIRE_LSI: our LSI, the peer's (network order, not 0) */
struct priv_lsi_pair {
	struct in_addr local, peer;
};

struct priv_expire {
	uint32_t spi;
	uint8_t  hard;
	uint8_t  pad[3];
};

/* XFRM_MSG_MAPPING (xfrm_event.c): ESP in UDP that authenticated on our
 * inbound SA spi came from addr:port. */
struct priv_mapping {
	uint32_t        spi;
	uint16_t        port;      /* host order, not 0 */
	uint16_t        pad;
	struct hip_addr addr;
};

/* ESP the kernel had no SA for (xfrm_nosa.c): where it came from and
 * its first bytes (SPI, sequence number, some payload). */
struct priv_no_sa {
	struct hip_addr src, dst;
	uint8_t         have_dst;  /* 0 or 1 */
	uint8_t         pad0;
	uint16_t        len;       /* of esp[], 8..PRIV_NO_SA_QUOTE */
	uint32_t        pad1;
	uint8_t         esp[PRIV_NO_SA_QUOTE];
};

/* One message of each kind, header first. */
struct priv_msg_sa         { struct priv_hdr h; struct priv_sa sa; };
struct priv_msg_sa_ref     { struct priv_hdr h; struct priv_sa_ref ref; };
struct priv_msg_policy     { struct priv_hdr h; struct priv_policy pol; };
struct priv_msg_policy_lsi { struct priv_hdr h; struct priv_policy_lsi pol; };
struct priv_msg_lsi_pair   { struct priv_hdr h; struct priv_lsi_pair lsis; };
struct priv_msg_result     { struct priv_hdr h; struct priv_result res; };
struct priv_msg_stats      { struct priv_hdr h; struct priv_stats st; };
struct priv_msg_hit_pair   { struct priv_hdr h; struct priv_hit_pair hits; };
struct priv_msg_addr       { struct priv_hdr h; struct priv_addr a; };
struct priv_msg_expire     { struct priv_hdr h; struct priv_expire exp; };
struct priv_msg_mapping    { struct priv_hdr h; struct priv_mapping map; };
struct priv_msg_no_sa      { struct priv_hdr h; struct priv_no_sa nosa; };

/* The largest message (receive buffers are this plus one byte, so that a
 * longer datagram shows up as too long instead of being cut to size). */
enum { PRIV_MSG_MAX = sizeof(struct priv_msg_sa) };

_Static_assert(sizeof(struct priv_hdr) == 16, "priv_hdr layout");
_Static_assert(sizeof(struct priv_sa) % 8 == 0, "priv_sa layout");
_Static_assert(PRIV_MSG_MAX >= sizeof(struct priv_msg_stats), "PRIV_MSG_MAX");
_Static_assert(PRIV_MSG_MAX >= sizeof(struct priv_msg_mapping), "PRIV_MSG_MAX");
_Static_assert(PRIV_MSG_MAX >= sizeof(struct priv_msg_policy_lsi), "PRIV_MSG_MAX");

/* SPIs below 256 are reserved (RFC 4303 §2.1). */
#define PRIV_SPI_MIN 256u
/* Bounds on what one engine may make priv hold. */
enum { PRIV_MAX_SAS = 16384, PRIV_MAX_POLICIES = 8192, PRIV_REPLAY_MAX = 4096 };

#endif
