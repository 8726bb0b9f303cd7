/*
 * check_state.c - the association state machine against RFC 7401 §4.4.2
 * Tables 2-9 (docs/protocol.md §7), one numbered case per table row.
 */
#include <stdbool.h>
#include <string.h>

#include "hip_wire.h"
#include "state.h"
#include "unit.h"

#define S(x) HIP_STATE_##x
#define E(x) HIP_EV_##x
#define A(x) HIP_ACT_##x

struct fsm_case {
	int n;
	enum hip_state s;
	enum hip_event e;
	enum hip_action a;
	enum hip_state next;
};

/* Expected (state, event) -> (action, next), written from the RFC tables,
 * not from state.c. Every pair not listed here must be {DROP, same}. */
static const struct fsm_case cases[] = {
	/* Table 2: UNASSOCIATED */
	{  1, S(UNASSOCIATED), E(DATA),           A(SEND_I1),           S(I1_SENT) },
	{  2, S(UNASSOCIATED), E(RECV_I1),        A(SEND_R1),           S(UNASSOCIATED) },
	{  3, S(UNASSOCIATED), E(RECV_I2),        A(PROCESS_I2),        S(R2_SENT) },
	{  4, S(UNASSOCIATED), E(DATA_IN),        A(DROP),              S(UNASSOCIATED) },
	{  5, S(UNASSOCIATED), E(RECV_CLOSE),     A(DROP),              S(UNASSOCIATED) },
	{  6, S(UNASSOCIATED), E(RECV_R1),        A(DROP),              S(UNASSOCIATED) },
	{  7, S(UNASSOCIATED), E(RECV_R2),        A(DROP),              S(UNASSOCIATED) },
	{  8, S(UNASSOCIATED), E(RECV_NOTIFY),    A(DROP),              S(UNASSOCIATED) },
	/* Table 3: I1-SENT */
	{ 10, S(I1_SENT),      E(RECV_I1),        A(I1_CROSSED),        S(I1_SENT) },
	{ 11, S(I1_SENT),      E(RECV_I2),        A(PROCESS_I2),        S(R2_SENT) },
	{ 12, S(I1_SENT),      E(RECV_R1),        A(PROCESS_R1),        S(I2_SENT) },
	{ 13, S(I1_SENT),      E(TIMEOUT),        A(RETRANSMIT),        S(I1_SENT) },
	{ 14, S(I1_SENT),      E(RECV_R2),        A(DROP),              S(I1_SENT) },
	{ 15, S(I1_SENT),      E(RECV_CLOSE),     A(DROP),              S(I1_SENT) },
	{ 16, S(I1_SENT),      E(RECV_NOTIFY),    A(PROCESS_NOTIFY),    S(I1_SENT) },
	/* Table 4: I2-SENT */
	{ 20, S(I2_SENT),      E(RECV_I1),        A(SEND_R1),           S(I2_SENT) },
	{ 21, S(I2_SENT),      E(RECV_R1),        A(PROCESS_R1_NEWER),  S(I2_SENT) },
	{ 22, S(I2_SENT),      E(RECV_I2),        A(I2_CROSSED),        S(R2_SENT) },
	{ 23, S(I2_SENT),      E(RECV_R2),        A(PROCESS_R2),        S(ESTABLISHED) },
	{ 24, S(I2_SENT),      E(RECV_CLOSE),     A(PROCESS_CLOSE),     S(CLOSED) },
	{ 25, S(I2_SENT),      E(TIMEOUT),        A(RETRANSMIT),        S(I2_SENT) },
	{ 26, S(I2_SENT),      E(RECV_CLOSE_ACK), A(DROP),              S(I2_SENT) },
	{ 27, S(I2_SENT),      E(RECV_NOTIFY),    A(PROCESS_NOTIFY),    S(I2_SENT) },
	/* Table 5: R2-SENT */
	{ 30, S(R2_SENT),      E(RECV_I1),        A(SEND_R1),           S(R2_SENT) },
	{ 31, S(R2_SENT),      E(RECV_I2),        A(RESEND_R2),         S(R2_SENT) },
	{ 32, S(R2_SENT),      E(RECV_R1),        A(DROP),              S(R2_SENT) },
	{ 33, S(R2_SENT),      E(RECV_R2),        A(DROP),              S(R2_SENT) },
	{ 34, S(R2_SENT),      E(DATA_IN),        A(CONFIRM),           S(ESTABLISHED) },
	{ 35, S(R2_SENT),      E(RECV_UPDATE),    A(PROCESS_UPDATE),    S(ESTABLISHED) },
	{ 36, S(R2_SENT),      E(TIMEOUT),        A(CONFIRM),           S(ESTABLISHED) },
	{ 37, S(R2_SENT),      E(RECV_CLOSE),     A(PROCESS_CLOSE),     S(CLOSED) },
	{ 38, S(R2_SENT),      E(RECV_CLOSE_ACK), A(DROP),              S(R2_SENT) },
	{ 39, S(R2_SENT),      E(RECV_NOTIFY),    A(PROCESS_NOTIFY),    S(R2_SENT) },
	/* Table 6: ESTABLISHED */
	{ 40, S(ESTABLISHED),  E(RECV_I1),        A(SEND_R1),           S(ESTABLISHED) },
	{ 41, S(ESTABLISHED),  E(RECV_I2),        A(REPLACE_I2),        S(R2_SENT) },
	{ 42, S(ESTABLISHED),  E(RECV_R1),        A(DROP),              S(ESTABLISHED) },
	{ 43, S(ESTABLISHED),  E(RECV_R2),        A(DROP),              S(ESTABLISHED) },
	{ 44, S(ESTABLISHED),  E(DATA_IN),        A(DROP),              S(ESTABLISHED) },
	{ 45, S(ESTABLISHED),  E(UAL),            A(SEND_CLOSE),        S(CLOSING) },
	{ 46, S(ESTABLISHED),  E(CLOSE_REQ),      A(SEND_CLOSE),        S(CLOSING) },
	{ 47, S(ESTABLISHED),  E(RECV_UPDATE),    A(PROCESS_UPDATE),    S(ESTABLISHED) },
	{ 48, S(ESTABLISHED),  E(RECV_CLOSE),     A(PROCESS_CLOSE),     S(CLOSED) },
	{ 49, S(ESTABLISHED),  E(RECV_CLOSE_ACK), A(DROP),              S(ESTABLISHED) },
	{ 50, S(ESTABLISHED),  E(RECV_NOTIFY),    A(PROCESS_NOTIFY),    S(ESTABLISHED) },
	{ 51, S(ESTABLISHED),  E(DATA),           A(DROP),              S(ESTABLISHED) },
	{ 52, S(ESTABLISHED),  E(TIMEOUT),        A(PROCESS_UPDATE),    S(ESTABLISHED) }, /* §6.11 */
	/* Table 7: CLOSING */
	{ 60, S(CLOSING),      E(DATA),           A(SEND_I1),           S(I1_SENT) },
	{ 61, S(CLOSING),      E(RECV_I1),        A(SEND_R1),           S(CLOSING) },
	{ 62, S(CLOSING),      E(RECV_I2),        A(PROCESS_I2),        S(R2_SENT) },
	{ 63, S(CLOSING),      E(RECV_R1),        A(PROCESS_R1),        S(I2_SENT) },
	{ 64, S(CLOSING),      E(RECV_CLOSE),     A(PROCESS_CLOSE),     S(CLOSED) },
	{ 65, S(CLOSING),      E(RECV_CLOSE_ACK), A(PROCESS_CLOSE_ACK), S(UNASSOCIATED) },
	{ 66, S(CLOSING),      E(TIMEOUT),        A(RETRANSMIT),        S(CLOSING) },
	{ 67, S(CLOSING),      E(RECV_R2),        A(DROP),              S(CLOSING) },
	{ 68, S(CLOSING),      E(RECV_UPDATE),    A(DROP),              S(CLOSING) },
	{ 69, S(CLOSING),      E(RECV_NOTIFY),    A(PROCESS_NOTIFY),    S(CLOSING) },
	/* Table 8: CLOSED (data: I1-SENT, see state.c) */
	{ 70, S(CLOSED),       E(DATA),           A(SEND_I1),           S(I1_SENT) },
	{ 71, S(CLOSED),       E(RECV_I1),        A(SEND_R1),           S(CLOSED) },
	{ 72, S(CLOSED),       E(RECV_I2),        A(PROCESS_I2),        S(R2_SENT) },
	{ 73, S(CLOSED),       E(RECV_R1),        A(PROCESS_R1),        S(I2_SENT) },
	{ 74, S(CLOSED),       E(RECV_CLOSE),     A(RESEND_CLOSE_ACK),  S(CLOSED) },
	{ 75, S(CLOSED),       E(RECV_CLOSE_ACK), A(PROCESS_CLOSE_ACK), S(UNASSOCIATED) },
	{ 76, S(CLOSED),       E(TIMEOUT),        A(EXPIRE),            S(UNASSOCIATED) },
	{ 77, S(CLOSED),       E(RECV_R2),        A(DROP),              S(CLOSED) },
	{ 78, S(CLOSED),       E(RECV_NOTIFY),    A(PROCESS_NOTIFY),    S(CLOSED) },
	/* Table 9: E-FAILED */
	{ 80, S(E_FAILED),     E(TIMEOUT),        A(EXPIRE),            S(UNASSOCIATED) },
	{ 81, S(E_FAILED),     E(DATA),           A(DROP),              S(E_FAILED) },
	{ 82, S(E_FAILED),     E(RECV_I2),        A(DROP),              S(E_FAILED) },
	{ 83, S(E_FAILED),     E(RECV_NOTIFY),    A(PROCESS_NOTIFY),    S(E_FAILED) },
};
enum { NCASES = sizeof(cases) / sizeof(cases[0]) };

