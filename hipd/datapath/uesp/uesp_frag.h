/*
 * uesp_frag.h - IPv4 reassembly on the userspace datapath's way out
 * (D-22). An IPv4 datagram to a peer LSI larger than hip0's MTU reaches
 * uesp as fragments (the kernel fragments on hip0); BEET for IPv4 has no
 * fragment fields (RFC 7402 App. B: the inner header is rebuilt from the
 * SA), so the datagram is put back together here (RFC 791 §3.2) and sent
 * as one ESP packet, whose outer packet the kernel fragments: the wire
 * of the kernel datapath, which applies BEET before fragmenting.
 *
 * Bounded: UESP_FRAG_SLOTS datagrams at once, each at most 65535 bytes,
 * UESP_FRAG_TIMEOUT_NS to complete (our own host's fragments, arriving
 * back to back). Overlapping or inconsistent fragments drop the whole
 * datagram (as RFC 5722 for IPv6); an exact duplicate is ignored.
 */
#ifndef HIPD_UESP_FRAG_H
#define HIPD_UESP_FRAG_H

#include <stddef.h>
#include <stdint.h>

enum {
	UESP_FRAG_SLOTS = 32,
	UESP_FRAG_DGRAM_MAX = 65535,            /* IPv4 Total Length */
	UESP_FRAG_UNITS = (UESP_FRAG_DGRAM_MAX + 7) / 8,
};
#define UESP_FRAG_TIMEOUT_NS 2000000000ull

struct uesp_frag_stats {
	uint64_t frags;         /* fragments taken in */
	uint64_t reassembled;   /* datagrams completed */
	uint64_t dups;          /* exact duplicates ignored */
	uint64_t timeouts;      /* datagrams dropped incomplete */
	uint64_t overlaps;      /* ... for overlapping or inconsistent fragments */
	uint64_t limits;        /* fragments dropped: all slots busy, too big, no memory */
	uint64_t bad;           /* fragments dropped: not whole 8-byte units but the last */
};

struct uesp_frag_dgram {
	uint8_t key[11];        /* source, destination, protocol, ID (RFC 791) */
	uint8_t state;          /* 0 free, 1 in progress, 2 handed out */
	uint64_t start_ns;
	size_t total;           /* datagram length once the last fragment came, else 0 */
	size_t have;            /* payload bytes received */
	uint8_t *buf;           /* header (from the first fragment) + payload */
	uint8_t seen[UESP_FRAG_UNITS / 8 + 1];  /* 8-byte units received */
};

struct uesp_frag {
	struct uesp_frag_dgram d[UESP_FRAG_SLOTS];
	struct uesp_frag_stats st;
};

/* Is this IPv4 packet a fragment (MF or an offset)? len >= 20, checked. */
static inline int uesp_frag_is(const uint8_t *ip4, size_t len)
{
	return len >= 20 && (((ip4[6] & 0x3f) | ip4[7]) != 0);
}

/* Take one fragment (IPv4, IHL 5, Total Length == len) at now_ns. Returns
 * 0, and in *dgram / *dgram_len the whole datagram once this fragment
 * completes it (a header without fragment fields, its checksum set; valid
 * until uesp_frag_release()), else *dgram NULL; or -EINVAL (no fragment,
 * or a bad one: counted in bad), -EPROTONOSUPPORT (options: for the caller
 * to count), or -ENOSPC / -ENOMEM / -EMSGSIZE / -EEXIST (dropped, counted
 * here). */
int uesp_frag_add(struct uesp_frag *f, const uint8_t *ip4, size_t len, uint64_t now_ns,
		  uint8_t **dgram, size_t *dgram_len);
/* Done with the datagram uesp_frag_add() returned. */
void uesp_frag_release(struct uesp_frag *f, const uint8_t *dgram);
/* Drop datagrams older than the timeout (counted). */
void uesp_frag_expire(struct uesp_frag *f, uint64_t now_ns);
/* Free everything (the table itself is the caller's). */
void uesp_frag_clear(struct uesp_frag *f);

#endif
