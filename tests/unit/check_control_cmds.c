/*
 * check_control_cmds.c - the daemon layer's control commands through a real
 * control connection: add/del/show map, set loglevel, show config, reload.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "control/control.h"
#include "ctl_harness.h"
#include "daemon.h"
#include "net/hosts.h"
#include "base/log.h"
#include "unit.h"

static struct hipd_daemon hd;
static char conf_path[128];

static void daemon_setup(void)
{
	char err[256];

	ctl_setup();
	make_server(NULL);
	memset(&hd, 0, sizeof(hd));
	snprintf(conf_path, sizeof(conf_path), "%s/hipd.conf", dir);
	hd.opts.config_file = conf_path;
	hd.opts.config_explicit = true;
	hipd_conf_defaults(&hd.d.conf);
	ck_assert_int_eq(hipd_conf_finalize(&hd.d.conf, err, sizeof(err)), 0);
	ck_assert_int_eq(hosts_create(&hd.d.hosts), 0);
	hd.d.control = ctl;
	hd.d.loop = loop;
	ck_assert_int_eq(hipd_control_register(&hd, hipd_daemon_reload), 0);
}

static void daemon_teardown(void)
{
	hosts_free(hd.d.hosts);
	ctl_teardown();
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_cmd_maps)
{
	char want[512];
	struct hip_hit hit;
	struct resp r;
	int fd = client_pair();

	REQ(fd, 0, &r, "show", "maps");
	ck_assert_int_eq(r.status, CTL_OK);
	ck_assert_str_eq(r.text, "no mappings\n");
	REQ(fd, 0, &r, "add", "map", "2001:2A:0::10", "192.0.2.10");
	ck_assert_int_eq(r.status, CTL_OK);
	ck_assert_str_eq(r.text, "");
	ck_assert_int_eq(hip_hit_from_str("2001:2a::10", &hit), 0);
	ck_assert_ptr_nonnull(hosts_lookup(hd.d.hosts, &hit));
	REQ(fd, CTL_F_JSON, &r, "add", "map", "2001:2a::10", "2001:db8::10");
	ck_assert_int_eq(r.status, CTL_OK);
	ck_assert_str_eq(r.text, "{}");
	REQ(fd, 0, &r, "add", "map", "2001:2a::9", "10.1.1.1");
	REQ(fd, 0, &r, "add", "map", "2001:2a::10", "192.0.2.10");
	ck_assert_int_eq(r.status, CTL_EFAILED);
	ck_assert_str_eq(r.text, "2001:2a::10 is already mapped to 192.0.2.10");
	REQ(fd, 0, &r, "add", "map", "2001:db8::1", "192.0.2.10");
	ck_assert_int_eq(r.status, CTL_EUSAGE);
	ck_assert_str_eq(r.text, "'2001:db8::1' is not a HIT (not in the ORCHIDv2 prefix "
			 "2001:20::/28)");
	REQ(fd, 0, &r, "add", "map", "foo", "192.0.2.10");
	ck_assert_str_eq(r.text, "'foo' is not a HIT (expected an IPv6 address in "
			 "2001:20::/28)");
	REQ(fd, 0, &r, "add", "map", "2001:2a::10", "300.1.1.1");
	ck_assert_int_eq(r.status, CTL_EUSAGE);
	ck_assert_str_eq(r.text, "'300.1.1.1' is not an IPv4 or IPv6 address");
	REQ(fd, 0, &r, "add", "map", "2001:2a::10", "2001:2a::11");
	ck_assert_str_eq(r.text, "'2001:2a::11' is a HIT (2001:20::/28), not a locator");
	REQ(fd, 0, &r, "show", "maps");
	/* columns of 39 (the longest IPv6 text) and two spaces, sorted by HIT */
	/* every mapped HIT has its LSI, derived (D-20: SHA-256 of the HIT) */
	snprintf(want, sizeof(want), "%-39s  %-39s  %s\n%-39s  %-39s  %s\n%-39s %s\n"
		 "%-39s  %-39s  %s\n%-39s  %-39s  %s\n%-39s %s\n", "HIT", "LOCATOR", "SOURCE",
		 "2001:2a::9", "10.1.1.1", "runtime", "", " lsi=198.19.90.76 (derived)",
		 "2001:2a::10", "192.0.2.10", "runtime", "", "2001:db8::10", "runtime",
		 "", " lsi=198.18.120.148 (derived)");
	ck_assert_str_eq(r.text, want);
	REQ(fd, CTL_F_JSON, &r, "show", "maps");
	ck_assert(json_valid(r.text));
	ck_assert_str_eq(r.text, "{\"maps\":[{\"hit\":\"2001:2a::9\",\"locators\":[{\"address\":"
			 "\"10.1.1.1\",\"source\":\"runtime\"}],\"lsi\":\"198.19.90.76\","
			 "\"lsi_source\":\"derived\"},{\"hit\":\"2001:2a::10\","
			 "\"locators\":[{\"address\":\"192.0.2.10\",\"source\":\"runtime\"},"
			 "{\"address\":\"2001:db8::10\",\"source\":\"runtime\"}],"
			 "\"lsi\":\"198.18.120.148\",\"lsi_source\":\"derived\"}]}");
	REQ(fd, 0, &r, "del", "map", "2001:2a::10", "10.9.9.9");
	ck_assert_int_eq(r.status, CTL_ENOENT);
	ck_assert_str_eq(r.text, "2001:2a::10 is not mapped to 10.9.9.9");
	REQ(fd, 0, &r, "del", "map", "2001:2a::10", "192.0.2.10");
	ck_assert_int_eq(r.status, CTL_OK);
	REQ(fd, 0, &r, "del", "map", "2001:2a::10");
	ck_assert_int_eq(r.status, CTL_OK);
	REQ(fd, 0, &r, "del", "map", "2001:2a::10");
	ck_assert_int_eq(r.status, CTL_ENOENT);
	ck_assert_str_eq(r.text, "no mapping for 2001:2a::10");
	ck_assert_uint_eq(hosts_count(hd.d.hosts), 1);
	close(fd);
}
END_TEST

