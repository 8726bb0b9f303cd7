/*
 * fuzz_xfrm.c - libFuzzer target: what the kernel datapath
 * (hipd/datapath/xfrm/) reads from NETLINK_XFRM. A SOCK_SEQPACKET
 * socketpair stands in for the kernel (xfrm_dp_create_fds): the input's
 * datagrams are queued as the kernel's answers, then one datapath
 * operation runs and parses them (ACKs and errors with extended-ACK text,
 * SA and policy dumps: sa_find_cb and its attribute scan, sa_dump_cb,
 * policy_is_ours, sa_stats_cb, the larval states and ALLOCSPI answers),
 * or the event socket is read (ACQUIRE, EXPIRE).
 *
 * Input: byte 0 the operation (modulo 10: events, sa_add, sa_del,
 * policy_add, policy_del, sa_stats, flush, the ACQUIRE policy, the ESP
 * probe, the larval purge), byte 1 its variant (direction, suite, UDP
 * encapsulation, address family...), then datagrams of [length, 2 bytes
 * LE][bytes], each holding any number of netlink messages. Requests carry
 * seq 1, 2, ... and the answers must carry portid FUZZ_PORTID. Once the
 * datagrams are used up the socket reads as closed.
 *
 * Seeds: fuzz/corpus/xfrm/, written by this target itself from the
 * requests the datapath sends (an SA it adds comes back in an SA dump):
 *   HIP_SEED_DIR=fuzz/corpus/xfrm build-fuzz/fuzz/fuzz_xfrm -runs=0
 * No crash, no sanitizer report, no hang, whatever the input.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/xfrm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hip_crypto.h"
#include "hip_wire.h"
#include "base/base.h"
#include "datapath/xfrm/xfrm_int.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
	FUZZ_PORTID = 0x4849,
	N_OPS = 10,
	DGRAM_MAX = XFRM_RX_MAX + 64,   /* a little over: the too-long path */
};

enum op {
	OP_EVENTS, OP_SA_ADD, OP_SA_DEL, OP_POLICY_ADD, OP_POLICY_DEL, OP_SA_STATS, OP_FLUSH,
	OP_ACQUIRE_POLICY, OP_PROBE, OP_LARVAL,
};

static const uint16_t suites[8] = {
	HIP_ESP_AES128_CBC_SHA1, HIP_ESP_NULL_SHA256, HIP_ESP_AES128_CBC_SHA256,
	HIP_ESP_AES256_CBC_SHA256, HIP_ESP_AES_GCM_8, HIP_ESP_AES_GCM_16, HIP_ESP_AES_CCM_8, 0,
};

static volatile size_t fuzz_sink;

static void on_acquire(void *arg, const struct hip_hit *local, const struct hip_hit *peer)
{
	(void)arg;
	fuzz_sink += local->b[15] + peer->b[15];
}

static void on_expire(void *arg, uint32_t spi, bool hard)
{
	(void)arg;
	fuzz_sink += spi + hard;
}

struct rig {
	struct datapath *dp;
	int kernel;           /* the kernel's end of the request socket */
	int kernel_ev;        /* and of the event socket */
	struct hip_hit local, peer;
};

static int rig_open(struct rig *r)
{
	struct datapath_events ev = { .acquire = on_acquire, .expire = on_expire };
	int sv[2], ev_sv[2];

	memset(r, 0, sizeof(*r));
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0)
		return -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, ev_sv) != 0) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	r->kernel = sv[1];
	r->kernel_ev = ev_sv[1];
	if (xfrm_dp_create_fds(&r->dp, NULL, &ev, sv[0], FUZZ_PORTID, ev_sv[0]) != 0) {
		close(r->kernel);
		close(r->kernel_ev);
		return -1;
	}
	if (hip_hit_from_str("2001:20::b", &r->local) || hip_hit_from_str("2001:20::a", &r->peer))
		abort();
	return 0;
}

static void rig_close(struct rig *r)
{
	r->dp->ops->free(r->dp);
	close(r->kernel);
	close(r->kernel_ev);
}

