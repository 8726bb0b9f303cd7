/*
 * check_dh.c - DIFFIE_HELLMAN groups 3, 4, 7, 8 (RFC 7401 §5.2.7) with the
 * encodings of docs/decisions.md A-4: RFC 5903 §8 known answers for ECDH, the RFC 3526
 * primes for the MODP range checks, and the rejection of bad peer values.
 */
#include <errno.h>
#include <string.h>

#include "cw_internal.h"
#include "hip_crypto.h"
#include "unit.h"

static const uint8_t groups[] = { 3, 4, 7, 8 };

/* RFC 3526 §2 (1536-bit) and §4 (3072-bit) primes. */
static const char modp1536_hex[] =
	"FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74"
	"020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B302B0A6DF25F1437"
	"4FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
	"EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF05"
	"98DA48361C55D39A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552BB"
	"9ED529077096966D670C354E4ABC9804F1746C08CA237327FFFFFFFFFFFFFFFF";
static const char modp3072_hex[] =
	"FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74"
	"020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B302B0A6DF25F1437"
	"4FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
	"EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF05"
	"98DA48361C55D39A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552BB"
	"9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B"
	"E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF695581718"
	"3995497CEA956AE515D2261898FA051015728E5A8AAAC42DAD33170D04507A33"
	"A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7DB3970F85A6E1E4C7"
	"ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864"
	"D87602733EC86A64521F2B18177B200CBBE117577A615D6C770988C0BAD946E2"
	"08E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF";

/* p as modulus-length bytes for MODP group 3 or 4. */
static size_t modp_prime(uint8_t group, uint8_t *p)
{
	long n = unit_hex(group == 3 ? modp1536_hex : modp3072_hex, p, 384);

	ck_assert_int_eq(n, group == 3 ? 192 : 384);
	return (size_t)n;
}

/* Big-endian subtraction of a small value (no underflow in our uses). */
static void be_sub(uint8_t *v, size_t len, unsigned d)
{
	for (size_t i = len; i-- > 0 && d;) {
		unsigned cur = v[i];

		v[i] = (uint8_t)(cur - d);
		d = cur < d ? 1 : 0;
	}
}

static void be_add(uint8_t *v, size_t len, unsigned d)
{
	for (size_t i = len; i-- > 0 && d;) {
		unsigned sum = v[i] + d;

		v[i] = (uint8_t)sum;
		d = sum >> 8;
	}
}

START_TEST(test_group_registry)
{
	static const struct { uint8_t id; size_t pub, secret; } want[] = {
		{ 3, 192, 192 }, { 4, 384, 384 }, { 7, 64, 32 }, { 8, 96, 48 },
	};
	/* deprecated v1 groups, reserved, and groups we do not implement */
	static const uint8_t unsupported[] = { 0, 1, 2, 5, 6, 9, 10, 11, 12, 255 };
	struct hip_dh *dh = NULL;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ck_assert(hip_dh_group_supported(want[i].id));
		ck_assert_uint_eq(hip_dh_pub_len(want[i].id), want[i].pub);
		ck_assert_uint_eq(hip_dh_secret_len(want[i].id), want[i].secret);
	}
	for (size_t i = 0; i < sizeof(unsupported); i++) {
		ck_assert(!hip_dh_group_supported(unsupported[i]));
		ck_assert_uint_eq(hip_dh_pub_len(unsupported[i]), 0);
		ck_assert_uint_eq(hip_dh_secret_len(unsupported[i]), 0);
		ck_assert_int_eq(hip_dh_generate(unsupported[i], &dh), -ENOTSUP);
	}
}
END_TEST

