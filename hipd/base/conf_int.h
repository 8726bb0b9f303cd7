/*
 * conf_int.h - inside the hipd.conf code: the key table (conf_keys.c) as
 * the parser (conf.c) sees it. Not for use outside hipd/base/conf*.c.
 */
#ifndef HIPD_CONF_INT_H
#define HIPD_CONF_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "conf.h"

enum key_type {
	K_PATH,       /* absolute path, char[size] */
	K_OPT_PATH,   /* absolute path or none ("" in the field) */
	K_NAME,       /* user or group name, char[size] */
	K_UINT,       /* unsigned in [min, max] */
	K_BOOL,
	K_ENUM,       /* int-sized enum, names in `names` */
	K_DH_LIST,    /* uint8_t[], count in size_t at count_off */
	K_CIPHER_LIST,/* uint16_t[] */
	K_ESP_LIST,   /* uint16_t[] */
	K_ID32,       /* uint32_t, non-zero, decimal or 0x hex, shown in hex */
	K_BYTES,      /* uint64_t byte count, decimal with an optional k/M/G/T suffix */
	K_SERVICES,   /* registration type names -> uint8_t[], count at count_off */
	K_SERVER,     /* HIT ADDRESS SERVICE...: appended, may repeat */
	K_LSI_RANGE,  /* struct hip_lsi_range: IPv4 A.B.C.D/LEN, LEN 8..30 (D-20) */
	K_PREFIXES,   /* none, any or ADDRESS[/LEN]... -> struct hipd_conf_prefix[] */
};

struct enum_name {
	const char *name;
	int value;
};

struct conf_key {
	const char *name;
	enum key_type type;
	size_t off, size, count_off;
	unsigned min, max;
	const struct enum_name *names;
	const char *def;       /* default as file text; NULL = derived */
	bool runtime;          /* may change on SIGHUP */
};

/* The keys, in the order of hipconf show config and conf/hipd.conf. */
extern const struct conf_key conf_keys[];
extern const size_t conf_nkeys;

/* The key named by name[0..len), or NULL. */
const struct conf_key *conf_key_find(const char *name, size_t len);
/* k's position in conf_keys (its bit in set_mask and cli_mask). */
size_t conf_key_index(const struct conf_key *k);
/* Value of key k in file syntax, into val. */
void conf_format_value(const struct hipd_conf *c, const struct conf_key *k, char *val,
		       size_t vlen);

/* K_PREFIXES text (conf_prefix.c) into out[HIPD_CONF_PREFIXES_MAX] and
 * *n; on error why says what is wrong (without the key's name). */
int conf_prefixes_parse(const char *value, struct hipd_conf_prefix *out, size_t *n,
			char *why, size_t whylen);

/* Registration type names of K_SERVICES and K_SERVER (RFC 8003 §7). */
int conf_service_from_name(const char *s, size_t len);
const char *conf_service_name(unsigned type);

#endif
