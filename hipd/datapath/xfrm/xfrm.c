/*
 * xfrm.c - the kernel datapath: ESP BEET SAs and policies over NETLINK_XFRM
 * (xfrm.h; RFC 7402 §3, App. B; spec.md §3 XFRM mapping; style.md 21-23).
 *
 * netlink is spoken directly rather than through libnl-xfrm: libnl frees
 * SA key blobs and its receive buffers without wiping them (style.md §1.6),
 * while here every request lives in a bounded stack buffer and every
 * received buffer is ours, so both are wiped (lesson 22). Each request is
 * sent with NLM_F_ACK and its errno is reported with the message name and
 * the kernel's extended-ACK text.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/xfrm.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "hip_crypto.h"
#include "hip_wire.h"
#include "xfrm_int.h"

/* ---- addresses and selectors ------------------------------------------------ */

uint16_t addr_family(const struct hip_addr *a)
{
	return hip_addr_is_v4(a) ? AF_INET : AF_INET6;
}

/* xfrm_address_t: an IPv4 address sits in its first 4 bytes. */
void addr_to_xfrm(const struct hip_addr *a, xfrm_address_t *out)
{
	struct in_addr v4;

	memset(out, 0, sizeof(*out));
	if (hip_addr_is_v4(a)) {
		v4 = hip_addr_v4(a);
		memcpy(&out->a4, &v4, sizeof(v4));
	} else {
		memcpy(out->a6, &a->in6, sizeof(out->a6));
	}
}

void sel_hits(struct xfrm_selector *sel, const struct hip_hit *src, uint8_t src_len,
		     const struct hip_hit *dst, uint8_t dst_len)
{
	memset(sel, 0, sizeof(*sel));
	memcpy(sel->saddr.a6, src->b, sizeof(sel->saddr.a6));
	memcpy(sel->daddr.a6, dst->b, sizeof(sel->daddr.a6));
	sel->prefixlen_s = src_len;
	sel->prefixlen_d = dst_len;
	sel->family = AF_INET6;
}

void lifetime_inf(struct xfrm_lifetime_cfg *lft)
{
	lft->soft_byte_limit = XFRM_INF;
	lft->hard_byte_limit = XFRM_INF;
	lft->soft_packet_limit = XFRM_INF;
	lft->hard_packet_limit = XFRM_INF;
}

void sa_what(const struct hip_esp_sa *sa, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];

	snprintf(buf, len, "%s SA spi 0x%08x %s -> %s", sa->inbound ? "inbound" : "outbound",
		 sa->spi, hip_addr_to_str(&sa->outer_src, a, sizeof(a)),
		 hip_addr_to_str(&sa->outer_dst, b, sizeof(b)));
}

/* ---- SAs ------------------------------------------------------------------------ */

/* RFC 7402 §5.1.2 suites as Linux crypto names (spec.md §3, A-6). */
int alg_for_suite(uint16_t suite, struct alg_spec *s)
{
	memset(s, 0, sizeof(*s));
	switch (suite) {
	case HIP_ESP_AES_GCM_16:
	case HIP_ESP_AES_GCM_8:
		s->aead = "rfc4106(gcm(aes))";
		s->enc_len = 16 + 4;     /* key | salt (RFC 4106 §8.1) */
		s->icv_bits = suite == HIP_ESP_AES_GCM_16 ? 128 : 64;
		return 0;
	case HIP_ESP_AES128_CBC_SHA256:
	case HIP_ESP_AES256_CBC_SHA256:
		s->enc = "cbc(aes)";
		s->enc_len = suite == HIP_ESP_AES128_CBC_SHA256 ? 16 : 32;
		s->auth = "hmac(sha256)";
		s->auth_len = 32;
		s->trunc_bits = 128;     /* RFC 4868 */
		return 0;
	case HIP_ESP_AES128_CBC_SHA1:
		s->enc = "cbc(aes)";
		s->enc_len = 16;
		s->auth = "hmac(sha1)";
		s->auth_len = 20;
		s->trunc_bits = 96;      /* RFC 2404 */
		return 0;
	case HIP_ESP_NULL_SHA256:
		s->enc = "ecb(cipher_null)";
		s->auth = "hmac(sha256)";
		s->auth_len = 32;
		s->trunc_bits = 128;
		return 0;
	default:
		return -ENOTSUP;
	}
}

