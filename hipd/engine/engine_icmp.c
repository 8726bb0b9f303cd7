/*
 * engine_icmp.c - ICMP Parameter Problems about HIP and ESP
 * (docs/decisions.md D-14; the formats in net/icmp.c).
 *
 * We send them, rate-limited, where RFC 7401 asks for them: an UPDATE or
 * CLOSE for an association we do not have (§5.4.4: the Pointer at the
 * sender HIT), ESP for an SPI we hold no SA of (§4.3: at the SPI). This is
 * how a peer that kept its association learns at once that we restarted.
 *
 * We read them as hints only, since anyone can send one: an ICMP about
 * our ESP starts a liveness probe at once (instead of after
 * peer_timeout_seconds of silence); an ICMP quoting our probe with its
 * nonce, which only who saw the probe can know, ends the association
 * (update/update_live.c). Nothing else is believed.
 */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "byteorder.h"
#include "engine_int.h"
#include "engine/update/update.h"
#include "hit.h"
#include "net/net.h"

enum {
	ICMP_RECV_BUDGET = 64,       /* messages per readable event */
	ICMP_TX_RATE     = 10,       /* sent per second, all destinations */
	ICMP_TX_BURST    = 10,
	ICMP_PER_ADDR    = 1,        /* sent per second per address */
	ICMP_PER_BURST   = 3,
	/* read per second per address: parsing is cheap, and a peer's ICMPs
	 * about our ESP must not use up the one about our probe */
	ICMP_RX_PER_ADDR = 10,
	ICMP_RX_BURST    = 20,
	ICMP_RL_SLOTS    = 1024,
	ICMP_HIT_OFF     = 8,        /* sender HIT in the HIP header (RFC 7401 §5.1) */
	ICMP_RECV_MAX    = 60 + HIP_ICMP_MSG_MAX,  /* IPv4 header + the largest message */
};

int eng_icmp_init(struct hipd *d)
{
	struct hipd_engine *e = d->engine;
	int ret;

	e->icmp4 = e->icmp6 = -1;
	log_ratelimit_init(&e->icmp_log, 1000, ENG_DROP_LOG_BURST);
	ret = ratelimit_create(&e->icmp_tx_limit, ICMP_PER_ADDR, ICMP_PER_BURST, ICMP_RL_SLOTS);
	if (ret == 0)
		ret = ratelimit_create(&e->icmp_rx_limit, ICMP_RX_PER_ADDR, ICMP_RX_BURST,
				       ICMP_RL_SLOTS);
	return ret;
}

/* RFC 4443 §2.4 (f): a token bucket over everything we send, and one per
 * destination (rl; NULL: the caller limited it already). */
static bool icmp_tx_allowed(struct hipd_engine *e, struct ratelimit *rl,
			    const struct hip_addr *dst, uint64_t now)
{
	uint64_t add = (now - e->icmp_bucket_ns) * ICMP_TX_RATE / ENG_NS_PER_S;

	if (add) {
		e->icmp_bucket = add + e->icmp_bucket > ICMP_TX_BURST ? ICMP_TX_BURST
								 : (unsigned)(e->icmp_bucket + add);
		e->icmp_bucket_ns = now;
	}
	if (!e->icmp_bucket || (rl && !ratelimit_allow(rl, dst, now)))
		return false;
	e->icmp_bucket--;
	return true;
}

static int icmp_send(struct hipd *d, const struct hip_icmp_about *a, struct ratelimit *rl)
{
	struct hipd_engine *e = d->engine;
	uint8_t msg[HIP_ICMP_MSG_MAX];
	size_t len;
	int fd = hip_addr_is_v4(a->src) ? e->icmp4 : e->icmp6, ret;

	if (fd < 0 || !icmp_tx_allowed(e, rl, a->src, hipd_now_ns()))
		return -EAGAIN;
	ret = hip_icmp_build(msg, sizeof(msg), &len, a);
	if (ret == 0)
		ret = hip_icmp_send(fd, msg, len, a->dst, a->src);
	if (ret == 0)
		e->icmp_sent++;
	return ret;
}

