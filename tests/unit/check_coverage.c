/*
 * check_coverage.c - what HIP_MAC, HIP_MAC_2, HIP_SIGNATURE and
 * HIP_SIGNATURE_2 cover (RFC 7401 §5.2.12-15, §6.4; docs/protocol.md §2). The
 * expected coverage is rebuilt by hand from the packet bytes.
 */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "coverage.h"
#include "hip_crypto.h"
#include "params.h"
#include "unit.h"

static struct hip_hi *hi_r;   /* Responder, ECDSA P-256 */
static struct hip_hi *hi_other;
static struct hip_hit hit_i, hit_r;
static const uint8_t key[32] = "0123456789abcdef0123456789abcde";

static void setup(void)
{
	const uint8_t *w;
	size_t len;

	ck_assert_int_eq(hip_hi_generate(HIP_HI_KIND_ECDSA_P256, &hi_r), 0);
	ck_assert_int_eq(hip_hi_generate(HIP_HI_KIND_ECDSA_P256, &hi_other), 0);
	w = hip_hi_wire(hi_r, &len);
	ck_assert_int_eq(hip_hit_from_hi(hip_hi_suite(hi_r), w, len, &hit_r), 0);
	ck_assert_int_eq(hip_hit_from_str("2001:21::1234", &hit_i), 0);
}

static void teardown(void)
{
	hip_hi_free(hi_r);
	hip_hi_free(hi_other);
	hi_r = hi_other = NULL;
}

static void put_host_id(struct hip_builder *b, const struct hip_hi *hi)
{
	struct hip_host_id h = { .algorithm = hip_hi_algorithm(hi) };
	size_t len;

	h.hi = hip_hi_wire(hi, &len);
	h.hi_len = (uint16_t)len;
	hip_host_id_build(b, &h);
}

/* A full R1 (docs/protocol.md §1) signed with HIP_SIGNATURE_2, then an unsigned echo. */
static size_t build_r1(uint8_t *buf, size_t cap)
{
	struct hip_builder b;
	struct hip_r1_counter rc;
	struct hip_puzzle pz = { .k = 3, .lifetime = 37, .i_len = 48 };
	struct hip_u8_list groups = { 2, { HIP_DH_NIST_P256, HIP_DH_MODP_1536 } };
	struct hip_u8_list suites = { 2, { 2, 1 } };
	struct hip_u16_list ciphers = { 1, { HIP_CIPHER_AES_128_CBC } };
	struct hip_u16_list tfl = { 1, { HIP_PARAM_ESP_TRANSFORM } };
	struct hip_u16_list esp = { 1, { HIP_ESP_AES_GCM_16 } };
	uint8_t pub[64];
	int n;

	memset(pub, 0x42, sizeof(pub));
	memset(pz.i, 0x99, sizeof(pz.i));
	memcpy(&pz.opaque, "\x12\x34", 2);
	hip_r1_counter_set(&rc, 7);
	hip_build_init(&b, buf, cap, HIP_R1, &hit_r, &hit_i);
	hip_r1_counter_build(&b, &rc);
	hip_puzzle_build(&b, &pz);
	hip_dh_group_list_build(&b, &groups);
	hip_dh_param_build(&b, HIP_DH_NIST_P256, pub, sizeof(pub));
	hip_hip_cipher_build(&b, &ciphers);
	put_host_id(&b, hi_r);
	hip_hit_suite_list_build(&b, &suites);
	hip_transport_format_list_build(&b, &tfl);
	hip_esp_transform_build(&b, &esp);
	hip_build_signature(&b, HIP_COVER_SIGNATURE_2, hi_r);
	hip_echo_build(&b, HIP_PARAM_ECHO_REQUEST_UNSIGNED, "nonce", 5);
	n = hip_build_finish(&b);
	ck_assert_int_gt(n, 0);
	return (size_t)n;
}

/* A CLOSE-like packet: ECHO_REQUEST_SIGNED, HIP_MAC, HIP_SIGNATURE, then an
 * unsigned echo that neither covers. */
