/*
 * check_r1cache.c - precomputed R1s (hipd/engine/assoc/r1cache.c) and the local identity
 * table (hipd/engine/assoc/hidb.c): the answered R1 is a valid, correctly signed and
 * checksummed R1 (docs/protocol.md §1, §2), #I is recovered at I2 time, secret
 * rotation and the persisted R1 counter (docs/protocol.md §3, P-03, P-08), the DH group
 * choice (docs/protocol.md §6 I1 step 4) and DH key replacement after use (D-04).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coverage.h"
#include "engine/assoc/hidb.h"
#include "params.h"
#include "engine/assoc/r1cache.h"
#include "unit.h"

#define SEC 1000000000ULL

static const uint8_t our_groups[] = { HIP_DH_NIST_P256, HIP_DH_NIST_P384,
				      HIP_DH_MODP_3072, HIP_DH_MODP_1536 };
static const uint16_t our_ciphers[] = { HIP_CIPHER_AES_128_CBC, HIP_CIPHER_AES_256_CBC };
static const uint16_t our_esp[] = { HIP_ESP_AES_GCM_16, HIP_ESP_AES128_CBC_SHA256,
				    HIP_ESP_AES256_CBC_SHA256 };

static char dir[64], key_path[128], ctr_path[128];
static struct hidb *db;
static struct hidb_entry *me;
static struct hip_addr src, dst;
static struct hip_hit hit_a, hit_b;

static struct r1cache_conf conf_groups(const uint8_t *g, size_t n)
{
	struct r1cache_conf conf = {
		.dh_groups = g, .n_dh_groups = n,
		.hip_ciphers = our_ciphers, .n_hip_ciphers = 2,
		.esp_suites = our_esp, .n_esp_suites = 3,
		.size = 8, .rotate_seconds = 300, .counter_path = NULL, .lifetime = 37,
	};
	return conf;
}

static void setup_kind(enum hip_hi_kind kind)
{
	strcpy(dir, "/tmp/check_r1cache.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(key_path, sizeof(key_path), "%s/hip_host_key.pem", dir);
	snprintf(ctr_path, sizeof(ctr_path), "%s/r1_counter", dir);
	ck_assert_int_eq(hidb_open(&db, key_path, kind), 0);
	me = hidb_default(db);
	ck_assert_ptr_nonnull(me);
	ck_assert_int_eq(hip_addr_from_str("2001:db8::1", &src), 0);
	ck_assert_int_eq(hip_addr_from_str("2001:db8::2", &dst), 0);
	ck_assert_int_eq(hip_hit_from_str("2001:22::aaaa", &hit_a), 0);
	ck_assert_int_eq(hip_hit_from_str("2001:22::bbbb", &hit_b), 0);
}

static void setup(void)
{
	setup_kind(HIP_HI_KIND_ECDSA_P256);
}

static void teardown(void)
{
	char cmd[128];

	hidb_free(db);
	db = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* Everything a test wants from a received R1. */
struct r1_seen {
	struct hip_packet pkt;
	struct hip_puzzle pz;
	struct hip_r1_counter ctr;
	struct hip_dh_param dh;
	struct hip_u8_list groups;
};

static const struct hip_param_ref *need(const struct hip_packet *p, uint16_t type)
{
	const struct hip_param_ref *r = hip_packet_find(p, type);

	ck_assert_msg(r != NULL, "R1 lacks %s", hip_param_name(type));
	return r;
}

