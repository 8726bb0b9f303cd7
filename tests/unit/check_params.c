/*
 * check_params.c - base exchange parameters (params_bex.c).
 *
 * For every parameter: build -> parse -> decode gives back the input; the
 * decoder accepts its contents from an exact-size heap buffer and survives
 * every truncated length (under ASAN this proves it never reads past len);
 * fixed-size parameters are rejected at len-1 and len+1. Then the specific
 * rejections of RFC 7401 §5.2 and RB-05. The other parameters are in
 * check_params_misc.c.
 */
#include "param_rt.h"

static const struct hip_esp_info s_esp_info = { 0x0140, 0xdeadbeef, 0x01020304 };
static const struct hip_u8_list s_groups = { 4, { 7, 8, 4, 3 } };
static const struct hip_u8_list s_suites = { 3, { 2, 1, 3 } };
static const struct hip_u16_list s_ciphers = { 2, { 2, 4 } };
static const struct hip_u16_list s_tfl = { 1, { 4095 } };
static const struct hip_u16_list s_esp = { 3, { 13, 8, 9 } };
static const struct hip_u16_list s_nat = { 2, { 3, 1 } };
static const uint8_t s_blob[48] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
	25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46,
	47, 48,
};

static struct hip_puzzle sample_puzzle(uint8_t rlen)
{
	struct hip_puzzle p = { .k = 12, .lifetime = 37, .i_len = rlen };

	memcpy(&p.opaque, "\xab\xcd", 2);
	rt_fill(p.i, rlen, rlen);
	return p;
}

static struct hip_solution sample_solution(uint8_t rlen)
{
	struct hip_solution s = { .k = 12, .reserved = 0, .ij_len = rlen };

	memcpy(&s.opaque, "\xab\xcd", 2);
	rt_fill(s.i, rlen, rlen);
	rt_fill(s.j, rlen, (uint8_t)~rlen);
	return s;
}

static void b_esp_info(struct hip_builder *b) { hip_esp_info_build(b, &s_esp_info); }
static void b_groups(struct hip_builder *b) { hip_dh_group_list_build(b, &s_groups); }
static void b_suites(struct hip_builder *b) { hip_hit_suite_list_build(b, &s_suites); }
static void b_cipher(struct hip_builder *b) { hip_hip_cipher_build(b, &s_ciphers); }
static void b_tfl(struct hip_builder *b) { hip_transport_format_list_build(b, &s_tfl); }
static void b_esp(struct hip_builder *b) { hip_esp_transform_build(b, &s_esp); }
static void b_nat(struct hip_builder *b) { hip_nat_traversal_mode_build(b, &s_nat); }
static void b_dh(struct hip_builder *b) { hip_dh_param_build(b, 7, s_blob, 33); }
static void b_pacing(struct hip_builder *b) { hip_transaction_pacing_build(b, 100); }
static void b_encrypted(struct hip_builder *b) { hip_encrypted_build(b, s_blob, 36); }
static void b_sig(struct hip_builder *b)
{
	hip_build_param(b, HIP_PARAM_HIP_SIGNATURE, s_blob, 30);
}
static void b_mac20(struct hip_builder *b) { hip_build_param(b, HIP_PARAM_HIP_MAC, s_blob, 20); }
static void b_mac32(struct hip_builder *b) { hip_build_param(b, HIP_PARAM_HIP_MAC, s_blob, 32); }
static void b_mac48(struct hip_builder *b)
{
	hip_build_param(b, HIP_PARAM_HIP_MAC_2, s_blob, 48);
}

static void b_r1_counter(struct hip_builder *b)
{
	struct hip_r1_counter c;

	hip_r1_counter_set(&c, 0x0102030405060708ull);
	hip_r1_counter_build(b, &c);
}

#define B_PUZZLE(r) \
	static void b_puzzle##r(struct hip_builder *b) \
	{ struct hip_puzzle p = sample_puzzle(r); hip_puzzle_build(b, &p); } \
	static void b_solution##r(struct hip_builder *b) \
	{ struct hip_solution s = sample_solution(r); hip_solution_build(b, &s); }
B_PUZZLE(20)
B_PUZZLE(32)
B_PUZZLE(48)

