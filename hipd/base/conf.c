/*
 * conf.c - hipd.conf parser (hipd.conf(5)): lines, values by key type,
 * the algorithm IDs a list may hold, defaults, command-line overrides and
 * the checks of combinations. The keys themselves are a table in
 * conf_keys.c, which also drives reload and `hipconf show config`.
 */
#include "conf.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf_int.h"
#include "hip_wire.h"
#include "lsi_derive.h"

enum { CONF_LINE_MAX = 1024, CONF_FILE_MAX = 64 * 1024, QUOTE_MAX = 64 };

/* Algorithm IDs we can offer (RFC 7401 §5.2.7-5.2.9, D-2). */
static const unsigned dh_supported[] = { 3, 4, 7, 8 };
static const unsigned dh_deprecated[] = { 1, 2, 5, 6 };
static const unsigned cipher_known[] = { HIP_CIPHER_NULL, HIP_CIPHER_AES_128_CBC,
					 HIP_CIPHER_AES_256_CBC };
static const unsigned esp_known[] = { 1, 7, 8, 9, 10, 11, 12, 13 };

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Where a message is about: "FILE:LINE: ", "--opt: " or "FILE: ". */
struct conf_where {
	const char *name;
	unsigned line;        /* 0 = no line (option, or the file as a whole) */
};

static int conf_error(char *err, size_t errlen, const struct conf_where *w, const char *fmt,
		      ...) __attribute__((format(printf, 4, 5)));

