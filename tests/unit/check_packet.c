/*
 * check_packet.c - the packet builder (RFC 7401 §5.1, §5.2.1), and the
 * parser on valid packets of every type.
 *
 * Every packet type is built with a representative parameter set and parsed
 * back; the expected TLV lengths come from RFC 7401 §5.2-5.3 (see also
 * docs/protocol.md §1), not from the code. The parser's rejections of
 * hand-made packets are in check_parser.c.
 *
 * With HIP_SEED_DIR set, the valid packets are also written there as the
 * fuzzer's seed corpus (fuzz/corpus/packet/).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "packet.h"
#include "params.h"
#include "unit.h"

/* RFC 7401 App. C: I1 from 2001:20::1 to 2001:20::2, DH_GROUP_LIST {3,4,8}. */
static const char appc_i1_hex[] =
	"3b0501211a5e0000 20010020000000000000000000000001"
	"20010020000000000000000000000002 01ff0003030408 00";

static const struct hip_hit hit_i = { { 0x20, 0x01, 0x00, 0x20, [15] = 0x01 } };
static const struct hip_hit hit_r = { { 0x20, 0x01, 0x00, 0x20, [15] = 0x02 } };

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + 7 * i + 1);
}

/* Fake but correctly sized opaque parameter (MACs, signatures, echoes). */
static void add_fake(struct hip_builder *b, uint16_t type, size_t len)
{
	uint8_t tmp[256];

	fill(tmp, len, (uint8_t)type);
	hip_build_param(b, type, tmp, len);
}

static void add_sig(struct hip_builder *b, uint16_t type)
{
	uint8_t sig[66];

	fill(sig, sizeof(sig), 0x5a);
	sig[0] = 0;
	sig[1] = HIP_HI_ECDSA;  /* SIG alg(16) | 64-byte P-256 r||s */
	hip_build_param(b, type, sig, sizeof(sig));
}

static void add_addr_locator(struct hip_builder *b, uint8_t loc_type)
{
	struct hip_locator_set ls;

	memset(&ls, 0, sizeof(ls));
	ls.n = 1;
	ls.loc[0].locator_type = loc_type;
	ls.loc[0].preferred = true;
	ls.loc[0].lifetime = 600;
	ls.loc[0].spi = 0x1234;
	ls.loc[0].addr.in6.s6_addr[0] = 0x20;
	ls.loc[0].addr.in6.s6_addr[1] = 0x01;
	ls.loc[0].addr.in6.s6_addr[2] = 0x0d;
	ls.loc[0].addr.in6.s6_addr[3] = 0xb8;
	ls.loc[0].addr.in6.s6_addr[15] = 0x05;
	hip_locator_set_build(b, &ls);
}

static void add_dh(struct hip_builder *b)
{
	uint8_t pub[64];

	fill(pub, sizeof(pub), 3);
	hip_dh_param_build(b, HIP_DH_NIST_P256, pub, sizeof(pub));
}

static void add_u16_list(struct hip_builder *b,
			 void (*fn)(struct hip_builder *, const struct hip_u16_list *),
			 unsigned n, const uint16_t *ids)
{
	struct hip_u16_list l = { .n = n };

	memcpy(l.v, ids, n * sizeof(*ids));
	fn(b, &l);
}

static void add_host_id(struct hip_builder *b)
{
	uint8_t hi[67];
	struct hip_host_id h = { .algorithm = HIP_HI_ECDSA, .hi = hi, .hi_len = sizeof(hi) };

	fill(hi, sizeof(hi), 9);
	hi[0] = 0;
	hi[1] = HIP_CURVE_NIST_P256;
	hi[2] = 0x04;
	hip_host_id_build(b, &h);
}

static void add_esp_info(struct hip_builder *b)
{
	struct hip_esp_info e = { .keymat_index = 96, .old_spi = 0, .new_spi = 0x10001 };

	hip_esp_info_build(b, &e);
}

