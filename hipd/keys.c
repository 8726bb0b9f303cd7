/*
 * keys.c - negotiated suites, KEYMAT and the keys of each direction, and
 * the peer's Host Identity (imported once per association).
 *
 * RFC 7401 §6.5 (KEYMAT, draw order), RFC 7402 §7 (ESP keys), spec.md §1.9,
 * A-6 (GCM key + salt), A-8 (KEYMAT Index).
 */
#include <errno.h>
#include <string.h>

#include "engine_int.h"
#include "hit.h"

bool eng_u8_in(const uint8_t *v, size_t n, uint8_t x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

bool eng_u16_in(const uint16_t *v, size_t n, uint16_t x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* Encryption slot (key, plus salt for AEAD) and authentication key sizes
 * per ESP suite (RFC 7402 §5.1.2, A-6). NULL (7) only if configured. */
int eng_esp_key_sizes(const struct hipd *d, uint16_t suite, size_t *enc, size_t *auth)
{
	switch (suite) {
	case HIP_ESP_AES_GCM_16:
	case HIP_ESP_AES_GCM_8:
		*enc = 16 + 4;
		*auth = 0;
		return 0;
	case HIP_ESP_AES128_CBC_SHA256:
		*enc = 16;
		*auth = 32;
		return 0;
	case HIP_ESP_AES256_CBC_SHA256:
		*enc = 32;
		*auth = 32;
		return 0;
	case HIP_ESP_AES128_CBC_SHA1:
		*enc = 16;
		*auth = 20;
		return 0;
	case HIP_ESP_NULL_SHA256:
		if (!d->conf.allow_null_cipher)
			return -ENOTSUP;
		*enc = 0;
		*auth = 32;
		return 0;
	default:
		return -ENOTSUP;
	}
}

/* §5.2.8: NULL-ENCRYPT only when configured for testing (C-13). */
bool eng_hip_cipher_ok(const struct hipd *d, uint16_t id)
{
	if (!eng_u16_in(d->conf.hip_ciphers, d->conf.n_hip_ciphers, id))
		return false;
	if (id == HIP_CIPHER_NULL && !d->conf.allow_null_cipher)
		return false;
	return hip_cipher_key_len(id) >= 0;
}

size_t eng_keymat_esp_index(uint16_t hip_cipher, enum hip_rhash h)
{
	int klen = hip_cipher_key_len(hip_cipher);

	if (klen < 0)
		return 0;
	return 2 * ((size_t)klen + hip_rhash_len(h));
}

int eng_derive_keys(const struct hipd *d, struct hip_ha *ha,
		    const uint8_t *kij, size_t kij_len, const struct hip_hit *hit_i,
		    const struct hip_hit *hit_r)
{
	uint8_t keymat[ENG_KEYMAT_LEN];
	size_t enc_len, int_len, esp_enc, esp_auth, next = 0;
	int klen, ret;

	klen = hip_cipher_key_len(ha->hip_cipher);
	int_len = hip_rhash_len(ha->rhash);
	if (klen < 0 || int_len == 0)
		return -ENOTSUP;
	enc_len = (size_t)klen;
	ret = eng_esp_key_sizes(d, ha->esp_suite, &esp_enc, &esp_auth);
	if (ret < 0)
		return ret;
	ret = hip_keymat(ha->rhash, ha->puzzle_i, ha->puzzle_j, ha->puzzle_len,
			 kij, kij_len, hit_i->b, hit_r->b, keymat, sizeof(keymat));
	if (ret < 0)
		goto out;
	ret = hip_keymat_draw_hip(keymat, sizeof(keymat), enc_len, int_len,
				  &ha->hip_keys, &next);
	if (ret < 0)
		goto out;
	ret = hip_keymat_draw_esp(keymat, sizeof(keymat), next, esp_enc, esp_auth,
				  &ha->esp_keys);
	if (ret < 0)
		goto out;
	ha->keymat_index = (uint16_t)next;
out:
	hip_wipe(keymat, sizeof(keymat));
	return ret;
}

/* HOST_g is the host with the greater HIT (§6.5): its keys are "gl". */
bool eng_local_is_greater(const struct hip_ha *ha)
{
	return hip_hit_cmp(&ha->hit_local, &ha->hit_peer) > 0;
}

const uint8_t *eng_key_out_enc(const struct hip_ha *ha)
{
	return eng_local_is_greater(ha) ? ha->hip_keys.gl_enc : ha->hip_keys.lg_enc;
}

const uint8_t *eng_key_in_enc(const struct hip_ha *ha)
{
	return eng_local_is_greater(ha) ? ha->hip_keys.lg_enc : ha->hip_keys.gl_enc;
}

const uint8_t *eng_key_out_int(const struct hip_ha *ha)
{
	return eng_local_is_greater(ha) ? ha->hip_keys.gl_int : ha->hip_keys.lg_int;
}

const uint8_t *eng_key_in_int(const struct hip_ha *ha)
{
	return eng_local_is_greater(ha) ? ha->hip_keys.lg_int : ha->hip_keys.gl_int;
}

/* §6.8 step 10, §6.9 step 12 (C-02): the HI must hash to the sender HIT,
 * under the suite the HIT itself names. A key already imported for this
 * association is reused when the wire bytes are identical. */
int eng_peer_hi(struct hipd *d, const struct eng_rx *rx, struct hip_ha *ha,
		const struct hip_host_id *hid, struct hip_hi **tmp_out)
{
	const struct hip_hit *sender = &rx->pkt->hit_sender;
	struct hip_hi *hi = NULL;
	struct hip_hit computed;
	const uint8_t *wire;
	size_t wire_len;
	int ret;

	*tmp_out = NULL;
	if (ha && ha->peer_hi) {
		wire = hip_hi_wire(ha->peer_hi, &wire_len);
		if (hip_hi_algorithm(ha->peer_hi) == hid->algorithm &&
		    wire_len == hid->hi_len && memcmp(wire, hid->hi, wire_len) == 0 &&
		    hip_hit_cmp(&ha->hit_peer, sender) == 0)
			return 0;  /* *tmp_out NULL: use ha->peer_hi */
	}
	ret = hip_hi_from_wire(hid->algorithm, hid->hi, hid->hi_len, &hi);
	if (ret == -ENOMEM)
		return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "out of memory importing HI");
	if (ret < 0)
		return eng_drop(d, rx, HIPD_DROP_BAD_PARAM, "HOST_ID key not usable");
	if ((unsigned)hip_hi_suite(hi) != hip_hit_suite(sender) ||
	    hip_hit_from_hi((uint8_t)hip_hi_suite(hi), hid->hi, hid->hi_len, &computed) < 0 ||
	    hip_hit_cmp(&computed, sender) != 0) {
		hip_hi_free(hi);
		return eng_drop(d, rx, HIPD_DROP_BAD_HIT, "HIT is not ORCHID(HI)");
	}
	*tmp_out = hi;
	return 0;
}

int eng_dh_derive(struct hipd *d, const struct hip_dh *dh, const uint8_t *peer,
		  size_t peer_len, uint8_t *kij, size_t kij_len)
{
	d->engine->dh_derives++;
	return hip_dh_derive(dh, peer, peer_len, kij, kij_len);
}

const struct hip_param_ref *eng_param(struct hipd *d, const struct eng_rx *rx,
				      uint16_t type, bool required, int *err)
{
	const struct hip_param_ref *p = hip_packet_find(rx->pkt, type);

	*err = 0;
	if (!p && required)
		*err = eng_drop(d, rx, HIPD_DROP_MISSING_PARAM, hip_param_name(type));
	return p;
}
