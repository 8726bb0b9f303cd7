/*
 * check_parser.c - the strict parser on hand-made packets (RFC 7401 §5.1,
 * §5.2.1; docs/requirements.md W-02, W-05, W-07, W-09, RB-04, RB-09).
 *
 * Packets are written byte by byte by raw_packet(), independently of the
 * builder (which refuses to produce most of them), then patched per case.
 * Valid packets of every type and the truncation sweep are in check_packet.c.
 */
#include <errno.h>
#include <string.h>

#include "packet.h"
#include "unit.h"

struct raw_tlv { uint16_t type, len; };

/* UPDATE header + TLVs with 0x5c contents and zero padding; Header Length set
 * to the result. Returns the length. */
static size_t raw_packet(uint8_t *buf, const struct raw_tlv *t)
{
	size_t off = HIP_HDR_LEN;

	memset(buf, 0, HIP_MAX_PACKET);
	buf[0] = 59;
	buf[2] = HIP_UPDATE;
	buf[3] = 0x21;
	buf[8] = buf[24] = 0x20;
	buf[23] = 1;
	buf[39] = 2;
	for (; t->type; t++) {
		buf[off] = (uint8_t)(t->type >> 8);
		buf[off + 1] = (uint8_t)t->type;
		buf[off + 2] = (uint8_t)(t->len >> 8);
		buf[off + 3] = (uint8_t)t->len;
		memset(buf + off + 4, 0x5c, t->len);
		off += (t->len + 4 + 7) / 8 * 8;
	}
	buf[1] = (uint8_t)(off / 8 - 1);
	return off;
}

struct patch { uint16_t off; uint8_t val; };

