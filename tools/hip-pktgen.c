/*
 * hip-pktgen - write a pcap of one complete, correctly signed and MACed
 * HIPv2 exchange built with libhipcore and libcrypto-wrap:
 *   I1, R1, I2, R2 (base exchange, RFC 7401 §4.1), UPDATE (readdress with
 *   LOCATOR_SET, RFC 8046), NOTIFY, CLOSE, CLOSE_ACK (§4.1.7).
 * Keys are derived for real (DH, HKDF KEYMAT), the puzzle is really solved,
 * and every packet is parsed and verified back before it is written. Used
 * by tests/tshark.sh to check our wire format against Wireshark's dissector.
 *
 * Usage: hip-pktgen [-4|-6] [-o FILE]   (default IPv6, stdout)
 * Output: pcap, LINKTYPE_RAW (101): each record an IPv4 or IPv6 packet with
 * protocol 139 and the HIP packet as payload.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checksum.h"
#include "coverage.h"
#include "hip_crypto.h"
#include "params.h"

enum {
	LINKTYPE_RAW = 101,
	PUZZLE_K = 10,          /* about 1000 hashes: quick, but not trivial */
	PUZZLE_LIFETIME = 37,   /* 2^(37-32) = 32 s */
	KEYMAT_LEN = 256,
	ECHO_LEN = 16,
	BUF_LEN = HIP_MAX_PACKET,
	IP6_HDR_LEN = 40,
	IP4_HDR_LEN = 20,
};

struct peer {
	const char *name;
	struct hip_hi *hi;
	struct hip_hit hit;
	struct hip_addr addr;
	struct hip_dh *dh;
	uint32_t spi;                    /* inbound SPI */
	const uint8_t *mac_key, *enc_key; /* outgoing HIP keys (into keys) */
};

struct exchange {
	struct peer i, r;
	enum hip_rhash rh;               /* Responder's suite (docs/protocol.md §3-4) */
	size_t rh_len;
	struct hip_r1_counter r1c;
	uint8_t opaque[2], puzzle_i[HIP_RHASH_MAX_LEN], puzzle_j[HIP_RHASH_MAX_LEN];
	uint8_t host_id_r[BUF_LEN];      /* Responder's HOST_ID TLV as sent in R1 */
	size_t host_id_r_len;
	uint8_t echo[ECHO_LEN];
	struct hip_hip_keys keys;
	size_t keymat_index;
	FILE *out;
	unsigned nrec;
};

static const struct hip_u8_list dh_groups = { 4, { HIP_DH_NIST_P256, HIP_DH_NIST_P384,
						   HIP_DH_MODP_3072, HIP_DH_MODP_1536 } };
static const struct hip_u16_list ciphers = { 2, { HIP_CIPHER_AES_128_CBC,
						 HIP_CIPHER_AES_256_CBC } };
static const struct hip_u16_list esp_suites = { 3, { HIP_ESP_AES_GCM_16,
						    HIP_ESP_AES128_CBC_SHA256,
						    HIP_ESP_AES256_CBC_SHA256 } };
static const struct hip_u16_list transport = { 1, { HIP_PARAM_ESP_TRANSFORM } };

static int fail(const char *what, int err)
{
	fprintf(stderr, "hip-pktgen: %s: %s\n", what, strerror(err < 0 ? -err : err));
	return err < 0 ? err : -err;
}

/* ---- pcap output ------------------------------------------------------ */

static void put32le(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}

static int pcap_header(FILE *f)
{
	uint8_t h[24] = { 0 };

	put32le(h, 0xa1b2c3d4);          /* microsecond timestamps */
	h[4] = 2; h[6] = 4;              /* version 2.4, little-endian fields */
	put32le(h + 16, 65535);          /* snaplen */
	put32le(h + 20, LINKTYPE_RAW);
	return fwrite(h, sizeof(h), 1, f) == 1 ? 0 : -EIO;
}

static uint16_t ip4_header_checksum(const uint8_t *h)
{
	return (uint16_t)~hip_csum_fold(hip_csum_add(0, h, IP4_HDR_LEN));
}

