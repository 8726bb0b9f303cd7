/*
 * hip_wire.h - every HIPv2 wire constant, size and limit in one place.
 *
 * RFC 7401 (HIPv2), RFC 7402 (ESP), RFC 8046/8047 (mobility, multihoming),
 * RFC 8003/8004 (registration, rendezvous). Numbers are checked against
 * the IANA HIP registries; the wire order of parameters is always numeric.
 */
#ifndef HIP_WIRE_H
#define HIP_WIRE_H

#include <stdint.h>

#include "byteorder.h"   /* hip_rd16() ... for every wire reader */

/* Fixed header and packet limits (RFC 7401 §5.1). */
enum hip_header_consts {
	HIP_PROTO          = 139,  /* IP protocol / IPv6 next header */
	HIP_NEXT_HDR_NONE  = 59,   /* IPPROTO_NONE, the only value we send */
	HIP_VERSION        = 2,
	HIP_VER_BYTE       = 0x21, /* version 2 << 4 | fixed bit 1 */
	HIP_HIT_LEN        = 16,
	HIP_HDR_LEN        = 40,   /* fixed header, bytes */
	HIP_HDR_LEN_MIN    = 4,    /* Header Length field: (40 / 8) - 1 */
	HIP_MAX_PACKET     = 2048, /* (255 + 1) * 8 */
	HIP_TLV_HDR_LEN    = 4,    /* Type(16) | Length(16) */
	HIP_MAX_PARAMS     = 251,  /* (2048 - 40) / 8: each TLV takes >= 8 bytes */
};

/* Packet types (RFC 7401 §5.3, Table 11). */
enum hip_packet_type {
	HIP_I1        = 1,
	HIP_R1        = 2,
	HIP_I2        = 3,
	HIP_R2        = 4,
	HIP_UPDATE    = 16,
	HIP_NOTIFY    = 17,
	HIP_CLOSE     = 18,
	HIP_CLOSE_ACK = 19,
};

/* Controls field bits (RFC 7401 §5.1.2). */
enum hip_controls {
	HIP_CONTROL_ANONYMOUS = 0x0001, /* "A": the sender's HI is anonymous */
};

/* Parameter types (IANA; RFC 7401 §5.2, 7402 §5.1, 8046 §4, 8003, 8004).
 * The low bit is the critical bit. */
