/*
 * bench_i2.c - see bench_i2.h.
 */
#include <errno.h>
#include <string.h>

#include "bench_i2.h"
#include "coverage.h"
#include "hit.h"
#include "params.h"

enum {
	BENCH_KIJ_MAX = 512,
	BENCH_ENC_MAX = 1024 + 64,   /* a HOST_ID TLV, IV and padding */
};

/* The first entry of the R1's list that we take (hipd's defaults). */
static uint16_t pick(const struct hip_u16_list *l, const uint16_t *ours, size_t n)
{
	for (size_t i = 0; i < l->n; i++)
		for (size_t k = 0; k < n; k++)
			if (l->v[i] == ours[k])
				return l->v[i];
	return 0;
}

int bench_identity_make(struct hip_hi **hi, struct hip_hit *hit, uint8_t *tlv, size_t cap,
			size_t *tlv_len)
{
	uint8_t scratch[HIP_MAX_PACKET];
	struct hip_host_id v = { 0 };
	struct hip_builder b;
	size_t wire_len;
	int ret, n;

	hip_hi_free(*hi);
	*hi = NULL;
	ret = hip_hi_generate(HIP_HI_KIND_ECDSA_P256, hi);
	if (ret < 0)
		return ret;
	v.algorithm = hip_hi_algorithm(*hi);
	v.hi = hip_hi_wire(*hi, &wire_len);
	if (!v.hi)
		return -EIO;
	v.hi_len = (uint16_t)wire_len;
	ret = hip_hit_from_hi((uint8_t)hip_hi_suite(*hi), v.hi, wire_len, hit);
	if (ret < 0)
		return ret;
	hip_build_init(&b, scratch, sizeof(scratch), HIP_R1, hit, NULL);
	hip_host_id_build(&b, &v);
	n = hip_build_finish(&b);
	if (n < 0 || (size_t)n - HIP_HDR_LEN > cap)
		return n < 0 ? n : -EMSGSIZE;
	*tlv_len = (size_t)n - HIP_HDR_LEN;
	memcpy(tlv, scratch + HIP_HDR_LEN, *tlv_len);
	return 0;
}

int bench_i2_build(struct hipd *d, struct hip_ha *ha, const struct hip_hit *hit_r,
		   const struct hip_packet *p, const uint8_t *host_id_tlv, size_t tlv_len,
		   struct hip_hi *hi, uint32_t spi, uint8_t *out, size_t cap)
{
	static const uint16_t ciphers[] = { HIP_CIPHER_AES_128_CBC, HIP_CIPHER_AES_256_CBC };
	static const uint16_t esps[] = { HIP_ESP_AES_GCM_16, HIP_ESP_AES128_CBC_SHA256 };
	const struct hip_param_ref *pz = hip_packet_find(p, HIP_PARAM_PUZZLE),
		*dhp = hip_packet_find(p, HIP_PARAM_DIFFIE_HELLMAN),
		*cp = hip_packet_find(p, HIP_PARAM_HIP_CIPHER),
		*ep = hip_packet_find(p, HIP_PARAM_ESP_TRANSFORM),
		*rc = hip_packet_find(p, HIP_PARAM_R1_COUNTER);
	enum hip_rhash rhash = (enum hip_rhash)hip_hit_suite(hit_r);
	uint8_t kij[BENCH_KIJ_MAX], pub[BENCH_KIJ_MAX], enc[BENCH_ENC_MAX];
	struct hip_u16_list ciph, esp, one = { .n = 1 };
	struct hip_solution sol = { 0 };
	struct hip_esp_info ei = { 0 };
	struct hip_r1_counter ctr;
	struct hip_puzzle puz;
	struct hip_dh_param dh;
	struct hip_dh *mine = NULL;
	struct hip_builder b;
	size_t kij_len, pub_len, enc_len = 0;
	int ret;

	if (!pz || !dhp || !cp || !ep ||
	    hip_puzzle_decode(hip_param_content(p, pz), pz->len, hip_rhash_len(rhash), &puz) < 0 ||
	    hip_dh_param_decode(hip_param_content(p, dhp), dhp->len, &dh) < 0 ||
	    hip_hip_cipher_decode(hip_param_content(p, cp), cp->len, &ciph) < 0 ||
	    hip_esp_transform_decode(hip_param_content(p, ep), ep->len, &esp) < 0 ||
	    (rc && hip_r1_counter_decode(hip_param_content(p, rc), rc->len, &ctr) < 0))
		return -EBADMSG;
	ha->hit_peer = *hit_r;
	ha->rhash = rhash;
	ha->hip_cipher = pick(&ciph, ciphers, 2);
	ha->esp_suite = pick(&esp, esps, 2);
	if (!ha->hip_cipher || !ha->esp_suite || puz.i_len > sizeof(ha->puzzle_i))
		return -ENOTSUP;
	ha->puzzle_len = puz.i_len;
	memcpy(ha->puzzle_i, puz.i, puz.i_len);
	ret = hip_random(sol.j, puz.i_len);
	if (ret == 0)
		ret = hip_puzzle_solve(rhash, puz.k, puz.i, ha->hit_local.b, ha->hit_peer.b, sol.j,
				       0, 0, ha->puzzle_j, NULL);
	kij_len = hip_dh_secret_len(dh.group);
	pub_len = hip_dh_pub_len(dh.group);
	if (ret == 0 && (kij_len == 0 || kij_len > sizeof(kij) || pub_len > sizeof(pub)))
		ret = -ENOTSUP;
	if (ret == 0)
		ret = hip_dh_generate(dh.group, &mine);
	if (ret == 0)
		ret = hip_dh_public(mine, pub, pub_len);
	if (ret == 0)
		ret = hip_dh_derive(mine, dh.pub, dh.pub_len, kij, kij_len);
	if (ret == 0)
		ret = eng_derive_keys(d, ha, kij, kij_len, &ha->hit_local, &ha->hit_peer);
	if (ret == 0)
		ret = hip_cipher_seal(ha->hip_cipher, eng_key_out_enc(ha), host_id_tlv, tlv_len,
				      enc, sizeof(enc), &enc_len);
	if (ret < 0)
		goto out;
	hip_build_init(&b, out, cap, HIP_I2, &ha->hit_local, &ha->hit_peer);
	ei.keymat_index = ha->keymat_index;
	ei.new_spi = spi;
	hip_esp_info_build(&b, &ei);
	if (rc)
		hip_r1_counter_build(&b, &ctr);
	sol.k = puz.k;
	sol.opaque = puz.opaque;
	sol.ij_len = puz.i_len;
	memcpy(sol.i, puz.i, puz.i_len);
	memcpy(sol.j, ha->puzzle_j, puz.i_len);
	hip_solution_build(&b, &sol);
	hip_dh_param_build(&b, dh.group, pub, pub_len);
	one.v[0] = ha->hip_cipher;
	hip_hip_cipher_build(&b, &one);
	hip_encrypted_build(&b, enc, enc_len);
	one.v[0] = HIP_PARAM_ESP_TRANSFORM;
	hip_transport_format_list_build(&b, &one);
	one.v[0] = ha->esp_suite;
	hip_esp_transform_build(&b, &one);
	hip_build_mac(&b, HIP_COVER_MAC, ha->rhash, eng_key_out_int(ha), ha->hip_keys.int_len,
		      NULL, 0);
	hip_build_signature(&b, HIP_COVER_SIGNATURE, hi);
	ret = hip_build_finish(&b);
out:
	hip_dh_free(mine);
	hip_wipe(kij, sizeof(kij));
	hip_wipe(enc, sizeof(enc));
	return ret;
}
