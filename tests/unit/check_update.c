/*
 * check_update.c - UPDATE on two in-process engines (bex_harness): SEQ/ACK,
 * retransmission, duplicates, HIP_MAC, Update ID wrap-around
 * (RFC 7401 §6.11-6.12), readdressing with the address check (RFC 8046,
 * D-3) and the host's locator list (RFC 8047). A recording datapath
 * (update_fixture.c) stands in for the kernel / userspace ESP so the SA and
 * policy moves can be checked. Rekeying: check_update_rekey.c.
 */
#include <check.h>
#include <string.h>
#include <sys/socket.h>

#include "update_fixture.h"
#include "coverage.h"
#include "hit.h"
#include "net/hosts.h"
#include "net/locset.h"
#include "params.h"
#include "unit.h"
#include "engine/update/update_int.h"

static uint32_t pkt_seq(const struct hip_packet *p)
{
	const struct hip_param_ref *r = hip_packet_find(p, HIP_PARAM_SEQ);
	uint32_t id;

	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(hip_seq_decode(hip_param_content(p, r), r->len, &id), 0);
	return id;
}

/* A moves to to: M-01 .. M-03 step by step; returns with the CN's check
 * (its UPDATE with ECHO_REQUEST_SIGNED) still queued. */
static void move_a_until_check(struct bex_net *n, const char *to)
{
	struct hip_ha *a = bex_ha(A(n));
	struct hip_addr na = addr(to);
	struct hip_packet p;
	struct hip_locator_set ls;
	struct hip_esp_info ei;
	const struct hip_param_ref *r;
	struct bex_pkt u1;

	ck_assert_int_eq(upd_readdress(&A(n)->d, a, &na), 0);
	/* M-01: from the new address; ESP_INFO old = new = A's inbound SPI,
	 * one type 1 locator with that SPI, P set. */
	ck_assert(bex_take(n, 0, HIP_UPDATE, &u1));
	ck_assert(addr_eq(&u1.src, &na));
	parse(&u1, &p);
	r = hip_packet_find(&p, HIP_PARAM_ESP_INFO);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(hip_esp_info_decode(hip_param_content(&p, r), r->len, &ei), 0);
	ck_assert_uint_eq(ei.old_spi, a->spi_in);
	ck_assert_uint_eq(ei.new_spi, a->spi_in);
	r = hip_packet_find(&p, HIP_PARAM_LOCATOR_SET);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(hip_locator_set_decode(hip_param_content(&p, r), r->len, &ls), 0);
	ck_assert_uint_eq(ls.n, 1);
	ck_assert_uint_eq(ls.loc[0].locator_type, HIP_LOC_TYPE_ESP_SPI);
	ck_assert_uint_eq(ls.loc[0].spi, a->spi_in);
	ck_assert(ls.loc[0].preferred);
	ck_assert_uint_ne(ls.loc[0].lifetime, 0);
	ck_assert(addr_eq(&ls.loc[0].addr, &na));
	ck_assert_ptr_nonnull(hip_packet_find(&p, HIP_PARAM_SEQ));
	/* The MN's SAs moved at once. */
	assert_dp_matches(n, 0);
	bex_inject(n, 1, u1.buf, u1.len, &u1.src, &u1.dst);
}

/* ---- mobility --------------------------------------------------------------- */