/* Two parties agree on a Kij of the right length (loop over groups). */
START_TEST(test_agree)
{
	uint8_t g = groups[_i];
	size_t pl = hip_dh_pub_len(g), sl = hip_dh_secret_len(g);
	uint8_t pa[384], pb[384], ka[384], kb[384], zero[384] = { 0 };
	struct hip_dh *a = NULL, *b = NULL;

	ck_assert_int_eq(hip_dh_generate(g, &a), 0);
	ck_assert_int_eq(hip_dh_generate(g, &b), 0);
	ck_assert_uint_eq(hip_dh_group(a), g);
	ck_assert_int_eq(hip_dh_public(a, pa, pl), 0);
	ck_assert_int_eq(hip_dh_public(b, pb, pl), 0);
	ck_assert_int_eq(hip_dh_public(a, pa, pl - 1), -EINVAL);
	ck_assert_int_eq(hip_dh_public(a, pa, pl + 1), -EINVAL);
	ck_assert_mem_ne(pa, pb, pl);

	ck_assert_int_eq(hip_dh_derive(a, pb, pl, ka, sl), 0);
	ck_assert_int_eq(hip_dh_derive(b, pa, pl, kb, sl), 0);
	ck_assert_mem_eq(ka, kb, sl);
	ck_assert_mem_ne(ka, zero, sl);
	/* Kij buffer must be exactly the secret length */
	ck_assert_int_eq(hip_dh_derive(a, pb, pl, ka, sl - 1), -EINVAL);
	ck_assert_int_eq(hip_dh_derive(a, pb, pl, ka, sl + 1), -EINVAL);
	/* deriving again gives the same Kij; a third party's differs */
	ck_assert_int_eq(hip_dh_derive(a, pb, pl, kb, sl), 0);
	ck_assert_mem_eq(ka, kb, sl);
	hip_dh_free(b);
	ck_assert_int_eq(hip_dh_generate(g, &b), 0);
	ck_assert_int_eq(hip_dh_public(b, pb, pl), 0);
	ck_assert_int_eq(hip_dh_derive(a, pb, pl, kb, sl), 0);
	ck_assert_mem_ne(ka, kb, sl);
	hip_dh_free(a);
	hip_dh_free(b);
}
END_TEST

/* MODP public values are 1 < y < p - 1 at the modulus length (groups 3, 4). */
START_TEST(test_modp_public_in_range)
{
	uint8_t g = _i == 0 ? 3 : 4;
	uint8_t p[384], y[384];
	size_t mlen = modp_prime(g, p);
	struct hip_dh *dh = NULL;

	for (int k = 0; k < 4; k++) {
		ck_assert_int_eq(hip_dh_generate(g, &dh), 0);
		ck_assert_int_eq(hip_dh_public(dh, y, mlen), 0);
		be_sub(p, mlen, 1);
		ck_assert_int_lt(memcmp(y, p, mlen), 0);
		be_add(p, mlen, 1);
		hip_dh_free(dh);
	}
}
END_TEST

/* Peer values outside 1 < y < p - 1 or longer than p are refused. */
START_TEST(test_modp_rejects)
{
	uint8_t g = _i == 0 ? 3 : 4;
	uint8_t p[384], y[385], k[384], one = 1, zero = 0;
	size_t mlen = modp_prime(g, p);
	struct hip_dh *dh = NULL;

	ck_assert_int_eq(hip_dh_generate(g, &dh), 0);
	ck_assert_int_eq(hip_dh_derive(dh, &zero, 1, k, mlen), -EBADMSG);
	ck_assert_int_eq(hip_dh_derive(dh, &one, 1, k, mlen), -EBADMSG);
	ck_assert_int_eq(hip_dh_derive(dh, &one, 0, k, mlen), -EBADMSG);
	memset(y, 0, sizeof(y));
	ck_assert_int_eq(hip_dh_derive(dh, y, mlen, k, mlen), -EBADMSG);
	y[mlen - 1] = 1;
	ck_assert_int_eq(hip_dh_derive(dh, y, mlen, k, mlen), -EBADMSG);
	/* p - 1, p, p + 1, and 2^n - 1 */
	memcpy(y, p, mlen);
	be_sub(y, mlen, 1);
	ck_assert_int_eq(hip_dh_derive(dh, y, mlen, k, mlen), -EBADMSG);
	be_add(y, mlen, 1);
	ck_assert_int_eq(hip_dh_derive(dh, y, mlen, k, mlen), -EBADMSG);
	be_add(y, mlen, 1);
	ck_assert_int_eq(hip_dh_derive(dh, y, mlen, k, mlen), -EBADMSG);
	memset(y, 0xff, mlen);
	ck_assert_int_eq(hip_dh_derive(dh, y, mlen, k, mlen), -EBADMSG);
	/* longer than the modulus, even with a zero first byte */
	memset(y, 0, sizeof(y));
	y[mlen] = 2;
	ck_assert_int_eq(hip_dh_derive(dh, y, mlen + 1, k, mlen), -EBADMSG);
	/* the edges that are inside the range are accepted: 2 and p - 2 */
	ck_assert_int_eq(hip_dh_derive(dh, y + 1, mlen, k, mlen), 0);
	memcpy(y, p, mlen);
	be_sub(y, mlen, 2);
	ck_assert_int_eq(hip_dh_derive(dh, y, mlen, k, mlen), 0);
	hip_dh_free(dh);
}
END_TEST