static void b_host_id(struct hip_builder *b)
{
	static const uint8_t fqdn[] = "\x04host\x07" "example\x00";
	struct hip_host_id h = { .algorithm = HIP_HI_RSA, .hi = s_blob, .hi_len = 37,
				 .di_type = HIP_DI_FQDN, .di = fqdn, .di_len = sizeof(fqdn) - 1 };

	hip_host_id_build(b, &h);
}

RT_DEC(d_esp_info, hip_esp_info_decode, struct hip_esp_info)
RT_DEC(d_r1_counter, hip_r1_counter_decode, struct hip_r1_counter)
RT_DEC_R(d_puzzle20, hip_puzzle_decode, struct hip_puzzle, 20)
RT_DEC_R(d_puzzle32, hip_puzzle_decode, struct hip_puzzle, 32)
RT_DEC_R(d_puzzle48, hip_puzzle_decode, struct hip_puzzle, 48)
RT_DEC_R(d_solution20, hip_solution_decode, struct hip_solution, 20)
RT_DEC_R(d_solution32, hip_solution_decode, struct hip_solution, 32)
RT_DEC_R(d_solution48, hip_solution_decode, struct hip_solution, 48)
RT_DEC(d_groups, hip_dh_group_list_decode, struct hip_u8_list)
RT_DEC(d_suites, hip_hit_suite_list_decode, struct hip_u8_list)
RT_DEC(d_cipher, hip_hip_cipher_decode, struct hip_u16_list)
RT_DEC(d_tfl, hip_transport_format_list_decode, struct hip_u16_list)
RT_DEC(d_esp, hip_esp_transform_decode, struct hip_u16_list)
RT_DEC(d_nat, hip_nat_traversal_mode_decode, struct hip_u16_list)
RT_DEC(d_dh, hip_dh_param_decode, struct hip_dh_param)
RT_DEC(d_pacing, hip_transaction_pacing_decode, uint32_t)
RT_DEC(d_encrypted, hip_encrypted_decode, struct hip_encrypted)
RT_DEC(d_host_id, hip_host_id_decode, struct hip_host_id)
RT_DEC_R(d_mac20, hip_mac_decode, struct hip_opaque, 20)
RT_DEC_R(d_mac32, hip_mac_decode, struct hip_opaque, 32)
RT_DEC_R(d_mac48, hip_mac_decode, struct hip_opaque, 48)
RT_DEC(d_sig, hip_signature_decode, struct hip_signature)

static const struct param_case param_cases[] = {
	{ HIP_PARAM_ESP_INFO, b_esp_info, d_esp_info, 12 },
	{ HIP_PARAM_R1_COUNTER, b_r1_counter, d_r1_counter, 12 },
	{ HIP_PARAM_PUZZLE, b_puzzle20, d_puzzle20, 24 },
	{ HIP_PARAM_PUZZLE, b_puzzle32, d_puzzle32, 36 },
	{ HIP_PARAM_PUZZLE, b_puzzle48, d_puzzle48, 52 },
	{ HIP_PARAM_SOLUTION, b_solution20, d_solution20, 44 },
	{ HIP_PARAM_SOLUTION, b_solution32, d_solution32, 68 },
	{ HIP_PARAM_SOLUTION, b_solution48, d_solution48, 100 },
	{ HIP_PARAM_DH_GROUP_LIST, b_groups, d_groups, 0 },
	{ HIP_PARAM_DIFFIE_HELLMAN, b_dh, d_dh, 0 },
	{ HIP_PARAM_HIP_CIPHER, b_cipher, d_cipher, 0 },
	{ HIP_PARAM_NAT_TRAVERSAL_MODE, b_nat, d_nat, 0 },
	{ HIP_PARAM_TRANSACTION_PACING, b_pacing, d_pacing, 4 },
	{ HIP_PARAM_ENCRYPTED, b_encrypted, d_encrypted, 0 },
	{ HIP_PARAM_HOST_ID, b_host_id, d_host_id, 0 },
	{ HIP_PARAM_HIT_SUITE_LIST, b_suites, d_suites, 0 },
	{ HIP_PARAM_TRANSPORT_FORMAT_LIST, b_tfl, d_tfl, 0 },
	{ HIP_PARAM_ESP_TRANSFORM, b_esp, d_esp, 0 },
	{ HIP_PARAM_HIP_MAC, b_mac20, d_mac20, 20 },
	{ HIP_PARAM_HIP_MAC, b_mac32, d_mac32, 32 },
	{ HIP_PARAM_HIP_MAC_2, b_mac48, d_mac48, 48 },
	{ HIP_PARAM_HIP_SIGNATURE, b_sig, d_sig, 0 },
};
enum { NPARAM_CASES = sizeof(param_cases) / sizeof(param_cases[0]) };

