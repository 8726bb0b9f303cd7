/*
 * fw_esp.c - the kernel ESP fast path of hipfw's middlebox mode: for every
 * (source, destination, SPI) the tracker allows (fw_track.c), one rule at
 * the top of the HIPFW_ESP chain, and with a HIP UDP port (RFC 9028 §5.1)
 * and the u32 match one at the top of HIPFW_UDP for the same triple as ESP
 * in UDP, from and to the UDP ports the tracker learnt (D-24); their text
 * is fw_esp_rule.c's. ESP of a known association never leaves the kernel;
 * what matches none falls through to the chain's NFQUEUE rule and is
 * dropped in userspace as an unknown SPI.
 *
 * The rules change by iptables-restore runs (--noflush: nothing else is
 * touched), and hipfw does not wait for them (docs/decisions.md D-25): the
 * tracker's callback marks the association, and after the verdicts of the
 * packets read with it have gone out (fw_esp_rules_flush) one run per
 * family starts with the difference between what the marked associations
 * allow and what the kernel holds, removals and additions in one commit.
 * The runs are made by a child process, the runner (fw_runner.c): the loop
 * sends it the script and reads the result when its socket turns readable;
 * without one (it could not start, or died) they are started from here and
 * their end seen through a pidfd in the event loop, else SIGCHLD. While a
 * run goes, further changes accumulate; its end starts the next. So the
 * queue is not held by iptables (2-7 ms a run on a busy router), nor by
 * starting it (bench/hipfw.sh hold). ESP that arrives before its rule is in
 * reaches hipfw, whose tracker already knows the triple (fw_track_esp), and
 * passes.
 *
 * What is remembered as installed is only what a run that exited 0 put in:
 * `hipfw show` counts no rule the kernel refused. A failed run is logged
 * (rate-limited) and its associations marked again, retried at the next
 * change or after RETRY_NS; if it held removals, the next runs have the
 * removals alone, and removals that fail alone ALONE_TRIES times in a row
 * are taken as done (the kernel does not hold those rules as written, or
 * the program cannot run at all: iptables-restore -D fails only then), so
 * that one rule deleted by hand cannot block the fast path for good. A
 * clean stop waits for the run going, then flushes the whole chain
 * (fw_ipt.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "base/base.h"
#include "fw_ipt.h"
#include "fw_track.h"

#define RETRY_NS 1000000000ull   /* a failed run is tried again after 1 s */
#define ALONE_TRIES 5            /* removals alone failing: then taken as done */

enum {
	ESP_SLOT_MAX = 2 * FW_TRACK_ESP_MAX,
	/* a run's script fits the runner's message and a pipe's default
	 * buffer (fw_ipt_restore_start): the longest pair of lines (IPv6, ESP
	 * in UDP) is about 330 bytes */
	SCRIPT_MAX = 48 << 10,
	JOB_OPS_MAX = 128,
};

/* What the kernel holds for one tracker pool entry, per family (0 IPv4, 1
 * IPv6: their runs go on at the same time). */
struct esp_slot {
	uint8_t dirty;            /* per family (bit 0 IPv4, 1 IPv6): on its list */
	size_t n[2];
	struct fw_esp_triple tr[2][ESP_SLOT_MAX];
};

struct esp_op {
	uint32_t idx;
	bool add;
	struct fw_esp_triple tr;
};

struct fw_esp_rules;

/* One family's program and its run. */
struct esp_family {
	struct fw_esp_rules *e;
	bool v4, udp;
	const char *prog;         /* NULL: the family is not filtered */
	uint32_t *dirty;          /* pool indices to sync */
	uint32_t ndirty;
	bool at_runner;           /* the run going is the runner's (fw_runner.c) */
	pid_t pid;                /* the run going, started here; 0 = none */
	int pidfd;                /* its pidfd in the loop, -1 = none (SIGCHLD) */
	struct esp_op op[JOB_OPS_MAX];   /* what it does */
	size_t nop;
	bool removals_alone;      /* a run with removals failed: those alone next */
	unsigned alone_failures;  /* runs of removals alone that failed in a row */
	bool waiting;             /* failed: until a change or the retry timer */
	uint64_t retry;           /* the timer */
};

