/*
 * xfrm_msg.c - the NETLINK_XFRM messages the kernel datapath is built from
 * (xfrm_int.h; RFC 7402 App. B, docs/protocol.md §10): HIT selectors
 * and addresses, the RFC 7402 §5.1.2 suites as Linux algorithm names, SAs
 * (NEWSA with keys and the ESN replay state, DELSA), the pair and catch-all
 * policies of our reqid (added, updated in place, removed only if ours) and
 * dumps. Used by xfrm.c (datapath_ops) and xfrm_replace.c; requests go out
 * through xfrm_nl.c, never back up.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/udp.h>
#include <linux/netlink.h>
#include <linux/xfrm.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "hip_crypto.h"
#include "hip_wire.h"
#include "xfrm_int.h"

/* ---- addresses and selectors ------------------------------------------------ */

uint16_t xfrm_addr_family(const struct hip_addr *a)
{
	return hip_addr_is_v4(a) ? AF_INET : AF_INET6;
}

/* xfrm_address_t: an IPv4 address sits in its first 4 bytes. */
void xfrm_addr_from_hip(const struct hip_addr *a, xfrm_address_t *out)
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

void xfrm_sel_hits(struct xfrm_selector *sel, const struct hip_hit *src, uint8_t src_len,
		   const struct hip_hit *dst, uint8_t dst_len)
{
	memset(sel, 0, sizeof(*sel));
	memcpy(sel->saddr.a6, src->b, sizeof(sel->saddr.a6));
	memcpy(sel->daddr.a6, dst->b, sizeof(sel->daddr.a6));
	sel->prefixlen_s = src_len;
	sel->prefixlen_d = dst_len;
	sel->family = AF_INET6;
}

void xfrm_sel_lsis(struct xfrm_selector *sel, const struct in_addr *src, uint8_t src_len,
		   const struct in_addr *dst, uint8_t dst_len)
{
	memset(sel, 0, sizeof(*sel));
	memcpy(&sel->saddr.a4, &src->s_addr, sizeof(sel->saddr.a4));
	memcpy(&sel->daddr.a4, &dst->s_addr, sizeof(sel->daddr.a4));
	sel->prefixlen_s = src_len;
	sel->prefixlen_d = dst_len;
	sel->family = AF_INET;
}

/* BEET rebuilds the inner header from the SA's selector (RFC 7402 App. B;
 * Linux: x->sel): the HITs, or the LSIs for IPv4 (D-22). */
void xfrm_sel_of_sa(struct xfrm_selector *sel, const struct hip_esp_sa *sa)
{
	if (sa->inner_v4)
		xfrm_sel_lsis(sel, &sa->lsi_src, 32, &sa->lsi_dst, 32);
	else
		xfrm_sel_hits(sel, &sa->inner_src, 128, &sa->inner_dst, 128);
}

bool xfrm_sel_same_hosts(const struct xfrm_selector *a, const struct xfrm_selector *b)
{
	size_t len = a->family == AF_INET ? sizeof(a->saddr.a4) : sizeof(a->saddr.a6);

	return a->family == b->family && (a->family == AF_INET || a->family == AF_INET6) &&
	       !memcmp(&a->saddr, &b->saddr, len) && !memcmp(&a->daddr, &b->daddr, len);
}

void xfrm_lifetime_inf(struct xfrm_lifetime_cfg *lft)
{
	lft->soft_byte_limit = XFRM_INF;
	lft->hard_byte_limit = XFRM_INF;
	lft->soft_packet_limit = XFRM_INF;
	lft->hard_packet_limit = XFRM_INF;
}

void xfrm_sa_what(const struct hip_esp_sa *sa, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN], l[INET_ADDRSTRLEN], m[INET_ADDRSTRLEN];

	if (sa->inner_v4)
		snprintf(buf, len, "%s SA spi 0x%08x %s -> %s (IPv4 %s -> %s)",
			 sa->inbound ? "inbound" : "outbound", sa->spi,
			 hip_addr_to_str(&sa->outer_src, a, sizeof(a)),
			 hip_addr_to_str(&sa->outer_dst, b, sizeof(b)),
			 inet_ntop(AF_INET, &sa->lsi_src, l, sizeof(l)) ? l : "?",
			 inet_ntop(AF_INET, &sa->lsi_dst, m, sizeof(m)) ? m : "?");
	else
		snprintf(buf, len, "%s SA spi 0x%08x %s -> %s", sa->inbound ? "inbound" : "outbound",
			 sa->spi, hip_addr_to_str(&sa->outer_src, a, sizeof(a)),
			 hip_addr_to_str(&sa->outer_dst, b, sizeof(b)));
}

