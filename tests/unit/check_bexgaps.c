/*
 * check_bexgaps.c - base exchange rules beyond the plain exchange, on two
 * in-process engines (bex_harness.c): I1 storms (RFC 7401 §5.3.1, P-11),
 * the NOTIFYs of §5.2.19 with their never-NOTIFY rules (§6.7.2, §6.9.1,
 * RB-01, RB-03, RB-07), several R1s and the R1 counter (§6.8 step 3), the
 * HIT Suite check of the R1 (§6.8 step 4, Table 2), and the one copy of
 * the negotiated fields. Packets a misbehaving but authentic peer would
 * send are rebuilt with that peer's real keys.
 */
#include <check.h>
#include <string.h>

#include "bex_harness.h"
#include "coverage.h"
#include "engine/assoc/hidb.h"
#include "hit.h"
#include "net/hosts.h"
#include "engine/assoc/i1storm.h"
#include "packet.h"
#include "params.h"
#include "engine/assoc/r1cache.h"
#include "unit.h"

#define A(n) (&(n)->h[0])
#define B(n) (&(n)->h[1])
#define MS   1000000ULL

/* ---- helpers ------------------------------------------------------------------ */

/* How to rebuild a packet: one parameter replaced (its new contents), then
 * HIP_MAC / HIP_MAC_2 with the sender's key (mac_ha, NULL for none) and the
 * signature of the given cover with signer. */
struct rebuild {
	uint16_t type;
	const void *content;
	size_t len;
	const struct hip_ha *mac_ha;
	enum hip_cover_kind mac_cover;
	const uint8_t *mac_extra;      /* MAC_2: the sender's HOST_ID TLV */
	size_t mac_extra_len;
	const struct hip_hi *signer;
	enum hip_cover_kind sig_cover;
};

static int rebuild(const struct bex_pkt *in, const struct rebuild *r, uint8_t *out,
		   size_t cap)
{
	struct hip_packet p;
	struct hip_builder b;
	const struct hip_param_ref *q;
	unsigned i;

	ck_assert_int_eq(hip_packet_parse(in->buf, in->len, &p), 0);
	hip_build_init(&b, out, cap, p.type, &p.hit_sender, &p.hit_receiver);
	hip_build_set_controls(&b, p.controls);
	for (i = 0; i < p.nparams; i++) {
		q = &p.params[i];
		if (q->type == HIP_PARAM_HIP_MAC || q->type == HIP_PARAM_HIP_MAC_2 ||
		    q->type == HIP_PARAM_HIP_SIGNATURE || q->type == HIP_PARAM_HIP_SIGNATURE_2)
			continue;
		/* (parameters after the signature are not used here) */
		ck_assert_uint_lt(q->type, HIP_PARAM_HIP_MAC);
		if (q->type == r->type)
			hip_build_param(&b, q->type, r->content, r->len);
		else
			hip_build_param(&b, q->type, hip_param_content(&p, q), q->len);
	}
	if (r->mac_ha)
		hip_build_mac(&b, r->mac_cover, r->mac_ha->rhash, eng_key_out_int(r->mac_ha),
			      r->mac_ha->hip_keys.int_len, r->mac_extra, r->mac_extra_len);
	hip_build_signature(&b, r->sig_cover, r->signer);
	return hip_build_finish(&b);
}

/* A starts, B answers: the I1 and the R1 are delivered, A's I2 is taken
 * from the queue into i2 (if not NULL). */
static void up_to_i2(struct bex_net *n, struct bex_pkt *i2)
{
	ck_assert_int_eq(hipd_engine_trigger(&A(n)->d, bex_hit(B(n))), 0);
	ck_assert_int_eq(bex_deliver_one(n), HIP_I1);
	ck_assert_int_eq(bex_deliver_one(n), HIP_R1);
	if (i2)
		ck_assert(bex_take(n, 0, HIP_I2, i2));
}

/* The NOTIFY host `from` queued: well formed (libhipcore's parser), one
 * NOTIFICATION of the expected type with no data (§5.2.19: no details),
 * signed by the sender's identity. Taken off the queue into out. */
static void expect_notify(struct bex_net *n, int from, uint16_t type, struct bex_pkt *out)
{
	struct hip_packet p;
	const struct hip_param_ref *r;
	struct hip_notification nt;

	ck_assert_msg(bex_take(n, from, HIP_NOTIFY, out), "no NOTIFY from host %d", from);
	ck_assert_int_eq(hip_packet_parse(out->buf, out->len, &p), 0);
	ck_assert_int_eq(p.type, HIP_NOTIFY);
	ck_assert_mem_eq(p.hit_sender.b, bex_hit(&n->h[from])->b, HIP_HIT_LEN);
	ck_assert_mem_eq(p.hit_receiver.b, bex_hit(&n->h[1 - from])->b, HIP_HIT_LEN);
	r = hip_packet_find(&p, HIP_PARAM_NOTIFICATION);
	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_null(hip_packet_find_next(&p, r));
	ck_assert_int_eq(hip_notification_decode(hip_param_content(&p, r), r->len, &nt), 0);
	ck_assert_uint_eq(nt.type, type);
	ck_assert_uint_eq(nt.len, 0);
	ck_assert_int_eq(hip_verify_signature(&p, HIP_COVER_SIGNATURE,
					      hidb_default(n->h[from].d.hidb)->hi), 0);
	ck_assert_int_eq(hip_packet_verify_checksum(out->buf, out->len, &out->src, &out->dst),
			 0);
}