enum hip_param_type {
	HIP_PARAM_ESP_INFO               = 65,
	HIP_PARAM_R1_COUNTER             = 129,
	HIP_PARAM_LOCATOR_SET            = 193,
	HIP_PARAM_PUZZLE                 = 257,
	HIP_PARAM_SOLUTION               = 321,
	HIP_PARAM_SEQ                    = 385,
	HIP_PARAM_ACK                    = 449,
	HIP_PARAM_DH_GROUP_LIST          = 511,
	HIP_PARAM_DIFFIE_HELLMAN         = 513,
	HIP_PARAM_HIP_CIPHER             = 579,
	HIP_PARAM_NAT_TRAVERSAL_MODE     = 608,
	HIP_PARAM_TRANSACTION_PACING     = 610,
	HIP_PARAM_ENCRYPTED              = 641,
	HIP_PARAM_HOST_ID                = 705,
	HIP_PARAM_HIT_SUITE_LIST         = 715,
	HIP_PARAM_CERT                   = 768,
	HIP_PARAM_NOTIFICATION           = 832,
	HIP_PARAM_ECHO_REQUEST_SIGNED    = 897,
	HIP_PARAM_REG_INFO               = 930,
	HIP_PARAM_REG_REQUEST            = 932,
	HIP_PARAM_REG_RESPONSE           = 934,
	HIP_PARAM_REG_FAILED             = 936,
	HIP_PARAM_REG_FROM               = 950,
	HIP_PARAM_ECHO_RESPONSE_SIGNED   = 961,
	HIP_PARAM_TRANSPORT_FORMAT_LIST  = 2049,
	HIP_PARAM_ESP_TRANSFORM          = 4095,
	HIP_PARAM_RELAYED_ADDRESS        = 4650,   /* RFC 9028 §5.12 */
	HIP_PARAM_MAPPED_ADDRESS         = 4660,   /* RFC 9028 §5.12 */
	HIP_PARAM_PEER_PERMISSION        = 4680,   /* RFC 9028 §5.13 */
	HIP_PARAM_CANDIDATE_PRIORITY     = 4700,   /* RFC 9028 §5.14 */
	HIP_PARAM_NOMINATE               = 4710,   /* RFC 9028 §5.15 */
	/* hipd's own, private use (signed range 32768-49151, §5.2.1),
	 * non-critical: a strict peer ignores it (docs/decisions.md D-22) */
	HIP_PARAM_LSI_ESP_INFO           = 32800,
	HIP_PARAM_HIP_MAC                = 61505,
	HIP_PARAM_HIP_MAC_2              = 61569,
	HIP_PARAM_HIP_SIGNATURE_2        = 61633,
	HIP_PARAM_HIP_SIGNATURE          = 61697,
	HIP_PARAM_ECHO_RESPONSE_UNSIGNED = 63425,
	HIP_PARAM_ECHO_REQUEST_UNSIGNED  = 63661,
	HIP_PARAM_RELAY_FROM             = 63998,
	HIP_PARAM_RELAY_TO               = 64002,
	HIP_PARAM_FROM                   = 65498,
	HIP_PARAM_RVS_HMAC               = 65500,
	HIP_PARAM_VIA_RVS                = 65502,
	HIP_PARAM_RELAY_HMAC             = 65520,
};

/* Fixed parameter content lengths (the TLV Length field). */
enum hip_param_len {
	HIP_LEN_ESP_INFO        = 12,
	HIP_LEN_R1_COUNTER      = 12,
	HIP_LEN_U32_PARAM       = 4,  /* SEQ, TRANSACTION_PACING, CANDIDATE_PRIORITY, NOMINATE */
	HIP_LEN_SEQ             = 4,
	HIP_LEN_FROM            = 16,
	HIP_LEN_REG_FROM        = 20,
	HIP_LEN_RELAY_ADDR      = 20, /* RELAY_FROM, RELAY_TO */
	HIP_LEN_PUZZLE_FIXED    = 4,  /* + RHASH_len/8 ... see hip_puzzle_len() */
	HIP_LEN_SOLUTION_FIXED  = 4,  /* + 2 * #I length */
	HIP_LEN_DH_FIXED        = 3,  /* group(8) | public value length(16) */
	HIP_LEN_HOST_ID_FIXED   = 6,  /* HI len | DI type+len | algorithm */
	HIP_LEN_NOTIFY_FIXED    = 4,  /* reserved(16) | type(16) */
	HIP_LEN_SIG_FIXED       = 2,  /* SIG alg(16) */
	HIP_LEN_ENCRYPTED_FIXED = 4,  /* reserved(32) */
	HIP_LEN_ESP_TRANSFORM_FIXED = 2, /* reserved(16) */
	HIP_LEN_REG_INFO_FIXED  = 2,  /* min lifetime | max lifetime */
	HIP_LEN_REG_REQ_FIXED   = 1,  /* lifetime (REG_REQUEST/RESPONSE), failure type (REG_FAILED) */
	HIP_LEN_NAT_MODE_FIXED  = 2,  /* reserved(16) */
	HIP_LEN_TRANSACTION_PACING = 4,
	HIP_LEN_CANDIDATE_PRIORITY = 4,  /* priority(32), RFC 9028 §5.14 */
	HIP_LEN_NOMINATE        = 4,  /* reserved(32), RFC 9028 §5.15 */
	HIP_LEN_LSI_ESP_INFO    = 12, /* D-22: two LSIs, one SPI */
	/* RFC 9028 §5.13: port | protocol | reserved | address | peer HIT |
	 * OSPI | ISPI is 44 bytes; the RFC's figure says Length 48, which we
	 * also take (the 4 bytes beyond ignored); we send 44 (D-29) */
	HIP_LEN_PEER_PERMISSION = 44,
	HIP_LEN_PEER_PERMISSION_48 = 48,
};

