/*
 * fuzz_priv.c - libFuzzer target: the privilege separation protocol
 * (hipd/privsep/priv_proto.h) in both directions, over a SOCK_SEQPACKET
 * socketpair as between the processes.
 *
 * Byte 0 bit 0 picks the direction:
 *  0  priv's side (priv_dispatch.c, priv.c): each datagram is a request
 *     from a compromised engine, handled by priv_handle() with a datapath
 *     here that records what reaches it. What priv lets through must be
 *     what it promises (priv.c): SPIs >= 256, our reqid, the local HIT one
 *     of ours and the peer's none, for IPv4 (D-22) the local LSI one of ours
 *     and the peer's a usable LSI of the range that is not, key lengths of
 *     the suite; deletes only
 *     of what it installed, at the destination it installed. Each request
 *     gets one well-formed reply with its seq, but for the notices (hello,
 *     reloaded), which get none when accepted. Byte 0 bits 1-4 make the
 *     datapath fail (SA exists, already gone, no kernel datapath...).
 *  1  the engine's side (priv_client.c): each datagram is a reply or an
 *     event from priv; byte 1 names two requests the engine makes (low,
 *     high nibble: SA add, SA delete, policy add, policy delete, SA
 *     statistics, flush, source address, hello, reloaded, LSI policy add,
 *     LSI policy delete, IPv4 SA add; 12+ none), then
 *     the event loop runs (events queued during a request, the rest).
 * The rest: datagrams of [length, 2 bytes LE][bytes].
 *
 * Seeds: fuzz/corpus/priv/, written by this target itself:
 *   HIP_SEED_DIR=fuzz/corpus/priv build-fuzz/fuzz/fuzz_priv -runs=0
 * No crash, no sanitizer report, no broken promise, whatever the input.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hip_crypto.h"
#include "hip_wire.h"
#include "base/base.h"
#include "base/loop.h"
#include "privsep/priv.h"
#include "privsep/priv_client.h"
#include "privsep/priv_proto.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQID 0x48495000u
enum { FAKE_SAS = 64, DGRAM_MAX = PRIV_MSG_MAX + 64, N_OPS = 12 };

static volatile size_t fuzz_sink;

/* ---- priv's side: a datapath that checks what reaches it ---- */

struct fake_sa {
	uint32_t spi;
	bool inbound;
	struct hip_addr outer_dst;
};

struct fake_dp {
	struct datapath dp;
	uint8_t fail;                    /* byte 0 bits 1-4 */
	struct priv_conf conf;
	struct fake_sa sas[FAKE_SAS];    /* what priv installed (the first ones) */
	size_t n_sas;
	bool overflow;                   /* more than FAKE_SAS: no delete check */
	unsigned calls;
};

static struct fake_dp *fake(struct datapath *dp)
{
	return (struct fake_dp *)dp;
}

static bool local_hit(const struct fake_dp *f, const struct hip_hit *h)
{
	for (size_t i = 0; i < f->conf.n_local; i++)
		if (!memcmp(f->conf.local[i].b, h->b, sizeof(h->b)))
			return true;
	return false;
}

static void check_hits(const struct fake_dp *f, const struct hip_hit *local,
		       const struct hip_hit *peer)
{
	if (!local_hit(f, local) || local_hit(f, peer) || !hip_hit_is_orchid(peer))
		abort();
}

static bool local_lsi(const struct fake_dp *f, const struct in_addr *a)
{
	for (size_t i = 0; i < f->conf.n_local; i++)
		if (a->s_addr && f->conf.local_lsi[i].s_addr == a->s_addr)
			return true;
	return false;
}

/* IPv4 between LSIs (D-22): ours -> a usable LSI of the range (not the
 * network or broadcast address) that is not ours. */
static void check_lsis(const struct fake_dp *f, const struct in_addr *local,
		       const struct in_addr *peer)
{
	const struct hip_lsi_range *r = &f->conf.lsi_range;
	uint32_t host_mask = 0xffffffffu >> r->prefix, net, a = ntohl(peer->s_addr);

	memcpy(&net, r->net, sizeof(net));
	if (!local_lsi(f, local) || local_lsi(f, peer) || (a & ~host_mask) != ntohl(net) ||
	    (a & host_mask) == 0 || (a & host_mask) == host_mask)
		abort();
}