void eng_icmp_no_association(struct hipd *d, const struct eng_rx *rx)
{
	struct hip_icmp_about a = {
		.src = rx->src, .dst = rx->dst, .proto = HIP_PROTO,
		.sport = rx->sport, .dport = (uint16_t)d->conf.nat_port,
		.payload = rx->pkt->buf, .payload_len = rx->pkt->len, .pointer = ICMP_HIT_OFF,
	};
	char hit[HIP_HIT_STR_LEN], addr[INET6_ADDRSTRLEN];

	/* relayed: rx->src is not where the packet came from */
	if (rx->relay || rx->via_rvs || !rx->dst || icmp_send(d, &a, d->engine->icmp_tx_limit) < 0)
		return;
	log_ratelimited(&d->engine->icmp_log, LOG_INFO,
			"%s from %s at %s for no association of ours: ICMP Parameter Problem "
			"sent (RFC 7401 §5.4.4)", hip_packet_type_name(rx->pkt->type),
			hip_hit_to_str(&rx->pkt->hit_sender, hit, sizeof(hit)),
			hip_addr_to_str(rx->src, addr, sizeof(addr)));
}

void eng_icmp_no_sa(struct hipd *d, const struct hip_addr *src, const struct hip_addr *dst,
		    uint16_t sport, const uint8_t *esp, size_t len)
{
	struct hip_icmp_about a = {
		.src = src, .dst = dst, .proto = IPPROTO_ESP,
		.sport = sport, .dport = (uint16_t)d->conf.nat_port,
		.payload = esp, .payload_len = len, .pointer = 0,   /* the SPI */
	};
	char addr[INET6_ADDRSTRLEN];

	/* per source: dp_no_sa's limit; the HIP ones have their own, so that
	 * a stream of ESP does not use up the answer to the peer's probe */
	if (!src || !dst || !esp || len < 4 || icmp_send(d, &a, NULL) < 0)
		return;
	log_ratelimited(&d->engine->icmp_log, LOG_INFO,
			"ESP from %s for SPI 0x%08x, no SA of ours: ICMP Parameter Problem sent "
			"(RFC 7401 §4.3)", hip_addr_to_str(src, addr, sizeof(addr)),
			(unsigned)hip_rd32(esp));
}

/* ---- what we read --------------------------------------------------------------- */

/* Our HIP packet to a peer came back quoted. */
static int icmp_about_hip(struct hipd *d, const struct hip_icmp_quote *q, const uint8_t *hip,
			  size_t len)
{
	struct hidb_entry *local;
	struct hip_hit mine, peer;
	struct hip_ha *ha;

	if (len < HIP_HDR_LEN)
		return -ENOENT;
	memcpy(&mine, hip + ICMP_HIT_OFF, sizeof(mine));
	memcpy(&peer, hip + ICMP_HIT_OFF + sizeof(mine), sizeof(peer));
	local = hidb_find(d->hidb, &mine);
	ha = local ? hadb_find(d->hadb, &local->hit, &peer) : NULL;
	if (!ha || memcmp(&ha->addr_peer, &q->dst, sizeof(q->dst)))
		return -ENOENT;
	if (upd_probe_icmp(d, ha, hip, len) != ENG_HANDLED)
		return -ENOENT;
	d->engine->icmp_verdicts++;
	return 0;
}

struct icmp_spi_find {
	uint32_t spi;
	const struct hip_addr *peer;
	struct hip_ha *ha;
};

static int find_by_spi_out(struct hip_ha *ha, void *arg)
{
	struct icmp_spi_find *f = arg;

	if ((ha->dp_spi_out != f->spi && !(ha->lsi && ha->lsi->dp_spi_out == f->spi)) ||
	    memcmp(&ha->addr_peer, f->peer, sizeof(*f->peer)))
		return 0;
	f->ha = ha;
	return 1;
}

/* Our ESP to a peer came back quoted: probe that peer now. */
static int icmp_about_esp(struct hipd *d, const struct hip_icmp_quote *q, const uint8_t *esp,
			  size_t len)
{
	struct icmp_spi_find f = { .peer = &q->dst };
	char hit[HIP_HIT_STR_LEN];

	if (len < 4)
		return -ENOENT;
	f.spi = hip_rd32(esp);
	hadb_foreach(d->hadb, find_by_spi_out, &f);
	if (!f.ha || upd_liveness_probe_now(d, f.ha) < 0)
		return -ENOENT;
	d->engine->icmp_probes++;
	log_ratelimited(&d->engine->icmp_log, LOG_INFO,
			"%s has no SA for our ESP (ICMP Parameter Problem, SPI 0x%08x): liveness "
			"probe sent now", hip_hit_to_str(&f.ha->hit_peer, hit, sizeof(hit)),
			(unsigned)f.spi);
	return 0;
}

