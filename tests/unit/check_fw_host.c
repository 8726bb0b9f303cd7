/*
 * check_fw_host.c - hipfw's host mode rules (firewall/fw_rules.c: proto,
 * port; firewall/fw_host.c): what the parser accepts and refuses, which
 * rules the HIP packets see, the ip6tables-restore script a rule set
 * becomes and the kernel counters read back through its map.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_host.h"
#include "fw_rules.h"
#include "packet.h"
#include "unit.h"

static const char *const HIT_A = "2001:2f:5a4b:21c0:ad9:f7e1:13e2:9a10";
static const char *const HIT_B = "2001:2f:1111:2222:3333:4444:5555:6666";

static struct fw_rules *rules;
static struct fw_host_map map;

static void setup(void)
{
	rules = malloc(sizeof(*rules));
	ck_assert_ptr_nonnull(rules);
	memset(&map, 0, sizeof(map));
}

static void teardown(void)
{
	fw_host_map_free(&map);
	free(rules);
}

static int parse(const char *text, char *err, size_t err_len)
{
	return fw_rules_parse(text, strlen(text), "t.rules", rules, err, err_len);
}

START_TEST(test_host_parse)
{
	char text[1024], err[FW_ERR_MAX];

	snprintf(text, sizeof(text),
		 "allow from %s to %s proto tcp port 22 dir in\n"
		 "deny from any to %s proto udp,tcp port 1000-2000,53\n"
		 "allow proto icmpv6\n"
		 "deny proto 47 dir out\n"
		 "allow type i1,i2 dir in\n"
		 "allow from %s\n"
		 "default deny\n", HIT_A, HIT_B, HIT_B, HIT_A);
	ck_assert_int_eq(parse(text, err, sizeof(err)), 0);
	unit_write_seed("rules_host", "\0", 1, text, strlen(text));
	ck_assert_uint_eq(rules->n, 6);
	ck_assert(rules->rule[0].data_only && !rules->rule[0].hip_only);
	ck_assert_uint_eq(rules->rule[0].nproto, 1);
	ck_assert_uint_eq(rules->rule[0].proto[0], 6);
	ck_assert_uint_eq(rules->rule[0].nport, 1);
	ck_assert_uint_eq(rules->rule[0].port[0].lo, 22);
	ck_assert_uint_eq(rules->rule[0].port[0].hi, 22);
	ck_assert_uint_eq(rules->rule[1].nproto, 2);
	ck_assert_uint_eq(rules->rule[1].proto[0], 17);
	ck_assert_uint_eq(rules->rule[1].nport, 2);
	ck_assert_uint_eq(rules->rule[1].port[0].lo, 1000);
	ck_assert_uint_eq(rules->rule[1].port[0].hi, 2000);
	ck_assert_uint_eq(rules->rule[1].port[1].lo, 53);
	ck_assert_uint_eq(rules->rule[2].proto[0], 58);
	ck_assert_uint_eq(rules->rule[3].proto[0], 47);
	ck_assert(rules->rule[4].hip_only && !rules->rule[4].data_only);
	/* neither type nor proto: both */
	ck_assert(!rules->rule[5].hip_only && !rules->rule[5].data_only);
	/* "proto any" is a rule for the traffic between HITs, of any protocol */
	ck_assert_int_eq(parse("deny proto any\n", err, sizeof(err)), 0);
	ck_assert(rules->rule[0].data_only);
	ck_assert_uint_eq(rules->rule[0].nproto, 0);
}
END_TEST

/* HIP packets never meet a rule for the traffic between HITs. */
START_TEST(test_host_hip_skips_data_rules)
{
	char text[512], err[FW_ERR_MAX];
	struct hip_hit a, b;
	struct fw_match m = { .sender = &a, .receiver = &b, .type = HIP_I1, .dir = FW_DIR_IN };
	const struct fw_rule *r;
	enum fw_action act;

	ck_assert_int_eq(hip_hit_from_str(HIT_A, &a), 0);
	ck_assert_int_eq(hip_hit_from_str(HIT_B, &b), 0);
	snprintf(text, sizeof(text), "deny from %s proto tcp\nallow from %s\ndefault deny\n",
		 HIT_A, HIT_A);
	ck_assert_int_eq(parse(text, err, sizeof(err)), 0);
	r = fw_rules_decide(rules, &m, &act);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->line, 2);
	ck_assert_int_eq(act, FW_ALLOW);
	ck_assert_uint_eq(rules->rule[0].hits, 0);
}
END_TEST

