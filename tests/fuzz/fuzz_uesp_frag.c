/*
 * fuzz_uesp_frag.c - libFuzzer target: IPv4 reassembly before BEET on the
 * userspace datapath (hipd/datapath/uesp/uesp_frag.c, D-22).
 *
 * Input: records of [ctl][length, 2 bytes LE][bytes]. Each record is one
 * packet from hip0; ctl bit 0 builds a valid fragment header here from the
 * record's first 4 bytes (ID low bits, offset, MF, protocol) so most
 * records reach the reassembly logic; ctl bits 1-7 advance the clock in
 * steps of 1/16 of the timeout. Every datagram handed out must be whole:
 * a 20-byte header with no fragment fields, a Total Length equal to its
 * length (at most 65535) and a valid header checksum.
 * No crash, no sanitizer report, no leak, whatever the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "datapath/uesp/uesp_frag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint16_t hdr_sum(const uint8_t *h)
{
	uint32_t s = 0;

	for (size_t k = 0; k < 20; k += 2)
		s += (uint32_t)(h[k] << 8 | h[k + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static void check_dgram(const uint8_t *d, size_t len)
{
	if (len < 20 || len > UESP_FRAG_DGRAM_MAX || (d[0] != 0x45) ||
	    (size_t)(d[2] << 8 | d[3]) != len || (d[6] & 0x3f) || d[7] || hdr_sum(d) != 0xffff)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t pkt[UESP_FRAG_DGRAM_MAX + 1];
	struct uesp_frag *f = calloc(1, sizeof(*f));
	uint64_t now = 1;
	size_t at = 0;

	if (!f)
		return 0;
	while (at + 3 <= size) {
		uint8_t ctl = data[at];
		size_t len = (size_t)(data[at + 1] | data[at + 2] << 8), plen;
		uint8_t *out = NULL;
		size_t out_len = 0;

		at += 3;
		if (len > size - at)
			len = size - at;
		now += (uint64_t)(ctl >> 1) * (UESP_FRAG_TIMEOUT_NS / 16);
		if (ctl & 1) {
			/* [id][offset hi, with MF in bit 5][offset lo][proto] payload */
			if (len < 4)
				break;
			plen = len - 4;
			if (20 + plen > sizeof(pkt) - 1)
				plen = sizeof(pkt) - 1 - 20;
			memset(pkt, 0, 20);
			pkt[0] = 0x45;
			pkt[5] = data[at] & 3;
			pkt[6] = data[at + 1] & 0x3f;
			pkt[7] = data[at + 2];
			pkt[9] = data[at + 3] & 1 ? 17 : 6;
			if (pkt[6] & 0x20)
				plen &= ~(size_t)7;     /* MF: whole 8-byte units */
			pkt[2] = (uint8_t)((20 + plen) >> 8);
			pkt[3] = (uint8_t)(20 + plen);
			memcpy(pkt + 20, data + at + 4, plen);
			len = 20 + plen;
			at += 4 + plen;
		} else {
			memcpy(pkt, data + at, len);
			at += len;
		}
		if (uesp_frag_add(f, pkt, len, now, &out, &out_len) == 0 && out) {
			check_dgram(out, out_len);
			uesp_frag_release(f, out);
		}
		if (ctl == 0xff)
			uesp_frag_expire(f, now);
	}
	uesp_frag_clear(f);
	free(f);
	return 0;
}
