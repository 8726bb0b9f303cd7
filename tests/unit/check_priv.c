/*
 * check_priv.c - the privilege separation boundary (priv.c): requests an
 * engine could send, malformed or invalid, over a real SOCK_SEQPACKET
 * socketpair into priv_handle(), with a recording datapath behind it.
 * Every invalid request must be refused with an error reply and must not
 * reach the datapath; valid ones must reach it unchanged. Then the engine
 * side (priv_client.c) against priv in a child process.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hip_crypto.h"
#include "hip_wire.h"
#include "base/loop.h"
#include "privsep/priv.h"
#include "privsep/priv_client.h"
#include "privsep/priv_proto.h"
#include "udp_peer_seen.h"
#include "unit.h"

#define REQID 0x48495000u

/* ---- a datapath that records what reaches it ---- */

struct rec_dp {
	struct datapath dp;
	int sa_add, sa_del, pol_add, pol_del, flush, stats;
	struct hip_esp_sa last_sa;
	struct hip_addr last_del_dst;
};

static int rec_sa_add(struct datapath *dp, const struct hip_esp_sa *sa)
{
	struct rec_dp *r = (struct rec_dp *)dp;

	r->sa_add++;
	r->last_sa = *sa;
	return 0;
}

static int rec_sa_del(struct datapath *dp, uint32_t spi, bool inbound,
		      const struct hip_addr *outer_dst)
{
	(void)spi;
	(void)inbound;
	((struct rec_dp *)dp)->sa_del++;
	((struct rec_dp *)dp)->last_del_dst = *outer_dst;
	return 0;
}

static int rec_pol_add(struct datapath *dp, const struct hip_hit *l, const struct hip_hit *p,
		       const struct hip_addr *ll, const struct hip_addr *pl)
{
	(void)l;
	(void)p;
	(void)ll;
	(void)pl;
	((struct rec_dp *)dp)->pol_add++;
	return 0;
}

static int rec_pol_del(struct datapath *dp, const struct hip_hit *l, const struct hip_hit *p)
{
	(void)l;
	(void)p;
	((struct rec_dp *)dp)->pol_del++;
	return 0;
}

static int rec_stats(struct datapath *dp, uint32_t spi, bool inbound,
		     struct hip_esp_sa_stats *out)
{
	(void)inbound;
	((struct rec_dp *)dp)->stats++;
	out->packets = spi;
	out->bytes = 1500;
	return 0;
}

static void rec_flush(struct datapath *dp)
{
	((struct rec_dp *)dp)->flush++;
}

static void rec_free(struct datapath *dp)
{
	(void)dp;
}

static const struct datapath_ops rec_ops = {
	.name = "record", .sa_add = rec_sa_add, .sa_del = rec_sa_del, .policy_add = rec_pol_add,
	.policy_del = rec_pol_del, .sa_stats = rec_stats, .flush = rec_flush, .free = rec_free,
};

/* ---- fixture ---- */

static struct rec_dp rec;
static struct priv *pv;
static int sv[2];            /* sv[0] engine side, sv[1] priv side */
static struct hip_hit hit_local, hit_peer, hit_other_local;
static struct hip_addr loc_a, loc_b;

static void hit_from(struct hip_hit *h, const char *s)
{
	struct in6_addr a;

	ck_assert_int_eq(inet_pton(AF_INET6, s, &a), 1);
	memcpy(h->b, &a, sizeof(h->b));
}

static void setup(void)
{
	struct priv_conf conf;
	struct in_addr a4;

	memset(&rec, 0, sizeof(rec));
	rec.dp.ops = &rec_ops;
	hit_from(&hit_local, "2001:2a:1111:2222:3333:4444:5555:6666");
	hit_from(&hit_other_local, "2001:2a:aaaa:2222:3333:4444:5555:6666");
	hit_from(&hit_peer, "2001:2b:7777:8888:9999:aaaa:bbbb:cccc");
	inet_pton(AF_INET, "192.0.2.1", &a4);
	hip_addr_from_v4(&loc_a, &a4);
	inet_pton(AF_INET, "192.0.2.2", &a4);
	hip_addr_from_v4(&loc_b, &a4);
	memset(&conf, 0, sizeof(conf));
	conf.local[0] = hit_local;
	conf.local[1] = hit_other_local;
	conf.n_local = 2;
	conf.reqid = REQID;
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	ck_assert_int_eq(priv_create(&pv, sv[1], &rec.dp, &conf), 0);
}

