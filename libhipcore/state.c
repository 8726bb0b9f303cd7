/*
 * state.c - the HIP association state machine as one table (RFC 7401 §4.4.2,
 * Tables 2-9; Figure 2 with erratum 4408; docs/protocol.md §7).
 *
 * Each cell is the action hipd runs and the state reached when the action's
 * checks succeed ("OK" in the RFC). A failed check leaves the state as it is,
 * so "If fail, stay at X" needs no entry. "Receive ANYOTHER: drop and stay"
 * is the default: cells not written here are zero, i.e. HIP_ACT_DROP, and
 * hip_fsm_lookup() turns every DROP into {DROP, same state}.
 *
 * Choices where the tables leave room (documented per row below):
 * - CLOSED + outbound data: Table 8 says "send I1, stay at CLOSED". We go to
 *   I1-SENT, like the same trigger in CLOSING (Table 7). Staying in CLOSED
 *   would leave the new I1 without the I1 retransmission timer and crossing
 *   rules of Table 3, and CLOSED's only timer (UAL + 2 MSL) would discard
 *   the association while the new exchange is in flight. An R1 in CLOSED is
 *   still processed (Table 8) for an I1 that hipd sent before the move.
 * - NOTIFY: §6.13 makes it informational ("SHOULD NOT change state"); Tables
 *   5 and 6 list "process, stay". We process it in every state that holds
 *   per-peer state (all but UNASSOCIATED), e.g. I2_ACKNOWLEDGEMENT in
 *   I2-SENT, never with a state change. The handler verifies the signature
 *   and drops what it cannot verify.
 * - E-FAILED (Table 9) only waits: its timer expires it, NOTIFY is logged
 *   (above), everything else is dropped.
 */
#include <stddef.h>

#include "hip_wire.h"
#include "state.h"

#define GO(act, st) { HIP_ACT_##act, HIP_STATE_##st }
/* An explicit drop the RFC lists by name (documentation; same as unset). */
#define DROPPED { HIP_ACT_DROP, HIP_STATE_UNASSOCIATED }

