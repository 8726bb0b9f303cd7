/*
 * params.h - typed encode/decode of every HIPv2 parameter.
 *
 * Decoders take the contents (after the TLV header) and their Length and
 * check it exactly: fixed-size parameters must have exactly their size,
 * variable ones must be internally consistent. Returned pointers point into
 * the caller's packet buffer (no copy). Decoders return 0 or -EBADMSG.
 * Encoders append one whole TLV to a builder (errors stick in the builder).
 */
#ifndef HIP_PARAMS_H
#define HIP_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <netinet/in.h>
#include "checksum.h"
#include "hip_wire.h"
#include "packet.h"

/* ESP_INFO (65) */
struct hip_esp_info { uint16_t keymat_index; uint32_t old_spi, new_spi; };
int  hip_esp_info_decode(const uint8_t *c, size_t len, struct hip_esp_info *out);
void hip_esp_info_build(struct hip_builder *b, const struct hip_esp_info *v);

/* LSI_ESP_INFO (32800, hipd's own, D-22); addresses in network order.
 * Decode refuses a zero LSI and an SPI below HIP_SPI_MIN. */
struct hip_lsi_esp_info { struct in_addr sender_lsi, receiver_lsi; uint32_t spi; };
int  hip_lsi_esp_info_decode(const uint8_t *c, size_t len, struct hip_lsi_esp_info *out);
void hip_lsi_esp_info_build(struct hip_builder *b, const struct hip_lsi_esp_info *v);

/* R1_COUNTER (129): kept raw so I2 echoes all 12 bytes, Reserved included. */
struct hip_r1_counter { uint8_t raw[HIP_LEN_R1_COUNTER]; uint64_t counter; };
int  hip_r1_counter_decode(const uint8_t *c, size_t len, struct hip_r1_counter *out);
void hip_r1_counter_build(struct hip_builder *b, const struct hip_r1_counter *v);
void hip_r1_counter_set(struct hip_r1_counter *v, uint64_t counter); /* reserved 0 */

/* LOCATOR_SET (193), RFC 8046 §4. IPv4 is carried IPv4-mapped. */
struct hip_locator {
	uint8_t  traffic_type;  /* HIP_LOC_TRAFFIC_* */
	uint8_t  locator_type;  /* 0, 1 or 2 */
	bool     preferred;
	uint32_t lifetime;      /* seconds, non-zero */
	uint32_t spi;           /* type 1 and 2 */
	uint16_t port;          /* type 2 */
	uint8_t  transport_protocol, kind; /* type 2 */
	uint32_t priority;      /* type 2 */
	struct hip_addr addr;
};
struct hip_locator_set { unsigned n; struct hip_locator loc[HIP_LOCATORS_MAX]; };
/* Rejects zero lifetimes, multicast/broadcast addresses, bad lengths, more
 * than HIP_LOCATORS_MAX entries. Unknown locator types are -ENOTSUP. */
int  hip_locator_set_decode(const uint8_t *c, size_t len, struct hip_locator_set *out);
void hip_locator_set_build(struct hip_builder *b, const struct hip_locator_set *v);

/* PUZZLE (257): #I is RHASH_len/8 bytes ... i.e. the RHASH length. */
struct hip_puzzle {
	uint8_t  k, lifetime;
	uint16_t opaque;        /* kept in network byte order as two bytes */
	uint8_t  i[HIP_RHASH_MAX];
	uint8_t  i_len;
};
/* rhash_len: the expected #I length (from the Responder's HIT suite). */
int  hip_puzzle_decode(const uint8_t *c, size_t len, size_t rhash_len, struct hip_puzzle *out);
void hip_puzzle_build(struct hip_builder *b, const struct hip_puzzle *v);

/* SOLUTION (321) */
struct hip_solution {
	uint8_t  k, reserved;
	uint16_t opaque;
	uint8_t  i[HIP_RHASH_MAX], j[HIP_RHASH_MAX];
	uint8_t  ij_len;
};
int  hip_solution_decode(const uint8_t *c, size_t len, size_t rhash_len, struct hip_solution *out);
void hip_solution_build(struct hip_builder *b, const struct hip_solution *v);

