/*
 * update.h - UPDATE (RFC 7401 §6.11-6.12): mobility (RFC 8046),
 * multihoming (RFC 8047) and rekeying (RFC 7402 §6), engine side
 * (hipd/update*.c). See shared/docs/spec.md §6 "UPDATE" and §8.
 *
 * The received-packet side is reached through the FSM table (fsm.c); these
 * are the entry points for local events.
 */
#ifndef HIPD_UPDATE_H
#define HIPD_UPDATE_H

#include <stddef.h>

#include "checksum.h"
#include "hit.h"

struct hipd;
struct hip_ha;

/* The host's announceable locators changed (addrwatch.c after a netlink
 * batch, or hipconf add/del/hide locator). For every association in
 * ESTABLISHED (or R2-SENT) whose local locator is gone, move it to the
 * preferred locator (same family first, else the other family) with a
 * LOCATOR_SET UPDATE; where the set only grew, announce the new set
 * (multihoming). Safe to call when nothing changed (no packet is sent). */
void hip_update_local_addrs_changed(struct hipd *d);

/* hipconf rekey HIT: start a rekey UPDATE (new ESP_INFO, new DH when
 * conf says so). 0 started; -ENOENT no association with peer; -ENOTCONN
 * not ESTABLISHED; -EBUSY an UPDATE is outstanding. */
int hip_update_rekey(struct hipd *d, const struct hip_hit *peer);

/* Forget an association's UPDATE state (timers, cached replies, pending
 * rekey keys); called by hadb/close paths before the association goes. */
void hip_update_ha_free(struct hipd *d, struct hip_ha *ha);
/* What the association's UPDATE machinery is doing, for hipconf: "idle",
 * "readdress", "address check" or "rekey". */
const char *hip_update_activity(const struct hip_ha *ha);
/* Its memory only (hadb.c, when an association is destroyed). */
void hip_update_state_free(struct hip_ha *ha);

#endif
