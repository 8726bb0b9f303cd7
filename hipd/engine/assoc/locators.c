/*
 * locators.c - where an association's packets go: the peer's locators
 * mapped by the hosts file or hipconf (RFC 7401 §6.6.1 tries several), and
 * our source address towards one of them (a route lookup, or priv's under
 * privilege separation: struct hipd's pick_source), and the peer's UDP
 * port when its NAT rebinds (RFC 9028 §5.1).
 */
#include <arpa/inet.h>
#include <string.h>

#include "assoc.h"
#include "hit.h"
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

bool eng_nat_rebind(struct hipd *d, struct hip_ha *ha, const struct hip_addr *src, uint16_t sport)
{
	char hit[HIP_HIT_STR_LEN];

	/* a port change only: a new address is mobility (RFC 8046, UPDATE) */
	if (!ha->peer_port || !sport || sport == ha->peer_port ||
	    memcmp(src, &ha->addr_peer, sizeof(*src)))
		return false;
	log_notice("%s: NAT mapping changed, port %u -> %u: ESP and HIP follow",
		   hip_hit_to_str(&ha->hit_peer, hit, sizeof(hit)), ha->peer_port, sport);
	ha->peer_port = sport;
	d->engine->nat_rebinds++;
	if (ha->dp_installed)
		(void)eng_dp_move(d, ha);   /* same SPIs and keys, the new port */
	return true;
}

/* RFC 1918, RFC 6598 (shared address space of carrier-grade NATs) and IPv6
 * unique local addresses: behind a NAT, probably. */
static bool addr_private(const struct hip_addr *a)
{
	if (hip_addr_is_v4(a)) {
		uint32_t v = ntohl(hip_addr_v4(a).s_addr);

		return (v >> 24) == 10 || (v >> 20) == (172u << 4 | 1) ||
		       (v >> 16) == (192u << 8 | 168) || (v >> 22) == (100u << 2 | 1);
	}
	return (a->in6.s6_addr[0] & 0xfe) == 0xfc;
}

uint16_t eng_nat_port_for(const struct hipd *d, const struct hip_addr *src,
			  const struct hip_addr *dst)
{
	if (!d->send_udp)
		return 0;
	switch (d->conf.nat_traversal) {
	case HIPD_NAT_ALWAYS:
		return (uint16_t)d->conf.nat_port;
	case HIPD_NAT_AUTO:
		return addr_private(src) && !addr_private(dst) ? (uint16_t)d->conf.nat_port : 0;
	case HIPD_NAT_NEVER:
		break;
	}
	return 0;
}
