/*
 * reg_allow.c - the registrar's allow-list (hipd.conf registration_allow_file,
 * hipd.conf(5)): the HITs that may register, one per line. Without the
 * file any host that completes a base exchange may register (RFC 8003
 * §3.3 leaves the policy to the registrar). Kept sorted: a lookup is a
 * binary search.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reg.h"

enum {
	ALLOW_LINE_MAX = 255,
	ALLOW_FILE_MAX = 4 << 20,
};

struct reg_allow {
	size_t n;
	struct hip_hit hit[];
};

static int allow_error(char *err, size_t errlen, const char *name, unsigned line,
		       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int allow_error(char *err, size_t errlen, const char *name, unsigned line,
		       const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(err, errlen, "%s:%u: %s", name, line, msg);
	else
		snprintf(err, errlen, "%s: %s", name, msg);
	return -EINVAL;
}

static int hit_cmp(const void *a, const void *b)
{
	return memcmp(((const struct hip_hit *)a)->b, ((const struct hip_hit *)b)->b,
		      HIP_HIT_LEN);
}

/* The first field of a line, trimmed, comments removed; "" for none. */
static void line_field(const char *s, size_t len, char *out, size_t cap, bool *extra)
{
	size_t i = 0, n = 0;

	*extra = false;
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
		i++;
	while (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '#') {
		if (n + 1 < cap)
			out[n] = s[i];
		n++;
		i++;
	}
	out[n < cap ? n : cap - 1] = '\0';
	if (n >= cap)
		out[0] = '\x01';   /* too long: never a HIT */
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
		i++;
	*extra = i < len && s[i] != '#';
}

int reg_allow_parse(struct reg_allow **out, const char *name, const char *buf, size_t len,
		    char *err, size_t errlen)
{
	struct reg_allow *a = NULL;
	char tok[64];
	size_t pos = 0, cap = 0;
	unsigned line = 0;
	int ret = 0;

	*out = NULL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		struct hip_hit h;
		bool extra;

		line++;
		if (ll > ALLOW_LINE_MAX) {
			ret = allow_error(err, errlen, name, line, "line longer than %d characters",
					  ALLOW_LINE_MAX);
			goto out;
		}
		if (memchr(buf + pos, '\0', ll)) {
			ret = allow_error(err, errlen, name, line, "NUL byte in line");
			goto out;
		}
		line_field(buf + pos, ll, tok, sizeof(tok), &extra);
		pos += ll + (nl ? 1 : 0);
		if (tok[0] == '\0')
			continue;
		if (extra) {
			ret = allow_error(err, errlen, name, line, "one HIT per line");
			goto out;
		}
		if (hip_hit_from_str(tok, &h) < 0) {
			size_t i;

			for (i = 0; tok[i]; i++)     /* printable text only in messages */
				if (tok[i] < 0x21 || tok[i] > 0x7e)
					tok[i] = '?';
			ret = allow_error(err, errlen, name, line, "'%.40s%s' is not a HIT", tok,
					  strlen(tok) > 40 ? "..." : "");
			goto out;
		}
		if (a->n == REG_ALLOW_MAX) {
			ret = allow_error(err, errlen, name, line, "more than %d HITs",
					  REG_ALLOW_MAX);
			goto out;
		}
		if (a->n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct reg_allow *b = realloc(a, sizeof(*a) + ncap * sizeof(a->hit[0]));

			if (!b) {
				ret = -ENOMEM;
				goto out;
			}
			a = b;
			cap = ncap;
		}
		a->hit[a->n++] = h;
	}
	qsort(a->hit, a->n, sizeof(a->hit[0]), hit_cmp);
out:
	if (ret < 0) {
		free(a);
		return ret;
	}
	*out = a;
	return 0;
}

int reg_allow_load(struct reg_allow **out, const char *path, char *err, size_t errlen)
{
	struct stat st;
	char *buf = NULL;
	ssize_t n;
	int fd, ret;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		allow_error(err, errlen, path, 0, "%s", strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		ret = allow_error(err, errlen, path, 0, "not a regular file");
		goto out;
	}
	if (st.st_size > ALLOW_FILE_MAX) {
		ret = allow_error(err, errlen, path, 0, "larger than %d bytes", ALLOW_FILE_MAX);
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	n = read(fd, buf, (size_t)st.st_size + 1);
	if (n < 0 || n > st.st_size) {
		ret = allow_error(err, errlen, path, 0, "read failed");
		goto out;
	}
	ret = reg_allow_parse(out, path, buf, (size_t)n, err, errlen);
out:
	free(buf);
	close(fd);
	return ret;
}

void reg_allow_free(struct reg_allow *a)
{
	free(a);
}

bool reg_allow_has(const struct reg_allow *a, const struct hip_hit *hit)
{
	return a && bsearch(hit, a->hit, a->n, sizeof(a->hit[0]), hit_cmp) != NULL;
}

size_t reg_allow_count(const struct reg_allow *a)
{
	return a ? a->n : 0;
}
