/*
 * check_fw_state.c - hipfw's state file (firewall/fw_state.c, D-21), the
 * tracker's table across a restart, filled by the packets of
 * fw_track_fixture.c: a round trip, the probation of what it restores, the
 * files it refuses (truncated, another version, counts too big, a Host
 * Identity that does not give its HIT, a UDP port without its locator, a
 * reserved LSI SPI), the UDP ports kept (D-24), the SPIs of hipd's LSI SA
 * pair kept (version 3, D-22), and files of versions 1 (no ports) and 2
 * (no LSI SPIs) still read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "byteorder.h"
#include "fw_state.h"
#include "fw_track.h"
#include "fw_track_fixture.h"
#include "hip_crypto.h"
#include "params.h"
#include "unit.h"

/* t encoded, into a fresh tracker of max entries (tracker u), at now. */
static int reload(struct fw_track *u, uint32_t max, const uint8_t *buf, size_t len, uint64_t now,
		  char *err, size_t err_len)
{
	ck_assert_int_eq(fw_track_init(u, max, false, esp_cb, NULL), 0);
	return fw_state_decode(u, buf, len, now, 10 * S, err, err_len);
}

/* A round trip: the established association comes back as it was (HITs,
 * HIs, SPIs, locators, state, verified), on probation: no kernel rules
 * until its ESP (seen in userspace) confirms it; the half-open entry is
 * not written. */
START_TEST(test_state_round_trip)
{
	static const char *const NEW_I = "198.51.100.11";
	struct spec mv = { .seq = 7, .sign = hi_i };
	const struct fw_assoc *a, *b;
	struct hip_hit other = hit_r;
	struct fw_track u;
	uint8_t *buf;
	size_t len;
	char err[256];

	bex(0x1001, 0x2002, 1 * S);
	ck_assert_int_eq(feed(HIP_UPDATE, &hit_i, &hit_r, NEW_I, ADDR_R, &mv, 2 * S), FW_TRK_OK);
	other.b[15] ^= 1;
	ck_assert_int_eq(feed(HIP_I1, &hit_i, &other, ADDR_I, ADDR_R, NULL, 2 * S), FW_TRK_OK);
	ck_assert(t.dirty);
	ck_assert_int_eq(fw_state_encode(&t, &buf, &len), 0);
	ck_assert_int_eq(reload(&u, 16, buf, len, 5 * S, err, sizeof(err)), 1);
	a = fw_track_find(&t, &hit_i, &hit_r);
	b = fw_track_find(&u, &hit_r, &hit_i);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_null(fw_track_find(&u, &hit_i, &other));
	ck_assert_uint_eq(u.used, 1);
	ck_assert_int_eq(b->state, FW_TS_ESTABLISHED);
	ck_assert(!b->unverified);
	ck_assert_int_eq(hip_hit_cmp(&b->end[0].hit, &hit_i), 0);
	for (int i = 0; i < 2; i++) {
		const struct fw_track_end *x = &a->end[i], *y = &b->end[i];
		size_t l1, l2;
		const uint8_t *w1 = hip_hi_wire(x->hi, &l1), *w2 = hip_hi_wire(y->hi, &l2);

		ck_assert_uint_eq(l1, l2);
		ck_assert_mem_eq(w1, w2, l1);
		ck_assert_mem_eq(&x->loc, &y->loc, sizeof(x->loc));
		ck_assert_int_eq(x->have_loc_next, y->have_loc_next);
		ck_assert_mem_eq(&x->loc_next, &y->loc_next, sizeof(x->loc_next));
		ck_assert_uint_eq(x->loc_seq, y->loc_seq);
		ck_assert_uint_eq(x->spi, y->spi);
		ck_assert_uint_eq(x->spi_next, y->spi_next);
		ck_assert_uint_eq(x->udp_port, y->udp_port);
		ck_assert_uint_eq(x->udp_port_next, y->udp_port_next);
		ck_assert_uint_eq(x->lsi_spi, y->lsi_spi);
		ck_assert_uint_eq(x->lsi_spi_offer, y->lsi_spi_offer);
	}
	ck_assert_uint_eq(b->probation_ns, 15 * S);
	ck_assert_uint_eq(u.ctr.restored, 1);
	ck_assert(!u.dirty);
	/* on probation: no kernel triples, but its ESP passes and confirms it */
	{
		struct fw_esp_triple tr[2 * FW_TRACK_ESP_MAX];
		struct hip_addr s, d;
		unsigned calls = esp_calls;

		ck_assert_uint_eq(fw_track_triples(b, tr, 2 * FW_TRACK_ESP_MAX), 0);
		ck_assert_int_eq(hip_addr_from_str(ADDR_R, &s), 0);
		ck_assert_int_eq(hip_addr_from_str(ADDR_I, &d), 0);
		ck_assert_int_eq(fw_track_esp(&u, &s, &d, 0x3003), FW_TRK_ESP_UNKNOWN);
		ck_assert_uint_ne(b->probation_ns, 0);
		ck_assert_int_eq(fw_track_esp(&u, &s, &d, 0x1001), FW_TRK_OK);
		ck_assert_uint_eq(b->probation_ns, 0);
		ck_assert_uint_eq(u.ctr.confirmed, 1);
		ck_assert_uint_eq(esp_calls, calls + 1);
		ck_assert_uint_eq(fw_track_triples(b, tr, 2 * FW_TRACK_ESP_MAX), 4);
		ck_assert(u.dirty);
	}
	/* confirmed: it outlives the grace period */
	fw_track_expire(&u, 100 * S);
	ck_assert_uint_eq(u.used, 1);
	fw_track_free(&u);
	free(buf);
}
END_TEST

