/*
 * lsi_file.c - look up the LSI table hipd exports (lsi_file.h, D-26). hipd
 * writes the HIT with inet_ntop(3) (hipd/net/lsi_export.c): a line counts
 * for a HIT (an LSI) written that way. The table is parsed and hashed once
 * per version of the file (file_cache.h): a lookup is a hash probe
 * (bench/nss.sh).
 */
#include "lsi_file.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "file_cache.h"
#include "hosts_line.h"

/* Any unicast LSI: the range is hipd's to enforce (D-19). */
static const struct hip_lsi_range any_range = { { 0, 0, 0, 0 }, 0 };

static const char blanks[] = " \t\r";

/* The next word of *p (skipping blanks, stopping at '#'): its length, 0 if none. */
static size_t next_word(const char **p)
{
	*p += strspn(*p, blanks);
	return **p == '#' ? 0 : strcspn(*p, " \t\r#");
}

/* A word of at most cap - 1 characters into buf. */
static bool copy_word(const char *w, size_t n, char *buf, size_t cap)
{
	if (n == 0 || n >= cap)
		return false;
	memcpy(buf, w, n);
	buf[n] = '\0';
	return true;
}

int hip_lsi_line_parse(const char *line, uint8_t hit[16], uint8_t lsi[4])
{
	char hs[INET6_ADDRSTRLEN], ls[INET_ADDRSTRLEN];
	const char *p = line;
	size_t n;

	n = next_word(&p);
	if (n == 0)
		return 1;
	if (!copy_word(p, n, hs, sizeof(hs)) || inet_pton(AF_INET6, hs, hit) != 1)
		return -EINVAL;
	/* ORCHIDv2, 2001:20::/28 (RFC 7343) */
	if (hit[0] != 0x20 || hit[1] != 0x01 || hit[2] != 0x00 || (hit[3] & 0xf0) != 0x20)
		return -EINVAL;
	p += n;
	n = next_word(&p);
	if (!copy_word(p, n, ls, sizeof(ls)) || inet_pton(AF_INET, ls, lsi) != 1 ||
	    hip_hosts_lsi_problem(lsi, &any_range))
		return -EINVAL;
	p += n;
	return next_word(&p) == 0 ? 0 : -EINVAL;
}

/* Is word number idx (0 or 1) of line the text key? */
static bool word_is(const char *line, int idx, const char *key, size_t key_len)
{
	const char *p = line;
	size_t n = next_word(&p);

	if (idx == 1 && n > 0) {
		p += n;
		n = next_word(&p);
	}
	return n == key_len && strncasecmp(p, key, n) == 0;
}

/* The table's lines that parse, kept between calls (file_cache.h). A
 * lookup by HIT takes a line whose HIT is written as inet_ntop(3) writes
 * it (ASCII case ignored, but the text as written must also appear in the
 * line: the lines the text search of the module before the cache found);
 * the first such line. */
enum { BY_HIT = 1, BY_LSI = 2 };

struct lsi_ent {
	uint8_t hit[16];
	uint8_t lsi[4];
	uint8_t by;             /* BY_HIT, BY_LSI */
};

struct lsi_index {
	size_t n, n_slots;
	struct lsi_ent *e;      /* file order */
	uint32_t *slot[2];      /* by HIT, by LSI: entry + 1 of the first line, 0: none */
};

static void index_free(void *p)
{
	struct lsi_index *ix = p;

	if (ix) {
		free(ix->e);
		free(ix->slot[0]);
		free(ix->slot[1]);
	}
	free(ix);
}

/* BY_HIT: the entry's HIT, BY_LSI: its LSI */
static const uint8_t *key_of(const struct lsi_ent *e, int by, size_t *len)
{
	*len = by == BY_HIT ? 16 : 4;
	return by == BY_HIT ? e->hit : e->lsi;
}

/* The slot of key in table by: the one holding its first line, or the empty
 * one where it goes (FNV-1a, linear probing, never full: n_slots >= 2n). */
static size_t slot_of(const struct lsi_index *ix, int by, const uint8_t *key)
{
	const uint32_t *t = ix->slot[by == BY_HIT ? 0 : 1];
	size_t len = by == BY_HIT ? 16 : 4, mask = ix->n_slots - 1, i, el;
	uint32_t h = 2166136261u;

	for (i = 0; i < len; i++)
		h = (h ^ key[i]) * 16777619u;
	for (i = h & mask; t[i]; i = (i + 1) & mask)
		if (memcmp(key_of(&ix->e[t[i] - 1], by, &el), key, len) == 0)
			break;
	return i;
}

