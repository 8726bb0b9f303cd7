/*
 * check_conf.c - hipd.conf: defaults, derived paths, every kind of value,
 * "FILE:LINE: message" errors, command-line overrides, reload rules, and
 * the example file conf/hipd.conf documenting the real defaults.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "base/conf.h"
#include "unit.h"

static char err[HIPD_CONF_ERR_MAX];

static int parse(struct hipd_conf *c, const char *text)
{
	hipd_conf_defaults(c);
	err[0] = '\0';
	return hipd_conf_parse(c, "t.conf", text, strlen(text), err, sizeof(err));
}

/* Parse + finalize, expecting success. */
static void parse_ok(struct hipd_conf *c, const char *text)
{
	int r = parse(c, text);

	if (!r)
		r = hipd_conf_finalize(c, err, sizeof(err));
	ck_assert_msg(r == 0, "unexpected error: %s", err);
}

START_TEST(test_defaults)
{
	struct hipd_conf c;

	hipd_conf_defaults(&c);
	ck_assert_int_eq(hipd_conf_finalize(&c, err, sizeof(err)), 0);
	ck_assert_str_eq(c.config_dir, "/etc/hip");
	ck_assert_str_eq(c.hi_file, "/etc/hip/hip_host_key.pem");
	ck_assert_str_eq(c.hosts_file, "/etc/hip/hosts");
	ck_assert_str_eq(c.control_socket, "/run/hipd/hipd.sock");
	ck_assert_str_eq(c.control_group, "hipd");
	ck_assert_str_eq(c.pid_file, "/run/hipd/hipd.pid");
	ck_assert_str_eq(c.state_dir, "/var/lib/hipd");
	ck_assert_str_eq(c.user, "hipd");
	ck_assert_int_eq(c.hi_algorithm, HIP_HI_KIND_ECDSA_P256);
	ck_assert_int_eq(c.log_level, LOG_INFO);
	/* RFC 7401 §4.1.2: K SHOULD be 0 when not under load */
	ck_assert_uint_eq(c.puzzle_k, 0);
	ck_assert(c.puzzle_auto);
	ck_assert_uint_eq(c.puzzle_k_max_auto, 20);
	ck_assert_uint_eq(c.r1_cache_size, 8);
	ck_assert_uint_eq(c.r1_rotate_seconds, 300);
	/* docs/decisions.md D-2 */
	ck_assert_uint_eq(c.n_dh_groups, 4);
	ck_assert_uint_eq(c.dh_groups[0], 7);
	ck_assert_uint_eq(c.dh_groups[1], 8);
	ck_assert_uint_eq(c.dh_groups[2], 4);
	ck_assert_uint_eq(c.dh_groups[3], 3);
	ck_assert_uint_eq(c.n_hip_ciphers, 2);
	ck_assert_uint_eq(c.hip_ciphers[0], 2);
	ck_assert_uint_eq(c.hip_ciphers[1], 4);
	ck_assert_uint_eq(c.n_esp_suites, 3);
	ck_assert_uint_eq(c.esp_suites[0], 13);
	ck_assert(!c.allow_null_cipher);
	ck_assert(!c.opportunistic);
	ck_assert_int_eq(c.peer_policy, HIPD_PEER_ANY);
	/* docs/decisions.md D-1 */
	ck_assert_uint_eq(c.i1_retries, 5);
	ck_assert_uint_eq(c.i1_timeout_ms, 1000);
	ck_assert_uint_eq(c.i2_retries, 5);
	ck_assert_uint_eq(c.ual_seconds, 900);
	ck_assert_uint_eq(c.msl_seconds, 120);
	ck_assert_uint_eq(c.ratelimit_r1_per_source, 10);
	ck_assert_uint_eq(c.ratelimit_r1_burst, 20);
	ck_assert_int_eq(c.datapath, HIPD_DATAPATH_AUTO);
	ck_assert(c.listen_v4 && c.listen_v6);
	ck_assert_uint_eq(c.xfrm_reqid, 0x48495000u);
	/* 8 h (RFC 2407 §4.5), no byte limit */
	ck_assert_uint_eq(c.sa_lifetime_seconds, 28800);
	ck_assert_uint_eq(c.sa_lifetime_bytes, 0);
}
END_TEST