static size_t build_close(uint8_t *buf, size_t cap)
{
	struct hip_builder b;
	int n;

	hip_build_init(&b, buf, cap, HIP_CLOSE, &hit_i, &hit_r);
	hip_echo_build(&b, HIP_PARAM_ECHO_REQUEST_SIGNED, "0123456789", 10);
	hip_build_mac(&b, HIP_COVER_MAC, HIP_RHASH_SHA384, key, sizeof(key), NULL, 0);
	hip_build_signature(&b, HIP_COVER_SIGNATURE, hi_r);
	hip_echo_build(&b, HIP_PARAM_ECHO_REQUEST_UNSIGNED, "after", 5);
	n = hip_build_finish(&b);
	ck_assert_int_gt(n, 0);
	return (size_t)n;
}

static void parse(const uint8_t *buf, size_t len, struct hip_packet *pkt)
{
	ck_assert_int_eq(hip_packet_parse(buf, len, pkt), 0);
}

/* Hand-made common rule: bytes [0, end), Checksum 0, Header Length = end. */
static size_t hand_cover(const uint8_t *pkt, size_t end, uint8_t *out)
{
	memcpy(out, pkt, end);
	out[1] = (uint8_t)(end / 8 - 1);
	out[4] = out[5] = 0;
	return end;
}

START_TEST(test_mac_covers_exactly)
{
	uint8_t buf[HIP_MAX_PACKET], cov[HIP_COVER_MAX], lib[HIP_COVER_MAX];
	uint8_t mac[HIP_RHASH_MAX_LEN];
	struct hip_packet pkt;
	const struct hip_param_ref *m;
	struct hip_addr s, d;
	size_t len = build_close(buf, sizeof(buf)), cl, ll;
	struct iovec iov;

	/* A real checksum in the header must not matter. */
	ck_assert_int_eq(hip_addr_from_str("2001:db8::1", &s), 0);
	ck_assert_int_eq(hip_addr_from_str("2001:db8::2", &d), 0);
	hip_packet_set_checksum(buf, len, &s, &d);
	parse(buf, len, &pkt);
	m = hip_packet_find(&pkt, HIP_PARAM_HIP_MAC);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->len, 48);

	cl = hand_cover(buf, m->off, cov);
	ck_assert_uint_eq(cov[1], m->off / 8 - 1);
	ck_assert_uint_ne(cov[1], buf[1]);
	iov.iov_base = cov;
	iov.iov_len = cl;
	ck_assert_int_eq(hip_hmacv(HIP_RHASH_SHA384, key, sizeof(key), &iov, 1, mac), 0);
	ck_assert_int_eq(memcmp(mac, hip_param_content(&pkt, m), 48), 0);

	ck_assert_int_eq(hip_coverage(buf, m->off, HIP_COVER_MAC, NULL, 0, lib, sizeof(lib),
				      &ll), 0);
	ck_assert_uint_eq(ll, cl);
	ck_assert_int_eq(memcmp(lib, cov, cl), 0);
	ck_assert_int_eq(hip_verify_mac(&pkt, HIP_COVER_MAC, HIP_RHASH_SHA384, key,
					sizeof(key), NULL, 0), 0);
}
END_TEST

START_TEST(test_mac_rejects_changes)
{
	uint8_t buf[HIP_MAX_PACKET];
	struct hip_packet pkt;
	const struct hip_param_ref *m, *u;
	size_t len = build_close(buf, sizeof(buf));
	uint8_t wrong[32];

	parse(buf, len, &pkt);
	m = hip_packet_find(&pkt, HIP_PARAM_HIP_MAC);
	u = hip_packet_find(&pkt, HIP_PARAM_ECHO_REQUEST_UNSIGNED);
	ck_assert_ptr_nonnull(u);
	/* every covered byte except Header Length and Checksum counts */
	for (size_t i = 0; i < m->off; i++) {
		int want = (i == 1 || i == 4 || i == 5) ? 0 : -EBADMSG;

		buf[i] ^= 0x20;
		ck_assert_msg(hip_verify_mac(&pkt, HIP_COVER_MAC, HIP_RHASH_SHA384, key,
					     sizeof(key), NULL, 0) == want, "byte %zu", i);
		buf[i] ^= 0x20;
	}
	/* the MAC itself */
	buf[m->off + 4 + 47] ^= 1;
	ck_assert_int_eq(hip_verify_mac(&pkt, HIP_COVER_MAC, HIP_RHASH_SHA384, key,
					sizeof(key), NULL, 0), -EBADMSG);
	buf[m->off + 4 + 47] ^= 1;
	/* parameters after it are not covered, by the MAC or the signature */
	buf[u->off + 4] ^= 0xff;
	ck_assert_int_eq(hip_verify_mac(&pkt, HIP_COVER_MAC, HIP_RHASH_SHA384, key,
					sizeof(key), NULL, 0), 0);
	ck_assert_int_eq(hip_verify_signature(&pkt, HIP_COVER_SIGNATURE, hi_r), 0);
	/* wrong key, wrong hash (length mismatch) */
	memcpy(wrong, key, sizeof(wrong));
	wrong[0] ^= 1;
	ck_assert_int_eq(hip_verify_mac(&pkt, HIP_COVER_MAC, HIP_RHASH_SHA384, wrong,
					sizeof(wrong), NULL, 0), -EBADMSG);
	ck_assert_int_eq(hip_verify_mac(&pkt, HIP_COVER_MAC, HIP_RHASH_SHA256, key,
					sizeof(key), NULL, 0), -EBADMSG);
}
END_TEST