START_TEST(test_every_param_bounds)
{
	rt_check_bounds(&param_cases[_i]);
}
END_TEST

/* ---- round trips with value checks ---- */

START_TEST(test_rt_fixed)
{
	struct rt t;
	struct hip_esp_info e;
	struct hip_r1_counter r;
	const uint8_t *c;
	uint32_t v;
	size_t len;

	b_esp_info(rt_begin(&t));
	c = rt_param(&t, HIP_PARAM_ESP_INFO, &len);
	ck_assert_int_eq(hip_esp_info_decode(c, len, &e), 0);
	ck_assert_uint_eq(e.keymat_index, s_esp_info.keymat_index);
	ck_assert_uint_eq(e.old_spi, s_esp_info.old_spi);
	ck_assert_uint_eq(e.new_spi, s_esp_info.new_spi);
	ck_assert_mem_eq(c, "\x00\x00\x01\x40\xde\xad", 6);   /* Reserved, network order */

	b_r1_counter(rt_begin(&t));
	c = rt_param(&t, HIP_PARAM_R1_COUNTER, &len);
	ck_assert_int_eq(hip_r1_counter_decode(c, len, &r), 0);
	ck_assert(r.counter == 0x0102030405060708ull);
	ck_assert_mem_eq(r.raw, "\0\0\0\0\1\2\3\4\5\6\7\x08", 12);
	/* Echoed verbatim, a non-zero Reserved included (erratum 6654). */
	r.raw[0] = 0xaa;
	hip_r1_counter_build(rt_begin(&t), &r);
	c = rt_param(&t, HIP_PARAM_R1_COUNTER, &len);
	ck_assert_mem_eq(c, r.raw, 12);

	b_pacing(rt_begin(&t));
	c = rt_param(&t, HIP_PARAM_TRANSACTION_PACING, &len);
	ck_assert_int_eq(hip_transaction_pacing_decode(c, len, &v), 0);
	ck_assert_uint_eq(v, 100);
}
END_TEST

START_TEST(test_rt_puzzle_solution)
{
	static const uint8_t rlens[] = { 20, 32, 48 };
	struct hip_puzzle p16 = sample_puzzle(16);
	struct hip_builder *b;
	struct rt t;
	const uint8_t *c;
	size_t len;
	unsigned i;

	for (i = 0; i < 3; i++) {
		struct hip_puzzle p = sample_puzzle(rlens[i]), pd;
		struct hip_solution s = sample_solution(rlens[i]), sd;

		hip_puzzle_build(rt_begin(&t), &p);
		c = rt_param(&t, HIP_PARAM_PUZZLE, &len);
		ck_assert_uint_eq(len, 4 + rlens[i]);               /* W-13 */
		ck_assert_int_eq(hip_puzzle_decode(c, len, rlens[i], &pd), 0);
		ck_assert_uint_eq(pd.k, 12);
		ck_assert_uint_eq(pd.lifetime, 37);
		ck_assert_mem_eq(c + 2, "\xab\xcd", 2);
		ck_assert_mem_eq(&pd.opaque, "\xab\xcd", 2);
		ck_assert_uint_eq(pd.i_len, rlens[i]);
		ck_assert_mem_eq(pd.i, p.i, rlens[i]);
		/* The other RHASH lengths do not fit these contents. */
		ck_assert_int_eq(hip_puzzle_decode(c, len, rlens[(i + 1) % 3], &pd), -EBADMSG);
		ck_assert_int_eq(hip_puzzle_decode(c, len, 16, &pd), -EINVAL);

		hip_solution_build(rt_begin(&t), &s);
		c = rt_param(&t, HIP_PARAM_SOLUTION, &len);
		ck_assert_uint_eq(len, 4 + 2 * rlens[i]);
		ck_assert_int_eq(hip_solution_decode(c, len, rlens[i], &sd), 0);
		ck_assert_uint_eq(sd.k, 12);
		ck_assert_mem_eq(&sd.opaque, "\xab\xcd", 2);
		ck_assert_mem_eq(sd.i, s.i, rlens[i]);
		ck_assert_mem_eq(sd.j, s.j, rlens[i]);
		ck_assert_int_eq(hip_solution_decode(c, len, 64, &sd), -EINVAL);
	}
	b = rt_begin(&t);
	hip_puzzle_build(b, &p16);
	ck_assert_int_eq(b->err, -EINVAL);
}
END_TEST

