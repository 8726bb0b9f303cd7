/*
 * check_reg_opp.c - registering with a server known by its address only
 * (D-16; RFC 8003 §3 with an opportunistic exchange, RFC 7401 §4.1.8):
 * hipconf add server IP, the opportunistic I1s and their back-off, which
 * R1 completes the pending entry (only one from the I1s' address, and
 * only an authentic one), the learnt HIT in show servers, and the server
 * side answering such I1s because it offers services. Two in-process
 * engines from bex_harness.c: A the client, B the server.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bex_harness.h"
#include "engine_ctl.h"
#include "control/control.h"
#include "engine/assoc/hadb.h"
#include "engine/reg/reg.h"
#include "hit.h"
#include "net/hosts.h"
#include "base/loop.h"
#include "packet.h"
#include "params.h"
#include "unit.h"

#define A(n) (&(n)->h[0])
#define B(n) (&(n)->h[1])

/* A's hipconf over a real control connection; B offers rendezvous; A's
 * hosts map does not name B (its HIT is to be learnt). */
static void opp_init(struct bex_net *n, struct ctl_fixture *f, unsigned i1_retries)
{
	struct bex_opts a = { .i1_retries = i1_retries }, b = { 0 };
	struct hipd *s;

	bex_net_init(n, &a, &b);
	s = &B(n)->d;
	ck_assert(!s->conf.opportunistic);        /* the default: D-6 off */
	s->conf.offer_services[0] = HIP_REG_RENDEZVOUS;
	s->conf.n_offer_services = 1;
	eng_reg_stop(s);
	ck_assert_int_eq(eng_reg_start(s), 0);
	s->engine->n_built_groups = 0;            /* R1s again, with REG_INFO */
	ck_assert_int_eq(hipd_engine_reload(s), 0);
	ck_assert_int_eq(hosts_del(A(n)->d.hosts, bex_hit(B(n)), NULL), 0);

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

/* The one server entry of A. */
static struct reg_srv *srv_of(struct bex_net *n)
{
	ck_assert_uint_eq(reg_client_count(A(n)->d.engine->reg_client), 1);
	return reg_client_at(A(n)->d.engine->reg_client, 0);
}

/* A's registration tick now, its back-off waits as if over. */
static void reg_tick_now(struct bex_net *n)
{
	struct hipd *d = &A(n)->d;

	srv_of(n)->next_try_ns = 0;
	ck_assert_int_eq(hip_loop_timer_rearm(d->loop, d->engine->reg_timer, 0), 0);
	ck_assert_int_ge(hip_loop_run_once(d->loop, 0), 1);
}

static const uint8_t null_hit[HIP_HIT_LEN];

/* The server's R1 to A's opportunistic I1 (taken from the queue). */
static void opp_r1(struct bex_net *n, struct bex_pkt *r1)
{
	struct bex_pkt i1;

	ck_assert(bex_take(n, 0, HIP_I1, &i1));
	ck_assert_mem_eq(i1.buf + 8, bex_hit(A(n))->b, HIP_HIT_LEN);
	ck_assert_mem_eq(i1.buf + 24, null_hit, HIP_HIT_LEN);    /* §5.3.1: NULL HIT */
	bex_inject(n, 1, i1.buf, i1.len, &A(n)->addr, &B(n)->addr);
	ck_assert(bex_take(n, 1, HIP_R1, r1));
	ck_assert_mem_eq(r1->buf + 8, bex_hit(B(n))->b, HIP_HIT_LEN);
	ck_assert_mem_eq(r1->buf + 24, bex_hit(A(n))->b, HIP_HIT_LEN);
}

/* add server IP: the HIT comes from the R1, the registration follows. */
START_TEST(test_learn_and_register)
{
	struct ctl_fixture f;
	struct bex_net n;
	struct bex_pkt r1;
	struct hip_addr other;
	char out[4096], hit_b[HIP_HIT_STR_LEN], want[160];
	uint64_t no_assoc;

	opp_init(&n, &f, 0);
	hip_hit_to_str(bex_hit(B(&n)), hit_b, sizeof(hit_b));
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "add server 127.0.0.2", out, sizeof(out)), CTL_OK);
	has(out, "trusted on first use");
	ck_assert(reg_srv_learning(srv_of(&n)));
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "show servers", out, sizeof(out)), CTL_OK);
	has(out, "unknown HIT at 127.0.0.2: learning its HIT; services rendezvous; granted -; "
	    "1 opportunistic I1, no R1 yet");
	opp_r1(&n, &r1);
	ck_assert_ptr_null(bex_ha(B(&n)));       /* stateless, as any R1 */

	/* from another address: no association, the entry still pending */
	no_assoc = A(&n)->d.stats->drop[HIPD_DROP_NO_ASSOCIATION];
	ck_assert_int_eq(hip_addr_from_str("127.0.0.3", &other), 0);
	bex_inject(&n, 0, r1.buf, r1.len, &other, &A(&n)->addr);
	ck_assert_uint_eq(A(&n)->d.stats->drop[HIPD_DROP_NO_ASSOCIATION], no_assoc + 1);
	ck_assert(reg_srv_learning(srv_of(&n)));
	ck_assert_uint_eq(hadb_count(A(&n)->d.hadb), 0);
	ck_assert_uint_eq(n.n, 0);

	/* from the I1s' address: the exchange, REG_REQUEST in the I2 */
	bex_inject(&n, 0, r1.buf, r1.len, &B(&n)->addr, &A(&n)->addr);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_I2_SENT);
	ck_assert(!reg_srv_learning(srv_of(&n)));
	ck_assert_mem_eq(srv_of(&n)->hit.b, bex_hit(B(&n))->b, HIP_HIT_LEN);
	ck_assert(srv_of(&n)->learnt);
	bex_run(&n, 20);
	bex_fire(B(&n));
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_ESTABLISHED);
	ck_assert_int_eq(srv_of(&n)->state, REG_SRV_REGISTERED);
	ck_assert(reg_registrar_has(B(&n)->d.engine->registrar, bex_hit(A(&n)),
				    HIP_REG_RENDEZVOUS, hipd_now_ns()));
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "show servers", out, sizeof(out)), CTL_OK);
	snprintf(want, sizeof(want), "%s at 127.0.0.2: registered; services rendezvous; "
		 "granted rendezvous", hit_b);
	has(out, want);
	has(out, "HIT learnt from its R1 (opportunistic: trusted on first use)");
	ck_assert_int_eq(ctl_call(&f, n.loop, true, "show servers", out, sizeof(out)), CTL_OK);
	snprintf(want, sizeof(want), "{\"hit\": \"%s\", \"opportunistic\": true, \"learnt\": "
		 "true", hit_b);
	has(out, want);

	/* the learnt HIT is kept: later exchanges name it (trust on first use) */
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "add server 127.0.0.2 relay", out, sizeof(out)),
			 CTL_OK);
	ck_assert_mem_eq(srv_of(&n)->hit.b, bex_hit(B(&n))->b, HIP_HIT_LEN);
	/* the data relay is a service hipconf may ask for too (D-29) */
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "add server 127.0.0.2 relay relay-esp", out,
				  sizeof(out)), CTL_OK);
	ck_assert_uint_eq(srv_of(&n)->n_want, 2);
	ck_assert_uint_eq(srv_of(&n)->want[1], HIP_REG_RELAY_UDP_ESP);
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "add server 127.0.0.2 rvs", out, sizeof(out)),
			 CTL_EUSAGE);
	/* by address: the server known by it */
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "del server 127.0.0.2", out, sizeof(out)), CTL_OK);
	ck_assert_int_eq(srv_of(&n)->state, REG_SRV_CANCELLING);
	opp_free(&n, &f);
}
END_TEST