static int put_algs(struct xfrm_req *r, const struct hip_esp_sa *sa)
{
	struct alg_spec s;
	int ret = alg_for_suite(sa->suite, &s);

	if (ret < 0)
		return ret;
	if (sa->enc_len != s.enc_len || sa->auth_len != s.auth_len)
		return -EINVAL;
	if (s.aead) {
		struct xfrm_algo_aead a = { .alg_key_len = (unsigned)(s.enc_len * 8),
					    .alg_icv_len = s.icv_bits };

		snprintf(a.alg_name, sizeof(a.alg_name), "%s", s.aead);
		return req_put2(r, XFRMA_ALG_AEAD, &a, sizeof(a), sa->enc_key, s.enc_len);
	} else {
		struct xfrm_algo e = { .alg_key_len = (unsigned)(s.enc_len * 8) };
		struct xfrm_algo_auth h = { .alg_key_len = (unsigned)(s.auth_len * 8),
					    .alg_trunc_len = s.trunc_bits };

		snprintf(e.alg_name, sizeof(e.alg_name), "%s", s.enc);
		snprintf(h.alg_name, sizeof(h.alg_name), "%s", s.auth);
		ret = req_put2(r, XFRMA_ALG_CRYPT, &e, sizeof(e), sa->enc_key, s.enc_len);
		if (ret == 0)
			ret = req_put2(r, XFRMA_ALG_AUTH_TRUNC, &h, sizeof(h), sa->auth_key,
				       s.auth_len);
		return ret;
	}
}

/* 64-bit ESN with anti-replay (RFC 7402 §3.3.6, A-7): XFRM_STATE_ESN and
 * the replay state with its bitmap, all counters from 0. */
static int put_esn(struct xfrm_req *r, uint32_t window)
{
	uint32_t bmp[XFRM_REPLAY_MAX / 32] = { 0 };
	struct xfrm_replay_state_esn esn = { 0 };

	if (window == 0)
		window = XFRM_REPLAY_DEFAULT;
	if (window > XFRM_REPLAY_MAX)
		return -EINVAL;
	esn.replay_window = window;
	esn.bmp_len = (window + 31) / 32;
	return req_put2(r, XFRMA_REPLAY_ESN_VAL, &esn, sizeof(esn), bmp,
			esn.bmp_len * sizeof(bmp[0]));
}

/* XFRM_MSG_NEWSA. esn: a replay state to start from (carried over from
 * the SA this one replaces), NULL for a fresh one. quiet: the probe
 * reports a missing ESP itself (the kernel's text in kwhy when given). */
