/*
 * hip-inject - send bad HIP packets at a running hipd, from inside a test
 * network namespace (raw sockets: run as root, only in namespaces you made).
 *
 *   --mode truncate|reorder|duplicate|badcsum|random
 *       packets of every type (I1 R1 I2 R2 UPDATE NOTIFY CLOSE CLOSE_ACK),
 *       well formed, then broken in that way (inject_mutate.c)
 *   --mode badmac   a real I1/R1 exchange (puzzle solved, keys derived),
 *       then I2s with a wrong HIP_MAC or a wrong signature, one valid I2
 *       (hipd must answer with R2), packets of the other types with wrong
 *       MACs / signatures inside that association, and a valid CLOSE (hipd
 *       must answer with CLOSE_ACK). Exit 3 if hipd did not answer.
 *   --mode replay   sniff the HIP packets between --src and --dst for
 *       --capture-ms (AF_PACKET; run it in --src's namespace during a real
 *       base exchange), then replay them to --dst; --dst's own packets are
 *       reflected back to it
 *   --mode all      each mode above in turn, count packets each
 *   --mode i1flood  valid I1s from --sources addresses counting up from --src
 *       (spoofed, IP_HDRINCL), each with its own HIT, at --rate packets/s
 *       (0 = as fast as possible) for --count packets or --duration s
 *
 * Prints one line per mode: "MODE: N packets sent ..." (i1flood: the rate).
 * Exit status: 0 ok, 1 usage, 2 setup failed, 3 hipd did not answer.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hit.h"
#include "inject.h"

enum {
	IP4_HDR = 20, IP6_HDR = 40, PKT_MAX = IP6_HDR + HIP_MAX_PACKET,
	CAPTURE_MAX = 64, BATCH = 64, ANSWER_MS = 1000, TRIES = 3,
	EXIT_USAGE = 1, EXIT_SETUP = 2, EXIT_NO_ANSWER = 3,
};

struct inj {
	struct inj_ctx c;
	struct hip_addr src, dst;
	bool v4;
	int tx, rx;                     /* IPPROTO_RAW (header included), proto 139 */
	unsigned long count, rate, sources, capture_ms;
	double duration;
	unsigned long sent;
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* In the order of enum inj_mutation first; "all" runs these in turn. */
static const char *const modes[] = {
	"truncate", "reorder", "duplicate", "badcsum", "random", "badmac", "replay",
};

static bool mode_known(const char *m)
{
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(m, modes[i]))
			return true;
	return !strcmp(m, "all") || !strcmp(m, "i1flood");
}

/* ---- raw IP output and input --------------------------------------------- */

/* The IP header for a HIP payload (the kernel fills the IPv4 checksum). */
static size_t ip_header(uint8_t *h, const struct hip_addr *src, const struct hip_addr *dst,
			size_t payload)
{
	if (hip_addr_is_v4(dst)) {
		memset(h, 0, IP4_HDR);
		h[0] = 0x45;
		hip_wr16(h + 2, (uint16_t)(IP4_HDR + payload));
		h[8] = 64;
		h[9] = HIP_PROTO;
		memcpy(h + 12, &src->in6.s6_addr[12], 4);
		memcpy(h + 16, &dst->in6.s6_addr[12], 4);
		return IP4_HDR;
	}
	memset(h, 0, IP6_HDR);
	h[0] = 0x60;
	hip_wr16(h + 4, (uint16_t)payload);
	h[6] = HIP_PROTO;
	h[7] = 64;
	memcpy(h + 8, src->in6.s6_addr, 16);
	memcpy(h + 24, dst->in6.s6_addr, 16);
	return IP6_HDR;
}

static socklen_t sockaddr_of(const struct hip_addr *a, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (hip_addr_is_v4(a)) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_addr = hip_addr_v4(a);
		return sizeof(*s4);
	}
	((struct sockaddr_in6 *)ss)->sin6_family = AF_INET6;
	((struct sockaddr_in6 *)ss)->sin6_addr = a->in6;
	return sizeof(struct sockaddr_in6);
}

/* Send a HIP packet from src to dst; the checksum must already be set. */
static int send_raw(struct inj *x, const struct hip_addr *src, const struct hip_addr *dst,
		    const uint8_t *pkt, size_t len)
{
	uint8_t ip[IP6_HDR];
	struct iovec iov[2] = { { ip, ip_header(ip, src, dst, len) }, { (void *)pkt, len } };
	struct sockaddr_storage ss;
	struct msghdr m = { .msg_name = &ss, .msg_iov = iov, .msg_iovlen = 2 };

	m.msg_namelen = sockaddr_of(dst, &ss);
	if (sendmsg(x->tx, &m, 0) < 0)
		return -errno;
	x->sent++;
	return 0;
}

