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

struct fw_ipt_conf {
	const char *iptables;     /* program for IPv4, NULL = not filtered */
	const char *ip6tables;    /* program for IPv6, NULL = not filtered */
	uint16_t queue;
	bool fail_open;           /* --queue-bypass: accept while nobody reads */
	bool esp;                 /* the ESP chain HIPFW_ESP too (middlebox mode) */
	uint16_t udp_port;        /* UDP from or to it into HIPFW too (RFC 9028), 0 = not */
	bool u32_v4, u32_v6;      /* the u32 match works: ESP in UDP has a fast path */
};

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

/* The ESP fast path (fw_esp.c): one ACCEPT rule in HIPFW_ESP per triple the
 * tracker allows, kept in step with it. */
struct fw_track;
struct fw_assoc;
struct fw_esp_rules;
int fw_esp_rules_create(struct fw_esp_rules **out, const struct fw_ipt_conf *ipt,
			const struct fw_track *t);
void fw_esp_rules_free(struct fw_esp_rules *e);
/* The tracker's callback (fw_track_esp_cb): one association's rules are to
 * be brought in step with it at the next flush. */
void fw_esp_rules_sync(const struct fw_assoc *a, void *arg);
/* Change the rules of every association marked since the last flush. */
void fw_esp_rules_flush(struct fw_esp_rules *e);
/* Rules in place, added and removed since the start, commands that failed. */
void fw_esp_rules_stats(const struct fw_esp_rules *e, uint64_t out[4]);

#endif