/* An R1 from the right address that fails its checks teaches nothing;
 * the genuine one still completes the entry. */
START_TEST(test_forged_r1)
{
	struct ctl_fixture f;
	struct bex_net n;
	struct bex_pkt r1, bad;
	const struct hip_param_ref *sig;
	struct hip_packet p;
	char out[1024];

	opp_init(&n, &f, 0);
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "add server 127.0.0.2", out, sizeof(out)), CTL_OK);
	opp_r1(&n, &r1);
	bad = r1;
	ck_assert_int_eq(hip_packet_parse(bad.buf, bad.len, &p), 0);
	sig = hip_packet_find(&p, HIP_PARAM_HIP_SIGNATURE_2);
	ck_assert_ptr_nonnull(sig);
	bad.buf[sig->off + HIP_TLV_HDR_LEN + sig->len - 1] ^= 1;
	bex_inject(&n, 0, bad.buf, bad.len, &B(&n)->addr, &A(&n)->addr);
	ck_assert_uint_eq(A(&n)->d.stats->drop[HIPD_DROP_BAD_SIGNATURE], 1);
	ck_assert(reg_srv_learning(srv_of(&n)));
	ck_assert(!srv_of(&n)->learnt);
	ck_assert_uint_eq(hadb_count(A(&n)->d.hadb), 0);
	ck_assert_uint_eq(n.n, 0);
	bex_inject(&n, 0, r1.buf, r1.len, &B(&n)->addr, &A(&n)->addr);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_I2_SENT);
	ck_assert(srv_of(&n)->learnt);
	opp_free(&n, &f);
}
END_TEST