/* Remove the queued packets sent to addr (another host's, not delivered). */
static unsigned unqueue_to(struct bex_net *n, const struct hip_addr *addr)
{
	unsigned i = 0, removed = 0;

	while (i < n->n) {
		if (!memcmp(&n->q[i].dst, addr, sizeof(*addr))) {
			memmove(&n->q[i], &n->q[i + 1], (n->n - i - 1) * sizeof(n->q[0]));
			n->n--;
			removed++;
		} else {
			i++;
		}
	}
	return removed;
}

static unsigned queued(const struct bex_net *n, int from, uint8_t type)
{
	unsigned i, c = 0;

	for (i = 0; i < n->n; i++)
		if (n->q[i].from == from && (n->q[i].buf[2] & 0x7f) == type)
			c++;
	return c;
}

/* ---- P-11: I1 storms ---------------------------------------------------------- */

/* The filter itself, on a clock of our own: identical I1s from one source
 * within 100 ms are duplicates; another source, another destination or
 * other bytes are not; the delta counts from the I1 that was let through. */
START_TEST(test_i1_storm_filter)
{
	static struct i1_storm s;   /* zeroed: a valid empty filter */
	uint8_t i1[48], other[48];
	struct hip_addr a, b, c;
	struct hip_hit hi, hr;
	uint64_t t0 = 5000 * MS;

	memset(i1, 0x11, sizeof(i1));
	memcpy(other, i1, sizeof(other));
	other[47] ^= 1;
	ck_assert_int_eq(hip_addr_from_str("192.0.2.1", &a), 0);
	ck_assert_int_eq(hip_addr_from_str("192.0.2.2", &b), 0);
	ck_assert_int_eq(hip_addr_from_str("2001:db8::1", &c), 0);
	/* A fixed key: the filter is direct-mapped (I1_STORM_SLOTS), and with a
	 * random one the pairs (a, b) and (c, b) shared a slot in 1 run of 256,
	 * where the one evicts the other and the release below checks nothing */
	memset(&s.key, 0x42, sizeof(s.key));
	s.keyed = true;
	ck_assert(!i1_storm_duplicate(&s, i1, sizeof(i1), &a, &b, t0));
	ck_assert(i1_storm_duplicate(&s, i1, sizeof(i1), &a, &b, t0));
	ck_assert(i1_storm_duplicate(&s, i1, sizeof(i1), &a, &b, t0 + 99 * MS));
	/* the drops did not extend the window: 100 ms after the first */
	ck_assert(!i1_storm_duplicate(&s, i1, sizeof(i1), &a, &b, t0 + I1_STORM_DELTA_MS * MS));
	ck_assert(i1_storm_duplicate(&s, i1, sizeof(i1), &a, &b,
				     t0 + (I1_STORM_DELTA_MS + 50) * MS));
	/* not the same I1: other source, other destination, other content */
	ck_assert(!i1_storm_duplicate(&s, i1, sizeof(i1), &c, &b, t0 + 160 * MS));
	ck_assert(!i1_storm_duplicate(&s, i1, sizeof(i1), &a, &c, t0 + 160 * MS));
	ck_assert(!i1_storm_duplicate(&s, other, sizeof(other), &a, &b, t0 + 160 * MS));
	ck_assert(!i1_storm_duplicate(&s, i1, sizeof(i1) - 8, &a, &b, t0 + 160 * MS));
	/* forgetting (time passed) lets it through again */
	ck_assert(!i1_storm_duplicate(&s, i1, sizeof(i1), &a, &b, t0 + 170 * MS));
	ck_assert(i1_storm_duplicate(&s, i1, sizeof(i1), &a, &b, t0 + 171 * MS));
	i1_storm_forget(&s);
	ck_assert(!i1_storm_duplicate(&s, i1, sizeof(i1), &a, &b, t0 + 172 * MS));
	/* releasing the pair (its I2 accepted): the same I1 at once is answered,
	 * while another pair's entry stays */
	ck_assert(!i1_storm_duplicate(&s, i1, sizeof(i1), &c, &b, t0 + 172 * MS));
	memcpy(&hi, i1 + 8, sizeof(hi));
	memcpy(&hr, i1 + 8 + HIP_HIT_LEN, sizeof(hr));
	i1_storm_release(&s, &a, &b, &hi, &hr);
	ck_assert(!i1_storm_duplicate(&s, i1, sizeof(i1), &a, &b, t0 + 173 * MS));
	ck_assert(i1_storm_duplicate(&s, i1, sizeof(i1), &c, &b, t0 + 173 * MS));
	/* bad input is never a duplicate (and does not crash) */
	ck_assert(!i1_storm_duplicate(&s, NULL, 0, &a, &b, t0));
	ck_assert(!i1_storm_duplicate(&s, i1, HIP_MAX_PACKET + 1, &a, &b, t0));
}
END_TEST

/* The engine: a repeated I1 is dropped before any R1 work, counted under
 * its own name, and the same I1 from elsewhere, or a new exchange once the
 * delta passed, is answered. */