static int f_sa_add(struct datapath *dp, const struct hip_esp_sa *sa)
{
	struct fake_dp *f = fake(dp);
	struct hip_esp_suite_info info;
	size_t i;

	f->calls++;
	check_hits(f, sa->inbound ? &sa->inner_dst : &sa->inner_src,
		   sa->inbound ? &sa->inner_src : &sa->inner_dst);
	if (sa->inner_v4)
		check_lsis(f, sa->inbound ? &sa->lsi_dst : &sa->lsi_src,
			   sa->inbound ? &sa->lsi_src : &sa->lsi_dst);
	else if (sa->lsi_src.s_addr || sa->lsi_dst.s_addr)
		abort();
	if (sa->spi < PRIV_SPI_MIN || hip_esp_suite_info(sa->suite, &info) < 0 ||
	    sa->enc_len != info.enc_key_len || sa->auth_len != info.auth_key_len ||
	    !sa->replay_window || sa->replay_window > PRIV_REPLAY_MAX ||
	    hip_addr_is_v4(&sa->outer_src) != hip_addr_is_v4(&sa->outer_dst))
		abort();
	if (f->fail & 1)
		return -EEXIST;
	for (i = 0; i < f->n_sas; i++) {
		if (f->sas[i].spi == sa->spi && f->sas[i].inbound == sa->inbound) {
			f->sas[i].outer_dst = sa->outer_dst;   /* replaced */
			return 0;
		}
	}
	if (f->n_sas == FAKE_SAS) {
		f->overflow = true;
		return 0;
	}
	f->sas[f->n_sas].spi = sa->spi;
	f->sas[f->n_sas].inbound = sa->inbound;
	f->sas[f->n_sas].outer_dst = sa->outer_dst;
	f->n_sas++;
	return 0;
}

static int f_sa_del(struct datapath *dp, uint32_t spi, bool inbound,
		    const struct hip_addr *outer_dst)
{
	struct fake_dp *f = fake(dp);
	size_t i;

	f->calls++;
	for (i = 0; i < f->n_sas; i++) {
		if (f->sas[i].spi == spi && f->sas[i].inbound == inbound) {
			/* at the destination priv installed, whatever was asked */
			if (memcmp(&f->sas[i].outer_dst, outer_dst, sizeof(*outer_dst)))
				abort();
			f->sas[i] = f->sas[--f->n_sas];
			return f->fail & 2 ? -ESRCH : 0;
		}
	}
	if (!f->overflow)
		abort();   /* not installed through priv */
	return 0;
}

static int f_policy_add(struct datapath *dp, const struct hip_hit *local,
			const struct hip_hit *peer, const struct hip_addr *local_loc,
			const struct hip_addr *peer_loc)
{
	struct fake_dp *f = fake(dp);

	f->calls++;
	check_hits(f, local, peer);
	if (hip_addr_is_v4(local_loc) != hip_addr_is_v4(peer_loc))
		abort();
	return f->fail & 8 ? -ENOBUFS : 0;
}

static int f_policy_del(struct datapath *dp, const struct hip_hit *local,
			const struct hip_hit *peer)
{
	struct fake_dp *f = fake(dp);

	f->calls++;
	check_hits(f, local, peer);
	return f->fail & 2 ? -ENOENT : 0;
}

static int f_policy_lsi_add(struct datapath *dp, const struct in_addr *local,
			    const struct in_addr *peer, const struct hip_addr *local_loc,
			    const struct hip_addr *peer_loc)
{
	struct fake_dp *f = fake(dp);

	f->calls++;
	check_lsis(f, local, peer);
	if (hip_addr_is_v4(local_loc) != hip_addr_is_v4(peer_loc))
		abort();
	return f->fail & 8 ? -ENOBUFS : 0;
}

static int f_policy_lsi_del(struct datapath *dp, const struct in_addr *local,
			    const struct in_addr *peer)
{
	struct fake_dp *f = fake(dp);

	f->calls++;
	check_lsis(f, local, peer);
	return f->fail & 2 ? -ENOENT : 0;
}

