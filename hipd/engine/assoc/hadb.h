/*
 * hadb.h - host associations (one per HIT pair, RFC 7401 §6) with O(1)
 * lookup by HIT pair and by inbound SPI.
 */
#ifndef HIPD_HADB_H
#define HIPD_HADB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <netinet/in.h>

#include "checksum.h"
#include "hip_crypto.h"
#include "hit.h"
#include "params.h"
#include "state.h"

struct hidb_entry;
struct hipd;
struct hip_update;
struct hip_ice;

/* The LSI SA pair of an association: IPv4 between the two hosts' LSIs
 * (docs/decisions.md D-22, engine/update/update_lsi.c). Allocated when it
 * is offered or taken, freed (keys wiped) when it goes; its inbound SPI is
 * in the SPI index like the HIT pair's. */
struct hip_lsi_pair {
	struct in_addr       local, peer;     /* the LSIs: ours, the peer's */
	uint32_t             spi_in, spi_out; /* spi_out 0: offered, not agreed */
	uint32_t             dp_spi_in, dp_spi_out;   /* in the datapath, 0 = none */
	bool                 dp_policy;       /* its policy pair is in the datapath */
	struct hip_esp_keys  keys;            /* KEYMAT after the HIT pair's */
	struct hip_ha       *ha;              /* its association (the index) */
	struct hip_lsi_pair *next_by_spi;     /* hash chain: private to hadb.c */
};

struct hip_ha {
	struct hip_hit      hit_local, hit_peer;
	struct hidb_entry  *local;           /* our identity */
	struct hip_hi      *peer_hi;         /* peer's public key, imported: only
					      * from R1/I2 until R2 (keys.c) */
	uint8_t            *peer_hi_wire;    /* its HI octets (kept; re-imported
					      * on demand once established) */
	uint16_t            peer_hi_alg, peer_hi_len;
	enum hip_state      state;
	bool                initiator;       /* we sent the I1 */
	bool                have_r1_counter; /* r1_counter below is set */
	uint8_t             r1_k;            /* the R1's puzzle K */
	struct hip_addr     addr_local, addr_peer;
	uint16_t            peer_port;       /* HIP and ESP over UDP to this port
					      * (RFC 9028 §5.1); 0 = raw IP */
	/* the peer is reached through our control relay server (RFC 9028
	 * §4.5): packets to addr_peer/peer_port go to relay_addr/relay_port
	 * with RELAY_TO; relay_port 0 = direct */
	uint16_t            relay_port;
	struct hip_addr     relay_addr;
	uint64_t            t_last_sent_ns;  /* our last HIP packet to the peer */
	uint64_t            t_keepalive_ns;  /* our last NAT keepalive (RFC 9028 §5.3) */
	uint64_t            ka_esp_out;      /* outbound ESP packets at the last look */
	uint64_t            t_ka_out_ns;     /* last HIP or ESP out seen by the tick */

	/* negotiated in the base exchange */
	uint8_t             dh_group;
	uint16_t            hip_cipher, esp_suite;
	uint16_t            nat_mode;        /* RFC 9028 §4.3: chosen in the I2, 0 = none */
	uint16_t            nat_ta_ms;       /* §4.4: Ta of the checks, the higher offer */
	enum hip_rhash      rhash;           /* Responder's suite: puzzle/KEYMAT/MAC */
	struct hip_dh      *dh;              /* our DH key (initiator), owned */
	uint8_t             puzzle_i[HIP_RHASH_MAX], puzzle_j[HIP_RHASH_MAX];
	size_t              puzzle_len;
	struct hip_r1_counter r1_counter;    /* from the R1 (initiator) */
	struct hip_hip_keys hip_keys;        /* wiped on free */
	struct hip_esp_keys esp_keys;        /* wiped on free */
	uint16_t            keymat_index;    /* next unused KEYMAT byte */
	uint32_t            spi_in, spi_out; /* inbound: we chose it */
	/* what the datapath holds for us (engine_dp.c), removed exactly:
	 * SPIs 0 = none; the locators the SAs and policies were made with */
	bool                dp_installed;
	bool                ice_pending;     /* no SAs until a pair is nominated */
	bool                data_relayed;    /* the nominated pair is a data relay's
					      * port (RFC 9028 §4.12) */
	uint32_t            dp_spi_in, dp_spi_out;
	struct hip_addr     dp_loc_local, dp_loc_peer;