/* Checksum for our addresses, then send. */
static int send_hip(struct inj *x, uint8_t *pkt, size_t len)
{
	hip_packet_set_checksum(pkt, len, &x->src, &x->dst);
	return send_raw(x, &x->src, &x->dst, pkt, len);
}

static int build_send(struct inj *x, uint8_t type, unsigned flags)
{
	uint8_t buf[HIP_MAX_PACKET];
	int n = inj_build(&x->c, type, flags, buf, sizeof(buf));

	return n < 0 ? n : send_hip(x, buf, (size_t)n);
}

/* Wait up to ms for a packet of type from the victim to us; 0 or -ETIMEDOUT. */
static int recv_hip(struct inj *x, uint8_t type, uint8_t *buf, size_t cap, struct hip_packet *p,
		    int ms)
{
	double end = now_s() + ms / 1000.0;
	struct pollfd pfd = { .fd = x->rx, .events = POLLIN };
	size_t off;
	ssize_t n;

	while (now_s() < end) {
		if (poll(&pfd, 1, (int)((end - now_s()) * 1000) + 1) <= 0)
			continue;
		n = recv(x->rx, buf, cap, 0);
		if (n <= 0)
			continue;
		/* IPv4 raw sockets hand over the IP header too */
		off = x->v4 ? (size_t)(buf[0] & 0x0f) * 4 : 0;
		if ((size_t)n <= off || hip_packet_parse(buf + off, (size_t)n - off, p) < 0)
			continue;
		if (p->type == type && !hip_hit_cmp(&p->hit_sender, &x->c.peer) &&
		    !hip_hit_cmp(&p->hit_receiver, &x->c.me))
			return 0;
	}
	return -ETIMEDOUT;
}

/* ---- malformed packets of every type ------------------------------------ */

static int run_mutation(struct inj *x, enum inj_mutation m)
{
	uint8_t tmpl[INJ_TYPES][HIP_MAX_PACKET], buf[HIP_MAX_PACKET];
	int len[INJ_TYPES];
	unsigned long i;
	size_t n;
	int t;

	for (t = 0; t < INJ_TYPES; t++) {
		len[t] = inj_build(&x->c, inj_types[t], INJ_ECHO, tmpl[t], sizeof(tmpl[t]));
		if (len[t] < 0)
			return len[t];
	}
	for (i = 0; i < x->count; i++) {
		t = (int)(i % INJ_TYPES);
		memcpy(buf, tmpl[t], (size_t)len[t]);
		n = inj_mutate(&x->c, m, buf, (size_t)len[t], sizeof(buf), &x->src, &x->dst);
		send_raw(x, &x->src, &x->dst, buf, n);
	}
	return 0;
}

/* ---- a real exchange, then wrong MACs and signatures ---------------------- */

/* The Responder's first choice of a u16 list (what hipd offers it accepts). */
static int first16(const struct hip_packet *p, uint16_t type, uint16_t *out)
{
	const struct hip_param_ref *r = hip_packet_find(p, type);
	struct hip_u16_list l;
	int ret = -EBADMSG;

	if (r && type == HIP_PARAM_HIP_CIPHER)
		ret = hip_hip_cipher_decode(hip_param_content(p, r), r->len, &l);
	else if (r)
		ret = hip_esp_transform_decode(hip_param_content(p, r), r->len, &l);
	if (ret < 0 || l.n == 0)
		return -EBADMSG;
	*out = l.v[0];
	return 0;
}

