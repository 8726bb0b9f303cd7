/*
 * conf_keys.c - the hipd.conf keys as one table (hipd.conf(5)): each key's
 * name, type, field, range, default and whether SIGHUP may change it. The
 * parser (conf.c), defaults, reload and `hipconf show config` all walk it.
 */
#include "conf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "conf_int.h"
#include "hip_wire.h"

static const struct enum_name hi_algorithm_names[] = {
	{ "ecdsa-p256", HIP_HI_KIND_ECDSA_P256 },
	{ "ecdsa-p384", HIP_HI_KIND_ECDSA_P384 },
	{ "rsa-3072", HIP_HI_KIND_RSA_3072 },
	{ NULL, 0 },
};
static const struct enum_name log_level_names[] = {
	{ "err", LOG_ERR }, { "warning", LOG_WARNING }, { "notice", LOG_NOTICE },
	{ "info", LOG_INFO }, { "debug", LOG_DEBUG }, { NULL, 0 },
};
static const struct enum_name peer_policy_names[] = {
	{ "any", HIPD_PEER_ANY }, { "known", HIPD_PEER_KNOWN }, { NULL, 0 },
};
static const struct enum_name i2_host_id_names[] = {
	{ "encrypted", HIPD_I2_HOST_ID_ENCRYPTED }, { "clear", HIPD_I2_HOST_ID_CLEAR },
	{ NULL, 0 },
};
static const struct enum_name nat_names[] = {
	{ "auto", HIPD_NAT_AUTO }, { "always", HIPD_NAT_ALWAYS }, { "never", HIPD_NAT_NEVER },
	{ NULL, 0 },
};
static const struct enum_name datapath_names[] = {
	{ "auto", HIPD_DATAPATH_AUTO }, { "kernel", HIPD_DATAPATH_KERNEL },
	{ "userspace", HIPD_DATAPATH_USERSPACE }, { NULL, 0 },
};

#define F(field) offsetof(struct hipd_conf, field), sizeof(((struct hipd_conf *)0)->field)
#define STR(n, t, def, rt) { #n, t, F(n), 0, 0, 0, NULL, def, rt }
#define UINT(n, lo, hi, def, rt) { #n, K_UINT, F(n), 0, lo, hi, NULL, def, rt }
#define BOOL(n, def, rt) { #n, K_BOOL, F(n), 0, 0, 0, NULL, def, rt }
#define ENUM(n, names, def, rt) { #n, K_ENUM, F(n), 0, 0, 0, names, def, rt }
#define ID32(n, def, rt) { #n, K_ID32, F(n), 0, 0, 0, NULL, def, rt }
#define BYTES(n, def, rt) { #n, K_BYTES, F(n), 0, 0, 0, NULL, def, rt }
#define LIST(n, t, def) { #n, t, F(n), offsetof(struct hipd_conf, n_##n), 0, 0, NULL, def, true }