struct fw_esp_rules {
	const struct fw_track *t;
	struct hip_loop *loop;
	bool sync;
	bool draining;
	struct esp_slot *slot;    /* one per tracker pool entry */
	struct esp_family fam[2];
	struct fw_runner *runner; /* NULL: iptables-restore started from here */
	char *script;
	struct log_ratelimit fail_log;
	uint64_t installed, added, removed, errors, runs;
	uint64_t hold_ns, hold_max_ns;   /* the loop's time in here (the queue waits) */
};

static void start(struct esp_family *f);
static void runner_ready(struct hip_loop *loop, int fd, uint32_t events, void *arg);

/* The time an entry from the event loop took, since t0. */
static void held(struct fw_esp_rules *e, uint64_t t0)
{
	uint64_t ns = hipd_now_ns() - t0;

	e->hold_ns += ns;
	if (ns > e->hold_max_ns)
		e->hold_max_ns = ns;
}

int fw_esp_rules_create(struct fw_esp_rules **out, const struct fw_ipt_conf *ipt,
			const struct fw_track *t, struct hip_loop *loop, bool sync)
{
	struct fw_esp_rules *e = calloc(1, sizeof(*e));
	int i, ret;

	*out = NULL;
	if (!e)
		return -ENOMEM;
	e->slot = calloc(t->max, sizeof(*e->slot));
	e->script = malloc(SCRIPT_MAX);
	for (i = 0; i < 2; i++) {
		struct esp_family *f = &e->fam[i];

		f->e = e;
		f->v4 = i == 0;
		f->prog = f->v4 ? ipt->iptables : ipt->ip6tables;
		f->udp = ipt->udp_port && (f->v4 ? ipt->u32_v4 : ipt->u32_v6);
		f->pidfd = -1;
		f->dirty = calloc(t->max, sizeof(*f->dirty));
	}
	if (!e->slot || !e->script || !e->fam[0].dirty || !e->fam[1].dirty) {
		fw_esp_rules_free(e);
		return -ENOMEM;
	}
	e->t = t;
	e->loop = loop;
	e->sync = sync;
	log_ratelimit_init(&e->fail_log, 10000, 3);
	if (loop && !sync) {
		ret = fw_runner_start(&e->runner);
		if (ret == 0 && hip_loop_fd_add(loop, fw_runner_fd(e->runner), EPOLLIN,
						runner_ready, e) < 0) {
			fw_runner_free(e->runner);
			e->runner = NULL;
			ret = -ENOMEM;
		}
		if (ret < 0)
			log_warn("ESP fast path: no runner process (%s): iptables-restore is "
				 "started from the event loop", strerror(-ret));
	}
	*out = e;
	return 0;
}

void fw_esp_rules_free(struct fw_esp_rules *e)
{
	int i;

	if (!e)
		return;
	fw_esp_rules_drain(e);
	if (e->runner) {
		if (e->loop)
			(void)hip_loop_fd_remove(e->loop, fw_runner_fd(e->runner));
		fw_runner_free(e->runner);
	}
	for (i = 0; i < 2; i++) {
		if (e->fam[i].retry && e->loop)
			(void)hip_loop_timer_cancel(e->loop, e->fam[i].retry);
		free(e->fam[i].dirty);
	}
	free(e->slot);
	free(e->script);
	free(e);
}

static bool triple_eq(const struct fw_esp_triple *a, const struct fw_esp_triple *b)
{
	return a->spi == b->spi && a->sport == b->sport && a->dport == b->dport &&
	       memcmp(&a->src, &b->src, sizeof(a->src)) == 0 &&
	       memcmp(&a->dst, &b->dst, sizeof(a->dst)) == 0;
}

static bool holds(const struct fw_esp_triple *set, size_t n, const struct fw_esp_triple *x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (triple_eq(&set[i], x))
			return true;
	return false;
}

