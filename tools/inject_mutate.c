/*
 * inject_mutate.c - hip-inject's packets: one builder for every HIP packet
 * type in wire order (RFC 7401 §5.3, docs/protocol.md §1), with a wrong MAC or
 * signature on request, and the mutations that break them (truncation,
 * reordering, duplicated parameters, bad checksum, random contents).
 */
#include <errno.h>
#include <string.h>

#include "coverage.h"
#include "hit.h"
#include "inject.h"

const uint8_t inj_types[INJ_TYPES] = {
	HIP_I1, HIP_R1, HIP_I2, HIP_R2, HIP_UPDATE, HIP_NOTIFY, HIP_CLOSE, HIP_CLOSE_ACK,
};

uint32_t inj_rand(struct inj_ctx *c)
{
	uint64_t x = c->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	c->rng = x;
	return (uint32_t)(x >> 32);
}

static void rand_bytes(struct inj_ctx *c, uint8_t *p, size_t n)
{
	while (n--)
		*p++ = (uint8_t)inj_rand(c);
}

/* The HOST_ID TLV as hidb.c builds it: a scratch packet, header cut off. */
static int host_id_tlv(struct inj_ctx *c)
{
	uint8_t scratch[HIP_MAX_PACKET];
	struct hip_host_id v = { .algorithm = hip_hi_algorithm(c->hi), .di_type = HIP_DI_NONE };
	struct hip_builder b;
	size_t wl;
	int n;

	v.hi = hip_hi_wire(c->hi, &wl);
	v.hi_len = (uint16_t)wl;
	hip_build_init(&b, scratch, sizeof(scratch), HIP_R1, &c->me, NULL);
	hip_host_id_build(&b, &v);
	n = hip_build_finish(&b);
	if (n < 0)
		return n;
	if ((size_t)n - HIP_HDR_LEN > sizeof(c->host_id_tlv))
		return -EMSGSIZE;
	c->host_id_tlv_len = (size_t)n - HIP_HDR_LEN;
	memcpy(c->host_id_tlv, scratch + HIP_HDR_LEN, c->host_id_tlv_len);
	return 0;
}

int inj_ctx_init(struct inj_ctx *c, const struct hip_hit *peer_hit)
{
	struct hip_dh *dh = NULL;
	const uint8_t *w;
	size_t wl;
	int ret;

	memset(c, 0, sizeof(*c));
	c->peer = *peer_hit;
	c->rhash = (enum hip_rhash)hip_hit_suite(peer_hit);
	if (hip_rhash_len(c->rhash) == 0)
		c->rhash = HIP_RHASH_SHA384;
	ret = hip_hi_generate(HIP_HI_KIND_ECDSA_P256, &c->hi);
	if (ret == 0)
		ret = hip_hi_generate(HIP_HI_KIND_ECDSA_P256, &c->other);
	if (ret < 0)
		return ret;
	w = hip_hi_wire(c->hi, &wl);
	ret = hip_hit_from_hi((uint8_t)hip_hi_suite(c->hi), w, wl, &c->me);
	if (ret == 0)
		ret = host_id_tlv(c);
	if (ret == 0)
		ret = hip_random(&c->rng, sizeof(c->rng));
	if (ret < 0)
		return ret;
	c->rng |= 1;
	rand_bytes(c, c->mac_key, sizeof(c->mac_key));
	rand_bytes(c, c->enc_key, sizeof(c->enc_key));
	c->hip_cipher = HIP_CIPHER_AES_128_CBC;
	c->esp_suite = HIP_ESP_AES_GCM_16;
	c->keymat_index = (uint16_t)(2 * (16 + hip_rhash_len(c->rhash)));
	c->spi = HIP_SPI_MIN + (inj_rand(c) >> 8);
	c->update_id = inj_rand(c);
	c->sol.ij_len = (uint8_t)hip_rhash_len(c->rhash);
	rand_bytes(c, c->sol.i, c->sol.ij_len);
	rand_bytes(c, c->sol.j, c->sol.ij_len);
	c->sol.opaque = (uint16_t)inj_rand(c);
	hip_r1_counter_set(&c->r1c, 1);
	c->echo_len = INJ_ECHO_LEN;
	rand_bytes(c, c->echo, c->echo_len);
	/* One real public value for the templates. */
	c->dh_group = HIP_DH_NIST_P256;
	c->dh_pub_len = hip_dh_pub_len(c->dh_group);
	ret = hip_dh_generate(c->dh_group, &dh);
	if (ret == 0)
		ret = hip_dh_public(dh, c->dh_pub, c->dh_pub_len);
	hip_dh_free(dh);
	return ret;
}

