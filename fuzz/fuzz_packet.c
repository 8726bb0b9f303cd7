/*
 * fuzz_packet.c - libFuzzer target: the strict parser, then the typed
 * decoder of every parameter it accepted (docs/requirements.md RB-04: no crash, no ASAN
 * or UBSAN report, whatever the input).
 *
 * Decoders whose length depends on the negotiated RHASH (PUZZLE, SOLUTION,
 * the MACs) are run for all three lengths, 20, 32 and 48.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "packet.h"
#include "params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const size_t rhash_lens[] = { 20, 32, 48 };

/* Touch what a decoder returned so its pointers and lengths are used. */
static volatile size_t fuzz_sink;

static void fuzz_touch(const uint8_t *p, size_t len)
{
	if (p && len)
		fuzz_sink += p[0] + p[len - 1];
}

static void fuzz_rhash_params(uint16_t type, const uint8_t *c, size_t len)
{
	struct hip_puzzle pz;
	struct hip_solution sol;
	struct hip_opaque mac;
	size_t i;

	for (i = 0; i < sizeof(rhash_lens) / sizeof(rhash_lens[0]); i++) {
		switch (type) {
		case HIP_PARAM_PUZZLE:
			if (hip_puzzle_decode(c, len, rhash_lens[i], &pz) == 0)
				fuzz_sink += pz.i[pz.i_len - 1];
			break;
		case HIP_PARAM_SOLUTION:
			if (hip_solution_decode(c, len, rhash_lens[i], &sol) == 0)
				fuzz_sink += sol.j[sol.ij_len - 1];
			break;
		default:
			if (hip_mac_decode(c, len, rhash_lens[i], &mac) == 0)
				fuzz_touch(mac.data, mac.len);
			break;
		}
	}
}

static void fuzz_lists(uint16_t type, const uint8_t *c, size_t len)
{
	struct hip_u8_list l8;
	struct hip_u16_list l16;
	int err = -1;

	switch (type) {
	case HIP_PARAM_DH_GROUP_LIST:
		err = hip_dh_group_list_decode(c, len, &l8);
		break;
	case HIP_PARAM_HIT_SUITE_LIST:
		err = hip_hit_suite_list_decode(c, len, &l8);
		break;
	case HIP_PARAM_HIP_CIPHER:
		(void)hip_hip_cipher_decode(c, len, &l16);
		return;
	case HIP_PARAM_TRANSPORT_FORMAT_LIST:
		(void)hip_transport_format_list_decode(c, len, &l16);
		return;
	case HIP_PARAM_ESP_TRANSFORM:
		(void)hip_esp_transform_decode(c, len, &l16);
		return;
	case HIP_PARAM_NAT_TRAVERSAL_MODE:
		(void)hip_nat_traversal_mode_decode(c, len, &l16);
		return;
	}
	if (err == 0)
		fuzz_sink += l8.v[l8.n - 1];
}

