/*
 * bench-bex-cost.c - the work of one base exchange on each side, for
 * callgrind (bench/bex-cost.sh; a benchmark tool, not a test).
 *
 * Two hipd engines in this one process (the unit tests' BEX harness,
 * tests/unit/bex_harness.c), ECDSA P-256 identities, DH group 7, puzzle K
 * fixed: N base exchanges after W warm-up ones, each followed by a CLOSE
 * from the Initiator (like bench/bex-latency.sh). Packets go from one
 * engine's send hook straight into the other's hipd_engine_input(): no
 * sockets, no scheduler, so an instruction count is the same from run to
 * run (except the puzzle's trials, which depend on the random I and J).
 *
 * The work of each side runs inside functions named cost_initiator_* and
 * cost_responder_*, for `valgrind --tool=callgrind --collect-atstart=no
 * --toggle-collect=...`: the Initiator's is the trigger (I1), R1 -> I2 and
 * R2, plus its spare DH key made in idle time (keys.c dh_spare_fill, run
 * from the event loop: toggle it too); the Responder's is I1 -> R1,
 * I2 -> R2 and its R2-SENT -> ESTABLISHED timer. What neither side does
 * per exchange (identity generation, the R1 cache, CLOSE) is not inside.
 *
 * --puzzle-trials T instead runs T puzzle trials (K = 28, so no solution
 * ends it early) inside cost_puzzle_trials: the cost of one trial, which
 * times 2^K is the expected puzzle cost of the Initiator.
 *
 * The harness asserts with Check, so the exchanges run as the one test of
 * a Check suite in CK_NOFORK mode; the packet hook and the timer firing
 * used inside the measured functions are this file's, without assertions
 * (each ck_assert records its location, which would be counted).
 *
 * --primitives R runs each primitive of the CPU floor (tools/bench-floor:
 * ECDH keygen, derive, ECDSA sign, verify) R times inside cost_prim_*: the
 * floor in instructions, beside which the exchange's count shows what is
 * spent beyond the primitives.
 *
 * Outside valgrind it prints the median wall time of each packet's
 * processing (warm caches, no sockets): an indication only.
 *
 * Usage: bench-bex-cost [-k K] [-n N] [-w W] | --puzzle-trials T | --primitives R
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"
#include "bex_harness.h"
#include "hip_crypto.h"
#include "base/base.h"

/* Not inlined, and not a tail call: callgrind toggles on entry and exit.
 * Each counts its calls in its own slot, so that no two have the same code
 * (the compiler would fold identical functions into one). */
#define COST_FN static __attribute__((noinline))
#define COST_BARRIER() __asm__ __volatile__("" ::: "memory")
enum {
	COST_TRIGGER, COST_I_INPUT, COST_R_INPUT, COST_R_TIMER, COST_PUZZLE,
	COST_KEYGEN, COST_DERIVE, COST_SIGN, COST_VERIFY, COST_FNS
};
static volatile unsigned long cost_calls[COST_FNS];

COST_FN int cost_initiator_trigger(struct hipd *d, const struct hip_hit *peer)
{
	int ret = hipd_engine_trigger(d, peer);

	cost_calls[COST_TRIGGER]++;
	COST_BARRIER();
	return ret;
}

COST_FN void cost_initiator_input(struct hipd *d, const struct bex_pkt *p)
{
	cost_calls[COST_I_INPUT]++;
	hipd_engine_input(d, p->buf, p->len, &p->src, &p->dst);
	COST_BARRIER();
}

COST_FN void cost_responder_input(struct hipd *d, const struct bex_pkt *p)
{
	cost_calls[COST_R_INPUT]++;
	hipd_engine_input(d, p->buf, p->len, &p->src, &p->dst);
	COST_BARRIER();
}

/* The R2-SENT -> ESTABLISHED timer, now (bex_fire() without asserts). */
static void fire_now(struct bex_host *h)
{
	struct hip_ha *ha = bex_ha(h);

	if (ha && ha->retx_timer && hip_loop_timer_rearm(h->d.loop, ha->retx_timer, 0) == 0)
		hip_loop_run_once(h->d.loop, 0);
}

COST_FN void cost_responder_timer(struct bex_host *h)
{
	cost_calls[COST_R_TIMER]++;
	fire_now(h);
	COST_BARRIER();
}

/* The harness's send hook without its assertions: queue the packet. */
static int queue_send(struct hipd *d, const uint8_t *pkt, size_t len,
		      const struct hip_addr *src, const struct hip_addr *dst)
{
	struct bex_host *h = d->send_ctx;
	struct bex_net *n = h->net;
	struct bex_pkt *p;

	if (len > HIP_MAX_PACKET || n->n >= BEX_QUEUE_MAX)
		return -ENOBUFS;
	p = &n->q[n->n++];
	memcpy(p->buf, pkt, len);
	p->len = len;
	p->src = *src;
	p->dst = *dst;
	p->from = h->idx;
	return 0;
}

