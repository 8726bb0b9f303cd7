/*
 * params_bex.c - base exchange parameters (RFC 7401 §5.2, RFC 7402 §5.1,
 * RFC 5770 NAT_TRAVERSAL_MODE / TRANSACTION_PACING).
 *
 * Decoders check the contents length first and read through (c, len) only;
 * builders refuse values the decoders would reject (sticky -EINVAL).
 */
#include <errno.h>
#include <string.h>

#include "params.h"

static void build_fail(struct hip_builder *b, int err)
{
	if (!b->err)
		b->err = err;
}

static bool rhash_len_valid(size_t n)
{
	return n == 20 || n == 32 || n == 48;
}

/* ---- ESP_INFO (65), RFC 7402 §5.1.1 ---- */

int hip_esp_info_decode(const uint8_t *c, size_t len, struct hip_esp_info *out)
{
	if (len != HIP_LEN_ESP_INFO)
		return -EBADMSG;
	out->keymat_index = hip_rd16(c + 2);
	out->old_spi = hip_rd32(c + 4);
	out->new_spi = hip_rd32(c + 8);
	return 0;
}

void hip_esp_info_build(struct hip_builder *b, const struct hip_esp_info *v)
{
	hip_build_begin(b, HIP_PARAM_ESP_INFO);
	hip_build_put_u16(b, 0);
	hip_build_put_u16(b, v->keymat_index);
	hip_build_put_u32(b, v->old_spi);
	hip_build_put_u32(b, v->new_spi);
	hip_build_end(b);
}

/* ---- LSI_ESP_INFO (32800), hipd's own (docs/decisions.md D-22) ---- */

int hip_lsi_esp_info_decode(const uint8_t *c, size_t len, struct hip_lsi_esp_info *out)
{
	if (len != HIP_LEN_LSI_ESP_INFO)
		return -EBADMSG;
	memcpy(&out->sender_lsi.s_addr, c, 4);
	memcpy(&out->receiver_lsi.s_addr, c + 4, 4);
	out->spi = hip_rd32(c + 8);
	if (!out->sender_lsi.s_addr || !out->receiver_lsi.s_addr || out->spi < HIP_SPI_MIN)
		return -EINVAL;
	return 0;
}

void hip_lsi_esp_info_build(struct hip_builder *b, const struct hip_lsi_esp_info *v)
{
	if (!v->sender_lsi.s_addr || !v->receiver_lsi.s_addr || v->spi < HIP_SPI_MIN) {
		build_fail(b, -EINVAL);
		return;
	}
	hip_build_begin(b, HIP_PARAM_LSI_ESP_INFO);
	hip_build_put(b, &v->sender_lsi.s_addr, 4);
	hip_build_put(b, &v->receiver_lsi.s_addr, 4);
	hip_build_put_u32(b, v->spi);
	hip_build_end(b);
}

/* ---- R1_COUNTER (129), §5.2.3: echoed verbatim, Reserved included ---- */

int hip_r1_counter_decode(const uint8_t *c, size_t len, struct hip_r1_counter *out)
{
	if (len != HIP_LEN_R1_COUNTER)
		return -EBADMSG;
	memcpy(out->raw, c, HIP_LEN_R1_COUNTER);
	out->counter = hip_rd64(c + 4);
	return 0;
}

void hip_r1_counter_build(struct hip_builder *b, const struct hip_r1_counter *v)
{
	hip_build_param(b, HIP_PARAM_R1_COUNTER, v->raw, HIP_LEN_R1_COUNTER);
}

void hip_r1_counter_set(struct hip_r1_counter *v, uint64_t counter)
{
	memset(v->raw, 0, sizeof(v->raw));
	hip_wr64(v->raw + 4, counter);
	v->counter = counter;
}

/* ---- PUZZLE (257) §5.2.4, SOLUTION (321) §5.2.5 ---- */

int hip_puzzle_decode(const uint8_t *c, size_t len, size_t rhash_len, struct hip_puzzle *out)
{
	if (!rhash_len_valid(rhash_len))
		return -EINVAL;
	if (len != HIP_LEN_PUZZLE_FIXED + rhash_len)
		return -EBADMSG;
	out->k = c[0];
	out->lifetime = c[1];
	memcpy(&out->opaque, c + 2, 2);
	memcpy(out->i, c + 4, rhash_len);
	out->i_len = (uint8_t)rhash_len;
	return 0;
}

