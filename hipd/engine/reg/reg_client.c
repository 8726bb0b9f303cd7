/*
 * reg_client.c - the requester's side of RFC 8003: the servers we
 * register with (hipd.conf `server`, hipconf add server), what each
 * offered in its last REG_INFO (§3.1), the REG_REQUEST we may send (§3.2:
 * only types the REG_INFO lists, one parameter per packet), and what came
 * back: REG_RESPONSE (granted lifetime, any lifetime accepted, §3.2) or
 * REG_FAILED (§4.5). Renewal is due at REG_RENEW_PERCENT of the granted
 * lifetime; failures back off (type 2 never at once, §3.3). A server
 * known by its address only (D-16) has a zero HIT until an R1 answers our
 * opportunistic I1s; until then no lookup by HIT finds it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reg.h"

#define NS_PER_S 1000000000ULL

struct reg_client {
	size_t n;
	struct reg_srv srv[REG_SERVERS_MAX];
};

int reg_client_create(struct reg_client **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void reg_client_free(struct reg_client *c)
{
	free(c);
}

bool reg_srv_learning(const struct reg_srv *s)
{
	return s->opportunistic && hip_hit_is_null(&s->hit);
}

struct reg_srv *reg_client_find(struct reg_client *c, const struct hip_hit *hit)
{
	size_t i;

	if (hip_hit_is_null(hit))
		return NULL;    /* a HIT still unknown is nobody's (D-16) */
	for (i = 0; i < c->n; i++)
		if (memcmp(c->srv[i].hit.b, hit->b, sizeof(hit->b)) == 0)
			return &c->srv[i];
	return NULL;
}

struct reg_srv *reg_client_find_learning(struct reg_client *c, const struct hip_addr *addr,
					 const struct hip_hit *local)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (reg_srv_learning(&c->srv[i]) && c->srv[i].opp_i1s &&
		    memcmp(&c->srv[i].addr, addr, sizeof(*addr)) == 0 &&
		    memcmp(c->srv[i].opp_local.b, local->b, sizeof(local->b)) == 0)
			return &c->srv[i];
	return NULL;
}

struct reg_srv *reg_client_find_addr(struct reg_client *c, const struct hip_addr *addr)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (memcmp(&c->srv[i].addr, addr, sizeof(*addr)) == 0)
			return &c->srv[i];
	return NULL;
}

/* The entry for hit (or, hit NULL, the one known by addr only), a new one
 * when there is none; NULL when full. */
static struct reg_srv *entry_get(struct reg_client *c, const struct hip_hit *hit,
				 const struct hip_addr *addr)
{
	struct reg_srv *s = NULL;
	size_t i;

	if (hit)
		s = reg_client_find(c, hit);
	/* by address: the entry known by it only; a HIT given now for it
	 * ends its learning */
	for (i = 0; i < c->n && !s; i++)
		if ((hit ? reg_srv_learning(&c->srv[i]) : c->srv[i].opportunistic) &&
		    memcmp(&c->srv[i].addr, addr, sizeof(*addr)) == 0)
			s = &c->srv[i];
	if (s) {
		if (s->state == REG_SRV_CANCELLING || s->state == REG_SRV_LEARNING)
			s->state = REG_SRV_WAITING;
		if (hit && reg_srv_learning(s)) {
			s->hit = *hit;
			s->opportunistic = false;
		}
		s->opp_i1s = 0;
		return s;
	}
	if (c->n == REG_SERVERS_MAX)
		return NULL;
	s = &c->srv[c->n++];
	memset(s, 0, sizeof(*s));
	if (hit)
		s->hit = *hit;
	s->opportunistic = !hit;
	s->state = REG_SRV_WAITING;
	return s;
}

