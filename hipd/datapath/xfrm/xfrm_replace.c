/*
 * xfrm_replace.c - installing an SA under the replace-in-place contract of
 * datapath.h (UPDATE readdress and rekey, RFC 8046 §5, RFC 7402 §6), and
 * removing the larval states ACQUIRE leaves behind.
 *
 * Replacing. The kernel keys an SA by (daddr, SPI, proto). XFRM_MSG_UPDSA
 * changes only the lifetimes, marks and encapsulation of a valid SA, never
 * its keys or source address. XFRM_MSG_MIGRATE moves addresses, but finds
 * the state to move by (addresses, reqid, mode) without the SPI: with two
 * of our SAs between the same locators (a rekey's old and new SA, two HITs
 * on one host) it can move the wrong one. So here:
 *  - the SA to replace is found in an SA dump by our reqid, the SPI and the
 *    HIT pair of its selector (which also tells the direction);
 *  - new destination (a new key triple): the new SA is added first, the
 *    pair policy of that direction is moved to the new locators
 *    (XFRM_MSG_UPDPOLICY, swapped atomically by the kernel), then the old SA
 *    is deleted: no moment without a usable SA;
 *  - same addresses and keys, new UDP ports (the peer's NAT rebound, RFC
 *    3948 §4: a NAT keeps a mapping only while packets use it, then may
 *    give another port): XFRM_MSG_UPDSA changes the encapsulation of the
 *    SA in place, its replay state and counters untouched, no packet lost;
 *  - same destination (new source and/or keys): the kernel cannot hold two
 *    SAs with one triple, so the old one is deleted and the new one added
 *    right after, one netlink round trip later. Outbound packets in that
 *    window wait in the policy's hold queue (xfrm_larval_drop = 0); inbound
 *    ESP arriving in those microseconds is dropped (XfrmInNoStates);
 *  - unchanged keys carry the replay state over (RFC 4303 §3.3.3: the
 *    counter must not restart under one key), the outbound counter advanced
 *    by XFRM_SEQ_SKIP past packets sent on the old SA meanwhile; new keys
 *    start at zero.
 * Cost: one SA dump per sa_add (the SA may sit under another destination),
 * linear in the SAs of the namespace.
 *
 * Larval states. An ACQUIRE leaves a state with SPI 0, our reqid, the
 * catch-all template's addresses (local HIT -> ::; for IPv4, D-22, local
 * LSI -> 0.0.0.0) and the flow as its selector. No SA we install matches
 * it (the kernel drops a larval state only for a new SA with its mode,
 * reqid and addresses), so it would live
 * net.core.xfrm_acq_expires (30 s), and meanwhile every flow from that
 * local HIT through the catch-all policy counts as "acquire in progress":
 * no ACQUIRE after a CLOSE, nor for another new peer. DELSA cannot name an
 * SPI-0 state (it looks states up by SPI), so XFRM_MSG_ALLOCSPI, given the
 * larval's sequence number, assigns it an SPI and DELSA removes it. This
 * runs once the pair policies carry the flow (policy_add), and in flush.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/udp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hip_crypto.h"
#include "hip_wire.h"
#include "xfrm_int.h"

enum { XFRM_ESN_MAX = sizeof(struct xfrm_replay_state_esn) + XFRM_REPLAY_MAX / 8 };

/* ---- finding the SA to replace -------------------------------------------------- */

struct sa_found {
	const struct hip_esp_sa *sa;   /* the new one */
	struct xfrm_selector sel;      /* and its selector: HITs, or LSIs (D-22) */
	uint32_t spi_net;
	bool found, same_keys;
	struct xfrm_usersa_id id;      /* the old one */
	xfrm_address_t saddr;          /* and its source */
	uint8_t esn[XFRM_ESN_MAX];     /* its replay state (XFRMA_REPLAY_ESN_VAL) */
	size_t esn_len;
	uint64_t add_time, bytes;      /* its age (wall-clock seconds) and use */
	bool has_encap;                /* and its ESP in UDP (XFRMA_ENCAP) */
	struct xfrm_encap_tmpl encap;
};

/* Is the algorithm attribute p (struct xfrm_algo, _auth or _aead: the
 * name, the key length in bits, for _auth and _aead one more 32-bit field,
 * the key from offset hdr) name with this key (and that extra value)? */
