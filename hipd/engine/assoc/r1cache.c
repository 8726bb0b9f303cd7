/*
 * r1cache.c - precomputed, signed R1s per (local HI, DH group) and the
 * puzzle secret (RFC 7401 §4.1.1-4.1.2, §6.7.1, App. A; docs/protocol.md §3,
 * §6 I1 step 4; P-03, P-06, P-08; D-04).
 *
 * Every DH group of our list has `size` entries, each with its own DH key
 * pair and a complete R1 signed with HIP_SIGNATURE_2. The signature leaves
 * out the Receiver HIT, PUZZLE Opaque and #I (§5.2.15), so an answer copies
 * the R1 and patches those three plus the checksum. PUZZLE K and R1_COUNTER
 * ARE covered: the stored R1 is for one (counter, K); when either changes,
 * the entry is re-signed lazily at its next use (one signature per entry per
 * change, never per I1).
 *
 * #I = RHASH(secret | HIT-I | HIT-R | Opaque | R1 counter), RHASH = our
 * suite's hash, full length. Opaque (16 bits) = K(5) | counter low bits(5)
 * | entry index(6): #I authenticates it, and at I2 time it names the entry
 * and the K we asked for, and lets the generation be found when an I2 does
 * not echo R1_COUNTER. So the responder keeps no per-I1 state.
 *
 * r1cache_rotate (timer, every rotate_seconds): new secret (the previous one
 * stays valid until the next rotation, so >= one puzzle lifetime), counter
 * + 1, and in each group the oldest entry gets a new DH key. An entry keeps
 * its previous key too, for R1s already sent with it. Keys used by a
 * completed I2 are replaced by r1cache_tick, at most once per second (D-04).
 * The counter is persisted as a lease (RFC 7401 §5.2.3, §4.1.4; P-08): the
 * file holds a bound L >= every value used so far, written (tmp + fsync +
 * rename) only when the counter would pass it, then L = counter +
 * R1C_LEASE. So the event loop pays one fsync per R1C_LEASE rotations, not
 * per rotation, and a restart (even after a crash) continues from L + 1:
 * never a value already sent, never lower. The price is a jump of at most
 * R1C_LEASE per restart, which a 64-bit counter does not feel.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checksum.h"
#include "hidb.h"
#include "packet.h"
#include "coverage.h"
#include "r1cache.h"
#include "base/base.h"

enum {
	R1C_SECRET_LEN    = 32,
	R1C_SIZE_MIN      = 8,
	R1C_SIZE_MAX      = 64,   /* entry index has 6 bits in Opaque */
	R1C_LEASE         = 64,   /* counter values per persisted bound */
	OPQ_INDEX_MASK    = 0x3f,
	OPQ_CTR_SHIFT     = 6,
	OPQ_CTR_MASK      = 0x1f,
	OPQ_K_SHIFT       = 11,
	PUZZLE_K_OFF      = HIP_TLV_HDR_LEN,       /* in the PUZZLE TLV */
	PUZZLE_OPAQUE_OFF = HIP_TLV_HDR_LEN + 2,
	PUZZLE_I_OFF      = HIP_TLV_HDR_LEN + 4,
	HDR_RECEIVER_OFF  = 24,
	TRANSPORT_ESP     = HIP_PARAM_ESP_TRANSFORM, /* TRANSPORT_FORMAT_LIST value */
};
#define NSEC_PER_SEC 1000000000ULL

struct r1_entry {
	struct hip_dh *dh, *prev_dh;   /* current key; the one it replaced */
	uint64_t dh_since, prev_since; /* first counter value each was offered at */
	uint64_t prev_until_ns;        /* prev_dh is freed then (monotonic, 0 = not timed) */
	bool used;                     /* D-04: a completed I2 used dh */
	int built_k;                   /* K of pkt, -1 = pkt not valid */
	uint64_t built_counter;        /* R1_COUNTER of pkt */
	size_t len, puzzle_off;
	uint8_t pkt[HIP_MAX_PACKET];
};