static void entry_set(struct reg_srv *s, const struct hip_addr *addr, const uint8_t *types,
		      unsigned n_types, bool from_conf, struct reg_srv **out)
{
	unsigned i, j;

	s->addr = *addr;
	s->n_want = 0;
	for (i = 0; i < n_types; i++) {
		for (j = 0; j < s->n_want && s->want[j] != types[i]; j++)
			;
		if (j == s->n_want)
			s->want[s->n_want++] = types[i];
	}
	s->from_conf |= from_conf;
	s->next_try_ns = 0;
	s->attempts = 0;
	if (out)
		*out = s;
}

int reg_client_add(struct reg_client *c, const struct hip_hit *hit, const struct hip_addr *addr,
		   const uint8_t *types, unsigned n_types, bool from_conf, struct reg_srv **out)
{
	struct reg_srv *s;

	if (n_types == 0 || n_types > REG_TYPE_SLOTS || hip_hit_is_null(hit))
		return -EINVAL;
	s = entry_get(c, hit, addr);
	if (!s)
		return -ENOSPC;
	entry_set(s, addr, types, n_types, from_conf, out);
	return 0;
}

int reg_client_add_addr(struct reg_client *c, const struct hip_addr *addr, const uint8_t *types,
			unsigned n_types, bool from_conf, struct reg_srv **out)
{
	struct reg_srv *s;
	size_t i;

	if (n_types == 0 || n_types > REG_TYPE_SLOTS)
		return -EINVAL;
	for (i = 0; i < c->n; i++)
		if (!c->srv[i].opportunistic &&
		    memcmp(&c->srv[i].addr, addr, sizeof(*addr)) == 0)
			return -EEXIST;
	s = entry_get(c, NULL, addr);
	if (!s)
		return -ENOSPC;
	entry_set(s, addr, types, n_types, from_conf, out);
	return 0;
}

void reg_client_remove(struct reg_client *c, struct reg_srv *s)
{
	size_t i = (size_t)(s - c->srv);

	if (i >= c->n)
		return;
	memmove(&c->srv[i], &c->srv[i + 1], (c->n - i - 1) * sizeof(c->srv[0]));
	c->n--;
}

size_t reg_client_count(const struct reg_client *c)
{
	return c->n;
}

struct reg_srv *reg_client_at(struct reg_client *c, size_t i)
{
	return i < c->n ? &c->srv[i] : NULL;
}

void reg_srv_info(struct reg_srv *s, const struct hip_reg_info *info)
{
	unsigned i, j;

	s->info = *info;
	s->have_info = true;
	s->not_offered = true;
	for (i = 0; i < s->n_want; i++)
		for (j = 0; j < info->n; j++)
			if (info->type[j] == s->want[i])
				s->not_offered = false;
}

static bool info_lists(const struct reg_srv *s, uint8_t t)
{
	unsigned i;

	for (i = 0; i < s->info.n; i++)
		if (s->info.type[i] == t)
			return true;
	return false;
}

bool reg_srv_request(const struct reg_srv *s, uint8_t lifetime, struct hip_reg *req)
{
	unsigned i;

	memset(req, 0, sizeof(*req));
	if (s->state == REG_SRV_CANCELLING) {
		req->value = HIP_REG_LIFETIME_CANCEL;
		for (i = 0; i < s->n_granted; i++)
			req->type[req->n++] = s->granted[i];
		return req->n > 0;
	}
	if (!s->have_info)
		return false;
	/* §3.2: within what the server offers; any lifetime is accepted back */
	if (s->info.n && lifetime < s->info.min_lifetime)
		lifetime = s->info.min_lifetime;
	if (s->info.n && lifetime > s->info.max_lifetime)
		lifetime = s->info.max_lifetime;
	req->value = lifetime;
	for (i = 0; i < s->n_want; i++)
		if (info_lists(s, s->want[i]))
			req->type[req->n++] = s->want[i];
	return req->n > 0;
}

static void failed_forget(struct reg_srv *s, uint8_t t)
{
	unsigned i;

	for (i = 0; i < s->n_failed; i++) {
		if (s->failed[i] == t) {
			s->failed[i] = s->failed[s->n_failed - 1];
			s->failure[i] = s->failure[s->n_failed - 1];
			s->n_failed--;
			return;
		}
	}
}