START_TEST(test_missing_params)
{
	uint8_t buf[HIP_MAX_PACKET];
	struct hip_packet pkt;
	struct hip_builder b;
	int n;

	hip_build_init(&b, buf, sizeof(buf), HIP_UPDATE, &hit_i, &hit_r);
	hip_seq_build(&b, 0);
	n = hip_build_finish(&b);
	ck_assert_int_gt(n, 0);
	parse(buf, (size_t)n, &pkt);
	ck_assert_int_eq(hip_verify_mac(&pkt, HIP_COVER_MAC, HIP_RHASH_SHA256, key,
					sizeof(key), NULL, 0), -ENOENT);
	ck_assert_int_eq(hip_verify_signature(&pkt, HIP_COVER_SIGNATURE, hi_r), -ENOENT);
	ck_assert_int_eq(hip_verify_signature(&pkt, HIP_COVER_SIGNATURE_2, hi_r), -ENOENT);
	/* kinds that do not fit the call */
	ck_assert_int_eq(hip_verify_mac(&pkt, HIP_COVER_SIGNATURE, HIP_RHASH_SHA256, key,
					sizeof(key), NULL, 0), -EINVAL);
	ck_assert_int_eq(hip_verify_signature(&pkt, HIP_COVER_MAC, hi_r), -EINVAL);
}
END_TEST

/* A HIP_MAC whose length is not the RHASH length is bad, not "missing". */
START_TEST(test_mac_wrong_length)
{
	uint8_t buf[HIP_MAX_PACKET], junk[20] = { 0 };
	struct hip_packet pkt;
	struct hip_builder b;
	int n;

	hip_build_init(&b, buf, sizeof(buf), HIP_UPDATE, &hit_i, &hit_r);
	hip_seq_build(&b, 1);
	hip_build_param(&b, HIP_PARAM_HIP_MAC, junk, sizeof(junk));
	n = hip_build_finish(&b);
	parse(buf, (size_t)n, &pkt);
	ck_assert_int_eq(hip_verify_mac(&pkt, HIP_COVER_MAC, HIP_RHASH_SHA256, key,
					sizeof(key), NULL, 0), -EBADMSG);
}
END_TEST

