/*
 * hadb.c - host associations in two chained hash tables: by HIT pair and by
 * inbound SPI (O(1) lookups, sized for 10,000 associations). The inbound
 * SPIs of LSI SA pairs (D-22) have a third table beside the second, so an
 * SPI is unique across both pairs of every association.
 *
 * The HIT-pair table is keyed by the peer HIT alone, so hadb_find_peer() is
 * O(1) too; a bucket holds the (rare) associations of several local HITs
 * with one peer. Hashes are SipHash with a random key: peers choose their
 * HITs, and a predictable hash would let them pile associations into one
 * chain. Both tables double when the load factor passes 1.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hadb.h"
#include "base/base.h"

enum { HADB_INITIAL_BUCKETS = 64, HADB_SPI_TRIES = 64 };

struct hadb {
	struct hip_ha **by_hits, **by_spi;
	struct hip_lsi_pair **by_lsi_spi;
	size_t nbuckets;            /* every table, a power of two */
	size_t count;
	void (*free_hook)(struct hip_ha *ha);  /* more state to free, NULL */
	unsigned iterating;         /* hadb_foreach depth: no resize meanwhile */
	struct hip_siphash_key key;
};

static size_t hits_bucket(const struct hadb *db, const struct hip_hit *peer)
{
	return hip_siphash(&db->key, peer->b, sizeof(peer->b)) & (db->nbuckets - 1);
}

static size_t spi_bucket(const struct hadb *db, uint32_t spi)
{
	return hip_siphash(&db->key, &spi, sizeof(spi)) & (db->nbuckets - 1);
}

int hadb_create(struct hadb **out)
{
	struct hadb *db;
	int ret;

	if (!out)
		return -EINVAL;
	db = calloc(1, sizeof(*db));
	if (!db)
		return -ENOMEM;
	db->nbuckets = HADB_INITIAL_BUCKETS;
	db->by_hits = calloc(db->nbuckets, sizeof(*db->by_hits));
	db->by_spi = calloc(db->nbuckets, sizeof(*db->by_spi));
	db->by_lsi_spi = calloc(db->nbuckets, sizeof(*db->by_lsi_spi));
	if (!db->by_hits || !db->by_spi || !db->by_lsi_spi) {
		ret = -ENOMEM;
		goto out;
	}
	ret = hip_siphash_key_random(&db->key);
	if (ret < 0)
		goto out;
	*out = db;
	db = NULL;
out:
	if (db) {
		free(db->by_hits);
		free(db->by_spi);
		free(db->by_lsi_spi);
		free(db);
	}
	return ret;
}

/* Free one association's resources; secrets are wiped with the struct. */
static void ha_destroy(struct hadb *db, struct hip_ha *ha)
{
	if (db->free_hook)    /* engine paths removed its SAs first */
		db->free_hook(ha);
	hip_dh_free(ha->dh);
	hip_hi_free(ha->peer_hi);
	free(ha->peer_hi_wire);
	if (ha->retx_pkt) {
		hip_wipe(ha->retx_pkt, ha->retx_len);
		free(ha->retx_pkt);
	}
	free(ha->peer_host_id_tlv);
	if (ha->lsi) {
		hip_wipe(ha->lsi, sizeof(*ha->lsi));
		free(ha->lsi);
	}
	hip_wipe(ha, sizeof(*ha));
	free(ha);
}

void hadb_free(struct hadb *db)
{
	size_t i;

	if (!db)
		return;
	for (i = 0; i < db->nbuckets; i++) {
		struct hip_ha *ha = db->by_hits[i], *next;

		for (; ha; ha = next) {
			next = ha->next_by_hits;
			ha_destroy(db, ha);
		}
	}
	free(db->by_hits);
	free(db->by_spi);
	free(db->by_lsi_spi);
	free(db);
}