static void readdress(bool ipv6_to, const char *to)
{
	struct bex_net n;
	struct hip_addr na = addr(to), old_a;
	struct hip_packet p;
	struct bex_pkt chk, rsp;
	struct hip_ha *b;

	setup(&n, false);
	if (ipv6_to)   /* B's IPv6 locator, as a hosts file would give it */
		ck_assert_int_eq(hosts_add(A(&n)->d.hosts, bex_hit(B(&n)), &na), 0);
	b = bex_ha(B(&n));
	old_a = b->addr_peer;
	move_a_until_check(&n, to);
	/* M-02: B's answer goes to the new address and carries the nonce;
	 * B sends nothing else there yet (credit 0). */
	ck_assert(bex_take(&n, 1, HIP_UPDATE, &chk));
	ck_assert(addr_eq(&chk.dst, &na));
	parse(&chk, &p);
	ck_assert_ptr_nonnull(hip_packet_find(&p, HIP_PARAM_ECHO_REQUEST_SIGNED));
	ck_assert_ptr_nonnull(hip_packet_find(&p, HIP_PARAM_ACK));
	ck_assert_ptr_nonnull(hip_packet_find(&p, HIP_PARAM_SEQ));
	ck_assert_ptr_nonnull(hip_packet_find(&p, HIP_PARAM_ESP_INFO));
	ck_assert(addr_eq(&b->addr_peer, &old_a));
	if (ipv6_to) {
		/* A sends ESP over IPv6 already: B's inbound SA moved ahead
		 * of the check (onto B's address A wrote to, which B's check
		 * comes from); B's outbound SA stays (credit 0). */
		const struct hip_esp_sa *in = fake_sa(&fdp[1], b->spi_in, true);
		const struct hip_esp_sa *out = fake_sa(&fdp[1], b->spi_out, false);

		ck_assert(addr_eq(&in->outer_dst, &chk.src));
		ck_assert(addr_eq(&in->outer_src, &na));
		ck_assert(addr_eq(&b->dp_loc_local, &chk.src));
		ck_assert(addr_eq(&out->outer_dst, &old_a));
		ck_assert(addr_eq(&out->outer_src, &b->addr_local));
		ck_assert(!hip_addr_is_v4(&chk.src));
	} else {
		assert_dp_matches(&n, 1);
	}
	bex_inject(&n, 0, chk.buf, chk.len, &chk.src, &chk.dst);
	/* M-11: A answers with ACK and ECHO_RESPONSE_SIGNED, no SEQ. */
	ck_assert(bex_take(&n, 0, HIP_UPDATE, &rsp));
	parse(&rsp, &p);
	ck_assert_ptr_nonnull(hip_packet_find(&p, HIP_PARAM_ECHO_RESPONSE_SIGNED));
	ck_assert_ptr_null(hip_packet_find(&p, HIP_PARAM_SEQ));
	bex_inject(&n, 1, rsp.buf, rsp.len, &rsp.src, &rsp.dst);
	/* M-03: verified; B's SAs and policy on the new locators. */
	ck_assert(addr_eq(&b->addr_peer, &na));
	ck_assert_int_eq(hip_addr_is_v4(&b->addr_local), !ipv6_to);
	assert_dp_matches(&n, 1);
	assert_dp_matches(&n, 0);
	ck_assert_uint_eq(B(&n)->d.stats->upd_verified, 1);
	ck_assert_uint_eq(n.n, 0);
	ck_assert_uint_eq(bex_drops(A(&n)), 0);
	ck_assert_uint_eq(bex_drops(B(&n)), 0);
	/* Nothing outstanding: no timer runs on either side. */
	ck_assert_uint_eq(bex_ha(A(&n))->retx_timer, 0);
	ck_assert_uint_eq(b->retx_timer, 0);
	teardown(&n);
}

START_TEST(test_readdress_v4_v4)
{
	readdress(false, "127.0.0.3");
}
END_TEST

START_TEST(test_readdress_v4_v6)
{
	readdress(true, "::1");
}
END_TEST

/* M-03 / D-3: without the right ECHO_RESPONSE_SIGNED the new address is
 * never used: an unsigned response, a wrong nonce, or no answer at all. */