void inj_ctx_free(struct inj_ctx *c)
{
	hip_hi_free(c->hi);
	hip_hi_free(c->other);
	hip_wipe(c, sizeof(*c));
}

static void put_mac(struct inj_ctx *c, struct hip_builder *b, enum hip_cover_kind kind,
		    unsigned flags, const uint8_t *tlv, size_t tlv_len)
{
	uint8_t key[HIP_KEY_MAX];

	memcpy(key, c->mac_key, sizeof(key));
	if (flags & INJ_BAD_MAC)
		key[0] ^= 0x5a;
	hip_build_mac(b, kind, c->rhash, key, hip_rhash_len(c->rhash), tlv, tlv_len);
	hip_wipe(key, sizeof(key));
}

static void put_sig(struct inj_ctx *c, struct hip_builder *b, enum hip_cover_kind kind,
		    unsigned flags)
{
	hip_build_signature(b, kind, flags & INJ_BAD_SIG ? c->other : c->hi);
}

static void put_esp_info(struct inj_ctx *c, struct hip_builder *b)
{
	struct hip_esp_info ei = { c->keymat_index, 0, c->spi };

	hip_esp_info_build(b, &ei);
}

static void build_r1(struct inj_ctx *c, struct hip_builder *b, unsigned flags)
{
	static const struct hip_u8_list groups = { 4, { 7, 8, 4, 3 } }, suites = { 2, { 2, 1 } };
	static const struct hip_u16_list ciphers = { 2, { 2, 4 } }, esp = { 2, { 13, 8 } };
	static const struct hip_u16_list tf = { 1, { HIP_PARAM_ESP_TRANSFORM } };
	struct hip_puzzle pz = { .k = 0, .lifetime = 37, .opaque = c->sol.opaque };

	pz.i_len = c->sol.ij_len;
	memcpy(pz.i, c->sol.i, pz.i_len);
	hip_r1_counter_build(b, &c->r1c);
	hip_puzzle_build(b, &pz);
	hip_dh_group_list_build(b, &groups);
	hip_dh_param_build(b, c->dh_group, c->dh_pub, c->dh_pub_len);
	hip_hip_cipher_build(b, &ciphers);
	hip_build_param(b, HIP_PARAM_HOST_ID, c->host_id_tlv + HIP_TLV_HDR_LEN,
			hip_rd16(c->host_id_tlv + 2));
	hip_hit_suite_list_build(b, &suites);
	hip_transport_format_list_build(b, &tf);
	hip_esp_transform_build(b, &esp);
	put_sig(c, b, HIP_COVER_SIGNATURE_2, flags);
}

static void build_i2(struct inj_ctx *c, struct hip_builder *b, unsigned flags)
{
	struct hip_u16_list one = { .n = 1 };
	uint8_t enc[INJ_TLV_MAX + 64];
	size_t enc_len = 0;

	put_esp_info(c, b);
	if (c->have_r1c)
		hip_r1_counter_build(b, &c->r1c);
	hip_solution_build(b, &c->sol);
	hip_dh_param_build(b, c->dh_group, c->dh_pub, c->dh_pub_len);
	one.v[0] = c->hip_cipher;
	hip_hip_cipher_build(b, &one);
	if (hip_cipher_seal(c->hip_cipher, c->enc_key, c->host_id_tlv, c->host_id_tlv_len, enc,
			    sizeof(enc), &enc_len) < 0)
		b->err = b->err ? b->err : -EIO;
	hip_encrypted_build(b, enc, enc_len);
	if (c->have_echo)
		hip_echo_build(b, HIP_PARAM_ECHO_RESPONSE_SIGNED, c->echo, c->echo_len);
	one.v[0] = HIP_PARAM_ESP_TRANSFORM;
	hip_transport_format_list_build(b, &one);
	one.v[0] = c->esp_suite;
	hip_esp_transform_build(b, &one);
	put_mac(c, b, HIP_COVER_MAC, flags, NULL, 0);
	put_sig(c, b, HIP_COVER_SIGNATURE, flags);
	hip_wipe(enc, sizeof(enc));
}

