/*
 * check_engine.c - the engine around the exchange: hipconf commands over a
 * real control connection, puzzle difficulty under load (P-05, D-02),
 * parallel I1s (S-08), peer policy, trigger/close errors, I2 floods at
 * the current K (P-10, D-15). Two in-process
 * engines from bex_harness.c.
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
#include "hit.h"
#include "net/hosts.h"
#include "base/loop.h"
#include "packet.h"
#include "params.h"
#include "unit.h"

#define A(n) (&(n)->h[0])
#define B(n) (&(n)->h[1])

static void run_bex(struct bex_net *n)
{
	ck_assert_int_eq(hipd_engine_trigger(&A(n)->d, bex_hit(B(n))), 0);
	bex_run(n, 20);
	bex_fire(B(n));
	ck_assert_int_eq(bex_state(A(n)), HIP_STATE_ESTABLISHED);
	ck_assert_int_eq(bex_state(B(n)), HIP_STATE_ESTABLISHED);
}

/* ---- hipconf commands ---------------------------------------------------- */

START_TEST(test_control_commands)
{
	struct bex_opts o = { 0 };
	struct ctl_fixture f;
	struct bex_net n;
	char out[16384], hit_a[HIP_HIT_STR_LEN], hit_b[HIP_HIT_STR_LEN], expect[128];
	char cmd[128], fp_hex[65];
	uint8_t fp[32];
	unsigned i;

	bex_net_init(&n, &o, &o);
	ctl_open(&f, n.loop);
	A(&n)->d.control = f.ctl;
	ck_assert_int_eq(eng_control_register(&A(&n)->d), 0);
	hip_hit_to_str(bex_hit(A(&n)), hit_a, sizeof(hit_a));
	hip_hit_to_str(bex_hit(B(&n)), hit_b, sizeof(hit_b));

	/* show hi: HIT, algorithm, public key fingerprint only. */
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "show hi", out, sizeof(out)), CTL_OK);
	ck_assert_ptr_nonnull(strstr(out, hit_a));
	ck_assert_ptr_nonnull(strstr(out, "ecdsa-p256"));
	ck_assert_int_eq(hip_hi_fingerprint(hidb_default(A(&n)->d.hidb)->hi, fp), 0);
	for (i = 0; i < sizeof(fp); i++)
		snprintf(fp_hex + 2 * i, 3, "%02x", fp[i]);
	ck_assert_ptr_nonnull(strstr(out, fp_hex));
	ck_assert_ptr_null(strstr(out, "PRIVATE"));
	ck_assert_int_eq(ctl_call(&f, n.loop, true, "show hi", out, sizeof(out)), CTL_OK);
	ck_assert_ptr_nonnull(strstr(out, "\"identities\": [{\"hit\": \""));

	/* trigger: bad argument, unmapped HIT, then the real peer. */
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "trigger nonsense", out, sizeof(out)),
			 CTL_EUSAGE);
	ck_assert_ptr_nonnull(strstr(out, "'nonsense' is not a HIT"));
	/* a plain address: opportunistic, off by default (D-27) */
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "trigger 2001:db8::1", out, sizeof(out)),
			 CTL_EFAILED);
	ck_assert_ptr_nonnull(strstr(out, "opportunistic mode is off for 2001:db8::1"));
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "trigger 2001:2f::1", out, sizeof(out)),
			 CTL_ENOENT);
	ck_assert_ptr_nonnull(strstr(out, "no locator is mapped"));
	snprintf(cmd, sizeof(cmd), "trigger %s", hit_b);
	ck_assert_int_eq(ctl_call(&f, n.loop, false, cmd, out, sizeof(out)), CTL_OK);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_I1_SENT);
	bex_run(&n, 20);
	bex_fire(B(&n));
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_ESTABLISHED);

	/* show associations: state, both HITs, the SPIs. */
	ck_assert_int_eq(ctl_call(&f, n.loop, true, "show associations", out, sizeof(out)),
			 CTL_OK);
	ck_assert_ptr_nonnull(strstr(out, "\"state\": \"ESTABLISHED\""));
	ck_assert_ptr_nonnull(strstr(out, hit_b));
	snprintf(expect, sizeof(expect), "\"spi_in\": %u, \"spi_out\": %u",
		 bex_ha(A(&n))->spi_in, bex_ha(A(&n))->spi_out);
	ck_assert_ptr_nonnull(strstr(out, expect));
	ck_assert_ptr_nonnull(strstr(out, "\"esp_suite\": \"AES-GCM-16\""));
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "show associations", out, sizeof(out)),
			 CTL_OK);
	ck_assert_ptr_nonnull(strstr(out, "ESTABLISHED (initiator)"));

	/* show stats: counters by name, BEX counts. */
	ck_assert_int_eq(ctl_call(&f, n.loop, true, "show stats", out, sizeof(out)), CTL_OK);
	ck_assert_ptr_nonnull(strstr(out, "\"bad_checksum\": 0"));
	ck_assert_ptr_nonnull(strstr(out, "\"started\": 1, \"completed\": 1, \"failed\": 0"));
	ck_assert_ptr_nonnull(strstr(out, "\"tx\": {\"I1\": 1, \"R1\": 0, \"I2\": 1"));
	ck_assert_ptr_nonnull(strstr(out, "\"memory\": {\"heap_in_use\": "));
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "show stats", out, sizeof(out)), CTL_OK);
	ck_assert_ptr_nonnull(strstr(out, "hit_mismatch"));
	ck_assert_ptr_nonnull(strstr(out, "\nmemory: heap in use "));

	/* set puzzle */
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "set puzzle 12", out, sizeof(out)), CTL_OK);
	ck_assert_uint_eq(A(&n)->d.puzzle_k, 12);
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "set puzzle 29", out, sizeof(out)),
			 CTL_EUSAGE);
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "set puzzle -1", out, sizeof(out)),
			 CTL_EUSAGE);
	ck_assert_uint_eq(A(&n)->d.puzzle_k, 12);
	ck_assert(!A(&n)->d.conf.puzzle_auto);
	ck_assert_int_eq(ctl_call(&f, n.loop, true, "set puzzle auto", out, sizeof(out)), CTL_OK);
	ck_assert_str_eq(out, "{\"puzzle_k\": 12, \"auto\": true}");
	ck_assert(A(&n)->d.conf.puzzle_auto);

	/* close */
	snprintf(cmd, sizeof(cmd), "close %s", hit_b);
	ck_assert_int_eq(ctl_call(&f, n.loop, false, cmd, out, sizeof(out)), CTL_OK);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_CLOSING);
	ck_assert_int_eq(ctl_call(&f, n.loop, false, "close 2001:2f::1", out, sizeof(out)),
			 CTL_ENOENT);

	ctl_close(&f);
	A(&n)->d.control = NULL;
	bex_net_free(&n);
}
END_TEST

