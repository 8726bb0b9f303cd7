/*
 * conf.h - hipd.conf: strict `key = value` configuration (hipd.conf(5)).
 *
 * Syntax: one `key = value` per line; '#' starts a comment at the start of a
 * line or after whitespace; blank lines are ignored. Unknown keys, bad
 * values and keys given twice are errors reported as "FILE:LINE: message"
 * with the offending text quoted. Paths must be absolute. hi_file and
 * hosts_file default to files in config_dir unless set.
 *
 * Order of use: hipd_conf_defaults(), hipd_conf_load() (or _parse()),
 * hipd_conf_override() for each command-line option, hipd_conf_finalize().
 * All functions return 0 or -errno (-EINVAL for a bad configuration, with
 * the message in err).
 */
#ifndef HIPD_CONF_H
#define HIPD_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "checksum.h"
#include "hip_crypto.h"
#include "hit.h"
#include "hosts_line.h"

enum {
	HIPD_PATH_MAX     = 256,
	HIPD_SOCKPATH_MAX = 108,   /* sizeof(sun_path), NUL included */
	HIPD_NAME_MAX     = 33,    /* user and group names, NUL included */
	HIPD_CONF_LIST_MAX = 6,    /* HIP_LIST_SEND_MAX: IDs we offer */
	HIPD_CONF_ERR_MAX = 512,   /* enough for any message of ours */
	HIPD_CONF_SERVERS_MAX = 8, /* `server` lines (registration, RFC 8003) */
	HIPD_CONF_SERVICES_MAX = 4,/* registration types named on one line */
	HIPD_CONF_VALUE_MAX = 1024,/* one key's value as text (show config) */
	HIPD_CONF_PREFIXES_MAX = 16,/* opportunistic_peers prefixes */
};

/* An address prefix (`opportunistic_peers`): len counts bits of the
 * address's own family (IPv4 0..32, IPv6 0..128). */
struct hipd_conf_prefix {
	struct hip_addr addr;      /* host bits zero */
	uint8_t len;
};

/* A registration server (`server = HIT ADDRESS SERVICE...`). */
struct hipd_conf_server {
	struct hip_hit hit;
	struct hip_addr addr;
	uint8_t types[HIPD_CONF_SERVICES_MAX];   /* RFC 8003 registration types */
	size_t n_types;
};

#define HIPD_CONF_DEFAULT_FILE "/etc/hip/hipd.conf"

enum hipd_peer_policy {
	HIPD_PEER_ANY,     /* answer I1s from any HIT */
	HIPD_PEER_KNOWN,   /* only from HITs in the hosts map */
};

enum hipd_nat {
	HIPD_NAT_AUTO,     /* UDP from a private address to a public one */
	HIPD_NAT_ALWAYS,   /* every base exchange we start goes over UDP */
	HIPD_NAT_NEVER,    /* raw IP only; no UDP socket */
};

enum hipd_datapath {
	HIPD_DATAPATH_AUTO,
	HIPD_DATAPATH_KERNEL,     /* XFRM */
	HIPD_DATAPATH_USERSPACE,
};

/* How the I2 carries our HOST_ID (RFC 7401 §5.3.3, decisions D-18). */
enum hipd_i2_host_id {
	HIPD_I2_HOST_ID_ENCRYPTED,    /* ENCRYPTED{HOST_ID}: hidden from onlookers */
	HIPD_I2_HOST_ID_CLEAR,        /* HOST_ID: a middlebox (hipfw) can verify the I2 */
};

struct hipd_conf {
	char config_file[HIPD_PATH_MAX];   /* the file read ("" = none) */
	char config_dir[HIPD_PATH_MAX];
	char hi_file[HIPD_PATH_MAX];
	enum hip_hi_kind hi_algorithm;     /* generated when hi_file is absent */
	char hosts_file[HIPD_PATH_MAX];
	char control_socket[HIPD_SOCKPATH_MAX];
	char control_group[HIPD_NAME_MAX];
	char pid_file[HIPD_PATH_MAX];
	char lsi_file[HIPD_PATH_MAX];       /* LSI table for the NSS module, "" = none */
	char state_dir[HIPD_PATH_MAX];
	char user[HIPD_NAME_MAX];
	int log_level;                     /* LOG_ERR .. LOG_DEBUG */

	/* puzzle (RFC 7401 §4.1.2: K SHOULD be 0 unless under load) */
	unsigned puzzle_k;
	unsigned puzzle_k_max_auto;
	bool puzzle_auto;
	unsigned i1_rate_threshold;        /* I1/s counting as load */
	unsigned r1_cache_size;            /* >= 8 per identity and DH group */
	unsigned r1_rotate_seconds;

	/* offered algorithms, in preference order */
	uint8_t dh_groups[HIPD_CONF_LIST_MAX];
	size_t n_dh_groups;
	uint16_t hip_ciphers[HIPD_CONF_LIST_MAX];
	size_t n_hip_ciphers;
	uint16_t esp_suites[HIPD_CONF_LIST_MAX];
	size_t n_esp_suites;
	bool allow_null_cipher;

