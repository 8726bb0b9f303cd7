/*
 * hosts.c - HIT -> locators: open-addressing hash table (linear probing,
 * backward-shift deletion, power-of-two size) of pointers to entries.
 */
#include "hosts.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "lsi.h"

enum { HOSTS_LINE_MAX = HIP_HOSTS_LINE_MAX, HOSTS_FILE_MAX = 1024 * 1024, HOSTS_MIN_CAP = 16 };

struct hosts {
	struct hosts_entry **slot;
	size_t cap;          /* power of two */
	size_t count;
	struct hip_lsi_range lsi_range;
	struct lsi_table *lsi;  /* LSIs in use (D-20); kept across loads */
};

/* HITs are hash outputs already (ORCHID, RFC 7343) and the map is filled
 * by the administrator, so a plain mix of the 96 hash bits suffices. */
static size_t hit_hash(const struct hip_hit *hit)
{
	uint64_t a, b;

	memcpy(&a, hit->b, 8);
	memcpy(&b, hit->b + 8, 8);
	a ^= b * 0x9e3779b97f4a7c15ull;
	a ^= a >> 31;
	a *= 0xbf58476d1ce4e5b9ull;
	a ^= a >> 29;
	return (size_t)a;
}

static int table_init(struct hosts *h, size_t cap)
{
	h->slot = calloc(cap, sizeof(*h->slot));
	if (!h->slot)
		return -ENOMEM;
	h->cap = cap;
	h->count = 0;
	return 0;
}

int hosts_create(struct hosts **out)
{
	struct hosts *h = calloc(1, sizeof(*h));

	const struct hip_lsi_range def = HIP_LSI_RANGE_DEFAULT;

	if (!h || table_init(h, HOSTS_MIN_CAP) != 0) {
		free(h);
		return -ENOMEM;
	}
	if (lsi_table_create(&h->lsi, &def) != 0) {
		free(h->slot);
		free(h);
		return -ENOMEM;
	}
	h->lsi_range = def;
	*out = h;
	return 0;
}

static void entry_free(struct hosts_entry *e)
{
	if (e)
		free(e->names);
	free(e);
}

static void table_clear(struct hosts *h)
{
	size_t i;

	for (i = 0; i < h->cap; i++)
		entry_free(h->slot[i]);
	free(h->slot);
	h->slot = NULL;
	h->cap = h->count = 0;
}

void hosts_free(struct hosts *h)
{
	if (!h)
		return;
	table_clear(h);
	lsi_table_free(h->lsi);
	free(h);
}

/* Index of hit's entry, or of the empty slot where it would go. */
static size_t probe(const struct hosts *h, const struct hip_hit *hit)
{
	size_t mask = h->cap - 1, i = hit_hash(hit) & mask;

	while (h->slot[i] && memcmp(h->slot[i]->hit.b, hit->b, sizeof(hit->b)) != 0)
		i = (i + 1) & mask;
	return i;
}

static int grow(struct hosts *h)
{
	struct hosts_entry **old = h->slot;
	size_t old_cap = h->cap, i;

	if (table_init(h, old_cap * 2) != 0) {
		h->slot = old;
		h->cap = old_cap;
		return -ENOMEM;
	}
	for (i = 0; i < old_cap; i++) {
		if (old[i]) {
			h->slot[probe(h, &old[i]->hit)] = old[i];
			h->count++;
		}
	}
	free(old);
	return 0;
}

/* Insert a new entry (the HIT must not be present). */
static int insert(struct hosts *h, struct hosts_entry *e)
{
	if ((h->count + 1) * 4 > h->cap * 3 && grow(h) != 0)
		return -ENOMEM;
	h->slot[probe(h, &e->hit)] = e;
	h->count++;
	return 0;
}

/* Remove slot i, moving later members of the probe run back so that no
 * lookup stops early at the hole (Knuth 6.4, Algorithm R). */
static void remove_at(struct hosts *h, size_t i)
{
	size_t mask = h->cap - 1, j = i;

	entry_free(h->slot[i]);
	h->slot[i] = NULL;
	h->count--;
	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (!h->slot[j])
			break;
		home = hit_hash(&h->slot[j]->hit) & mask;
		/* move j to i unless its home lies cyclically in (i, j] */
		if ((i <= j) ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		h->slot[i] = h->slot[j];
		h->slot[j] = NULL;
		i = j;
	}
}