void hip_puzzle_build(struct hip_builder *b, const struct hip_puzzle *v)
{
	if (!rhash_len_valid(v->i_len)) {
		build_fail(b, -EINVAL);
		return;
	}
	hip_build_begin(b, HIP_PARAM_PUZZLE);
	hip_build_put_u8(b, v->k);
	hip_build_put_u8(b, v->lifetime);
	hip_build_put(b, &v->opaque, 2);
	hip_build_put(b, v->i, v->i_len);
	hip_build_end(b);
}

int hip_solution_decode(const uint8_t *c, size_t len, size_t rhash_len, struct hip_solution *out)
{
	if (!rhash_len_valid(rhash_len))
		return -EINVAL;
	if (len != HIP_LEN_SOLUTION_FIXED + 2 * rhash_len)
		return -EBADMSG;
	out->k = c[0];
	out->reserved = c[1];
	memcpy(&out->opaque, c + 2, 2);
	memcpy(out->i, c + 4, rhash_len);
	memcpy(out->j, c + 4 + rhash_len, rhash_len);
	out->ij_len = (uint8_t)rhash_len;
	return 0;
}

void hip_solution_build(struct hip_builder *b, const struct hip_solution *v)
{
	if (!rhash_len_valid(v->ij_len)) {
		build_fail(b, -EINVAL);
		return;
	}
	hip_build_begin(b, HIP_PARAM_SOLUTION);
	hip_build_put_u8(b, v->k);
	hip_build_put_u8(b, v->reserved);
	hip_build_put(b, &v->opaque, 2);
	hip_build_put(b, v->i, v->ij_len);
	hip_build_put(b, v->j, v->ij_len);
	hip_build_end(b);
}

/* ---- one-byte lists: DH_GROUP_LIST (511) §5.2.6, HIT_SUITE_LIST (715) §5.2.10 ---- */

static int u8_list_decode(const uint8_t *c, size_t len, struct hip_u8_list *out)
{
	size_t i;

	if (len == 0)
		return -EBADMSG;
	out->n = len < HIP_LIST_MAX ? (unsigned)len : HIP_LIST_MAX;
	for (i = 0; i < out->n; i++)
		out->v[i] = c[i];
	return 0;
}

static bool u8_list_valid(const struct hip_u8_list *v)
{
	return v->n >= 1 && v->n <= HIP_LIST_MAX;
}

int hip_dh_group_list_decode(const uint8_t *c, size_t len, struct hip_u8_list *out)
{
	return u8_list_decode(c, len, out);
}

void hip_dh_group_list_build(struct hip_builder *b, const struct hip_u8_list *v)
{
	if (!u8_list_valid(v)) {
		build_fail(b, -EINVAL);
		return;
	}
	hip_build_param(b, HIP_PARAM_DH_GROUP_LIST, v->v, v->n);
}

int hip_hit_suite_list_decode(const uint8_t *c, size_t len, struct hip_u8_list *out)
{
	size_t i;
	int err;

	/* §5.2.10: the lower nibble MUST be zero; every byte is checked, also
	 * those past HIP_LIST_MAX that are not kept. */
	for (i = 0; i < len; i++)
		if (c[i] & 0x0f)
			return -EBADMSG;
	err = u8_list_decode(c, len, out);
	if (err)
		return err;
	for (i = 0; i < out->n; i++)
		out->v[i] >>= 4;
	return 0;
}

void hip_hit_suite_list_build(struct hip_builder *b, const struct hip_u8_list *v)
{
	unsigned i;

	if (!u8_list_valid(v)) {
		build_fail(b, -EINVAL);
		return;
	}
	for (i = 0; i < v->n; i++) {
		if (v->v[i] == 0 || v->v[i] > 0x0f) {
			build_fail(b, -EINVAL);
			return;
		}
	}
	hip_build_begin(b, HIP_PARAM_HIT_SUITE_LIST);
	for (i = 0; i < v->n; i++)
		hip_build_put_u8(b, (uint8_t)(v->v[i] << 4));
	hip_build_end(b);
}