static void mark(struct esp_family *f, uint32_t idx)
{
	uint8_t bit = f->v4 ? 1 : 2;

	if (!f->prog || (f->e->slot[idx].dirty & bit))
		return;
	f->e->slot[idx].dirty |= bit;
	f->dirty[f->ndirty++] = idx;
}

void fw_esp_rules_sync(const struct fw_assoc *a, void *arg)
{
	struct fw_esp_rules *e = arg;
	uint32_t idx;

	if (a < e->t->pool || a >= e->t->pool + e->t->max)
		return;
	idx = (uint32_t)(a - e->t->pool);
	mark(&e->fam[0], idx);
	mark(&e->fam[1], idx);
	/* a change: a failed run need not wait for its timer */
	e->fam[0].waiting = e->fam[1].waiting = false;
}

/* The operations that bring one pool entry (whatever holds it now: a freed
 * or reused one wants none of the old triples) in step in family f, unless
 * they do not fit: false. */
static bool plan_one(struct esp_family *f, uint32_t idx)
{
	struct fw_esp_triple want[ESP_SLOT_MAX];
	const struct esp_slot *slot = &f->e->slot[idx];
	const struct fw_esp_triple *have = slot->tr[f->v4 ? 0 : 1];
	size_t nhave = slot->n[f->v4 ? 0 : 1];
	size_t nwant, i, nop = f->nop, kept = 0;

	nwant = fw_track_triples(&f->e->t->pool[idx], want, ESP_SLOT_MAX);
	for (i = 0; i < nhave; i++) {
		if (holds(want, nwant, &have[i]))
			continue;
		if (nop == JOB_OPS_MAX)
			return false;
		f->op[nop++] = (struct esp_op){ .idx = idx, .add = false, .tr = have[i] };
	}
	kept = nhave - (nop - f->nop);
	for (i = 0; !f->removals_alone && i < nwant; i++) {
		if (hip_addr_is_v4(&want[i].src) != f->v4 || holds(have, nhave, &want[i]))
			continue;
		if (nop == JOB_OPS_MAX)
			return false;
		if (kept++ >= ESP_SLOT_MAX)
			break;
		f->op[nop++] = (struct esp_op){ .idx = idx, .add = true, .tr = want[i] };
	}
	f->nop = nop;
	return true;
}

/* The script of f's planned operations, removals first. */
static size_t script_of(struct esp_family *f)
{
	char *s = f->e->script;
	size_t len = 0, n, i;
	int pass;

	len = (size_t)snprintf(s, SCRIPT_MAX, "*filter\n");
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < f->nop; i++) {
			if (f->op[i].add != (pass == 1))
				continue;
			n = fw_esp_rule_text(s + len, SCRIPT_MAX - len, f->op[i].add ?
					     FW_ESP_RULE_ADD : FW_ESP_RULE_DEL, f->udp,
					     &f->op[i].tr);
			if (!n)
				return 0;
			len += n;
		}
	}
	if (SCRIPT_MAX - len < sizeof("COMMIT\n"))
		return 0;
	memcpy(s + len, "COMMIT\n", sizeof("COMMIT\n"));
	return len;
}

static void retry_tick(struct hip_loop *loop, uint64_t timer, void *arg)
{
	struct esp_family *f = arg;
	uint64_t t0 = hipd_now_ns();

	(void)loop;
	(void)timer;
	f->retry = 0;
	f->waiting = false;
	start(f);
	held(f->e, t0);
}

/* The run ended with ret (0, 1, -errno): the bookkeeping follows what the
 * kernel now holds. */