/* A MODP peer value sent without its leading zero bytes is read as the same
 * integer; and Kij keeps its leading zero bytes. Group 3 only: it
 * takes a few hundred key pairs to meet a leading zero byte. */
START_TEST(test_modp_leading_zeros)
{
	const uint8_t g = 3;
	const size_t mlen = 192;
	uint8_t pa[192], pb[192], k1[192], k2[192], k3[192];
	struct hip_dh *a = NULL, *b = NULL;
	bool short_peer = false, short_kij = false;
	size_t skip;

	ck_assert_int_eq(hip_dh_generate(g, &a), 0);
	ck_assert_int_eq(hip_dh_public(a, pa, mlen), 0);
	for (int n = 0; n < 20000 && !(short_peer && short_kij); n++) {
		ck_assert_int_eq(hip_dh_generate(g, &b), 0);
		ck_assert_int_eq(hip_dh_public(b, pb, mlen), 0);
		ck_assert_int_eq(hip_dh_derive(a, pb, mlen, k1, mlen), 0);
		if (pb[0] == 0) {
			for (skip = 0; pb[skip] == 0; skip++)
				;
			ck_assert_int_eq(hip_dh_derive(a, pb + skip, mlen - skip, k2, mlen), 0);
			ck_assert_mem_eq(k1, k2, mlen);
			short_peer = true;
		}
		if (k1[0] == 0) {
			ck_assert_int_eq(hip_dh_derive(b, pa, mlen, k3, mlen), 0);
			ck_assert_mem_eq(k1, k3, mlen);
			short_kij = true;
		}
		hip_dh_free(b);
	}
	ck_assert(short_peer);
	ck_assert(short_kij);
	hip_dh_free(a);
}
END_TEST

/* The ECDH x-coordinate keeps its leading zero bytes too (group 7). */
START_TEST(test_ecdh_kij_leading_zero)
{
	uint8_t pa[64], pb[64], k1[32], k2[32];
	struct hip_dh *a = NULL, *b = NULL;
	bool seen = false;

	ck_assert_int_eq(hip_dh_generate(7, &a), 0);
	ck_assert_int_eq(hip_dh_public(a, pa, 64), 0);
	for (int n = 0; n < 20000 && !seen; n++) {
		ck_assert_int_eq(hip_dh_generate(7, &b), 0);
		ck_assert_int_eq(hip_dh_public(b, pb, 64), 0);
		ck_assert_int_eq(hip_dh_derive(a, pb, 64, k1, 32), 0);
		if (k1[0] == 0) {
			ck_assert_int_eq(hip_dh_derive(b, pa, 64, k2, 32), 0);
			ck_assert_mem_eq(k1, k2, 32);
			seen = true;
		}
		hip_dh_free(b);
	}
	ck_assert(seen);
	hip_dh_free(a);
}
END_TEST