static const struct parse_case {
	const char *what;
	struct raw_tlv t[6];            /* ends at type 0 */
	struct patch p[4];              /* applied after raw_packet; off 0 ends */
	int len_delta;                  /* datagram length vs. the built one */
	enum hip_parse_error want;
	uint16_t want_type;             /* pkt.error_type */
	uint16_t want_off;              /* pkt.error_off */
} parse_cases[] = {
	/* W-02: Header Length must describe exactly the datagram. */
	{ "hdr_len +8", { { 385, 4 }, { 449, 4 } }, { { 1, 7 } }, 0, HIP_PERR_BAD_LENGTH, 0, 1 },
	{ "hdr_len -8", { { 385, 4 }, { 449, 4 } }, { { 1, 5 } }, 0, HIP_PERR_BAD_LENGTH, 0, 1 },
	{ "trailing byte", { { 385, 4 } }, { { 0 } }, 1, HIP_PERR_BAD_LENGTH, 0, 1 },
	{ "missing byte", { { 385, 4 } }, { { 0 } }, -1, HIP_PERR_BAD_LENGTH, 0, 1 },
	{ "hdr_len 3", { { 0 } }, { { 1, 3 } }, 0, HIP_PERR_BAD_LENGTH, 0, 1 },
	/* §5.1: version 2 only; unknown packet types are dropped (W-05). */
	{ "version 1", { { 385, 4 } }, { { 3, 0x11 } }, 0, HIP_PERR_BAD_VERSION, 0, 3 },
	{ "version 3", { { 385, 4 } }, { { 3, 0x31 } }, 0, HIP_PERR_BAD_VERSION, 0, 3 },
	{ "type 5", { { 385, 4 } }, { { 2, 5 } }, 0, HIP_PERR_BAD_TYPE, 0, 2 },
	{ "type 0", { { 385, 4 } }, { { 2, 0 } }, 0, HIP_PERR_BAD_TYPE, 0, 2 },
	{ "type 20", { { 385, 4 } }, { { 2, 20 } }, 0, HIP_PERR_BAD_TYPE, 0, 2 },
	/* TLV bounds: Length 4 ends exactly at the packet end, 5 runs 1 over. */
	{ "tlv fits", { { 511, 4 } }, { { 0 } }, 0, HIP_PERR_NONE, 0, 0 },
	{ "tlv +1", { { 511, 3 } }, { { 43, 5 } }, 0, HIP_PERR_TLV_OVERRUN, 511, 40 },
	{ "tlv huge", { { 385, 4 }, { 511, 3 } }, { { 50, 0xff } }, 0, HIP_PERR_TLV_OVERRUN, 511,
	  48 },
	/* W-07: ascending, repeats only consecutive and only if repeatable. */
	{ "descending", { { 513, 4 }, { 511, 3 } }, { { 0 } }, 0, HIP_PERR_BAD_ORDER, 511, 48 },
	{ "two SEQ", { { 385, 4 }, { 385, 4 } }, { { 0 } }, 0, HIP_PERR_DUPLICATE, 385, 48 },
	{ "two LOCATOR_SET", { { 193, 24 }, { 193, 24 } }, { { 0 } }, 0, HIP_PERR_DUPLICATE, 193,
	  72 },
	{ "two HIP_MAC", { { 61505, 32 }, { 61505, 32 } }, { { 0 } }, 0, HIP_PERR_DUPLICATE, 61505,
	  80 },
	{ "non-consecutive", { { 832, 4 }, { 897, 4 }, { 832, 4 } }, { { 0 } }, 0,
	  HIP_PERR_BAD_ORDER, 832, 56 },
	{ "notifications", { { 832, 6 }, { 832, 4 }, { 832, 9 }, { 61697, 3 } }, { { 0 } }, 0,
	  HIP_PERR_NONE, 0, 0 },
	{ "unsigned echoes", { { 63425, 4 }, { 63425, 7 }, { 63661, 1 }, { 63661, 2 } }, { { 0 } },
	  0, HIP_PERR_NONE, 0, 0 },
	{ "ESP_INFOs", { { 65, 12 }, { 65, 12 }, { 193, 24 } }, { { 0 } }, 0, HIP_PERR_NONE, 0, 0 },
	/* W-09: unknown critical (odd) stops; unknown non-critical is skipped. */
	{ "critical 4097", { { 385, 4 }, { 4097, 4 } }, { { 0 } }, 0, HIP_PERR_UNKNOWN_CRITICAL,
	  4097, 48 },
	{ "critical 1025", { { 1025, 2 } }, { { 0 } }, 0, HIP_PERR_UNKNOWN_CRITICAL, 1025, 40 },
	{ "v1 R1_Counter 128", { { 128, 12 } }, { { 0 } }, 0, HIP_PERR_NONE, 0, 0 },
	{ "v1 HIP_TRANSFORM 577", { { 577, 2 } }, { { 0 } }, 0, HIP_PERR_UNKNOWN_CRITICAL, 577,
	  40 },
	{ "non-critical 4096", { { 385, 4 }, { 4096, 12 }, { 4096, 1 }, { 61505, 32 } }, { { 0 } },
	  0, HIP_PERR_NONE, 0, 0 },
	/* RB-09, §5.1: padding, Next Header, fixed and reserved bits, unknown
	 * Controls bits are not checked. */
	{ "padding", { { 511, 3 }, { 897, 1 } }, { { 47, 0xff }, { 53, 0xa5 }, { 55, 1 } }, 0,
	  HIP_PERR_NONE, 0, 0 },
};
enum { NPARSE_CASES = sizeof(parse_cases) / sizeof(parse_cases[0]) };