START_TEST(test_unverified_never_used)
{
	struct bex_net n;
	struct hip_addr old_a;
	struct hip_opaque un;
	struct upd_msg m = { 0 };
	uint8_t buf[HIP_MAX_PACKET], wrong[UPD_NONCE_LEN] = { 0 };
	struct bex_pkt chk;
	struct hip_ha *a, *b;
	int len, i;

	setup(&n, false);
	a = bex_ha(A(&n));
	b = bex_ha(B(&n));
	old_a = b->addr_peer;
	move_a_until_check(&n, "127.0.0.3");
	ck_assert(bex_take(&n, 1, HIP_UPDATE, &chk));   /* the check is lost */
	/* A (its keys) answers with the nonce in the unsigned kind. */
	un.data = b->upd->nonce;
	un.len = UPD_NONCE_LEN;
	m.has_ack = true;
	m.ack = b->upd->out_id;
	m.echo_resp_unsigned = &un;
	m.n_echo_resp_unsigned = 1;
	len = upd_build(a, &m, buf, sizeof(buf));
	ck_assert_int_gt(len, 0);
	bex_inject(&n, 1, buf, (size_t)len, &a->addr_local, &b->addr_local);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_BAD_ECHO], 1);
	/* A signed response with another nonce. */
	un.data = wrong;
	m.echo_resp_signed = &un;
	m.n_echo_resp_unsigned = 0;
	len = upd_build(a, &m, buf, sizeof(buf));
	bex_inject(&n, 1, buf, (size_t)len, &a->addr_local, &b->addr_local);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_BAD_ECHO], 2);
	ck_assert(addr_eq(&b->addr_peer, &old_a));
	ck_assert(addr_eq(&fake_sa(&fdp[1], b->spi_out, false)->outer_dst, &old_a));
	ck_assert(addr_eq(&fdp[1].pol_peer, &old_a));
	/* No answer: B retries the check, then gives the address up and
	 * keeps the association on the old locator. */
	for (i = 0; i < UPD_RETRY_MAX; i++) {
		bex_fire(B(&n));
		ck_assert(bex_take(&n, 1, HIP_UPDATE, NULL));
	}
	bex_fire(B(&n));
	ck_assert_uint_eq(n.n, 0);
	ck_assert_int_eq(b->state, HIP_STATE_ESTABLISHED);
	ck_assert_int_eq(b->upd->out_kind, UPD_OUT_NONE);
	ck_assert(addr_eq(&b->addr_peer, &old_a));
	assert_dp_matches(&n, 1);
	ck_assert(upd_peer_loc_find(b, &a->addr_local)->state == UPD_LOC_UNVERIFIED);
	teardown(&n);
}
END_TEST

/* S-10: a lost UPDATE is sent again, the same bytes (same Update ID). */
START_TEST(test_lost_update_retransmitted)
{
	struct bex_net n;
	struct hip_addr na = addr("127.0.0.3");
	struct bex_pkt first, again;
	int i;

	setup(&n, false);
	ck_assert_int_eq(upd_readdress(&A(&n)->d, bex_ha(A(&n)), &na), 0);
	ck_assert(bex_take(&n, 0, HIP_UPDATE, &first));
	bex_fire(A(&n));
	ck_assert(bex_take(&n, 0, HIP_UPDATE, &again));
	ck_assert_uint_eq(again.len, first.len);
	ck_assert_mem_eq(again.buf, first.buf, first.len);
	ck_assert_uint_eq(A(&n)->d.stats->upd_retransmitted, 1);
	/* The retransmission completes the exchange. */
	bex_inject(&n, 1, again.buf, again.len, &again.src, &again.dst);
	bex_run(&n, 10);
	ck_assert(addr_eq(&bex_ha(B(&n))->addr_peer, &na));
	ck_assert_uint_eq(bex_drops(B(&n)), 0);
	/* §6.11: never ACKed -> CLOSING after UPDATE_RETRY_MAX. */
	ck_assert_int_eq(upd_readdress(&A(&n)->d, bex_ha(A(&n)), &first.src), 0);
	for (i = 0; i <= UPD_RETRY_MAX; i++) {
		ck_assert(bex_take(&n, 0, HIP_UPDATE, NULL));
		bex_fire(A(&n));
	}
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_CLOSING);
	ck_assert_uint_eq(A(&n)->d.stats->upd_failed, 1);
	ck_assert(bex_take(&n, 0, HIP_CLOSE, NULL));
	teardown(&n);
}
END_TEST

/* Peer liveness (docs/decisions.md D-13): idle is never probed; sending
 * with nothing back for the timeout starts one probe (UPDATE with SEQ and
 * ECHO_REQUEST_SIGNED); the peer's answer ends it; a peer that never
 * answers loses the association after UPDATE_RETRY_MAX retransmissions. */