/* ECDH peer values: exact x | y length, on the curve (groups 7, 8). */
START_TEST(test_ecdh_rejects)
{
	uint8_t g = _i == 0 ? 7 : 8;
	size_t pl = hip_dh_pub_len(g), sl = hip_dh_secret_len(g);
	uint8_t pb[1 + 96], k[48];
	struct hip_dh *a = NULL, *b = NULL;

	ck_assert_int_eq(hip_dh_generate(g, &a), 0);
	ck_assert_int_eq(hip_dh_generate(g, &b), 0);
	ck_assert_int_eq(hip_dh_public(b, pb + 1, pl), 0);
	for (size_t n = 0; n < pl; n++)
		ck_assert_int_eq(hip_dh_derive(a, pb + 1, n, k, sl), -EBADMSG);
	/* with the SEC1 0x04 prefix it is one byte too long */
	pb[0] = 0x04;
	ck_assert_int_eq(hip_dh_derive(a, pb, pl + 1, k, sl), -EBADMSG);
	/* x only (a compressed point's length) */
	ck_assert_int_eq(hip_dh_derive(a, pb + 1, pl / 2, k, sl), -EBADMSG);
	/* off the curve: flip a bit of y, of x */
	pb[pl] ^= 0x01;
	ck_assert_int_eq(hip_dh_derive(a, pb + 1, pl, k, sl), -EBADMSG);
	pb[pl] ^= 0x01;
	pb[1] ^= 0x40;
	ck_assert_int_eq(hip_dh_derive(a, pb + 1, pl, k, sl), -EBADMSG);
	pb[1] ^= 0x40;
	/* the all-zero point and coordinates above p */
	memset(k, 0, sizeof(k));
	{
		uint8_t z[96] = { 0 }, f[96];

		memset(f, 0xff, sizeof(f));
		ck_assert_int_eq(hip_dh_derive(a, z, pl, k, sl), -EBADMSG);
		ck_assert_int_eq(hip_dh_derive(a, f, pl, k, sl), -EBADMSG);
	}
	/* the intact value still works (the same Kij as b derives: a rejected
	 * value leaves nothing behind), and the other group's does not */
	ck_assert_int_eq(hip_dh_derive(a, pb + 1, pl, k, sl), 0);
	{
		uint8_t pa[96], kb[48];

		ck_assert_int_eq(hip_dh_public(a, pa, pl), 0);
		ck_assert_int_eq(hip_dh_derive(b, pa, pl, kb, sl), 0);
		ck_assert_mem_eq(k, kb, sl);
		/* a bad value after a good one, then the good one again */
		ck_assert_int_eq(hip_dh_derive(a, pa, pl, kb, sl), 0);
		ck_assert_mem_ne(k, kb, sl);
		pb[pl] ^= 0x01;
		ck_assert_int_eq(hip_dh_derive(a, pb + 1, pl, kb, sl), -EBADMSG);
		pb[pl] ^= 0x01;
		ck_assert_int_eq(hip_dh_derive(a, pb + 1, pl, kb, sl), 0);
		ck_assert_mem_eq(k, kb, sl);
	}
	{
		struct hip_dh *o = NULL;
		uint8_t po[96];
		uint8_t og = g == 7 ? 8 : 7;

		ck_assert_int_eq(hip_dh_generate(og, &o), 0);
		ck_assert_int_eq(hip_dh_public(o, po, hip_dh_pub_len(og)), 0);
		ck_assert_int_eq(hip_dh_derive(a, po, hip_dh_pub_len(og), k, sl), -EBADMSG);
		hip_dh_free(o);
	}
	hip_dh_free(a);
	hip_dh_free(b);
}
END_TEST

/* RFC 5903 §8.1 (256-bit) and §8.2 (384-bit) random ECP group vectors. */
static const struct {
	uint8_t group;
	const char *i, *gix, *giy, *r, *grx, *gry, *girx;
} rfc5903[] = {
	{ 7,
	  "C88F01F510D9AC3F70A292DAA2316DE544E9AAB8AFE84049C62A9C57862D1433",
	  "DAD0B65394221CF9B051E1FECA5787D098DFE637FC90B9EF945D0C3772581180",
	  "5271A0461CDB8252D61F1C456FA3E59AB1F45B33ACCF5F58389E0577B8990BB3",
	  "C6EF9C5D78AE012A011164ACB397CE2088685D8F06BF9BE0B283AB46476BEE53",
	  "D12DFB5289C8D4F81208B70270398C342296970A0BCCB74C736FC7554494BF63",
	  "56FBF3CA366CC23E8157854C13C58D6AAC23F046ADA30F8353E74F33039872AB",
	  "D6840F6B42F6EDAFD13116E0E12565202FEF8E9ECE7DCE03812464D04B9442DE" },
	{ 8,
	  "099F3C7034D4A2C699884D73A375A67F7624EF7C6B3C0F160647B67414DCE655"
	  "E35B538041E649EE3FAEF896783AB194",
	  "667842D7D180AC2CDE6F74F37551F55755C7645C20EF73E31634FE72B4C55EE6"
	  "DE3AC808ACB4BDB4C88732AEE95F41AA",
	  "9482ED1FC0EEB9CAFC4984625CCFC23F65032149E0E144ADA024181535A0F38E"
	  "EB9FCFF3C2C947DAE69B4C634573A81C",
	  "41CB0779B4BDB85D47846725FBEC3C9430FAB46CC8DC5060855CC9BDA0AA2942"
	  "E0308312916B8ED2960E4BD55A7448FC",
	  "E558DBEF53EECDE3D3FCCFC1AEA08A89A987475D12FD950D83CFA41732BC509D"
	  "0D1AC43A0336DEF96FDA41D0774A3571",
	  "DCFBEC7AACF3196472169E838430367F66EEBE3C6E70C416DD5F0C68759DD1FF"
	  "F83FA40142209DFF5EAAD96DB9E6386C",
	  "11187331C279962D93D604243FD592CB9D0A926F422E47187521287E7156C5C4"
	  "D603135569B9E9D09CF5D4A270F59746" },
};