/* A file of version 3 (buf, len) as an older version wrote it: each end
 * cut to that version's fixed part (version 2: without the LSI SPIs,
 * version 1: without the UDP ports too), marked with `version` (which a
 * test may set apart from the layout), into *out (freed by the caller). */
static size_t as_version(const uint8_t *buf, size_t len, size_t fixed, unsigned version,
			 uint8_t **out)
{
	uint8_t *old = malloc(len);
	size_t in = FW_STATE_HEADER, o = FW_STATE_HEADER, n;
	uint32_t k, count = hip_rd32(buf + 12);
	int e;

	ck_assert_ptr_nonnull(old);
	memcpy(old, buf, FW_STATE_HEADER);
	hip_wr16(old + 8, (uint16_t)version);
	for (k = 0; k < count; k++) {
		memcpy(old + o, buf + in, FW_STATE_ENTRY);
		in += FW_STATE_ENTRY;
		o += FW_STATE_ENTRY;
		for (e = 0; e < 2; e++) {
			n = hip_rd16(buf + in + 68);
			memcpy(old + o, buf + in, fixed);
			memcpy(old + o + fixed, buf + in + FW_STATE_END, n);
			in += FW_STATE_END + n;
			o += fixed + n;
		}
	}
	ck_assert_uint_eq(in, len);
	*out = old;
	return o;
}

static size_t as_version1(const uint8_t *buf, size_t len, uint8_t **out)
{
	return as_version(buf, len, FW_STATE_END_V1, 1, out);
}

/* Over UDP the ports are kept (since version 2) and matched once confirmed; a
 * version 1 file, without them, is still read: its ports are 0 (not
 * matched), with a note for the log; a port without its locator is
 * refused. */
