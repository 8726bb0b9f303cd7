/*
 * caps.h - least privilege for the hipd process: the user switch, the two
 * capabilities it keeps, and the checks on the files it owns.
 *
 * Started as root (by hand, or by a unit without User=), hipd opens what
 * needs root first (raw sockets, XFRM netlink, key file, control socket,
 * pid file), then caps_drop() hands it the files it must write later,
 * switches to conf->user and keeps exactly CAP_NET_ADMIN and CAP_NET_RAW
 * (permitted and effective; nothing inheritable or ambient, nothing else in
 * the bounding set; no_new_privs). Started unprivileged with those two
 * capabilities (systemd: User=hipd, AmbientCapabilities=), it only sheds
 * the rest. user = root keeps uid 0 but still only the two capabilities.
 */
#ifndef HIPD_CAPS_H
#define HIPD_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/base.h"

/* The capabilities hipd keeps: XFRM/routes/TUN, and raw sockets. */
#define CAPS_KEEP_MASK ((UINT64_C(1) << 12) | (UINT64_C(1) << 13))  /* NET_ADMIN, NET_RAW */

enum { CAPS_RUN_DIRS = 2 };   /* the pid file's and the control socket's */

struct caps_plan {
	bool root;                    /* started with euid 0 */
	bool switch_user;             /* root, and user is not root */
	uid_t uid;                    /* the user to run as */
	gid_t gid;
	char run_dir[CAPS_RUN_DIRS][HIPD_PATH_MAX];
	bool run_dir_existed[CAPS_RUN_DIRS];
};

/* Before anything is opened: when root, look conf->user up (a missing user
 * is refused unless it is "root"); check the key file (caps_key_check);
 * note which run directories exist already (those hipd creates become the
 * user's). 0, or -errno with the reason in err. */
int caps_prepare(struct caps_plan *plan, const struct hipd_conf *conf, char *err,
		 size_t errlen);

/* The host identity key, if it exists: a regular file, not accessible by
 * group or others (RFC 7401 §3: the HI private key is the host's only
 * secret), owned by the running user, root or owner_uid. -ENOENT if it
 * does not exist (hipd generates it), -EACCES / -EPERM / -EINVAL with the
 * file, its mode or its owner in err. */
int caps_key_check(const char *path, uid_t owner_uid, char *err, size_t errlen);

/* After the engine has started: give state_dir (and its files), the key
 * file and the run directories hipd created to the user, switch to it and
 * drop every capability but CAPS_KEEP_MASK. Logs what it did. 0, or -errno
 * with the reason in err (then hipd must not go on). */
int caps_drop(const struct caps_plan *plan, const struct hipd_conf *conf, char *err,
	      size_t errlen);
/* caps_drop in two steps, for the privilege separation (priv.h): the
 * hand-over of the files (before the fork), then the switch keeping only
 * mask (a subset of CAPS_KEEP_MASK; 0 for the engine: nothing permitted,
 * effective or, when started as root, bounding). */
int caps_hand_over(const struct caps_plan *plan, const struct hipd_conf *conf, char *err,
		   size_t errlen);
int caps_drop_to(const struct caps_plan *plan, const struct hipd_conf *conf, uint64_t mask,
		 char *err, size_t errlen);

/* The capability sets of this process as /proc/self/status shows them
 * (for the log and the tests). -errno if unreadable. */
struct caps_status {
	uint64_t inh, prm, eff, bnd, amb;
	bool no_new_privs;
};
int caps_read_status(struct caps_status *st);

#endif