int sa_new(struct xfrm_dp *x, const struct hip_esp_sa *sa, const void *esn, size_t esn_len,
	   bool quiet, char *kwhy, size_t kwhylen)
{
	struct xfrm_usersa_info info;
	struct xfrm_req r;
	char what[128], why[XFRM_WHY_MAX];
	int ret;

	memset(&info, 0, sizeof(info));
	sel_hits(&info.sel, &sa->inner_src, 128, &sa->inner_dst, 128);
	addr_to_xfrm(&sa->outer_dst, &info.id.daddr);
	addr_to_xfrm(&sa->outer_src, &info.saddr);
	info.id.spi = htonl(sa->spi);
	info.id.proto = IPPROTO_ESP;
	info.family = addr_family(&sa->outer_dst);
	info.mode = XFRM_MODE_BEET;
	info.reqid = x->reqid;
	info.flags = XFRM_STATE_ESN;
	info.replay_window = 0;    /* with ESN the window is in the ESN state */
	lifetime_inf(&info.lft);
	if (sa->soft_bytes)
		info.lft.soft_byte_limit = sa->soft_bytes;
	if (sa->hard_bytes)
		info.lft.hard_byte_limit = sa->hard_bytes;
	info.lft.soft_add_expires_seconds = sa->soft_seconds;
	info.lft.hard_add_expires_seconds = sa->hard_seconds;
	sa_what(sa, what, sizeof(what));
	if (addr_family(&sa->outer_src) != info.family || sa->spi < HIP_SPI_MIN)
		return log_bad(XFRM_MSG_NEWSA, what, -EINVAL, "outer families differ or SPI < 256");

	req_init(&r, XFRM_MSG_NEWSA, &info, sizeof(info));
	ret = put_algs(&r, sa);
	if (ret == 0 && esn)
		ret = req_put(&r, XFRMA_REPLAY_ESN_VAL, esn, esn_len);
	else if (ret == 0)
		ret = put_esn(&r, sa->replay_window);
	if (ret < 0) {
		hip_wipe(&r, sizeof(r));
		return log_bad(XFRM_MSG_NEWSA, what, ret, "suite, key length or replay window");
	}
	ret = nl_talk(x, &r, false, NULL, NULL, why, sizeof(why));   /* wipes r */
	if (ret < 0) {
		if (!quiet)
			log_fail(XFRM_MSG_NEWSA, what, ret, why);
		if (kwhy && kwhylen)
			snprintf(kwhy, kwhylen, "%s%s%s%s", strerror(-ret),
				 why[0] ? " (kernel: " : "", why, why[0] ? ")" : "");
		return ret;
	}
	log_debug("installed %s suite %u", what, sa->suite);
	return 0;
}

int sa_del_raw(struct xfrm_dp *x, const xfrm_address_t *daddr, uint16_t family,
		      uint32_t spi_net, uint8_t proto, char *why, size_t whylen)
{
	struct xfrm_usersa_id id;
	struct xfrm_req r;

	memset(&id, 0, sizeof(id));
	id.daddr = *daddr;
	id.spi = spi_net;
	id.family = family;
	id.proto = proto;
	req_init(&r, XFRM_MSG_DELSA, &id, sizeof(id));
	return nl_talk(x, &r, false, NULL, NULL, why, whylen);
}

static int x_sa_del(struct datapath *dp, uint32_t spi, bool inbound,
		    const struct hip_addr *outer_dst)
{
	struct xfrm_dp *x = to_x(dp);
	char what[96], a[INET6_ADDRSTRLEN], why[XFRM_WHY_MAX];
	xfrm_address_t daddr;
	int ret;

	addr_to_xfrm(outer_dst, &daddr);
	ret = sa_del_raw(x, &daddr, addr_family(outer_dst), htonl(spi), IPPROTO_ESP, why,
			 sizeof(why));
	if (ret < 0) {
		snprintf(what, sizeof(what), "%s SA spi 0x%08x dst %s",
			 inbound ? "inbound" : "outbound", spi,
			 hip_addr_to_str(outer_dst, a, sizeof(a)));
		if (ret == -ESRCH) {   /* gone already: expired, or removed by hand */
			log_info("xfrm: %s: already gone", what);
			return ret;
		}
		return log_fail(XFRM_MSG_DELSA, what, ret, why);
	}
	return 0;
}

struct sa_stats_req {
	uint32_t spi_net;
	bool found;
	struct hip_esp_sa_stats *out;
};

/* One SA of a dump (the messages also hold keys; nl_talk wipes the
 * receive buffer): the counters of ours with that SPI. */
static int sa_stats_cb(struct xfrm_dp *x, const struct nlmsghdr *h, void *arg)
{
	struct sa_stats_req *q = arg;
	struct xfrm_usersa_info info;

	if (q->found || h->nlmsg_type != XFRM_MSG_NEWSA ||
	    h->nlmsg_len < NLMSG_LENGTH(sizeof(info)))
		return 0;
	memcpy(&info, NLMSG_DATA(h), sizeof(info));
	if (info.reqid == x->reqid && info.id.spi == q->spi_net &&
	    info.id.proto == IPPROTO_ESP) {
		q->found = true;
		q->out->packets = info.curlft.packets;
		q->out->bytes = info.curlft.bytes;
		q->out->replay_drops = info.stats.replay + info.stats.replay_window;
		q->out->auth_drops = info.stats.integrity_failed;
	}
	hip_wipe(&info, sizeof(info));
	return 0;
}