START_TEST(test_rfc5903_known_answer)
{
	uint8_t g = rfc5903[_i].group;
	size_t f = hip_dh_secret_len(g);
	uint8_t i[48], r[48], gi[96], gr[96], gir[48], pub[96], k[48];
	struct hip_dh *di = NULL, *dr = NULL;

	ck_assert_int_eq(unit_hex(rfc5903[_i].i, i, sizeof(i)), (long)f);
	ck_assert_int_eq(unit_hex(rfc5903[_i].r, r, sizeof(r)), (long)f);
	ck_assert_int_eq(unit_hex(rfc5903[_i].gix, gi, f), (long)f);
	ck_assert_int_eq(unit_hex(rfc5903[_i].giy, gi + f, f), (long)f);
	ck_assert_int_eq(unit_hex(rfc5903[_i].grx, gr, f), (long)f);
	ck_assert_int_eq(unit_hex(rfc5903[_i].gry, gr + f, f), (long)f);
	ck_assert_int_eq(unit_hex(rfc5903[_i].girx, gir, sizeof(gir)), (long)f);

	ck_assert_int_eq(hip_dh_import_private_for_test(g, i, f, &di), 0);
	ck_assert_int_eq(hip_dh_import_private_for_test(g, r, f, &dr), 0);
	/* public values: x | y without 0x04 */
	ck_assert_int_eq(hip_dh_public(di, pub, 2 * f), 0);
	ck_assert_mem_eq(pub, gi, 2 * f);
	ck_assert_int_eq(hip_dh_public(dr, pub, 2 * f), 0);
	ck_assert_mem_eq(pub, gr, 2 * f);
	/* Kij is the x-coordinate of g^ir (RFC 5903 §7) */
	ck_assert_int_eq(hip_dh_derive(di, gr, 2 * f, k, f), 0);
	ck_assert_mem_eq(k, gir, f);
	ck_assert_int_eq(hip_dh_derive(dr, gi, 2 * f, k, f), 0);
	ck_assert_mem_eq(k, gir, f);
	hip_dh_free(di);
	hip_dh_free(dr);
}
END_TEST

START_TEST(test_bad_arguments)
{
	struct hip_dh *dh = NULL;
	uint8_t buf[64], k[32];

	ck_assert_int_eq(hip_dh_generate(7, NULL), -EINVAL);
	ck_assert_int_eq(hip_dh_generate(7, &dh), 0);
	ck_assert_int_eq(hip_dh_public(dh, buf, sizeof(buf)), 0);
	ck_assert_int_eq(hip_dh_derive(NULL, buf, 64, k, 32), -EINVAL);
	ck_assert_int_eq(hip_dh_derive(dh, NULL, 64, k, 32), -EINVAL);
	ck_assert_int_eq(hip_dh_derive(dh, buf, 64, NULL, 32), -EINVAL);
	ck_assert_int_eq(hip_dh_import_private_for_test(3, buf, 32, &dh), -EINVAL);
	ck_assert_uint_eq(hip_dh_group(NULL), 0);
	hip_dh_free(dh);
	hip_dh_free(NULL);
}
END_TEST

static Suite *dh_suite(void)
{
	Suite *s = suite_create("dh");
	TCase *tc = tcase_create("dh");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_group_registry);
	tcase_add_loop_test(tc, test_agree, 0, 4);
	tcase_add_loop_test(tc, test_modp_public_in_range, 0, 2);
	tcase_add_loop_test(tc, test_modp_rejects, 0, 2);
	tcase_add_test(tc, test_modp_leading_zeros);
	tcase_add_test(tc, test_ecdh_kij_leading_zero);
	tcase_add_loop_test(tc, test_ecdh_rejects, 0, 2);
	tcase_add_loop_test(tc, test_rfc5903_known_answer, 0, 2);
	tcase_add_test(tc, test_bad_arguments);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(dh_suite)