/* SEQ (385), ACK (449) */
int  hip_seq_decode(const uint8_t *c, size_t len, uint32_t *update_id);
void hip_seq_build(struct hip_builder *b, uint32_t update_id);
struct hip_ack { unsigned n; uint32_t id[HIP_ACK_MAX]; };
int  hip_ack_decode(const uint8_t *c, size_t len, struct hip_ack *out);
void hip_ack_build(struct hip_builder *b, const struct hip_ack *v);

/* u8 lists: DH_GROUP_LIST (511), HIT_SUITE_LIST (715, stored as the upper
 * nibble ID, i.e. 0x20 -> 2; nonzero lower nibble -> -EBADMSG). */
struct hip_u8_list { unsigned n; uint8_t v[HIP_LIST_MAX]; };
int  hip_dh_group_list_decode(const uint8_t *c, size_t len, struct hip_u8_list *out);
void hip_dh_group_list_build(struct hip_builder *b, const struct hip_u8_list *v);
int  hip_hit_suite_list_decode(const uint8_t *c, size_t len, struct hip_u8_list *out);
void hip_hit_suite_list_build(struct hip_builder *b, const struct hip_u8_list *v);

/* u16 lists: HIP_CIPHER (579), TRANSPORT_FORMAT_LIST (2049), ESP_TRANSFORM
 * (4095, after its 2 reserved bytes), NAT_TRAVERSAL_MODE (608, same). Lists
 * longer than HIP_LIST_MAX keep the first HIP_LIST_MAX. */
struct hip_u16_list { unsigned n; uint16_t v[HIP_LIST_MAX]; };
int  hip_hip_cipher_decode(const uint8_t *c, size_t len, struct hip_u16_list *out);
void hip_hip_cipher_build(struct hip_builder *b, const struct hip_u16_list *v);
int  hip_transport_format_list_decode(const uint8_t *c, size_t len, struct hip_u16_list *out);
void hip_transport_format_list_build(struct hip_builder *b, const struct hip_u16_list *v);
int  hip_esp_transform_decode(const uint8_t *c, size_t len, struct hip_u16_list *out);
void hip_esp_transform_build(struct hip_builder *b, const struct hip_u16_list *v);
int  hip_nat_traversal_mode_decode(const uint8_t *c, size_t len, struct hip_u16_list *out);
void hip_nat_traversal_mode_build(struct hip_builder *b, const struct hip_u16_list *v);

/* DIFFIE_HELLMAN (513): one group/value pair (v2 sends exactly one). */
struct hip_dh_param { uint8_t group; uint16_t pub_len; const uint8_t *pub; };
int  hip_dh_param_decode(const uint8_t *c, size_t len, struct hip_dh_param *out);
void hip_dh_param_build(struct hip_builder *b, uint8_t group, const uint8_t *pub, size_t pub_len);

/* TRANSACTION_PACING (610) */
int  hip_transaction_pacing_decode(const uint8_t *c, size_t len, uint32_t *min_ta);
void hip_transaction_pacing_build(struct hip_builder *b, uint32_t min_ta);

/* ENCRYPTED (641): Reserved(4) then IV|ciphertext (opaque here). */
struct hip_encrypted { const uint8_t *data; size_t len; };
int  hip_encrypted_decode(const uint8_t *c, size_t len, struct hip_encrypted *out);
void hip_encrypted_build(struct hip_builder *b, const uint8_t *data, size_t len);

/* HOST_ID (705): HI Length excludes Algorithm; DI-Type 0 => DI Length 0. */
struct hip_host_id {
	uint16_t algorithm;
	const uint8_t *hi;  uint16_t hi_len;
	uint8_t  di_type;
	const uint8_t *di;  uint16_t di_len;
};
int  hip_host_id_decode(const uint8_t *c, size_t len, struct hip_host_id *out);
void hip_host_id_build(struct hip_builder *b, const struct hip_host_id *v);

/* CERT (768): group, count, id, type, certificate. */
struct hip_cert { uint8_t group, count, id, type; const uint8_t *data; size_t len; };
int  hip_cert_decode(const uint8_t *c, size_t len, struct hip_cert *out);
void hip_cert_build(struct hip_builder *b, const struct hip_cert *v);

/* NOTIFICATION (832) */
struct hip_notification { uint16_t type; const uint8_t *data; size_t len; };
int  hip_notification_decode(const uint8_t *c, size_t len, struct hip_notification *out);
void hip_notification_build(struct hip_builder *b, uint16_t type, const void *data, size_t len);

