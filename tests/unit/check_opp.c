/*
 * check_opp.c - opportunistic mode, the Initiator's side (RFC 7401
 * §4.1.8, docs/decisions.md D-27; hipd/engine/exchange/bex_opp.c,
 * hipd/engine/engine_opp.c): `hipconf trigger ADDRESS` where hipd.conf
 * opportunistic_peers allows it, the NULL-HIT I1s, which R1 is taken,
 * the pin at the R2 (show pins, the hosts map, known_hosts_file), a
 * pinned address answering with another HIT, `del pin`, and the pins
 * loaded back at start. Two in-process engines from bex_harness.c: A
 * the Initiator, which does not know B's HIT, and B answering NULL-HIT
 * I1s (opportunistic = yes).
 *
 * The exchanges' timer (the I1 back-off, the R2 wait of 60 s) is fired
 * with no waiting: the link wraps hipd_now_ns (tests/local.mk,
 * -Wl,--wrap) so the engine's clock can be moved on, and
 * hip_loop_timer_add_at, which only bex_opp.c calls, to know its timer.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bex_harness.h"
#include "engine_ctl.h"
#include "control/control.h"
#include "engine/assoc/hadb.h"
#include "engine/assoc/hidb.h"
#include "engine/exchange/exchange.h"
#include "hit.h"
#include "net/hosts.h"
#include "base/loop.h"
#include "hip_crypto.h"
#include "packet.h"
#include "params.h"
#include "unit.h"

#define A(n) (&(n)->h[0])
#define B(n) (&(n)->h[1])

/* ---- the engine's clock and the opportunistic timer ------------------- */

uint64_t __real_hipd_now_ns(void);
uint64_t __wrap_hipd_now_ns(void);
uint64_t __real_hip_loop_timer_add_at(struct hip_loop *loop, uint64_t deadline_ns,
				      hip_loop_timer_cb cb, void *arg);
uint64_t __wrap_hip_loop_timer_add_at(struct hip_loop *loop, uint64_t deadline_ns,
				      hip_loop_timer_cb cb, void *arg);

static uint64_t clock_ahead_ns;   /* added to the engine's clock */
static uint64_t opp_timer, opp_deadline;

uint64_t __wrap_hipd_now_ns(void)
{
	return __real_hipd_now_ns() + clock_ahead_ns;
}

uint64_t __wrap_hip_loop_timer_add_at(struct hip_loop *loop, uint64_t deadline_ns,
				      hip_loop_timer_cb cb, void *arg)
{
	opp_timer = __real_hip_loop_timer_add_at(loop, deadline_ns, cb, arg);
	opp_deadline = deadline_ns;
	return opp_timer;
}

/* The opportunistic timer now: the engine's clock moved to its deadline. */
static void opp_fire(struct bex_net *n)
{
	uint64_t now = hipd_now_ns();

	ck_assert_msg(opp_timer && hip_loop_timer_pending(n->loop, opp_timer),
		      "no opportunistic timer pending");
	if (opp_deadline > now)
		clock_ahead_ns += opp_deadline - now;
	ck_assert_int_eq(hip_loop_timer_rearm(n->loop, opp_timer, 0), 0);
	ck_assert_int_ge(hip_loop_run_once(n->loop, 0), 1);
}

/* ---- fixture ---------------------------------------------------------- */

static const uint8_t null_hit[HIP_HIT_LEN];

/* A with hipconf over a real control connection, opportunistic_peers =
 * peers (NULL: the default), and B not in its hosts map; B answers
 * NULL-HIT I1s. */