/* The API names an SA by SPI only (GETSA also needs its destination): a
 * dump, which is fine for hipconf's occasional look. */
static int x_sa_stats(struct datapath *dp, uint32_t spi, bool inbound,
		      struct hip_esp_sa_stats *out)
{
	struct sa_stats_req q = { .spi_net = htonl(spi), .out = out };
	int ret;

	(void)inbound;
	memset(out, 0, sizeof(*out));
	ret = dump(to_x(dp), XFRM_MSG_GETSA, sa_stats_cb, &q);
	if (ret < 0)
		return ret;
	return q.found ? 0 : -ENOENT;
}

/* ---- policies -------------------------------------------------------------------- */

static int policy_put(struct xfrm_dp *x, uint16_t type, const struct xfrm_selector *sel,
		      uint8_t dir, uint32_t prio, const struct hip_addr *tmpl_src,
		      const struct hip_addr *tmpl_dst, const char *what)
{
	struct xfrm_userpolicy_info p;
	struct xfrm_user_tmpl t;
	struct xfrm_req r;
	char why[XFRM_WHY_MAX];
	int ret;

	memset(&p, 0, sizeof(p));
	memset(&t, 0, sizeof(t));
	p.sel = *sel;
	lifetime_inf(&p.lft);
	p.priority = prio;
	p.dir = dir;
	p.action = XFRM_POLICY_ALLOW;
	p.share = XFRM_SHARE_ANY;
	addr_to_xfrm(tmpl_dst, &t.id.daddr);
	addr_to_xfrm(tmpl_src, &t.saddr);
	t.id.proto = IPPROTO_ESP;
	t.family = addr_family(tmpl_dst);
	t.reqid = x->reqid;
	t.mode = XFRM_MODE_BEET;
	t.optional = 0;            /* level required: no SA, no traffic (ACQUIRE) */
	t.aalgos = t.ealgos = t.calgos = ~0u;
	req_init(&r, type, &p, sizeof(p));
	ret = req_put(&r, XFRMA_TMPL, &t, sizeof(t));
	if (ret < 0)
		return log_bad(type, what, ret, "template");
	ret = nl_talk(x, &r, false, NULL, NULL, why, sizeof(why));
	if (ret < 0)
		return log_fail(type, what, ret, why);
	return 0;
}

/* Is the policy in h one of ours (every template has our reqid)? Its
 * index and direction go to *id. */
static bool policy_is_ours(const struct xfrm_dp *x, const struct nlmsghdr *h,
			   struct xfrm_userpolicy_id *id)
{
	struct xfrm_userpolicy_info p;
	size_t off = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(p)), end = h->nlmsg_len;
	struct xfrm_user_tmpl t;
	struct nlattr a;
	size_t i, n = 0;

	if (h->nlmsg_type != XFRM_MSG_NEWPOLICY || end < NLMSG_LENGTH(sizeof(p)))
		return false;
	memcpy(&p, NLMSG_DATA(h), sizeof(p));
	while (off + NLA_HDRLEN <= end) {
		memcpy(&a, (const uint8_t *)h + off, sizeof(a));
		if (a.nla_len < NLA_HDRLEN || off + a.nla_len > end)
			return false;
		if (a.nla_type == XFRMA_TMPL) {
			size_t alen = (size_t)a.nla_len - NLA_HDRLEN;

			for (i = 0; i + sizeof(t) <= alen; i += sizeof(t)) {
				memcpy(&t, (const uint8_t *)h + off + NLA_HDRLEN + i, sizeof(t));
				if (t.reqid != x->reqid)
					return false;
				n++;
			}
		}
		off += NLA_ALIGN(a.nla_len);
	}
	if (n == 0)
		return false;
	memset(id, 0, sizeof(*id));
	id->sel = p.sel;
	id->index = p.index;
	id->dir = p.dir;
	return true;
}

