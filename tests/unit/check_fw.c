/*
 * check_fw.c - hipfw's rules file (firewall/fw_rules.c) and its packet
 * checks (firewall/fw_packet.c): what is accepted, what is refused and with
 * which message, which rule decides, which packets never reach the rules;
 * HIP, ESP and keepalives over UDP told apart as hipd does (RFC 9028 §5.1).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "coverage.h"
#include "hip_crypto.h"
#include "params.h"
#include "fw_ipt.h"
#include "fw_packet.h"
#include "fw_rules.h"
#include "fw_track.h"
#include "packet.h"
#include "unit.h"

static const char *const HIT_A = "2001:2f:5a4b:21c0:ad9:f7e1:13e2:9a10";
static const char *const HIT_B = "2001:2f:1111:2222:3333:4444:5555:6666";

static struct fw_rules *rules;

static void setup(void)
{
	rules = malloc(sizeof(*rules));
	ck_assert_ptr_nonnull(rules);
}

static void teardown(void)
{
	free(rules);
}

static int parse(const char *text, char *err, size_t err_len)
{
	return fw_rules_parse(text, strlen(text), "t.rules", rules, err, err_len);
}

static enum fw_action decide(const char *from, const char *to, uint8_t type, enum fw_dir dir,
			     unsigned *line)
{
	struct hip_hit a, b;
	struct fw_match m = { .sender = &a, .receiver = &b, .type = type, .dir = dir };
	const struct fw_rule *r;
	enum fw_action act;

	ck_assert_int_eq(hip_hit_from_str(from, &a), 0);
	ck_assert_int_eq(hip_hit_from_str(to, &b), 0);
	r = fw_rules_decide(rules, &m, &act);
	*line = r ? r->line : 0;
	return act;
}

START_TEST(test_rules_first_match)
{
	char text[1024], err[FW_ERR_MAX];
	unsigned line;

	snprintf(text, sizeof(text),
		 "# comment only\n"
		 "\n"
		 "allow from %s type i1,i2 dir in   # trailing comment\n"
		 "deny type i1,2 dir in,forward\n"
		 "allow to %s type 16\r\n"
		 "default allow\n", HIT_A, HIT_B);
	ck_assert_int_eq(parse(text, err, sizeof(err)), 0);
	unit_write_seed("rules_first_match", "\0", 1, text, strlen(text));
	ck_assert_uint_eq(rules->n, 3);
	ck_assert_int_eq(rules->policy, FW_ALLOW);
	ck_assert_uint_eq(rules->policy_line, 6);
	/* A's I1 inbound: the first rule */
	ck_assert_int_eq(decide(HIT_A, HIT_B, HIP_I1, FW_DIR_IN, &line), FW_ALLOW);
	ck_assert_uint_eq(line, 3);
	/* B's R1 forwarded: the second (type 2 by number) */
	ck_assert_int_eq(decide(HIT_B, HIT_A, HIP_R1, FW_DIR_FWD, &line), FW_DENY);
	ck_assert_uint_eq(line, 4);
	/* A's I1 forwarded: not the first (dir), the second */
	ck_assert_int_eq(decide(HIT_A, HIT_B, HIP_I1, FW_DIR_FWD, &line), FW_DENY);
	ck_assert_uint_eq(line, 4);
	/* an UPDATE to B: the third; to A: the default */
	ck_assert_int_eq(decide(HIT_A, HIT_B, HIP_UPDATE, FW_DIR_OUT, &line), FW_ALLOW);
	ck_assert_uint_eq(line, 5);
	ck_assert_int_eq(decide(HIT_B, HIT_A, HIP_UPDATE, FW_DIR_OUT, &line), FW_ALLOW);
	ck_assert_uint_eq(line, 0);
	ck_assert_uint_eq(rules->rule[0].hits, 1);
	ck_assert_uint_eq(rules->rule[1].hits, 2);
	ck_assert_uint_eq(rules->policy_hits, 1);
}
END_TEST

