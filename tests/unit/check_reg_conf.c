/*
 * check_reg_conf.c - the registration (RFC 8003) and rendezvous (RFC 8004)
 * settings: the hipd.conf keys offer_services, registration_* and server
 * (hipd/base/conf.c, conf_keys.c; hipd.conf(5)), the allow-list file of
 * registration_allow_file (hipd/engine/reg/reg_allow.c), and the service
 * names both use.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/conf.h"
#include "base/conf_int.h"
#include "engine/reg/reg.h"
#include "unit.h"

static char err[HIPD_CONF_ERR_MAX];

static int parse(struct hipd_conf *c, const char *text)
{
	hipd_conf_defaults(c);
	err[0] = '\0';
	return hipd_conf_parse(c, "t.conf", text, strlen(text), err, sizeof(err));
}

static void parse_ok(struct hipd_conf *c, const char *text)
{
	int r = parse(c, text);

	if (!r)
		r = hipd_conf_finalize(c, err, sizeof(err));
	ck_assert_msg(r == 0, "unexpected error: %s", err);
}

/* The value of key name as `hipconf show config` prints it. */
static const char *conf_value(const struct hipd_conf *c, const char *name)
{
	static char val[HIPD_CONF_VALUE_MAX];
	enum hipd_conf_vtype t;
	const char *k;
	size_t i;

	for (i = 0; (k = hipd_conf_get(c, i, val, sizeof(val), &t)); i++)
		if (strcmp(k, name) == 0)
			return val;
	ck_abort_msg("no key %s", name);
	return NULL;
}

/* hipd.conf and the registration module name the services alike. */
START_TEST(test_names)
{
	char buf[16];

	ck_assert_str_eq(reg_type_name(HIP_REG_RENDEZVOUS, buf, sizeof(buf)), "rendezvous");
	ck_assert_str_eq(reg_type_name(HIP_REG_RELAY_UDP_HIP, buf, sizeof(buf)), "relay");
	ck_assert_str_eq(reg_type_name(77, buf, sizeof(buf)), "type 77");
	ck_assert_uint_eq(reg_type_from_name("rendezvous"), HIP_REG_RENDEZVOUS);
	ck_assert_uint_eq(reg_type_from_name("relay"), HIP_REG_RELAY_UDP_HIP);
	ck_assert_uint_eq(reg_type_from_name("rvs"), 0);
	ck_assert_ptr_nonnull(strstr(reg_failure_name(REG_FAIL_INSUFFICIENT), "insufficient"));
	ck_assert_ptr_nonnull(strstr(reg_failure_name(REG_FAIL_TYPE_UNAVAIL), "unavailable"));
	ck_assert_str_eq(reg_srv_state_name(REG_SRV_REGISTERED), "registered");
	ck_assert_int_eq(conf_service_from_name("rendezvous", 10), HIP_REG_RENDEZVOUS);
	ck_assert_int_eq(conf_service_from_name("relay", 5), HIP_REG_RELAY_UDP_HIP);
	ck_assert_int_eq(conf_service_from_name("relay-esp", 9), HIP_REG_RELAY_UDP_ESP);
	ck_assert_uint_eq(reg_type_from_name("relay-esp"), HIP_REG_RELAY_UDP_ESP);
	ck_assert_int_eq(conf_service_from_name("relayx", 6), -EINVAL);
	ck_assert_int_eq(conf_service_from_name("rel", 3), -EINVAL);
	ck_assert_str_eq(conf_service_name(HIP_REG_RELAY_UDP_HIP), "relay");
	ck_assert_str_eq(conf_service_name(HIP_REG_RENDEZVOUS),
			 reg_type_name(HIP_REG_RENDEZVOUS, buf, sizeof(buf)));
}
END_TEST


START_TEST(test_defaults)
{
	struct hipd_conf c;

	parse_ok(&c, "");
	ck_assert_uint_eq(c.n_offer_services, 0);   /* a server only when asked */
	ck_assert_str_eq(c.registration_allow_file, "");
	ck_assert_uint_eq(c.registration_min_lifetime, 10);
	ck_assert_uint_eq(c.registration_max_lifetime, 3600);
	ck_assert_uint_eq(c.registration_max, 200000);
	ck_assert_uint_eq(c.registration_requests_per_second, 1000);
	ck_assert_uint_eq(c.registration_lifetime, 600);
	ck_assert_uint_eq(c.n_servers, 0);
	ck_assert_str_eq(conf_value(&c, "offer_services"), "none");
	ck_assert_str_eq(conf_value(&c, "server"), "none");
	ck_assert_str_eq(conf_value(&c, "registration_allow_file"), "none");
	ck_assert_str_eq(c.registration_allow_file, "");
}
END_TEST

