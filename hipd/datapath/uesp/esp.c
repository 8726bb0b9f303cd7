/*
 * esp.c - BEET-mode ESP framing (RFC 7402 App. B, RFC 4303 §2-3): inner IPv6
 * packet <-> ESP payload, trailer, inner header rebuild, outer headers.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "esp.h"

/* Payload plus trailer, padded to the suite's block (RFC 4303 §2.4; 4 bytes
 * for GCM and NULL, A-6). */
static size_t esp_plain_len(const struct hip_esp_suite_info *in, size_t payload_len)
{
	size_t need = payload_len + 2;

	return (need + in->block - 1) / in->block * in->block;
}

size_t esp_encap_len(const struct esp_out *sa, size_t payload_len)
{
	const struct hip_esp_suite_info *in = hip_esp_ctx_info(sa->ctx);

	return ESP_HDR_LEN + in->iv_len + esp_plain_len(in, payload_len) + in->icv_len;
}

int esp_encap_v(struct esp_out *sa, uint8_t next_header, const struct iovec *iov, size_t n,
		uint8_t *out, size_t cap, size_t *out_len)
{
	const struct hip_esp_suite_info *in;
	size_t payload = 0, plain, off, pad;
	uint8_t *p;

	if (!sa || !sa->ctx || !out || !out_len || (n && !iov))
		return -EINVAL;
	in = hip_esp_ctx_info(sa->ctx);
	for (size_t k = 0; k < n; k++)
		payload += iov[k].iov_len;
	if (payload > 0xffff)
		return -EINVAL;
	plain = esp_plain_len(in, payload);
	if (cap < ESP_HDR_LEN + in->iv_len + plain + in->icv_len)
		return -ENOSPC;
	if (sa->seq == UINT64_MAX)
		return -EOVERFLOW;      /* never cycle (RFC 4303 §3.3.3) */
	p = out + ESP_HDR_LEN + in->iv_len;
	off = 0;
	for (size_t k = 0; k < n; k++) {
		if (iov[k].iov_len)
			memcpy(p + off, iov[k].iov_base, iov[k].iov_len);
		off += iov[k].iov_len;
	}
	/* Default padding 1, 2, 3, ... (§2.4), then Pad Length, Next Header. */
	pad = plain - payload - 2;
	for (size_t k = 0; k < pad; k++)
		p[payload + k] = (uint8_t)(k + 1);
	p[plain - 2] = (uint8_t)pad;
	p[plain - 1] = next_header;
	sa->seq++;
	return hip_esp_seal(sa->ctx, sa->spi, sa->seq, out, plain, out_len);
}

int esp_ip4_check(const uint8_t *ip4, size_t len)
{
	if (!ip4 || len < ESP_IP4_HDR_LEN || (ip4[0] >> 4) != 4 || (ip4[0] & 0x0f) < 5 ||
	    hip_rd16(ip4 + 2) != len || (size_t)(ip4[0] & 0x0f) * 4 > len)
		return -EINVAL;
	if ((ip4[0] & 0x0f) != 5)
		return -EPROTONOSUPPORT;
	if (hip_rd16(ip4 + 6) & 0x3fff)         /* MF or a fragment offset */
		return -EMSGSIZE;
	return 0;
}

/* BEET for IPv4 inner (RFC 7402 App. B; as Linux's xfrm4 BEET output): the
 * IPv4 header goes, the ESP Next Header is its Protocol. */
static int esp_encap4(struct esp_out *sa, const uint8_t *ip4, size_t len, uint8_t *out,
		      size_t cap, size_t *out_len)
{
	struct iovec iov;

	if (esp_ip4_check(ip4, len) || memcmp(ip4 + 12, &sa->lsi_src, 4) ||
	    memcmp(ip4 + 16, &sa->lsi_dst, 4))
		return -EINVAL;
	iov.iov_base = (void *)(ip4 + ESP_IP4_HDR_LEN);
	iov.iov_len = len - ESP_IP4_HDR_LEN;
	return esp_encap_v(sa, ip4[9], &iov, 1, out, cap, out_len);
}

