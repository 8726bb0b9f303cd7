/*
 * hosts.h - the HIT -> locator map (hip-hosts(5)): entries from the hosts
 * file plus runtime entries from `hipconf add map`. Lookup by HIT is O(1)
 * (open addressing, resized at 3/4 load).
 *
 * File syntax: `HIT IP [IP...] [name=NAME]... [lsi=A.B.C.D]`, '#' comments,
 * blank lines (libhipcore/hosts_line.h, D-19); at most HOSTS_MAX_LOCATORS
 * addresses and names per HIT; a HIT, a name or an LSI on two lines is an
 * error.
 * Each locator remembers where it came from: a reload replaces the file's
 * locators and keeps the runtime ones.
 *
 * Functions return 0 or -errno.
 */
#ifndef HIPD_HOSTS_H
#define HIPD_HOSTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <netinet/in.h>

#include "checksum.h"
#include "hit.h"
#include "hosts_line.h"
#include "lsi.h"

enum { HOSTS_MAX_LOCATORS = 8 };

/* Bits: a locator in the file and also added at runtime has both. */
enum hosts_origin {
	HOSTS_ORIGIN_FILE = 1,
	HOSTS_ORIGIN_RUNTIME = 2,
};

struct hosts_entry {
	struct hip_hit hit;
	size_t n_loc;
	struct hip_addr loc[HOSTS_MAX_LOCATORS];     /* file's first, in order */
	uint8_t origin[HOSTS_MAX_LOCATORS];         /* enum hosts_origin bits */
	unsigned line;                              /* in the hosts file, 0 = none */
	/* From the file only (hipconf add map gives neither): the names of
	 * the HIT, n_names NUL-terminated strings back to back, and its
	 * lsi= (only the file's: the LSI in use, pinned or derived, is
	 * hosts_lsi's). */
	size_t n_names;
	char *names;                                /* NULL if n_names == 0 */
	bool has_lsi;
	struct in_addr lsi;
};

struct hosts;

int hosts_create(struct hosts **out);
void hosts_free(struct hosts *h);

/* The range LSIs in the file must lie in (D-19; default
 * HIP_LSI_RANGE_DEFAULT). Takes effect at the next load; the LSIs in use
 * are forgotten when the range changes. -EINVAL for a range lsi_range
 * would refuse (prefix outside 8..30). */
int hosts_set_lsi_range(struct hosts *h, const struct hip_lsi_range *range);

/* The LSI of hit (D-20): the file's lsi=, else derived from the HIT and
 * assigned now if it has none (peers with an association or a mapping,
 * our own HITs). -ENOSPC if the range is full. src may be NULL. Every
 * mapped HIT gets one when the file is loaded or the mapping added. */
int hosts_lsi(struct hosts *h, const struct hip_hit *hit, struct in_addr *lsi,
	      enum lsi_source *src);
/* Same without assigning: -ENOENT if hit has none. */
int hosts_lsi_find(const struct hosts *h, const struct hip_hit *hit, struct in_addr *lsi,
		   enum lsi_source *src);
/* hit's association is gone: drop its derived LSI unless it is mapped. */
void hosts_lsi_forget(struct hosts *h, const struct hip_hit *hit);
/* The HIT whose LSI (pinned or derived) is lsi, or NULL. */
const struct hip_hit *hosts_lsi_hit(const struct hosts *h, struct in_addr lsi);

/* The entry for hit, or NULL. Valid until the next change to the map. */
const struct hosts_entry *hosts_lookup(const struct hosts *h, const struct hip_hit *hit);
size_t hosts_count(const struct hosts *h);
/* Visit every entry (unordered); cb returns nonzero to stop. */
void hosts_foreach(const struct hosts *h, int (*cb)(const struct hosts_entry *e, void *arg),
		   void *arg);

/* Runtime changes (hipconf add map / del map).
 * add: -EEXIST if already mapped, -ENOSPC if hit has HOSTS_MAX_LOCATORS,
 * -EINVAL for an unusable locator (see hip_addr_locator_problem, checksum.h).
 * del with loc == NULL removes the HIT; -ENOENT if nothing matched. */
int hosts_add(struct hosts *h, const struct hip_hit *hit, const struct hip_addr *loc);
int hosts_del(struct hosts *h, const struct hip_hit *hit, const struct hip_addr *loc);

/* For the parsers of files in the hosts style (this one, known_hosts.c):
 * err = "NAME:LINE: " ("NAME: " for line 0) then the message. -EINVAL. */
int hosts_error(char *err, size_t errlen, const char *name, unsigned line, const char *fmt,
		...) __attribute__((format(printf, 5, 6)));

/* The whole regular file at path, at most max bytes, into *out (malloc'd,
 * the caller frees it; NUL not added) and *len. -ENOENT and other open
 * errors, -EFBIG over max, -EINVAL not a regular file, -EIO if it grew
 * while read; err says which ("PATH: ..."). Shared by known_hosts.c. */
int hosts_file_read(const char *path, size_t max, char **out, size_t *len, char *err,
		    size_t errlen);

/* Replace the file's entries with those of a hosts file text. All or
 * nothing: on error the map is unchanged and err holds "NAME:LINE: ...".
 * *n_entries (if not NULL) receives the number of HITs in the text. */
int hosts_load_buf(struct hosts *h, const char *name, const char *buf, size_t len,
		   char *err, size_t errlen, size_t *n_entries);
/* Same from a file (at most 1 MiB). A missing file (-ENOENT) counts as
 * empty: the file's entries are removed and -ENOENT is returned. */
int hosts_load_file(struct hosts *h, const char *path, char *err, size_t errlen,
		    size_t *n_entries);

#endif