struct r1_group {
	uint8_t id;
	unsigned next_rotate;          /* oldest entry */
	struct r1_entry *e;
};

struct r1_secret {
	uint8_t s[R1C_SECRET_LEN];
	uint64_t since;                /* first counter value using it */
	bool valid;
};

struct r1cache {
	struct hidb_entry *owner;
	enum hip_rhash rhash;
	size_t i_len;
	unsigned size, rotate_seconds;
	uint8_t lifetime;
	struct hip_u8_list groups_list;
	struct hip_u16_list ciphers, esp, transports;
	struct hip_u8_list suites;
	struct hip_reg_info reg_info;  /* RFC 8003 §3.1: our services */
	struct hip_u16_list nat_modes; /* RFC 9028 §4.3, n = 0: none */
	unsigned nat_ta_ms;            /* §4.4, with the modes */
	bool have_reg_info;
	char *counter_path;
	uint64_t counter;
	uint64_t counter_bound;        /* persisted: counter never passes it */
	struct r1_secret cur, prev;
	struct hip_siphash_key entry_key;
	bool any_used;
	uint64_t last_tick_ns;
	uint64_t keep_prev_ns;         /* how long a replaced key still answers I2s */
	uint64_t prune_due_ns;         /* earliest prev_until_ns pending, 0 = none */
	size_t ngroups;
	struct r1_group group[HIP_LIST_MAX];
};

/* ---- the persisted counter ------------------------------------------- */

/* Stored value, or 0 when the file does not exist yet. */
static int counter_load(const char *path, uint64_t *out)
{
	char buf[32], *end;
	ssize_t n;
	int fd, ret;

	*out = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	ret = -errno;
	close(fd);
	if (n < 0)
		return ret;
	buf[(size_t)n] = '\0';
	if (n == 0 || buf[0] < '0' || buf[0] > '9')
		return -EBADMSG;
	errno = 0;
	*out = strtoull(buf, &end, 10);
	if (errno || (*end != '\n' && *end != '\0') || *out == UINT64_MAX)
		return -EBADMSG;
	return 0;
}

static int counter_save(const char *path, uint64_t v)
{
	char line[32], *tmp;
	size_t plen = strlen(path);
	int fd, len, ret = 0;

	tmp = malloc(plen + sizeof(".XXXXXX"));
	if (!tmp)
		return -ENOMEM;
	memcpy(tmp, path, plen);
	memcpy(tmp + plen, ".XXXXXX", sizeof(".XXXXXX"));
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		free(tmp);
		return ret;
	}
	len = snprintf(line, sizeof(line), "%" PRIu64 "\n", v);
	if (write(fd, line, (size_t)len) != len || fsync(fd) != 0)
		ret = errno ? -errno : -EIO;
	if (close(fd) != 0 && ret == 0)
		ret = -errno;
	if (ret == 0 && rename(tmp, path) != 0)
		ret = -errno;
	if (ret < 0)
		unlink(tmp);
	free(tmp);
	return ret;
}

/* Advance the counter. When a path is set and the lease is used up, a new
 * bound is persisted first, so no value is used that a restart could hand
 * out again. */
static int counter_next(struct r1cache *c)
{
	uint64_t bound;
	int ret;

	if (c->counter >= UINT64_MAX - R1C_LEASE)
		return -EOVERFLOW;
	if (c->counter_path && c->counter + 1 > c->counter_bound) {
		bound = c->counter + R1C_LEASE;
		ret = counter_save(c->counter_path, bound);
		if (ret < 0)
			return ret;
		c->counter_bound = bound;
	}
	c->counter++;
	return 0;
}

/* ---- building and patching R1s --------------------------------------- */

static uint16_t opaque_encode(unsigned k, uint64_t counter, unsigned index)
{
	return (uint16_t)(k << OPQ_K_SHIFT | (counter & OPQ_CTR_MASK) << OPQ_CTR_SHIFT | index);
}

