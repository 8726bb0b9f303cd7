/*
 * check_uesp_frag.c - IPv4 reassembly before BEET on the userspace datapath
 * (hipd/datapath/uesp/uesp_frag.c, D-22): fragments in and out of order,
 * duplicates, overlaps, timeouts, the table's and a datagram's limits.
 *
 * Independent truth: the datagram is built here, cut as RFC 791 §3.2 says
 * (8-byte units, MF on all but the last), and the result compared byte for
 * byte with the original, its header checksum recomputed here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/uesp/uesp_frag.h"
#include "unit.h"

enum { MAXF = 64 };

struct frags {
	size_t n;
	size_t len[MAXF];
	uint8_t *pkt[MAXF];
};

/* A UDP-protocol datagram of payload bytes with ID id, and its pieces of
 * at most chunk payload bytes (a multiple of 8). */
static size_t dgram_make(uint8_t *d, size_t payload, uint16_t id, uint8_t seed)
{
	size_t len = 20 + payload;

	memset(d, 0, 20);
	d[0] = 0x45;
	d[2] = (uint8_t)(len >> 8);
	d[3] = (uint8_t)len;
	d[4] = (uint8_t)(id >> 8);
	d[5] = (uint8_t)id;
	d[8] = 64;
	d[9] = 17;
	d[12] = 198; d[13] = 18; d[14] = 0; d[15] = 1;
	d[16] = 198; d[17] = 18; d[18] = 0; d[19] = 2;
	for (size_t k = 0; k < payload; k++)
		d[20 + k] = (uint8_t)(seed + 7 * k + (k >> 9));
	return len;
}

static void frags_cut(struct frags *f, const uint8_t *d, size_t len, size_t chunk)
{
	size_t payload = len - 20;

	f->n = 0;
	for (size_t off = 0; off < payload; off += chunk) {
		size_t plen = payload - off < chunk ? payload - off : chunk;
		uint8_t *p = malloc(20 + plen);
		uint16_t fo = (uint16_t)(off / 8);

		ck_assert_ptr_nonnull(p);
		ck_assert_uint_lt(f->n, MAXF);
		memcpy(p, d, 20);
		p[2] = (uint8_t)((20 + plen) >> 8);
		p[3] = (uint8_t)(20 + plen);
		if (off + plen < payload)
			fo |= 0x2000;
		p[6] = (uint8_t)(fo >> 8);
		p[7] = (uint8_t)fo;
		memcpy(p + 20, d + 20 + off, plen);
		f->pkt[f->n] = p;
		f->len[f->n++] = 20 + plen;
	}
}

static void frags_free(struct frags *f)
{
	for (size_t k = 0; k < f->n; k++)
		free(f->pkt[k]);
	f->n = 0;
}