START_TEST(test_values)
{
	struct hipd_conf c;

	parse_ok(&c,
		 "# a comment\n"
		 "\n"
		 "   \t\n"
		 "config_dir=/srv/hip\n"
		 "  hi_algorithm   =   rsa-3072   # trailing comment\n"
		 "control_socket = /tmp/x y/hipd.sock\n"
		 "log_level = debug\r\n"
		 "puzzle_k = 28\n"
		 "puzzle_k_max_auto = 28\n"
		 "puzzle_auto = false\n"
		 "dh_groups = 3, 8\n"
		 "hip_ciphers = 4\n"
		 "esp_suites = 12 13 1\n"
		 "opportunistic = 1\n"
		 "peer_policy = known\n"
		 "datapath = userspace\n"
		 "listen_v4 = no\n"
		 "user = _hip-d0\n"
		 "xfrm_reqid = 0x484950fF\n"
		 "ual_seconds = 1");
	ck_assert_str_eq(c.config_dir, "/srv/hip");
	ck_assert_int_eq(c.hi_algorithm, HIP_HI_KIND_RSA_3072);
	ck_assert_str_eq(c.control_socket, "/tmp/x y/hipd.sock");
	ck_assert_int_eq(c.log_level, LOG_DEBUG);
	ck_assert_uint_eq(c.puzzle_k, 28);
	ck_assert(!c.puzzle_auto);
	ck_assert_uint_eq(c.n_dh_groups, 2);
	ck_assert_uint_eq(c.dh_groups[0], 3);
	ck_assert_uint_eq(c.dh_groups[1], 8);
	ck_assert_uint_eq(c.n_hip_ciphers, 1);
	ck_assert_uint_eq(c.hip_ciphers[0], 4);
	ck_assert_uint_eq(c.n_esp_suites, 3);
	ck_assert_uint_eq(c.esp_suites[2], 1);
	ck_assert(c.opportunistic);
	ck_assert_int_eq(c.peer_policy, HIPD_PEER_KNOWN);
	ck_assert_int_eq(c.datapath, HIPD_DATAPATH_USERSPACE);
	ck_assert(!c.listen_v4);
	ck_assert(c.listen_v6);
	ck_assert_str_eq(c.user, "_hip-d0");
	ck_assert_uint_eq(c.ual_seconds, 1);
	ck_assert_uint_eq(c.xfrm_reqid, 0x484950ffu);
	/* derived from the new config_dir */
	ck_assert_str_eq(c.hi_file, "/srv/hip/hip_host_key.pem");
	ck_assert_str_eq(c.hosts_file, "/srv/hip/hosts");
	/* xfrm_reqid: decimal or hex, all 32 bits */
	parse_ok(&c, "xfrm_reqid = 4294967295");
	ck_assert_uint_eq(c.xfrm_reqid, 0xffffffffu);
	parse_ok(&c, "xfrm_reqid = 0x0000000000000007");
	ck_assert_uint_eq(c.xfrm_reqid, 7);
	/* SA lifetimes: 0 = none; bytes with binary suffixes, all 64 bits */
	parse_ok(&c, "sa_lifetime_seconds = 0\nsa_lifetime_bytes = 1000\n");
	ck_assert_uint_eq(c.sa_lifetime_seconds, 0);
	ck_assert_uint_eq(c.sa_lifetime_bytes, 1000);
	parse_ok(&c, "sa_lifetime_seconds = 315360000\nsa_lifetime_bytes = 3k\n");
	ck_assert_uint_eq(c.sa_lifetime_seconds, 315360000);
	ck_assert_uint_eq(c.sa_lifetime_bytes, 3072);
	parse_ok(&c, "sa_lifetime_bytes = 5M");
	ck_assert_uint_eq(c.sa_lifetime_bytes, 5ull << 20);
	parse_ok(&c, "sa_lifetime_bytes = 100G");
	ck_assert_uint_eq(c.sa_lifetime_bytes, 100ull << 30);
	parse_ok(&c, "sa_lifetime_bytes = 16777215T");
	ck_assert_uint_eq(c.sa_lifetime_bytes, 16777215ull << 40);
	parse_ok(&c, "sa_lifetime_bytes = 18446744073709551615");
	ck_assert_uint_eq(c.sa_lifetime_bytes, UINT64_MAX);
}
END_TEST