static int policy_get_cb(struct xfrm_dp *x, const struct nlmsghdr *h, void *arg)
{
	struct xfrm_userpolicy_id *id = arg;

	if (!policy_is_ours(x, h, id))
		return -EPERM;     /* someone else's: not touched */
	return 0;
}

static int policy_del_by_index(struct xfrm_dp *x, const struct xfrm_userpolicy_id *id,
			       char *why, size_t whylen)
{
	struct xfrm_userpolicy_id del;
	struct xfrm_req r;

	memset(&del, 0, sizeof(del));
	del.index = id->index;
	del.dir = id->dir;
	req_init(&r, XFRM_MSG_DELPOLICY, &del, sizeof(del));
	return nl_talk(x, &r, false, NULL, NULL, why, whylen);
}

/* Remove the policy (sel, dir) if it is ours. -ENOENT if absent, -EPERM
 * if it belongs to someone else. */
static int policy_del_owned(struct xfrm_dp *x, const struct xfrm_selector *sel, uint8_t dir,
			    const char *what)
{
	struct xfrm_userpolicy_id id;
	struct xfrm_req r;
	char why[XFRM_WHY_MAX];
	int ret;

	memset(&id, 0, sizeof(id));
	id.sel = *sel;
	id.dir = dir;
	req_init(&r, XFRM_MSG_GETPOLICY, &id, sizeof(id));
	ret = nl_talk(x, &r, false, policy_get_cb, &id, why, sizeof(why));
	if (ret == -EPERM) {
		log_warn("xfrm: %s belongs to another IPsec user: left alone", what);
		return ret;
	}
	if (ret == 0)
		ret = policy_del_by_index(x, &id, why, sizeof(why));
	if (ret == -ENOENT) {
		log_info("xfrm: %s: already gone", what);
		return ret;
	}
	if (ret < 0)
		return log_fail(XFRM_MSG_DELPOLICY, what, ret, why);
	return 0;
}

/*
 * The policy (sel, dir) of ours with the template src -> dst: added if
 * absent (only with create; *created says so), replaced if ours
 * (XFRM_MSG_UPDPOLICY: the kernel swaps it in atomically, with no moment
 * without a policy), left alone if someone else's (-EEXIST). Without
 * create, an absent policy is fine (0).
 */
int policy_set(struct xfrm_dp *x, const struct xfrm_selector *sel, uint8_t dir,
	       const struct hip_addr *tmpl_src, const struct hip_addr *tmpl_dst, bool create,
	       bool *created, const char *what)
{
	struct xfrm_userpolicy_id id;
	struct xfrm_req r;
	char why[XFRM_WHY_MAX];
	int ret;

	if (created)
		*created = false;
	memset(&id, 0, sizeof(id));
	id.sel = *sel;
	id.dir = dir;
	req_init(&r, XFRM_MSG_GETPOLICY, &id, sizeof(id));
	ret = nl_talk(x, &r, false, policy_get_cb, &id, why, sizeof(why));
	if (ret == -EPERM) {
		log_warn("xfrm: %s: another IPsec user has a policy for these HITs: left alone",
			 what);
		return -EEXIST;
	}
	if (ret == -ENOENT && !create)
		return 0;
	if (ret == -ENOENT) {
		ret = policy_put(x, XFRM_MSG_NEWPOLICY, sel, dir, x->prio_pair, tmpl_src, tmpl_dst,
				 what);
		if (ret == 0 && created)
			*created = true;
		return ret;
	}
	if (ret < 0)
		return log_fail(XFRM_MSG_GETPOLICY, what, ret, why);
	return policy_put(x, XFRM_MSG_UPDPOLICY, sel, dir, x->prio_pair, tmpl_src, tmpl_dst, what);
}

/* A new pair, or the existing pair moved to new locators (UPDATE). The
 * larval state an ACQUIRE left for this HIT pair is removed once the
 * pair's policies carry its traffic (xfrm_replace.c). */
