/*
 * check_uesp.c - the userspace ESP datapath end to end (hipd/uesp*.c,
 * hipd/tun.c): runs tests/netns/uesp-pair.sh, which puts tools/uesp-pair
 * (hand-made SA pair, no base exchange) in two network namespaces and
 * checks the first-packet hold queue, pings both ways, a TCP transfer
 * compared by SHA-256, and that the veth carries only ESP, over IPv6 (AES-GCM)
 * and IPv4 (AES-CBC + HMAC-SHA-256) locators. Needs root, /dev/net/tun and
 * network namespaces; says so and passes where they are missing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

START_TEST(test_uesp_netns)
{
	char cmd[4096];
	const char *build = getenv("abs_builddir");
	int rc;

	if (geteuid() != 0 || access("/dev/net/tun", R_OK | W_OK) != 0 ||
	    system("ip netns list >/dev/null 2>&1") != 0) {
		fprintf(stderr, "check_uesp: needs root, /dev/net/tun and ip netns: skipped\n");
		return;
	}
	if (!build)
		build = ".";
	/* the script finds tools/uesp-pair through BUILD */
	snprintf(cmd, sizeof(cmd), "BUILD=$(cd %s && pwd) bash %s 20", build,
		 unit_srcpath("tests/netns/uesp-pair.sh"));
	rc = system(cmd);
	ck_assert_msg(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "uesp-pair.sh failed (%d)", rc);
}
END_TEST

static Suite *uesp_suite(void)
{
	Suite *s = suite_create("uesp");
	TCase *tc = tcase_create("netns");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_uesp_netns);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(uesp_suite)
