/*
 * fw_track_fixture.c - the harness of hipfw's tracker suites (check_fw_track.c,
 * check_fw_state.c): three real keys, and HIP packets built by libhipcore,
 * signed, carried in IPv4 (raw or over UDP, RFC 9028 §5.1) and fed through
 * fw_packet_parse_udp and fw_verify_host_id_keep into the tracker t.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "coverage.h"
#include "fw_track_fixture.h"
#include "hip_crypto.h"
#include "params.h"
#include "unit.h"

struct hip_hi *hi_i, *hi_r, *hi_x;
struct hip_hit hit_i, hit_r;
struct fw_track t;
unsigned esp_calls;
uint8_t seq_seed[FW_FX_SEED_MAX];
size_t seq_len;

const char *const ADDR_I = "198.51.100.1", *const ADDR_R = "203.0.113.2";
uint16_t udp_port_i;

void hit_of(const struct hip_hi *hi, struct hip_hit *hit)
{
	size_t len;
	const uint8_t *w = hip_hi_wire(hi, &len);

	ck_assert_int_eq(hip_hit_from_hi((uint8_t)hip_hi_suite(hi), w, len, hit), 0);
}

void esp_cb(const struct fw_assoc *a, void *arg)
{
	(void)a;
	(void)arg;
	esp_calls++;
}

void setup(void)
{
	ck_assert_int_eq(hip_crypto_init(), 0);
	ck_assert_int_eq(hip_hi_generate(HIP_HI_KIND_ECDSA_P256, &hi_i), 0);
	ck_assert_int_eq(hip_hi_generate(HIP_HI_KIND_ECDSA_P256, &hi_r), 0);
	ck_assert_int_eq(hip_hi_generate(HIP_HI_KIND_ECDSA_P256, &hi_x), 0);
	hit_of(hi_i, &hit_i);
	hit_of(hi_r, &hit_r);
	ck_assert_int_eq(fw_track_init(&t, 16, false, esp_cb, NULL), 0);
	esp_calls = 0;
	seq_len = 0;
	udp_port_i = 0;
}

void teardown(void)
{
	fw_track_free(&t);
	hip_hi_free(hi_i);
	hip_hi_free(hi_r);
	hip_hi_free(hi_x);
}

/* A HIP packet of type from `from` to `to`, in IPv4 (src -> dst), through
 * fw_packet_parse and fw_verify_host_id_keep into the tracker. */