static void assert_u16_list(const struct hip_u16_list *got, const struct hip_u16_list *want)
{
	ck_assert_uint_eq(got->n, want->n);
	ck_assert_mem_eq(got->v, want->v, want->n * sizeof(want->v[0]));
}

START_TEST(test_rt_lists)
{
	struct rt t;
	struct hip_u8_list l8;
	struct hip_u16_list l16;
	const uint8_t *c;
	size_t len;

	b_groups(rt_begin(&t));
	c = rt_param(&t, HIP_PARAM_DH_GROUP_LIST, &len);
	ck_assert_int_eq(hip_dh_group_list_decode(c, len, &l8), 0);
	ck_assert_uint_eq(l8.n, 4);
	ck_assert_mem_eq(l8.v, s_groups.v, 4);

	b_suites(rt_begin(&t));
	c = rt_param(&t, HIP_PARAM_HIT_SUITE_LIST, &len);
	ck_assert_mem_eq(c, "\x20\x10\x30", 3);             /* upper nibble on the wire */
	ck_assert_int_eq(hip_hit_suite_list_decode(c, len, &l8), 0);
	ck_assert_uint_eq(l8.n, 3);
	ck_assert_mem_eq(l8.v, s_suites.v, 3);

	b_cipher(rt_begin(&t));
	c = rt_param(&t, HIP_PARAM_HIP_CIPHER, &len);
	ck_assert_int_eq(hip_hip_cipher_decode(c, len, &l16), 0);
	assert_u16_list(&l16, &s_ciphers);

	b_tfl(rt_begin(&t));
	c = rt_param(&t, HIP_PARAM_TRANSPORT_FORMAT_LIST, &len);
	ck_assert_mem_eq(c, "\x0f\xff", 2);
	ck_assert_int_eq(hip_transport_format_list_decode(c, len, &l16), 0);
	assert_u16_list(&l16, &s_tfl);

	b_esp(rt_begin(&t));
	c = rt_param(&t, HIP_PARAM_ESP_TRANSFORM, &len);
	ck_assert_uint_eq(len, 8);
	ck_assert_mem_eq(c, "\0\0\0\x0d", 4);               /* Reserved, then suite 13 */
	ck_assert_int_eq(hip_esp_transform_decode(c, len, &l16), 0);
	assert_u16_list(&l16, &s_esp);

	b_nat(rt_begin(&t));
	c = rt_param(&t, HIP_PARAM_NAT_TRAVERSAL_MODE, &len);
	ck_assert_mem_eq(c, "\0\0\0\x03", 4);
	ck_assert_int_eq(hip_nat_traversal_mode_decode(c, len, &l16), 0);
	assert_u16_list(&l16, &s_nat);
}
END_TEST

START_TEST(test_rt_variable)
{
	struct rt t;
	struct hip_dh_param dh;
	struct hip_encrypted enc;
	struct hip_host_id h;
	struct hip_opaque o;
	struct hip_signature sig;
	const uint8_t *c;
	size_t len;

	b_dh(rt_begin(&t));
	c = rt_param(&t, HIP_PARAM_DIFFIE_HELLMAN, &len);
	ck_assert_mem_eq(c, "\x07\x00\x21", 3);
	ck_assert_int_eq(hip_dh_param_decode(c, len, &dh), 0);
	ck_assert_uint_eq(dh.group, 7);
	ck_assert_uint_eq(dh.pub_len, 33);
	ck_assert_mem_eq(dh.pub, s_blob, 33);

	b_encrypted(rt_begin(&t));
	c = rt_param(&t, HIP_PARAM_ENCRYPTED, &len);
	ck_assert_mem_eq(c, "\0\0\0\0", 4);
	ck_assert_int_eq(hip_encrypted_decode(c, len, &enc), 0);
	ck_assert_uint_eq(enc.len, 36);
	ck_assert_mem_eq(enc.data, s_blob, 36);

	b_host_id(rt_begin(&t));
	c = rt_param(&t, HIP_PARAM_HOST_ID, &len);
	ck_assert_mem_eq(c, "\x00\x25\x10\x0e\x00\x05", 6);  /* 37 | FQDN,14 | RSA */
	ck_assert_int_eq(hip_host_id_decode(c, len, &h), 0);
	ck_assert_uint_eq(h.algorithm, HIP_HI_RSA);
	ck_assert_uint_eq(h.hi_len, 37);
	ck_assert_mem_eq(h.hi, s_blob, 37);
	ck_assert_uint_eq(h.di_type, HIP_DI_FQDN);
	ck_assert_uint_eq(h.di_len, 14);
	ck_assert_mem_eq(h.di, "\x04host\x07" "example\x00", 14);

	b_mac32(rt_begin(&t));
	c = rt_param(&t, HIP_PARAM_HIP_MAC, &len);
	ck_assert_int_eq(hip_mac_decode(c, len, 32, &o), 0);
	ck_assert_mem_eq(o.data, s_blob, 32);
	ck_assert_int_eq(hip_mac_decode(c, len, 48, &o), -EBADMSG);
	ck_assert_int_eq(hip_mac_decode(c, len, 0, &o), -EINVAL);

	b_sig(rt_begin(&t));
	c = rt_param(&t, HIP_PARAM_HIP_SIGNATURE, &len);
	ck_assert_int_eq(hip_signature_decode(c, len, &sig), 0);
	ck_assert_uint_eq(sig.algorithm, 0x0102);
	ck_assert_uint_eq(sig.len, 28);
	ck_assert_mem_eq(sig.sig, s_blob + 2, 28);
}
END_TEST

