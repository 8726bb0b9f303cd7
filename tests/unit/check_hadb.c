/*
 * check_hadb.c - host association table (hipd/engine/assoc/hadb.c): HIT-pair and SPI
 * indexes, growth to 10,000 associations, deletion during iteration.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/assoc/hadb.h"
#include "unit.h"

enum { MANY = 10000 };

/* A HIT-shaped value (2001:20::/28, suite 2) numbered n. */
static struct hip_hit hit_n(uint32_t n, uint8_t tag)
{
	struct hip_hit h = { .b = { 0x20, 0x01, 0x00, 0x22 } };

	h.b[8] = tag;
	h.b[12] = (uint8_t)(n >> 24);
	h.b[13] = (uint8_t)(n >> 16);
	h.b[14] = (uint8_t)(n >> 8);
	h.b[15] = (uint8_t)n;
	return h;
}

START_TEST(test_add_find_del)
{
	struct hadb *db;
	struct hip_ha *a, *b, *dup = NULL;
	struct hip_hit l1 = hit_n(1, 0xaa), l2 = hit_n(2, 0xaa), p = hit_n(7, 0xbb);

	ck_assert_int_eq(hadb_create(&db), 0);
	ck_assert_int_eq(hadb_add(db, &l1, &p, &a), 0);
	ck_assert_int_eq(a->state, HIP_STATE_UNASSOCIATED);
	ck_assert_int_eq(hadb_add(db, &l1, &p, &dup), -EEXIST);
	ck_assert_ptr_null(dup);
	/* a second local identity with the same peer is a different pair */
	ck_assert_int_eq(hadb_add(db, &l2, &p, &b), 0);
	ck_assert_uint_eq(hadb_count(db), 2);
	ck_assert_ptr_eq(hadb_find(db, &l1, &p), a);
	ck_assert_ptr_eq(hadb_find(db, &l2, &p), b);
	ck_assert_ptr_null(hadb_find(db, &p, &l1));
	ck_assert_ptr_nonnull(hadb_find_peer(db, &p));
	ck_assert_ptr_null(hadb_find_peer(db, &l1));

	/* secrets and buffers owned by the association are released by del */
	a->retx_pkt = malloc(100);
	a->retx_len = 100;
	a->peer_host_id_tlv = malloc(64);
	a->peer_host_id_tlv_len = 64;
	ck_assert_int_eq(hip_dh_generate(7, &a->dh), 0);
	memset(a->hip_keys.gl_int, 0x5a, sizeof(a->hip_keys.gl_int));
	hadb_del(db, a);
	ck_assert_ptr_null(hadb_find(db, &l1, &p));
	ck_assert_ptr_eq(hadb_find_peer(db, &p), b);
	ck_assert_uint_eq(hadb_count(db), 1);
	hadb_free(db);
}
END_TEST

START_TEST(test_spi_index)
{
	struct hadb *db;
	struct hip_ha *a, *b;
	struct hip_hit l = hit_n(1, 1), p1 = hit_n(2, 2), p2 = hit_n(3, 2);
	uint32_t spi;

	ck_assert_int_eq(hadb_create(&db), 0);
	ck_assert_int_eq(hadb_add(db, &l, &p1, &a), 0);
	ck_assert_int_eq(hadb_add(db, &l, &p2, &b), 0);
	ck_assert_ptr_null(hadb_find_spi(db, 0));
	ck_assert_int_eq(hadb_set_spi(db, a, 0x1000), 0);
	ck_assert_ptr_eq(hadb_find_spi(db, 0x1000), a);
	ck_assert_int_eq(hadb_set_spi(db, b, 0x1000), -EEXIST);
	ck_assert_uint_eq(b->spi_in, 0);
	/* replacing the SPI drops the old index entry */
	ck_assert_int_eq(hadb_set_spi(db, a, 0x2000), 0);
	ck_assert_ptr_null(hadb_find_spi(db, 0x1000));
	ck_assert_ptr_eq(hadb_find_spi(db, 0x2000), a);
	ck_assert_int_eq(hadb_set_spi(db, b, 0x1000), 0);
	ck_assert_ptr_eq(hadb_find_spi(db, 0x1000), b);

	spi = hadb_new_spi(db);
	ck_assert_uint_ge(spi, 256);
	ck_assert_ptr_null(hadb_find_spi(db, spi));

	hadb_del(db, a);
	ck_assert_ptr_null(hadb_find_spi(db, 0x2000));
	ck_assert_ptr_eq(hadb_find_spi(db, 0x1000), b);
	hadb_free(db);
}
END_TEST

