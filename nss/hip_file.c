/*
 * hip_file.c - scan the HIP hosts file for a name or an address
 * (hip_file.h). Lines are split by libhipcore/hosts_line.c, the parser
 * hipd uses, which checks the HIT, names and LSI (locators are hipd's
 * business). A line it rejects is skipped here (hipd refuses the whole
 * file and says why), but a name on it still counts as ours, so that a
 * typo never sends a HIP-only name to DNS (D-19). The file is split into
 * lines and its names hashed once per version of it (file_cache.h), so a
 * lookup by name parses only the lines that carry it.
 */
#include "hip_file.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "file_cache.h"

/* hipd refuses larger files (hipd/net/hosts.c); so does the module. */
enum { HIP_FILE_MAX = 1024 * 1024 };

/* Any LSI: the range is hipd's to enforce (it knows hipd.conf), D-19. */
static const struct hip_lsi_range any_range = { { 0, 0, 0, 0 }, 0 };

bool hip_file_is_suffixed(const char *name)
{
	const size_t sl = sizeof(HIP_HOSTS_SUFFIX) - 1;
	size_t n = strlen(name), i;

	if (n > 0 && name[n - 1] == '.')
		n--;
	if (n <= sl)
		return false;
	for (i = 0; i < sl; i++) {
		char c = name[n - sl + i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != HIP_HOSTS_SUFFIX[i])
			return false;
	}
	return true;
}

static void fill(struct hip_file_match *m, const struct hip_hosts_line *pl)
{
	size_t i;

	memcpy(m->hit, pl->hit, 16);
	m->has_lsi = pl->has_lsi;
	memcpy(m->lsi, pl->lsi, 4);
	m->n_names = pl->n_names;
	for (i = 0; i < pl->n_names; i++) {
		size_t n = strlen(pl->name[i]);     /* <= HIP_HOSTS_NAME_MAX, checked */

		memcpy(m->name[i], pl->name[i], n + 1);
	}
}

struct query {
	const char *name;       /* NULL: by address */
	int af;
	const uint8_t *addr;
};

static bool line_matches(const struct hip_hosts_line *pl, const struct query *q)
{
	size_t i;

	if (!q->name)
		return q->af == AF_INET6 ? memcmp(pl->hit, q->addr, 16) == 0 :
					   pl->has_lsi && memcmp(pl->lsi, q->addr, 4) == 0;
	for (i = 0; i < pl->n_names; i++)
		if (hip_hosts_name_matches(pl->name[i], q->name))
			return true;
	return false;
}

/* The value of each "KEY..." word of line before any '#', in turn: *pos
 * starts at line; returns the value's length and sets *val, or -1. */
static int next_value(const char *line, const char **pos, const char *key, const char **val)
{
	size_t kl = strlen(key);
	const char *p = *pos, *hash = strchr(line, '#');

	while ((p = strstr(p, key)) && (!hash || p < hash)) {
		const char *v = p + kl;

		*pos = v;
		if (p == line || p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\r') {
			*val = v;
			return (int)strcspn(v, " \t\r#");
		}
		p = v;
	}
	return -1;
}

/* Can line be the one q asks for? A cheap look at the raw text, so that
 * only such lines are parsed. By name, the index answers the same (its
 * name= values are those found here, scan_name). */
static bool may_match(const char *line, const struct query *q)
{
	char word[HIP_HOSTS_NAME_MAX + 1];
	const char *pos = line, *v;
	struct in6_addr a6;
	int n;

	if (!q->name && q->af == AF_INET6) {
		n = (int)strspn(line, " \t\r");
		v = line + n;
		n = (int)strcspn(v, " \t\r#");
		if (n <= 0 || n >= (int)sizeof(word))
			return false;
		memcpy(word, v, (size_t)n);
		word[n] = '\0';
		return inet_pton(AF_INET6, word, &a6) == 1 && memcmp(a6.s6_addr, q->addr, 16) == 0;
	}
	while ((n = next_value(line, &pos, q->name ? "name=" : "lsi=", &v)) >= 0) {
		struct in_addr a4;

		if (n >= (int)sizeof(word))
			continue;
		memcpy(word, v, (size_t)n);
		word[n] = '\0';
		if (q->name ? hip_hosts_name_matches(word, q->name) :
			      inet_pton(AF_INET, word, &a4) == 1 && memcmp(&a4, q->addr, 4) == 0)
			return true;
	}
	return false;
}

/* The file's text split into the lines the module reads, and its name=
 * values hashed, kept between calls (file_cache.h). */
struct line_ref {
	uint32_t off, len;
};

struct name_ent {
	uint32_t line;          /* index in lines */
	uint32_t next;          /* the next entry with this value, in file order */
	uint32_t str;           /* offset of the value, lowercase, in names */
};

struct hosts_index {
	char *text;             /* each line read ends in '\0' (was '\n') */
	size_t n_lines, n_ents, n_slots;
	struct line_ref *lines;
	struct name_ent *ents;
	char *names;
	uint32_t *head, *tail;  /* per slot: first and last entry of a value, or NONE */
};

