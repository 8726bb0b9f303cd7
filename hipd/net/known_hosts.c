/*
 * known_hosts.c - the opportunistic pins (known_hosts.h): an array of pins
 * in order plus an index of their positions sorted by address. Additions
 * and removals move the index (at most KNOWN_HOSTS_MAX entries of 4 bytes),
 * lookups are binary searches.
 */
#include "known_hosts.h"
#include "hosts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hosts_line.h"

enum { KNOWN_HOSTS_MIN_CAP = 16, KNOWN_HOSTS_DATE_LEN = 24 };

struct known_hosts {
	struct known_host *pin;         /* in order: the file's, then runtime additions */
	uint32_t *by_addr;              /* positions in pin[], sorted by address */
	size_t count, cap;
};

#define KNOWN_HOSTS_USAGE "expected 'ADDRESS HIT [since=UNIXSECONDS]'"

int known_hosts_create(struct known_hosts **out)
{
	struct known_hosts *k = calloc(1, sizeof(*k));

	if (!k)
		return -ENOMEM;
	*out = k;
	return 0;
}

static void table_clear(struct known_hosts *k)
{
	free(k->pin);
	free(k->by_addr);
	k->pin = NULL;
	k->by_addr = NULL;
	k->count = k->cap = 0;
}

void known_hosts_free(struct known_hosts *k)
{
	if (!k)
		return;
	table_clear(k);
	free(k);
}

static int addr_cmp(const struct hip_addr *a, const struct hip_addr *b)
{
	return memcmp(a->in6.s6_addr, b->in6.s6_addr, sizeof(a->in6.s6_addr));
}

/* Index position of addr's pin, or where it would go (*found false). */
static size_t lower_bound(const struct known_hosts *k, const struct hip_addr *addr, bool *found)
{
	size_t lo = 0, hi = k->count;

	*found = false;
	if (!k->count || !k->pin || !k->by_addr)
		return 0;       /* empty (the analyzer cannot tie count to the arrays) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr_cmp(&k->pin[k->by_addr[mid]].addr, addr) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < k->count && addr_cmp(&k->pin[k->by_addr[lo]].addr, addr) == 0;
	return lo;
}

static int reserve(struct known_hosts *k)
{
	struct known_host *pin;
	uint32_t *idx;
	size_t cap;

	if (k->count < k->cap)
		return 0;
	cap = k->cap ? k->cap * 2 : KNOWN_HOSTS_MIN_CAP;
	if (cap > KNOWN_HOSTS_MAX)
		cap = KNOWN_HOSTS_MAX;
	pin = realloc(k->pin, cap * sizeof(*pin));
	if (!pin)
		return -ENOMEM;
	k->pin = pin;
	idx = realloc(k->by_addr, cap * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	k->by_addr = idx;
	k->cap = cap;
	return 0;
}

/* Append p; -EEXIST (*dup: the pin there) or -ENOSPC or -ENOMEM. */
static int insert(struct known_hosts *k, const struct known_host *p, const struct known_host **dup)
{
	bool found;
	size_t pos = lower_bound(k, &p->addr, &found);
	int r;

	if (found) {
		if (dup && k->pin && k->by_addr)
			*dup = &k->pin[k->by_addr[pos]];
		return -EEXIST;
	}
	if (k->count == KNOWN_HOSTS_MAX)
		return -ENOSPC;
	r = reserve(k);
	if (r)
		return r;
	k->pin[k->count] = *p;
	memmove(&k->by_addr[pos + 1], &k->by_addr[pos], (k->count - pos) * sizeof(k->by_addr[0]));
	k->by_addr[pos] = (uint32_t)k->count;
	k->count++;
	return 0;
}

const struct known_host *known_hosts_find(const struct known_hosts *k,
					  const struct hip_addr *addr)
{
	bool found;
	size_t pos = lower_bound(k, addr, &found);

	return found ? &k->pin[k->by_addr[pos]] : NULL;
}

size_t known_hosts_count(const struct known_hosts *k)
{
	return k->count;
}

const struct known_host *known_hosts_at(const struct known_hosts *k, size_t i)
{
	return i < k->count ? &k->pin[i] : NULL;
}

int known_hosts_add(struct known_hosts *k, const struct hip_addr *addr,
		    const struct hip_hit *hit, uint64_t since)
{
	struct known_host p = { .addr = *addr, .hit = *hit, .since = since, .line = 0 };

	if (hip_addr_locator_problem(addr) || !hip_hit_is_orchid(hit) ||
	    since > KNOWN_HOSTS_SINCE_MAX)
		return -EINVAL;
	return insert(k, &p, NULL);
}

int known_hosts_del(struct known_hosts *k, const struct hip_addr *addr)
{
	bool found;
	size_t pos = lower_bound(k, addr, &found), i;
	uint32_t at;

	if (!found)
		return -ENOENT;
	at = k->by_addr[pos];
	memmove(&k->pin[at], &k->pin[at + 1], (k->count - at - 1) * sizeof(k->pin[0]));
	memmove(&k->by_addr[pos], &k->by_addr[pos + 1],
		(k->count - pos - 1) * sizeof(k->by_addr[0]));
	k->count--;
	for (i = 0; i < k->count; i++)
		if (k->by_addr[i] > at)
			k->by_addr[i]--;
	return 0;
}

/* ---- the file ---- */

/* "since=N": decimal digits only, at most KNOWN_HOSTS_SINCE_MAX. */
static int parse_since(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > KNOWN_HOSTS_SINCE_MAX)
			return -ERANGE;
	}
	*out = v;
	return 0;
}

