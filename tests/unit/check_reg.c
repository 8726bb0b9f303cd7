/*
 * check_reg.c - registration (RFC 8003) and rendezvous (RFC 8004),
 * hipd/engine/reg/: the registrar (REG_INFO, grants with the lifetime
 * clamped, REG_FAILED types 0/1/2 and 9, rendezvous and relay never held
 * together, the flood guard, cancel, renew, expiry, a table of 100,000
 * clients within 1 KiB each), the requester's server
 * table and state (§3.1-3.2: only offered types, back-off, type 2 never at
 * once), the allow-list file parser, and the RVS's FROM + RVS_HMAC relay
 * and the client's check of it (RFC 8004 §3.3, §4.2-4.3).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coverage.h"
#include "engine/assoc/hadb.h"
#include "engine/reg/reg.h"
#include "params.h"
#include "unit.h"

#define SEC 1000000000ULL
#define T0 (1000 * SEC)

/* Lifetime codes that are whole seconds: 2^((v-64)/8) s. */
enum { LT_1S = 64, LT_16S = 96, LT_32S = 104, LT_64S = 112, LT_128S = 120 };

static struct hip_hit mkhit(uint32_t n)
{
	struct hip_hit h = { { 0x20, 0x01, 0x00, 0x21 } };

	h.b[12] = (uint8_t)(n >> 24);
	h.b[13] = (uint8_t)(n >> 16);
	h.b[14] = (uint8_t)(n >> 8);
	h.b[15] = (uint8_t)n;
	return h;
}

static struct hip_reg mkreg(uint8_t value, uint8_t t1, uint8_t t2)
{
	struct hip_reg q;

	memset(&q, 0, sizeof(q));
	q.value = value;
	q.type[q.n++] = t1;
	if (t2)
		q.type[q.n++] = t2;
	return q;
}

/* Offers rendezvous, relay and candidate discovery, lifetimes 16 s ..
 * 128 s, no other limits. */
static struct reg_policy mkpolicy(void)
{
	struct reg_policy p;

	memset(&p, 0, sizeof(p));
	p.types[p.n_types++] = HIP_REG_RENDEZVOUS;
	p.types[p.n_types++] = HIP_REG_RELAY_UDP_HIP;
	p.types[p.n_types++] = HIP_REG_CANDIDATE_DISCOVERY;
	p.min_lifetime = LT_16S;
	p.max_lifetime = LT_128S;
	p.max_registrations = 1000;
	return p;
}

/* One REG_REQUEST of client n for type t with lifetime lt. */
static void ask(struct reg_registrar *r, const struct reg_policy *p, uint32_t n, uint8_t lt,
		uint8_t t, uint64_t now, struct reg_answer *a)
{
	struct hip_hit c = mkhit(n);
	struct hip_reg q = mkreg(lt, t, 0);

	reg_registrar_request(r, p, &c, &q, 1, now, a);
}

static bool has(struct reg_registrar *r, uint32_t n, uint8_t t, uint64_t now)
{
	struct hip_hit c = mkhit(n);

	return reg_registrar_has(r, &c, t, now);
}

/* The answer is exactly one failure of type failure, for type t. */
static void assert_failed(const struct reg_answer *a, uint8_t failure, uint8_t t)
{
	ck_assert((a->n_responses == 0));
	ck_assert_uint_eq(a->n_failed, 1);
	ck_assert_uint_eq(a->failed[0].value, failure);
	ck_assert_uint_eq(a->failed[0].n, 1);
	ck_assert_uint_eq(a->failed[0].type[0], t);
}

static void assert_granted(const struct reg_answer *a, uint8_t lt, uint8_t t)
{
	ck_assert((a->n_responses > 0));
	ck_assert_uint_eq(a->n_failed, 0);
	ck_assert_uint_eq(a->responses[0].value, lt);
	ck_assert_uint_eq(a->responses[0].n, 1);
	ck_assert_uint_eq(a->responses[0].type[0], t);
}

/* §4.1: REG_INFO lists what we offer, with the lifetime range; nothing
 * offered: no REG_INFO at all. */
START_TEST(test_policy_info)
{
	struct reg_policy p = mkpolicy();
	struct hip_reg_info info;

	ck_assert(reg_policy_info(&p, &info));
	ck_assert_uint_eq(info.min_lifetime, LT_16S);
	ck_assert_uint_eq(info.max_lifetime, LT_128S);
	ck_assert_uint_eq(info.n, 3);
	ck_assert_uint_eq(info.type[0], HIP_REG_RENDEZVOUS);
	ck_assert_uint_eq(info.type[1], HIP_REG_RELAY_UDP_HIP);
	ck_assert_uint_eq(info.type[2], HIP_REG_CANDIDATE_DISCOVERY);
	p.n_types = 0;
	ck_assert(!reg_policy_info(&p, &info));
	ck_assert_uint_eq(info.n, 0);
}
END_TEST

/* §3.3: the granted lifetime is the requested one clamped to [min, max],
 * and the registration lasts exactly that long. */
START_TEST(test_grant_clamped)
{
	struct reg_policy p = mkpolicy();
	struct reg_registrar *r;
	struct reg_answer a;

	ck_assert_int_eq(reg_registrar_create(&r), 0);
	ask(r, &p, 1, LT_1S, HIP_REG_RENDEZVOUS, T0, &a);
	assert_granted(&a, LT_16S, HIP_REG_RENDEZVOUS);
	ask(r, &p, 2, 200, HIP_REG_RENDEZVOUS, T0, &a);
	assert_granted(&a, LT_128S, HIP_REG_RENDEZVOUS);
	ask(r, &p, 3, LT_32S, HIP_REG_RELAY_UDP_HIP, T0, &a);
	assert_granted(&a, LT_32S, HIP_REG_RELAY_UDP_HIP);
	ck_assert_uint_eq(reg_registrar_count(r), 3);
	ck_assert_uint_eq(reg_registrar_counters(r)->granted, 3);
	/* held for the granted time, not the requested one; by type */
	ck_assert(has(r, 1, HIP_REG_RENDEZVOUS, T0 + 16 * SEC - 1));
	ck_assert(!has(r, 1, HIP_REG_RELAY_UDP_HIP, T0));
	ck_assert(has(r, 2, HIP_REG_RENDEZVOUS, T0 + 128 * SEC - 1));
	ck_assert(!has(r, 3, HIP_REG_RENDEZVOUS, T0));
	ck_assert(has(r, 3, HIP_REG_RELAY_UDP_HIP, T0 + 32 * SEC - 1));
	ck_assert(!has(r, 9, HIP_REG_RENDEZVOUS, T0));
	/* expired: gone, and counted */
	ck_assert(!has(r, 1, HIP_REG_RENDEZVOUS, T0 + 16 * SEC));
	ck_assert_uint_eq(reg_registrar_count(r), 2);
	ck_assert_uint_eq(reg_registrar_counters(r)->expired, 1);
	ck_assert(!has(r, 1, HIP_REG_RENDEZVOUS, T0));   /* stays gone */
	reg_registrar_free(r);
}
END_TEST