static int f_sa_stats(struct datapath *dp, uint32_t spi, bool inbound,
		      struct hip_esp_sa_stats *out)
{
	fake(dp)->calls++;
	out->packets = spi;
	out->bytes = inbound;
	return fake(dp)->fail & 8 ? -ENOENT : 0;
}

static void f_flush(struct datapath *dp)
{
	fake(dp)->calls++;
	fake(dp)->n_sas = 0;
	fake(dp)->overflow = false;
}

static void f_free(struct datapath *dp)
{
	(void)dp;
}

static const struct datapath_ops fake_ops = {
	.name = "fuzz", .sa_add = f_sa_add, .sa_del = f_sa_del, .policy_add = f_policy_add,
	.policy_del = f_policy_del, .policy_lsi_add = f_policy_lsi_add,
	.policy_lsi_del = f_policy_lsi_del, .sa_stats = f_sa_stats, .flush = f_flush,
	.free = f_free,
};

static void test_conf(struct priv_conf *conf)
{
	const struct hip_lsi_range range = HIP_LSI_RANGE_DEFAULT;

	memset(conf, 0, sizeof(*conf));
	if (hip_hit_from_str("2001:2a:1111:2222:3333:4444:5555:6666", &conf->local[0]) ||
	    hip_hit_from_str("2001:2a:aaaa:2222:3333:4444:5555:6666", &conf->local[1]) ||
	    inet_pton(AF_INET, "198.18.0.1", &conf->local_lsi[0]) != 1 ||
	    inet_pton(AF_INET, "198.18.0.2", &conf->local_lsi[1]) != 1)
		abort();
	conf->lsi_range = range;
	conf->n_local = 2;
	conf->reqid = REQID;
	conf->nat_port = 10500;
}

/* The one reply to a request of n bytes in req (or none for an accepted
 * notice): well-formed, ours, with the request's seq. */
static void check_reply(int fd, const uint8_t *req, size_t n)
{
	uint8_t buf[PRIV_MSG_MAX + 1];
	struct priv_hdr rq = { 0 }, h;
	ssize_t r = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	size_t want;

	if (n >= sizeof(rq))
		memcpy(&rq, req, sizeof(rq));
	if (r < 0) {
		if (rq.type != PRIV_REQ_HELLO && rq.type != PRIV_REQ_RELOADED)
			abort();
		return;
	}
	if ((size_t)r < sizeof(h))
		abort();
	memcpy(&h, buf, sizeof(h));
	want = h.type == PRIV_REPLY ? sizeof(struct priv_msg_result) :
	       h.type == PRIV_REPLY_STATS ? sizeof(struct priv_msg_stats) :
	       h.type == PRIV_REPLY_ADDR ? sizeof(struct priv_msg_addr) : 0;
	if ((size_t)r != want || h.version != PRIV_PROTO_VERSION || h.reqid != REQID ||
	    h.seq != rq.seq || h.pad)
		abort();
	if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		abort();   /* one reply only */
}

static void priv_side(uint8_t mode, const uint8_t *data, size_t size)
{
	struct fake_dp f;
	struct priv *p;
	uint8_t drain[PRIV_MSG_MAX + 1];
	int sv[2];
	size_t off = 0;

	memset(&f, 0, sizeof(f));
	f.dp.ops = &fake_ops;
	f.fail = (mode >> 1) & 0xf;
	test_conf(&f.conf);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0)
		return;
	/* bit 3 of the failures: no kernel datapath (userspace ESP) */
	if (priv_create(&p, sv[1], f.fail & 4 ? NULL : &f.dp, &f.conf) != 0)
		goto out;
	while (size - off >= 2) {
		size_t len = (size_t)data[off] | (size_t)data[off + 1] << 8;
		const uint8_t *req = data + off + 2;
		int ret;

		if (len > size - off - 2)
			len = size - off - 2;
		if (len > DGRAM_MAX)
			len = DGRAM_MAX;
		off += 2 + len;
		if (!len)
			continue;   /* an empty datagram reads as the engine gone */
		if (send(sv[0], req, len, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)len)
			break;
		ret = priv_handle(p);
		if (ret < 0)
			abort();   /* a refusal is an error reply, not a failure */
		check_reply(sv[0], req, len);
	}
	fuzz_sink += priv_sa_count(p) + priv_policy_count(p) + priv_hello_seen(p);
	fuzz_sink += priv_take_reloaded(p, NULL);
	/* kernel events and a reload go to the engine as one datagram each */
	if (!(f.fail & 4)) {
		f.dp.ev.acquire(f.dp.ev.arg, &f.conf.local[0], &f.conf.local[1]);
		f.dp.ev.acquire_lsi(f.dp.ev.arg, &f.conf.local_lsi[0], &f.conf.local_lsi[1]);
		f.dp.ev.expire(f.dp.ev.arg, 0x1234, true);
	}
	priv_send_reload(p);
	while (recv(sv[0], drain, sizeof(drain), MSG_DONTWAIT) > 0)
		fuzz_sink++;
	priv_flush(p);
	if (!(f.fail & 4) && f.n_sas)
		abort();
	priv_free(p);