	bool opportunistic;
	/* opportunistic mode, the Initiator's side (RFC 7401 §4.1.8,
	 * docs/decisions.md D-27): addresses we may contact without their
	 * HIT; none by default. The HITs learnt are pinned in known_hosts_file
	 * ("" = in memory only; default state_dir/known_hosts). */
	struct hipd_conf_prefix opportunistic_peers[HIPD_CONF_PREFIXES_MAX];
	size_t n_opportunistic_peers;
	char known_hosts_file[HIPD_PATH_MAX];
	enum hipd_peer_policy peer_policy;
	enum hipd_i2_host_id i2_host_id;

	/* timers (docs/decisions.md D-1) */
	unsigned i1_retries, i1_timeout_ms;
	unsigned i2_retries, i2_timeout_ms;
	unsigned ual_seconds, msl_seconds;

	unsigned ratelimit_r1_per_source;  /* R1/s per source address */
	unsigned ratelimit_r1_burst;

	enum hipd_datapath datapath;
	bool listen_v4, listen_v6;
	uint32_t xfrm_reqid;               /* marks this hipd's XFRM SAs and policies */
	unsigned sa_lifetime_seconds;      /* hard ESP SA lifetime, 0 = none */
	uint64_t sa_lifetime_bytes;        /* hard, 0 = none */

	/* registration (RFC 8003) and rendezvous (RFC 8004), hipd.conf(5) */
	uint8_t offer_services[HIPD_CONF_SERVICES_MAX];  /* types we offer */
	size_t n_offer_services;
	char registration_allow_file[HIPD_PATH_MAX];    /* "" = anyone */
	unsigned registration_min_lifetime, registration_max_lifetime; /* s */
	unsigned registration_max;                      /* clients held */
	unsigned registration_requests_per_second;      /* 0 = no limit */
	unsigned registration_lifetime;                 /* we ask for, s */
	struct hipd_conf_server servers[HIPD_CONF_SERVERS_MAX];
	size_t n_servers;

	/* NAT traversal (RFC 9028, RFC 5770), hipd.conf(5) */
	enum hipd_nat nat_traversal;
	unsigned nat_port;                  /* UDP port of HIP and ESP */
	unsigned nat_keepalive_seconds;
	unsigned relay_esp_port, relay_esp_ports;
	unsigned nat_ta_ms;                 /* RFC 9028 §4.4: our minimum Ta */

	/* peer liveness: probe after this long sending without an answer */
	unsigned peer_timeout_seconds;

	/* LSIs (docs/decisions.md D-19, D-20): checked against the host's
	 * routes at start */
	struct hip_lsi_range lsi_range;

	/* private to conf.c */
	uint64_t set_mask;                 /* keys set by file or option */
	uint64_t cli_mask;                 /* of which by option */
	uint32_t set_line[64];             /* line of each key in the file */
};

void hipd_conf_defaults(struct hipd_conf *c);

/* Parse a configuration text. name is the file name used in messages. */
int hipd_conf_parse(struct hipd_conf *c, const char *name, const char *buf, size_t len,
		    char *err, size_t errlen);
/* Read and parse path (at most 64 KiB). -ENOENT if it does not exist (err
 * says so; the caller decides whether a missing file is fine). */
int hipd_conf_load(struct hipd_conf *c, const char *path, char *err, size_t errlen);
/* Command-line option: set key to value, beating the file (no duplicate
 * error). opt is the option's name for messages ("--hi-file"). */
int hipd_conf_override(struct hipd_conf *c, const char *opt, const char *key,
		       const char *value, char *err, size_t errlen);
/* Derive the defaults that depend on other keys, check combinations. */
int hipd_conf_finalize(struct hipd_conf *c, char *err, size_t errlen);

/* SIGHUP: copy the keys that may change at runtime from fresh into cur.
 * Returns how many restart-only keys differ (they keep cur's value); their
 * names go to restart_keys[0..max). */
size_t hipd_conf_apply_reload(struct hipd_conf *cur, const struct hipd_conf *fresh,
			      const char **restart_keys, size_t max);

/* Iterate over the keys (for hipconf show config): key i's name, its value
 * as it would be written in the file (lists space-separated) in val, and
 * how to render it in JSON. NULL when i is past the last key. */
enum hipd_conf_vtype {
	HIPD_CONF_V_STRING,
	HIPD_CONF_V_NUMBER,
	HIPD_CONF_V_BOOL,      /* val is "yes" or "no" */
	HIPD_CONF_V_LIST,      /* of numbers */
};
const char *hipd_conf_get(const struct hipd_conf *c, size_t i, char *val, size_t vlen,
			  enum hipd_conf_vtype *type);

/* Whether addr lies in one of opportunistic_peers (D-27). */
bool hipd_conf_opportunistic_to(const struct hipd_conf *c, const struct hip_addr *addr);

/* Names for the enums, as written in the file. */
const char *hipd_conf_hi_algorithm_name(enum hip_hi_kind k);

#endif