/* ---- verdicts on hand-made contents ---- */

static const struct verdict_case verdicts[] = {
	/* HIT_SUITE_LIST: the lower nibble MUST be zero (§5.2.10, W-16). */
	{ "suites 0x11", d_suites, "\x20\x11", 2, -EBADMSG },
	{ "suites 0x02", d_suites, "\x02", 1, -EBADMSG },
	{ "suites ok", d_suites, "\x20\x10", 2, 0 },
	{ "suites empty", d_suites, NULL, 0, -EBADMSG },
	{ "groups empty", d_groups, NULL, 0, -EBADMSG },
	/* u16 lists: even, non-empty; ESP_TRANSFORM and NAT mode need an ID
	 * after their Reserved field. */
	{ "cipher empty", d_cipher, NULL, 0, -EBADMSG },
	{ "cipher odd", d_cipher, "\0\2\0", 3, -EBADMSG },
	{ "tfl odd", d_tfl, "\x0f", 1, -EBADMSG },
	{ "esp reserved only", d_esp, NULL, 2, -EBADMSG },
	{ "esp odd", d_esp, "\0\0\0\x0d\0", 5, -EBADMSG },
	{ "nat reserved only", d_nat, NULL, 2, -EBADMSG },
	{ "nat one", d_nat, "\0\0\0\1", 4, 0 },
	/* DIFFIE_HELLMAN: 3 + Public Value Length == Length, value non-empty. */
	{ "dh ok", d_dh, "\x07\x00\x02\xaa\xbb", 5, 0 },
	{ "dh short", d_dh, "\x07\x00\x02\xaa\xbb", 4, -EBADMSG },
	{ "dh long", d_dh, "\x07\x00\x01\xaa\xbb", 5, -EBADMSG },
	{ "dh empty value", d_dh, "\x07\x00\x00", 3, -EBADMSG },
	{ "dh 2", d_dh, NULL, 2, -EBADMSG },
	{ "encrypted 4", d_encrypted, NULL, 4, -EBADMSG },
	{ "encrypted 5", d_encrypted, NULL, 5, 0 },
	{ "signature 2", d_sig, NULL, 2, -EBADMSG },
	{ "signature 3", d_sig, NULL, 3, 0 },
	/* HOST_ID (RB-05): HI Length 10, DI FQDN Length 5 => exactly 21 bytes. */
	{ "host_id ok", d_host_id, "\x00\x0a\x10\x05\x00\x05", 21, 0 },
	{ "host_id -1", d_host_id, "\x00\x0a\x10\x05\x00\x05", 20, -EBADMSG },
	{ "host_id +1", d_host_id, "\x00\x0a\x10\x05\x00\x05", 22, -EBADMSG },
	{ "host_id hi+1", d_host_id, "\x00\x0b\x10\x05\x00\x05", 21, -EBADMSG },
	{ "host_id hi-1", d_host_id, "\x00\x09\x10\x05\x00\x05", 21, -EBADMSG },
	{ "host_id di type 0", d_host_id, "\x00\x0a\x00\x05\x00\x05", 21, -EBADMSG },
	{ "host_id no di", d_host_id, "\x00\x0a\x00\x00\x00\x05", 16, 0 },
	{ "host_id di type 3", d_host_id, "\x00\x0a\x30\x00\x00\x05", 16, -EBADMSG },
	{ "host_id empty hi", d_host_id, "\x00\x00\x00\x00\x00\x05", 6, -EBADMSG },
	{ "host_id huge", d_host_id, "\xff\xff\x2f\xff\x00\x05", 64, -EBADMSG },
	{ "host_id 5", d_host_id, "\x00\x00\x00\x00\x00", 5, -EBADMSG },
};
enum { NVERDICTS = sizeof(verdicts) / sizeof(verdicts[0]) };