static void opp_init(struct bex_net *n, struct ctl_fixture *f, unsigned i1_retries,
		     const char *peers)
{
	struct bex_opts a = { .i1_retries = i1_retries }, b = { 0 };
	char conf[256], err[HIPD_CONF_ERR_MAX];
	int len;

	clock_ahead_ns = 0;
	opp_timer = opp_deadline = 0;
	bex_net_init(n, &a, &b);
	B(n)->d.conf.opportunistic = true;
	ck_assert_int_eq(hosts_del(A(n)->d.hosts, bex_hit(B(n)), NULL), 0);
	if (peers) {
		len = snprintf(conf, sizeof(conf), "opportunistic_peers = %s\n", peers);
		ck_assert_msg(hipd_conf_parse(&A(n)->d.conf, "test.conf", conf, (size_t)len, err,
					      sizeof(err)) == 0, "%s", err);
	}
	ctl_open(f, n->loop);
	A(n)->d.control = f->ctl;
	ck_assert_int_eq(eng_control_register(&A(n)->d), 0);
}

static void opp_free(struct bex_net *n, struct ctl_fixture *f)
{
	ctl_close(f);
	A(n)->d.control = NULL;
	bex_net_free(n);
}

static void has(const char *out, const char *what)
{
	ck_assert_msg(strstr(out, what), "'%s' not in: %s", what, out);
}

static void has_not(const char *out, const char *what)
{
	ck_assert_msg(!strstr(out, what), "'%s' in: %s", what, out);
}

/* `show pins` in JSON. */
static void pins(struct bex_net *n, struct ctl_fixture *f, char *out, size_t cap)
{
	ck_assert_int_eq(ctl_call(f, n->loop, true, "show pins", out, cap), CTL_OK);
}

/* The counters of `show pins`, as JSON text. */
static void counters(struct bex_net *n, struct ctl_fixture *f, unsigned started, unsigned learnt,
		     unsigned refused, unsigned failed, unsigned under_way)
{
	char out[4096], want[256];

	pins(n, f, out, sizeof(out));
	snprintf(want, sizeof(want), "\"started\": %u, \"learnt\": %u, \"confirmed\": 0, "
		 "\"refused\": %u, \"failed\": %u, \"under_way\": %u", started, learnt, refused,
		 failed, under_way);
	has(out, want);
}

/* Whether A's hosts map has hit at addr. */
static bool mapped(struct bex_net *n, const struct hip_hit *hit, const char *addr)
{
	const struct hosts_entry *e = hosts_lookup(A(n)->d.hosts, hit);
	struct hip_addr want;
	size_t i;

	ck_assert_int_eq(hip_addr_from_str(addr, &want), 0);
	for (i = 0; e && i < e->n_loc; i++)
		if (memcmp(&e->loc[i], &want, sizeof(want)) == 0)
			return true;
	return false;
}

/* A's opportunistic I1, taken from the queue: to B's address, from A's
 * HIT to the NULL HIT (§5.3.1). */
static void take_i1(struct bex_net *n, struct bex_pkt *i1)
{
	ck_assert(bex_take(n, 0, HIP_I1, i1));
	ck_assert_mem_eq(i1->buf + 8, bex_hit(A(n))->b, HIP_HIT_LEN);
	ck_assert_mem_eq(i1->buf + 24, null_hit, HIP_HIT_LEN);
	ck_assert_mem_eq(&i1->dst, &B(n)->addr, sizeof(i1->dst));
}

/* B's R1 to A's queued opportunistic I1 (both taken from the queue). */
static void opp_r1(struct bex_net *n, struct bex_pkt *r1)
{
	struct bex_pkt i1;

	take_i1(n, &i1);
	bex_inject(n, 1, i1.buf, i1.len, &i1.src, &i1.dst);
	ck_assert(bex_take(n, 1, HIP_R1, r1));
	ck_assert_mem_eq(r1->buf + 8, bex_hit(B(n))->b, HIP_HIT_LEN);
	ck_assert_mem_eq(r1->buf + 24, bex_hit(A(n))->b, HIP_HIT_LEN);
	ck_assert_ptr_null(bex_ha(B(n)));         /* stateless, as any R1 */
	ck_assert_msg(n->n == 0, "queued: type %d from %d", n->q[0].buf[2] & 0x7f, n->q[0].from);
}

static void del_pin_ok(struct bex_net *n, struct ctl_fixture *f, char *out, size_t cap)
{
	ck_assert_int_eq(ctl_call(f, n->loop, false, "del pin 127.0.0.2", out, cap), CTL_OK);
}

