/*
 * control_proto.h - the hipd control protocol, shared by hipd and hipconf.
 *
 * Transport: a SOCK_STREAM UNIX socket (default /run/hipd/hipd.sock, mode
 * 0660, group control_group). hipd identifies the peer with SO_PEERCRED:
 * root (and hipd's own uid) may run every command, members of control_group
 * the read-only ones ("show ...", "help"), anybody else gets status 2.
 *
 * Every message, both ways, is a frame:
 *
 *     length (4 bytes, network byte order) | body (length bytes)
 *
 * Request body, 2..CTL_REQ_MAX bytes:
 *
 *     flags (1 byte) | word '\0' | word '\0' | ...
 *
 *   flags: bit 0 (CTL_F_JSON) asks for JSON output; other bits must be 0.
 *   words: 1..CTL_ARGS_MAX argv words, each non-empty and NUL-terminated,
 *   without control characters (bytes < 0x20 and 0x7f). The first words
 *   name the command ("show" "maps", "add" "map"), the rest are its
 *   arguments.
 *
 * Response body, 1..CTL_RESP_MAX bytes:
 *
 *     status (1 byte, enum ctl_status) | text (UTF-8, no NUL)
 *
 *   The text is what a person reads (no trailing newline needed), or with
 *   CTL_F_JSON one JSON value; errors in JSON are {"error": "message"}.
 *
 * A connection may carry several requests, answered in order. A malformed
 * or oversize request gets a status 1 response and the connection is closed;
 * so is a connection idle for CTL_IDLE_SECONDS.
 */
#ifndef HIPD_CONTROL_PROTO_H
#define HIPD_CONTROL_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define CTL_DEFAULT_SOCKET "/run/hipd/hipd.sock"

enum ctl_status {
	CTL_OK       = 0,
	CTL_EUSAGE   = 1,   /* bad request, unknown command, bad arguments */
	CTL_EPERM    = 2,   /* permission denied */
	CTL_ENOENT   = 3,   /* not found (no such mapping, association) */
	CTL_EFAILED  = 4,   /* the command failed */
};

enum {
	CTL_HDR_LEN       = 4,
	CTL_REQ_MAX       = 4096,        /* request body */
	CTL_RESP_MAX      = 1 << 20,     /* response body */
	CTL_ARGS_MAX      = 32,
	CTL_F_JSON        = 0x01,
	CTL_F_ALL         = CTL_F_JSON,
	CTL_IDLE_SECONDS  = 30,
};

uint32_t ctl_len_get(const uint8_t hdr[CTL_HDR_LEN]);
void ctl_len_put(uint8_t hdr[CTL_HDR_LEN], uint32_t len);

/* Build a whole request frame (header included) into buf. Returns its
 * length, -EMSGSIZE if it does not fit CTL_REQ_MAX or cap, -EINVAL for an
 * empty or invalid word or bad flags. */
int ctl_request_encode(uint8_t *buf, size_t cap, uint8_t flags, int argc,
		       const char *const argv[]);
/* Check a request body (without the header) and split it: argv[i] point
 * into body. Returns 0, -EBADMSG if malformed, -E2BIG for too many words. */
int ctl_request_decode(const uint8_t *body, size_t len, uint8_t *flags,
		       const char *argv[CTL_ARGS_MAX], int *argc);

/* "ok", "bad request", "permission denied", "not found", "failed". */
const char *ctl_status_str(int status);

#endif