START_TEST(test_liveness_probe)
{
	const uint64_t s = 1000000000ULL, to = 5 * s;
	struct bex_net n;
	struct bex_pkt probe;
	struct hip_packet p;
	struct hip_ha *a;
	uint64_t t;
	int i;

	setup(&n, false);
	a = bex_ha(A(&n));
	t = hipd_now_ns() + s;
	/* idle: nothing either way, however long */
	upd_liveness_check(&A(&n)->d, a, 0, 0, t, to);
	upd_liveness_check(&A(&n)->d, a, 0, 0, t + 60 * s, to);
	ck_assert(!bex_take(&n, 0, HIP_UPDATE, NULL));
	ck_assert_str_eq(upd_liveness(a), "ok");
	/* sending, and the peer sends too: no probe */
	upd_liveness_check(&A(&n)->d, a, 10, 10, t + 61 * s, to);
	upd_liveness_check(&A(&n)->d, a, 20, 20, t + 70 * s, to);
	ck_assert(!bex_take(&n, 0, HIP_UPDATE, NULL));
	/* sending into silence: the clock starts, a probe after 5 s only */
	upd_liveness_check(&A(&n)->d, a, 30, 20, t + 71 * s, to);
	ck_assert_str_eq(upd_liveness(a), "unanswered");
	upd_liveness_check(&A(&n)->d, a, 40, 20, t + 75 * s, to);
	ck_assert(!bex_take(&n, 0, HIP_UPDATE, NULL));
	upd_liveness_check(&A(&n)->d, a, 50, 20, t + 76 * s, to);
	ck_assert(bex_take(&n, 0, HIP_UPDATE, &probe));
	ck_assert_str_eq(upd_liveness(a), "probing");
	ck_assert_uint_eq(A(&n)->d.stats->live_probes, 1);
	parse(&probe, &p);
	ck_assert_ptr_nonnull(hip_packet_find(&p, HIP_PARAM_SEQ));
	ck_assert_ptr_nonnull(hip_packet_find(&p, HIP_PARAM_ECHO_REQUEST_SIGNED));
	ck_assert_ptr_null(hip_packet_find(&p, HIP_PARAM_LOCATOR_SET));
	/* the peer answers: alive, the association stays */
	bex_inject(&n, 1, probe.buf, probe.len, &probe.src, &probe.dst);
	bex_run(&n, 10);
	ck_assert_uint_eq(A(&n)->d.stats->live_answered, 1);
	ck_assert_str_eq(upd_liveness(a), "ok");
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_ESTABLISHED);
	/* silence again, and the peer is gone: the probe and its
	 * retransmissions go unanswered, the association is removed */
	upd_liveness_check(&A(&n)->d, a, 60, 20, t + 90 * s, to);
	upd_liveness_check(&A(&n)->d, a, 70, 20, t + 96 * s, to);
	for (i = 0; i <= UPD_RETRY_MAX; i++) {
		ck_assert(bex_take(&n, 0, HIP_UPDATE, NULL));
		bex_fire(A(&n));
	}
	ck_assert_ptr_null(bex_ha(A(&n)));
	ck_assert_uint_eq(A(&n)->d.stats->live_dead, 1);
	ck_assert(!bex_take(&n, 0, HIP_CLOSE, NULL));   /* nobody to tell */
	teardown(&n);
}
END_TEST

/* §6.12.1, A-10: a repeated UPDATE is re-ACKed with the reply sent the
 * first time (echo response included) and not processed again. */
START_TEST(test_duplicate_reacked)
{
	struct bex_net n;
	struct bex_pkt u1, chk, rsp, rsp2, chk2;
	struct hip_addr na = addr("127.0.0.3");
	uint8_t nonce[UPD_NONCE_LEN];
	struct hip_ha *a, *b;
	uint32_t in_a;

	setup(&n, false);
	a = bex_ha(A(&n));
	b = bex_ha(B(&n));
	ck_assert_int_eq(upd_readdress(&A(&n)->d, a, &na), 0);
	ck_assert(bex_take(&n, 0, HIP_UPDATE, &u1));
	bex_inject(&n, 1, u1.buf, u1.len, &u1.src, &u1.dst);
	ck_assert(bex_take(&n, 1, HIP_UPDATE, &chk));
	memcpy(nonce, b->upd->nonce, sizeof(nonce));
	/* B gets A's UPDATE again: the same check, no new nonce. */
	bex_inject(&n, 1, u1.buf, u1.len, &u1.src, &u1.dst);
	ck_assert(bex_take(&n, 1, HIP_UPDATE, &chk2));
	ck_assert_uint_eq(chk2.len, chk.len);
	ck_assert_mem_eq(chk2.buf, chk.buf, chk.len);
	ck_assert_mem_eq(b->upd->nonce, nonce, sizeof(nonce));
	ck_assert_uint_eq(B(&n)->d.stats->upd_reacked, 1);
	/* A's answer is lost; B's check comes again: A repeats its answer. */
	bex_inject(&n, 0, chk.buf, chk.len, &chk.src, &chk.dst);
	ck_assert(bex_take(&n, 0, HIP_UPDATE, &rsp));
	in_a = a->update_id_in;
	bex_inject(&n, 0, chk.buf, chk.len, &chk.src, &chk.dst);
	ck_assert(bex_take(&n, 0, HIP_UPDATE, &rsp2));
	ck_assert_uint_eq(rsp2.len, rsp.len);
	ck_assert_mem_eq(rsp2.buf, rsp.buf, rsp.len);
	ck_assert_uint_eq(a->update_id_in, in_a);
	ck_assert_uint_eq(A(&n)->d.stats->upd_reacked, 1);
	bex_inject(&n, 1, rsp2.buf, rsp2.len, &rsp2.src, &rsp2.dst);
	ck_assert(addr_eq(&b->addr_peer, &na));
	ck_assert_uint_eq(bex_drops(A(&n)) + bex_drops(B(&n)), 0);
	teardown(&n);
}
END_TEST

