/*
 * keys.c - negotiated suites, KEYMAT and the keys of each direction, and
 * the peer's Host Identity (imported once per association).
 *
 * RFC 7401 §6.5 (KEYMAT, draw order), RFC 7402 §7 (ESP keys),
 * docs/protocol.md §4,
 * A-6 (GCM key + salt), A-8 (KEYMAT Index).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "assoc.h"
#include "engine/engine_int.h"
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
	size_t enc_len, int_len, esp_enc, esp_auth, need, next = 0;
	int klen, ret;

	klen = hip_cipher_key_len(ha->hip_cipher);
	int_len = hip_rhash_len(ha->rhash);
	if (klen < 0 || int_len == 0)
		return -ENOTSUP;
	enc_len = (size_t)klen;
	ret = eng_esp_key_sizes(d, ha->esp_suite, &esp_enc, &esp_auth);
	if (ret < 0)
		return ret;
	/* Only what is drawn now (each HKDF block is an HMAC); later draws
	 * (rekeys) expand from the PRK kept below. */
	need = 2 * (enc_len + int_len) + 2 * (esp_enc + esp_auth);
	if (need > sizeof(keymat))
		return -ENOTSUP;
	ret = hip_keymat(ha->rhash, ha->puzzle_i, ha->puzzle_j, ha->puzzle_len,
			 kij, kij_len, hit_i->b, hit_r->b, keymat, need);
	if (ret < 0)
		goto out;
	ret = hip_keymat_draw_hip(keymat, need, enc_len, int_len, &ha->hip_keys, &next);
	if (ret < 0)
		goto out;
	ret = hip_keymat_draw_esp(keymat, need, next, esp_enc, esp_auth, &ha->esp_keys);
	if (ret < 0)
		goto out;
	ha->keymat_index = (uint16_t)next;
	/* Rekeys without DH continue this KEYMAT (update_rekey.c). */
	eng_keep_prk(ha, kij, kij_len);
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
 * association is reused when the wire bytes are identical; otherwise
 * (also once the association has let its imported key go) the HOST_ID is
 * imported and checked in full. */
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
	ret = eng_hi_import(d, hid->algorithm, hid->hi, hid->hi_len, &hi);
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

/* Importing a key (the point's check, OpenSSL's key and signature
 * contexts) costs 10 us hot and 30-70 us as it happens in a base exchange,
 * with cold caches: as much as a signature check. Peers come back (a new
 * exchange after CLOSE, a CLOSE or UPDATE verified with the kept octets),
 * so the last ENG_HI_CACHE keys stay imported. Keyed by the exact octets,
 * which are also what the HIT is checked against, so a hit is the key an
 * import would give. Least recently used goes first. */
int eng_hi_import(struct hipd *d, uint16_t algorithm, const uint8_t *wire, size_t len,
		  struct hip_hi **out)
{
	struct hipd_engine *e = d->engine;
	struct eng_hi_cached *c, *victim = NULL;
	const uint8_t *w;
	size_t wl;
	unsigned i;
	int ret;

	*out = NULL;
	for (i = 0; i < ENG_HI_CACHE; i++) {
		c = &e->hi_cache[i];
		/* an empty slot's used is 0: it goes before any key */
		if (!victim || c->used < victim->used)
			victim = c;
		if (!c->hi)
			continue;
		w = hip_hi_wire(c->hi, &wl);
		if (hip_hi_algorithm(c->hi) == algorithm && wl == len && memcmp(w, wire, len) == 0) {
			c->used = ++e->hi_cache_tick;
			e->hi_cache_hits++;
			*out = hip_hi_ref(c->hi);
			return 0;
		}
	}
	e->hi_cache_misses++;
	ret = hip_hi_from_wire(algorithm, wire, len, out);
	if (ret < 0)
		return ret;
	hip_hi_free(victim->hi);
	victim->hi = hip_hi_ref(*out);
	victim->used = ++e->hi_cache_tick;
	return 0;
}

void eng_hi_cache_free(struct hipd *d)
{
	struct hipd_engine *e = d->engine;
	unsigned i;

	for (i = 0; i < ENG_HI_CACHE; i++) {
		hip_hi_free(e->hi_cache[i].hi);
		e->hi_cache[i].hi = NULL;
		e->hi_cache[i].used = 0;
	}
}

/* Memory: an imported public key costs about 3 KiB of OpenSSL heap, the
 * HI's octets 67 bytes (P-256). The association keeps the octets and holds
 * an imported key only during the base exchange (R1 to R2 at the
 * Initiator; none past the I2 at the Responder): the few later packets
 * that need it (CLOSE, CLOSE_ACK, NOTIFY, UPDATE) take it from the cache
 * of recent imports (eng_hi_import), or import it again. */
int eng_peer_hi_keep(struct hip_ha *ha, const struct hip_hi *hi)
{
	const uint8_t *wire;
	size_t len;
	uint8_t *copy;

	wire = hip_hi_wire(hi, &len);
	if (!wire || len == 0 || len > UINT16_MAX)
		return -EINVAL;
	if (ha->peer_hi_wire && ha->peer_hi_alg == hip_hi_algorithm(hi) &&
	    ha->peer_hi_len == len && memcmp(ha->peer_hi_wire, wire, len) == 0)
		return 0;
	copy = malloc(len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, wire, len);
	free(ha->peer_hi_wire);
	ha->peer_hi_wire = copy;
	ha->peer_hi_alg = hip_hi_algorithm(hi);
	ha->peer_hi_len = (uint16_t)len;
	return 0;
}

