/*
 * check_caps.c - least privilege (caps.h): the key file checks, the user
 * lookup, and the drop itself, each drop in a child process whose
 * /proc/self/status is read back: exactly CAP_NET_ADMIN + CAP_NET_RAW
 * permitted, effective and bounding, nothing inheritable or ambient,
 * no_new_privs, the user's uid and gid, and the files it must write.
 *
 * The drops need root; as another user only the file checks run.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "privsep/caps.h"
#include "base/conf.h"
#include "base/log.h"
#include "unit.h"

#define KEEP CAPS_KEEP_MASK

static char base[40], keyf[96], statedir[96], rundir[96], prerun[96];
static struct hipd_conf conf;
static uid_t nobody_uid;
static gid_t nobody_gid;

static void write_file(const char *path, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "x\n", 2), 2);
	ck_assert_int_eq(fchmod(fd, mode), 0);   /* whatever the umask */
	close(fd);
}

static void setup(void)
{
	struct passwd *pw = getpwnam("nobody");

	ck_assert_ptr_nonnull(pw);
	nobody_uid = pw->pw_uid;
	nobody_gid = pw->pw_gid;
	strcpy(base, "/tmp/check_caps.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(keyf, sizeof(keyf), "%s/key.pem", base);
	snprintf(statedir, sizeof(statedir), "%s/state", base);
	snprintf(rundir, sizeof(rundir), "%s/run", base);
	snprintf(prerun, sizeof(prerun), "%s/prerun", base);
	hipd_conf_defaults(&conf);
	strcpy(conf.hi_file, keyf);
	strcpy(conf.state_dir, statedir);
	snprintf(conf.pid_file, sizeof(conf.pid_file), "%s/hipd.pid", rundir);
	snprintf(conf.control_socket, sizeof(conf.control_socket), "%s/hipd.sock", prerun);
	log_open("check_caps", LOG_DEST_STDERR);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	ck_assert_int_eq(system(cmd), 0);
}

/* ---- the child that drops ---- */

struct child_out {
	int ret;
	char err[HIPD_CONF_ERR_MAX];
	struct caps_status before, after;
	uid_t uid[3];
	gid_t gid[3];
	int ngroups;
	gid_t groups[8];
};

typedef void (*child_fn)(struct child_out *o);

static void in_child(child_fn fn, struct child_out *o)
{
	int p[2], status;
	ssize_t n;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct child_out c;

		memset(&c, 0, sizeof(c));
		fn(&c);
		caps_read_status(&c.after);
		getresuid(&c.uid[0], &c.uid[1], &c.uid[2]);
		getresgid(&c.gid[0], &c.gid[1], &c.gid[2]);
		c.ngroups = getgroups(8, c.groups);
		_exit(write(p[1], &c, sizeof(c)) == (ssize_t)sizeof(c) ? 0 : 1);
	}
	close(p[1]);
	n = read(p[0], o, sizeof(*o));
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child failed: %d", status);
	ck_assert_int_eq(n, sizeof(*o));
}

static void assert_only_kept(const struct child_out *o, uid_t uid, gid_t gid)
{
	ck_assert_msg(o->ret == 0, "caps_drop: %d %s", o->ret, o->err);
	ck_assert_uint_eq(o->after.eff, KEEP);
	ck_assert_uint_eq(o->after.prm, KEEP);
	ck_assert_uint_eq(o->after.bnd, KEEP);
	ck_assert_uint_eq(o->after.inh, 0);
	ck_assert_uint_eq(o->after.amb, 0);
	ck_assert(o->after.no_new_privs);
	ck_assert(o->uid[0] == uid && o->uid[1] == uid && o->uid[2] == uid);
	ck_assert(o->gid[0] == gid && o->gid[1] == gid && o->gid[2] == gid);
}

/* ---- the key file ---- */