static void add_reg(struct hip_builder *b, uint16_t type, uint8_t value)
{
	struct hip_reg r = { .value = value, .n = 1, .type = { HIP_REG_RENDEZVOUS } };

	hip_reg_build(b, type, &r);
}

static void add_relay(struct hip_builder *b, uint16_t type)
{
	struct hip_relay_addr a = { .port = 10500, .protocol = 17 };

	a.addr.in6.s6_addr[10] = 0xff;
	a.addr.in6.s6_addr[11] = 0xff;
	a.addr.in6.s6_addr[12] = 192;
	a.addr.in6.s6_addr[15] = 1;
	hip_relay_addr_build(b, type, &a);
}

static void add_from(struct hip_builder *b)
{
	struct hip_addr a;

	memset(&a, 0, sizeof(a));
	a.in6.s6_addr[0] = 0x20;
	a.in6.s6_addr[15] = 9;
	hip_from_build(b, &a);
}

static void add_via_rvs(struct hip_builder *b)
{
	struct hip_via_rvs v;

	memset(&v, 0, sizeof(v));
	v.n = 2;
	v.addr[0].in6.s6_addr[0] = 0x20;
	v.addr[1].in6.s6_addr[0] = 0x30;
	hip_via_rvs_build(b, &v);
}

static void add_dh_groups(struct hip_builder *b)
{
	struct hip_u8_list l = { .n = 4, .v = { 7, 8, 4, 3 } };

	hip_dh_group_list_build(b, &l);
}

static void build_i1(struct hip_builder *b)
{
	struct hip_u8_list l = { .n = 3, .v = { 3, 4, 8 } };

	hip_dh_group_list_build(b, &l);
}

static void build_i1_rvs(struct hip_builder *b)
{
	add_dh_groups(b);
	add_from(b);
	add_from(b);    /* a second RVS appends its own FROM (RFC 8004 §3.3) */
	add_fake(b, HIP_PARAM_RVS_HMAC, 32);
}

static void build_i1_relay(struct hip_builder *b)
{
	add_dh_groups(b);
	add_relay(b, HIP_PARAM_RELAY_FROM);
	add_fake(b, HIP_PARAM_RELAY_HMAC, 32);
}

static void build_r1(struct hip_builder *b)
{
	static const uint16_t ciphers[] = { 2, 4 }, nat[] = { 1, 3 }, tf[] = { 4095 };
	static const uint16_t esp[] = { 13, 8, 9 };
	struct hip_r1_counter cnt;
	struct hip_puzzle pz = { .k = 10, .lifetime = 37, .i_len = 32 };
	struct hip_u8_list suites = { .n = 2, .v = { 2, 1 } };
	struct hip_reg_info ri = { .min_lifetime = 96, .max_lifetime = 200, .n = 1, .type = { 1 } };

	hip_build_set_controls(b, HIP_CONTROL_ANONYMOUS);
	hip_r1_counter_set(&cnt, 42);
	hip_r1_counter_build(b, &cnt);
	add_addr_locator(b, HIP_LOC_TYPE_ADDR);
	fill(pz.i, pz.i_len, 1);
	hip_puzzle_build(b, &pz);
	add_dh_groups(b);
	add_dh(b);
	add_u16_list(b, hip_hip_cipher_build, 2, ciphers);
	add_u16_list(b, hip_nat_traversal_mode_build, 2, nat);
	hip_transaction_pacing_build(b, 50);
	add_host_id(b);
	hip_hit_suite_list_build(b, &suites);
	add_fake(b, HIP_PARAM_ECHO_REQUEST_SIGNED, 8);
	hip_reg_info_build(b, &ri);
	add_u16_list(b, hip_transport_format_list_build, 1, tf);
	add_u16_list(b, hip_esp_transform_build, 3, esp);
	add_sig(b, HIP_PARAM_HIP_SIGNATURE_2);
	add_fake(b, HIP_PARAM_ECHO_REQUEST_UNSIGNED, 6);
	add_fake(b, HIP_PARAM_ECHO_REQUEST_UNSIGNED, 10);
	add_relay(b, HIP_PARAM_RELAY_TO);
	add_via_rvs(b);
}