/* §6.8: the R1's puzzle, DH value and suites -> SOLUTION, our DH value, keys. */
static int r1_absorb(struct inj_ctx *c, const struct hip_packet *p)
{
	size_t rl = hip_rhash_len(c->rhash), kl, next = 0;
	uint8_t kij[INJ_DH_MAX], keymat[8 * HIP_KEY_MAX], j0[HIP_RHASH_MAX] = { 0 };
	const struct hip_param_ref *r;
	struct hip_puzzle pz;
	struct hip_dh_param dhp;
	struct hip_hip_keys keys;
	struct hip_opaque echo;
	struct hip_dh *dh = NULL;
	bool greater = hip_hit_cmp(&c->me, &c->peer) > 0;
	int ret = -EBADMSG;

	if (!(r = hip_packet_find(p, HIP_PARAM_PUZZLE)) ||
	    hip_puzzle_decode(hip_param_content(p, r), r->len, rl, &pz) < 0 ||
	    !(r = hip_packet_find(p, HIP_PARAM_DIFFIE_HELLMAN)) ||
	    hip_dh_param_decode(hip_param_content(p, r), r->len, &dhp) < 0 ||
	    first16(p, HIP_PARAM_HIP_CIPHER, &c->hip_cipher) < 0 ||
	    first16(p, HIP_PARAM_ESP_TRANSFORM, &c->esp_suite) < 0 ||
	    hip_cipher_key_len(c->hip_cipher) < 0)
		goto out;
	r = hip_packet_find(p, HIP_PARAM_R1_COUNTER);
	c->have_r1c = r && hip_r1_counter_decode(hip_param_content(p, r), r->len, &c->r1c) == 0;
	r = hip_packet_find(p, HIP_PARAM_ECHO_REQUEST_SIGNED);
	c->have_echo = r && hip_echo_decode(hip_param_content(p, r), r->len, &echo) == 0;
	if (c->have_echo) {
		memcpy(c->echo, echo.data, echo.len);
		c->echo_len = echo.len;
	}
	c->sol = (struct hip_solution){ .k = pz.k, .opaque = pz.opaque, .ij_len = pz.i_len };
	memcpy(c->sol.i, pz.i, pz.i_len);
	kl = hip_dh_secret_len(dhp.group);
	c->dh_group = dhp.group;
	c->dh_pub_len = hip_dh_pub_len(dhp.group);
	if (kl == 0 || kl > sizeof(kij) || c->dh_pub_len > sizeof(c->dh_pub))
		goto out;
	ret = hip_puzzle_solve(c->rhash, pz.k, pz.i, c->me.b, c->peer.b, j0, 0, 0, c->sol.j, NULL);
	if (ret == 0)
		ret = hip_dh_generate(dhp.group, &dh);
	if (ret == 0)
		ret = hip_dh_public(dh, c->dh_pub, c->dh_pub_len);
	if (ret == 0)
		ret = hip_dh_derive(dh, dhp.pub, dhp.pub_len, kij, kl);
	if (ret == 0)
		ret = hip_keymat(c->rhash, pz.i, c->sol.j, rl, kij, kl, c->me.b, c->peer.b,
				 keymat, sizeof(keymat));
	if (ret == 0)
		ret = hip_keymat_draw_hip(keymat, sizeof(keymat), (size_t)hip_cipher_key_len(
						  c->hip_cipher), rl, &keys, &next);
	if (ret < 0)
		goto out;
	/* HOST_g sends with the gl keys (§6.5) */
	memcpy(c->mac_key, greater ? keys.gl_int : keys.lg_int, sizeof(c->mac_key));
	memcpy(c->enc_key, greater ? keys.gl_enc : keys.lg_enc, sizeof(c->enc_key));
	c->keymat_index = (uint16_t)next;
out:
	hip_dh_free(dh);
	hip_wipe(kij, sizeof(kij));
	hip_wipe(keymat, sizeof(keymat));
	hip_wipe(&keys, sizeof(keys));
	return ret;
}

/* Send (type, flags) until hipd answers with want (TRIES times ANSWER_MS). */
static int ask(struct inj *x, uint8_t type, unsigned flags, uint8_t want, struct hip_packet *p,
	       uint8_t *buf)
{
	int i, ret;

	for (i = 0; i < TRIES; i++) {
		ret = build_send(x, type, flags);
		if (ret < 0)
			return ret;
		if (recv_hip(x, want, buf, PKT_MAX, p, ANSWER_MS) == 0)
			return 0;
	}
	fprintf(stderr, "hip-inject: no %s from hipd\n", hip_packet_type_name(want));
	return -ETIMEDOUT;
}