static void trigger_ok(struct bex_net *n, struct ctl_fixture *f, const char *reply)
{
	char out[1024];

	ck_assert_int_eq(ctl_call(f, n->loop, false, "trigger 127.0.0.2", out, sizeof(out)),
			 CTL_OK);
	has(out, reply);
}

/* A whole opportunistic exchange with B: A ends up with B pinned. */
static void learn(struct bex_net *n, struct ctl_fixture *f)
{
	struct bex_pkt r1;

	trigger_ok(n, f, "opportunistic base exchange started or running with 127.0.0.2 "
		   "(HIT not known yet)");
	opp_r1(n, &r1);
	bex_inject(n, 0, r1.buf, r1.len, &B(n)->addr, &A(n)->addr);
	ck_assert_int_eq(bex_state(A(n)), HIP_STATE_I2_SENT);
	bex_run(n, 20);
	ck_assert_int_eq(bex_state(A(n)), HIP_STATE_ESTABLISHED);
}

/* ---- the tests -------------------------------------------------------- */

/* D-27: off by default, and allowed only where opportunistic_peers says. */
START_TEST(test_off)
{
	static const char *const peers[] = { NULL, "none", "192.0.2.0/24 127.0.0.3 ::/0" };
	struct ctl_fixture f;
	struct bex_net n;
	char out[1024];

	opp_init(&n, &f, 0, peers[_i]);
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "trigger 127.0.0.2", out, sizeof(out)),
			 CTL_EFAILED);
	has(out, "opportunistic mode is off for 127.0.0.2");
	ck_assert_uint_eq(n.sent[0][HIP_I1], 0);
	ck_assert_uint_eq(n.n, 0);
	counters(&n, &f, 0, 0, 0, 0, 0);
	opp_free(&n, &f);
}
END_TEST

/* Allowed: a NULL-HIT I1 to the address, B's R1 to it; a second trigger
 * while under way sends nothing more. */
START_TEST(test_i1_r1)
{
	static const char *const peers[] = { "127.0.0.0/8", "any", "10.0.0.0/8 127.0.0.2" };
	struct ctl_fixture f;
	struct bex_net n;
	struct bex_pkt r1;
	char out[1024];

	opp_init(&n, &f, 0, peers[_i]);
	trigger_ok(&n, &f, "opportunistic base exchange started or running with 127.0.0.2 "
		   "(HIT not known yet)");
	ck_assert_uint_eq(n.sent[0][HIP_I1], 1);
	ck_assert_uint_eq(n.n, 1);
	counters(&n, &f, 1, 0, 0, 0, 1);
	ck_assert_int_eq(ctl_call(&f, n.loop, true, "trigger 127.0.0.2", out, sizeof(out)),
			 CTL_OK);
	has(out, "\"address\": \"127.0.0.2\", \"pinned_hit\": null}");
	ck_assert_uint_eq(n.sent[0][HIP_I1], 1);
	opp_r1(&n, &r1);
	counters(&n, &f, 1, 0, 0, 0, 1);
	opp_free(&n, &f);
}
END_TEST

/* §4.1.8: an R1 from another address than the I1s' is not taken; the
 * exchange stays under way and takes the right one. */
START_TEST(test_r1_other_address)
{
	struct ctl_fixture f;
	struct bex_net n;
	struct bex_pkt r1;
	struct hip_addr other;
	char out[4096];

	opp_init(&n, &f, 0, "127.0.0.0/8");
	trigger_ok(&n, &f, "(HIT not known yet)");
	opp_r1(&n, &r1);
	ck_assert_int_eq(hip_addr_from_str("127.0.0.3", &other), 0);
	bex_inject(&n, 0, r1.buf, r1.len, &other, &A(&n)->addr);
	ck_assert_uint_eq(hadb_count(A(&n)->d.hadb), 0);
	ck_assert_uint_eq(n.n, 0);
	pins(&n, &f, out, sizeof(out));
	has(out, "\"pins\": []");
	counters(&n, &f, 1, 0, 0, 0, 1);
	bex_inject(&n, 0, r1.buf, r1.len, &B(&n)->addr, &A(&n)->addr);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_I2_SENT);
	opp_free(&n, &f);
}
END_TEST

