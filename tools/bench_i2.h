/*
 * bench_i2.h - the I2 a simulated Initiator answers an R1 with, built as
 * hipd's engine/exchange/bex_r1.c builds it (RFC 7401 §5.3.3; the order of
 * docs/protocol.md §1): shared by tools/bench-initiators.c and
 * tools/bench-flood2.c. Benchmark tools only, never the daemon.
 */
#ifndef HIP_BENCH_I2_H
#define HIP_BENCH_I2_H

#include <stddef.h>
#include <stdint.h>

#include "engine/assoc/assoc.h"
#include "hipd.h"
#include "packet.h"

/* A fresh ECDSA P-256 identity as hidb.c makes one: *hi (freed first if
 * set), its HIT into *hit, and its HOST_ID TLV (DI none, header and
 * padding) into tlv (cap bytes), *tlv_len. 0 or -errno. */
int bench_identity_make(struct hip_hi **hi, struct hip_hit *hit, uint8_t *tlv, size_t cap,
			size_t *tlv_len);

/* From r1 (parsed, sent to ha->hit_local by hit_r): solve the puzzle, make
 * a DH key, derive the keys into ha (its hit_local set by the caller) and
 * build the I2 into out (cap bytes, the HIP packet only, checksum left to
 * the caller), with our HOST_ID TLV in ENCRYPTED, ESP_INFO's new SPI spi,
 * signed with hi. The I2's length, or -errno (-EBADMSG: the R1 lacks or
 * garbles a parameter; -ENOTSUP: no suite of ours). */
int bench_i2_build(struct hipd *d, struct hip_ha *ha, const struct hip_hit *hit_r,
		   const struct hip_packet *r1, const uint8_t *host_id_tlv, size_t tlv_len,
		   struct hip_hi *hi, uint32_t spi, uint8_t *out, size_t cap);

#endif