/* One line (NUL-terminated, modified in place) into *p. 1 for a blank or
 * comment line. */
static int parse_line(char *line, struct known_host *p, const char *name, unsigned ln,
		      char *err, size_t errlen)
{
	char *save = NULL, *w, *hash = strchr(line, '#');
	const char *addr_word, *why;
	char q[64];
	bool has_since = false;
	int r;

	if (hash)
		*hash = '\0';
	addr_word = strtok_r(line, " \t\r", &save);
	if (!addr_word)
		return 1;
	memset(p, 0, sizeof(*p));
	p->line = ln;
	if (hip_addr_from_str(addr_word, &p->addr) != 0)
		return hosts_error(err, errlen, name, ln, "'%s' is not an IP address",
				   hip_hosts_quote(addr_word, q, sizeof(q)));
	why = hip_addr_locator_problem(&p->addr);
	if (why)
		return hosts_error(err, errlen, name, ln, "address '%s' is %s",
				   hip_hosts_quote(addr_word, q, sizeof(q)), why);
	w = strtok_r(NULL, " \t\r", &save);
	if (!w)
		return hosts_error(err, errlen, name, ln, "no HIT after '%s' ("
				   KNOWN_HOSTS_USAGE ")", hip_hosts_quote(addr_word, q, sizeof(q)));
	r = hip_hit_from_str(w, &p->hit);
	if (r)
		return hosts_error(err, errlen, name, ln, "'%s' is not a HIT (%s)",
				   hip_hosts_quote(w, q, sizeof(q)),
				   r == -EDOM ? "not in 2001:20::/28" : "not an IPv6 address");
	while ((w = strtok_r(NULL, " \t\r", &save)) != NULL) {
		if (strncmp(w, "since=", 6) != 0)
			return hosts_error(err, errlen, name, ln, "unknown word '%s' ("
					   KNOWN_HOSTS_USAGE ")", hip_hosts_quote(w, q, sizeof(q)));
		if (has_since)
			return hosts_error(err, errlen, name, ln, "since= is given twice");
		r = parse_since(w + 6, &p->since);
		if (r == -ERANGE)
			return hosts_error(err, errlen, name, ln,
					   "'%s' is out of range (at most %llu)",
					   hip_hosts_quote(w, q, sizeof(q)),
					   (unsigned long long)KNOWN_HOSTS_SINCE_MAX);
		if (r)
			return hosts_error(err, errlen, name, ln, "'%s' is not a time in Unix "
					   "seconds", hip_hosts_quote(w, q, sizeof(q)));
		has_since = true;
	}
	return 0;
}

int known_hosts_load_buf(struct known_hosts *k, const char *name, const char *buf, size_t len,
			 char *err, size_t errlen)
{
	char line[KNOWN_HOSTS_LINE_MAX + 1];
	struct known_hosts tmp = { 0 };
	size_t pos = 0;
	unsigned ln = 0;
	int r = 0;

	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		const struct known_host *dup = NULL;
		struct known_host p;

		ln++;
		if (ll > KNOWN_HOSTS_LINE_MAX) {
			r = hosts_error(err, errlen, name, ln, "line longer than %d characters",
					KNOWN_HOSTS_LINE_MAX);
			goto out;
		}
		memcpy(line, buf + pos, ll);
		line[ll] = '\0';
		pos += ll + (nl ? 1 : 0);
		if (strlen(line) != ll) {
			r = hosts_error(err, errlen, name, ln, "NUL byte in line");
			goto out;
		}
		r = parse_line(line, &p, name, ln, err, errlen);
		if (r == 1) {
			r = 0;
			continue;
		}
		if (r)
			goto out;
		r = insert(&tmp, &p, &dup);
		if (r == -EEXIST) {
			char as[INET6_ADDRSTRLEN];

			r = hosts_error(err, errlen, name, ln, "%s is pinned twice (line %u)",
					hip_addr_to_str(&p.addr, as, sizeof(as)),
					dup ? dup->line : 0);
			goto out;
		}
		if (r == -ENOSPC) {
			r = hosts_error(err, errlen, name, ln, "more than %d pins",
					KNOWN_HOSTS_MAX);
			goto out;
		}
		if (r) {
			hosts_error(err, errlen, name, ln, "out of memory");
			goto out;
		}
	}
	/* commit: swap, the old table is freed below */
	{
		struct known_hosts old = *k;

		*k = tmp;
		tmp = old;
	}