START_TEST(test_state_udp)
{
	struct fw_esp_triple tr[2 * FW_TRACK_ESP_MAX];
	const struct fw_assoc *b;
	struct fw_track u;
	uint8_t *buf, *v1;
	size_t len, len1;
	char err[256];

	udp_port_i = 20001;
	bex(0x1001, 0x2002, 1 * S);
	ck_assert_int_eq(fw_state_encode(&t, &buf, &len), 0);
	ck_assert_uint_eq(hip_rd16(buf + 8), 3);
	ck_assert_int_eq(reload(&u, 16, buf, len, 5 * S, err, sizeof(err)), 1);
	ck_assert_str_eq(err, "");
	b = fw_track_find(&u, &hit_i, &hit_r);
	ck_assert_uint_eq(b->end[0].udp_port, 20001);
	ck_assert_uint_eq(b->end[1].udp_port, 10500);
	ck_assert_int_eq(fw_track_esp_udp(&u, &b->end[0].loc, &b->end[1].loc, 0x2002, 20001,
					  10500), FW_TRK_OK);
	ck_assert_uint_eq(fw_track_triples(b, tr, 2 * FW_TRACK_ESP_MAX), 2);
	ck_assert_uint_eq(tr[0].sport + tr[1].sport, 20001 + 10500);
	fw_track_free(&u);
	unit_write_seed("state_udp", "", 0, buf, len);
	/* version 1: read, no ports */
	len1 = as_version1(buf, len, &v1);
	ck_assert_uint_eq(len1, len - (FW_STATE_END - FW_STATE_END_V1) * 2);
	ck_assert_int_eq(reload(&u, 16, v1, len1, 5 * S, err, sizeof(err)), 1);
	ck_assert_ptr_nonnull(strstr(err, "version 1"));
	b = fw_track_find(&u, &hit_i, &hit_r);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(b->end[0].udp_port, 0);
	ck_assert_uint_eq(b->end[0].spi, 0x1001);
	ck_assert_int_eq(fw_track_esp_udp(&u, &b->end[0].loc, &b->end[1].loc, 0x2002, 20001,
					  10500), FW_TRK_OK);
	ck_assert_uint_eq(u.ctr.esp_udp_other_port, 0);
	fw_track_free(&u);
	unit_write_seed("state_v1", "", 0, v1, len1);
	/* every prefix of the version 1 file refused */
	for (size_t n = 0; n < len1; n++) {
		ck_assert_int_lt(reload(&u, 16, v1, n, 5 * S, err, sizeof(err)), 0);
		ck_assert_uint_eq(u.used, 0);
		fw_track_free(&u);
	}
	/* the Initiator's locator flag cleared, its port left: refused */
	buf[FW_STATE_HEADER + FW_STATE_ENTRY + 48] = 0;
	ck_assert_int_eq(reload(&u, 16, buf, len, 5 * S, err, sizeof(err)), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "UDP port without its locator"));
	ck_assert_uint_eq(u.used, 0);
	fw_track_free(&u);
	free(v1);
	free(buf);
}
END_TEST

START_TEST(test_state_probation)
{
	struct spec up = { .seq = 3, .sign = hi_i }, forged = { .seq = 4, .sign = hi_x };
	const struct fw_assoc *a;
	struct fw_track keep;
	uint8_t *buf;
	size_t len;
	char err[256];

	bex(0x1001, 0x2002, 1 * S);
	ck_assert_int_eq(fw_state_encode(&t, &buf, &len), 0);
	keep = t;
	/* a forged UPDATE does not confirm; a verified one does */
	ck_assert_int_eq(reload(&t, 16, buf, len, 5 * S, err, sizeof(err)), 1);
	a = fw_track_find(&t, &hit_i, &hit_r);
	ck_assert_int_eq(feed(HIP_UPDATE, &hit_i, &hit_r, ADDR_I, ADDR_R, &forged, 6 * S),
			 FW_TRK_UPDATE_FORGED);
	ck_assert_uint_ne(a->probation_ns, 0);
	ck_assert_int_eq(feed(HIP_UPDATE, &hit_i, &hit_r, ADDR_I, ADDR_R, &up, 6 * S), FW_TRK_OK);
	ck_assert_uint_eq(a->probation_ns, 0);
	ck_assert_uint_eq(triples(), 2);
	fw_track_free(&t);
	/* unconfirmed: kept until the grace period ends, then gone */
	ck_assert_int_eq(reload(&t, 16, buf, len, 5 * S, err, sizeof(err)), 1);
	fw_track_expire(&t, 14 * S);
	ck_assert_uint_eq(t.used, 1);
	ck_assert(esp_ok(ADDR_I, ADDR_R, 0x2002));   /* (confirms it) */
	fw_track_free(&t);
	ck_assert_int_eq(reload(&t, 16, buf, len, 5 * S, err, sizeof(err)), 1);
	fw_track_expire(&t, 15 * S);
	ck_assert_uint_eq(t.used, 0);
	ck_assert_uint_eq(t.ctr.unconfirmed, 1);
	ck_assert(!esp_ok(ADDR_I, ADDR_R, 0x2002));
	fw_track_free(&t);
	t = keep;
	free(buf);
}
END_TEST

