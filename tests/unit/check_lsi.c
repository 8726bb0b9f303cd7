/*
 * check_lsi.c - LSIs derived from the HIT (docs/decisions.md D-20): the
 * function (libhipcore/lsi_derive.c) gives the same LSI everywhere, spreads
 * HITs evenly and never the network or broadcast address; the table
 * (hipd/net/lsi.c) moves a collision to the next free LSI and lets lsi=
 * win; hipd.conf's lsi_range; the overlap rule and the rtnetlink dump
 * parser (hipd/net/lsi_host.c); the hosts file against the range.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "base/conf.h"
#include "lsi_derive.h"
#include "net/hosts.h"
#include "net/lsi.h"
#include "net/lsi_host.h"
#include "unit.h"

static const struct hip_lsi_range def_range = HIP_LSI_RANGE_DEFAULT;

static struct hip_hit hit_of(const char *s)
{
	struct hip_hit h;

	ck_assert_int_eq(hip_hit_from_str(s, &h), 0);
	return h;
}

/* The i-th test HIT: 2001:2x:: with i in the low bits. */
static struct hip_hit hit_n(uint32_t i)
{
	struct hip_hit h;

	memset(&h, 0, sizeof(h));
	h.b[0] = 0x20;
	h.b[1] = 0x01;
	h.b[3] = 0x20 | (i & 0x0f);
	h.b[12] = (uint8_t)(i >> 24);
	h.b[13] = (uint8_t)(i >> 16);
	h.b[14] = (uint8_t)(i >> 8);
	h.b[15] = (uint8_t)i;
	return h;
}

static const char *lsi_str(struct in_addr a, char *buf)
{
	return inet_ntop(AF_INET, &a, buf, INET_ADDRSTRLEN);
}

static struct hip_lsi_range range_of(const char *s)
{
	struct hip_lsi_range r;
	char why[128];

	ck_assert_msg(hip_lsi_range_parse(s, &r, why, sizeof(why)) == 0, "%s: %s", s, why);
	return r;
}

/* Values computed independently (Python: hashlib.sha256 over the 16
 * bytes), so a change of the function, which would break agreement with
 * every deployed peer, fails here. */
START_TEST(test_derive_known)
{
	static const struct {
		const char *hit, *lsi;
	} v[] = {
		{ "2001:2a::9", "198.19.90.76" },
		{ "2001:2a::10", "198.18.120.148" },
	};
	struct lsi_table *t;
	struct in_addr a;
	char buf[INET_ADDRSTRLEN];
	size_t i;

	ck_assert_int_eq(lsi_table_create(&t, &def_range), 0);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct hip_hit h = hit_of(v[i].hit);
		enum lsi_source src;

		ck_assert_int_eq(lsi_table_find(t, &h, &a, NULL), -ENOENT);
		ck_assert_int_eq(lsi_table_get(t, &h, &a, &src), 0);
		ck_assert_str_eq(lsi_str(a, buf), v[i].lsi);
		ck_assert_int_eq(src, LSI_DERIVED);
		/* asked again: the same, nothing new assigned */
		ck_assert_int_eq(lsi_table_get(t, &h, &a, NULL), 0);
		ck_assert_str_eq(lsi_str(a, buf), v[i].lsi);
		ck_assert_ptr_nonnull(lsi_table_hit_of(t, a));
		ck_assert_mem_eq(lsi_table_hit_of(t, a)->b, h.b, 16);
	}
	ck_assert_uint_eq(lsi_table_count(t), 2);
	lsi_table_free(t);
}
END_TEST

/* 16,000 HITs into 16 equal slices of the default range: each slice gets
 * its share within 10% (the expected deviation is under 3%). */
START_TEST(test_derive_spread)
{
	uint32_t n = hip_lsi_usable(&def_range), slice[16] = { 0 }, i, off;

	ck_assert_uint_eq(n, 131070);
	for (i = 0; i < 16000; i++) {
		struct hip_hit h = hit_n(i);

		ck_assert_int_eq(hip_lsi_derive_offset(h.b, &def_range, &off), 0);
		ck_assert(off >= 1 && off <= n);
		slice[(off - 1) * 16 / n]++;
	}
	for (i = 0; i < 16; i++)
		ck_assert_msg(slice[i] >= 900 && slice[i] <= 1100, "slice %u: %u", i, slice[i]);
}
END_TEST