/* Order = the order of hipconf show config and of conf/hipd.conf. */
const struct conf_key conf_keys[] = {
	STR(config_dir, K_PATH, "/etc/hip", false),
	STR(hi_file, K_PATH, NULL, false),
	ENUM(hi_algorithm, hi_algorithm_names, "ecdsa-p256", false),
	STR(hosts_file, K_PATH, NULL, true),
	STR(control_socket, K_PATH, "/run/hipd/hipd.sock", false),
	STR(control_group, K_NAME, "hipd", false),
	STR(pid_file, K_PATH, "/run/hipd/hipd.pid", false),
	STR(state_dir, K_PATH, "/var/lib/hipd", false),
	STR(user, K_NAME, "hipd", false),
	ENUM(log_level, log_level_names, "info", true),
	UINT(puzzle_k, 0, HIP_PUZZLE_K_MAX, "0", true),
	UINT(puzzle_k_max_auto, 0, HIP_PUZZLE_K_MAX, "20", true),
	BOOL(puzzle_auto, "yes", true),
	UINT(i1_rate_threshold, 1, 10000000, "1000", true),
	UINT(r1_cache_size, 8, 64, "8", true),
	UINT(r1_rotate_seconds, 10, 86400, "300", true),
	LIST(dh_groups, K_DH_LIST, "7 8 4 3"),
	LIST(hip_ciphers, K_CIPHER_LIST, "2 4"),
	LIST(esp_suites, K_ESP_LIST, "13 8 9"),
	BOOL(allow_null_cipher, "no", true),
	BOOL(opportunistic, "no", true),
	/* D-27: the Initiator's opportunistic mode, per destination */
	{ "opportunistic_peers", K_PREFIXES, F(opportunistic_peers), offsetof(struct hipd_conf,
	  n_opportunistic_peers), 0, 0, NULL, "none", true },
	STR(known_hosts_file, K_OPT_PATH, NULL, false),
	ENUM(peer_policy, peer_policy_names, "any", true),
	ENUM(i2_host_id, i2_host_id_names, "encrypted", true),
	UINT(i1_retries, 0, 20, "5", true),
	UINT(i1_timeout_ms, 10, 60000, "1000", true),
	UINT(i2_retries, 0, 20, "5", true),
	UINT(i2_timeout_ms, 10, 60000, "1000", true),
	UINT(ual_seconds, 1, 2592000, "900", true),
	UINT(msl_seconds, 1, 600, "120", true),
	UINT(ratelimit_r1_per_source, 1, 1000000, "10", true),
	UINT(ratelimit_r1_burst, 1, 1000000, "20", true),
	ENUM(datapath, datapath_names, "auto", false),
	BOOL(listen_v4, "yes", false),
	BOOL(listen_v6, "yes", false),
	ID32(xfrm_reqid, "0x48495000", false),
	/* Hard ESP SA lifetimes (RFC 7402 §3.3.7; soft = 90% minus jitter,
	 * engine_dp.c). 8 hours: the IPsec DOI's default SA life (RFC 2407
	 * §4.5) and libreswan's salifetime. With 64-bit ESN the sequence
	 * number never wraps, so only the age and use of a key limit an SA,
	 * and a rekey without DH costs one UPDATE exchange. Bytes: none. */
	UINT(sa_lifetime_seconds, 0, 315360000, "28800", true),
	BYTES(sa_lifetime_bytes, "0", true),
	/* registration (RFC 8003) and rendezvous (RFC 8004); the limits are
	 * the RFC's (§5: at least 10 s; the encoding ends near 178 days) */
	{ "offer_services", K_SERVICES, F(offer_services), offsetof(struct hipd_conf,
	  n_offer_services), 0, 0, NULL, "none", false },
	STR(registration_allow_file, K_OPT_PATH, "none", true),
	UINT(registration_min_lifetime, 10, 15000000, "10", true),
	UINT(registration_max_lifetime, 10, 15000000, "3600", true),
	UINT(registration_max, 1, 10000000, "200000", true),
	UINT(registration_requests_per_second, 0, 10000000, "1000", true),
	UINT(registration_lifetime, 10, 15000000, "600", true),
	/* NAT traversal: HIP and ESP over UDP (RFC 9028 §5.1); keepalives
	 * (§4.10: every 15 s or more, only when idle) */
	ENUM(nat_traversal, nat_names, "auto", false),
	UINT(nat_port, 1, 65535, "10500", false),
	UINT(nat_keepalive_seconds, 15, 3600, "20", true),   /* §4.10: never < 15 s */
	/* §4.4: our minimum Ta between connectivity checks, in the R1 and I2
	 * (TRANSACTION_PACING); never below 5 ms */
	UINT(nat_ta_ms, 5, 1000, "50", false),
	/* the data relay (offer_services relay-esp, D-29): its first UDP port
	 * and how many (one client each); opened at start */
	UINT(relay_esp_port, 1024, 65535, "10600", false),
	UINT(relay_esp_ports, 1, 4096, "64", false),
	/* peer liveness (docs/decisions.md D-13): 0 = off */
	UINT(peer_timeout_seconds, 0, 3600, "5", true),
	/* LSIs (D-19, D-20): RFC 2544's benchmarking block by default; needs
	 * a restart (the LSIs in use are derived from it) */
	{ "lsi_range", K_LSI_RANGE, F(lsi_range), 0, 0, 0, NULL, "198.18.0.0/15", false },
	/* the LSI of each mapped HIT, for the NSS module (D-26) */
	STR(lsi_file, K_OPT_PATH, "/run/hipd/lsi", false),
	{ "server", K_SERVER, F(servers), offsetof(struct hipd_conf, n_servers), 0, 0, NULL,
	  "none", false },
};
enum { CONF_NKEYS = sizeof(conf_keys) / sizeof(conf_keys[0]) };
const size_t conf_nkeys = CONF_NKEYS;