static int conf_error(char *err, size_t errlen, const struct conf_where *w, const char *fmt,
		      ...)
{
	va_list ap;
	int n = 0;

	if (!err || errlen == 0)
		return -EINVAL;
	if (w && w->line)
		n = snprintf(err, errlen, "%s:%u: ", w->name, w->line);
	else if (w)
		n = snprintf(err, errlen, "%s: ", w->name);
	if (n < 0 || (size_t)n >= errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Quote untrusted text for a message: printable, at most QUOTE_MAX chars. */
static const char *quote(const char *s, size_t len, char *buf, size_t buflen)
{
	size_t i, n = 0;

	for (i = 0; i < len && n + 4 < buflen; i++) {
		if (i == QUOTE_MAX) {
			memcpy(buf + n, "...", 3);
			n += 3;
			break;
		}
		buf[n++] = isprint((unsigned char)s[i]) ? s[i] : '?';
	}
	buf[n] = '\0';
	return buf;
}

static bool in_set(unsigned v, const unsigned *set, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (set[i] == v)
			return true;
	return false;
}

static int parse_uint(const char *s, unsigned long *out)
{
	unsigned long v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (v > (0xffffffffUL - (unsigned long)(*s - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (unsigned long)(*s - '0');
	}
	*out = v;
	return 0;
}

/* Decimal, or hexadecimal after 0x; at most 32 bits. */
static int parse_id32(const char *s, unsigned long *out)
{
	unsigned long v = 0;
	size_t n = 0;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return parse_uint(s, out);
	for (s += 2; *s; s++, n++) {
		int c = tolower((unsigned char)*s);

		if (!isxdigit(c))
			return -EINVAL;
		if (v > 0xfffffffUL)
			return -ERANGE;
		v = v * 16 + (unsigned long)(isdigit(c) ? c - '0' : c - 'a' + 10);
	}
	if (n == 0)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Decimal bytes with an optional binary suffix (k = 1024, M, G, T). */
static int parse_bytes(const char *s, uint64_t *out)
{
	static const char suffixes[] = "kMGT";
	uint64_t v = 0, mult = 1;
	const char *sfx;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (*s) {
		sfx = strchr(suffixes, *s);
		if (!sfx || s[1])
			return -EINVAL;
		mult = 1ull << (10 * (sfx - suffixes + 1));
		if (v > UINT64_MAX / mult)
			return -ERANGE;
	}
	*out = v * mult;
	return 0;
}

static int parse_bool(const char *s, bool *out)
{
	if (!strcmp(s, "yes") || !strcmp(s, "true") || !strcmp(s, "1"))
		*out = true;
	else if (!strcmp(s, "no") || !strcmp(s, "false") || !strcmp(s, "0"))
		*out = false;
	else
		return -EINVAL;
	return 0;
}

/* Check one list entry; NULL if fine, else why not (into buf). */
static const char *list_entry_problem(enum key_type t, unsigned v, bool *null_alg, char *buf,
				      size_t len)
{
	*null_alg = false;
	switch (t) {
	case K_DH_LIST:
		if (in_set(v, dh_supported, ARRAY_LEN(dh_supported)))
			return NULL;
		if (in_set(v, dh_deprecated, ARRAY_LEN(dh_deprecated)))
			snprintf(buf, len, "DH group %u is deprecated (HIPv1 only) and must not "
				 "be offered", v);
		else if (v == 9 || v == 10 || v == 11)
			snprintf(buf, len, "DH group %u is not supported (supported: 3 4 7 8)", v);
		else
			snprintf(buf, len, "unknown DH group %u (supported: 3 4 7 8)", v);
		return buf;
	case K_CIPHER_LIST:
		if (in_set(v, cipher_known, ARRAY_LEN(cipher_known))) {
			*null_alg = v == HIP_CIPHER_NULL;
			return NULL;
		}
		snprintf(buf, len, "unknown HIP cipher %u (known: 1 = NULL, 2 = AES-128-CBC, "
			 "4 = AES-256-CBC)", v);
		return buf;
	case K_ESP_LIST:
		if (in_set(v, esp_known, ARRAY_LEN(esp_known))) {
			*null_alg = v == HIP_ESP_NULL_SHA256;
			return NULL;
		}
		snprintf(buf, len, "unknown ESP suite %u (known: 1 7 8 9 10 11 12 13)", v);
		return buf;
	default:
		snprintf(buf, len, "not a list");
		return buf;
	}
}

static int parse_list(const struct conf_key *k, const char *value, struct hipd_conf *c,
		      const struct conf_where *w, char *err, size_t errlen)
{
	unsigned vals[HIPD_CONF_LIST_MAX];
	char tok[32], why[128], q[QUOTE_MAX + 8];
	const char *p = value;
	size_t n = 0, i;

	while (*p) {
		size_t tl = strcspn(p, " \t,");
		unsigned long v;
		bool null_alg;

		if (tl == 0) {
			p++;
			continue;
		}
		if (tl < sizeof(tok)) {
			memcpy(tok, p, tl);
			tok[tl] = '\0';
		}
		if (tl >= sizeof(tok) || parse_uint(tok, &v) != 0)
			return conf_error(err, errlen, w, "%s: '%s' is not a number", k->name,
					  quote(p, tl, q, sizeof(q)));
		if (v > 0xffff || list_entry_problem(k->type, (unsigned)v, &null_alg, why,
						      sizeof(why)))
			return conf_error(err, errlen, w, "%s: %s", k->name,
					  v > 0xffff ? "value out of range" : why);
		for (i = 0; i < n; i++)
			if (vals[i] == v)
				return conf_error(err, errlen, w, "%s: %lu is listed twice",
						  k->name, v);
		if (n == HIPD_CONF_LIST_MAX)
			return conf_error(err, errlen, w, "%s: more than %d entries", k->name,
					  HIPD_CONF_LIST_MAX);
		vals[n++] = (unsigned)v;
		p += tl;
	}
	if (n == 0)
		return conf_error(err, errlen, w, "%s: empty list", k->name);
	for (i = 0; i < n; i++) {
		if (k->type == K_DH_LIST)
			((uint8_t *)((char *)c + k->off))[i] = (uint8_t)vals[i];
		else
			((uint16_t *)((char *)c + k->off))[i] = (uint16_t)vals[i];
	}
	*(size_t *)((char *)c + k->count_off) = n;
	return 0;
}

/* Next whitespace-separated token of *p (advanced); its length, 0 at the end. */
static size_t next_token(const char **p)
{
	size_t n;

	while (**p == ' ' || **p == '\t' || **p == ',')
		(*p)++;
	n = strcspn(*p, " \t,");
	return n;
}

/* Service names (offer_services, server): registration types, no repeats. */
static int parse_services(const struct conf_key *k, const char **p, uint8_t *out, size_t *n,
			  const struct conf_where *w, char *err, size_t errlen)
{
	char q[QUOTE_MAX + 8];
	size_t tl, i;
	int t;

	*n = 0;
	while ((tl = next_token(p)) > 0) {
		if (tl == 4 && memcmp(*p, "none", 4) == 0 && k->type == K_SERVICES) {
			*p += tl;
			continue;
		}
		t = conf_service_from_name(*p, tl);
		if (t < 0)
			return conf_error(err, errlen, w, "%s: '%s' is not a service (rendezvous, "
					  "relay, relay-esp or candidate-discovery)", k->name,
					  quote(*p, tl, q, sizeof(q)));
		for (i = 0; i < *n; i++)
			if (out[i] == t)
				return conf_error(err, errlen, w, "%s: '%s' is listed twice",
						  k->name, quote(*p, tl, q, sizeof(q)));
		if (*n == HIPD_CONF_SERVICES_MAX)
			return conf_error(err, errlen, w, "%s: more than %d services", k->name,
					  HIPD_CONF_SERVICES_MAX);
		out[(*n)++] = (uint8_t)t;
		*p += tl;
	}
	return 0;
}

/* The token at p (tl bytes) as a HIT (0), an IP address (1), or neither
 * (-1). A HIT is in 2001:20::/28 (RFC 7343), which no locator is. */
static int server_word(const char *p, size_t tl, struct hip_hit *hit, struct hip_addr *addr)
{
	char tok[INET6_ADDRSTRLEN + 8];

	if (tl == 0 || tl >= sizeof(tok))
		return -1;
	memcpy(tok, p, tl);
	tok[tl] = '\0';
	if (hip_hit_from_str(tok, hit) == 0)
		return 0;
	return hip_addr_from_str(tok, addr) == 0 ? 1 : -1;
}

/* server = [HIT] ADDRESS [SERVICE...] (default service: rendezvous).
 * Without the HIT it is learnt from the server's R1 (D-16): the HIT stays
 * zero here. */
static int parse_server(const struct conf_key *k, const char *value, struct hipd_conf *c,
			const struct conf_where *w, char *err, size_t errlen)
{
	struct hipd_conf_server sv;
	char tok[INET6_ADDRSTRLEN + 8], q[QUOTE_MAX + 8];
	struct hip_hit hit;
	struct hip_addr addr;
	const char *p = value;
	size_t tl, i;
	int r, kind;

	memset(&sv, 0, sizeof(sv));
	if (c->n_servers == HIPD_CONF_SERVERS_MAX)
		return conf_error(err, errlen, w, "%s: more than %d servers", k->name,
				  HIPD_CONF_SERVERS_MAX);
	tl = next_token(&p);
	kind = server_word(p, tl, &sv.hit, &sv.addr);
	if (kind < 0)
		return conf_error(err, errlen, w, "%s: '%s' is neither a HIT nor an IP address "
				  "(expected '[HIT] ADDRESS [SERVICE...]')", k->name,
				  quote(p, tl, q, sizeof(q)));
	p += tl;
	if (kind == 0) {
		tl = next_token(&p);
		if (tl == 0)
			return conf_error(err, errlen, w, "%s: missing the server's address after "
					  "its HIT", k->name);
		/* a HIT here is an address, refused below as a locator */
		if (tl >= sizeof(tok) || (memcpy(tok, p, tl), tok[tl] = '\0',
					  hip_addr_from_str(tok, &sv.addr) < 0))
			return conf_error(err, errlen, w, "%s: '%s' is not an IP address", k->name,
					  quote(p, tl, q, sizeof(q)));
		p += tl;
	}
	tl = next_token(&p);
	if (server_word(p, tl, &hit, &addr) >= 0)
		return conf_error(err, errlen, w, "%s: '%s' is not a service: one server is "
				  "'[HIT] ADDRESS [SERVICE...]', its HIT first", k->name,
				  quote(p, tl, q, sizeof(q)));
	hip_addr_to_str(&sv.addr, tok, sizeof(tok));
	if (hip_addr_locator_problem(&sv.addr))
		return conf_error(err, errlen, w, "%s: %s cannot be a server's address (%s)",
				  k->name, tok, hip_addr_locator_problem(&sv.addr));
	r = parse_services(k, &p, sv.types, &sv.n_types, w, err, errlen);
	if (r)
		return r;
	if (sv.n_types == 0)
		sv.types[sv.n_types++] = HIP_REG_RENDEZVOUS;
	for (i = 0; i < c->n_servers; i++) {
		if (kind == 0 && memcmp(c->servers[i].hit.b, sv.hit.b, sizeof(sv.hit.b)) == 0)
			return conf_error(err, errlen, w, "%s: server %s is listed twice", k->name,
					  quote(value, strcspn(value, " \t"), q, sizeof(q)));
		/* one known by its address only shares it with no other */
		if ((kind == 1 || hip_hit_is_null(&c->servers[i].hit)) &&
		    memcmp(&c->servers[i].addr, &sv.addr, sizeof(sv.addr)) == 0)
			return conf_error(err, errlen, w, "%s: the server at %s is listed twice",
					  k->name, tok);
	}
	c->servers[c->n_servers++] = sv;
	return 0;
}

static bool name_ok(const char *s)
{
	/* useradd's default NAME_REGEX, without the trailing '$' of machines */
	if (!(*s >= 'a' && *s <= 'z') && *s != '_')
		return false;
	for (s++; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_' &&
		    *s != '-')
			return false;
	return true;
}

/* Set key k from value text (already trimmed, non-empty). */
static int set_value(struct hipd_conf *c, const struct conf_key *k, const char *value,
		     const struct conf_where *w, char *err, size_t errlen)
{
	char *field = (char *)c + k->off;
	char q[QUOTE_MAX + 8];
	size_t vlen = strlen(value), i;
	unsigned long v;
	bool b;
	int r;

	quote(value, vlen, q, sizeof(q));
	switch (k->type) {
	case K_PATH:
		if (value[0] != '/')
			return conf_error(err, errlen, w, "%s: '%s' is not an absolute path",
					  k->name, q);
		for (i = 0; i < vlen; i++)
			if (!isprint((unsigned char)value[i]))
				return conf_error(err, errlen, w, "%s: '%s' contains a control "
						  "character", k->name, q);
		if (vlen >= k->size)
			return conf_error(err, errlen, w, "%s: path longer than %zu characters",
					  k->name, k->size - 1);
		memcpy(field, value, vlen + 1);
		return 0;
	case K_OPT_PATH:
		if (strcmp(value, "none") == 0) {
			field[0] = '\0';
			return 0;
		}
		if (value[0] != '/')
			return conf_error(err, errlen, w, "%s: '%s' is neither an absolute path nor "
					  "none", k->name, q);
		return set_value(c, &(struct conf_key){ k->name, K_PATH, k->off, k->size, 0, 0, 0,
					   NULL, NULL, k->runtime }, value, w, err, errlen);
	case K_NAME:
		if (vlen >= k->size || !name_ok(value))
			return conf_error(err, errlen, w, "%s: '%s' is not a valid user or group "
					  "name", k->name, q);
		memcpy(field, value, vlen + 1);
		return 0;
	case K_UINT:
		r = parse_uint(value, &v);
		if (r == -EINVAL)
			return conf_error(err, errlen, w, "%s: '%s' is not a number", k->name, q);
		if (r || v < k->min || v > k->max)
			return conf_error(err, errlen, w, "%s: %s is out of range (%u..%u)",
					  k->name, q, k->min, k->max);
		*(unsigned *)field = (unsigned)v;
		return 0;
	case K_BOOL:
		if (parse_bool(value, &b))
			return conf_error(err, errlen, w, "%s: '%s' is not a boolean (yes or no)",
					  k->name, q);
		*(bool *)field = b;
		return 0;
	case K_ENUM: {
		char choices[128] = "";

		for (i = 0; k->names[i].name; i++) {
			if (!strcmp(value, k->names[i].name)) {
				*(int *)field = k->names[i].value;
				return 0;
			}
			snprintf(choices + strlen(choices), sizeof(choices) - strlen(choices),
				 "%s%s", i ? ", " : "", k->names[i].name);
		}
		return conf_error(err, errlen, w, "%s: '%s' is not one of %s", k->name, q,
				  choices);
	}
	case K_DH_LIST:
	case K_CIPHER_LIST:
	case K_ESP_LIST:
		return parse_list(k, value, c, w, err, errlen);
	case K_SERVICES: {
		const char *p = value;

		return parse_services(k, &p, (uint8_t *)field,
				      (size_t *)((char *)c + k->count_off), w, err, errlen);
	}
	case K_SERVER: {
		/* none, or servers separated by ';' (show config prints them so) */
		char one[CONF_LINE_MAX + 1];
		const char *p = value;

		if (strcmp(value, "none") == 0)
			return 0;
		while (*p) {
			size_t n = strcspn(p, ";");

			if (n > CONF_LINE_MAX)
				return -EINVAL;
			memcpy(one, p, n);
			one[n] = '\0';
			if (parse_server(k, one, c, w, err, errlen))
				return -EINVAL;
			p += n;
			if (*p == ';')
				p++;
		}
		return 0;
	}
	case K_ID32:
		r = parse_id32(value, &v);
		if (r == -EINVAL)
			return conf_error(err, errlen, w, "%s: '%s' is not a number", k->name, q);
		if (r || v == 0)
			return conf_error(err, errlen, w, "%s: %s is out of range (1..0xffffffff)",
					  k->name, q);
		*(uint32_t *)field = (uint32_t)v;
		return 0;
	case K_PREFIXES: {
		char why[128];

		if (conf_prefixes_parse(value, (struct hipd_conf_prefix *)field,
					(size_t *)((char *)c + k->count_off), why, sizeof(why)))
			return conf_error(err, errlen, w, "%s: %s", k->name, why);
		return 0;
	}
	case K_LSI_RANGE: {
		char why[128];

		if (hip_lsi_range_parse(value, (struct hip_lsi_range *)field, why, sizeof(why)))
			return conf_error(err, errlen, w, "%s: %s", k->name, why);
		return 0;
	}
	case K_BYTES: {
		uint64_t u;

		r = parse_bytes(value, &u);
		if (r == -EINVAL)
			return conf_error(err, errlen, w, "%s: '%s' is not a byte count (a number, "
					  "optionally followed by k, M, G or T)", k->name, q);
		if (r)
			return conf_error(err, errlen, w, "%s: %s is out of range (64 bits)",
					  k->name, q);
		*(uint64_t *)field = u;
		return 0;
	}
	}
	return -EINVAL;
}

void hipd_conf_defaults(struct hipd_conf *c)
{
	size_t i;
	char err[HIPD_CONF_ERR_MAX];

	memset(c, 0, sizeof(*c));
	for (i = 0; i < conf_nkeys; i++) {
		/* the defaults are valid by construction (tested) */
		if (conf_keys[i].def && set_value(c, &conf_keys[i], conf_keys[i].def, NULL, err,
						  sizeof(err)) != 0)
			abort();
	}
}

static bool is_space(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

/* One line (NUL-terminated, no newline). */
static int parse_line(struct hipd_conf *c, char *line, const struct conf_where *w, char *err,
		      size_t errlen)
{
	char *p = line, *eq, *key_end, *value, *end, q[QUOTE_MAX + 8];
	const struct conf_key *k;
	size_t idx;

	while (is_space(*p))
		p++;
	if (*p == '\0' || *p == '#')
		return 0;
	/* a comment starts at '#' preceded by whitespace */
	for (end = p; *end; end++) {
		if (*end == '#' && is_space(end[-1])) {
			*end = '\0';
			break;
		}
	}
	while (end > p && is_space(end[-1]))
		*--end = '\0';
	eq = strchr(p, '=');
	if (!eq)
		return conf_error(err, errlen, w, "expected 'key = value', got '%s'",
				  quote(p, strlen(p), q, sizeof(q)));
	key_end = eq;
	while (key_end > p && is_space(key_end[-1]))
		key_end--;
	if (key_end == p)
		return conf_error(err, errlen, w, "missing key before '='");
	k = conf_key_find(p, (size_t)(key_end - p));
	if (!k)
		return conf_error(err, errlen, w, "unknown key '%s'",
				  quote(p, (size_t)(key_end - p), q, sizeof(q)));
	idx = conf_key_index(k);
	value = eq + 1;
	while (is_space(*value))
		value++;
	if (*value == '\0')
		return conf_error(err, errlen, w, "%s: missing value", k->name);
	if (c->set_mask & (1ull << idx) && !(c->cli_mask & (1ull << idx)) &&
	    k->type != K_SERVER)   /* one line per server */
		return conf_error(err, errlen, w, "duplicate key '%s' (first set on line %u)",
				  k->name, c->set_line[idx]);
	if (c->cli_mask & (1ull << idx))
		return 0;   /* set by an option before the file was read: it wins */
	if (set_value(c, k, value, w, err, errlen))
		return -EINVAL;
	c->set_mask |= 1ull << idx;
	c->set_line[idx] = w->line;
	return 0;
}

int hipd_conf_parse(struct hipd_conf *c, const char *name, const char *buf, size_t len,
		    char *err, size_t errlen)
{
	struct conf_where w = { .name = name, .line = 0 };
	char line[CONF_LINE_MAX + 1];
	size_t pos = 0;

	/* remembered for messages about combinations (finalize) */
	snprintf(c->config_file, sizeof(c->config_file), "%s", name);
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		int r;

		w.line++;
		if (ll > CONF_LINE_MAX)
			return conf_error(err, errlen, &w, "line longer than %d characters",
					  CONF_LINE_MAX);
		memcpy(line, buf + pos, ll);
		line[ll] = '\0';
		if (strlen(line) != ll)
			return conf_error(err, errlen, &w, "NUL byte in line");
		r = parse_line(c, line, &w, err, errlen);
		if (r)
			return r;
		pos += ll + (nl ? 1 : 0);
	}
	return 0;
}

int hipd_conf_load(struct hipd_conf *c, const char *path, char *err, size_t errlen)
{
	struct conf_where w = { .name = path, .line = 0 };
	char *buf = NULL;
	struct stat st;
	ssize_t n;
	int fd, r;

	if (strlen(path) >= sizeof(c->config_file))
		return conf_error(err, errlen, &w, "path too long");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		conf_error(err, errlen, &w, "%s", strerror(-r));
		return r;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		r = conf_error(err, errlen, &w, "not a regular file");
		goto out;
	}
	if (st.st_size > CONF_FILE_MAX) {
		r = conf_error(err, errlen, &w, "larger than %d bytes", CONF_FILE_MAX);
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		r = -ENOMEM;
		conf_error(err, errlen, &w, "out of memory");
		goto out;
	}
	n = read(fd, buf, (size_t)st.st_size + 1);
	if (n < 0 || n > st.st_size) {
		r = n < 0 ? -errno : -EIO;
		conf_error(err, errlen, &w, "read failed (%s)",
			   n < 0 ? strerror(-r) : "file changed while reading");
		goto out;
	}
	r = hipd_conf_parse(c, path, buf, (size_t)n, err, errlen);
out:
	free(buf);
	close(fd);
	return r;
}

int hipd_conf_override(struct hipd_conf *c, const char *opt, const char *key, const char *value,
		       char *err, size_t errlen)
{
	struct conf_where w = { .name = opt ? opt : key, .line = 0 };
	const struct conf_key *k = conf_key_find(key, strlen(key));
	size_t idx;

	if (!k)
		return conf_error(err, errlen, &w, "unknown key '%s'", key);
	if (!value || !*value)
		return conf_error(err, errlen, &w, "missing value");
	if (set_value(c, k, value, &w, err, errlen))
		return -EINVAL;
	idx = conf_key_index(k);
	c->set_mask |= 1ull << idx;
	c->cli_mask |= 1ull << idx;
	c->set_line[idx] = 0;
	return 0;
}

/* Where key `name` was set, for messages about combinations. */
static struct conf_where key_where(const struct hipd_conf *c, const char *name)
{
	const struct conf_key *k = conf_key_find(name, strlen(name));
	size_t idx = conf_key_index(k);
	struct conf_where w = { .name = c->config_file[0] ? c->config_file : "configuration" };

	if (c->cli_mask & (1ull << idx))
		w.name = "command line";
	else if (c->set_mask & (1ull << idx))
		w.line = c->set_line[idx];
	return w;
}

static int derive_path(struct hipd_conf *c, const char *key, char *field, size_t size,
		       const char *file, char *err, size_t errlen)
{
	const struct conf_key *k = conf_key_find(key, strlen(key));
	struct conf_where w = key_where(c, "config_dir");
	const char *sep = strcmp(c->config_dir, "/") == 0 ? "" : "/";
	int n;

	if (c->set_mask & (1ull << conf_key_index(k)))
		return 0;
	n = snprintf(field, size, "%s%s%s", c->config_dir, sep, file);
	if (n < 0 || (size_t)n >= size)
		return conf_error(err, errlen, &w, "config_dir: too long to derive %s", key);
	return 0;
}

int hipd_conf_finalize(struct hipd_conf *c, char *err, size_t errlen)
{
	struct conf_where w;
	size_t i;
	int r;

	r = derive_path(c, "hi_file", c->hi_file, sizeof(c->hi_file), "hip_host_key.pem", err,
			errlen);
	if (!r)
		r = derive_path(c, "hosts_file", c->hosts_file, sizeof(c->hosts_file), "hosts",
				err, errlen);
	if (!r && c->state_dir[0] &&
	    !(c->set_mask & (1ull << conf_key_index(conf_key_find("known_hosts_file", 16))))) {
		/* D-27: the pins live with the other state */
		int n = snprintf(c->known_hosts_file, sizeof(c->known_hosts_file), "%s%sknown_hosts",
				 c->state_dir, strcmp(c->state_dir, "/") ? "/" : "");

		if (n < 0 || (size_t)n >= sizeof(c->known_hosts_file)) {
			w = key_where(c, "state_dir");
			r = conf_error(err, errlen, &w, "state_dir: too long to derive "
				       "known_hosts_file");
		}
	}
	if (r)
		return r;
	/* RFC 7401 §5.2.8: NULL-ENCRYPT MUST NOT be offered unless configured */
	if (!c->allow_null_cipher) {
		for (i = 0; i < c->n_hip_ciphers; i++) {
			if (c->hip_ciphers[i] != HIP_CIPHER_NULL)
				continue;
			w = key_where(c, "hip_ciphers");
			return conf_error(err, errlen, &w, "hip_ciphers: 1 (NULL-ENCRYPT) needs "
					  "allow_null_cipher = yes");
		}
		for (i = 0; i < c->n_esp_suites; i++) {
			if (c->esp_suites[i] != HIP_ESP_NULL_SHA256)
				continue;
			w = key_where(c, "esp_suites");
			return conf_error(err, errlen, &w, "esp_suites: 7 (NULL with HMAC-SHA-256) "
					  "needs allow_null_cipher = yes");
		}
	}
	if (c->puzzle_k_max_auto < c->puzzle_k) {
		w = key_where(c, "puzzle_k_max_auto");
		if (!w.line && strcmp(w.name, "command line") != 0)
			w = key_where(c, "puzzle_k");   /* max is the default: blame K */
		return conf_error(err, errlen, &w, "puzzle_k_max_auto (%u) is below puzzle_k (%u)",
				  c->puzzle_k_max_auto, c->puzzle_k);
	}
	if (c->registration_max_lifetime < c->registration_min_lifetime) {
		w = key_where(c, "registration_max_lifetime");
		if (!w.line && strcmp(w.name, "command line") != 0)
			w = key_where(c, "registration_min_lifetime");
		return conf_error(err, errlen, &w, "registration_max_lifetime (%u) is below "
				  "registration_min_lifetime (%u)", c->registration_max_lifetime,
				  c->registration_min_lifetime);
	}
	if (!c->listen_v4 && !c->listen_v6) {
		w = key_where(c, "listen_v6");
		return conf_error(err, errlen, &w, "listen_v4 and listen_v6 are both off: "
				  "nothing to listen on");
	}
	if (strlen(c->control_socket) >= HIPD_SOCKPATH_MAX) {
		w = key_where(c, "control_socket");
		return conf_error(err, errlen, &w, "control_socket: longer than %d characters",
				  HIPD_SOCKPATH_MAX - 1);
	}
	return 0;
}