/* R2: HIP_MAC_2 over ESP_INFO plus the Responder's HOST_ID TLV from R1. */
START_TEST(test_mac2_host_id)
{
	uint8_t r1[HIP_MAX_PACKET], r2[HIP_MAX_PACKET], hid[HIP_MAX_PACKET];
	uint8_t cov[HIP_COVER_MAX], mac[HIP_RHASH_MAX_LEN];
	struct hip_packet p1, p2;
	const struct hip_param_ref *h, *m, *sg;
	struct hip_esp_info ei = { .keymat_index = 128, .old_spi = 0, .new_spi = 0x1000 };
	struct hip_builder b;
	size_t hid_len, cl;
	struct iovec iov;
	int n;

	parse(r1, build_r1(r1, sizeof(r1)), &p1);
	h = hip_packet_find(&p1, HIP_PARAM_HOST_ID);
	ck_assert_ptr_nonnull(h);
	hid_len = hip_tlv_total_len(h->len);
	memcpy(hid, r1 + h->off, hid_len);
	/* The P-256 HOST_ID has padding: it must be covered too. */
	ck_assert_uint_gt(hid_len, HIP_TLV_HDR_LEN + h->len);

	hip_build_init(&b, r2, sizeof(r2), HIP_R2, &hit_r, &hit_i);
	hip_esp_info_build(&b, &ei);
	hip_build_mac(&b, HIP_COVER_MAC_2, HIP_RHASH_SHA384, key, sizeof(key), hid, hid_len);
	hip_build_signature(&b, HIP_COVER_SIGNATURE, hi_r);
	n = hip_build_finish(&b);
	ck_assert_int_gt(n, 0);
	parse(r2, (size_t)n, &p2);
	m = hip_packet_find(&p2, HIP_PARAM_HIP_MAC_2);
	sg = hip_packet_find(&p2, HIP_PARAM_HIP_SIGNATURE);
	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(sg);

	/* by hand: R2[0, MAC_2) | HOST_ID TLV, Header Length counting both */
	memcpy(cov, r2, m->off);
	memcpy(cov + m->off, hid, hid_len);
	cl = m->off + hid_len;
	cov[1] = (uint8_t)(cl / 8 - 1);
	cov[4] = cov[5] = 0;
	iov.iov_base = cov;
	iov.iov_len = cl;
	ck_assert_int_eq(hip_hmacv(HIP_RHASH_SHA384, key, sizeof(key), &iov, 1, mac), 0);
	ck_assert_int_eq(memcmp(mac, hip_param_content(&p2, m), 48), 0);
	ck_assert_int_eq(hip_verify_mac(&p2, HIP_COVER_MAC_2, HIP_RHASH_SHA384, key,
					sizeof(key), hid, hid_len), 0);

	/* the signature covers ESP_INFO and HIP_MAC_2, not the HOST_ID */
	cl = hand_cover(r2, sg->off, cov);
	ck_assert_int_eq(hip_hi_verify(hi_r, cov, cl, hip_param_content(&p2, sg) + 2,
				       sg->len - 2), 0);
	ck_assert_int_eq(hip_verify_signature(&p2, HIP_COVER_SIGNATURE, hi_r), 0);

	/* C-09: any changed byte of the kept HOST_ID TLV, padding included */
	for (size_t i = 0; i < hid_len; i++) {
		int r;

		hid[i] ^= 0x01;
		r = hip_verify_mac(&p2, HIP_COVER_MAC_2, HIP_RHASH_SHA384, key, sizeof(key),
				   hid, hid_len);
		/* a Type or Length that no longer fits the size is refused as
		 * a bad argument before any MAC; everything else fails the MAC */
		if (i < HIP_TLV_HDR_LEN)
			ck_assert_msg(r == -EINVAL || r == -EBADMSG, "byte %zu gave %d", i, r);
		else
			ck_assert_msg(r == -EBADMSG, "byte %zu gave %d", i, r);
		hid[i] ^= 0x01;
	}
	/* missing HOST_ID: a caller error */
	ck_assert_int_eq(hip_verify_mac(&p2, HIP_COVER_MAC_2, HIP_RHASH_SHA384, key,
					sizeof(key), NULL, 0), -EINVAL);
	/* a plain HIP_MAC is not there */
	ck_assert_int_eq(hip_verify_mac(&p2, HIP_COVER_MAC, HIP_RHASH_SHA384, key,
					sizeof(key), NULL, 0), -ENOENT);
}
END_TEST