_Static_assert(CONF_NKEYS <= 64, "set_mask and set_line hold 64 keys");

const struct conf_key *conf_key_find(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < CONF_NKEYS; i++)
		if (strlen(conf_keys[i].name) == len && memcmp(conf_keys[i].name, name, len) == 0)
			return &conf_keys[i];
	return NULL;
}

size_t conf_key_index(const struct conf_key *k)
{
	return (size_t)(k - conf_keys);
}

static const char *const service_names[] = {
	[HIP_REG_RENDEZVOUS] = "rendezvous", [HIP_REG_RELAY_UDP_HIP] = "relay",
	[HIP_REG_RELAY_UDP_ESP] = "relay-esp", [HIP_REG_CANDIDATE_DISCOVERY] = "candidate-discovery",
};

int conf_service_from_name(const char *s, size_t len)
{
	size_t i;

	for (i = 1; i < sizeof(service_names) / sizeof(service_names[0]); i++)
		if (service_names[i] && strlen(service_names[i]) == len &&
		    memcmp(service_names[i], s, len) == 0)
			return (int)i;
	return -EINVAL;
}

const char *conf_service_name(unsigned type)
{
	return type < sizeof(service_names) / sizeof(service_names[0]) && service_names[type]
		       ? service_names[type] : "?";
}

/* Value of key k in file syntax. */
void conf_format_value(const struct hipd_conf *c, const struct conf_key *k, char *val,
		       size_t vlen)
{
	const char *field = (const char *)c + k->off;
	size_t i, n, used = 0;

	val[0] = '\0';
	switch (k->type) {
	case K_PATH:
	case K_NAME:
		snprintf(val, vlen, "%s", field);
		break;
	case K_OPT_PATH:
		snprintf(val, vlen, "%s", field[0] ? field : "none");
		break;
	case K_UINT:
		snprintf(val, vlen, "%u", *(const unsigned *)field);
		break;
	case K_BOOL:
		snprintf(val, vlen, "%s", *(const bool *)field ? "yes" : "no");
		break;
	case K_ID32:
		snprintf(val, vlen, "0x%08x", *(const uint32_t *)field);
		break;
	case K_BYTES:
		snprintf(val, vlen, "%" PRIu64, *(const uint64_t *)field);
		break;
	case K_LSI_RANGE: {
		const struct hip_lsi_range *lr = (const struct hip_lsi_range *)field;
		char a[INET_ADDRSTRLEN];

		snprintf(val, vlen, "%s/%u", inet_ntop(AF_INET, lr->net, a, sizeof(a)) ? a : "?",
			 lr->prefix);
		break;
	}
	case K_SERVICES:
		n = *(const size_t *)((const char *)c + k->count_off);
		snprintf(val, vlen, "%s", n ? "" : "none");
		for (i = 0; i < n; i++)
			snprintf(val + strlen(val), vlen - strlen(val), "%s%s", i ? " " : "",
				 conf_service_name(((const uint8_t *)field)[i]));
		break;
	case K_SERVER:
		n = *(const size_t *)((const char *)c + k->count_off);
		snprintf(val, vlen, "%s", n ? "" : "none");
		for (i = 0; i < n; i++) {
			const struct hipd_conf_server *sv = &((const struct hipd_conf_server *)field)[i];
			char h[HIP_HIT_STR_LEN], a[INET6_ADDRSTRLEN];
			size_t j;

			/* no HIT: known by its address only (D-16) */
			snprintf(val + strlen(val), vlen - strlen(val), "%s%s%s", i ? "; " : "",
				 hip_hit_is_null(&sv->hit) ? "" :
				 hip_hit_to_str(&sv->hit, h, sizeof(h)),
				 hip_hit_is_null(&sv->hit) ? "" : " ");
			snprintf(val + strlen(val), vlen - strlen(val), "%s",
				 hip_addr_to_str(&sv->addr, a, sizeof(a)));
			for (j = 0; j < sv->n_types; j++)
				snprintf(val + strlen(val), vlen - strlen(val), " %s",
					 conf_service_name(sv->types[j]));
		}
		break;
	case K_PREFIXES:
		n = *(const size_t *)((const char *)c + k->count_off);
		snprintf(val, vlen, "%s", n ? "" : "none");
		for (i = 0; i < n; i++) {
			const struct hipd_conf_prefix *pf = &((const struct hipd_conf_prefix *)field)[i];
			char a[INET6_ADDRSTRLEN];

			snprintf(val + strlen(val), vlen - strlen(val), "%s%s/%u", i ? " " : "",
				 hip_addr_to_str(&pf->addr, a, sizeof(a)), pf->len);
		}
		break;
	case K_ENUM:
		for (i = 0; k->names[i].name; i++)
			if (k->names[i].value == *(const int *)field)
				snprintf(val, vlen, "%s", k->names[i].name);
		break;
	case K_DH_LIST:
	case K_CIPHER_LIST:
	case K_ESP_LIST:
		n = *(const size_t *)((const char *)c + k->count_off);
		for (i = 0; i < n && used < vlen; i++) {
			unsigned v = k->type == K_DH_LIST ? ((const uint8_t *)field)[i]
							 : ((const uint16_t *)field)[i];
			int w = snprintf(val + used, vlen - used, "%s%u", i ? " " : "", v);

			if (w < 0)
				break;
			used += (size_t)w;
		}
		break;
	}
}