START_TEST(test_offer_services)
{
	struct hipd_conf c;

	parse_ok(&c, "offer_services = rendezvous relay\n");
	ck_assert_uint_eq(c.n_offer_services, 2);
	ck_assert_uint_eq(c.offer_services[0], HIP_REG_RENDEZVOUS);
	ck_assert_uint_eq(c.offer_services[1], HIP_REG_RELAY_UDP_HIP);
	ck_assert_str_eq(conf_value(&c, "offer_services"), "rendezvous relay");
	parse_ok(&c, "offer_services = rendezvous relay candidate-discovery\n");
	ck_assert_uint_eq(c.n_offer_services, 3);
	ck_assert_uint_eq(c.offer_services[2], HIP_REG_CANDIDATE_DISCOVERY);
	ck_assert_str_eq(conf_value(&c, "offer_services"), "rendezvous relay candidate-discovery");
	/* the data relay (RFC 9028 §4.12, D-29): its ports */
	parse_ok(&c, "offer_services = relay relay-esp\nrelay_esp_port = 20000\n"
		     "relay_esp_ports = 8\n");
	ck_assert_uint_eq(c.n_offer_services, 2);
	ck_assert_uint_eq(c.offer_services[1], HIP_REG_RELAY_UDP_ESP);
	ck_assert_str_eq(conf_value(&c, "offer_services"), "relay relay-esp");
	ck_assert_uint_eq(c.relay_esp_port, 20000);
	ck_assert_uint_eq(c.relay_esp_ports, 8);
	parse_ok(&c, "offer_services = relay\n");
	ck_assert_uint_eq(c.n_offer_services, 1);
	ck_assert_uint_eq(c.relay_esp_port, 10600);   /* defaults */
	ck_assert_uint_eq(c.relay_esp_ports, 64);
	ck_assert_uint_eq(c.offer_services[0], HIP_REG_RELAY_UDP_HIP);
	parse_ok(&c, "offer_services = none\n");
	ck_assert_uint_eq(c.n_offer_services, 0);
	ck_assert_str_eq(conf_value(&c, "offer_services"), "none");
	parse_ok(&c, "offer_services = rendezvous\nregistration_min_lifetime = 60\n"
		     "registration_max_lifetime = 86400\nregistration_max = 5\n"
		     "registration_requests_per_second = 0\nregistration_lifetime = 120\n"
		     "registration_allow_file = /etc/hip/registrants\n");
	ck_assert_uint_eq(c.registration_min_lifetime, 60);
	ck_assert_uint_eq(c.registration_max_lifetime, 86400);
	ck_assert_uint_eq(c.registration_max, 5);
	ck_assert_uint_eq(c.registration_requests_per_second, 0);
	ck_assert_uint_eq(c.registration_lifetime, 120);
	ck_assert_str_eq(c.registration_allow_file, "/etc/hip/registrants");
}
END_TEST

static const char hit1[] = "2001:21::1", hit2[] = "2001:22::2";

/* show config prints several servers on one line with ';' and empties as
 * none; both parse back to the same configuration; max below min fails. */
START_TEST(test_servers_round_trip)
{
	struct hipd_conf a, b;
	char text[2048];

	parse_ok(&a, "server = 2001:20::1 192.0.2.1\nserver = 2001:20::2 fd00::2 relay "
		     "rendezvous\nregistration_allow_file = /etc/hip/allow\n");
	ck_assert_uint_eq(a.n_servers, 2);
	snprintf(text, sizeof(text), "server = %s\n", conf_value(&a, "server"));
	snprintf(text + strlen(text), sizeof(text) - strlen(text),
		 "registration_allow_file = %s\n", conf_value(&a, "registration_allow_file"));
	parse_ok(&b, text);
	ck_assert_uint_eq(b.n_servers, 2);
	ck_assert_str_eq(conf_value(&b, "server"), "2001:20::1 192.0.2.1 rendezvous; "
			 "2001:20::2 fd00::2 relay rendezvous");
	ck_assert_uint_eq(b.servers[1].n_types, 2);
	ck_assert_uint_eq(b.servers[1].types[0], HIP_REG_RELAY_UDP_HIP);
	ck_assert_str_eq(b.registration_allow_file, "/etc/hip/allow");
	parse_ok(&b, "server = none\nregistration_allow_file = none\n");
	ck_assert_uint_eq(b.n_servers, 0);
	ck_assert_str_eq(b.registration_allow_file, "");
	ck_assert_int_ne(parse(&b, "registration_allow_file = allow\n"), 0);
	ck_assert_int_eq(parse(&b, "registration_min_lifetime = 600\n"
			       "registration_max_lifetime = 60\n"), 0);
	ck_assert_int_ne(hipd_conf_finalize(&b, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "registration_max_lifetime (60) is below "
			     "registration_min_lifetime (600)"), "%s", err);
}
END_TEST

