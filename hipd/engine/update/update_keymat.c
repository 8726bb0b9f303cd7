/*
 * update_keymat.c - KEYMAT past the base exchange (RFC 7401 §6.5, RFC 7402
 * §7): HKDF-Expand from the kept PRK at any index, and one SA pair's ESP
 * keys drawn from it. Rekeys (update_rekey.c) and the LSI pair
 * (update_lsi.c) draw here.
 */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "hit.h"
#include "base/base.h"
#include "update_int.h"

int upd_keymat_expand(const struct hip_ha *ha, const uint8_t *prk, size_t index,
		      uint8_t *out, size_t len)
{
	size_t md = hip_rhash_len(ha->rhash), pos = 0, end = index + len, n;
	uint8_t info[32], t[HIP_RHASH_MAX], ctr;
	struct iovec iov[3];
	int ret = 0;

	if (md == 0 || end > 255 * md)
		return -ERANGE;
	/* info = sort(HIT-I | HIT-R): the smaller HIT first. */
	if (hip_hit_cmp(&ha->hit_local, &ha->hit_peer) < 0) {
		memcpy(info, ha->hit_local.b, 16);
		memcpy(info + 16, ha->hit_peer.b, 16);
	} else {
		memcpy(info, ha->hit_peer.b, 16);
		memcpy(info + 16, ha->hit_local.b, 16);
	}
	/* T(i) = HMAC(PRK, T(i-1) | info | i); only the blocks up to end. */
	for (ctr = 1; pos < end; ctr++) {
		iov[0].iov_base = t;
		iov[0].iov_len = ctr > 1 ? md : 0;
		iov[1].iov_base = info;
		iov[1].iov_len = sizeof(info);
		iov[2].iov_base = &ctr;
		iov[2].iov_len = 1;
		ret = hip_hmacv(ha->rhash, prk, md, iov, 3, t);
		if (ret < 0)
			break;
		for (n = 0; n < md && pos < end; n++, pos++)
			if (pos >= index)
				out[pos - index] = t[n];
	}
	hip_wipe(t, sizeof(t));
	return ret;
}

/* ESP keys at index of the KEYMAT of prk (RFC 7402 §7, A-11). */
int upd_esp_keys_at(const struct hipd *d, const struct hip_ha *ha, const uint8_t *prk,
		    size_t index, struct hip_esp_keys *out)
{
	uint8_t km[4 * HIP_KEY_MAX];
	size_t enc, auth, draw;
	int ret;

	ret = eng_esp_key_sizes(d, ha->esp_suite, &enc, &auth);
	if (ret < 0)
		return ret;
	draw = 2 * (enc + auth);
	ret = upd_keymat_expand(ha, prk, index, km, draw);
	if (ret == 0)
		ret = hip_keymat_draw_esp(km, draw, 0, enc, auth, out);
	hip_wipe(km, sizeof(km));
	return ret;
}

size_t upd_esp_draw1(const struct hipd *d, const struct hip_ha *ha)
{
	size_t enc, auth;

	if (eng_esp_key_sizes(d, ha->esp_suite, &enc, &auth) < 0)
		return 0;
	return 2 * (enc + auth);
}