/* Outer IP header: IPv4 (RFC 791) when both locators are IPv4-mapped. */
static size_t ip_header(uint8_t *h, const struct hip_addr *src, const struct hip_addr *dst,
			size_t payload, unsigned id)
{
	if (hip_addr_is_v4(src) && hip_addr_is_v4(dst)) {
		size_t tot = IP4_HDR_LEN + payload;
		uint16_t c;

		memset(h, 0, IP4_HDR_LEN);
		h[0] = 0x45;
		hip_wr16(h + 2, (uint16_t)tot);
		hip_wr16(h + 4, (uint16_t)id);
		h[6] = 0x40;                  /* DF */
		h[8] = 64;
		h[9] = HIP_PROTO;
		memcpy(h + 12, &src->in6.s6_addr[12], 4);
		memcpy(h + 16, &dst->in6.s6_addr[12], 4);
		c = ip4_header_checksum(h);
		hip_wr16(h + 10, c);
		return IP4_HDR_LEN;
	}
	memset(h, 0, IP6_HDR_LEN);
	h[0] = 0x60;
	hip_wr16(h + 4, (uint16_t)payload);
	h[6] = HIP_PROTO;
	h[7] = 64;
	memcpy(h + 8, src->in6.s6_addr, 16);
	memcpy(h + 24, dst->in6.s6_addr, 16);
	return IP6_HDR_LEN;
}

static int pcap_record(struct exchange *x, const struct hip_addr *src,
		       const struct hip_addr *dst, const uint8_t *pkt, size_t len)
{
	uint8_t rec[16], ip[IP6_HDR_LEN];
	size_t hl = ip_header(ip, src, dst, len, x->nrec + 1);

	put32le(rec, 1700000000u + x->nrec);   /* one packet per second */
	put32le(rec + 4, 0);
	put32le(rec + 8, (uint32_t)(hl + len));
	put32le(rec + 12, (uint32_t)(hl + len));
	x->nrec++;
	if (fwrite(rec, sizeof(rec), 1, x->out) != 1 || fwrite(ip, hl, 1, x->out) != 1 ||
	    fwrite(pkt, len, 1, x->out) != 1)
		return -EIO;
	return 0;
}

/* ---- sending: finish, checksum, verify back, write -------------------- */

enum check { CHK_MAC = 1, CHK_MAC2 = 2, CHK_SIG = 4, CHK_SIG2 = 8 };

/* Parse what we built and check it as the receiver would (§6.4). */
static int verify_back(const struct exchange *x, const struct peer *from, const uint8_t *pkt,
		       size_t len, unsigned checks)
{
	struct hip_packet p;
	int ret;

	ret = hip_packet_parse(pkt, len, &p);
	if (ret < 0)
		return fail(hip_parse_error_str(p.error), ret);
	ret = hip_packet_verify_checksum(pkt, len, &from->addr,
					 from == &x->i ? &x->r.addr : &x->i.addr);
	if (!ret && (checks & CHK_MAC))
		ret = hip_verify_mac(&p, HIP_COVER_MAC, x->rh, from->mac_key, x->rh_len, NULL, 0);
	if (!ret && (checks & CHK_MAC2))
		ret = hip_verify_mac(&p, HIP_COVER_MAC_2, x->rh, from->mac_key, x->rh_len,
				     x->host_id_r, x->host_id_r_len);
	if (!ret && (checks & CHK_SIG))
		ret = hip_verify_signature(&p, HIP_COVER_SIGNATURE, from->hi);
	if (!ret && (checks & CHK_SIG2))
		ret = hip_verify_signature(&p, HIP_COVER_SIGNATURE_2, from->hi);
	return ret < 0 ? fail("verifying our own packet", ret) : 0;
}

static int send_packet(struct exchange *x, const struct peer *from, struct hip_builder *b,
		       unsigned checks)
{
	const struct hip_addr *dst = from == &x->i ? &x->r.addr : &x->i.addr;
	int n = hip_build_finish(b);

	if (n < 0)
		return fail("building packet", n);
	hip_packet_set_checksum(b->buf, (size_t)n, &from->addr, dst);
	if (verify_back(x, from, b->buf, (size_t)n, checks) < 0)
		return -EBADMSG;
	return pcap_record(x, &from->addr, dst, b->buf, (size_t)n) < 0 ? fail("write", -EIO) : 0;
}

static void put_host_id(struct hip_builder *b, const struct hip_hi *hi)
{
	struct hip_host_id h = { .algorithm = hip_hi_algorithm(hi), .di_type = HIP_DI_NONE };
	size_t len;

	h.hi = hip_hi_wire(hi, &len);
	h.hi_len = (uint16_t)len;
	hip_host_id_build(b, &h);
}

