/*
 * update_mem.c - freeing an association's UPDATE state (update_int.h),
 * memory only: hadb.c calls it for every association it destroys, without
 * the rest of the engine (upd_ha_ending() removes datapath state
 * first).
 */
#include <stdlib.h>

#include "update_int.h"

void upd_state_free(struct hip_ha *ha)
{
	struct hip_update *u = ha->upd;

	upd_ice_free(ha);
	hip_wipe(ha->upd_prk, sizeof(ha->upd_prk));
	ha->upd_have_prk = false;
	if (!u)
		return;
	hip_dh_free(u->new_dh);
	eng_buf_free(&u->out_pkt, &u->out_len);
	eng_buf_free(&u->reply_pkt, &u->reply_len);
	hip_wipe(u, sizeof(*u));
	free(u);
	ha->upd = NULL;
}

const char *upd_activity(const struct hip_ha *ha)
{
	const struct hip_update *u = ha->upd;

	if (ha->ice_pending)
		return "connectivity checks";
	if (!u)
		return "idle";
	if (u->rekey_role != UPD_REKEY_NONE)
		return "rekey";
	switch (u->out_kind) {
	case UPD_OUT_READDRESS:
		return "readdress";
	case UPD_OUT_VERIFY:
		return "address check";
	case UPD_OUT_REKEY:
	case UPD_OUT_REKEY_REPLY:
		return "rekey";
	case UPD_OUT_PROBE:
		return "liveness probe";
	case UPD_OUT_REG:
		return "registration";
	case UPD_OUT_PERMIT:
		return "data relay permissions";
	case UPD_OUT_NONE:
		break;
	}
	return u->verify_queued ? "address check" : "idle";
}
