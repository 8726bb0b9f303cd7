/*
 * esp.h - ESP in BEET mode (RFC 7402 App. B over RFC 4303): framing of inner
 * IPv6 packets between HITs (or IPv4 between LSIs, D-22) into ESP and
 * back, the 64-bit anti-replay window (RFC 4303 §3.4.3, App. A2), and outer
 * IPv4/IPv6 headers. No I/O here
 * (uesp.c does it) and no allocation: everything works on caller buffers.
 *
 * Wire format (exactly what Linux's BEET mode produces for IPv6 inner
 * addresses): outer IP | SPI | seq_lo | IV | payload of the inner packet
 * without its IPv6 header | padding 1, 2, 3... | Pad Length | Next Header =
 * the inner header's Next Header | ICV. IPv4 inner likewise: the IPv4
 * header (20 bytes, no options) goes, Next Header = its Protocol.
 */
#ifndef HIPD_ESP_H
#define HIPD_ESP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/uio.h>

#include "checksum.h"
#include "hip_crypto.h"
#include "hit.h"

enum {
	ESP_HDR_LEN = 8,                      /* SPI | sequence number */
	ESP_IP6_HDR_LEN = 40,
	ESP_IP4_HDR_LEN = 20,
	/* header, IV, padding (< 16), Pad Length, Next Header, ICV */
	ESP_MAX_OVERHEAD = ESP_HDR_LEN + 16 + 15 + 2 + 16,
	/* Room decapsulation needs in front of the ESP header to rebuild the
	 * inner IPv6 header in place (40 bytes replace the 8-byte header and
	 * the IV, 0 with NULL encryption). */
	ESP_DECAP_HEADROOM = ESP_IP6_HDR_LEN - ESP_HDR_LEN,
	ESP_REPLAY_MAX = 1024,                /* window bits we can keep */
	ESP_REPLAY_DEFAULT = 128,
	ESP_NH_NONE = 59,                     /* dummy packet (RFC 4303 §2.6) */
	ESP_NH_BEET_PH = 94,                  /* BEET IPv4 options pseudo-header */
};

/* Receive window over 64-bit sequence numbers: a ring of ESP_REPLAY_MAX
 * bits indexed by seq mod ESP_REPLAY_MAX, of which the last `window`
 * below top count. */
struct esp_replay {
	uint64_t top;                         /* highest authenticated seq, 0 = none yet */
	uint32_t window;
	uint64_t bits[ESP_REPLAY_MAX / 64];
};

/* window 0 = ESP_REPLAY_DEFAULT; -EINVAL above ESP_REPLAY_MAX. */
int esp_replay_init(struct esp_replay *r, uint32_t window);
/* Infer the full sequence number from the low 32 bits on the wire
 * (RFC 4303 App. A2.2) and check it against the window. 0 = may be
 * accepted once its ICV verifies (*seq set), -EALREADY = a duplicate,
 * -ESTALE = left of the window (or a seq_hi below 0). Changes nothing. */
int esp_replay_check(const struct esp_replay *r, uint32_t seq_lo, uint64_t *seq);
/* Record seq as received: call only AFTER its ICV verified (§3.4.3). */
void esp_replay_update(struct esp_replay *r, uint64_t seq);

/* Outbound SA: keys, SPI, the last sequence number sent. */
struct esp_out {
	struct hip_esp_ctx *ctx;
	uint32_t spi;
	uint64_t seq;                         /* last used; the first packet gets 1 */
	struct hip_hit inner_src, inner_dst;  /* our HIT, the peer's */
	/* IPv4 inner (D-22): the packets are IPv4 from lsi_src (ours) to
	 * lsi_dst (the peer's), network order */
	bool inner_v4;
	struct in_addr lsi_src, lsi_dst;
};