/* §6.12.1 step 2: a duplicate that comes from elsewhere (the peer moved
 * again, or its NAT rebound, before our ACK reached it) is re-ACKed where
 * it came from, not at the address of the first reply. */
START_TEST(test_reack_follows_sender)
{
	struct bex_net n;
	struct bex_pkt u1, r1, r2;
	struct hip_addr na = addr("127.0.0.3"), moved = addr("127.0.0.9");
	struct hip_ha *b;

	setup(&n, false);
	b = bex_ha(B(&n));
	ck_assert_int_eq(upd_readdress(&A(&n)->d, bex_ha(A(&n)), &na), 0);
	ck_assert(bex_take(&n, 0, HIP_UPDATE, &u1));
	bex_inject(&n, 1, u1.buf, u1.len, &u1.src, &u1.dst);
	ck_assert(bex_take(&n, 1, HIP_UPDATE, &r1));   /* lost on the way */
	ck_assert(addr_eq(&r1.dst, &u1.src));
	bex_inject(&n, 1, u1.buf, u1.len, &moved, &u1.dst);
	ck_assert(bex_take(&n, 1, HIP_UPDATE, &r2));
	ck_assert(addr_eq(&r2.dst, &moved));
	ck_assert(addr_eq(&r2.src, &u1.dst));
	ck_assert_uint_eq(r2.len, r1.len);
	ck_assert_uint_eq(B(&n)->d.stats->upd_reacked, 1);
	ck_assert(!addr_eq(&b->addr_peer, &moved));   /* a re-ACK moves nothing */
	teardown(&n);
}
END_TEST

/* §6.12.1 step 3: HIP_MAC is checked, duplicates included. */
START_TEST(test_bad_hmac_dropped)
{
	struct bex_net n;
	struct bex_pkt u1;
	struct hip_packet p;
	const struct hip_param_ref *r;
	struct hip_addr na = addr("127.0.0.3");
	uint8_t bad[HIP_MAX_PACKET];
	struct hip_ha *b;

	setup(&n, false);
	b = bex_ha(B(&n));
	ck_assert_int_eq(upd_readdress(&A(&n)->d, bex_ha(A(&n)), &na), 0);
	ck_assert(bex_take(&n, 0, HIP_UPDATE, &u1));
	parse(&u1, &p);
	r = hip_packet_find(&p, HIP_PARAM_HIP_MAC);
	ck_assert_ptr_nonnull(r);
	memcpy(bad, u1.buf, u1.len);
	bad[r->off + 4] ^= 0x01;
	bex_inject(&n, 1, bad, u1.len, &u1.src, &u1.dst);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_BAD_MAC], 1);
	ck_assert_uint_eq(n.n, 0);
	ck_assert(!b->update_id_in_valid);
	/* The genuine one is taken; its tampered duplicate is not re-ACKed. */
	bex_inject(&n, 1, u1.buf, u1.len, &u1.src, &u1.dst);
	ck_assert(bex_take(&n, 1, HIP_UPDATE, NULL));
	bex_inject(&n, 1, bad, u1.len, &u1.src, &u1.dst);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_BAD_MAC], 2);
	ck_assert_uint_eq(n.n, 0);
	ck_assert_uint_eq(B(&n)->d.stats->upd_reacked, 0);
	teardown(&n);
}
END_TEST