static void build_i2(struct hip_builder *b)
{
	static const uint16_t one_cipher[] = { 4 }, tf[] = { 4095 }, esp[] = { 13 };
	struct hip_r1_counter cnt;
	struct hip_solution s = { .k = 10, .ij_len = 32 };
	uint8_t enc[116], cert[40];
	struct hip_cert c = { .group = 1, .count = 1, .id = 1, .type = 1, .data = cert, .len = 40 };

	add_esp_info(b);
	hip_r1_counter_set(&cnt, 42);
	hip_r1_counter_build(b, &cnt);
	fill(s.i, 32, 1);
	fill(s.j, 32, 2);
	hip_solution_build(b, &s);
	add_dh(b);
	add_u16_list(b, hip_hip_cipher_build, 1, one_cipher);
	fill(enc, sizeof(enc), 4);
	hip_encrypted_build(b, enc, sizeof(enc));
	fill(cert, sizeof(cert), 5);
	hip_cert_build(b, &c);
	add_reg(b, HIP_PARAM_REG_REQUEST, 120);
	add_fake(b, HIP_PARAM_ECHO_RESPONSE_SIGNED, 8);
	add_u16_list(b, hip_transport_format_list_build, 1, tf);
	add_u16_list(b, hip_esp_transform_build, 1, esp);
	add_fake(b, HIP_PARAM_HIP_MAC, 32);
	add_sig(b, HIP_PARAM_HIP_SIGNATURE);
	add_fake(b, HIP_PARAM_ECHO_RESPONSE_UNSIGNED, 6);
}

static void build_r2(struct hip_builder *b)
{
	add_esp_info(b);
	add_addr_locator(b, HIP_LOC_TYPE_ADDR);
	add_reg(b, HIP_PARAM_REG_RESPONSE, 120);
	add_reg(b, HIP_PARAM_REG_FAILED, 1);
	add_relay(b, HIP_PARAM_REG_FROM);
	add_fake(b, HIP_PARAM_HIP_MAC_2, 32);
	add_sig(b, HIP_PARAM_HIP_SIGNATURE);
}

static void build_update(struct hip_builder *b)
{
	struct hip_ack ack = { .n = 2, .id = { 7, 8 } };

	add_esp_info(b);
	add_addr_locator(b, HIP_LOC_TYPE_TRANSPORT);
	hip_seq_build(b, 9);
	hip_ack_build(b, &ack);
	add_dh(b);
	add_fake(b, HIP_PARAM_ECHO_REQUEST_SIGNED, 8);
	add_fake(b, HIP_PARAM_HIP_MAC, 32);
	add_sig(b, HIP_PARAM_HIP_SIGNATURE);
	add_from(b);
	add_fake(b, HIP_PARAM_RVS_HMAC, 32);
	add_via_rvs(b);
}

static void build_notify(struct hip_builder *b)
{
	static const uint8_t crit[2] = { 0x10, 0x01 };

	add_host_id(b);     /* 705 < 832: numeric order, not §5.3.6's listing */
	hip_notification_build(b, HIP_NOTIFY_UNSUPPORTED_CRITICAL_PARAMETER_TYPE, crit, 2);
	hip_notification_build(b, HIP_NOTIFY_I2_ACKNOWLEDGEMENT, NULL, 0);
	add_sig(b, HIP_PARAM_HIP_SIGNATURE);
}

static void build_close(struct hip_builder *b)
{
	add_fake(b, HIP_PARAM_ECHO_REQUEST_SIGNED, 8);
	add_fake(b, HIP_PARAM_HIP_MAC, 32);
	add_sig(b, HIP_PARAM_HIP_SIGNATURE);
}

