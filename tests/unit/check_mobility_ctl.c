/*
 * check_mobility_ctl.c - the locator and rekey commands (hipd/engine/update/mobility_ctl.c)
 * through a real control connection: add/del/hide/unhide locator, show
 * locators (text and JSON), rekey; usage errors, permission (read-only
 * peers may only show), the readdress started by a change.
 *
 * The UPDATE entry points are replaced by recorders here: the commands'
 * job is to call them (and report their errors), not to run the protocol.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "control/control.h"
#include "ctl_harness.h"
#include "engine/assoc/hadb.h"
#include "hipd.h"
#include "net/locset.h"
#include "engine/update/mobility_ctl.h"
#include "unit.h"
#include "engine/update/update.h"

#define NOBODY 65534
#define NOGROUP 65534

static struct hipd d;
static unsigned changed_calls;
static int rekey_result;
static struct hip_hit rekey_peer;
static unsigned rekey_calls;

void upd_local_addrs_changed(struct hipd *dd)
{
	ck_assert_ptr_eq(dd, &d);
	changed_calls++;
}

int upd_rekey_peer(struct hipd *dd, const struct hip_hit *peer)
{
	ck_assert_ptr_eq(dd, &d);
	rekey_peer = *peer;
	rekey_calls++;
	return rekey_result;
}

static void setup(void)
{
	ctl_setup();
	make_server("nogroup");    /* read-only for its members (test_permissions) */
	memset(&d, 0, sizeof(d));
	changed_calls = rekey_calls = 0;
	rekey_result = 0;
	d.control = ctl;
	d.loop = loop;
	ck_assert_int_eq(locset_create(&d.locset), 0);
	ck_assert_int_eq(hadb_create(&d.hadb), 0);
	ck_assert_int_eq(mobility_control_register(ctl, &d), 0);
}

static void teardown(void)
{
	locset_free(d.locset);
	hadb_free(d.hadb);
	ctl_teardown();
}

static void kernel_add(const char *s, int ifindex)
{
	struct hip_addr a;

	ck_assert_int_eq(hip_addr_from_str(s, &a), 0);
	ck_assert_int_eq(locset_add(d.locset, &a, ifindex, false), 0);
}

static bool listed(const char *s)
{
	struct hip_addr a;

	ck_assert_int_eq(hip_addr_from_str(s, &a), 0);
	return locset_has(d.locset, &a);
}

START_TEST(test_add_del_locator)
{
	struct resp r;
	int fd = client_pair();

	kernel_add("192.0.2.1", 1);
	REQ(fd, 0, &r, "add", "locator", "198.51.100.9");
	ck_assert_int_eq(r.status, CTL_OK);
	ck_assert_str_eq(r.text, "added locator 198.51.100.9");
	ck_assert(listed("198.51.100.9"));
	ck_assert_uint_eq(changed_calls, 1);
	REQ(fd, 0, &r, "add", "locator", "198.51.100.9");
	ck_assert_int_eq(r.status, CTL_EFAILED);
	ck_assert_str_eq(r.text, "198.51.100.9 is already a manual locator");
	ck_assert_uint_eq(changed_calls, 1);
	/* a learnt address made manual: a change (it becomes preferred) */
	REQ(fd, CTL_F_JSON, &r, "add", "locator", "192.0.2.1");
	ck_assert_int_eq(r.status, CTL_OK);
	ck_assert(json_valid(r.text));
	ck_assert_str_eq(r.text, "{\"result\": \"added locator\", \"address\": \"192.0.2.1\"}");
	ck_assert_uint_eq(changed_calls, 2);
	/* bad addresses: said why, nothing sent */
	REQ(fd, 0, &r, "add", "locator", "127.0.0.1");
	ck_assert_int_eq(r.status, CTL_EUSAGE);
	ck_assert_str_eq(r.text, "'127.0.0.1' is a loopback address, never a locator");
	REQ(fd, 0, &r, "add", "locator", "2001:2a::1");
	ck_assert_str_eq(r.text, "'2001:2a::1' is a HIT (2001:20::/28), never a locator");
	REQ(fd, 0, &r, "add", "locator", "fe80::1");
	ck_assert_str_eq(r.text, "'fe80::1' is a link-local address, never a locator");
	REQ(fd, 0, &r, "add", "locator", "host.example");
	ck_assert_int_eq(r.status, CTL_EUSAGE);
	ck_assert_str_eq(r.text, "'host.example' is not an IPv4 or IPv6 address");
	REQ(fd, 0, &r, "add", "locator");
	ck_assert_int_eq(r.status, CTL_EUSAGE);
	ck_assert_uint_eq(changed_calls, 2);
	/* del: whatever its origin */
	REQ(fd, 0, &r, "del", "locator", "192.0.2.1");
	ck_assert_int_eq(r.status, CTL_OK);
	ck_assert_str_eq(r.text, "removed locator 192.0.2.1");
	ck_assert(!listed("192.0.2.1"));
	ck_assert_uint_eq(changed_calls, 3);
	REQ(fd, 0, &r, "del", "locator", "192.0.2.1");
	ck_assert_int_eq(r.status, CTL_ENOENT);
	ck_assert_str_eq(r.text, "192.0.2.1 is not one of our locators");
	ck_assert_uint_eq(changed_calls, 3);
	close(fd);
}
END_TEST