static bool alg_matches(const uint8_t *p, size_t plen, size_t hdr, const char *name,
			const uint8_t *key, size_t keylen, const unsigned *extra)
{
	char n[sizeof(((struct xfrm_algo *)0)->alg_name)];
	unsigned bits, x = 0;

	if (!name || plen < hdr + keylen || hdr < sizeof(n) + sizeof(bits) * (extra ? 2 : 1))
		return false;
	memcpy(n, p, sizeof(n));
	n[sizeof(n) - 1] = '\0';
	memcpy(&bits, p + sizeof(n), sizeof(bits));
	if (extra)
		memcpy(&x, p + sizeof(n) + sizeof(bits), sizeof(x));
	return strcmp(n, name) == 0 && bits == keylen * 8 && (!extra || x == *extra) &&
	       hip_memeq_ct(p + hdr, key, keylen);
}

/* The attributes of the old SA (message h): same algorithms and keys as
 * the new one? Its replay state is kept in f. */
static void sa_scan_attrs(const struct nlmsghdr *h, struct sa_found *f)
{
	size_t off = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct xfrm_usersa_info));
	size_t end = h->nlmsg_len;
	const struct hip_esp_sa *sa = f->sa;
	unsigned want, seen = 0, bad = 0;
	struct alg_spec s;
	struct nlattr a;

	if (xfrm_alg_for_suite(sa->suite, &s) < 0)
		return;
	want = s.aead ? 1u : 6u;
	while (off + NLA_HDRLEN <= end) {
		const uint8_t *p = (const uint8_t *)h + off + NLA_HDRLEN;
		size_t plen;

		memcpy(&a, (const uint8_t *)h + off, sizeof(a));
		if (a.nla_len < NLA_HDRLEN || off + a.nla_len > end)
			break;
		plen = a.nla_len - NLA_HDRLEN;
		switch (a.nla_type) {
		case XFRMA_ALG_AEAD:
			seen |= 1;
			bad |= !alg_matches(p, plen, sizeof(struct xfrm_algo_aead), s.aead,
					    sa->enc_key, s.enc_len, &s.icv_bits);
			break;
		case XFRMA_ALG_CRYPT:
			seen |= 2;
			bad |= !alg_matches(p, plen, sizeof(struct xfrm_algo), s.enc, sa->enc_key,
					    s.enc_len, NULL);
			break;
		case XFRMA_ALG_AUTH_TRUNC:
			seen |= 4;
			bad |= !alg_matches(p, plen, sizeof(struct xfrm_algo_auth), s.auth,
					    sa->auth_key, s.auth_len, &s.trunc_bits);
			break;
		case XFRMA_ENCAP:
			if (plen >= sizeof(f->encap)) {
				memcpy(&f->encap, p, sizeof(f->encap));
				f->has_encap = true;
			}
			break;
		case XFRMA_REPLAY_ESN_VAL:
			if (plen >= sizeof(struct xfrm_replay_state_esn) &&
			    plen <= sizeof(f->esn)) {
				memcpy(f->esn, p, plen);
				f->esn_len = plen;
			}
			break;
		default:
			break;
		}
		off += NLA_ALIGN(a.nla_len);
	}
	f->same_keys = seen == want && !bad;
}

/* One SA of the dump: ours, this SPI, this HIT (or LSI) pair, so this
 * direction and this inner family? */
static int sa_find_cb(struct xfrm_dp *x, const struct nlmsghdr *h, void *arg)
{
	struct sa_found *f = arg;
	struct xfrm_usersa_info info;

	if (f->found || h->nlmsg_type != XFRM_MSG_NEWSA ||
	    h->nlmsg_len < NLMSG_LENGTH(sizeof(info)))
		return 0;
	memcpy(&info, NLMSG_DATA(h), sizeof(info));
	if (info.reqid == x->reqid && info.id.spi == f->spi_net && info.id.proto == IPPROTO_ESP &&
	    xfrm_sel_same_hosts(&info.sel, &f->sel)) {
		f->found = true;
		f->id.daddr = info.id.daddr;
		f->id.spi = info.id.spi;
		f->id.family = info.family;
		f->id.proto = info.id.proto;
		f->saddr = info.saddr;
		f->add_time = info.curlft.add_time;
		f->bytes = info.curlft.bytes;
		sa_scan_attrs(h, f);
	}
	hip_wipe(&info, sizeof(info));
	return 0;
}

