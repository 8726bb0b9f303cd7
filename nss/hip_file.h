/*
 * hip_file.h - the NSS module's view of the HIP hosts file: find the line
 * of a name or of an address. The file's lines are kept between calls
 * while stat(2) says it is unchanged (file_cache.h; safe in any thread of
 * any process, docs/decisions.md D-19).
 */
#ifndef NSS_HIP_FILE_H
#define NSS_HIP_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hosts_line.h"

enum hip_file_result {
	HIP_FILE_FOUND,         /* m filled */
	HIP_FILE_ABSENT,        /* ours (a .hip name, a HIT, a name on a broken line), not here */
	HIP_FILE_NOT_OURS,      /* a name or address the file does not know of */
};

struct hip_file_match {
	uint8_t hit[16];
	bool has_lsi;
	uint8_t lsi[4];
	size_t n_names;
	char name[HIP_HOSTS_MAX_WORDS][HIP_HOSTS_NAME_MAX + 1];
};

/* True if name ends in HIP_HOSTS_SUFFIX (it is ours whether listed or not). */
bool hip_file_is_suffixed(const char *name);

/* The line naming want (NAME or NAME.hip, case-insensitive, one final dot
 * ignored). */
enum hip_file_result hip_file_find_name(const char *path, const char *want,
					 struct hip_file_match *m);

/* The line whose HIT (af AF_INET6, 16 bytes) or LSI (AF_INET, 4 bytes) is
 * addr. A HIT not listed is HIP_FILE_ABSENT. */
enum hip_file_result hip_file_find_addr(const char *path, int af, const uint8_t *addr,
					 struct hip_file_match *m);

#endif