enum { NONE = UINT32_MAX };

static void index_free(void *p)
{
	struct hosts_index *ix = p;

	if (!ix)
		return;
	free(ix->text);
	free(ix->lines);
	free(ix->ents);
	free(ix->names);
	free(ix->head);
	free(ix->tail);
	free(ix);
}

/* FNV-1a of s, lowercase (s is stored so) */
static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static void lower_copy(char *dst, const char *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = (src[i] >= 'A' && src[i] <= 'Z') ? (char)(src[i] - 'A' + 'a') : src[i];
	dst[n] = '\0';
}

/* The slot of value s (lowercase): the one holding it, or the empty one
 * where it goes. */
static size_t slot_of(const struct hosts_index *ix, const char *s)
{
	size_t mask = ix->n_slots - 1, i = hash_str(s) & mask;

	while (ix->head[i] != NONE && strcmp(ix->names + ix->ents[ix->head[i]].str, s) != 0)
		i = (i + 1) & mask;
	return i;
}

/* Every name= value may_match would compare (<= HIP_HOSTS_NAME_MAX
 * characters) of line number li: counted, or added when ix->ents is set. */
static void each_value(struct hosts_index *ix, uint32_t li, size_t *n_ents, size_t *n_bytes)
{
	const char *line = ix->text + ix->lines[li].off, *pos = line, *v;
	int n;

	while ((n = next_value(line, &pos, "name=", &v)) >= 0) {
		struct name_ent *e;
		size_t s;

		if (n > HIP_HOSTS_NAME_MAX)
			continue;
		if (ix->ents) {
			e = &ix->ents[*n_ents];
			e->line = li;
			e->next = NONE;
			e->str = (uint32_t)*n_bytes;
			lower_copy(ix->names + e->str, v, (size_t)n);
			s = slot_of(ix, ix->names + e->str);
			if (ix->head[s] == NONE)
				ix->head[s] = (uint32_t)*n_ents;
			else
				ix->ents[ix->tail[s]].next = (uint32_t)*n_ents;
			ix->tail[s] = (uint32_t)*n_ents;
		}
		(*n_ents)++;
		*n_bytes += (size_t)n + 1;
	}
}

/* The lines the module reads: at most HIP_HOSTS_LINE_MAX characters, no
 * '\0' (such a line is skipped), whole (a last line without '\n' unless
 * cut by the bound). */
static void *index_build(char *text, size_t len, bool cut)
{
	struct hosts_index *ix = calloc(1, sizeof(*ix));
	size_t off = 0, n_ents = 0, n_bytes = 0, i;

	if (!ix) {
		free(text);
		return NULL;
	}
	ix->text = text;
	ix->lines = malloc((len / 2 + 1) * sizeof(*ix->lines));
	if (!ix->lines)
		goto out;
	while (off < len) {
		char *nl = memchr(text + off, '\n', len - off);
		size_t ll = nl ? (size_t)(nl - (text + off)) : len - off;

		if (!nl && cut)
			break;
		if (nl)
			*nl = '\0';
		if (ll <= HIP_HOSTS_LINE_MAX && !memchr(text + off, '\0', ll) && ll > 0) {
			ix->lines[ix->n_lines].off = (uint32_t)off;
			ix->lines[ix->n_lines++].len = (uint32_t)ll;
		}
		off += ll + 1;
	}
	for (i = 0; i < ix->n_lines; i++)
		each_value(ix, (uint32_t)i, &n_ents, &n_bytes);
	for (ix->n_slots = 16; ix->n_slots < 2 * n_ents; ix->n_slots *= 2)
		;
	ix->ents = malloc((n_ents ? n_ents : 1) * sizeof(*ix->ents));
	ix->names = malloc(n_bytes ? n_bytes : 1);
	ix->head = malloc(ix->n_slots * sizeof(*ix->head));
	ix->tail = malloc(ix->n_slots * sizeof(*ix->tail));
	if (!ix->ents || !ix->names || !ix->head || !ix->tail)
		goto out;
	memset(ix->head, 0xff, ix->n_slots * sizeof(*ix->head));
	ix->n_ents = n_ents;
	n_ents = n_bytes = 0;
	for (i = 0; i < ix->n_lines; i++)
		each_value(ix, (uint32_t)i, &n_ents, &n_bytes);
	return ix;
out:    /* out of memory */
	index_free(ix);
	return NULL;
}

static struct hip_file_cache hosts_cache =
	HIP_FILE_CACHE_INIT(index_build, index_free, HIP_FILE_MAX);

/* Line li parsed (a copy: the parser cuts it into words) and matched
 * against q: HIP_FILE_FOUND with m filled, or *claimed set if it names
 * q->name but hipd would reject it. */