/* Carry the old replay state over: same window size only; the outbound
 * counter skips ahead (packets may still leave on the old SA). */
static bool esn_carry(struct sa_found *f, const struct hip_esp_sa *sa)
{
	struct xfrm_replay_state_esn e;
	uint32_t window = sa->replay_window ? sa->replay_window : XFRM_REPLAY_DEFAULT;
	uint64_t o;

	if (!f->same_keys || f->esn_len < sizeof(e))
		return false;
	memcpy(&e, f->esn, sizeof(e));
	if (e.replay_window != window ||
	    f->esn_len != sizeof(e) + (size_t)e.bmp_len * sizeof(uint32_t))
		return false;
	if (!sa->inbound) {
		o = ((uint64_t)e.oseq_hi << 32 | e.oseq) + XFRM_SEQ_SKIP;
		e.oseq = (uint32_t)o;
		e.oseq_hi = (uint32_t)(o >> 32);
		memcpy(f->esn, &e, sizeof(e));
	}
	return true;
}

/* The replacement is a new kernel SA, whose lifetimes would start again:
 * they go on from the first install instead (as in the userspace datapath),
 * else a host moving more often than the soft lifetime would never rekey.
 * A soft limit already passed was reported then: none now. */
static uint64_t limit_left(uint64_t limit, uint64_t used, bool soft)
{
	if (!limit)
		return 0;
	if (used < limit)
		return limit - used;
	return soft ? 0 : 1;
}

static void sa_age(struct hip_esp_sa *sa, const struct sa_found *f)
{
	time_t now = time(NULL);
	uint64_t age = now > 0 && (uint64_t)now > f->add_time ? (uint64_t)now - f->add_time : 0;

	sa->soft_seconds = limit_left(sa->soft_seconds, age, true);
	sa->hard_seconds = limit_left(sa->hard_seconds, age, false);
	sa->soft_bytes = limit_left(sa->soft_bytes, f->bytes, true);
	sa->hard_bytes = limit_left(sa->hard_bytes, f->bytes, false);
}

/* Does the old SA carry the UDP encapsulation sa asks for (or none of it
 * as sa)? */
static bool encap_same(const struct sa_found *f, const struct hip_esp_sa *sa)
{
	if (!f->has_encap || !sa->encap_dport)
		return f->has_encap == (sa->encap_dport != 0);
	return f->encap.encap_type == UDP_ENCAP_ESPINUDP &&
	       ntohs(f->encap.encap_sport) == sa->encap_sport &&
	       ntohs(f->encap.encap_dport) == sa->encap_dport;
}

/* Only the UDP ports differ: XFRM_MSG_UPDSA with the SA as first installed
 * (the kernel keeps the SA's own counters and use, and takes the lifetime
 * limits as they were, not what is left of them). 0 done, else -errno and
 * the caller replaces the SA. */
static int sa_update_ports(struct xfrm_dp *x, const struct hip_esp_sa *sa, const char *what)
{
	int ret = xfrm_sa_update(x, sa);

	if (ret == 0)
		log_info("xfrm: %s: UDP encapsulation changed in place (ports %u -> %u)", what,
			 sa->encap_sport, sa->encap_dport);
	return ret;
}

/* What sa_replace does with the SA found under the new one's SPI. */
enum sa_move {
	SA_UNCHANGED,         /* the same SA again: nothing to do */
	SA_PORTS_MOVED,       /* NAT rebinding: UDP ports changed in place (UPDSA) */
	SA_REPLACE_SAME_DST,  /* delete first: the kernel holds one per (dst, SPI) */
	SA_REPLACE_NEW_DST,   /* add the new one, then delete the old */
};

static enum sa_move sa_move_decide(struct xfrm_dp *x, const struct hip_esp_sa *sa_in,
				   const struct hip_esp_sa *sa, const struct sa_found *f,
				   bool carry, const char *what)
{
	xfrm_address_t daddr, saddr;

	xfrm_addr_from_hip(&sa->outer_dst, &daddr);
	xfrm_addr_from_hip(&sa->outer_src, &saddr);
	if (f->id.family != xfrm_addr_family(&sa->outer_dst) ||
	    memcmp(&f->id.daddr, &daddr, sizeof(daddr)) != 0)
		return SA_REPLACE_NEW_DST;
	/* The same SA again (an inbound SA that moved ahead of the address
	 * check, update_locator.c, then the whole move): deleting and adding
	 * it would only drop what arrives in between. */
	if (!carry || memcmp(&f->saddr, &saddr, sizeof(saddr)) != 0)
		return SA_REPLACE_SAME_DST;
	if (encap_same(f, sa))
		return SA_UNCHANGED;
	if (f->has_encap && sa->encap_dport && sa_update_ports(x, sa_in, what) == 0)
		return SA_PORTS_MOVED;
	return SA_REPLACE_SAME_DST;
}