/* #I for this initiator (the RHASH length, written to out). */
static int puzzle_i(const struct r1cache *c, const struct r1_secret *s,
		    const struct hip_hit *hit_i, uint16_t opaque, uint64_t counter,
		    uint8_t *out)
{
	uint8_t in[R1C_SECRET_LEN + 2 * HIP_HIT_LEN + 2 + 8];
	uint8_t *p = in;
	int ret;

	memcpy(p, s->s, R1C_SECRET_LEN);
	p += R1C_SECRET_LEN;
	memcpy(p, hit_i->b, HIP_HIT_LEN);
	p += HIP_HIT_LEN;
	memcpy(p, c->owner->hit.b, HIP_HIT_LEN);
	p += HIP_HIT_LEN;
	hip_wr16(p, opaque);
	hip_wr64(p + 2, counter);
	ret = hip_digest(c->rhash, in, sizeof(in), out);
	hip_wipe(in, sizeof(in));
	return ret;
}

/* The R1 of one entry for the current counter and K, signed (§5.3.2, wire
 * order as in docs/protocol.md §1). Receiver HIT, Opaque and #I stay zero. */
static int entry_build(struct r1cache *c, const struct r1_group *g, struct r1_entry *e,
		       unsigned k)
{
	const struct hidb_entry *me = c->owner;
	uint8_t pub[512];
	size_t pub_len = hip_dh_pub_len(g->id);
	struct hip_builder b;
	struct hip_r1_counter rc;
	struct hip_puzzle pz = { 0 };
	int n;

	e->built_k = -1;
	if (pub_len == 0 || pub_len > sizeof(pub))
		return -ENOTSUP;
	n = hip_dh_public(e->dh, pub, pub_len);
	if (n < 0)
		return n;
	hip_build_init(&b, e->pkt, sizeof(e->pkt), HIP_R1, &me->hit, NULL);
	hip_r1_counter_set(&rc, c->counter);
	hip_r1_counter_build(&b, &rc);
	e->puzzle_off = b.len;
	pz.k = (uint8_t)k;
	pz.lifetime = c->lifetime;
	pz.i_len = (uint8_t)c->i_len;
	hip_puzzle_build(&b, &pz);
	hip_dh_group_list_build(&b, &c->groups_list);
	hip_dh_param_build(&b, g->id, pub, pub_len);
	hip_hip_cipher_build(&b, &c->ciphers);
	if (c->nat_modes.n) {
		hip_nat_traversal_mode_build(&b, &c->nat_modes);
		hip_transaction_pacing_build(&b, c->nat_ta_ms);   /* RFC 9028 §4.4 */
	}
	hip_build_param(&b, HIP_PARAM_HOST_ID, me->host_id_tlv + HIP_TLV_HDR_LEN,
			hip_rd16(me->host_id_tlv + 2));
	hip_hit_suite_list_build(&b, &c->suites);
	if (c->have_reg_info)
		hip_reg_info_build(&b, &c->reg_info);
	hip_transport_format_list_build(&b, &c->transports);
	hip_esp_transform_build(&b, &c->esp);
	hip_build_signature(&b, HIP_COVER_SIGNATURE_2, me->hi);
	n = hip_build_finish(&b);
	if (n < 0)
		return n;
	e->len = (size_t)n;
	e->built_k = (int)k;
	e->built_counter = c->counter;
	return 0;
}

/* New DH key for an entry; the old one is kept for R1s already sent, as
 * long as an I2 answering them may come (keep_prev_ns, r1cache_tick). */
static int entry_rekey(struct r1cache *c, const struct r1_group *g, struct r1_entry *e,
		       uint64_t now_ns)
{
	struct hip_dh *dh = NULL;
	int ret = hip_dh_generate(g->id, &dh);

	if (ret < 0)
		return ret;
	hip_dh_free(e->prev_dh);
	e->prev_dh = e->dh;
	e->prev_since = e->dh_since;
	e->prev_until_ns = now_ns + c->keep_prev_ns;
	if (!c->prune_due_ns || e->prev_until_ns < c->prune_due_ns)
		c->prune_due_ns = e->prev_until_ns;
	e->dh = dh;
	e->dh_since = c->counter;
	e->used = false;
	e->built_k = -1;
	return 0;
}

