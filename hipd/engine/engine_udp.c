/*
 * engine_udp.c - HIP and ESP over UDP (RFC 9028 §5.1, RFC 5770 §5.1,
 * RFC 3948): the sockets bound to nat_port, what arrives on them (HIP
 * control after the 32-bit zero marker to the dispatcher, ESP to the
 * datapath, NAT keepalives counted), our output with the marker, and the
 * choice of UDP for an exchange we start (hipd.conf nat_traversal).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "datapath/datapath.h"
#include "engine_int.h"
#include "engine/exchange/exchange.h"
#include "hit.h"
#include "net/net.h"

enum { UDP_RECV_BUDGET = 1024, KEEPALIVE_TICK_S = 5 };

static int udp_send(struct hipd *d, const uint8_t *pkt, size_t len, const struct hip_addr *src,
		    const struct hip_addr *dst, uint16_t dport)
{
	static const uint8_t marker[HIP_UDP_MARKER];
	struct iovec iov[2] = {
		{ .iov_base = (void *)marker, .iov_len = sizeof(marker) },
		{ .iov_base = (void *)pkt, .iov_len = len },
	};

	return hip_udp_sendv(d->udp4, d->udp6, iov, 2, src, dst, dport);
}

/* ESP that came in on our UDP socket (we read it: the kernel datapath,
 * whose SAs take theirs off the socket first): to the datapath, if it
 * takes any, else dropped. */
static void udp_esp_input(struct hipd *d, const uint8_t *esp, size_t len,
			  const struct hip_addr *src, const struct hip_addr *dst, uint16_t sport)
{
	struct datapath *dp = d->engine->dp;

	if (!dp || !dp->ops->udp_input) {
		d->engine->udp_esp_dropped++;   /* no SA of ours takes it here */
		return;
	}
	dp->ops->udp_input(dp, esp, len, src, dst, sport);
}

static void udp_readable(struct hip_loop *loop, int fd, uint32_t events, void *arg)
{
	uint8_t buf[HIP_MAX_PACKET + 2 * HIP_UDP_MARKER];
	struct hipd *d = arg;
	struct hip_udp_rx rx;
	int i, ret;

	(void)loop;
	(void)events;
	for (i = 0; i < UDP_RECV_BUDGET; i++) {
		ret = hip_udp_recv(fd, buf, sizeof(buf), &rx);
		if (ret == -EAGAIN)
			break;
		if (ret == -EMSGSIZE) {
			hipd_drop_count(d->stats, HIPD_DROP_OVERSIZE);
			continue;
		}
		if (ret < 0) {
			log_ratelimited(&d->engine->drop_log, LOG_WARNING, "UDP socket: %s",
					strerror(-ret));
			break;
		}
		switch (hip_udp_classify(rx.buf, rx.len)) {
		case HIP_UDP_HIP:
			hipd_engine_input_udp(d, rx.buf + HIP_UDP_MARKER, rx.len - HIP_UDP_MARKER,
					      &rx.src, &rx.dst, rx.sport);
			break;
		case HIP_UDP_ESP:
			udp_esp_input(d, rx.buf, rx.len, &rx.src, &rx.dst, rx.sport);
			break;
		case HIP_UDP_KEEPALIVE:
			d->engine->nat_keepalives_in++;
			break;
		case HIP_UDP_BAD:
			hipd_drop_count(d->stats, HIPD_DROP_BAD_LENGTH);
			break;
		}
	}
}

/* RFC 9028 §5.3 / §4.10: a signed NOTIFY NAT_KEEPALIVE to a peer reached
 * over UDP when nothing else (HIP or ESP) went to it for the interval. */