/* ---- u16 lists: HIP_CIPHER (579), TRANSPORT_FORMAT_LIST (2049), and after
 * two reserved bytes ESP_TRANSFORM (4095) and NAT_TRAVERSAL_MODE (608) ---- */

static int u16_list_decode(const uint8_t *c, size_t len, size_t skip, struct hip_u16_list *out)
{
	size_t i, n;

	if (len < skip + 2 || (len - skip) % 2)
		return -EBADMSG;
	n = (len - skip) / 2;
	out->n = n < HIP_LIST_MAX ? (unsigned)n : HIP_LIST_MAX;
	for (i = 0; i < out->n; i++)
		out->v[i] = hip_rd16(c + skip + 2 * i);
	return 0;
}

static void u16_list_build(struct hip_builder *b, uint16_t type, bool reserved,
			   const struct hip_u16_list *v)
{
	unsigned i;

	if (v->n < 1 || v->n > HIP_LIST_MAX) {
		build_fail(b, -EINVAL);
		return;
	}
	hip_build_begin(b, type);
	if (reserved)
		hip_build_put_u16(b, 0);
	for (i = 0; i < v->n; i++)
		hip_build_put_u16(b, v->v[i]);
	hip_build_end(b);
}

int hip_hip_cipher_decode(const uint8_t *c, size_t len, struct hip_u16_list *out)
{
	return u16_list_decode(c, len, 0, out);
}

void hip_hip_cipher_build(struct hip_builder *b, const struct hip_u16_list *v)
{
	u16_list_build(b, HIP_PARAM_HIP_CIPHER, false, v);
}

int hip_transport_format_list_decode(const uint8_t *c, size_t len, struct hip_u16_list *out)
{
	return u16_list_decode(c, len, 0, out);
}

void hip_transport_format_list_build(struct hip_builder *b, const struct hip_u16_list *v)
{
	u16_list_build(b, HIP_PARAM_TRANSPORT_FORMAT_LIST, false, v);
}

int hip_esp_transform_decode(const uint8_t *c, size_t len, struct hip_u16_list *out)
{
	return u16_list_decode(c, len, HIP_LEN_ESP_TRANSFORM_FIXED, out);
}

void hip_esp_transform_build(struct hip_builder *b, const struct hip_u16_list *v)
{
	u16_list_build(b, HIP_PARAM_ESP_TRANSFORM, true, v);
}

int hip_nat_traversal_mode_decode(const uint8_t *c, size_t len, struct hip_u16_list *out)
{
	return u16_list_decode(c, len, HIP_LEN_NAT_MODE_FIXED, out);
}

void hip_nat_traversal_mode_build(struct hip_builder *b, const struct hip_u16_list *v)
{
	u16_list_build(b, HIP_PARAM_NAT_TRAVERSAL_MODE, true, v);
}

/* ---- DIFFIE_HELLMAN (513) §5.2.7: exactly one group/value pair ---- */

int hip_dh_param_decode(const uint8_t *c, size_t len, struct hip_dh_param *out)
{
	uint16_t pub_len;

	if (len < HIP_LEN_DH_FIXED + 1)
		return -EBADMSG;
	pub_len = hip_rd16(c + 1);
	if (pub_len == 0 || (size_t)HIP_LEN_DH_FIXED + pub_len != len)
		return -EBADMSG;
	out->group = c[0];
	out->pub_len = pub_len;
	out->pub = c + HIP_LEN_DH_FIXED;
	return 0;
}

void hip_dh_param_build(struct hip_builder *b, uint8_t group, const uint8_t *pub, size_t pub_len)
{
	if (!pub || pub_len == 0 || pub_len > UINT16_MAX) {
		build_fail(b, -EINVAL);
		return;
	}
	hip_build_begin(b, HIP_PARAM_DIFFIE_HELLMAN);
	hip_build_put_u8(b, group);
	hip_build_put_u16(b, (uint16_t)pub_len);
	hip_build_put(b, pub, pub_len);
	hip_build_end(b);
}

/* ---- TRANSACTION_PACING (610), RFC 5770: Min Ta in ms ---- */

