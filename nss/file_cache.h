/*
 * file_cache.h - the NSS module's per-process copy of a file it reads (the
 * HIP hosts file, hipd's LSI table): an index built from the file's text,
 * kept between calls and rebuilt when stat(2) says the file changed
 * (device, inode, size, mtime, ctime), so that a program resolving many
 * names does not read and parse the file for each (bench/nss.sh, issue 16).
 * A file changed in the last HIP_FILE_SETTLE_S seconds is read again on
 * every call: a rewrite within one tick of the file system's clock can keep
 * all of those (racy timestamps), one after that cannot. One mutex per
 * cache, never waited for: a thread that finds it taken (or a child forked
 * while another thread held it) reads the file itself. docs/decisions.md D-19.
 */
#ifndef NSS_FILE_CACHE_H
#define NSS_FILE_CACHE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

enum { HIP_FILE_SETTLE_S = 2 };

struct hip_file_version {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtim, ctim;
};

/* Build an index from text[0..len) (text[len] is '\0'; the index owns text
 * and frees it). cut: the file held more than the bound, text ends inside
 * a line. NULL if out of memory (text freed). */
typedef void *(*hip_index_build_fn)(char *text, size_t len, bool cut);
typedef void (*hip_index_free_fn)(void *index);

struct hip_file_cache {
	pthread_mutex_t lock;
	hip_index_build_fn build;
	hip_index_free_fn free_index;
	size_t max;                     /* bytes read at most */
	char *path;                     /* of index; NULL: nothing held */
	struct hip_file_version version;
	bool settled;                   /* a change since the read shows in version */
	void *index;
};

#define HIP_FILE_CACHE_INIT(build_fn, free_fn, max_bytes) \
	{ PTHREAD_MUTEX_INITIALIZER, build_fn, free_fn, max_bytes, NULL, { 0 }, false, NULL }

/* A handle on the index of the file at path as it is now. */
struct hip_file_ref {
	struct hip_file_cache *cache;   /* locked, owns index; NULL: index is the caller's */
	void *index;                    /* NULL: the file cannot be read */
};

/* The index of the file at path (ref->index NULL if it cannot be opened or
 * memory is short); release it with hip_file_cache_put. */
void hip_file_cache_get(struct hip_file_cache *c, const char *path, struct hip_file_ref *ref);
void hip_file_cache_put(struct hip_file_cache *c, struct hip_file_ref *ref);

#endif