/* Every prefix of a good file, and the file with a byte more, refused,
 * the tracker left empty. */
START_TEST(test_state_truncated)
{
	struct fw_track u;
	uint8_t *buf, *big;
	size_t len, n;
	char err[256];

	bex(0x1001, 0x2002, 1 * S);
	ck_assert_int_eq(fw_state_encode(&t, &buf, &len), 0);
	for (n = 0; n < len; n++) {
		ck_assert_int_lt(reload(&u, 16, buf, n, 5 * S, err, sizeof(err)), 0);
		ck_assert_uint_eq(u.used, 0);
		ck_assert_uint_eq(u.ctr.restored, 0);
		fw_track_free(&u);
	}
	big = calloc(1, len + 1);
	ck_assert_ptr_nonnull(big);
	memcpy(big, buf, len);
	ck_assert_int_eq(reload(&u, 16, big, len + 1, 5 * S, err, sizeof(err)), -EBADMSG);
	ck_assert_str_eq(err, "1 bytes after the last association");
	fw_track_free(&u);
	unit_write_seed("state_good", "", 0, buf, len);
	free(big);
	free(buf);
}
END_TEST

/* Another version, another magic, a count larger than the file or the
 * table, a bad state, an HI that does not give its HIT, a pair twice. */
START_TEST(test_state_refused)
{
	struct fw_track u;
	uint8_t *buf, *two;
	size_t len, one;
	char err[256];

	bex(0x1001, 0x2002, 1 * S);
	ck_assert_int_eq(fw_state_encode(&t, &buf, &len), 0);
	ck_assert_uint_eq(hip_rd32(buf + 12), 1);
	buf[9] = 4;
	ck_assert_int_eq(reload(&u, 16, buf, len, 5 * S, err, sizeof(err)), -EPROTONOSUPPORT);
	ck_assert_ptr_nonnull(strstr(err, "version 4"));
	fw_track_free(&u);
	buf[9] = 0;
	ck_assert_int_eq(reload(&u, 16, buf, len, 5 * S, err, sizeof(err)), -EPROTONOSUPPORT);
	fw_track_free(&u);
	buf[9] = 3;
	buf[0] = 'X';
	ck_assert_int_eq(reload(&u, 16, buf, len, 5 * S, err, sizeof(err)), -EBADMSG);
	fw_track_free(&u);
	buf[0] = 'H';
	hip_wr32(buf + 12, 0xffffffffu);
	ck_assert_int_eq(reload(&u, 16, buf, len, 5 * S, err, sizeof(err)), -E2BIG);
	fw_track_free(&u);
	hip_wr32(buf + 12, 2);
	ck_assert_int_eq(reload(&u, 16, buf, len, 5 * S, err, sizeof(err)), -E2BIG);
	fw_track_free(&u);
	hip_wr32(buf + 12, 1);
	/* a table of one entry takes it; the state byte out of range does not */
	ck_assert_int_eq(reload(&u, 1, buf, len, 5 * S, err, sizeof(err)), 1);
	fw_track_free(&u);
	buf[FW_STATE_HEADER] = 9;
	ck_assert_int_eq(reload(&u, 16, buf, len, 5 * S, err, sizeof(err)), -EBADMSG);
	fw_track_free(&u);
	buf[FW_STATE_HEADER] = FW_TS_ESTABLISHED;
	/* the Initiator's HIT changed: its HI no longer gives it */
	buf[FW_STATE_HEADER + FW_STATE_ENTRY + 15] ^= 1;
	ck_assert_int_eq(reload(&u, 16, buf, len, 5 * S, err, sizeof(err)), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "does not give its HIT"));
	ck_assert_uint_eq(u.used, 0);
	fw_track_free(&u);
	buf[FW_STATE_HEADER + FW_STATE_ENTRY + 15] ^= 1;
	/* the same association twice: the second refused, the first undone */
	one = len - FW_STATE_HEADER;
	two = malloc(len + one);
	ck_assert_ptr_nonnull(two);
	memcpy(two, buf, len);
	memcpy(two + len, buf + FW_STATE_HEADER, one);
	hip_wr32(two + 12, 2);
	ck_assert_int_eq(reload(&u, 16, two, len + one, 5 * S, err, sizeof(err)), -EBADMSG);
	ck_assert_uint_eq(u.used, 0);
	fw_track_free(&u);
	free(two);
	free(buf);
}
END_TEST

