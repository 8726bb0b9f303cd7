/*
 * caps.c - the user switch and the capabilities hipd keeps (caps.h).
 *
 * Order matters: the bounding set can only be shrunk with CAP_SETPCAP, so
 * it goes first, while still root; PR_SET_KEEPCAPS carries the permitted
 * set over setresuid() (which clears the effective set); then the process
 * asks for exactly the two capabilities it keeps, permitted and effective,
 * and an empty inheritable set, which also empties the ambient set
 * (capabilities(7): ambient is a subset of permitted AND inheritable).
 * no_new_privs last: no execve can ever give anything back.
 */
#include "config.h"
#include "caps.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"

enum { CAPS_PWBUF = 16384 };

static const cap_value_t keep_caps[] = { CAP_NET_ADMIN, CAP_NET_RAW };
#define N_KEEP (sizeof(keep_caps) / sizeof(keep_caps[0]))

_Static_assert(CAP_NET_ADMIN == 12 && CAP_NET_RAW == 13, "CAPS_KEEP_MASK bits");

/* err = the formatted text + ": " + strerror(errno); returns -errno. */
static int sys_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int sys_fail(char *err, size_t errlen, const char *fmt, ...)
{
	int e = errno ? errno : EIO;
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	n = strlen(err);
	if (n < errlen)
		snprintf(err + n, errlen - n, ": %s", strerror(e));
	return -e;
}

static int lookup_user(const char *name, uid_t *uid, gid_t *gid, char *err, size_t errlen)
{
	struct passwd pw, *res = NULL;
	char *buf = malloc(CAPS_PWBUF);
	int r;

	if (!buf)
		return -ENOMEM;
	r = getpwnam_r(name, &pw, buf, CAPS_PWBUF, &res);
	if (r == 0 && res) {
		*uid = pw.pw_uid;
		*gid = pw.pw_gid;
	} else if (r == 0 || r == ENOENT || r == ESRCH) {
		snprintf(err, errlen, "user '%s' does not exist: create it (adduser --system "
			 "--group %s), or set user = root in hipd.conf (or --user root) to run "
			 "as root with only CAP_NET_ADMIN and CAP_NET_RAW", name, name);
		r = -ENOENT;
	} else {
		snprintf(err, errlen, "user '%s': %s", name, strerror(r));
		r = -r;
	}
	free(buf);
	return r;
}

int caps_key_check(const char *path, uid_t owner_uid, char *err, size_t errlen)
{
	struct stat st;

	/* stat, not lstat: the loader opens the file a symlink names */
	if (stat(path, &st) != 0)
		return sys_fail(err, errlen, "host identity %s", path);
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "host identity %s is not a regular file", path);
		return -EINVAL;
	}
	if (st.st_mode & 077) {
		snprintf(err, errlen, "host identity %s has mode %04o: a private key must not "
			 "be accessible by group or others; refusing to use it (chmod 600 %s)",
			 path, (unsigned)(st.st_mode & 07777), path);
		return -EACCES;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid() && st.st_uid != owner_uid) {
		snprintf(err, errlen, "host identity %s belongs to uid %u, not to root or to "
			 "the user hipd runs as (uid %u); refusing to use it", path,
			 (unsigned)st.st_uid, (unsigned)owner_uid);
		return -EPERM;
	}
	return 0;
}

