/*
 * hidb.h - the local host identities (private keys) and their HITs.
 */
#ifndef HIPD_HIDB_H
#define HIPD_HIDB_H

#include <stdbool.h>
#include <stddef.h>

#include "hip_crypto.h"
#include "hit.h"

struct r1cache;

struct hidb_entry {
	struct hip_hi  *hi;          /* with private key */
	struct hip_hit  hit;
	enum hip_rhash  suite;       /* = RHASH of this HI's HIT suite */
	uint8_t         host_id_tlv[1024]; /* our HOST_ID TLV as sent (DI none) */
	size_t          host_id_tlv_len;
	struct r1cache *r1;          /* precomputed R1s of this identity */
};

struct hidb;

/* Load the identity at path, or generate one of kind (and save it 0600)
 * when the file does not exist. Refuses a group/world-readable key. */
int hidb_open(struct hidb **out, const char *path, enum hip_hi_kind kind);
void hidb_free(struct hidb *db);
/* The identity owning this HIT, or NULL. */
struct hidb_entry *hidb_find(struct hidb *db, const struct hip_hit *hit);
/* The default identity (first loaded). */
struct hidb_entry *hidb_default(struct hidb *db);
/* The identity to use for a peer of the given HIT suite (NULL HIT I1):
 * one of that suite if we have it, else the default. */
struct hidb_entry *hidb_for_suite(struct hidb *db, unsigned suite);
size_t hidb_count(const struct hidb *db);
/* Take ownership of hi (with private key) and add it as one more identity
 * (several identities, e.g. one per HIT suite; used by tests). */
int hidb_add(struct hidb *db, struct hip_hi *hi);
struct hidb_entry *hidb_at(struct hidb *db, size_t i);

#endif