static enum hip_file_result try_line(const struct hosts_index *ix, size_t li,
				     const struct query *q, struct hip_file_match *m,
				     bool *claimed)
{
	char line[HIP_HOSTS_LINE_MAX + 1];
	struct hip_hosts_line pl;

	memcpy(line, ix->text + ix->lines[li].off, ix->lines[li].len + 1);
	if (hip_hosts_line_parse(line, &any_range, &pl, NULL, 0) != 0) {
		/* a name on a line hipd rejects is still ours */
		if (q->name)
			*claimed = true;
		return HIP_FILE_NOT_OURS;
	}
	if (!line_matches(&pl, q))
		return HIP_FILE_NOT_OURS;
	fill(m, &pl);
	return HIP_FILE_FOUND;
}

/* The first entry of value s (lowercase), or NONE. */
static uint32_t first_ent(const struct hosts_index *ix, const char *s)
{
	return ix->head[slot_of(ix, s)];
}

/* The lines may_match would pass for q->name, in file order: those with a
 * name= value equal to it, or to it without HIP_HOSTS_SUFFIX (ASCII case
 * ignored, hip_hosts_name_matches), found through the hash. */
static enum hip_file_result scan_name(const struct hosts_index *ix, const struct query *q,
				      struct hip_file_match *m, bool *claimed)
{
	const size_t sl = sizeof(HIP_HOSTS_SUFFIX) - 1;
	char key[HIP_HOSTS_NAME_MAX + 1], stem[HIP_HOSTS_NAME_MAX + 1];
	size_t n = strlen(q->name);
	uint32_t a, b = NONE, done = NONE;

	if (n > HIP_HOSTS_NAME_MAX)
		return HIP_FILE_NOT_OURS;
	lower_copy(key, q->name, n);
	a = first_ent(ix, key);
	if (n >= sl && strcmp(key + n - sl, HIP_HOSTS_SUFFIX) == 0) {
		memcpy(stem, key, n - sl);
		stem[n - sl] = '\0';
		b = first_ent(ix, stem);
	}
	/* merge the two lists (each in file order), each line once */
	while (a != NONE || b != NONE) {
		uint32_t li;

		if (b == NONE || (a != NONE && ix->ents[a].line <= ix->ents[b].line)) {
			li = ix->ents[a].line;
			a = ix->ents[a].next;
		} else {
			li = ix->ents[b].line;
			b = ix->ents[b].next;
		}
		if (done != NONE && li <= done)
			continue;
		done = li;
		if (try_line(ix, li, q, m, claimed) == HIP_FILE_FOUND)
			return HIP_FILE_FOUND;
	}
	return HIP_FILE_NOT_OURS;
}

/* HIP_FILE_FOUND, or *claimed set if a broken line names q->name. */
static enum hip_file_result scan(const char *path, const struct query *q,
				 struct hip_file_match *m, bool *claimed)
{
	enum hip_file_result res = HIP_FILE_NOT_OURS;
	const struct hosts_index *ix;
	struct hip_file_ref ref;
	size_t i;

	hip_file_cache_get(&hosts_cache, path, &ref);
	ix = ref.index;
	if (!ix)
		return HIP_FILE_NOT_OURS;
	if (q->name) {
		res = scan_name(ix, q, m, claimed);
		goto out;
	}
	for (i = 0; i < ix->n_lines; i++)
		if (may_match(ix->text + ix->lines[i].off, q) &&
		    try_line(ix, i, q, m, claimed) == HIP_FILE_FOUND) {
			res = HIP_FILE_FOUND;
			break;
		}
out:
	hip_file_cache_put(&hosts_cache, &ref);
	return res;
}

enum hip_file_result hip_file_find_name(const char *path, const char *want,
					 struct hip_file_match *m)
{
	char name[HIP_HOSTS_NAME_MAX + sizeof(HIP_HOSTS_SUFFIX) + 1];
	struct query q = { name, 0, NULL };
	bool claimed = false;
	size_t n = strlen(want);

	if (n > 0 && want[n - 1] == '.')
		n--;
	if (n == 0 || n >= sizeof(name))
		return hip_file_is_suffixed(want) ? HIP_FILE_ABSENT : HIP_FILE_NOT_OURS;
	memcpy(name, want, n);
	name[n] = '\0';
	if (scan(path, &q, m, &claimed) == HIP_FILE_FOUND)
		return HIP_FILE_FOUND;
	return claimed || hip_file_is_suffixed(name) ? HIP_FILE_ABSENT : HIP_FILE_NOT_OURS;
}

enum hip_file_result hip_file_find_addr(const char *path, int af, const uint8_t *addr,
					 struct hip_file_match *m)
{
	struct query q = { NULL, af, addr };
	bool claimed = false;
	bool is_hit;

	if (af != AF_INET && af != AF_INET6)
		return HIP_FILE_NOT_OURS;
	if (scan(path, &q, m, &claimed) == HIP_FILE_FOUND)
		return HIP_FILE_FOUND;
	/* ORCHIDv2, RFC 7343: never in DNS's reverse tree */
	is_hit = af == AF_INET6 && addr[0] == 0x20 && addr[1] == 0x01 && addr[2] == 0x00 &&
		 (addr[3] & 0xf0) == 0x20;
	return is_hit ? HIP_FILE_ABSENT : HIP_FILE_NOT_OURS;
}