	/* the peer's HOST_ID TLV from R1, kept until R2 for HIP_MAC_2 */
	uint8_t            *peer_host_id_tlv;
	size_t              peer_host_id_tlv_len;

	/* retransmission of our last I1/I2/CLOSE (RFC 7401 §4.4.1, D-1) */
	uint8_t            *retx_pkt;
	size_t              retx_len;
	unsigned            retx_count;
	uint64_t            retx_timer;      /* loop timer handle, 0 = none */

	/* CLOSE echo nonce (RFC 7401 §5.3.7) */
	uint8_t             close_nonce[16];

	/* UPDATE sequence numbers (RFC 7401 §6.11-6.12) */
	uint32_t            update_id_out;
	uint32_t            update_id_in;    /* the last ordinary UPDATE processed */
	uint32_t            update_id_top;   /* the highest accepted, checks included */
	bool                update_id_in_valid;
	bool                update_id_top_valid;
	bool                upd_have_prk;    /* upd_prk below is set */
	/* UPDATE state (hipd/engine/update/update_int.h): locators, rekey, cached reply;
	 * freed by upd_ha_ending(). The KEYMAT's HKDF PRK is kept for
	 * rekeys without DH (RFC 7402 §6.9; a negotiated field). */
	struct hip_update  *upd;
	/* ICE-HIP-UDP connectivity checks (update/update_ice.c), NULL = none;
	 * ice_pending: no SAs until a pair is nominated (RFC 9028 §4.6) */
	struct hip_ice     *ice;
	struct hip_lsi_pair *lsi;            /* the LSI SA pair (D-22), NULL = none */
	uint8_t             upd_prk[HIP_RHASH_MAX];

	/* timing and counters (hipconf show associations) */
	uint64_t            t_created_ns, t_i1_ns, t_r1_ns, t_i2_ns, t_established_ns;
	uint64_t            t_last_activity_ns;
	uint64_t            pkts_in, pkts_out;

	/* the daemon owning it (set by the engine; its timer callbacks get
	 * only the association) */
	struct hipd        *owner;

	/* hash chains: private to hadb.c */
	struct hip_ha      *next_by_hits, *next_by_spi;
};

struct hadb;

int hadb_create(struct hadb **out);
/* Frees every association (secrets wiped). */
void hadb_free(struct hadb *db);
/* Called for each association freed, before its memory is wiped: what
 * others keep in it (UPDATE's state) goes. */
void hadb_set_free_hook(struct hadb *db, void (*fn)(struct hip_ha *ha));
/* Create in UNASSOCIATED; -EEXIST if the pair exists. */
int hadb_add(struct hadb *db, const struct hip_hit *local, const struct hip_hit *peer,
	     struct hip_ha **out);
struct hip_ha *hadb_find(struct hadb *db, const struct hip_hit *local,
			 const struct hip_hit *peer);
/* Any association with this peer HIT (for hipconf trigger/close). */
struct hip_ha *hadb_find_peer(struct hadb *db, const struct hip_hit *peer);
/* The association with inbound SPI spi_in, of either pair (HIT or LSI). */
struct hip_ha *hadb_find_spi(struct hadb *db, uint32_t spi_in);
/* Set/replace the inbound SPI index entry (spi_in); -EEXIST: taken. */
int hadb_set_spi(struct hadb *db, struct hip_ha *ha, uint32_t spi_in);
/* The LSI pair of ha with inbound SPI spi_in (ha->lsi made if it had
 * none): 0, -EEXIST (the SPI is taken), -ENOMEM. */
int hadb_lsi_set_spi(struct hadb *db, struct hip_ha *ha, uint32_t spi_in);
/* ha's LSI pair goes: its SPI out of the index, its keys wiped, freed
 * (its SAs must be out of the datapath). No-op without one. */
void hadb_lsi_forget(struct hadb *db, struct hip_ha *ha);
/* Remove and free (wipes keys, frees DH, peer HI, buffers). */
void hadb_del(struct hadb *db, struct hip_ha *ha);
size_t hadb_count(const struct hadb *db);
/* Iterate: cb returns nonzero to stop. Safe against deleting the current. */
void hadb_foreach(struct hadb *db, int (*cb)(struct hip_ha *ha, void *arg), void *arg);
/* A fresh random inbound SPI >= 256, unused in this db. */
uint32_t hadb_new_spi(struct hadb *db);

#endif