int esp_encap(struct esp_out *sa, const uint8_t *ip6, size_t len, uint8_t *out, size_t cap,
	      size_t *out_len)
{
	struct iovec iov;

	if (sa && sa->inner_v4)
		return esp_encap4(sa, ip6, len, out, cap, out_len);
	if (!sa || !ip6 || len < ESP_IP6_HDR_LEN)
		return -EINVAL;
	if ((ip6[0] >> 4) != 6 || hip_rd16(ip6 + 4) != len - ESP_IP6_HDR_LEN)
		return -EINVAL;
	if (memcmp(ip6 + 8, sa->inner_src.b, 16) || memcmp(ip6 + 24, sa->inner_dst.b, 16))
		return -EINVAL;
	iov.iov_base = (void *)(ip6 + ESP_IP6_HDR_LEN);
	iov.iov_len = len - ESP_IP6_HDR_LEN;
	return esp_encap_v(sa, ip6[6], &iov, 1, out, cap, out_len);
}

/* The inner IPv4 header rebuilt in front of payload (App. B; as Linux's
 * xfrm4 BEET input with an IPv6 outer header: DF, the outer hop limit as
 * TTL, TOS 0), with a fresh ID and its checksum. */
static int esp_decap4(struct esp_in *sa, uint8_t *p, size_t payload, uint8_t nh,
		      uint8_t hop_limit, uint8_t **inner, size_t *inner_len)
{
	uint8_t *ip4 = p - ESP_IP4_HDR_LEN;

	if (payload > 0xffff - ESP_IP4_HDR_LEN)
		return -EBADMSG;
	memset(ip4, 0, ESP_IP4_HDR_LEN);
	ip4[0] = 0x45;
	hip_wr16(ip4 + 2, (uint16_t)(ESP_IP4_HDR_LEN + payload));
	hip_wr16(ip4 + 4, sa->ip_id++);
	ip4[6] = 0x40;                          /* DF */
	ip4[8] = hop_limit;
	ip4[9] = nh;
	memcpy(ip4 + 12, &sa->lsi_src, 4);
	memcpy(ip4 + 16, &sa->lsi_dst, 4);
	hip_wr16(ip4 + 10, (uint16_t)~hip_csum_fold(hip_csum_add(0, ip4, ESP_IP4_HDR_LEN)));
	*inner = ip4;
	*inner_len = ESP_IP4_HDR_LEN + payload;
	return 0;
}

int esp_decap(struct esp_in *sa, uint8_t *esp, size_t len, uint8_t hop_limit,
	      uint8_t **inner, size_t *inner_len, uint64_t *seq)
{
	const struct hip_esp_suite_info *in;
	size_t plain = 0, payload;
	uint64_t full = 0;
	uint8_t *p, *ip6, pad, nh;
	int rc;

	if (!sa || !sa->ctx || !esp || !inner || !inner_len)
		return -EINVAL;
	*inner = NULL;
	*inner_len = 0;
	in = hip_esp_ctx_info(sa->ctx);
	if (len < ESP_HDR_LEN + in->iv_len + in->icv_len + 2)
		return -EBADMSG;
	if (hip_rd32(esp) != sa->spi)
		return -EINVAL;
	/* Cheap replay check first, the window moves only after the ICV
	 * (RFC 4303 §3.4.3). */
	rc = esp_replay_check(&sa->replay, hip_rd32(esp + 4), &full);
	if (rc)
		return rc;
	rc = hip_esp_open(sa->ctx, (uint32_t)(full >> 32), esp, len, &plain);
	if (rc)
		return rc;
	esp_replay_update(&sa->replay, full);
	if (seq)
		*seq = full;
	p = esp + ESP_HDR_LEN + in->iv_len;
	pad = p[plain - 2];
	nh = p[plain - 1];
	if ((size_t)pad + 2 > plain)
		return -EBADMSG;
	payload = plain - 2 - pad;
	if (nh == ESP_NH_NONE)
		return -ENODATA;
	if (nh == ESP_NH_BEET_PH)
		return -EPROTONOSUPPORT;
	if (payload > 0xffff)
		return -EBADMSG;
	if (sa->inner_v4)
		return esp_decap4(sa, p, payload, nh, hop_limit, inner, inner_len);
	/* Inner header from the SA (App. B), hop limit from the outer one. */
	ip6 = p - ESP_IP6_HDR_LEN;
	memset(ip6, 0, 8);
	ip6[0] = 6 << 4;
	hip_wr16(ip6 + 4, (uint16_t)payload);
	ip6[6] = nh;
	ip6[7] = hop_limit;
	memcpy(ip6 + 8, sa->inner_src.b, 16);
	memcpy(ip6 + 24, sa->inner_dst.b, 16);
	*inner = ip6;
	*inner_len = ESP_IP6_HDR_LEN + payload;
	return 0;
}

