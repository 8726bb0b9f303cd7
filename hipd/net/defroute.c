/*
 * defroute.c - the host's default routes from rtnetlink (defroute.h).
 *
 * Kernel input, parsed like any other: the rtmsg header and every
 * attribute length are checked before they are read; values are copied
 * out with memcpy.
 */
#include <errno.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "defroute.h"

static int fam_slot(int family)
{
	return family == AF_INET6 ? 1 : 0;
}

/* An address attribute of the route's family into a hip_addr. */
static int attr_addr(uint8_t family, const uint8_t *p, size_t len, struct hip_addr *out)
{
	if (family == AF_INET && len == sizeof(struct in_addr)) {
		struct in_addr v4;

		memcpy(&v4, p, sizeof(v4));
		hip_addr_from_v4(out, &v4);
		return 0;
	}
	if (family == AF_INET6 && len == sizeof(struct in6_addr)) {
		struct in6_addr v6;

		memcpy(&v6, p, sizeof(v6));
		hip_addr_from_v6(out, &v6);
		return 0;
	}
	return -EINVAL;
}

int defroute_parse(const uint8_t *body, size_t len, struct defroute_entry *out)
{
	struct rtmsg rtm;
	uint32_t table, u32;
	size_t off;

	if (len < sizeof(rtm))
		return -EINVAL;
	memcpy(&rtm, body, sizeof(rtm));
	if ((rtm.rtm_family != AF_INET && rtm.rtm_family != AF_INET6) || rtm.rtm_dst_len != 0 ||
	    rtm.rtm_type != RTN_UNICAST)
		return 0;
	memset(out, 0, sizeof(*out));
	out->family = rtm.rtm_family;
	table = rtm.rtm_table;
	for (off = NLMSG_ALIGN(sizeof(rtm)); off + sizeof(struct rtattr) <= len;) {
		struct rtattr ra;
		const uint8_t *p;
		size_t alen;

		memcpy(&ra, body + off, sizeof(ra));
		if (ra.rta_len < sizeof(ra) || ra.rta_len > len - off)
			return -EINVAL;
		p = body + off + RTA_LENGTH(0);
		alen = ra.rta_len - RTA_LENGTH(0);
		switch (ra.rta_type) {
		case RTA_TABLE:
		case RTA_OIF:
		case RTA_PRIORITY:
			if (alen != sizeof(u32))
				return -EINVAL;
			memcpy(&u32, p, sizeof(u32));
			if (ra.rta_type == RTA_TABLE)
				table = u32;
			else if (ra.rta_type == RTA_OIF)
				out->oif = u32 > INT32_MAX ? 0 : (int)u32;
			else
				out->metric = u32;
			break;
		case RTA_GATEWAY:
			if (attr_addr(out->family, p, alen, &out->gw) < 0)
				return -EINVAL;
			break;
		case RTA_PREFSRC:
			if (attr_addr(out->family, p, alen, &out->prefsrc) < 0)
				return -EINVAL;
			out->has_prefsrc = true;
			break;
		default:
			break;
		}
		off += RTA_ALIGN(ra.rta_len);
	}
	return table == RT_TABLE_MAIN ? 1 : 0;
}

static bool same_route(const struct defroute_entry *a, const struct defroute_entry *b)
{
	return a->family == b->family && a->oif == b->oif && a->metric == b->metric &&
	       !memcmp(&a->gw, &b->gw, sizeof(a->gw));
}

static void entry_del(struct defroute *dr, const struct defroute_entry *e)
{
	size_t i;

	for (i = 0; i < dr->n; i++) {
		if (same_route(&dr->e[i], e)) {
			dr->e[i] = dr->e[--dr->n];
			return;
		}
	}
}

void defroute_dump_add(struct defroute *dr, const struct defroute_entry *e)
{
	size_t i;

	for (i = 0; i < dr->n; i++) {
		if (same_route(&dr->e[i], e)) {
			dr->e[i] = *e;          /* its preferred source may have changed */
			return;
		}
	}
	/* full: the newest is kept, the oldest of its family forgotten */
	if (dr->n == DEFROUTE_MAX) {
		for (i = 0; i < dr->n && dr->e[i].family != e->family; i++)
			;
		if (i == dr->n)
			return;
		dr->e[i] = dr->e[--dr->n];
	}
	dr->e[dr->n++] = *e;
}

void defroute_settle(struct defroute *dr)
{
	int f;

	for (f = 0; f < 2; f++) {
		const struct defroute_entry *best = NULL;
		size_t i;

		for (i = 0; i < dr->n; i++)
			if (fam_slot(dr->e[i].family) == f && (!best || dr->e[i].metric < best->metric))
				best = &dr->e[i];
		if (!best) {
			if (dr->have_active[f])
				dr->changed[f] = true;
			dr->have_active[f] = false;
			continue;
		}
		if (!dr->have_active[f] || !same_route(&dr->active[f], best) ||
		    dr->active[f].has_prefsrc != best->has_prefsrc ||
		    memcmp(&dr->active[f].prefsrc, &best->prefsrc, sizeof(best->prefsrc)))
			dr->changed[f] = true;
		dr->active[f] = *best;
		dr->have_active[f] = true;
	}
}

void defroute_event(struct defroute *dr, bool add, bool replace, const struct defroute_entry *e)
{
	size_t i;

	/* NLM_F_REPLACE: the kernel replaced the route of the same metric
	 * (`ip route replace default ...`) and sends no RTM_DELROUTE for it */
	for (i = 0; add && replace && i < dr->n;) {
		if (dr->e[i].family == e->family && dr->e[i].metric == e->metric)
			dr->e[i] = dr->e[--dr->n];
		else
			i++;
	}
	if (add)
		defroute_dump_add(dr, e);
	else
		entry_del(dr, e);
	defroute_settle(dr);
}

void defroute_dump_begin(struct defroute *dr)
{
	dr->n = 0;
}

bool defroute_take_changed(struct defroute *dr, int family, struct defroute_entry *out,
			   bool *have)
{
	int f = fam_slot(family);
	bool c = dr->changed[f];

	dr->changed[f] = false;
	*have = dr->have_active[f];
	if (*have)
		*out = dr->active[f];
	return c;
}