START_TEST(test_hide_show)
{
	char want[1024];
	struct resp r;
	int fd = client_pair();

	REQ(fd, 0, &r, "show", "locators");
	ck_assert_int_eq(r.status, CTL_OK);
	ck_assert_str_eq(r.text, "no locators");
	/* (no address watcher here: links are shown by index, "#1") */
	kernel_add("192.0.2.1", 1);
	kernel_add("fd00::1", 1);
	kernel_add("198.51.100.1", 1);
	REQ(fd, 0, &r, "hide", "locator", "192.0.2.1");
	ck_assert_int_eq(r.status, CTL_OK);
	ck_assert_str_eq(r.text, "hidden locator 192.0.2.1");
	ck_assert(!listed("192.0.2.1"));
	ck_assert_uint_eq(changed_calls, 1);
	REQ(fd, 0, &r, "hide", "locator", "192.0.2.1");
	ck_assert_int_eq(r.status, CTL_EFAILED);
	ck_assert_str_eq(r.text, "192.0.2.1 is already hidden");
	/* hiding an address we do not have: kept for later, no readdress */
	REQ(fd, 0, &r, "hide", "locator", "203.0.113.7");
	ck_assert_int_eq(r.status, CTL_OK);
	ck_assert_uint_eq(changed_calls, 1);
	REQ(fd, 0, &r, "add", "locator", "10.1.1.1");
	REQ(fd, 0, &r, "show", "locators");
	ck_assert_int_eq(r.status, CTL_OK);
	snprintf(want, sizeof(want), "%-39s  %-16s  %s\n%-39s  %-16s  %s\n%-39s  %-16s  %s\n"
		 "%-39s  %s\n%-39s  %-16s  %s\nhidden: 192.0.2.1 203.0.113.7",
		 "ADDRESS", "INTERFACE", "FLAGS", "192.0.2.1", "#1", "hidden",
		 "fd00::1", "#1", "preferred", "198.51.100.1", "#1",
		 "10.1.1.1", "-", "preferred manual");
	ck_assert_str_eq(r.text, want);
	REQ(fd, CTL_F_JSON, &r, "show", "locators");
	ck_assert_int_eq(r.status, CTL_OK);
	ck_assert(json_valid(r.text));
	ck_assert_str_eq(r.text, "{\"locators\": ["
			 "{\"address\": \"192.0.2.1\", \"ifindex\": 1, \"interface\": \"#1\", "
			 "\"preferred\": false, \"manual\": false, \"hidden\": true}, "
			 "{\"address\": \"fd00::1\", \"ifindex\": 1, \"interface\": \"#1\", "
			 "\"preferred\": true, \"manual\": false, \"hidden\": false}, "
			 "{\"address\": \"198.51.100.1\", \"ifindex\": 1, \"interface\": \"#1\", "
			 "\"preferred\": false, \"manual\": false, \"hidden\": false}, "
			 "{\"address\": \"10.1.1.1\", \"ifindex\": 0, \"interface\": null, "
			 "\"preferred\": true, \"manual\": true, \"hidden\": false}], "
			 "\"hidden\": [\"192.0.2.1\", \"203.0.113.7\"]}");
	REQ(fd, 0, &r, "unhide", "locator", "192.0.2.1");
	ck_assert_int_eq(r.status, CTL_OK);
	ck_assert_str_eq(r.text, "unhidden locator 192.0.2.1");
	ck_assert(listed("192.0.2.1"));
	REQ(fd, 0, &r, "unhide", "locator", "192.0.2.1");
	ck_assert_int_eq(r.status, CTL_ENOENT);
	ck_assert_str_eq(r.text, "192.0.2.1 is not hidden");
	REQ(fd, CTL_F_JSON, &r, "unhide", "locator", "224.0.0.1");
	ck_assert_int_eq(r.status, CTL_EUSAGE);
	ck_assert(json_valid(r.text));
	ck_assert_ptr_nonnull(strstr(r.text, "is a multicast address, never a locator"));
	close(fd);
}
END_TEST