const char *hipd_conf_get(const struct hipd_conf *c, size_t i, char *val, size_t vlen,
			  enum hipd_conf_vtype *type)
{
	const struct conf_key *k;

	if (i >= CONF_NKEYS)
		return NULL;
	k = &conf_keys[i];
	conf_format_value(c, k, val, vlen);
	switch (k->type) {
	case K_UINT:
	case K_BYTES:
		*type = HIPD_CONF_V_NUMBER;
		break;
	case K_BOOL:
		*type = HIPD_CONF_V_BOOL;
		break;
	case K_DH_LIST:
	case K_CIPHER_LIST:
	case K_ESP_LIST:
		*type = HIPD_CONF_V_LIST;
		break;
	default:
		*type = HIPD_CONF_V_STRING;
	}
	return k->name;
}

size_t hipd_conf_apply_reload(struct hipd_conf *cur, const struct hipd_conf *fresh,
			      const char **restart_keys, size_t max)
{
	char a[HIPD_CONF_VALUE_MAX], b[HIPD_CONF_VALUE_MAX];
	size_t i, n = 0;

	for (i = 0; i < CONF_NKEYS; i++) {
		const struct conf_key *k = &conf_keys[i];

		conf_format_value(cur, k, a, sizeof(a));
		conf_format_value(fresh, k, b, sizeof(b));
		if (strcmp(a, b) == 0)
			continue;
		if (!k->runtime) {
			if (n < max)
				restart_keys[n] = k->name;
			n++;
			continue;
		}
		memcpy((char *)cur + k->off, (const char *)fresh + k->off, k->size);
		if (k->count_off)
			memcpy((char *)cur + k->count_off, (const char *)fresh + k->count_off,
			       sizeof(size_t));
	}
	return n;
}

const char *hipd_conf_hi_algorithm_name(enum hip_hi_kind kind)
{
	size_t i;

	for (i = 0; hi_algorithm_names[i].name; i++)
		if (hi_algorithm_names[i].value == (int)kind)
			return hi_algorithm_names[i].name;
	return "unknown";
}