/* ---- puzzle difficulty under load ------------------------------------------ */

static void k_tick(struct bex_host *h)
{
	ck_assert_int_eq(hip_loop_timer_rearm(h->d.loop, h->d.engine->k_timer, 0), 0);
	ck_assert_int_ge(hip_loop_run_once(h->d.loop, 0), 1);
}

/* A flood from many (spoofed) sources: the per-source R1 limit does not
 * hide it from the difficulty logic. */
static void i1_burst(struct bex_net *n, struct bex_pkt *i1, unsigned count)
{
	struct hip_addr src;
	char a[32];
	unsigned i;

	for (i = 0; i < count; i++) {
		snprintf(a, sizeof(a), "10.0.%u.%u", i / 200, 1 + i % 200);
		ck_assert_int_eq(hip_addr_from_str(a, &src), 0);
		bex_inject(n, 1, i1->buf, i1->len, &src, &i1->dst);
	}
	n->n = 0;
}

START_TEST(test_puzzle_auto)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_pkt i1;
	struct hipd *b;
	int i;

	bex_net_init(&n, &o, &o);
	b = &B(&n)->d;
	b->conf.puzzle_auto = true;
	b->conf.i1_rate_threshold = 5;
	b->conf.puzzle_k_max_auto = 2;
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert(bex_take(&n, 0, HIP_I1, &i1));
	/* At the threshold: no change. */
	i1_burst(&n, &i1, 5);
	k_tick(B(&n));
	ck_assert_uint_eq(b->stats->i1_rate_per_s, 5);
	ck_assert_uint_eq(b->puzzle_k, 0);
	for (i = 1; i <= 3; i++) {
		i1_burst(&n, &i1, 6);
		k_tick(B(&n));
		ck_assert_uint_eq(b->puzzle_k, i < 2 ? i : 2);   /* capped at the max */
	}
	ck_assert_uint_eq(b->stats->puzzle_k_current, 2);
	/* Quiet: back down one step after 5 quiet seconds, then to 0. */
	for (i = 0; i < 4; i++)
		k_tick(B(&n));
	ck_assert_uint_eq(b->puzzle_k, 2);
	k_tick(B(&n));
	ck_assert_uint_eq(b->puzzle_k, 1);
	/* The R1s now ask for K = 1. */
	bex_inject(&n, 1, i1.buf, i1.len, &i1.src, &i1.dst);
	bex_run(&n, 20);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_ESTABLISHED);
	ck_assert_uint_eq(bex_ha(A(&n))->r1_k, 1);
	for (i = 0; i < 5; i++)
		k_tick(B(&n));
	ck_assert_uint_eq(b->puzzle_k, 0);
	bex_net_free(&n);
}
END_TEST

