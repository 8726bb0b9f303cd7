/*
 * conf_prefix.c - address prefix lists in hipd.conf (conf_int.h
 * K_PREFIXES): `opportunistic_peers` names where hipd may start a base
 * exchange without the peer's HIT (RFC 7401 §4.1.8, docs/decisions.md
 * D-27). "none", "any" (0.0.0.0/0 and ::/0), or ADDRESS[/LEN] words.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "conf_int.h"

static const char blanks[] = " \t";

/* One ADDRESS[/LEN] word of wl bytes at p. */
static int prefix_word(const char *p, size_t wl, struct hipd_conf_prefix *out, char *why,
		       size_t whylen)
{
	char tok[INET6_ADDRSTRLEN + 8], *slash, *end;
	unsigned long len;
	unsigned max, i;

	if (wl >= sizeof(tok)) {
		snprintf(why, whylen, "'%.40s...' is not an address or prefix", p);
		return -EINVAL;
	}
	memcpy(tok, p, wl);
	tok[wl] = '\0';
	slash = strchr(tok, '/');
	if (slash)
		*slash = '\0';
	if (hip_addr_from_str(tok, &out->addr) < 0) {
		snprintf(why, whylen, "'%s' is not an IP address", tok);
		return -EINVAL;
	}
	max = hip_addr_is_v4(&out->addr) ? 32 : 128;
	len = max;
	if (slash) {
		errno = 0;
		len = strtoul(slash + 1, &end, 10);
		if (errno || end == slash + 1 || *end || slash[1] == '-' || len > max) {
			snprintf(why, whylen, "'%s/%s': the prefix length must be 0..%u", tok,
				 slash + 1, max);
			return -EINVAL;
		}
	}
	out->len = (uint8_t)len;
	/* keep the network only: matching compares whole bytes then a mask */
	for (i = (max == 32 ? 96 : 0) + (unsigned)len; i < 128; i++)
		out->addr.in6.s6_addr[i / 8] &= (uint8_t)~(0x80u >> (i % 8));
	return 0;
}

int conf_prefixes_parse(const char *value, struct hipd_conf_prefix *out, size_t *n,
			char *why, size_t whylen)
{
	const char *p = value;
	size_t wl;

	*n = 0;
	if (strcmp(value, "none") == 0)
		return 0;
	if (strcmp(value, "any") == 0) {
		prefix_word("0.0.0.0/0", 9, &out[(*n)++], why, whylen);
		prefix_word("::/0", 4, &out[(*n)++], why, whylen);
		return 0;
	}
	for (p += strspn(p, blanks); *p; p += strspn(p, blanks)) {
		wl = strcspn(p, blanks);
		if (*n == HIPD_CONF_PREFIXES_MAX) {
			snprintf(why, whylen, "more than %d prefixes", HIPD_CONF_PREFIXES_MAX);
			return -EINVAL;
		}
		if (prefix_word(p, wl, &out[*n], why, whylen) < 0)
			return -EINVAL;
		(*n)++;
		p += wl;
	}
	return 0;
}

static bool prefix_has(const struct hipd_conf_prefix *pf, const struct hip_addr *a)
{
	unsigned bits = (hip_addr_is_v4(&pf->addr) ? 96u : 0u) + pf->len, whole = bits / 8;
	uint8_t mask = (uint8_t)(0xff00u >> (bits % 8));

	if (hip_addr_is_v4(&pf->addr) != hip_addr_is_v4(a))
		return false;
	if (memcmp(pf->addr.in6.s6_addr, a->in6.s6_addr, whole) != 0)
		return false;
	return whole == 16 || (a->in6.s6_addr[whole] & mask) == pf->addr.in6.s6_addr[whole];
}

bool hipd_conf_opportunistic_to(const struct hipd_conf *c, const struct hip_addr *addr)
{
	size_t i;

	for (i = 0; i < c->n_opportunistic_peers; i++)
		if (prefix_has(&c->opportunistic_peers[i], addr))
			return true;
	return false;
}