int esp_outer_build(const struct hip_addr *src, const struct hip_addr *dst, uint8_t hop_limit,
		    size_t esp_len, uint8_t *out, size_t cap)
{
	bool v4;
	uint16_t sum;

	if (!src || !dst || !out)
		return -EINVAL;
	v4 = hip_addr_is_v4(src);
	if (v4 != hip_addr_is_v4(dst))
		return -EINVAL;
	if (v4) {
		if (cap < ESP_IP4_HDR_LEN)
			return -ENOSPC;
		if (esp_len > 0xffff - ESP_IP4_HDR_LEN)
			return -EINVAL;
		memset(out, 0, ESP_IP4_HDR_LEN);
		out[0] = 0x45;
		hip_wr16(out + 2, (uint16_t)(esp_len + ESP_IP4_HDR_LEN));
		out[6] = 0x40;                  /* DF */
		out[8] = hop_limit;
		out[9] = IPPROTO_ESP;
		memcpy(out + 12, &src->in6.s6_addr[12], 4);
		memcpy(out + 16, &dst->in6.s6_addr[12], 4);
		sum = (uint16_t)~hip_csum_fold(hip_csum_add(0, out, ESP_IP4_HDR_LEN));
		hip_wr16(out + 10, sum);
		return ESP_IP4_HDR_LEN;
	}
	if (cap < ESP_IP6_HDR_LEN)
		return -ENOSPC;
	if (esp_len > 0xffff)
		return -EINVAL;
	memset(out, 0, 8);
	out[0] = 6 << 4;
	hip_wr16(out + 4, (uint16_t)esp_len);
	out[6] = IPPROTO_ESP;
	out[7] = hop_limit;
	memcpy(out + 8, src->in6.s6_addr, 16);
	memcpy(out + 24, dst->in6.s6_addr, 16);
	return ESP_IP6_HDR_LEN;
}

int esp_outer_parse(const uint8_t *pkt, size_t len, bool v4, size_t *esp_off, size_t *esp_len,
		    uint8_t *hop_limit, struct hip_addr *src, struct hip_addr *dst)
{
	struct in_addr a4;
	struct in6_addr a6;
	size_t hl, tot;

	if (!pkt || !esp_off || !esp_len)
		return -EINVAL;
	if (v4) {
		if (len < ESP_IP4_HDR_LEN || (pkt[0] >> 4) != 4)
			return -EBADMSG;
		hl = (size_t)(pkt[0] & 0x0f) * 4;
		tot = hip_rd16(pkt + 2);
		if (hl < ESP_IP4_HDR_LEN || tot < hl || tot > len || pkt[9] != IPPROTO_ESP)
			return -EBADMSG;
		if (hop_limit)
			*hop_limit = pkt[8];
		if (src) {
			memcpy(&a4, pkt + 12, 4);
			hip_addr_from_v4(src, &a4);
		}
		if (dst) {
			memcpy(&a4, pkt + 16, 4);
			hip_addr_from_v4(dst, &a4);
		}
	} else {
		if (len < ESP_IP6_HDR_LEN || (pkt[0] >> 4) != 6 || pkt[6] != IPPROTO_ESP)
			return -EBADMSG;
		hl = ESP_IP6_HDR_LEN;
		tot = hl + hip_rd16(pkt + 4);
		if (tot > len)
			return -EBADMSG;
		if (hop_limit)
			*hop_limit = pkt[7];
		if (src) {
			memcpy(&a6, pkt + 8, 16);
			hip_addr_from_v6(src, &a6);
		}
		if (dst) {
			memcpy(&a6, pkt + 24, 16);
			hip_addr_from_v6(dst, &a6);
		}
	}
	*esp_off = hl;
	*esp_len = tot - hl;
	return 0;
}