static void dir_of(const char *path, char *dir, size_t len)
{
	char *slash;

	snprintf(dir, len, "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = '\0';
	else
		dir[0] = '\0';   /* "/x" or relative: nothing of ours to hand over */
}

int caps_prepare(struct caps_plan *plan, const struct hipd_conf *conf, char *err,
		 size_t errlen)
{
	struct stat st;
	int i, r;

	memset(plan, 0, sizeof(*plan));
	plan->root = geteuid() == 0;
	plan->uid = geteuid();
	plan->gid = getegid();
	if (plan->root && strcmp(conf->user, "root") != 0) {
		r = lookup_user(conf->user, &plan->uid, &plan->gid, err, errlen);
		if (r)
			return r;
		plan->switch_user = plan->uid != 0;
	}
	r = caps_key_check(conf->hi_file, plan->uid, err, errlen);
	if (r && r != -ENOENT)
		return r;
	dir_of(conf->pid_file, plan->run_dir[0], sizeof(plan->run_dir[0]));
	dir_of(conf->control_socket, plan->run_dir[1], sizeof(plan->run_dir[1]));
	for (i = 0; i < CAPS_RUN_DIRS; i++)
		plan->run_dir_existed[i] = !plan->run_dir[i][0] ||
					   stat(plan->run_dir[i], &st) == 0;
	return 0;
}

/* ---- files the user must own ---- */

/* name "" means dfd itself */
static int chown_path(int dfd, const char *name, const char *shown, uid_t uid, gid_t gid,
		      char *err, size_t errlen)
{
	if (fchownat(dfd, name, uid, gid, AT_SYMLINK_NOFOLLOW | (name[0] ? 0 : AT_EMPTY_PATH))
	    == 0)
		return 0;
	return sys_fail(err, errlen, "cannot give %s to uid %u", shown, (unsigned)uid);
}

/* The state directory and the R1 counters in it (written on every R1
 * rotation by r1cache.c: tmp file + rename, so the directory too). */
static int chown_state_dir(const char *dir, uid_t uid, gid_t gid, char *err, size_t errlen)
{
	char shown[HIPD_PATH_MAX + 300];
	struct dirent *de;
	struct stat st;
	DIR *d = NULL;
	int fd, r = 0;

	if (!dir[0])
		return 0;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;   /* not created: R1 counters are not persisted */
		return sys_fail(err, errlen, "state_dir %s", dir);
	}
	r = chown_path(fd, "", dir, uid, gid, err, errlen);
	if (r)
		goto out;
	d = fdopendir(fd);
	if (!d) {
		r = sys_fail(err, errlen, "state_dir %s", dir);
		goto out;
	}
	fd = -1;   /* closedir() closes it */
	while (!r && (de = readdir(d))) {
		if (strncmp(de->d_name, "r1counter-", 10) != 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		snprintf(shown, sizeof(shown), "%s/%s", dir, de->d_name);
		r = chown_path(dirfd(d), de->d_name, shown, uid, gid, err, errlen);
	}
out:
	if (d)
		closedir(d);
	if (fd >= 0)
		close(fd);
	return r;
}

static int hand_over_files(const struct caps_plan *plan, const struct hipd_conf *conf,
			   char *err, size_t errlen)
{
	struct stat st;
	int i, r;

	r = chown_state_dir(conf->state_dir, plan->uid, plan->gid, err, errlen);
	if (r)
		return r;
	/* The key stays 0600; its owner becomes the user hipd runs as. */
	if (lstat(conf->hi_file, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0) {
		r = chown_path(AT_FDCWD, conf->hi_file, conf->hi_file, plan->uid, plan->gid,
			       err, errlen);
		if (r)
			return r;
	}
	/* Run directories hipd created just now (/run/hipd when started by
	 * hand): the user must be able to remove the pid file and socket. */
	for (i = 0; i < CAPS_RUN_DIRS; i++) {
		if (plan->run_dir_existed[i] || lstat(plan->run_dir[i], &st) != 0 ||
		    !S_ISDIR(st.st_mode) || st.st_uid != 0)
			continue;
		r = chown_path(AT_FDCWD, plan->run_dir[i], plan->run_dir[i], plan->uid,
			       plan->gid, err, errlen);
		if (r)
			return r;
	}
	return 0;
}

/* ---- capabilities ---- */

static bool keep(unsigned long cap, uint64_t mask)
{
	return cap < 64 && (mask & (UINT64_C(1) << cap));
}

/* Returns how many capabilities outside the kept ones remain. */
static int bounding_shrink(bool must, uint64_t mask, char *err, size_t errlen)
{
	unsigned long cap;
	int left = 0, r;

	for (cap = 0;; cap++) {
		r = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
		if (r < 0)
			break;   /* EINVAL: past the last capability of this kernel */
		if (r == 0 || keep(cap, mask))
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0)
			continue;
		if (must)
			return sys_fail(err, errlen, "cannot drop capability %lu from the "
					"bounding set", cap);
		left++;
	}
	return left;
}

static int switch_user(const struct caps_plan *plan, char *err, size_t errlen)
{
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0 ||
	    setgroups(1, &plan->gid) != 0 ||
	    setresgid(plan->gid, plan->gid, plan->gid) != 0 ||
	    setresuid(plan->uid, plan->uid, plan->uid) != 0)
		return sys_fail(err, errlen, "cannot switch to uid %u gid %u",
				(unsigned)plan->uid, (unsigned)plan->gid);
	if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) != 0)
		return sys_fail(err, errlen, "PR_SET_KEEPCAPS");
	return 0;
}