static void put_dh(struct hip_builder *b, const struct hip_dh *dh)
{
	uint8_t pub[512];
	size_t len = hip_dh_pub_len(hip_dh_group(dh));

	if (len > sizeof(pub) || hip_dh_public(dh, pub, len) < 0) {
		b->err = b->err ? b->err : -EIO;
		return;
	}
	hip_dh_param_build(b, hip_dh_group(dh), pub, len);
}

static void put_esp_info(struct hip_builder *b, const struct exchange *x, uint32_t old_spi,
			 uint32_t new_spi)
{
	struct hip_esp_info ei = { (uint16_t)x->keymat_index, old_spi, new_spi };

	hip_esp_info_build(b, &ei);
}

/* ---- the exchange ------------------------------------------------------ */

static int send_i1(struct exchange *x, uint8_t *buf)
{
	struct hip_builder b;

	hip_build_init(&b, buf, BUF_LEN, HIP_I1, &x->i.hit, &x->r.hit);
	hip_dh_group_list_build(&b, &dh_groups);
	return send_packet(x, &x->i, &b, 0);
}

/* R1 in wire order (docs/protocol.md §1), signed with HIP_SIGNATURE_2. */
static int send_r1(struct exchange *x, uint8_t *buf)
{
	struct hip_u8_list suites = { 2, { HIP_SUITE_ECDSA_SHA384, HIP_SUITE_RSA_DSA_SHA256 } };
	struct hip_puzzle pz = { .k = PUZZLE_K, .lifetime = PUZZLE_LIFETIME };
	struct hip_builder b;
	struct hip_packet p;
	const struct hip_param_ref *h;
	int ret;

	pz.i_len = (uint8_t)x->rh_len;
	memcpy(pz.i, x->puzzle_i, x->rh_len);
	memcpy(&pz.opaque, x->opaque, 2);
	hip_build_init(&b, buf, BUF_LEN, HIP_R1, &x->r.hit, &x->i.hit);
	hip_r1_counter_build(&b, &x->r1c);
	hip_puzzle_build(&b, &pz);
	hip_dh_group_list_build(&b, &dh_groups);
	put_dh(&b, x->r.dh);
	hip_hip_cipher_build(&b, &ciphers);
	put_host_id(&b, x->r.hi);
	hip_hit_suite_list_build(&b, &suites);
	hip_transport_format_list_build(&b, &transport);
	hip_esp_transform_build(&b, &esp_suites);
	hip_build_signature(&b, HIP_COVER_SIGNATURE_2, x->r.hi);
	ret = send_packet(x, &x->r, &b, CHK_SIG2);
	if (ret < 0)
		return ret;
	/* The Initiator keeps the HOST_ID TLV as received, for HIP_MAC_2. */
	if (hip_packet_parse(buf, b.len, &p) < 0 || !(h = hip_packet_find(&p, HIP_PARAM_HOST_ID)))
		return fail("R1 HOST_ID", -EBADMSG);
	x->host_id_r_len = hip_tlv_total_len(h->len);
	memcpy(x->host_id_r, buf + h->off, x->host_id_r_len);
	return 0;
}

/* Initiator: solve the puzzle, derive Kij and KEYMAT (§6.5), pick the keys
 * of each direction. Also derives on the Responder side and compares. */