static void build_close_ack(struct hip_builder *b)
{
	add_fake(b, HIP_PARAM_ECHO_RESPONSE_SIGNED, 8);
	add_fake(b, HIP_PARAM_HIP_MAC, 32);
	add_sig(b, HIP_PARAM_HIP_SIGNATURE);
}

struct expect_param { uint16_t type, len; };

/* Contents lengths from RFC 7401 §5.2 (SHA-256 RHASH, P-256 keys). */
static const struct packet_case {
	const char *name;
	uint8_t type;
	bool null_receiver;
	uint16_t controls;
	void (*build)(struct hip_builder *);
	struct expect_param p[24];      /* ends at the first type 0 */
} packet_cases[] = {
	{ "i1", HIP_I1, true, 0, build_i1, { { 511, 3 } } },
	{ "i1_rvs", HIP_I1, false, 0, build_i1_rvs,
	  { { 511, 4 }, { 65498, 16 }, { 65498, 16 }, { 65500, 32 } } },
	{ "i1_relay", HIP_I1, false, 0, build_i1_relay,
	  { { 511, 4 }, { 63998, 20 }, { 65520, 32 } } },
	{ "r1", HIP_R1, false, HIP_CONTROL_ANONYMOUS, build_r1,
	  { { 129, 12 }, { 193, 24 }, { 257, 36 }, { 511, 4 }, { 513, 67 }, { 579, 4 },
	    { 608, 6 }, { 610, 4 }, { 705, 73 }, { 715, 2 }, { 897, 8 }, { 930, 3 },
	    { 2049, 2 }, { 4095, 8 }, { 61633, 66 }, { 63661, 6 }, { 63661, 10 },
	    { 64002, 20 }, { 65502, 32 } } },
	{ "i2", HIP_I2, false, 0, build_i2,
	  { { 65, 12 }, { 129, 12 }, { 321, 68 }, { 513, 67 }, { 579, 2 }, { 641, 120 },
	    { 768, 44 }, { 932, 2 }, { 961, 8 }, { 2049, 2 }, { 4095, 4 }, { 61505, 32 },
	    { 61697, 66 }, { 63425, 6 } } },
	{ "r2", HIP_R2, false, 0, build_r2,
	  { { 65, 12 }, { 193, 24 }, { 934, 2 }, { 936, 2 }, { 950, 20 }, { 61569, 32 },
	    { 61697, 66 } } },
	{ "update", HIP_UPDATE, false, 0, build_update,
	  { { 65, 12 }, { 193, 36 }, { 385, 4 }, { 449, 8 }, { 513, 67 }, { 897, 8 },
	    { 61505, 32 }, { 61697, 66 }, { 65498, 16 }, { 65500, 32 }, { 65502, 32 } } },
	{ "notify", HIP_NOTIFY, true, 0, build_notify,
	  { { 705, 73 }, { 832, 6 }, { 832, 4 }, { 61697, 66 } } },
	{ "close", HIP_CLOSE, false, 0, build_close,
	  { { 897, 8 }, { 61505, 32 }, { 61697, 66 } } },
	{ "close_ack", HIP_CLOSE_ACK, false, 0, build_close_ack,
	  { { 961, 8 }, { 61505, 32 }, { 61697, 66 } } },
};
enum { NCASES = sizeof(packet_cases) / sizeof(packet_cases[0]) };

static unsigned case_nparams(const struct packet_case *pc)
{
	unsigned n = 0;

	while (n < 24 && pc->p[n].type)
		n++;
	return n;
}

static int build_case(const struct packet_case *pc, uint8_t *buf, size_t cap)
{
	struct hip_builder b;

	hip_build_init(&b, buf, cap, pc->type, &hit_i, pc->null_receiver ? NULL : &hit_r);
	if (pc->controls)
		hip_build_set_controls(&b, pc->controls);
	pc->build(&b);
	return hip_build_finish(&b);
}

