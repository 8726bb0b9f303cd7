/*
 * hip_file.c - scan the HIP hosts file for a name or an address
 * (hip_file.h). Lines are split by libhipcore/hosts_line.c, the parser
 * hipd uses, which checks the HIT, names and LSI (locators are hipd's
 * business). A line it rejects is skipped here (hipd refuses the whole
 * file and says why), but a name on it still counts as ours, so that a
 * typo never sends a HIP-only name to DNS (D-19).
 */
#include "hip_file.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

/* hipd refuses larger files (hipd/net/hosts.c); so does the module. */
enum { HIP_FILE_MAX = 1024 * 1024 };

/* Any LSI: the range is hipd's to enforce (it knows hipd.conf), D-19. */
static const struct hip_lsi_range any_range = { { 0, 0, 0, 0 }, 0 };

bool hip_file_is_suffixed(const char *name)
{
	const size_t sl = sizeof(HIP_HOSTS_SUFFIX) - 1;
	size_t n = strlen(name), i;

	if (n > 0 && name[n - 1] == '.')
		n--;
	if (n <= sl)
		return false;
	for (i = 0; i < sl; i++) {
		char c = name[n - sl + i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != HIP_HOSTS_SUFFIX[i])
			return false;
	}
	return true;
}

static void fill(struct hip_file_match *m, const struct hip_hosts_line *pl)
{
	size_t i;

	memcpy(m->hit, pl->hit, 16);
	m->has_lsi = pl->has_lsi;
	memcpy(m->lsi, pl->lsi, 4);
	m->n_names = pl->n_names;
	for (i = 0; i < pl->n_names; i++) {
		size_t n = strlen(pl->name[i]);     /* <= HIP_HOSTS_NAME_MAX, checked */

		memcpy(m->name[i], pl->name[i], n + 1);
	}
}

struct query {
	const char *name;       /* NULL: by address */
	int af;
	const uint8_t *addr;
};

static bool line_matches(const struct hip_hosts_line *pl, const struct query *q)
{
	size_t i;

	if (!q->name)
		return q->af == AF_INET6 ? memcmp(pl->hit, q->addr, 16) == 0 :
					   pl->has_lsi && memcmp(pl->lsi, q->addr, 4) == 0;
	for (i = 0; i < pl->n_names; i++)
		if (hip_hosts_name_matches(pl->name[i], q->name))
			return true;
	return false;
}

/* The value of each "KEY..." word of line before any '#', in turn: *pos
 * starts at line; returns the value's length and sets *val, or -1. */
static int next_value(const char *line, const char **pos, const char *key, const char **val)
{
	size_t kl = strlen(key);
	const char *p = *pos, *hash = strchr(line, '#');

	while ((p = strstr(p, key)) && (!hash || p < hash)) {
		const char *v = p + kl;

		*pos = v;
		if (p == line || p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\r') {
			*val = v;
			return (int)strcspn(v, " \t\r#");
		}
		p = v;
	}
	return -1;
}

/* Can line be the one q asks for? A cheap look at the raw text, so that
 * only such lines are parsed (bench/nss.sh: 1000-line files). */
static bool may_match(const char *line, const struct query *q)
{
	char word[HIP_HOSTS_NAME_MAX + 1];
	const char *pos = line, *v;
	struct in6_addr a6;
	int n;

	if (!q->name && q->af == AF_INET6) {
		n = (int)strspn(line, " \t\r");
		v = line + n;
		n = (int)strcspn(v, " \t\r#");
		if (n <= 0 || n >= (int)sizeof(word))
			return false;
		memcpy(word, v, (size_t)n);
		word[n] = '\0';
		return inet_pton(AF_INET6, word, &a6) == 1 && memcmp(a6.s6_addr, q->addr, 16) == 0;
	}
	while ((n = next_value(line, &pos, q->name ? "name=" : "lsi=", &v)) >= 0) {
		struct in_addr a4;

		if (n >= (int)sizeof(word))
			continue;
		memcpy(word, v, (size_t)n);
		word[n] = '\0';
		if (q->name ? hip_hosts_name_matches(word, q->name) :
			      inet_pton(AF_INET, word, &a4) == 1 && memcmp(&a4, q->addr, 4) == 0)
			return true;
	}
	return false;
}

/* HIP_FILE_FOUND, or *claimed set if a broken line names q->name. */
static enum hip_file_result scan(const char *path, const struct query *q,
				 struct hip_file_match *m, bool *claimed)
{
	char line[HIP_HOSTS_LINE_MAX + 2];
	enum hip_file_result res = HIP_FILE_NOT_OURS;
	struct hip_hosts_line pl;
	size_t total = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return HIP_FILE_NOT_OURS;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);
		bool whole = n > 0 && line[n - 1] == '\n';

		total += n;
		if (total > HIP_FILE_MAX)
			break;
		if (!whole && !feof(f)) {
			int c;

			/* longer than hipd accepts: skip the rest of it */
			while (total <= HIP_FILE_MAX && (c = fgetc(f)) != EOF && c != '\n')
				total++;
			continue;
		}
		if (whole)
			line[--n] = '\0';
		if (!may_match(line, q))
			continue;
		if (hip_hosts_line_parse(line, &any_range, &pl, NULL, 0) != 0) {
			/* a name on a line hipd rejects is still ours */
			if (q->name)
				*claimed = true;
			continue;
		}
		if (line_matches(&pl, q)) {
			fill(m, &pl);
			res = HIP_FILE_FOUND;
			break;
		}
	}
	fclose(f);
	return res;
}

enum hip_file_result hip_file_find_name(const char *path, const char *want,
					 struct hip_file_match *m)
{
	char name[HIP_HOSTS_NAME_MAX + sizeof(HIP_HOSTS_SUFFIX) + 1];
	struct query q = { name, 0, NULL };
	bool claimed = false;
	size_t n = strlen(want);

	if (n > 0 && want[n - 1] == '.')
		n--;
	if (n == 0 || n >= sizeof(name))
		return hip_file_is_suffixed(want) ? HIP_FILE_ABSENT : HIP_FILE_NOT_OURS;
	memcpy(name, want, n);
	name[n] = '\0';
	if (scan(path, &q, m, &claimed) == HIP_FILE_FOUND)
		return HIP_FILE_FOUND;
	return claimed || hip_file_is_suffixed(name) ? HIP_FILE_ABSENT : HIP_FILE_NOT_OURS;
}

enum hip_file_result hip_file_find_addr(const char *path, int af, const uint8_t *addr,
					 struct hip_file_match *m)
{
	struct query q = { NULL, af, addr };
	bool claimed = false;
	bool is_hit;

	if (af != AF_INET && af != AF_INET6)
		return HIP_FILE_NOT_OURS;
	if (scan(path, &q, m, &claimed) == HIP_FILE_FOUND)
		return HIP_FILE_FOUND;
	/* ORCHIDv2, RFC 7343: never in DNS's reverse tree */
	is_hit = af == AF_INET6 && addr[0] == 0x20 && addr[1] == 0x01 && addr[2] == 0x00 &&
		 (addr[3] & 0xf0) == 0x20;
	return is_hit ? HIP_FILE_ABSENT : HIP_FILE_NOT_OURS;
}
