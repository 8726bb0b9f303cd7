/*
 * control_sock.c - who may use the control socket (SO_PEERCRED and group
 * membership), and creating the socket file.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "control.h"
#include "base/base.h"

enum { CTL_GROUPS_MAX = 65536 };   /* NGROUPS_MAX on Linux */

static bool user_in_group(uid_t uid, gid_t group)
{
	struct passwd pw, *res = NULL;
	char pwbuf[4096];
	gid_t *groups = NULL;
	int ngroups = 64, i;
	bool found = false;

	if (getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &res) != 0 || !res)
		return false;
	for (;;) {
		gid_t *g = realloc(groups, (size_t)ngroups * sizeof(*g));
		int n = ngroups;

		if (!g)
			goto out;
		groups = g;
		if (getgrouplist(pw.pw_name, pw.pw_gid, groups, &n) >= 0) {
			ngroups = n;
			break;
		}
		if (n <= ngroups)
			n = ngroups * 2;   /* older glibc does not report the size */
		if (n > CTL_GROUPS_MAX)
			goto out;
		ngroups = n;
	}
	for (i = 0; i < ngroups; i++)
		if (groups[i] == group)
			found = true;
out:
	free(groups);
	return found;
}

enum control_access control_peer_access(uid_t uid, gid_t gid, uid_t self_uid, bool have_group,
					gid_t group)
{
	if (uid == 0 || uid == self_uid)
		return CONTROL_ACCESS_ADMIN;
	if (have_group && (gid == group || user_in_group(uid, group)))
		return CONTROL_ACCESS_READ;
	return CONTROL_ACCESS_NONE;
}

int control_group_gid(const char *name, gid_t *gid)
{
	struct group gr, *res = NULL;
	char buf[4096];

	if (!name || !*name || getgrnam_r(name, &gr, buf, sizeof(buf), &res) != 0 || !res)
		return -ENOENT;
	*gid = gr.gr_gid;
	return 0;
}

/* ---- the socket file ---- */

static int mkdir_parents(char *path)
{
	char *slash = strrchr(path, '/');
	struct stat st;
	int r;

	if (!slash || slash == path)
		return 0;
	*slash = '\0';
	if (stat(path, &st) == 0) {
		r = S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	} else {
		r = mkdir_parents(path);
		if (!r && mkdir(path, 0755) != 0 && errno != EEXIST)
			r = -errno;
	}
	*slash = '/';
	return r;
}

int control_socket_open(const char *path, const char *group, int *out, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[sizeof(sa.sun_path)];
	struct stat st;
	mode_t old_umask;
	gid_t gid;
	int fd = -1, r;

	if (strlen(path) >= sizeof(sa.sun_path) || path[0] != '/') {
		snprintf(err, errlen, "%s: not an absolute path shorter than %zu", path,
			 sizeof(sa.sun_path));
		return -EINVAL;
	}
	strcpy(sa.sun_path, path);
	strcpy(dir, path);
	r = mkdir_parents(dir);
	if (r) {
		snprintf(err, errlen, "%s: cannot create its directory: %s", path, strerror(-r));
		return r;
	}
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, errlen, "%s exists and is not a socket", path);
			return -EEXIST;
		}
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			goto sys_fail;
		/* EAGAIN: a full backlog, so somebody is listening */
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 || errno == EAGAIN) {
			snprintf(err, errlen, "%s: another hipd is listening there", path);
			close(fd);
			return -EADDRINUSE;
		}
		close(fd);
		unlink(path);   /* stale: its daemon is gone */
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto sys_fail;
	/* create it as srw-rw---- at once: no window with a wider mode */
	old_umask = umask(0117);
	r = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old_umask);
	if (r != 0 || listen(fd, 16) != 0)
		goto sys_fail;
	if (chmod(path, 0660) != 0)
		goto sys_fail;
	if (control_group_gid(group, &gid) == 0 && chown(path, (uid_t)-1, gid) != 0)
		log_notice("control: cannot give %s to group %s: %s", path, group,
			   strerror(errno));
	*out = fd;
	return 0;
sys_fail:
	r = -errno;
	snprintf(err, errlen, "%s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return r;
}