static void parse_r1(const uint8_t *buf, size_t len, struct r1_seen *s)
{
	static const uint16_t order[] = {
		HIP_PARAM_R1_COUNTER, HIP_PARAM_PUZZLE, HIP_PARAM_DH_GROUP_LIST,
		HIP_PARAM_DIFFIE_HELLMAN, HIP_PARAM_HIP_CIPHER, HIP_PARAM_HOST_ID,
		HIP_PARAM_HIT_SUITE_LIST, HIP_PARAM_TRANSPORT_FORMAT_LIST,
		HIP_PARAM_ESP_TRANSFORM, HIP_PARAM_HIP_SIGNATURE_2,
	};
	const struct hip_param_ref *r;
	unsigned i;

	ck_assert_int_eq(hip_packet_parse(buf, len, &s->pkt), 0);
	ck_assert_uint_eq(s->pkt.type, HIP_R1);
	ck_assert_uint_eq(s->pkt.nparams, sizeof(order) / sizeof(order[0]));
	for (i = 0; i < s->pkt.nparams; i++)
		ck_assert_uint_eq(s->pkt.params[i].type, order[i]);
	ck_assert_mem_eq(s->pkt.hit_sender.b, me->hit.b, 16);
	r = need(&s->pkt, HIP_PARAM_PUZZLE);
	ck_assert_int_eq(hip_puzzle_decode(hip_param_content(&s->pkt, r), r->len,
					   hip_rhash_len(me->suite), &s->pz), 0);
	r = need(&s->pkt, HIP_PARAM_R1_COUNTER);
	ck_assert_int_eq(hip_r1_counter_decode(hip_param_content(&s->pkt, r), r->len,
					       &s->ctr), 0);
	r = need(&s->pkt, HIP_PARAM_DIFFIE_HELLMAN);
	ck_assert_int_eq(hip_dh_param_decode(hip_param_content(&s->pkt, r), r->len, &s->dh), 0);
	r = need(&s->pkt, HIP_PARAM_DH_GROUP_LIST);
	ck_assert_int_eq(hip_dh_group_list_decode(hip_param_content(&s->pkt, r), r->len,
						  &s->groups), 0);
	r = need(&s->pkt, HIP_PARAM_HOST_ID);
	ck_assert_uint_eq(hip_tlv_total_len(r->len), me->host_id_tlv_len);
	ck_assert_mem_eq(buf + r->off, me->host_id_tlv, me->host_id_tlv_len);
}

static int answer(struct r1cache *c, const struct hip_hit *hit_i, const uint8_t *groups,
		  unsigned ngroups, unsigned k, uint8_t *out)
{
	struct hip_u8_list l = { .n = ngroups };

	memcpy(l.v, groups, ngroups);
	return r1cache_answer(c, hit_i, &l, k, &src, &dst, out, HIP_MAX_PACKET);
}

static void assert_dh_is(const struct r1_seen *s, const struct hip_dh *dh)
{
	uint8_t pub[512];

	ck_assert_uint_eq(hip_dh_pub_len(s->dh.group), s->dh.pub_len);
	ck_assert_int_eq(hip_dh_public(dh, pub, s->dh.pub_len), 0);
	ck_assert_mem_eq(pub, s->dh.pub, s->dh.pub_len);
}

/* HIP_CIPHER, ESP_TRANSFORM as configured; TRANSPORT_FORMAT_LIST {ESP};
 * HIT_SUITE_LIST: our suite (2) first, then RSA (1). */
static void assert_lists(const struct r1_seen *s)
{
	const struct hip_param_ref *r;
	struct hip_u16_list l16;
	struct hip_u8_list l8;
	unsigned i;

	r = need(&s->pkt, HIP_PARAM_HIP_CIPHER);
	ck_assert_int_eq(hip_hip_cipher_decode(hip_param_content(&s->pkt, r), r->len, &l16), 0);
	ck_assert_uint_eq(l16.n, 2);
	for (i = 0; i < l16.n; i++)
		ck_assert_uint_eq(l16.v[i], our_ciphers[i]);
	r = need(&s->pkt, HIP_PARAM_ESP_TRANSFORM);
	ck_assert_int_eq(hip_esp_transform_decode(hip_param_content(&s->pkt, r), r->len,
						  &l16), 0);
	ck_assert_uint_eq(l16.n, 3);
	for (i = 0; i < l16.n; i++)
		ck_assert_uint_eq(l16.v[i], our_esp[i]);
	r = need(&s->pkt, HIP_PARAM_TRANSPORT_FORMAT_LIST);
	ck_assert_int_eq(hip_transport_format_list_decode(hip_param_content(&s->pkt, r),
							  r->len, &l16), 0);
	ck_assert_uint_eq(l16.n, 1);
	ck_assert_uint_eq(l16.v[0], HIP_PARAM_ESP_TRANSFORM);
	r = need(&s->pkt, HIP_PARAM_HIT_SUITE_LIST);
	ck_assert_uint_eq(r->len, 2);
	ck_assert_uint_eq(hip_param_content(&s->pkt, r)[0], 0x20);
	ck_assert_uint_eq(hip_param_content(&s->pkt, r)[1], 0x10);
	ck_assert_int_eq(hip_hit_suite_list_decode(hip_param_content(&s->pkt, r), r->len,
						   &l8), 0);
	ck_assert_uint_eq(l8.n, 2);
}