/* Permitted = effective = the kept capabilities we still have; nothing
 * inheritable, nothing ambient. Returns the mask set. */
static int caps_set_kept(uint64_t mask, uint64_t *kept, char *err, size_t errlen)
{
	cap_value_t have[N_KEEP];
	cap_flag_value_t v;
	cap_t cur = cap_get_proc(), want = cap_init();
	int n = 0, r = 0;
	size_t i;

	*kept = 0;
	if (!cur || !want) {
		r = -ENOMEM;
		goto out;
	}
	for (i = 0; i < N_KEEP; i++) {
		if (keep((unsigned long)keep_caps[i], mask) &&
		    cap_get_flag(cur, keep_caps[i], CAP_PERMITTED, &v) == 0 && v == CAP_SET) {
			have[n++] = keep_caps[i];
			*kept |= UINT64_C(1) << keep_caps[i];
		}
	}
	if (n && (cap_set_flag(want, CAP_PERMITTED, n, have, CAP_SET) != 0 ||
		  cap_set_flag(want, CAP_EFFECTIVE, n, have, CAP_SET) != 0)) {
		r = -EINVAL;
		goto out;
	}
	if (cap_set_proc(want) != 0) {
		r = sys_fail(err, errlen, "cannot set capabilities");
		goto out;
	}
	/* Already empty through the inheritable set; explicit for old kernels' sake
	 * (EINVAL before Linux 4.3: there is no ambient set to clear). */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
		r = sys_fail(err, errlen, "cannot clear the ambient capabilities");
out:
	cap_free(cur);
	cap_free(want);
	return r;
}

int caps_read_status(struct caps_status *st)
{
	static const struct {
		const char *key;
		size_t off;
	} fields[] = {
		{ "CapInh:", offsetof(struct caps_status, inh) },
		{ "CapPrm:", offsetof(struct caps_status, prm) },
		{ "CapEff:", offsetof(struct caps_status, eff) },
		{ "CapBnd:", offsetof(struct caps_status, bnd) },
		{ "CapAmb:", offsetof(struct caps_status, amb) },
	};
	char line[256];
	unsigned seen = 0;
	FILE *f;
	size_t i;

	memset(st, 0, sizeof(*st));
	f = fopen("/proc/self/status", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
			size_t kl = strlen(fields[i].key);
			uint64_t v;

			if (strncmp(line, fields[i].key, kl) != 0)
				continue;
			v = strtoull(line + kl, NULL, 16);
			memcpy((char *)st + fields[i].off, &v, sizeof(v));
			seen |= 1u << i;
		}
		if (strncmp(line, "NoNewPrivs:", 11) == 0)
			st->no_new_privs = strtol(line + 11, NULL, 10) == 1;
	}
	fclose(f);
	return seen == (1u << (sizeof(fields) / sizeof(fields[0]))) - 1 ? 0 : -EIO;
}