void eng_peer_hi_release(struct hip_ha *ha)
{
	hip_hi_free(ha->peer_hi);
	ha->peer_hi = NULL;
}

int eng_peer_key(struct hipd *d, const struct hip_ha *ha, const struct hip_hi **hi,
		 struct hip_hi **tmp)
{
	int ret;

	*tmp = NULL;
	*hi = ha->peer_hi;
	if (*hi)
		return 0;
	if (!ha->peer_hi_wire)
		return -ENOENT;
	ret = eng_hi_import(d, ha->peer_hi_alg, ha->peer_hi_wire, ha->peer_hi_len, tmp);
	if (ret < 0)
		return ret;
	*hi = *tmp;
	return 0;
}

int eng_verify_peer_signature(struct hipd *d, const struct eng_rx *rx, const struct hip_ha *ha)
{
	const struct hip_hi *hi;
	struct hip_hi *tmp;
	int ret;

	if (eng_peer_key(d, ha, &hi, &tmp) < 0)
		return eng_drop(d, rx, HIPD_DROP_WRONG_STATE, "no peer key");
	ret = hip_verify_signature(rx->pkt, HIP_COVER_SIGNATURE, hi);
	hip_hi_free(tmp);
	if (ret == -ENOENT)
		return eng_drop(d, rx, HIPD_DROP_MISSING_PARAM, "HIP_SIGNATURE");
	if (ret < 0)
		return eng_drop(d, rx, HIPD_DROP_BAD_SIGNATURE, NULL);
	return 0;
}

/* The Initiator's ECDH key generation (about 100 us for P-256) is on the
 * critical path between R1 and I2; made beforehand, in the loop's idle
 * time after an I1 or an I2 went out, it is not. */
static void dh_spare_fill(struct hip_loop *loop, uint64_t timer, void *arg)
{
	struct hipd *d = arg;
	struct hipd_engine *e = d->engine;
	unsigned i;

	(void)loop;
	if (e->dh_spare_timer != timer)
		return;
	e->dh_spare_timer = 0;
	for (i = 0; i < ENG_DH_SPARES; i++) {
		if (e->dh_spare_group[i] && !e->dh_spare[i] &&
		    hip_dh_generate(e->dh_spare_group[i], &e->dh_spare[i]) < 0)
			e->dh_spare[i] = NULL;   /* made on demand instead */
	}
}

void eng_dh_spare_want(struct hipd *d, uint8_t group)
{
	struct hipd_engine *e = d->engine;
	unsigned i, slot = ENG_DH_SPARES;

	if (!hip_dh_group_supported(group))
		return;
	for (i = 0; i < ENG_DH_SPARES; i++) {
		if (e->dh_spare_group[i] == group) {
			if (e->dh_spare[i])
				return;
			slot = i;
			break;
		}
		if (!e->dh_spare_group[i] && slot == ENG_DH_SPARES)
			slot = i;
	}
	if (slot == ENG_DH_SPARES)
		return;
	e->dh_spare_group[slot] = group;
	if (!e->dh_spare_timer)
		e->dh_spare_timer = hip_loop_timer_add(d->loop, 0, dh_spare_fill, d);
}

int eng_dh_take(struct hipd *d, uint8_t group, struct hip_dh **out)
{
	struct hipd_engine *e = d->engine;
	unsigned i;
	int ret = 0;

	*out = NULL;
	for (i = 0; i < ENG_DH_SPARES; i++) {
		if (e->dh_spare_group[i] == group && e->dh_spare[i]) {
			*out = e->dh_spare[i];
			e->dh_spare[i] = NULL;
			break;
		}
	}
	if (!*out)
		ret = hip_dh_generate(group, out);
	if (ret == 0)
		eng_dh_spare_want(d, group);
	return ret;
}

void eng_dh_spares_free(struct hipd *d)
{
	struct hipd_engine *e = d->engine;
	unsigned i;

	if (e->dh_spare_timer)
		hip_loop_timer_cancel(d->loop, e->dh_spare_timer);
	e->dh_spare_timer = 0;
	for (i = 0; i < ENG_DH_SPARES; i++) {
		hip_dh_free(e->dh_spare[i]);
		e->dh_spare[i] = NULL;
		e->dh_spare_group[i] = 0;
	}
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

/* PRK = HMAC-RHASH(#I | #J, Kij): the HKDF extract of the KEYMAT
 * (RFC 7401 §6.5; docs/protocol.md). */
int eng_keymat_prk(const struct hip_ha *ha, const uint8_t *kij, size_t kij_len, uint8_t *prk)
{
	uint8_t salt[2 * HIP_RHASH_MAX];
	struct iovec iov = { .iov_base = (void *)kij, .iov_len = kij_len };
	int ret;

	if (ha->puzzle_len == 0 || ha->puzzle_len > HIP_RHASH_MAX)
		return -EINVAL;
	memcpy(salt, ha->puzzle_i, ha->puzzle_len);
	memcpy(salt + ha->puzzle_len, ha->puzzle_j, ha->puzzle_len);
	ret = hip_hmacv(ha->rhash, salt, 2 * ha->puzzle_len, &iov, 1, prk);
	hip_wipe(salt, sizeof(salt));
	return ret;
}

void eng_keep_prk(struct hip_ha *ha, const uint8_t *kij, size_t kij_len)
{
	/* Without it a later rekey simply carries a DH. */
	ha->upd_have_prk = eng_keymat_prk(ha, kij, kij_len, ha->upd_prk) == 0;
}
