/*
 * fw_rules.c - hipfw's rules file (firewall/hipfw.rules.5): one rule per
 * line,
 *
 *     allow|deny [from HIT|any] [to HIT|any] [type T[,T...]|any]
 *                [proto P[,P...]|any] [port N|N-M[,...]]
 *                [dir in|out|forward[,...]|any]
 *     default allow|deny
 *
 * '#' starts a comment. Packet types by name (RFC 7401 §5.3, i1 ... close_ack)
 * or number (1-127); protocols by name (tcp, udp, sctp, icmpv6) or number
 * (1-255); destination ports 0-65535, ranges LOW-HIGH. type is for HIP
 * packets, proto and port for the traffic between HITs (host mode,
 * fw_host.c), so a rule has not both. The text is untrusted input: every line is checked for
 * length and characters, every word for its form; an error names the file,
 * the line and the word.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fw_rules.h"

enum {
	FW_WORDS_MAX = 16,         /* words per line: the longest rule has 13 */
	FW_FILE_MAX = 1 << 20,     /* a rules file larger than this is refused */
};

static const struct {
	const char *name;
	uint8_t type;
} type_names[] = {
	{ "i1", HIP_I1 }, { "r1", HIP_R1 }, { "i2", HIP_I2 }, { "r2", HIP_R2 },
	{ "update", HIP_UPDATE }, { "notify", HIP_NOTIFY }, { "close", HIP_CLOSE },
	{ "close_ack", HIP_CLOSE_ACK },
};

static const struct {
	const char *name, *ipt;    /* in the rules file, for ip6tables */
	uint8_t proto;
} proto_names[] = {
	{ "tcp", "tcp", 6 }, { "udp", "udp", 17 }, { "sctp", "sctp", 132 },
	{ "icmpv6", "ipv6-icmp", 58 },
};

const char *fw_proto_name(uint8_t proto)
{
	size_t i;

	for (i = 0; i < sizeof(proto_names) / sizeof(proto_names[0]); i++)
		if (proto_names[i].proto == proto)
			return proto_names[i].ipt;
	return NULL;
}