/* D-16: a server known by its address only has no HIT until its R1; show
 * config prints it without one and that parses back the same. */
START_TEST(test_servers_by_address)
{
	struct hipd_conf a, b;
	char text[1024];

	parse_ok(&a, "server = 192.0.2.7\nserver = 2001:21::1 192.0.2.1 relay\n"
		     "server = fd00::7 relay rendezvous\n");
	ck_assert_uint_eq(a.n_servers, 3);
	ck_assert(hip_hit_is_null(&a.servers[0].hit));
	ck_assert(hip_addr_is_v4(&a.servers[0].addr));
	ck_assert_uint_eq(a.servers[0].n_types, 1);          /* rendezvous by default */
	ck_assert_uint_eq(a.servers[0].types[0], HIP_REG_RENDEZVOUS);
	ck_assert(!hip_hit_is_null(&a.servers[1].hit));
	ck_assert(hip_hit_is_null(&a.servers[2].hit));
	ck_assert(!hip_addr_is_v4(&a.servers[2].addr));
	ck_assert_uint_eq(a.servers[2].n_types, 2);
	ck_assert_str_eq(conf_value(&a, "server"), "192.0.2.7 rendezvous; 2001:21::1 192.0.2.1 "
			 "relay; fd00::7 relay rendezvous");
	snprintf(text, sizeof(text), "server = %s\n", conf_value(&a, "server"));
	parse_ok(&b, text);
	ck_assert_uint_eq(b.n_servers, 3);
	ck_assert_str_eq(conf_value(&b, "server"), conf_value(&a, "server"));
	ck_assert_mem_eq(&b.servers[2].addr, &a.servers[2].addr, sizeof(a.servers[2].addr));
}
END_TEST

START_TEST(test_servers)
{
	struct hipd_conf c;
	char text[1024], want[HIPD_CONF_VALUE_MAX];
	size_t i, n = 0;

	snprintf(text, sizeof(text), "server = %s 192.0.2.1\n"
		 "# the second\nserver = %s 2001:db8::2 relay rendezvous\n", hit1, hit2);
	parse_ok(&c, text);
	ck_assert_uint_eq(c.n_servers, 2);
	ck_assert_uint_eq(c.servers[0].n_types, 1);    /* rendezvous by default */
	ck_assert_uint_eq(c.servers[0].types[0], HIP_REG_RENDEZVOUS);
	ck_assert(hip_addr_is_v4(&c.servers[0].addr));
	ck_assert_uint_eq(c.servers[1].n_types, 2);
	ck_assert_uint_eq(c.servers[1].types[0], HIP_REG_RELAY_UDP_HIP);
	ck_assert_uint_eq(c.servers[1].types[1], HIP_REG_RENDEZVOUS);
	ck_assert(!hip_addr_is_v4(&c.servers[1].addr));
	ck_assert_str_eq(conf_value(&c, "server"), "2001:21::1 192.0.2.1 rendezvous; "
			 "2001:22::2 2001:db8::2 relay rendezvous");
	/* up to HIPD_CONF_SERVERS_MAX lines, each shown */
	for (i = 0; i < HIPD_CONF_SERVERS_MAX; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "server = 2001:21::%zx 2001:db8:ffff:ffff:ffff:ffff:ffff:%zx "
				      "relay rendezvous\n", i + 1, i + 1);
	parse_ok(&c, text);
	ck_assert_uint_eq(c.n_servers, HIPD_CONF_SERVERS_MAX);
	snprintf(want, sizeof(want), "2001:21::%x 2001:db8:ffff:ffff:ffff:ffff:ffff:%x relay "
		 "rendezvous", HIPD_CONF_SERVERS_MAX, HIPD_CONF_SERVERS_MAX);
	ck_assert_ptr_nonnull(strstr(conf_value(&c, "server"), want));
	snprintf(text + n, sizeof(text) - n, "server = 2001:21::ff 192.0.2.9\n");
	ck_assert_int_eq(parse(&c, text), -EINVAL);
	ck_assert_str_eq(err, "t.conf:9: server: more than 8 servers");
}
END_TEST

