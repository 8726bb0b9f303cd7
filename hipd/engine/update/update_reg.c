/*
 * update_reg.c - registration in UPDATE (RFC 8003 §3.2): a renewal, a new
 * registration on an existing association, or a cancellation (lifetime
 * 0) goes out as our outstanding UPDATE and is retransmitted until ACKed;
 * the server's answer rides on the ACK (update.c).
 */
#include <errno.h>

#include "update_int.h"

int upd_reg_request(struct hipd *d, struct hip_ha *ha, const struct hip_reg *req)
{
	struct upd_msg m = { 0 };

	if (ha->state != HIP_STATE_ESTABLISHED)
		return -ENOTCONN;
	if (ha->upd && ha->upd->out_kind != UPD_OUT_NONE)
		return -EBUSY;
	m.reg_req = req;
	return upd_send_new(d, ha, UPD_OUT_REG, &m, &ha->addr_local, &ha->addr_peer);
}