/* REG_FAILED: type 1 for a type not offered, type 0 off the allow-list,
 * type 2 when the table is full. */
START_TEST(test_refusals)
{
	struct reg_policy p = mkpolicy();
	struct reg_registrar *r;
	struct reg_allow *allow;
	struct reg_answer a;
	struct hip_hit c1 = mkhit(1), c2 = mkhit(2);
	struct hip_reg two = mkreg(LT_32S, HIP_REG_RENDEZVOUS, HIP_REG_RELAY_UDP_HIP);
	char text[128], h[HIP_HIT_STR_LEN], err[256];

	ck_assert_int_eq(reg_registrar_create(&r), 0);
	p.n_types = 1;   /* rendezvous only */
	ask(r, &p, 1, LT_32S, HIP_REG_RELAY_UDP_HIP, T0, &a);
	assert_failed(&a, REG_FAIL_TYPE_UNAVAIL, HIP_REG_RELAY_UDP_HIP);
	ask(r, &p, 1, LT_32S, 200, T0, &a);
	assert_failed(&a, REG_FAIL_TYPE_UNAVAIL, 200);
	ck_assert_uint_eq(reg_registrar_count(r), 0);
	ck_assert_uint_eq(reg_registrar_counters(r)->refused, 2);
	/* granted and refused in one answer */
	reg_registrar_request(r, &p, &c1, &two, 1, T0, &a);
	ck_assert((a.n_responses > 0));
	ck_assert_uint_eq(a.responses[0].n, 1);
	ck_assert_uint_eq(a.responses[0].type[0], HIP_REG_RENDEZVOUS);
	ck_assert_uint_eq(a.n_failed, 1);
	ck_assert_uint_eq(a.failed[0].value, REG_FAIL_TYPE_UNAVAIL);
	ck_assert_uint_eq(a.failed[0].type[0], HIP_REG_RELAY_UDP_HIP);
	ck_assert(has(r, 1, HIP_REG_RENDEZVOUS, T0));

	reg_registrar_free(r);

	/* the allow-list: client 2 only */
	ck_assert_int_eq(reg_registrar_create(&r), 0);
	snprintf(text, sizeof(text), "# who may\n%s\n", hip_hit_to_str(&c2, h, sizeof(h)));
	ck_assert_int_eq(reg_allow_parse(&allow, "allow", text, strlen(text), err, sizeof(err)),
			 0);
	p = mkpolicy();
	p.allow = allow;
	ask(r, &p, 1, LT_32S, HIP_REG_RENDEZVOUS, T0, &a);
	assert_failed(&a, REG_FAIL_CREDENTIALS, HIP_REG_RENDEZVOUS);
	ask(r, &p, 2, LT_32S, HIP_REG_RENDEZVOUS, T0, &a);
	assert_granted(&a, LT_32S, HIP_REG_RENDEZVOUS);
	/* a type not offered is type 1 even for a client not allowed */
	p.n_types = 1;
	ask(r, &p, 1, LT_32S, HIP_REG_RELAY_UDP_HIP, T0, &a);
	assert_failed(&a, REG_FAIL_TYPE_UNAVAIL, HIP_REG_RELAY_UDP_HIP);
	ck_assert_uint_eq(reg_registrar_count(r), 1);
	reg_registrar_free(r);
	reg_allow_free(allow);

	/* a full table: new clients get type 2, held ones may renew */
	ck_assert_int_eq(reg_registrar_create(&r), 0);
	p = mkpolicy();
	p.max_registrations = 2;
	ask(r, &p, 1, LT_32S, HIP_REG_RENDEZVOUS, T0, &a);
	ask(r, &p, 2, LT_32S, HIP_REG_RENDEZVOUS, T0, &a);
	assert_granted(&a, LT_32S, HIP_REG_RENDEZVOUS);
	ask(r, &p, 3, LT_32S, HIP_REG_RENDEZVOUS, T0, &a);
	assert_failed(&a, REG_FAIL_INSUFFICIENT, HIP_REG_RENDEZVOUS);
	ck_assert(!has(r, 3, HIP_REG_RENDEZVOUS, T0));
	ask(r, &p, 1, LT_32S, HIP_REG_CANDIDATE_DISCOVERY, T0, &a);
	assert_granted(&a, LT_32S, HIP_REG_CANDIDATE_DISCOVERY);
	ck_assert_uint_eq(reg_registrar_count(r), 2);
	/* room again once one has expired */
	ck_assert_uint_eq(reg_registrar_expire(r, T0 + 32 * SEC), 3);
	ck_assert_uint_eq(reg_registrar_count(r), 0);
	ask(r, &p, 3, LT_32S, HIP_REG_RENDEZVOUS, T0 + 32 * SEC, &a);
	assert_granted(&a, LT_32S, HIP_REG_RENDEZVOUS);
	reg_registrar_free(r);
}
END_TEST

/* More REG_REQUEST packets in one second than requests_per_s: type 2 and
 * counted as rate limited; the next second is fine again. */