static int run_badmac(struct inj *x)
{
	/* inside the association: type and what is wrong with it */
	static const struct { uint8_t type; unsigned flags; } junk[] = {
		{ HIP_UPDATE, INJ_BAD_MAC }, { HIP_CLOSE, INJ_BAD_MAC },
		{ HIP_CLOSE, INJ_BAD_SIG }, { HIP_NOTIFY, INJ_BAD_SIG },
		{ HIP_CLOSE_ACK, INJ_BAD_MAC }, { HIP_R2, INJ_BAD_MAC },
		{ HIP_R1, INJ_BAD_SIG }, { HIP_I2, INJ_BAD_MAC }, { HIP_I2, INJ_BAD_SIG },
	};
	uint8_t buf[PKT_MAX];
	struct hip_packet p;
	unsigned long i, n_i2 = x->count / 2;
	int ret;

	ret = ask(x, HIP_I1, 0, HIP_R1, &p, buf);
	if (ret < 0)
		return ret;
	ret = r1_absorb(&x->c, &p);
	if (ret < 0) {
		fprintf(stderr, "hip-inject: cannot use hipd's R1: %s\n", strerror(-ret));
		return ret;
	}
	for (i = 0; i < n_i2; i++)
		build_send(x, HIP_I2, i & 1 ? INJ_BAD_SIG : INJ_BAD_MAC);
	/* the same I2 done right must give an association */
	ret = ask(x, HIP_I2, 0, HIP_R2, &p, buf);
	if (ret < 0)
		return ret;
	for (i = n_i2; i < x->count; i++)
		build_send(x, junk[i % (sizeof(junk) / sizeof(junk[0]))].type,
			   junk[i % (sizeof(junk) / sizeof(junk[0]))].flags);
	/* and a good CLOSE ends it */
	hip_random(x->c.echo, INJ_ECHO_LEN);
	x->c.echo_len = INJ_ECHO_LEN;
	return ask(x, HIP_CLOSE, 0, HIP_CLOSE_ACK, &p, buf);
}

/* ---- capture and replay ----------------------------------------------------- */

struct captured {
	struct hip_addr src, dst;
	uint16_t len;
	uint8_t pkt[HIP_MAX_PACKET];
};

/* The HIP payload of an IP packet between the two addresses (either way). */
static int capture_one(struct inj *x, const uint8_t *ip, size_t n, struct captured *out)
{
	struct in_addr a;
	size_t hl;

	if (n >= IP4_HDR && (ip[0] >> 4) == 4 && ip[9] == HIP_PROTO) {
		hl = (size_t)(ip[0] & 0x0f) * 4;
		memcpy(&a, ip + 12, 4);
		hip_addr_from_v4(&out->src, &a);
		memcpy(&a, ip + 16, 4);
		hip_addr_from_v4(&out->dst, &a);
	} else if (n >= IP6_HDR && (ip[0] >> 4) == 6 && ip[6] == HIP_PROTO) {
		hl = IP6_HDR;
		memcpy(out->src.in6.s6_addr, ip + 8, 16);
		memcpy(out->dst.in6.s6_addr, ip + 24, 16);
	} else {
		return -EINVAL;
	}
	if (hl >= n || n - hl > HIP_MAX_PACKET)
		return -EINVAL;
	if (!((!memcmp(&out->src, &x->src, 16) && !memcmp(&out->dst, &x->dst, 16)) ||
	      (!memcmp(&out->src, &x->dst, 16) && !memcmp(&out->dst, &x->src, 16))))
		return -EINVAL;
	out->len = (uint16_t)(n - hl);
	memcpy(out->pkt, ip + hl, out->len);
	return 0;
}

static int run_replay(struct inj *x)
{
	struct captured *cap = calloc(CAPTURE_MAX, sizeof(*cap));
	uint8_t ip[PKT_MAX];
	struct pollfd pfd = { .events = POLLIN };
	double end = now_s() + (double)x->capture_ms / 1000;
	unsigned long i;
	size_t n = 0;
	ssize_t r;

	pfd.fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (pfd.fd < 0 || !cap) {
		fprintf(stderr, "hip-inject: AF_PACKET socket: %s\n", strerror(errno));
		free(cap);
		return -EIO;
	}
	fprintf(stderr, "hip-inject: capturing for %lu ms\n", x->capture_ms);
	while (n < CAPTURE_MAX && now_s() < end) {
		if (poll(&pfd, 1, (int)((end - now_s()) * 1000) + 1) <= 0)
			continue;
		r = recv(pfd.fd, ip, sizeof(ip), 0);
		if (r > 0 && capture_one(x, ip, (size_t)r, &cap[n]) == 0)
			n++;
	}
	close(pfd.fd);
	fprintf(stderr, "hip-inject: captured %zu packets\n", n);
	/* the victim's own packets go back to it: their checksum still holds,
	 * the pseudo-header sum does not depend on the order */
	for (i = 0; n && i < x->count; i++) {
		struct captured *k = &cap[i % n];
		bool to_victim = !memcmp(&k->dst, &x->dst, 16);

		send_raw(x, to_victim ? &k->src : &k->dst, &x->dst, k->pkt, k->len);
	}
	free(cap);
	return n ? 0 : -ENODATA;
}