static const struct hip_transition fsm[HIP_STATE_COUNT_][HIP_EV_COUNT_] = {
	/* Table 2: UNASSOCIATED, the start state. Data for an unknown
	 * association and CLOSE: optional ICMP (rate-limited), stay. */
	[HIP_STATE_UNASSOCIATED] = {
		[HIP_EV_DATA]           = GO(SEND_I1, I1_SENT),
		[HIP_EV_RECV_I1]        = GO(SEND_R1, UNASSOCIATED), /* §6.7: no state */
		[HIP_EV_RECV_I2]        = GO(PROCESS_I2, R2_SENT),
		[HIP_EV_RECV_CLOSE]     = DROPPED,
		[HIP_EV_DATA_IN]        = DROPPED,
	},
	/* Table 3: I1-SENT, initiating a base exchange. */
	[HIP_STATE_I1_SENT] = {
		[HIP_EV_RECV_I1]        = GO(I1_CROSSED, I1_SENT),   /* §6.7 step 3 */
		[HIP_EV_RECV_I2]        = GO(PROCESS_I2, R2_SENT),
		/* Erratum 4408: "recv R1", not R2. An R1 lacking our HIT Suite
		 * makes the handler send a new I1 and stay (§6.8 step 4). */
		[HIP_EV_RECV_R1]        = GO(PROCESS_R1, I2_SENT),
		/* Below I1_RETRIES_MAX resend and stay; beyond it hipd moves to
		 * E-FAILED itself (see extra_moves). */
		[HIP_EV_TIMEOUT]        = GO(RETRANSMIT, I1_SENT),
		[HIP_EV_RECV_NOTIFY]    = GO(PROCESS_NOTIFY, I1_SENT),
	},
	/* Table 4: I2-SENT, waiting to finish the base exchange. */
	[HIP_STATE_I2_SENT] = {
		[HIP_EV_RECV_I1]        = GO(SEND_R1, I2_SENT),
		/* "If successful, send I2 and stay": §6.8 step 3, only an R1
		 * with a larger R1 counter restarts the processing. */
		[HIP_EV_RECV_R1]        = GO(PROCESS_R1_NEWER, I2_SENT),
		/* Lower local HIT drops and stays, greater sends R2 (§6.9 step 5). */
		[HIP_EV_RECV_I2]        = GO(I2_CROSSED, R2_SENT),
		[HIP_EV_RECV_R2]        = GO(PROCESS_R2, ESTABLISHED),
		[HIP_EV_RECV_CLOSE]     = GO(PROCESS_CLOSE, CLOSED),
		[HIP_EV_TIMEOUT]        = GO(RETRANSMIT, I2_SENT),   /* then E-FAILED */
		[HIP_EV_RECV_NOTIFY]    = GO(PROCESS_NOTIFY, I2_SENT),
	},
	/* Table 5: R2-SENT, waiting to finish (Responder). Its "CLOSE fail:
	 * stay at ESTABLISHED" is read as R2-SENT (docs/protocol.md §7). */
	[HIP_STATE_R2_SENT] = {
		[HIP_EV_RECV_I1]        = GO(SEND_R1, R2_SENT),
		[HIP_EV_RECV_I2]        = GO(RESEND_R2, R2_SENT),    /* duplicate I2 */
		[HIP_EV_RECV_R1]        = DROPPED,
		[HIP_EV_RECV_R2]        = DROPPED,
		[HIP_EV_RECV_CLOSE_ACK] = DROPPED,
		[HIP_EV_DATA_IN]        = GO(CONFIRM, ESTABLISHED),
		/* Processed (rekeying is accepted in R2-SENT, RFC 7402 §6.8),
		 * and it confirms the exchange like data. */
		[HIP_EV_RECV_UPDATE]    = GO(PROCESS_UPDATE, ESTABLISHED),
		/* The R2-SENT timer is the Exchange Complete (EC) timer. */
		[HIP_EV_TIMEOUT]        = GO(CONFIRM, ESTABLISHED),
		[HIP_EV_RECV_CLOSE]     = GO(PROCESS_CLOSE, CLOSED),
		[HIP_EV_RECV_NOTIFY]    = GO(PROCESS_NOTIFY, R2_SENT),
	},
	/* Table 6: ESTABLISHED. Inbound ESP data is the kernel's business. */
	[HIP_STATE_ESTABLISHED] = {
		[HIP_EV_RECV_I1]        = GO(SEND_R1, ESTABLISHED),
		/* Puzzle and opaque checked; the old HA and its SAs go. */
		[HIP_EV_RECV_I2]        = GO(REPLACE_I2, R2_SENT),
		[HIP_EV_RECV_R1]        = DROPPED,
		[HIP_EV_RECV_R2]        = DROPPED,
		[HIP_EV_RECV_CLOSE_ACK] = DROPPED,
		[HIP_EV_RECV_UPDATE]    = GO(PROCESS_UPDATE, ESTABLISHED),
		/* ESTABLISHED's timer is the UPDATE timer (§6.11): retransmit,
		 * or after UPDATE_RETRY_MAX go to CLOSING (see extra_moves). */
		[HIP_EV_TIMEOUT]        = GO(PROCESS_UPDATE, ESTABLISHED),
		[HIP_EV_RECV_NOTIFY]    = GO(PROCESS_NOTIFY, ESTABLISHED),
		[HIP_EV_UAL]            = GO(SEND_CLOSE, CLOSING),
		/* Local close: the same action as the UAL row (§5.3.7). */
		[HIP_EV_CLOSE_REQ]      = GO(SEND_CLOSE, CLOSING),
		[HIP_EV_RECV_CLOSE]     = GO(PROCESS_CLOSE, CLOSED),
	},
	/* Table 7: CLOSING, CLOSE sent, waiting for CLOSE_ACK. */
	[HIP_STATE_CLOSING] = {
		[HIP_EV_DATA]           = GO(SEND_I1, I1_SENT),      /* new incarnation */
		[HIP_EV_RECV_I1]        = GO(SEND_R1, CLOSING),
		[HIP_EV_RECV_I2]        = GO(PROCESS_I2, R2_SENT),
		[HIP_EV_RECV_R1]        = GO(PROCESS_R1, I2_SENT),
		/* Crossing CLOSEs: ack theirs, discard state, go to CLOSED. */
		[HIP_EV_RECV_CLOSE]     = GO(PROCESS_CLOSE, CLOSED),
		[HIP_EV_RECV_CLOSE_ACK] = GO(PROCESS_CLOSE_ACK, UNASSOCIATED),
		/* Retransmit CLOSE; after UAL + MSL hipd expires the HA itself. */
		[HIP_EV_TIMEOUT]        = GO(RETRANSMIT, CLOSING),
		[HIP_EV_RECV_NOTIFY]    = GO(PROCESS_NOTIFY, CLOSING),
	},
	/* Table 8: CLOSED, CLOSE_ACK sent, resending it on repeated CLOSEs. */
	[HIP_STATE_CLOSED] = {
		/* Table 8 says "stay at CLOSED": see the header comment. */
		[HIP_EV_DATA]           = GO(SEND_I1, I1_SENT),
		[HIP_EV_RECV_I1]        = GO(SEND_R1, CLOSED),
		[HIP_EV_RECV_I2]        = GO(PROCESS_I2, R2_SENT),
		[HIP_EV_RECV_R1]        = GO(PROCESS_R1, I2_SENT),
		[HIP_EV_RECV_CLOSE]     = GO(RESEND_CLOSE_ACK, CLOSED),
		[HIP_EV_RECV_CLOSE_ACK] = GO(PROCESS_CLOSE_ACK, UNASSOCIATED),
		[HIP_EV_TIMEOUT]        = GO(EXPIRE, UNASSOCIATED),  /* UAL + 2 MSL */
		[HIP_EV_RECV_NOTIFY]    = GO(PROCESS_NOTIFY, CLOSED),
	},
	/* Table 9: E-FAILED, wait an implementation-specific time. New data
	 * is dropped meanwhile so an unreachable peer is not hammered. */
	[HIP_STATE_E_FAILED] = {
		[HIP_EV_DATA]           = DROPPED,
		[HIP_EV_TIMEOUT]        = GO(EXPIRE, UNASSOCIATED),
		[HIP_EV_RECV_NOTIFY]    = GO(PROCESS_NOTIFY, E_FAILED),
	},
};

