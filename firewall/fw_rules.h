/*
 * fw_rules.h - hipfw's rules (firewall/hipfw.rules.5): allow or deny HIP
 * packets by sender HIT, receiver HIT, packet type and direction, and in
 * host mode (fw_host.c) the traffic between HITs by source and destination
 * HIT, protocol and destination port; the first rule that matches decides,
 * else the file's default (deny unless it says otherwise). A rule with
 * `type` is for HIP packets only, one with `proto` or `port` for traffic
 * between HITs only, one with neither for both.
 */
#ifndef HIPFW_RULES_H
#define HIPFW_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hit.h"

enum {
	FW_RULES_MAX = 1024,        /* rules per file */
	FW_LINE_MAX = 512,          /* bytes per line, newline included */
	FW_TYPES = 128,             /* HIP packet types are 7 bits (RFC 7401 §5.1) */
	FW_ERR_MAX = 160,           /* an error message, "FILE:LINE: ..." */
	FW_PROTO_MAX = 4,           /* protocols a rule (proto tcp,udp,...) */
	FW_PORT_MAX = 8,            /* ports or ranges a rule (port 22,1000-2000) */
};

/* Where netfilter saw the packet (the hook of its queue). */
enum fw_dir {
	FW_DIR_IN = 1 << 0,         /* INPUT: to this host */
	FW_DIR_OUT = 1 << 1,        /* OUTPUT: from this host */
	FW_DIR_FWD = 1 << 2,        /* FORWARD: through this host (router) */
	FW_DIR_ANY = FW_DIR_IN | FW_DIR_OUT | FW_DIR_FWD,
};

enum fw_action { FW_DENY = 0, FW_ALLOW = 1 };

struct fw_rule {
	enum fw_action action;
	bool any_from, any_to;
	struct hip_hit from, to;    /* sender / receiver HIT, unless any_* */
	uint8_t dirs;               /* enum fw_dir bits */
	uint8_t types[FW_TYPES / 8];  /* bit per packet type; all set = any */
	bool hip_only;              /* `type` given: HIP packets only */
	bool data_only;             /* `proto` or `port` given: traffic between HITs only */
	uint8_t nproto;             /* 0 = any protocol */
	uint8_t proto[FW_PROTO_MAX];  /* IP protocol numbers (tcp 6, udp 17, ...) */
	uint8_t nport;              /* 0 = any port */
	struct fw_port_range {
		uint16_t lo, hi;
	} port[FW_PORT_MAX];        /* destination ports, lo <= hi */
	unsigned line;              /* in the rules file, for the log */
	uint64_t hits;              /* packets it decided */
};

struct fw_rules {
	enum fw_action policy;      /* when no rule matches */
	unsigned policy_line;       /* 0 = the built-in default (deny) */
	uint64_t policy_hits;
	size_t n;
	struct fw_rule rule[FW_RULES_MAX];
};

/* What a packet offers to the rules. */
struct fw_match {
	const struct hip_hit *sender, *receiver;
	uint8_t type;
	enum fw_dir dir;
};

/* Parse a rules file's text (len bytes; NUL bytes are an error). name is
 * used in the messages. 0, or -EINVAL with "NAME:LINE: why" in err. */
int fw_rules_parse(const char *text, size_t len, const char *name, struct fw_rules *out,
		   char *err, size_t err_len);
/* Read and parse a file: 0, -errno of the read, or -EINVAL (err says why). */
int fw_rules_load(const char *path, struct fw_rules *out, char *err, size_t err_len);
/* The first matching rule, or NULL for the policy; counts the hit. */
const struct fw_rule *fw_rules_decide(struct fw_rules *r, const struct fw_match *m,
				      enum fw_action *action);
/* "tcp", "udp", "sctp", "ipv6-icmp" (for ip6tables), NULL for another. */
const char *fw_proto_name(uint8_t proto);
/* "i1", "update", ...; NULL for a type without a name. */
const char *fw_type_name(uint8_t type);

#endif