static int solve_and_derive(struct exchange *x)
{
	static const uint8_t j_start[HIP_RHASH_MAX_LEN];
	uint8_t kij_i[HIP_KEY_MAX * 4], kij_r[HIP_KEY_MAX * 4], pub[512], keymat[KEYMAT_LEN];
	uint8_t group = hip_dh_group(x->i.dh);
	size_t kl = hip_dh_secret_len(group), pl = hip_dh_pub_len(group);
	bool i_is_g = hip_hit_cmp(&x->i.hit, &x->r.hit) > 0;
	int ret = -EINVAL;

	if (kl == 0 || kl > sizeof(kij_i) || pl > sizeof(pub))
		goto out;
	ret = hip_puzzle_solve(x->rh, PUZZLE_K, x->puzzle_i, x->i.hit.b, x->r.hit.b,
			       j_start, 0, 0, x->puzzle_j, NULL);
	if (!ret)   /* as the Responder will (§6.9 step 7) */
		ret = hip_puzzle_verify(x->rh, PUZZLE_K, x->puzzle_i, x->i.hit.b, x->r.hit.b,
					x->puzzle_j);
	if (ret < 0)
		goto out;
	ret = hip_dh_public(x->r.dh, pub, pl);
	if (!ret)
		ret = hip_dh_derive(x->i.dh, pub, pl, kij_i, kl);
	if (!ret)
		ret = hip_dh_public(x->i.dh, pub, pl);
	if (!ret)
		ret = hip_dh_derive(x->r.dh, pub, pl, kij_r, kl);
	if (ret < 0)
		goto out;
	if (!hip_memeq_ct(kij_i, kij_r, kl)) {
		ret = -EBADMSG;
		goto out;
	}
	ret = hip_keymat(x->rh, x->puzzle_i, x->puzzle_j, x->rh_len, kij_i, kl,
			 x->i.hit.b, x->r.hit.b, keymat, sizeof(keymat));
	if (!ret)
		ret = hip_keymat_draw_hip(keymat, sizeof(keymat),
					  (size_t)hip_cipher_key_len(HIP_CIPHER_AES_128_CBC),
					  x->rh_len, &x->keys, &x->keymat_index);
	if (ret < 0)
		goto out;
	/* HOST_g sends with the gl keys, HOST_l with the lg keys. */
	x->i.mac_key = i_is_g ? x->keys.gl_int : x->keys.lg_int;
	x->i.enc_key = i_is_g ? x->keys.gl_enc : x->keys.lg_enc;
	x->r.mac_key = i_is_g ? x->keys.lg_int : x->keys.gl_int;
	x->r.enc_key = i_is_g ? x->keys.lg_enc : x->keys.gl_enc;
out:
	hip_wipe(kij_i, sizeof(kij_i));
	hip_wipe(kij_r, sizeof(kij_r));
	hip_wipe(keymat, sizeof(keymat));
	return ret < 0 ? fail("puzzle/keys", ret) : 0;
}

/* ENCRYPTED{HOST_ID} under the Initiator's HIP encryption key. */
static void put_encrypted_host_id(struct hip_builder *b, const struct exchange *x)
{
	uint8_t inner[BUF_LEN], sealed[BUF_LEN + 32];
	struct hip_builder ib;
	struct hip_hit zero = { { 0 } };
	size_t sl;
	int n;

	/* Build the inner HOST_ID TLV with a scratch builder, then strip the
	 * scratch header: the plaintext is the bare TLV with its padding. */
	hip_build_init(&ib, inner, sizeof(inner), HIP_I2, &zero, NULL);
	put_host_id(&ib, x->i.hi);
	n = hip_build_finish(&ib);
	if (n < 0 || hip_cipher_seal(HIP_CIPHER_AES_128_CBC, x->i.enc_key, inner + HIP_HDR_LEN,
				     (size_t)n - HIP_HDR_LEN, sealed, sizeof(sealed), &sl) < 0) {
		b->err = b->err ? b->err : -EIO;
		return;
	}
	hip_encrypted_build(b, sealed, sl);
}

/* The Responder's view (§6.9 step 10): decrypt with the Initiator's key and
 * find the Initiator's HOST_ID TLV, then its Host Identity field. */
static int check_encrypted(const struct exchange *x, const uint8_t *pkt, size_t len)
{
	uint8_t plain[BUF_LEN + 32];
	const struct hip_param_ref *e;
	struct hip_encrypted enc;
	struct hip_host_id hid;
	struct hip_packet p;
	const uint8_t *w;
	size_t pl = 0, il, wl;

	w = hip_hi_wire(x->i.hi, &wl);
	if (hip_packet_parse(pkt, len, &p) < 0 || !(e = hip_packet_find(&p, HIP_PARAM_ENCRYPTED)) ||
	    hip_encrypted_decode(hip_param_content(&p, e), e->len, &enc) < 0 ||
	    hip_cipher_open(HIP_CIPHER_AES_128_CBC, x->i.enc_key, enc.data, enc.len, plain,
			    sizeof(plain), &pl) < 0 || pl < HIP_TLV_HDR_LEN)
		return fail("I2 ENCRYPTED", -EBADMSG);
	il = hip_rd16(plain + 2);
	if (hip_rd16(plain) != HIP_PARAM_HOST_ID || il > pl - HIP_TLV_HDR_LEN ||
	    hip_host_id_decode(plain + HIP_TLV_HDR_LEN, il, &hid) < 0 ||
	    hid.hi_len != wl || memcmp(hid.hi, w, wl) != 0)
		return fail("I2 ENCRYPTED{HOST_ID}", -EBADMSG);
	return 0;
}