START_TEST(test_i1_storm_engine)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_pkt i1;
	struct hip_addr other;
	uint64_t r1_sent;
	unsigned i;

	bex_net_init(&n, &o, &o);
	n.keep_i1_storm = true;
	ck_assert_str_eq(hipd_drop_name(HIPD_DROP_I1_STORM), "i1_storm");
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert(bex_take(&n, 0, HIP_I1, &i1));
	r1_sent = B(&n)->d.stats->r1_sent;
	for (i = 0; i < 5; i++)
		bex_inject(&n, 1, i1.buf, i1.len, &i1.src, &i1.dst);
	ck_assert_uint_eq(B(&n)->d.stats->r1_sent, r1_sent + 1);
	ck_assert_uint_eq(queued(&n, 1, HIP_R1), 1);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_I1_STORM], 4);
	ck_assert_uint_eq(bex_drops(B(&n)), 4);
	/* every I1 still counts as load (puzzle difficulty input) */
	ck_assert_uint_ge(B(&n)->d.engine->i1_this_second, 5);
	/* the same bytes from another source are another I1 */
	ck_assert_int_eq(hip_addr_from_str("127.0.0.3", &other), 0);
	bex_inject(&n, 1, i1.buf, i1.len, &other, &i1.dst);
	ck_assert_uint_eq(B(&n)->d.stats->r1_sent, r1_sent + 2);
	ck_assert_uint_eq(unqueue_to(&n, &other), 1);   /* its R1: not delivered */
	/* the exchange itself goes on */
	bex_run(&n, 10);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_ESTABLISHED);
	ck_assert_int_eq(bex_state(B(&n)), HIP_STATE_R2_SENT);
	/* its I2 accepted, the same I1 at once (a restart) is no storm */
	r1_sent = B(&n)->d.stats->r1_sent;
	bex_inject(&n, 1, i1.buf, i1.len, &i1.src, &i1.dst);
	ck_assert_uint_eq(B(&n)->d.stats->r1_sent, r1_sent + 1);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_I1_STORM], 4);
	n.keep_i1_storm = false;
	bex_net_free(&n);
}
END_TEST

/* ---- §5.2.19 NOTIFY ----------------------------------------------------------- */

/* An authentic I2 (puzzle, MAC and signature good) with a bad ESP_INFO
 * earns INVALID_SYNTAX; the Initiator logs and counts it and stays in
 * I2-SENT (S-14). The same I2 with its MAC broken earns HIP_MAC_FAILED's
 * drop but never INVALID_SYNTAX (RB-07). */
START_TEST(test_notify_invalid_syntax)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_pkt i2, nt, bad;
	struct hip_packet p;
	const struct hip_param_ref *r;
	struct hip_ha *ha;
	uint8_t esp[12];
	struct rebuild rb = { 0 };
	uint64_t sent, recv;
	int len;

	bex_net_init(&n, &o, &o);
	up_to_i2(&n, &i2);
	ha = bex_ha(A(&n));
	ck_assert_int_eq(hip_packet_parse(i2.buf, i2.len, &p), 0);
	r = hip_packet_find(&p, HIP_PARAM_ESP_INFO);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->len, sizeof(esp));
	memcpy(esp, hip_param_content(&p, r), sizeof(esp));
	esp[3] ^= 0x04;                       /* KEYMAT index */
	rb.type = HIP_PARAM_ESP_INFO;
	rb.content = esp;
	rb.len = sizeof(esp);
	rb.mac_ha = ha;
	rb.mac_cover = HIP_COVER_MAC;
	rb.signer = ha->local->hi;
	rb.sig_cover = HIP_COVER_SIGNATURE;
	bad = i2;
	len = rebuild(&i2, &rb, bad.buf, sizeof(bad.buf));
	ck_assert_int_gt(len, 0);
	bad.len = (size_t)len;
	sent = B(&n)->d.engine->notify_sent;
	bex_inject(&n, 1, bad.buf, bad.len, &bad.src, &bad.dst);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_BAD_PARAM], 1);
	ck_assert_ptr_null(bex_ha(B(&n)));
	ck_assert_uint_eq(B(&n)->d.engine->notify_sent, sent + 1);
	expect_notify(&n, 1, HIP_NOTIFY_INVALID_SYNTAX, &nt);
	recv = A(&n)->d.engine->notify_received;
	bex_inject(&n, 0, nt.buf, nt.len, &nt.src, &nt.dst);
	ck_assert_uint_eq(A(&n)->d.engine->notify_received, recv + 1);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_I2_SENT);
	ck_assert_uint_eq(bex_drops(A(&n)), 0);

	/* not authentic (the MAC does not cover the changed ESP_INFO): the
	 * drop is the same, no NOTIFY */
	bad = i2;
	bad.buf[r->off + HIP_TLV_HDR_LEN + 3] ^= 0x04;
	bex_inject(&n, 1, bad.buf, bad.len, &bad.src, &bad.dst);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_BAD_PARAM], 2);
	ck_assert_uint_eq(queued(&n, 1, HIP_NOTIFY), 0);

	/* the genuine I2 still completes the exchange */
	bex_inject(&n, 1, i2.buf, i2.len, &i2.src, &i2.dst);
	bex_run(&n, 10);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_ESTABLISHED);
	bex_net_free(&n);
}
END_TEST