START_TEST(test_rules_default_deny)
{
	char err[FW_ERR_MAX];
	unsigned line;

	/* an empty file denies everything; so does a file without default */
	ck_assert_int_eq(parse("", err, sizeof(err)), 0);
	ck_assert_int_eq(decide(HIT_A, HIT_B, HIP_I1, FW_DIR_IN, &line), FW_DENY);
	ck_assert_int_eq(parse("allow type close\n", err, sizeof(err)), 0);
	ck_assert_int_eq(decide(HIT_A, HIT_B, HIP_CLOSE, FW_DIR_IN, &line), FW_ALLOW);
	ck_assert_int_eq(decide(HIT_A, HIT_B, HIP_CLOSE_ACK, FW_DIR_IN, &line), FW_DENY);
	ck_assert_uint_eq(rules->policy_line, 0);
}
END_TEST

/* Every bad line is refused with the file, the line and what is wrong. */
START_TEST(test_rules_errors)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ "allow form any\n", "t.rules:1: unknown word 'form' (from, to, type, proto, port or dir)" },
		{ "\nallow from 2001:db8::1\n", "t.rules:2: bad from '2001:db8::1' (a HIT" },
		{ "allow from nothex\n", "t.rules:1: bad from 'nothex'" },
		{ "deny type i3\n", "t.rules:1: bad type 'i3'" },
		{ "deny type 128\n", "t.rules:1: bad type '128'" },
		{ "deny type 0\n", "t.rules:1: bad type '0'" },
		{ "deny type i1,\n", "t.rules:1: bad type 'i1,'" },
		{ "deny type ,i1\n", "t.rules:1: bad type ',i1'" },
		{ "deny type 1x\n", "t.rules:1: bad type '1x'" },
		{ "deny dir up\n", "t.rules:1: bad dir 'up'" },
		{ "deny dir in,\n", "t.rules:1: bad dir 'in,'" },
		{ "deny from any from any\n", "t.rules:1: 'from' given twice" },
		{ "deny to\n", "t.rules:1: 'to' needs a value" },
		{ "permit from any\n", "t.rules:1: a rule starts with allow, deny or default, not 'permit'" },
		{ "default\n", "t.rules:1: 'default' takes allow or deny" },
		{ "default maybe\n", "t.rules:1: 'default' takes allow or deny" },
		{ "default allow\ndefault deny\n", "t.rules:2: a second 'default' (the first on line 1)" },
		{ "allow\x01 any\n", "t.rules:1: control character 0x01" },
		{ "a b c d e f g h i j k l m n o p q\n", "t.rules:1: too many words" },
	};
	char err[FW_ERR_MAX];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(parse(bad[i].text, err, sizeof(err)) == -EINVAL, "accepted: %s",
			      bad[i].text);
		ck_assert_msg(strstr(err, bad[i].msg) == err, "'%s': got '%s'", bad[i].text, err);
	}
	/* a NUL byte and an overlong line */
	ck_assert_int_eq(fw_rules_parse("allow\0", 6, "t.rules", rules, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "NUL"));
	{
		char longline[FW_LINE_MAX + 8];

		memset(longline, ' ', sizeof(longline));
		memcpy(longline, "allow", 5);
		ck_assert_int_eq(fw_rules_parse(longline, sizeof(longline), "t.rules", rules, err,
						 sizeof(err)), -EINVAL);
		ck_assert_str_eq(err, "t.rules:1: line longer than 511 bytes");
	}
}
END_TEST