/* docs/protocol.md §6 I1 step 4: the first of OUR groups that the I1 lists, else
 * our first. */
static struct r1_group *choose_group(struct r1cache *c, const struct hip_u8_list *i1)
{
	size_t i;
	unsigned j;

	for (i = 0; i1 && i < c->ngroups; i++)
		for (j = 0; j < i1->n && j < HIP_LIST_MAX; j++)
			if (i1->v[j] == c->group[i].id)
				return &c->group[i];
	return &c->group[0];
}

static struct r1_group *find_group(struct r1cache *c, uint8_t id)
{
	size_t i;

	for (i = 0; i < c->ngroups; i++)
		if (c->group[i].id == id)
			return &c->group[i];
	return NULL;
}

/* ---- public API -------------------------------------------------------- */

static int conf_check(const struct hidb_entry *owner, const struct r1cache_conf *conf)
{
	size_t i;

	if (!owner || !owner->hi || !conf || !conf->dh_groups || !conf->hip_ciphers ||
	    !conf->esp_suites)
		return -EINVAL;
	if (conf->n_dh_groups == 0 || conf->n_dh_groups > HIP_LIST_MAX ||
	    conf->n_hip_ciphers == 0 || conf->n_hip_ciphers > HIP_LIST_SEND_MAX ||
	    conf->n_esp_suites == 0 || conf->n_esp_suites > HIP_LIST_SEND_MAX)
		return -EINVAL;
	if (conf->size < R1C_SIZE_MIN || conf->size > R1C_SIZE_MAX || conf->rotate_seconds == 0)
		return -EINVAL;
	/* The previous secret lives one rotation period: that must cover the
	 * puzzle lifetime 2^(Lifetime-32) s (App. A). */
	if (conf->lifetime > 32 + 20 ||
	    (conf->lifetime > 32 && conf->rotate_seconds < (1u << (conf->lifetime - 32))))
		return -EINVAL;
	for (i = 0; i < conf->n_dh_groups; i++)
		if (!hip_dh_group_supported(conf->dh_groups[i]))
			return -ENOTSUP;
	return 0;
}