START_TEST(test_table_row)
{
	const struct fsm_case *c = &cases[_i];
	const struct hip_transition *t = hip_fsm_lookup(c->s, c->e);

	ck_assert_msg(t != NULL, "case %d: NULL", c->n);
	ck_assert_msg(t->action == c->a && t->next == c->next,
		      "case %d: %s + %s gave %s -> %s, want %s -> %s", c->n,
		      hip_state_name(c->s), hip_event_name(c->e),
		      hip_action_name(t->action), hip_state_name(t->next),
		      hip_action_name(c->a), hip_state_name(c->next));
}
END_TEST

static bool listed(enum hip_state s, enum hip_event e)
{
	for (size_t i = 0; i < NCASES; i++)
		if (cases[i].s == s && cases[i].e == e)
			return true;
	return false;
}

/* ANYOTHER: drop and stay, in every state. */
START_TEST(test_unlisted_pairs_drop)
{
	for (int s = 0; s < HIP_STATE_COUNT_; s++) {
		for (int e = 0; e < HIP_EV_COUNT_; e++) {
			const struct hip_transition *t = hip_fsm_lookup(s, e);

			ck_assert_ptr_nonnull(t);
			if (listed(s, e))
				continue;
			ck_assert_msg(t->action == HIP_ACT_DROP && t->next == (enum hip_state)s,
				      "%s + %s: %s -> %s, want DROP", hip_state_name(s),
				      hip_event_name(e), hip_action_name(t->action),
				      hip_state_name(t->next));
		}
	}
}
END_TEST

