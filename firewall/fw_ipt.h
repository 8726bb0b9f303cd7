/*
 * fw_ipt.h - the packet filter rules that send HIP to hipfw's queue: its
 * own chain HIPFW in the filter table of iptables-legacy and
 * ip6tables-legacy, jumped to from INPUT, OUTPUT and FORWARD for protocol
 * 139 (and through HIPFW_UDP for HIP's UDP port); nothing else is touched.
 */
#ifndef HIPFW_IPT_H
#define HIPFW_IPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FW_IPT_ESP_CHAIN "HIPFW_ESP"   /* the ESP fast path and its queue rule */
#define FW_IPT_UDP_CHAIN "HIPFW_UDP"   /* HIP's UDP port (RFC 9028) */

struct fw_ipt_conf {
	const char *iptables;     /* program for IPv4, NULL = not filtered */
	const char *ip6tables;    /* program for IPv6, NULL = not filtered */
	uint16_t queue;           /* the first queue */
	uint16_t queues;          /* how many: >1 spreads packets (--queue-balance) */
	bool fail_open;           /* --queue-bypass: accept while nobody reads */
	bool esp;                 /* the ESP chain HIPFW_ESP too (middlebox mode) */
	uint16_t udp_port;        /* UDP from or to it into HIPFW too (RFC 9028), 0 = not */
	bool u32_v4, u32_v6;      /* the u32 match works: ESP in UDP has a fast path */
};

/* The last of the queues first.. (-q FIRST:LAST; queues 0 or 1: first). */
static inline unsigned fw_queue_last(unsigned first, unsigned queues)
{
	return first + (queues > 1 ? queues - 1u : 0u);
}

/* Whether PROG takes a rule with the u32 match (xt_u32, which fw_esp.c's
 * fast path of ESP in UDP needs): tried in a chain of its own, removed. */
bool fw_ipt_probe_u32(const char *prog);
/* Remove what a previous run left, then install. 0 or -errno (err says
 * which command failed). */
int fw_ipt_install(const struct fw_ipt_conf *c, char *err, size_t err_len);
/* Remove our chain and the jumps to it (what is missing is no error). */
void fw_ipt_remove(const struct fw_ipt_conf *c);
/* Delete the ESP fast-path rules (fw_esp.c: one ACCEPT per learnt SPI in
 * HIPFW_ESP and HIPFW_UDP) that PROG's filter table holds, in one
 * PROG-restore commit, and nothing else: the queue rules stay, so that ESP
 * is queued again (hipfw --flush-fast-path, after a crash). No chain, no
 * rule: 0. 0 with *removed, 1 if a program failed, or -errno. */
int fw_ipt_flush_fast_path(const char *prog, unsigned *removed);
/* Run PROG-restore -w --noflush with script (an iptables-restore file) on
 * its standard input: 0, 1 if it refused the script, or -errno. */
int fw_ipt_restore(const char *prog, const char *script);
/* The same in two halves, for a caller that must not wait (fw_esp.c): start
 * it (the script, at most 64 KiB, goes into the pipe's buffer at once): 0
 * with *pid, or -errno (-ENOENT: no such program); then reap it: 0, 1 as
 * above, -EAGAIN while it runs (block false), or -errno. */
int fw_ipt_restore_start(const char *prog, const char *script, pid_t *pid);
int fw_ipt_restore_reap(pid_t pid, bool block);

/* Host mode (fw_host.h): replace the chains HIPFW_HIN and HIPFW_HOUT
 * (creating them, and with jumps their jumps) with the rules r in one
 * PROG-restore commit; map then says what the kernel holds. 0, 1 if the
 * program refused the script (the chains and map are as they were), or
 * -errno. */
struct fw_rules;
struct fw_host_map;
struct fw_host_counts;
int fw_ipt_host_apply(const char *prog, const struct fw_rules *r, bool jumps,
		      struct fw_host_map *map);
/* The chains' packet counters by rule (PROG-save -c): 0 or -errno. */
int fw_ipt_host_counts(const char *prog, const struct fw_host_map *map,
		       struct fw_host_counts *out);

