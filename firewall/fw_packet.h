/*
 * fw_packet.h - what hipfw reads from a queued IP packet: the addresses,
 * and the HIP header behind them (RFC 7401 §5.1), checked before use.
 */
#ifndef HIPFW_PACKET_H
#define HIPFW_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "checksum.h"
#include "hit.h"
#include "packet.h"

/* Why a packet is dropped before any rule sees it (counters in hipfw show). */
enum fw_bad {
	FW_OK = 0,
	FW_BAD_IP,          /* truncated or malformed IPv4/IPv6 header */
	FW_BAD_FRAGMENT,    /* an IP fragment: HIP packets are not fragmented here */
	FW_NOT_HIP,         /* the upper protocol is not 139 */
	FW_BAD_HIP,         /* the HIP header or parameters do not parse */
	FW_BAD_CHECKSUM,    /* the HIP checksum does not verify */
	FW_BAD_HIT,         /* its HOST_ID does not give the sender's HIT (fw_verify.c) */
	FW_BAD_SIGNATURE,   /* its signature does not verify with that HOST_ID */
	FW_BAD_MAX,
};

struct fw_packet {
	struct hip_addr src, dst;
	const uint8_t *hip;      /* the HIP packet inside the IP packet */
	size_t hip_len;
	uint8_t type;            /* HIP packet type */
	uint16_t sport, dport;   /* over UDP (RFC 9028 §5.1): its ports; 0 = raw HIP */
	struct hip_hit sender, receiver;
	struct hip_packet pkt;   /* the parsed HIP packet (pkt.buf == hip) */
};

/* Parse an IPv4 or IPv6 packet (buf, len) carrying HIP (IPv6 extension
 * headers before it are skipped). FW_OK with out filled, or why not. */
enum fw_bad fw_packet_parse(const uint8_t *buf, size_t len, struct fw_packet *out);
/* The same, and HIP over UDP from or to udp_port (0: none) behind its
 * 32-bit zero marker (RFC 9028 §5.1, as hipd/net/udp.c demultiplexes):
 * a zero HIP checksum is then not checked (UDP's covers the packet, as
 * hipd/engine/fsm.c accepts it); ESP or a keepalive there is FW_NOT_HIP. */
enum fw_bad fw_packet_parse_udp(const uint8_t *buf, size_t len, uint16_t udp_port,
				struct fw_packet *out);
const char *fw_bad_name(enum fw_bad why);

/* What the tracker needs of an ESP packet (RFC 4303 §2). */
struct fw_esp {
	struct hip_addr src, dst;
	uint32_t spi;
	uint16_t sport, dport;   /* ESP in UDP (RFC 9028 §5.1): its ports; 0 = raw */
	bool keepalive;          /* a NAT keepalive (one 0xFF byte), no SPI */
};
/* An IP packet of protocol 50: FW_OK with out filled; FW_NOT_HIP when its
 * protocol is another (HIP included); else why it is malformed. */
enum fw_bad fw_esp_parse(const uint8_t *buf, size_t len, struct fw_esp *out);
/* The same, and UDP from or to udp_port (0: none): a payload of one 0xFF
 * byte is a keepalive (FW_OK, out->keepalive); one whose first 32 bits are
 * not zero is ESP, its SPI those bits (at least 8 bytes, else FW_BAD_IP);
 * a zero marker is HIP (FW_NOT_HIP); under 4 bytes, FW_BAD_IP. */
enum fw_bad fw_esp_parse_udp(const uint8_t *buf, size_t len, uint16_t udp_port,
			     struct fw_esp *out);
/* A packet with its sender's HOST_ID in the clear (fw_verify.c): the HI
 * must give the sender's HIT and verify the packet's signature. FW_OK also
 * for a packet without HOST_ID (nothing to check it with here). */
enum fw_bad fw_verify_host_id(const struct fw_packet *p);
/* The same, and on FW_OK the HI it carried in *hi (NULL without HOST_ID;
 * the caller frees it with hip_hi_free). */
struct hip_hi;
enum fw_bad fw_verify_host_id_keep(const struct fw_packet *p, struct hip_hi **hi);

/* R1s verified before (fw_verify.c): their key and the HI that verified
 * them; HOST_IDs decoded before: the sender's HIT and the HI. */
enum { FW_VERIFY_CACHE = 64, FW_HI_CACHE = 64, FW_VERIFY_KEY_LEN = 32 };
struct fw_verify_entry {
	uint8_t key[FW_VERIFY_KEY_LEN];
	struct hip_hi *hi;          /* NULL: free */
};
struct fw_hi_entry {
	struct hip_hit hit;         /* an ORCHID of hi, checked */
	struct hip_hi *hi;          /* NULL: free */
};
struct fw_verify_cache {
	struct fw_verify_entry e[FW_VERIFY_CACHE];
	unsigned next;
	uint64_t hits, misses;
	struct fw_hi_entry hi[FW_HI_CACHE];
	unsigned hi_next;
	uint64_t hi_hits;
};
/* fw_verify_host_id_keep, except that an R1 already verified (the same
 * signed bytes and signature) is not verified again, nor a HOST_ID already
 * decoded for the same HIT decoded again. */
enum fw_bad fw_verify_host_id_cached(const struct fw_packet *p, struct fw_verify_cache *c,
				     struct hip_hi **hi);
void fw_verify_cache_free(struct fw_verify_cache *c);

#endif