COST_FN uint64_t cost_puzzle_trials(uint64_t trials)
{
	uint8_t i[48] = { 1 }, hit_i[16] = { 2 }, hit_r[16] = { 3 }, j0[48] = { 0 }, j[48];
	uint64_t done = 0;

	hip_puzzle_solve(HIP_RHASH_SHA384, 28, i, hit_i, hit_r, j0, trials, 0, j, &done);
	COST_BARRIER();
	return done;
}

/* The primitives of the CPU floor (tools/bench-floor), r times each, as
 * bench-floor runs them (tools/bench_common.c). */
COST_FN int cost_prim_keygen(struct bench_state *st, unsigned long r)
{
	int ret = 0;

	cost_calls[COST_KEYGEN]++;
	while (r-- && ret == 0)
		ret = bench_op_ecdh_keygen(st);
	COST_BARRIER();
	return ret;
}

COST_FN int cost_prim_derive(struct bench_state *st, unsigned long r)
{
	int ret = 0;

	cost_calls[COST_DERIVE]++;
	while (r-- && ret == 0)
		ret = bench_op_ecdh_derive(st);
	COST_BARRIER();
	return ret;
}

COST_FN int cost_prim_sign(struct bench_state *st, unsigned long r)
{
	int ret = 0;

	cost_calls[COST_SIGN]++;
	while (r-- && ret == 0)
		ret = bench_op_ecdsa_sign(st);
	COST_BARRIER();
	return ret;
}

COST_FN int cost_prim_verify(struct bench_state *st, unsigned long r)
{
	int ret = 0;

	cost_calls[COST_VERIFY]++;
	while (r-- && ret == 0)
		ret = bench_op_ecdsa_verify(st);
	COST_BARRIER();
	return ret;
}

static int run_primitives(unsigned long r)
{
	struct bench_state st;
	int ret = bench_state_setup(&st);

	/* Once unmeasured first (first-use costs), then r times measured. */
	for (int pass = 0; pass < 2 && ret == 0; pass++) {
		unsigned long n = pass ? r : 1;

		ret = cost_prim_keygen(&st, n);
		if (ret == 0)
			ret = cost_prim_derive(&st, n);
		if (ret == 0)
			ret = cost_prim_sign(&st, n);
		if (ret == 0)
			ret = cost_prim_verify(&st, n);
	}
	bench_state_teardown(&st);
	if (ret == 0)
		printf("primitives %lu\n", r);
	return ret;
}

/* Due timers of both hosts (the spare DH key among them), outside the
 * toggles except for dh_spare_fill itself. */
static void run_timers(struct bex_net *n)
{
	while (hip_loop_run_once(n->loop, 0) > 0)
		;
}

/* Wall time of each packet's processing (CLOCK_MONOTONIC, ns), by packet
 * type: printed as medians, an indication of what the instructions cost
 * here with warm caches (not under valgrind, which is ~50 times slower). */