static void teardown(void)
{
	priv_free(pv);
	close(sv[0]);
	close(sv[1]);
}

static void hdr(struct priv_hdr *h, uint16_t type, uint32_t seq)
{
	memset(h, 0, sizeof(*h));
	h->version = PRIV_PROTO_VERSION;
	h->type = type;
	h->seq = seq;
	h->reqid = REQID;
}

/* A valid outbound SA (AES-128-CBC + HMAC-SHA-256: 16 + 32 bytes). */
static void good_sa(struct priv_msg_sa *m, uint32_t spi)
{
	memset(m, 0, sizeof(*m));
	hdr(&m->h, PRIV_REQ_SA_ADD, spi);
	m->sa.spi = spi;
	m->sa.inbound = 0;
	m->sa.suite = HIP_ESP_AES128_CBC_SHA256;
	m->sa.enc_len = 16;
	m->sa.auth_len = 32;
	memset(m->sa.enc_key, 0xa5, 16);
	memset(m->sa.auth_key, 0x5a, 32);
	m->sa.replay_window = 128;
	m->sa.outer_src = loc_a;
	m->sa.outer_dst = loc_b;
	m->sa.inner_src = hit_local;
	m->sa.inner_dst = hit_peer;
}

/* Send len bytes of msg, let priv handle them; the error in the reply. */
static int roundtrip(const void *msg, size_t len)
{
	struct priv_msg_result r;
	ssize_t n;

	ck_assert_int_eq(send(sv[0], msg, len, 0), (ssize_t)len);
	ck_assert_int_eq(priv_handle(pv), 0);
	n = recv(sv[0], &r, sizeof(r), MSG_DONTWAIT);
	ck_assert_int_eq(n, (ssize_t)sizeof(r));
	ck_assert_int_eq(r.h.type, PRIV_REPLY);
	ck_assert_int_eq(r.h.version, PRIV_PROTO_VERSION);
	return r.res.error;
}

/* ---- the valid path ---- */

START_TEST(test_valid_sa_reaches_datapath)
{
	struct priv_msg_sa m;

	good_sa(&m, 0x1000);
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), 0);
	ck_assert_int_eq(rec.sa_add, 1);
	ck_assert_uint_eq(rec.last_sa.spi, 0x1000);
	ck_assert_uint_eq(rec.last_sa.enc_len, 16);
	ck_assert_uint_eq(rec.last_sa.auth_len, 32);
	ck_assert_uint_eq(rec.last_sa.enc_key[15], 0xa5);
	ck_assert_uint_eq(rec.last_sa.auth_key[31], 0x5a);
	ck_assert(!memcmp(&rec.last_sa.inner_dst, &hit_peer, sizeof(hit_peer)));
	ck_assert_uint_eq(priv_sa_count(pv), 1);
	/* same SPI, same HITs, new locator: a replacement, still one entry */
	m.sa.outer_dst = loc_a;
	m.sa.outer_src = loc_b;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), 0);
	ck_assert_int_eq(rec.sa_add, 2);
	ck_assert_uint_eq(priv_sa_count(pv), 1);
}
END_TEST

START_TEST(test_delete_only_installed)
{
	struct priv_msg_sa m;
	struct priv_msg_sa_ref d;

	good_sa(&m, 0x2000);
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), 0);
	memset(&d, 0, sizeof(d));
	hdr(&d.h, PRIV_REQ_SA_DEL, 7);
	/* an SPI priv never installed */
	d.ref.spi = 0x2001;
	d.ref.outer_dst = loc_b;
	ck_assert_int_eq(roundtrip(&d, sizeof(d)), -EPERM);
	/* the right SPI in the other direction */
	d.ref.spi = 0x2000;
	d.ref.inbound = 1;
	ck_assert_int_eq(roundtrip(&d, sizeof(d)), -EPERM);
	ck_assert_int_eq(rec.sa_del, 0);
	/* the one it installed, named with another destination: what goes is
	 * the SA at the destination priv installed, never one elsewhere */
	d.ref.inbound = 0;
	d.ref.outer_dst = loc_a;
	ck_assert_int_eq(roundtrip(&d, sizeof(d)), 0);
	ck_assert_int_eq(rec.sa_del, 1);
	ck_assert(!memcmp(&rec.last_del_dst, &loc_b, sizeof(loc_b)));
	ck_assert_uint_eq(priv_sa_count(pv), 0);
	/* and not twice */
	ck_assert_int_eq(roundtrip(&d, sizeof(d)), -EPERM);
	ck_assert_int_eq(rec.sa_del, 1);
}
END_TEST

