/*
 * check_priv_lsi.c - the privilege separation boundary for IPv4 between
 * LSIs (docs/decisions.md D-22; hipd/privsep/priv.c): SAs with inner_v4
 * and their LSIs, the LSI policy requests and the ACQUIRE_LSI event. As
 * check_priv.c: requests over a real SOCK_SEQPACKET socketpair into
 * priv_handle() with a recording datapath behind it; every invalid one is
 * refused and reaches nothing. Then priv_client.c against priv in a child.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hip_wire.h"
#include "base/loop.h"
#include "privsep/priv.h"
#include "privsep/priv_client.h"
#include "privsep/priv_proto.h"
#include "unit.h"

#define REQID 0x48495000u

/* ---- a datapath that records what reaches it ---- */

struct rec_dp {
	struct datapath dp;
	int sa_add, pol_add, pol_del, lsi_add, lsi_del;
	struct hip_esp_sa last_sa;
	struct in_addr last_local, last_peer;
	struct hip_addr last_loc;
};

static struct rec_dp *rec_of(struct datapath *dp)
{
	return (struct rec_dp *)dp;
}

static int rec_sa_add(struct datapath *dp, const struct hip_esp_sa *sa)
{
	rec_of(dp)->sa_add++;
	rec_of(dp)->last_sa = *sa;
	return 0;
}

static int rec_sa_del(struct datapath *dp, uint32_t spi, bool inbound,
		      const struct hip_addr *outer_dst)
{
	(void)dp, (void)spi, (void)inbound, (void)outer_dst;
	return 0;
}

static int rec_pol_add(struct datapath *dp, const struct hip_hit *l, const struct hip_hit *p,
		       const struct hip_addr *ll, const struct hip_addr *pl)
{
	(void)l, (void)p, (void)ll, (void)pl;
	rec_of(dp)->pol_add++;
	return 0;
}

static int rec_pol_del(struct datapath *dp, const struct hip_hit *l, const struct hip_hit *p)
{
	(void)l, (void)p;
	rec_of(dp)->pol_del++;
	return 0;
}

static int rec_lsi_add(struct datapath *dp, const struct in_addr *l, const struct in_addr *p,
		       const struct hip_addr *ll, const struct hip_addr *pl)
{
	(void)pl;
	rec_of(dp)->lsi_add++;
	rec_of(dp)->last_local = *l;
	rec_of(dp)->last_peer = *p;
	rec_of(dp)->last_loc = *ll;
	return 0;
}

static int rec_lsi_del(struct datapath *dp, const struct in_addr *l, const struct in_addr *p)
{
	rec_of(dp)->lsi_del++;
	rec_of(dp)->last_local = *l;
	rec_of(dp)->last_peer = *p;
	return 0;
}

static void rec_flush(struct datapath *dp)
{
	(void)dp;
}

static void rec_free(struct datapath *dp)
{
	(void)dp;
}

static const struct datapath_ops rec_ops = {
	.name = "record", .sa_add = rec_sa_add, .sa_del = rec_sa_del, .policy_add = rec_pol_add,
	.policy_del = rec_pol_del, .policy_lsi_add = rec_lsi_add, .policy_lsi_del = rec_lsi_del,
	.flush = rec_flush, .free = rec_free,
};

/* The same without IPv4. */
static const struct datapath_ops rec_ops_v6 = {
	.name = "record", .sa_add = rec_sa_add, .sa_del = rec_sa_del, .policy_add = rec_pol_add,
	.policy_del = rec_pol_del, .flush = rec_flush, .free = rec_free,
};

/* ---- fixture ---- */

static struct rec_dp rec;
static struct priv *pv;
static int sv[2];            /* sv[0] engine side, sv[1] priv side */
static struct hip_hit hit_local, hit_peer, hit_other_local;
static struct in_addr lsi_local, lsi_other_local, lsi_peer;
static struct hip_addr loc_a, loc_b;

static struct in_addr v4(const char *s)
{
	struct in_addr a;

	ck_assert_int_eq(inet_pton(AF_INET, s, &a), 1);
	return a;
}