START_TEST(test_case_numbers_unique)
{
	for (size_t i = 0; i < NCASES; i++)
		for (size_t j = i + 1; j < NCASES; j++) {
			ck_assert_int_ne(cases[i].n, cases[j].n);
			ck_assert(cases[i].s != cases[j].s || cases[i].e != cases[j].e);
		}
}
END_TEST

START_TEST(test_lookup_bounds)
{
	ck_assert_ptr_null(hip_fsm_lookup(HIP_STATE_COUNT_, HIP_EV_RECV_I1));
	ck_assert_ptr_null(hip_fsm_lookup(HIP_STATE_UNASSOCIATED, HIP_EV_COUNT_));
	ck_assert(!hip_fsm_move_allowed(HIP_STATE_COUNT_, HIP_STATE_UNASSOCIATED));
}
END_TEST

/* Every success state a table cell names is an allowed move. */
START_TEST(test_table_moves_allowed)
{
	for (int s = 0; s < HIP_STATE_COUNT_; s++)
		for (int e = 0; e < HIP_EV_COUNT_; e++) {
			const struct hip_transition *t = hip_fsm_lookup(s, e);

			ck_assert_msg(hip_fsm_move_allowed(s, t->next), "%s -> %s",
				      hip_state_name(s), hip_state_name(t->next));
		}
}
END_TEST

