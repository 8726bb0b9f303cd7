/*
 * fw_host.c - host mode's kernel rules (fw_host.h): each rule of the file
 * for the traffic between HITs becomes, in the chain of each direction it
 * has (dir in: HIPFW_HIN, dir out: HIPFW_HOUT), one line per protocol and
 * destination port range it names
 *
 *     -A HIPFW_HIN [-s FROM/128] [-d TO/128] [-p PROTO [-m PROTO --dport LO[:HI]]]
 *         -j ACCEPT|DROP
 *
 * after a first line that accepts the packets of connections the rules
 * already allowed (conntrack ESTABLISHED, RELATED: the replies, ICMPv6
 * errors), so that a rule says who may start what, as "which peers may
 * reach which ports" wants; the default ends each chain. A reload swaps the
 * whole table in one iptables-restore commit: no packet sees half a rule
 * set. Rules with `type` are for HIP packets (fw_rules_decide) and have no
 * kernel line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_host.h"

const char *const fw_host_jump_in[] = { "-s", FW_HIT_PREFIX, "-d", FW_HIT_PREFIX, "!", "-i",
					"lo", "-j", FW_HOST_IN_CHAIN, NULL };
const char *const fw_host_jump_out[] = { "-s", FW_HIT_PREFIX, "-d", FW_HIT_PREFIX, "!", "-o",
					 "lo", "-j", FW_HOST_OUT_CHAIN, NULL };

static const char *const chain_name[2] = { FW_HOST_IN_CHAIN, FW_HOST_OUT_CHAIN };

struct sbuf {
	char *s;
	size_t len, cap;
	int err;
};

static void put(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	if (b->err)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->err = -EINVAL;
			return;
		}
		if ((size_t)n < b->cap - b->len)
			break;
		s = realloc(b->s, b->cap * 2 + (size_t)n);
		if (!s) {
			b->err = -ENOMEM;
			return;
		}
		b->s = s;
		b->cap = b->cap * 2 + (size_t)n;
	}
	b->len += (size_t)n;
}

/* One kernel rule into chain c, owned by owner. */
static int own(struct fw_host_map *map, int c, int32_t owner, size_t *cap)
{
	int32_t *o;

	if (map->n[c] == FW_HOST_KRULES_MAX)
		return -E2BIG;
	if (map->n[c] == cap[c]) {
		cap[c] = cap[c] ? cap[c] * 2 : 64;
		o = realloc(map->owner[c], cap[c] * sizeof(*o));
		if (!o)
			return -ENOMEM;
		map->owner[c] = o;
	}
	map->owner[c][map->n[c]++] = owner;
	return 0;
}

static void put_jump(struct sbuf *b, const char *hook, const char *const args[])
{
	size_t i;

	put(b, "-I %s 1", hook);
	for (i = 0; args[i]; i++)
		put(b, " %s", args[i]);
	put(b, "\n");
}

/* The lines of rule x in chain c (one per protocol and port range). */
static int put_rule(struct sbuf *b, struct fw_host_map *map, size_t *cap, int c,
		    const struct fw_rule *x, int32_t idx)
{
	char hit[HIP_HIT_STR_LEN];
	size_t np = x->nproto ? x->nproto : 1, nr = x->nport ? x->nport : 1, p, q;
	const char *pn = NULL;
	int ret;

	for (p = 0; p < np; p++) {
		for (q = 0; q < nr; q++) {
			ret = own(map, c, idx, cap);
			if (ret < 0)
				return ret;
			put(b, "-A %s", chain_name[c]);
			if (!x->any_from)
				put(b, " -s %s/128", hip_hit_to_str(&x->from, hit, sizeof(hit)));
			if (!x->any_to)
				put(b, " -d %s/128", hip_hit_to_str(&x->to, hit, sizeof(hit)));
			if (x->nproto) {
				pn = fw_proto_name(x->proto[p]);
				if (pn)
					put(b, " -p %s", pn);
				else
					put(b, " -p %u", x->proto[p]);
			}
			/* the parser let ports only with tcp, udp and sctp */
			if (x->nport && pn)
				put(b, " -m %s --dport %u", pn, x->port[q].lo);
			if (x->nport && pn && x->port[q].hi != x->port[q].lo)
				put(b, ":%u", x->port[q].hi);
			put(b, " -j %s\n", x->action == FW_ALLOW ? "ACCEPT" : "DROP");
		}
	}
	return 0;
}