/* §4.1.8: an R1 from the address naming another HIT of ours than the
 * I1s' is not taken either. */
START_TEST(test_r1_other_local_hit)
{
	struct hip_u8_list groups = { .n = 1, .v = { HIP_DH_NIST_P256 } };
	uint8_t buf[HIP_MAX_PACKET];
	struct hip_builder bld;
	struct ctl_fixture f;
	struct bex_net n;
	struct bex_pkt r1, r1_alt;
	struct hip_hit alt_hit;
	struct hip_hi *hi;
	const uint8_t *wire;
	size_t wire_len;
	int len;

	opp_init(&n, &f, 0, "127.0.0.0/8");
	ck_assert_int_eq(hip_hi_generate(HIP_HI_KIND_ECDSA_P256, &hi), 0);
	wire = hip_hi_wire(hi, &wire_len);
	ck_assert_int_eq(hip_hit_from_hi((uint8_t)hip_hi_suite(hi), wire, wire_len, &alt_hit), 0);
	ck_assert_int_eq(hidb_add(A(&n)->d.hidb, hi), 0);   /* A's hidb owns it now */
	trigger_ok(&n, &f, "(HIT not known yet)");
	opp_r1(&n, &r1);
	/* B's R1 to an opportunistic I1 from A's other HIT */
	hip_build_init(&bld, buf, sizeof(buf), HIP_I1, &alt_hit, NULL);
	hip_dh_group_list_build(&bld, &groups);
	len = hip_build_finish(&bld);
	ck_assert_int_gt(len, 0);
	bex_inject(&n, 1, buf, (size_t)len, &A(&n)->addr, &B(&n)->addr);
	ck_assert(bex_take(&n, 1, HIP_R1, &r1_alt));
	ck_assert_mem_eq(r1_alt.buf + 24, alt_hit.b, HIP_HIT_LEN);
	bex_inject(&n, 0, r1_alt.buf, r1_alt.len, &B(&n)->addr, &A(&n)->addr);
	ck_assert_uint_eq(hadb_count(A(&n)->d.hadb), 0);
	ck_assert_uint_eq(n.n, 0);
	counters(&n, &f, 1, 0, 0, 0, 1);
	bex_inject(&n, 0, r1.buf, r1.len, &B(&n)->addr, &A(&n)->addr);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_I2_SENT);
	opp_free(&n, &f);
}
END_TEST

/* The R1 taken: I2-SENT, nothing pinned yet; the R2: ESTABLISHED, the
 * HIT pinned for the address and mapped to it. */
START_TEST(test_pin_at_r2)
{
	struct ctl_fixture f;
	struct bex_net n;
	struct bex_pkt r1;
	char out[4096], want[256], hit_b[HIP_HIT_STR_LEN];

	opp_init(&n, &f, 0, "127.0.0.0/8");
	hip_hit_to_str(bex_hit(B(&n)), hit_b, sizeof(hit_b));
	trigger_ok(&n, &f, "(HIT not known yet)");
	opp_r1(&n, &r1);
	bex_inject(&n, 0, r1.buf, r1.len, &B(&n)->addr, &A(&n)->addr);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_I2_SENT);
	ck_assert_uint_eq(n.sent[0][HIP_I2], 1);
	pins(&n, &f, out, sizeof(out));
	has(out, "\"pins\": []");
	counters(&n, &f, 1, 0, 0, 0, 1);
	ck_assert(!mapped(&n, bex_hit(B(&n)), "127.0.0.2"));

	ck_assert(bex_deliver_match(&n, 0, HIP_I2));
	ck_assert(bex_deliver_match(&n, 1, HIP_R2));
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_ESTABLISHED);
	counters(&n, &f, 1, 1, 0, 0, 0);
	pins(&n, &f, out, sizeof(out));
	snprintf(want, sizeof(want), "\"pins\": [{\"address\": \"127.0.0.2\", \"hit\": \"%s\", "
		 "\"since\": ", hit_b);
	has(out, want);
	has(out, "\"line\": 0}]}");
	has(out, "\"file\": \"\"");                 /* no known_hosts_file: in memory */
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "show pins", out, sizeof(out)), CTL_OK);
	snprintf(want, sizeof(want), "\n127.0.0.2 %s since 20", hit_b);
	has(out, want);
	has(out, "known hosts (in memory only): 1");
	ck_assert(mapped(&n, bex_hit(B(&n)), "127.0.0.2"));
	opp_free(&n, &f);
}
END_TEST

