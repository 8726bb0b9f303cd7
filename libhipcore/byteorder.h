/*
 * byteorder.h - big-endian (network order) reads and writes of unaligned
 * bytes, the one definition every HIP, ESP and control-protocol encoder and
 * decoder uses (RFC 7401 §5: "all fields are in network byte order").
 *
 * Byte by byte on purpose: wire buffers are not aligned, and this never
 * type-puns, so it is the same on every architecture and under UBSan.
 */
#ifndef HIP_BYTEORDER_H
#define HIP_BYTEORDER_H

#include <stdint.h>

static inline uint16_t hip_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t hip_rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t hip_rd64(const uint8_t *p)
{
	return (uint64_t)hip_rd32(p) << 32 | hip_rd32(p + 4);
}

static inline void hip_wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void hip_wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void hip_wr64(uint8_t *p, uint64_t v)
{
	hip_wr32(p, (uint32_t)(v >> 32));
	hip_wr32(p + 4, (uint32_t)v);
}

#endif /* HIP_BYTEORDER_H */