START_TEST(test_rules_limit)
{
	size_t n = (FW_RULES_MAX + 1) * 6, i;
	char *text = malloc(n + 1), err[FW_ERR_MAX];

	ck_assert_ptr_nonnull(text);
	for (i = 0; i < FW_RULES_MAX + 1; i++)
		memcpy(text + i * 6, "allow\n", 6);
	text[n] = '\0';
	ck_assert_int_eq(fw_rules_parse(text, n - 6, "t.rules", rules, err, sizeof(err)), 0);
	ck_assert_uint_eq(rules->n, FW_RULES_MAX);
	ck_assert_int_eq(fw_rules_parse(text, n, "t.rules", rules, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "t.rules:1025: more than 1024 rules");
	free(text);
}
END_TEST

START_TEST(test_rules_load_missing)
{
	char err[FW_ERR_MAX + 64];

	ck_assert_int_eq(fw_rules_load("/nonexistent/hipfw.rules", rules, err, sizeof(err)),
			 -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/hipfw.rules: "));
}
END_TEST

/* ---- packets -------------------------------------------------------------------- */

/* An I1 from HIT_A to HIT_B between src and dst, checksummed, in an IP
 * packet (IPv4 when both addresses are IPv4-mapped); returns its length. */
static size_t ip_i1(uint8_t *out, size_t cap, const char *src, const char *dst, size_t ext)
{
	struct hip_addr s, d;
	struct hip_hit a, b;
	struct hip_builder bld;
	uint8_t hip[256];
	size_t hl, off;
	int n;

	ck_assert_int_eq(hip_addr_from_str(src, &s), 0);
	ck_assert_int_eq(hip_addr_from_str(dst, &d), 0);
	ck_assert_int_eq(hip_hit_from_str(HIT_A, &a), 0);
	ck_assert_int_eq(hip_hit_from_str(HIT_B, &b), 0);
	hip_build_init(&bld, hip, sizeof(hip), HIP_I1, &a, &b);
	n = hip_build_finish(&bld);
	ck_assert_int_gt(n, 0);
	hip_packet_set_checksum(hip, (size_t)n, &s, &d);
	memset(out, 0, cap);
	if (hip_addr_is_v4(&s)) {
		struct in_addr v4;

		hl = 20;
		ck_assert_uint_ge(cap, hl + (size_t)n);
		out[0] = 0x45;
		hip_wr16(out + 2, (uint16_t)(hl + (size_t)n));
		out[8] = 64;
		out[9] = 139;
		v4 = hip_addr_v4(&s);
		memcpy(out + 12, &v4, 4);
		v4 = hip_addr_v4(&d);
		memcpy(out + 16, &v4, 4);
		memcpy(out + hl, hip, (size_t)n);
		return hl + (size_t)n;
	}
	hl = 40 + ext;
	ck_assert_uint_ge(cap, hl + (size_t)n);
	out[0] = 0x60;
	hip_wr16(out + 4, (uint16_t)(ext + (size_t)n));
	out[6] = ext ? IPPROTO_DSTOPTS : 139;
	out[7] = 64;
	memcpy(out + 8, &s.in6, 16);
	memcpy(out + 24, &d.in6, 16);
	for (off = 40; off < hl; off += 8) {
		out[off] = off + 8 < hl ? IPPROTO_DSTOPTS : 139;   /* next header */
		out[off + 1] = 0;                                  /* 8 bytes */
		out[off + 2] = 1;                                  /* PadN, 4 bytes */
		out[off + 3] = 4;
	}
	memcpy(out + hl, hip, (size_t)n);
	return hl + (size_t)n;
}

START_TEST(test_packet_good)
{
	uint8_t buf[512];
	struct fw_packet p;
	struct hip_hit a;
	size_t len;

	len = ip_i1(buf, sizeof(buf), "192.0.2.1", "192.0.2.2", 0);
	ck_assert_int_eq(fw_packet_parse(buf, len, &p), FW_OK);
	unit_write_seed("ip4_i1", "\1", 1, buf, len);
	ck_assert_uint_eq(p.type, HIP_I1);
	ck_assert_int_eq(hip_hit_from_str(HIT_A, &a), 0);
	ck_assert_int_eq(hip_hit_cmp(&p.sender, &a), 0);
	ck_assert_uint_eq(p.hip_len, len - 20);
	/* IPv6, and IPv6 with two destination options headers before HIP */
	len = ip_i1(buf, sizeof(buf), "fd00::1", "fd00::2", 0);
	ck_assert_int_eq(fw_packet_parse(buf, len, &p), FW_OK);
	len = ip_i1(buf, sizeof(buf), "fd00::1", "fd00::2", 16);
	ck_assert_int_eq(fw_packet_parse(buf, len, &p), FW_OK);
	unit_write_seed("ip6_ext_i1", "\1", 1, buf, len);
	ck_assert_uint_eq(p.type, HIP_I1);
	/* trailing bytes after the IPv4 packet (its total length says less) */
	len = ip_i1(buf, sizeof(buf), "192.0.2.1", "192.0.2.2", 0);
	ck_assert_int_eq(fw_packet_parse(buf, len + 8, &p), FW_OK);
}
END_TEST

START_TEST(test_packet_bad)
{
	uint8_t buf[512];
	struct fw_packet p;
	size_t len, i;

	len = ip_i1(buf, sizeof(buf), "192.0.2.1", "192.0.2.2", 0);
	/* every truncation: never read past the end, never accepted */
	for (i = 0; i < len; i++)
		ck_assert_int_ne(fw_packet_parse(buf, i, &p), FW_OK);
	/* the checksum is over the addresses: another source fails it */
	buf[15] ^= 1;
	ck_assert_int_eq(fw_packet_parse(buf, len, &p), FW_BAD_CHECKSUM);
	buf[15] ^= 1;
	/* a fragment (MF), another protocol, a bad IHL, a HIP length past the end */
	buf[6] = 0x20;
	ck_assert_int_eq(fw_packet_parse(buf, len, &p), FW_BAD_FRAGMENT);
	buf[6] = 0;
	buf[9] = 17;
	ck_assert_int_eq(fw_packet_parse(buf, len, &p), FW_NOT_HIP);
	buf[9] = 139;
	buf[0] = 0x44;
	ck_assert_int_eq(fw_packet_parse(buf, len, &p), FW_BAD_IP);
	buf[0] = 0x45;
	buf[21]++;
	ck_assert_int_eq(fw_packet_parse(buf, len, &p), FW_BAD_HIP);
	buf[21]--;
	ck_assert_int_eq(fw_packet_parse(buf, len, &p), FW_OK);
	/* IPv6: a fragment header, an extension header running past the end */
	len = ip_i1(buf, sizeof(buf), "fd00::1", "fd00::2", 8);
	buf[6] = IPPROTO_FRAGMENT;
	ck_assert_int_eq(fw_packet_parse(buf, len, &p), FW_BAD_FRAGMENT);
	buf[6] = IPPROTO_DSTOPTS;
	buf[41] = 200;
	ck_assert_int_eq(fw_packet_parse(buf, len, &p), FW_BAD_IP);
	/* not IP at all */
	buf[0] = 0x50;
	ck_assert_int_eq(fw_packet_parse(buf, len, &p), FW_BAD_IP);
}
END_TEST

/* An IP packet with the header of ip (its hl bytes: IPv4 or IPv6 without
 * extension headers) carrying UDP from sport to dport with payload pl. */
static size_t ip_udp(uint8_t *out, size_t cap, const uint8_t *ip, size_t hl, uint16_t sport,
		     uint16_t dport, const uint8_t *pl, size_t plen)
{
	ck_assert_uint_ge(cap, hl + 8 + plen);
	memmove(out + hl + 8, pl, plen);
	memmove(out, ip, hl);
	if (hl == 20) {
		out[9] = IPPROTO_UDP;
		hip_wr16(out + 2, (uint16_t)(hl + 8 + plen));
	} else {
		out[6] = IPPROTO_UDP;
		hip_wr16(out + 4, (uint16_t)(8 + plen));
	}
	hip_wr16(out + hl, sport);
	hip_wr16(out + hl + 2, dport);
	hip_wr16(out + hl + 4, (uint16_t)(8 + plen));
	hip_wr16(out + hl + 6, 0);
	return hl + 8 + plen;
}

/* HIP over UDP (RFC 9028 §5.1) as hipd/net/udp.c sorts it: a zero marker
 * then HIP, one 0xFF byte a keepalive, else ESP with its SPI first. */
START_TEST(test_packet_udp)
{
	static const uint8_t esp[] = { 0, 0, 0x12, 0x34, 0, 0, 0, 1, 0xaa };
	static const uint8_t keepalive[] = { 0xff };
	static const char *const addrs[2][2] = { { "192.0.2.1", "192.0.2.2" },
						 { "fd00::1", "fd00::2" } };
	uint8_t raw[512], pl[512], buf[600];
	struct fw_packet p;
	struct fw_esp e;
	size_t rlen, hl, len, i;
	int f;

	for (f = 0; f < 2; f++) {
		rlen = ip_i1(raw, sizeof(raw), addrs[f][0], addrs[f][1], 0);
		hl = f ? 40 : 20;
		memset(pl, 0, 4);
		memcpy(pl + 4, raw + hl, rlen - hl);
		/* marker + HIP to the port: parsed as raw HIP, its ports kept */
		len = ip_udp(buf, sizeof(buf), raw, hl, 20001, 10500, pl, 4 + rlen - hl);
		ck_assert_int_eq(fw_packet_parse_udp(buf, len, 10500, &p), FW_OK);
		ck_assert_uint_eq(p.type, HIP_I1);
		ck_assert_uint_eq(p.sport, 20001);
		ck_assert_uint_eq(p.dport, 10500);
		ck_assert_uint_eq(p.hip_len, rlen - hl);
		ck_assert_int_eq(fw_esp_parse_udp(buf, len, 10500, &e), FW_NOT_HIP);
		if (!f)
			unit_write_seed("udp4_i1", "", 1, buf, len);
		/* UDP is not looked into without the port, nor on another one */
		ck_assert_int_eq(fw_packet_parse(buf, len, &p), FW_NOT_HIP);
		ck_assert_int_eq(fw_packet_parse_udp(buf, len, 10501, &p), FW_NOT_HIP);
		ck_assert_int_eq(fw_esp_parse_udp(buf, len, 10501, &e), FW_NOT_HIP);
		/* from the port works as well */
		len = ip_udp(buf, sizeof(buf), raw, hl, 10500, 30000, pl, 4 + rlen - hl);
		ck_assert_int_eq(fw_packet_parse_udp(buf, len, 10500, &p), FW_OK);
		/* every truncation: never read past the end, never accepted */
		for (i = 0; i < len; i++)
			ck_assert_int_ne(fw_packet_parse_udp(buf, i, 10500, &p), FW_OK);
		/* a zero checksum is not checked over UDP; a wrong one is refused */
		pl[4 + 4] = pl[4 + 5] = 0;
		len = ip_udp(buf, sizeof(buf), raw, hl, 10500, 10500, pl, 4 + rlen - hl);
		ck_assert_int_eq(fw_packet_parse_udp(buf, len, 10500, &p), FW_OK);
		pl[4 + 5] = 1;
		len = ip_udp(buf, sizeof(buf), raw, hl, 10500, 10500, pl, 4 + rlen - hl);
		ck_assert_int_eq(fw_packet_parse_udp(buf, len, 10500, &p), FW_BAD_CHECKSUM);
		/* raw HIP with a zero checksum stays refused */
		raw[hl + 4] = raw[hl + 5] = 0;
		ck_assert_int_eq(fw_packet_parse_udp(raw, rlen, 10500, &p), FW_BAD_CHECKSUM);
		/* the marker alone: not ESP, and no HIP header behind it */
		len = ip_udp(buf, sizeof(buf), raw, hl, 10500, 10500, pl, 4);
		ck_assert_int_eq(fw_esp_parse_udp(buf, len, 10500, &e), FW_NOT_HIP);
		ck_assert_int_eq(fw_packet_parse_udp(buf, len, 10500, &p), FW_BAD_HIP);
		/* a keepalive */
		len = ip_udp(buf, sizeof(buf), raw, hl, 10500, 10500, keepalive, 1);
		ck_assert_int_eq(fw_esp_parse_udp(buf, len, 10500, &e), FW_OK);
		ck_assert(e.keepalive);
		ck_assert_int_eq(fw_packet_parse_udp(buf, len, 10500, &p), FW_NOT_HIP);
		/* ESP in UDP: the SPI from the first 32 bits */
		len = ip_udp(buf, sizeof(buf), raw, hl, 4500, 10500, esp, sizeof(esp));
		ck_assert_int_eq(fw_esp_parse_udp(buf, len, 10500, &e), FW_OK);
		ck_assert(!e.keepalive);
		ck_assert_uint_eq(e.spi, 0x1234);
		ck_assert_uint_eq(e.sport, 4500);
		ck_assert_int_eq(fw_packet_parse_udp(buf, len, 10500, &p), FW_NOT_HIP);
		/* short payloads: none, one byte not 0xFF, under 32 bits, no sequence number */
		for (i = 0; i < 8; i++) {
			len = ip_udp(buf, sizeof(buf), raw, hl, 10500, 10500, esp, i);
			ck_assert_int_eq(fw_esp_parse_udp(buf, len, 10500, &e), FW_BAD_IP);
		}
		/* bad UDP lengths: past the IP payload, under the header */
		len = ip_udp(buf, sizeof(buf), raw, hl, 4500, 10500, esp, sizeof(esp));
		hip_wr16(buf + hl + 4, (uint16_t)(8 + sizeof(esp) + 1));
		ck_assert_int_eq(fw_esp_parse_udp(buf, len, 10500, &e), FW_BAD_IP);
		hip_wr16(buf + hl + 4, 7);
		ck_assert_int_eq(fw_esp_parse_udp(buf, len, 10500, &e), FW_BAD_IP);
		/* a UDP length shorter than the IP payload rules: one 0xFF byte */
		len = ip_udp(buf, sizeof(buf), raw, hl, 10500, 10500, keepalive, 1);
		buf[len++] = 0;
		if (hl == 20)
			hip_wr16(buf + 2, (uint16_t)len);
		else
			hip_wr16(buf + 4, (uint16_t)(len - 40));
		ck_assert_int_eq(fw_esp_parse_udp(buf, len, 10500, &e), FW_OK);
		ck_assert(e.keepalive);
		/* a UDP header cut short */
		len = ip_udp(buf, sizeof(buf), raw, hl, 10500, 10500, keepalive, 1);
		if (hl == 20)
			hip_wr16(buf + 2, (uint16_t)(hl + 4));
		else
			hip_wr16(buf + 4, 4);
		ck_assert_int_eq(fw_esp_parse_udp(buf, len, 10500, &e), FW_BAD_IP);
	}
}
END_TEST

/* An R1 of identity `hi` claiming sender HIT `as`, signed; in IPv4. */
static size_t ip_r1(uint8_t *out, size_t cap, const struct hip_hi *hi, const struct hip_hit *as)
{
	struct hip_host_id hid = { .algorithm = hip_hi_algorithm(hi) };
	struct hip_r1_counter rc;
	struct hip_addr s, d;
	struct hip_builder b;
	struct in_addr v4;
	size_t wire_len;
	int n;

	hid.hi = hip_hi_wire(hi, &wire_len);
	hid.hi_len = (uint16_t)wire_len;
	ck_assert_int_eq(hip_addr_from_str("192.0.2.2", &s), 0);
	ck_assert_int_eq(hip_addr_from_str("192.0.2.1", &d), 0);
	memset(out, 0, cap);
	hip_build_init(&b, out + 20, cap - 20, HIP_R1, as, NULL);
	hip_r1_counter_set(&rc, 7);
	hip_r1_counter_build(&b, &rc);
	hip_host_id_build(&b, &hid);
	hip_build_signature(&b, HIP_COVER_SIGNATURE_2, hi);
	n = hip_build_finish(&b);
	ck_assert_int_gt(n, 0);
	hip_packet_set_checksum(out + 20, (size_t)n, &s, &d);
	out[0] = 0x45;
	hip_wr16(out + 2, (uint16_t)(20 + n));
	out[9] = 139;
	v4 = hip_addr_v4(&s);
	memcpy(out + 12, &v4, 4);
	v4 = hip_addr_v4(&d);
	memcpy(out + 16, &v4, 4);
	return 20 + (size_t)n;
}

static void hit_of(const struct hip_hi *hi, struct hip_hit *hit)
{
	size_t len;
	const uint8_t *w = hip_hi_wire(hi, &len);

	ck_assert_int_eq(hip_hit_from_hi((uint8_t)hip_hi_suite(hi), w, len, hit), 0);
}

/* An R1 is checked on the path: its HOST_ID must give the sender's HIT and
 * verify its HIP_SIGNATURE_2. */
START_TEST(test_verify_r1)
{
	struct hip_hi *x = NULL, *y = NULL;
	struct hip_hit hx, hy;
	struct fw_packet p;
	uint8_t buf[2048];
	size_t len;

	ck_assert_int_eq(hip_hi_generate(HIP_HI_KIND_ECDSA_P256, &x), 0);
	ck_assert_int_eq(hip_hi_generate(HIP_HI_KIND_ECDSA_P256, &y), 0);
	hit_of(x, &hx);
	hit_of(y, &hy);
	len = ip_r1(buf, sizeof(buf), x, &hx);
	unit_write_seed("ip4_r1", "\1", 1, buf, len);
	ck_assert_int_eq(fw_packet_parse(buf, len, &p), FW_OK);
	ck_assert_int_eq(fw_verify_host_id(&p), FW_OK);
	/* X's key, Y's HIT: the HIT is not ORCHID(HI) */
	len = ip_r1(buf, sizeof(buf), x, &hy);
	ck_assert_int_eq(fw_packet_parse(buf, len, &p), FW_OK);
	ck_assert_int_eq(fw_verify_host_id(&p), FW_BAD_HIT);
	/* the right pair, a signed byte changed (checksum fixed again) */
	len = ip_r1(buf, sizeof(buf), x, &hx);
	buf[20 + 40 + 4 + 11] ^= 0x40;   /* R1_COUNTER's low byte: covered (§5.2.15) */
	{
		struct hip_addr s, d;

		ck_assert_int_eq(hip_addr_from_str("192.0.2.2", &s), 0);
		ck_assert_int_eq(hip_addr_from_str("192.0.2.1", &d), 0);
		hip_packet_set_checksum(buf + 20, len - 20, &s, &d);
	}
	ck_assert_int_eq(fw_packet_parse(buf, len, &p), FW_OK);
	ck_assert_int_eq(fw_verify_host_id(&p), FW_BAD_SIGNATURE);
	/* an I1 carries no HOST_ID: nothing to check here */
	len = ip_i1(buf, sizeof(buf), "192.0.2.1", "192.0.2.2", 0);
	ck_assert_int_eq(fw_packet_parse(buf, len, &p), FW_OK);
	ck_assert_int_eq(fw_verify_host_id(&p), FW_OK);
	/* the R1 cache: the same R1 again is not verified again; an altered
	 * one is not taken for it; X's key under Y's HIT never enters it */
	{
		struct fw_verify_cache c = { 0 };
		struct hip_hi *got = NULL;
		struct hip_addr s, d;

		len = ip_r1(buf, sizeof(buf), x, &hx);
		ck_assert_int_eq(fw_packet_parse(buf, len, &p), FW_OK);
		ck_assert_int_eq(fw_verify_host_id_cached(&p, &c, &got), FW_OK);
		ck_assert_ptr_nonnull(got);
		hip_hi_free(got);
		ck_assert_int_eq(fw_verify_host_id_cached(&p, &c, &got), FW_OK);
		ck_assert_ptr_nonnull(got);
		hip_hi_free(got);
		ck_assert_uint_eq(c.hits, 1);
		ck_assert_uint_eq(c.misses, 1);
		buf[20 + 40 + 4 + 11] ^= 0x40;
		ck_assert_int_eq(hip_addr_from_str("192.0.2.2", &s), 0);
		ck_assert_int_eq(hip_addr_from_str("192.0.2.1", &d), 0);
		hip_packet_set_checksum(buf + 20, len - 20, &s, &d);
		ck_assert_int_eq(fw_packet_parse(buf, len, &p), FW_OK);
		ck_assert_int_eq(fw_verify_host_id_cached(&p, &c, &got), FW_BAD_SIGNATURE);
		ck_assert_uint_eq(c.hi_hits, 1);   /* its HOST_ID was known: not decoded */
		len = ip_r1(buf, sizeof(buf), x, &hy);
		ck_assert_int_eq(fw_packet_parse(buf, len, &p), FW_OK);
		ck_assert_int_eq(fw_verify_host_id_cached(&p, &c, &got), FW_BAD_HIT);
		ck_assert_int_eq(fw_verify_host_id_cached(&p, &c, &got), FW_BAD_HIT);
		ck_assert_uint_eq(c.hits, 1);
		fw_verify_cache_free(&c);
	}
	hip_hi_free(x);
	hip_hi_free(y);
}
END_TEST

/* Each line of a fast-path rule's text, as iptables-save lists it, is one
 * that --flush-fast-path removes (fw_esp_rule.c writes both); the queue
 * rules and HIPFW_UDP's own rules are not, nor the text to add or delete. */
static void rule_lines_ours(const char *src, const char *dst, uint16_t sp, uint16_t dp,
			    bool udp, size_t want_lines)
{
	struct fw_esp_triple x = { .spi = 0x12345678, .sport = sp, .dport = dp };
	char buf[1024], *line, *nl;
	size_t len, lines = 0;

	ck_assert_int_eq(hip_addr_from_str(src, &x.src), 0);
	ck_assert_int_eq(hip_addr_from_str(dst, &x.dst), 0);
	len = fw_esp_rule_text(buf, sizeof(buf), FW_ESP_RULE_SAVED, udp, &x);
	ck_assert_uint_gt(len, 0);
	ck_assert_uint_eq(strlen(buf), len);
	for (line = buf; *line; line = nl + 1, lines++) {
		nl = strchr(line, '\n');
		ck_assert_ptr_nonnull(nl);
		ck_assert_msg(fw_esp_rule_is_ours(line, (size_t)(nl - line)), "not ours: %.*s",
			      (int)(nl - line), line);
	}
	ck_assert_uint_eq(lines, want_lines);
	/* the commands to add and delete are not iptables-save lines */
	len = fw_esp_rule_text(buf, sizeof(buf), FW_ESP_RULE_ADD, udp, &x);
	ck_assert_uint_gt(len, 0);
	ck_assert(!fw_esp_rule_is_ours(buf, strcspn(buf, "\n")));
	ck_assert_uint_eq(strncmp(buf, "-I HIPFW_ESP 1 -s ", 18), 0);
	len = fw_esp_rule_text(buf, sizeof(buf), FW_ESP_RULE_DEL, udp, &x);
	ck_assert_uint_gt(len, 0);
	ck_assert_uint_eq(strncmp(buf, "-D HIPFW_ESP -s ", 16), 0);
	/* too little room: nothing */
	ck_assert_uint_eq(fw_esp_rule_text(buf, 40, FW_ESP_RULE_ADD, udp, &x), 0);
}

START_TEST(test_fast_path_rule_text)
{
	static const char *const ours[] = {
		/* iptables-save's spelling (iptables 1.8.9, legacy) */
		"-A HIPFW_ESP -s 198.51.100.1/32 -d 203.0.113.2/32 -p esp -m esp --espspi "
		"305419896 -j ACCEPT",
		"-A HIPFW_UDP -s 198.51.100.1/32 -d 203.0.113.2/32 -p udp -m udp --sport 10500 "
		"--dport 10500 -m u32 --u32 \"0x0>>0x16&0x3c@0x8=0x12345678\" -j ACCEPT",
		"-A HIPFW_UDP -s 2001:db8::1/128 -d 2001:db8::2/128 -p udp -m udp --dport 10500 "
		"-m u32 --u32 \"0x30=0x12345678\" -j ACCEPT",
	};
	static const char *const not_ours[] = {
		"-A HIPFW_ESP -j NFQUEUE --queue-num 0 --queue-bypass",
		"-A HIPFW_UDP -p udp -m u32 --u32 \"0x0>>0x16&0x3c@0x8=0x0\" -g HIPFW",
		"-A HIPFW_UDP -g HIPFW",
		"-A HIPFW_UDP -j ACCEPT",
		"-A HIPFW -j NFQUEUE --queue-num 0",
		"-A FORWARD -p esp -m esp --espspi 1 -j ACCEPT",
		"-A HIPFW_ESP -s 198.51.100.1/32 -p esp -m esp --espspi 1 -j DROP",
		"",
	};
	size_t i;

	for (i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		ck_assert_msg(fw_esp_rule_is_ours(ours[i], strlen(ours[i])), "%s", ours[i]);
	for (i = 0; i < sizeof(not_ours) / sizeof(not_ours[0]); i++)
		ck_assert_msg(!fw_esp_rule_is_ours(not_ours[i], strlen(not_ours[i])), "%s",
			      not_ours[i]);
	rule_lines_ours("198.51.100.1", "203.0.113.2", 0, 0, false, 1);
	rule_lines_ours("198.51.100.1", "203.0.113.2", 10500, 10500, true, 2);
	rule_lines_ours("2001:db8::1", "2001:db8::2", 0, 10500, true, 2);
	rule_lines_ours("2001:db8::1", "2001:db8::2", 4500, 0, true, 2);
}
END_TEST

static Suite *fw_suite(void)
{
	Suite *s = suite_create("hipfw");
	TCase *tc = tcase_create("rules");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_rules_first_match);
	tcase_add_test(tc, test_rules_default_deny);
	tcase_add_test(tc, test_rules_errors);
	tcase_add_test(tc, test_rules_limit);
	tcase_add_test(tc, test_rules_load_missing);
	suite_add_tcase(s, tc);
	tc = tcase_create("packets");
	tcase_add_test(tc, test_packet_good);
	tcase_add_test(tc, test_packet_bad);
	tcase_add_test(tc, test_packet_udp);
	tcase_add_test(tc, test_verify_r1);
	tcase_add_test(tc, test_fast_path_rule_text);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(fw_suite)