/* The I2s lost, no R2: given up, nothing pinned or mapped; a new
 * trigger starts anew. */
START_TEST(test_i2_lost)
{
	struct ctl_fixture f;
	struct bex_net n;
	struct bex_pkt r1;
	char out[4096];
	unsigned i;

	opp_init(&n, &f, 0, "127.0.0.0/8");
	trigger_ok(&n, &f, "(HIT not known yet)");
	opp_r1(&n, &r1);
	bex_inject(&n, 0, r1.buf, r1.len, &B(&n)->addr, &A(&n)->addr);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_I2_SENT);
	/* the I2 and its i2_retries retransmissions lost: the exchange fails */
	for (i = 0; i <= A(&n)->d.conf.i2_retries; i++) {
		ck_assert(bex_take(&n, 0, HIP_I2, NULL));
		ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_I2_SENT);
		counters(&n, &f, 1, 0, 0, 0, 1);
		bex_fire(A(&n));
	}
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_E_FAILED);
	ck_assert_uint_eq(n.n, 0);
	pins(&n, &f, out, sizeof(out));
	has(out, "\"pins\": []");
	opp_fire(&n);                              /* the R2 wait over */
	counters(&n, &f, 1, 0, 0, 1, 0);
	pins(&n, &f, out, sizeof(out));
	has(out, "\"pins\": []");
	ck_assert(!mapped(&n, bex_hit(B(&n)), "127.0.0.2"));
	ck_assert_uint_eq(n.sent[0][HIP_I1], 1);
	trigger_ok(&n, &f, "(HIT not known yet)");
	ck_assert_uint_eq(n.sent[0][HIP_I1], 2);
	counters(&n, &f, 2, 0, 0, 1, 1);
	/* the R1 starts the association in E-FAILED afresh */
	opp_r1(&n, &r1);
	bex_inject(&n, 0, r1.buf, r1.len, &B(&n)->addr, &A(&n)->addr);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_I2_SENT);
	opp_free(&n, &f);
}
END_TEST

/* No R1 at all: i1_retries retransmissions on the I1 back-off, then
 * given up. */
START_TEST(test_no_r1)
{
	struct ctl_fixture f;
	struct bex_net n;
	uint64_t before;

	opp_init(&n, &f, 2, "127.0.0.0/8");
	before = hipd_now_ns();
	trigger_ok(&n, &f, "(HIT not known yet)");
	ck_assert_uint_ge(opp_deadline, before + (uint64_t)A(&n)->d.conf.i1_timeout_ms * 1000000u);
	opp_fire(&n);
	ck_assert_uint_eq(n.sent[0][HIP_I1], 2);
	opp_fire(&n);
	ck_assert_uint_eq(n.sent[0][HIP_I1], 3);
	counters(&n, &f, 1, 0, 0, 0, 1);
	opp_fire(&n);
	ck_assert_uint_eq(n.sent[0][HIP_I1], 3);
	counters(&n, &f, 1, 0, 0, 1, 0);
	ck_assert(!hip_loop_timer_pending(n.loop, opp_timer));
	opp_free(&n, &f);
}
END_TEST

/* Write text to A's known_hosts_file (in its directory) and restart A's
 * pins from it. */