START_TEST(test_derived_paths)
{
	struct hipd_conf c;

	/* an explicit hi_file stays, hosts_file follows config_dir, in any order */
	parse_ok(&c, "hi_file = /keys/k.pem\nconfig_dir = /opt/hip\n");
	ck_assert_str_eq(c.hi_file, "/keys/k.pem");
	ck_assert_str_eq(c.hosts_file, "/opt/hip/hosts");
	parse_ok(&c, "config_dir = /\n");
	ck_assert_str_eq(c.hi_file, "/hip_host_key.pem");
	/* an option changes config_dir after the file: derived paths follow */
	parse(&c, "state_dir = /s\n");
	ck_assert_int_eq(hipd_conf_override(&c, "--config-dir", "config_dir", "/cli", err,
					    sizeof(err)), 0);
	ck_assert_int_eq(hipd_conf_finalize(&c, err, sizeof(err)), 0);
	ck_assert_str_eq(c.hosts_file, "/cli/hosts");
	ck_assert_str_eq(c.state_dir, "/s");
	/* D-27: the pins follow state_dir unless set; none keeps them in memory */
	ck_assert_str_eq(c.known_hosts_file, "/s/known_hosts");
	parse_ok(&c, "known_hosts_file = none\nstate_dir = /t\n");
	ck_assert_str_eq(c.known_hosts_file, "");
}
END_TEST

/* D-27: opportunistic_peers, where the Initiator may go without a HIT. */
START_TEST(test_opportunistic_peers)
{
	struct hipd_conf c;
	struct hip_addr a;
	char val[HIPD_CONF_VALUE_MAX];
	enum hipd_conf_vtype type;
	const char *key;
	size_t i;

	parse_ok(&c, "");
	ck_assert_uint_eq(c.n_opportunistic_peers, 0);   /* off by default */
	ck_assert_int_eq(hip_addr_from_str("192.0.2.7", &a), 0);
	ck_assert(!hipd_conf_opportunistic_to(&c, &a));
	parse_ok(&c, "opportunistic_peers = 192.0.2.7 10.1.0.0/16 2001:db8:7::/48 "
		 "198.51.100.77/24\n");
	ck_assert_uint_eq(c.n_opportunistic_peers, 4);
	ck_assert(hipd_conf_opportunistic_to(&c, &a));
	ck_assert_int_eq(hip_addr_from_str("192.0.2.8", &a), 0);
	ck_assert(!hipd_conf_opportunistic_to(&c, &a));
	ck_assert_int_eq(hip_addr_from_str("10.1.255.3", &a), 0);
	ck_assert(hipd_conf_opportunistic_to(&c, &a));
	ck_assert_int_eq(hip_addr_from_str("10.2.0.1", &a), 0);
	ck_assert(!hipd_conf_opportunistic_to(&c, &a));
	ck_assert_int_eq(hip_addr_from_str("2001:db8:7:ffff::1", &a), 0);
	ck_assert(hipd_conf_opportunistic_to(&c, &a));
	ck_assert_int_eq(hip_addr_from_str("2001:db8:8::1", &a), 0);
	ck_assert(!hipd_conf_opportunistic_to(&c, &a));
	ck_assert_int_eq(hip_addr_from_str("198.51.100.1", &a), 0);   /* host bits dropped */
	ck_assert(hipd_conf_opportunistic_to(&c, &a));
	/* an IPv4-mapped IPv6 address is its IPv4 address (hip_addr) */
	ck_assert_int_eq(hip_addr_from_str("::ffff:10.1.0.1", &a), 0);
	ck_assert(hip_addr_is_v4(&a) && hipd_conf_opportunistic_to(&c, &a));
	for (i = 0; (key = hipd_conf_get(&c, i, val, sizeof(val), &type)); i++)
		if (!strcmp(key, "opportunistic_peers"))
			break;
	ck_assert_ptr_nonnull(key);
	ck_assert_str_eq(val, "192.0.2.7/32 10.1.0.0/16 2001:db8:7::/48 198.51.100.0/24");
	parse_ok(&c, "opportunistic_peers = any\n");
	ck_assert(hipd_conf_opportunistic_to(&c, &a));
	ck_assert_int_eq(hip_addr_from_str("2001:db8::1", &a), 0);
	ck_assert(hipd_conf_opportunistic_to(&c, &a));
}
END_TEST