static int x_policy_add(struct datapath *dp, const struct hip_hit *local,
			const struct hip_hit *peer, const struct hip_addr *local_loc,
			const struct hip_addr *peer_loc)
{
	struct xfrm_dp *x = to_x(dp);
	struct xfrm_selector out, in;
	char hit[HIP_HIT_STR_LEN], what[96];
	bool out_created;
	int ret;

	if (addr_family(local_loc) != addr_family(peer_loc))
		return -EINVAL;
	hip_hit_to_str(peer, hit, sizeof(hit));
	sel_hits(&out, local, 128, peer, 128);
	sel_hits(&in, peer, 128, local, 128);
	snprintf(what, sizeof(what), "out policy to %s", hit);
	ret = policy_set(x, &out, XFRM_POLICY_OUT, local_loc, peer_loc, true, &out_created, what);
	if (ret < 0)
		return ret;
	snprintf(what, sizeof(what), "in policy from %s", hit);
	ret = policy_set(x, &in, XFRM_POLICY_IN, peer_loc, local_loc, true, NULL, what);
	if (ret < 0) {
		if (out_created) {
			snprintf(what, sizeof(what), "out policy to %s (undo)", hit);
			policy_del_owned(x, &out, XFRM_POLICY_OUT, what);
		}
		return ret;
	}
	larval_purge(x, local, peer);
	return 0;
}

static int x_policy_del(struct datapath *dp, const struct hip_hit *local,
			const struct hip_hit *peer)
{
	struct xfrm_dp *x = to_x(dp);
	struct xfrm_selector out, in;
	char hit[HIP_HIT_STR_LEN], what[96];
	int ret, ret2;

	hip_hit_to_str(peer, hit, sizeof(hit));
	sel_hits(&out, local, 128, peer, 128);
	sel_hits(&in, peer, 128, local, 128);
	snprintf(what, sizeof(what), "out policy to %s", hit);
	ret = policy_del_owned(x, &out, XFRM_POLICY_OUT, what);
	snprintf(what, sizeof(what), "in policy from %s", hit);
	ret2 = policy_del_owned(x, &in, XFRM_POLICY_IN, what);
	return ret < 0 ? ret : ret2;
}

/* 2001:20::/28 (RFC 7343) */
static void orchid_prefix(struct hip_hit *p)
{
	memset(p, 0, sizeof(*p));
	p->b[0] = 0x20;
	p->b[1] = 0x01;
	p->b[2] = 0x00;
	p->b[3] = 0x20;
}

/*
 * The template's outer source is the local HIT itself, so the kernel needs
 * no route to pick one, and its destination is unspecified: no SA ever
 * matches it, so a packet to any HIT without a pair policy makes the
 * kernel create a larval SA and send ACQUIRE (selector = the HIT pair).
 */
int xfrm_dp_acquire_policy_add(struct datapath *dp, const struct hip_hit *local)
{
	struct xfrm_dp *x = to_x(dp);
	struct xfrm_selector sel;
	struct hip_addr src, any;
	struct hip_hit prefix;
	char hit[HIP_HIT_STR_LEN], what[96];

	orchid_prefix(&prefix);
	sel_hits(&sel, local, 128, &prefix, 28);
	memcpy(&src.in6, local->b, sizeof(src.in6));
	memset(&any, 0, sizeof(any));
	snprintf(what, sizeof(what), "ACQUIRE policy %s -> 2001:20::/28",
		 hip_hit_to_str(local, hit, sizeof(hit)));
	return policy_put(x, XFRM_MSG_NEWPOLICY, &sel, XFRM_POLICY_OUT, x->prio_acquire, &src,
			  &any, what);
}

int xfrm_dp_acquire_policy_del(struct datapath *dp, const struct hip_hit *local)
{
	struct xfrm_dp *x = to_x(dp);
	struct xfrm_selector sel;
	struct hip_hit prefix;
	char hit[HIP_HIT_STR_LEN], what[96];

	orchid_prefix(&prefix);
	sel_hits(&sel, local, 128, &prefix, 28);
	snprintf(what, sizeof(what), "ACQUIRE policy %s -> 2001:20::/28",
		 hip_hit_to_str(local, hit, sizeof(hit)));
	return policy_del_owned(x, &sel, XFRM_POLICY_OUT, what);
}

