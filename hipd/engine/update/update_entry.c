/*
 * update_entry.c - the UPDATE code's entry points for local events
 * (update.h): the host's addresses changed (addrwatch.c, hipconf locator
 * commands) and hipconf rekey. Kept apart from the rest of update*.c,
 * which nothing here is called by, so unit tests of the callers can link
 * their own stand-ins.
 */
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