static int pins_restart(struct bex_net *n, const char *text)
{
	struct hipd *d = &A(n)->d;
	FILE *fp;
	int len;

	len = snprintf(d->conf.known_hosts_file, sizeof(d->conf.known_hosts_file),
		       "%s/known_hosts", A(n)->dir);
	ck_assert(len > 0 && (size_t)len < sizeof(d->conf.known_hosts_file));
	if (text) {
		fp = fopen(d->conf.known_hosts_file, "w");
		ck_assert_ptr_nonnull(fp);
		ck_assert_int_ge(fputs(text, fp), 0);
		ck_assert_int_eq(fclose(fp), 0);
	}
	eng_opp_stop(d);
	return eng_opp_start(d);
}

/* A pinned address answering with another HIT: refused, counted, no
 * association; the I1 back-off then gives up. */
START_TEST(test_pinned_other_hit)
{
	struct ctl_fixture f;
	struct bex_net n;
	struct bex_pkt r1;
	struct hip_hit fake;
	char out[4096], text[128], hit_f[HIP_HIT_STR_LEN], want[256];

	opp_init(&n, &f, 1, "127.0.0.0/8");
	fake = *bex_hit(B(&n));
	fake.b[15] ^= 0x5a;
	hip_hit_to_str(&fake, hit_f, sizeof(hit_f));
	snprintf(text, sizeof(text), "# test\n127.0.0.2 %s since=1700000000\n", hit_f);
	ck_assert_int_eq(pins_restart(&n, text), 0);
	ck_assert(mapped(&n, &fake, "127.0.0.2"));  /* a pin is a mapping */
	snprintf(want, sizeof(want), "opportunistic base exchange started or running with "
		 "127.0.0.2, pinned to %s", hit_f);
	trigger_ok(&n, &f, want);
	ck_assert_uint_eq(n.sent[0][HIP_I1], 1);
	opp_r1(&n, &r1);
	bex_inject(&n, 0, r1.buf, r1.len, &B(&n)->addr, &A(&n)->addr);
	ck_assert_uint_eq(hadb_count(A(&n)->d.hadb), 0);
	ck_assert_uint_eq(n.n, 0);
	counters(&n, &f, 1, 0, 1, 0, 1);
	opp_fire(&n);                              /* the one retransmission */
	ck_assert_uint_eq(n.sent[0][HIP_I1], 2);
	take_i1(&n, &r1);
	opp_fire(&n);
	ck_assert_uint_eq(n.sent[0][HIP_I1], 2);
	counters(&n, &f, 1, 0, 1, 1, 0);
	ck_assert_uint_eq(hadb_count(A(&n)->d.hadb), 0);
	/* the pin is as it was */
	pins(&n, &f, out, sizeof(out));
	snprintf(want, sizeof(want), "[{\"address\": \"127.0.0.2\", \"hit\": \"%s\", \"since\": "
		 "1700000000, \"line\": 2}]", hit_f);
	has(out, want);
	ck_assert(!mapped(&n, bex_hit(B(&n)), "127.0.0.2"));

	/* the pin removed: the next exchange learns B */
	del_pin_ok(&n, &f, out, sizeof(out));
	ck_assert(!mapped(&n, &fake, "127.0.0.2"));
	learn(&n, &f);
	pins(&n, &f, out, sizeof(out));
	has_not(out, hit_f);
	ck_assert(mapped(&n, bex_hit(B(&n)), "127.0.0.2"));
	opp_free(&n, &f);
}
END_TEST

/* del pin: the pin and its mapping go; a second time, not pinned. */
START_TEST(test_del_pin)
{
	struct ctl_fixture f;
	struct bex_net n;
	char out[4096], want[256], hit_b[HIP_HIT_STR_LEN];

	opp_init(&n, &f, 0, "127.0.0.0/8");
	hip_hit_to_str(bex_hit(B(&n)), hit_b, sizeof(hit_b));
	learn(&n, &f);
	ck_assert(mapped(&n, bex_hit(B(&n)), "127.0.0.2"));
	del_pin_ok(&n, &f, out, sizeof(out));
	snprintf(want, sizeof(want), "pin of %s for 127.0.0.2 removed", hit_b);
	has(out, want);
	pins(&n, &f, out, sizeof(out));
	has(out, "\"pins\": []");
	ck_assert(!mapped(&n, bex_hit(B(&n)), "127.0.0.2"));
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "del pin 127.0.0.2", out, sizeof(out)),
			 CTL_ENOENT);
	has(out, "127.0.0.2 is not pinned");
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "del pin 127.0.0.9", out, sizeof(out)),
			 CTL_ENOENT);
	has(out, "127.0.0.9 is not pinned");
	opp_free(&n, &f);
}
END_TEST

