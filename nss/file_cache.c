/*
 * file_cache.c - a file's index kept between the module's calls while
 * stat(2) says the file is unchanged (file_cache.h).
 */
#include "file_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void version_of(const struct stat *st, struct hip_file_version *v)
{
	memset(v, 0, sizeof(*v));
	v->dev = st->st_dev;
	v->ino = st->st_ino;
	v->size = st->st_size;
	v->mtim = st->st_mtim;
	v->ctim = st->st_ctim;
}

static bool ts_eq(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static bool version_eq(const struct hip_file_version *a, const struct hip_file_version *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       ts_eq(&a->mtim, &b->mtim) && ts_eq(&a->ctim, &b->ctim);
}

/* Was t more than HIP_FILE_SETTLE_S seconds before now? */
static bool settled_at(const struct timespec *t, const struct timespec *now)
{
	return t->tv_sec < now->tv_sec - HIP_FILE_SETTLE_S;
}

/* Read fd to its end, max bytes at most (*cut if there was more): the text
 * (malloc'd, NUL-terminated) or NULL. */
static char *read_all(int fd, size_t size_hint, size_t max, size_t *len, bool *cut)
{
	size_t cap = (size_hint < max ? size_hint : max) + 1, got = 0;
	char *buf = malloc(cap + 1), *nb;

	*cut = false;
	while (buf) {
		ssize_t n;

		if (got == cap) {
			if (cap > max) {        /* max + 1 bytes: more than the bound */
				got = max;
				*cut = true;
				break;
			}
			cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
		}
		n = read(fd, buf + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return NULL;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (!buf)
		return NULL;
	buf[got] = '\0';
	*len = got;
	return buf;
}

/* Read path and build its index: the index, with its version and whether
 * it is settled, or NULL. */
static void *load(const struct hip_file_cache *c, const char *path,
		  struct hip_file_version *v, bool *settled)
{
	struct timespec now;
	struct stat st;
	size_t len = 0;
	void *index = NULL;
	char *text;
	bool cut;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	/* the clock before the read: a change during the read is unsettled */
	if (clock_gettime(CLOCK_REALTIME, &now) != 0 || fstat(fd, &st) != 0)
		goto out;
	version_of(&st, v);
	*settled = S_ISREG(st.st_mode) && settled_at(&st.st_mtim, &now) &&
		   settled_at(&st.st_ctim, &now);
	text = read_all(fd, S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size : 4096,
			c->max, &len, &cut);
	if (text)
		index = c->build(text, len, cut);
out:
	close(fd);
	return index;
}

static void drop(struct hip_file_cache *c)
{
	if (c->index)
		c->free_index(c->index);
	free(c->path);
	c->index = NULL;
	c->path = NULL;
}

void hip_file_cache_get(struct hip_file_cache *c, const char *path, struct hip_file_ref *ref)
{
	struct hip_file_version now;
	struct stat st;
	bool settled = false;

	ref->cache = NULL;
	ref->index = NULL;
	if (pthread_mutex_trylock(&c->lock) != 0) {
		ref->index = load(c, path, &now, &settled);     /* busy: a copy of our own */
		return;
	}
	if (stat(path, &st) != 0) {
		drop(c);
		pthread_mutex_unlock(&c->lock);
		return;
	}
	version_of(&st, &now);
	if (!c->index || !c->settled || strcmp(c->path, path) != 0 ||
	    !version_eq(&now, &c->version)) {
		drop(c);
		c->path = strdup(path);
		if (c->path)
			c->index = load(c, path, &c->version, &c->settled);
		if (!c->index) {
			drop(c);
			pthread_mutex_unlock(&c->lock);
			return;
		}
	}
	ref->cache = c;
	ref->index = c->index;
}

void hip_file_cache_put(struct hip_file_cache *c, struct hip_file_ref *ref)
{
	if (ref->cache)
		pthread_mutex_unlock(&c->lock);
	else if (ref->index)
		c->free_index(ref->index);
	ref->cache = NULL;
	ref->index = NULL;
}
