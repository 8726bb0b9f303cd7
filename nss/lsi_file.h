/*
 * lsi_file.h - the NSS module's view of the LSI table hipd exports
 * (hipd.conf lsi_file, hipd/net/lsi_export.c, docs/decisions.md D-26):
 * lines "HIT LSI" (the LSI hipd uses, pinned or derived, D-20), '#'
 * comments. Parsed once per version of the file and kept between calls,
 * like the hosts file (file_cache.h). A line that is not a HIT and an LSI
 * is skipped.
 */
#ifndef NSS_LSI_FILE_H
#define NSS_LSI_FILE_H

#include <stdint.h>

enum {
	HIP_LSI_FILE_MAX = 4 * 1024 * 1024,   /* bytes read at most */
	HIP_LSI_LINE_MAX = 127,               /* a longer line is skipped */
};

/* One line (NUL-terminated, no newline): 0 with hit and lsi filled, 1 for
 * a blank or comment line, -EINVAL otherwise. The HIT must be an ORCHIDv2
 * (RFC 7343), the LSI a unicast address. */
int hip_lsi_line_parse(const char *line, uint8_t hit[16], uint8_t lsi[4]);

/* The LSI of hit in the file at path: 0, or -ENOENT (no file, no line). */
int hip_lsi_file_lsi_of(const char *path, const uint8_t hit[16], uint8_t lsi[4]);

/* The HIT whose LSI is lsi: 0, or -ENOENT. */
int hip_lsi_file_hit_of(const char *path, const uint8_t lsi[4], uint8_t hit[16]);

#endif
