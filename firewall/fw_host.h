/*
 * fw_host.h - hipfw's host mode (hipfw(8) HOST MODE): the rules for the
 * traffic between HITs (fw_rules.h: proto, port, or neither proto nor
 * type) compiled into two ip6tables-legacy chains of their own, HIPFW_HIN
 * (jumped to from INPUT) and HIPFW_HOUT (from OUTPUT), for packets whose
 * source and destination are both HITs (2001:20::/28, RFC 7343), not on
 * the loopback; the file's default ends each chain. Packets are judged by
 * the kernel, none is queued. Decision D-23 in docs/decisions.md.
 *
 * Here: the iptables-restore script (applied atomically, one table commit)
 * with the map from each kernel rule to the line it came from, and the
 * kernel's counters (iptables-save -c) read back through that map. Running
 * the programs is fw_ipt.c's.
 */
#ifndef HIPFW_HOST_H
#define HIPFW_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "fw_rules.h"

#define FW_HOST_IN_CHAIN "HIPFW_HIN"
#define FW_HOST_OUT_CHAIN "HIPFW_HOUT"
#define FW_HIT_PREFIX "2001:20::/28"

enum {
	FW_HOST_KRULES_MAX = 16384,   /* kernel rules per chain, beyond: refused */
	FW_HOST_ESTABLISHED = -2,     /* owner of each chain's first rule */
	FW_HOST_DEFAULT = -1,         /* owner of each chain's last rule */
};

/* Which rule of the file each kernel rule of a chain stands for: an index
 * into fw_rules.rule[], or FW_HOST_ESTABLISHED / FW_HOST_DEFAULT.
 * Chain 0 is HIPFW_HIN, 1 HIPFW_HOUT. */
struct fw_host_map {
	size_t n[2];
	int32_t *owner[2];
};

/* Packets each rule decided, read from the kernel. */
struct fw_host_counts {
	uint64_t established;          /* of connections already allowed (conntrack) */
	uint64_t policy;               /* decided by the default */
	uint64_t rule[FW_RULES_MAX];   /* by index in fw_rules.rule[] */
};

/* The iptables-restore script that creates both chains, or flushes them
 * when they exist, and fills them; with jumps, the jumps from INPUT and
 * OUTPUT too. *script is malloc'd (the caller frees it), map is filled
 * (freed first). 0, -ENOMEM, or -E2BIG when a chain would have more than
 * FW_HOST_KRULES_MAX rules. */
int fw_host_script(const struct fw_rules *r, bool jumps, char **script, struct fw_host_map *map);
void fw_host_map_free(struct fw_host_map *map);
/* The arguments of a jump after the hook: what fw_ipt.c deletes with -D. */
extern const char *const fw_host_jump_in[], *const fw_host_jump_out[];
/* Counters from the text of `ip6tables-legacy-save -c -t filter` (len
 * bytes): 0, or -EPROTO when the chains do not hold what map says (someone
 * else changed them). */
int fw_host_counts_parse(const char *save, size_t len, const struct fw_host_map *map,
			 struct fw_host_counts *out);

#endif