static void hit_from(struct hip_hit *h, const char *s)
{
	ck_assert_int_eq(inet_pton(AF_INET6, s, h->b), 1);
}

static void conf_fill(struct priv_conf *conf)
{
	const struct hip_lsi_range range = HIP_LSI_RANGE_DEFAULT;

	memset(conf, 0, sizeof(*conf));
	conf->local[0] = hit_local;
	conf->local[1] = hit_other_local;
	conf->local_lsi[0] = lsi_local;
	conf->local_lsi[1] = lsi_other_local;
	conf->n_local = 2;
	conf->lsi_range = range;
	conf->reqid = REQID;
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
	lsi_local = v4("198.18.0.1");
	lsi_other_local = v4("198.18.0.3");
	lsi_peer = v4("198.19.4.5");
	a4 = v4("192.0.2.1");
	hip_addr_from_v4(&loc_a, &a4);
	a4 = v4("192.0.2.2");
	hip_addr_from_v4(&loc_b, &a4);
	conf_fill(&conf);
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

/* A valid outbound IPv4-inner SA (AES-128-CBC + HMAC-SHA-256). */
static void good_sa(struct priv_msg_sa *m, uint32_t spi)
{
	memset(m, 0, sizeof(*m));
	hdr(&m->h, PRIV_REQ_SA_ADD, spi);
	m->sa.spi = spi;
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
	m->sa.inner_v4 = 1;
	m->sa.lsi_src = lsi_local;
	m->sa.lsi_dst = lsi_peer;
}

static void good_pol(struct priv_msg_policy_lsi *m, uint16_t type)
{
	memset(m, 0, sizeof(*m));
	hdr(&m->h, type, 1);
	m->pol.local = lsi_local;
	m->pol.peer = lsi_peer;
	if (type == PRIV_REQ_POLICY_LSI_ADD) {
		m->pol.local_loc = loc_a;
		m->pol.peer_loc = loc_b;
	}
}

static int roundtrip(const void *msg, size_t len)
{
	struct priv_msg_result r;

	ck_assert_int_eq(send(sv[0], msg, len, 0), (ssize_t)len);
	ck_assert_int_eq(priv_handle(pv), 0);
	ck_assert_int_eq(recv(sv[0], &r, sizeof(r), MSG_DONTWAIT), (ssize_t)sizeof(r));
	ck_assert_int_eq(r.h.type, PRIV_REPLY);
	return r.res.error;
}

/* ---- SAs ---- */

START_TEST(test_lsi_sa_reaches_datapath)
{
	struct priv_msg_sa m;

	good_sa(&m, 0x1000);
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), 0);
	ck_assert_int_eq(rec.sa_add, 1);
	ck_assert(rec.last_sa.inner_v4);
	ck_assert_uint_eq(rec.last_sa.lsi_src.s_addr, lsi_local.s_addr);
	ck_assert_uint_eq(rec.last_sa.lsi_dst.s_addr, lsi_peer.s_addr);
	ck_assert(!memcmp(&rec.last_sa.inner_dst, &hit_peer, sizeof(hit_peer)));
	/* inbound: the destination LSI is ours */
	good_sa(&m, 0x1001);
	m.sa.inbound = 1;
	m.sa.lsi_src = lsi_peer;
	m.sa.lsi_dst = lsi_other_local;
	m.sa.inner_src = hit_peer;
	m.sa.inner_dst = hit_local;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), 0);
	ck_assert_int_eq(rec.sa_add, 2);
	/* a HIT SA carries no LSI to the datapath */
	good_sa(&m, 0x1002);
	m.sa.inner_v4 = 0;
	m.sa.lsi_src.s_addr = m.sa.lsi_dst.s_addr = 0;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), 0);
	ck_assert(!rec.last_sa.inner_v4);
	ck_assert_uint_eq(priv_sa_count(pv), 3);
}
END_TEST