out:
	close(sv[0]);
	close(sv[1]);
}

/* ---- the engine's side ---- */

static struct hip_loop *engine_loop;

static void on_acquire(void *arg, const struct hip_hit *local, const struct hip_hit *peer)
{
	(void)arg;
	fuzz_sink += local->b[15] + peer->b[15];
}

/* PRIV_EV_ACQUIRE_LSI as the engine gets it: two LSIs, set, different */
static void on_acquire_lsi(void *arg, const struct in_addr *local, const struct in_addr *peer)
{
	(void)arg;
	if (!local->s_addr || !peer->s_addr || local->s_addr == peer->s_addr)
		abort();
	fuzz_sink += local->s_addr ^ peer->s_addr;
}

static void on_expire(void *arg, uint32_t spi, bool hard)
{
	(void)arg;
	fuzz_sink += spi + hard;
}

/* PRIV_EV_NO_SA as the engine gets it: a quote of 8..PRIV_NO_SA_QUOTE bytes */
static void on_no_sa(void *arg, const struct hip_addr *src, const struct hip_addr *dst,
		     uint16_t sport, const uint8_t *esp, size_t len)
{
	(void)arg;
	if (!src || sport || len < 8 || len > PRIV_NO_SA_QUOTE)
		abort();
	fuzz_sink += esp[len - 1] + (dst ? dst->in6.s6_addr[15] : 0);
}

static void on_hook(void *arg)
{
	(void)arg;
	fuzz_sink++;
}

static void engine_op(struct priv_client *c, struct datapath *dp, unsigned op)
{
	struct priv_conf conf;
	struct hip_esp_sa sa;
	struct hip_esp_sa_stats st;
	struct hip_addr a, src;

	test_conf(&conf);
	memset(&sa, 0, sizeof(sa));
	sa.spi = 0x1000;
	sa.suite = HIP_ESP_AES_GCM_16;
	sa.enc_len = 20;
	sa.replay_window = 128;
	sa.inner_src = conf.local[0];
	if (hip_hit_from_str("2001:2b::1", &sa.inner_dst) ||
	    hip_addr_from_str("192.0.2.1", &sa.outer_src) ||
	    hip_addr_from_str("192.0.2.2", &sa.outer_dst))
		abort();
	a = sa.outer_dst;
	if (inet_pton(AF_INET, "198.19.0.7", &sa.lsi_dst) != 1)
		abort();
	sa.lsi_src = conf.local_lsi[0];
	switch (op) {
	case 0:
		fuzz_sink += (size_t)dp->ops->sa_add(dp, &sa);
		break;
	case 1:
		fuzz_sink += (size_t)dp->ops->sa_del(dp, sa.spi, false, &sa.outer_dst);
		break;
	case 2:
		fuzz_sink += (size_t)dp->ops->policy_add(dp, &sa.inner_src, &sa.inner_dst,
							 &sa.outer_src, &sa.outer_dst);
		break;
	case 3:
		fuzz_sink += (size_t)dp->ops->policy_del(dp, &sa.inner_src, &sa.inner_dst);
		break;
	case 4:
		if (dp->ops->sa_stats(dp, sa.spi, true, &st) == 0)
			fuzz_sink += st.packets + st.bytes + st.replay_drops + st.auth_drops;
		break;
	case 5:
		dp->ops->flush(dp);
		break;
	case 6:
		if (priv_client_pick_source(c, &a, &src) == 0)
			fuzz_sink += src.in6.s6_addr[15];
		break;
	case 7:
		fuzz_sink += (size_t)priv_client_hello(c);
		break;
	case 8:
		fuzz_sink += (size_t)priv_client_reloaded(c, -EINVAL);
		break;
	case 9:
		fuzz_sink += (size_t)dp->ops->policy_lsi_add(dp, &sa.lsi_src, &sa.lsi_dst,
							     &sa.outer_src, &sa.outer_dst);
		break;
	case 10:
		fuzz_sink += (size_t)dp->ops->policy_lsi_del(dp, &sa.lsi_src, &sa.lsi_dst);
		break;
	case 11:
		sa.inner_v4 = true;
		fuzz_sink += (size_t)dp->ops->sa_add(dp, &sa);
		break;
	default:
		break;
	}
	hip_wipe(&sa, sizeof(sa));
}