/* ---- I1 flood from many sources -------------------------------------------- */

static int run_i1flood(struct inj *x)
{
	uint8_t (*pkts)[IP6_HDR + 128];
	struct mmsghdr msg[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_storage ss;
	socklen_t sl = sockaddr_of(&x->dst, &ss);
	size_t hl = 0, len;
	double t0, t;
	unsigned long s, i, b;
	int n = 0;

	pkts = calloc(x->sources, sizeof(*pkts));
	if (!pkts)
		return -ENOMEM;
	for (s = 0; s < x->sources; s++) {
		struct hip_addr src = x->src;
		uint32_t v, bump = (uint32_t)s;

		memcpy(&v, &src.in6.s6_addr[12], 4);
		v = htonl(ntohl(v) + bump);
		memcpy(&src.in6.s6_addr[12], &v, 4);
		/* a HIT of our suite with random bits, different per source */
		n = inj_build(&x->c, HIP_I1, 0, pkts[s] + IP6_HDR, sizeof(pkts[s]) - IP6_HDR);
		if (n < 0) {
			free(pkts);
			return n;
		}
		for (i = 4; i < 16; i++)
			pkts[s][IP6_HDR + 8 + i] = (uint8_t)inj_rand(&x->c);
		hip_packet_set_checksum(pkts[s] + IP6_HDR, (size_t)n, &src, &x->dst);
		hl = ip_header(pkts[s] + IP6_HDR - (x->v4 ? IP4_HDR : IP6_HDR), &src, &x->dst,
			       (size_t)n);
	}
	len = hl + (size_t)n;
	memset(msg, 0, sizeof(msg));
	t0 = now_s();
	for (i = 0; (!x->count || x->sent < x->count) &&
		    (x->duration <= 0 || now_s() - t0 < x->duration); i += b) {
		b = x->count ? x->count - x->sent : BATCH;
		b = b < BATCH ? b : BATCH;
		if (x->rate) {
			b = b < x->rate / 100 + 1 ? b : x->rate / 100 + 1;
			t = t0 + (double)x->sent / (double)x->rate - now_s();
			if (t > 0)
				nanosleep(&(struct timespec){ 0, (long)(t * 1e9) }, NULL);
		}
		for (s = 0; s < b; s++) {
			iov[s].iov_base = pkts[(i + s) % x->sources] + IP6_HDR - hl;
			iov[s].iov_len = len;
			msg[s].msg_hdr = (struct msghdr){ .msg_name = &ss, .msg_namelen = sl,
							  .msg_iov = &iov[s], .msg_iovlen = 1 };
		}
		n = sendmmsg(x->tx, msg, (unsigned)b, 0);
		if (n < 0 && errno != ENOBUFS && errno != EAGAIN && errno != EINTR) {
			fprintf(stderr, "hip-inject: sendmmsg: %s\n", strerror(errno));
			break;
		}
		x->sent += n > 0 ? (unsigned long)n : 0;
		b = n > 0 ? (unsigned long)n : 0;
	}
	t = now_s() - t0;
	printf("i1flood: %lu I1s from %lu sources in %.3f s: %.0f packets/s\n", x->sent,
	       x->sources, t, t > 0 ? (double)x->sent / t : 0);
	free(pkts);
	return 0;
}

/* ---- main ------------------------------------------------------------------ */


static int run_mode(struct inj *x, const char *mode)
{
	unsigned long before = x->sent;
	size_t m;
	int ret = -EINVAL;

	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
		if (!strcmp(mode, modes[m]))
			break;
	if (m <= INJ_MUT_RANDOM)
		ret = run_mutation(x, (enum inj_mutation)m);
	else if (!strcmp(mode, "badmac"))
		ret = run_badmac(x);
	else if (!strcmp(mode, "replay"))
		ret = run_replay(x);
	printf("%s: %lu packets sent%s\n", mode, x->sent - before, ret < 0 ? " (failed)" : "");
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: hip-inject --mode MODE --src ADDR --dst ADDR --dst-hit HIT [options]\n"
		"Modes: truncate reorder duplicate badcsum random badmac replay all i1flood\n"
		"  -n, --count N        packets per mode (default 1000; i1flood: 0 = no limit)\n"
		"      --src-hit HIT    sender HIT for the malformed modes (default: our own)\n"
		"      --capture-ms MS  replay: how long to sniff first (default 3000)\n"
		"      --rate PPS       i1flood: packets per second, 0 = flat out (default 0)\n"
		"      --sources N      i1flood: source addresses counting up from --src\n"
		"      --duration S     i1flood: stop after S seconds\n"
		"Run it as root inside a test network namespace only.\n");
}