out:
	table_clear(&tmp);
	return r;
}

int known_hosts_load_file(struct known_hosts *k, const char *path, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	int r = hosts_file_read(path, KNOWN_HOSTS_FILE_MAX, &buf, &len, err, errlen);

	if (r == -ENOENT)       /* nothing pinned yet */
		return known_hosts_load_buf(k, path, "", 0, err, errlen);
	if (r == 0)
		r = known_hosts_load_buf(k, path, buf, len, err, errlen);
	free(buf);
	return r;
}

/* ---- saving ---- */

static const char known_hosts_header[] =
	"# known_hosts - HITs pinned to IP addresses by hipd's opportunistic mode\n"
	"# (RFC 7401 section 4.1.8; hip-hosts(5), KNOWN HOSTS). Written by hipd.\n"
	"# One pin a line: ADDRESS HIT [since=UNIXSECONDS]. hipd refuses a peer at a\n"
	"# pinned address that shows another HIT; remove the pin to accept it.\n"
	"# The date after '#' is for people: loading ignores it.\n";

/* The whole file text; *len its length. NULL without memory. */
static char *render(const struct known_hosts *k, size_t *len)
{
	/* address (46) HIT (40) since= (26) date comment (28), blanks, newline */
	size_t cap = sizeof(known_hosts_header) + k->count * 160, n;
	char *text = malloc(cap), *p;
	size_t i;

	if (!text)
		return NULL;
	memcpy(text, known_hosts_header, sizeof(known_hosts_header) - 1);
	n = sizeof(known_hosts_header) - 1;
	for (i = 0; i < k->count; i++) {
		const struct known_host *h = &k->pin[i];
		char as[INET6_ADDRSTRLEN], hs[HIP_HIT_STR_LEN], date[KNOWN_HOSTS_DATE_LEN];
		time_t t = (time_t)h->since;
		struct tm tm;

		p = text + n;
		hip_addr_to_str(&h->addr, as, sizeof(as));
		hip_hit_to_str(&h->hit, hs, sizeof(hs));
		if (h->since == 0)
			n += (size_t)snprintf(p, cap - n, "%s %s\n", as, hs);
		else if (!gmtime_r(&t, &tm) ||
			 strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
			n += (size_t)snprintf(p, cap - n, "%s %s since=%llu\n", as, hs,
					      (unsigned long long)h->since);
		else
			n += (size_t)snprintf(p, cap - n, "%s %s since=%llu  # %s\n", as, hs,
					      (unsigned long long)h->since, date);
	}
	*len = n;
	return text;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The rename is durable once the directory is synced; best effort. */
static void sync_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd;

	if (!slash)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path));
	if (!dir)
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(dir);
}

int known_hosts_save(const struct known_hosts *k, const char *path)
{
	char *tmp = NULL, *text = NULL;
	size_t tlen = strlen(path) + sizeof(".XXXXXX"), len;
	int fd, r;

	tmp = malloc(tlen);
	text = tmp ? render(k, &len) : NULL;
	if (!text) {
		r = -ENOMEM;
		goto out;
	}
	snprintf(tmp, tlen, "%s.XXXXXX", path);
	/* mkostemp opens with O_CREAT|O_EXCL; fchmod: 0644 whatever the umask */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		free(tmp);
		tmp = NULL;             /* nothing to remove */
		goto out;
	}
	r = fchmod(fd, 0644) != 0 ? -errno : 0;
	if (r == 0)
		r = write_all(fd, text, len);
	if (r == 0 && fsync(fd) != 0)
		r = -errno;
	if (close(fd) != 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) != 0)
		r = -errno;
	if (r == 0)
		sync_dir_of(path);
out:
	if (r && tmp)
		unlink(tmp);
	free(tmp);
	free(text);
	return r;
}