/* No R1: opportunistic I1s with the I1 back-off (i1_timeout_ms doubling)
 * up to i1_retries retransmissions, then the registration back-off; the
 * state shows it. */
START_TEST(test_no_r1_backoff)
{
	struct ctl_fixture f;
	struct bex_net n;
	struct reg_srv *s;
	uint64_t before, after, wait;
	char out[1024];
	unsigned i;

	opp_init(&n, &f, 2);
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "add server 127.0.0.2", out, sizeof(out)), CTL_OK);
	s = srv_of(&n);
	ck_assert_uint_eq(s->opp_i1s, 1);
	ck_assert_uint_eq(n.sent[0][HIP_I1], 1);
	for (i = 1; i <= 2; i++) {
		before = hipd_now_ns();
		reg_tick_now(&n);
		after = hipd_now_ns();
		ck_assert_uint_eq(s->opp_i1s, i + 1);
		ck_assert_uint_eq(n.sent[0][HIP_I1], i + 1);
		ck_assert_int_eq(s->state, REG_SRV_LEARNING);
		wait = (uint64_t)A(&n)->d.conf.i1_timeout_ms * 1000000u << i;
		ck_assert_uint_ge(s->next_try_ns, before + wait);
		ck_assert_uint_le(s->next_try_ns, after + wait);
	}
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "show servers", out, sizeof(out)), CTL_OK);
	has(out, "3 opportunistic I1s, no R1 yet");
	/* retries exhausted: waiting for the next round */
	reg_tick_now(&n);
	ck_assert_uint_eq(n.sent[0][HIP_I1], 3);
	ck_assert_int_eq(s->state, REG_SRV_WAITING);
	ck_assert_uint_eq(s->opp_i1s, 0);
	ck_assert_uint_gt(s->next_try_ns, hipd_now_ns());
	/* an R1 now (no I1 outstanding) is not taken */
	while (bex_take(&n, 0, HIP_I1, NULL))
		;
	reg_tick_now(&n);                         /* the new round */
	ck_assert_uint_eq(n.sent[0][HIP_I1], 4);
	ck_assert_int_eq(s->state, REG_SRV_LEARNING);
	/* del server IP: nothing to cancel, the entry goes */
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "del server 127.0.0.2", out, sizeof(out)), CTL_OK);
	ck_assert_uint_eq(reg_client_count(A(&n)->d.engine->reg_client), 0);
	opp_free(&n, &f);
}
END_TEST

static const struct {
	const char *line;
	int status;
	const char *msg;
} bad_cmds[] = {
	{ "add server nonsense", CTL_EUSAGE, "'nonsense' is neither a HIT nor an IP address" },
	{ "add server 2001:21::1", CTL_EUSAGE, "the server's address is missing after its HIT" },
	{ "add server 2001:21::1 rendezvous", CTL_EUSAGE, "'rendezvous' is not a usable address" },
	{ "add server 127.0.0.2 127.0.0.3", CTL_EUSAGE,
	  "'127.0.0.3' is not a service: one server is [HIT] IP [SERVICE...], its HIT first" },
	{ "add server 127.0.0.2 2001:21::1", CTL_EUSAGE, "'2001:21::1' is not a service" },
	{ "add server 127.0.0.2 rvs", CTL_EUSAGE, "'rvs' is not a service" },
	{ "add server 0.0.0.0", CTL_EUSAGE,
	  "'0.0.0.0' is not a usable address: the unspecified address" },
	{ "del server 127.0.0.9", CTL_ENOENT, "is not a server of ours" },
	{ "del server x", CTL_EUSAGE, "'x' is neither a HIT nor an IP address" },
};

START_TEST(test_bad_commands)
{
	struct ctl_fixture f;
	struct bex_net n;
	char out[1024];

	opp_init(&n, &f, 0);
	ck_assert_int_eq(ctl_call(&f, n.loop, false, bad_cmds[_i].line, out, sizeof(out)),
			 bad_cmds[_i].status);
	has(out, bad_cmds[_i].msg);
	ck_assert_uint_eq(reg_client_count(A(&n)->d.engine->reg_client), 0);
	opp_free(&n, &f);
}
END_TEST

