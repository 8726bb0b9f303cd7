/*
 * update_reg.c - registration in UPDATE (RFC 8003 §3.2): a renewal, a new
 * registration on an existing association, or a cancellation (lifetime
 * 0) goes out as our outstanding UPDATE and is retransmitted until ACKed;
 * the server's answer rides on the ACK (update.c). The PEER_PERMISSIONs
 * of a data relay client (RFC 9028 §4.12, §5.13) go the same way.
 */
#include <errno.h>

#include "update_int.h"

/* m as our outstanding UPDATE of kind on an established association. */
static int send_own(struct hipd *d, struct hip_ha *ha, enum upd_out_kind kind,
		    struct upd_msg *m)
{
	if (ha->state != HIP_STATE_ESTABLISHED)
		return -ENOTCONN;
	if (ha->upd && ha->upd->out_kind != UPD_OUT_NONE)
		return -EBUSY;
	return upd_send_new(d, ha, kind, m, &ha->addr_local, &ha->addr_peer);
}

int upd_reg_request(struct hipd *d, struct hip_ha *ha, const struct hip_reg *req)
{
	struct upd_msg m = { .reg_req = req };

	return send_own(d, ha, UPD_OUT_REG, &m);
}

int upd_permit_send(struct hipd *d, struct hip_ha *ha, const struct hip_peer_permission *perms,
		    unsigned n)
{
	struct upd_msg m = { .perms = perms, .n_perms = n };

	return send_own(d, ha, UPD_OUT_PERMIT, &m);
}

void upd_relay_esp_flush(struct hipd *d)
{
	struct reg_client *c = d->engine->reg_client;
	struct reg_srv *s;
	struct hip_ha *ha;
	size_t i;

	for (i = 0; c && (s = reg_client_at(c, i)) != NULL; i++)
		if (s->perm_pending && (ha = hadb_find_peer(d->hadb, &s->hit)) != NULL &&
		    upd_permit_send(d, ha, s->perm, s->n_perm) == 0)
			s->perm_pending = false;
}