/* Double both tables. Failure leaves the old tables in place (only slower). */
static void hadb_grow(struct hadb *db)
{
	size_t n = db->nbuckets * 2, i, old_n = db->nbuckets;
	struct hip_ha **hits = calloc(n, sizeof(*hits));
	struct hip_ha **spi = calloc(n, sizeof(*spi));
	struct hip_lsi_pair **lsi = calloc(n, sizeof(*lsi));
	struct hip_ha **old_hits = db->by_hits, **old_spi = db->by_spi;
	struct hip_lsi_pair **old_lsi = db->by_lsi_spi;

	if (!hits || !spi || !lsi) {
		free(hits);
		free(spi);
		free(lsi);
		return;
	}
	db->by_hits = hits;
	db->by_spi = spi;
	db->by_lsi_spi = lsi;
	db->nbuckets = n;
	for (i = 0; i < old_n; i++) {
		struct hip_ha *ha, *next;
		struct hip_lsi_pair *lp, *lnext;

		for (ha = old_hits[i]; ha; ha = next) {
			size_t b = hits_bucket(db, &ha->hit_peer);

			next = ha->next_by_hits;
			ha->next_by_hits = hits[b];
			hits[b] = ha;
		}
		for (ha = old_spi[i]; ha; ha = next) {
			size_t b = spi_bucket(db, ha->spi_in);

			next = ha->next_by_spi;
			ha->next_by_spi = spi[b];
			spi[b] = ha;
		}
		for (lp = old_lsi[i]; lp; lp = lnext) {
			size_t b = spi_bucket(db, lp->spi_in);

			lnext = lp->next_by_spi;
			lp->next_by_spi = lsi[b];
			lsi[b] = lp;
		}
	}
	free(old_hits);
	free(old_spi);
	free(old_lsi);
}

int hadb_add(struct hadb *db, const struct hip_hit *local, const struct hip_hit *peer,
	     struct hip_ha **out)
{
	struct hip_ha *ha;
	size_t b;

	if (!db || !local || !peer || !out)
		return -EINVAL;
	if (hadb_find(db, local, peer))
		return -EEXIST;
	ha = calloc(1, sizeof(*ha));
	if (!ha)
		return -ENOMEM;
	ha->hit_local = *local;
	ha->hit_peer = *peer;
	ha->state = HIP_STATE_UNASSOCIATED;
	if (db->count >= db->nbuckets && !db->iterating)
		hadb_grow(db);
	b = hits_bucket(db, peer);
	ha->next_by_hits = db->by_hits[b];
	db->by_hits[b] = ha;
	db->count++;
	*out = ha;
	return 0;
}

struct hip_ha *hadb_find(struct hadb *db, const struct hip_hit *local,
			 const struct hip_hit *peer)
{
	struct hip_ha *ha;

	for (ha = db->by_hits[hits_bucket(db, peer)]; ha; ha = ha->next_by_hits)
		if (!memcmp(ha->hit_peer.b, peer->b, HIP_HIT_LEN) &&
		    !memcmp(ha->hit_local.b, local->b, HIP_HIT_LEN))
			return ha;
	return NULL;
}

struct hip_ha *hadb_find_peer(struct hadb *db, const struct hip_hit *peer)
{
	struct hip_ha *ha;

	for (ha = db->by_hits[hits_bucket(db, peer)]; ha; ha = ha->next_by_hits)
		if (!memcmp(ha->hit_peer.b, peer->b, HIP_HIT_LEN))
			return ha;
	return NULL;
}

struct hip_ha *hadb_find_spi(struct hadb *db, uint32_t spi_in)
{
	struct hip_lsi_pair *lp;
	struct hip_ha *ha;
	size_t b;

	if (spi_in == 0)
		return NULL;
	b = spi_bucket(db, spi_in);
	for (ha = db->by_spi[b]; ha; ha = ha->next_by_spi)
		if (ha->spi_in == spi_in)
			return ha;
	for (lp = db->by_lsi_spi[b]; lp; lp = lp->next_by_spi)
		if (lp->spi_in == spi_in)
			return lp->ha;
	return NULL;
}

static void lsi_unlink(struct hadb *db, struct hip_lsi_pair *lp)
{
	struct hip_lsi_pair **pp;

	if (lp->spi_in == 0)
		return;
	for (pp = &db->by_lsi_spi[spi_bucket(db, lp->spi_in)]; *pp; pp = &(*pp)->next_by_spi) {
		if (*pp == lp) {
			*pp = lp->next_by_spi;
			lp->next_by_spi = NULL;
			return;
		}
	}
}