/* Both tables, each key to its first line in file order. */
static int hash_entries(struct lsi_index *ix)
{
	size_t i, k;

	for (ix->n_slots = 16; ix->n_slots < 2 * ix->n; ix->n_slots *= 2)
		;
	ix->slot[0] = calloc(ix->n_slots, sizeof(uint32_t));
	ix->slot[1] = calloc(ix->n_slots, sizeof(uint32_t));
	if (!ix->slot[0] || !ix->slot[1])
		return -ENOMEM;
	for (i = 0; i < ix->n; i++)
		for (k = 0; k < 2; k++) {
			int by = k == 0 ? BY_HIT : BY_LSI;
			size_t el, s;

			if (!(ix->e[i].by & by))
				continue;
			s = slot_of(ix, by, key_of(&ix->e[i], by, &el));
			if (!ix->slot[k][s])
				ix->slot[k][s] = (uint32_t)i + 1;
		}
	return 0;
}

/* Line text[0..ll) (at most HIP_LSI_LINE_MAX, no '\0'), if it is one. */
static void add_line(struct lsi_index *ix, const char *text, size_t ll)
{
	char line[HIP_LSI_LINE_MAX + 1], hs[INET6_ADDRSTRLEN], ls[INET_ADDRSTRLEN];
	struct lsi_ent *e = &ix->e[ix->n];

	memcpy(line, text, ll);
	line[ll] = '\0';
	e->by = 0;
	if (hip_lsi_line_parse(line, e->hit, e->lsi) != 0 ||
	    !inet_ntop(AF_INET6, e->hit, hs, sizeof(hs)) ||
	    !inet_ntop(AF_INET, e->lsi, ls, sizeof(ls)))
		return;
	/* the text as written, anywhere in the line (the search was memmem) */
	if (word_is(line, 0, hs, strlen(hs)) && memmem(line, ll, hs, strlen(hs)))
		e->by |= BY_HIT;
	if (word_is(line, 1, ls, strlen(ls)) && memmem(line, ll, ls, strlen(ls)))
		e->by |= BY_LSI;
	if (e->by)
		ix->n++;
}

/* Lines of at most HIP_LSI_LINE_MAX characters without '\0' (others are
 * not hipd's), whole: a last line without '\n' unless cut by the bound. */
static void *index_build(char *text, size_t len, bool cut)
{
	struct lsi_index *ix = calloc(1, sizeof(*ix));
	size_t off = 0, lines = 1, i;
	struct lsi_ent *shrunk;

	if (!ix)
		goto out;
	for (i = 0; i < len; i++)
		lines += text[i] == '\n';
	ix->e = malloc(lines * sizeof(*ix->e));
	if (!ix->e) {
		index_free(ix);
		ix = NULL;
		goto out;
	}
	while (off < len) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t ll = nl ? (size_t)(nl - (text + off)) : len - off;

		if (!nl && cut)
			break;
		if (ll <= HIP_LSI_LINE_MAX && !memchr(text + off, '\0', ll))
			add_line(ix, text + off, ll);
		off += ll + 1;
	}
	shrunk = realloc(ix->e, (ix->n ? ix->n : 1) * sizeof(*ix->e));
	if (shrunk)
		ix->e = shrunk;
	if (hash_entries(ix) != 0) {
		index_free(ix);
		ix = NULL;
	}
out:
	free(text);
	return ix;
}

static struct hip_file_cache lsi_cache =
	HIP_FILE_CACHE_INIT(index_build, index_free, HIP_LSI_FILE_MAX);

/* The first line whose HIT (by BY_HIT) or LSI (BY_LSI) is key: 0 with hit
 * and lsi filled, or -ENOENT. */
static int lookup(const char *path, int by, const uint8_t *key, uint8_t hit[16],
		  uint8_t lsi[4])
{
	const struct lsi_index *ix;
	struct hip_file_ref ref;
	int r = -ENOENT;
	uint32_t i;

	hip_file_cache_get(&lsi_cache, path, &ref);
	ix = ref.index;
	if (ix && (i = ix->slot[by == BY_HIT ? 0 : 1][slot_of(ix, by, key)]) != 0) {
		memcpy(hit, ix->e[i - 1].hit, 16);
		memcpy(lsi, ix->e[i - 1].lsi, 4);
		r = 0;
	}
	hip_file_cache_put(&lsi_cache, &ref);
	return r;
}

int hip_lsi_file_lsi_of(const char *path, const uint8_t hit[16], uint8_t lsi[4])
{
	uint8_t found[16];

	return lookup(path, BY_HIT, hit, found, lsi);
}

int hip_lsi_file_hit_of(const char *path, const uint8_t lsi[4], uint8_t hit[16])
{
	uint8_t found[4];

	return lookup(path, BY_LSI, lsi, hit, found);
}