static void engine_side(const uint8_t *data, size_t size)
{
	struct priv_client_hooks hooks = { .reload = on_hook, .lost = on_hook };
	struct datapath_events ev = { .acquire = on_acquire, .expire = on_expire,
				      .no_sa = on_no_sa, .acquire_lsi = on_acquire_lsi };
	struct priv_client *c;
	struct datapath *dp;
	int sv[2], i;
	size_t off = 1;

	if (size < 1)
		return;
	if (!engine_loop && hip_loop_create(&engine_loop) != 0)
		abort();
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return;
	/* priv's answers and events, queued before the engine asks */
	while (size - off >= 2) {
		size_t len = (size_t)data[off] | (size_t)data[off + 1] << 8;

		if (len > size - off - 2)
			len = size - off - 2;
		if (len > DGRAM_MAX)
			len = DGRAM_MAX;
		(void)send(sv[1], data + off + 2, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		off += 2 + len;
	}
	shutdown(sv[1], SHUT_WR);   /* then priv reads as gone */
	if (priv_client_create(&c, engine_loop, sv[0], REQID, &hooks) != 0) {
		close(sv[1]);
		return;
	}
	dp = priv_client_datapath(c, &ev);
	engine_op(c, dp, data[0] & 15);
	engine_op(c, dp, data[0] >> 4);
	for (i = 0; i < 4; i++)
		hip_loop_run_once(engine_loop, 0);
	dp->ops->free(dp);
	priv_client_free(c);
	close(sv[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		engine_side(data + 1, size - 1);
	else
		priv_side(data[0], data + 1, size - 1);
	return 0;
}

/* ---- seeds (HIP_SEED_DIR) ---- */

struct seed {
	uint8_t b[8192];
	size_t len;
};

static void rec(struct seed *s, const void *p, size_t len)
{
	if (s->len + 2 + len > sizeof(s->b))
		abort();
	s->b[s->len++] = (uint8_t)len;
	s->b[s->len++] = (uint8_t)(len >> 8);
	memcpy(s->b + s->len, p, len);
	s->len += len;
}

static void hdr(struct priv_hdr *h, uint16_t type, uint32_t seq)
{
	memset(h, 0, sizeof(*h));
	h->version = PRIV_PROTO_VERSION;
	h->type = type;
	h->seq = seq;
	h->reqid = REQID;
}

static void seed_write(const char *dir, const char *name, uint8_t b0, const struct seed *s)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fputc(b0, f) == EOF || fwrite(s->b, 1, s->len, f) != s->len || fclose(f) != 0)
		abort();
}

static void good_sa(struct priv_msg_sa *m, const struct priv_conf *conf, uint32_t seq,
		    bool inbound)
{
	memset(m, 0, sizeof(*m));
	hdr(&m->h, PRIV_REQ_SA_ADD, seq);
	m->sa.spi = 0x1000;
	m->sa.inbound = inbound;
	m->sa.suite = HIP_ESP_AES128_CBC_SHA256;
	m->sa.enc_len = 16;
	m->sa.auth_len = 32;
	memset(m->sa.enc_key, 0xa5, 16);
	memset(m->sa.auth_key, 0x5a, 32);
	m->sa.replay_window = 128;
	if (hip_addr_from_str("192.0.2.1", inbound ? &m->sa.outer_dst : &m->sa.outer_src) ||
	    hip_addr_from_str("192.0.2.2", inbound ? &m->sa.outer_src : &m->sa.outer_dst) ||
	    hip_hit_from_str("2001:2b::1", inbound ? &m->sa.inner_src : &m->sa.inner_dst))
		abort();
	(inbound ? &m->sa.inner_dst : &m->sa.inner_src)[0] = conf->local[0];
	if (inbound) {
		m->sa.encap_sport = 10501;
		m->sa.encap_dport = conf->nat_port;
	}
}

static void priv_seeds(const char *dir)
{
	struct priv_conf conf;
	struct priv_msg_sa sa;
	struct priv_msg_sa_ref ref;
	struct priv_msg_policy pol;
	struct priv_msg_policy_lsi lp;
	struct priv_msg_result res;
	struct priv_msg_addr ad;
	struct priv_hdr h;
	struct seed s;

	test_conf(&conf);
	memset(&s, 0, sizeof(s));
	hdr(&h, PRIV_REQ_HELLO, 1);
	rec(&s, &h, sizeof(h));
	good_sa(&sa, &conf, 2, false);
	rec(&s, &sa, sizeof(sa));
	good_sa(&sa, &conf, 3, true);
	rec(&s, &sa, sizeof(sa));
	memset(&pol, 0, sizeof(pol));
	hdr(&pol.h, PRIV_REQ_POLICY_ADD, 4);
	pol.pol.local = sa.sa.inner_dst;
	pol.pol.peer = sa.sa.inner_src;
	pol.pol.local_loc = sa.sa.outer_dst;
	pol.pol.peer_loc = sa.sa.outer_src;
	rec(&s, &pol, sizeof(pol));
	memset(&ref, 0, sizeof(ref));
	hdr(&ref.h, PRIV_REQ_SA_STATS, 5);
	ref.ref.spi = 0x1000;
	ref.ref.inbound = 1;
	rec(&s, &ref, sizeof(ref));
	hdr(&ref.h, PRIV_REQ_SA_DEL, 6);
	rec(&s, &ref, sizeof(ref));
	memset(&pol.pol.local_loc, 0, sizeof(pol.pol.local_loc));
	memset(&pol.pol.peer_loc, 0, sizeof(pol.pol.peer_loc));
	hdr(&pol.h, PRIV_REQ_POLICY_DEL, 7);
	rec(&s, &pol, sizeof(pol));
	/* IPv4 between LSIs (D-22): an SA, its policy added and removed */
	good_sa(&sa, &conf, 11, false);
	sa.sa.spi = 0x1001;
	sa.sa.inner_v4 = 1;
	sa.sa.lsi_src = conf.local_lsi[0];
	if (inet_pton(AF_INET, "198.19.0.7", &sa.sa.lsi_dst) != 1)
		abort();
	rec(&s, &sa, sizeof(sa));
	memset(&lp, 0, sizeof(lp));
	hdr(&lp.h, PRIV_REQ_POLICY_LSI_ADD, 12);
	lp.pol.local = sa.sa.lsi_src;
	lp.pol.peer = sa.sa.lsi_dst;
	lp.pol.local_loc = sa.sa.outer_src;
	lp.pol.peer_loc = sa.sa.outer_dst;
	rec(&s, &lp, sizeof(lp));
	memset(&lp.pol.local_loc, 0, sizeof(lp.pol.local_loc));
	memset(&lp.pol.peer_loc, 0, sizeof(lp.pol.peer_loc));
	hdr(&lp.h, PRIV_REQ_POLICY_LSI_DEL, 13);
	rec(&s, &lp, sizeof(lp));
	memset(&ad, 0, sizeof(ad));
	hdr(&ad.h, PRIV_REQ_PICK_SOURCE, 8);
	if (hip_addr_from_str("127.0.0.1", &ad.a.addr))
		abort();
	rec(&s, &ad, sizeof(ad));
	memset(&res, 0, sizeof(res));
	hdr(&res.h, PRIV_REQ_RELOADED, 9);
	rec(&s, &res, sizeof(res));
	hdr(&h, PRIV_REQ_FLUSH, 10);
	rec(&s, &h, sizeof(h));
	seed_write(dir, "priv-session", 0, &s);
	seed_write(dir, "priv-session-failing", 0x2 | 0x10, &s);
	seed_write(dir, "priv-session-no-datapath", 0x8, &s);
	/* refused: wrong reqid, short, long, unknown type */
	memset(&s, 0, sizeof(s));
	good_sa(&sa, &conf, 1, false);
	sa.h.reqid ^= 1;
	rec(&s, &sa, sizeof(sa));
	rec(&s, &sa, sizeof(sa) - 1);
	hdr(&h, PRIV_REPLY, 2);
	rec(&s, &h, sizeof(h));
	seed_write(dir, "priv-refused", 0, &s);
}

static void engine_seeds(const char *dir)
{
	struct priv_msg_result res;
	struct priv_msg_stats st;
	struct priv_msg_addr ad;
	struct priv_msg_hit_pair hp;
	struct priv_msg_expire ex;
	struct priv_msg_no_sa ns;
	struct priv_msg_lsi_pair lp;
	struct priv_hdr h;
	struct priv_conf conf;
	struct seed s;
	char name[32];
	unsigned op;

	test_conf(&conf);
	memset(&hp, 0, sizeof(hp));
	hdr(&hp.h, PRIV_EV_ACQUIRE, 0);
	hp.hits.local = conf.local[0];
	hp.hits.peer = conf.local[1];
	memset(&ex, 0, sizeof(ex));
	hdr(&ex.h, PRIV_EV_EXPIRE, 0);
	ex.exp.spi = 0x1000;
	ex.exp.hard = 1;
	memset(&ns, 0, sizeof(ns));
	hdr(&ns.h, PRIV_EV_NO_SA, 0);
	if (hip_addr_from_str("192.0.2.9", &ns.nosa.src) || hip_addr_from_str("192.0.2.1",
									  &ns.nosa.dst))
		abort();
	ns.nosa.have_dst = 1;
	ns.nosa.len = 16;
	ns.nosa.esp[3] = 0x42;
	memset(&lp, 0, sizeof(lp));
	hdr(&lp.h, PRIV_EV_ACQUIRE_LSI, 0);
	lp.lsis.local = conf.local_lsi[0];
	if (inet_pton(AF_INET, "198.19.0.7", &lp.lsis.peer) != 1)
		abort();
	for (op = 0; op < N_OPS; op++) {
		/* an event, a stale reply, the reply, another event */
		memset(&s, 0, sizeof(s));
		s.b[s.len++] = (uint8_t)(op | 5 << 4);   /* then a flush */
		rec(&s, &hp, sizeof(hp));
		memset(&res, 0, sizeof(res));
		hdr(&res.h, PRIV_REPLY, 7);
		rec(&s, &res, sizeof(res));
		if (op == 4) {
			memset(&st, 0, sizeof(st));
			hdr(&st.h, PRIV_REPLY_STATS, 1);
			st.st.packets = 3;
			rec(&s, &st, sizeof(st));
		} else if (op == 6) {
			memset(&ad, 0, sizeof(ad));
			hdr(&ad.h, PRIV_REPLY_ADDR, 1);
			if (hip_addr_from_str("192.0.2.1", &ad.a.addr))
				abort();
			rec(&s, &ad, sizeof(ad));
		} else if (op < 7 || op > 8) {
			hdr(&res.h, PRIV_REPLY, 1);
			res.res.error = op == 1 ? -ESRCH : 0;
			rec(&s, &res, sizeof(res));
		}
		rec(&s, &ex, sizeof(ex));
		rec(&s, &ns, sizeof(ns));
		rec(&s, &lp, sizeof(lp));
		hdr(&h, PRIV_EV_RELOAD, 0);
		rec(&s, &h, sizeof(h));
		/* the second request (flush) */
		hdr(&res.h, PRIV_REPLY, 2);   /* notices take a seq too */
		res.res.error = 0;
		rec(&s, &res, sizeof(res));
		snprintf(name, sizeof(name), "engine-op%u", op);
		seed_write(dir, name, 1, &s);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("HIP_SEED_DIR");

	(void)argc, (void)argv;
	log_set_level(LOG_ERR);
	if (dir) {
		priv_seeds(dir);
		engine_seeds(dir);
	}
	return 0;
}