/* hipd's LSI SA pair (D-22): its SPIs come back from a version 3 file, on
 * probation like the rest (ESP on an LSI SPI confirms the association, and
 * then both LSI SPIs go to the kernel), as does an offer still pending. A
 * version 2 file is read without them (no note: nothing else is missing);
 * a version 1 file as before. A reserved LSI SPI, or a version 3 file with
 * the ends of version 2, is refused whole. */
START_TEST(test_state_lsi)
{
	struct spec i2 = { .spi = 0x1003, .lsi_spi = 0x1103, .host_id = true, .sign = hi_i };
	struct fw_esp_triple tr[2 * FW_TRACK_ESP_MAX];
	struct hip_addr s, d;
	const struct fw_assoc *b;
	struct fw_track u;
	uint8_t *buf, *old;
	size_t len, len_old;
	char err[256];

	bex_lsi(0x1001, 0x2002, 0x1101, 0x2202, 1 * S);
	ck_assert_int_eq(fw_state_encode(&t, &buf, &len), 0);
	ck_assert_uint_eq(hip_rd16(buf + 8), 3);
	ck_assert_int_eq(reload(&u, 16, buf, len, 5 * S, err, sizeof(err)), 1);
	ck_assert_str_eq(err, "");
	b = fw_track_find(&u, &hit_i, &hit_r);
	ck_assert_uint_eq(b->end[0].lsi_spi, 0x1101);
	ck_assert_uint_eq(b->end[1].lsi_spi, 0x2202);
	ck_assert_uint_eq(fw_track_triples(b, tr, 2 * FW_TRACK_ESP_MAX), 0);
	ck_assert_int_eq(hip_addr_from_str(ADDR_R, &s), 0);
	ck_assert_int_eq(hip_addr_from_str(ADDR_I, &d), 0);
	ck_assert_int_eq(fw_track_esp(&u, &s, &d, 0x1101), FW_TRK_OK);
	ck_assert_uint_eq(b->probation_ns, 0);
	ck_assert_uint_eq(fw_track_triples(b, tr, 2 * FW_TRACK_ESP_MAX), 4);
	ck_assert_int_eq(fw_track_esp(&u, &d, &s, 0x2202), FW_TRK_OK);
	fw_track_free(&u);
	unit_write_seed("state_lsi", "", 0, buf, len);
	/* version 2: read, no LSI SPIs, their ESP unknown */
	len_old = as_version(buf, len, FW_STATE_END_V2, 2, &old);
	ck_assert_uint_eq(len_old, len - (FW_STATE_END - FW_STATE_END_V2) * 2);
	ck_assert_int_eq(reload(&u, 16, old, len_old, 5 * S, err, sizeof(err)), 1);
	ck_assert_str_eq(err, "");
	b = fw_track_find(&u, &hit_i, &hit_r);
	ck_assert_uint_eq(b->end[0].spi, 0x1001);
	ck_assert_uint_eq(b->end[0].lsi_spi, 0);
	ck_assert_uint_eq(b->end[1].lsi_spi, 0);
	ck_assert_int_eq(fw_track_esp(&u, &s, &d, 0x1101), FW_TRK_ESP_UNKNOWN);
	ck_assert_int_eq(fw_track_esp(&u, &s, &d, 0x1001), FW_TRK_OK);
	ck_assert_uint_eq(fw_track_triples(b, tr, 2 * FW_TRACK_ESP_MAX), 2);
	fw_track_free(&u);
	unit_write_seed("state_v2", "", 0, old, len_old);
	/* the same bytes called version 3: the ends too short, refused */
	hip_wr16(old + 8, 3);
	ck_assert_int_lt(reload(&u, 16, old, len_old, 5 * S, err, sizeof(err)), 0);
	ck_assert_uint_eq(u.used, 0);
	fw_track_free(&u);
	free(old);
	/* version 1: read, no LSI SPIs, the note about the ports */
	len_old = as_version1(buf, len, &old);
	ck_assert_int_eq(reload(&u, 16, old, len_old, 5 * S, err, sizeof(err)), 1);
	ck_assert_ptr_nonnull(strstr(err, "version 1"));
	ck_assert_uint_eq(fw_track_find(&u, &hit_i, &hit_r)->end[0].lsi_spi, 0);
	fw_track_free(&u);
	free(old);
	/* the Responder's LSI SPI reserved (RFC 4303 §2.1): refused */
	{
		size_t r = FW_STATE_HEADER + FW_STATE_ENTRY + FW_STATE_END +
			   hip_rd16(buf + FW_STATE_HEADER + FW_STATE_ENTRY + 68);

		ck_assert_uint_eq(hip_rd32(buf + r + 76), 0x2202);
		hip_wr32(buf + r + 76, 255);
		ck_assert_int_eq(reload(&u, 16, buf, len, 5 * S, err, sizeof(err)), -EBADMSG);
		ck_assert_ptr_nonnull(strstr(err, "reserved LSI SPI"));
		ck_assert_uint_eq(u.used, 0);
		fw_track_free(&u);
	}
	free(buf);
	/* an offer pending (a new exchange's I2, no R2 yet) is kept too */
	ck_assert_int_eq(feed(HIP_I2, &hit_i, &hit_r, ADDR_I, ADDR_R, &i2, 2 * S), FW_TRK_OK);
	ck_assert_int_eq(fw_state_encode(&t, &buf, &len), 0);
	ck_assert_int_eq(reload(&u, 16, buf, len, 5 * S, err, sizeof(err)), 1);
	b = fw_track_find(&u, &hit_i, &hit_r);
	ck_assert_uint_eq(b->end[0].lsi_spi, 0x1101);
	ck_assert_uint_eq(b->end[0].lsi_spi_offer, 0x1103);
	fw_track_free(&u);
	free(buf);
}
END_TEST