START_TEST(test_verdicts)
{
	rt_check_verdict(&verdicts[_i]);
}
END_TEST

START_TEST(test_decoded_values)
{
	static uint8_t buf[200];
	struct hip_u8_list l8;
	struct hip_u16_list l16;
	struct hip_host_id h;
	struct hip_builder *b;
	struct rt t;
	unsigned i;

	ck_assert_int_eq(hip_hit_suite_list_decode((const uint8_t *)"\x20\x10", 2, &l8), 0);
	ck_assert(l8.n == 2 && l8.v[0] == 2 && l8.v[1] == 1);
	/* Longer lists keep the first HIP_LIST_MAX entries. */
	for (i = 0; i < 100; i++)
		buf[2 * i + 1] = (uint8_t)i;
	ck_assert_int_eq(hip_hip_cipher_decode(buf, 80, &l16), 0);
	ck_assert_uint_eq(l16.n, HIP_LIST_MAX);
	ck_assert_uint_eq(l16.v[HIP_LIST_MAX - 1], HIP_LIST_MAX - 1);
	ck_assert_int_eq(hip_dh_group_list_decode(buf, 40, &l8), 0);
	ck_assert_uint_eq(l8.n, HIP_LIST_MAX);
	ck_assert_int_eq(hip_host_id_decode((const uint8_t *)"\x00\x01\x00\x00\x00\x05\x07", 7,
					    &h), 0);
	ck_assert_ptr_null(h.di);
	ck_assert_uint_eq(h.hi[0], 7);

	/* Builders refuse what the decoders would reject. */
	b = rt_begin(&t);
	hip_dh_param_build(b, 7, buf, 0);
	ck_assert_int_eq(b->err, -EINVAL);
	b = rt_begin(&t);
	hip_hit_suite_list_build(b, &(struct hip_u8_list){ .n = 1, .v = { 16 } });
	ck_assert_int_eq(b->err, -EINVAL);
	b = rt_begin(&t);
	hip_hip_cipher_build(b, &(struct hip_u16_list){ .n = 0 });
	ck_assert_int_eq(b->err, -EINVAL);
	b = rt_begin(&t);
	hip_encrypted_build(b, buf, 0);
	ck_assert_int_eq(b->err, -EINVAL);
	b = rt_begin(&t);
	hip_host_id_build(b, &(struct hip_host_id){ .hi = buf, .hi_len = 4, .di = buf,
						    .di_len = 2 });
	ck_assert_int_eq(b->err, -EINVAL);                      /* DI-Type 0 with a DI */
	b = rt_begin(&t);
	hip_solution_build(b, &(struct hip_solution){ .ij_len = 0 });
	ck_assert_int_eq(b->err, -EINVAL);
}
END_TEST

static Suite *params_suite(void)
{
	Suite *s = suite_create("params");
	TCase *bounds = tcase_create("bounds");
	TCase *rt = tcase_create("roundtrip");
	TCase *rej = tcase_create("reject");

	tcase_add_loop_test(bounds, test_every_param_bounds, 0, NPARAM_CASES);
	suite_add_tcase(s, bounds);
	tcase_add_test(rt, test_rt_fixed);
	tcase_add_test(rt, test_rt_puzzle_solution);
	tcase_add_test(rt, test_rt_lists);
	tcase_add_test(rt, test_rt_variable);
	suite_add_tcase(s, rt);
	tcase_add_loop_test(rej, test_verdicts, 0, NVERDICTS);
	tcase_add_test(rej, test_decoded_values);
	suite_add_tcase(s, rej);
	return s;
}

UNIT_MAIN(params_suite)