/* The runner (fw_runner.c): a child process that runs fw_ipt_restore for
 * the event loop. Start it (0 or -errno); its socket, readable when a
 * result is there; submit a script under a tag (0, -EAGAIN when its buffer
 * is full, or -errno); a result (its tag, 0, 1, -errno; -EAGAIN none yet,
 * unless block; -EPIPE: the runner is gone); free (waits for it to end). */
struct fw_runner;
int fw_runner_start(struct fw_runner **out);
/* The runner's side: hipfw's main when argv[0] is FW_RUNNER_NAME (its
 * socket is FW_RUNNER_FD). Does not return. */
#define FW_RUNNER_NAME "hipfw-runner"
#define FW_RUNNER_FD 3
int fw_runner_main(void);
int fw_runner_fd(const struct fw_runner *r);
int fw_runner_submit(struct fw_runner *r, uint8_t tag, const char *prog, const char *script);
int fw_runner_result(struct fw_runner *r, bool block, uint8_t *tag);
void fw_runner_free(struct fw_runner *r);

/* The text of a fast-path rule (fw_esp_rule.c): the rule lines of one
 * triple (with udp, its ESP in UDP line in HIPFW_UDP too) as
 * iptables-restore takes them to add (-I CHAIN 1) or delete (-D CHAIN), or
 * as iptables-save lists them (-A CHAIN). Appended to buf: the length
 * written, 0 if it does not fit in cap. */
struct fw_esp_triple;
enum fw_esp_rule_kind { FW_ESP_RULE_ADD, FW_ESP_RULE_DEL, FW_ESP_RULE_SAVED };
size_t fw_esp_rule_text(char *buf, size_t cap, enum fw_esp_rule_kind kind, bool udp,
			const struct fw_esp_triple *x);
/* Whether one line (no newline) of PROG-save's output is a fast-path rule. */
bool fw_esp_rule_is_ours(const char *line, size_t len);

/* The ESP fast path (fw_esp.c): one ACCEPT rule in HIPFW_ESP per triple the
 * tracker allows, kept in step with it by iptables-restore runs that the
 * event loop does not wait for (at most one per family at a time). */
struct fw_track;
struct fw_assoc;
struct fw_esp_rules;
struct hip_loop;
/* sync: wait for each run, as hipfw once did (bench/hipfw.sh compares). */
int fw_esp_rules_create(struct fw_esp_rules **out, const struct fw_ipt_conf *ipt,
			const struct fw_track *t, struct hip_loop *loop, bool sync);
/* Waits for a run still going (fw_esp_rules_drain) first. */
void fw_esp_rules_free(struct fw_esp_rules *e);
/* The tracker's callback (fw_track_esp_cb): one association's rules are to
 * be brought in step with it at the next flush. */
void fw_esp_rules_sync(const struct fw_assoc *a, void *arg);
/* Start a run for the changes marked since the last one, per family where
 * none is running (a running one starts the next itself when it ends). */
void fw_esp_rules_flush(struct fw_esp_rules *e);
/* SIGCHLD: notice runs that ended (where no pidfd tells). */
void fw_esp_rules_reap(struct fw_esp_rules *e);
/* At a stop: wait for the runs going, start no more. */
void fw_esp_rules_drain(struct fw_esp_rules *e);
enum {
	FW_ESP_INSTALLED, FW_ESP_ADDED, FW_ESP_REMOVED, FW_ESP_ERRORS, FW_ESP_RUNS,
	FW_ESP_PENDING, FW_ESP_HOLD_NS, FW_ESP_HOLD_MAX_NS, FW_ESP_STATS
};
/* Rules in place (runs that succeeded), added and removed since the start,
 * runs that failed, runs started, associations waiting for a run (and runs
 * going), the event loop's time in here: in all and the longest once (the
 * netfilter queue is not read meanwhile). */
void fw_esp_rules_stats(const struct fw_esp_rules *e, uint64_t out[FW_ESP_STATS]);

#endif