static int send_i2(struct exchange *x, uint8_t *buf)
{
	struct hip_solution sol = { .k = PUZZLE_K };
	struct hip_u16_list cipher = { 1, { HIP_CIPHER_AES_128_CBC } };
	struct hip_u16_list esp = { 1, { HIP_ESP_AES_GCM_16 } };
	struct hip_builder b;

	sol.ij_len = (uint8_t)x->rh_len;
	memcpy(&sol.opaque, x->opaque, 2);
	memcpy(sol.i, x->puzzle_i, x->rh_len);
	memcpy(sol.j, x->puzzle_j, x->rh_len);
	hip_build_init(&b, buf, BUF_LEN, HIP_I2, &x->i.hit, &x->r.hit);
	put_esp_info(&b, x, 0, x->i.spi);
	hip_r1_counter_build(&b, &x->r1c);     /* echoed verbatim (erratum 6654) */
	hip_solution_build(&b, &sol);
	put_dh(&b, x->i.dh);
	hip_hip_cipher_build(&b, &cipher);
	put_encrypted_host_id(&b, x);
	hip_transport_format_list_build(&b, &transport);
	hip_esp_transform_build(&b, &esp);
	hip_build_mac(&b, HIP_COVER_MAC, x->rh, x->i.mac_key, x->rh_len, NULL, 0);
	hip_build_signature(&b, HIP_COVER_SIGNATURE, x->i.hi);
	if (send_packet(x, &x->i, &b, CHK_MAC | CHK_SIG) < 0)
		return -EBADMSG;
	return check_encrypted(x, buf, b.len);
}

static int send_r2(struct exchange *x, uint8_t *buf)
{
	struct hip_builder b;

	hip_build_init(&b, buf, BUF_LEN, HIP_R2, &x->r.hit, &x->i.hit);
	put_esp_info(&b, x, 0, x->r.spi);
	hip_build_mac(&b, HIP_COVER_MAC_2, x->rh, x->r.mac_key, x->rh_len,
		      x->host_id_r, x->host_id_r_len);
	hip_build_signature(&b, HIP_COVER_SIGNATURE, x->r.hi);
	return send_packet(x, &x->r, &b, CHK_MAC2 | CHK_SIG);
}

/* Readdress (RFC 8046 §3.2.1, docs/decisions.md A-9): one locator, type 1, P set. */
static int send_update(struct exchange *x, uint8_t *buf)
{
	struct hip_locator_set ls = { .n = 1 };
	struct hip_builder b;
	int ret;

	ls.loc[0].traffic_type = HIP_LOC_TRAFFIC_BOTH;
	ls.loc[0].locator_type = HIP_LOC_TYPE_ESP_SPI;
	ls.loc[0].preferred = true;
	ls.loc[0].lifetime = 600;
	ls.loc[0].spi = x->i.spi;
	ret = hip_addr_from_str(hip_addr_is_v4(&x->i.addr) ? "192.0.2.11" : "2001:db8::11",
				&ls.loc[0].addr);
	if (ret < 0)
		return fail("locator", ret);
	hip_build_init(&b, buf, BUF_LEN, HIP_UPDATE, &x->i.hit, &x->r.hit);
	put_esp_info(&b, x, x->i.spi, x->i.spi);
	hip_locator_set_build(&b, &ls);
	hip_seq_build(&b, 0);
	hip_build_mac(&b, HIP_COVER_MAC, x->rh, x->i.mac_key, x->rh_len, NULL, 0);
	hip_build_signature(&b, HIP_COVER_SIGNATURE, x->i.hi);
	return send_packet(x, &x->i, &b, CHK_MAC | CHK_SIG);
}

static int send_notify(struct exchange *x, uint8_t *buf)
{
	struct hip_builder b;

	hip_build_init(&b, buf, BUF_LEN, HIP_NOTIFY, &x->r.hit, &x->i.hit);
	hip_notification_build(&b, HIP_NOTIFY_INVALID_SYNTAX, NULL, 0);
	hip_build_signature(&b, HIP_COVER_SIGNATURE, x->r.hi);
	return send_packet(x, &x->r, &b, CHK_SIG);
}

static int send_close(struct exchange *x, uint8_t *buf)
{
	struct hip_builder b;

	hip_build_init(&b, buf, BUF_LEN, HIP_CLOSE, &x->i.hit, &x->r.hit);
	hip_echo_build(&b, HIP_PARAM_ECHO_REQUEST_SIGNED, x->echo, sizeof(x->echo));
	hip_build_mac(&b, HIP_COVER_MAC, x->rh, x->i.mac_key, x->rh_len, NULL, 0);
	hip_build_signature(&b, HIP_COVER_SIGNATURE, x->i.hi);
	return send_packet(x, &x->i, &b, CHK_MAC | CHK_SIG);
}