/* §5.2.19 INVALID_HIT: an I2 whose HOST_ID does not give the sender's HIT
 * (here A signs and sends another identity's HI under its own HIT; the
 * puzzle is solved, so the Responder answers) is dropped as hit_mismatch,
 * creates nothing and earns INVALID_HIT. */
START_TEST(test_notify_invalid_hit)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_pkt nt;
	struct hidb_entry *me, *other, saved;
	struct hip_hit other_hit;
	struct hip_hi *hi;
	const uint8_t *wire;
	size_t wire_len;

	bex_net_init(&n, &o, &o);
	ck_assert_int_eq(hip_hi_generate(HIP_HI_KIND_ECDSA_P256, &hi), 0);
	wire = hip_hi_wire(hi, &wire_len);
	ck_assert_int_eq(hip_hit_from_hi((uint8_t)hip_hi_suite(hi), wire, wire_len, &other_hit), 0);
	ck_assert_int_eq(hidb_add(A(&n)->d.hidb, hi), 0);   /* A's hidb owns it now */
	other = hidb_find(A(&n)->d.hidb, &other_hit);
	ck_assert_ptr_nonnull(other);
	me = hidb_default(A(&n)->d.hidb);
	ck_assert_ptr_ne(me, other);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert_int_eq(bex_deliver_one(&n), HIP_I1);
	saved = *me;
	me->hi = other->hi;
	memcpy(me->host_id_tlv, other->host_id_tlv, other->host_id_tlv_len);
	me->host_id_tlv_len = other->host_id_tlv_len;
	ck_assert_int_eq(bex_deliver_one(&n), HIP_R1);      /* A sends its I2 */
	*me = saved;
	ck_assert_int_eq(bex_deliver_one(&n), HIP_I2);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_BAD_HIT], 1);
	ck_assert_ptr_null(bex_ha(B(&n)));
	expect_notify(&n, 1, HIP_NOTIFY_INVALID_HIT, &nt);
	bex_net_free(&n);
}
END_TEST

/* The same for the R2: an authentic R2 with a bad ESP_INFO gets
 * INVALID_SYNTAX from the Initiator; a broken HIP_MAC_2 HIP_MAC_FAILED. */
START_TEST(test_notify_r2)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_pkt r2, bad, nt;
	struct hip_packet p;
	const struct hip_param_ref *r;
	struct hip_ha *hb;
	uint8_t esp[12];
	struct rebuild rb = { 0 };
	int len;

	bex_net_init(&n, &o, &o);
	up_to_i2(&n, NULL);
	ck_assert_int_eq(bex_deliver_one(&n), HIP_I2);
	ck_assert(bex_take(&n, 1, HIP_R2, &r2));
	hb = bex_ha(B(&n));
	ck_assert_int_eq(hip_packet_parse(r2.buf, r2.len, &p), 0);
	r = hip_packet_find(&p, HIP_PARAM_ESP_INFO);
	ck_assert_ptr_nonnull(r);
	memcpy(esp, hip_param_content(&p, r), sizeof(esp));
	esp[5] ^= 0x01;                       /* OLD SPI != 0 */
	rb.type = HIP_PARAM_ESP_INFO;
	rb.content = esp;
	rb.len = sizeof(esp);
	rb.mac_ha = hb;
	rb.mac_cover = HIP_COVER_MAC_2;
	rb.mac_extra = hb->local->host_id_tlv;
	rb.mac_extra_len = hb->local->host_id_tlv_len;
	rb.signer = hb->local->hi;
	rb.sig_cover = HIP_COVER_SIGNATURE;
	bad = r2;
	len = rebuild(&r2, &rb, bad.buf, sizeof(bad.buf));
	ck_assert_int_gt(len, 0);
	bad.len = (size_t)len;
	bex_inject(&n, 0, bad.buf, bad.len, &bad.src, &bad.dst);
	ck_assert_uint_eq(A(&n)->d.stats->drop[HIPD_DROP_BAD_PARAM], 1);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_I2_SENT);
	expect_notify(&n, 0, HIP_NOTIFY_INVALID_SYNTAX, &nt);

	bad = r2;
	r = hip_packet_find(&p, HIP_PARAM_HIP_MAC_2);
	ck_assert_ptr_nonnull(r);
	bad.buf[r->off + HIP_TLV_HDR_LEN] ^= 0x01;
	bex_inject(&n, 0, bad.buf, bad.len, &bad.src, &bad.dst);
	ck_assert_uint_eq(A(&n)->d.stats->drop[HIPD_DROP_BAD_MAC], 1);
	expect_notify(&n, 0, HIP_NOTIFY_HIP_MAC_FAILED, &nt);
	/* B is in R2-SENT: it logs and counts the NOTIFY, no state change */
	bex_inject(&n, 1, nt.buf, nt.len, &nt.src, &nt.dst);
	ck_assert_uint_eq(B(&n)->d.engine->notify_received, 1);
	ck_assert_int_eq(bex_state(B(&n)), HIP_STATE_R2_SENT);

	bex_inject(&n, 0, r2.buf, r2.len, &r2.src, &r2.dst);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_ESTABLISHED);
	bex_net_free(&n);
}
END_TEST