/* Inbound SA. */
struct esp_in {
	struct hip_esp_ctx *ctx;
	uint32_t spi;
	struct esp_replay replay;
	struct hip_hit inner_src, inner_dst;  /* the peer's HIT, ours */
	/* IPv4 inner (D-22): rebuilt as IPv4 from lsi_src (the peer's LSI) to
	 * lsi_dst (ours); ip_id numbers the rebuilt headers */
	bool inner_v4;
	struct in_addr lsi_src, lsi_dst;
	uint16_t ip_id;
};

/* Whether an IPv4 packet (len bytes) can go over BEET as it is: 0, or
 * -EPROTONOSUPPORT (header options), -EMSGSIZE (a fragment), -EINVAL
 * (not IPv4, or a Total Length other than len). */
int esp_ip4_check(const uint8_t *ip4, size_t len);

/* ESP packet size for an inner payload of payload_len bytes. */
size_t esp_encap_len(const struct esp_out *sa, size_t payload_len);

/* Encapsulate an inner payload gathered from iov (the inner packet without
 * its IPv6 header) with the given Next Header into out: ESP header to ICV,
 * *out_len bytes. -ENOSPC if cap is short, -EOVERFLOW when the sequence
 * number space is used up (rekey), -EINVAL on bad arguments. */
int esp_encap_v(struct esp_out *sa, uint8_t next_header, const struct iovec *iov, size_t n,
		uint8_t *out, size_t cap, size_t *out_len);
/* Same from a whole inner IPv6 packet (as read from the TUN): checks that it
 * is IPv6 between the SA's HITs with a consistent Payload Length (BEET
 * output check, RFC 7402 App. B) -> -EINVAL otherwise. On an inner_v4 SA
 * the packet is IPv4 between the SA's LSIs, without options (Linux would
 * add the BEET pseudo-header, Next Header 94: we send none, D-22) and not
 * a fragment (BEET carries no fragment offset), with a consistent Total
 * Length; its header is removed and the ESP Next Header is its Protocol. */
int esp_encap(struct esp_out *sa, const uint8_t *ip6, size_t len, uint8_t *out, size_t cap,
	      size_t *out_len);

/* Decapsulate the ESP packet esp (header to ICV, len bytes, the outer IP
 * header already removed) in place: replay check, ICV check, decryption,
 * trailer, window update, then the inner IPv6 header rebuilt from the SA's
 * HITs and hop_limit in front of the payload (inner_v4 SA: an IPv4 header,
 * IHL 5, DF, a fresh ID, TTL hop_limit, the SA's LSIs, checksum set) (the caller guarantees
 * ESP_DECAP_HEADROOM writable bytes before esp). On success *inner points
 * at the inner IPv6 packet of *inner_len bytes and *seq holds the sequence
 * number. Errors: -EBADMSG (malformed or ICV mismatch), -EALREADY / -ESTALE
 * (replay), -ENODATA (dummy packet, Next Header 59), -EPROTONOSUPPORT
 * (Next Header 94, IPv4 inner options), -EINVAL (SPI differs). */
int esp_decap(struct esp_in *sa, uint8_t *esp, size_t len, uint8_t hop_limit,
	      uint8_t **inner, size_t *inner_len, uint64_t *seq);

/* Outer header: an IPv4 header (src and dst both IPv4-mapped; checksum
 * set, DF set, id 0) or an IPv6 header, protocol 50, for an ESP packet of
 * esp_len bytes. Returns the header length or -ENOSPC / -EINVAL. */
int esp_outer_build(const struct hip_addr *src, const struct hip_addr *dst, uint8_t hop_limit,
		    size_t esp_len, uint8_t *out, size_t cap);
/* Parse an outer header (IPv4: what a raw IPv4 socket delivers, options
 * skipped by IHL; IPv6: fixed header, Next Header 50). *esp_off gets the
 * ESP offset, *esp_len the ESP length (from the header's length field,
 * which must fit in len), *hop_limit the TTL / Hop Limit. -EBADMSG. */
int esp_outer_parse(const uint8_t *pkt, size_t len, bool v4, size_t *esp_off, size_t *esp_len,
		    uint8_t *hop_limit, struct hip_addr *src, struct hip_addr *dst);

#endif
