/*
 * registrar.c - the registrar's side of RFC 8003: the REG_INFO we offer
 * (§4.1), REG_REQUEST handling (§3.3: grant with a clamped lifetime,
 * refuse with REG_FAILED, cancel with lifetime 0; rendezvous and relay
 * never together, RFC 9028 failure type 9) and the table of
 * registrations, one small entry per client HIT in a SipHash table
 * (docs/decisions.md D-8: a registration is about 72 bytes, far below the
 * 1 KiB budget, so a server holds 100,000 clients in a few MiB).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "reg.h"

enum { RGR_BUCKETS_MIN = 64 };
#define RGR_NS_PER_S 1000000000ULL

struct rgr_entry {
	struct hip_hit client;
	uint64_t expiry_ns[REG_TYPE_SLOTS];   /* by type, 0 = not registered */
	struct rgr_entry *next;
};

struct reg_registrar {
	struct rgr_entry **bucket;
	size_t n_buckets, count;
	struct hip_siphash_key key;
	uint64_t second;                      /* flood bucket: this second ... */
	unsigned in_second;                   /* ... and the requests in it */
	struct reg_registrar_counters ctr;
};

static const char *const type_names[REG_TYPE_SLOTS] = {
	NULL, "rendezvous", "relay", "relay-esp", "candidate-discovery",
};

const char *reg_type_name(uint8_t type, char *buf, size_t len)
{
	if (type < REG_TYPE_SLOTS && type_names[type])
		return type_names[type];
	snprintf(buf, len, "type %u", type);
	return buf;
}

uint8_t reg_type_from_name(const char *name)
{
	uint8_t t;

	for (t = 1; t < REG_TYPE_SLOTS; t++)
		if (strcmp(name, type_names[t]) == 0)
			return t;
	return 0;
}

const char *reg_failure_name(uint8_t failure)
{
	switch (failure) {
	case REG_FAIL_CREDENTIALS:  return "not allowed (additional credentials required)";
	case REG_FAIL_TYPE_UNAVAIL: return "registration type unavailable";
	case REG_FAIL_INSUFFICIENT: return "insufficient resources";
	case REG_FAIL_SIMULTANEOUS: return "simultaneous rendezvous and relay prohibited";
	default:                    return failure >= 3 && failure <= 8 ? "certificate problem"
								      : "unknown failure";
	}
}

bool reg_policy_info(const struct reg_policy *p, struct hip_reg_info *out)
{
	unsigned i;

	memset(out, 0, sizeof(*out));
	if (p->n_types == 0)
		return false;
	out->min_lifetime = p->min_lifetime;
	out->max_lifetime = p->max_lifetime;
	for (i = 0; i < p->n_types && i < HIP_LIST_MAX; i++)
		out->type[out->n++] = p->types[i];
	return true;
}

int reg_registrar_create(struct reg_registrar **out)
{
	struct reg_registrar *r = calloc(1, sizeof(*r));
	int ret;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->bucket = calloc(RGR_BUCKETS_MIN, sizeof(*r->bucket));
	ret = r->bucket ? hip_siphash_key_random(&r->key) : -ENOMEM;
	if (ret < 0) {
		free(r->bucket);
		free(r);
		return ret;
	}
	r->n_buckets = RGR_BUCKETS_MIN;
	*out = r;
	return 0;
}

void reg_registrar_free(struct reg_registrar *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n_buckets; i++) {
		struct rgr_entry *e = r->bucket[i], *n;

		for (; e; e = n) {
			n = e->next;
			free(e);
		}
	}
	free(r->bucket);
	free(r);
}

static size_t rgr_index(const struct reg_registrar *r, const struct hip_hit *h, size_t n)
{
	return (size_t)(hip_siphash(&r->key, h->b, sizeof(h->b)) & (n - 1));
}

static struct rgr_entry **rgr_slot(struct reg_registrar *r, const struct hip_hit *client)
{
	struct rgr_entry **pp = &r->bucket[rgr_index(r, client, r->n_buckets)];