/* BLOCKED_BY_POLICY: the Responder's policy refuses the Initiator after the
 * R1 went out (policy or hosts map changed); the I2 is authentic. */
START_TEST(test_notify_blocked_by_policy)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_pkt i2, nt;

	bex_net_init(&n, &o, &o);
	up_to_i2(&n, &i2);
	B(&n)->d.conf.peer_policy = HIPD_PEER_KNOWN;
	ck_assert_int_eq(hosts_del(B(&n)->d.hosts, bex_hit(A(&n)), NULL), 0);
	bex_inject(&n, 1, i2.buf, i2.len, &i2.src, &i2.dst);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_POLICY], 1);
	ck_assert_ptr_null(bex_ha(B(&n)));
	ck_assert(!bex_take(&n, 1, HIP_R2, NULL));
	expect_notify(&n, 1, HIP_NOTIFY_BLOCKED_BY_POLICY, &nt);
	bex_inject(&n, 0, nt.buf, nt.len, &nt.src, &nt.dst);
	ck_assert_uint_eq(A(&n)->d.engine->notify_received, 1);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_I2_SENT);
	bex_net_free(&n);
}
END_TEST

/* NO_HIP_PROPOSAL_CHOSEN: the Initiator accepts none of the R1's
 * HIP_CIPHERs (the R1's signature is good): it tells the Responder, which
 * has no state and counts the NOTIFY as such. */
START_TEST(test_notify_no_hip_proposal)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_pkt nt;

	bex_net_init(&n, &o, &o);
	A(&n)->d.conf.hip_ciphers[0] = HIP_CIPHER_NULL;   /* not allowed, not offered */
	A(&n)->d.conf.n_hip_ciphers = 1;
	up_to_i2(&n, NULL);
	ck_assert_uint_eq(A(&n)->d.stats->drop[HIPD_DROP_NO_PROPOSAL], 1);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_I1_SENT);
	ck_assert_uint_eq(queued(&n, 0, HIP_I2), 0);
	expect_notify(&n, 0, HIP_NOTIFY_NO_HIP_PROPOSAL_CHOSEN, &nt);
	bex_inject(&n, 1, nt.buf, nt.len, &nt.src, &nt.dst);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_NO_ASSOCIATION], 1);
	bex_net_free(&n);
}
END_TEST

/* The NOTIFY rate limit (ENG_NOTIFY_RATE per second, burst ENG_NOTIFY_BURST)
 * holds for the new types too: ten refused authentic I2s in a row give at
 * most the burst plus what a second could refill. */
START_TEST(test_notify_rate_limited)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_pkt i2;
	unsigned i;

	bex_net_init(&n, &o, &o);
	up_to_i2(&n, &i2);
	B(&n)->d.conf.peer_policy = HIPD_PEER_KNOWN;
	ck_assert_int_eq(hosts_del(B(&n)->d.hosts, bex_hit(A(&n)), NULL), 0);
	for (i = 0; i < 10; i++)
		bex_inject(&n, 1, i2.buf, i2.len, &i2.src, &i2.dst);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_POLICY], 10);
	ck_assert_uint_ge(queued(&n, 1, HIP_NOTIFY), ENG_NOTIFY_BURST);
	ck_assert_uint_le(queued(&n, 1, HIP_NOTIFY), ENG_NOTIFY_BURST + ENG_NOTIFY_RATE);
	bex_net_free(&n);
}
END_TEST

/* RB-01: a malformed I1 (bad DH_GROUP_LIST, or an unknown critical
 * parameter) is dropped and never answered with NOTIFY. */
START_TEST(test_malformed_i1_no_notify)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_pkt i1, bad;
	struct hip_builder b;
	uint64_t sent, drops;
	int len;

	bex_net_init(&n, &o, &o);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert(bex_take(&n, 0, HIP_I1, &i1));
	/* with an association between them, too (established first) */
	bex_inject(&n, 1, i1.buf, i1.len, &i1.src, &i1.dst);
	bex_run(&n, 10);
	ck_assert_int_eq(bex_state(B(&n)), HIP_STATE_R2_SENT);
	sent = B(&n)->d.engine->notify_sent;
	drops = bex_drops(B(&n));
	bad = i1;
	hip_build_init(&b, bad.buf, sizeof(bad.buf), HIP_I1, bex_hit(A(&n)), bex_hit(B(&n)));
	hip_build_param(&b, HIP_PARAM_DH_GROUP_LIST, "", 0);
	len = hip_build_finish(&b);
	ck_assert_int_gt(len, 0);
	bad.len = (size_t)len;
	bex_inject(&n, 1, bad.buf, bad.len, &bad.src, &bad.dst);
	hip_build_init(&b, bad.buf, sizeof(bad.buf), HIP_I1, bex_hit(A(&n)), bex_hit(B(&n)));
	hip_build_param(&b, HIP_PARAM_DH_GROUP_LIST, "\x07", 1);
	hip_build_param(&b, 1001, "x", 1);   /* unknown, critical (odd) */
	len = hip_build_finish(&b);
	ck_assert_int_gt(len, 0);
	bad.len = (size_t)len;
	bex_inject(&n, 1, bad.buf, bad.len, &bad.src, &bad.dst);
	ck_assert_uint_eq(bex_drops(B(&n)), drops + 2);
	ck_assert_uint_eq(B(&n)->d.stats->drop[HIPD_DROP_UNKNOWN_CRITICAL], 1);
	ck_assert_uint_eq(queued(&n, 1, HIP_NOTIFY), 0);
	ck_assert_uint_eq(B(&n)->d.engine->notify_sent, sent);
	bex_net_free(&n);
}
END_TEST