START_TEST(test_lsi_sa_refused)
{
	static const char *const bad_peer[] = {
		"10.0.0.1",          /* outside the range */
		"198.18.0.0",        /* the range's network address */
		"198.19.255.255",    /* its broadcast address */
		"198.18.0.3",        /* one of ours */
		"0.0.0.0",
	};
	struct priv_msg_sa m;
	size_t i;

	good_sa(&m, 0x2000);
	m.sa.inner_v4 = 2;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	good_sa(&m, 0x2000);
	m.sa.lsi_src.s_addr = 0;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	good_sa(&m, 0x2000);
	m.sa.lsi_src = v4("198.18.0.5");          /* in range, not ours */
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EPERM);
	for (i = 0; i < sizeof(bad_peer) / sizeof(bad_peer[0]); i++) {
		good_sa(&m, 0x2000);
		m.sa.lsi_dst = v4(bad_peer[i]);
		ck_assert_msg(roundtrip(&m, sizeof(m)) == -EINVAL, "peer LSI %s", bad_peer[i]);
	}
	/* inbound with the LSIs the outbound way round: the local one is the
	 * destination */
	good_sa(&m, 0x2000);
	m.sa.inbound = 1;
	m.sa.inner_src = hit_peer;
	m.sa.inner_dst = hit_local;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EPERM);
	/* LSIs without inner_v4 */
	good_sa(&m, 0x2000);
	m.sa.inner_v4 = 0;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	good_sa(&m, 0x2000);
	m.sa.inner_v4 = 0;
	m.sa.lsi_src.s_addr = 0;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	ck_assert_int_eq(rec.sa_add, 0);
	/* an installed HIT SA's SPI cannot become an IPv4 one */
	good_sa(&m, 0x2000);
	m.sa.inner_v4 = 0;
	m.sa.lsi_src.s_addr = m.sa.lsi_dst.s_addr = 0;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), 0);
	good_sa(&m, 0x2000);
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EEXIST);
	ck_assert_int_eq(rec.sa_add, 1);
}
END_TEST

/* ---- policies ---- */

START_TEST(test_lsi_policy_rules)
{
	struct priv_msg_policy_lsi m;
	struct priv_msg_policy h;

	good_pol(&m, PRIV_REQ_POLICY_LSI_DEL);
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EPERM);   /* never installed */
	good_pol(&m, PRIV_REQ_POLICY_LSI_ADD);
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), 0);
	ck_assert_int_eq(rec.lsi_add, 1);
	ck_assert_uint_eq(rec.last_local.s_addr, lsi_local.s_addr);
	ck_assert_uint_eq(rec.last_peer.s_addr, lsi_peer.s_addr);
	ck_assert(!memcmp(&rec.last_loc, &loc_a, sizeof(loc_a)));
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), 0);        /* a move: updated */
	ck_assert_int_eq(rec.lsi_add, 2);
	ck_assert_uint_eq(priv_policy_count(pv), 1);
	/* refused: the local LSI not ours, the peer's one of ours / zero /
	 * outside the range, locators of two families */
	m.pol.local = lsi_peer;
	m.pol.peer = lsi_local;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EPERM);
	good_pol(&m, PRIV_REQ_POLICY_LSI_ADD);
	m.pol.peer = lsi_other_local;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	m.pol.peer.s_addr = 0;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	m.pol.peer = v4("192.168.1.1");
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	good_pol(&m, PRIV_REQ_POLICY_LSI_ADD);
	inet_pton(AF_INET6, "2001:db8::1", &m.pol.peer_loc.in6);
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	/* an LSI request of the HIT policy request's size is refused (m
	 * copied into a buffer that large: the bytes after it are zero) */
	memset(&h, 0, sizeof(h));
	ck_assert_uint_lt(sizeof(m), sizeof(h));
	memcpy(&h, &m, sizeof(m));
	ck_assert_int_eq(roundtrip(&h, sizeof(h)), -EBADMSG);
	ck_assert_int_eq(rec.lsi_add, 2);
	/* a HIT pair's delete is not this pair's */
	memset(&h, 0, sizeof(h));
	hdr(&h.h, PRIV_REQ_POLICY_DEL, 2);
	h.pol.local = hit_local;
	h.pol.peer = hit_peer;
	ck_assert_int_eq(roundtrip(&h, sizeof(h)), -EPERM);
	/* delete: locators must be zero */
	good_pol(&m, PRIV_REQ_POLICY_LSI_DEL);
	m.pol.peer_loc = loc_b;
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EINVAL);
	good_pol(&m, PRIV_REQ_POLICY_LSI_DEL);
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), 0);
	ck_assert_int_eq(rec.lsi_del, 1);
	ck_assert_int_eq(rec.pol_del, 0);
	ck_assert_uint_eq(priv_policy_count(pv), 0);
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -EPERM);
}
END_TEST

