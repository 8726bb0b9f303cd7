/*
 * fuzz_fw_state.c - libFuzzer target for hipfw's state file parser
 * (firewall/fw_state.c, D-21): the input is the file, version 3 (with the
 * SPIs of hipd's LSI SA pair, D-22), 2 (without them) or 1 (without the
 * UDP ports of D-24 either). A refused file leaves the tracker empty; an
 * accepted one holds at most the table's 8 entries, each in a state the
 * file may hold (past I2), no UDP port without its locator, no reserved
 * LSI SPI, and writing it back (version 3) and reading that again gives
 * the same bytes. Seeds: fuzz/corpus/fw_state/ (HIP_SEED_DIR=...
 * check_fw_state writes state_good.bin, state_lsi.bin, state_udp.bin,
 * state_v2.bin and state_v1.bin). No crash, no leak, no sanitizer report,
 * whatever the input.
 */
#include <stdlib.h>
#include <string.h>

#include "fw_state.h"
#include "fw_track.h"
#include "hip_crypto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { TABLE = 8 };
static const uint64_t S = 1000000000ull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	struct fw_track t, u;
	const struct fw_assoc *a;
	uint8_t *out = NULL, *again = NULL;
	size_t len = 0, len2 = 0;
	uint32_t i = 0, n = 0;
	char err[256];
	int ret;

	if (!ready) {
		if (hip_crypto_init() != 0)
			abort();
		ready = true;
	}
	if (fw_track_init(&t, TABLE, false, NULL, NULL) != 0)
		abort();
	ret = fw_state_decode(&t, data, size, 1 * S, 10 * S, err, sizeof(err));
	while ((a = fw_track_at(&t, &i)) != NULL) {
		if (a->state < FW_TS_I2 || a->state > FW_TS_CLOSED ||
		    (a->state == FW_TS_ESTABLISHED) != (a->probation_ns == 11 * S))
			abort();
		for (int e = 0; e < 2; e++)
			if ((a->end[e].udp_port && !a->end[e].have_loc) ||
			    (a->end[e].udp_port_next && !a->end[e].have_loc_next) ||
			    (a->end[e].lsi_spi && a->end[e].lsi_spi < 256) ||
			    (a->end[e].lsi_spi_offer && a->end[e].lsi_spi_offer < 256))
				abort();
		n++;
	}
	if (ret < 0 ? n != 0 || !err[0] : (uint32_t)ret != n || n > TABLE)
		abort();
	if (ret >= 0) {
		if (fw_state_encode(&t, &out, &len) != 0 || fw_track_init(&u, TABLE, false,
									NULL, NULL) != 0)
			abort();
		if (fw_state_decode(&u, out, len, 1 * S, 10 * S, err, sizeof(err)) != ret ||
		    fw_state_encode(&u, &again, &len2) != 0 || len2 != len ||
		    memcmp(out, again, len) != 0)
			abort();
		fw_track_free(&u);
	}
	free(out);
	free(again);
	fw_track_free(&t);
	return 0;
}