void fw_host_map_free(struct fw_host_map *map)
{
	free(map->owner[0]);
	free(map->owner[1]);
	memset(map, 0, sizeof(*map));
}

int fw_host_script(const struct fw_rules *r, bool jumps, char **script, struct fw_host_map *map)
{
	static const uint8_t dir_of[2] = { FW_DIR_IN, FW_DIR_OUT };
	struct sbuf b = { .cap = 4096 };
	size_t cap[2] = { 0, 0 }, i;
	int c, ret = 0;

	*script = NULL;
	fw_host_map_free(map);
	b.s = malloc(b.cap);
	if (!b.s)
		return -ENOMEM;
	put(&b, "*filter\n:%s - [0:0]\n:%s - [0:0]\n", chain_name[0], chain_name[1]);
	if (jumps) {
		put_jump(&b, "INPUT", fw_host_jump_in);
		put_jump(&b, "OUTPUT", fw_host_jump_out);
	}
	for (c = 0; c < 2 && ret == 0; c++) {
		ret = own(map, c, FW_HOST_ESTABLISHED, cap);
		put(&b, "-A %s -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT\n",
		    chain_name[c]);
		for (i = 0; i < r->n && ret == 0; i++)
			if (!r->rule[i].hip_only && (r->rule[i].dirs & dir_of[c]))
				ret = put_rule(&b, map, cap, c, &r->rule[i], (int32_t)i);
		if (ret == 0)
			ret = own(map, c, FW_HOST_DEFAULT, cap);
		put(&b, "-A %s -j %s\n", chain_name[c], r->policy == FW_ALLOW ? "ACCEPT" : "DROP");
	}
	put(&b, "COMMIT\n");
	if (ret == 0)
		ret = b.err;
	if (ret < 0) {
		free(b.s);
		fw_host_map_free(map);
		return ret;
	}
	*script = b.s;
	return 0;
}

int fw_host_counts_parse(const char *save, size_t len, const struct fw_host_map *map,
			 struct fw_host_counts *out)
{
	char line[FW_LINE_MAX * 2], chain[32];
	size_t pos = 0, n, seen[2] = { 0, 0 };
	const char *nl;
	uint64_t pkts, bytes;
	int32_t owner;
	int c;

	memset(out, 0, sizeof(*out));
	while (pos < len) {
		nl = memchr(save + pos, '\n', len - pos);
		n = nl ? (size_t)(nl - (save + pos)) : len - pos;
		if (n < sizeof(line)) {
			memcpy(line, save + pos, n);
			line[n] = '\0';
		} else {
			line[0] = '\0';     /* not one of ours: they are short */
		}
		pos += n + (nl != NULL);
		if (sscanf(line, "[%" SCNu64 ":%" SCNu64 "] -A %31s ", &pkts, &bytes, chain) != 3)
			continue;
		for (c = 0; c < 2; c++)
			if (strcmp(chain, chain_name[c]) == 0)
				break;
		if (c == 2)
			continue;
		if (seen[c] == map->n[c])
			return -EPROTO;
		owner = map->owner[c][seen[c]++];
		if (owner == FW_HOST_ESTABLISHED)
			out->established += pkts;
		else if (owner == FW_HOST_DEFAULT)
			out->policy += pkts;
		else if (owner >= 0 && owner < FW_RULES_MAX)
			out->rule[owner] += pkts;
	}
	return seen[0] == map->n[0] && seen[1] == map->n[1] ? 0 : -EPROTO;
}