START_TEST(test_policy_rules)
{
	struct priv_msg_policy m;

	memset(&m, 0, sizeof(m));
	hdr(&m.h, PRIV_REQ_POLICY_DEL, 1);
	m.pol.local = hit_local;
	m.pol.peer = hit_peer;
	/* deleting a policy priv did not install */
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EPERM);
	ck_assert_int_eq(rec.pol_del, 0);
	hdr(&m.h, PRIV_REQ_POLICY_ADD, 2);
	m.pol.local_loc = loc_a;
	m.pol.peer_loc = loc_b;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), 0);
	ck_assert_int_eq(rec.pol_add, 1);
	/* local and peer swapped: the "local" HIT is not ours */
	m.pol.local = hit_peer;
	m.pol.peer = hit_local;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EPERM);
	/* a peer that is one of our own HITs */
	m.pol.local = hit_local;
	m.pol.peer = hit_other_local;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	/* mixed families */
	m.pol.peer = hit_peer;
	inet_pton(AF_INET6, "2001:db8::1", &m.pol.peer_loc.in6);
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	ck_assert_int_eq(rec.pol_add, 1);
	/* now the installed one can go */
	memset(&m.pol.local_loc, 0, sizeof(m.pol.local_loc));
	memset(&m.pol.peer_loc, 0, sizeof(m.pol.peer_loc));
	hdr(&m.h, PRIV_REQ_POLICY_DEL, 3);
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), 0);
	ck_assert_int_eq(rec.pol_del, 1);
	ck_assert_uint_eq(priv_policy_count(pv), 0);
}
END_TEST

/* ---- refused: each alone, nothing reaches the datapath ---- */

START_TEST(test_wrong_length)
{
	uint8_t buf[sizeof(struct priv_msg_sa) + 8];
	struct priv_msg_sa m;

	good_sa(&m, 0x3000);
	memcpy(buf, &m, sizeof(m));
	memset(buf + sizeof(m), 0, 8);
	ck_assert_int_eq(roundtrip(buf, sizeof(m) - 1), -EBADMSG);
	ck_assert_int_eq(roundtrip(buf, sizeof(m) + 8), -EBADMSG);
	ck_assert_int_eq(roundtrip(buf, sizeof(struct priv_hdr) - 1), -EBADMSG);
	/* a message longer than any: cut by recv, still seen as too long */
	{
		uint8_t big[PRIV_MSG_MAX + 100];

		memset(big, 0, sizeof(big));
		memcpy(big, &m, sizeof(m));
		ck_assert_int_eq(roundtrip(big, sizeof(big)), -EBADMSG);
	}
	ck_assert_int_eq(rec.sa_add, 0);
}
END_TEST

START_TEST(test_unknown_type_version)
{
	struct priv_msg_sa m;

	good_sa(&m, 0x3000);
	m.h.type = 99;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EBADMSG);
	m.h.type = PRIV_EV_ACQUIRE;   /* an event type is no request */
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EBADMSG);
	good_sa(&m, 0x3000);
	m.h.version = 2;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EPROTO);
	ck_assert_int_eq(rec.sa_add, 0);
}
END_TEST

START_TEST(test_foreign_reqid)
{
	struct priv_msg_sa m;
	struct priv_hdr h;

	good_sa(&m, 0x3000);
	m.h.reqid = REQID + 1;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EPERM);
	hdr(&h, PRIV_REQ_FLUSH, 9);
	h.reqid = 0;
	ck_assert_int_eq(roundtrip(&h, sizeof(h)), -EPERM);
	ck_assert_int_eq(rec.sa_add, 0);
	ck_assert_int_eq(rec.flush, 0);
}
END_TEST

START_TEST(test_non_hit_selector)
{
	struct priv_msg_sa m;

	good_sa(&m, 0x3000);
	inet_pton(AF_INET6, "2001:db8::1", m.sa.inner_dst.b);   /* not 2001:20::/28 */
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	good_sa(&m, 0x3000);
	inet_pton(AF_INET6, "2001:30::1", m.sa.inner_src.b);    /* just past the prefix */
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	/* a HIT, but not ours as the source of an outbound SA */
	good_sa(&m, 0x3000);
	m.sa.inner_src = hit_peer;
	m.sa.inner_dst = hit_local;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EPERM);
	/* inbound: the destination must be ours */
	good_sa(&m, 0x3000);
	m.sa.inbound = 1;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EPERM);
	ck_assert_int_eq(rec.sa_add, 0);
}
END_TEST