	while (*pp && memcmp((*pp)->client.b, client->b, sizeof(client->b)) != 0)
		pp = &(*pp)->next;
	return pp;
}

/* Double the table at load 1 (a failed resize keeps the old one). */
static void rgr_grow(struct reg_registrar *r)
{
	size_t n = r->n_buckets * 2, i;
	struct rgr_entry **b;

	if (r->count < r->n_buckets || n > SIZE_MAX / sizeof(*b))
		return;
	b = calloc(n, sizeof(*b));
	if (!b)
		return;
	for (i = 0; i < r->n_buckets; i++) {
		struct rgr_entry *e = r->bucket[i], *next;

		for (; e; e = next) {
			size_t j = rgr_index(r, &e->client, n);

			next = e->next;
			e->next = b[j];
			b[j] = e;
		}
	}
	free(r->bucket);
	r->bucket = b;
	r->n_buckets = n;
}

static bool rgr_empty(const struct rgr_entry *e)
{
	unsigned t;

	for (t = 0; t < REG_TYPE_SLOTS; t++)
		if (e->expiry_ns[t])
			return false;
	return true;
}

static void rgr_unlink(struct reg_registrar *r, struct rgr_entry **pp)
{
	struct rgr_entry *e = *pp;

	*pp = e->next;
	free(e);
	r->count--;
}

static bool offered(const struct reg_policy *p, uint8_t type)
{
	unsigned i;

	for (i = 0; i < p->n_types; i++)
		if (p->types[i] == type)
			return true;
	return false;
}

static void fail_add(struct reg_answer *ans, uint8_t failure, uint8_t type)
{
	struct hip_reg *f = NULL;
	unsigned i;

	for (i = 0; i < ans->n_failed; i++)
		if (ans->failed[i].value == failure)
			f = &ans->failed[i];
	if (!f) {
		if (ans->n_failed == sizeof(ans->failed) / sizeof(ans->failed[0]))
			return;
		f = &ans->failed[ans->n_failed++];
		f->value = failure;
	}
	for (i = 0; i < f->n; i++)
		if (f->type[i] == type)
			return;
	if (f->n < HIP_LIST_MAX)
		f->type[f->n++] = type;
}

static void resp_add(struct reg_answer *ans, uint8_t lifetime, uint8_t type)
{
	struct hip_reg *r = NULL;
	unsigned i, k;

	/* a type answered twice in one packet: the later request wins */
	for (k = 0; k < ans->n_responses; k++) {
		struct hip_reg *o = &ans->responses[k];

		for (i = 0; i < o->n; i++)
			if (o->type[i] == type)
				o->type[i--] = o->type[--o->n];
	}
	for (k = 0; k < ans->n_responses && !r; k++)
		if (ans->responses[k].value == lifetime)
			r = &ans->responses[k];
	if (!r) {
		if (ans->n_responses == sizeof(ans->responses) / sizeof(ans->responses[0]))
			return;
		r = &ans->responses[ans->n_responses++];
		r->value = lifetime;
	}
	if (r->n < HIP_LIST_MAX)
		r->type[r->n++] = type;
}

/* The types reqs ask for (lifetime > 0) and cancel, as bit masks; a type
 * named twice counts as its later request, as in resp_add. */
static void rgr_masks(const struct hip_reg *reqs, unsigned n_reqs, unsigned *ask,
		      unsigned *cancel)
{
	unsigned i, j, bit;

	*ask = *cancel = 0;
	for (i = 0; i < n_reqs; i++) {
		for (j = 0; j < reqs[i].n; j++) {
			if (reqs[i].type[j] >= REG_TYPE_SLOTS)
				continue;
			bit = 1u << reqs[i].type[j];
			if (reqs[i].value == HIP_REG_LIFETIME_CANCEL) {
				*cancel |= bit;
				*ask &= ~bit;
			} else {
				*ask |= bit;
				*cancel &= ~bit;
			}
		}
	}
}