/* W-17: an UPDATE with neither SEQ nor ACK is invalid. */
START_TEST(test_no_seq_no_ack)
{
	struct bex_net n;
	struct upd_msg m = { 0 };
	struct hip_esp_info ei;
	uint8_t buf[HIP_MAX_PACKET];
	struct hip_ha *a;
	int len;

	setup(&n, false);
	a = bex_ha(A(&n));
	ei.keymat_index = a->keymat_index;
	ei.old_spi = ei.new_spi = a->spi_in;
	m.esp_info = &ei;
	len = upd_build(a, &m, buf, sizeof(buf));
	ck_assert_int_gt(len, 0);
	bex_inject(&n, 1, buf, (size_t)len, &a->addr_local, &a->addr_peer);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_MISSING_PARAM], 1);
	ck_assert_uint_eq(n.n, 0);
	teardown(&n);
}
END_TEST

/* S-15: Update IDs wrap at 2^32 (circular comparison); an old ID is a
 * replay; IDs far ahead are outside the window. */
START_TEST(test_update_id_wrap)
{
	struct bex_net n;
	struct hip_ha *a, *b;
	struct upd_msg m = { 0 };
	struct hip_packet p;
	struct bex_pkt u;
	uint8_t buf[HIP_MAX_PACKET];
	const char *to[] = { "127.0.0.3", "127.0.0.4", "127.0.0.5" };
	uint32_t want[] = { 0xFFFFFFFEu, 0xFFFFFFFFu, 0 };
	int i, len;

	setup(&n, false);
	a = bex_ha(A(&n));
	b = bex_ha(B(&n));
	a->update_id_out = 0xFFFFFFFEu;
	b->update_id_in = 0xFFFFFFFDu;
	b->update_id_in_valid = true;
	for (i = 0; i < 3; i++) {
		struct hip_addr na = addr(to[i]);

		ck_assert_int_eq(upd_readdress(&A(&n)->d, a, &na), 0);
		ck_assert(bex_take(&n, 0, HIP_UPDATE, &u));
		parse(&u, &p);
		ck_assert_uint_eq(pkt_seq(&p), want[i]);
		bex_inject(&n, 1, u.buf, u.len, &u.src, &u.dst);
		bex_run(&n, 10);
		ck_assert_uint_eq(b->update_id_in, want[i]);
		ck_assert(addr_eq(&b->addr_peer, &na));
	}
	ck_assert_uint_eq(a->update_id_out, 1);
	ck_assert_uint_eq(bex_drops(B(&n)), 0);
	/* Before the last one (replay) and beyond the window. */
	m.has_seq = true;
	m.seq = 0xFFFFFFF0u;
	len = upd_build(a, &m, buf, sizeof(buf));
	bex_inject(&n, 1, buf, (size_t)len, &a->addr_local, &a->addr_peer);
	m.seq = 1 + UPD_WINDOW;
	len = upd_build(a, &m, buf, sizeof(buf));
	bex_inject(&n, 1, buf, (size_t)len, &a->addr_local, &a->addr_peer);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_REPLAY], 2);
	ck_assert_uint_eq(n.n, 0);
	teardown(&n);
}
END_TEST

/* A lost UPDATE stays new after connectivity checks with later IDs were
 * accepted (RFC 9028 §4.6.2 checks share the counter, update_ice.c): its
 * retransmission is taken, not dropped as a replay; the window's upper
 * bound follows the checks. */
START_TEST(test_update_after_later_checks)
{
	struct bex_net n;
	struct hip_ha *a, *b;
	struct upd_msg m = { 0 };
	struct hip_packet p;
	struct bex_pkt u;
	struct hip_addr na = addr("127.0.0.3");
	uint8_t buf[HIP_MAX_PACKET];
	uint32_t id;
	int len;

	setup(&n, false);
	a = bex_ha(A(&n));
	b = bex_ha(B(&n));
	ck_assert_int_eq(upd_readdress(&A(&n)->d, a, &na), 0);
	ck_assert(bex_take(&n, 0, HIP_UPDATE, &u));   /* lost on the way */
	parse(&u, &p);
	id = pkt_seq(&p);
	/* B accepts A's next two IDs as checks, as upd_ice_rx() does */
	upd_seq_accepted(b, id + 1);
	upd_seq_accepted(b, id + 2);
	bex_inject(&n, 1, u.buf, u.len, &u.src, &u.dst);   /* A's retransmission */
	bex_run(&n, 10);
	ck_assert_uint_eq(bex_drops(B(&n)), 0);
	ck_assert(b->update_id_in_valid);
	ck_assert_uint_eq(b->update_id_in, id);
	ck_assert(addr_eq(&b->addr_peer, &na));
	/* Once taken it is a duplicate (re-ACKed), below it a replay; the
	 * window's top is UPD_WINDOW past the last check. */
	bex_inject(&n, 1, u.buf, u.len, &u.src, &u.dst);
	ck_assert(bex_take(&n, 1, HIP_UPDATE, NULL));
	ck_assert_uint_eq(B(&n)->d.stats->upd_reacked, 1);
	m.has_seq = true;
	m.seq = id - 1;
	len = upd_build(a, &m, buf, sizeof(buf));
	bex_inject(&n, 1, buf, (size_t)len, &a->addr_local, &a->addr_peer);
	m.seq = id + 3 + UPD_WINDOW;
	len = upd_build(a, &m, buf, sizeof(buf));
	bex_inject(&n, 1, buf, (size_t)len, &a->addr_local, &a->addr_peer);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_REPLAY], 2);
	ck_assert_uint_eq(n.n, 0);
	m.seq = id + 2 + UPD_WINDOW;
	len = upd_build(a, &m, buf, sizeof(buf));
	bex_inject(&n, 1, buf, (size_t)len, &a->addr_local, &a->addr_peer);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_REPLAY], 2);
	ck_assert_uint_eq(b->update_id_in, id + 2 + UPD_WINDOW);
	teardown(&n);
}
END_TEST

