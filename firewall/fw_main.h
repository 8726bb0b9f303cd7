/*
 * fw_main.h - hipfw's state and what its parts share: the verdict
 * (fw_verdict.c), the control commands (fw_ctl.c), the client (fw_client.c).
 */
#ifndef HIPFW_MAIN_H
#define HIPFW_MAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "fw_host.h"
#include "fw_packet.h"
#include "fw_rules.h"
#include "fw_track.h"
#include "base/base.h"

#define HIPFW_DEFAULT_RULES "/etc/hip/hipfw.rules"
#define HIPFW_DEFAULT_SOCKET "/run/hipfw/hipfw.sock"
#define HIPFW_DEFAULT_UDP_PORT 10500   /* hipd's nat_port (RFC 9028 §5.1) */

struct hipfw_counters {
	uint64_t accepted, denied;        /* packets the rules decided */
	uint64_t bad[FW_BAD_MAX];         /* dropped before the rules (fw_packet.h) */
	uint64_t by_type_accepted[FW_TYPES], by_type_denied[FW_TYPES];
	uint64_t reloads, reload_errors;
	uint64_t esp_accepted;            /* ESP that reached us with a learnt triple */
	uint64_t udp_keepalives;          /* NAT keepalives on the HIP UDP port, accepted */
	uint64_t ns_by_type[FW_TYPES];    /* time spent judging them (parse to verdict) */
	uint64_t state_saves, state_save_errors;   /* the state file (fw_state.c) */
	/* --busy-poll (hipfw.c): the polls, the packets they found, their time,
	 * the polls not made (this second's share of a CPU was used up) */
	uint64_t busy_polls, busy_poll_found, busy_poll_ns, busy_poll_over_budget;
};

struct fw_esp_rules;

struct hipfw {
	const char *rules_path;
	struct fw_rules *rules;
	struct hipfw_counters ctr;
	struct log_ratelimit drop_log;
	bool tracking;                    /* middlebox mode: the tracker and ESP */
	uint16_t udp_port;                /* HIP and ESP over UDP (RFC 9028), 0 = none */
	struct fw_track track;            /* fw_track.c */
	struct fw_esp_rules *esp_rules;   /* the kernel rules (hipfw.c), NULL in tests */
	struct fw_verify_cache r1_verified;  /* fw_verify.c */
	const char *state_dir;            /* where hipfw.state is kept, NULL = nowhere */
	unsigned state_grace_s;           /* probation of restored associations */
	bool state_failing;               /* the last write failed (logged once) */
	uint16_t queue_first, queues;     /* -q: the netfilter queues read (hipfw.c) */
	uint64_t busy_poll_ns;            /* --busy-poll (hipfw.c), 0 = off */
	bool answer_awaited;              /* an allowed packet that asks for an answer
					   * (I1, R1, I2, UPDATE, CLOSE) since the loop
					   * last looked: --busy-poll (hipfw.c) */
	bool answer_last;                 /* and one that ends an exchange (R2, CLOSE_ACK) */
	/* host mode (fw_host.h): the traffic between HITs, in the kernel */
	bool host;
	const char *host_prog;            /* ip6tables-legacy */
	struct fw_host_map host_map;      /* what the kernel's chains hold */
	/* puts new rules into the kernel before a reload takes them (hipfw.c):
	 * 0, else the reload is refused */
	int (*host_apply)(struct hipfw *fw, const struct fw_rules *fresh);
};

/* Write the state file if the tracker changed since the last write (or
 * always: a clean stop). Logs a failure once per run of failures. */
void hipfw_state_save(struct hipfw *fw, bool always);

/* The verdict for one queued packet (fw_verdict.c): parse, rules, counters,
 * a rate-limited log line for what is dropped. true = accept. */
bool hipfw_decide(struct hipfw *fw, const uint8_t *pkt, size_t len, enum fw_dir dir);
/* Re-read the rules file: the new rules replace the old only if the whole
 * file parses (a bad edit keeps the firewall as it was). 0 or -errno. */
int hipfw_reload(struct hipfw *fw);

/* The control commands (fw_ctl.c): show, show rules, reload. */
struct control;
int hipfw_ctl_register(struct control *c, struct hipfw *fw);

/* `hipfw show ...` / `hipfw reload` against a running hipfw (fw_client.c):
 * the exit status. */
int fw_client_run(const char *path, bool json, int argc, const char *const argv[]);

#endif
