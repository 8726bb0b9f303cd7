/*
 * coverage.h - what HIP_MAC, HIP_MAC_2, HIP_SIGNATURE and HIP_SIGNATURE_2
 * cover (RFC 7401 §5.2.12-15, §6.4; docs/protocol.md §2), and helpers that build
 * and verify them.
 *
 * Common rule: the header and every parameter before the MAC/signature TLV,
 * with Checksum = 0 and Header Length recomputed so the packet ends where the
 * MAC/signature would start. HIP_MAC_2 appends the Responder's HOST_ID TLV
 * exactly as received in R1 (padding included). HIP_SIGNATURE_2 also zeroes
 * the Receiver's HIT and the PUZZLE Opaque and #I fields.
 */
#ifndef HIP_COVERAGE_H
#define HIP_COVERAGE_H

#include <stddef.h>
#include <stdint.h>
#include "hip_crypto.h"
#include "packet.h"

enum hip_cover_kind {
	HIP_COVER_MAC,          /* HIP_MAC (61505), also RVS_HMAC style */
	HIP_COVER_MAC_2,        /* HIP_MAC_2 (61569) + appended HOST_ID TLV */
	HIP_COVER_SIGNATURE,    /* HIP_SIGNATURE (61697) */
	HIP_COVER_SIGNATURE_2,  /* HIP_SIGNATURE_2 (61633), zeroed fields */
};

enum { HIP_COVER_MAX = 2 * HIP_MAX_PACKET }; /* room for MAC_2's HOST_ID */

/* Copy the covered bytes of pkt[0 .. end_off) into out, patched as above.
 * end_off is where the MAC/signature TLV starts and must be a multiple of 8
 * (>= 40). host_id_tlv (MAC_2 only) is the whole TLV with its padding.
 * The packet bytes before end_off must already be well formed (built by us
 * or accepted by hip_packet_parse). */
int hip_coverage(const uint8_t *pkt, size_t end_off, enum hip_cover_kind kind,
		 const uint8_t *host_id_tlv, size_t host_id_tlv_len,
		 uint8_t *out, size_t cap, size_t *out_len);

/* Sender side: append HIP_MAC or HIP_MAC_2 (kind) computed with key over the
 * builder's current contents. */
void hip_build_mac(struct hip_builder *b, enum hip_cover_kind kind,
		   enum hip_rhash h, const uint8_t *key, size_t key_len,
		   const uint8_t *host_id_tlv, size_t host_id_tlv_len);
/* RVS_HMAC (RFC 8004 §4.2.1): computed as HIP_MAC over everything before
 * it (the FROM the RVS appended included). */
void hip_build_rvs_hmac(struct hip_builder *b, enum hip_rhash h, const uint8_t *key,
			size_t key_len);
int hip_verify_rvs_hmac(const struct hip_packet *pkt, enum hip_rhash h, const uint8_t *key,
			size_t key_len);
/* RELAY_HMAC (RFC 9028 §5.8): RVS_HMAC's computation, keyed with the
 * relay-client association's integrity key, over everything before it
 * (RELAY_FROM included). Verify takes type RVS_HMAC or RELAY_HMAC. */
void hip_build_relay_hmac(struct hip_builder *b, enum hip_rhash h, const uint8_t *key,
			  size_t key_len);
int hip_verify_relay_hmac(const struct hip_packet *pkt, uint16_t type, enum hip_rhash h,
			  const uint8_t *key, size_t key_len);
/* Sender side: append HIP_SIGNATURE or HIP_SIGNATURE_2 signed by hi. */
void hip_build_signature(struct hip_builder *b, enum hip_cover_kind kind,
			 const struct hip_hi *hi);

/* Receiver side. 0 = valid; -ENOENT the parameter is missing; -EBADMSG bad.
 * The MAC length must equal hip_rhash_len(h). */
int hip_verify_mac(const struct hip_packet *pkt, enum hip_cover_kind kind,
		   enum hip_rhash h, const uint8_t *key, size_t key_len,
		   const uint8_t *host_id_tlv, size_t host_id_tlv_len);
/* Checks the SIG alg equals hip_hi_algorithm(hi), then the signature. */
int hip_verify_signature(const struct hip_packet *pkt, enum hip_cover_kind kind,
			 const struct hip_hi *hi);

#endif