/* Protocol limits we enforce (docs/protocol.md §1, docs/decisions.md). */
enum hip_limits {
	HIP_LIST_SEND_MAX      = 6,   /* HIP_CIPHER / ESP_TRANSFORM IDs we send */
	HIP_LIST_MAX           = 32,  /* entries we keep from any received list */
	HIP_RHASH_MAX          = 48,  /* SHA-384 */
	HIP_PUZZLE_K_MAX       = 28,
	HIP_LOCATORS_MAX       = 32,  /* peer locators accepted per LOCATOR_SET */
	HIP_ACK_MAX            = 64,
	HIP_VIA_RVS_MAX        = 16,
	HIP_SPI_MIN            = 256, /* RFC 4303 §2.1: 0..255 reserved */
};

/* DH Group IDs (RFC 7401 §5.2.7). 1, 2, 5, 6 are deprecated. */
enum hip_dh_group_id {
	HIP_DH_MODP_1536  = 3,
	HIP_DH_MODP_3072  = 4,
	HIP_DH_NIST_P256  = 7,
	HIP_DH_NIST_P384  = 8,
	HIP_DH_NIST_P521  = 9,
	HIP_DH_SECP160R1  = 10,
	HIP_DH_MODP_2048  = 11,
};

/* HIP_CIPHER IDs (RFC 7401 §5.2.8). */
enum hip_cipher_id {
	HIP_CIPHER_NULL        = 1,
	HIP_CIPHER_AES_128_CBC = 2,
	HIP_CIPHER_AES_256_CBC = 4,
};

/* HI algorithms (RFC 7401 §5.2.9) and ECDSA curves. */
enum hip_hi_algorithm {
	HIP_HI_DSA       = 3,
	HIP_HI_RSA       = 5,
	HIP_HI_ECDSA     = 7,
	HIP_HI_ECDSA_LOW = 9,
	HIP_HI_EDDSA     = 13,
};
enum hip_ecdsa_curve {
	HIP_CURVE_NIST_P256 = 1,
	HIP_CURVE_NIST_P384 = 2,
};

/* HIT Suite IDs = ORCHID OGA IDs = RHASH selectors (RFC 7401 §5.2.10). */
enum hip_hit_suite {
	HIP_SUITE_RSA_DSA_SHA256 = 1, /* RHASH SHA-256, HMAC-SHA-256 */
	HIP_SUITE_ECDSA_SHA384   = 2, /* RHASH SHA-384, HMAC-SHA-384 */
	HIP_SUITE_ECDSA_LOW_SHA1 = 3, /* RHASH SHA-1, HMAC-SHA-1 */
};

/* DI-Type (RFC 7401 §5.2.9). */
enum hip_di_type {
	HIP_DI_NONE = 0,
	HIP_DI_FQDN = 1,
	HIP_DI_NAI  = 2,
};

/* Transport formats and ESP suites (RFC 7402 §5.1.2). */
enum hip_esp_suite {
	HIP_ESP_AES128_CBC_SHA1      = 1,
	HIP_ESP_NULL_SHA256          = 7,
	HIP_ESP_AES128_CBC_SHA256    = 8,
	HIP_ESP_AES256_CBC_SHA256    = 9,
	HIP_ESP_AES_CCM_8            = 10,
	HIP_ESP_AES_CCM_16           = 11,
	HIP_ESP_AES_GCM_8            = 12,
	HIP_ESP_AES_GCM_16           = 13,
};