static const struct {
	const char *text, *msg;
} bad[] = {
	{ "offer_services = rvs\n",
	  "t.conf:1: offer_services: 'rvs' is not a service (rendezvous, relay, relay-esp or candidate-discovery)" },
	{ "offer_services = relay relay\n", "t.conf:1: offer_services: 'relay' is listed twice" },
	{ "relay_esp_port = 80\n", "t.conf:1: relay_esp_port: 80 is out of range (1024..65535)" },
	{ "relay_esp_ports = 0\n", "t.conf:1: relay_esp_ports: 0 is out of range (1..4096)" },
	{ "offer_services = relay\n\noffer_services = rendezvous\n",
	  "t.conf:3: duplicate key 'offer_services' (first set on line 1)" },
	{ "offer_services =\n", "t.conf:1: offer_services: missing value" },
	/* [HIT] ADDRESS: a first word outside 2001:20::/28 is the address (D-16) */
	{ "server = 2001:db8::1 192.0.2.1\n",
	  "t.conf:1: server: '192.0.2.1' is not a service: one server is '[HIT] ADDRESS "
	  "[SERVICE...]', its HIT first" },
	{ "server = 192.0.2.1 2001:21::1\n",
	  "t.conf:1: server: '2001:21::1' is not a service: one server is '[HIT] ADDRESS "
	  "[SERVICE...]', its HIT first" },
	{ "server = rvs.example.org relay\n",
	  "t.conf:1: server: 'rvs.example.org' is neither a HIT nor an IP address (expected "
	  "'[HIT] ADDRESS [SERVICE...]')" },
	{ "server = 0.0.0.0\n",
	  "t.conf:1: server: 0.0.0.0 cannot be a server's address (the unspecified address)" },
	{ "server = 192.0.2.1\nserver = 192.0.2.1 relay\n",
	  "t.conf:2: server: the server at 192.0.2.1 is listed twice" },
	{ "server = 2001:21::1 192.0.2.1\nserver = 192.0.2.1\n",
	  "t.conf:2: server: the server at 192.0.2.1 is listed twice" },
	{ "server = fd00::1\nserver = 2001:21::1 fd00::1 relay\n",
	  "t.conf:2: server: the server at fd00::1 is listed twice" },
	{ "server = 2001:21::1\n", "t.conf:1: server: missing the server's address after its HIT" },
	{ "server = 2001:21::1 rvs.example.org\n",
	  "t.conf:1: server: 'rvs.example.org' is not an IP address" },
	{ "server = 2001:21::1 192.0.2.1 rvs\n",
	  "t.conf:1: server: 'rvs' is not a service (rendezvous, relay, relay-esp or candidate-discovery)" },
	{ "server = 2001:21::1 192.0.2.1 none\n",
	  "t.conf:1: server: 'none' is not a service (rendezvous, relay, relay-esp or candidate-discovery)" },
	{ "server = 2001:21::1 0.0.0.0\n",
	  "t.conf:1: server: 0.0.0.0 cannot be a server's address (the unspecified address)" },
	{ "server = 2001:21::1 2001:21::2\n",
	  "t.conf:1: server: 2001:21::2 cannot be a server's address (a HIT (2001:20::/28), "
	  "not a locator)" },
	{ "server = 2001:21::1 192.0.2.1\nserver = 2001:21::1 192.0.2.2 relay\n",
	  "t.conf:2: server: server 2001:21::1 is listed twice" },
	{ "registration_min_lifetime = 9\n",
	  "t.conf:1: registration_min_lifetime: 9 is out of range (10..15000000)" },
	{ "registration_max_lifetime = 0\n",
	  "t.conf:1: registration_max_lifetime: 0 is out of range (10..15000000)" },
	{ "registration_max = 0\n", "t.conf:1: registration_max: 0 is out of range (1..10000000)" },
	{ "registration_lifetime = 5\n",
	  "t.conf:1: registration_lifetime: 5 is out of range (10..15000000)" },
};