int r1cache_create(struct r1cache **out, struct hidb_entry *owner,
		   const struct r1cache_conf *conf)
{
	struct r1cache *c;
	uint64_t stored;
	size_t i, j;
	int ret;

	if (!out)
		return -EINVAL;
	ret = conf_check(owner, conf);
	if (ret < 0)
		return ret;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->owner = owner;
	c->rhash = owner->suite;
	c->i_len = hip_rhash_len(c->rhash);
	c->size = conf->size;
	c->rotate_seconds = conf->rotate_seconds;
	c->lifetime = conf->lifetime;
	/* RFC 7401 §5.2.4: a solution is due within the puzzle lifetime of its
	 * R1; twice that covers an I2 retransmitted late in it. */
	c->keep_prev_ns = 2 * (conf->lifetime >= 32 ?
			       (1ULL << (conf->lifetime - 32)) * NSEC_PER_SEC :
			       NSEC_PER_SEC >> (32 - conf->lifetime));
	c->groups_list.n = (unsigned)conf->n_dh_groups;
	memcpy(c->groups_list.v, conf->dh_groups, conf->n_dh_groups);
	c->ciphers.n = (unsigned)conf->n_hip_ciphers;
	memcpy(c->ciphers.v, conf->hip_ciphers, conf->n_hip_ciphers * sizeof(uint16_t));
	c->esp.n = (unsigned)conf->n_esp_suites;
	memcpy(c->esp.v, conf->esp_suites, conf->n_esp_suites * sizeof(uint16_t));
	c->transports.n = 1;
	c->transports.v[0] = TRANSPORT_ESP;
	if (conf->reg_info) {
		c->reg_info = *conf->reg_info;
		c->have_reg_info = true;
	}
	if (conf->nat_udp) {
		/* RFC 9028 §5.4: UDP-ENCAPSULATION first (no checks between
		 * hosts that reach each other); ICE-HIP-UDP for an exchange
		 * through a control relay (§4.5 step 3: MUST be listed) */
		c->nat_modes.n = 2;
		c->nat_modes.v[0] = HIP_NAT_MODE_UDP_ENCAPSULATION;
		c->nat_modes.v[1] = HIP_NAT_MODE_ICE_HIP_UDP;
		c->nat_ta_ms = conf->nat_ta_ms ? conf->nat_ta_ms : HIP_NAT_TA_DEFAULT_MS;
	}
	/* HIT suites we accept from Initiators: ours first, then the other one
	 * we can verify (RSA/SHA-256 = 1, ECDSA/SHA-384 = 2). */
	c->suites.n = 2;
	c->suites.v[0] = (uint8_t)c->rhash;
	c->suites.v[1] = c->rhash == HIP_RHASH_SHA256 ? HIP_SUITE_ECDSA_SHA384
						     : HIP_SUITE_RSA_DSA_SHA256;
	if (c->i_len == 0) {
		ret = -ENOTSUP;
		goto out;
	}

	if (conf->counter_path) {
		c->counter_path = strdup(conf->counter_path);
		if (!c->counter_path) {
			ret = -ENOMEM;
			goto out;
		}
		ret = counter_load(c->counter_path, &stored);
		if (ret < 0)
			goto out;
		c->counter = stored;
		c->counter_bound = stored;
	}
	/* Start above the stored bound: values up to it may have been sent
	 * by the last run (even one that crashed). */
	ret = counter_next(c);
	if (ret < 0)
		goto out;
	ret = hip_siphash_key_random(&c->entry_key);
	if (ret == 0)
		ret = hip_random(c->cur.s, sizeof(c->cur.s));
	if (ret < 0)
		goto out;
	c->cur.since = c->counter;
	c->cur.valid = true;

	c->ngroups = conf->n_dh_groups;
	for (i = 0; i < c->ngroups; i++) {
		struct r1_group *g = &c->group[i];

		g->id = conf->dh_groups[i];
		g->e = calloc(c->size, sizeof(*g->e));
		if (!g->e) {
			ret = -ENOMEM;
			goto out;
		}
		for (j = 0; j < c->size; j++) {
			g->e[j].built_k = -1;
			ret = hip_dh_generate(g->id, &g->e[j].dh);
			if (ret < 0)
				goto out;
			g->e[j].dh_since = c->counter;
		}
	}
	*out = c;
	c = NULL;
out:
	r1cache_free(c);
	return ret;
}

void r1cache_free(struct r1cache *c)
{
	size_t i, j;

	if (!c)
		return;
	for (i = 0; i < c->ngroups; i++) {
		for (j = 0; c->group[i].e && j < c->size; j++) {
			hip_dh_free(c->group[i].e[j].dh);
			hip_dh_free(c->group[i].e[j].prev_dh);
		}
		free(c->group[i].e);
	}
	free(c->counter_path);
	hip_wipe(c, sizeof(*c));
	free(c);
}