/* Opaque payloads: ECHO_REQUEST/RESPONSE_SIGNED/UNSIGNED, HIP_MAC, HIP_MAC_2,
 * RVS_HMAC, RELAY_HMAC. Echo data is 1..HIP_MAX_PACKET bytes (empty = bad). */
struct hip_opaque { const uint8_t *data; size_t len; };
int  hip_echo_decode(const uint8_t *c, size_t len, struct hip_opaque *out);
void hip_echo_build(struct hip_builder *b, uint16_t type, const void *data, size_t len);
/* MACs: len must equal mac_len (the RHASH length). */
int  hip_mac_decode(const uint8_t *c, size_t len, size_t mac_len, struct hip_opaque *out);

/* HIP_SIGNATURE (61697) / HIP_SIGNATURE_2 (61633): SIG alg(16) | signature */
struct hip_signature { uint16_t algorithm; const uint8_t *sig; size_t len; };
int  hip_signature_decode(const uint8_t *c, size_t len, struct hip_signature *out);

/* Registration (RFC 8003 §4). Types are one byte each. */
struct hip_reg_info { uint8_t min_lifetime, max_lifetime; unsigned n; uint8_t type[HIP_LIST_MAX]; };
int  hip_reg_info_decode(const uint8_t *c, size_t len, struct hip_reg_info *out);
void hip_reg_info_build(struct hip_builder *b, const struct hip_reg_info *v);
/* REG_REQUEST / REG_RESPONSE (lifetime) and REG_FAILED (failure type). */
struct hip_reg { uint8_t value; unsigned n; uint8_t type[HIP_LIST_MAX]; };
int  hip_reg_decode(const uint8_t *c, size_t len, struct hip_reg *out);
void hip_reg_build(struct hip_builder *b, uint16_t param_type, const struct hip_reg *v);
/* Lifetime encoding 2^((v-64)/8) seconds; 0 = cancel. */
double hip_reg_lifetime_seconds(uint8_t v);
uint8_t hip_reg_lifetime_encode(double seconds);

/* FROM (65498): one address. VIA_RVS (65502): a list of addresses. */
int  hip_from_decode(const uint8_t *c, size_t len, struct hip_addr *out);
void hip_from_build(struct hip_builder *b, const struct hip_addr *a);
struct hip_via_rvs { unsigned n; struct hip_addr addr[HIP_VIA_RVS_MAX]; };
int  hip_via_rvs_decode(const uint8_t *c, size_t len, struct hip_via_rvs *out);
void hip_via_rvs_build(struct hip_builder *b, const struct hip_via_rvs *v);

/* RELAY_FROM / RELAY_TO / REG_FROM: port(16) | protocol(8) | reserved(8) | addr(128) */
struct hip_relay_addr { uint16_t port; uint8_t protocol; struct hip_addr addr; };
int  hip_relay_addr_decode(const uint8_t *c, size_t len, struct hip_relay_addr *out);
void hip_relay_addr_build(struct hip_builder *b, uint16_t param_type, const struct hip_relay_addr *v);

/* PEER_PERMISSION (4680, RFC 9028 §5.13): a data relay client lets the
 * peer at addr (its port: 0 = any) with HIT hit send to its relayed
 * address; ospi: the client's outbound SPI to it, ispi: its inbound. */
struct hip_peer_permission {
	struct hip_relay_addr peer;
	struct hip_hit hit;
	uint32_t ospi, ispi;
};
int  hip_peer_permission_decode(const uint8_t *c, size_t len, struct hip_peer_permission *out);
void hip_peer_permission_build(struct hip_builder *b, const struct hip_peer_permission *v);

/* A parameter that is one 32-bit value (4 bytes of content, else -EBADMSG). */
int  hip_u32_param_decode(const uint8_t *c, size_t len, uint32_t *out);
void hip_u32_param_build(struct hip_builder *b, uint16_t type, uint32_t v);

/* CANDIDATE_PRIORITY (4700): priority(32); NOMINATE (4710): reserved(32),
 * RFC 9028 §5.14-5.15. */
int  hip_candidate_priority_decode(const uint8_t *c, size_t len, uint32_t *out);
void hip_candidate_priority_build(struct hip_builder *b, uint32_t priority);
int  hip_nominate_decode(const uint8_t *c, size_t len);
void hip_nominate_build(struct hip_builder *b);

#endif
