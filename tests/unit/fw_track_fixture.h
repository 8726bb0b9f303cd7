/*
 * fw_track_fixture.h - what hipfw's tracker suites share (fw_track_fixture.c):
 * the tracker t under test, the keys of the Initiator, the Responder and a
 * stranger, and the packets of an association between ADDR_I and ADDR_R.
 */
#ifndef HIPD_TEST_FW_TRACK_FIXTURE_H
#define HIPD_TEST_FW_TRACK_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_packet.h"
#include "fw_track.h"

static const uint64_t S = 1000000000ull;

enum { FW_FX_SEED_MAX = 16384 };

extern struct hip_hi *hi_i, *hi_r, *hi_x;
extern struct hip_hit hit_i, hit_r;
extern struct fw_track t;               /* 16 entries, esp_cb counting */
extern unsigned esp_calls;              /* esp_cb's calls */
/* the packets fed so far, each behind its 16-bit length: a seed of the
 * fuzz target's sequence mode (tests/fuzz/fuzz_fw.c) */
extern uint8_t seq_seed[FW_FX_SEED_MAX];
extern size_t seq_len;
extern const char *const ADDR_I, *const ADDR_R;
/* != 0: feed() sends over UDP (RFC 9028 §5.1), the Initiator from this
 * port (a NAT's mapping) whatever its address, the Responder from 10500 */
extern uint16_t udp_port_i;

/* What a packet carries besides its header. */
struct spec {
	uint32_t spi, old_spi;      /* ESP_INFO when spi != 0 */
	uint32_t seq, ack;          /* SEQ / ACK when != 0 */
	const char *locator;        /* LOCATOR_SET with this preferred address */
	uint32_t lsi_spi;           /* hipd's LSI_ESP_INFO (D-22) when != 0 */
	bool lsi_bad;               /* that LSI_ESP_INFO malformed (8 bytes) */
	bool host_id;               /* the signer's HOST_ID in the clear */
	const struct hip_hi *sign;  /* the key that signs (NULL: no signature) */
};

/* The checked fixture: keys, HITs, t. */
void setup(void);
void teardown(void);
/* The HIT of hi. */
void hit_of(const struct hip_hi *hi, struct hip_hit *hit);
/* The tracker's callback: counts. */
void esp_cb(const struct fw_assoc *a, void *arg);
/* A HIP packet of type from `from` to `to`, in IPv4 (src -> dst), through
 * fw_packet_parse and fw_verify_host_id_keep into the tracker. */
enum fw_track_drop feed(uint8_t type, const struct hip_hit *from, const struct hip_hit *to,
			const char *src, const char *dst, const struct spec *sp, uint64_t now);
/* I1, R1, I2 (HOST_ID clear), R2 between ADDR_I and ADDR_R at time now. */
void bex(uint32_t spi_i, uint32_t spi_r, uint64_t now);
/* The same with hipd's LSI_ESP_INFO (D-22): lsi_i offered in the I2 and
 * lsi_r answered in the R2 (0: none). */
void bex_lsi(uint32_t spi_i, uint32_t spi_r, uint32_t lsi_i, uint32_t lsi_r, uint64_t now);
/* Raw ESP src -> dst with spi: passed by t? */
bool esp_ok(const char *src, const char *dst, uint32_t spi);
/* The triples of the association of hit_i and hit_r: how many. */
size_t triples(void);
/* Its state, 0 without one. */
enum fw_track_state state(void);

#endif