START_TEST(test_host_errors)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ "allow proto tcp port 22 type i1\n",
		  "t.rules:1: 'type' is for HIP packets, 'proto' and 'port' for traffic between "
		  "HITs: not both" },
		{ "allow type any proto any\n", "t.rules:1: 'type' is for HIP packets" },
		{ "allow port 22\n", "t.rules:1: 'port' needs 'proto' tcp, udp or sctp" },
		{ "allow proto icmpv6 port 22\n", "t.rules:1: 'port' needs 'proto'" },
		{ "allow proto tcp,47 port 22\n", "t.rules:1: 'port' needs 'proto'" },
		{ "allow proto ftp\n", "t.rules:1: bad proto 'ftp' (tcp, udp, sctp, icmpv6" },
		{ "allow proto 0\n", "t.rules:1: bad proto '0'" },
		{ "allow proto 256\n", "t.rules:1: bad proto '256'" },
		{ "allow proto tcp,\n", "t.rules:1: bad proto 'tcp,'" },
		{ "allow proto tcp,udp,sctp,icmpv6,47\n", "t.rules:1: bad proto" },
		{ "allow proto tcp port 65536\n", "t.rules:1: bad port '65536' (0-65535 or" },
		{ "allow proto tcp port 20-10\n", "t.rules:1: bad port '20-10'" },
		{ "allow proto tcp port 10-\n", "t.rules:1: bad port '10-'" },
		{ "allow proto tcp port -10\n", "t.rules:1: bad port '-10'" },
		{ "allow proto tcp port 1-2-3\n", "t.rules:1: bad port '1-2-3'" },
		{ "allow proto tcp port +5\n", "t.rules:1: bad port '+5'" },
		{ "allow proto tcp port 1,2,3,4,5,6,7,8,9\n", "t.rules:1: bad port" },
		{ "allow proto tcp proto udp\n", "t.rules:1: 'proto' given twice" },
		{ "\n\nallow proto tcp port\n", "t.rules:3: 'port' needs a value" },
	};
	char err[FW_ERR_MAX];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(parse(bad[i].text, err, sizeof(err)) == -EINVAL, "accepted: %s",
			      bad[i].text);
		ck_assert_msg(strstr(err, bad[i].msg) == err, "'%s': got '%s'", bad[i].text, err);
	}
	/* the limits themselves are fine */
	ck_assert_int_eq(parse("allow proto tcp,udp,sctp,icmpv6\n", err, sizeof(err)), 0);
	ck_assert_int_eq(parse("allow proto sctp port 0,1,2,3,4,5,6,65535-65535\n", err,
			       sizeof(err)), 0);
}
END_TEST

/* The script: chains declared (so flushed), conntrack first, one line per
 * protocol and port range in the chain of each direction, HIP-only rules
 * left out, the default last; the map says which line each kernel rule is. */
START_TEST(test_host_script)
{
	char text[1024], err[FW_ERR_MAX], want[2048], *script = NULL;

	snprintf(text, sizeof(text),
		 "allow from %s to %s proto tcp port 22 dir in\n"
		 "deny proto udp,tcp port 1000-2000,53\n"
		 "allow type i1\n"
		 "allow proto 47 dir forward\n"
		 "allow dir out\n"
		 "default deny\n", HIT_A, HIT_B);
	ck_assert_int_eq(parse(text, err, sizeof(err)), 0);
	ck_assert_int_eq(fw_host_script(rules, true, &script, &map), 0);
	snprintf(want, sizeof(want),
		 "*filter\n"
		 ":HIPFW_HIN - [0:0]\n"
		 ":HIPFW_HOUT - [0:0]\n"
		 "-I INPUT 1 -s 2001:20::/28 -d 2001:20::/28 ! -i lo -j HIPFW_HIN\n"
		 "-I OUTPUT 1 -s 2001:20::/28 -d 2001:20::/28 ! -o lo -j HIPFW_HOUT\n"
		 "-A HIPFW_HIN -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT\n"
		 "-A HIPFW_HIN -s %s/128 -d %s/128 -p tcp -m tcp --dport 22 -j ACCEPT\n"
		 "-A HIPFW_HIN -p udp -m udp --dport 1000:2000 -j DROP\n"
		 "-A HIPFW_HIN -p udp -m udp --dport 53 -j DROP\n"
		 "-A HIPFW_HIN -p tcp -m tcp --dport 1000:2000 -j DROP\n"
		 "-A HIPFW_HIN -p tcp -m tcp --dport 53 -j DROP\n"
		 "-A HIPFW_HIN -j DROP\n"
		 "-A HIPFW_HOUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT\n"
		 "-A HIPFW_HOUT -p udp -m udp --dport 1000:2000 -j DROP\n"
		 "-A HIPFW_HOUT -p udp -m udp --dport 53 -j DROP\n"
		 "-A HIPFW_HOUT -p tcp -m tcp --dport 1000:2000 -j DROP\n"
		 "-A HIPFW_HOUT -p tcp -m tcp --dport 53 -j DROP\n"
		 "-A HIPFW_HOUT -j ACCEPT\n"
		 "-A HIPFW_HOUT -j DROP\n"
		 "COMMIT\n", HIT_A, HIT_B);
	ck_assert_str_eq(script, want);
	ck_assert_uint_eq(map.n[0], 7);
	ck_assert_uint_eq(map.n[1], 7);
	ck_assert_int_eq(map.owner[0][0], FW_HOST_ESTABLISHED);
	ck_assert_int_eq(map.owner[0][1], 0);
	ck_assert_int_eq(map.owner[0][5], 1);
	ck_assert_int_eq(map.owner[0][6], FW_HOST_DEFAULT);
	ck_assert_int_eq(map.owner[1][5], 4);
	free(script);
	/* a reload: no jumps; an empty file: conntrack and the default deny */
	ck_assert_int_eq(parse("", err, sizeof(err)), 0);
	ck_assert_int_eq(fw_host_script(rules, false, &script, &map), 0);
	ck_assert_str_eq(script, "*filter\n:HIPFW_HIN - [0:0]\n:HIPFW_HOUT - [0:0]\n"
			 "-A HIPFW_HIN -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT\n"
			 "-A HIPFW_HIN -j DROP\n"
			 "-A HIPFW_HOUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT\n"
			 "-A HIPFW_HOUT -j DROP\nCOMMIT\n");
	ck_assert_uint_eq(map.n[0], 2);
	free(script);
}
END_TEST