START_TEST(test_cmd_loglevel_config)
{
	struct resp r;
	int fd = client_pair();

	log_set_level(LOG_INFO);
	REQ(fd, 0, &r, "set", "loglevel", "debug");
	ck_assert_int_eq(r.status, CTL_OK);
	ck_assert_int_eq(log_get_level(), LOG_DEBUG);
	ck_assert_int_eq(hd.d.conf.log_level, LOG_DEBUG);
	REQ(fd, 0, &r, "set", "loglevel", "loud");
	ck_assert_int_eq(r.status, CTL_EUSAGE);
	ck_assert_str_eq(r.text, "'loud' is not a log level (err, warning, notice, info, "
			 "debug)");
	ck_assert_int_eq(log_get_level(), LOG_DEBUG);
	REQ(fd, 0, &r, "show", "config");
	ck_assert_int_eq(r.status, CTL_OK);
	ck_assert_ptr_nonnull(strstr(r.text, "\nlog_level = debug\n"));
	ck_assert_ptr_nonnull(strstr(r.text, "\ndh_groups = 7 8 4 3\n"));
	REQ(fd, CTL_F_JSON, &r, "show", "config");
	ck_assert(json_valid(r.text));
	ck_assert_ptr_nonnull(strstr(r.text, ",\"puzzle_k\":0,"));
	ck_assert_ptr_nonnull(strstr(r.text, ",\"puzzle_auto\":true,"));
	ck_assert_ptr_nonnull(strstr(r.text, ",\"dh_groups\":[7,8,4,3],"));
	ck_assert_ptr_nonnull(strstr(r.text, ",\"hi_file\":\"/etc/hip/hip_host_key.pem\","));
	close(fd);
}
END_TEST

START_TEST(test_cmd_reload)
{
	char text[512];
	struct resp r;
	int fd = client_pair();

	snprintf(text, sizeof(text), "puzzle_k = 4\nhosts_file = %s/hosts\nuser = other\n", dir);
	write_file(conf_path, text);
	snprintf(text, sizeof(text), "%s/hosts", dir);
	write_file(text, "2001:2a::1 192.0.2.1\n");
	REQ(fd, 0, &r, "reload");
	ck_assert_int_eq(r.status, CTL_OK);
	ck_assert_str_eq(r.text, "reloaded\n");
	ck_assert_uint_eq(hd.d.conf.puzzle_k, 4);
	ck_assert_uint_eq(hd.d.puzzle_k, 4);
	ck_assert_str_eq(hd.d.conf.user, "hipd");    /* restart only */
	ck_assert_uint_eq(hosts_count(hd.d.hosts), 1);
	/* a broken file: status 4, the message says where, nothing changes */
	write_file(conf_path, "puzzle_k = 6\nbogus = 1\n");
	REQ(fd, 0, &r, "reload");
	ck_assert_int_eq(r.status, CTL_EFAILED);
	snprintf(text, sizeof(text), "reload failed, nothing changed: %s:2: unknown key 'bogus'",
		 conf_path);
	ck_assert_str_eq(r.text, text);
	ck_assert_uint_eq(hd.d.conf.puzzle_k, 4);
	/* a broken hosts file: same */
	snprintf(text, sizeof(text), "puzzle_k = 6\nhosts_file = %s/hosts\n", dir);
	write_file(conf_path, text);
	snprintf(text, sizeof(text), "%s/hosts", dir);
	write_file(text, "2001:2a::1 192.0.2.1\nnot-a-hit 192.0.2.2\n");
	REQ(fd, CTL_F_JSON, &r, "reload");
	ck_assert_int_eq(r.status, CTL_EFAILED);
	ck_assert(json_valid(r.text));
	ck_assert_ptr_nonnull(strstr(r.text, "/hosts:2: 'not-a-hit' is not a HIT"));
	ck_assert_uint_eq(hd.d.conf.puzzle_k, 4);
	close(fd);
}
END_TEST

static Suite *control_cmds_suite(void)
{
	Suite *s = suite_create("control_cmds");
	TCase *tc = tcase_create("daemon commands");

	tcase_add_checked_fixture(tc, daemon_setup, daemon_teardown);
	tcase_add_test(tc, test_cmd_maps);
	tcase_add_test(tc, test_cmd_loglevel_config);
	tcase_add_test(tc, test_cmd_reload);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(control_cmds_suite)