enum { COST_SAMPLES_MAX = 4096 };
static uint64_t cost_ns[HIP_R2 + 1][COST_SAMPLES_MAX];
static unsigned cost_nsamples[HIP_R2 + 1];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void cost_sample(uint8_t type, uint64_t ns)
{
	if (type <= HIP_R2 && cost_nsamples[type] < COST_SAMPLES_MAX)
		cost_ns[type][cost_nsamples[type]++] = ns;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double median_us(uint8_t type)
{
	unsigned n = cost_nsamples[type];

	if (!n)
		return 0;
	qsort(cost_ns[type], n, sizeof(uint64_t), cmp_u64);
	return (double)cost_ns[type][n / 2] / 1000.0;
}

/* Deliver the queued packets one at a time; measured ones inside the
 * side's cost function. */
static void deliver_all(struct bex_net *n, bool measured)
{
	static struct bex_pkt p;

	while (n->n) {
		struct bex_host *to = &n->h[1 - n->q[0].from];
		uint8_t type;
		uint64_t t0;

		p = n->q[0];
		memmove(&n->q[0], &n->q[1], (n->n - 1) * sizeof(n->q[0]));
		n->n--;
		type = p.buf[2] & 0x7f;
#ifdef HIPD_I1STORM_H
		/* No time passes here: as the harness does, let the receiver's
		 * I1 storm filter forget the previous exchanges' I1s. */
		if (!n->keep_i1_storm)
			i1_storm_forget(&to->d.engine->i1_storm);
#endif
		t0 = now_ns();
		if (!measured)
			hipd_engine_input(&to->d, p.buf, p.len, &p.src, &p.dst);
		else if (to->idx == 0)
			cost_initiator_input(&to->d, &p);
		else
			cost_responder_input(&to->d, &p);
		if (measured)
			cost_sample(type, now_ns() - t0);
		run_timers(n);
	}
}

static int one_bex(struct bex_net *n, bool measured, unsigned i)
{
	struct bex_host *a = &n->h[0], *b = &n->h[1];
	const struct hip_hit *hb = bex_hit(b);
	int ret;

	ret = measured ? cost_initiator_trigger(&a->d, hb) : hipd_engine_trigger(&a->d, hb);
	if (ret < 0) {
		fprintf(stderr, "bench-bex-cost: trigger %u: %s\n", i, strerror(-ret));
		return ret;
	}
	run_timers(n);
	deliver_all(n, measured);
	if (measured)
		cost_responder_timer(b);
	else
		fire_now(b);
	if (bex_state(a) != HIP_STATE_ESTABLISHED || bex_state(b) != HIP_STATE_ESTABLISHED) {
		fprintf(stderr, "bench-bex-cost: exchange %u did not complete (states %d %d)\n",
			i, bex_state(a), bex_state(b));
		return -EIO;
	}
	ret = hipd_engine_close(&a->d, hb);
	if (ret == 0)
		deliver_all(n, false);
	if (ret == 0 && bex_ha(a)) {
		fprintf(stderr, "bench-bex-cost: close %u left state %d\n", i, bex_state(a));
		ret = -EIO;
	}
	return ret;
}

static struct {
	unsigned long k, n, warm;
	int ret;
} cost_run = { 10, 20, 2, -EIO };

START_TEST(test_bex_cost)
{
	static struct bex_net net;
	struct bex_opts o = { .kind = HIP_HI_KIND_ECDSA_P256, .groups = { HIP_DH_NIST_P256 },
			      .n_groups = 1, .k = (unsigned)cost_run.k };
	int ret = 0;

	bex_tmp_setup();
	bex_net_init(&net, &o, &o);
	for (int h = 0; h < 2; h++) {
		struct hipd *d = &net.h[h].d;

		d->send_packet = queue_send;
		/* One source, many exchanges a second: lift the per-source R1
		 * limit, as bench/bex-latency.sh does. */
		ratelimit_free(d->r1_limit);
		d->r1_limit = NULL;
		ck_assert_int_eq(ratelimit_create(&d->r1_limit, 1000000, 1000000,
						  64), 0);
	}
	for (unsigned long i = 0; ret == 0 && i < cost_run.warm + cost_run.n; i++)
		ret = one_bex(&net, i >= cost_run.warm, (unsigned)i);
	bex_net_free(&net);
	bex_tmp_teardown();
	cost_run.ret = ret;
}
END_TEST

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-k K] [-n N] [-w W] | --puzzle-trials T | --primitives R\n",
		argv0);
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || *end || !*s || *out > max ? -EINVAL : 0;
}

int main(int argc, char **argv)
{
	unsigned long trials = 0, prims = 0, v;
	SRunner *sr;
	Suite *s;
	TCase *tc;

	/* Every option takes one value: a steps by two. */
	for (int a = 1; a < argc; a += 2) {
		bool more = a + 1 < argc;

		if (!strcmp(argv[a], "-k") && more && !parse_uint(argv[a + 1], 28, &v))
			cost_run.k = v;
		else if (!strcmp(argv[a], "-n") && more && !parse_uint(argv[a + 1], 100000, &v))
			cost_run.n = v;
		else if (!strcmp(argv[a], "-w") && more && !parse_uint(argv[a + 1], 1000, &v))
			cost_run.warm = v;
		else if (!strcmp(argv[a], "--puzzle-trials") && more &&
			 !parse_uint(argv[a + 1], 1UL << 24, &v) && v > 0)
			trials = v;
		else if (!strcmp(argv[a], "--primitives") && more &&
			 !parse_uint(argv[a + 1], 100000, &v) && v > 0)
			prims = v;
		else {
			usage(argv[0]);
			return 2;
		}
	}
	if (hip_crypto_init() != 0) {
		fprintf(stderr, "bench-bex-cost: hip_crypto_init failed\n");
		return 1;
	}
	if (prims)
		return run_primitives(prims) == 0 ? 0 : 1;
	if (trials) {
		/* One unmeasured run first: first-use costs stay out of the figure. */
		cost_puzzle_trials(64);
		printf("puzzle_trials %lu\n", (unsigned long)cost_puzzle_trials(trials));
		return 0;
	}
	s = suite_create("bex-cost");
	tc = tcase_create("bex");
	tcase_set_timeout(tc, 0);
	tcase_add_test(tc, test_bex_cost);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	/* One process: callgrind follows no fork, and the harness's state stays. */
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_SILENT);
	if (srunner_ntests_failed(sr) != 0 || cost_run.ret != 0) {
		srunner_print(sr, CK_NORMAL);
		srunner_free(sr);
		return 1;
	}
	srunner_free(sr);
	printf("exchanges %lu k %lu warmup %lu\n", cost_run.n, cost_run.k, cost_run.warm);
	printf("median_us i1 %.1f r1 %.1f i2 %.1f r2 %.1f\n", median_us(HIP_I1),
	       median_us(HIP_R1), median_us(HIP_I2), median_us(HIP_R2));
	return 0;
}