START_TEST(test_signature)
{
	uint8_t buf[HIP_MAX_PACKET];
	struct hip_packet pkt;
	const struct hip_param_ref *sg;
	size_t len = build_close(buf, sizeof(buf));
	uint8_t *alg;

	parse(buf, len, &pkt);
	sg = hip_packet_find(&pkt, HIP_PARAM_HIP_SIGNATURE);
	ck_assert_ptr_nonnull(sg);
	/* SIG alg is 16 bits in v2 (§5.2.14), then r|s (64 bytes for P-256) */
	ck_assert_uint_eq(sg->len, 2 + 64);
	alg = buf + sg->off + HIP_TLV_HDR_LEN;
	ck_assert_uint_eq(alg[0], 0);
	ck_assert_uint_eq(alg[1], HIP_HI_ECDSA);
	ck_assert_int_eq(hip_verify_signature(&pkt, HIP_COVER_SIGNATURE, hi_r), 0);
	/* another key */
	ck_assert_int_eq(hip_verify_signature(&pkt, HIP_COVER_SIGNATURE, hi_other), -EBADMSG);
	/* the HIP_MAC is inside the signature */
	buf[hip_packet_find(&pkt, HIP_PARAM_HIP_MAC)->off + 10] ^= 1;
	ck_assert_int_eq(hip_verify_signature(&pkt, HIP_COVER_SIGNATURE, hi_r), -EBADMSG);
	buf[hip_packet_find(&pkt, HIP_PARAM_HIP_MAC)->off + 10] ^= 1;
	/* the receiver HIT is covered by HIP_SIGNATURE (only SIG_2 zeroes it) */
	buf[30] ^= 1;
	ck_assert_int_eq(hip_verify_signature(&pkt, HIP_COVER_SIGNATURE, hi_r), -EBADMSG);
	buf[30] ^= 1;
	/* wrong SIG alg: RSA (5) claimed for an ECDSA signature */
	alg[1] = HIP_HI_RSA;
	ck_assert_int_eq(hip_verify_signature(&pkt, HIP_COVER_SIGNATURE, hi_r), -EBADMSG);
	alg[1] = HIP_HI_ECDSA;
	/* an 8-bit v1-style SIG alg field would be read as 0x07xx */
	alg[0] = HIP_HI_ECDSA;
	ck_assert_int_eq(hip_verify_signature(&pkt, HIP_COVER_SIGNATURE, hi_r), -EBADMSG);
	alg[0] = 0;
	ck_assert_int_eq(hip_verify_signature(&pkt, HIP_COVER_SIGNATURE, hi_r), 0);
}
END_TEST

/* A public-only HI can verify but not sign. */
START_TEST(test_signature_public_only)
{
	uint8_t buf[HIP_MAX_PACKET];
	struct hip_packet pkt;
	struct hip_hi *pub = NULL;
	struct hip_builder b;
	const uint8_t *w;
	size_t wl, len = build_close(buf, sizeof(buf));

	w = hip_hi_wire(hi_r, &wl);
	ck_assert_int_eq(hip_hi_from_wire(hip_hi_algorithm(hi_r), w, wl, &pub), 0);
	parse(buf, len, &pkt);
	ck_assert_int_eq(hip_verify_signature(&pkt, HIP_COVER_SIGNATURE, pub), 0);
	hip_build_init(&b, buf, sizeof(buf), HIP_NOTIFY, &hit_r, &hit_i);
	hip_notification_build(&b, HIP_NOTIFY_INVALID_SYNTAX, NULL, 0);
	hip_build_signature(&b, HIP_COVER_SIGNATURE, pub);
	ck_assert_int_eq(hip_build_finish(&b), -EINVAL);
	hip_hi_free(pub);
}
END_TEST

/* C-10: HIP_SIGNATURE_2 ignores the Receiver's HIT, PUZZLE Opaque and #I and
 * nothing else (Header Length and Checksum are recomputed anyway). */