/* fw_state_save and fw_state_load: mode 0600, no temporary file left, a
 * missing file is no error, a garbage file is refused. */
START_TEST(test_state_file)
{
	char dir[] = "/tmp/check_fw_state.XXXXXX", path[256], err[512];
	struct fw_track u;
	struct stat st;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(fw_track_init(&u, 16, false, NULL, NULL), 0);
	ck_assert_int_eq(fw_state_load(&u, dir, 1 * S, 10 * S, err, sizeof(err)), 0);
	bex(0x1001, 0x2002, 1 * S);
	ck_assert_int_eq(fw_state_save(&t, dir), 0);
	snprintf(path, sizeof(path), "%s/hipfw.state", dir);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	snprintf(path, sizeof(path), "%s/hipfw.state.tmp", dir);
	ck_assert_int_ne(access(path, F_OK), 0);
	ck_assert_int_eq(fw_state_load(&u, dir, 1 * S, 10 * S, err, sizeof(err)), 1);
	ck_assert_ptr_nonnull(fw_track_find(&u, &hit_i, &hit_r));
	fw_track_free(&u);
	snprintf(path, sizeof(path), "%s/hipfw.state", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("not a state file\n", f);
	fclose(f);
	ck_assert_int_eq(fw_track_init(&u, 16, false, NULL, NULL), 0);
	ck_assert_int_lt(fw_state_load(&u, dir, 1 * S, 10 * S, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "not a hipfw state file"));
	ck_assert_uint_eq(u.used, 0);
	fw_track_free(&u);
	unlink(path);
	rmdir(dir);
}
END_TEST

static Suite *state_suite(void)
{
	Suite *s = suite_create("hipfw-state");
	TCase *tc = tcase_create("state");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_state_round_trip);
	tcase_add_test(tc, test_state_udp);
	tcase_add_test(tc, test_state_lsi);
	tcase_add_test(tc, test_state_probation);
	tcase_add_test(tc, test_state_truncated);
	tcase_add_test(tc, test_state_refused);
	tcase_add_test(tc, test_state_file);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(state_suite)