START_TEST(test_parse_cases)
{
	const struct parse_case *pc = &parse_cases[_i];
	uint8_t buf[HIP_MAX_PACKET];
	struct hip_packet pkt;
	size_t len = raw_packet(buf, pc->t);
	unsigned i;
	int err;

	for (i = 0; i < 4 && pc->p[i].off; i++)
		buf[pc->p[i].off] = pc->p[i].val;
	err = hip_packet_parse(buf, (size_t)((long)len + pc->len_delta), &pkt);
	ck_assert_msg(pkt.error == pc->want, "%s: got %s want %s", pc->what,
		      hip_parse_error_str(pkt.error), hip_parse_error_str(pc->want));
	if (pc->want == HIP_PERR_NONE) {
		ck_assert_int_eq(err, 0);
		for (i = 0; pc->t[i].type; i++) {
			ck_assert_uint_eq(pkt.params[i].type, pc->t[i].type);
			ck_assert_uint_eq(pkt.params[i].len, pc->t[i].len);
		}
		ck_assert_uint_eq(pkt.nparams, i);
		return;
	}
	ck_assert_int_eq(err, -EBADMSG);
	ck_assert_uint_eq(pkt.error_type, pc->want_type);
	ck_assert_uint_eq(pkt.error_off, pc->want_off);
}
END_TEST

START_TEST(test_header_fields)
{
	static const struct raw_tlv t[] = { { 385, 4 }, { 0 } };
	uint8_t buf[HIP_MAX_PACKET];
	struct hip_packet pkt;
	size_t len = raw_packet(buf, t);

	/* Next Header, the SHIM6 fixed bit, reserved bits, the fixed bit of
	 * byte 3 and unknown Controls bits are all ignored (RFC 7401 §5.1). */
	buf[0] = 0x11;
	buf[2] = 0x80 | HIP_UPDATE;
	buf[3] = 0x2e;
	buf[6] = 0xff;
	buf[7] = 0xfe;
	ck_assert_int_eq(hip_packet_parse(buf, len, &pkt), 0);
	ck_assert_uint_eq(pkt.type, HIP_UPDATE);
	ck_assert_uint_eq(pkt.version, 2);
	ck_assert_uint_eq(pkt.controls, 0xfffe);
	ck_assert_uint_eq(pkt.len, len);
	ck_assert_uint_eq(pkt.hit_sender.b[0], 0x20);
	ck_assert_uint_eq(pkt.hit_sender.b[15], 1);
	ck_assert_uint_eq(pkt.hit_receiver.b[15], 2);
	ck_assert_int_eq(hip_packet_parse(NULL, 0, &pkt), -EBADMSG);
	ck_assert(pkt.error == HIP_PERR_TRUNCATED);
	ck_assert_int_eq(hip_packet_parse(buf, 39, &pkt), -EBADMSG);
	ck_assert(pkt.error == HIP_PERR_TRUNCATED);
}
END_TEST

START_TEST(test_find)
{
	static const struct raw_tlv t[] = { { 832, 6 }, { 832, 4 }, { 832, 9 }, { 61697, 3 },
					    { 0 } };
	uint8_t buf[HIP_MAX_PACKET];
	struct hip_packet pkt;
	const struct hip_param_ref *r;
	size_t len = raw_packet(buf, t);
	unsigned n = 0;

	ck_assert_int_eq(hip_packet_parse(buf, len, &pkt), 0);
	r = hip_packet_find(&pkt, HIP_PARAM_NOTIFICATION);
	for (; r; r = hip_packet_find_next(&pkt, r))
		ck_assert_uint_eq(r->len, t[n++].len);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(hip_packet_find(&pkt, 832)->off, 40);
	ck_assert_ptr_null(hip_packet_find(&pkt, HIP_PARAM_SEQ));
	r = hip_packet_find(&pkt, HIP_PARAM_HIP_SIGNATURE);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->off, 40 + 16 + 8 + 16);
	ck_assert_ptr_eq(hip_param_content(&pkt, r), buf + r->off + 4);
	ck_assert_ptr_null(hip_packet_find_next(&pkt, r));
	ck_assert_ptr_null(hip_packet_find_next(&pkt, NULL));
}
END_TEST