static void finish(struct esp_family *f, int ret)
{
	struct fw_esp_rules *e = f->e;
	bool removals = false, alone = f->removals_alone;
	bool give_up = alone && ret != 0 && ++f->alone_failures >= ALONE_TRIES;
	size_t i, j, nadd = 0, ndel = 0, nop = f->nop;

	for (i = 0; i < nop; i++) {
		const struct esp_op *op = &f->op[i];
		struct esp_slot *slot = &e->slot[op->idx];
		struct fw_esp_triple *have = slot->tr[f->v4 ? 0 : 1];
		size_t *nhave = &slot->n[f->v4 ? 0 : 1];

		removals |= !op->add;
		if (ret != 0 && !give_up) {
			mark(f, op->idx);   /* (removals alone: still marked) */
			continue;
		}
		if (op->add) {
			have[(*nhave)++] = op->tr;   /* room: plan_one */
			nadd++;
			continue;
		}
		for (j = 0; j < *nhave; j++) {
			if (triple_eq(&have[j], &op->tr)) {
				have[j] = have[--*nhave];
				break;
			}
		}
		ndel++;
	}
	e->added += nadd;
	e->removed += ndel;
	e->installed += nadd;
	e->installed -= ndel;
	if (ret == 0 || give_up)
		f->alone_failures = 0;
	f->removals_alone = false;
	f->nop = 0;
	if (ret == 0)
		return;
	e->errors++;
	log_ratelimited(&e->fail_log, LOG_WARNING, "ESP fast path: %s-restore %s (%zu rules%s)%s",
			f->prog, ret > 0 ? "failed" : strerror(-ret), nop,
			alone ? ", removals alone" : "",
			give_up ? ": taken as removed" : ": to be tried again");
	/* removals that fail with additions are tried alone: a rule that is
	 * no longer in the kernel must not hold back the additions forever */
	f->removals_alone = removals && !give_up;
	f->waiting = true;
	if (!f->retry && e->loop && !e->draining)
		f->retry = hip_loop_timer_add(e->loop, RETRY_NS, retry_tick, f);
}

static void stop_watching(struct esp_family *f)
{
	if (f->pidfd >= 0) {
		if (f->e->loop)
			(void)hip_loop_fd_remove(f->e->loop, f->pidfd);
		close(f->pidfd);
		f->pidfd = -1;
	}
}

/* Whether f's run has ended (block: wait for it); then the next. */
static void reap(struct esp_family *f, bool block)
{
	int ret;

	if (!f->pid)
		return;
	ret = fw_ipt_restore_reap(f->pid, block);
	if (ret == -EAGAIN)
		return;
	f->pid = 0;
	stop_watching(f);
	finish(f, ret);
	if (!f->e->draining)
		start(f);
}

static void pidfd_ready(struct hip_loop *loop, int fd, uint32_t events, void *arg)
{
	struct esp_family *f = arg;
	uint64_t t0 = hipd_now_ns();

	(void)loop;
	(void)fd;
	(void)events;
	reap(f, false);
	held(f->e, t0);
}

/* The runner's result for tag's family (ret), or the runner is gone: its
 * runs count as failed, their changes as not made (the next ones start
 * from here). */
static void runner_done(struct fw_esp_rules *e, int ret, uint8_t tag)
{
	int i;

	if (ret == -EAGAIN)
		return;
	if (ret == -EPIPE || tag > 1) {
		log_err("ESP fast path: the runner process is gone: iptables-restore is "
			"started from the event loop now");
		if (e->loop)
			(void)hip_loop_fd_remove(e->loop, fw_runner_fd(e->runner));
		fw_runner_free(e->runner);
		e->runner = NULL;
		for (i = 0; i < 2; i++) {
			if (!e->fam[i].at_runner)
				continue;
			e->fam[i].at_runner = false;
			finish(&e->fam[i], -EPIPE);
			start(&e->fam[i]);
		}
		return;
	}
	if (!e->fam[tag].at_runner)
		return;
	e->fam[tag].at_runner = false;
	finish(&e->fam[tag], ret);
	start(&e->fam[tag]);
}

static void runner_ready(struct hip_loop *loop, int fd, uint32_t events, void *arg)
{
	struct fw_esp_rules *e = arg;
	uint64_t t0 = hipd_now_ns();
	uint8_t tag = 0;
	int ret;

	(void)loop;
	(void)fd;
	(void)events;
	do {
		ret = fw_runner_result(e->runner, false, &tag);
		runner_done(e, ret, tag);
	} while (ret != -EAGAIN && e->runner);
	held(e, t0);
}