/* Queue the input's datagrams on fd (the kernel's end). */
static void queue(int fd, const uint8_t *data, size_t size)
{
	size_t off = 0;

	while (size - off >= 2) {
		size_t len = (size_t)data[off] | (size_t)data[off + 1] << 8;

		if (len > size - off - 2)
			len = size - off - 2;
		if (len > DGRAM_MAX)
			len = DGRAM_MAX;
		(void)send(fd, data + off + 2, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		off += 2 + len;
	}
}

static void make_sa(const struct rig *r, uint8_t v, struct hip_esp_sa *sa)
{
	struct hip_esp_suite_info info;
	size_t i;

	memset(sa, 0, sizeof(*sa));
	sa->spi = 0x10000 + (v & 3u);
	sa->inbound = v & 4;
	sa->suite = suites[(v >> 3) & 7];
	if (hip_esp_suite_info(sa->suite, &info) == 0) {
		sa->enc_len = info.enc_key_len;
		sa->auth_len = info.auth_key_len;
	}
	for (i = 0; i < HIP_ESP_KEY_MAX; i++) {
		sa->enc_key[i] = (uint8_t)(0x10 + i);
		sa->auth_key[i] = (uint8_t)(0x80 + i);
	}
	sa->inner_src = sa->inbound ? r->peer : r->local;
	sa->inner_dst = sa->inbound ? r->local : r->peer;
	if (hip_addr_from_str(v & 0x40 ? "2001:db8::1" : "192.0.2.1",
			      sa->inbound ? &sa->outer_dst : &sa->outer_src) ||
	    hip_addr_from_str(v & 0x40 ? "2001:db8::2" : "192.0.2.2",
			      sa->inbound ? &sa->outer_src : &sa->outer_dst))
		abort();
	if (v & 0x80) {
		sa->encap_sport = 10500;
		sa->encap_dport = 10501;
		sa->soft_bytes = 1u << 20;
		sa->hard_seconds = 3600;
	}
	sa->replay_window = v & 0x20 ? 4096 : 0;
}

static void run_op(struct rig *r, unsigned op, uint8_t v)
{
	struct hip_esp_sa sa;
	struct hip_esp_sa_stats st;
	char why[64];

	make_sa(r, v, &sa);
	switch (op) {
	case OP_EVENTS:
		xfrm_dp_event_read(r->dp);
		break;
	case OP_SA_ADD:
		fuzz_sink += (size_t)r->dp->ops->sa_add(r->dp, &sa);
		break;
	case OP_SA_DEL:
		fuzz_sink += (size_t)r->dp->ops->sa_del(r->dp, sa.spi, sa.inbound, &sa.outer_dst);
		break;
	case OP_POLICY_ADD:
		fuzz_sink += (size_t)r->dp->ops->policy_add(r->dp, &r->local, &r->peer,
							    &sa.outer_src, &sa.outer_dst);
		break;
	case OP_POLICY_DEL:
		fuzz_sink += (size_t)r->dp->ops->policy_del(r->dp, &r->local, &r->peer);
		break;
	case OP_SA_STATS:
		fuzz_sink += (size_t)r->dp->ops->sa_stats(r->dp, sa.spi, sa.inbound, &st);
		break;
	case OP_FLUSH:
		fuzz_sink += (size_t)xfrm_dp_flush_count(r->dp);
		break;
	case OP_ACQUIRE_POLICY:
		if (v & 1)
			fuzz_sink += (size_t)xfrm_dp_acquire_policy_del(r->dp, &r->local);
		else
			fuzz_sink += (size_t)xfrm_dp_acquire_policy_add(r->dp, &r->local);
		break;
	case OP_PROBE:
		fuzz_sink += (size_t)xfrm_dp_probe_esp(r->dp, why, sizeof(why));
		break;
	default:
		fuzz_sink += (size_t)xfrm_larval_purge(to_x(r->dp), v & 1 ? NULL : &r->local,
						       &r->peer);
		break;
	}
	hip_wipe(&sa, sizeof(sa));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rig r;
	unsigned op;

	if (size < 2 || rig_open(&r) != 0)
		return 0;
	op = data[0] % N_OPS;
	if (op == OP_EVENTS) {
		/* the event socket stays open: read until it is empty */
		queue(r.kernel_ev, data + 2, size - 2);
	} else {
		queue(r.kernel, data + 2, size - 2);
		shutdown(r.kernel, SHUT_WR);
	}
	run_op(&r, op, data[1]);
	rig_close(&r);
	return 0;
}

/* ---- seeds (HIP_SEED_DIR) ---- */

struct seed {
	uint8_t b[16384];
	size_t len;
};

/* Append one datagram; its messages are added with msg(). */
static size_t dgram_start(struct seed *s)
{
	size_t at = s->len;

	s->len += 2;
	return at;
}

static void dgram_end(struct seed *s, size_t at)
{
	size_t n = s->len - at - 2;

	s->b[at] = (uint8_t)n;
	s->b[at + 1] = (uint8_t)(n >> 8);
}

/* One netlink message: type, seq, body (len bytes). */
static void msg(struct seed *s, uint16_t type, uint16_t flags, uint32_t seq, const void *body,
		size_t len)
{
	struct nlmsghdr h = { .nlmsg_len = (uint32_t)NLMSG_LENGTH(len), .nlmsg_type = type,
			      .nlmsg_flags = flags, .nlmsg_seq = seq, .nlmsg_pid = FUZZ_PORTID };

	if (s->len + NLMSG_SPACE(len) > sizeof(s->b))
		abort();
	memcpy(s->b + s->len, &h, sizeof(h));
	if (len)
		memcpy(s->b + s->len + NLMSG_HDRLEN, body, len);
	memset(s->b + s->len + NLMSG_HDRLEN + len, 0, NLMSG_ALIGN(len) - len);
	s->len += NLMSG_SPACE(len);
}

static void ack(struct seed *s, uint32_t seq, int error)
{
	struct nlmsgerr e;
	size_t at = dgram_start(s);

	memset(&e, 0, sizeof(e));
	e.error = error;
	msg(s, NLMSG_ERROR, 0, seq, &e, sizeof(e));
	dgram_end(s, at);
}

static void done(struct seed *s, uint32_t seq)
{
	size_t at = dgram_start(s);
	int zero = 0;

	msg(s, NLMSG_DONE, NLM_F_MULTI, seq, &zero, sizeof(zero));
	dgram_end(s, at);
}

/* An error ACK with the kernel's text (NLM_F_ACK_TLVS). */
static void ack_text(struct seed *s, uint32_t seq, int error, const char *text)
{
	uint8_t body[sizeof(struct nlmsgerr) + 64];
	struct nlmsgerr e;
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + strlen(text) + 1),
			    .nla_type = NLMSGERR_ATTR_MSG };
	size_t at = dgram_start(s), n;

	memset(body, 0, sizeof(body));
	memset(&e, 0, sizeof(e));
	e.error = error;
	memcpy(body, &e, sizeof(e));
	memcpy(body + sizeof(e), &a, sizeof(a));
	memcpy(body + sizeof(e) + NLA_HDRLEN, text, strlen(text) + 1);
	n = sizeof(e) + NLA_ALIGN(a.nla_len);
	msg(s, NLMSG_ERROR, NLM_F_ACK_TLVS, seq, body, n);
	dgram_end(s, at);
}

