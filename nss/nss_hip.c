/*
 * nss_hip.c - glibc NSS "hip" hosts source: NAME and NAME.hip from the HIP
 * hosts file answer the HIT (AF_INET6) and the LSI (AF_INET): the line's
 * lsi=, else the one hipd uses, from the table it exports (lsi_file.h,
 * D-26; none while hipd does not run). Answers go in the caller's buffer;
 * the only state kept is each file's index, rebuilt when the file changes
 * (file_cache.h); no output (the module runs inside every program that
 * resolves a name). D-19 in docs/decisions.md.
 */
#include "nss_hip.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdalign.h>
#include <string.h>

#include "hip_file.h"
#include "lsi_file.h"

/* Carve aligned pieces out of the caller's buffer. */
struct carve {
	char *p;
	size_t left;
};

static void *take(struct carve *c, size_t n, size_t align)
{
	size_t pad = (align - ((uintptr_t)c->p % align)) % align;
	void *r;

	if (pad > c->left || n > c->left - pad)
		return NULL;
	r = c->p + pad;
	c->p += pad + n;
	c->left -= pad + n;
	return r;
}

static char *take_str(struct carve *c, const char *s)
{
	size_t n = strlen(s) + 1;
	char *r = take(c, n, 1);

	if (r)
		memcpy(r, s, n);
	return r;
}

static enum nss_status status(enum nss_status st, int err, int herr, int *errnop,
			      int *h_errnop)
{
	*errnop = err;
	*h_errnop = herr;
	return st;
}

static enum nss_status erange(int *errnop, int *h_errnop)
{
	return status(NSS_STATUS_TRYAGAIN, ERANGE, NETDB_INTERNAL, errnop, h_errnop);
}

/* Not ours: let the next source answer. */
static enum nss_status not_ours(int *errnop, int *h_errnop)
{
	return status(NSS_STATUS_UNAVAIL, ENOENT, HOST_NOT_FOUND, errnop, h_errnop);
}

/* A line without lsi=: the LSI hipd derived for its HIT, if it says (D-26). */
static void lsi_from_hipd(struct hip_file_match *m)
{
	if (!m->has_lsi && hip_lsi_file_lsi_of(HIP_NSS_LSI_FILE, m->hit, m->lsi) == 0)
		m->has_lsi = true;
}

/* An IPv4 address no lsi= names: hipd's LSI of a HIT of the hosts file? */
static enum hip_file_result find_derived_lsi(const uint8_t *addr, struct hip_file_match *m)
{
	uint8_t hit[16];

	if (hip_lsi_file_hit_of(HIP_NSS_LSI_FILE, addr, hit) != 0)
		return HIP_FILE_NOT_OURS;
	/* a HIT mapped by hipconf only, without a line: ours, no name */
	if (hip_file_find_addr(HIP_NSS_HOSTS_FILE, AF_INET6, hit, m) != HIP_FILE_FOUND)
		return HIP_FILE_ABSENT;
	/* an lsi= other than hipd's: the table is older than the file */
	if (m->has_lsi && memcmp(m->lsi, addr, 4) != 0)
		return HIP_FILE_NOT_OURS;
	memcpy(m->lsi, addr, 4);
	m->has_lsi = true;
	return HIP_FILE_FOUND;
}

/* Fill a hostent for m's address of family af (m->has_lsi if AF_INET). */
static enum nss_status fill_hostent(const struct hip_file_match *m, int af,
				    struct hostent *result, char *buffer, size_t buflen,
				    int *errnop, int *h_errnop, char **canonp)
{
	struct carve c = { buffer, buflen };
	size_t alen = af == AF_INET6 ? 16 : 4, i;
	char **aliases, **addrs, *addr;

	if (m->n_names == 0)            /* a hostent needs a name */
		return status(NSS_STATUS_NOTFOUND, ENOENT, HOST_NOT_FOUND, errnop, h_errnop);
	addrs = take(&c, 2 * sizeof(char *), alignof(char *));
	aliases = take(&c, m->n_names * sizeof(char *), alignof(char *));
	addr = take(&c, alen, alignof(uint32_t));
	if (!addrs || !aliases || !addr)
		return erange(errnop, h_errnop);
	memcpy(addr, af == AF_INET6 ? m->hit : m->lsi, alen);
	addrs[0] = addr;
	addrs[1] = NULL;
	/* the first name is the canonical one, the others its aliases */
	for (i = 0; i < m->n_names; i++) {
		char *s = take_str(&c, m->name[i]);

		if (!s)
			return erange(errnop, h_errnop);
		if (i == 0)
			result->h_name = s;
		else
			aliases[i - 1] = s;
	}
	aliases[m->n_names - 1] = NULL;
	result->h_aliases = aliases;
	result->h_addrtype = af;
	result->h_length = (int)alen;
	result->h_addr_list = addrs;
	if (canonp)
		*canonp = result->h_name;
	return status(NSS_STATUS_SUCCESS, 0, 0, errnop, h_errnop);
}