/* In a /30 (two usable LSIs) every HIT lands on .1 or .2, never on the
 * network (.0) or broadcast (.3) address, and both are used. */
START_TEST(test_derive_never_net_or_broadcast)
{
	struct hip_lsi_range r = range_of("10.9.8.4/30");
	unsigned seen[4] = { 0 };
	uint32_t i, off;
	uint8_t lsi[4];

	ck_assert_uint_eq(hip_lsi_usable(&r), 2);
	for (i = 0; i < 200; i++) {
		struct hip_hit h = hit_n(i);

		ck_assert_int_eq(hip_lsi_derive_offset(h.b, &r, &off), 0);
		hip_lsi_at(&r, off, lsi);
		ck_assert_uint_eq(lsi[0], 10);
		ck_assert_uint_eq(lsi[2], 8);
		ck_assert(lsi[3] >= 4 && lsi[3] <= 7);
		seen[lsi[3] - 4]++;
		ck_assert_uint_eq(hip_lsi_offset(&r, lsi), off);
	}
	ck_assert_uint_eq(seen[0], 0);
	ck_assert_uint_eq(seen[3], 0);
	ck_assert_uint_gt(seen[1], 50);
	ck_assert_uint_gt(seen[2], 50);
}
END_TEST

/* A HIT whose derived offset in r is want. */
static struct hip_hit hit_with_offset(const struct hip_lsi_range *r, uint32_t want,
				      uint32_t skip)
{
	uint32_t i, off;

	for (i = 0; i < 100000; i++) {
		struct hip_hit h = hit_n(i);

		ck_assert_int_eq(hip_lsi_derive_offset(h.b, r, &off), 0);
		if (off == want && skip-- == 0)
			return h;
	}
	ck_abort_msg("no HIT with offset %u", want);
	return hit_n(0);
}

/* Two HITs on the same derived LSI: the second takes the next one; on the
 * last LSI of the range the probe wraps to the first; a full range gives
 * -ENOSPC. */
START_TEST(test_collision_probe)
{
	struct hip_lsi_range r = range_of("10.0.0.16/28");   /* .17 .. .30 */
	struct hip_hit a = hit_with_offset(&r, 14, 0), b = hit_with_offset(&r, 14, 1);
	struct hip_hit c = hit_with_offset(&r, 5, 0);
	struct lsi_table *t;
	struct in_addr x;
	char buf[INET_ADDRSTRLEN];
	uint32_t i;

	ck_assert_int_eq(lsi_table_create(&t, &r), 0);
	ck_assert_int_eq(lsi_table_get(t, &a, &x, NULL), 0);
	ck_assert_str_eq(lsi_str(x, buf), "10.0.0.30");
	ck_assert_int_eq(lsi_table_get(t, &b, &x, NULL), 0);
	ck_assert_str_eq(lsi_str(x, buf), "10.0.0.17");       /* wrapped */
	ck_assert_int_eq(lsi_table_get(t, &c, &x, NULL), 0);
	ck_assert_str_eq(lsi_str(x, buf), "10.0.0.21");
	/* fill the range: 14 HITs, then no room */
	for (i = 0; lsi_table_count(t) < 14; i++) {
		struct hip_hit h = hit_n(1000 + i);

		ck_assert_int_eq(lsi_table_get(t, &h, &x, NULL), 0);
	}
	{
		struct hip_hit h = hit_n(999);

		ck_assert_int_eq(lsi_table_get(t, &h, &x, NULL), -ENOSPC);
	}
	/* a is forgotten: b keeps the LSI it has (stable), a new HIT derived
	 * to offset 14 gets a's */
	lsi_table_forget(t, &a);
	ck_assert_uint_eq(lsi_table_count(t), 13);
	ck_assert_int_eq(lsi_table_get(t, &b, &x, NULL), 0);
	ck_assert_str_eq(lsi_str(x, buf), "10.0.0.17");
	{
		struct hip_hit d = hit_with_offset(&r, 14, 2);

		ck_assert_int_eq(lsi_table_get(t, &d, &x, NULL), 0);
		ck_assert_str_eq(lsi_str(x, buf), "10.0.0.30");
	}
	lsi_table_free(t);
}
END_TEST

/* lsi= wins: a derived LSI on a newly pinned one moves, a pinned HIT loses
 * its derived LSI; forget leaves pinned ones alone. */