enum fw_track_drop feed(uint8_t type, const struct hip_hit *from, const struct hip_hit *to,
			const char *src, const char *dst, const struct spec *sp, uint64_t now)
{
	uint8_t buf[2048];
	struct hip_addr s, d;
	struct hip_builder b;
	struct fw_packet p;
	struct hip_hi *hi = NULL;
	struct in_addr v4;
	enum fw_track_drop why;
	int n;

	ck_assert_int_eq(hip_addr_from_str(src, &s), 0);
	ck_assert_int_eq(hip_addr_from_str(dst, &d), 0);
	memset(buf, 0, sizeof(buf));
	hip_build_init(&b, buf + 20, sizeof(buf) - 20, type, from, to);
	if (sp && sp->spi) {
		struct hip_esp_info ei = { .keymat_index = 0, .old_spi = sp->old_spi,
					   .new_spi = sp->spi };

		hip_esp_info_build(&b, &ei);
	}
	if (type == HIP_R1) {
		struct hip_r1_counter rc;

		hip_r1_counter_set(&rc, 1);
		hip_r1_counter_build(&b, &rc);
	}
	if (sp && sp->locator) {
		struct hip_locator_set ls = { .n = 1 };

		ls.loc[0] = (struct hip_locator){ .traffic_type = 0, .locator_type = 0,
						  .preferred = true, .lifetime = 60 };
		ck_assert_int_eq(hip_addr_from_str(sp->locator, &ls.loc[0].addr), 0);
		hip_locator_set_build(&b, &ls);
	}
	if (sp && sp->seq)
		hip_seq_build(&b, sp->seq);
	if (sp && sp->ack) {
		struct hip_ack ack = { .n = 1, .id = { sp->ack } };

		hip_ack_build(&b, &ack);
	}
	if (sp && sp->host_id) {
		struct hip_host_id hid = { .algorithm = hip_hi_algorithm(sp->sign) };
		size_t wl;

		hid.hi = hip_hi_wire(sp->sign, &wl);
		hid.hi_len = (uint16_t)wl;
		hip_host_id_build(&b, &hid);
	}
	if (sp && sp->lsi_spi && !sp->lsi_bad) {
		/* the LSIs hipd derives (D-20) do not matter to hipfw */
		struct hip_lsi_esp_info li = { .spi = sp->lsi_spi };
		bool from_i = hip_hit_cmp(from, &hit_i) == 0;

		li.sender_lsi.s_addr = htonl(from_i ? 0xc6120001u : 0xc6120002u);
		li.receiver_lsi.s_addr = htonl(from_i ? 0xc6120002u : 0xc6120001u);
		hip_lsi_esp_info_build(&b, &li);
	} else if (sp && sp->lsi_spi) {
		uint8_t raw[8];

		hip_wr32(raw, 0xc6120001u);
		hip_wr32(raw + 4, sp->lsi_spi);
		hip_build_param(&b, HIP_PARAM_LSI_ESP_INFO, raw, sizeof(raw));
	}
	if (sp && sp->sign)
		hip_build_signature(&b, type == HIP_R1 ? HIP_COVER_SIGNATURE_2 :
				    HIP_COVER_SIGNATURE, sp->sign);
	n = hip_build_finish(&b);
	ck_assert_int_gt(n, 0);
	hip_packet_set_checksum(buf + 20, (size_t)n, &s, &d);
	buf[0] = 0x45;
	buf[9] = 139;
	if (udp_port_i) {
		bool from_i = hip_hit_cmp(from, &hit_i) == 0;

		/* UDP, the zero marker, the packet with its checksum 0 (as hipd sends) */
		ck_assert_uint_le(32 + (size_t)n, sizeof(buf));
		memmove(buf + 32, buf + 20, (size_t)n);
		memset(buf + 20, 0, 12);
		buf[32 + 4] = buf[32 + 5] = 0;
		hip_wr16(buf + 20, from_i ? udp_port_i : 10500);
		hip_wr16(buf + 22, from_i ? 10500 : udp_port_i);
		hip_wr16(buf + 24, (uint16_t)(12 + n));
		buf[9] = 17;
		n += 12;
	}
	hip_wr16(buf + 2, (uint16_t)(20 + n));
	v4 = hip_addr_v4(&s);
	memcpy(buf + 12, &v4, 4);
	v4 = hip_addr_v4(&d);
	memcpy(buf + 16, &v4, 4);
	ck_assert_int_eq(fw_packet_parse_udp(buf, 20 + (size_t)n, 10500, &p), FW_OK);
	if (seq_len + 2 + 20 + (size_t)n <= sizeof(seq_seed)) {
		hip_wr16(seq_seed + seq_len, (uint16_t)(20 + n));
		memcpy(seq_seed + seq_len + 2, buf, 20 + (size_t)n);
		seq_len += 2 + 20 + (size_t)n;
	}
	if (fw_verify_host_id_keep(&p, &hi) != FW_OK)
		return FW_TRK_BAD_SIGNATURE;   /* not the tracker's: never returned below */
	why = fw_track_hip(&t, &p, hi, now);
	hip_hi_free(hi);
	return why;
}

/* I1, R1, I2 (HOST_ID clear), R2 between ADDR_I and ADDR_R at time now. */
void bex(uint32_t spi_i, uint32_t spi_r, uint64_t now)
{
	bex_lsi(spi_i, spi_r, 0, 0, now);
}

void bex_lsi(uint32_t spi_i, uint32_t spi_r, uint32_t lsi_i, uint32_t lsi_r, uint64_t now)
{
	struct spec r1 = { .host_id = true, .sign = hi_r };
	struct spec i2 = { .spi = spi_i, .lsi_spi = lsi_i, .host_id = true, .sign = hi_i };
	struct spec r2 = { .spi = spi_r, .lsi_spi = lsi_r, .sign = hi_r };

	ck_assert_int_eq(feed(HIP_I1, &hit_i, &hit_r, ADDR_I, ADDR_R, NULL, now), FW_TRK_OK);
	ck_assert_int_eq(feed(HIP_R1, &hit_r, &hit_i, ADDR_R, ADDR_I, &r1, now), FW_TRK_OK);
	ck_assert_int_eq(feed(HIP_I2, &hit_i, &hit_r, ADDR_I, ADDR_R, &i2, now), FW_TRK_OK);
	ck_assert_int_eq(feed(HIP_R2, &hit_r, &hit_i, ADDR_R, ADDR_I, &r2, now), FW_TRK_OK);
}

bool esp_ok(const char *src, const char *dst, uint32_t spi)
{
	struct hip_addr s, d;

	ck_assert_int_eq(hip_addr_from_str(src, &s), 0);
	ck_assert_int_eq(hip_addr_from_str(dst, &d), 0);
	return fw_track_esp(&t, &s, &d, spi) == FW_TRK_OK;
}

size_t triples(void)
{
	struct fw_esp_triple tr[2 * FW_TRACK_ESP_MAX];
	const struct fw_assoc *a = fw_track_find(&t, &hit_i, &hit_r);

	return a ? fw_track_triples(a, tr, sizeof(tr) / sizeof(tr[0])) : 0;
}

enum fw_track_state state(void)
{
	const struct fw_assoc *a = fw_track_find(&t, &hit_r, &hit_i);

	return a ? a->state : 0;
}