START_TEST(test_flood)
{
	struct reg_policy p = mkpolicy();
	struct reg_registrar *r;
	struct reg_answer a;
	uint32_t i;

	p.requests_per_s = 3;
	ck_assert_int_eq(reg_registrar_create(&r), 0);
	for (i = 1; i <= 3; i++) {
		ask(r, &p, i, LT_32S, HIP_REG_RENDEZVOUS, T0 + i * (SEC / 10), &a);
		assert_granted(&a, LT_32S, HIP_REG_RENDEZVOUS);
	}
	ask(r, &p, 4, LT_32S, HIP_REG_RENDEZVOUS, T0 + SEC - 1, &a);
	assert_failed(&a, REG_FAIL_INSUFFICIENT, HIP_REG_RENDEZVOUS);
	ask(r, &p, 1, LT_32S, HIP_REG_RENDEZVOUS, T0 + SEC - 1, &a);   /* renewals too */
	assert_failed(&a, REG_FAIL_INSUFFICIENT, HIP_REG_RENDEZVOUS);
	ck_assert_uint_eq(reg_registrar_counters(r)->rate_limited, 2);
	ck_assert_uint_eq(reg_registrar_counters(r)->granted, 3);
	ck_assert(!has(r, 4, HIP_REG_RENDEZVOUS, T0 + SEC));
	ck_assert_uint_eq(reg_registrar_count(r), 3);
	ask(r, &p, 4, LT_32S, HIP_REG_RENDEZVOUS, T0 + SEC, &a);
	assert_granted(&a, LT_32S, HIP_REG_RENDEZVOUS);
	/* 0 = no limit */
	p.requests_per_s = 0;
	for (i = 10; i < 100; i++) {
		ask(r, &p, i, LT_32S, HIP_REG_RENDEZVOUS, T0 + SEC, &a);
		assert_granted(&a, LT_32S, HIP_REG_RENDEZVOUS);
	}
	reg_registrar_free(r);
}
END_TEST

/* §3.3: lifetime 0 cancels and is answered with a REG_RESPONSE of
 * lifetime 0; a renewal before expiry extends and counts as renewed. */
START_TEST(test_cancel_renew)
{
	struct reg_policy p = mkpolicy();
	struct reg_registrar *r;
	struct reg_answer a;
	struct hip_hit c1 = mkhit(1);
	struct hip_reg both = mkreg(LT_32S, HIP_REG_RENDEZVOUS, HIP_REG_CANDIDATE_DISCOVERY);

	ck_assert_int_eq(reg_registrar_create(&r), 0);
	reg_registrar_request(r, &p, &c1, &both, 1, T0, &a);
	ck_assert((a.n_responses > 0));
	ck_assert_uint_eq(a.responses[0].n, 2);
	ck_assert_uint_eq(reg_registrar_counters(r)->granted, 2);
	/* renew rendezvous at 20 s: now good until 52 s */
	ask(r, &p, 1, LT_32S, HIP_REG_RENDEZVOUS, T0 + 20 * SEC, &a);
	assert_granted(&a, LT_32S, HIP_REG_RENDEZVOUS);
	ck_assert_uint_eq(reg_registrar_counters(r)->renewed, 1);
	ck_assert_uint_eq(reg_registrar_counters(r)->granted, 2);
	ck_assert(has(r, 1, HIP_REG_RENDEZVOUS, T0 + 52 * SEC - 1));
	/* after expiry a new grant is a grant, not a renewal */
	ask(r, &p, 1, LT_32S, HIP_REG_CANDIDATE_DISCOVERY, T0 + 40 * SEC, &a);
	ck_assert_uint_eq(reg_registrar_counters(r)->renewed, 1);
	ck_assert_uint_eq(reg_registrar_counters(r)->granted, 3);
	/* cancel one type: the other stays */
	ask(r, &p, 1, HIP_REG_LIFETIME_CANCEL, HIP_REG_RENDEZVOUS, T0 + 41 * SEC, &a);
	assert_granted(&a, HIP_REG_LIFETIME_CANCEL, HIP_REG_RENDEZVOUS);
	ck_assert_uint_eq(reg_registrar_counters(r)->cancelled, 1);
	ck_assert(!has(r, 1, HIP_REG_RENDEZVOUS, T0 + 41 * SEC));
	ck_assert(has(r, 1, HIP_REG_CANDIDATE_DISCOVERY, T0 + 41 * SEC));
	ck_assert_uint_eq(reg_registrar_count(r), 1);
	/* cancel the last: the client is gone */
	ask(r, &p, 1, HIP_REG_LIFETIME_CANCEL, HIP_REG_CANDIDATE_DISCOVERY, T0 + 41 * SEC, &a);
	assert_granted(&a, HIP_REG_LIFETIME_CANCEL, HIP_REG_CANDIDATE_DISCOVERY);
	ck_assert_uint_eq(reg_registrar_count(r), 0);
	ck_assert_uint_eq(reg_registrar_counters(r)->cancelled, 2);
	/* cancelling what is not held: answered alike, nothing is created,
	 * not even for a type we do not offer or a client not allowed */
	ask(r, &p, 5, HIP_REG_LIFETIME_CANCEL, HIP_REG_RENDEZVOUS, T0 + 41 * SEC, &a);
	assert_granted(&a, HIP_REG_LIFETIME_CANCEL, HIP_REG_RENDEZVOUS);
	ask(r, &p, 5, HIP_REG_LIFETIME_CANCEL, 77, T0 + 41 * SEC, &a);
	assert_granted(&a, HIP_REG_LIFETIME_CANCEL, 77);
	ck_assert_uint_eq(reg_registrar_count(r), 0);
	ck_assert_uint_eq(reg_registrar_counters(r)->cancelled, 2);
	reg_registrar_free(r);
}
END_TEST

static int count_cb(const struct hip_hit *client, const uint64_t *expiry_ns, void *arg)
{
	size_t *n = arg;

	ck_assert(hip_hit_is_orchid(client));
	ck_assert(expiry_ns[HIP_REG_RENDEZVOUS] || expiry_ns[HIP_REG_CANDIDATE_DISCOVERY]);
	(*n)++;
	return 0;
}