static int sa_replace(struct xfrm_dp *x, const struct hip_esp_sa *sa_in, struct sa_found *f)
{
	struct hip_esp_sa aged = *sa_in, *sa = &aged;
	char what[160], why[XFRM_WHY_MAX];
	enum sa_move move;
	bool carry;
	int ret, r;

	sa_age(&aged, f);
	xfrm_sa_what(sa, what, sizeof(what));
	carry = esn_carry(f, sa);
	move = sa_move_decide(x, sa_in, sa, f, carry, what);
	if (move == SA_REPLACE_SAME_DST) {
		ret = xfrm_sa_del_raw(x, &f->id.daddr, f->id.family, f->id.spi, IPPROTO_ESP, why,
				      sizeof(why));
		if (ret < 0 && ret != -ESRCH) {
			ret = xfrm_log_fail(XFRM_MSG_DELSA, what, ret, why);
			goto out;
		}
	}
	if (move == SA_REPLACE_SAME_DST || move == SA_REPLACE_NEW_DST) {
		ret = xfrm_sa_new(x, sa, carry ? f->esn : NULL, f->esn_len, false, NULL, 0);
		if (ret < 0)
			goto out;       /* with the same destination the old SA is gone too (logged) */
	}
	/* The pair policy of this direction, if there is one, follows: its
	 * template names the SA's addresses (outbound: which SA is used;
	 * inbound: the kernel checks the SA that decrypted against it). */
	{
		struct xfrm_selector sel;

		xfrm_sel_of_sa(&sel, sa);
		ret = xfrm_policy_set(x, &sel, sa->inbound ? XFRM_POLICY_IN : XFRM_POLICY_OUT,
				      &sa->outer_src, &sa->outer_dst, false, NULL, what);
	}
	if (move == SA_REPLACE_NEW_DST) {
		r = xfrm_sa_del_raw(x, &f->id.daddr, f->id.family, f->id.spi, IPPROTO_ESP, why,
				    sizeof(why));
		if (r < 0 && r != -ESRCH)
			xfrm_log_fail(XFRM_MSG_DELSA, "the SA replaced", r, why);
	}
	if (move == SA_UNCHANGED)
		log_debug("xfrm: %s unchanged", what);
	else if (move != SA_PORTS_MOVED)
		log_info("xfrm: %s replaced in place (%s destination, %s)", what,
			 move == SA_REPLACE_SAME_DST ? "same" : "new",
			 carry ? "same keys: replay state carried over" : "new keys: counters from 0");
out:
	hip_wipe(&aged, sizeof(aged));
	return ret;
}

int xfrm_op_sa_add(struct datapath *dp, const struct hip_esp_sa *sa)
{
	struct xfrm_dp *x = to_x(dp);
	struct sa_found f;
	int ret;

	memset(&f, 0, sizeof(f));
	f.sa = sa;
	xfrm_sel_of_sa(&f.sel, sa);
	f.spi_net = htonl(sa->spi);
	ret = xfrm_dump(x, XFRM_MSG_GETSA, sa_find_cb, &f);
	if (ret < 0)
		goto out;
	if (!f.found)
		ret = xfrm_sa_new(x, sa, NULL, 0, false, NULL, 0);
	else
		ret = sa_replace(x, sa, &f);
out:
	hip_wipe(&f, sizeof(f));
	return ret;
}

/* ---- larval states ----------------------------------------------------------------- */

struct larval {
	xfrm_address_t daddr, saddr;
	uint16_t family;
	uint32_t seq;
};

struct larval_find {
	const struct xfrm_selector *sel;      /* the flow; NULL: all of ours */
	struct larval l[XFRM_LARVAL_MAX];
	size_t n;
};