START_TEST(test_many)
{
	struct hadb *db;
	struct hip_hit l = hit_n(0, 0x11);
	struct mallinfo2 before, after;
	uint32_t i;

	before = mallinfo2();
	ck_assert_int_eq(hadb_create(&db), 0);
	for (i = 0; i < MANY; i++) {
		struct hip_hit p = hit_n(i, 0x22);
		struct hip_ha *ha;

		ck_assert_int_eq(hadb_add(db, &l, &p, &ha), 0);
		ck_assert_int_eq(hadb_set_spi(db, ha, 1000 + i), 0);
	}
	after = mallinfo2();
	ck_assert_uint_eq(hadb_count(db), MANY);
	for (i = 0; i < MANY; i++) {
		struct hip_hit p = hit_n(i, 0x22);
		struct hip_ha *ha = hadb_find(db, &l, &p);

		ck_assert_ptr_nonnull(ha);
		ck_assert_ptr_eq(hadb_find_spi(db, 1000 + i), ha);
		ck_assert_ptr_eq(hadb_find_peer(db, &p), ha);
	}
	/* The table itself must leave most of the 4 KiB per association to
	 * what a live association allocates (peer HI, buffers). */
	ck_assert_uint_lt(sizeof(struct hip_ha), 1024);
	/* informational; mallinfo2 sees nothing under ASan's allocator */
	if (after.uordblks > before.uordblks)
		printf("hadb: sizeof(struct hip_ha) = %zu, %zu bytes/association with "
		       "the tables (mallinfo2)\n", sizeof(struct hip_ha),
		       (after.uordblks - before.uordblks) / MANY);
	hadb_free(db);
}
END_TEST

struct del_ctx {
	struct hadb *db;
	unsigned seen, deleted;
};

static int del_odd(struct hip_ha *ha, void *arg)
{
	struct del_ctx *c = arg;

	c->seen++;
	if (ha->hit_peer.b[15] & 1) {
		hadb_del(c->db, ha);
		c->deleted++;
	}
	return 0;
}

static int stop_at_three(struct hip_ha *ha, void *arg)
{
	unsigned *n = arg;

	(void)ha;
	return ++*n == 3;
}

START_TEST(test_foreach_delete)
{
	struct hadb *db;
	struct hip_hit l = hit_n(0, 1);
	struct del_ctx c = { 0 };
	unsigned n = 0;
	uint32_t i;

	ck_assert_int_eq(hadb_create(&db), 0);
	for (i = 0; i < 500; i++) {
		struct hip_hit p = hit_n(i, 2);
		struct hip_ha *ha;

		ck_assert_int_eq(hadb_add(db, &l, &p, &ha), 0);
	}
	c.db = db;
	hadb_foreach(db, del_odd, &c);
	ck_assert_uint_eq(c.seen, 500);
	ck_assert_uint_eq(c.deleted, 250);
	ck_assert_uint_eq(hadb_count(db), 250);
	for (i = 0; i < 500; i++) {
		struct hip_hit p = hit_n(i, 2);

		ck_assert((hadb_find(db, &l, &p) != NULL) == !(i & 1));
	}
	hadb_foreach(db, stop_at_three, &n);
	ck_assert_uint_eq(n, 3);
	hadb_free(db);
}
END_TEST

static Suite *hadb_suite(void)
{
	Suite *s = suite_create("hadb");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_add_find_del);
	tcase_add_test(tc, test_spi_index);
	tcase_add_test(tc, test_many);
	tcase_add_test(tc, test_foreach_delete);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(hadb_suite)
