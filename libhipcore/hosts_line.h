/*
 * hosts_line.h - one line of the HIP hosts file (hip-hosts(5)), split into
 * its HIT, names, LSI and locator words. Shared by hipd's map
 * (hipd/net/hosts.c) and the NSS module (nss/), so both read the same
 * syntax (docs/decisions.md D-19):
 *
 *   HIT [IP...] [name=NAME]... [lsi=A.B.C.D]      # comment
 *
 * Words after the HIT may come in any order; a word with "name=" or "lsi="
 * is a keyword, any other word is a locator (checked by the caller: the
 * NSS module ignores locators). Depends on libc only (no OpenSSL), so the
 * NSS module can compile it into a small shared object.
 */
#ifndef HIP_HOSTS_LINE_H
#define HIP_HOSTS_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	HIP_HOSTS_LINE_MAX = 1024,      /* characters, without the newline */
	HIP_HOSTS_MAX_WORDS = 8,        /* locators per HIT, names per HIT */
	HIP_HOSTS_NAME_MAX = 253,       /* RFC 1035 §2.3.4 (text form, no final dot) */
	HIP_HOSTS_LABEL_MAX = 63,
};

/* The NSS module answers NAME and NAME.hip (D-19); names in the file are
 * written without the suffix. */
#define HIP_HOSTS_SUFFIX ".hip"

/* An IPv4 prefix LSIs must lie in (D-19: default 198.18.0.0/15). */
struct hip_lsi_range {
	uint8_t net[4];
	unsigned prefix;                /* 0..32; 0 = any unicast address */
};

#define HIP_LSI_RANGE_DEFAULT { { 198, 18, 0, 0 }, 15 }

struct hip_hosts_line {
	uint8_t hit[16];
	size_t n_loc, n_names;
	const char *loc[HIP_HOSTS_MAX_WORDS];     /* words of the line, unchecked */
	const char *name[HIP_HOSTS_MAX_WORDS];    /* checked by hip_hosts_name_problem */
	bool has_lsi;
	uint8_t lsi[4];
};

/* Split line (NUL-terminated, modified in place: words point into it).
 * Returns 0 with *out filled, 1 for a blank or comment-only line, or
 * -EINVAL with a message in err (no file or line prefix: the caller adds
 * them). range may be NULL: the default. */
int hip_hosts_line_parse(char *line, const struct hip_lsi_range *range,
			 struct hip_hosts_line *out, char *err, size_t errlen);

/* Why name cannot be a host name (RFC 1123 §2.1 letters, digits and
 * hyphens; labels of 1..63; at most 253 characters; the last label not
 * all digits, so no name reads as an address; no ".hip" suffix), or NULL. */
const char *hip_hosts_name_problem(const char *name);

/* Why lsi cannot be an LSI in range, or NULL. */
const char *hip_hosts_lsi_problem(const uint8_t lsi[4], const struct hip_lsi_range *range);

/* Parse "A.B.C.D/N" (a network address: no host bits). 0 or -EINVAL. */
int hip_lsi_range_from_str(const char *s, struct hip_lsi_range *out);

/* True if name equals want, or want is name + HIP_HOSTS_SUFFIX; ASCII case
 * is ignored (RFC 4343). */
bool hip_hosts_name_matches(const char *name, const char *want);

/* s, cut and made printable for a message, in buf. */
const char *hip_hosts_quote(const char *s, char *buf, size_t len);

#endif