START_TEST(test_pins_win)
{
	struct hip_hit a = hit_of("2001:2a::9"), b = hit_of("2001:2a::10");
	struct lsi_table *t;
	struct lsi_pin pin;
	struct in_addr x;
	enum lsi_source src;
	char buf[INET_ADDRSTRLEN];

	ck_assert_int_eq(lsi_table_create(&t, &def_range), 0);
	ck_assert_int_eq(lsi_table_get(t, &a, &x, NULL), 0);
	ck_assert_str_eq(lsi_str(x, buf), "198.19.90.76");
	/* b pinned on a's derived LSI: a moves to the next */
	pin.hit = b;
	inet_pton(AF_INET, "198.19.90.76", &pin.lsi);
	ck_assert_int_eq(lsi_table_set_pins(t, &pin, 1), 0);
	ck_assert_int_eq(lsi_table_find(t, &b, &x, &src), 0);
	ck_assert_str_eq(lsi_str(x, buf), "198.19.90.76");
	ck_assert_int_eq(src, LSI_FROM_FILE);
	ck_assert_int_eq(lsi_table_find(t, &a, &x, &src), 0);
	ck_assert_str_eq(lsi_str(x, buf), "198.19.90.77");
	ck_assert_int_eq(src, LSI_DERIVED);
	/* a pinned itself: its derived one goes */
	pin.hit = a;
	inet_pton(AF_INET, "198.18.0.1", &pin.lsi);
	ck_assert_int_eq(lsi_table_set_pins(t, &pin, 1), 0);
	ck_assert_uint_eq(lsi_table_count(t), 1);
	ck_assert_int_eq(lsi_table_find(t, &a, &x, NULL), 0);
	ck_assert_str_eq(lsi_str(x, buf), "198.18.0.1");
	ck_assert_int_eq(lsi_table_find(t, &b, &x, NULL), -ENOENT);
	lsi_table_forget(t, &a);
	ck_assert_uint_eq(lsi_table_count(t), 1);
	/* pins outside the range or twice: refused, table unchanged */
	inet_pton(AF_INET, "10.0.0.1", &pin.lsi);
	ck_assert_int_eq(lsi_table_set_pins(t, &pin, 1), -EINVAL);
	{
		struct lsi_pin two[2] = { { a, { 0 } }, { b, { 0 } } };

		inet_pton(AF_INET, "198.18.0.2", &two[0].lsi);
		two[1].lsi = two[0].lsi;
		ck_assert_int_eq(lsi_table_set_pins(t, two, 2), -EINVAL);
	}
	ck_assert_int_eq(lsi_table_find(t, &a, &x, NULL), 0);
	ck_assert_str_eq(lsi_str(x, buf), "198.18.0.1");
	lsi_table_free(t);
}
END_TEST

/* hipd.conf lsi_range: accepted values, errors with the line number. */
static const struct {
	const char *line, *err;
} bad_ranges[] = {
	{ "lsi_range = 10.0.0.0", "t.conf:2: lsi_range: '10.0.0.0' is not an IPv4 network "
	  "(expected A.B.C.D/LEN)" },
	{ "lsi_range = fd00::/64", "t.conf:2: lsi_range: 'fd00::' is not an IPv4 address (an "
	  "IPv4 network A.B.C.D/LEN is expected)" },
	{ "lsi_range = 10.0.0.0/7", "t.conf:2: lsi_range: prefix length '7' is out of range "
	  "(8..30)" },
	{ "lsi_range = 10.0.0.0/31", "t.conf:2: lsi_range: prefix length '31' is out of range "
	  "(8..30)" },
	{ "lsi_range = 10.0.0.0/1x", "t.conf:2: lsi_range: prefix length '1x' is out of range "
	  "(8..30)" },
	{ "lsi_range = 10.1.0.0/8", "t.conf:2: lsi_range: 10.1.0.0/8 has host bits set (the "
	  "network address of a /8 is expected)" },
	{ "lsi_range = 224.0.0.0/8", "t.conf:2: lsi_range: 224.0.0.0/8 is not unicast address "
	  "space" },
	{ "lsi_range = 300.0.0.0/8", "t.conf:2: lsi_range: '300.0.0.0' is not an IPv4 address "
	  "(an IPv4 network A.B.C.D/LEN is expected)" },
};

