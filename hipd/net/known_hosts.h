/*
 * known_hosts.h - the HITs pinned to plain IP addresses by opportunistic
 * mode (RFC 7401 §4.1.8, Initiator side; issue #16): the first exchange
 * with an address learns the HIT its R1 names and pins it here, like ssh's
 * known_hosts; a later R1 with another HIT for that address is refused
 * until the pin is removed.
 *
 * File syntax (hip-hosts(5), "KNOWN HOSTS"): one pin a line,
 *   ADDRESS HIT [since=UNIXSECONDS]           # comment
 * words separated by blanks, '#' comments, blank lines, lines of at most
 * KNOWN_HOSTS_LINE_MAX characters, an address pinned once.
 *
 * Pins keep their order (the file's, then those added at run time); lookup
 * by address is a binary search of an index sorted by address.
 *
 * Functions return 0 or -errno.
 */
#ifndef HIPD_KNOWN_HOSTS_H
#define HIPD_KNOWN_HOSTS_H

#include <stddef.h>
#include <stdint.h>

#include "checksum.h"
#include "hit.h"

#define KNOWN_HOSTS_MAX 4096                    /* pins; the file is at most 1 MiB */
#define KNOWN_HOSTS_FILE_MAX (1024 * 1024)      /* bytes */
#define KNOWN_HOSTS_LINE_MAX 1024               /* characters, without the newline */
/* since= values: up to 9999-12-31T23:59:59Z, so the date comment stays a date */
#define KNOWN_HOSTS_SINCE_MAX 253402300799ull

struct known_host {
	struct hip_addr addr;   /* the address contacted (IPv4 as mapped, as hip_addr does) */
	struct hip_hit hit;     /* the HIT its first R1 named */
	uint64_t since;         /* Unix seconds of the first exchange, 0 = unknown */
	unsigned line;          /* line in the file it was loaded from, 0 = added at run time */
};

struct known_hosts;

int known_hosts_create(struct known_hosts **out);
void known_hosts_free(struct known_hosts *k);

/* Replace the table with a known_hosts text. All or nothing: on error the
 * table is unchanged and err holds "NAME:LINE: what" (e.g.
 * "known_hosts:3: 'x' is not an IP address", "known_hosts:4: 192.0.2.7 is
 * pinned twice (line 1)", "known_hosts:4097: more than 4096 pins"): the
 * first problem reading line by line. -EINVAL, -ENOMEM. */
int known_hosts_load_buf(struct known_hosts *k, const char *name, const char *buf, size_t len,
			 char *err, size_t errlen);
/* The same from path. A missing file is an empty table (returns 0);
 * -EFBIG over KNOWN_HOSTS_FILE_MAX bytes, -EINVAL if not a regular file or
 * not valid, else open's or read's -errno; err says which. */
int known_hosts_load_file(struct known_hosts *k, const char *path, char *err, size_t errlen);

/* The pin of addr, or NULL. Valid until the next change to the table. */
const struct known_host *known_hosts_find(const struct known_hosts *k,
					  const struct hip_addr *addr);
size_t known_hosts_count(const struct known_hosts *k);
/* The i-th pin in order (the file's, then runtime additions); NULL past the end. */
const struct known_host *known_hosts_at(const struct known_hosts *k, size_t i);

/* Pin hit to addr (line 0). -EEXIST if addr is pinned already, -ENOSPC
 * with KNOWN_HOSTS_MAX pins, -EINVAL for an address that cannot be a
 * locator (hip_addr_locator_problem, checksum.h), a HIT outside
 * 2001:20::/28 or since over KNOWN_HOSTS_SINCE_MAX. */
int known_hosts_add(struct known_hosts *k, const struct hip_addr *addr,
		    const struct hip_hit *hit, uint64_t since);
/* Forget addr's pin: -ENOENT if there is none. */
int known_hosts_del(struct known_hosts *k, const struct hip_addr *addr);

/* Write the whole table to path atomically: a temporary file in the same
 * directory (O_CREAT|O_EXCL, mode 0644 whatever the umask), fsync, rename
 * over path, fsync of the directory. A header comment explains the file;
 * each pin is "ADDRESS HIT since=N  # 2026-11-27T17:30:00Z" ("ADDRESS HIT"
 * when since is 0). Returns 0 or -errno; on error path is untouched and
 * the temporary removed. */
int known_hosts_save(const struct known_hosts *k, const char *path);

#endif