static int larval_find_cb(struct xfrm_dp *x, const struct nlmsghdr *h, void *arg)
{
	struct larval_find *q = arg;
	struct xfrm_usersa_info info;

	if (q->n == XFRM_LARVAL_MAX || h->nlmsg_type != XFRM_MSG_NEWSA ||
	    h->nlmsg_len < NLMSG_LENGTH(sizeof(info)))
		return 0;
	memcpy(&info, NLMSG_DATA(h), sizeof(info));
	if (info.reqid != x->reqid || info.id.spi != 0 || info.id.proto != IPPROTO_ESP)
		return 0;
	if (q->sel && !xfrm_sel_same_hosts(&info.sel, q->sel))
		return 0;
	q->l[q->n].daddr = info.id.daddr;
	q->l[q->n].saddr = info.saddr;
	q->l[q->n].family = info.family;
	q->l[q->n].seq = info.seq;
	q->n++;
	return 0;
}

/* The ALLOCSPI answer: the state with its new SPI. */
static int allocspi_cb(struct xfrm_dp *x, const struct nlmsghdr *h, void *arg)
{
	struct xfrm_usersa_id *id = arg;
	struct xfrm_usersa_info info;

	(void)x;
	if (h->nlmsg_type != XFRM_MSG_NEWSA || h->nlmsg_len < NLMSG_LENGTH(sizeof(info)))
		return 0;
	memcpy(&info, NLMSG_DATA(h), sizeof(info));
	id->daddr = info.id.daddr;
	id->spi = info.id.spi;
	id->family = info.family;
	id->proto = info.id.proto;
	return 0;
}

/* The kernel finds the larval state by its sequence number (checking its
 * destination) and gives it an SPI; then it can be deleted. Had it gone
 * meanwhile, ALLOCSPI makes a larval state like it, which goes the same
 * way. */
static int larval_remove(struct xfrm_dp *x, const struct larval *l)
{
	struct xfrm_userspi_info u;
	struct xfrm_usersa_id id;
	struct xfrm_req r;
	char why[XFRM_WHY_MAX];
	int ret;

	memset(&u, 0, sizeof(u));
	memset(&id, 0, sizeof(id));
	u.info.id.daddr = l->daddr;
	u.info.id.proto = IPPROTO_ESP;
	u.info.saddr = l->saddr;
	u.info.family = l->family;
	u.info.mode = XFRM_MODE_BEET;
	u.info.reqid = x->reqid;
	u.info.seq = l->seq;
	xfrm_lifetime_inf(&u.info.lft);
	u.min = HIP_SPI_MIN;
	u.max = UINT32_MAX;
	xfrm_req_init(&r, XFRM_MSG_ALLOCSPI, &u, sizeof(u));
	ret = xfrm_nl_talk(x, &r, false, allocspi_cb, &id, why, sizeof(why));
	if (ret == 0 && (id.spi == 0 || id.proto != IPPROTO_ESP))
		ret = -EIO;
	if (ret < 0)
		return xfrm_log_fail(XFRM_MSG_ALLOCSPI, "larval state", ret, why);
	ret = xfrm_sa_del_raw(x, &id.daddr, id.family, id.spi, IPPROTO_ESP, why, sizeof(why));
	if (ret < 0 && ret != -ESRCH)
		return xfrm_log_fail(XFRM_MSG_DELSA, "larval state", ret, why);
	return 0;
}

int xfrm_larval_purge(struct xfrm_dp *x, const struct hip_hit *local, const struct hip_hit *peer)
{
	struct xfrm_selector sel;

	if (!local || !peer)
		return xfrm_larval_purge_sel(x, NULL);
	xfrm_sel_hits(&sel, local, 128, peer, 128);
	return xfrm_larval_purge_sel(x, &sel);
}

int xfrm_larval_purge_sel(struct xfrm_dp *x, const struct xfrm_selector *sel)
{
	struct larval_find q = { .sel = sel };
	size_t i;
	int n = 0;

	if (xfrm_dump(x, XFRM_MSG_GETSA, larval_find_cb, &q) < 0)
		return 0;
	for (i = 0; i < q.n; i++)
		if (larval_remove(x, &q.l[i]) == 0)
			n++;
	if (n > 0)
		log_debug("xfrm: removed %d larval (ACQUIRE) state%s", n, n == 1 ? "" : "s");
	return n;
}