/* P-07: R1s are rate-limited per source address; other sources still
 * get theirs. */
START_TEST(test_r1_rate_limit)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_pkt i1;
	struct hipd *b;
	unsigned i, r1s;

	bex_net_init(&n, &o, &o);
	b = &B(&n)->d;
	ck_assert_uint_eq(b->conf.ratelimit_r1_burst, 20);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert(bex_take(&n, 0, HIP_I1, &i1));
	for (i = 0; i < 40; i++)
		bex_inject(&n, 1, i1.buf, i1.len, &i1.src, &i1.dst);
	r1s = n.sent[1][HIP_R1];
	/* 20 at once, then 10/s: far fewer than 40 within this test. */
	ck_assert_uint_ge(r1s, 20);
	ck_assert_uint_lt(r1s, 30);
	ck_assert_uint_eq(b->stats->drop[HIPD_DROP_RATE_LIMITED], 40 - r1s);
	ck_assert_uint_eq(b->stats->r1_sent, r1s);
	n.n = 0;
	i1_burst(&n, &i1, 5);
	ck_assert_uint_eq(n.sent[1][HIP_R1], r1s + 5);
	bex_net_free(&n);
}
END_TEST

/* ---- I1 to several locators (S-08) ---------------------------------------------- */

START_TEST(test_i1_parallel)
{
	static const char *const extra[] = { "127.0.0.3", "127.0.0.4", "127.0.0.5" };
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct hip_addr a;
	struct bex_pkt p[3];
	unsigned i;

	bex_net_init(&n, &o, &o);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(hip_addr_from_str(extra[i], &a), 0);
		ck_assert_int_eq(hosts_add(A(&n)->d.hosts, bex_hit(B(&n)), &a), 0);
	}
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert_uint_eq(n.sent[0][HIP_I1], 3);
	for (i = 0; i < 3; i++)
		ck_assert(bex_take(&n, 0, HIP_I1, &p[i]));
	ck_assert(memcmp(&p[0].dst, &p[1].dst, sizeof(p[0].dst)) != 0);
	ck_assert(memcmp(&p[1].dst, &p[2].dst, sizeof(p[1].dst)) != 0);
	ck_assert(memcmp(&p[0].dst, &B(&n)->addr, sizeof(p[0].dst)) == 0);
	/* The retransmission goes to one address. */
	bex_fire(A(&n));
	ck_assert_uint_eq(n.sent[0][HIP_I1], 4);
	bex_run(&n, 20);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_ESTABLISHED);
	bex_net_free(&n);
}
END_TEST