/* ---- §6.8 step 3: several R1s --------------------------------------------------- */

/* In I2-SENT an R1 with a larger counter (good signature) restarts the
 * processing: a new I2 answers it, and that I2 completes the exchange. An
 * R1 with the same or a smaller counter is dropped and counted. A newer R1
 * that fails later (DH downgrade) leaves the exchange in progress intact. */
START_TEST(test_r1_larger_counter)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_pkt r1_old, i2_old, r1_new;
	struct hip_ha *ha;
	struct hip_u8_list groups = { .n = 2, .v = { HIP_DH_NIST_P256, HIP_DH_NIST_P384 } };
	struct hidb_entry *rb;
	uint64_t c_old;
	int len;

	bex_net_init(&n, &o, &o);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert_int_eq(bex_deliver_one(&n), HIP_I1);
	ck_assert(bex_take(&n, 1, HIP_R1, &r1_old));
	bex_inject(&n, 0, r1_old.buf, r1_old.len, &r1_old.src, &r1_old.dst);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_I2_SENT);
	ck_assert(bex_take(&n, 0, HIP_I2, &i2_old));
	ha = bex_ha(A(&n));
	c_old = ha->r1_counter.counter;

	/* the same R1 again, and an older-or-equal one: dropped, counted */
	bex_inject(&n, 0, r1_old.buf, r1_old.len, &r1_old.src, &r1_old.dst);
	ck_assert_uint_eq(A(&n)->d.stats->drop[HIPD_DROP_R1_COUNTER], 1);
	ck_assert_uint_eq(queued(&n, 0, HIP_I2), 0);

	/* B's cache moves on (rotation): a newer R1 for A's I1 */
	rb = hidb_default(B(&n)->d.hidb);
	ck_assert_int_eq(r1cache_rotate(rb->r1, hipd_now_ns()), 0);
	len = r1cache_answer(rb->r1, bex_hit(A(&n)), &groups, 0, &r1_old.src, &r1_old.dst,
			     r1_new.buf, sizeof(r1_new.buf));
	ck_assert_int_gt(len, 0);
	r1_new.len = (size_t)len;
	r1_new.src = r1_old.src;
	r1_new.dst = r1_old.dst;
	bex_inject(&n, 0, r1_new.buf, r1_new.len, &r1_new.src, &r1_new.dst);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_I2_SENT);
	ck_assert_uint_gt(ha->r1_counter.counter, c_old);
	ck_assert_uint_eq(queued(&n, 0, HIP_I2), 1);
	ck_assert_uint_eq(A(&n)->d.stats->drop[HIPD_DROP_R1_COUNTER], 1);
	/* now the first R1 is the older one */
	bex_inject(&n, 0, r1_old.buf, r1_old.len, &r1_old.src, &r1_old.dst);
	ck_assert_uint_eq(A(&n)->d.stats->drop[HIPD_DROP_R1_COUNTER], 2);
	ck_assert_uint_eq(queued(&n, 0, HIP_I2), 1);
	/* the new I2 completes the exchange */
	bex_run(&n, 10);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_ESTABLISHED);
	ck_assert_int_eq(bex_state(B(&n)), HIP_STATE_R2_SENT);
	bex_net_free(&n);
}
END_TEST

/* A newer R1 that then fails (its group is not the first common one: a
 * downgrade) leaves the exchange in progress as it was (r1_save/restore
 * through the shared copy): the I2 already sent still completes it. */
START_TEST(test_r1_newer_but_bad_keeps_exchange)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_pkt i2, r1_new;
	struct hip_ha *ha, before;
	struct hip_u8_list groups = { .n = 1, .v = { HIP_DH_NIST_P384 } };
	struct hidb_entry *rb;
	int len;

	bex_net_init(&n, &o, &o);
	up_to_i2(&n, &i2);
	ha = bex_ha(A(&n));
	before = *ha;
	/* a newer R1, genuinely B's, answering an I1 that listed group 8
	 * only: it carries group 8 while its DH_GROUP_LIST says 7 first, so
	 * for A (who offered 7) it is a downgrade */
	rb = hidb_default(B(&n)->d.hidb);
	ck_assert_int_eq(r1cache_rotate(rb->r1, hipd_now_ns()), 0);
	len = r1cache_answer(rb->r1, bex_hit(A(&n)), &groups, 0, &i2.dst, &i2.src,
			     r1_new.buf, sizeof(r1_new.buf));
	ck_assert_int_gt(len, 0);
	r1_new.len = (size_t)len;
	bex_inject(&n, 0, r1_new.buf, r1_new.len, &i2.dst, &i2.src);
	ck_assert_uint_eq(A(&n)->d.stats->drop[HIPD_DROP_DH_DOWNGRADE], 1);
	ck_assert_uint_eq(queued(&n, 0, HIP_I2), 0);
	/* the negotiated fields are back as they were */
	ck_assert_uint_eq(ha->dh_group, before.dh_group);
	ck_assert_uint_eq(ha->hip_cipher, before.hip_cipher);
	ck_assert_uint_eq(ha->esp_suite, before.esp_suite);
	ck_assert_uint_eq(ha->keymat_index, before.keymat_index);
	ck_assert_uint_eq(ha->spi_in, before.spi_in);
	ck_assert_mem_eq(ha->puzzle_j, before.puzzle_j, sizeof(ha->puzzle_j));
	ck_assert_mem_eq(&ha->hip_keys, &before.hip_keys, sizeof(ha->hip_keys));
	ck_assert_mem_eq(&ha->esp_keys, &before.esp_keys, sizeof(ha->esp_keys));
	bex_inject(&n, 1, i2.buf, i2.len, &i2.src, &i2.dst);
	bex_run(&n, 10);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_ESTABLISHED);
	hip_wipe(&before, sizeof(before));
	bex_net_free(&n);
}
END_TEST