int hadb_lsi_set_spi(struct hadb *db, struct hip_ha *ha, uint32_t spi_in)
{
	struct hip_lsi_pair *lp;
	size_t b;

	if (!db || !ha || !spi_in)
		return -EINVAL;
	if (ha->lsi && ha->lsi->spi_in == spi_in)
		return 0;
	if (hadb_find_spi(db, spi_in))
		return -EEXIST;
	if (!ha->lsi) {
		ha->lsi = calloc(1, sizeof(*ha->lsi));
		if (!ha->lsi)
			return -ENOMEM;
		ha->lsi->ha = ha;
	}
	lp = ha->lsi;
	lsi_unlink(db, lp);
	lp->spi_in = spi_in;
	b = spi_bucket(db, spi_in);
	lp->next_by_spi = db->by_lsi_spi[b];
	db->by_lsi_spi[b] = lp;
	return 0;
}

void hadb_lsi_forget(struct hadb *db, struct hip_ha *ha)
{
	if (!db || !ha || !ha->lsi)
		return;
	lsi_unlink(db, ha->lsi);
	hip_wipe(ha->lsi, sizeof(*ha->lsi));
	free(ha->lsi);
	ha->lsi = NULL;
}

/* Unlink ha from its SPI chain, if it is on one. */
static void spi_unlink(struct hadb *db, struct hip_ha *ha)
{
	struct hip_ha **pp;

	if (ha->spi_in == 0)
		return;
	for (pp = &db->by_spi[spi_bucket(db, ha->spi_in)]; *pp; pp = &(*pp)->next_by_spi) {
		if (*pp == ha) {
			*pp = ha->next_by_spi;
			ha->next_by_spi = NULL;
			return;
		}
	}
}

int hadb_set_spi(struct hadb *db, struct hip_ha *ha, uint32_t spi_in)
{
	struct hip_ha *other;
	size_t b;

	if (!db || !ha)
		return -EINVAL;
	if (spi_in && ha->spi_in == spi_in)
		return 0;
	other = hadb_find_spi(db, spi_in);   /* either pair's, ours included */
	if (other)
		return -EEXIST;
	spi_unlink(db, ha);
	ha->spi_in = spi_in;
	if (spi_in == 0)
		return 0;
	b = spi_bucket(db, spi_in);
	ha->next_by_spi = db->by_spi[b];
	db->by_spi[b] = ha;
	return 0;
}

void hadb_del(struct hadb *db, struct hip_ha *ha)
{
	struct hip_ha **pp;

	if (!db || !ha)
		return;
	spi_unlink(db, ha);
	if (ha->lsi)
		lsi_unlink(db, ha->lsi);
	for (pp = &db->by_hits[hits_bucket(db, &ha->hit_peer)]; *pp;
	     pp = &(*pp)->next_by_hits) {
		if (*pp == ha) {
			*pp = ha->next_by_hits;
			db->count--;
			break;
		}
	}
	ha_destroy(db, ha);
}

size_t hadb_count(const struct hadb *db)
{
	return db ? db->count : 0;
}

void hadb_foreach(struct hadb *db, int (*cb)(struct hip_ha *ha, void *arg), void *arg)
{
	size_t i;

	if (!db || !cb)
		return;
	db->iterating++;
	for (i = 0; i < db->nbuckets; i++) {
		struct hip_ha *ha, *next;

		for (ha = db->by_hits[i]; ha; ha = next) {
			next = ha->next_by_hits;   /* cb may delete ha */
			if (cb(ha, arg))
				goto out;
		}
	}
out:
	db->iterating--;
}

uint32_t hadb_new_spi(struct hadb *db)
{
	uint32_t spi;
	int i;

	for (i = 0; i < HADB_SPI_TRIES; i++) {
		if (hip_random(&spi, sizeof(spi)) < 0)
			return 0;
		if (spi >= HIP_SPI_MIN && !hadb_find_spi(db, spi))
			return spi;
	}
	return 0;
}

void hadb_set_free_hook(struct hadb *db, void (*fn)(struct hip_ha *ha))
{
	db->free_hook = fn;
}