/* A datapath without IPv4 refuses the LSI policy (the engine then offers
 * no LSI SA pair). */
START_TEST(test_lsi_policy_no_ipv4)
{
	struct priv_msg_policy_lsi m;

	rec.dp.ops = &rec_ops_v6;
	good_pol(&m, PRIV_REQ_POLICY_LSI_ADD);
	ck_assert_int_eq(roundtrip(&m, sizeof(m)), -ENOTSUP);
	ck_assert_uint_eq(priv_policy_count(pv), 0);
}
END_TEST

/* ---- the ACQUIRE_LSI event ---- */

/* priv passes on the kernel's ACQUIRE for one of our LSIs only. */
START_TEST(test_acquire_lsi_passed_on)
{
	struct priv_msg_lsi_pair m;
	struct in_addr other = v4("198.18.0.9");

	ck_assert_ptr_nonnull(rec.dp.ev.acquire_lsi);
	rec.dp.ev.acquire_lsi(rec.dp.ev.arg, &other, &lsi_peer);
	ck_assert_int_eq(recv(sv[0], &m, sizeof(m), MSG_DONTWAIT), -1);
	rec.dp.ev.acquire_lsi(rec.dp.ev.arg, &lsi_local, &lsi_peer);
	ck_assert_int_eq(recv(sv[0], &m, sizeof(m), MSG_DONTWAIT), (ssize_t)sizeof(m));
	ck_assert_uint_eq(m.h.type, PRIV_EV_ACQUIRE_LSI);
	ck_assert_uint_eq(m.h.seq, 0);
	ck_assert_uint_eq(m.lsis.local.s_addr, lsi_local.s_addr);
	ck_assert_uint_eq(m.lsis.peer.s_addr, lsi_peer.s_addr);
}
END_TEST

struct acq_seen {
	int n;
	struct in_addr local, peer;
};

static void on_acquire_lsi(void *arg, const struct in_addr *local, const struct in_addr *peer)
{
	struct acq_seen *s = arg;

	s->n++;
	s->local = *local;
	s->peer = *peer;
}

/* The engine's side takes only a well-formed event: exact size, both
 * LSIs set and different. */
START_TEST(test_client_acquire_lsi_event)
{
	struct acq_seen seen = { 0 };
	struct datapath_events ev = { .arg = &seen, .acquire_lsi = on_acquire_lsi };
	struct priv_msg_lsi_pair m, bad;
	struct priv_client *c;
	struct hip_loop *loop;
	struct datapath *dp;
	int pair[2], i;

	ck_assert_int_eq(hip_loop_create(&loop), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), 0);
	ck_assert_int_eq(priv_client_create(&c, loop, pair[0], REQID, NULL), 0);
	dp = priv_client_datapath(c, &ev);
	memset(&m, 0, sizeof(m));
	hdr(&m.h, PRIV_EV_ACQUIRE_LSI, 0);
	m.lsis.local = lsi_local;
	m.lsis.peer = lsi_peer;
	bad = m;
	bad.lsis.local.s_addr = 0;
	ck_assert_int_eq(send(pair[1], &bad, sizeof(bad), 0), (ssize_t)sizeof(bad));
	bad = m;
	bad.lsis.peer.s_addr = 0;
	ck_assert_int_eq(send(pair[1], &bad, sizeof(bad), 0), (ssize_t)sizeof(bad));
	bad = m;
	bad.lsis.peer = lsi_local;
	ck_assert_int_eq(send(pair[1], &bad, sizeof(bad), 0), (ssize_t)sizeof(bad));
	ck_assert_int_eq(send(pair[1], &m, sizeof(m) - 4, 0), (ssize_t)sizeof(m) - 4);
	ck_assert_int_eq(send(pair[1], &m, sizeof(m), 0), (ssize_t)sizeof(m));
	for (i = 0; i < 4 && !seen.n; i++)
		hip_loop_run_once(loop, 100);
	ck_assert_int_eq(seen.n, 1);
	ck_assert_uint_eq(seen.local.s_addr, lsi_local.s_addr);
	ck_assert_uint_eq(seen.peer.s_addr, lsi_peer.s_addr);
	dp->ops->free(dp);
	priv_client_free(c);
	close(pair[1]);
	hip_loop_free(loop);
}
END_TEST