/* ---- policy ---------------------------------------------------------------------- */

START_TEST(test_policy_known_peers)
{
	struct bex_opts o = { 0 };
	struct bex_net n;

	bex_net_init(&n, &o, &o);
	B(&n)->d.conf.peer_policy = HIPD_PEER_KNOWN;
	ck_assert_int_eq(hosts_del(B(&n)->d.hosts, bex_hit(A(&n)), NULL), 0);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert_int_eq(bex_deliver_one(&n), HIP_I1);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_POLICY], 1);
	ck_assert_uint_eq(n.n, 0);
	/* Known again: the retransmitted I1 succeeds. */
	ck_assert_int_eq(hosts_add(B(&n)->d.hosts, bex_hit(A(&n)), &A(&n)->addr), 0);
	bex_fire(A(&n));
	bex_run(&n, 20);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_ESTABLISHED);
	bex_net_free(&n);
}
END_TEST

/* ---- trigger / close API --------------------------------------------------------- */

START_TEST(test_trigger_close_api)
{
	struct bex_opts o = { 0 };
	struct hip_hit unmapped;
	struct bex_net n;

	bex_net_init(&n, &o, &o);
	ck_assert_int_eq(hip_hit_from_str("2001:2f::1", &unmapped), 0);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, &unmapped), -ENOENT);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(A(&n))), -EINVAL);
	ck_assert_int_eq(hipd_engine_close(&A(&n)->d, bex_hit(B(&n))), -ENOENT);
	/* A second trigger while running changes nothing. */
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert_uint_eq(n.sent[0][HIP_I1], 1);
	/* Closing before any keys exist just forgets the attempt. */
	ck_assert_int_eq(hipd_engine_close(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert_ptr_null(bex_ha(A(&n)));
	n.n = 0;
	run_bex(&n);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert_uint_eq(n.n, 0);
	/* Shutdown closes established associations (best effort). */
	hipd_engine_stop(&A(&n)->d);
	ck_assert(bex_take(&n, 0, HIP_CLOSE, NULL));
	ck_assert_int_eq(hipd_engine_start(&A(&n)->d), 0);
	ck_assert_ptr_null(bex_ha(A(&n)));
	bex_net_free(&n);
}
END_TEST

/* ---- reload ------------------------------------------------------------------------ */

/* SIGHUP: a new ESP suite list rebuilds the R1s; a new K applies at once. */
START_TEST(test_reload)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct hipd *b;

	bex_net_init(&n, &o, &o);
	b = &B(&n)->d;
	b->conf.esp_suites[0] = HIP_ESP_AES128_CBC_SHA256;
	b->conf.n_esp_suites = 1;
	b->conf.puzzle_k = 3;
	ck_assert_int_eq(hipd_engine_reload(b), 0);
	ck_assert_uint_eq(b->puzzle_k, 3);
	run_bex(&n);
	ck_assert_uint_eq(bex_ha(A(&n))->esp_suite, HIP_ESP_AES128_CBC_SHA256);
	ck_assert_uint_eq(bex_ha(A(&n))->esp_keys.enc_len, 16);
	ck_assert_uint_eq(bex_ha(A(&n))->esp_keys.auth_len, 32);
	ck_assert_uint_eq(bex_ha(A(&n))->r1_k, 3);
	bex_net_free(&n);
}
END_TEST