static void write_seed(const char *name, const uint8_t *buf, size_t len)
{
	unit_write_seed(name, NULL, 0, buf, len);
}

static void assert_null_receiver(const uint8_t *buf)
{
	static const uint8_t zero[16];

	ck_assert_mem_eq(buf + 24, zero, 16);
}

START_TEST(test_roundtrip_every_type)
{
	const struct packet_case *pc = &packet_cases[_i];
	uint8_t buf[HIP_MAX_PACKET];
	struct hip_packet pkt;
	size_t off = HIP_HDR_LEN;
	unsigned i, n = case_nparams(pc);
	int len;

	memset(buf, 0xee, sizeof(buf));
	len = build_case(pc, buf, sizeof(buf));
	ck_assert_msg(len > 0, "%s: build failed %d", pc->name, len);
	write_seed(pc->name, buf, (size_t)len);

	/* W-01, W-02 on the raw bytes. */
	ck_assert_uint_eq(buf[0], 59);
	ck_assert_uint_eq(buf[1], (unsigned)len / 8 - 1);
	ck_assert_uint_eq(buf[2], pc->type);
	ck_assert_uint_eq(buf[3], 0x21);
	ck_assert_uint_eq(buf[4] | buf[5], 0);
	ck_assert_uint_eq((unsigned)(buf[6] << 8 | buf[7]), pc->controls);

	ck_assert_int_eq(hip_packet_parse(buf, (size_t)len, &pkt), 0);
	ck_assert_uint_eq(pkt.len, (size_t)len);
	ck_assert_uint_eq(pkt.type, pc->type);
	ck_assert_uint_eq(pkt.version, 2);
	ck_assert_uint_eq(pkt.controls, pc->controls);
	ck_assert_mem_eq(pkt.hit_sender.b, hit_i.b, 16);
	if (pc->null_receiver)
		assert_null_receiver(buf);
	else
		ck_assert_mem_eq(pkt.hit_receiver.b, hit_r.b, 16);
	ck_assert_uint_eq(pkt.nparams, n);
	for (i = 0; i < n; i++) {
		const struct hip_param_ref *r = &pkt.params[i];
		size_t pad;

		ck_assert_msg(r->type == pc->p[i].type && r->len == pc->p[i].len,
			      "%s param %u: got %u/%u want %u/%u", pc->name, i, r->type, r->len,
			      pc->p[i].type, pc->p[i].len);
		ck_assert_uint_eq(r->off, off);
		/* W-08: zero padding (the buffer was prefilled with 0xee). */
		for (pad = HIP_TLV_HDR_LEN + r->len; pad < hip_tlv_total_len(r->len); pad++)
			ck_assert_uint_eq(buf[r->off + pad], 0);
		off += hip_tlv_total_len(r->len);
	}
	ck_assert_uint_eq(off, (size_t)len);
}
END_TEST

START_TEST(test_null_receiver)
{
	uint8_t buf[64];
	struct hip_builder b;

	memset(buf, 0xaa, sizeof(buf));
	hip_build_init(&b, buf, sizeof(buf), HIP_I1, &hit_i, NULL);
	ck_assert_int_eq(hip_build_finish(&b), 40);
	assert_null_receiver(buf);
	ck_assert_uint_eq(buf[1], 4);
}
END_TEST