/* A server with a HIT at that address already: refused; the HIT form
 * for an address still learning takes the entry over. */
START_TEST(test_forms_meet)
{
	struct ctl_fixture f;
	struct bex_net n;
	char out[1024], cmd[128], hit_b[HIP_HIT_STR_LEN];

	opp_init(&n, &f, 0);
	hip_hit_to_str(bex_hit(B(&n)), hit_b, sizeof(hit_b));
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "add server 127.0.0.2", out, sizeof(out)), CTL_OK);
	snprintf(cmd, sizeof(cmd), "add server %s 127.0.0.2", hit_b);
	ck_assert_int_eq(ctl_call(&f, n.loop, false, cmd, out, sizeof(out)), CTL_OK);
	ck_assert(!reg_srv_learning(srv_of(&n)));
	ck_assert(!srv_of(&n)->opportunistic);
	ck_assert_mem_eq(srv_of(&n)->hit.b, bex_hit(B(&n))->b, HIP_HIT_LEN);
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "add server 127.0.0.2", out, sizeof(out)),
			 CTL_EFAILED);
	has(out, "the server at 127.0.0.2 is known by its HIT already");
	opp_free(&n, &f);
}
END_TEST

/* The server side (D-16): with opportunistic = no, an opportunistic I1
 * gets an R1 only from a host offering services, and never one that came
 * through a control relay (RELAY_FROM). */
START_TEST(test_server_answers)
{
	struct bex_opts o = { 0 };
	struct hip_u8_list groups = { .n = 1, .v = { HIP_DH_NIST_P256 } };
	struct hip_relay_addr from = { .port = 10500, .protocol = 17 };
	uint8_t buf[HIP_MAX_PACKET];
	struct hip_builder bld;
	struct bex_net n;
	struct hipd *s;
	int len;

	bex_net_init(&n, &o, &o);
	s = &B(&n)->d;
	hip_build_init(&bld, buf, sizeof(buf), HIP_I1, bex_hit(A(&n)), NULL);
	hip_dh_group_list_build(&bld, &groups);
	len = hip_build_finish(&bld);
	ck_assert_int_gt(len, 0);
	bex_inject(&n, 1, buf, (size_t)len, &A(&n)->addr, &B(&n)->addr);
	ck_assert_uint_eq(s->stats->drop[HIPD_DROP_UNKNOWN_HIT], 1);     /* D-6 */
	ck_assert_uint_eq(n.n, 0);
	s->conf.offer_services[0] = HIP_REG_RENDEZVOUS;
	s->conf.n_offer_services = 1;
	bex_inject(&n, 1, buf, (size_t)len, &A(&n)->addr, &B(&n)->addr);
	ck_assert(bex_take(&n, 1, HIP_R1, NULL));
	ck_assert_ptr_null(bex_ha(B(&n)));

	ck_assert_int_eq(hip_addr_from_str("192.0.2.9", &from.addr), 0);
	hip_build_init(&bld, buf, sizeof(buf), HIP_I1, bex_hit(A(&n)), NULL);
	hip_dh_group_list_build(&bld, &groups);
	hip_relay_addr_build(&bld, HIP_PARAM_RELAY_FROM, &from);
	len = hip_build_finish(&bld);
	ck_assert_int_gt(len, 0);
	bex_inject(&n, 1, buf, (size_t)len, &A(&n)->addr, &B(&n)->addr);
	ck_assert_uint_eq(s->stats->drop[HIPD_DROP_POLICY], 1);
	ck_assert_uint_eq(n.n, 0);
	bex_net_free(&n);
}
END_TEST

static Suite *reg_opp_suite(void)
{
	Suite *s = suite_create("reg_opp");
	TCase *t = tcase_create("opportunistic");

	tcase_add_unchecked_fixture(t, bex_tmp_setup, bex_tmp_teardown);
	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_learn_and_register);
	tcase_add_test(t, test_forged_r1);
	tcase_add_test(t, test_no_r1_backoff);
	tcase_add_loop_test(t, test_bad_commands, 0, (int)(sizeof(bad_cmds) / sizeof(bad_cmds[0])));
	tcase_add_test(t, test_forms_meet);
	tcase_add_test(t, test_server_answers);
	suite_add_tcase(s, t);
	return s;
}

UNIT_MAIN(reg_opp_suite)
