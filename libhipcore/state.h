/*
 * state.h - the association state machine as data (RFC 7401 §4.4, Tables
 * 1-9, Figure 2 with erratum 4408; docs/protocol.md §7).
 *
 * One table maps (event, state) to an action and the state reached when the
 * action succeeds. hipd implements one handler per action; a handler whose
 * checks fail leaves the state unchanged. Every state change goes through
 * hip_fsm_move_allowed(), which rejects moves the RFC does not have.
 */
#ifndef HIP_STATE_H
#define HIP_STATE_H

#include <stdbool.h>

enum hip_state {
	HIP_STATE_UNASSOCIATED,
	HIP_STATE_I1_SENT,
	HIP_STATE_I2_SENT,
	HIP_STATE_R2_SENT,
	HIP_STATE_ESTABLISHED,
	HIP_STATE_CLOSING,
	HIP_STATE_CLOSED,
	HIP_STATE_E_FAILED,
	HIP_STATE_COUNT_
};

enum hip_event {
	HIP_EV_RECV_I1,
	HIP_EV_RECV_R1,
	HIP_EV_RECV_I2,
	HIP_EV_RECV_R2,
	HIP_EV_RECV_UPDATE,
	HIP_EV_RECV_NOTIFY,
	HIP_EV_RECV_CLOSE,
	HIP_EV_RECV_CLOSE_ACK,
	HIP_EV_DATA,        /* outbound data / trigger / ACQUIRE needs an SA */
	HIP_EV_DATA_IN,     /* ESP data received from the peer */
	HIP_EV_TIMEOUT,     /* retransmission timer of the current state */
	HIP_EV_UAL,         /* unused-association lifetime expired */
	HIP_EV_CLOSE_REQ,   /* local request to close (hipconf close, shutdown) */
	HIP_EV_COUNT_
};

enum hip_action {
	HIP_ACT_DROP,              /* ignore, count the drop */
	HIP_ACT_SEND_I1,           /* start a base exchange */
	HIP_ACT_SEND_R1,           /* stateless R1 from the cache */
	HIP_ACT_I1_CROSSED,        /* I1-SENT: greater HIT sends R1, lower drops */
	HIP_ACT_PROCESS_R1,        /* verify R1, solve, send I2 */
	HIP_ACT_PROCESS_R1_NEWER,  /* I2-SENT: only with a larger R1 counter */
	HIP_ACT_PROCESS_I2,        /* verify I2, install SAs, send R2 */
	HIP_ACT_I2_CROSSED,        /* I2-SENT: greater HIT processes, lower drops */
	HIP_ACT_RESEND_R2,         /* R2-SENT: duplicate I2 */
	HIP_ACT_REPLACE_I2,        /* ESTABLISHED: valid I2 replaces the HA */
	HIP_ACT_PROCESS_R2,        /* verify R2, install SAs */
	HIP_ACT_PROCESS_UPDATE,
	HIP_ACT_PROCESS_NOTIFY,    /* log only, never changes state */
	HIP_ACT_PROCESS_CLOSE,     /* verify, send CLOSE_ACK */
	HIP_ACT_RESEND_CLOSE_ACK,  /* CLOSED: repeated CLOSE */
	HIP_ACT_PROCESS_CLOSE_ACK, /* verify echo, discard state */
	HIP_ACT_CONFIRM,           /* R2-SENT: first data/UPDATE confirms */
	HIP_ACT_RETRANSMIT,        /* resend the last packet or give up */
	HIP_ACT_SEND_CLOSE,        /* UAL or local close: send CLOSE */
	HIP_ACT_EXPIRE,            /* final timeout: discard state */
	HIP_ACT_COUNT_
};

struct hip_transition {
	enum hip_action action;
	enum hip_state  next;      /* state after the action succeeds */
};

/* Never NULL for valid arguments; unlisted pairs give {DROP, same state}. */
const struct hip_transition *hip_fsm_lookup(enum hip_state s, enum hip_event e);
/* True if the RFC has a transition from -> to (from == to is always true). */
bool hip_fsm_move_allowed(enum hip_state from, enum hip_state to);
const char *hip_state_name(enum hip_state s);     /* "I1-SENT" ... */
const char *hip_event_name(enum hip_event e);
const char *hip_action_name(enum hip_action a);
/* Event for a received packet type, or HIP_EV_COUNT_ if none. */
enum hip_event hip_event_for_packet(unsigned packet_type);

#endif