START_TEST(test_appendix_c_i1)
{
	uint8_t ref[64], buf[64];
	struct hip_packet pkt;
	const struct hip_param_ref *r;
	struct hip_u8_list l;
	struct hip_builder b;
	long n = unit_hex(appc_i1_hex, ref, sizeof(ref));

	ck_assert_int_eq(n, 48);
	write_seed("i1_appendix_c", ref, 48);
	ck_assert_int_eq(hip_packet_parse(ref, 48, &pkt), 0);
	ck_assert_uint_eq(pkt.type, HIP_I1);
	ck_assert_uint_eq(pkt.nparams, 1);
	ck_assert_mem_eq(pkt.hit_sender.b, hit_i.b, 16);
	ck_assert_mem_eq(pkt.hit_receiver.b, hit_r.b, 16);
	r = hip_packet_find(&pkt, HIP_PARAM_DH_GROUP_LIST);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(hip_dh_group_list_decode(hip_param_content(&pkt, r), r->len, &l), 0);
	ck_assert_uint_eq(l.n, 3);
	ck_assert_uint_eq(l.v[0], 3);
	ck_assert_uint_eq(l.v[1], 4);
	ck_assert_uint_eq(l.v[2], 8);

	/* Our builder reproduces it byte for byte, the checksum apart. */
	hip_build_init(&b, buf, sizeof(buf), HIP_I1, &hit_i, &hit_r);
	hip_dh_group_list_build(&b, &l);
	ck_assert_int_eq(hip_build_finish(&b), 48);
	ref[4] = ref[5] = 0;
	ck_assert_mem_eq(buf, ref, 48);
}
END_TEST

/* ---- builder refusals ---- */

START_TEST(test_builder_order)
{
	uint8_t buf[256];
	struct hip_builder b;
	size_t len;

	hip_build_init(&b, buf, sizeof(buf), HIP_R1, &hit_i, &hit_r);
	add_fake(&b, HIP_PARAM_DIFFIE_HELLMAN, 8);
	len = b.len;
	add_fake(&b, HIP_PARAM_DH_GROUP_LIST, 2);      /* 511 after 513 */
	ck_assert_int_eq(b.err, -EINVAL);
	ck_assert_uint_eq(b.len, len);
	add_fake(&b, HIP_PARAM_HIP_CIPHER, 2);         /* sticky: still refused */
	ck_assert_uint_eq(b.len, len);
	ck_assert_int_eq(hip_build_finish(&b), -EINVAL);
}
END_TEST

START_TEST(test_builder_duplicates)
{
	uint8_t buf[256];
	struct hip_builder b;

	hip_build_init(&b, buf, sizeof(buf), HIP_UPDATE, &hit_i, &hit_r);
	hip_seq_build(&b, 1);
	hip_seq_build(&b, 2);
	ck_assert_int_eq(hip_build_finish(&b), -EINVAL);

	hip_build_init(&b, buf, sizeof(buf), HIP_NOTIFY, &hit_i, &hit_r);
	hip_notification_build(&b, 7, NULL, 0);
	hip_notification_build(&b, 8, NULL, 0);
	hip_build_begin(&b, HIP_PARAM_NOTIFICATION);   /* begin path, same rule */
	hip_build_put_u32(&b, 9);
	hip_build_end(&b);
	ck_assert_int_eq(hip_build_finish(&b), 40 + 3 * 8);

	hip_build_init(&b, buf, sizeof(buf), HIP_UPDATE, &hit_i, &hit_r);
	hip_build_begin(&b, HIP_PARAM_SEQ);
	hip_build_put_u32(&b, 1);
	hip_build_end(&b);
	hip_build_begin(&b, HIP_PARAM_SEQ);
	ck_assert_int_eq(b.err, -EINVAL);

	hip_build_init(&b, buf, sizeof(buf), HIP_UPDATE, &hit_i, &hit_r);
	hip_build_param(&b, 0, NULL, 0);               /* type 0 is reserved */
	ck_assert_int_eq(hip_build_finish(&b), -EINVAL);
}
END_TEST