START_TEST(test_bex_paths)
{
	/* Initiator */
	ck_assert(hip_fsm_move_allowed(S(UNASSOCIATED), S(I1_SENT)));
	ck_assert(hip_fsm_move_allowed(S(I1_SENT), S(I2_SENT)));
	ck_assert(hip_fsm_move_allowed(S(I2_SENT), S(ESTABLISHED)));
	/* Responder */
	ck_assert(hip_fsm_move_allowed(S(UNASSOCIATED), S(R2_SENT)));
	ck_assert(hip_fsm_move_allowed(S(R2_SENT), S(ESTABLISHED)));
	/* Close, both sides */
	ck_assert(hip_fsm_move_allowed(S(ESTABLISHED), S(CLOSING)));
	ck_assert(hip_fsm_move_allowed(S(CLOSING), S(UNASSOCIATED)));
	ck_assert(hip_fsm_move_allowed(S(ESTABLISHED), S(CLOSED)));
	ck_assert(hip_fsm_move_allowed(S(CLOSED), S(UNASSOCIATED)));
	/* Retries exhausted, then the E-FAILED wait */
	ck_assert(hip_fsm_move_allowed(S(I1_SENT), S(E_FAILED)));
	ck_assert(hip_fsm_move_allowed(S(I2_SENT), S(E_FAILED)));
	ck_assert(hip_fsm_move_allowed(S(E_FAILED), S(UNASSOCIATED)));
	for (int s = 0; s < HIP_STATE_COUNT_; s++)
		ck_assert(hip_fsm_move_allowed(s, s));
}
END_TEST

START_TEST(test_forbidden_moves)
{
	static const enum hip_state bad[][2] = {
		{ S(UNASSOCIATED), S(ESTABLISHED) },
		{ S(UNASSOCIATED), S(I2_SENT) },
		{ S(UNASSOCIATED), S(CLOSED) },
		{ S(UNASSOCIATED), S(E_FAILED) },
		{ S(I1_SENT), S(ESTABLISHED) },
		{ S(I1_SENT), S(UNASSOCIATED) },
		{ S(I1_SENT), S(CLOSED) },
		{ S(E_FAILED), S(ESTABLISHED) },
		{ S(E_FAILED), S(I1_SENT) },
		{ S(R2_SENT), S(I2_SENT) },
		{ S(R2_SENT), S(UNASSOCIATED) },
		{ S(ESTABLISHED), S(UNASSOCIATED) },
		{ S(ESTABLISHED), S(I1_SENT) },
		{ S(ESTABLISHED), S(E_FAILED) },
		{ S(CLOSED), S(ESTABLISHED) },
		{ S(CLOSING), S(ESTABLISHED) },
		{ S(R2_SENT), S(E_FAILED) },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(!hip_fsm_move_allowed(bad[i][0], bad[i][1]), "%s -> %s allowed",
			      hip_state_name(bad[i][0]), hip_state_name(bad[i][1]));
}
END_TEST

/* S-05 / §6.10: an R2 is processed only in I2-SENT. */
START_TEST(test_r2_only_in_i2_sent)
{
	for (int s = 0; s < HIP_STATE_COUNT_; s++) {
		const struct hip_transition *t = hip_fsm_lookup(s, E(RECV_R2));

		if (s == S(I2_SENT))
			ck_assert_int_eq(t->action, A(PROCESS_R2));
		else
			ck_assert_msg(t->action == A(DROP) && t->next == (enum hip_state)s,
				      "R2 in %s not dropped", hip_state_name(s));
	}
}
END_TEST

START_TEST(test_r1_dropped_without_outstanding_i1)
{
	static const enum hip_state st[] = { S(ESTABLISHED), S(R2_SENT), S(UNASSOCIATED),
					     S(E_FAILED) };

	for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++) {
		const struct hip_transition *t = hip_fsm_lookup(st[i], E(RECV_R1));

		ck_assert_int_eq(t->action, A(DROP));
		ck_assert_int_eq(t->next, st[i]);
	}
}
END_TEST