/* ---- SAs ------------------------------------------------------------------------ */

/* RFC 7402 §5.1.2 suites as Linux crypto names (docs/protocol.md §10, A-6). */
int xfrm_alg_for_suite(uint16_t suite, struct alg_spec *s)
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
	int ret = xfrm_alg_for_suite(sa->suite, &s);

	if (ret < 0)
		return ret;
	if (sa->enc_len != s.enc_len || sa->auth_len != s.auth_len)
		return -EINVAL;
	if (s.aead) {
		struct xfrm_algo_aead a = { .alg_key_len = (unsigned)(s.enc_len * 8),
					    .alg_icv_len = s.icv_bits };

		snprintf(a.alg_name, sizeof(a.alg_name), "%s", s.aead);
		return xfrm_req_put2(r, XFRMA_ALG_AEAD, &a, sizeof(a), sa->enc_key, s.enc_len);
	} else {
		struct xfrm_algo e = { .alg_key_len = (unsigned)(s.enc_len * 8) };
		struct xfrm_algo_auth h = { .alg_key_len = (unsigned)(s.auth_len * 8),
					    .alg_trunc_len = s.trunc_bits };

		snprintf(e.alg_name, sizeof(e.alg_name), "%s", s.enc);
		snprintf(h.alg_name, sizeof(h.alg_name), "%s", s.auth);
		ret = xfrm_req_put2(r, XFRMA_ALG_CRYPT, &e, sizeof(e), sa->enc_key, s.enc_len);
		if (ret == 0)
			ret = xfrm_req_put2(r, XFRMA_ALG_AUTH_TRUNC, &h, sizeof(h), sa->auth_key,
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
	return xfrm_req_put2(r, XFRMA_REPLAY_ESN_VAL, &esn, sizeof(esn), bmp,
			     esn.bmp_len * sizeof(bmp[0]));
}

/* XFRM_MSG_NEWSA or UPDSA (type). esn: a replay state to start from
 * (carried over from the SA this one replaces), NULL for a fresh one.
 * quiet: the probe reports a missing ESP itself (the kernel's text in kwhy
 * when given). */
static int sa_put(struct xfrm_dp *x, uint16_t type, const struct hip_esp_sa *sa, const void *esn,
		  size_t esn_len, bool quiet, char *kwhy, size_t kwhylen)
{
	struct xfrm_usersa_info info;
	struct xfrm_req r;
	char what[160], why[XFRM_WHY_MAX];
	int ret;

	memset(&info, 0, sizeof(info));
	/* the inner family (HITs: IPv6; LSIs: IPv4, D-22) may differ from the
	 * outer one: BEET is a tunnel mode to the kernel, which allows that */
	xfrm_sel_of_sa(&info.sel, sa);
	xfrm_addr_from_hip(&sa->outer_dst, &info.id.daddr);
	xfrm_addr_from_hip(&sa->outer_src, &info.saddr);
	info.id.spi = htonl(sa->spi);
	info.id.proto = IPPROTO_ESP;
	info.family = xfrm_addr_family(&sa->outer_dst);
	info.mode = XFRM_MODE_BEET;
	info.reqid = x->reqid;
	info.flags = XFRM_STATE_ESN;
	info.replay_window = 0;    /* with ESN the window is in the ESN state */
	xfrm_lifetime_inf(&info.lft);
	if (sa->soft_bytes)
		info.lft.soft_byte_limit = sa->soft_bytes;
	if (sa->hard_bytes)
		info.lft.hard_byte_limit = sa->hard_bytes;
	info.lft.soft_add_expires_seconds = sa->soft_seconds;
	info.lft.hard_add_expires_seconds = sa->hard_seconds;
	xfrm_sa_what(sa, what, sizeof(what));
	if (xfrm_addr_family(&sa->outer_src) != info.family || sa->spi < HIP_SPI_MIN)
		return xfrm_log_bad(type, what, -EINVAL, "outer families differ or SPI < 256");
	if (sa->inner_v4 && (!sa->lsi_src.s_addr || !sa->lsi_dst.s_addr))
		return xfrm_log_bad(type, what, -EINVAL, "IPv4 inner without both LSIs");

	xfrm_req_init(&r, type, &info, sizeof(info));
	ret = put_algs(&r, sa);
	if (ret == 0 && esn)
		ret = xfrm_req_put(&r, XFRMA_REPLAY_ESN_VAL, esn, esn_len);
	else if (ret == 0)
		ret = put_esn(&r, sa->replay_window);
	if (ret == 0 && sa->encap_dport) {
		/* ESP in UDP (RFC 3948, RFC 9028 §5.1): the kernel adds and
		 * strips the UDP header; the socket on our port has UDP_ENCAP */
		struct xfrm_encap_tmpl enc;

		memset(&enc, 0, sizeof(enc));
		enc.encap_type = UDP_ENCAP_ESPINUDP;
		enc.encap_sport = htons(sa->encap_sport);
		enc.encap_dport = htons(sa->encap_dport);
		ret = xfrm_req_put(&r, XFRMA_ENCAP, &enc, sizeof(enc));
	}
	if (ret < 0) {
		hip_wipe(&r, sizeof(r));
		return xfrm_log_bad(type, what, ret, "suite, key length or replay window");
	}
	ret = xfrm_nl_talk(x, &r, false, NULL, NULL, why, sizeof(why));   /* wipes r */
	if (ret < 0) {
		if (!quiet)
			xfrm_log_fail(type, what, ret, why);
		if (kwhy && kwhylen)
			snprintf(kwhy, kwhylen, "%s%s%s%s", strerror(-ret),
				 why[0] ? " (kernel: " : "", why, why[0] ? ")" : "");
		return ret;
	}
	log_debug("%s %s suite %u", type == XFRM_MSG_NEWSA ? "installed" : "updated", what,
		  sa->suite);
	return 0;
}

int xfrm_sa_new(struct xfrm_dp *x, const struct hip_esp_sa *sa, const void *esn, size_t esn_len,
		bool quiet, char *kwhy, size_t kwhylen)
{
	return sa_put(x, XFRM_MSG_NEWSA, sa, esn, esn_len, quiet, kwhy, kwhylen);
}

int xfrm_sa_update(struct xfrm_dp *x, const struct hip_esp_sa *sa)
{
	return sa_put(x, XFRM_MSG_UPDSA, sa, NULL, 0, false, NULL, 0);
}

int xfrm_sa_del_raw(struct xfrm_dp *x, const xfrm_address_t *daddr, uint16_t family,
		    uint32_t spi_net, uint8_t proto, char *why, size_t whylen)
{
	struct xfrm_usersa_id id;
	struct xfrm_req r;

	memset(&id, 0, sizeof(id));
	id.daddr = *daddr;
	id.spi = spi_net;
	id.family = family;
	id.proto = proto;
	xfrm_req_init(&r, XFRM_MSG_DELSA, &id, sizeof(id));
	return xfrm_nl_talk(x, &r, false, NULL, NULL, why, whylen);
}

/* ---- policies -------------------------------------------------------------------- */

int xfrm_policy_put(struct xfrm_dp *x, uint16_t type, const struct xfrm_selector *sel,
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
	xfrm_lifetime_inf(&p.lft);
	p.priority = prio;
	p.dir = dir;
	p.action = XFRM_POLICY_ALLOW;
	p.share = XFRM_SHARE_ANY;
	xfrm_addr_from_hip(tmpl_dst, &t.id.daddr);
	xfrm_addr_from_hip(tmpl_src, &t.saddr);
	t.id.proto = IPPROTO_ESP;
	t.family = xfrm_addr_family(tmpl_dst);
	t.reqid = x->reqid;
	t.mode = XFRM_MODE_BEET;
	t.optional = 0;            /* level required: no SA, no traffic (ACQUIRE) */
	t.aalgos = t.ealgos = t.calgos = ~0u;
	xfrm_req_init(&r, type, &p, sizeof(p));
	ret = xfrm_req_put(&r, XFRMA_TMPL, &t, sizeof(t));
	if (ret < 0)
		return xfrm_log_bad(type, what, ret, "template");
	ret = xfrm_nl_talk(x, &r, false, NULL, NULL, why, sizeof(why));
	if (ret < 0)
		return xfrm_log_fail(type, what, ret, why);
	return 0;
}

/* Is the policy in h one of ours (every template has our reqid)? Its
 * index and direction go to *id. */
bool xfrm_policy_is_ours(const struct xfrm_dp *x, const struct nlmsghdr *h,
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

	if (!xfrm_policy_is_ours(x, h, id))
		return -EPERM;     /* someone else's: not touched */
	return 0;
}

int xfrm_policy_del_by_index(struct xfrm_dp *x, const struct xfrm_userpolicy_id *id,
			     char *why, size_t whylen)
{
	struct xfrm_userpolicy_id del;
	struct xfrm_req r;

	memset(&del, 0, sizeof(del));
	del.index = id->index;
	del.dir = id->dir;
	xfrm_req_init(&r, XFRM_MSG_DELPOLICY, &del, sizeof(del));
	return xfrm_nl_talk(x, &r, false, NULL, NULL, why, whylen);
}

/* Remove the policy (sel, dir) if it is ours. -ENOENT if absent, -EPERM
 * if it belongs to someone else. */
int xfrm_policy_del_owned(struct xfrm_dp *x, const struct xfrm_selector *sel, uint8_t dir,
			  const char *what)
{
	struct xfrm_userpolicy_id id;
	struct xfrm_req r;
	char why[XFRM_WHY_MAX];
	int ret;

	memset(&id, 0, sizeof(id));
	id.sel = *sel;
	id.dir = dir;
	xfrm_req_init(&r, XFRM_MSG_GETPOLICY, &id, sizeof(id));
	ret = xfrm_nl_talk(x, &r, false, policy_get_cb, &id, why, sizeof(why));
	if (ret == -EPERM) {
		log_warn("xfrm: %s belongs to another IPsec user: left alone", what);
		return ret;
	}
	if (ret == 0)
		ret = xfrm_policy_del_by_index(x, &id, why, sizeof(why));
	if (ret == -ENOENT) {
		log_info("xfrm: %s: already gone", what);
		return ret;
	}
	if (ret < 0)
		return xfrm_log_fail(XFRM_MSG_DELPOLICY, what, ret, why);
	return 0;
}

/*
 * The policy (sel, dir) of ours with the template src -> dst: added if
 * absent (only with create; *created says so), replaced if ours
 * (XFRM_MSG_UPDPOLICY: the kernel swaps it in atomically, with no moment
 * without a policy), left alone if someone else's (-EEXIST). Without
 * create, an absent policy is fine (0).
 */
int xfrm_policy_set(struct xfrm_dp *x, const struct xfrm_selector *sel, uint8_t dir,
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
	xfrm_req_init(&r, XFRM_MSG_GETPOLICY, &id, sizeof(id));
	ret = xfrm_nl_talk(x, &r, false, policy_get_cb, &id, why, sizeof(why));
	if (ret == -EPERM) {
		log_warn("xfrm: %s: another IPsec user has a policy for these HITs: left alone",
			 what);
		return -EEXIST;
	}
	if (ret == -ENOENT && !create)
		return 0;
	if (ret == -ENOENT) {
		ret = xfrm_policy_put(x, XFRM_MSG_NEWPOLICY, sel, dir, x->prio_pair, tmpl_src,
				      tmpl_dst, what);
		if (ret == 0 && created)
			*created = true;
		return ret;
	}
	if (ret < 0)
		return xfrm_log_fail(XFRM_MSG_GETPOLICY, what, ret, why);
	return xfrm_policy_put(x, XFRM_MSG_UPDPOLICY, sel, dir, x->prio_pair, tmpl_src, tmpl_dst,
			       what);
}

/* ---- dumps ----------------------------------------------------------------------- */

int xfrm_dump(struct xfrm_dp *x, uint16_t type, xfrm_msg_cb cb, void *arg)
{
	struct xfrm_req r;
	char why[XFRM_WHY_MAX];
	int ret;

	memset(&r, 0, sizeof(r));
	r.n.nlmsg_type = type;
	r.n.nlmsg_len = NLMSG_HDRLEN;
	ret = xfrm_nl_talk(x, &r, true, cb, arg, why, sizeof(why));
	if (ret < 0)
		xfrm_log_fail(type, "dump", ret, why);
	return ret;
}
