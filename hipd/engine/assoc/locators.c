/*
 * locators.c - where an association's packets go: the peer's locators
 * mapped by the hosts file or hipconf (RFC 7401 §6.6.1 tries several), and
 * our source address towards one of them (a route lookup, or priv's under
 * privilege separation: struct hipd's pick_source).
 */
#include "assoc.h"
#include "engine/engine_int.h"
#include "engine/reg/reg.h"
#include "net/net.h"

int eng_peer_locators(struct hipd *d, const struct hip_hit *peer,
		      struct hip_addr *out, int max)
{
	const struct hosts_entry *e = d->hosts ? hosts_lookup(d->hosts, peer) : NULL;
	const struct reg_srv *s;
	int i, n;

	if (!e) {
		/* a registration server (hipd.conf server, hipconf add server) */
		s = d->engine && d->engine->reg_client ?
			reg_client_find(d->engine->reg_client, peer) : NULL;
		if (!s)
			return 0;
		if (out && max > 0)
			out[0] = s->addr;
		return 1;
	}
	if (!out)
		return (int)e->n_loc;
	n = (int)e->n_loc < max ? (int)e->n_loc : max;
	for (i = 0; i < n; i++)
		out[i] = e->loc[i];
	return n;
}

int eng_pick_source(struct hipd *d, const struct hip_addr *dst, struct hip_addr *src)
{
	if (d->pick_source)
		return d->pick_source(d, dst, src);
	return hip_sock_pick_source(dst, src);
}