/* Start a run for f's marked associations, if none is going. */
static void start(struct esp_family *f)
{
	struct fw_esp_rules *e = f->e;
	uint32_t taken = 0;
	int ret;

	if (f->pid || f->at_runner || f->waiting || e->draining || !f->prog)
		return;
	/* removals alone: the associations stay marked for what follows */
	while (f->removals_alone && taken < f->ndirty && plan_one(f, f->dirty[taken]))
		taken++;
	if (!f->nop) {
		f->removals_alone = false;
		taken = 0;
		while (taken < f->ndirty && plan_one(f, f->dirty[taken])) {
			e->slot[f->dirty[taken]].dirty &= (uint8_t)~(f->v4 ? 1 : 2);
			taken++;
		}
		memmove(f->dirty, f->dirty + taken, (f->ndirty - taken) * sizeof(*f->dirty));
		f->ndirty -= taken;
	}
	if (!f->nop)
		return;
	e->runs++;
	if (!script_of(f)) {
		finish(f, -E2BIG);
		return;
	}
	if (e->runner && fw_runner_submit(e->runner, f->v4 ? 0 : 1, f->prog, e->script) == 0) {
		f->at_runner = true;
		return;
	}
	/* no runner (HIPFW_RULES_SYNC, or it is gone): started from here */
	ret = fw_ipt_restore_start(f->prog, e->script, &f->pid);
	if (ret < 0) {
		f->pid = 0;
		finish(f, ret);
		return;
	}
	if (e->sync) {
		reap(f, true);
		return;
	}
	/* the end is told by a pidfd; without one (an old kernel, a seccomp
	 * filter) by SIGCHLD (hipfw.c: fw_esp_rules_reap) */
	f->pidfd = e->loop ? pidfd_open(f->pid, 0) : -1;
	if (f->pidfd >= 0 && hip_loop_fd_add(e->loop, f->pidfd, EPOLLIN, pidfd_ready, f) < 0) {
		close(f->pidfd);
		f->pidfd = -1;
	}
	/* it may have ended before the pidfd was watched: a pidfd of an
	 * ended process is readable at once, and SIGCHLD is pending anyway */
}

void fw_esp_rules_flush(struct fw_esp_rules *e)
{
	uint64_t t0;

	if (!e || (!e->fam[0].ndirty && !e->fam[1].ndirty))
		return;
	t0 = hipd_now_ns();
	start(&e->fam[0]);
	start(&e->fam[1]);
	held(e, t0);
}

void fw_esp_rules_reap(struct fw_esp_rules *e)
{
	uint64_t t0;

	if (!e || (!e->fam[0].pid && !e->fam[1].pid))
		return;
	t0 = hipd_now_ns();
	reap(&e->fam[0], false);
	reap(&e->fam[1], false);
	held(e, t0);
}

void fw_esp_rules_drain(struct fw_esp_rules *e)
{
	uint8_t tag = 0;
	int ret;

	if (!e)
		return;
	e->draining = true;
	while (e->runner && (e->fam[0].at_runner || e->fam[1].at_runner)) {
		ret = fw_runner_result(e->runner, true, &tag);
		runner_done(e, ret, tag);
	}
	reap(&e->fam[0], true);
	reap(&e->fam[1], true);
}

void fw_esp_rules_stats(const struct fw_esp_rules *e, uint64_t out[FW_ESP_STATS])
{
	memset(out, 0, FW_ESP_STATS * sizeof(*out));
	if (!e)
		return;
	out[FW_ESP_INSTALLED] = e->installed;
	out[FW_ESP_ADDED] = e->added;
	out[FW_ESP_REMOVED] = e->removed;
	out[FW_ESP_ERRORS] = e->errors;
	out[FW_ESP_RUNS] = e->runs;
	out[FW_ESP_HOLD_NS] = e->hold_ns;
	out[FW_ESP_HOLD_MAX_NS] = e->hold_max_ns;
	out[FW_ESP_PENDING] = e->fam[0].ndirty + e->fam[1].ndirty + (e->fam[0].pid != 0) +
			      (e->fam[1].pid != 0) + e->fam[0].at_runner + e->fam[1].at_runner;
}