/* LOCATOR_SET (RFC 8046 §4). */
enum hip_locator_consts {
	HIP_LOC_TRAFFIC_BOTH   = 0,
	HIP_LOC_TRAFFIC_SIGNAL = 1,
	HIP_LOC_TRAFFIC_DATA   = 2,
	HIP_LOC_TYPE_ADDR      = 0, /* IPv6 or IPv4-mapped, length 4 words */
	HIP_LOC_TYPE_ESP_SPI   = 1, /* SPI | address, length 5 words */
	HIP_LOC_TYPE_TRANSPORT = 2, /* RFC 5770 §5.7, length 7 words */
	HIP_LOC_HDR_LEN        = 8, /* traffic|type|len|P + lifetime */
	HIP_LOC_PREFERRED      = 0x01,
};

/* NOTIFICATION message types (RFC 7401 §5.2.19 and later RFCs). */
enum hip_notify_type {
	HIP_NOTIFY_UNSUPPORTED_CRITICAL_PARAMETER_TYPE = 1,
	HIP_NOTIFY_INVALID_SYNTAX                      = 7,
	HIP_NOTIFY_NO_DH_PROPOSAL_CHOSEN               = 14,
	HIP_NOTIFY_INVALID_DH_CHOSEN                   = 15,
	HIP_NOTIFY_NO_HIP_PROPOSAL_CHOSEN              = 16,
	HIP_NOTIFY_INVALID_HIP_CIPHER_CHOSEN           = 17,
	HIP_NOTIFY_NO_ESP_PROPOSAL_CHOSEN              = 18,
	HIP_NOTIFY_INVALID_ESP_TRANSFORM_CHOSEN        = 19,
	HIP_NOTIFY_UNSUPPORTED_HIT_SUITE               = 20,
	HIP_NOTIFY_AUTHENTICATION_FAILED               = 24,
	HIP_NOTIFY_CHECKSUM_FAILED                     = 26,
	HIP_NOTIFY_HIP_MAC_FAILED                      = 28,
	HIP_NOTIFY_ENCRYPTION_FAILED                   = 32,
	HIP_NOTIFY_INVALID_HIT                         = 40,
	HIP_NOTIFY_BLOCKED_BY_POLICY                   = 42,
	HIP_NOTIFY_RESPONDER_BUSY_PLEASE_RETRY         = 44,
	HIP_NOTIFY_LOCATOR_TYPE_UNSUPPORTED            = 46,
	HIP_NOTIFY_CREDENTIALS_REQUIRED                = 48,
	HIP_NOTIFY_INVALID_CERTIFICATE                 = 50,
	HIP_NOTIFY_REG_REQUIRED                        = 51,
	HIP_NOTIFY_NO_VALID_NAT_TRAVERSAL_MODE         = 60,    /* RFC 9028 §5.10 */
	HIP_NOTIFY_CONNECTIVITY_CHECKS_FAILED          = 61,
	HIP_NOTIFY_MESSAGE_NOT_RELAYED                 = 62,
	HIP_NOTIFY_RVS_HMAC_PROHIBITED_WITH_RELAY      = 64,
	HIP_NOTIFY_I2_ACKNOWLEDGEMENT                  = 16384,
	HIP_NOTIFY_NAT_KEEPALIVE                       = 16385, /* RFC 9028 §5.3 */
};

/* NAT traversal modes (RFC 9028 §5.4, Table 1). */
enum hip_nat_mode {
	HIP_NAT_MODE_UDP_ENCAPSULATION = 1,   /* RFC 5770; MUST in RFC 9028 */
	HIP_NAT_MODE_ICE_STUN_UDP      = 2,   /* RFC 5770 */
	HIP_NAT_MODE_ICE_HIP_UDP       = 3,   /* RFC 9028 */
};