START_TEST(test_low_spi)
{
	struct priv_msg_sa m;

	good_sa(&m, 255);
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	good_sa(&m, 0);
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	good_sa(&m, 256);
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), 0);
	ck_assert_int_eq(rec.sa_add, 1);
}
END_TEST

START_TEST(test_bad_key_length)
{
	struct priv_msg_sa m;

	good_sa(&m, 0x3000);
	m.sa.enc_len = 32;                       /* AES-256 key for an AES-128 suite */
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	good_sa(&m, 0x3000);
	m.sa.auth_len = 20;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	good_sa(&m, 0x3000);
	m.sa.suite = HIP_ESP_AES_GCM_16;         /* GCM: 20-byte key|salt, no auth key */
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	good_sa(&m, 0x3000);
	m.sa.enc_len = 200;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	good_sa(&m, 0x3000);
	m.sa.suite = 77;                         /* no such suite */
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	good_sa(&m, 0x3000);
	m.sa.auth_key[40] = 1;                   /* bytes past the key */
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	ck_assert_int_eq(rec.sa_add, 0);
}
END_TEST

START_TEST(test_bad_fields)
{
	struct priv_msg_sa m;

	good_sa(&m, 0x3000);
	m.sa.inbound = 2;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	good_sa(&m, 0x3000);
	m.sa.pad1 = 1;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	good_sa(&m, 0x3000);
	m.sa.replay_window = 0;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	good_sa(&m, 0x3000);
	memset(&m.sa.outer_dst, 0, sizeof(m.sa.outer_dst));   /* :: */
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	good_sa(&m, 0x3000);
	inet_pton(AF_INET6, "ff02::1", &m.sa.outer_dst.in6);
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	ck_assert_int_eq(rec.sa_add, 0);
}
END_TEST

START_TEST(test_spi_hijack)
{
	struct priv_msg_sa m;
	struct hip_hit other_peer;

	good_sa(&m, 0x4000);
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), 0);
	/* the same SPI for another peer must not replace the first SA */
	hit_from(&other_peer, "2001:2b:dead:beef::1");
	m.sa.inner_dst = other_peer;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EEXIST);
	ck_assert_int_eq(rec.sa_add, 1);
}
END_TEST

START_TEST(test_stats_only_installed)
{
	struct priv_msg_sa m;
	struct priv_msg_sa_ref q;
	struct priv_msg_stats st;

	memset(&q, 0, sizeof(q));
	hdr(&q.h, PRIV_REQ_SA_STATS, 5);
	q.ref.spi = 0x5000;
	ck_assert_int_eq(roundtrip(&q, sizeof(q)), -EPERM);
	good_sa(&m, 0x5000);
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), 0);
	ck_assert_int_eq(send(sv[0], &q, sizeof(q), 0), (ssize_t)sizeof(q));
	ck_assert_int_eq(priv_handle(pv), 0);
	ck_assert_int_eq(recv(sv[0], &st, sizeof(st), MSG_DONTWAIT), (ssize_t)sizeof(st));
	ck_assert_int_eq(st.h.type, PRIV_REPLY_STATS);
	ck_assert_uint_eq(st.h.seq, 5);
	ck_assert_int_eq(st.st.error, 0);
	ck_assert_uint_eq(st.st.packets, 0x5000);
	ck_assert_int_eq(rec.stats, 1);
}
END_TEST

START_TEST(test_pick_source)
{
	struct priv_msg_addr m, r;
	struct in_addr lo = { htonl(0x7f000001) };

	memset(&m, 0, sizeof(m));
	hdr(&m.h, PRIV_REQ_PICK_SOURCE, 11);
	/* no destination: refused */
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	/* a multicast one neither */
	inet_pton(AF_INET6, "ff02::1", &m.a.addr.in6);
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	/* loopback: the kernel's answer is 127.0.0.1 */
	hip_addr_from_v4(&m.a.addr, &lo);
	ck_assert_int_eq(send(sv[0], &m, sizeof(m), 0), (ssize_t)sizeof(m));
	ck_assert_int_eq(priv_handle(pv), 0);
	ck_assert_int_eq(recv(sv[0], &r, sizeof(r), MSG_DONTWAIT), (ssize_t)sizeof(r));
	ck_assert_int_eq(r.h.type, PRIV_REPLY_ADDR);
	ck_assert_uint_eq(r.h.seq, 11);
	ck_assert_int_eq(r.a.error, 0);
	ck_assert(hip_addr_is_v4(&r.a.addr));
	ck_assert_uint_eq(ntohl(hip_addr_v4(&r.a.addr).s_addr), 0x7f000001);
}
END_TEST