int hip_transaction_pacing_decode(const uint8_t *c, size_t len, uint32_t *min_ta)
{
	return hip_u32_param_decode(c, len, min_ta);
}

void hip_transaction_pacing_build(struct hip_builder *b, uint32_t min_ta)
{
	hip_u32_param_build(b, HIP_PARAM_TRANSACTION_PACING, min_ta);
}

/* ---- ENCRYPTED (641) §5.2.18: Reserved(4) | IV | ciphertext ---- */

int hip_encrypted_decode(const uint8_t *c, size_t len, struct hip_encrypted *out)
{
	if (len < HIP_LEN_ENCRYPTED_FIXED + 1)
		return -EBADMSG;
	out->data = c + HIP_LEN_ENCRYPTED_FIXED;
	out->len = len - HIP_LEN_ENCRYPTED_FIXED;
	return 0;
}

void hip_encrypted_build(struct hip_builder *b, const uint8_t *data, size_t len)
{
	if (!data || len == 0) {
		build_fail(b, -EINVAL);
		return;
	}
	hip_build_begin(b, HIP_PARAM_ENCRYPTED);
	hip_build_put_u32(b, 0);
	hip_build_put(b, data, len);
	hip_build_end(b);
}

/* ---- HOST_ID (705) §5.2.9 ---- */

int hip_host_id_decode(const uint8_t *c, size_t len, struct hip_host_id *out)
{
	uint16_t hi_len, di_word, di_len;
	uint8_t di_type;

	if (len < HIP_LEN_HOST_ID_FIXED)
		return -EBADMSG;
	hi_len = hip_rd16(c);
	di_word = hip_rd16(c + 2);
	di_type = (uint8_t)(di_word >> 12);
	di_len = di_word & 0x0fff;
	/* RB-05: HI and DI lengths must add up to the TLV Length exactly. */
	if (hi_len == 0 || di_type > HIP_DI_NAI || (di_type == HIP_DI_NONE && di_len))
		return -EBADMSG;
	if ((size_t)HIP_LEN_HOST_ID_FIXED + hi_len + di_len != len)
		return -EBADMSG;
	out->algorithm = hip_rd16(c + 4);
	out->hi_len = hi_len;
	out->hi = c + HIP_LEN_HOST_ID_FIXED;
	out->di_type = di_type;
	out->di_len = di_len;
	out->di = di_len ? c + HIP_LEN_HOST_ID_FIXED + hi_len : NULL;
	return 0;
}

void hip_host_id_build(struct hip_builder *b, const struct hip_host_id *v)
{
	if (!v->hi || v->hi_len == 0 || v->di_type > HIP_DI_NAI || v->di_len > 0x0fff ||
	    (v->di_type == HIP_DI_NONE && v->di_len) || (v->di_len && !v->di)) {
		build_fail(b, -EINVAL);
		return;
	}
	hip_build_begin(b, HIP_PARAM_HOST_ID);
	hip_build_put_u16(b, v->hi_len);
	hip_build_put_u16(b, (uint16_t)(v->di_type << 12 | v->di_len));
	hip_build_put_u16(b, v->algorithm);
	hip_build_put(b, v->hi, v->hi_len);
	hip_build_put(b, v->di, v->di_len);
	hip_build_end(b);
}

/* ---- HIP_MAC / HIP_MAC_2 / RVS_HMAC / RELAY_HMAC: the full HMAC ---- */

int hip_mac_decode(const uint8_t *c, size_t len, size_t mac_len, struct hip_opaque *out)
{
	if (!rhash_len_valid(mac_len))
		return -EINVAL;
	if (len != mac_len)
		return -EBADMSG;
	out->data = c;
	out->len = len;
	return 0;
}

/* ---- HIP_SIGNATURE (61697) / HIP_SIGNATURE_2 (61633) §5.2.14-15 ---- */

int hip_signature_decode(const uint8_t *c, size_t len, struct hip_signature *out)
{
	if (len < HIP_LEN_SIG_FIXED + 1)
		return -EBADMSG;
	out->algorithm = hip_rd16(c);
	out->sig = c + HIP_LEN_SIG_FIXED;
	out->len = len - HIP_LEN_SIG_FIXED;
	return 0;
}