/* A rule set too large for the kernel chains is refused, nothing leaks. */
START_TEST(test_host_script_too_big)
{
	size_t line = strlen("deny proto tcp,udp,sctp port 1,2,3,4,5,6,7,8\n");
	size_t n = 1000, i;
	char *text = malloc(n * line + 1), err[FW_ERR_MAX], *script = NULL;

	ck_assert_ptr_nonnull(text);
	for (i = 0; i < n; i++)
		memcpy(text + i * line, "deny proto tcp,udp,sctp port 1,2,3,4,5,6,7,8\n", line);
	ck_assert_int_eq(fw_rules_parse(text, n * line, "t.rules", rules, err, sizeof(err)), 0);
	ck_assert_int_eq(fw_host_script(rules, true, &script, &map), -E2BIG);
	ck_assert_ptr_null(script);
	ck_assert_uint_eq(map.n[0], 0);
	free(text);
}
END_TEST

/* Counters from iptables-save -c, through the map; other chains ignored;
 * chains that do not hold what the map says: -EPROTO. */
START_TEST(test_host_counts)
{
	static const char save[] =
		"# Generated by ip6tables-save v1.8.9\n"
		"*filter\n"
		":INPUT ACCEPT [10:1000]\n"
		":HIPFW_HIN - [0:0]\n"
		"[7:700] -A INPUT -s 2001:20::/28 -d 2001:20::/28 ! -i lo -j HIPFW_HIN\n"
		"[99:9900] -A HIPFW -j NFQUEUE --queue-num 0\n"
		"[40:4000] -A HIPFW_HIN -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT\n"
		"[3:180] -A HIPFW_HIN -p tcp -m tcp --dport 22 -j ACCEPT\n"
		"[2:120] -A HIPFW_HIN -p udp -m udp --dport 22 -j ACCEPT\n"
		"[5:300] -A HIPFW_HIN -j DROP\n"
		"[1:60] -A HIPFW_HOUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT\n"
		"[4:240] -A HIPFW_HOUT -p tcp -m tcp --dport 22 -j ACCEPT\n"
		"[6:360] -A HIPFW_HOUT -j DROP\n"
		"COMMIT\n";
	struct fw_host_counts *c = malloc(sizeof(*c));
	char err[FW_ERR_MAX], *script = NULL;

	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(parse("allow proto udp,tcp port 22 dir in\nallow proto tcp port 22 dir "
			       "out\n", err, sizeof(err)), 0);
	ck_assert_int_eq(fw_host_script(rules, true, &script, &map), 0);
	free(script);
	/* the script's order: udp before tcp; counters are per rule anyway */
	ck_assert_int_eq(fw_host_counts_parse(save, strlen(save), &map, c), 0);
	ck_assert_uint_eq(c->established, 41);
	ck_assert_uint_eq(c->policy, 11);
	ck_assert_uint_eq(c->rule[0], 5);
	ck_assert_uint_eq(c->rule[1], 4);
	/* a rule less or more than the map says */
	ck_assert_int_eq(fw_host_counts_parse(save, strlen(save) - 40, &map, c), -EPROTO);
	ck_assert_int_eq(parse("allow proto tcp port 22 dir in\n", err, sizeof(err)), 0);
	ck_assert_int_eq(fw_host_script(rules, true, &script, &map), 0);
	free(script);
	ck_assert_int_eq(fw_host_counts_parse(save, strlen(save), &map, c), -EPROTO);
	free(c);
}
END_TEST

static Suite *fw_host_suite(void)
{
	Suite *s = suite_create("hipfw host mode");
	TCase *tc = tcase_create("rules");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_host_parse);
	tcase_add_test(tc, test_host_hip_skips_data_rules);
	tcase_add_test(tc, test_host_errors);
	suite_add_tcase(s, tc);
	tc = tcase_create("kernel");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_host_script);
	tcase_add_test(tc, test_host_script_too_big);
	tcase_add_test(tc, test_host_counts);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(fw_host_suite)