int hosts_set_lsi_range(struct hosts *h, const struct hip_lsi_range *range)
{
	struct lsi_table *t;
	int r;

	if (memcmp(h->lsi_range.net, range->net, 4) == 0 && h->lsi_range.prefix == range->prefix)
		return 0;
	r = lsi_table_create(&t, range);
	if (r)
		return r;
	lsi_table_free(h->lsi);
	h->lsi = t;
	h->lsi_range = *range;
	return 0;
}

int hosts_lsi(struct hosts *h, const struct hip_hit *hit, struct in_addr *lsi,
	      enum lsi_source *src)
{
	return lsi_table_get(h->lsi, hit, lsi, src);
}

int hosts_lsi_find(const struct hosts *h, const struct hip_hit *hit, struct in_addr *lsi,
		   enum lsi_source *src)
{
	return lsi_table_find(h->lsi, hit, lsi, src);
}

void hosts_lsi_forget(struct hosts *h, const struct hip_hit *hit)
{
	if (!hosts_lookup(h, hit))
		lsi_table_forget(h->lsi, hit);
}

const struct hip_hit *hosts_lsi_hit(const struct hosts *h, struct in_addr lsi)
{
	return lsi_table_hit_of(h->lsi, lsi);
}

/* A mapped HIT without lsi= gets its derived LSI now (D-20). */
static void assign_lsi(struct hosts *h, const struct hip_hit *hit)
{
	struct in_addr a;
	int r = lsi_table_get(h->lsi, hit, &a, NULL);

	if (r) {
		char hs[HIP_HIT_STR_LEN];

		log_warn("no LSI for %s: %s", hip_hit_to_str(hit, hs, sizeof(hs)),
			 r == -ENOSPC ? "the LSI range is full" : strerror(-r));
	}
}

const struct hosts_entry *hosts_lookup(const struct hosts *h, const struct hip_hit *hit)
{
	return h->slot[probe(h, hit)];
}

size_t hosts_count(const struct hosts *h)
{
	return h->count;
}

void hosts_foreach(const struct hosts *h, int (*cb)(const struct hosts_entry *e, void *arg),
		   void *arg)
{
	size_t i;

	for (i = 0; i < h->cap; i++)
		if (h->slot[i] && cb(h->slot[i], arg))
			return;
}

static int loc_index(const struct hosts_entry *e, const struct hip_addr *loc)
{
	size_t i;

	for (i = 0; i < e->n_loc; i++)
		if (memcmp(&e->loc[i], loc, sizeof(*loc)) == 0)
			return (int)i;
	return -1;
}

/* Add loc with origin bit to hit's entry (created if needed). */
static int add_locator(struct hosts *h, const struct hip_hit *hit, const struct hip_addr *loc,
		       uint8_t origin)
{
	struct hosts_entry *e = h->slot[probe(h, hit)];
	int i;

	if (!e) {
		int r;

		e = calloc(1, sizeof(*e));
		if (!e)
			return -ENOMEM;
		e->hit = *hit;
		r = insert(h, e);
		if (r) {
			free(e);
			return r;
		}
	}
	i = loc_index(e, loc);
	if (i >= 0) {
		if (e->origin[i] & origin)
			return -EEXIST;
		e->origin[i] |= origin;
		return 0;
	}
	if (e->n_loc == HOSTS_MAX_LOCATORS)
		return -ENOSPC;
	e->loc[e->n_loc] = *loc;
	e->origin[e->n_loc] = origin;
	e->n_loc++;
	return 0;
}

int hosts_add(struct hosts *h, const struct hip_hit *hit, const struct hip_addr *loc)
{
	int r;

	if (!hip_hit_is_orchid(hit) || hip_addr_locator_problem(loc))
		return -EINVAL;
	r = add_locator(h, hit, loc, HOSTS_ORIGIN_RUNTIME);
	if (r == 0)
		assign_lsi(h, hit);
	return r;
}

int hosts_del(struct hosts *h, const struct hip_hit *hit, const struct hip_addr *loc)
{
	size_t s = probe(h, hit);
	struct hosts_entry *e = h->slot[s];
	int i;

	if (!e)
		return -ENOENT;
	if (loc) {
		i = loc_index(e, loc);
		if (i < 0)
			return -ENOENT;
		memmove(&e->loc[i], &e->loc[i + 1], (e->n_loc - (size_t)i - 1) * sizeof(e->loc[0]));
		memmove(&e->origin[i], &e->origin[i + 1], e->n_loc - (size_t)i - 1);
		e->n_loc--;
		if (e->n_loc > 0)
			return 0;
	}
	remove_at(h, s);
	return 0;
}

/* ---- hosts file ---- */