#undef GO
#undef DROPPED

/* What a DROP leads to: the state it happened in. */
static const struct hip_transition fsm_drop[HIP_STATE_COUNT_] = {
	[HIP_STATE_UNASSOCIATED] = { HIP_ACT_DROP, HIP_STATE_UNASSOCIATED },
	[HIP_STATE_I1_SENT]      = { HIP_ACT_DROP, HIP_STATE_I1_SENT },
	[HIP_STATE_I2_SENT]      = { HIP_ACT_DROP, HIP_STATE_I2_SENT },
	[HIP_STATE_R2_SENT]      = { HIP_ACT_DROP, HIP_STATE_R2_SENT },
	[HIP_STATE_ESTABLISHED]  = { HIP_ACT_DROP, HIP_STATE_ESTABLISHED },
	[HIP_STATE_CLOSING]      = { HIP_ACT_DROP, HIP_STATE_CLOSING },
	[HIP_STATE_CLOSED]       = { HIP_ACT_DROP, HIP_STATE_CLOSED },
	[HIP_STATE_E_FAILED]     = { HIP_ACT_DROP, HIP_STATE_E_FAILED },
};

/* Moves a handler makes on its own, beyond each cell's success state. */
static const struct {
	enum hip_state from, to;
} extra_moves[] = {
	/* Table 3 timeout: counter > I1_RETRIES_MAX -> E-FAILED. */
	{ HIP_STATE_I1_SENT, HIP_STATE_E_FAILED },
	/* Table 4 timeout: counter > I2_RETRIES_MAX -> E-FAILED. */
	{ HIP_STATE_I2_SENT, HIP_STATE_E_FAILED },
	/* Table 7 timeout: timeout sum > UAL + MSL -> UNASSOCIATED. */
	{ HIP_STATE_CLOSING, HIP_STATE_UNASSOCIATED },
	/* §6.11: UPDATE not ACKed after UPDATE_RETRY_MAX -> CLOSING. */
	{ HIP_STATE_ESTABLISHED, HIP_STATE_CLOSING },
};

const struct hip_transition *hip_fsm_lookup(enum hip_state s, enum hip_event e)
{
	const struct hip_transition *t;

	if ((unsigned)s >= HIP_STATE_COUNT_ || (unsigned)e >= HIP_EV_COUNT_)
		return NULL;
	t = &fsm[s][e];
	return t->action == HIP_ACT_DROP ? &fsm_drop[s] : t;
}

bool hip_fsm_move_allowed(enum hip_state from, enum hip_state to)
{
	size_t i;

	if ((unsigned)from >= HIP_STATE_COUNT_ || (unsigned)to >= HIP_STATE_COUNT_)
		return false;
	if (from == to)
		return true;
	for (i = 0; i < HIP_EV_COUNT_; i++)
		if (fsm[from][i].action != HIP_ACT_DROP && fsm[from][i].next == to)
			return true;
	for (i = 0; i < sizeof(extra_moves) / sizeof(extra_moves[0]); i++)
		if (extra_moves[i].from == from && extra_moves[i].to == to)
			return true;
	return false;
}