START_TEST(test_builder_overflow)
{
	static uint8_t content[HIP_MAX_PACKET];
	uint8_t small[64], big[2 * HIP_MAX_PACKET];
	struct hip_builder b;

	hip_build_init(&b, small, sizeof(small), HIP_I1, &hit_i, NULL);
	add_fake(&b, HIP_PARAM_DH_GROUP_LIST, 16);     /* 40 + 24 = 64 fits */
	ck_assert_int_eq(b.err, 0);
	add_fake(&b, HIP_PARAM_FROM, 1);
	ck_assert_int_eq(hip_build_finish(&b), -ENOSPC);

	hip_build_init(&b, small, 39, HIP_I1, &hit_i, NULL);
	ck_assert_int_eq(hip_build_finish(&b), -ENOSPC);

	/* 2008 bytes of parameters at most: contents 2004 fit, 2005 do not,
	 * even with a larger buffer (W-10). */
	hip_build_init(&b, big, sizeof(big), HIP_I2, &hit_i, &hit_r);
	hip_build_param(&b, HIP_PARAM_ENCRYPTED, content, 2004);
	ck_assert_int_eq(hip_build_finish(&b), HIP_MAX_PACKET);
	ck_assert_uint_eq(big[1], 255);
	hip_build_init(&b, big, sizeof(big), HIP_I2, &hit_i, &hit_r);
	hip_build_param(&b, HIP_PARAM_ENCRYPTED, content, 2005);
	ck_assert_int_eq(hip_build_finish(&b), -ENOSPC);

	/* Variable contents: put past the end, and padding that does not fit. */
	hip_build_init(&b, small, sizeof(small), HIP_I2, &hit_i, &hit_r);
	hip_build_begin(&b, HIP_PARAM_ENCRYPTED);
	ck_assert_ptr_null(hip_build_reserve(&b, 21));
	ck_assert_int_eq(b.err, -ENOSPC);
	hip_build_init(&b, small, sizeof(small), HIP_I2, &hit_i, &hit_r);
	hip_build_begin(&b, HIP_PARAM_ENCRYPTED);
	hip_build_put(&b, content, 17);                /* 61 bytes, padded to 64 ok */
	hip_build_end(&b);
	ck_assert_int_eq(hip_build_finish(&b), 64);
	hip_build_init(&b, small, 63, HIP_I2, &hit_i, &hit_r);
	hip_build_begin(&b, HIP_PARAM_ENCRYPTED);
	hip_build_put(&b, content, 17);                /* padding would reach 64 > 63 */
	hip_build_end(&b);
	ck_assert_int_eq(hip_build_finish(&b), -ENOSPC);
}
END_TEST

START_TEST(test_builder_open_tlv)
{
	uint8_t buf[256], *mac;
	struct hip_builder b;
	int snap;

	hip_build_init(&b, buf, sizeof(buf), HIP_I2, &hit_i, &hit_r);
	hip_build_begin(&b, HIP_PARAM_ESP_INFO);
	hip_build_put_u32(&b, 1);
	ck_assert_int_eq(hip_build_finish(&b), -EINVAL);   /* still open */

	hip_build_init(&b, buf, sizeof(buf), HIP_I2, &hit_i, &hit_r);
	hip_build_begin(&b, HIP_PARAM_ESP_INFO);
	hip_build_param(&b, HIP_PARAM_SOLUTION, NULL, 0); /* one TLV at a time */
	ck_assert_int_eq(b.err, -EINVAL);

	hip_build_init(&b, buf, sizeof(buf), HIP_I2, &hit_i, &hit_r);
	hip_build_end(&b);                                 /* nothing open */
	ck_assert_int_eq(b.err, -EINVAL);

	hip_build_init(&b, buf, sizeof(buf), HIP_I2, &hit_i, &hit_r);
	hip_build_put_u8(&b, 1);                           /* put outside a TLV */
	ck_assert_int_eq(b.err, -EINVAL);

	/* Snapshot for MAC coverage, then reserve and fill the MAC. */
	hip_build_init(&b, buf, sizeof(buf), HIP_I2, &hit_i, &hit_r);
	add_esp_info(&b);
	snap = hip_build_snapshot(&b);
	ck_assert_int_eq(snap, 40 + 16);
	ck_assert_uint_eq(buf[1], 6);
	hip_build_begin(&b, HIP_PARAM_HIP_MAC);
	mac = hip_build_reserve(&b, 32);
	ck_assert_ptr_nonnull(mac);
	ck_assert_int_eq(hip_build_snapshot(&b), -EINVAL); /* open TLV */

	hip_build_init(&b, buf, sizeof(buf), HIP_I2, &hit_i, &hit_r);
	add_esp_info(&b);
	hip_build_begin(&b, HIP_PARAM_HIP_MAC);
	mac = hip_build_reserve(&b, 32);
	memset(mac, 0x77, 32);
	hip_build_end(&b);
	ck_assert_int_eq(hip_build_finish(&b), 40 + 16 + 40);
	ck_assert_uint_eq(buf[56 + 2] << 8 | buf[56 + 3], 32);
	ck_assert_uint_eq(buf[56 + 4], 0x77);
	ck_assert_uint_eq(buf[1], 11);
}
END_TEST