/* RFC 9028 failure type 9: rendezvous and the control relay (both forward
 * I1s to the client) are never held together (docs/decisions.md D-8). What
 * the client holds, and does not cancel in this packet, stays; asked both
 * at once, the relay wins: it also relays I1s, and more. */
static bool rgr_simultaneous(const struct reg_policy *p, const struct rgr_entry *e,
			     unsigned ask, unsigned cancel, uint8_t t, uint64_t now_ns)
{
	uint8_t other;
	bool held_t, held_other;

	if (t != HIP_REG_RENDEZVOUS && t != HIP_REG_RELAY_UDP_HIP)
		return false;
	if (!offered(p, HIP_REG_RENDEZVOUS) || !offered(p, HIP_REG_RELAY_UDP_HIP))
		return false;
	other = t == HIP_REG_RENDEZVOUS ? HIP_REG_RELAY_UDP_HIP : HIP_REG_RENDEZVOUS;
	held_t = e && e->expiry_ns[t] > now_ns && !(cancel & (1u << t));
	held_other = e && e->expiry_ns[other] > now_ns && !(cancel & (1u << other));
	if (held_other)
		return !held_t;
	return !held_t && t == HIP_REG_RENDEZVOUS && (ask & (1u << HIP_REG_RELAY_UDP_HIP));
}

/* The flood guard: at most requests_per_s REG_REQUEST packets a second. */
static bool rgr_rate_ok(struct reg_registrar *r, const struct reg_policy *p, uint64_t now_ns)
{
	uint64_t s = now_ns / RGR_NS_PER_S;

	if (s != r->second) {
		r->second = s;
		r->in_second = 0;
	}
	return p->requests_per_s == 0 || ++r->in_second <= p->requests_per_s;
}

void reg_registrar_request(struct reg_registrar *r, const struct reg_policy *p,
			   const struct hip_hit *client, const struct hip_reg *reqs,
			   unsigned n_reqs, uint64_t now_ns, struct reg_answer *ans)
{
	struct rgr_entry **pp = rgr_slot(r, client), *e = *pp;
	bool allowed = !p->allow || reg_allow_has(p->allow, client);
	bool rate_ok = rgr_rate_ok(r, p, now_ns);
	unsigned i, j, ask, cancel;

	memset(ans, 0, sizeof(*ans));
	rgr_masks(reqs, n_reqs, &ask, &cancel);
	for (i = 0; i < n_reqs; i++) {
		const struct hip_reg *q = &reqs[i];
		uint8_t lt = q->value;

		if (lt != HIP_REG_LIFETIME_CANCEL && lt < p->min_lifetime)
			lt = p->min_lifetime;          /* §3.3: clamp */
		if (lt > p->max_lifetime)
			lt = p->max_lifetime;
		for (j = 0; j < q->n; j++) {
			uint8_t t = q->type[j];

			if (lt == HIP_REG_LIFETIME_CANCEL) {
				/* §3.3: cancelling what one does not hold is
				 * answered the same way */
				if (e && t < REG_TYPE_SLOTS && e->expiry_ns[t]) {
					e->expiry_ns[t] = 0;
					r->ctr.cancelled++;
				}
				resp_add(ans, HIP_REG_LIFETIME_CANCEL, t);
				continue;
			}
			if (!offered(p, t) || t >= REG_TYPE_SLOTS) {
				fail_add(ans, REG_FAIL_TYPE_UNAVAIL, t);
				r->ctr.refused++;
				continue;
			}
			if (!allowed) {
				fail_add(ans, REG_FAIL_CREDENTIALS, t);
				r->ctr.refused++;
				continue;
			}
			if (!rate_ok) {
				fail_add(ans, REG_FAIL_INSUFFICIENT, t);
				r->ctr.rate_limited++;
				continue;
			}
			if (rgr_simultaneous(p, e, ask, cancel, t, now_ns)) {
				fail_add(ans, REG_FAIL_SIMULTANEOUS, t);
				r->ctr.refused++;
				r->ctr.simultaneous++;
				continue;
			}
			if (!e) {
				if (r->count >= p->max_registrations ||
				    !(e = calloc(1, sizeof(*e)))) {
					fail_add(ans, REG_FAIL_INSUFFICIENT, t);
					r->ctr.refused++;
					continue;
				}
				e->client = *client;
				*pp = e;
				r->count++;
			}
			if (e->expiry_ns[t] > now_ns)
				r->ctr.renewed++;
			else
				r->ctr.granted++;
			e->expiry_ns[t] = now_ns +
				(uint64_t)(hip_reg_lifetime_seconds(lt) * (double)RGR_NS_PER_S);
			resp_add(ans, lt, t);
		}
	}
	/* a response emptied by a later request of the same type goes */
	for (i = 0; i < ans->n_responses; ) {
		if (ans->responses[i].n == 0)
			ans->responses[i] = ans->responses[--ans->n_responses];
		else
			i++;
	}
	if (e && rgr_empty(e))
		rgr_unlink(r, pp);
	else if (e)
		rgr_grow(r);
}

