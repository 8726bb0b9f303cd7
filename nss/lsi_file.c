/*
 * lsi_file.c - scan the LSI table hipd exports (lsi_file.h, D-26). hipd
 * writes the HIT with inet_ntop(3) (hipd/net/lsi_export.c), so the wanted
 * HIT or LSI is printed the same way and searched for as text (memmem):
 * only a line containing it is parsed and checked (bench/nss.sh: 1000
 * lines cost about what one does).
 */
#include "lsi_file.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "hosts_line.h"

/* Any unicast LSI: the range is hipd's to enforce (D-19). */
static const struct hip_lsi_range any_range = { { 0, 0, 0, 0 }, 0 };

static const char blanks[] = " \t\r";

/* Read size (allocated, freed before returning): hipd's table for 1,000
 * HITs (about 25 KB) in one read. */
enum { LSI_CHUNK = 64 * 1024 };

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

/* The line of text[0..len) (whole lines) around each place key appears,
 * parsed and checked: 0 with hit and lsi filled if one has key as word idx. */
static int search(const char *text, size_t len, int idx, const char *key, size_t key_len,
		  uint8_t hit[16], uint8_t lsi[4])
{
	char line[HIP_LSI_LINE_MAX + 1];
	const char *end = text + len, *p = text, *k;

	while (p < end && (k = memmem(p, (size_t)(end - p), key, key_len))) {
		const char *ls = k, *le = memchr(k, '\n', (size_t)(end - k));
		size_t ll;

		while (ls > text && ls[-1] != '\n')
			ls--;
		if (!le)
			le = end;
		p = le;
		ll = (size_t)(le - ls);
		if (ll > HIP_LSI_LINE_MAX || memchr(ls, '\0', ll))
			continue;       /* not a line hipd writes */
		memcpy(line, ls, ll);
		line[ll] = '\0';
		if (word_is(line, idx, key, key_len) && hip_lsi_line_parse(line, hit, lsi) == 0)
			return 0;
	}
	return -ENOENT;
}

/* read(2) as much as fits, short only at the end of the file (or an error). */
static size_t read_some(int fd, char *p, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, p + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got;
}

/* The line whose word idx (0: HIT, 1: LSI) is key (printed by inet_ntop):
 * 0 with hit and lsi filled, or -ENOENT. The file is read in large chunks
 * of whole lines (system calls cost more than the search) and searched
 * with memmem: most lines are never looked at. */
static int scan(const char *path, int idx, const char *key, uint8_t hit[16], uint8_t lsi[4])
{
	size_t key_len = strlen(key), have = 0, total = 0;
	bool skipping = false;          /* in a line longer than a chunk */
	int fd, r = -ENOENT;
	char *buf;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	buf = malloc(LSI_CHUNK);
	if (!buf)
		goto out;
	for (;;) {
		size_t n = 0, start = 0, whole;
		const char *nl;
		bool eof;

		if (total < HIP_LSI_FILE_MAX) {
			n = read_some(fd, buf + have, LSI_CHUNK - have);
			if (n > HIP_LSI_FILE_MAX - total)
				n = HIP_LSI_FILE_MAX - total;   /* the bound: no further */
		}
		total += n;
		have += n;
		eof = have < LSI_CHUNK;
		nl = have ? memrchr(buf, '\n', have) : NULL;
		whole = nl ? (size_t)(nl - buf) + 1 : 0;
		if (eof && total < HIP_LSI_FILE_MAX)
			whole = have;   /* a last line without '\n' (not one cut by the bound) */
		if (whole == 0 && !eof) {
			skipping = true;        /* no newline in a whole chunk: skip that line */
			have = 0;
			continue;
		}
		if (skipping) {
			nl = memchr(buf, '\n', whole);
			start = nl ? (size_t)(nl - buf) + 1 : whole;
			skipping = false;
		}
		r = search(buf + start, whole - start, idx, key, key_len, hit, lsi);
		if (r == 0 || eof)
			break;
		memmove(buf, buf + whole, have - whole);
		have -= whole;
	}
out:
	free(buf);
	close(fd);
	return r;
}

int hip_lsi_file_lsi_of(const char *path, const uint8_t hit[16], uint8_t lsi[4])
{
	char key[INET6_ADDRSTRLEN];
	uint8_t found[16];

	if (!inet_ntop(AF_INET6, hit, key, sizeof(key)))
		return -ENOENT;
	if (scan(path, 0, key, found, lsi) != 0 || memcmp(found, hit, 16) != 0)
		return -ENOENT;
	return 0;
}

int hip_lsi_file_hit_of(const char *path, const uint8_t lsi[4], uint8_t hit[16])
{
	char key[INET_ADDRSTRLEN];
	uint8_t found[4];

	if (!inet_ntop(AF_INET, lsi, key, sizeof(key)))
		return -ENOENT;
	if (scan(path, 1, key, hit, found) != 0 || memcmp(found, lsi, 4) != 0)
		return -ENOENT;
	return 0;
}