/* One bad line each: the message names file, line and the bad text. */
static const struct {
	const char *text;
	const char *msg;
} bad[] = {
	{ "\n\nfoo = 1\n", "t.conf:3: unknown key 'foo'" },
	{ "puzzle_k = 29", "t.conf:1: puzzle_k: 29 is out of range (0..28)" },
	{ "puzzle_k = ten", "t.conf:1: puzzle_k: 'ten' is not a number" },
	{ "puzzle_k = -1", "t.conf:1: puzzle_k: '-1' is not a number" },
	{ "puzzle_k = 99999999999", "t.conf:1: puzzle_k: 99999999999 is out of range (0..28)" },
	{ "r1_cache_size = 7", "t.conf:1: r1_cache_size: 7 is out of range (8..64)" },
	{ "user = a\n# x\nuser = b\n", "t.conf:3: duplicate key 'user' (first set on line 1)" },
	{ "hi_file = keys/k.pem", "t.conf:1: hi_file: 'keys/k.pem' is not an absolute path" },
	{ "dh_groups = 7 1", "t.conf:1: dh_groups: DH group 1 is deprecated (HIPv1 only) and "
	  "must not be offered" },
	{ "dh_groups = 7 9", "t.conf:1: dh_groups: DH group 9 is not supported (supported: "
	  "3 4 7 8)" },
	{ "dh_groups = 7 7", "t.conf:1: dh_groups: 7 is listed twice" },
	{ "dh_groups = 7 x8", "t.conf:1: dh_groups: 'x8' is not a number" },
	{ "dh_groups = ,", "t.conf:1: dh_groups: empty list" },
	{ "hip_ciphers = 3", "t.conf:1: hip_ciphers: unknown HIP cipher 3 (known: 1 = NULL, "
	  "2 = AES-128-CBC, 4 = AES-256-CBC)" },
	{ "esp_suites = 1 8 9 10 11 12 13", "t.conf:1: esp_suites: more than 6 entries" },
	{ "esp_suites = 2", "t.conf:1: esp_suites: unknown ESP suite 2 (known: 1 7 8 9 10 11 "
	  "12 13)" },
	{ "log_level = loud", "t.conf:1: log_level: 'loud' is not one of err, warning, notice, "
	  "info, debug" },
	{ "hi_algorithm = dsa", "t.conf:1: hi_algorithm: 'dsa' is not one of ecdsa-p256, "
	  "ecdsa-p384, rsa-3072" },
	{ "opportunistic = maybe", "t.conf:1: opportunistic: 'maybe' is not a boolean (yes or "
	  "no)" },
	{ "opportunistic_peers = 192.0.2.300", "t.conf:1: opportunistic_peers: '192.0.2.300' is "
	  "not an IP address" },
	{ "opportunistic_peers = 10.0.0.0/33", "t.conf:1: opportunistic_peers: '10.0.0.0/33': "
	  "the prefix length must be 0..32" },
	{ "opportunistic_peers = 2001:db8::/x", "t.conf:1: opportunistic_peers: '2001:db8::/x': "
	  "the prefix length must be 0..128" },
	{ "opportunistic_peers = 1.0.0.1 1.0.0.2 1.0.0.3 1.0.0.4 1.0.0.5 1.0.0.6 1.0.0.7 "
	  "1.0.0.8 1.0.0.9 1.0.0.10 1.0.0.11 1.0.0.12 1.0.0.13 1.0.0.14 1.0.0.15 1.0.0.16 1.0.0.17",
	  "t.conf:1: opportunistic_peers: more than 16 prefixes" },
	{ "known_hosts_file = pins", "t.conf:1: known_hosts_file: 'pins' is neither an absolute "
	  "path nor none" },
	{ "just some words", "t.conf:1: expected 'key = value', got 'just some words'" },
	{ "user =  # nothing", "t.conf:1: user: missing value" },
	{ " = 5", "t.conf:1: missing key before '='" },
	{ "user = Root!", "t.conf:1: user: 'Root!' is not a valid user or group name" },
	{ "control_group = abcdefghijklmnopqrstuvwxyz0123456",
	  "t.conf:1: control_group: 'abcdefghijklmnopqrstuvwxyz0123456' is not a valid user or "
	  "group name" },
	{ "log_level = info\nPuzzle_k = 1", "t.conf:2: unknown key 'Puzzle_k'" },
	{ "user = \x01x", "t.conf:1: user: '?x' is not a valid user or group name" },
	{ "xfrm_reqid = 0", "t.conf:1: xfrm_reqid: 0 is out of range (1..0xffffffff)" },
	{ "xfrm_reqid = 0x0", "t.conf:1: xfrm_reqid: 0x0 is out of range (1..0xffffffff)" },
	{ "xfrm_reqid = 0x100000000", "t.conf:1: xfrm_reqid: 0x100000000 is out of range "
	  "(1..0xffffffff)" },
	{ "xfrm_reqid = 4294967296", "t.conf:1: xfrm_reqid: 4294967296 is out of range "
	  "(1..0xffffffff)" },
	{ "xfrm_reqid = 0x", "t.conf:1: xfrm_reqid: '0x' is not a number" },
	{ "xfrm_reqid = 0x48g", "t.conf:1: xfrm_reqid: '0x48g' is not a number" },
	{ "xfrm_reqid = -5", "t.conf:1: xfrm_reqid: '-5' is not a number" },
	{ "sa_lifetime_seconds = 315360001", "t.conf:1: sa_lifetime_seconds: 315360001 is out "
	  "of range (0..315360000)" },
	{ "sa_lifetime_seconds = 1h", "t.conf:1: sa_lifetime_seconds: '1h' is not a number" },
	{ "sa_lifetime_bytes = 18446744073709551616", "t.conf:1: sa_lifetime_bytes: "
	  "18446744073709551616 is out of range (64 bits)" },
	{ "sa_lifetime_bytes = 16777216T", "t.conf:1: sa_lifetime_bytes: 16777216T is out of "
	  "range (64 bits)" },
	{ "sa_lifetime_bytes = 10X", "t.conf:1: sa_lifetime_bytes: '10X' is not a byte count "
	  "(a number, optionally followed by k, M, G or T)" },
	{ "sa_lifetime_bytes = 1kk", "t.conf:1: sa_lifetime_bytes: '1kk' is not a byte count "
	  "(a number, optionally followed by k, M, G or T)" },
	{ "sa_lifetime_bytes = k", "t.conf:1: sa_lifetime_bytes: 'k' is not a byte count "
	  "(a number, optionally followed by k, M, G or T)" },
	{ "sa_lifetime_bytes = -1", "t.conf:1: sa_lifetime_bytes: '-1' is not a byte count "
	  "(a number, optionally followed by k, M, G or T)" },
};