int hosts_error(char *err, size_t errlen, const char *name, unsigned line, const char *fmt,
		...)
{
	va_list ap;
	int n;

	if (!err || errlen == 0)
		return -EINVAL;
	n = line ? snprintf(err, errlen, "%s:%u: ", name, line) : snprintf(err, errlen, "%s: ",
									 name);
	if (n < 0 || (size_t)n >= errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Copy the line's names into e (file entries only). */
static int set_names(struct hosts_entry *e, const struct hip_hosts_line *pl)
{
	size_t i, len = 0, off = 0;

	for (i = 0; i < pl->n_names; i++)
		len += strlen(pl->name[i]) + 1;
	if (len == 0)
		return 0;
	e->names = malloc(len);
	if (!e->names)
		return -ENOMEM;
	for (i = 0; i < pl->n_names; i++) {
		size_t n = strlen(pl->name[i]) + 1;

		memcpy(e->names + off, pl->name[i], n);
		off += n;
	}
	e->n_names = pl->n_names;
	return 0;
}

/* Parse one line into tmp (file origin). line is NUL-terminated. */
static int parse_hosts_line(struct hosts *tmp, char *line, const char *name, unsigned ln,
			    char *err, size_t errlen)
{
	char msg[256], q[64], hs[HIP_HIT_STR_LEN];
	const struct hosts_entry *prev;
	struct hip_hosts_line pl;
	struct hosts_entry *e;
	struct hip_hit hit;
	size_t i;
	int r;

	r = hip_hosts_line_parse(line, &tmp->lsi_range, &pl, msg, sizeof(msg));
	if (r == 1)
		return 0;
	if (r)
		return hosts_error(err, errlen, name, ln, "%s", msg);
	memcpy(hit.b, pl.hit, sizeof(hit.b));
	hip_hit_to_str(&hit, hs, sizeof(hs));
	prev = hosts_lookup(tmp, &hit);
	if (prev)
		return hosts_error(err, errlen, name, ln, "HIT %s is already listed on line %u",
				   hs, prev->line);
	if (pl.n_loc == 0)
		return hosts_error(err, errlen, name, ln, "HIT %s has no locator (expected "
				   "'HIT IP [IP...]')", hs);
	for (i = 0; i < pl.n_loc; i++) {
		struct hip_addr loc;
		const char *why;

		if (hip_addr_from_str(pl.loc[i], &loc) != 0)
			return hosts_error(err, errlen, name, ln, "'%s' is not an IPv4 or IPv6 "
					   "address", hip_hosts_quote(pl.loc[i], q, sizeof(q)));
		why = hip_addr_locator_problem(&loc);
		if (why)
			return hosts_error(err, errlen, name, ln, "locator %s is %s",
					   hip_hosts_quote(pl.loc[i], q, sizeof(q)), why);
		r = add_locator(tmp, &hit, &loc, HOSTS_ORIGIN_FILE);
		if (r == -EEXIST)
			return hosts_error(err, errlen, name, ln, "locator %s is listed twice",
					   hip_hosts_quote(pl.loc[i], q, sizeof(q)));
		if (r)
			return hosts_error(err, errlen, name, ln, "out of memory");
	}
	e = tmp->slot[probe(tmp, &hit)];
	e->line = ln;
	if (pl.has_lsi) {
		e->has_lsi = true;
		memcpy(&e->lsi, pl.lsi, 4);
	}
	if (set_names(e, &pl) != 0)
		return hosts_error(err, errlen, name, ln, "out of memory");
	return 0;
}

/* A name or an LSI of the file and the line it is on. */
struct hosts_key {
	const char *name;       /* NULL for an LSI */
	uint32_t lsi;
	unsigned line;
};

static int cmp_key(const void *a, const void *b)
{
	const struct hosts_key *x = a, *y = b;
	int c = x->name ? strcasecmp(x->name, y->name) : (x->lsi > y->lsi) - (x->lsi < y->lsi);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static int cmp_key_value(const struct hosts_key *x, const struct hosts_key *y)
{
	return x->name ? strcasecmp(x->name, y->name) : x->lsi != y->lsi;
}

/* Names (names = true) or LSIs must be unique in the file (case-insensitive
 * names, RFC 4343): sorted, the duplicate pair whose later line comes first
 * is reported, as a line-by-line check would. */
static int check_unique(const struct hosts *tmp, bool names, const char *fname, char *err,
			size_t errlen)
{
	struct hosts_key *k, *dup = NULL;
	size_t n = 0, i, j;
	char q[64], as[INET_ADDRSTRLEN];
	int r = 0;

	for (i = 0; i < tmp->cap; i++)
		if (tmp->slot[i])
			n += names ? tmp->slot[i]->n_names : tmp->slot[i]->has_lsi;
	if (n < 2)
		return 0;
	k = calloc(n, sizeof(*k));
	if (!k) {
		hosts_error(err, errlen, fname, 0, "out of memory");
		return -ENOMEM;
	}
	n = 0;
	for (i = 0; i < tmp->cap; i++) {
		const struct hosts_entry *e = tmp->slot[i];
		const char *p;

		if (!e)
			continue;
		if (!names && e->has_lsi) {
			k[n].lsi = ntohl(e->lsi.s_addr);
			k[n++].line = e->line;
		}
		for (j = 0, p = e->names; names && j < e->n_names; j++, p += strlen(p) + 1) {
			k[n].name = p;
			k[n++].line = e->line;
		}
	}
	qsort(k, n, sizeof(*k), cmp_key);
	for (i = 1; i < n; i++)
		if (cmp_key_value(&k[i - 1], &k[i]) == 0 && (!dup || k[i].line < dup[1].line))
			dup = &k[i - 1];
	if (dup && names && dup[0].line == dup[1].line)
		r = hosts_error(err, errlen, fname, dup[1].line, "name '%s' is listed twice",
				hip_hosts_quote(dup[1].name, q, sizeof(q)));
	else if (dup && names)
		r = hosts_error(err, errlen, fname, dup[1].line, "name '%s' is already used on "
				"line %u", hip_hosts_quote(dup[1].name, q, sizeof(q)), dup[0].line);
	else if (dup) {
		struct in_addr a = { htonl(dup[1].lsi) };

		r = hosts_error(err, errlen, fname, dup[1].line, "LSI %s is already used on "
				"line %u", inet_ntop(AF_INET, &a, as, sizeof(as)) ? as : "?",
				dup[0].line);
	}
	free(k);
	return r;
}

/* h := file entries of tmp, then h's runtime locators merged in. */
static int merge_runtime(struct hosts *tmp, const struct hosts *h)
{
	size_t i, j;

	for (i = 0; i < h->cap; i++) {
		const struct hosts_entry *e = h->slot[i];

		if (!e)
			continue;
		for (j = 0; j < e->n_loc; j++) {
			int r;

			if (!(e->origin[j] & HOSTS_ORIGIN_RUNTIME))
				continue;
			r = add_locator(tmp, &e->hit, &e->loc[j], HOSTS_ORIGIN_RUNTIME);
			if (r == -ENOSPC) {
				char hs[HIP_HIT_STR_LEN], as[INET6_ADDRSTRLEN];

				log_warn("hosts: dropping runtime locator %s of %s: the file "
					 "gives it %d already",
					 hip_addr_to_str(&e->loc[j], as, sizeof(as)),
					 hip_hit_to_str(&e->hit, hs, sizeof(hs)),
					 HOSTS_MAX_LOCATORS);
			} else if (r == -ENOMEM) {
				return r;
			}
		}
	}
	return 0;
}

static int cmp_entry_line(const void *a, const void *b)
{
	const struct hosts_entry *const *x = a, *const *y = b;

	unsigned lx = (*x)->line ? (*x)->line : ~0u, ly = (*y)->line ? (*y)->line : ~0u;

	if (lx != ly)
		return lx < ly ? -1 : 1;
	return memcmp((*x)->hit.b, (*y)->hit.b, sizeof((*x)->hit.b));
}

/* The entries of t in file order (runtime-only HITs last, by HIT), so
 * derived LSIs are handed out in the same order at every start. */
static const struct hosts_entry **entries_in_order(const struct hosts *t)
{
	const struct hosts_entry **v = malloc((t->count + 1) * sizeof(*v));
	size_t i, n = 0;

	if (!v)
		return NULL;
	for (i = 0; i < t->cap; i++)
		if (t->slot[i])
			v[n++] = t->slot[i];
	qsort(v, n, sizeof(*v), cmp_entry_line);
	return v;
}

/* The file's lsi= become the pinned LSIs of h (before the commit: all or
 * nothing). */
static int pin_file_lsis(struct hosts *h, const struct hosts *tmp,
			 const struct hosts_entry **order)
{
	struct lsi_pin *pins = calloc(tmp->count + 1, sizeof(*pins));
	size_t i, n = 0;
	int r;

	if (!pins)
		return -ENOMEM;
	for (i = 0; i < tmp->count; i++) {
		if (!order[i]->has_lsi)
			continue;
		pins[n].hit = order[i]->hit;
		pins[n++].lsi = order[i]->lsi;
	}
	r = lsi_table_set_pins(h->lsi, pins, n);
	free(pins);
	return r;
}

int hosts_load_buf(struct hosts *h, const char *name, const char *buf, size_t len,
		   char *err, size_t errlen, size_t *n_entries)
{
	char line[HOSTS_LINE_MAX + 1];
	const struct hosts_entry **order = NULL;
	struct hosts tmp;
	size_t pos = 0, n_file, i;
	unsigned ln = 0;
	int r;

	r = table_init(&tmp, HOSTS_MIN_CAP);
	tmp.lsi_range = h->lsi_range;
	tmp.lsi = NULL;
	if (r) {
		hosts_error(err, errlen, name, 0, "out of memory");
		return r;
	}
	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - (buf + pos)) : len - pos;

		ln++;
		if (ll > HOSTS_LINE_MAX) {
			r = hosts_error(err, errlen, name, ln, "line longer than %d characters",
					HOSTS_LINE_MAX);
			goto out;
		}
		memcpy(line, buf + pos, ll);
		line[ll] = '\0';
		if (strlen(line) != ll) {
			r = hosts_error(err, errlen, name, ln, "NUL byte in line");
			goto out;
		}
		r = parse_hosts_line(&tmp, line, name, ln, err, errlen);
		if (r)
			goto out;
		pos += ll + (nl ? 1 : 0);
	}
	r = check_unique(&tmp, true, name, err, errlen);
	if (r == 0)
		r = check_unique(&tmp, false, name, err, errlen);
	if (r)
		goto out;
	n_file = tmp.count;
	r = merge_runtime(&tmp, h);
	order = r ? NULL : entries_in_order(&tmp);
	if (order)
		r = pin_file_lsis(h, &tmp, order);
	if (r || !order) {
		r = r ? r : -ENOMEM;
		hosts_error(err, errlen, name, 0, "out of memory");
		goto out;
	}
	/* commit: swap the tables, free the old one; the LSI table stays */
	{
		struct hosts old = *h;

		tmp.lsi = h->lsi;
		*h = tmp;
		tmp = old;
	}
	for (i = 0; i < h->count; i++)
		if (!order[i]->has_lsi)
			assign_lsi(h, &order[i]->hit);
	if (n_entries)
		*n_entries = n_file;
out:
	free(order);
	table_clear(&tmp);
	return r;
}

int hosts_file_read(const char *path, size_t max, char **out, size_t *len, char *err,
		    size_t errlen)
{
	char *buf = NULL;
	struct stat st;
	size_t got = 0;
	int fd, r;

	*out = NULL;
	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		hosts_error(err, errlen, path, 0, "%s", strerror(-r));
		return r;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		r = hosts_error(err, errlen, path, 0, "not a regular file");
		goto out;
	}
	if ((uint64_t)st.st_size > max) {
		hosts_error(err, errlen, path, 0, "larger than %zu bytes", max);
		r = -EFBIG;
		goto out;
	}
	/* one byte more than the size: a file that grew meanwhile is noticed */
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		r = -ENOMEM;
		hosts_error(err, errlen, path, 0, "out of memory");
		goto out;
	}
	for (;;) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size + 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			hosts_error(err, errlen, path, 0, "%s", strerror(-r));
			goto out;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		if (got > (size_t)st.st_size) {
			r = -EIO;
			hosts_error(err, errlen, path, 0, "changed while being read");
			goto out;
		}
	}
	*out = buf;
	*len = got;
	buf = NULL;
	r = 0;
out:
	free(buf);
	close(fd);
	return r;
}

int hosts_load_file(struct hosts *h, const char *path, char *err, size_t errlen,
		    size_t *n_entries)
{
	char *buf = NULL;
	size_t len = 0;
	int r = hosts_file_read(path, HOSTS_FILE_MAX, &buf, &len, err, errlen);

	if (r == -ENOENT) {
		/* no file = no file entries; keep the runtime ones */
		char ignored[8];

		if (hosts_load_buf(h, path, "", 0, ignored, sizeof(ignored), n_entries))
			return -ENOMEM;
		return r;
	}
	if (r == -EFBIG)
		r = -EINVAL;    /* as the hosts file's other errors (hipd.8) */
	if (r == 0)
		r = hosts_load_buf(h, path, buf, len, err, errlen, n_entries);
	free(buf);
	return r;
}