void eng_icmp_input(struct hipd *d, int family, const uint8_t *buf, size_t len,
		    const struct hip_addr *from)
{
	struct hipd_engine *e = d->engine;
	struct hip_icmp_quote q;
	int ret = -ENOENT;

	e->icmp_received++;
	if (!ratelimit_allow(e->icmp_rx_limit, from, hipd_now_ns()) ||
	    hip_icmp_parse(family, buf, len, &q) < 0) {
		e->icmp_ignored++;
		return;
	}
	if (q.proto == HIP_PROTO)
		ret = icmp_about_hip(d, &q, q.payload, q.payload_len);
	else if (q.proto == IPPROTO_ESP)
		ret = icmp_about_esp(d, &q, q.payload, q.payload_len);
	else if (q.payload_len >= HIP_UDP_MARKER && !hip_rd32(q.payload))   /* HIP over UDP */
		ret = icmp_about_hip(d, &q, q.payload + HIP_UDP_MARKER,
				     q.payload_len - HIP_UDP_MARKER);
	else                                                             /* ESP in UDP */
		ret = icmp_about_esp(d, &q, q.payload, q.payload_len);
	if (ret < 0)
		e->icmp_ignored++;
}

static void icmp_readable(struct hip_loop *loop, int fd, uint32_t events, void *arg)
{
	uint8_t buf[ICMP_RECV_MAX];
	struct hipd *d = arg;
	int family = fd == d->engine->icmp4 ? AF_INET : AF_INET6;
	int i;

	(void)loop;
	(void)events;
	for (i = 0; i < ICMP_RECV_BUDGET; i++) {
		union {
			struct sockaddr_in v4;
			struct sockaddr_in6 v6;
		} from;
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr msg = {
			.msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov,
			.msg_iovlen = 1,
		};
		struct hip_addr src;
		ssize_t n;

		memset(&from, 0, sizeof(from));
		n = recvmsg(fd, &msg, MSG_DONTWAIT);
		if (n < 0)
			break;
		if (family == AF_INET)
			hip_addr_from_v4(&src, &from.v4.sin_addr);
		else
			hip_addr_from_v6(&src, &from.v6.sin6_addr);
		/* a cut message is still parsed: its quote is only shorter */
		eng_icmp_input(d, family, buf, (size_t)n, &src);
	}
}

void eng_icmp_open(struct hipd *d)
{
	struct hipd_engine *e = d->engine;
	int *fds[2] = { &e->icmp4, &e->icmp6 };
	bool want[2] = { e->own_raw4, e->own_raw6 };
	int i, fd;

	for (i = 0; i < 2; i++) {
		if (!want[i] || *fds[i] >= 0)
			continue;
		fd = hip_icmp_sock_open(i ? AF_INET6 : AF_INET);
		if (fd < 0) {
			log_warn("ICMP%s socket: %s: Parameter Problems about HIP and ESP neither "
				 "sent nor heard", i ? "v6" : "", strerror(-fd));
			continue;
		}
		if (hip_loop_fd_add(d->loop, fd, EPOLLIN, icmp_readable, d) < 0) {
			close(fd);
			continue;
		}
		*fds[i] = fd;
	}
}

void eng_icmp_close(struct hipd *d)
{
	struct hipd_engine *e = d->engine;
	int *fds[2] = { &e->icmp4, &e->icmp6 };
	int i;

	for (i = 0; i < 2; i++) {
		if (*fds[i] < 0)
			continue;
		hip_loop_fd_remove(d->loop, *fds[i]);
		close(*fds[i]);
		*fds[i] = -1;
	}
	ratelimit_free(e->icmp_tx_limit);
	ratelimit_free(e->icmp_rx_limit);
	e->icmp_tx_limit = e->icmp_rx_limit = NULL;
}