enum nss_status _nss_hip_gethostbyname3_r(const char *name, int af, struct hostent *result,
					  char *buffer, size_t buflen, int *errnop,
					  int *h_errnop, int32_t *ttlp, char **canonp)
{
	struct hip_file_match m;
	enum hip_file_result r;

	if (af != AF_INET && af != AF_INET6)
		return status(NSS_STATUS_UNAVAIL, EAFNOSUPPORT, NO_RECOVERY, errnop, h_errnop);
	r = hip_file_find_name(HIP_NSS_HOSTS_FILE, name, &m);
	if (r == HIP_FILE_NOT_OURS)
		return not_ours(errnop, h_errnop);
	if (r == HIP_FILE_ABSENT)
		return status(NSS_STATUS_NOTFOUND, ENOENT, HOST_NOT_FOUND, errnop, h_errnop);
	if (af == AF_INET)
		lsi_from_hipd(&m);
	if (af == AF_INET && !m.has_lsi)
		return status(NSS_STATUS_NOTFOUND, ENOENT, NO_DATA, errnop, h_errnop);
	if (ttlp)
		*ttlp = 0;
	return fill_hostent(&m, af, result, buffer, buflen, errnop, h_errnop, canonp);
}

enum nss_status _nss_hip_gethostbyname2_r(const char *name, int af, struct hostent *result,
					  char *buffer, size_t buflen, int *errnop,
					  int *h_errnop)
{
	return _nss_hip_gethostbyname3_r(name, af, result, buffer, buflen, errnop, h_errnop,
					 NULL, NULL);
}

enum nss_status _nss_hip_gethostbyname_r(const char *name, struct hostent *result,
					 char *buffer, size_t buflen, int *errnop, int *h_errnop)
{
	return _nss_hip_gethostbyname3_r(name, AF_INET, result, buffer, buflen, errnop,
					 h_errnop, NULL, NULL);
}

enum nss_status _nss_hip_gethostbyname4_r(const char *name, struct gaih_addrtuple **pat,
					  char *buffer, size_t buflen, int *errnop,
					  int *h_errnop, int32_t *ttlp)
{
	struct carve c = { buffer, buflen };
	struct gaih_addrtuple *t6, *t4 = NULL;
	struct hip_file_match m;
	enum hip_file_result r;
	char *canon;

	r = hip_file_find_name(HIP_NSS_HOSTS_FILE, name, &m);
	if (r == HIP_FILE_NOT_OURS)
		return not_ours(errnop, h_errnop);
	if (r == HIP_FILE_ABSENT)
		return status(NSS_STATUS_NOTFOUND, ENOENT, HOST_NOT_FOUND, errnop, h_errnop);
	lsi_from_hipd(&m);
	canon = take_str(&c, m.name[0]);
	t6 = take(&c, sizeof(*t6), alignof(struct gaih_addrtuple));
	if (m.has_lsi)
		t4 = take(&c, sizeof(*t4), alignof(struct gaih_addrtuple));
	if (!canon || !t6 || (m.has_lsi && !t4))
		return erange(errnop, h_errnop);
	memset(t6, 0, sizeof(*t6));
	t6->name = canon;
	t6->family = AF_INET6;
	memcpy(t6->addr, m.hit, 16);
	t6->next = t4;
	if (t4) {
		memset(t4, 0, sizeof(*t4));
		t4->family = AF_INET;
		memcpy(t4->addr, m.lsi, 4);
	}
	/* nscd hands in a tuple of its own for the first answer */
	if (*pat)
		**pat = *t6;
	else
		*pat = t6;
	if (ttlp)
		*ttlp = 0;
	return status(NSS_STATUS_SUCCESS, 0, 0, errnop, h_errnop);
}

enum nss_status _nss_hip_gethostbyaddr2_r(const void *addr, socklen_t len, int af,
					  struct hostent *result, char *buffer, size_t buflen,
					  int *errnop, int *h_errnop, int32_t *ttlp)
{
	struct hip_file_match m;
	enum hip_file_result r;

	if ((af != AF_INET6 || len != 16) && (af != AF_INET || len != 4))
		return not_ours(errnop, h_errnop);
	r = hip_file_find_addr(HIP_NSS_HOSTS_FILE, af, addr, &m);
	if (r == HIP_FILE_NOT_OURS && af == AF_INET)
		r = find_derived_lsi(addr, &m);
	if (r == HIP_FILE_NOT_OURS)
		return not_ours(errnop, h_errnop);
	if (r == HIP_FILE_ABSENT)
		return status(NSS_STATUS_NOTFOUND, ENOENT, HOST_NOT_FOUND, errnop, h_errnop);
	if (ttlp)
		*ttlp = 0;
	return fill_hostent(&m, af, result, buffer, buflen, errnop, h_errnop, NULL);
}

enum nss_status _nss_hip_gethostbyaddr_r(const void *addr, socklen_t len, int af,
					 struct hostent *result, char *buffer, size_t buflen,
					 int *errnop, int *h_errnop)
{
	return _nss_hip_gethostbyaddr2_r(addr, len, af, result, buffer, buflen, errnop,
					 h_errnop, NULL);
}