/* ---- flush: dump, keep ours, delete ---------------------------------------------- */

struct collect {
	void *v;
	size_t n, cap, size;
};

static int collect_add(struct collect *c, const void *e)
{
	void *nv;

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;

		if (cap > XFRM_COLLECT_MAX)
			return -E2BIG;
		nv = realloc(c->v, cap * c->size);
		if (!nv)
			return -ENOMEM;
		c->v = nv;
		c->cap = cap;
	}
	memcpy((uint8_t *)c->v + c->n * c->size, e, c->size);
	c->n++;
	return 0;
}

static int sa_dump_cb(struct xfrm_dp *x, const struct nlmsghdr *h, void *arg)
{
	struct xfrm_usersa_info info;
	struct xfrm_usersa_id id;

	if (h->nlmsg_type != XFRM_MSG_NEWSA || h->nlmsg_len < NLMSG_LENGTH(sizeof(info)))
		return 0;
	memcpy(&info, NLMSG_DATA(h), sizeof(info));
	if (info.reqid != x->reqid || info.id.spi == 0)
		return 0;     /* not ours, or a larval (ACQUIRE) state: larval_purge */
	memset(&id, 0, sizeof(id));
	id.daddr = info.id.daddr;
	id.spi = info.id.spi;
	id.family = info.family;
	id.proto = info.id.proto;
	hip_wipe(&info, sizeof(info));
	return collect_add(arg, &id);
}

static int policy_dump_cb(struct xfrm_dp *x, const struct nlmsghdr *h, void *arg)
{
	struct xfrm_userpolicy_id id;

	if (!policy_is_ours(x, h, &id))
		return 0;
	return collect_add(arg, &id);
}

int dump(struct xfrm_dp *x, uint16_t type, xfrm_msg_cb cb, void *arg)
{
	struct xfrm_req r;
	char why[XFRM_WHY_MAX];
	int ret;

	memset(&r, 0, sizeof(r));
	r.n.nlmsg_type = type;
	r.n.nlmsg_len = NLMSG_HDRLEN;
	ret = nl_talk(x, &r, true, cb, arg, why, sizeof(why));
	if (ret < 0)
		log_fail(type, "dump", ret, why);
	return ret;
}

int xfrm_dp_flush_count(struct datapath *dp)
{
	struct xfrm_dp *x = to_x(dp);
	struct collect sas = { .size = sizeof(struct xfrm_usersa_id) };
	struct collect pols = { .size = sizeof(struct xfrm_userpolicy_id) };
	char why[XFRM_WHY_MAX];
	size_t i;
	int ret, removed = 0;

	ret = dump(x, XFRM_MSG_GETPOLICY, policy_dump_cb, &pols);
	for (i = 0; ret == 0 && i < pols.n; i++) {
		const struct xfrm_userpolicy_id *id =
			(const struct xfrm_userpolicy_id *)pols.v + i;
		int r = policy_del_by_index(x, id, why, sizeof(why));

		if (r == 0)
			removed++;
		else if (r != -ENOENT)
			log_fail(XFRM_MSG_DELPOLICY, "flush", r, why);
	}
	ret = dump(x, XFRM_MSG_GETSA, sa_dump_cb, &sas);
	for (i = 0; ret == 0 && i < sas.n; i++) {
		const struct xfrm_usersa_id *id = (const struct xfrm_usersa_id *)sas.v + i;
		int r = sa_del_raw(x, &id->daddr, id->family, id->spi, id->proto, why,
				   sizeof(why));

		if (r == 0)
			removed++;
		else if (r != -ESRCH && r != -ENOENT)
			log_fail(XFRM_MSG_DELSA, "flush", r, why);
	}
	/* The larval states of ACQUIREs not answered yet (or of a crashed hipd). */
	if (ret == 0)
		removed += larval_purge(x, NULL, NULL);
	free(pols.v);
	free(sas.v);
	return ret < 0 ? ret : removed;
}

