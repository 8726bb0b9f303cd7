/*
 * fw_track.h - hipfw's association tracker (middlebox mode): what a router
 * between two HIP hosts learns from the packets it forwards, following the
 * base exchange, UPDATE and CLOSE (RFC 7401 §4.4 as an onlooker sees the
 * states, RFC 7402 §6 for the SPIs, RFC 8046 for the locators), and which
 * ESP it may let through: (source, destination, SPI) triples the kernel's
 * fast path matches (fw_esp.c).
 */
#ifndef HIPFW_TRACK_H
#define HIPFW_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_packet.h"

enum {
	FW_TRACK_MAX_DEFAULT = 4096,     /* associations, --max-associations */
	FW_TRACK_HALF_OPEN_S = 60,       /* I1..I2 seen, no R2: forgotten after */
	FW_TRACK_CLOSED_S = 30,          /* CLOSE_ACK seen: kept this long */
	FW_TRACK_ESP_MAX = 12,           /* ESP triples per direction: 3 SPIs (the
					  * SPI, a rekey's next, the LSI pair's,
					  * D-22) x 2 sources x 2 destinations */
};

/* Why the tracker drops a HIP or ESP packet (counters in `hipfw show`). */
enum fw_track_drop {
	FW_TRK_OK = 0,
	FW_TRK_BAD_SIGNATURE,    /* R2, CLOSE, CLOSE_ACK not signed by the learnt HI */
	FW_TRK_I2_REPLAY,        /* an I2 from another address, association past I2 */
	FW_TRK_UPDATE_FORGED,    /* an UPDATE not signed by the learnt HI */
	FW_TRK_AFTER_CLOSE,      /* HIP after CLOSE other than a new I1 */
	FW_TRK_NO_ASSOCIATION,   /* R2, UPDATE, CLOSE... for a HIT pair never seen */
	FW_TRK_UNVERIFIED,       /* strict: its sender's HI is not known */
	FW_TRK_BAD_PARAM,        /* ESP_INFO, SEQ, ACK or LOCATOR_SET do not decode */
	FW_TRK_TABLE_FULL,       /* no room for a new association */
	FW_TRK_ESP_UNKNOWN,      /* ESP with an SPI (or locators) never learnt */
	FW_TRK_DROP_MAX,
};

/* The middlebox's view of an association (RFC 7401 §4.4.2 as seen from
 * the path: the states of the two ends merged). */
enum fw_track_state {
	FW_TS_I1 = 1,            /* I1 seen */
	FW_TS_R1,                /* R1 seen (the Responder's HI learnt) */
	FW_TS_I2,                /* I2 seen (the Initiator's SPI learnt) */
	FW_TS_ESTABLISHED,       /* R2 seen: ESP allowed */
	FW_TS_CLOSING,           /* CLOSE seen: ESP removed */
	FW_TS_CLOSED,            /* CLOSE_ACK seen */
};

/* One end of an association. */
struct fw_track_end {
	struct hip_hit hit;
	struct hip_hi *hi;       /* learnt from R1 / a clear HOST_ID; NULL = not yet */
	struct hip_addr loc;     /* its locator (the source of its packets) */
	bool have_loc;
	uint16_t udp_port;       /* over UDP (RFC 9028 §5.1): the port it sends from
				  * (and receives on) at loc, 0 = raw HIP or not known;
				  * the ESP-in-UDP fast path matches it (D-24) */
	struct hip_addr loc_next;  /* a new locator from a verified UPDATE, */
	bool have_loc_next;        /* allowed until the peer's ACK makes it loc */
	uint16_t udp_port_next;    /* its port at loc_next */
	uint32_t loc_seq;
	uint32_t spi;            /* the SPI it receives ESP on (0 = not learnt) */
	uint32_t spi_next;       /* a rekey's new inbound SPI, until the peer's ACK */
	uint32_t spi_seq;
	uint32_t lsi_spi;        /* the SPI it receives IPv4 between LSIs on (hipd's
				  * LSI_ESP_INFO, docs/decisions.md D-22); 0 = none */
	uint32_t lsi_spi_offer;  /* the Initiator's, offered in a verified I2: learnt
				  * when the R2 answers with the Responder's */
	uint64_t packets;        /* HIP packets it sent that passed */
};

struct fw_assoc {
	struct fw_track_end end[2];   /* [0] the Initiator, [1] the Responder */
	enum fw_track_state state;
	bool unverified;              /* an I2 passed whose HI was encrypted */
	uint64_t created_ns, changed_ns;
	uint64_t esp_generation;      /* bumped when its ESP triples change */
	uint64_t probation_ns;        /* restored from the state file (fw_state.c):
				       * forgotten at this time unless its ESP or a
				       * verified packet confirms it first; 0 = not */
	uint32_t next;                /* hash chain / free list (index + 1, 0 = end) */
	bool used;
};