/* ---- §6.8 step 4: HIT Suite --------------------------------------------------- */

/* B's genuine R1, re-signed by B with HIT_SUITE_LIST = { suite }. */
static void r1_with_suites(struct bex_net *n, const struct bex_pkt *r1, uint8_t suite,
			   struct bex_pkt *out)
{
	struct hip_builder b;
	struct rebuild rb = { 0 };
	uint8_t list[8];
	struct hip_u8_list one = { .n = 1, .v = { suite } };
	int len;

	/* the contents as libhipcore encodes them (W-16: upper nibble) */
	hip_build_init(&b, out->buf, sizeof(out->buf), HIP_R1, bex_hit(B(n)), bex_hit(A(n)));
	hip_hit_suite_list_build(&b, &one);
	ck_assert_int_gt(hip_build_finish(&b), 0);
	memcpy(list, out->buf + HIP_HDR_LEN + HIP_TLV_HDR_LEN, 1);
	rb.type = HIP_PARAM_HIT_SUITE_LIST;
	rb.content = list;
	rb.len = 1;
	rb.signer = hidb_default(B(n)->d.hidb)->hi;
	rb.sig_cover = HIP_COVER_SIGNATURE_2;
	*out = *r1;
	len = rebuild(r1, &rb, out->buf, sizeof(out->buf));
	ck_assert_int_gt(len, 0);
	out->len = (size_t)len;
}

/* We have no identity of a suite the Responder lists: the exchange is
 * aborted (E-FAILED), logged, counted; no I2. */
START_TEST(test_r1_suite_abort)
{
	struct bex_opts o = { 0 };   /* ECDSA P-256: HIT Suite 2 */
	struct bex_net n;
	struct bex_pkt r1, bad;
	uint64_t failed;

	bex_net_init(&n, &o, &o);
	ck_assert_uint_eq(hip_hit_suite(bex_hit(A(&n))), HIP_SUITE_ECDSA_SHA384);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert_int_eq(bex_deliver_one(&n), HIP_I1);
	ck_assert(bex_take(&n, 1, HIP_R1, &r1));
	r1_with_suites(&n, &r1, HIP_SUITE_RSA_DSA_SHA256, &bad);
	failed = A(&n)->d.stats->bex_failed;
	bex_inject(&n, 0, bad.buf, bad.len, &bad.src, &bad.dst);
	ck_assert_uint_eq(A(&n)->d.stats->drop[HIPD_DROP_HIT_SUITE], 1);
	ck_assert_str_eq(hipd_drop_name(HIPD_DROP_HIT_SUITE), "hit_suite_unsupported");
	ck_assert_uint_eq(A(&n)->d.stats->bex_failed, failed + 1);
	ck_assert_int_eq(bex_state(A(&n)), HIP_STATE_E_FAILED);
	ck_assert_uint_eq(n.n, 0);
	/* the genuine R1 no longer finds an I1 outstanding */
	bex_inject(&n, 0, r1.buf, r1.len, &r1.src, &r1.dst);
	ck_assert_uint_eq(queued(&n, 0, HIP_I2), 0);
	bex_net_free(&n);
}
END_TEST

/* We have an identity of a listed suite (RSA, Suite 1): a new I1 from that
 * HIT (I1-SENT), and the exchange completes with it. */