int r1cache_answer(struct r1cache *c, const struct hip_hit *initiator,
		   const struct hip_u8_list *i1_groups, unsigned k,
		   const struct hip_addr *src, const struct hip_addr *dst,
		   uint8_t *out, size_t cap)
{
	struct r1_group *g;
	struct r1_entry *e;
	unsigned index;
	uint16_t opaque;
	int ret;

	if (!c || !initiator || !src || !dst || !out || k > HIP_PUZZLE_K_MAX)
		return -EINVAL;
	g = choose_group(c, i1_groups);
	/* Keyed by the Initiator HIT: a retransmitted I1 gets the same R1. */
	index = (unsigned)(hip_siphash(&c->entry_key, initiator->b, HIP_HIT_LEN) % c->size);
	e = &g->e[index];
	if (e->built_k != (int)k || e->built_counter != c->counter) {
		ret = entry_build(c, g, e, k);
		if (ret < 0)
			return ret;
	}
	if (e->len > cap)
		return -ENOSPC;
	memcpy(out, e->pkt, e->len);
	memcpy(out + HDR_RECEIVER_OFF, initiator->b, HIP_HIT_LEN);
	opaque = opaque_encode(k, c->counter, index);
	hip_wr16(out + e->puzzle_off + PUZZLE_OPAQUE_OFF, opaque);
	ret = puzzle_i(c, &c->cur, initiator, opaque, c->counter,
		       out + e->puzzle_off + PUZZLE_I_OFF);
	if (ret < 0)
		return ret;
	hip_packet_set_checksum(out, e->len, src, dst);
	return (int)e->len;
}

/* The full counter an I2 without R1_COUNTER refers to: the newest value
 * not above ours with the low bits Opaque carries. */
static uint64_t counter_from_opaque(const struct r1cache *c, unsigned low)
{
	uint64_t v = (c->counter & ~(uint64_t)OPQ_CTR_MASK) | low;

	if (v > c->counter)
		v -= OPQ_CTR_MASK + 1;
	return v;
}

int r1cache_lookup(struct r1cache *c, const struct hip_hit *initiator,
		   uint16_t opaque, const struct hip_r1_counter *counter,
		   uint8_t dh_group, struct r1_offer *offer)
{
	const struct r1_secret *s;
	const struct hip_dh *dh;
	struct r1_group *g;
	struct r1_entry *e;
	uint8_t ob[2];
	unsigned val, index, k, low;
	uint64_t ctr;
	int ret;

	if (!c || !initiator || !offer)
		return -EINVAL;
	memcpy(ob, &opaque, sizeof(ob));      /* wire byte order, as params.h */
	val = hip_rd16(ob);
	index = val & OPQ_INDEX_MASK;
	low = (val >> OPQ_CTR_SHIFT) & OPQ_CTR_MASK;
	k = val >> OPQ_K_SHIFT;
	g = find_group(c, dh_group);
	if (!g || index >= c->size || k > HIP_PUZZLE_K_MAX)
		return -ESTALE;
	if (counter) {
		ctr = counter->counter;
		if ((ctr & OPQ_CTR_MASK) != low || ctr > c->counter)
			return -ESTALE;
	} else {
		ctr = counter_from_opaque(c, low);
	}
	if (c->cur.valid && ctr >= c->cur.since)
		s = &c->cur;
	else if (c->prev.valid && ctr >= c->prev.since)
		s = &c->prev;
	else
		return -ESTALE;
	e = &g->e[index];
	if (e->dh && ctr >= e->dh_since)
		dh = e->dh;
	else if (e->prev_dh && ctr >= e->prev_since)
		dh = e->prev_dh;
	else
		return -ESTALE;

	memset(offer, 0, sizeof(*offer));
	ret = puzzle_i(c, s, initiator, (uint16_t)val, ctr, offer->i);
	if (ret < 0)
		return ret;
	offer->dh_group = g->id;
	offer->dh = dh;
	offer->i_len = c->i_len;
	offer->k = (uint8_t)k;
	hip_r1_counter_set(&offer->counter, ctr);
	return 0;
}

/* A replaced key answers only I2s naming a counter in [prev_since,
 * dh_since), and only within keep_prev_ns of its replacement (the puzzle
 * lifetime, twice). It is freed as soon as either ends: once the oldest
 * secret still accepted (r1cache_lookup) is newer than dh_since no I2 can
 * reach it, and after keep_prev_ns none is due. So the cache holds one key
 * per entry plus those replaced within about a minute, not two per entry
 * for ever (bench/soak.sh measured both). Returns whether prev_dh stays. */