/* An ESP triple: from src to dst with SPI spi; over UDP from port sport to
 * port dport (0: not matched: raw HIP, or a port not known). */
struct fw_esp_triple {
	struct hip_addr src, dst;
	uint32_t spi;
	uint16_t sport, dport;
};

/* Told when an association's ESP triples change (added, moved, gone); the
 * association is still readable during the call. */
typedef void (*fw_track_esp_cb)(const struct fw_assoc *a, void *arg);

struct fw_track_ctr {
	uint64_t drop[FW_TRK_DROP_MAX];
	uint64_t created, established, closed, expired, evicted;
	uint64_t updates, moves, rekeys;
	uint64_t unverified_accepted;   /* default policy: a packet we could not verify */
	uint64_t restored, confirmed, unconfirmed;   /* from the state file (D-21) */
	uint64_t esp_udp_other_port;  /* ESP in UDP of a learnt triple from or to
				       * other ports than learnt: passed (D-24) */
	uint64_t udp_rebinds;         /* a verified packet moved an end's UDP port */
};

struct fw_track {
	struct fw_assoc *pool;
	uint32_t *bucket;             /* index + 1 of the first entry, 0 = empty */
	uint32_t max, nbuckets, used, free_head;
	uint32_t evict_at;             /* where the next eviction looks first */
	bool strict;                  /* unverifiable packets are dropped */
	bool dirty;                   /* changed since the state file was written */
	fw_track_esp_cb esp_cb;
	void *esp_arg;
	struct fw_track_ctr ctr;
};

/* A table of at most max associations. strict: an I2 whose HOST_ID is
 * encrypted, and any later packet whose sender's HI is not known, is
 * dropped (docs/decisions.md D-18); otherwise accepted and counted. */
int fw_track_init(struct fw_track *t, uint32_t max, bool strict, fw_track_esp_cb cb,
		  void *arg);
void fw_track_free(struct fw_track *t);
/* A HIP packet that passed fw_packet_parse and fw_verify_host_id (hi: the
 * HOST_ID it carried, already checked against its HIT and signature, or
 * NULL; the tracker takes a reference). FW_TRK_OK = let it pass. */
enum fw_track_drop fw_track_hip(struct fw_track *t, const struct fw_packet *p,
				struct hip_hi *hi, uint64_t now_ns);
/* An ESP packet that reached userspace: OK only for a learnt triple. */
enum fw_track_drop fw_track_esp(struct fw_track *t, const struct hip_addr *src,
				const struct hip_addr *dst, uint32_t spi);
/* The same for ESP in UDP from sport to dport (0, 0: raw ESP): a learnt
 * triple passes from any port (a NAT may have rebound it, as hipd follows,
 * RFC 9028 §5.1), and other ports than the learnt ones are counted
 * (esp_udp_other_port); the kernel's fast path matches the learnt ones. */
enum fw_track_drop fw_track_esp_udp(struct fw_track *t, const struct hip_addr *src,
				    const struct hip_addr *dst, uint32_t spi, uint16_t sport,
				    uint16_t dport);
/* Forget half-open entries older than FW_TRACK_HALF_OPEN_S, closed ones
 * older than FW_TRACK_CLOSED_S and restored ones past their probation. */
void fw_track_expire(struct fw_track *t, uint64_t now_ns);
/* The ESP triples an association allows now (both directions): count.
 * None for an association on probation: its ESP comes to userspace, where
 * fw_track_esp lets it through and confirms it. */
size_t fw_track_triples(const struct fw_assoc *a, struct fw_esp_triple *out, size_t cap);
/* The association of a HIT pair (either order), or NULL. */
const struct fw_assoc *fw_track_find(const struct fw_track *t, const struct hip_hit *x,
				     const struct hip_hit *y);
/* Walk the used entries: index from 0, NULL at the end. */
const struct fw_assoc *fw_track_at(const struct fw_track *t, uint32_t *index);
/* A new entry for the state file's loader (fw_state.c), not yet filled:
 * NULL if the pair is already there or the table is full (no eviction). */
struct fw_assoc *fw_track_restore(struct fw_track *t, const struct hip_hit *init,
				  const struct hip_hit *resp, uint64_t now_ns);
/* Forget every entry (a refused state file); the callback is not told. */
void fw_track_clear(struct fw_track *t);
const char *fw_track_drop_name(enum fw_track_drop d);
const char *fw_track_state_name(enum fw_track_state s);

#endif