/* ---- opportunistic I1 (D-6) ----------------------------------------------------------- */

START_TEST(test_opportunistic)
{
	struct bex_opts o = { 0 };
	uint8_t buf[HIP_MAX_PACKET];
	struct hip_u8_list groups = { .n = 1, .v = { 7 } };
	struct hip_builder bld;
	struct bex_pkt r1;
	struct bex_net n;
	int len;

	bex_net_init(&n, &o, &o);
	hip_build_init(&bld, buf, sizeof(buf), HIP_I1, bex_hit(A(&n)), NULL);
	hip_dh_group_list_build(&bld, &groups);
	len = hip_build_finish(&bld);
	ck_assert_int_gt(len, 0);
	/* Off by default: a NULL receiver HIT is not ours. */
	bex_inject(&n, 1, buf, (size_t)len, &A(&n)->addr, &B(&n)->addr);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_UNKNOWN_HIT], 1);
	ck_assert_uint_eq(n.n, 0);
	B(&n)->d.conf.opportunistic = true;
	bex_inject(&n, 1, buf, (size_t)len, &A(&n)->addr, &B(&n)->addr);
	ck_assert(bex_take(&n, 1, HIP_R1, &r1));
	ck_assert_mem_eq(r1.buf + 8, bex_hit(B(&n))->b, HIP_HIT_LEN);
	ck_assert_mem_eq(r1.buf + 24, bex_hit(A(&n))->b, HIP_HIT_LEN);
	ck_assert_ptr_null(bex_ha(B(&n)));
	bex_net_free(&n);
}
END_TEST

/* ---- I2 floods at the current K (D-15) ------------------------------------ */

/* A's I2 for B (A triggered; I1 and R1 delivered), kept out of the queue,
 * and a copy whose signature is wrong (its last octet flipped). */
static void i2_and_forged(struct bex_net *n, struct bex_pkt *i1, struct bex_pkt *i2,
			  struct bex_pkt *forged)
{
	const struct hip_param_ref *r;
	struct hip_packet p;

	ck_assert_int_eq(hipd_engine_trigger(&A(n)->d, bex_hit(B(n))), 0);
	ck_assert(bex_take(n, 0, HIP_I1, i1));
	bex_inject(n, 1, i1->buf, i1->len, &i1->src, &i1->dst);
	ck_assert(bex_deliver_match(n, 1, HIP_R1));
	ck_assert(bex_take(n, 0, HIP_I2, i2));
	ck_assert_int_eq(hip_packet_parse(i2->buf, i2->len, &p), 0);
	r = hip_packet_find(&p, HIP_PARAM_HIP_SIGNATURE);
	ck_assert_ptr_nonnull(r);
	*forged = *i2;
	forged->buf[r->off + HIP_TLV_HDR_LEN + r->len - 1] ^= 0x5a;
}

/* P-10: during an I2 flood (more failed I2s in a second than
 * i1_rate_threshold), a puzzle whose I2s failed twice after the puzzle
 * check is refused before any DH work, until the R1 generation changes.
 * Before, every I2 is checked in full. */