/* Connectivity check pacing (RFC 9028 §4.4, TRANSACTION_PACING): Ta in ms. */
enum hip_nat_ta {
	HIP_NAT_TA_DEFAULT_MS = 50,   /* without the parameter, or unconfigured */
	HIP_NAT_TA_MIN_MS     = 5,    /* MUST NOT use less */
	HIP_NAT_TA_MAX_MS     = 1000, /* hipd's bound on a peer's (and our) offer */
};

/* Registration (RFC 8003 §4). */
enum hip_reg_consts {
	HIP_REG_RENDEZVOUS    = 1,
	HIP_REG_RELAY_UDP_HIP = 2,    /* RFC 5770 §5.9: control relay */
	HIP_REG_RELAY_UDP_ESP = 3,    /* RFC 9028 §5.9: data relay */
	HIP_REG_CANDIDATE_DISCOVERY = 4,
	HIP_REG_LIFETIME_CANCEL = 0,
};

/* The HIP fixed header as it sits on the wire (RFC 7401 §5.1). */
struct hip_hdr {
	uint8_t  next_hdr;         /* 59 */
	uint8_t  hdr_len;          /* (total length / 8) - 1 */
	uint8_t  type;             /* bit 7 = 0 (SHIM6 fixed), bits 6..0 type */
	uint8_t  ver_res;          /* version << 4 | reserved(3) | fixed 1 */
	uint16_t checksum;         /* network order, over the pseudo-header */
	uint16_t controls;         /* network order */
	uint8_t  hit_sender[HIP_HIT_LEN];
	uint8_t  hit_receiver[HIP_HIT_LEN];
} __attribute__((packed));
_Static_assert(sizeof(struct hip_hdr) == HIP_HDR_LEN, "HIP header is 40 bytes");

/* TLV header (RFC 7401 §5.2.1). Contents follow, then zero padding to 8. */
struct hip_tlv_hdr {
	uint16_t type;             /* network order; low bit = critical */
	uint16_t length;           /* network order; contents only */
} __attribute__((packed));
_Static_assert(sizeof(struct hip_tlv_hdr) == HIP_TLV_HDR_LEN, "TLV header is 4 bytes");

/* ESP_INFO contents (RFC 7402 §5.1.1). */
struct hip_esp_info_wire {
	uint16_t reserved;
	uint16_t keymat_index;     /* byte offset of the first ESP key in KEYMAT */
	uint32_t old_spi;
	uint32_t new_spi;
} __attribute__((packed));
_Static_assert(sizeof(struct hip_esp_info_wire) == HIP_LEN_ESP_INFO, "ESP_INFO is 12 bytes");

/* LSI_ESP_INFO contents (hipd, docs/decisions.md D-22): the sender offers
 * (I2) or takes (R2) a second SA pair that carries IPv4 between LSIs. */
struct hip_lsi_esp_info_wire {
	uint32_t sender_lsi;       /* the sender's own LSI: inner source of what it sends */
	uint32_t receiver_lsi;     /* the LSI the sender uses for the receiver */
	uint32_t spi;              /* the sender's inbound SPI for that pair */
} __attribute__((packed));
_Static_assert(sizeof(struct hip_lsi_esp_info_wire) == HIP_LEN_LSI_ESP_INFO,
	       "LSI_ESP_INFO is 12 bytes");

/* R1_COUNTER contents (RFC 7401 §5.2.3). Echoed verbatim in I2. */
struct hip_r1_counter_wire {
	uint32_t reserved;
	uint64_t counter;          /* network order, monotonic per HI */
} __attribute__((packed));
_Static_assert(sizeof(struct hip_r1_counter_wire) == HIP_LEN_R1_COUNTER, "R1_COUNTER is 12 bytes");

/* Length of a TLV on the wire, header and padding included (§5.2.1):
 * 11 + L - (L + 3) % 8. */
static inline unsigned hip_tlv_total_len(unsigned content_len)
{
	return 11 + content_len - (content_len + 3) % 8;
}

static inline int hip_param_is_critical(uint16_t type)
{
	return type & 1;
}

#endif /* HIP_WIRE_H */