START_TEST(test_errors)
{
	struct hipd_conf c;

	ck_assert_int_eq(parse(&c, bad[_i].text), -EINVAL);
	ck_assert_str_eq(err, bad[_i].msg);
}
END_TEST

START_TEST(test_line_limits)
{
	struct hipd_conf c;
	char text[1200];

	hipd_conf_defaults(&c);
	ck_assert_int_eq(hipd_conf_parse(&c, "t.conf", "user = a\nuser\0 = b\n", 19, err,
					 sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "t.conf:2: NUL byte in line");
	memset(text, ' ', sizeof(text));
	memcpy(text, "\n#", 2);
	ck_assert_int_eq(hipd_conf_parse(&c, "t.conf", text, sizeof(text), err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "t.conf:2: line longer than 1024 characters");
	/* a path too long for its field */
	memset(text, 'a', sizeof(text));
	memcpy(text, "state_dir = /", 13);
	text[300] = '\0';
	ck_assert_int_eq(parse(&c, text), -EINVAL);
	ck_assert_str_eq(err, "t.conf:1: state_dir: path longer than 255 characters");
	/* a bad value is quoted, but not at any length */
	memset(text, 'x', sizeof(text));
	memcpy(text, "puzzle_k = ", 11);
	text[500] = '\0';
	ck_assert_int_eq(parse(&c, text), -EINVAL);
	ck_assert_int_lt(strlen(err), 140);
	ck_assert_ptr_nonnull(strstr(err, "xxx...' is not a number"));
}
END_TEST

/* Checks across keys point at the line of the key to change. */
START_TEST(test_combinations)
{
	struct hipd_conf c;

	ck_assert_int_eq(parse(&c, "log_level = info\nhip_ciphers = 2 1\n"), 0);
	ck_assert_int_eq(hipd_conf_finalize(&c, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "t.conf:2: hip_ciphers: 1 (NULL-ENCRYPT) needs allow_null_cipher "
			      "= yes");
	parse_ok(&c, "hip_ciphers = 2 1\nallow_null_cipher = yes\nesp_suites = 7\n");
	ck_assert_uint_eq(c.hip_ciphers[1], 1);
	ck_assert_int_eq(parse(&c, "esp_suites = 13 7\n"), 0);
	ck_assert_int_eq(hipd_conf_finalize(&c, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "t.conf:1: esp_suites: 7 (NULL with HMAC-SHA-256) needs "
			      "allow_null_cipher = yes");
	ck_assert_int_eq(parse(&c, "puzzle_k = 12\n\npuzzle_k_max_auto = 10\n"), 0);
	ck_assert_int_eq(hipd_conf_finalize(&c, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "t.conf:3: puzzle_k_max_auto (10) is below puzzle_k (12)");
	/* the default max (20) is below: the message points at K */
	ck_assert_int_eq(parse(&c, "puzzle_k = 24\n"), 0);
	ck_assert_int_eq(hipd_conf_finalize(&c, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "t.conf:1: puzzle_k_max_auto (20) is below puzzle_k (24)");
	ck_assert_int_eq(parse(&c, "listen_v4 = no\nlisten_v6 = 0\n"), 0);
	ck_assert_int_eq(hipd_conf_finalize(&c, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "t.conf:2: listen_v4 and listen_v6 are both off: nothing to "
			      "listen on");
	ck_assert_int_eq(parse(&c, "control_socket = /aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
			       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
			       "aaaaaaaa\n"), -EINVAL);
	ck_assert_str_eq(err, "t.conf:1: control_socket: path longer than 107 characters");
}
END_TEST

START_TEST(test_overrides)
{
	struct hipd_conf c;

	ck_assert_int_eq(parse(&c, "user = fromfile\nlog_level = err\n"), 0);
	ck_assert_int_eq(hipd_conf_override(&c, "--user", "user", "fromcli", err, sizeof(err)),
			 0);
	ck_assert_int_eq(hipd_conf_override(&c, "--debug", "log_level", "debug", err,
					    sizeof(err)), 0);
	ck_assert_int_eq(hipd_conf_finalize(&c, err, sizeof(err)), 0);
	ck_assert_str_eq(c.user, "fromcli");
	ck_assert_int_eq(c.log_level, LOG_DEBUG);
	ck_assert_int_eq(hipd_conf_override(&c, "--hi-file", "hi_file", "rel/k.pem", err,
					    sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "--hi-file: hi_file: 'rel/k.pem' is not an absolute path");
	ck_assert_int_eq(hipd_conf_override(&c, "--x", "nokey", "1", err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, "--x: unknown key 'nokey'");
	/* an option given before the file is read still wins, no duplicate */
	hipd_conf_defaults(&c);
	ck_assert_int_eq(hipd_conf_override(&c, "--user", "user", "cli", err, sizeof(err)), 0);
	ck_assert_int_eq(hipd_conf_parse(&c, "t.conf", "user = file\n", 12, err, sizeof(err)),
			 0);
	ck_assert_str_eq(c.user, "cli");
	/* a combination error caused by an option says so */
	hipd_conf_defaults(&c);
	ck_assert_int_eq(hipd_conf_override(&c, "--x", "hip_ciphers", "1", err, sizeof(err)), 0);
	ck_assert_int_eq(hipd_conf_finalize(&c, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "command line: hip_ciphers: 1 (NULL-ENCRYPT) needs "
			      "allow_null_cipher = yes");
}
END_TEST

START_TEST(test_load_file)
{
	char path[] = "/tmp/check_conf.XXXXXX";
	struct hipd_conf c;
	FILE *f;
	int fd;

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fputs("puzzle_k = 3\nbogus = 1\n", f);
	fclose(f);
	hipd_conf_defaults(&c);
	ck_assert_int_eq(hipd_conf_load(&c, path, err, sizeof(err)), -EINVAL);
	ck_assert(strncmp(err, path, strlen(path)) == 0);
	ck_assert_str_eq(err + strlen(path), ":2: unknown key 'bogus'");
	unlink(path);
	hipd_conf_defaults(&c);
	ck_assert_int_eq(hipd_conf_load(&c, path, err, sizeof(err)), -ENOENT);
	ck_assert(strncmp(err, path, strlen(path)) == 0);
	ck_assert_ptr_nonnull(strstr(err, "No such file"));
	ck_assert_int_eq(hipd_conf_load(&c, "/tmp", err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "/tmp: not a regular file");
}
END_TEST

START_TEST(test_reload_rules)
{
	struct hipd_conf cur, fresh;
	const char *keys[4];

	parse_ok(&cur, "user = old\npuzzle_k = 1\n");
	parse_ok(&fresh, "user = new\npuzzle_k = 5\ndh_groups = 8\ncontrol_socket = /x.sock\n"
		 "log_level = debug\n");
	ck_assert_uint_eq(hipd_conf_apply_reload(&cur, &fresh, keys, 4), 2);
	ck_assert_str_eq(keys[0], "control_socket");
	ck_assert_str_eq(keys[1], "user");
	/* restart-only keys keep their value, the others change */
	ck_assert_str_eq(cur.user, "old");
	ck_assert_str_eq(cur.control_socket, "/run/hipd/hipd.sock");
	ck_assert_uint_eq(cur.puzzle_k, 5);
	ck_assert_uint_eq(cur.n_dh_groups, 1);
	ck_assert_uint_eq(cur.dh_groups[0], 8);
	ck_assert_int_eq(cur.log_level, LOG_DEBUG);
	ck_assert_uint_eq(hipd_conf_apply_reload(&cur, &fresh, keys, 4), 2);
	ck_assert_uint_eq(hipd_conf_apply_reload(&fresh, &fresh, keys, 4), 0);
}
END_TEST

/* Writing every key back out as `key = value` and parsing it again gives
 * the same configuration. */
START_TEST(test_get_round_trip)
{
	struct hipd_conf a, b;
	enum hipd_conf_vtype t;
	char text[8192], val[HIPD_PATH_MAX], val2[HIPD_PATH_MAX];
	const char *key;
	size_t i, len = 0;

	parse_ok(&a, "config_dir = /q\npuzzle_k = 7\ndh_groups = 4 7\nopportunistic = yes\n"
		 "peer_policy = known\nhi_algorithm = ecdsa-p384\n");
	for (i = 0; (key = hipd_conf_get(&a, i, val, sizeof(val), &t)); i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s = %s\n", key, val);
	ck_assert_uint_ge(i, 33);
	parse_ok(&b, text);
	for (i = 0; (key = hipd_conf_get(&a, i, val, sizeof(val), &t)); i++) {
		ck_assert_ptr_nonnull(hipd_conf_get(&b, i, val2, sizeof(val2), &t));
		ck_assert_msg(strcmp(val, val2) == 0, "%s: %s != %s", key, val, val2);
	}
	ck_assert_ptr_nonnull(hipd_conf_get(&a, 16, val, sizeof(val), &t));
	ck_assert_int_eq(t, HIPD_CONF_V_LIST);
	ck_assert_str_eq(val, "4 7");
	ck_assert_str_eq(hipd_conf_hi_algorithm_name(a.hi_algorithm), "ecdsa-p384");
}
END_TEST

/* conf/hipd.conf documents every key with its default: uncommenting all
 * `# key = value` lines must parse and give exactly the defaults. */
START_TEST(test_example_file)
{
	struct hipd_conf def, ex;
	enum hipd_conf_vtype t;
	char line[512], text[16384], v1[HIPD_PATH_MAX], v2[HIPD_PATH_MAX];
	const char *key;
	size_t len = 0, i, n_keys = 0;
	FILE *f = fopen(unit_srcpath("conf/hipd.conf"), "r");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "# ", 2) == 0 && strstr(line, " = ") &&
		    strchr("abcdefghijklmnopqrstuvwxyz", line[2])) {
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%s", line + 2);
			n_keys++;
		}
	}
	fclose(f);
	parse_ok(&ex, text);
	hipd_conf_defaults(&def);
	ck_assert_int_eq(hipd_conf_finalize(&def, err, sizeof(err)), 0);
	for (i = 0; (key = hipd_conf_get(&def, i, v1, sizeof(v1), &t)); i++) {
		hipd_conf_get(&ex, i, v2, sizeof(v2), &t);
		ck_assert_msg(strcmp(v1, v2) == 0, "conf/hipd.conf: %s = %s, default %s", key, v2,
			      v1);
		ck_assert_msg(strstr(text, key), "conf/hipd.conf does not document %s", key);
	}
	ck_assert_uint_eq(n_keys, i);
}
END_TEST

static Suite *conf_suite(void)
{
	Suite *s = suite_create("conf");
	TCase *tc = tcase_create("conf");

	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_values);
	tcase_add_test(tc, test_derived_paths);
	tcase_add_test(tc, test_opportunistic_peers);
	tcase_add_loop_test(tc, test_errors, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, test_line_limits);
	tcase_add_test(tc, test_combinations);
	tcase_add_test(tc, test_overrides);
	tcase_add_test(tc, test_load_file);
	tcase_add_test(tc, test_reload_rules);
	tcase_add_test(tc, test_get_round_trip);
	tcase_add_test(tc, test_example_file);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(conf_suite)