static void fuzz_param(uint16_t type, const uint8_t *c, size_t len)
{
	union {
		struct hip_esp_info esp_info;
		struct hip_r1_counter r1c;
		struct hip_locator_set locs;
		struct hip_ack ack;
		struct hip_dh_param dh;
		struct hip_encrypted enc;
		struct hip_host_id hid;
		struct hip_cert cert;
		struct hip_notification note;
		struct hip_opaque opaque;
		struct hip_signature sig;
		struct hip_reg_info reg_info;
		struct hip_reg reg;
		struct hip_addr addr;
		struct hip_via_rvs via;
		struct hip_relay_addr relay;
		struct hip_peer_permission perm;
		uint32_t u32;
	} o;

	switch (type) {
	case HIP_PARAM_ESP_INFO:
		(void)hip_esp_info_decode(c, len, &o.esp_info);
		break;
	case HIP_PARAM_R1_COUNTER:
		(void)hip_r1_counter_decode(c, len, &o.r1c);
		break;
	case HIP_PARAM_LOCATOR_SET:
		if (hip_locator_set_decode(c, len, &o.locs) == 0 && o.locs.n)
			fuzz_sink += o.locs.loc[o.locs.n - 1].addr.in6.s6_addr[15];
		break;
	case HIP_PARAM_PUZZLE:
	case HIP_PARAM_SOLUTION:
	case HIP_PARAM_HIP_MAC:
	case HIP_PARAM_HIP_MAC_2:
	case HIP_PARAM_RVS_HMAC:
	case HIP_PARAM_RELAY_HMAC:
		fuzz_rhash_params(type, c, len);
		break;
	case HIP_PARAM_SEQ:
		(void)hip_seq_decode(c, len, &o.u32);
		break;
	case HIP_PARAM_ACK:
		(void)hip_ack_decode(c, len, &o.ack);
		break;
	case HIP_PARAM_DH_GROUP_LIST:
	case HIP_PARAM_HIT_SUITE_LIST:
	case HIP_PARAM_HIP_CIPHER:
	case HIP_PARAM_TRANSPORT_FORMAT_LIST:
	case HIP_PARAM_ESP_TRANSFORM:
	case HIP_PARAM_NAT_TRAVERSAL_MODE:
		fuzz_lists(type, c, len);
		break;
	case HIP_PARAM_DIFFIE_HELLMAN:
		if (hip_dh_param_decode(c, len, &o.dh) == 0)
			fuzz_touch(o.dh.pub, o.dh.pub_len);
		break;
	case HIP_PARAM_TRANSACTION_PACING:
		(void)hip_transaction_pacing_decode(c, len, &o.u32);
		break;
	case HIP_PARAM_ENCRYPTED:
		if (hip_encrypted_decode(c, len, &o.enc) == 0)
			fuzz_touch(o.enc.data, o.enc.len);
		break;
	case HIP_PARAM_HOST_ID:
		if (hip_host_id_decode(c, len, &o.hid) == 0) {
			fuzz_touch(o.hid.hi, o.hid.hi_len);
			fuzz_touch(o.hid.di, o.hid.di_len);
		}
		break;
	case HIP_PARAM_CERT:
		if (hip_cert_decode(c, len, &o.cert) == 0)
			fuzz_touch(o.cert.data, o.cert.len);
		break;
	case HIP_PARAM_NOTIFICATION:
		if (hip_notification_decode(c, len, &o.note) == 0)
			fuzz_touch(o.note.data, o.note.len);
		break;
	case HIP_PARAM_ECHO_REQUEST_SIGNED:
	case HIP_PARAM_ECHO_RESPONSE_SIGNED:
	case HIP_PARAM_ECHO_REQUEST_UNSIGNED:
	case HIP_PARAM_ECHO_RESPONSE_UNSIGNED:
		if (hip_echo_decode(c, len, &o.opaque) == 0)
			fuzz_touch(o.opaque.data, o.opaque.len);
		break;
	case HIP_PARAM_HIP_SIGNATURE:
	case HIP_PARAM_HIP_SIGNATURE_2:
		if (hip_signature_decode(c, len, &o.sig) == 0)
			fuzz_touch(o.sig.sig, o.sig.len);
		break;
	case HIP_PARAM_REG_INFO:
		(void)hip_reg_info_decode(c, len, &o.reg_info);
		break;
	case HIP_PARAM_REG_REQUEST:
	case HIP_PARAM_REG_RESPONSE:
	case HIP_PARAM_REG_FAILED:
		if (hip_reg_decode(c, len, &o.reg) == 0)
			fuzz_sink += hip_reg_lifetime_seconds(o.reg.value) > 1.0;
		break;
	case HIP_PARAM_FROM:
		(void)hip_from_decode(c, len, &o.addr);
		break;
	case HIP_PARAM_VIA_RVS:
		(void)hip_via_rvs_decode(c, len, &o.via);
		break;
	case HIP_PARAM_RELAY_FROM:
	case HIP_PARAM_RELAY_TO:
	case HIP_PARAM_REG_FROM:
	case HIP_PARAM_MAPPED_ADDRESS:
	case HIP_PARAM_RELAYED_ADDRESS:
		(void)hip_relay_addr_decode(c, len, &o.relay);
		break;
	case HIP_PARAM_PEER_PERMISSION:
		(void)hip_peer_permission_decode(c, len, &o.perm);
		break;
	case HIP_PARAM_CANDIDATE_PRIORITY:
		(void)hip_candidate_priority_decode(c, len, &o.u32);
		break;
	case HIP_PARAM_NOMINATE:
		(void)hip_nominate_decode(c, len);
		break;
	default:
		break;  /* unknown non-critical: ignored, as hipd does */
	}
}

static void fuzz_one(const uint8_t *buf, size_t len)
{
	struct hip_packet pkt;
	unsigned i;

	if (hip_packet_parse(buf, len, &pkt) != 0)
		return;
	for (i = 0; i < pkt.nparams; i++) {
		const struct hip_param_ref *r = &pkt.params[i];

		fuzz_param(r->type, hip_param_content(&pkt, r), r->len);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t padded = (size + 7) & ~(size_t)7;
	uint8_t *copy;

	/* The input as it came off the wire. */
	fuzz_one(data, size);

	/* The same bytes zero-padded to a multiple of 8 with Header Length
	 * patched to match: most mutations of a TLV's length or contents would
	 * otherwise stop at the W-02 length check and never reach the TLV walk
	 * and the decoders. An exact-size heap copy keeps ASAN's bounds. */
	if (size < HIP_HDR_LEN || padded > HIP_MAX_PACKET)
		return 0;
	copy = malloc(padded);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	memset(copy + size, 0, padded - size);
	copy[1] = (uint8_t)(padded / 8 - 1);
	fuzz_one(copy, padded);
	free(copy);
	return 0;
}