static int send_close_ack(struct exchange *x, uint8_t *buf)
{
	struct hip_builder b;

	hip_build_init(&b, buf, BUF_LEN, HIP_CLOSE_ACK, &x->r.hit, &x->i.hit);
	hip_echo_build(&b, HIP_PARAM_ECHO_RESPONSE_SIGNED, x->echo, sizeof(x->echo));
	hip_build_mac(&b, HIP_COVER_MAC, x->rh, x->r.mac_key, x->rh_len, NULL, 0);
	hip_build_signature(&b, HIP_COVER_SIGNATURE, x->r.hi);
	return send_packet(x, &x->r, &b, CHK_MAC | CHK_SIG);
}

/* ---- setup ---------------------------------------------------------------- */

static int peer_init(struct peer *p, const char *name, const char *addr)
{
	const uint8_t *w;
	size_t len;
	int ret;

	p->name = name;
	ret = hip_hi_generate(HIP_HI_KIND_ECDSA_P256, &p->hi);
	if (!ret) {
		w = hip_hi_wire(p->hi, &len);
		ret = hip_hit_from_hi(hip_hi_suite(p->hi), w, len, &p->hit);
	}
	if (!ret)
		ret = hip_dh_generate(HIP_DH_NIST_P256, &p->dh);
	if (!ret)
		ret = hip_addr_from_str(addr, &p->addr);
	if (!ret)
		ret = hip_random(&p->spi, sizeof(p->spi));
	p->spi |= 0x01000000;    /* well above the reserved 0..255 (RFC 4303) */
	return ret < 0 ? fail(name, ret) : 0;
}

static void peer_free(struct peer *p)
{
	hip_hi_free(p->hi);
	hip_dh_free(p->dh);
}

static int exchange_init(struct exchange *x, bool v4)
{
	int ret;

	ret = peer_init(&x->i, "initiator", v4 ? "192.0.2.1" : "2001:db8::1");
	if (!ret)
		ret = peer_init(&x->r, "responder", v4 ? "192.0.2.2" : "2001:db8::2");
	if (ret < 0)
		return ret;
	x->rh = hip_hi_suite(x->r.hi);
	x->rh_len = hip_rhash_len(x->rh);
	hip_r1_counter_set(&x->r1c, 1);
	ret = hip_random(x->opaque, sizeof(x->opaque));
	if (!ret)
		ret = hip_random(x->puzzle_i, x->rh_len);
	if (!ret)
		ret = hip_random(x->echo, sizeof(x->echo));
	return ret < 0 ? fail("random", ret) : 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: hip-pktgen [-4|-6] [-o FILE]\n"
		   "  writes I1 R1 I2 R2 UPDATE NOTIFY CLOSE CLOSE_ACK as a raw-IP pcap\n");
}

int main(int argc, char **argv)
{
	static int (*const steps[])(struct exchange *, uint8_t *) = {
		send_i1, send_r1, NULL, send_i2, send_r2, send_update, send_notify,
		send_close, send_close_ack,
	};
	static struct exchange x;
	static uint8_t buf[BUF_LEN];
	const char *path = NULL;
	bool v4 = false;
	int c, ret = 0;

	while ((c = getopt(argc, argv, "46o:h")) != -1) {
		switch (c) {
		case '4': v4 = true; break;
		case '6': v4 = false; break;
		case 'o': path = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (hip_crypto_init() < 0) {
		fprintf(stderr, "hip-pktgen: crypto init failed\n");
		return 1;
	}
	x.out = path && strcmp(path, "-") ? fopen(path, "wb") : stdout;
	if (!x.out) {
		perror(path);
		return 1;
	}
	if (x.out == stdout && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "hip-pktgen: refusing to write a pcap to a terminal (use -o)\n");
		return 2;
	}
	ret = exchange_init(&x, v4);
	if (!ret)
		ret = pcap_header(x.out);
	for (size_t i = 0; !ret && i < sizeof(steps) / sizeof(steps[0]); i++)
		ret = steps[i] ? steps[i](&x, buf) : solve_and_derive(&x);
	hip_wipe(&x.keys, sizeof(x.keys));
	peer_free(&x.i);
	peer_free(&x.r);
	if (fflush(x.out) != 0 || ret < 0) {
		if (x.out != stdout)
			fclose(x.out);
		return 1;
	}
	if (x.out != stdout && fclose(x.out) != 0)
		return 1;
	return 0;
}
