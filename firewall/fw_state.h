/*
 * fw_state.h - hipfw's state file (docs/decisions.md D-21): the tracked
 * associations written on a clean stop and every few seconds while they
 * change, read back at the next start so established associations keep
 * their ESP across a restart. The file is input: every field is checked,
 * a bad one refuses the whole file.
 */
#ifndef HIPFW_STATE_H
#define HIPFW_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "fw_track.h"

#define FW_STATE_FILE "hipfw.state"

enum {
	FW_STATE_VERSION = 3,          /* written; versions 1 (no UDP ports) and 2 (no
					* LSI SPIs, D-22) are read */
	FW_STATE_HEADER = 16,          /* magic 8, version 2, flags 2, count 4 */
	FW_STATE_ENTRY = 4,            /* state 1, flags 1, zero 2; then two ends */
	FW_STATE_END = 84,             /* an end without its HI bytes */
	FW_STATE_END_V2 = 76,          /* the same in version 2 */
	FW_STATE_END_V1 = 72,          /* the same in version 1 */
	FW_STATE_HI_MAX = 1024,        /* HI bytes of one end (RSA-4096 is 516) */
	FW_STATE_ENTRIES_MAX = 1 << 20,   /* as --max-associations */
};

/* The associations past I2 of t, encoded into a new buffer (*out, freed by
 * the caller). 0 or -errno. */
int fw_state_encode(const struct fw_track *t, uint8_t **out, size_t *len);
/* Read (buf, len) into t, which must be empty: the entries restored, those
 * established on probation until now_ns + grace_ns. The number restored
 * (err then empty, or a note worth a log line: a version 1 file), or -errno
 * with err saying what is wrong (t is left empty). */
int fw_state_decode(struct fw_track *t, const uint8_t *buf, size_t len, uint64_t now_ns,
		    uint64_t grace_ns, char *err, size_t err_len);
/* Write dir/hipfw.state atomically (a temporary file, mode 0600, synced,
 * renamed over it). 0 or -errno. */
int fw_state_save(const struct fw_track *t, const char *dir);
/* Load dir/hipfw.state into t: the number restored (err as
 * fw_state_decode's), 0 without a file, or -errno with err saying why (t is
 * left empty). */
int fw_state_load(struct fw_track *t, const char *dir, uint64_t now_ns, uint64_t grace_ns,
		  char *err, size_t err_len);

#endif