/* trigger for a pinned address whose association is up: reported, no I1. */
START_TEST(test_trigger_pinned_up)
{
	struct ctl_fixture f;
	struct bex_net n;
	char out[1024], want[256], hit_b[HIP_HIT_STR_LEN];
	unsigned i1s;

	opp_init(&n, &f, 0, "127.0.0.0/8");
	hip_hit_to_str(bex_hit(B(&n)), hit_b, sizeof(hit_b));
	learn(&n, &f);
	bex_run(&n, 20);
	i1s = n.sent[0][HIP_I1];
	snprintf(want, sizeof(want), "opportunistic base exchange started or running with "
		 "127.0.0.2, pinned to %s", hit_b);
	trigger_ok(&n, &f, want);
	ck_assert_int_eq(ctl_call(&f, n.loop, true, "trigger 127.0.0.2", out, sizeof(out)), CTL_OK);
	snprintf(want, sizeof(want), "\"pinned_hit\": \"%s\"}", hit_b);
	has(out, want);
	ck_assert_uint_eq(n.sent[0][HIP_I1], i1s);
	ck_assert_uint_eq(n.n, 0);
	counters(&n, &f, 1, 1, 0, 0, 0);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_ESTABLISHED);
	opp_free(&n, &f);
}
END_TEST

/* known_hosts_file: the pin saved as "ADDRESS HIT since=N", loaded and
 * mapped again at start; a file with an error stops the start. */
START_TEST(test_file)
{
	struct ctl_fixture f;
	struct bex_net n;
	char out[4096], want[256], hit_b[HIP_HIT_STR_LEN], file[8192];
	struct hipd *d;
	size_t len;
	FILE *fp;

	opp_init(&n, &f, 0, "127.0.0.0/8");
	d = &A(&n)->d;
	hip_hit_to_str(bex_hit(B(&n)), hit_b, sizeof(hit_b));
	ck_assert_int_eq(pins_restart(&n, NULL), 0);   /* no file yet: no pins */
	pins(&n, &f, out, sizeof(out));
	has(out, "\"pins\": []");
	ck_assert_int_ne(access(d->conf.known_hosts_file, F_OK), 0);
	learn(&n, &f);
	fp = fopen(d->conf.known_hosts_file, "r");
	ck_assert_ptr_nonnull(fp);
	len = fread(file, 1, sizeof(file) - 1, fp);
	fclose(fp);
	file[len] = '\0';
	snprintf(want, sizeof(want), "\n127.0.0.2 %s since=", hit_b);
	has(file, want);

	/* a restart: the pin is back, mapped again */
	ck_assert_int_eq(hosts_del(d->hosts, bex_hit(B(&n)), NULL), 0);
	eng_opp_stop(d);
	ck_assert_int_eq(eng_opp_start(d), 0);
	ck_assert(mapped(&n, bex_hit(B(&n)), "127.0.0.2"));
	pins(&n, &f, out, sizeof(out));
	snprintf(want, sizeof(want), "\"pins\": [{\"address\": \"127.0.0.2\", \"hit\": \"%s\", ",
		 hit_b);
	has(out, want);
	has_not(out, "\"line\": 0}");              /* from the file this time */
	counters(&n, &f, 0, 0, 0, 0, 0);

	/* del pin rewrites the file */
	del_pin_ok(&n, &f, out, sizeof(out));
	fp = fopen(d->conf.known_hosts_file, "r");
	ck_assert_ptr_nonnull(fp);
	len = fread(file, 1, sizeof(file) - 1, fp);
	fclose(fp);
	file[len] = '\0';
	has_not(file, hit_b);

	/* D-27: a file with an error is not ignored */
	ck_assert_int_eq(pins_restart(&n, "127.0.0.2 not-a-hit\n"), -EINVAL);   /* logs it */
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "show pins", out, sizeof(out)), CTL_EFAILED);
	opp_free(&n, &f);
}
END_TEST