bool reg_registrar_has(struct reg_registrar *r, const struct hip_hit *client, uint8_t type,
		       uint64_t now_ns)
{
	struct rgr_entry **pp = rgr_slot(r, client), *e = *pp;

	if (!e || type >= REG_TYPE_SLOTS || !e->expiry_ns[type])
		return false;
	if (e->expiry_ns[type] > now_ns)
		return true;
	e->expiry_ns[type] = 0;
	r->ctr.expired++;
	if (rgr_empty(e))
		rgr_unlink(r, pp);
	return false;
}

void reg_registrar_revoke(struct reg_registrar *r, const struct hip_hit *client, uint8_t type)
{
	struct rgr_entry **pp = rgr_slot(r, client), *e = *pp;

	if (!e || type >= REG_TYPE_SLOTS || !e->expiry_ns[type])
		return;
	e->expiry_ns[type] = 0;
	if (r->ctr.granted)
		r->ctr.granted--;
	r->ctr.refused++;
	if (rgr_empty(e))
		rgr_unlink(r, pp);
}

size_t reg_registrar_expire(struct reg_registrar *r, uint64_t now_ns)
{
	size_t i, n = 0;
	unsigned t;

	for (i = 0; i < r->n_buckets; i++) {
		struct rgr_entry **pp = &r->bucket[i];

		while (*pp) {
			struct rgr_entry *e = *pp;

			for (t = 0; t < REG_TYPE_SLOTS; t++) {
				if (e->expiry_ns[t] && e->expiry_ns[t] <= now_ns) {
					e->expiry_ns[t] = 0;
					r->ctr.expired++;
					n++;
				}
			}
			if (rgr_empty(e))
				rgr_unlink(r, pp);
			else
				pp = &e->next;
		}
	}
	return n;
}

size_t reg_registrar_count(const struct reg_registrar *r)
{
	return r->count;
}

size_t reg_registrar_bytes(const struct reg_registrar *r)
{
	return r->count * sizeof(struct rgr_entry) + r->n_buckets * sizeof(*r->bucket);
}

const struct reg_registrar_counters *reg_registrar_counters(const struct reg_registrar *r)
{
	return &r->ctr;
}

void reg_registrar_foreach(struct reg_registrar *r,
			   int (*cb)(const struct hip_hit *client, const uint64_t *expiry_ns,
				     void *arg), void *arg)
{
	size_t i;

	for (i = 0; i < r->n_buckets; i++) {
		const struct rgr_entry *e;

		for (e = r->bucket[i]; e; e = e->next)
			if (cb(&e->client, e->expiry_ns, arg))
				return;
	}
}
