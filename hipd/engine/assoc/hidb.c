/*
 * hidb.c - the local host identities: private key loaded from its PEM file
 * (or generated and saved 0600 on first start), its HIT (RFC 7401 §3.2,
 * ORCHIDv2 with the HI's own suite) and the HOST_ID TLV we send, built once.
 *
 * One identity today; the table is a list so several HIs (one per suite)
 * can be added without changing callers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hidb.h"
#include "packet.h"
#include "params.h"
#include "r1cache.h"

struct hidb {
	struct hidb_entry **e;
	size_t n;
};

/* Our HOST_ID TLV (DI none), built in a scratch packet and copied out with
 * its header and padding: exactly the bytes R1/I2 carry and MAC_2 covers. */
static int hidb_build_host_id(struct hidb_entry *e)
{
	uint8_t scratch[HIP_MAX_PACKET];
	struct hip_builder b;
	struct hip_host_id v = { 0 };
	size_t wire_len;
	int n;

	v.algorithm = hip_hi_algorithm(e->hi);
	v.hi = hip_hi_wire(e->hi, &wire_len);
	if (!v.hi || wire_len > UINT16_MAX)
		return -EINVAL;
	v.hi_len = (uint16_t)wire_len;
	v.di_type = HIP_DI_NONE;
	hip_build_init(&b, scratch, sizeof(scratch), HIP_R1, &e->hit, NULL);
	hip_host_id_build(&b, &v);
	n = hip_build_finish(&b);
	if (n < 0)
		return n;
	if ((size_t)n - HIP_HDR_LEN > sizeof(e->host_id_tlv))
		return -EMSGSIZE;
	e->host_id_tlv_len = (size_t)n - HIP_HDR_LEN;
	memcpy(e->host_id_tlv, scratch + HIP_HDR_LEN, e->host_id_tlv_len);
	return 0;
}

/* Take ownership of hi and append it to db. */
int hidb_add(struct hidb *db, struct hip_hi *hi)
{
	struct hidb_entry *e, **grown;
	const uint8_t *wire;
	size_t wire_len;
	int ret;

	e = calloc(1, sizeof(*e));
	if (!e) {
		hip_hi_free(hi);
		return -ENOMEM;
	}
	e->hi = hi;
	e->suite = hip_hi_suite(hi);
	wire = hip_hi_wire(hi, &wire_len);
	ret = wire ? hip_hit_from_hi((uint8_t)e->suite, wire, wire_len, &e->hit) : -EINVAL;
	if (ret < 0)
		goto out;
	ret = hidb_build_host_id(e);
	if (ret < 0)
		goto out;
	grown = realloc(db->e, (db->n + 1) * sizeof(*db->e));
	if (!grown) {
		ret = -ENOMEM;
		goto out;
	}
	db->e = grown;
	db->e[db->n++] = e;
	e = NULL;
out:
	if (e) {
		hip_hi_free(e->hi);
		free(e);
	}
	return ret;
}

int hidb_open(struct hidb **out, const char *path, enum hip_hi_kind kind)
{
	struct hip_hi *hi = NULL;
	struct hidb *db;
	int ret;

	if (!out || !path)
		return -EINVAL;
	db = calloc(1, sizeof(*db));
	if (!db)
		return -ENOMEM;
	ret = hip_hi_load_pem(path, &hi);
	if (ret == -ENOENT) {
		/* First start: make the identity and keep it (mode 0600). */
		ret = hip_hi_generate(kind, &hi);
		if (ret == 0)
			ret = hip_hi_save_pem(hi, path);
	}
	if (ret < 0)
		goto out;
	ret = hidb_add(db, hi);
	hi = NULL;
	if (ret < 0)
		goto out;
	*out = db;
	db = NULL;
out:
	hip_hi_free(hi);
	hidb_free(db);
	return ret;
}

void hidb_free(struct hidb *db)
{
	size_t i;

	if (!db)
		return;
	for (i = 0; i < db->n; i++) {
		r1cache_free(db->e[i]->r1);
		hip_hi_free(db->e[i]->hi);
		free(db->e[i]);
	}
	free(db->e);
	free(db);
}

struct hidb_entry *hidb_find(struct hidb *db, const struct hip_hit *hit)
{
	size_t i;

	for (i = 0; db && hit && i < db->n; i++)
		if (!memcmp(db->e[i]->hit.b, hit->b, HIP_HIT_LEN))
			return db->e[i];
	return NULL;
}

struct hidb_entry *hidb_default(struct hidb *db)
{
	return db && db->n ? db->e[0] : NULL;
}

struct hidb_entry *hidb_for_suite(struct hidb *db, unsigned suite)
{
	size_t i;

	for (i = 0; db && i < db->n; i++)
		if ((unsigned)db->e[i]->suite == suite)
			return db->e[i];
	return hidb_default(db);
}

size_t hidb_count(const struct hidb *db)
{
	return db ? db->n : 0;
}

struct hidb_entry *hidb_at(struct hidb *db, size_t i)
{
	return db && i < db->n ? db->e[i] : NULL;
}
