/*
 * inject.h - what hip-inject's two files share: the packet context, packet
 * building (every HIP packet type, optionally with a wrong MAC or
 * signature) and the mutations that make well-formed packets malformed.
 */
#ifndef HIP_INJECT_H
#define HIP_INJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "checksum.h"
#include "hip_crypto.h"
#include "params.h"

enum {
	INJ_TYPES     = 8,      /* I1 R1 I2 R2 UPDATE NOTIFY CLOSE CLOSE_ACK */
	INJ_TLV_MAX   = 1024,   /* our HOST_ID TLV */
	INJ_DH_MAX    = 512,
	INJ_ECHO_LEN  = 16,
	/* inj_build flags */
	INJ_BAD_MAC   = 1,      /* HIP_MAC / HIP_MAC_2 under a wrong key */
	INJ_BAD_SIG   = 2,      /* signed by a key that is not the HIT's */
	INJ_ECHO      = 4,      /* I1: an ECHO_REQUEST_UNSIGNED after the list */
};

/* Everything a packet is built from. Outside a session the keys and values
 * are random (so every MAC is wrong anyway); a session fills them in from
 * the R1 it received. */
struct inj_ctx {
	struct hip_hi *hi, *other;          /* our identity; a stranger for bad signatures */
	struct hip_hit me, peer;
	enum hip_rhash rhash;               /* the Responder's (the peer's) suite */
	uint8_t host_id_tlv[INJ_TLV_MAX];   /* our HOST_ID TLV, padding included */
	size_t host_id_tlv_len;
	uint8_t mac_key[HIP_KEY_MAX], enc_key[HIP_KEY_MAX]; /* our outbound HIP keys */
	uint16_t hip_cipher, esp_suite, keymat_index;
	uint32_t spi, update_id;
	uint8_t dh_group;
	uint8_t dh_pub[INJ_DH_MAX];
	size_t dh_pub_len;
	struct hip_solution sol;
	struct hip_r1_counter r1c;
	bool have_r1c, have_echo;
	uint8_t echo[HIP_MAX_PACKET];       /* ECHO_REQUEST_SIGNED of the R1 / our CLOSE */
	size_t echo_len;
	uint64_t rng;                       /* xorshift state for the mutations */
};

extern const uint8_t inj_types[INJ_TYPES];

/* Identities, HITs and random values; peer_hit names the victim. */
int inj_ctx_init(struct inj_ctx *c, const struct hip_hit *peer_hit);
void inj_ctx_free(struct inj_ctx *c);
uint32_t inj_rand(struct inj_ctx *c);

/* A well-formed packet of type (checksum left 0); length or -errno. */
int inj_build(struct inj_ctx *c, uint8_t type, unsigned flags, uint8_t *buf, size_t cap);

enum inj_mutation {
	INJ_MUT_TRUNCATE,   /* cut anywhere; Header Length fixed up or not */
	INJ_MUT_REORDER,    /* two parameters swapped */
	INJ_MUT_DUPLICATE,  /* a non-repeatable parameter twice */
	INJ_MUT_BADCSUM,    /* valid packet, wrong checksum */
	INJ_MUT_RANDOM,     /* valid header, random bytes after it */
};
/* Mutate the packet in buf (len bytes, cap room) and set its checksum for
 * src -> dst (a wrong one for BADCSUM); the new length. */
size_t inj_mutate(struct inj_ctx *c, enum inj_mutation m, uint8_t *buf, size_t len, size_t cap,
		  const struct hip_addr *src, const struct hip_addr *dst);

#endif