START_TEST(test_signature2_zeroed_fields)
{
	uint8_t buf[HIP_MAX_PACKET], cov[HIP_COVER_MAX];
	struct hip_packet pkt;
	const struct hip_param_ref *pz, *sg, *u;
	size_t len = build_r1(buf, sizeof(buf)), cl;

	parse(buf, len, &pkt);
	pz = hip_packet_find(&pkt, HIP_PARAM_PUZZLE);
	sg = hip_packet_find(&pkt, HIP_PARAM_HIP_SIGNATURE_2);
	u = hip_packet_find(&pkt, HIP_PARAM_ECHO_REQUEST_UNSIGNED);
	ck_assert_ptr_nonnull(pz);
	ck_assert_ptr_nonnull(sg);
	ck_assert_ptr_nonnull(u);
	ck_assert_uint_eq(pz->len, 4 + 48);
	ck_assert_int_eq(hip_verify_signature(&pkt, HIP_COVER_SIGNATURE_2, hi_r), 0);

	/* by hand: zero the Receiver's HIT, Opaque and #I */
	cl = hand_cover(buf, sg->off, cov);
	memset(cov + 24, 0, 16);
	memset(cov + pz->off + 4 + 2, 0, 2 + 48);
	ck_assert_int_eq(hip_hi_verify(hi_r, cov, cl, hip_param_content(&pkt, sg) + 2,
				       sg->len - 2), 0);

	for (size_t i = 0; i < sg->off; i++) {
		size_t opaque = pz->off + 4 + 2;
		bool ignored = i == 1 || i == 4 || i == 5 || (i >= 24 && i < 40) ||
			       (i >= opaque && i < opaque + 2 + 48);
		int r;

		buf[i] ^= 0x04;
		r = hip_verify_signature(&pkt, HIP_COVER_SIGNATURE_2, hi_r);
		ck_assert_msg(ignored ? r == 0 : r == -EBADMSG, "byte %zu gave %d", i, r);
		buf[i] ^= 0x04;
	}
	/* K (first PUZZLE byte) in particular */
	buf[pz->off + 4] = 20;
	ck_assert_int_eq(hip_verify_signature(&pkt, HIP_COVER_SIGNATURE_2, hi_r), -EBADMSG);
	buf[pz->off + 4] = 3;
	/* the unsigned echo after the signature is not covered */
	memcpy(buf + u->off + 4, "NONCE", 5);
	ck_assert_int_eq(hip_verify_signature(&pkt, HIP_COVER_SIGNATURE_2, hi_r), 0);
	/* and a HIP_SIGNATURE verification does not find SIG_2 */
	ck_assert_int_eq(hip_verify_signature(&pkt, HIP_COVER_SIGNATURE, hi_r), -ENOENT);
}
END_TEST

START_TEST(test_coverage_args)
{
	uint8_t buf[HIP_MAX_PACKET], out[HIP_COVER_MAX], hid[2048];
	size_t len = build_r1(buf, sizeof(buf)), ol;
	struct hip_packet pkt;
	const struct hip_param_ref *pz;

	ck_assert_int_eq(hip_coverage(buf, 44, HIP_COVER_MAC, NULL, 0, out, sizeof(out), &ol),
			 -EINVAL);
	ck_assert_int_eq(hip_coverage(buf, 32, HIP_COVER_MAC, NULL, 0, out, sizeof(out), &ol),
			 -EINVAL);
	ck_assert_int_eq(hip_coverage(buf, 48, HIP_COVER_MAC, NULL, 0, out, 40, &ol), -ENOSPC);
	ck_assert_int_eq(hip_coverage(buf, 40, HIP_COVER_MAC, NULL, 0, out, 40, &ol), 0);
	ck_assert_uint_eq(ol, 40);
	ck_assert_uint_eq(out[1], 4);
	/* MAC_2 past 2048 bytes cannot have a Header Length */
	memset(hid, 0, sizeof(hid));
	hid[0] = HIP_PARAM_HOST_ID >> 8;
	hid[1] = HIP_PARAM_HOST_ID & 0xff;
	hid[2] = (2008 - 4) >> 8;
	hid[3] = (2008 - 4) & 0xff;
	ck_assert_int_eq(hip_coverage(buf, 40, HIP_COVER_MAC_2, hid, 2008, out, sizeof(out),
				      &ol), 0);
	ck_assert_uint_eq(ol, 2048);
	ck_assert_uint_eq(out[1], 255);
	ck_assert_int_eq(hip_coverage(buf, 48, HIP_COVER_MAC_2, hid, 2008, out, sizeof(out),
				      &ol), -EMSGSIZE);
	/* a HOST_ID whose Length disagrees with its size, or not a HOST_ID */
	ck_assert_int_eq(hip_coverage(buf, 40, HIP_COVER_MAC_2, hid, 2000, out, sizeof(out),
				      &ol), -EINVAL);
	hid[1] ^= 2;
	ck_assert_int_eq(hip_coverage(buf, 40, HIP_COVER_MAC_2, hid, 2008, out, sizeof(out),
				      &ol), -EINVAL);
	/* SIG_2 walk: a TLV that runs past end_off */
	parse(buf, len, &pkt);
	pz = hip_packet_find(&pkt, HIP_PARAM_PUZZLE);
	ck_assert_int_eq(hip_coverage(buf, pz->off + 8, HIP_COVER_SIGNATURE_2, NULL, 0, out,
				      sizeof(out), &ol), -EBADMSG);
	ck_assert_int_eq(hip_coverage(buf, pz->off, HIP_COVER_SIGNATURE_2, NULL, 0, out,
				      sizeof(out), &ol), 0);
}
END_TEST

