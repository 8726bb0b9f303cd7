/*
 * unit.h - shared helpers for the Check suites in tests/unit/.
 */
#ifndef HIP_UNIT_H
#define HIP_UNIT_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

/* Run one suite (CK_NORMAL output, Check's summary line), initialise the
 * crypto library first. Returns the process exit status. */
int unit_run(Suite *s);
/* Decode hex (whitespace ignored) into out; returns bytes written or -1. */
long unit_hex(const char *hex, uint8_t *out, size_t cap);
/* Path of a file below $top_srcdir (or "." when unset); static buffer. */
const char *unit_srcpath(const char *rel);
/* With HIP_SEED_DIR set, write head (head_len bytes, may be 0) then buf to
 * $HIP_SEED_DIR/NAME.bin: a fuzzer seed (fuzz/corpus/). */
void unit_write_seed(const char *name, const void *head, size_t head_len, const void *buf,
		     size_t len);

#define UNIT_MAIN(suite_fn) \
	int main(void) { return unit_run(suite_fn()); }

#endif