START_TEST(test_errors)
{
	struct hipd_conf c;

	ck_assert_int_eq(parse(&c, bad[_i].text), -EINVAL);
	ck_assert_str_eq(err, bad[_i].msg);
}
END_TEST

/* Neither the offered services nor the servers change on SIGHUP. */
START_TEST(test_reload)
{
	struct hipd_conf cur, fresh;
	const char *keys[8];

	parse_ok(&cur, "offer_services = rendezvous\nserver = 2001:21::1 192.0.2.1\n");
	parse_ok(&fresh, "offer_services = rendezvous\nserver = 2001:21::1 192.0.2.1\n"
			 "registration_max = 7\n");
	ck_assert_uint_eq(hipd_conf_apply_reload(&cur, &fresh, keys, 8), 0);
	ck_assert_uint_eq(cur.registration_max, 7);
	parse_ok(&fresh, "offer_services = rendezvous relay\n"
			 "server = 2001:21::1 192.0.2.1\nserver = 2001:22::2 192.0.2.2\n");
	ck_assert_uint_eq(hipd_conf_apply_reload(&cur, &fresh, keys, 8), 2);
	ck_assert_str_eq(keys[0], "offer_services");
	ck_assert_str_eq(keys[1], "server");
	ck_assert_uint_eq(cur.n_servers, 1);
	ck_assert_uint_eq(cur.n_offer_services, 1);
}
END_TEST

/* ---- reg_allow.c ------------------------------------------------------- */

static char allow_err[256];

static int allow_parse(struct reg_allow **out, const char *text, size_t len)
{
	allow_err[0] = '\0';
	return reg_allow_parse(out, "allow", text, len, allow_err, sizeof(allow_err));
}

START_TEST(test_allow_good)
{
	static const char text[] =
		"# HITs that may register\n"
		"\n"
		"2001:21::1\n"
		"   2001:22::2   # the second\r\n"
		"\t2001:2f::abcd#no space before the comment\n"
		"   \t  \n"
		"# 2001:21::99\n"
		"2001:21::1\n"          /* a repeat does no harm */
		"2001:23::3";           /* no newline at the end */
	static const char *const in[] = { "2001:21::1", "2001:22::2", "2001:2f::abcd",
					  "2001:23::3" };
	static const char *const out[] = { "2001:21::99", "2001:21::2", "2001:db8::1",
					   "2001:23::4" };
	struct reg_allow *a;
	struct hip_hit h;
	size_t i;

	ck_assert_int_eq(allow_parse(&a, text, strlen(text)), 0);
	ck_assert_ptr_nonnull(a);
	ck_assert_uint_ge(reg_allow_count(a), 4);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(hip_hit_from_str(in[i], &h), 0);
		ck_assert_msg(reg_allow_has(a, &h), "%s not found", in[i]);
	}
	for (i = 0; i < 4; i++) {
		if (hip_hit_from_str(out[i], &h) == 0)
			ck_assert_msg(!reg_allow_has(a, &h), "%s found", out[i]);
	}
	reg_allow_free(a);
	/* empty and comment-only files: nobody */
	ck_assert_int_eq(allow_parse(&a, "# none\n", 7), 0);
	ck_assert_uint_eq(reg_allow_count(a), 0);
	ck_assert(!reg_allow_has(a, &h));
	reg_allow_free(a);
	ck_assert_uint_eq(reg_allow_count(NULL), 0);
	ck_assert(!reg_allow_has(NULL, &h));
}
END_TEST

static const struct {
	const char *text;
	size_t len;                 /* 0: strlen */
	const char *msg;
} allow_bad[] = {
	{ "2001:21::1\nnot-a-hit\n", 0, "allow:2: 'not-a-hit' is not a HIT" },
	{ "2001:db8::1\n", 0, "allow:1: '2001:db8::1' is not a HIT" },
	{ "192.0.2.1\n", 0, "allow:1: '192.0.2.1' is not a HIT" },
	{ "# a\n2001:21::1 2001:21::2\n", 0, "allow:2: one HIT per line" },
	{ "2001:21::1,2001:21::2\n", 0, "allow:1: '2001:21::1,2001:21::2' is not a HIT" },
	{ "2001:21::1\n\n2001:21::\0" "1\n", 25, "allow:3: NUL byte in line" },
};