static void seed_write(const char *dir, const char *name, unsigned op, uint8_t v,
		       const struct seed *s)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fputc((int)op, f) == EOF || fputc(v, f) == EOF ||
	    fwrite(s->b, 1, s->len, f) != s->len || fclose(f) != 0)
		abort();
}

/* Run op against answers and keep the first request of type want the
 * datapath sent (its body and attributes) in out: what the kernel would
 * show in a dump. */
static size_t capture(unsigned op, uint8_t v, const struct seed *answers, uint16_t want,
		      uint8_t *out, size_t cap)
{
	uint8_t buf[4096];
	struct nlmsghdr h;
	struct rig r;
	ssize_t n;
	size_t got = 0;

	if (rig_open(&r) != 0)
		abort();
	queue(r.kernel, answers->b, answers->len);
	shutdown(r.kernel, SHUT_WR);
	run_op(&r, op, v);
	while ((n = recv(r.kernel, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		memcpy(&h, buf, sizeof(h));
		if (!got && h.nlmsg_type == want && h.nlmsg_len <= (size_t)n &&
		    h.nlmsg_len - NLMSG_HDRLEN <= cap) {
			got = h.nlmsg_len - NLMSG_HDRLEN;
			memcpy(out, buf + NLMSG_HDRLEN, got);
		}
	}
	rig_close(&r);
	return got;
}

static void write_seeds(const char *dir)
{
	uint8_t sa_msg[2048], pol_msg[1024];
	size_t sa_len, pol_len, at;
	struct seed s, a;
	uint32_t q;
	unsigned v;

	/* events: ACQUIRE from our catch-all policy, soft and hard EXPIRE */
	memset(&s, 0, sizeof(s));
	{
		uint8_t body[NLMSG_ALIGN(sizeof(struct xfrm_user_acquire)) + NLA_HDRLEN +
			     sizeof(struct xfrm_user_tmpl)];
		struct xfrm_user_acquire acq;
		struct xfrm_user_tmpl t;
		struct xfrm_user_expire e;
		struct nlattr na = { .nla_len = NLA_HDRLEN + sizeof(t), .nla_type = XFRMA_TMPL };
		struct hip_hit l, p;

		if (hip_hit_from_str("2001:20::b", &l) || hip_hit_from_str("2001:20::a", &p))
			abort();
		memset(body, 0, sizeof(body));
		memset(&acq, 0, sizeof(acq));
		memset(&t, 0, sizeof(t));
		acq.sel.family = AF_INET6;
		memcpy(acq.sel.saddr.a6, l.b, 16);
		memcpy(acq.sel.daddr.a6, p.b, 16);
		t.reqid = HIP_XFRM_REQID_DEFAULT;
		t.id.proto = IPPROTO_ESP;
		memcpy(body, &acq, sizeof(acq));
		memcpy(body + NLMSG_ALIGN(sizeof(acq)), &na, sizeof(na));
		memcpy(body + NLMSG_ALIGN(sizeof(acq)) + NLA_HDRLEN, &t, sizeof(t));
		memset(&e, 0, sizeof(e));
		e.state.reqid = HIP_XFRM_REQID_DEFAULT;
		e.state.id.proto = IPPROTO_ESP;
		e.state.id.spi = htonl(0x10000);
		at = dgram_start(&s);
		msg(&s, XFRM_MSG_ACQUIRE, 0, 0, body, sizeof(body));
		msg(&s, XFRM_MSG_EXPIRE, 0, 0, &e, sizeof(e));
		dgram_end(&s, at);
		e.hard = 1;
		at = dgram_start(&s);
		msg(&s, XFRM_MSG_EXPIRE, 0, 0, &e, sizeof(e));
		dgram_end(&s, at);
		seed_write(dir, "events", OP_EVENTS, 0, &s);
	}
	/* every operation answered: each request ACKed, each dump empty */
	for (unsigned op = OP_SA_ADD; op < N_OPS; op++) {
		char name[32];

		memset(&s, 0, sizeof(s));
		for (q = 1; q <= 6; q++) {
			at = dgram_start(&s);
			msg(&s, NLMSG_DONE, NLM_F_MULTI, q, &(int){ 0 }, sizeof(int));
			dgram_end(&s, at);
		}
		snprintf(name, sizeof(name), "op%u-ok", op);
		seed_write(dir, name, op, (uint8_t)(5 << 3), &s);
	}
	/* errors: an SA the kernel refuses with its reason; a policy absent */
	memset(&s, 0, sizeof(s));
	done(&s, 1);
	ack_text(&s, 2, -EINVAL, "Requested type not found");
	seed_write(dir, "sa-add-refused", OP_SA_ADD, 2 << 3, &s);
	memset(&s, 0, sizeof(s));
	ack(&s, 1, -ENOENT);
	ack(&s, 2, 0);
	ack(&s, 3, -ENOENT);
	ack(&s, 4, 0);
	done(&s, 5);
	seed_write(dir, "policy-add-new", OP_POLICY_ADD, 0, &s);

	/* the SA and policy of ours as the kernel would list them */
	for (v = 0; v < 0x100; v += 0x4d) {
		char name[32];

		memset(&a, 0, sizeof(a));
		done(&a, 1);
		ack(&a, 2, 0);
		sa_len = capture(OP_SA_ADD, (uint8_t)v, &a, XFRM_MSG_NEWSA, sa_msg, sizeof(sa_msg));
		if (!sa_len)
			continue;
		/* sa_add again: found in the dump, replaced */
		memset(&s, 0, sizeof(s));
		at = dgram_start(&s);
		msg(&s, XFRM_MSG_NEWSA, NLM_F_MULTI, 1, sa_msg, sa_len);
		msg(&s, NLMSG_DONE, NLM_F_MULTI, 1, &(int){ 0 }, sizeof(int));
		dgram_end(&s, at);
		for (q = 2; q <= 5; q++)
			ack(&s, q, 0);
		snprintf(name, sizeof(name), "sa-replace-%02x", v);
		seed_write(dir, name, OP_SA_ADD, (uint8_t)v, &s);
		/* its statistics */
		s.len = 0;
		at = dgram_start(&s);
		msg(&s, XFRM_MSG_NEWSA, NLM_F_MULTI, 1, sa_msg, sa_len);
		msg(&s, NLMSG_DONE, NLM_F_MULTI, 1, &(int){ 0 }, sizeof(int));
		dgram_end(&s, at);
		snprintf(name, sizeof(name), "sa-stats-%02x", v);
		seed_write(dir, name, OP_SA_STATS, (uint8_t)v, &s);
	}
	memset(&a, 0, sizeof(a));
	ack(&a, 1, -ENOENT);
	ack(&a, 2, 0);
	pol_len = capture(OP_POLICY_ADD, 0, &a, XFRM_MSG_NEWPOLICY, pol_msg, sizeof(pol_msg));
	memset(&a, 0, sizeof(a));
	done(&a, 1);
	ack(&a, 2, 0);
	sa_len = capture(OP_SA_ADD, 0, &a, XFRM_MSG_NEWSA, sa_msg, sizeof(sa_msg));
	if (pol_len && sa_len) {
		/* policy_del: GETPOLICY finds ours, DELPOLICY */
		memset(&s, 0, sizeof(s));
		at = dgram_start(&s);
		msg(&s, XFRM_MSG_NEWPOLICY, 0, 1, pol_msg, pol_len);
		msg(&s, NLMSG_ERROR, 0, 1, &(struct nlmsgerr){ 0 }, sizeof(struct nlmsgerr));
		dgram_end(&s, at);
		ack(&s, 2, 0);
		ack(&s, 3, -ENOENT);
		seed_write(dir, "policy-del", OP_POLICY_DEL, 0, &s);
		/* flush: one policy, one SA, one larval state */
		memset(&s, 0, sizeof(s));
		at = dgram_start(&s);
		msg(&s, XFRM_MSG_NEWPOLICY, NLM_F_MULTI, 1, pol_msg, pol_len);
		msg(&s, NLMSG_DONE, NLM_F_MULTI, 1, &(int){ 0 }, sizeof(int));
		dgram_end(&s, at);
		ack(&s, 2, 0);
		at = dgram_start(&s);
		msg(&s, XFRM_MSG_NEWSA, NLM_F_MULTI, 3, sa_msg, sa_len);
		msg(&s, NLMSG_DONE, NLM_F_MULTI, 3, &(int){ 0 }, sizeof(int));
		dgram_end(&s, at);
		ack(&s, 4, 0);
		{
			struct xfrm_usersa_info info;

			memcpy(&info, sa_msg, sizeof(info));
			info.id.spi = 0;    /* larval */
			memcpy(sa_msg, &info, sizeof(info));
		}
		at = dgram_start(&s);
		msg(&s, XFRM_MSG_NEWSA, NLM_F_MULTI, 5, sa_msg, sa_len);
		msg(&s, NLMSG_DONE, NLM_F_MULTI, 5, &(int){ 0 }, sizeof(int));
		dgram_end(&s, at);
		{
			struct xfrm_usersa_info info;

			memcpy(&info, sa_msg, sizeof(info));
			info.id.spi = htonl(0x2000);
			memcpy(sa_msg, &info, sizeof(info));
		}
		at = dgram_start(&s);
		msg(&s, XFRM_MSG_NEWSA, 0, 6, sa_msg, sa_len);
		msg(&s, NLMSG_ERROR, 0, 6, &(struct nlmsgerr){ 0 }, sizeof(struct nlmsgerr));
		dgram_end(&s, at);
		ack(&s, 7, 0);
		seed_write(dir, "flush", OP_FLUSH, 0, &s);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("HIP_SEED_DIR");

	(void)argc, (void)argv;
	log_set_level(LOG_ERR);
	if (dir)
		write_seeds(dir);
	return 0;
}