static bool entry_prune(const struct r1cache *c, struct r1_entry *e, uint64_t now_ns)
{
	uint64_t oldest = c->prev.valid ? c->prev.since : c->cur.since;

	if (e->prev_dh && (e->dh_since <= oldest || now_ns >= e->prev_until_ns)) {
		hip_dh_free(e->prev_dh);
		e->prev_dh = NULL;
	}
	return e->prev_dh != NULL;
}

/* Frees the replaced keys whose time is up; prune_due_ns becomes the
 * earliest time still pending. */
static void cache_prune(struct r1cache *c, uint64_t now_ns)
{
	uint64_t due = 0;
	size_t i, j;

	for (i = 0; i < c->ngroups; i++) {
		for (j = 0; j < c->size; j++) {
			struct r1_entry *e = &c->group[i].e[j];

			if (entry_prune(c, e, now_ns) && (!due || e->prev_until_ns < due))
				due = e->prev_until_ns;
		}
	}
	c->prune_due_ns = due;
}

size_t r1cache_dh_keys(const struct r1cache *c)
{
	size_t i, j, n = 0;

	for (i = 0; c && i < c->ngroups; i++)
		for (j = 0; j < c->size; j++)
			n += (c->group[i].e[j].dh != NULL) + (c->group[i].e[j].prev_dh != NULL);
	return n;
}

int r1cache_rotate(struct r1cache *c, uint64_t now_ns)
{
	size_t i, j, size;
	int ret, first_err = 0;

	if (!c || !c->size)
		return -EINVAL;
	size = c->size;
	ret = counter_next(c);
	if (ret < 0)
		return ret;
	c->prev = c->cur;
	ret = hip_random(c->cur.s, sizeof(c->cur.s));
	if (ret < 0) {
		/* Keep answering with the old secret rather than a weak one. */
		c->cur = c->prev;
		return ret;
	}
	c->cur.since = c->counter;
	c->cur.valid = true;
	cache_prune(c, now_ns);
	for (i = 0; i < c->ngroups; i++) {
		struct r1_group *g = &c->group[i];

		ret = entry_rekey(c, g, &g->e[g->next_rotate], now_ns);
		g->next_rotate = (g->next_rotate + 1) % size;
		for (j = 0; ret == 0 && j < size; j++)
			if (g->e[j].used)
				ret = entry_rekey(c, g, &g->e[j], now_ns);
		if (ret < 0 && !first_err)
			first_err = ret;
	}
	c->any_used = false;
	return first_err;
}

void r1cache_mark_used(struct r1cache *c, const struct r1_offer *offer)
{
	struct r1_group *g;
	size_t j;

	if (!c || !offer || !(g = find_group(c, offer->dh_group)))
		return;
	for (j = 0; j < c->size; j++) {
		if (g->e[j].dh == offer->dh) {
			g->e[j].used = true;
			c->any_used = true;
		}
	}
}

int r1cache_tick(struct r1cache *c, uint64_t now_ns)
{
	size_t i, j;
	int ret, replaced = 0;

	if (!c)
		return -EINVAL;
	if (c->prune_due_ns && now_ns >= c->prune_due_ns)
		cache_prune(c, now_ns);
	if (!c->any_used || (c->last_tick_ns && now_ns - c->last_tick_ns < NSEC_PER_SEC))
		return 0;
	/* New keys must not be offered under a counter that named old ones. */
	ret = counter_next(c);
	if (ret < 0)
		return ret;
	c->last_tick_ns = now_ns;
	c->any_used = false;
	for (i = 0; i < c->ngroups; i++) {
		for (j = 0; j < c->size; j++) {
			if (!c->group[i].e[j].used)
				continue;
			ret = entry_rekey(c, &c->group[i], &c->group[i].e[j], now_ns);
			if (ret < 0) {
				c->any_used = true;   /* retry at the next tick */
				return ret;
			}
			replaced++;
		}
	}
	return replaced;
}

uint64_t r1cache_counter(const struct r1cache *c)
{
	return c ? c->counter : 0;
}