START_TEST(test_engine_gone)
{
	close(sv[0]);
	sv[0] = -1;
	ck_assert_int_eq(priv_handle(pv), -EPIPE);
}
END_TEST

/* XFRM_MSG_MAPPING reaches priv through the datapath's udp_peer: passed to
 * the engine only for an inbound SA this engine installed. */
START_TEST(test_mapping_only_installed_inbound)
{
	struct priv_msg_sa m;
	struct priv_msg_mapping ev;
	struct in_addr a4;
	struct hip_addr nat;

	good_sa(&m, 0x5000);
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), 0);   /* outbound 0x5000 */
	good_sa(&m, 0x5001);
	m.sa.inbound = 1;
	m.sa.outer_src = loc_b;
	m.sa.outer_dst = loc_a;
	m.sa.inner_src = hit_peer;
	m.sa.inner_dst = hit_local;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), 0);   /* inbound 0x5001 */
	ck_assert_ptr_nonnull(rec.dp.ev.udp_peer);
	inet_pton(AF_INET, "198.51.100.7", &a4);
	hip_addr_from_v4(&nat, &a4);
	rec.dp.ev.udp_peer(rec.dp.ev.arg, 0x5001, &nat, 30001);
	ck_assert_int_eq(recv(sv[0], &ev, sizeof(ev) + 1, MSG_DONTWAIT), (ssize_t)sizeof(ev));
	ck_assert_uint_eq(ev.h.type, PRIV_EV_MAPPING);
	ck_assert_uint_eq(ev.h.seq, 0);
	ck_assert_uint_eq(ev.map.spi, 0x5001);
	ck_assert_uint_eq(ev.map.port, 30001);
	ck_assert_uint_eq(ev.map.pad, 0);
	ck_assert(!memcmp(&ev.map.addr, &nat, sizeof(nat)));
	/* the outbound SA's SPI, an SPI never installed, port 0: nothing */
	rec.dp.ev.udp_peer(rec.dp.ev.arg, 0x5000, &nat, 30001);
	rec.dp.ev.udp_peer(rec.dp.ev.arg, 0x5002, &nat, 30001);
	rec.dp.ev.udp_peer(rec.dp.ev.arg, 0x5001, &nat, 0);
	ck_assert_int_eq(recv(sv[0], &ev, sizeof(ev), MSG_DONTWAIT), -1);
}
END_TEST

/* ---- the engine's side: priv_client against priv in a child ---- */

static void priv_child(int fd)
{
	struct priv_conf conf;
	struct priv *p;
	int r;

	memset(&conf, 0, sizeof(conf));
	conf.local[0] = hit_local;
	conf.n_local = 1;
	conf.reqid = REQID;
	memset(&rec, 0, sizeof(rec));
	rec.dp.ops = &rec_ops;
	if (priv_create(&p, fd, &rec.dp, &conf) < 0)
		_exit(10);
	for (;;) {
		fd_set rd;

		FD_ZERO(&rd);
		FD_SET(fd, &rd);
		if (select(fd + 1, &rd, NULL, NULL, NULL) < 0)
			_exit(11);
		r = priv_handle(p);
		if (r == -EPIPE)
			break;
		if (r < 0 && r != -EAGAIN)
			_exit(12);
	}
	/* exit status: what reached the datapath, as sa_add*16 + sa_del */
	_exit(rec.sa_add * 16 + rec.sa_del + (rec.flush ? 100 : 0));
}