START_TEST(test_builder_errors_stick)
{
	uint8_t buf[HIP_MAX_PACKET];
	struct hip_builder b;

	hip_build_init(&b, buf, sizeof(buf), HIP_UPDATE, &hit_i, &hit_r);
	hip_seq_build(&b, 0);
	hip_build_mac(&b, HIP_COVER_SIGNATURE, HIP_RHASH_SHA256, key, sizeof(key), NULL, 0);
	ck_assert_int_eq(hip_build_finish(&b), -EINVAL);

	hip_build_init(&b, buf, sizeof(buf), HIP_R2, &hit_i, &hit_r);
	hip_build_mac(&b, HIP_COVER_MAC_2, HIP_RHASH_SHA256, key, sizeof(key), NULL, 0);
	ck_assert_int_eq(hip_build_finish(&b), -EINVAL);

	/* too small a buffer for the MAC */
	hip_build_init(&b, buf, 48, HIP_UPDATE, &hit_i, &hit_r);
	hip_seq_build(&b, 0);
	hip_build_mac(&b, HIP_COVER_MAC, HIP_RHASH_SHA256, key, sizeof(key), NULL, 0);
	ck_assert_int_eq(hip_build_finish(&b), -ENOSPC);
}
END_TEST

/* RSA: SIG alg 5, RSA-PSS, signature = modulus length. */
START_TEST(test_signature_rsa)
{
	uint8_t buf[HIP_MAX_PACKET];
	struct hip_packet pkt;
	struct hip_builder b;
	struct hip_hi *rsa = NULL;
	const struct hip_param_ref *sg;
	int n;

	ck_assert_int_eq(hip_hi_generate(HIP_HI_KIND_RSA_3072, &rsa), 0);
	hip_build_init(&b, buf, sizeof(buf), HIP_NOTIFY, &hit_r, NULL);
	hip_notification_build(&b, HIP_NOTIFY_INVALID_SYNTAX, NULL, 0);
	hip_build_signature(&b, HIP_COVER_SIGNATURE, rsa);
	n = hip_build_finish(&b);
	ck_assert_int_gt(n, 0);
	parse(buf, (size_t)n, &pkt);
	sg = hip_packet_find(&pkt, HIP_PARAM_HIP_SIGNATURE);
	ck_assert_uint_eq(sg->len, 2 + 384);
	ck_assert_uint_eq(buf[sg->off + 5], HIP_HI_RSA);
	ck_assert_int_eq(hip_verify_signature(&pkt, HIP_COVER_SIGNATURE, rsa), 0);
	/* an ECDSA key does not accept an RSA signature */
	ck_assert_int_eq(hip_verify_signature(&pkt, HIP_COVER_SIGNATURE, hi_r), -EBADMSG);
	buf[45] ^= 1;
	ck_assert_int_eq(hip_verify_signature(&pkt, HIP_COVER_SIGNATURE, rsa), -EBADMSG);
	hip_hi_free(rsa);
}
END_TEST

static Suite *coverage_suite(void)
{
	Suite *s = suite_create("coverage");
	TCase *tc = tcase_create("mac");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_mac_covers_exactly);
	tcase_add_test(tc, test_mac_rejects_changes);
	tcase_add_test(tc, test_missing_params);
	tcase_add_test(tc, test_mac_wrong_length);
	tcase_add_test(tc, test_mac2_host_id);
	tcase_add_test(tc, test_coverage_args);
	tcase_add_test(tc, test_builder_errors_stick);
	suite_add_tcase(s, tc);

	tc = tcase_create("signature");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120); /* RSA-3072 key generation */
	tcase_add_test(tc, test_signature);
	tcase_add_test(tc, test_signature_public_only);
	tcase_add_test(tc, test_signature2_zeroed_fields);
	tcase_add_test(tc, test_signature_rsa);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(coverage_suite)