START_TEST(test_conf_bad)
{
	struct hipd_conf c;
	char text[256], err[HIPD_CONF_ERR_MAX];

	hipd_conf_defaults(&c);
	snprintf(text, sizeof(text), "# LSIs\n%s\n", bad_ranges[_i].line);
	ck_assert_int_eq(hipd_conf_parse(&c, "t.conf", text, strlen(text), err, sizeof(err)),
			 -EINVAL);
	ck_assert_str_eq(err, bad_ranges[_i].err);
}
END_TEST

START_TEST(test_conf_good)
{
	struct hipd_conf c;
	enum hipd_conf_vtype ty;
	char err[HIPD_CONF_ERR_MAX], val[HIPD_CONF_VALUE_MAX];
	const char *text = "lsi_range = 10.200.0.0/16\n", *key;
	size_t i;

	hipd_conf_defaults(&c);
	ck_assert_uint_eq(c.lsi_range.prefix, 15);
	ck_assert_uint_eq(c.lsi_range.net[0], 198);
	ck_assert_uint_eq(c.lsi_range.net[1], 18);
	ck_assert_int_eq(hipd_conf_parse(&c, "t.conf", text, strlen(text), err, sizeof(err)), 0);
	ck_assert_uint_eq(c.lsi_range.prefix, 16);
	ck_assert_uint_eq(c.lsi_range.net[1], 200);
	for (i = 0; (key = hipd_conf_get(&c, i, val, sizeof(val), &ty)); i++)
		if (strcmp(key, "lsi_range") == 0)
			break;
	ck_assert_ptr_nonnull(key);
	ck_assert_str_eq(val, "10.200.0.0/16");
	ck_assert_int_eq(ty, HIPD_CONF_V_STRING);
}
END_TEST

static struct hip_lsi_route route(const char *dst, unsigned prefix, const char *dev, bool addr)
{
	struct hip_lsi_route r;

	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(inet_pton(AF_INET, dst, r.dst), 1);
	r.prefix = prefix;
	r.is_addr = addr;
	snprintf(r.dev, sizeof(r.dev), "%s", dev);
	return r;
}

/* Which routes and addresses make a range unusable. */
START_TEST(test_overlap_rule)
{
	struct hip_lsi_range r = range_of("10.0.0.0/8");
	struct hip_lsi_route rt[6];

	rt[0] = route("0.0.0.0", 0, "eth0", false);           /* default: never */
	rt[1] = route("192.0.2.0", 24, "eth0", false);
	rt[2] = route("10.0.0.0", 8, "hip0", false);          /* hipd's own */
	rt[3] = route("172.16.0.0", 12, "eth1", false);
	ck_assert_int_eq(hip_lsi_range_conflict(&r, rt, 4, LSI_HOST_OWN_DEV), -1);
	ck_assert_int_eq(hip_lsi_range_conflict(&r, rt, 4, NULL), 2);
	rt[4] = route("10.1.2.0", 24, "eth0", false);         /* inside the range */
	ck_assert_int_eq(hip_lsi_range_conflict(&r, rt, 5, LSI_HOST_OWN_DEV), 4);
	/* a route around the range (a /7 holding the /8) overlaps too */
	rt[4] = route("10.0.0.0", 7, "eth0", false);
	ck_assert_int_eq(hip_lsi_range_conflict(&r, rt, 5, LSI_HOST_OWN_DEV), 4);
	/* an address in the range: on hip0 it is an LSI hipd put there
	 * (D-22), elsewhere a conflict */
	rt[4] = route("192.0.2.0", 24, "eth0", false);
	rt[5] = route("10.9.9.9", 32, "hip0", true);
	ck_assert_int_eq(hip_lsi_range_conflict(&r, rt, 6, LSI_HOST_OWN_DEV), -1);
	rt[5] = route("10.9.9.9", 32, "eth1", true);
	ck_assert_int_eq(hip_lsi_range_conflict(&r, rt, 6, LSI_HOST_OWN_DEV), 5);
	ck_assert(hip_lsi_prefix_overlap(rt[5].dst, 32, r.net, 8));
	ck_assert(!hip_lsi_prefix_overlap(rt[1].dst, 24, r.net, 8));
}
END_TEST

/* Append one netlink message to buf. */
static size_t put_msg(uint8_t *buf, size_t off, uint16_t type, const void *body, size_t blen,
		      const void *attrs, size_t alen)
{
	struct nlmsghdr nh;

	memset(&nh, 0, sizeof(nh));
	nh.nlmsg_type = type;
	nh.nlmsg_len = (uint32_t)(NLMSG_HDRLEN + NLMSG_ALIGN(blen) + alen);
	memcpy(buf + off, &nh, sizeof(nh));
	memcpy(buf + off + NLMSG_HDRLEN, body, blen);
	if (alen)   /* attrs may be NULL then: memcpy's arguments must not be */
		memcpy(buf + off + NLMSG_HDRLEN + NLMSG_ALIGN(blen), attrs, alen);
	return off + NLMSG_ALIGN(nh.nlmsg_len);
}