START_TEST(test_key_modes)
{
	static const struct { mode_t mode; int ret; const char *shown; } cases[] = {
		{ 0600, 0, NULL }, { 0400, 0, NULL },
		{ 0640, -EACCES, "mode 0640" }, { 0604, -EACCES, "mode 0604" },
		{ 0620, -EACCES, "mode 0620" }, { 0644, -EACCES, "mode 0644" },
		{ 0601, -EACCES, "mode 0601" },
	};
	char err[HIPD_CONF_ERR_MAX];
	size_t i;

	ck_assert_int_eq(caps_key_check(keyf, 0, err, sizeof(err)), -ENOENT);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_file(keyf, cases[i].mode);
		err[0] = '\0';
		ck_assert_int_eq(caps_key_check(keyf, geteuid(), err, sizeof(err)), cases[i].ret);
		if (!cases[i].shown)
			continue;
		/* the message names the file and its mode */
		ck_assert_msg(strstr(err, keyf) && strstr(err, cases[i].shown), "%s", err);
	}
	ck_assert_int_eq(caps_key_check(base, 0, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
}
END_TEST

START_TEST(test_key_owner)
{
	char err[HIPD_CONF_ERR_MAX];

	write_file(keyf, 0600);
	ck_assert_int_eq(chown(keyf, 12345, 12345), 0);
	ck_assert_int_eq(caps_key_check(keyf, nobody_uid, err, sizeof(err)), -EPERM);
	ck_assert_msg(strstr(err, keyf) && strstr(err, "uid 12345"), "%s", err);
	/* the user hipd will run as may own it */
	ck_assert_int_eq(caps_key_check(keyf, 12345, err, sizeof(err)), 0);
}
END_TEST

/* ---- before the start ---- */

START_TEST(test_prepare_unknown_user)
{
	struct caps_plan plan;
	char err[HIPD_CONF_ERR_MAX];

	strcpy(conf.user, "hipd-no-such-user");
	ck_assert_int_eq(caps_prepare(&plan, &conf, err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, "user 'hipd-no-such-user' does not exist") &&
		      strstr(err, "user = root"), "%s", err);
	/* root stays root only when asked to */
	strcpy(conf.user, "root");
	ck_assert_int_eq(caps_prepare(&plan, &conf, err, sizeof(err)), 0);
	ck_assert(plan.root && !plan.switch_user && plan.uid == 0);
	strcpy(conf.user, "nobody");
	ck_assert_int_eq(caps_prepare(&plan, &conf, err, sizeof(err)), 0);
	ck_assert(plan.switch_user && plan.uid == nobody_uid && plan.gid == nobody_gid);
}
END_TEST

START_TEST(test_prepare_refuses_exposed_key)
{
	struct caps_plan plan;
	char err[HIPD_CONF_ERR_MAX];

	strcpy(conf.user, "root");
	write_file(keyf, 0644);
	ck_assert_int_eq(caps_prepare(&plan, &conf, err, sizeof(err)), -EACCES);
	ck_assert_msg(strstr(err, keyf) && strstr(err, "0644"), "%s", err);
	ck_assert_int_eq(chmod(keyf, 0600), 0);
	ck_assert_int_eq(caps_prepare(&plan, &conf, err, sizeof(err)), 0);
}
END_TEST

/* ---- the drop ---- */

static void drop_as(struct child_out *o)
{
	struct caps_plan plan;

	caps_read_status(&o->before);
	o->ret = caps_prepare(&plan, &conf, o->err, sizeof(o->err));
	/* what hipd opens in between: its pid file directory, state dir */
	if (!o->ret && geteuid() == 0 && mkdir(rundir, 0755) != 0)
		o->ret = -errno;
	if (!o->ret)
		o->ret = caps_drop(&plan, &conf, o->err, sizeof(o->err));
}

START_TEST(test_drop_user_root)
{
	struct child_out o;

	strcpy(conf.user, "root");
	in_child(drop_as, &o);
	ck_assert_uint_ne(o.before.eff, KEEP);
	assert_only_kept(&o, 0, 0);
}
END_TEST

static uid_t owner(const char *path)
{
	struct stat st;

	ck_assert_int_eq(lstat(path, &st), 0);
	return st.st_uid;
}

START_TEST(test_drop_to_user)
{
	char counter[160], other[160];
	struct child_out o;
	struct stat st;

	ck_assert_int_eq(chmod(base, 0755), 0);
	ck_assert_int_eq(mkdir(statedir, 0700), 0);
	ck_assert_int_eq(mkdir(prerun, 0755), 0);
	snprintf(counter, sizeof(counter), "%s/r1counter-2001:20::1", statedir);
	snprintf(other, sizeof(other), "%s/other", statedir);
	write_file(counter, 0600);
	write_file(other, 0600);
	write_file(keyf, 0600);
	strcpy(conf.user, "nobody");
	in_child(drop_as, &o);
	assert_only_kept(&o, nobody_uid, nobody_gid);
	ck_assert_int_eq(o.ngroups, 1);
	ck_assert_uint_eq(o.groups[0], nobody_gid);
	/* what it writes later is the user's; nothing else changed hands */
	ck_assert_uint_eq(owner(statedir), nobody_uid);
	ck_assert_uint_eq(owner(counter), nobody_uid);
	ck_assert_uint_eq(owner(other), 0);
	ck_assert_uint_eq(owner(keyf), nobody_uid);
	ck_assert_int_eq(stat(keyf, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	ck_assert_uint_eq(owner(rundir), nobody_uid);   /* created after caps_prepare */
	ck_assert_uint_eq(owner(prerun), 0);            /* was there before */
}
END_TEST

START_TEST(test_drop_state_dir_out_of_reach)
{
	struct child_out o;

	/* base stays 0700 root: nobody cannot reach state/ after the switch */
	ck_assert_int_eq(mkdir(statedir, 0700), 0);
	strcpy(conf.user, "nobody");
	in_child(drop_as, &o);
	ck_assert_int_eq(o.ret, -EACCES);
	ck_assert_msg(strstr(o.err, statedir) && strstr(o.err, "not writable by user nobody"),
		      "%s", o.err);
}
END_TEST

/* Like systemd with User=, AmbientCapabilities= (and, if narrow_bounding,
 * CapabilityBoundingSet=) before exec: the process arrives unprivileged
 * with the two capabilities also inheritable and ambient. */
static bool narrow_bounding;

static void become_service(struct child_out *o)
{
	static const cap_value_t two[] = { CAP_NET_ADMIN, CAP_NET_RAW };
	cap_t c = cap_init();
	unsigned long cap;

	for (cap = 0; narrow_bounding && prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
		if (cap != CAP_NET_ADMIN && cap != CAP_NET_RAW)
			prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setgroups(1, &nobody_gid) ||
	    setresgid(nobody_gid, nobody_gid, nobody_gid) ||
	    setresuid(nobody_uid, nobody_uid, nobody_uid) ||
	    cap_set_flag(c, CAP_PERMITTED, 2, two, CAP_SET) ||
	    cap_set_flag(c, CAP_EFFECTIVE, 2, two, CAP_SET) ||
	    cap_set_flag(c, CAP_INHERITABLE, 2, two, CAP_SET) || cap_set_proc(c) ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_ADMIN, 0, 0) ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_RAW, 0, 0))
		o->ret = -errno;
	cap_free(c);
	if (!o->ret)
		drop_as(o);
}

START_TEST(test_drop_started_unprivileged)
{
	struct child_out o;

	ck_assert_int_eq(chmod(base, 0755), 0);
	strcpy(conf.user, "nobody");
	narrow_bounding = true;
	in_child(become_service, &o);
	ck_assert_uint_eq(o.before.amb, KEEP);   /* what systemd hands over */
	ck_assert_uint_eq(o.before.inh, KEEP);
	assert_only_kept(&o, nobody_uid, nobody_gid);
}
END_TEST

/* Without CapabilityBoundingSet= an unprivileged hipd cannot shrink the
 * bounding set (no CAP_SETPCAP); it still starts with only the two. */
START_TEST(test_drop_unprivileged_wide_bounding)
{
	struct child_out o;

	ck_assert_int_eq(chmod(base, 0755), 0);
	strcpy(conf.user, "nobody");
	narrow_bounding = false;
	in_child(become_service, &o);
	ck_assert_msg(o.ret == 0, "%d %s", o.ret, o.err);
	ck_assert_uint_eq(o.after.eff, KEEP);
	ck_assert_uint_eq(o.after.prm, KEEP);
	ck_assert_uint_eq(o.after.amb, 0);
	ck_assert_uint_ne(o.after.bnd, KEEP);
	ck_assert(o.after.no_new_privs);
}
END_TEST

static Suite *caps_suite(void)
{
	Suite *s = suite_create("caps");
	TCase *files = tcase_create("key file"), *drop = tcase_create("drop");

	tcase_add_checked_fixture(files, setup, teardown);
	tcase_add_test(files, test_key_modes);
	suite_add_tcase(s, files);
	if (geteuid() != 0) {
		fprintf(stderr, "check_caps: not root: user switch and drop tests not run\n");
		return s;
	}
	tcase_add_test(files, test_key_owner);
	tcase_add_checked_fixture(drop, setup, teardown);
	tcase_add_test(drop, test_prepare_unknown_user);
	tcase_add_test(drop, test_prepare_refuses_exposed_key);
	tcase_add_test(drop, test_drop_user_root);
	tcase_add_test(drop, test_drop_to_user);
	tcase_add_test(drop, test_drop_state_dir_out_of_reach);
	tcase_add_test(drop, test_drop_started_unprivileged);
	tcase_add_test(drop, test_drop_unprivileged_wide_bounding);
	suite_add_tcase(s, drop);
	return s;
}

UNIT_MAIN(caps_suite)
