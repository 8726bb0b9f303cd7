/*
 * fuzz_icmp.c - libFuzzer target for the ICMP Parameter Problem parser
 * (hipd/net/icmp.c, docs/decisions.md D-14): the first byte picks the
 * family (even: IPv4 with its IP header, as a raw socket delivers it; odd:
 * ICMPv6), the rest is the datagram. What parses is built again from the
 * quote (hip_icmp_build) and parsed once more: the two must agree. Seeds:
 * fuzz/corpus/icmp/ (tests/unit/check_icmp.c writes them with HIP_SEED_DIR).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "hip_wire.h"
#include "net/net.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t fuzz_sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hip_icmp_quote q, again;
	uint8_t msg[HIP_ICMP_MSG_MAX], dg[HIP_ICMP_MSG_MAX + 20];
	int family;
	size_t len, n;

	if (size < 1)
		return 0;
	family = data[0] & 1 ? AF_INET6 : AF_INET;
	if (hip_icmp_parse(family, data + 1, size - 1, &q) < 0)
		return 0;
	fuzz_sink += q.payload_len + q.pointer + q.proto;
	/* what we quote of it, as a peer with no association would */
	if (q.proto == IPPROTO_UDP || !q.payload_len)
		return 0;
	{
		struct hip_icmp_about a = {
			.src = &q.src, .dst = &q.dst, .proto = q.proto, .payload = q.payload,
			.payload_len = q.payload_len, .pointer = 0,
		};

		if (hip_addr_is_v4(&q.src) != hip_addr_is_v4(&q.dst) ||
		    hip_icmp_build(msg, sizeof(msg), &len, &a) < 0)
			return 0;
	}
	if (family == AF_INET) {
		memset(dg, 0, 20);
		dg[0] = 0x45;
		dg[2] = (uint8_t)((20 + len) >> 8);
		dg[3] = (uint8_t)(20 + len);
		dg[9] = 1;
		memcpy(dg + 20, msg, len);
		n = 20 + len;
	} else {
		memcpy(dg, msg, len);
		n = len;
	}
	if (hip_addr_is_v4(&q.src) == (family == AF_INET) &&
	    (hip_icmp_parse(family, dg, n, &again) != 0 || again.proto != q.proto ||
	     memcmp(&again.src, &q.src, sizeof(q.src)) || again.payload_len > q.payload_len ||
	     memcmp(again.payload, q.payload, again.payload_len)))
		abort();
	return 0;
}