/* S-04: an UPDATE from the Initiator confirms R2-SENT. */
START_TEST(test_update_confirms_r2_sent)
{
	struct bex_opts o = { 0 };
	struct hip_addr na = addr("127.0.0.3");
	struct bex_net n;

	bex_net_init(&n, &o, &o);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	bex_run(&n, 20);
	ck_assert_int_eq(bex_state(B(&n)), HIP_STATE_R2_SENT);
	ck_assert_int_eq(upd_readdress(&A(&n)->d, bex_ha(A(&n)), &na), 0);
	bex_run(&n, 10);
	ck_assert_int_eq(bex_state(B(&n)), HIP_STATE_ESTABLISHED);
	ck_assert(addr_eq(&bex_ha(B(&n))->addr_peer, &na));
	ck_assert_uint_eq(bex_drops(B(&n)), 0);
	bex_net_free(&n);
}
END_TEST

/* RFC 8047 with the host's locator list (locset.h): the address in use
 * goes -> move to the preferred one; the set grows -> announce it; a call
 * with nothing changed sends nothing. */
START_TEST(test_local_addrs_changed)
{
	struct bex_net n;
	struct hip_locset *ls;
	struct hip_addr l0 = addr("198.51.100.9");
	struct hip_addr l1 = addr("198.51.100.1"), l2 = addr("198.51.100.2");
	struct hip_locator_set set;
	const struct hip_param_ref *r;
	struct hip_packet p;
	struct bex_pkt u;
	struct hip_ha *a, *b;

	setup(&n, false);
	a = bex_ha(A(&n));
	b = bex_ha(B(&n));
	ck_assert_int_eq(locset_create(&ls), 0);
	A(&n)->d.locset = ls;
	ck_assert_int_eq(locset_add(ls, &l1, 2, false), 0);
	/* An association on loopback (never in the list) is left alone. */
	upd_local_addrs_changed(&A(&n)->d);
	ck_assert_uint_eq(n.n, 0);
	ck_assert_int_eq(upd_readdress(&A(&n)->d, a, &l0), 0);
	bex_run(&n, 10);
	ck_assert(addr_eq(&b->addr_peer, &l0));
	/* l0 is not a locator of A any more: move to l1. */
	upd_local_addrs_changed(&A(&n)->d);
	ck_assert(addr_eq(&a->addr_local, &l1));
	bex_run(&n, 10);
	ck_assert(addr_eq(&b->addr_peer, &l1));
	upd_local_addrs_changed(&A(&n)->d);
	ck_assert_uint_eq(n.n, 0);
	/* A second address: announced, the one in use still preferred. */
	ck_assert_int_eq(locset_add(ls, &l2, 3, false), 0);
	upd_local_addrs_changed(&A(&n)->d);
	ck_assert(bex_take(&n, 0, HIP_UPDATE, &u));
	parse(&u, &p);
	r = hip_packet_find(&p, HIP_PARAM_LOCATOR_SET);
	ck_assert_int_eq(hip_locator_set_decode(hip_param_content(&p, r), r->len, &set), 0);
	ck_assert_uint_eq(set.n, 2);
	ck_assert(addr_eq(&set.loc[0].addr, &l1) && set.loc[0].preferred);
	ck_assert(addr_eq(&set.loc[1].addr, &l2) && !set.loc[1].preferred);
	bex_inject(&n, 1, u.buf, u.len, &u.src, &u.dst);
	bex_run(&n, 10);
	ck_assert(addr_eq(&b->addr_peer, &l1));
	ck_assert(upd_peer_loc_find(b, &l2)->state == UPD_LOC_UNVERIFIED);
	/* l1's link goes down: failover to l2, checked by B first. */
	ck_assert_int_eq(locset_del_ifindex(ls, 2), 1);
	upd_local_addrs_changed(&A(&n)->d);
	ck_assert(addr_eq(&a->addr_local, &l2));
	assert_dp_matches(&n, 0);
	bex_run(&n, 10);
	ck_assert(addr_eq(&b->addr_peer, &l2));
	assert_dp_matches(&n, 1);
	ck_assert_uint_eq(B(&n)->d.stats->upd_verified, 3);
	ck_assert_uint_eq(bex_drops(A(&n)) + bex_drops(B(&n)), 0);
	A(&n)->d.locset = NULL;
	locset_free(ls);
	teardown(&n);
}
END_TEST

