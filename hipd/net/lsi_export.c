/*
 * lsi_export.c - write hipd's LSI table for the NSS module (lsi_export.h,
 * D-26). The file is replaced by rename(2), so a reader sees either the
 * old table or the new one, never a half-written file. The HIT is written
 * by inet_ntop(3), the form nss/lsi_file.c compares against.
 */
#include "lsi_export.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"

#define LSI_EXPORT_HEADER \
	"# hipd: the LSI of each mapped HIT (HIT LSI), see hipd.conf(5) lsi_file\n"

/* "HIT LSI\n": INET6_ADDRSTRLEN and INET_ADDRSTRLEN count their NULs */
enum { LSI_EXPORT_LINE = INET6_ADDRSTRLEN + INET_ADDRSTRLEN };

struct export_buf {
	const struct hosts *h;
	char *text;
	size_t len, cap;
};

static int add_line(const struct hosts_entry *e, void *arg)
{
	struct export_buf *b = arg;
	char hs[INET6_ADDRSTRLEN], ls[INET_ADDRSTRLEN];
	struct in_addr lsi;
	int n;

	if (hosts_lsi_find(b->h, &e->hit, &lsi, NULL) != 0)
		return 0;       /* none (the range is full): nothing to say */
	if (!inet_ntop(AF_INET6, e->hit.b, hs, sizeof(hs)) ||
	    !inet_ntop(AF_INET, &lsi, ls, sizeof(ls)))
		return 0;
	n = snprintf(b->text + b->len, b->cap - b->len, "%s %s\n", hs, ls);
	if (n > 0 && (size_t)n < b->cap - b->len)
		b->len += (size_t)n;
	return 0;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int lsi_export_write(const struct hosts *h, const char *path)
{
	struct export_buf b = { h, NULL, 0, 0 };
	char tmp[HIPD_PATH_MAX + 8];
	int fd, r;

	if (!path[0])
		return 0;
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.new", path) >= sizeof(tmp)) {
		r = -ENAMETOOLONG;
		goto out;
	}
	b.cap = sizeof(LSI_EXPORT_HEADER) + (hosts_count(h) + 1) * LSI_EXPORT_LINE;
	b.text = malloc(b.cap);
	if (!b.text) {
		r = -ENOMEM;
		goto out;
	}
	b.len = (size_t)snprintf(b.text, b.cap, "%s", LSI_EXPORT_HEADER);
	hosts_foreach(h, add_line, &b);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	/* readable by every user whatever the umask (systemd's is 0077): the
	 * module runs in their processes */
	r = fchmod(fd, 0644) != 0 ? -errno : write_all(fd, b.text, b.len);
	if (close(fd) != 0 && !r)
		r = -errno;
	if (!r && rename(tmp, path) != 0)
		r = -errno;
	if (r)
		unlink(tmp);
out:
	free(b.text);
	if (r)
		log_warn("lsi_file %s not written: %s (names resolve to LSIs only with lsi=)",
			 path, strerror(-r));
	return r;
}

void lsi_export_remove(const struct hosts *h, const char *path)
{
	if (h && path[0] && unlink(path) != 0 && errno != ENOENT)
		log_warn("lsi_file %s not removed: %s", path, strerror(errno));
}