START_TEST(test_i2_puzzle_refused)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_pkt i1, i2, forged;
	struct hipd *b;
	uint64_t derives;
	int i;

	bex_net_init(&n, &o, &o);
	b = &B(&n)->d;
	b->conf.i1_rate_threshold = 10;
	i2_and_forged(&n, &i1, &i2, &forged);
	derives = b->engine->dh_derives;
	for (i = 0; i < 11; i++)
		bex_inject(&n, 1, forged.buf, forged.len, &forged.src, &forged.dst);
	ck_assert_uint_eq(b->stats->drop[HIPD_DROP_BAD_SIGNATURE], 11);
	ck_assert_uint_eq(b->engine->dh_derives, derives + 11);
	n.n = 0;   /* the NOTIFYs */
	k_tick(B(&n));
	/* the same I2 again, and any other I2 of that puzzle: no DH */
	for (i = 0; i < 5; i++)
		bex_inject(&n, 1, forged.buf, forged.len, &forged.src, &forged.dst);
	bex_inject(&n, 1, i2.buf, i2.len, &i2.src, &i2.dst);
	ck_assert_uint_eq(b->stats->drop[HIPD_DROP_I2_REFUSED], 6);
	ck_assert_uint_eq(b->stats->drop[HIPD_DROP_BAD_SIGNATURE], 11);
	ck_assert_uint_eq(b->engine->dh_derives, derives + 11);
	ck_assert_ptr_null(bex_ha(B(&n)));
	n.n = 0;
	/* A new R1 generation gives A a new puzzle, and the exchange goes
	 * through (A takes the R1 with the greater counter in I2-SENT). */
	ck_assert_int_eq(r1cache_rotate(hidb_at(b->hidb, 0)->r1, hipd_now_ns()), 0);
	bex_inject(&n, 1, i1.buf, i1.len, &i1.src, &i1.dst);
	bex_run(&n, 20);
	bex_fire(B(&n));
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_ESTABLISHED);
	ck_assert_int_eq(bex_state(B(&n)), HIP_STATE_ESTABLISHED);
	ck_assert_uint_eq(b->stats->drop[HIPD_DROP_I2_REFUSED], 6);
	bex_net_free(&n);
}
END_TEST

/* RFC 7401 §4.1.1: I2s that fail after the DH work are load for K too
 * (one counts as 16 I1s), not only the I1s. */
START_TEST(test_puzzle_auto_i2)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_pkt i1, i2, forged;
	struct hipd *b;

	bex_net_init(&n, &o, &o);
	b = &B(&n)->d;
	b->conf.puzzle_auto = true;
	b->conf.i1_rate_threshold = 20;
	i2_and_forged(&n, &i1, &i2, &forged);
	k_tick(B(&n));
	ck_assert_uint_eq(b->puzzle_k, 0);   /* 1 I1: below */
	bex_inject(&n, 1, forged.buf, forged.len, &forged.src, &forged.dst);
	n.n = 0;
	k_tick(B(&n));
	ck_assert_uint_eq(b->puzzle_k, 0);   /* one failed I2: 16, below */
	bex_inject(&n, 1, forged.buf, forged.len, &forged.src, &forged.dst);
	bex_inject(&n, 1, forged.buf, forged.len, &forged.src, &forged.dst);
	n.n = 0;
	k_tick(B(&n));
	ck_assert_uint_eq(b->stats->i1_rate_per_s, 0);
	ck_assert_uint_eq(b->puzzle_k, 1);   /* two: 32 > 20 */
	/* below the flood rate nothing was refused */
	ck_assert_uint_eq(b->stats->drop[HIPD_DROP_I2_REFUSED], 0);
	ck_assert_uint_eq(b->stats->drop[HIPD_DROP_BAD_SIGNATURE], 3);
	bex_net_free(&n);
}
END_TEST

static Suite *engine_suite(void)
{
	Suite *s = suite_create("engine");
	TCase *t = tcase_create("engine");

	tcase_add_unchecked_fixture(t, bex_tmp_setup, bex_tmp_teardown);
	tcase_set_timeout(t, 60);
	tcase_add_test(t, test_control_commands);
	tcase_add_test(t, test_puzzle_auto);
	tcase_add_test(t, test_r1_rate_limit);
	tcase_add_test(t, test_i1_parallel);
	tcase_add_test(t, test_policy_known_peers);
	tcase_add_test(t, test_trigger_close_api);
	tcase_add_test(t, test_reload);
	tcase_add_test(t, test_opportunistic);
	tcase_add_test(t, test_i2_puzzle_refused);
	tcase_add_test(t, test_puzzle_auto_i2);
	suite_add_tcase(s, t);
	return s;
}

UNIT_MAIN(engine_suite)