START_TEST(test_client_roundtrip)
{
	struct priv_client *c;
	struct datapath *dp;
	struct datapath_events ev = { 0 };
	struct hip_esp_sa sa;
	struct hip_esp_sa_stats st;
	int pair[2], status;
	pid_t pid;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(pair[0]);
		priv_child(pair[1]);
	}
	close(pair[1]);
	ck_assert_int_eq(priv_client_create(&c, NULL, pair[0], REQID, NULL), 0);
	dp = priv_client_datapath(c, &ev);
	memset(&sa, 0, sizeof(sa));
	sa.spi = 0x6000;
	sa.suite = HIP_ESP_AES_GCM_16;
	sa.enc_len = 20;
	sa.replay_window = 128;
	sa.outer_src = loc_a;
	sa.outer_dst = loc_b;
	sa.inner_src = hit_local;
	sa.inner_dst = hit_peer;
	ck_assert_int_eq(dp->ops->sa_add(dp, &sa), 0);
	/* the engine cannot make priv remove what it did not install */
	ck_assert_int_eq(dp->ops->sa_del(dp, 0x6001, false, &loc_b), -EPERM);
	ck_assert_int_eq(dp->ops->sa_stats(dp, 0x6000, false, &st), 0);
	ck_assert_uint_eq(st.packets, 0x6000);
	ck_assert_int_eq(dp->ops->policy_add(dp, &hit_local, &hit_peer, &loc_a, &loc_b), 0);
	ck_assert_int_eq(dp->ops->policy_del(dp, &hit_peer, &hit_local), -EPERM);
	ck_assert_int_eq(dp->ops->sa_del(dp, 0x6000, false, &loc_b), 0);
	{
		struct in_addr lo = { htonl(0x7f000001) };
		struct hip_addr dst, src;

		hip_addr_from_v4(&dst, &lo);
		ck_assert_int_eq(priv_client_pick_source(c, &dst, &src), 0);
		ck_assert(!memcmp(&src, &dst, sizeof(src)));
	}
	sa.spi = 12;
	ck_assert_int_eq(dp->ops->sa_add(dp, &sa), -EINVAL);
	dp->ops->flush(dp);
	dp->ops->free(dp);
	priv_client_free(c);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 100 + 1 * 16 + 1);
}
END_TEST

/* PRIV_EV_MAPPING on the engine's side: exact size, port set, padding
 * zero, or it is not delivered. */
START_TEST(test_client_mapping_event)
{
	struct map_seen seen = { 0 };
	struct datapath_events ev = { .arg = &seen, .udp_peer = on_udp_peer };
	struct priv_msg_mapping m, bad;
	struct priv_client *c;
	struct hip_loop *loop;
	struct datapath *dp;
	int pair[2], i;

	ck_assert_int_eq(hip_loop_create(&loop), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), 0);
	ck_assert_int_eq(priv_client_create(&c, loop, pair[0], REQID, NULL), 0);
	dp = priv_client_datapath(c, &ev);
	memset(&m, 0, sizeof(m));
	hdr(&m.h, PRIV_EV_MAPPING, 0);
	m.map.spi = 0x7001;
	m.map.port = 30002;
	m.map.addr = loc_b;
	bad = m;
	bad.map.port = 0;
	ck_assert_int_eq(send(pair[1], &bad, sizeof(bad), 0), (ssize_t)sizeof(bad));
	bad = m;
	bad.map.pad = 1;
	ck_assert_int_eq(send(pair[1], &bad, sizeof(bad), 0), (ssize_t)sizeof(bad));
	ck_assert_int_eq(send(pair[1], &m, sizeof(m) - 4, 0), (ssize_t)sizeof(m) - 4);
	ck_assert_int_eq(send(pair[1], &m, sizeof(m), 0), (ssize_t)sizeof(m));
	for (i = 0; i < 4 && !seen.n; i++)
		hip_loop_run_once(loop, 100);
	ck_assert_int_eq(seen.n, 1);
	ck_assert_uint_eq(seen.spi, 0x7001);
	ck_assert_uint_eq(seen.port, 30002);
	ck_assert(!memcmp(&seen.addr, &loc_b, sizeof(loc_b)));
	dp->ops->free(dp);
	priv_client_free(c);
	close(pair[1]);
	hip_loop_free(loop);
}
END_TEST

static Suite *priv_suite(void)
{
	Suite *s = suite_create("priv");
	TCase *t = tcase_create("validation");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_valid_sa_reaches_datapath);
	tcase_add_test(t, test_delete_only_installed);
	tcase_add_test(t, test_policy_rules);
	tcase_add_test(t, test_wrong_length);
	tcase_add_test(t, test_unknown_type_version);
	tcase_add_test(t, test_foreign_reqid);
	tcase_add_test(t, test_non_hit_selector);
	tcase_add_test(t, test_low_spi);
	tcase_add_test(t, test_bad_key_length);
	tcase_add_test(t, test_bad_fields);
	tcase_add_test(t, test_spi_hijack);
	tcase_add_test(t, test_stats_only_installed);
	tcase_add_test(t, test_pick_source);
	tcase_add_test(t, test_engine_gone);
	tcase_add_test(t, test_mapping_only_installed_inbound);
	suite_add_tcase(s, t);
	t = tcase_create("client");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_client_roundtrip);
	tcase_add_test(t, test_client_mapping_event);
	suite_add_tcase(s, t);
	return s;
}

UNIT_MAIN(priv_suite)