/* ---- priv_client -> priv in a child ---- */

static void priv_child(int fd)
{
	struct priv_conf conf;
	struct priv *p;
	int r;

	conf_fill(&conf);
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
	/* what reached the datapath: an IPv4 SA with our LSIs, the LSI
	 * policy added and removed */
	_exit((rec.sa_add == 1 && rec.last_sa.inner_v4 &&
	       rec.last_sa.lsi_src.s_addr == lsi_local.s_addr &&
	       rec.last_sa.lsi_dst.s_addr == lsi_peer.s_addr) +
	      2 * (rec.lsi_add == 1) + 4 * (rec.lsi_del == 1));
}

START_TEST(test_client_lsi_roundtrip)
{
	struct datapath_events ev = { 0 };
	struct priv_client *c;
	struct datapath *dp;
	struct hip_esp_sa sa;
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
	ck_assert_ptr_nonnull(dp->ops->policy_lsi_add);
	memset(&sa, 0, sizeof(sa));
	sa.spi = 0x6000;
	sa.suite = HIP_ESP_AES_GCM_16;
	sa.enc_len = 20;
	sa.replay_window = 128;
	sa.outer_src = loc_a;
	sa.outer_dst = loc_b;
	sa.inner_src = hit_local;
	sa.inner_dst = hit_peer;
	sa.inner_v4 = true;
	sa.lsi_src = lsi_local;
	sa.lsi_dst = lsi_peer;
	ck_assert_int_eq(dp->ops->sa_add(dp, &sa), 0);
	sa.spi = 0x6002;
	sa.lsi_dst = lsi_other_local;
	ck_assert_int_eq(dp->ops->sa_add(dp, &sa), -EINVAL);
	ck_assert_int_eq(dp->ops->policy_lsi_add(dp, &lsi_local, &lsi_peer, &loc_a, &loc_b), 0);
	ck_assert_int_eq(dp->ops->policy_lsi_add(dp, &lsi_peer, &lsi_local, &loc_a, &loc_b),
			 -EPERM);
	ck_assert_int_eq(dp->ops->policy_lsi_del(dp, &lsi_local, &lsi_peer), 0);
	ck_assert_int_eq(dp->ops->policy_lsi_del(dp, &lsi_local, &lsi_peer), -EPERM);
	dp->ops->free(dp);
	priv_client_free(c);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 1 + 2 + 4);
}
END_TEST

static Suite *priv_lsi_suite(void)
{
	Suite *s = suite_create("priv_lsi");
	TCase *t = tcase_create("validation");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_lsi_sa_reaches_datapath);
	tcase_add_test(t, test_lsi_sa_refused);
	tcase_add_test(t, test_lsi_policy_rules);
	tcase_add_test(t, test_lsi_policy_no_ipv4);
	tcase_add_test(t, test_acquire_lsi_passed_on);
	suite_add_tcase(s, t);
	t = tcase_create("client");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_client_acquire_lsi_event);
	tcase_add_test(t, test_client_lsi_roundtrip);
	suite_add_tcase(s, t);
	return s;
}

UNIT_MAIN(priv_lsi_suite)