START_TEST(test_allow_errors)
{
	struct reg_allow *a = (struct reg_allow *)&a;
	const char *text = allow_bad[_i].text;
	size_t len = allow_bad[_i].len ? allow_bad[_i].len : strlen(text);

	ck_assert_int_eq(allow_parse(&a, text, len), -EINVAL);
	ck_assert_ptr_null(a);
	ck_assert_str_eq(allow_err, allow_bad[_i].msg);
}
END_TEST

START_TEST(test_allow_limits)
{
	struct reg_allow *a;
	char text[600], path[] = "/tmp/check_reg_allow.XXXXXX";
	struct hip_hit h;
	int fd;

	/* a line of 255 characters is fine, 256 is not */
	memset(text, ' ', sizeof(text));
	memcpy(text, "2001:21::1", 10);
	text[255] = '\n';
	ck_assert_int_eq(allow_parse(&a, text, 256), 0);
	ck_assert_uint_eq(reg_allow_count(a), 1);
	reg_allow_free(a);
	memcpy(text + 256, "\n2001:21::2", 11);
	text[255] = ' ';
	ck_assert_int_eq(allow_parse(&a, text, 267), -EINVAL);
	ck_assert_str_eq(allow_err, "allow:1: line longer than 255 characters");
	/* a long word: not a HIT, and the message stays short and printable */
	memset(text, '1', 200);
	text[200] = '\n';
	ck_assert_int_eq(allow_parse(&a, text, 201), -EINVAL);
	ck_assert_ptr_nonnull(strstr(allow_err, "allow:1: '"));
	ck_assert_ptr_nonnull(strstr(allow_err, "is not a HIT"));
	ck_assert_int_lt(strlen(allow_err), 80);

	/* reg_allow_load reads the file; errors name the path */
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "2001:21::7\n2001:21::8\n", 22), 22);
	close(fd);
	ck_assert_int_eq(reg_allow_load(&a, path, allow_err, sizeof(allow_err)), 0);
	ck_assert_uint_eq(reg_allow_count(a), 2);
	ck_assert_int_eq(hip_hit_from_str("2001:21::8", &h), 0);
	ck_assert(reg_allow_has(a, &h));
	reg_allow_free(a);
	fd = open(path, O_WRONLY | O_APPEND);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "bad\n", 4), 4);
	close(fd);
	ck_assert_int_eq(reg_allow_load(&a, path, allow_err, sizeof(allow_err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(allow_err, ":3: 'bad' is not a HIT"));
	ck_assert_int_eq(strncmp(allow_err, path, strlen(path)), 0);
	unlink(path);
	ck_assert_int_eq(reg_allow_load(&a, path, allow_err, sizeof(allow_err)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(allow_err, path));
	ck_assert_int_eq(reg_allow_load(&a, "/tmp", allow_err, sizeof(allow_err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(allow_err, "not a regular file"));
}
END_TEST

/* What is wrong with a line is told in printable text (the message goes
 * to the log and to hipconf). */
START_TEST(test_allow_message_printable)
{
	static const char *const lines[] = {
		"11111111111111111111111111111111111111111111111111111111111111111111\n",
		"\x1b[2J\x1b[31mboo\n",
	};
	struct reg_allow *a;
	size_t i;
	const char *p;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		ck_assert_int_eq(allow_parse(&a, lines[i], strlen(lines[i])), -EINVAL);
		ck_assert_ptr_nonnull(strstr(allow_err, "is not a HIT"));
		for (p = allow_err; *p; p++)
			ck_assert_msg(*p >= 0x20 && *p < 0x7f, "line %zu: byte 0x%02x in '%s'", i,
				      (unsigned char)*p, allow_err);
	}
}
END_TEST

static Suite *reg_conf_suite(void)
{
	Suite *s = suite_create("reg_conf");
	TCase *tc = tcase_create("conf");

	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_offer_services);
	tcase_add_test(tc, test_servers);
	tcase_add_test(tc, test_servers_by_address);
	tcase_add_test(tc, test_servers_round_trip);
	tcase_add_loop_test(tc, test_errors, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, test_reload);
	suite_add_tcase(s, tc);
	tc = tcase_create("allow");
	tcase_add_test(tc, test_allow_good);
	tcase_add_loop_test(tc, test_allow_errors, 0, sizeof(allow_bad) / sizeof(allow_bad[0]));
	tcase_add_test(tc, test_allow_limits);
	tcase_add_test(tc, test_allow_message_printable);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(reg_conf_suite)