bool reg_srv_granted(const struct reg_srv *s, uint8_t type)
{
	unsigned i;

	for (i = 0; i < s->n_granted; i++)
		if (s->granted[i] == type)
			return true;
	return false;
}

static void granted_set(struct reg_srv *s, uint8_t t, bool on)
{
	unsigned i;

	for (i = 0; i < s->n_granted; i++) {
		if (s->granted[i] == t) {
			if (!on)
				s->granted[i] = s->granted[--s->n_granted];
			return;
		}
	}
	if (on && s->n_granted < REG_TYPE_SLOTS)
		s->granted[s->n_granted++] = t;
}

void reg_srv_response(struct reg_srv *s, const struct hip_reg *resp, uint64_t now_ns)
{
	uint64_t life_ns;
	unsigned i;

	for (i = 0; i < resp->n; i++) {
		granted_set(s, resp->type[i], resp->value != HIP_REG_LIFETIME_CANCEL);
		failed_forget(s, resp->type[i]);
	}
	if (resp->value == HIP_REG_LIFETIME_CANCEL) {
		if (s->n_granted == 0) {
			s->expiry_ns = s->renew_ns = 0;
			if (s->state != REG_SRV_CANCELLING)
				s->state = REG_SRV_WAITING;
		}
		return;
	}
	life_ns = (uint64_t)(hip_reg_lifetime_seconds(resp->value) * (double)NS_PER_S);
	if (s->state == REG_SRV_REGISTERED)
		s->renewals++;
	else
		s->registrations++;
	s->lifetime = resp->value;
	s->expiry_ns = now_ns + life_ns;
	s->renew_ns = now_ns + life_ns / 100 * REG_RENEW_PERCENT;
	s->state = REG_SRV_REGISTERED;
	s->attempts = 0;
	s->next_try_ns = 0;
}

void reg_srv_failed(struct reg_srv *s, const struct hip_reg *f, uint64_t now_ns)
{
	unsigned i, j;

	for (i = 0; i < f->n; i++) {
		granted_set(s, f->type[i], false);
		for (j = 0; j < s->n_failed && s->failed[j] != f->type[i]; j++)
			;
		if (j == s->n_failed) {
			if (s->n_failed == REG_TYPE_SLOTS)
				continue;
			s->n_failed++;
		}
		s->failed[j] = f->type[i];
		s->failure[j] = f->value;
	}
	s->refusals++;
	if (s->n_granted == 0) {
		s->state = REG_SRV_REFUSED;
		s->expiry_ns = s->renew_ns = 0;
		reg_srv_retry_later(s, now_ns);
		/* §3.3: insufficient resources: MUST NOT retry immediately */
		if (f->value == REG_FAIL_INSUFFICIENT &&
		    s->next_try_ns < now_ns + REG_INSUFFICIENT_RETRY_S * NS_PER_S)
			s->next_try_ns = now_ns + REG_INSUFFICIENT_RETRY_S * NS_PER_S;
	}
}

void reg_srv_retry_later(struct reg_srv *s, uint64_t now_ns)
{
	uint64_t d = REG_RETRY_S;
	unsigned i;

	for (i = 0; i < s->attempts && d < REG_RETRY_MAX_S; i++)
		d *= 2;
	if (d > REG_RETRY_MAX_S)
		d = REG_RETRY_MAX_S;
	s->attempts++;
	s->next_try_ns = now_ns + d * NS_PER_S;
}

const char *reg_srv_state_name(enum reg_srv_state st)
{
	switch (st) {
	case REG_SRV_WAITING:    return "waiting";
	case REG_SRV_EXCHANGE:   return "base exchange";
	case REG_SRV_REQUESTED:  return "requested";
	case REG_SRV_REGISTERED: return "registered";
	case REG_SRV_REFUSED:    return "refused";
	case REG_SRV_CANCELLING: return "cancelling";
	case REG_SRV_LEARNING:   return "learning its HIT";
	}
	return "unknown";
}