static void caps_names(uint64_t mask, char *buf, size_t len)
{
	size_t off = 0;
	unsigned c;

	buf[0] = '\0';
	for (c = 0; c < 64 && off < len; c++) {
		char *name;

		if (!(mask & (UINT64_C(1) << c)))
			continue;
		name = cap_to_name((cap_value_t)c);
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? " " : "",
					name ? name : "?");
		cap_free(name);
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

/* After the switch: the directories hipd writes must still be writable. */
static int check_writable(const struct hipd_conf *conf, char *err, size_t errlen)
{
	/* ENOENT: there is no state directory (R1 counters not persisted) */
	if (conf->state_dir[0] && access(conf->state_dir, W_OK | X_OK) != 0 && errno != ENOENT) {
		snprintf(err, errlen, "state_dir %s is not writable by user %s (uid %u): %s "
			 "(is a parent directory closed to that user?)",
			 conf->state_dir, conf->user, (unsigned)getuid(), strerror(errno));
		return -EACCES;
	}
	return 0;
}

int caps_hand_over(const struct caps_plan *plan, const struct hipd_conf *conf, char *err,
		   size_t errlen)
{
	return plan->switch_user ? hand_over_files(plan, conf, err, errlen) : 0;
}

int caps_drop(const struct caps_plan *plan, const struct hipd_conf *conf, char *err,
	      size_t errlen)
{
	int r = caps_hand_over(plan, conf, err, errlen);

	return r ? r : caps_drop_to(plan, conf, CAPS_KEEP_MASK, err, errlen);
}

int caps_drop_to(const struct caps_plan *plan, const struct hipd_conf *conf, uint64_t mask,
		 char *err, size_t errlen)
{
	struct caps_status st;
	char names[128];
	uint64_t kept;
	int r, left;

	mask &= CAPS_KEEP_MASK;
	/* Root has CAP_SETPCAP for this; unprivileged (systemd User=) has not,
	 * and relies on CapabilityBoundingSet= having done it. */
	left = bounding_shrink(plan->root, mask, err, errlen);
	if (left < 0)
		return left;
	if (plan->switch_user) {
		r = switch_user(plan, err, errlen);
		if (r)
			return r;
	}
	r = caps_set_kept(mask, &kept, err, errlen);
	if (r)
		return r;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return sys_fail(err, errlen, "PR_SET_NO_NEW_PRIVS");
	if (plan->switch_user) {
		r = check_writable(conf, err, errlen);
		if (r)
			return r;
	}
	r = caps_read_status(&st);
	if (r == 0 && (st.eff & ~mask || st.prm & ~mask || st.inh ||
		       st.amb || (plan->root && st.bnd & ~mask))) {
		snprintf(err, errlen, "capabilities left after the drop: permitted %016" PRIx64
			 ", bounding %016" PRIx64, st.prm, st.bnd);
		return -EPERM;
	}
	caps_names(kept, names, sizeof(names));
	if (!mask)   /* the engine of the privilege separation (privsep.c) */
		log_notice("privsep: engine as uid %u gid %u, no capabilities", (unsigned)getuid(),
			   (unsigned)getgid());
	else
		log_notice("running as uid %u gid %u with capabilities: %s", (unsigned)getuid(),
			   (unsigned)getgid(), names);
	if (left > 0 && mask)
		log_warn("%d other capabilities remain in the bounding set (no CAP_SETPCAP to "
			 "drop them): set CapabilityBoundingSet=CAP_NET_ADMIN CAP_NET_RAW", left);
	else if (left > 0)
		log_info("%d capabilities remain in the bounding set (no CAP_SETPCAP to drop "
			 "them); none is permitted, and no_new_privs keeps it so", left);
	if (kept != mask)
		log_warn("started without CAP_NET_ADMIN and CAP_NET_RAW: no raw sockets or kernel "
			 "SAs can be opened from now on");
	return 0;
}