START_TEST(test_max_params)
{
	struct raw_tlv t[HIP_MAX_PARAMS + 1];
	uint8_t buf[HIP_MAX_PACKET];
	struct hip_packet pkt;
	unsigned i;
	size_t len;

	/* 251 empty NOTIFICATIONs fill 2048 bytes exactly. */
	for (i = 0; i < HIP_MAX_PARAMS; i++)
		t[i] = (struct raw_tlv){ HIP_PARAM_NOTIFICATION, 0 };
	t[i] = (struct raw_tlv){ 0, 0 };
	len = raw_packet(buf, t);
	ck_assert_uint_eq(len, HIP_MAX_PACKET);
	ck_assert_uint_eq(buf[1], 255);
	ck_assert_int_eq(hip_packet_parse(buf, len, &pkt), 0);
	ck_assert_uint_eq(pkt.nparams, HIP_MAX_PARAMS);
	ck_assert_uint_eq(pkt.params[HIP_MAX_PARAMS - 1].off, HIP_MAX_PACKET - 8);
}
END_TEST

START_TEST(test_names)
{
	static const uint16_t repeatable[] = { 65, 768, 832, 932, 934, 936, 63425, 63661, 65498 };
	static const uint16_t singles[] = {
		129, 193, 257, 321, 385, 449, 511, 513, 579, 608, 610, 641, 705, 715, 897, 930,
		950, 961, 2049, 4095, 61505, 61569, 61633, 61697, 63998, 64002, 65500, 65502, 65520,
	};
	unsigned i, e;

	ck_assert_str_eq(hip_param_name(HIP_PARAM_ESP_INFO), "ESP_INFO");
	ck_assert_str_eq(hip_param_name(HIP_PARAM_HIP_MAC_2), "HIP_MAC_2");
	ck_assert_str_eq(hip_param_name(63425), "ECHO_RESPONSE_UNSIGNED");
	ck_assert_str_eq(hip_param_name(65502), "VIA_RVS");
	ck_assert_str_eq(hip_param_name(4096), "UNKNOWN");
	ck_assert_str_eq(hip_packet_type_name(HIP_I1), "I1");
	ck_assert_str_eq(hip_packet_type_name(HIP_CLOSE_ACK), "CLOSE_ACK");
	ck_assert_str_eq(hip_packet_type_name(HIP_UPDATE), "UPDATE");
	ck_assert_str_eq(hip_packet_type_name(5), "UNKNOWN");
	for (i = 0; i < sizeof(repeatable) / sizeof(repeatable[0]); i++) {
		ck_assert(hip_param_is_known(repeatable[i]));
		ck_assert(hip_param_is_repeatable(repeatable[i]));
	}
	for (i = 0; i < sizeof(singles) / sizeof(singles[0]); i++) {
		ck_assert_msg(hip_param_is_known(singles[i]), "%u", singles[i]);
		ck_assert_msg(!hip_param_is_repeatable(singles[i]), "%u", singles[i]);
		ck_assert_str_ne(hip_param_name(singles[i]), "UNKNOWN");
	}
	ck_assert(!hip_param_is_known(128));  /* v1 R1_Counter */
	ck_assert(!hip_param_is_known(577));  /* v1 HIP_TRANSFORM */
	ck_assert(!hip_param_is_known(4096));
	for (e = 0; e < HIP_PERR_COUNT_; e++) {
		ck_assert_ptr_nonnull(hip_parse_error_str(e));
		for (i = 0; i < e; i++)
			ck_assert_str_ne(hip_parse_error_str(i), hip_parse_error_str(e));
	}
}
END_TEST

static Suite *parser_suite(void)
{
	Suite *s = suite_create("parser");
	TCase *tc = tcase_create("parser");

	tcase_add_loop_test(tc, test_parse_cases, 0, NPARSE_CASES);
	tcase_add_test(tc, test_header_fields);
	tcase_add_test(tc, test_find);
	tcase_add_test(tc, test_max_params);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(parser_suite)