static void x_flush(struct datapath *dp)
{
	int n = xfrm_dp_flush_count(dp);

	if (n > 0)
		log_info("xfrm: removed %d SAs and policies of this hipd", n);
}

/* ---- probe -------------------------------------------------------------------------- */

int xfrm_dp_probe_esp(struct datapath *dp, char *why, size_t whylen)
{
	struct xfrm_dp *x = to_x(dp);
	struct hip_esp_sa sa;
	struct in_addr a = { htonl(0x7f000001) }, b = { htonl(0x7f000002) };
	int ret;

	/* No secret here: zero keys on a loopback SA that lives a moment. */
	memset(&sa, 0, sizeof(sa));
	sa.spi = HIP_SPI_MIN + 0x4850;
	hip_addr_from_v4(&sa.outer_src, &a);
	hip_addr_from_v4(&sa.outer_dst, &b);
	sa.suite = HIP_ESP_AES128_CBC_SHA256;
	sa.enc_len = 16;
	sa.auth_len = 32;
	ret = sa_new(x, &sa, NULL, 0, true, why, whylen);
	if (ret == 0 || ret == -EEXIST) {
		int r = sa_del_raw(x, &(xfrm_address_t){ .a4 = b.s_addr }, AF_INET,
				   htonl(sa.spi), IPPROTO_ESP, NULL, 0);

		if (ret == 0 && r < 0)
			log_warn("xfrm: removing the probe SA: %s", strerror(-r));
		return 0;
	}
	/* Linux: "Requested type not found" when xfrm_get_type() finds no
	 * esp4/esp6. */
	return ret;
}

/* ---- life cycle --------------------------------------------------------------------------- */
static void x_free(struct datapath *dp)
{
	struct xfrm_dp *x = to_x(dp);

	if (!x)
		return;
	if (x->fd >= 0)
		close(x->fd);
	if (x->ev_fd >= 0)
		close(x->ev_fd);
	if (x->rx) {
		hip_wipe(x->rx, XFRM_RX_MAX);
		free(x->rx);
	}
	free(x);
}

static const struct datapath_ops xfrm_ops = {
	.name = "kernel",
	.sa_add = xfrm_op_sa_add,
	.sa_del = x_sa_del,
	.policy_add = x_policy_add,
	.policy_del = x_policy_del,
	.sa_stats = x_sa_stats,
	.flush = x_flush,
	.free = x_free,
};

int xfrm_dp_create(struct datapath **out, const struct xfrm_dp_conf *conf,
		   const struct datapath_events *ev)
{
	struct timeval tv = { .tv_sec = XFRM_ACK_TIMEOUT_S };
	struct xfrm_dp *x = calloc(1, sizeof(*x));
	int ret;

	*out = NULL;
	if (!x)
		return -ENOMEM;
	x->fd = x->ev_fd = -1;
	x->dp.ops = &xfrm_ops;
	if (ev)
		x->dp.ev = *ev;
	x->reqid = xfrm_reqid_or_default(conf ? conf->reqid : 0);
	x->prio_pair = conf && conf->prio_pair ? conf->prio_pair : HIP_XFRM_PRIO_PAIR;
	x->prio_acquire = conf && conf->prio_acquire ? conf->prio_acquire
						     : HIP_XFRM_PRIO_ACQUIRE;
	log_ratelimit_init(&x->ev_log, 1000, 5);
	x->rx = malloc(XFRM_RX_MAX);
	if (!x->rx) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = nl_open(0, &x->portid);
	if (ret < 0)
		goto fail;
	x->fd = ret;
	/* A lost ACK must not hang the daemon. */
	if (setsockopt(x->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		ret = -errno;
		goto fail;
	}
	ret = nl_open(XFRMGRP_ACQUIRE | XFRMGRP_EXPIRE, NULL);
	if (ret < 0)
		goto fail;
	x->ev_fd = ret;
	if (fcntl(x->ev_fd, F_SETFL, O_NONBLOCK) < 0) {
		ret = -errno;
		goto fail;
	}
	*out = &x->dp;
	return 0;
fail:
	x_free(&x->dp);
	return ret;
}