int inj_build(struct inj_ctx *c, uint8_t type, unsigned flags, uint8_t *buf, size_t cap)
{
	static const struct hip_u8_list groups = { 4, { 7, 8, 4, 3 } };
	struct hip_builder b;

	hip_build_init(&b, buf, cap, type, &c->me, &c->peer);
	switch (type) {
	case HIP_I1:
		hip_dh_group_list_build(&b, &groups);
		if (flags & INJ_ECHO)
			hip_echo_build(&b, HIP_PARAM_ECHO_REQUEST_UNSIGNED, c->echo, c->echo_len);
		break;
	case HIP_R1:
		build_r1(c, &b, flags);
		break;
	case HIP_I2:
		build_i2(c, &b, flags);
		break;
	case HIP_R2:
		put_esp_info(c, &b);
		put_mac(c, &b, HIP_COVER_MAC_2, flags, c->host_id_tlv, c->host_id_tlv_len);
		put_sig(c, &b, HIP_COVER_SIGNATURE, flags);
		break;
	case HIP_UPDATE:
		hip_seq_build(&b, c->update_id++);
		put_mac(c, &b, HIP_COVER_MAC, flags, NULL, 0);
		put_sig(c, &b, HIP_COVER_SIGNATURE, flags);
		break;
	case HIP_NOTIFY:
		hip_notification_build(&b, HIP_NOTIFY_INVALID_SYNTAX, NULL, 0);
		put_sig(c, &b, HIP_COVER_SIGNATURE, flags);
		break;
	case HIP_CLOSE:
	case HIP_CLOSE_ACK:
		hip_echo_build(&b, type == HIP_CLOSE ? HIP_PARAM_ECHO_REQUEST_SIGNED :
			       HIP_PARAM_ECHO_RESPONSE_SIGNED, c->echo, c->echo_len);
		put_mac(c, &b, HIP_COVER_MAC, flags, NULL, 0);
		put_sig(c, &b, HIP_COVER_SIGNATURE, flags);
		break;
	default:
		return -EINVAL;
	}
	return hip_build_finish(&b);
}

/* ---- mutations --------------------------------------------------------- */

static void set_hdr_len(uint8_t *buf, size_t len)
{
	buf[1] = (uint8_t)(len / 8 - 1);
}

/* Swap two neighbouring parameters: the later (greater) type comes first. */
static size_t reorder(struct inj_ctx *c, uint8_t *buf, size_t len)
{
	struct hip_packet p;
	uint8_t tmp[HIP_MAX_PACKET];
	size_t a_off, a_len, b_len;
	unsigned i;

	if (hip_packet_parse(buf, len, &p) < 0 || p.nparams < 2)
		return len;
	i = inj_rand(c) % (p.nparams - 1);
	a_off = p.params[i].off;
	a_len = hip_tlv_total_len(p.params[i].len);
	b_len = hip_tlv_total_len(p.params[i + 1].len);
	memcpy(tmp, buf + a_off, a_len);
	memmove(buf + a_off, buf + a_off + a_len, b_len);
	memcpy(buf + a_off + b_len, tmp, a_len);
	return len;
}

/* Insert a copy of a non-repeatable parameter right after itself. */
static size_t duplicate(struct inj_ctx *c, uint8_t *buf, size_t len, size_t cap)
{
	struct hip_packet p;
	size_t off, tl;
	unsigned i, tries;

	if (hip_packet_parse(buf, len, &p) < 0 || p.nparams == 0)
		return len;
	for (tries = 0; tries < 8; tries++) {
		i = inj_rand(c) % p.nparams;
		off = p.params[i].off;
		tl = hip_tlv_total_len(p.params[i].len);
		if (hip_param_is_repeatable(p.params[i].type) || len + tl > cap ||
		    len + tl > HIP_MAX_PACKET)
			continue;
		memmove(buf + off + tl, buf + off, len - off);
		len += tl;
		set_hdr_len(buf, len);
		break;
	}
	return len;
}

size_t inj_mutate(struct inj_ctx *c, enum inj_mutation m, uint8_t *buf, size_t len, size_t cap,
		  const struct hip_addr *src, const struct hip_addr *dst)
{
	size_t n;

	switch (m) {
	case INJ_MUT_TRUNCATE:
		len = 1 + inj_rand(c) % (len - 1);
		/* half of them with a Header Length that matches the cut */
		if (inj_rand(c) & 1) {
			len = len < 8 ? 8 : len & ~(size_t)7;
			set_hdr_len(buf, len);
		}
		break;
	case INJ_MUT_REORDER:
		len = reorder(c, buf, len);
		break;
	case INJ_MUT_DUPLICATE:
		len = duplicate(c, buf, len, cap);
		break;
	case INJ_MUT_RANDOM:
		n = HIP_HDR_LEN + 8 * (inj_rand(c) % 64);
		if (n > cap)
			n = cap & ~(size_t)7;
		rand_bytes(c, buf + HIP_HDR_LEN, n - HIP_HDR_LEN);
		len = n;
		set_hdr_len(buf, len);
		break;
	case INJ_MUT_BADCSUM:
		break;
	}
	if (len >= HIP_HDR_LEN)
		hip_packet_set_checksum(buf, len, src, dst);
	if (m == INJ_MUT_BADCSUM)
		buf[4] ^= (uint8_t)(1 + inj_rand(c) % 255);
	return len;
}