START_TEST(test_builder_header)
{
	uint8_t buf[64];
	struct hip_builder b;

	hip_build_init(&b, buf, sizeof(buf), 0x80 | HIP_I1, &hit_i, NULL);
	ck_assert_int_eq(hip_build_finish(&b), -EINVAL);
	hip_build_init(&b, buf, sizeof(buf), HIP_CLOSE_ACK, &hit_r, &hit_i);
	hip_build_set_controls(&b, 0xabcd);
	ck_assert_int_eq(hip_build_finish(&b), 40);
	ck_assert_uint_eq(buf[0], 59);
	ck_assert_uint_eq(buf[2], 19);
	ck_assert_uint_eq(buf[3], 0x21);
	ck_assert_uint_eq(buf[6], 0xab);
	ck_assert_uint_eq(buf[7], 0xcd);
	ck_assert_mem_eq(buf + 8, hit_r.b, 16);
	ck_assert_mem_eq(buf + 24, hit_i.b, 16);
}
END_TEST

/* ---- the parser on every prefix of a valid R1 (RB-04) ---- */

START_TEST(test_parse_truncated_prefixes)
{
	uint8_t full[HIP_MAX_PACKET];
	struct hip_packet pkt;
	int len = build_case(&packet_cases[3], full, sizeof(full));    /* r1 */
	size_t k;

	ck_assert_int_gt(len, 400);
	ck_assert_int_eq(hip_packet_parse(full, (size_t)len, &pkt), 0);
	/* Exact-size heap copies: under ASAN any read past the prefix traps. */
	for (k = 0; k < (size_t)len; k++) {
		uint8_t *p = malloc(k ? k : 1);

		ck_assert_ptr_nonnull(p);
		memcpy(p, full, k);
		ck_assert_int_eq(hip_packet_parse(p, k, &pkt), -EBADMSG);
		ck_assert(pkt.error == (k < 40 ? HIP_PERR_TRUNCATED : HIP_PERR_BAD_LENGTH));
		free(p);
	}
}
END_TEST

static Suite *packet_suite(void)
{
	Suite *s = suite_create("packet");
	TCase *b = tcase_create("builder");

	tcase_add_loop_test(b, test_roundtrip_every_type, 0, NCASES);
	tcase_add_test(b, test_null_receiver);
	tcase_add_test(b, test_appendix_c_i1);
	tcase_add_test(b, test_builder_order);
	tcase_add_test(b, test_builder_duplicates);
	tcase_add_test(b, test_builder_overflow);
	tcase_add_test(b, test_builder_open_tlv);
	tcase_add_test(b, test_builder_header);
	tcase_add_test(b, test_parse_truncated_prefixes);
	suite_add_tcase(s, b);
	return s;
}

UNIT_MAIN(packet_suite)