/* S-14 / §6.13: NOTIFY never changes the state. */
START_TEST(test_notify_never_moves)
{
	for (int s = 0; s < HIP_STATE_COUNT_; s++) {
		const struct hip_transition *t = hip_fsm_lookup(s, E(RECV_NOTIFY));

		ck_assert_int_eq(t->next, s);
		ck_assert(t->action == A(PROCESS_NOTIFY) || t->action == A(DROP));
	}
	ck_assert_int_eq(hip_fsm_lookup(S(UNASSOCIATED), E(RECV_NOTIFY))->action, A(DROP));
}
END_TEST

START_TEST(test_names)
{
	static const char *const want[HIP_STATE_COUNT_] = {
		"UNASSOCIATED", "I1-SENT", "I2-SENT", "R2-SENT", "ESTABLISHED",
		"CLOSING", "CLOSED", "E-FAILED",
	};

	for (int s = 0; s < HIP_STATE_COUNT_; s++)
		ck_assert_str_eq(hip_state_name(s), want[s]);
	ck_assert_str_eq(hip_state_name(HIP_STATE_COUNT_), "UNKNOWN");
	for (int e = 0; e < HIP_EV_COUNT_; e++) {
		ck_assert_ptr_nonnull(hip_event_name(e));
		ck_assert_str_ne(hip_event_name(e), "UNKNOWN");
	}
	for (int a = 0; a < HIP_ACT_COUNT_; a++) {
		ck_assert_ptr_nonnull(hip_action_name(a));
		ck_assert_str_ne(hip_action_name(a), "UNKNOWN");
	}
	ck_assert_str_eq(hip_action_name(A(PROCESS_R1)), "PROCESS_R1");
}
END_TEST

START_TEST(test_event_for_packet)
{
	ck_assert_int_eq(hip_event_for_packet(HIP_I1), E(RECV_I1));
	ck_assert_int_eq(hip_event_for_packet(HIP_R1), E(RECV_R1));
	ck_assert_int_eq(hip_event_for_packet(HIP_I2), E(RECV_I2));
	ck_assert_int_eq(hip_event_for_packet(HIP_R2), E(RECV_R2));
	ck_assert_int_eq(hip_event_for_packet(HIP_UPDATE), E(RECV_UPDATE));
	ck_assert_int_eq(hip_event_for_packet(HIP_NOTIFY), E(RECV_NOTIFY));
	ck_assert_int_eq(hip_event_for_packet(HIP_CLOSE), E(RECV_CLOSE));
	ck_assert_int_eq(hip_event_for_packet(HIP_CLOSE_ACK), E(RECV_CLOSE_ACK));
	ck_assert_int_eq(hip_event_for_packet(0), HIP_EV_COUNT_);
	ck_assert_int_eq(hip_event_for_packet(5), HIP_EV_COUNT_);
	ck_assert_int_eq(hip_event_for_packet(20), HIP_EV_COUNT_);
}
END_TEST

static Suite *state_suite(void)
{
	Suite *s = suite_create("state");
	TCase *tc = tcase_create("table");

	tcase_add_loop_test(tc, test_table_row, 0, NCASES);
	tcase_add_test(tc, test_unlisted_pairs_drop);
	tcase_add_test(tc, test_case_numbers_unique);
	tcase_add_test(tc, test_lookup_bounds);
	suite_add_tcase(s, tc);

	tc = tcase_create("moves");
	tcase_add_test(tc, test_table_moves_allowed);
	tcase_add_test(tc, test_bex_paths);
	tcase_add_test(tc, test_forbidden_moves);
	tcase_add_test(tc, test_r2_only_in_i2_sent);
	tcase_add_test(tc, test_r1_dropped_without_outstanding_i1);
	tcase_add_test(tc, test_notify_never_moves);
	suite_add_tcase(s, tc);

	tc = tcase_create("names");
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_event_for_packet);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(state_suite)