START_TEST(test_expire)
{
	struct reg_policy p = mkpolicy();
	struct reg_registrar *r;
	struct reg_answer a;
	size_t n = 0;

	ck_assert_int_eq(reg_registrar_create(&r), 0);
	ask(r, &p, 1, LT_16S, HIP_REG_RENDEZVOUS, T0, &a);
	ask(r, &p, 2, LT_32S, HIP_REG_RENDEZVOUS, T0, &a);
	ask(r, &p, 2, LT_64S, HIP_REG_CANDIDATE_DISCOVERY, T0, &a);
	assert_granted(&a, LT_64S, HIP_REG_CANDIDATE_DISCOVERY);
	ask(r, &p, 3, LT_128S, HIP_REG_RENDEZVOUS, T0, &a);
	reg_registrar_foreach(r, count_cb, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(reg_registrar_expire(r, T0 + 16 * SEC - 1), 0);
	ck_assert_uint_eq(reg_registrar_count(r), 3);
	ck_assert_uint_eq(reg_registrar_expire(r, T0 + 16 * SEC), 1);
	ck_assert_uint_eq(reg_registrar_count(r), 2);
	ck_assert_uint_eq(reg_registrar_expire(r, T0 + 32 * SEC), 1);
	ck_assert_uint_eq(reg_registrar_count(r), 2);   /* client 2 keeps the other */
	ck_assert(has(r, 2, HIP_REG_CANDIDATE_DISCOVERY, T0 + 32 * SEC));
	ck_assert_uint_eq(reg_registrar_expire(r, T0 + 200 * SEC), 2);
	ck_assert_uint_eq(reg_registrar_count(r), 0);
	ck_assert_uint_eq(reg_registrar_counters(r)->expired, 4);
	ck_assert_uint_eq(reg_registrar_expire(r, T0 + 300 * SEC), 0);
	reg_registrar_free(r);
}
END_TEST

/* A server with 100,000 clients: all held, all found, at most 1 KiB each. */
START_TEST(test_many_clients)
{
	enum { N = 100000 };
	struct reg_policy p = mkpolicy();
	struct reg_registrar *r;
	struct reg_answer a;
	uint32_t i;

	p.max_registrations = N;
	ck_assert_int_eq(reg_registrar_create(&r), 0);
	for (i = 0; i < N; i++) {
		ask(r, &p, i, LT_64S, HIP_REG_RENDEZVOUS, T0, &a);
		ck_assert((a.n_responses > 0) && a.n_failed == 0);
	}
	ck_assert_uint_eq(reg_registrar_count(r), N);
	ck_assert_uint_le(reg_registrar_bytes(r) / N, 1024);
	for (i = 0; i < N; i++)
		ck_assert(has(r, i, HIP_REG_RENDEZVOUS, T0 + 64 * SEC - 1));
	ck_assert(!has(r, N, HIP_REG_RENDEZVOUS, T0));
	ask(r, &p, N, LT_64S, HIP_REG_RENDEZVOUS, T0, &a);
	assert_failed(&a, REG_FAIL_INSUFFICIENT, HIP_REG_RENDEZVOUS);
	/* half cancelled, the rest expires */
	for (i = 0; i < N; i += 2)
		ask(r, &p, i, HIP_REG_LIFETIME_CANCEL, HIP_REG_RENDEZVOUS, T0 + SEC, &a);
	ck_assert_uint_eq(reg_registrar_count(r), N / 2);
	ck_assert(!has(r, 0, HIP_REG_RENDEZVOUS, T0 + SEC));
	ck_assert(has(r, 1, HIP_REG_RENDEZVOUS, T0 + SEC));
	ck_assert_uint_eq(reg_registrar_expire(r, T0 + 64 * SEC), N / 2);
	ck_assert_uint_eq(reg_registrar_count(r), 0);
	reg_registrar_free(r);
}
END_TEST

/* The registrar processes several REG_REQUESTs of one packet (§3.2). */
START_TEST(test_several_requests)
{
	struct reg_policy p = mkpolicy();
	struct reg_registrar *r;
	struct reg_answer a;
	struct hip_hit c1 = mkhit(1);
	struct hip_reg q[3];
	struct reg_allow *allow;
	char err[128];
	unsigned i;

	p.n_types = 1;
	ck_assert_int_eq(reg_registrar_create(&r), 0);
	q[0] = mkreg(LT_32S, HIP_REG_RENDEZVOUS, 0);
	q[1] = mkreg(LT_32S, HIP_REG_RELAY_UDP_HIP, 7);
	q[2] = mkreg(LT_32S, HIP_REG_RENDEZVOUS, 9);
	reg_registrar_request(r, &p, &c1, q, 3, T0, &a);
	/* one REG_RESPONSE, rendezvous once; one REG_FAILED type 1 with 2, 7, 9 */
	ck_assert((a.n_responses > 0));
	ck_assert_uint_eq(a.responses[0].value, LT_32S);
	ck_assert_uint_eq(a.responses[0].n, 1);
	ck_assert_uint_eq(a.responses[0].type[0], HIP_REG_RENDEZVOUS);
	ck_assert_uint_eq(a.n_failed, 1);
	ck_assert_uint_eq(a.failed[0].value, REG_FAIL_TYPE_UNAVAIL);
	ck_assert_uint_eq(a.failed[0].n, 3);
	ck_assert_uint_eq(a.failed[0].type[0], HIP_REG_RELAY_UDP_HIP);
	ck_assert_uint_eq(a.failed[0].type[1], 7);
	ck_assert_uint_eq(a.failed[0].type[2], 9);
	ck_assert(has(r, 1, HIP_REG_RENDEZVOUS, T0 + 32 * SEC - 1));
	ck_assert_uint_eq(reg_registrar_counters(r)->granted, 1);
	/* a client not allowed: the offered type fails with 0, the others 1 */
	reg_registrar_free(r);
	ck_assert_int_eq(reg_registrar_create(&r), 0);
	ck_assert_int_eq(reg_allow_parse(&allow, "a", "", 0, err, sizeof(err)), 0);
	p.allow = allow;
	reg_registrar_request(r, &p, &c1, q, 3, T0, &a);
	ck_assert(!(a.n_responses > 0));
	ck_assert_uint_eq(a.n_failed, 2);
	for (i = 0; i < 2; i++) {
		if (a.failed[i].value == REG_FAIL_CREDENTIALS) {
			ck_assert_uint_eq(a.failed[i].n, 1);
			ck_assert_uint_eq(a.failed[i].type[0], HIP_REG_RENDEZVOUS);
		} else {
			ck_assert_uint_eq(a.failed[i].value, REG_FAIL_TYPE_UNAVAIL);
			ck_assert_uint_eq(a.failed[i].n, 3);
		}
	}
	ck_assert_uint_eq(reg_registrar_count(r), 0);
	reg_allow_free(allow);
	reg_registrar_free(r);
}
END_TEST

/* What a REG_RESPONSE says is granted for how long must be what the
 * registrar holds, also when one packet's REG_REQUESTs differ. */
START_TEST(test_several_requests_lifetimes)
{
	struct reg_policy p = mkpolicy();
	struct reg_registrar *r;
	struct reg_answer a;
	struct hip_hit c1 = mkhit(1);
	struct hip_reg q[2];
	unsigned i, k, n = 0;

	ck_assert_int_eq(reg_registrar_create(&r), 0);
	q[0] = mkreg(LT_16S, HIP_REG_RENDEZVOUS, 0);
	q[1] = mkreg(LT_128S, HIP_REG_CANDIDATE_DISCOVERY, 0);
	reg_registrar_request(r, &p, &c1, q, 2, T0, &a);
	/* one REG_RESPONSE per lifetime: each type held as long as answered */
	ck_assert_uint_eq(a.n_responses, 2);
	for (k = 0; k < a.n_responses; k++) {
		uint64_t life = (uint64_t)(hip_reg_lifetime_seconds(a.responses[k].value) * SEC);

		for (i = 0; i < a.responses[k].n; i++, n++) {
			ck_assert_msg(has(r, 1, a.responses[k].type[i], T0 + life - 1),
				      "type %u answered with lifetime code %u but not held that long",
				      a.responses[k].type[i], a.responses[k].value);
			ck_assert_msg(!has(r, 1, a.responses[k].type[i], T0 + life + SEC),
				      "type %u held longer than answered", a.responses[k].type[i]);
		}
	}
	ck_assert_uint_eq(n, 2);
	/* a grant and a cancel in one packet: two answers, each true; the
	 * relay in place of the rendezvous cancelled with it (no type 9) */
	q[0] = mkreg(LT_32S, HIP_REG_RELAY_UDP_HIP, 0);
	q[1] = mkreg(HIP_REG_LIFETIME_CANCEL, HIP_REG_RENDEZVOUS, 0);
	reg_registrar_request(r, &p, &c1, q, 2, T0 + SEC, &a);
	ck_assert_uint_eq(a.n_responses, 2);
	for (k = 0; k < a.n_responses; k++) {
		ck_assert_uint_eq(a.responses[k].n, 1);
		if (a.responses[k].value == HIP_REG_LIFETIME_CANCEL) {
			ck_assert_uint_eq(a.responses[k].type[0], HIP_REG_RENDEZVOUS);
			ck_assert(!has(r, 1, HIP_REG_RENDEZVOUS, T0 + SEC));
		} else {
			ck_assert_uint_eq(a.responses[k].type[0], HIP_REG_RELAY_UDP_HIP);
			ck_assert(has(r, 1, HIP_REG_RELAY_UDP_HIP, T0 + 2 * SEC));
		}
	}
	ck_assert_uint_eq(a.n_failed, 0);
	reg_registrar_free(r);
}
END_TEST

/* The answer grants the relay and refuses rendezvous with type 9, and the
 * registrar holds exactly that for client n. */
static void assert_relay_not_rvs(struct reg_registrar *r, const struct reg_answer *a, uint32_t n,
				 uint64_t now)
{
	ck_assert_uint_eq(a->n_responses, 1);
	ck_assert_uint_eq(a->responses[0].n, 1);
	ck_assert_uint_eq(a->responses[0].type[0], HIP_REG_RELAY_UDP_HIP);
	ck_assert_uint_eq(a->n_failed, 1);
	ck_assert_uint_eq(a->failed[0].value, REG_FAIL_SIMULTANEOUS);
	ck_assert_uint_eq(a->failed[0].n, 1);
	ck_assert_uint_eq(a->failed[0].type[0], HIP_REG_RENDEZVOUS);
	ck_assert(has(r, n, HIP_REG_RELAY_UDP_HIP, now));
	ck_assert(!has(r, n, HIP_REG_RENDEZVOUS, now));
}

/* RFC 9028 failure type 9 (docs/decisions.md D-8): a client never holds
 * rendezvous and relay together. Asked at once, in one REG_REQUEST or two
 * in either order, the relay is granted; what a client holds is kept and
 * the other refused, also on renewal; cancelling one in the same packet
 * makes room for the other; candidate discovery goes with either. */
START_TEST(test_simultaneous)
{
	struct reg_policy p = mkpolicy();
	struct reg_registrar *r;
	struct reg_answer a;
	struct hip_hit c1 = mkhit(1), c2 = mkhit(2), c3 = mkhit(3), c5 = mkhit(5), c6 = mkhit(6);
	struct hip_reg both = mkreg(LT_32S, HIP_REG_RENDEZVOUS, HIP_REG_RELAY_UDP_HIP);
	struct hip_reg q[2];

	ck_assert_str_eq(reg_failure_name(REG_FAIL_SIMULTANEOUS),
			 "simultaneous rendezvous and relay prohibited");
	ck_assert_int_eq(reg_registrar_create(&r), 0);
	/* one REG_REQUEST naming both */
	reg_registrar_request(r, &p, &c1, &both, 1, T0, &a);
	assert_relay_not_rvs(r, &a, 1, T0);
	/* two REG_REQUESTs, either order */
	q[0] = mkreg(LT_32S, HIP_REG_RENDEZVOUS, 0);
	q[1] = mkreg(LT_64S, HIP_REG_RELAY_UDP_HIP, 0);
	reg_registrar_request(r, &p, &c2, q, 2, T0, &a);
	assert_relay_not_rvs(r, &a, 2, T0);
	q[0] = mkreg(LT_64S, HIP_REG_RELAY_UDP_HIP, 0);
	q[1] = mkreg(LT_32S, HIP_REG_RENDEZVOUS, 0);
	reg_registrar_request(r, &p, &c6, q, 2, T0, &a);
	assert_relay_not_rvs(r, &a, 6, T0);
	ck_assert_uint_eq(reg_registrar_counters(r)->granted, 3);
	ck_assert_uint_eq(reg_registrar_counters(r)->refused, 3);
	ck_assert_uint_eq(reg_registrar_counters(r)->simultaneous, 3);

	/* a rendezvous client keeps it: the relay is refused, alone or with
	 * a rendezvous renewal */
	ask(r, &p, 3, LT_32S, HIP_REG_RENDEZVOUS, T0, &a);
	assert_granted(&a, LT_32S, HIP_REG_RENDEZVOUS);
	ask(r, &p, 3, LT_32S, HIP_REG_RELAY_UDP_HIP, T0 + SEC, &a);
	assert_failed(&a, REG_FAIL_SIMULTANEOUS, HIP_REG_RELAY_UDP_HIP);
	both = mkreg(LT_32S, HIP_REG_RELAY_UDP_HIP, HIP_REG_RENDEZVOUS);
	reg_registrar_request(r, &p, &c3, &both, 1, T0 + 2 * SEC, &a);
	ck_assert_uint_eq(a.n_responses, 1);
	ck_assert_uint_eq(a.responses[0].type[0], HIP_REG_RENDEZVOUS);
	ck_assert_uint_eq(a.failed[0].value, REG_FAIL_SIMULTANEOUS);
	ck_assert_uint_eq(a.failed[0].type[0], HIP_REG_RELAY_UDP_HIP);
	ck_assert(has(r, 3, HIP_REG_RENDEZVOUS, T0 + 34 * SEC - 1));   /* renewed */
	ck_assert(!has(r, 3, HIP_REG_RELAY_UDP_HIP, T0 + 2 * SEC));
	/* a relay client: rendezvous refused */
	ask(r, &p, 1, LT_32S, HIP_REG_RENDEZVOUS, T0 + 3 * SEC, &a);
	assert_failed(&a, REG_FAIL_SIMULTANEOUS, HIP_REG_RENDEZVOUS);
	ck_assert(has(r, 1, HIP_REG_RELAY_UDP_HIP, T0 + 3 * SEC));
	ck_assert_uint_eq(reg_registrar_counters(r)->simultaneous, 6);

	/* cancelling the held one in the same packet: the other is granted,
	 * whichever comes first */
	q[0] = mkreg(HIP_REG_LIFETIME_CANCEL, HIP_REG_RELAY_UDP_HIP, 0);
	q[1] = mkreg(LT_32S, HIP_REG_RENDEZVOUS, 0);
	reg_registrar_request(r, &p, &c1, q, 2, T0 + 4 * SEC, &a);
	ck_assert_uint_eq(a.n_failed, 0);
	ck_assert_uint_eq(a.n_responses, 2);
	ck_assert(has(r, 1, HIP_REG_RENDEZVOUS, T0 + 4 * SEC));
	ck_assert(!has(r, 1, HIP_REG_RELAY_UDP_HIP, T0 + 4 * SEC));
	ck_assert_uint_eq(reg_registrar_counters(r)->simultaneous, 6);

	/* after the held one expired, the other is granted */
	ck_assert(!has(r, 3, HIP_REG_RENDEZVOUS, T0 + 34 * SEC));
	ask(r, &p, 3, LT_32S, HIP_REG_RELAY_UDP_HIP, T0 + 34 * SEC, &a);
	assert_granted(&a, LT_32S, HIP_REG_RELAY_UDP_HIP);

	/* candidate discovery goes with either */
	q[0] = mkreg(LT_32S, HIP_REG_RENDEZVOUS, HIP_REG_CANDIDATE_DISCOVERY);
	reg_registrar_request(r, &p, &c5, q, 1, T0, &a);
	ck_assert_uint_eq(a.n_failed, 0);
	ck_assert_uint_eq(a.responses[0].n, 2);
	q[0] = mkreg(LT_32S, HIP_REG_RELAY_UDP_HIP, HIP_REG_CANDIDATE_DISCOVERY);
	reg_registrar_request(r, &p, &c6, q, 1, T0, &a);
	ck_assert_uint_eq(a.n_failed, 0);
	ck_assert_uint_eq(a.responses[0].n, 2);
	reg_registrar_free(r);

	/* a registrar that offers rendezvous without the relay: type 1 for
	 * the relay, rendezvous granted, no type 9 */
	ck_assert_int_eq(reg_registrar_create(&r), 0);
	p.types[1] = HIP_REG_CANDIDATE_DISCOVERY;
	p.n_types = 2;
	both = mkreg(LT_32S, HIP_REG_RENDEZVOUS, HIP_REG_RELAY_UDP_HIP);
	reg_registrar_request(r, &p, &c1, &both, 1, T0, &a);
	ck_assert_uint_eq(a.n_responses, 1);
	ck_assert_uint_eq(a.responses[0].type[0], HIP_REG_RENDEZVOUS);
	ck_assert_uint_eq(a.n_failed, 1);
	ck_assert_uint_eq(a.failed[0].value, REG_FAIL_TYPE_UNAVAIL);
	ck_assert_uint_eq(reg_registrar_counters(r)->simultaneous, 0);
	ck_assert(has(r, 1, HIP_REG_RENDEZVOUS, T0));
	reg_registrar_free(r);
}
END_TEST

/* ---- reg_client.c ------------------------------------------------------ */

static struct hip_addr mkaddr(const char *s)
{
	struct hip_addr a;

	ck_assert_int_eq(hip_addr_from_str(s, &a), 0);
	return a;
}

static const uint8_t rvs_only[] = { HIP_REG_RENDEZVOUS };
static const uint8_t rvs_relay[] = { HIP_REG_RENDEZVOUS, HIP_REG_RELAY_UDP_HIP };

START_TEST(test_client_table)
{
	struct reg_client *c;
	struct reg_srv *s, *s2;
	struct hip_addr a;
	struct hip_hit h;
	const uint8_t dup[] = { 2, 1, 2, 1 };
	char txt[32];
	uint32_t i;

	ck_assert_int_eq(reg_client_create(&c), 0);
	for (i = 0; i < REG_SERVERS_MAX; i++) {
		h = mkhit(100 + i);
		snprintf(txt, sizeof(txt), "192.0.2.%u", 10 + i);
		a = mkaddr(txt);
		ck_assert_int_eq(reg_client_add(c, &h, &a, rvs_only, 1, i == 0, &s), 0);
		ck_assert_int_eq(s->state, REG_SRV_WAITING);
		ck_assert_uint_eq(s->n_want, 1);
	}
	ck_assert_uint_eq(reg_client_count(c), REG_SERVERS_MAX);
	h = mkhit(99);
	ck_assert_int_eq(reg_client_add(c, &h, &a, rvs_only, 1, false, NULL), -ENOSPC);
	ck_assert_ptr_null(reg_client_find(c, &h));
	ck_assert_uint_eq(reg_client_count(c), REG_SERVERS_MAX);
	/* no types: refused */
	h = mkhit(100);
	ck_assert_int_eq(reg_client_add(c, &h, &a, rvs_only, 0, false, NULL), -EINVAL);

	h = mkhit(103);
	s = reg_client_find(c, &h);
	ck_assert_ptr_nonnull(s);
	ck_assert_mem_eq(s->hit.b, h.b, sizeof(h.b));
	a = mkaddr("192.0.2.13");
	ck_assert_ptr_eq(reg_client_find_addr(c, &a), s);
	a = mkaddr("192.0.2.99");
	ck_assert_ptr_null(reg_client_find_addr(c, &a));
	ck_assert_ptr_eq(reg_client_at(c, 3), s);
	ck_assert_ptr_null(reg_client_at(c, REG_SERVERS_MAX));

	/* re-adding changes address and types, keeps the one entry */
	a = mkaddr("2001:db8::13");
	ck_assert_int_eq(reg_client_add(c, &h, &a, dup, 4, false, &s2), 0);
	ck_assert_ptr_eq(s2, s);
	ck_assert_uint_eq(reg_client_count(c), REG_SERVERS_MAX);
	ck_assert_uint_eq(s->n_want, 2);
	ck_assert_uint_eq(s->want[0], 2);
	ck_assert_uint_eq(s->want[1], 1);
	ck_assert_ptr_eq(reg_client_find_addr(c, &a), s);
	a = mkaddr("192.0.2.13");
	ck_assert_ptr_null(reg_client_find_addr(c, &a));
	/* from_conf sticks */
	h = mkhit(100);
	ck_assert_int_eq(reg_client_add(c, &h, &a, rvs_only, 1, false, &s2), 0);
	ck_assert(s2->from_conf);

	/* remove one: the others stay findable */
	h = mkhit(103);
	reg_client_remove(c, reg_client_find(c, &h));
	ck_assert_uint_eq(reg_client_count(c), REG_SERVERS_MAX - 1);
	ck_assert_ptr_null(reg_client_find(c, &h));
	for (i = 0; i < REG_SERVERS_MAX; i++) {
		h = mkhit(100 + i);
		if (i != 3)
			ck_assert_ptr_nonnull(reg_client_find(c, &h));
	}
	reg_client_free(c);
}
END_TEST

static struct hip_reg_info mkinfo(uint8_t min, uint8_t max, uint8_t t1, uint8_t t2)
{
	struct hip_reg_info in;

	memset(&in, 0, sizeof(in));
	in.min_lifetime = min;
	in.max_lifetime = max;
	if (t1)
		in.type[in.n++] = t1;
	if (t2)
		in.type[in.n++] = t2;
	return in;
}

/* §3.2: only types the server's REG_INFO lists, within its lifetimes. */
START_TEST(test_client_request)
{
	struct reg_client *c;
	struct reg_srv *s;
	struct hip_hit h = mkhit(200);
	struct hip_addr a = mkaddr("192.0.2.1");
	struct hip_reg_info info;
	struct hip_reg q, resp;

	ck_assert_int_eq(reg_client_create(&c), 0);
	ck_assert_int_eq(reg_client_add(c, &h, &a, rvs_relay, 2, true, &s), 0);
	ck_assert(!reg_srv_request(s, LT_32S, &q));   /* no REG_INFO yet */
	info = mkinfo(LT_16S, LT_64S, HIP_REG_RENDEZVOUS, 0);
	reg_srv_info(s, &info);
	ck_assert(reg_srv_request(s, LT_32S, &q));
	ck_assert_uint_eq(q.value, LT_32S);
	ck_assert_uint_eq(q.n, 1);
	ck_assert_uint_eq(q.type[0], HIP_REG_RENDEZVOUS);
	ck_assert(reg_srv_request(s, LT_1S, &q));
	ck_assert_uint_eq(q.value, LT_16S);
	ck_assert(reg_srv_request(s, 255, &q));
	ck_assert_uint_eq(q.value, LT_64S);
	/* the server offers both: both */
	info = mkinfo(LT_16S, LT_64S, HIP_REG_RELAY_UDP_HIP, HIP_REG_RENDEZVOUS);
	reg_srv_info(s, &info);
	ck_assert(reg_srv_request(s, LT_32S, &q));
	ck_assert_uint_eq(q.n, 2);
	/* it offers only what we do not want, or nothing */
	info = mkinfo(LT_16S, LT_64S, 3, 4);
	reg_srv_info(s, &info);
	ck_assert(!reg_srv_request(s, LT_32S, &q));
	info = mkinfo(0, 0, 0, 0);
	reg_srv_info(s, &info);
	ck_assert(!reg_srv_request(s, LT_32S, &q));

	/* cancelling: lifetime 0 for what was granted, whatever REG_INFO says */
	info = mkinfo(LT_16S, LT_64S, HIP_REG_RENDEZVOUS, HIP_REG_RELAY_UDP_HIP);
	reg_srv_info(s, &info);
	resp = mkreg(LT_32S, HIP_REG_RENDEZVOUS, 0);
	reg_srv_response(s, &resp, T0);
	s->state = REG_SRV_CANCELLING;
	ck_assert(reg_srv_request(s, LT_32S, &q));
	ck_assert_uint_eq(q.value, HIP_REG_LIFETIME_CANCEL);
	ck_assert_uint_eq(q.n, 1);
	ck_assert_uint_eq(q.type[0], HIP_REG_RENDEZVOUS);
	/* the server confirms: nothing left to cancel */
	resp = mkreg(HIP_REG_LIFETIME_CANCEL, HIP_REG_RENDEZVOUS, 0);
	reg_srv_response(s, &resp, T0 + SEC);
	ck_assert_uint_eq(s->n_granted, 0);
	ck_assert_uint_eq(s->expiry_ns, 0);
	ck_assert(!reg_srv_request(s, LT_32S, &q));
	/* re-adding a cancelled server wants it again */
	ck_assert_int_eq(reg_client_add(c, &h, &a, rvs_only, 1, false, &s), 0);
	ck_assert_int_eq(s->state, REG_SRV_WAITING);
	ck_assert(reg_srv_request(s, LT_32S, &q));
	ck_assert_uint_eq(q.value, LT_32S);
	reg_client_free(c);
}
END_TEST

START_TEST(test_client_response)
{
	struct reg_client *c;
	struct reg_srv *s;
	struct hip_hit h = mkhit(200);
	struct hip_addr a = mkaddr("192.0.2.1");
	struct hip_reg resp, f;

	ck_assert_int_eq(reg_client_create(&c), 0);
	ck_assert_int_eq(reg_client_add(c, &h, &a, rvs_relay, 2, true, &s), 0);
	/* any lifetime is accepted (§3.2): 16 s, renew at 80% */
	resp = mkreg(LT_16S, HIP_REG_RENDEZVOUS, HIP_REG_RELAY_UDP_HIP);
	reg_srv_response(s, &resp, T0);
	ck_assert_int_eq(s->state, REG_SRV_REGISTERED);
	ck_assert_uint_eq(s->lifetime, LT_16S);
	ck_assert_uint_eq(s->n_granted, 2);
	ck_assert_uint_eq(s->expiry_ns, T0 + 16 * SEC);
	ck_assert_uint_eq(s->renew_ns, T0 + 16 * SEC * REG_RENEW_PERCENT / 100);
	ck_assert_uint_eq(s->registrations, 1);
	ck_assert_uint_eq(s->renewals, 0);
	resp = mkreg(LT_128S, HIP_REG_RENDEZVOUS, 0);
	reg_srv_response(s, &resp, T0 + 12 * SEC);
	ck_assert_uint_eq(s->renewals, 1);
	ck_assert_uint_eq(s->expiry_ns, T0 + 140 * SEC);
	ck_assert_uint_eq(s->renew_ns, T0 + 12 * SEC + 128 * SEC * REG_RENEW_PERCENT / 100);
	/* one type refused on renewal: still registered for the other */
	f = mkreg(REG_FAIL_TYPE_UNAVAIL, HIP_REG_RELAY_UDP_HIP, 0);
	reg_srv_failed(s, &f, T0 + 13 * SEC);
	ck_assert_int_eq(s->state, REG_SRV_REGISTERED);
	ck_assert_uint_eq(s->n_granted, 1);
	ck_assert_uint_eq(s->granted[0], HIP_REG_RENDEZVOUS);
	ck_assert_uint_eq(s->n_failed, 1);
	ck_assert_uint_eq(s->failed[0], HIP_REG_RELAY_UDP_HIP);
	ck_assert_uint_eq(s->failure[0], REG_FAIL_TYPE_UNAVAIL);
	/* granted later: the failure is forgotten */
	resp = mkreg(LT_32S, HIP_REG_RELAY_UDP_HIP, 0);
	reg_srv_response(s, &resp, T0 + 14 * SEC);
	ck_assert_uint_eq(s->n_failed, 0);
	ck_assert_uint_eq(s->n_granted, 2);
	/* the server cancels everything: back to waiting */
	resp = mkreg(HIP_REG_LIFETIME_CANCEL, HIP_REG_RENDEZVOUS, HIP_REG_RELAY_UDP_HIP);
	reg_srv_response(s, &resp, T0 + 15 * SEC);
	ck_assert_int_eq(s->state, REG_SRV_WAITING);
	ck_assert_uint_eq(s->n_granted, 0);
	ck_assert_uint_eq(s->expiry_ns, 0);
	ck_assert_uint_eq(s->renew_ns, 0);
	reg_client_free(c);
}
END_TEST

/* Refused: REFUSED with the failure kept, retried after 5 s doubling to
 * 300 s; type 2 (insufficient resources) never sooner than 60 s. */
START_TEST(test_client_failed)
{
	static const unsigned backoff[] = { 5, 10, 20, 40, 80, 160, 300, 300, 300 };
	struct reg_client *c;
	struct reg_srv *s;
	struct hip_hit h = mkhit(200);
	struct hip_addr a = mkaddr("192.0.2.1");
	struct hip_reg resp, f;
	unsigned i;

	ck_assert_int_eq(reg_client_create(&c), 0);
	ck_assert_int_eq(reg_client_add(c, &h, &a, rvs_only, 1, true, &s), 0);
	for (i = 0; i < sizeof(backoff) / sizeof(backoff[0]); i++) {
		uint64_t now = T0 + i * 1000 * SEC;

		f = mkreg(REG_FAIL_CREDENTIALS, HIP_REG_RENDEZVOUS, 0);
		reg_srv_failed(s, &f, now);
		ck_assert_int_eq(s->state, REG_SRV_REFUSED);
		ck_assert_uint_eq(s->n_failed, 1);
		ck_assert_uint_eq(s->failure[0], REG_FAIL_CREDENTIALS);
		ck_assert_msg(s->next_try_ns == now + backoff[i] * SEC,
			      "attempt %u: retry after %llu s, expected %u", i,
			      (unsigned long long)((s->next_try_ns - now) / SEC), backoff[i]);
	}
	ck_assert_uint_eq(s->refusals, i);
	/* success resets the back-off */
	resp = mkreg(LT_16S, HIP_REG_RENDEZVOUS, 0);
	reg_srv_response(s, &resp, T0);
	ck_assert_uint_eq(s->n_failed, 0);
	ck_assert_uint_eq(s->attempts, 0);
	ck_assert_uint_eq(s->next_try_ns, 0);
	/* type 2 at the first failure: 60 s, not 5 */
	f = mkreg(REG_FAIL_INSUFFICIENT, HIP_REG_RENDEZVOUS, 0);
	reg_srv_failed(s, &f, T0 + SEC);
	ck_assert_int_eq(s->state, REG_SRV_REFUSED);
	ck_assert_uint_eq(s->expiry_ns, 0);
	ck_assert_uint_eq(s->failure[0], REG_FAIL_INSUFFICIENT);
	ck_assert_uint_ge(s->next_try_ns, T0 + SEC + REG_INSUFFICIENT_RETRY_S * SEC);
	/* ... and the back-off still grows beyond it */
	for (i = 0; i < 8; i++)
		reg_srv_failed(s, &f, T0 + 2 * SEC);
	ck_assert_uint_eq(s->next_try_ns, T0 + 2 * SEC + REG_RETRY_MAX_S * SEC);
	reg_client_free(c);
}
END_TEST

static Suite *reg_suite(void)
{
	Suite *s = suite_create("reg");
	TCase *tc = tcase_create("registrar");

	tcase_add_test(tc, test_policy_info);
	tcase_add_test(tc, test_grant_clamped);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_flood);
	tcase_add_test(tc, test_cancel_renew);
	tcase_add_test(tc, test_expire);
	tcase_add_test(tc, test_many_clients);
	tcase_add_test(tc, test_several_requests);
	tcase_add_test(tc, test_several_requests_lifetimes);
	tcase_add_test(tc, test_simultaneous);
	suite_add_tcase(s, tc);
	tc = tcase_create("client");
	tcase_add_test(tc, test_client_table);
	tcase_add_test(tc, test_client_request);
	tcase_add_test(tc, test_client_response);
	tcase_add_test(tc, test_client_failed);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(reg_suite)
