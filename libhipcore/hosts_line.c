/*
 * hosts_line.c - split one hosts-file line (hosts_line.h, D-19).
 */
#include "hosts_line.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct hip_lsi_range default_range = HIP_LSI_RANGE_DEFAULT;

static int line_error(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int line_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

const char *hip_hosts_quote(const char *s, char *buf, size_t len)
{
	size_t i;

	if (len < 5) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	for (i = 0; s[i] && i + 4 < len; i++)
		buf[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	if (s[i]) {
		memcpy(buf + i, "...", 3);
		i += 3;
	}
	buf[i] = '\0';
	return buf;
}

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static char lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* ASCII-only, locale-free: the NSS module runs in any process. */
static bool eq_nocase(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (lower(a[i]) != lower(b[i]))
			return false;
	return true;
}

const char *hip_hosts_name_problem(const char *name)
{
	size_t len = strlen(name), start = 0, i;
	const size_t sl = sizeof(HIP_HOSTS_SUFFIX) - 1;
	bool digits_only = true;

	if (len == 0)
		return "is empty";
	if (len > HIP_HOSTS_NAME_MAX)
		return "is longer than 253 characters";
	for (i = 0; i <= len; i++) {
		char c = name[i];

		if (c == '.' || c == '\0') {
			if (i == start)
				return "has an empty label";
			if (i - start > HIP_HOSTS_LABEL_MAX)
				return "has a label longer than 63 characters";
			if (name[start] == '-' || name[i - 1] == '-')
				return "has a label that starts or ends with '-'";
			if (c == '.') {
				start = i + 1;
				digits_only = true;
			}
			continue;
		}
		if (!is_alnum(c) && c != '-')
			return "has a character other than letters, digits, '-' and '.'";
		if (c < '0' || c > '9')
			digits_only = false;
	}
	if (digits_only)
		return "ends in an all-digit label (it would read as an address)";
	if (len > sl && eq_nocase(name + len - sl, HIP_HOSTS_SUFFIX, sl))
		return "ends in " HIP_HOSTS_SUFFIX " (write it without: NAME" HIP_HOSTS_SUFFIX
		       " is implied)";
	return NULL;
}

bool hip_hosts_name_matches(const char *name, const char *want)
{
	size_t nl = strlen(name), wl = strlen(want);
	const size_t sl = sizeof(HIP_HOSTS_SUFFIX) - 1;

	if (wl == nl)
		return eq_nocase(name, want, nl);
	return wl == nl + sl && eq_nocase(name, want, nl) &&
	       eq_nocase(want + nl, HIP_HOSTS_SUFFIX, sl);
}

static uint32_t be32(const uint8_t b[4])
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static uint32_t prefix_mask(unsigned prefix)
{
	return prefix == 0 ? 0 : 0xffffffffu << (32 - prefix);
}

const char *hip_hosts_lsi_problem(const uint8_t lsi[4], const struct hip_lsi_range *range)
{
	uint32_t a = be32(lsi), mask;

	if (!range)
		range = &default_range;
	mask = prefix_mask(range->prefix);
	if (lsi[0] == 0 || lsi[0] == 127 || lsi[0] >= 224)
		return "not a unicast address";
	if ((a & mask) != be32(range->net))
		return "outside the LSI range";
	if (range->prefix > 0 && range->prefix <= 30 && ((a & ~mask) == 0 || (a | mask) == 0xffffffffu))
		return "the network or broadcast address of the LSI range";
	return NULL;
}

int hip_lsi_range_from_str(const char *s, struct hip_lsi_range *out)
{
	char buf[INET_ADDRSTRLEN], *end;
	const char *slash = strchr(s, '/');
	struct in_addr a;
	unsigned long p;
	size_t n;

	if (!slash || slash == s || (n = (size_t)(slash - s)) >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (inet_pton(AF_INET, buf, &a) != 1 || slash[1] < '0' || slash[1] > '9')
		return -EINVAL;
	errno = 0;
	p = strtoul(slash + 1, &end, 10);
	if (errno || *end || p > 32)
		return -EINVAL;
	memcpy(out->net, &a, 4);
	out->prefix = (unsigned)p;
	if ((be32(out->net) & ~prefix_mask(out->prefix)) != 0)
		return -EINVAL;
	return 0;
}

/* ORCHIDv2 prefix 2001:20::/28 (RFC 7343 §2), as hip_hit_is_orchid. */
static bool is_orchid(const uint8_t b[16])
{
	return b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x00 && (b[3] & 0xf0) == 0x20;
}

static int parse_keyword(char *w, const struct hip_lsi_range *range,
			 struct hip_hosts_line *out, char *err, size_t errlen)
{
	char q[64], rs[INET_ADDRSTRLEN];
	const char *why;
	struct in_addr a;

	if (strncmp(w, "name=", 5) == 0) {
		why = hip_hosts_name_problem(w + 5);
		if (why)
			return line_error(err, errlen, "name '%s' %s",
					  hip_hosts_quote(w + 5, q, sizeof(q)), why);
		if (out->n_names == HIP_HOSTS_MAX_WORDS)
			return line_error(err, errlen, "more than %d names for one HIT",
					  HIP_HOSTS_MAX_WORDS);
		out->name[out->n_names++] = w + 5;
		return 0;
	}
	/* lsi= */
	if (out->has_lsi)
		return line_error(err, errlen, "more than one LSI for one HIT");
	if (inet_pton(AF_INET, w + 4, &a) != 1)
		return line_error(err, errlen, "LSI '%s' is not an IPv4 address (A.B.C.D)",
				  hip_hosts_quote(w + 4, q, sizeof(q)));
	memcpy(out->lsi, &a, 4);
	if (!range)
		range = &default_range;
	why = hip_hosts_lsi_problem(out->lsi, range);
	if (why)
		return line_error(err, errlen, "LSI %s is %s %s/%u", w + 4, why,
				  inet_ntop(AF_INET, range->net, rs, sizeof(rs)) ? rs : "?",
				  range->prefix);
	out->has_lsi = true;
	return 0;
}

int hip_hosts_line_parse(char *line, const struct hip_lsi_range *range,
			 struct hip_hosts_line *out, char *err, size_t errlen)
{
	char *p, *save = NULL, q[64];
	struct in6_addr hit;
	bool first = true;
	int r;

	memset(out, 0, sizeof(*out));
	p = strchr(line, '#');
	if (p)
		*p = '\0';
	for (p = strtok_r(line, " \t\r", &save); p; p = strtok_r(NULL, " \t\r", &save)) {
		if (first) {
			first = false;
			if (inet_pton(AF_INET6, p, &hit) != 1)
				return line_error(err, errlen, "'%s' is not a HIT (expected an "
						  "IPv6 address in 2001:20::/28)",
						  hip_hosts_quote(p, q, sizeof(q)));
			if (!is_orchid(hit.s6_addr))
				return line_error(err, errlen, "'%s' is not a HIT: not in the "
						  "ORCHIDv2 prefix 2001:20::/28",
						  hip_hosts_quote(p, q, sizeof(q)));
			memcpy(out->hit, hit.s6_addr, 16);
			continue;
		}
		if (strncmp(p, "name=", 5) == 0 || strncmp(p, "lsi=", 4) == 0) {
			r = parse_keyword(p, range, out, err, errlen);
			if (r)
				return r;
			continue;
		}
		if (strchr(p, '='))
			return line_error(err, errlen, "unknown keyword in '%s' (expected name= "
					  "or lsi=)", hip_hosts_quote(p, q, sizeof(q)));
		if (out->n_loc == HIP_HOSTS_MAX_WORDS)
			return line_error(err, errlen, "more than %d locators for one HIT",
					  HIP_HOSTS_MAX_WORDS);
		out->loc[out->n_loc++] = p;
	}
	return first ? 1 : 0;
}
