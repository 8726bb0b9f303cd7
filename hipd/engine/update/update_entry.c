/*
 * update_entry.c - the UPDATE code's entry points for local events
 * (update.h): the host's addresses changed (addrwatch.c, hipconf locator
 * commands) and hipconf rekey. Kept apart from the rest of update*.c,
 * which nothing here is called by, so unit tests of the callers can link
 * their own stand-ins.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "hit.h"
#include "net/net.h"
#include "base/base.h"
#include "update_int.h"

/* Loopback and link-local locators are never in the host's list
 * (locset.h): an association using one is left where it is. */
static bool outside_locset(const struct hip_addr *a)
{
	const uint8_t *b = a->in6.s6_addr;
	static const uint8_t lo6[16] = { [15] = 1 };

	if (hip_addr_is_v4(a))
		return b[12] == 127;
	return !memcmp(b, lo6, 16) || (b[0] == 0xfe && (b[1] & 0xc0) == 0x80);
}

static int changed_one(struct hip_ha *ha, void *arg)
{
	struct hipd *d = arg;
	struct hip_addr to, peer;
	bool gone;
	int fam, ret = 0;

	if ((ha->state != HIP_STATE_ESTABLISHED && ha->state != HIP_STATE_R2_SENT) ||
	    outside_locset(&ha->addr_local))
		return 0;
	gone = !locset_has(d->locset, &ha->addr_local);
	/* Still usable: announce only a changed set (RFC 8047), and never
	 * from R2-SENT: the Initiator may not have our R2 yet, and its
	 * retransmitted I2 must still be answered there (an UPDATE would
	 * make us ESTABLISHED, where that I2 is a replay). The grown set
	 * goes out with the next change. */
	if (!gone && (ha->state == HIP_STATE_R2_SENT ||
		      (ha->upd && ha->upd->loc_gen == locset_generation(d->locset))))
		return 0;
	if (ha->state == HIP_STATE_R2_SENT) {
		/* Our UPDATE confirms the exchange for the peer as well. */
		eng_timer_cancel(d, ha);
		eng_retx_clear(ha);
		if (eng_ha_set_state(d, ha, HIP_STATE_ESTABLISHED) < 0)
			return 0;
	}
	to = ha->addr_local;
	if (gone) {
		/* The same family first, else the other (update.h). */
		fam = hip_addr_is_v4(&ha->addr_local) ? AF_INET : AF_INET6;
		ret = locset_preferred(d->locset, fam, &to);
		if (ret < 0 || upd_peer_addr_for(d, ha, &to, &peer) < 0)
			ret = locset_preferred(d->locset, fam == AF_INET ? AF_INET6 : AF_INET,
					       &to);
	}
	if (ret == 0)
		ret = upd_readdress(d, ha, &to);
	if (ret < 0) {
		char hit[HIP_HIT_STR_LEN];

		log_notice("association with %s: no usable locator left (%s); waiting",
			   hip_hit_to_str(&ha->hit_peer, hit, sizeof(hit)), strerror(-ret));
	}
	return 0;
}

void upd_local_addrs_changed(struct hipd *d)
{
	/* Without the host's locator list (in-process tests) nothing is
	 * known to have changed. */
	if (!d->locset || !d->hadb)
		return;
	hadb_foreach(d->hadb, changed_one, d);
}

struct route_move {
	struct hipd *d;
	int family;
	const struct defroute_entry *active;
};

/* Where an association re-announces from after the default route moved:
 * the route's preferred source, else its own address if it is on the
 * route's link, else the first address there; else its own address. */
static void route_source(const struct hipd *d, const struct hip_ha *ha,
			 const struct defroute_entry *r, struct hip_addr *out)
{
	struct hip_local_locator e[HIP_LOCSET_MAX];
	const struct hip_addr *first = NULL;
	size_t n, i;

	*out = ha->addr_local;
	if (!r)
		return;
	if (r->has_prefsrc && locset_has(d->locset, &r->prefsrc)) {
		*out = r->prefsrc;
		return;
	}
	n = locset_entries(d->locset, e, HIP_LOCSET_MAX);
	for (i = 0; i < n; i++) {
		if (e[i].ifindex != r->oif || e[i].hidden ||
		    hip_addr_is_v4(&e[i].addr) != hip_addr_is_v4(&ha->addr_local))
			continue;
		if (!memcmp(&e[i].addr, &ha->addr_local, sizeof(e[i].addr)))
			return;         /* ours is on the route's link: it stays */
		if (!first)
			first = &e[i].addr;
	}
	if (first)
		*out = *first;
}

static int route_moved_one(struct hip_ha *ha, void *arg)
{
	struct route_move *m = arg;
	char hit[HIP_HIT_STR_LEN], a[INET6_ADDRSTRLEN];
	struct hip_addr to;
	int ret;

	if (ha->state != HIP_STATE_ESTABLISHED || !upd_ice_active(ha) ||
	    outside_locset(&ha->addr_local) ||
	    (hip_addr_is_v4(&ha->addr_local) ? AF_INET : AF_INET6) != m->family)
		return 0;
	route_source(m->d, ha, m->active, &to);
	log_info("association with %s: the default route changed: re-announcing from %s",
		 hip_hit_to_str(&ha->hit_peer, hit, sizeof(hit)), hip_addr_to_str(&to, a, sizeof(a)));
	m->d->stats->upd_route_moves++;
	ret = upd_readdress(m->d, ha, &to);
	if (ret < 0)
		log_notice("association with %s: re-announcing after the route change: %s",
			   hit, strerror(-ret));
	return 0;
}

void upd_default_route_changed(struct hipd *d, int family, const struct defroute_entry *active)
{
	struct route_move m = { d, family, active };

	/* no route left: nothing can be sent; the next route brings us here */
	if (!active || !d->locset || !d->hadb)
		return;
	hadb_foreach(d->hadb, route_moved_one, &m);
}

int upd_rekey_peer(struct hipd *d, const struct hip_hit *peer)
{
	struct hip_ha *ha = hadb_find_peer(d->hadb, peer);

	if (!ha)
		return -ENOENT;
	if (ha->state != HIP_STATE_ESTABLISHED)
		return -ENOTCONN;
	/* hipconf rekey: fresh keys with forward secrecy, so a new DH. */
	return upd_rekey_start(d, ha, true);
}