static size_t put_attr(uint8_t *buf, size_t off, uint16_t type, const void *v, size_t len)
{
	struct rtattr a = { .rta_len = (unsigned short)(sizeof(a) + len), .rta_type = type };

	memcpy(buf + off, &a, sizeof(a));
	memcpy(buf + off + sizeof(a), v, len);
	return off + RTA_ALIGN(a.rta_len);
}

/* The dump parser: routes (main table, unicast), the local table skipped,
 * addresses with IFA_LOCAL, DONE; errors and bad lengths refused. */
START_TEST(test_parse_dump)
{
	uint8_t buf[512], at[64];
	struct hip_lsi_route rt[4];
	struct rtmsg rm = { .rtm_family = AF_INET, .rtm_dst_len = 24, .rtm_table = RT_TABLE_MAIN,
			    .rtm_type = RTN_UNICAST };
	struct ifaddrmsg im = { .ifa_family = AF_INET, .ifa_prefixlen = 16 };
	uint8_t dst[4] = { 10, 1, 2, 0 }, loc[4] = { 172, 20, 0, 5 }, peer[4] = { 172, 20, 0, 9 };
	size_t off = 0, al, n = 0;

	al = put_attr(at, 0, RTA_DST, dst, 4);
	off = put_msg(buf, off, RTM_NEWROUTE, &rm, sizeof(rm), at, al);
	rm.rtm_table = RT_TABLE_LOCAL;
	rm.rtm_type = RTN_LOCAL;
	off = put_msg(buf, off, RTM_NEWROUTE, &rm, sizeof(rm), at, al);
	al = put_attr(at, 0, IFA_ADDRESS, peer, 4);
	al = put_attr(at, al, IFA_LOCAL, loc, 4);
	off = put_msg(buf, off, RTM_NEWADDR, &im, sizeof(im), at, al);
	ck_assert_int_eq(lsi_host_parse_dump(buf, off, rt, 4, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_mem_eq(rt[0].dst, dst, 4);
	ck_assert_uint_eq(rt[0].prefix, 24);
	ck_assert(!rt[0].is_addr);
	ck_assert_mem_eq(rt[1].dst, loc, 4);      /* IFA_LOCAL: our address */
	ck_assert_uint_eq(rt[1].prefix, 16);
	ck_assert(rt[1].is_addr);
	off = put_msg(buf, off, NLMSG_DONE, "\0\0\0\0", 4, NULL, 0);
	n = 0;
	ck_assert_int_eq(lsi_host_parse_dump(buf, off, rt, 4, &n), 1);
	/* a length past the buffer */
	n = 0;
	ck_assert_int_eq(lsi_host_parse_dump(buf, 20, rt, 4, &n), -EBADMSG);
	/* an error reply */
	{
		struct nlmsgerr e = { .error = -EPERM };

		off = put_msg(buf, 0, NLMSG_ERROR, &e, sizeof(e), NULL, 0);
		ck_assert_int_eq(lsi_host_parse_dump(buf, off, rt, 4, &n), -EPERM);
	}
}
END_TEST

/* The hosts file against the configured range: lsi= outside it refused
 * with its line number; mapped HITs without lsi= get their derived LSI at
 * load; lsi= wins over a derived one. */
START_TEST(test_hosts_range)
{
	struct hip_lsi_range r = range_of("10.77.0.0/16");
	struct hosts *h;
	struct in_addr x;
	enum lsi_source src;
	struct hip_hit a = hit_of("2001:2a::9"), b = hit_of("2001:2a::10");
	char err[256], buf[INET_ADDRSTRLEN];
	const char *outside = "# peers\n2001:2a::9 192.0.2.9\n2001:2a::10 192.0.2.10 "
			      "lsi=198.18.0.5\n";
	const char *inside = "2001:2a::9 192.0.2.9\n2001:2a::10 192.0.2.10 lsi=10.77.1.2\n";

	ck_assert_int_eq(hosts_create(&h), 0);
	ck_assert_int_eq(hosts_set_lsi_range(h, &r), 0);
	ck_assert_int_eq(hosts_load_buf(h, "hosts", outside, strlen(outside), err, sizeof(err),
				       NULL), -EINVAL);
	ck_assert_str_eq(err, "hosts:3: LSI 198.18.0.5 is outside the LSI range 10.77.0.0/16");
	ck_assert_int_eq(hosts_load_buf(h, "hosts", inside, strlen(inside), err, sizeof(err),
				       NULL), 0);
	ck_assert_int_eq(hosts_lsi_find(h, &b, &x, &src), 0);
	ck_assert_str_eq(lsi_str(x, buf), "10.77.1.2");
	ck_assert_int_eq(src, LSI_FROM_FILE);
	ck_assert_int_eq(hosts_lsi_find(h, &a, &x, &src), 0);     /* assigned at load */
	ck_assert_int_eq(src, LSI_DERIVED);
	ck_assert_uint_eq(x.s_addr & htonl(0xffff0000), htonl(0x0a4d0000));
	/* forget keeps a mapped HIT's LSI */
	hosts_lsi_forget(h, &a);
	ck_assert_int_eq(hosts_lsi_find(h, &a, &x, NULL), 0);
	/* an unmapped peer: assigned on use, forgotten when its association goes */
	{
		struct hip_hit c = hit_of("2001:2a::77");

		ck_assert_int_eq(hosts_lsi_find(h, &c, &x, NULL), -ENOENT);
		ck_assert_int_eq(hosts_lsi(h, &c, &x, NULL), 0);
		hosts_lsi_forget(h, &c);
		ck_assert_int_eq(hosts_lsi_find(h, &c, &x, NULL), -ENOENT);
	}
	/* a /31 is refused as a range */
	r.prefix = 31;
	ck_assert_int_eq(hosts_set_lsi_range(h, &r), -EINVAL);
	hosts_free(h);
}
END_TEST

/* Two mapped HITs on the same derived LSI: the one on the earlier line
 * keeps it, whatever the hash table's order; the other moves. */
START_TEST(test_hosts_file_order)
{
	struct hip_lsi_range r = range_of("10.0.0.16/28");
	struct hip_hit x = hit_with_offset(&r, 14, 0), y = hit_with_offset(&r, 14, 1);
	char xs[HIP_HIT_STR_LEN], ys[HIP_HIT_STR_LEN], text[256], err[256], buf[INET_ADDRSTRLEN];
	struct in_addr a;
	int order;

	hip_hit_to_str(&x, xs, sizeof(xs));
	hip_hit_to_str(&y, ys, sizeof(ys));
	for (order = 0; order < 2; order++) {
		struct hosts *h;

		ck_assert_int_eq(hosts_create(&h), 0);
		ck_assert_int_eq(hosts_set_lsi_range(h, &r), 0);
		snprintf(text, sizeof(text), "%s 192.0.2.1\n%s 192.0.2.2\n", order ? ys : xs,
			 order ? xs : ys);
		ck_assert_int_eq(hosts_load_buf(h, "hosts", text, strlen(text), err, sizeof(err),
					       NULL), 0);
		ck_assert_int_eq(hosts_lsi_find(h, order ? &y : &x, &a, NULL), 0);
		ck_assert_str_eq(lsi_str(a, buf), "10.0.0.30");
		ck_assert_int_eq(hosts_lsi_find(h, order ? &x : &y, &a, NULL), 0);
		ck_assert_str_eq(lsi_str(a, buf), "10.0.0.17");
		hosts_free(h);
	}
}
END_TEST

static Suite *lsi_suite(void)
{
	Suite *s = suite_create("lsi");
	TCase *tc = tcase_create("lsi");

	tcase_add_test(tc, test_derive_known);
	tcase_add_test(tc, test_derive_spread);
	tcase_add_test(tc, test_derive_never_net_or_broadcast);
	tcase_add_test(tc, test_collision_probe);
	tcase_add_test(tc, test_pins_win);
	tcase_add_loop_test(tc, test_conf_bad, 0, sizeof(bad_ranges) / sizeof(bad_ranges[0]));
	tcase_add_test(tc, test_conf_good);
	tcase_add_test(tc, test_overlap_rule);
	tcase_add_test(tc, test_parse_dump);
	tcase_add_test(tc, test_hosts_range);
	tcase_add_test(tc, test_hosts_file_order);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(lsi_suite)