static int parse_args(struct inj *x, int argc, char **argv, const char **mode,
		      struct hip_hit *dst_hit, struct hip_hit *src_hit, bool *have_src_hit)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' }, { "count", required_argument, NULL, 'n' },
		{ "src", required_argument, NULL, 's' }, { "dst", required_argument, NULL, 'd' },
		{ "dst-hit", required_argument, NULL, 'H' },
		{ "src-hit", required_argument, NULL, 'S' },
		{ "rate", required_argument, NULL, 'r' },
		{ "sources", required_argument, NULL, 'N' },
		{ "duration", required_argument, NULL, 'D' },
		{ "capture-ms", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	bool have[3] = { false };
	int o;

	while ((o = getopt_long(argc, argv, "m:n:h", opts, NULL)) != -1) {
		switch (o) {
		case 'm': *mode = optarg; break;
		case 'n': x->count = strtoul(optarg, NULL, 10); break;
		case 'r': x->rate = strtoul(optarg, NULL, 10); break;
		case 'N': x->sources = strtoul(optarg, NULL, 10); break;
		case 'D': x->duration = strtod(optarg, NULL); break;
		case 'c': x->capture_ms = strtoul(optarg, NULL, 10); break;
		case 's': have[0] = hip_addr_from_str(optarg, &x->src) == 0; break;
		case 'd': have[1] = hip_addr_from_str(optarg, &x->dst) == 0; break;
		case 'H': have[2] = hip_hit_from_str(optarg, dst_hit) == 0; break;
		case 'S': *have_src_hit = hip_hit_from_str(optarg, src_hit) == 0; break;
		case 'h': usage(stdout); exit(0);
		default: return -EINVAL;
		}
	}
	if (!*mode || !mode_known(*mode) || !have[0] || !have[1] || !have[2] || optind != argc ||
	    hip_addr_is_v4(&x->src) != hip_addr_is_v4(&x->dst) || x->sources == 0) {
		fprintf(stderr, "hip-inject: need a known --mode, --src and --dst (same family), "
			"--dst-hit; --sources >= 1\n");
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct inj x = { .count = 1000, .sources = 1, .capture_ms = 3000, .tx = -1, .rx = -1 };
	struct hip_hit dst_hit, src_hit, own;
	const char *mode = NULL;
	bool have_src_hit = false, flood;
	int ret = 0, status = 0, fam;
	size_t m;

	if (parse_args(&x, argc, argv, &mode, &dst_hit, &src_hit, &have_src_hit) < 0) {
		usage(stderr);
		return EXIT_USAGE;
	}
	flood = !strcmp(mode, "i1flood");
	if (flood && !x.count && x.duration <= 0)
		x.duration = 10;
	x.v4 = hip_addr_is_v4(&x.dst);
	fam = x.v4 ? AF_INET : AF_INET6;
	if (hip_crypto_init() < 0 || inj_ctx_init(&x.c, &dst_hit) < 0) {
		fprintf(stderr, "hip-inject: crypto setup failed\n");
		return EXIT_SETUP;
	}
	x.tx = socket(fam, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	x.rx = socket(fam, SOCK_RAW | SOCK_CLOEXEC, HIP_PROTO);
	if (x.tx < 0 || x.rx < 0) {
		fprintf(stderr, "hip-inject: raw socket: %s (root needed)\n", strerror(errno));
		return EXIT_SETUP;
	}
	/* --src-hit only for the malformed packets: a session needs our own */
	own = x.c.me;
	if (flood) {
		ret = run_i1flood(&x);
	} else if (!strcmp(mode, "all")) {
		for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
			x.c.me = have_src_hit && m <= INJ_MUT_RANDOM ? src_hit : own;
			ret = run_mode(&x, modes[m]);
			status = ret == -ETIMEDOUT ? EXIT_NO_ANSWER : status;
		}
		ret = 0;
	} else {
		x.c.me = have_src_hit && strcmp(mode, "badmac") ? src_hit : own;
		ret = run_mode(&x, mode);
	}
	if (ret == -ETIMEDOUT)
		status = EXIT_NO_ANSWER;
	else if (ret < 0)
		status = EXIT_SETUP;
	inj_ctx_free(&x.c);
	close(x.tx);
	close(x.rx);
	return status;
}