static const char *const state_names[HIP_STATE_COUNT_] = {
	[HIP_STATE_UNASSOCIATED] = "UNASSOCIATED",
	[HIP_STATE_I1_SENT]      = "I1-SENT",
	[HIP_STATE_I2_SENT]      = "I2-SENT",
	[HIP_STATE_R2_SENT]      = "R2-SENT",
	[HIP_STATE_ESTABLISHED]  = "ESTABLISHED",
	[HIP_STATE_CLOSING]      = "CLOSING",
	[HIP_STATE_CLOSED]       = "CLOSED",
	[HIP_STATE_E_FAILED]     = "E-FAILED",
};

static const char *const event_names[HIP_EV_COUNT_] = {
	[HIP_EV_RECV_I1]        = "RECV_I1",
	[HIP_EV_RECV_R1]        = "RECV_R1",
	[HIP_EV_RECV_I2]        = "RECV_I2",
	[HIP_EV_RECV_R2]        = "RECV_R2",
	[HIP_EV_RECV_UPDATE]    = "RECV_UPDATE",
	[HIP_EV_RECV_NOTIFY]    = "RECV_NOTIFY",
	[HIP_EV_RECV_CLOSE]     = "RECV_CLOSE",
	[HIP_EV_RECV_CLOSE_ACK] = "RECV_CLOSE_ACK",
	[HIP_EV_DATA]           = "DATA",
	[HIP_EV_DATA_IN]        = "DATA_IN",
	[HIP_EV_TIMEOUT]        = "TIMEOUT",
	[HIP_EV_UAL]            = "UAL",
	[HIP_EV_CLOSE_REQ]      = "CLOSE_REQ",
};

static const char *const action_names[HIP_ACT_COUNT_] = {
	[HIP_ACT_DROP]              = "DROP",
	[HIP_ACT_SEND_I1]           = "SEND_I1",
	[HIP_ACT_SEND_R1]           = "SEND_R1",
	[HIP_ACT_I1_CROSSED]        = "I1_CROSSED",
	[HIP_ACT_PROCESS_R1]        = "PROCESS_R1",
	[HIP_ACT_PROCESS_R1_NEWER]  = "PROCESS_R1_NEWER",
	[HIP_ACT_PROCESS_I2]        = "PROCESS_I2",
	[HIP_ACT_I2_CROSSED]        = "I2_CROSSED",
	[HIP_ACT_RESEND_R2]         = "RESEND_R2",
	[HIP_ACT_REPLACE_I2]        = "REPLACE_I2",
	[HIP_ACT_PROCESS_R2]        = "PROCESS_R2",
	[HIP_ACT_PROCESS_UPDATE]    = "PROCESS_UPDATE",
	[HIP_ACT_PROCESS_NOTIFY]    = "PROCESS_NOTIFY",
	[HIP_ACT_PROCESS_CLOSE]     = "PROCESS_CLOSE",
	[HIP_ACT_RESEND_CLOSE_ACK]  = "RESEND_CLOSE_ACK",
	[HIP_ACT_PROCESS_CLOSE_ACK] = "PROCESS_CLOSE_ACK",
	[HIP_ACT_CONFIRM]           = "CONFIRM",
	[HIP_ACT_RETRANSMIT]        = "RETRANSMIT",
	[HIP_ACT_SEND_CLOSE]        = "SEND_CLOSE",
	[HIP_ACT_EXPIRE]            = "EXPIRE",
};

const char *hip_state_name(enum hip_state s)
{
	return (unsigned)s < HIP_STATE_COUNT_ ? state_names[s] : "UNKNOWN";
}

const char *hip_event_name(enum hip_event e)
{
	return (unsigned)e < HIP_EV_COUNT_ ? event_names[e] : "UNKNOWN";
}

const char *hip_action_name(enum hip_action a)
{
	return (unsigned)a < HIP_ACT_COUNT_ ? action_names[a] : "UNKNOWN";
}

enum hip_event hip_event_for_packet(unsigned packet_type)
{
	switch (packet_type) {
	case HIP_I1:        return HIP_EV_RECV_I1;
	case HIP_R1:        return HIP_EV_RECV_R1;
	case HIP_I2:        return HIP_EV_RECV_I2;
	case HIP_R2:        return HIP_EV_RECV_R2;
	case HIP_UPDATE:    return HIP_EV_RECV_UPDATE;
	case HIP_NOTIFY:    return HIP_EV_RECV_NOTIFY;
	case HIP_CLOSE:     return HIP_EV_RECV_CLOSE;
	case HIP_CLOSE_ACK: return HIP_EV_RECV_CLOSE_ACK;
	}
	return HIP_EV_COUNT_;
}