/* The set grows while the Responder is in R2-SENT and its R2 was lost: no
 * UPDATE goes out (it would make the Responder ESTABLISHED, where the
 * Initiator's retransmitted I2 is a replay); the I2 still gets its R2. */
START_TEST(test_r2_sent_set_grows)
{
	struct bex_opts o = { 0 };
	struct hip_addr l1 = addr("198.51.100.1"), l2 = addr("198.51.100.2");
	struct hip_locset *ls;
	struct bex_net n;
	struct bex_pkt i2, r2;
	uint64_t r2_sent;

	bex_net_init(&n, &o, &o);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert_int_eq(bex_deliver_one(&n), HIP_I1);
	ck_assert_int_eq(bex_deliver_one(&n), HIP_R1);
	ck_assert(bex_take(&n, 0, HIP_I2, &i2));
	bex_inject(&n, 1, i2.buf, i2.len, &i2.src, &i2.dst);
	ck_assert(bex_take(&n, 1, HIP_R2, &r2));          /* lost */
	ck_assert_int_eq(bex_state(B(&n)), HIP_STATE_R2_SENT);
	ck_assert_int_eq(locset_create(&ls), 0);
	B(&n)->d.locset = ls;
	bex_ha(B(&n))->addr_local = l1;   /* as if on a real interface */
	ck_assert_int_eq(locset_add(ls, &l1, 2, false), 0);
	ck_assert_int_eq(locset_add(ls, &l2, 2, false), 0);
	upd_local_addrs_changed(&B(&n)->d);
	ck_assert_uint_eq(n.n, 0);
	ck_assert_int_eq(bex_state(B(&n)), HIP_STATE_R2_SENT);
	r2_sent = B(&n)->d.stats->tx_packets[HIP_R2];
	bex_inject(&n, 1, i2.buf, i2.len, &i2.src, &i2.dst);   /* the I2 again */
	ck_assert_uint_eq(B(&n)->d.stats->tx_packets[HIP_R2], r2_sent + 1);
	ck_assert_uint_eq(bex_drops(B(&n)), 0);
	B(&n)->d.locset = NULL;
	locset_free(ls);
	bex_net_free(&n);
}
END_TEST

static Suite *update_suite(void)
{
	Suite *s = suite_create("update");
	TCase *tc = tcase_create("update");

	tcase_add_unchecked_fixture(tc, bex_tmp_setup, bex_tmp_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_readdress_v4_v4);
	tcase_add_test(tc, test_readdress_v4_v6);
	tcase_add_test(tc, test_unverified_never_used);
	tcase_add_test(tc, test_lost_update_retransmitted);
	tcase_add_test(tc, test_liveness_probe);
	tcase_add_test(tc, test_duplicate_reacked);
	tcase_add_test(tc, test_reack_follows_sender);
	tcase_add_test(tc, test_bad_hmac_dropped);
	tcase_add_test(tc, test_no_seq_no_ack);
	tcase_add_test(tc, test_update_id_wrap);
	tcase_add_test(tc, test_update_after_later_checks);
	tcase_add_test(tc, test_update_confirms_r2_sent);
	tcase_add_test(tc, test_r2_sent_set_grows);
	tcase_add_test(tc, test_local_addrs_changed);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(update_suite)