START_TEST(test_r1_suite_restart)
{
	struct bex_opts o = { 0 };
	struct bex_net n;
	struct bex_pkt r1, bad, i1;
	struct hip_hi *rsa = NULL;
	struct hidb_entry *alt;
	struct hip_packet p;
	struct hip_ha *ha;

	bex_net_init(&n, &o, &o);
	ck_assert_int_eq(hip_hi_generate(HIP_HI_KIND_RSA_3072, &rsa), 0);
	ck_assert_int_eq(hidb_add(A(&n)->d.hidb, rsa), 0);
	alt = hidb_at(A(&n)->d.hidb, 1);
	ck_assert_ptr_nonnull(alt);
	ck_assert_uint_eq(hip_hit_suite(&alt->hit), HIP_SUITE_RSA_DSA_SHA256);
	ck_assert_int_eq(hipd_engine_trigger(&A(&n)->d, bex_hit(B(&n))), 0);
	ck_assert_int_eq(bex_deliver_one(&n), HIP_I1);
	ck_assert(bex_take(&n, 1, HIP_R1, &r1));
	r1_with_suites(&n, &r1, HIP_SUITE_RSA_DSA_SHA256, &bad);
	bex_inject(&n, 0, bad.buf, bad.len, &bad.src, &bad.dst);
	ck_assert_uint_eq(A(&n)->d.stats->drop[HIPD_DROP_HIT_SUITE], 1);
	ck_assert_uint_eq(A(&n)->d.stats->bex_failed, 0);
	/* one association with B, from the RSA HIT, waiting for its R1 */
	ck_assert_ptr_null(hadb_find(A(&n)->d.hadb, bex_hit(A(&n)), bex_hit(B(&n))));
	ha = hadb_find(A(&n)->d.hadb, &alt->hit, bex_hit(B(&n)));
	ck_assert_ptr_nonnull(ha);
	ck_assert_int_eq(ha->state, HIP_STATE_I1_SENT);
	ck_assert(ha->retx_timer != 0);
	ck_assert_uint_eq(hadb_count(A(&n)->d.hadb), 1);
	ck_assert(bex_take(&n, 0, HIP_I1, &i1));
	ck_assert_int_eq(hip_packet_parse(i1.buf, i1.len, &p), 0);
	ck_assert_mem_eq(p.hit_sender.b, alt->hit.b, HIP_HIT_LEN);
	bex_inject(&n, 1, i1.buf, i1.len, &i1.src, &i1.dst);
	bex_run(&n, 10);
	ck_assert_int_eq(ha->state, HIP_STATE_ESTABLISHED);
	ha = hadb_find(B(&n)->d.hadb, bex_hit(B(&n)), &alt->hit);
	ck_assert_ptr_nonnull(ha);
	ck_assert_int_eq(ha->state, HIP_STATE_R2_SENT);
	bex_net_free(&n);
}
END_TEST

/* ---- one copy of the negotiated fields ------------------------------------------ */

START_TEST(test_copy_negotiated)
{
	static struct hip_ha src, dst, zero;

	memset(&src, 0, sizeof(src));
	memset(&dst, 0, sizeof(dst));
	src.dh_group = 7;
	src.hip_cipher = 4;
	src.esp_suite = 13;
	src.rhash = HIP_RHASH_SHA384;
	src.puzzle_len = 48;
	memset(src.puzzle_i, 0xa1, sizeof(src.puzzle_i));
	memset(src.puzzle_j, 0xb2, sizeof(src.puzzle_j));
	memset(&src.hip_keys, 0xc3, sizeof(src.hip_keys));
	memset(&src.esp_keys, 0xd4, sizeof(src.esp_keys));
	src.keymat_index = 160;
	src.spi_in = 0x1234;               /* not negotiated: not copied */
	src.state = HIP_STATE_ESTABLISHED;
	eng_ha_copy_negotiated(&dst, &src);
	ck_assert_uint_eq(dst.dh_group, 7);
	ck_assert_uint_eq(dst.hip_cipher, 4);
	ck_assert_uint_eq(dst.esp_suite, 13);
	ck_assert_int_eq(dst.rhash, HIP_RHASH_SHA384);
	ck_assert_uint_eq(dst.puzzle_len, 48);
	ck_assert_mem_eq(dst.puzzle_i, src.puzzle_i, sizeof(dst.puzzle_i));
	ck_assert_mem_eq(dst.puzzle_j, src.puzzle_j, sizeof(dst.puzzle_j));
	ck_assert_mem_eq(&dst.hip_keys, &src.hip_keys, sizeof(dst.hip_keys));
	ck_assert_mem_eq(&dst.esp_keys, &src.esp_keys, sizeof(dst.esp_keys));
	ck_assert_uint_eq(dst.keymat_index, 160);
	ck_assert_uint_eq(dst.spi_in, 0);
	ck_assert_int_eq(dst.state, zero.state);
}
END_TEST

static Suite *bexgaps_suite(void)
{
	Suite *s = suite_create("bexgaps");
	TCase *t = tcase_create("gaps");

	tcase_add_unchecked_fixture(t, bex_tmp_setup, bex_tmp_teardown);
	tcase_set_timeout(t, 120);
	tcase_add_test(t, test_i1_storm_filter);
	tcase_add_test(t, test_i1_storm_engine);
	tcase_add_test(t, test_notify_invalid_syntax);
	tcase_add_test(t, test_notify_invalid_hit);
	tcase_add_test(t, test_notify_r2);
	tcase_add_test(t, test_notify_blocked_by_policy);
	tcase_add_test(t, test_notify_no_hip_proposal);
	tcase_add_test(t, test_notify_rate_limited);
	tcase_add_test(t, test_malformed_i1_no_notify);
	tcase_add_test(t, test_r1_larger_counter);
	tcase_add_test(t, test_r1_newer_but_bad_keeps_exchange);
	tcase_add_test(t, test_r1_suite_abort);
	tcase_add_test(t, test_r1_suite_restart);
	tcase_add_test(t, test_copy_negotiated);
	suite_add_tcase(s, t);
	return s;
}

UNIT_MAIN(bexgaps_suite)