/* The R2 answers a late I2 retransmission, after OPP_R2_WAIT_S: the
 * association waits for it still, so it is pinned. */
START_TEST(test_late_r2)
{
	struct ctl_fixture f;
	struct bex_net n;
	struct bex_pkt r1, r2;

	opp_init(&n, &f, 0, "127.0.0.0/8");
	trigger_ok(&n, &f, "(HIT not known yet)");
	opp_r1(&n, &r1);
	bex_inject(&n, 0, r1.buf, r1.len, &B(&n)->addr, &A(&n)->addr);
	ck_assert(bex_deliver_match(&n, 0, HIP_I2));
	ck_assert(bex_take(&n, 1, HIP_R2, &r2));
	opp_fire(&n);                              /* OPP_R2_WAIT_S over, I2-SENT still */
	counters(&n, &f, 1, 0, 0, 0, 1);
	bex_inject(&n, 0, r2.buf, r2.len, &r2.src, &r2.dst);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_ESTABLISHED);
	counters(&n, &f, 1, 1, 0, 0, 0);
	ck_assert(mapped(&n, bex_hit(B(&n)), "127.0.0.2"));
	opp_free(&n, &f);
}
END_TEST

/* The association failed (I2s lost): trigger starts anew at once. */
START_TEST(test_retrigger_after_failure)
{
	struct ctl_fixture f;
	struct bex_net n;
	struct bex_pkt r1;
	unsigned i;

	opp_init(&n, &f, 0, "127.0.0.0/8");
	trigger_ok(&n, &f, "(HIT not known yet)");
	opp_r1(&n, &r1);
	bex_inject(&n, 0, r1.buf, r1.len, &B(&n)->addr, &A(&n)->addr);
	for (i = 0; i <= A(&n)->d.conf.i2_retries; i++) {
		ck_assert(bex_take(&n, 0, HIP_I2, NULL));
		bex_fire(A(&n));
	}
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_E_FAILED);
	trigger_ok(&n, &f, "(HIT not known yet)");
	ck_assert_uint_eq(n.sent[0][HIP_I1], 2);
	counters(&n, &f, 2, 0, 0, 1, 1);
	/* the R1 starts the association in E-FAILED afresh */
	opp_r1(&n, &r1);
	bex_inject(&n, 0, r1.buf, r1.len, &B(&n)->addr, &A(&n)->addr);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_I2_SENT);
	opp_free(&n, &f);
}
END_TEST

static Suite *opp_suite(void)
{
	Suite *s = suite_create("opp");
	TCase *t = tcase_create("initiator");

	tcase_add_unchecked_fixture(t, bex_tmp_setup, bex_tmp_teardown);
	tcase_set_timeout(t, 60);
	tcase_add_loop_test(t, test_off, 0, 3);
	tcase_add_loop_test(t, test_i1_r1, 0, 3);
	tcase_add_test(t, test_r1_other_address);
	tcase_add_test(t, test_r1_other_local_hit);
	tcase_add_test(t, test_pin_at_r2);
	tcase_add_test(t, test_i2_lost);
	tcase_add_test(t, test_no_r1);
	tcase_add_test(t, test_pinned_other_hit);
	tcase_add_test(t, test_del_pin);
	tcase_add_test(t, test_trigger_pinned_up);
	tcase_add_test(t, test_file);
	tcase_add_test(t, test_late_r2);
	tcase_add_test(t, test_retrigger_after_failure);
	suite_add_tcase(s, t);
	return s;
}

UNIT_MAIN(opp_suite)