START_TEST(test_rekey)
{
	struct hip_hit want;
	struct resp r;
	int fd = client_pair();

	REQ(fd, 0, &r, "rekey", "2001:2a::10");
	ck_assert_int_eq(r.status, CTL_OK);
	ck_assert_str_eq(r.text, "rekeying the association with 2001:2a::10");
	ck_assert_uint_eq(rekey_calls, 1);
	ck_assert_int_eq(hip_hit_from_str("2001:2a::10", &want), 0);
	ck_assert_int_eq(hip_hit_cmp(&rekey_peer, &want), 0);
	REQ(fd, CTL_F_JSON, &r, "rekey", "2001:2a::10");
	ck_assert(json_valid(r.text));
	ck_assert_str_eq(r.text, "{\"result\": \"rekeying\", \"hit\": \"2001:2a::10\"}");
	rekey_result = -ENOENT;
	REQ(fd, 0, &r, "rekey", "2001:2a::10");
	ck_assert_int_eq(r.status, CTL_ENOENT);
	ck_assert_str_eq(r.text, "no association with 2001:2a::10");
	rekey_result = -EBUSY;
	REQ(fd, 0, &r, "rekey", "2001:2a::10");
	ck_assert_int_eq(r.status, CTL_EFAILED);
	ck_assert_str_eq(r.text, "an UPDATE with 2001:2a::10 is outstanding; try again when it "
			 "is acknowledged");
	rekey_result = -ENOTCONN;
	REQ(fd, 0, &r, "rekey", "2001:2a::10");
	ck_assert_int_eq(r.status, CTL_EFAILED);
	ck_assert_str_eq(r.text, "the association with 2001:2a::10 is not established, "
			 "not ESTABLISHED");
	ck_assert_uint_eq(rekey_calls, 5);
	REQ(fd, 0, &r, "rekey", "2001:db8::1");
	ck_assert_int_eq(r.status, CTL_EUSAGE);
	ck_assert_str_eq(r.text, "'2001:db8::1' is not a HIT (not in the ORCHIDv2 prefix "
			 "2001:20::/28)");
	ck_assert_uint_eq(rekey_calls, 5);
	/* no engine: said so, UPDATE not called */
	hadb_free(d.hadb);
	d.hadb = NULL;
	REQ(fd, 0, &r, "rekey", "2001:2a::10");
	ck_assert_int_eq(r.status, CTL_EFAILED);
	ck_assert_str_eq(r.text, "the protocol engine is not running");
	ck_assert_uint_eq(rekey_calls, 5);
	/* no locator set: said so */
	locset_free(d.locset);
	d.locset = NULL;
	REQ(fd, 0, &r, "show", "locators");
	ck_assert_int_eq(r.status, CTL_EFAILED);
	ck_assert_str_eq(r.text, "hipd is not watching its addresses (no locator set)");
	close(fd);
}
END_TEST

/* In a child running as nobody:nogroup (a member of the control group),
 * send argv over the socket and return the status, or 100+ on failure. */
static int nobody_request(int argc, const char *const *argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint8_t buf[CTL_HDR_LEN + 4096];
	struct timeval tv = { .tv_sec = 5 };
	size_t have = 0;
	int fd, n;

	if (setgroups(0, NULL) != 0 || setgid(NOGROUP) != 0 || setuid(NOBODY) != 0)
		return 101;
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		return 102;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	strcpy(sa.sun_path, sock_path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		return 103;
	n = ctl_request_encode(buf, sizeof(buf), 0, argc, argv);
	if (n < 0 || write(fd, buf, (size_t)n) != n)
		return 104;
	while (have < CTL_HDR_LEN + 1) {
		ssize_t r = read(fd, buf + have, sizeof(buf) - have);

		if (r <= 0)
			return 105;
		have += (size_t)r;
	}
	return buf[CTL_HDR_LEN];
}

static int as_nobody(int argc, const char *const *argv)
{
	int status, rounds;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(nobody_request(argc, argv));
	for (rounds = 0; rounds < 3000; rounds++) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			ck_assert(WIFEXITED(status));
			return WEXITSTATUS(status);
		}
		hip_loop_run_once(loop, 10);
	}
	kill(pid, SIGKILL);
	ck_abort_msg("child did not finish");
	return -1;
}

START_TEST(test_permissions)
{
	static const char *const changes[][3] = {
		{ "add", "locator", "192.0.2.1" }, { "del", "locator", "192.0.2.1" },
		{ "hide", "locator", "192.0.2.1" }, { "unhide", "locator", "192.0.2.1" },
		{ "rekey", "2001:2a::10", NULL },
	};
	static const char *const show[] = { "show", "locators" };
	char run[160];
	size_t i;

	if (geteuid() != 0) {
		fprintf(stderr, "test_permissions: needs root to setuid, skipped\n");
		return;
	}
	/* let nobody reach the socket: SO_PEERCRED is what decides */
	snprintf(run, sizeof(run), "%s/run", dir);
	ck_assert_int_eq(chmod(dir, 0755), 0);
	ck_assert_int_eq(chmod(run, 0755), 0);
	ck_assert_int_eq(chmod(sock_path, 0666), 0);
	kernel_add("192.0.2.1", 1);
	for (i = 0; i < sizeof(changes) / sizeof(changes[0]); i++)
		ck_assert_int_eq(as_nobody(changes[i][2] ? 3 : 2, changes[i]), CTL_EPERM);
	ck_assert_uint_eq(rekey_calls, 0);
	ck_assert_uint_eq(changed_calls, 0);
	ck_assert(listed("192.0.2.1"));
	ck_assert_int_eq(as_nobody(2, show), CTL_OK);
}
END_TEST

static Suite *mobility_ctl_suite(void)
{
	Suite *s = suite_create("mobility_ctl");
	TCase *tc = tcase_create("commands");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_add_del_locator);
	tcase_add_test(tc, test_hide_show);
	tcase_add_test(tc, test_rekey);
	tcase_add_test(tc, test_permissions);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(mobility_ctl_suite)