static int keepalive_one(struct hip_ha *ha, void *arg)
{
	struct hipd *d = arg;
	struct datapath *dp = d->engine->dp;
	uint64_t now = hipd_now_ns(), every;
	struct hip_esp_sa_stats st;

	if (!ha->peer_port || ha->state != HIP_STATE_ESTABLISHED)
		return 0;
	every = (uint64_t)d->conf.nat_keepalive_seconds * ENG_NS_PER_S;
	if (dp && ha->spi_out && dp->ops->sa_stats(dp, ha->spi_out, false, &st) == 0 &&
	    st.packets != ha->ka_esp_out) {
		ha->ka_esp_out = st.packets;     /* ESP went out since the last look */
		ha->t_ka_out_ns = now;
	}
	if (ha->t_last_sent_ns > ha->t_ka_out_ns)
		ha->t_ka_out_ns = ha->t_last_sent_ns;
	if (now - ha->t_ka_out_ns < every)
		return 0;
	if (eng_notify_send(d, ha, HIP_NOTIFY_NAT_KEEPALIVE, "", 0) == 0) {
		ha->t_keepalive_ns = ha->t_ka_out_ns = now;
		d->engine->nat_keepalives_out++;
	}
	return 0;
}

static void keepalive_tick(struct hip_loop *loop, uint64_t timer, void *arg)
{
	struct hipd *d = arg;

	(void)timer;
	hadb_foreach(d->hadb, keepalive_one, d);
	d->engine->nat_timer = hip_loop_timer_add(loop, KEEPALIVE_TICK_S * ENG_NS_PER_S,
						  keepalive_tick, d);
}

int eng_udp_open(struct hipd *d)
{
	static const int fam[2] = { AF_INET, AF_INET6 };
	int *fds[2] = { &d->udp4, &d->udp6 };
	bool want[2] = { d->conf.listen_v4, d->conf.listen_v6 };
	unsigned i;
	int ret;

	if (d->conf.nat_traversal == HIPD_NAT_NEVER)
		return 0;
	d->send_udp = udp_send;   /* from here eng_udp_close closes what is open */
	for (i = 0; i < 2; i++) {
		if (!want[i] || *fds[i] >= 0)
			continue;
		ret = hip_udp_open(fam[i], (uint16_t)d->conf.nat_port);
		if (ret == -EAFNOSUPPORT && i == 1)
			continue;
		if (ret < 0) {
			log_err("UDP port %u for HIP over UDP (nat_traversal): %s", d->conf.nat_port,
				strerror(-ret));
			return ret;
		}
		*fds[i] = ret;
		ret = hip_loop_fd_add(d->loop, *fds[i], EPOLLIN, udp_readable, d);
		if (ret < 0)
			return ret;
	}
	d->engine->nat_timer = hip_loop_timer_add(d->loop, KEEPALIVE_TICK_S * ENG_NS_PER_S,
						  keepalive_tick, d);
	if (!d->engine->nat_timer)
		return -ENOMEM;
	log_info("HIP and ESP over UDP on port %u (nat_traversal %s)", d->conf.nat_port,
		 d->conf.nat_traversal == HIPD_NAT_ALWAYS ? "always" : "auto");
	return 0;
}

void eng_udp_reader(struct hipd *d, bool engine)
{
	int *fds[2] = { &d->udp4, &d->udp6 };
	unsigned i;

	if (d->send_udp != udp_send || d->engine->udp_by_dp == !engine)
		return;
	for (i = 0; i < 2; i++) {
		if (*fds[i] < 0)
			continue;
		if (engine)
			(void)hip_loop_fd_add(d->loop, *fds[i], EPOLLIN, udp_readable, d);
		else
			hip_loop_fd_remove(d->loop, *fds[i]);
	}
	d->engine->udp_by_dp = !engine;
}

void eng_udp_close(struct hipd *d)
{
	int *fds[2] = { &d->udp4, &d->udp6 };
	unsigned i;

	if (d->send_udp != udp_send)
		return;       /* not ours (nat_traversal never, in-process tests) */
	d->send_udp = NULL;
	if (d->engine->nat_timer)
		hip_loop_timer_cancel(d->loop, d->engine->nat_timer);
	d->engine->nat_timer = 0;
	for (i = 0; i < 2; i++) {
		if (*fds[i] < 0)
			continue;
		if (!d->engine->udp_by_dp)
			hip_loop_fd_remove(d->loop, *fds[i]);
		close(*fds[i]);
		*fds[i] = -1;
	}
	d->engine->udp_by_dp = false;
}