START_TEST(test_hidb_identity)
{
	struct hidb *again;
	struct hidb_entry *e;
	struct hip_host_id hid;
	struct stat st;
	const uint8_t *w;
	size_t wlen;

	ck_assert_uint_eq(hidb_count(db), 1);
	ck_assert_ptr_eq(hidb_at(db, 0), me);
	ck_assert_ptr_null(hidb_at(db, 1));
	ck_assert_ptr_eq(hidb_find(db, &me->hit), me);
	ck_assert_ptr_null(hidb_find(db, &hit_a));
	ck_assert_ptr_eq(hidb_for_suite(db, 2), me);
	ck_assert_ptr_eq(hidb_for_suite(db, 1), me);   /* falls back to the default */
	ck_assert_int_eq(me->suite, HIP_RHASH_SHA384);
	ck_assert(hip_hit_is_orchid(&me->hit));
	ck_assert_uint_eq(hip_hit_suite(&me->hit), 2);
	/* the HOST_ID TLV: type, DI none, the HI bytes */
	ck_assert_uint_eq(me->host_id_tlv_len % 8, 0);
	ck_assert_uint_eq(me->host_id_tlv[0] << 8 | me->host_id_tlv[1], HIP_PARAM_HOST_ID);
	ck_assert_int_eq(hip_host_id_decode(me->host_id_tlv + 4,
					    (size_t)(me->host_id_tlv[2] << 8 | me->host_id_tlv[3]),
					    &hid), 0);
	ck_assert_uint_eq(hid.algorithm, HIP_HI_ECDSA);
	ck_assert_uint_eq(hid.di_type, HIP_DI_NONE);
	w = hip_hi_wire(me->hi, &wlen);
	ck_assert_uint_eq(hid.hi_len, wlen);
	ck_assert_mem_eq(hid.hi, w, wlen);

	/* generated once, saved 0600, loaded again with the same HIT */
	ck_assert_int_eq(stat(key_path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(hidb_open(&again, key_path, HIP_HI_KIND_RSA_3072), 0);
	e = hidb_default(again);
	ck_assert_mem_eq(e->hit.b, me->hit.b, 16);
	hidb_free(again);
	/* a group-readable key is refused */
	ck_assert_int_eq(chmod(key_path, 0640), 0);
	again = NULL;
	ck_assert_int_eq(hidb_open(&again, key_path, HIP_HI_KIND_ECDSA_P256), -EACCES);
	ck_assert_ptr_null(again);
}
END_TEST

START_TEST(test_answer_valid_r1)
{
	const uint8_t i1[] = { HIP_DH_NIST_P256 };
	struct r1cache_conf conf = conf_groups(our_groups, 2);
	struct r1cache *c;
	uint8_t r1[HIP_MAX_PACKET], r1b[HIP_MAX_PACKET];
	struct r1_seen s, sb;
	struct r1_offer offer;
	int n, nb;

	ck_assert_int_eq(r1cache_create(&c, me, &conf), 0);
	n = answer(c, &hit_a, i1, 1, 3, r1);
	ck_assert_int_gt(n, 0);
	parse_r1(r1, (size_t)n, &s);
	ck_assert_mem_eq(s.pkt.hit_receiver.b, hit_a.b, 16);
	ck_assert_int_eq(hip_packet_verify_checksum(r1, (size_t)n, &src, &dst), 0);
	/* the patched Receiver HIT, Opaque and #I are outside the signature */
	ck_assert_int_eq(hip_verify_signature(&s.pkt, HIP_COVER_SIGNATURE_2, me->hi), 0);
	ck_assert_uint_eq(s.pz.k, 3);
	ck_assert_uint_eq(s.pz.lifetime, 37);
	ck_assert_uint_eq(s.pz.i_len, 48);
	ck_assert_uint_eq(s.ctr.counter, r1cache_counter(c));
	ck_assert_uint_eq(s.dh.group, HIP_DH_NIST_P256);
	assert_lists(&s);

	/* I2 time: the #I and DH key the R1 offered are recovered */
	ck_assert_int_eq(r1cache_lookup(c, &hit_a, s.pz.opaque, &s.ctr, s.dh.group, &offer), 0);
	ck_assert_uint_eq(offer.i_len, 48);
	ck_assert_mem_eq(offer.i, s.pz.i, 48);
	ck_assert_uint_eq(offer.k, 3);
	ck_assert_uint_eq(offer.dh_group, HIP_DH_NIST_P256);
	ck_assert_mem_eq(offer.counter.raw, s.ctr.raw, sizeof(s.ctr.raw));
	assert_dh_is(&s, offer.dh);
	/* an I2 without R1_COUNTER finds the same */
	memset(&offer, 0, sizeof(offer));
	ck_assert_int_eq(r1cache_lookup(c, &hit_a, s.pz.opaque, NULL, s.dh.group, &offer), 0);
	ck_assert_mem_eq(offer.i, s.pz.i, 48);

	/* a retransmitted I1 gets the same R1 */
	nb = answer(c, &hit_a, i1, 1, 3, r1b);
	ck_assert_int_eq(nb, n);
	ck_assert_mem_eq(r1b, r1, (size_t)n);
	/* another Initiator: another #I, and A's opaque does not give B A's #I */
	nb = answer(c, &hit_b, i1, 1, 3, r1b);
	ck_assert_int_gt(nb, 0);
	parse_r1(r1b, (size_t)nb, &sb);
	ck_assert(memcmp(sb.pz.i, s.pz.i, 48) != 0);
	ck_assert_int_eq(hip_verify_signature(&sb.pkt, HIP_COVER_SIGNATURE_2, me->hi), 0);
	ck_assert_int_eq(r1cache_lookup(c, &hit_b, s.pz.opaque, &s.ctr, s.dh.group, &offer), 0);
	ck_assert(memcmp(offer.i, s.pz.i, 48) != 0);

	/* a covered byte changed breaks the signature (HIP_CIPHER's first ID) */
	r1[need(&s.pkt, HIP_PARAM_HIP_CIPHER)->off + 5] ^= 1;
	ck_assert_int_eq(hip_verify_signature(&s.pkt, HIP_COVER_SIGNATURE_2, me->hi), -EBADMSG);
	r1cache_free(c);
}
END_TEST

/* K is covered by the signature: a new K gets a freshly signed R1. */
START_TEST(test_k_change_resigns)
{
	const uint8_t i1[] = { HIP_DH_NIST_P256 };
	struct r1cache_conf conf = conf_groups(our_groups, 1);
	struct r1cache *c;
	uint8_t r1[HIP_MAX_PACKET], j[HIP_RHASH_MAX], j0[HIP_RHASH_MAX] = { 0 };
	struct r1_seen s;
	struct r1_offer offer;
	unsigned k;
	int n;

	ck_assert_int_eq(r1cache_create(&c, me, &conf), 0);
	for (k = 0; k <= 6; k += 3) {
		n = answer(c, &hit_a, i1, 1, k, r1);
		ck_assert_int_gt(n, 0);
		parse_r1(r1, (size_t)n, &s);
		ck_assert_uint_eq(s.pz.k, k);
		ck_assert_int_eq(hip_verify_signature(&s.pkt, HIP_COVER_SIGNATURE_2, me->hi), 0);
		/* the Initiator's work, checked against what lookup recovers */
		ck_assert_int_eq(hip_puzzle_solve(me->suite, s.pz.k, s.pz.i, hit_a.b, me->hit.b,
						  j0, 0, 0, j, NULL), 0);
		ck_assert_int_eq(r1cache_lookup(c, &hit_a, s.pz.opaque, &s.ctr, s.dh.group,
						&offer), 0);
		ck_assert_uint_eq(offer.k, k);
		ck_assert_int_eq(hip_puzzle_verify(me->suite, offer.k, offer.i, hit_a.b,
						   me->hit.b, j), 0);
	}
	ck_assert_int_eq(answer(c, &hit_a, i1, 1, HIP_PUZZLE_K_MAX + 1, r1), -EINVAL);
	r1cache_free(c);
}
END_TEST

START_TEST(test_rotation_stale)
{
	const uint8_t i1[] = { HIP_DH_NIST_P256 };
	struct r1cache_conf conf = conf_groups(our_groups, 1);
	struct r1cache *c;
	uint8_t r1[HIP_MAX_PACKET], r1n[HIP_MAX_PACKET];
	struct r1_seen s, sn;
	struct r1_offer offer;
	struct hip_r1_counter bad;
	uint64_t c0;
	int n;

	ck_assert_int_eq(r1cache_create(&c, me, &conf), 0);
	c0 = r1cache_counter(c);
	n = answer(c, &hit_a, i1, 1, 0, r1);
	ck_assert_int_gt(n, 0);
	parse_r1(r1, (size_t)n, &s);

	/* forged counters are refused */
	hip_r1_counter_set(&bad, c0 + 32);   /* same low bits, from the future */
	ck_assert_int_eq(r1cache_lookup(c, &hit_a, s.pz.opaque, &bad, s.dh.group, &offer),
			 -ESTALE);
	hip_r1_counter_set(&bad, c0 + 1);
	ck_assert_int_eq(r1cache_lookup(c, &hit_a, s.pz.opaque, &bad, s.dh.group, &offer),
			 -ESTALE);
	ck_assert_int_eq(r1cache_lookup(c, &hit_a, s.pz.opaque, &s.ctr, HIP_DH_MODP_1536,
					&offer), -ESTALE);

	/* one rotation: the previous secret and DH key still answer */
	ck_assert_int_eq(r1cache_rotate(c, 0), 0);
	ck_assert_uint_eq(r1cache_counter(c), c0 + 1);
	ck_assert_int_eq(r1cache_lookup(c, &hit_a, s.pz.opaque, &s.ctr, s.dh.group, &offer), 0);
	ck_assert_mem_eq(offer.i, s.pz.i, 48);
	assert_dh_is(&s, offer.dh);
	/* the new R1 has the new counter, a new #I, and is validly signed */
	n = answer(c, &hit_a, i1, 1, 0, r1n);
	ck_assert_int_gt(n, 0);
	parse_r1(r1n, (size_t)n, &sn);
	ck_assert_uint_eq(sn.ctr.counter, c0 + 1);
	ck_assert(memcmp(sn.pz.i, s.pz.i, 48) != 0);
	ck_assert_int_eq(hip_verify_signature(&sn.pkt, HIP_COVER_SIGNATURE_2, me->hi), 0);

	/* two rotations: the first secret is gone */
	ck_assert_int_eq(r1cache_rotate(c, 0), 0);
	ck_assert_int_eq(r1cache_lookup(c, &hit_a, s.pz.opaque, &s.ctr, s.dh.group, &offer),
			 -ESTALE);
	ck_assert_int_eq(r1cache_lookup(c, &hit_a, s.pz.opaque, NULL, s.dh.group, &offer),
			 -ESTALE);
	ck_assert_int_eq(r1cache_lookup(c, &hit_a, sn.pz.opaque, &sn.ctr, sn.dh.group,
					&offer), 0);
	ck_assert_mem_eq(offer.i, sn.pz.i, 48);
	r1cache_free(c);
}
END_TEST

static unsigned long long stored_counter(void)
{
	unsigned long long stored = 0;
	FILE *f = fopen(ctr_path, "r");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%llu", &stored), 1);
	fclose(f);
	return stored;
}

START_TEST(test_counter_persists)
{
	struct r1cache_conf conf = conf_groups(our_groups, 1);
	struct r1cache *c;
	uint64_t first, bound;
	FILE *f;

	conf.counter_path = ctr_path;
	ck_assert_int_eq(r1cache_create(&c, me, &conf), 0);
	first = r1cache_counter(c);
	ck_assert_uint_ge(first, 1);
	/* the file holds a bound above the value in use (a lease) ... */
	bound = stored_counter();
	ck_assert_uint_ge(bound, first);
	ck_assert_int_eq(r1cache_rotate(c, 0), 0);
	ck_assert_int_eq(r1cache_rotate(c, 0), 0);
	ck_assert_uint_eq(r1cache_counter(c), first + 2);
	/* ... so a rotation within the lease writes nothing */
	ck_assert_uint_eq(stored_counter(), bound);
	r1cache_free(c);

	/* a restart continues above anything used before */
	ck_assert_int_eq(r1cache_create(&c, me, &conf), 0);
	ck_assert_uint_gt(r1cache_counter(c), first + 2);
	ck_assert_uint_gt(r1cache_counter(c), bound);
	r1cache_free(c);

	/* a damaged counter file stops us rather than restart at 0 */
	f = fopen(ctr_path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("garbage\n", f);
	fclose(f);
	c = NULL;
	ck_assert_int_eq(r1cache_create(&c, me, &conf), -EBADMSG);
	ck_assert_ptr_null(c);
}
END_TEST

/* P-08 with the lease: whatever number of rotations a run makes (within a
 * lease, exactly at its end, across several), the next run's first counter
 * is above every counter the previous runs used, and the bound on disk
 * never falls below a used value. */
START_TEST(test_counter_lease_restarts)
{
	static const unsigned rotations[] = { 0, 1, 62, 63, 64, 65, 130, 0, 200, 3 };
	struct r1cache_conf conf = conf_groups(our_groups, 1);
	uint64_t max_used = 0, writes = 0, last_bound = 0;
	struct r1cache *c;
	unsigned run, i, total = 0;

	conf.counter_path = ctr_path;
	unlink(ctr_path);
	for (run = 0; run < sizeof(rotations) / sizeof(rotations[0]); run++) {
		ck_assert_int_eq(r1cache_create(&c, me, &conf), 0);
		ck_assert_uint_gt(r1cache_counter(c), max_used);
		max_used = r1cache_counter(c);
		for (i = 0; i < rotations[run]; i++) {
			ck_assert_int_eq(r1cache_rotate(c, 0), 0);
			ck_assert_uint_eq(r1cache_counter(c), max_used + 1);
			max_used = r1cache_counter(c);
			ck_assert_uint_ge(stored_counter(), max_used);
			if (stored_counter() != last_bound) {
				writes++;
				last_bound = stored_counter();
			}
		}
		total += rotations[run];
		ck_assert_uint_ge(stored_counter(), max_used);
		last_bound = stored_counter();
		r1cache_free(c);   /* like a crash: nothing is written at exit */
	}
	/* one write per 64 rotations, not one per rotation */
	ck_assert_uint_le(writes, total / 64 + sizeof(rotations) / sizeof(rotations[0]));
}
END_TEST

static uint8_t chosen_group(struct r1cache *c, const uint8_t *i1, unsigned n,
			    struct r1_seen *s)
{
	uint8_t r1[HIP_MAX_PACKET];
	int len = answer(c, &hit_a, i1, n, 0, r1);

	ck_assert_int_gt(len, 0);
	parse_r1(r1, (size_t)len, s);
	ck_assert_int_eq(hip_verify_signature(&s->pkt, HIP_COVER_SIGNATURE_2, me->hi), 0);
	return s->dh.group;
}

START_TEST(test_group_choice)
{
	const uint8_t i1_87[] = { 8, 7 }, i1_4[] = { 4 }, i1_99[] = { 99 };
	struct r1cache_conf conf = conf_groups(our_groups, 4);
	struct r1cache *c;
	struct r1_seen s;
	uint8_t r1[HIP_MAX_PACKET];
	int n;

	ck_assert_int_eq(r1cache_create(&c, me, &conf), 0);
	ck_assert_uint_eq(chosen_group(c, i1_87, 2, &s), 7);
	/* R1's DH_GROUP_LIST is our whole list, in our order */
	ck_assert_uint_eq(s.groups.n, 4);
	ck_assert_mem_eq(s.groups.v, our_groups, 4);
	ck_assert_uint_eq(chosen_group(c, i1_4, 1, &s), 4);
	ck_assert_uint_eq(s.groups.n, 4);
	ck_assert_uint_eq(chosen_group(c, i1_99, 1, &s), 7);
	n = r1cache_answer(c, &hit_a, NULL, 0, &src, &dst, r1, sizeof(r1));
	ck_assert_int_gt(n, 0);
	/* too small an output buffer */
	ck_assert_int_eq(r1cache_answer(c, &hit_a, NULL, 0, &src, &dst, r1, 100), -ENOSPC);
	r1cache_free(c);
}
END_TEST

/* D-04: a DH key used by a completed I2 is replaced at the next tick; R1s
 * already sent with it still resolve to it. */
START_TEST(test_used_key_replaced)
{
	const uint8_t i1[] = { HIP_DH_NIST_P256 };
	struct r1cache_conf conf = conf_groups(our_groups, 1);
	struct r1cache *c;
	uint8_t r1[HIP_MAX_PACKET], r1n[HIP_MAX_PACKET];
	struct r1_seen s, sn;
	struct r1_offer offer;
	uint64_t c0, t = 1000 * SEC;
	int n;

	ck_assert_int_eq(r1cache_create(&c, me, &conf), 0);
	ck_assert_int_eq(r1cache_tick(c, t), 0);      /* nothing marked: no-op */
	c0 = r1cache_counter(c);
	n = answer(c, &hit_a, i1, 1, 0, r1);
	parse_r1(r1, (size_t)n, &s);
	ck_assert_int_eq(r1cache_lookup(c, &hit_a, s.pz.opaque, &s.ctr, s.dh.group, &offer), 0);
	r1cache_mark_used(c, &offer);
	ck_assert_int_eq(r1cache_tick(c, t), 1);
	ck_assert_uint_eq(r1cache_counter(c), c0 + 1);
	/* the old R1 still resolves to the old key */
	ck_assert_int_eq(r1cache_lookup(c, &hit_a, s.pz.opaque, &s.ctr, s.dh.group, &offer), 0);
	assert_dh_is(&s, offer.dh);
	/* the same Initiator now gets a new key */
	n = answer(c, &hit_a, i1, 1, 0, r1n);
	parse_r1(r1n, (size_t)n, &sn);
	ck_assert(memcmp(sn.dh.pub, s.dh.pub, s.dh.pub_len) != 0);
	ck_assert_int_eq(hip_verify_signature(&sn.pkt, HIP_COVER_SIGNATURE_2, me->hi), 0);
	ck_assert_int_eq(r1cache_lookup(c, &hit_a, sn.pz.opaque, &sn.ctr, sn.dh.group,
					&offer), 0);
	assert_dh_is(&sn, offer.dh);
	/* at most once per second */
	r1cache_mark_used(c, &offer);
	ck_assert_int_eq(r1cache_tick(c, t + SEC / 2), 0);
	ck_assert_int_eq(r1cache_tick(c, t + SEC), 1);
	r1cache_free(c);
}
END_TEST

/* Replaced keys are kept only while an I2 may still name them: a day of
 * rotations and used keys leaves about one key per entry, not two. */
START_TEST(test_replaced_keys_pruned)
{
	const uint8_t i1[] = { HIP_DH_NIST_P256 };
	struct r1cache_conf conf = conf_groups(our_groups, 1);
	struct r1cache *c;
	uint8_t r1[HIP_MAX_PACKET];
	struct r1_seen s, s0;
	struct r1_offer offer;
	uint64_t t = 1000 * SEC;
	int i, n;

	ck_assert_int_eq(r1cache_create(&c, me, &conf), 0);
	ck_assert_uint_eq(r1cache_dh_keys(c), 8);
	n = answer(c, &hit_a, i1, 1, 0, r1);
	parse_r1(r1, (size_t)n, &s0);
	ck_assert_int_eq(r1cache_lookup(c, &hit_a, s0.pz.opaque, &s0.ctr, s0.dh.group, &offer), 0);
	r1cache_mark_used(c, &offer);
	ck_assert_int_eq(r1cache_tick(c, t), 1);
	ck_assert_uint_eq(r1cache_dh_keys(c), 9);       /* the replaced key stays */
	for (i = 0; i < 20; i++) {
		t += 300 * SEC;
		n = answer(c, &hit_a, i1, 1, 0, r1);
		parse_r1(r1, (size_t)n, &s);
		ck_assert_int_eq(r1cache_lookup(c, &hit_a, s.pz.opaque, &s.ctr, s.dh.group,
						&offer), 0);
		r1cache_mark_used(c, &offer);
		ck_assert_int_eq(r1cache_tick(c, t), 1);
		ck_assert_int_eq(r1cache_rotate(c, t), 0);
		/* 8 current, the one the tick replaced and the one the rotation
		 * replaced (the previous round's are past both secrets): without
		 * pruning every entry keeps a second key (16) */
		ck_assert_uint_le(r1cache_dh_keys(c), 10);
	}
	ck_assert_int_eq(r1cache_lookup(c, &hit_a, s0.pz.opaque, &s0.ctr, s0.dh.group, &offer),
			 -ESTALE);
	r1cache_free(c);
}
END_TEST

/* A replaced key answers I2s for twice the puzzle lifetime (2 x 32 s with
 * lifetime 37) after its replacement, by a tick or a rotation, and is
 * freed at the first tick after that, with nothing marked used: memory
 * held for replaced keys lasts about a minute, not until two rotations. */
START_TEST(test_replaced_key_expires)
{
	const uint8_t i1[] = { HIP_DH_NIST_P256 };
	struct r1cache_conf conf = conf_groups(our_groups, 1);
	struct r1cache *c;
	uint8_t r1[HIP_MAX_PACKET];
	struct r1_seen s0, s1;
	struct r1_offer offer;
	uint64_t t = 1000 * SEC;
	int n;

	ck_assert_int_eq(r1cache_create(&c, me, &conf), 0);
	n = answer(c, &hit_a, i1, 1, 0, r1);
	parse_r1(r1, (size_t)n, &s0);
	ck_assert_int_eq(r1cache_lookup(c, &hit_a, s0.pz.opaque, &s0.ctr, s0.dh.group, &offer), 0);
	r1cache_mark_used(c, &offer);
	ck_assert_int_eq(r1cache_tick(c, t), 1);
	ck_assert_uint_eq(r1cache_dh_keys(c), 9);
	/* within the time an I2 for the old R1 is due: still answered */
	ck_assert_int_eq(r1cache_tick(c, t + 63 * SEC), 0);
	ck_assert_uint_eq(r1cache_dh_keys(c), 9);
	ck_assert_int_eq(r1cache_lookup(c, &hit_a, s0.pz.opaque, &s0.ctr, s0.dh.group, &offer), 0);
	assert_dh_is(&s0, offer.dh);
	/* 64 s after its replacement: gone */
	ck_assert_int_eq(r1cache_tick(c, t + 64 * SEC), 0);
	ck_assert_uint_eq(r1cache_dh_keys(c), 8);
	ck_assert_int_eq(r1cache_lookup(c, &hit_a, s0.pz.opaque, &s0.ctr, s0.dh.group, &offer),
			 -ESTALE);
	/* the current R1s still verify end to end */
	n = answer(c, &hit_a, i1, 1, 0, r1);
	parse_r1(r1, (size_t)n, &s1);
	ck_assert_int_eq(r1cache_lookup(c, &hit_a, s1.pz.opaque, &s1.ctr, s1.dh.group, &offer), 0);
	assert_dh_is(&s1, offer.dh);
	/* a key a rotation replaced: the same time, counted from the rotation */
	ck_assert_int_eq(r1cache_rotate(c, t + 100 * SEC), 0);
	ck_assert_uint_eq(r1cache_dh_keys(c), 9);
	ck_assert_int_eq(r1cache_tick(c, t + 163 * SEC), 0);
	ck_assert_uint_eq(r1cache_dh_keys(c), 9);
	ck_assert_int_eq(r1cache_tick(c, t + 164 * SEC), 0);
	ck_assert_uint_eq(r1cache_dh_keys(c), 8);
	r1cache_free(c);
}
END_TEST

START_TEST(test_bad_conf)
{
	struct r1cache_conf conf = conf_groups(our_groups, 1);
	const uint8_t bad_group[] = { 1 };
	struct r1cache *c = NULL;

	conf.size = 7;
	ck_assert_int_eq(r1cache_create(&c, me, &conf), -EINVAL);
	conf = conf_groups(bad_group, 1);
	ck_assert_int_eq(r1cache_create(&c, me, &conf), -ENOTSUP);
	conf = conf_groups(our_groups, 1);
	conf.lifetime = 42;              /* 1024 s puzzle, rotated every 300 s */
	ck_assert_int_eq(r1cache_create(&c, me, &conf), -EINVAL);
	ck_assert_ptr_null(c);
}
END_TEST

/* An RSA identity (HIT Suite 1): SHA-256 #I, RSA-PSS HIP_SIGNATURE_2. */
static void setup_rsa(void)
{
	setup_kind(HIP_HI_KIND_RSA_3072);
}

START_TEST(test_rsa_identity)
{
	const uint8_t i1[] = { HIP_DH_NIST_P256 };
	struct r1cache_conf conf = conf_groups(our_groups, 1);
	struct r1cache *c;
	uint8_t r1[HIP_MAX_PACKET];
	struct r1_seen s;
	struct r1_offer offer;
	int n;

	ck_assert_int_eq(me->suite, HIP_RHASH_SHA256);
	ck_assert_uint_eq(hip_hit_suite(&me->hit), 1);
	ck_assert_int_eq(r1cache_create(&c, me, &conf), 0);
	n = answer(c, &hit_a, i1, 1, 1, r1);
	ck_assert_int_gt(n, 0);
	parse_r1(r1, (size_t)n, &s);
	ck_assert_uint_eq(s.pz.i_len, 32);
	ck_assert_int_eq(hip_verify_signature(&s.pkt, HIP_COVER_SIGNATURE_2, me->hi), 0);
	ck_assert_int_eq(r1cache_lookup(c, &hit_a, s.pz.opaque, &s.ctr, s.dh.group, &offer), 0);
	ck_assert_uint_eq(offer.i_len, 32);
	ck_assert_mem_eq(offer.i, s.pz.i, 32);
	r1cache_free(c);
}
END_TEST

static Suite *r1cache_suite(void)
{
	Suite *s = suite_create("r1cache");
	TCase *tc = tcase_create("ecdsa");
	TCase *rsa = tcase_create("rsa");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_hidb_identity);
	tcase_add_test(tc, test_replaced_keys_pruned);
	tcase_add_test(tc, test_replaced_key_expires);
	tcase_add_test(tc, test_answer_valid_r1);
	tcase_add_test(tc, test_k_change_resigns);
	tcase_add_test(tc, test_rotation_stale);
	tcase_add_test(tc, test_counter_persists);
	tcase_add_test(tc, test_counter_lease_restarts);
	tcase_add_test(tc, test_group_choice);
	tcase_add_test(tc, test_used_key_replaced);
	tcase_add_test(tc, test_bad_conf);
	suite_add_tcase(s, tc);
	/* RSA-3072 key generation takes seconds, more under sanitizers */
	tcase_set_timeout(rsa, 120);
	tcase_add_checked_fixture(rsa, setup_rsa, teardown);
	tcase_add_test(rsa, test_rsa_identity);
	suite_add_tcase(s, rsa);
	return s;
}

UNIT_MAIN(r1cache_suite)