static uint16_t hdr_csum(const uint8_t *h)
{
	uint32_t s = 0;

	for (size_t k = 0; k < 20; k += 2)
		s += (uint32_t)(h[k] << 8 | h[k + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* The reassembled datagram equals the original but for the checksum,
 * which must verify (sum 0xffff). */
static void same_dgram(const uint8_t *got, size_t got_len, const uint8_t *want, size_t len)
{
	ck_assert_uint_eq(got_len, len);
	ck_assert_int_eq(memcmp(got, want, 10), 0);
	ck_assert_int_eq(memcmp(got + 12, want + 12, len - 12), 0);
	ck_assert_uint_eq(hdr_csum(got), 0xffff);
}

/* Feed f's pieces in order[]; the datagram must come out at the last. */
static void feed_expect(struct uesp_frag *t, struct frags *f, const size_t *order, size_t n,
			const uint8_t *want, size_t len)
{
	uint8_t *out = NULL;
	size_t out_len = 0;

	for (size_t k = 0; k < n; k++) {
		ck_assert_int_eq(uesp_frag_add(t, f->pkt[order[k]], f->len[order[k]], 1000 + k,
					       &out, &out_len), 0);
		if (k + 1 < n)
			ck_assert_ptr_null(out);
	}
	ck_assert_ptr_nonnull(out);
	same_dgram(out, out_len, want, len);
	uesp_frag_release(t, out);
}

static struct uesp_frag *table(void)
{
	struct uesp_frag *t = calloc(1, sizeof(*t));

	ck_assert_ptr_nonnull(t);
	return t;
}

static void table_free(struct uesp_frag *t)
{
	uesp_frag_clear(t);
	free(t);
}

START_TEST(test_in_order)
{
	static uint8_t d[9000];
	struct uesp_frag *t = table();
	struct frags f;
	size_t len = dgram_make(d, 8008, 77, 1), order[MAXF];

	frags_cut(&f, d, len, 1376);
	ck_assert_uint_eq(f.n, 6);
	for (size_t k = 0; k < f.n; k++)
		order[k] = k;
	feed_expect(t, &f, order, f.n, d, len);
	ck_assert_uint_eq(t->st.reassembled, 1);
	ck_assert_uint_eq(t->st.frags, 6);
	/* the slot is free again: the same ID once more */
	feed_expect(t, &f, order, f.n, d, len);
	ck_assert_uint_eq(t->st.reassembled, 2);
	frags_free(&f);
	table_free(t);
}
END_TEST

START_TEST(test_out_of_order)
{
	static uint8_t d[5000];
	struct uesp_frag *t = table();
	struct frags f;
	size_t len = dgram_make(d, 4001, 9, 2);
	const size_t order[] = { 2, 0, 1 }, last_first[] = { 2, 1, 0 };

	frags_cut(&f, d, len, 1480);
	ck_assert_uint_eq(f.n, 3);
	feed_expect(t, &f, order, 3, d, len);
	feed_expect(t, &f, last_first, 3, d, len);
	ck_assert_uint_eq(t->st.reassembled, 2);
	frags_free(&f);
	table_free(t);
}
END_TEST

START_TEST(test_duplicate_ignored)
{
	static uint8_t d[4000];
	struct uesp_frag *t = table();
	struct frags f;
	size_t len = dgram_make(d, 3000, 5, 3);
	const size_t order[] = { 0, 0, 1, 1 };
	uint8_t *out;
	size_t out_len;

	frags_cut(&f, d, len, 1480);
	ck_assert_uint_eq(f.n, 3);
	for (size_t k = 0; k < 4; k++) {
		ck_assert_int_eq(uesp_frag_add(t, f.pkt[order[k]], f.len[order[k]], 1, &out,
					       &out_len), 0);
		ck_assert_ptr_null(out);
	}
	ck_assert_uint_eq(t->st.dups, 2);
	ck_assert_int_eq(uesp_frag_add(t, f.pkt[2], f.len[2], 1, &out, &out_len), 0);
	ck_assert_ptr_nonnull(out);
	same_dgram(out, out_len, d, len);
	uesp_frag_release(t, out);
	ck_assert_uint_eq(t->st.overlaps, 0);
	frags_free(&f);
	table_free(t);
}
END_TEST

/* A piece over part of another, or the same range with other bytes: the
 * whole datagram goes (nothing comes out even once all pieces came). */
START_TEST(test_overlap_drops)
{
	static uint8_t d[4000];
	struct uesp_frag *t = table();
	struct frags f, g;
	size_t len = dgram_make(d, 2960, 6, 4);
	uint8_t *out;
	size_t out_len;

	frags_cut(&f, d, len, 1480);
	frags_cut(&g, d, len, 1000);            /* 0..999 and 1000..1999: across f's */
	ck_assert_int_eq(uesp_frag_add(t, f.pkt[0], f.len[0], 1, &out, &out_len), 0);
	ck_assert_int_eq(uesp_frag_add(t, g.pkt[1], g.len[1], 1, &out, &out_len), -EEXIST);
	ck_assert_uint_eq(t->st.overlaps, 1);
	/* what remains starts a new datagram that never completes from f[1] */
	ck_assert_int_eq(uesp_frag_add(t, f.pkt[1], f.len[1], 1, &out, &out_len), 0);
	ck_assert_ptr_null(out);
	uesp_frag_clear(t);
	/* same range, other bytes */
	ck_assert_int_eq(uesp_frag_add(t, f.pkt[0], f.len[0], 1, &out, &out_len), 0);
	f.pkt[0][100] ^= 1;
	ck_assert_int_eq(uesp_frag_add(t, f.pkt[0], f.len[0], 1, &out, &out_len), -EEXIST);
	ck_assert_int_eq(uesp_frag_add(t, f.pkt[1], f.len[1], 1, &out, &out_len), 0);
	ck_assert_ptr_null(out);
	ck_assert_uint_eq(t->st.overlaps, 2);
	ck_assert_uint_eq(t->st.reassembled, 0);
	frags_free(&f);
	frags_free(&g);
	table_free(t);
}
END_TEST

/* Two last fragments that disagree on the end, or a piece beyond it. */
START_TEST(test_inconsistent_end)
{
	static uint8_t d[4000];
	struct uesp_frag *t = table();
	struct frags f, g;
	size_t len = dgram_make(d, 2960, 8, 5);
	uint8_t *out;
	size_t out_len;

	frags_cut(&f, d, len, 1480);            /* 2 pieces: 1480 + 1480 */
	dgram_make(d, 2000, 8, 5);
	frags_cut(&g, d, 20 + 2000, 1480);      /* ends at 2000 instead */
	ck_assert_int_eq(uesp_frag_add(t, f.pkt[1], f.len[1], 1, &out, &out_len), 0);
	ck_assert_int_eq(uesp_frag_add(t, g.pkt[1], g.len[1], 1, &out, &out_len), -EEXIST);
	ck_assert_uint_eq(t->st.overlaps, 1);
	ck_assert_int_eq(uesp_frag_add(t, g.pkt[1], g.len[1], 1, &out, &out_len), 0);
	ck_assert_int_eq(uesp_frag_add(t, f.pkt[1], f.len[1], 1, &out, &out_len), -EEXIST);
	ck_assert_uint_eq(t->st.overlaps, 2);
	frags_free(&f);
	frags_free(&g);
	table_free(t);
}
END_TEST

/* No last fragment: dropped after the timeout (at the next fragment or an
 * explicit expire), counted; not before. */
START_TEST(test_timeout)
{
	static uint8_t d[4000];
	struct uesp_frag *t = table();
	struct frags f;
	size_t len = dgram_make(d, 2960, 10, 6);
	uint8_t *out;
	size_t out_len;

	frags_cut(&f, d, len, 1480);
	ck_assert_int_eq(uesp_frag_add(t, f.pkt[0], f.len[0], 1000, &out, &out_len), 0);
	uesp_frag_expire(t, 1000 + UESP_FRAG_TIMEOUT_NS);
	ck_assert_uint_eq(t->st.timeouts, 0);
	uesp_frag_expire(t, 1001 + UESP_FRAG_TIMEOUT_NS);
	ck_assert_uint_eq(t->st.timeouts, 1);
	/* the last piece alone afterwards: no datagram */
	ck_assert_int_eq(uesp_frag_add(t, f.pkt[1], f.len[1], 2 + UESP_FRAG_TIMEOUT_NS, &out,
				       &out_len), 0);
	ck_assert_ptr_null(out);
	/* expired by the next fragment's arrival too */
	ck_assert_int_eq(uesp_frag_add(t, f.pkt[0], f.len[0], 10 * UESP_FRAG_TIMEOUT_NS, &out,
				       &out_len), 0);
	ck_assert_ptr_null(out);
	ck_assert_uint_eq(t->st.timeouts, 2);
	ck_assert_uint_eq(t->st.reassembled, 0);
	frags_free(&f);
	table_free(t);
}
END_TEST

START_TEST(test_too_many)
{
	static uint8_t d[3000];
	struct uesp_frag *t = table();
	struct frags f[UESP_FRAG_SLOTS + 1];
	uint8_t *out;
	size_t out_len;

	for (unsigned k = 0; k <= UESP_FRAG_SLOTS; k++) {
		size_t len = dgram_make(d, 2000, (uint16_t)(100 + k), (uint8_t)k);

		frags_cut(&f[k], d, len, 1480);
		ck_assert_int_eq(uesp_frag_add(t, f[k].pkt[0], f[k].len[0], 1, &out, &out_len),
				 k < UESP_FRAG_SLOTS ? 0 : -ENOSPC);
	}
	ck_assert_uint_eq(t->st.limits, 1);
	/* one completes: its slot serves the one that did not fit */
	ck_assert_int_eq(uesp_frag_add(t, f[0].pkt[1], f[0].len[1], 1, &out, &out_len), 0);
	ck_assert_ptr_nonnull(out);
	uesp_frag_release(t, out);
	dgram_make(d, 2000, (uint16_t)(100 + UESP_FRAG_SLOTS), (uint8_t)UESP_FRAG_SLOTS);
	{
		const size_t order[] = { 0, 1 };

		feed_expect(t, &f[UESP_FRAG_SLOTS], order, 2, d, 2020);
	}
	for (unsigned k = 0; k <= UESP_FRAG_SLOTS; k++)
		frags_free(&f[k]);
	table_free(t);
}
END_TEST

/* A piece that would end beyond 65535 bytes drops the datagram. */
START_TEST(test_too_big)
{
	static uint8_t d[4000];
	struct uesp_frag *t = table();
	struct frags f;
	size_t len = dgram_make(d, 2960, 11, 7);
	uint8_t *out;
	size_t out_len;
	uint16_t fo = 65520 / 8;                /* 20 + 65520 + 1480 > 65535 */

	frags_cut(&f, d, len, 1480);
	ck_assert_int_eq(uesp_frag_add(t, f.pkt[0], f.len[0], 1, &out, &out_len), 0);
	f.pkt[1][6] = (uint8_t)(fo >> 8);
	f.pkt[1][7] = (uint8_t)fo;
	ck_assert_int_eq(uesp_frag_add(t, f.pkt[1], f.len[1], 1, &out, &out_len), -EMSGSIZE);
	ck_assert_uint_eq(t->st.limits, 1);
	/* and the largest that fits: offset 65512, 3 bytes, Total Length 65535 */
	fo = 65512 / 8;
	f.pkt[1][2] = 0;
	f.pkt[1][3] = 23;
	f.pkt[1][6] = (uint8_t)(fo >> 8);
	f.pkt[1][7] = (uint8_t)fo;
	ck_assert_int_eq(uesp_frag_add(t, f.pkt[1], 23, 1, &out, &out_len), 0);
	ck_assert_ptr_null(out);
	frags_free(&f);
	table_free(t);
}
END_TEST

/* Pieces of three datagrams (two share the ID, not the protocol)
 * interleaved: each comes out whole. */
START_TEST(test_interleaved)
{
	static uint8_t d[3][6000];
	struct uesp_frag *t = table();
	struct frags f[3];
	size_t len[3], got = 0;
	uint8_t *out;
	size_t out_len;

	len[0] = dgram_make(d[0], 5000, 1, 10);
	len[1] = dgram_make(d[1], 3000, 2, 20);
	len[2] = dgram_make(d[2], 4000, 1, 30);
	d[2][9] = 6;                            /* same ID as d[0], TCP */
	for (int k = 0; k < 3; k++)
		frags_cut(&f[k], d[k], len[k], 1480);
	for (size_t i = 0; i < 4; i++) {
		for (int k = 2; k >= 0; k--) {
			if (i >= f[k].n)
				continue;
			ck_assert_int_eq(uesp_frag_add(t, f[k].pkt[i], f[k].len[i], 1, &out,
						       &out_len), 0);
			if (out) {
				ck_assert_uint_eq(i, f[k].n - 1);
				same_dgram(out, out_len, d[k], len[k]);
				uesp_frag_release(t, out);
				got++;
			}
		}
	}
	ck_assert_uint_eq(got, 3);
	ck_assert_uint_eq(t->st.reassembled, 3);
	for (int k = 0; k < 3; k++)
		frags_free(&f[k]);
	table_free(t);
}
END_TEST

/* Not taken: no fragment, a bad Total Length, options, a middle piece
 * that is not whole 8-byte units. */
START_TEST(test_rejects)
{
	static uint8_t d[4000];
	struct uesp_frag *t = table();
	struct frags f;
	size_t len = dgram_make(d, 2960, 12, 8);
	uint8_t *out;
	size_t out_len;

	ck_assert_int_eq(uesp_frag_add(t, d, len, 1, &out, &out_len), -EINVAL);
	frags_cut(&f, d, len, 1480);
	ck_assert_int_eq(uesp_frag_add(t, f.pkt[0], f.len[0] - 1, 1, &out, &out_len), -EINVAL);
	ck_assert_int_eq(uesp_frag_add(t, f.pkt[0], 19, 1, &out, &out_len), -EINVAL);
	f.pkt[0][0] = 0x46;
	ck_assert_int_eq(uesp_frag_add(t, f.pkt[0], f.len[0], 1, &out, &out_len),
			 -EPROTONOSUPPORT);
	f.pkt[0][0] = 0x45;
	f.pkt[0][3]--;                          /* 1479 bytes with MF */
	ck_assert_int_eq(uesp_frag_add(t, f.pkt[0], f.len[0] - 1, 1, &out, &out_len), -EINVAL);
	ck_assert_uint_eq(t->st.bad, 1);
	ck_assert_uint_eq(t->st.frags, 0);
	frags_free(&f);
	table_free(t);
}
END_TEST

static Suite *frag_suite(void)
{
	Suite *s = suite_create("uesp_frag");
	TCase *tc = tcase_create("reassembly");

	tcase_add_test(tc, test_in_order);
	tcase_add_test(tc, test_out_of_order);
	tcase_add_test(tc, test_duplicate_ignored);
	tcase_add_test(tc, test_overlap_drops);
	tcase_add_test(tc, test_inconsistent_end);
	tcase_add_test(tc, test_timeout);
	tcase_add_test(tc, test_too_many);
	tcase_add_test(tc, test_too_big);
	tcase_add_test(tc, test_interleaved);
	tcase_add_test(tc, test_rejects);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(frag_suite)