const char *fw_type_name(uint8_t type)
{
	size_t i;

	for (i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (type_names[i].type == type)
			return type_names[i].name;
	return NULL;
}

static void fail(char *err, size_t err_len, const char *name, unsigned line,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void fail(char *err, size_t err_len, const char *name, unsigned line, const char *fmt, ...)
{
	char why[FW_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (err && err_len)
		snprintf(err, err_len, "%s:%u: %s", name, line, why);
}

/* The next word of a comma-separated list at *p into word (cap bytes):
 * 0, or -EINVAL for an empty word (",," or a comma at either end) or one
 * too long. */
static int list_next(const char **p, char *word, size_t cap)
{
	size_t n = strcspn(*p, ",");

	if (n == 0 || n >= cap)
		return -EINVAL;
	memcpy(word, *p, n);
	word[n] = '\0';
	*p += n;
	if (**p == ',') {
		(*p)++;
		if (!**p)
			return -EINVAL;
	}
	return 0;
}

static int parse_types(const char *s, uint8_t types[FW_TYPES / 8])
{
	char word[32];
	const char *p = s;
	size_t i;
	char *end;
	long v;

	memset(types, 0, FW_TYPES / 8);
	if (strcmp(s, "any") == 0) {
		memset(types, 0xff, FW_TYPES / 8);
		return 0;
	}
	while (*p) {
		if (list_next(&p, word, sizeof(word)) < 0)
			return -EINVAL;
		for (i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
			if (strcmp(word, type_names[i].name) == 0)
				break;
		if (i < sizeof(type_names) / sizeof(type_names[0])) {
			v = type_names[i].type;
		} else {
			if (word[0] < '0' || word[0] > '9')
				return -EINVAL;
			errno = 0;
			v = strtol(word, &end, 10);
			if (errno || *end || v < 1 || v >= FW_TYPES)
				return -EINVAL;
		}
		types[v / 8] |= (uint8_t)(1u << (v % 8));
	}
	return 0;
}

/* A decimal number lo..hi, all digits: 0 or -EINVAL. */
static int parse_num(const char *s, long lo, long hi, long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || *end || *v < lo || *v > hi ? -EINVAL : 0;
}

static int parse_protos(const char *s, struct fw_rule *r)
{
	char word[16];
	const char *p = s;
	size_t i;
	long v;

	r->nproto = 0;
	if (strcmp(s, "any") == 0)
		return 0;
	while (*p) {
		if (r->nproto == FW_PROTO_MAX || list_next(&p, word, sizeof(word)) < 0)
			return -EINVAL;
		for (i = 0; i < sizeof(proto_names) / sizeof(proto_names[0]); i++)
			if (strcmp(word, proto_names[i].name) == 0 ||
			    strcmp(word, proto_names[i].ipt) == 0)
				break;
		if (i < sizeof(proto_names) / sizeof(proto_names[0]))
			v = proto_names[i].proto;
		else if (parse_num(word, 1, 255, &v) < 0)
			return -EINVAL;
		r->proto[r->nproto++] = (uint8_t)v;
	}
	return 0;
}

static int parse_ports(const char *s, struct fw_rule *r)
{
	char word[16], *dash;
	const char *p = s;
	long lo, hi;

	r->nport = 0;
	while (*p) {
		if (r->nport == FW_PORT_MAX || list_next(&p, word, sizeof(word)) < 0)
			return -EINVAL;
		dash = strchr(word, '-');
		if (dash)
			*dash = '\0';
		if (parse_num(word, 0, 65535, &lo) < 0)
			return -EINVAL;
		hi = lo;
		if (dash && (parse_num(dash + 1, lo, 65535, &hi) < 0))
			return -EINVAL;
		r->port[r->nport].lo = (uint16_t)lo;
		r->port[r->nport].hi = (uint16_t)hi;
		r->nport++;
	}
	return r->nport ? 0 : -EINVAL;
}

/* Ports only with protocols that have them, all of them (ip6tables --dport). */
static bool ports_fit(const struct fw_rule *r)
{
	size_t i;

	if (!r->nport)
		return true;
	if (!r->nproto)
		return false;
	for (i = 0; i < r->nproto; i++)
		if (r->proto[i] != 6 && r->proto[i] != 17 && r->proto[i] != 132)
			return false;
	return true;
}

static int parse_dirs(const char *s, uint8_t *dirs)
{
	static const struct { const char *name; uint8_t bit; } names[] = {
		{ "in", FW_DIR_IN }, { "out", FW_DIR_OUT }, { "forward", FW_DIR_FWD },
		{ "any", FW_DIR_ANY },
	};
	char word[16];
	const char *p = s;
	size_t i;

	*dirs = 0;
	while (*p) {
		if (list_next(&p, word, sizeof(word)) < 0)
			return -EINVAL;
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strcmp(word, names[i].name) == 0)
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return -EINVAL;
		*dirs |= names[i].bit;
	}
	return *dirs ? 0 : -EINVAL;
}

static int parse_hit(const char *s, bool *any, struct hip_hit *hit)
{
	*any = strcmp(s, "any") == 0;
	if (*any)
		return 0;
	return hip_hit_from_str(s, hit) == 0 ? 0 : -EINVAL;
}

/* One line split into words; returns the count or -E2BIG. */
static int split(char *line, char *word[FW_WORDS_MAX])
{
	int n = 0;
	char *save = NULL, *w;

	for (w = strtok_r(line, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (n == FW_WORDS_MAX)
			return -E2BIG;
		word[n++] = w;
	}
	return n;
}

static int parse_rule(char *word[], int n, struct fw_rule *r, const char *name,
		      unsigned line, char *err, size_t err_len)
{
	bool seen_from = false, seen_to = false, seen_type = false, seen_dir = false;
	bool seen_proto = false, seen_port = false;
	bool *seen;
	int i, ret;

	memset(r, 0, sizeof(*r));
	r->action = strcmp(word[0], "allow") == 0 ? FW_ALLOW : FW_DENY;
	r->any_from = r->any_to = true;
	r->dirs = FW_DIR_ANY;
	memset(r->types, 0xff, sizeof(r->types));
	r->line = line;
	for (i = 1; i < n; i += 2) {
		const char *key = word[i];

		if (strcmp(key, "from") == 0)
			seen = &seen_from;
		else if (strcmp(key, "to") == 0)
			seen = &seen_to;
		else if (strcmp(key, "type") == 0)
			seen = &seen_type;
		else if (strcmp(key, "dir") == 0)
			seen = &seen_dir;
		else if (strcmp(key, "proto") == 0)
			seen = &seen_proto;
		else if (strcmp(key, "port") == 0)
			seen = &seen_port;
		else {
			fail(err, err_len, name, line,
			     "unknown word '%s' (from, to, type, proto, port or dir)", key);
			return -EINVAL;
		}
		if (*seen) {
			fail(err, err_len, name, line, "'%s' given twice", key);
			return -EINVAL;
		}
		*seen = true;
		if (i + 1 >= n) {
			fail(err, err_len, name, line, "'%s' needs a value", key);
			return -EINVAL;
		}
		if (seen == &seen_from)
			ret = parse_hit(word[i + 1], &r->any_from, &r->from);
		else if (seen == &seen_to)
			ret = parse_hit(word[i + 1], &r->any_to, &r->to);
		else if (seen == &seen_type)
			ret = parse_types(word[i + 1], r->types);
		else if (seen == &seen_proto)
			ret = parse_protos(word[i + 1], r);
		else if (seen == &seen_port)
			ret = parse_ports(word[i + 1], r);
		else
			ret = parse_dirs(word[i + 1], &r->dirs);
		if (ret < 0) {
			fail(err, err_len, name, line, "bad %s '%s'%s", key, word[i + 1],
			     seen == &seen_from || seen == &seen_to ?
			     " (a HIT, 2001:20::/28, or any)" :
			     seen == &seen_type ? " (i1, r1, i2, r2, update, notify, close, "
			     "close_ack, 1-127, comma-separated, or any)" :
			     seen == &seen_proto ? " (tcp, udp, sctp, icmpv6, 1-255, at most 4 "
			     "comma-separated, or any)" :
			     seen == &seen_port ? " (0-65535 or LOW-HIGH, at most 8 "
			     "comma-separated)" :
			     " (in, out, forward, comma-separated, or any)");
			return -EINVAL;
		}
	}
	if (seen_type && (seen_proto || seen_port)) {
		fail(err, err_len, name, line, "'type' is for HIP packets, 'proto' and 'port' for "
		     "traffic between HITs: not both");
		return -EINVAL;
	}
	if (!ports_fit(r)) {
		fail(err, err_len, name, line, "'port' needs 'proto' tcp, udp or sctp");
		return -EINVAL;
	}
	r->hip_only = seen_type;
	r->data_only = seen_proto || seen_port;
	return 0;
}

static int parse_line(char *text, struct fw_rules *out, const char *name, unsigned line,
		      char *err, size_t err_len)
{
	char *word[FW_WORDS_MAX], *hash = strchr(text, '#');
	const unsigned char *c;
	int n;

	if (hash)
		*hash = '\0';
	for (c = (const unsigned char *)text; *c; c++) {
		if ((*c < 0x20 && *c != '\t') || *c == 0x7f) {
			fail(err, err_len, name, line, "control character 0x%02x", *c);
			return -EINVAL;
		}
	}
	n = split(text, word);
	if (n < 0) {
		fail(err, err_len, name, line, "too many words (at most %d)", FW_WORDS_MAX);
		return -EINVAL;
	}
	if (n == 0)
		return 0;
	if (strcmp(word[0], "default") == 0) {
		if (n != 2 || (strcmp(word[1], "allow") && strcmp(word[1], "deny"))) {
			fail(err, err_len, name, line, "'default' takes allow or deny");
			return -EINVAL;
		}
		if (out->policy_line) {
			fail(err, err_len, name, line, "a second 'default' (the first on line %u)",
			     out->policy_line);
			return -EINVAL;
		}
		out->policy = strcmp(word[1], "allow") == 0 ? FW_ALLOW : FW_DENY;
		out->policy_line = line;
		return 0;
	}
	if (strcmp(word[0], "allow") && strcmp(word[0], "deny")) {
		fail(err, err_len, name, line, "a rule starts with allow, deny or default, not '%s'",
		     word[0]);
		return -EINVAL;
	}
	if (out->n == FW_RULES_MAX) {
		fail(err, err_len, name, line, "more than %d rules", FW_RULES_MAX);
		return -EINVAL;
	}
	if (parse_rule(word, n, &out->rule[out->n], name, line, err, err_len) < 0)
		return -EINVAL;
	out->n++;
	return 0;
}

int fw_rules_parse(const char *text, size_t len, const char *name, struct fw_rules *out,
		   char *err, size_t err_len)
{
	char buf[FW_LINE_MAX + 1];
	unsigned line = 0;
	size_t pos = 0, n;
	const char *nl;

	memset(out, 0, sizeof(*out));
	out->policy = FW_DENY;
	if (err && err_len)
		err[0] = '\0';
	if (memchr(text, '\0', len)) {
		fail(err, err_len, name, 0, "a NUL byte: not a text file");
		return -EINVAL;
	}
	while (pos < len) {
		line++;
		nl = memchr(text + pos, '\n', len - pos);
		n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		if (n >= FW_LINE_MAX) {
			fail(err, err_len, name, line, "line longer than %d bytes", FW_LINE_MAX - 1);
			return -EINVAL;
		}
		memcpy(buf, text + pos, n);
		buf[n] = '\0';
		if (n && buf[n - 1] == '\r')
			buf[n - 1] = '\0';
		if (parse_line(buf, out, name, line, err, err_len) < 0)
			return -EINVAL;
		pos += n + (nl != NULL);
	}
	return 0;
}

int fw_rules_load(const char *path, struct fw_rules *out, char *err, size_t err_len)
{
	char *text = NULL;
	size_t len = 0;
	ssize_t r;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		return ret;
	}
	text = malloc(FW_FILE_MAX + 1);
	if (!text) {
		ret = -ENOMEM;
		goto out;
	}
	while ((r = read(fd, text + len, FW_FILE_MAX + 1 - len)) > 0) {
		len += (size_t)r;
		if (len > FW_FILE_MAX)
			break;
	}
	if (r < 0) {
		ret = -errno;
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (len > FW_FILE_MAX) {
		ret = -EFBIG;
		snprintf(err, err_len, "%s: larger than %d bytes", path, FW_FILE_MAX);
		goto out;
	}
	ret = fw_rules_parse(text, len, path, out, err, err_len);
out:
	free(text);
	close(fd);
	return ret;
}

static bool rule_matches(const struct fw_rule *r, const struct fw_match *m)
{
	return (r->dirs & m->dir) && (r->types[m->type / 8] & (1u << (m->type % 8))) &&
	       (r->any_from || (m->sender && hip_hit_cmp(&r->from, m->sender) == 0)) &&
	       (r->any_to || (m->receiver && hip_hit_cmp(&r->to, m->receiver) == 0));
}

const struct fw_rule *fw_rules_decide(struct fw_rules *r, const struct fw_match *m,
				      enum fw_action *action)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		/* rules for the traffic between HITs are the kernel's (fw_host.c) */
		if (m->type < FW_TYPES && !r->rule[i].data_only && rule_matches(&r->rule[i], m)) {
			r->rule[i].hits++;
			*action = r->rule[i].action;
			return &r->rule[i];
		}
	}
	r->policy_hits++;
	*action = r->policy;
	return NULL;
}
