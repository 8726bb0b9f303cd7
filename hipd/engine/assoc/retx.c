/*
 * retx.c - packet output and what retransmission needs: the stored
 * packet and the doubling delays (RFC 7401 §4.4.1, §6.6; docs/decisions.md
 * D-1). What a timeout means in each state is exchange/timeout.c's; the
 * timer itself is ha.c's.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "assoc.h"
#include "checksum.h"
#include "engine/engine_int.h"
#include "hit.h"

static int xmit(struct hipd *d, struct hip_ha *ha, const uint8_t *pkt, size_t len,
		const struct hip_addr *src, const struct hip_addr *dst, uint16_t port);

int eng_send(struct hipd *d, struct hip_ha *ha, uint8_t *pkt, size_t len,
	     const struct hip_addr *src, const struct hip_addr *dst)
{
	return eng_send_port(d, ha, pkt, len, src, dst, ha ? ha->peer_port : 0);
}

/* RFC 9028 §4.5 steps 3 and 7, §4.8: to a peer reached through our
 * control relay server, the packet goes to the server with RELAY_TO (the
 * peer's transport address) appended after everything else, over UDP. */
int eng_send_via_relay(struct hipd *d, struct hip_ha *ha, const uint8_t *pkt, size_t len,
		       const struct hip_addr *src, const struct hip_addr *relay,
		       uint16_t relay_port, const struct hip_addr *to, uint16_t to_port)
{
	size_t n = HIP_TLV_HDR_LEN + HIP_LEN_RELAY_ADDR;   /* 24: no padding */
	uint8_t buf[ENG_PKT_BUF];
	uint8_t *t = buf + len;

	if (len < HIP_HDR_LEN || len % 8 || len + n > sizeof(buf) || len + n > HIP_MAX_PACKET)
		return -EMSGSIZE;
	memcpy(buf, pkt, len);
	hip_wr16(t, HIP_PARAM_RELAY_TO);
	hip_wr16(t + 2, HIP_LEN_RELAY_ADDR);
	hip_wr16(t + 4, to_port);
	t[6] = to_port ? IPPROTO_UDP : 0;
	t[7] = 0;
	memcpy(t + 8, to->in6.s6_addr, 16);
	len += n;
	buf[1] = (uint8_t)(len / 8 - 1);      /* Header Length (RFC 7401 §5.1) */
	buf[4] = buf[5] = 0;                  /* RFC 9028 §5.1: checksum 0 over UDP */
	return xmit(d, ha, buf, len, src, relay, relay_port);
}

int eng_send_direct(struct hipd *d, struct hip_ha *ha, uint8_t *pkt, size_t len,
		    const struct hip_addr *src, const struct hip_addr *dst, uint16_t port)
{
	if (port) {
		pkt[4] = pkt[5] = 0;   /* RFC 9028 §5.1: checksum 0 over UDP */
		return xmit(d, ha, pkt, len, src, dst, port);
	}
	hip_packet_set_checksum(pkt, len, src, dst);
	return xmit(d, ha, pkt, len, src, dst, 0);
}

int eng_send_port(struct hipd *d, struct hip_ha *ha, uint8_t *pkt, size_t len,
		  const struct hip_addr *src, const struct hip_addr *dst, uint16_t port)
{
	if (ha && ha->relay_port && port == ha->peer_port &&
	    !memcmp(dst, &ha->addr_peer, sizeof(*dst)))
		return eng_send_via_relay(d, ha, pkt, len, &ha->addr_local, &ha->relay_addr,
					  ha->relay_port, dst, port);
	if (port) {
		pkt[4] = pkt[5] = 0;   /* RFC 9028 §5.1: checksum 0 over UDP */
		return xmit(d, ha, pkt, len, src, dst, port);
	}
	hip_packet_set_checksum(pkt, len, src, dst);
	return xmit(d, ha, pkt, len, src, dst, 0);
}

int eng_xmit(struct hipd *d, struct hip_ha *ha, const uint8_t *pkt, size_t len,
	     const struct hip_addr *src, const struct hip_addr *dst)
{
	return xmit(d, ha, pkt, len, src, dst, 0);
}

static int xmit(struct hipd *d, struct hip_ha *ha, const uint8_t *pkt, size_t len,
		const struct hip_addr *src, const struct hip_addr *dst, uint16_t port)
{
	uint8_t type = pkt[2] & 0x7f;
	int ret;

	if (port)
		ret = d->send_udp ? d->send_udp(d, pkt, len, src, dst, port) : -EPROTONOSUPPORT;
	else
		ret = d->send_packet(d, pkt, len, src, dst);
	if (ret < 0) {
		char a[INET6_ADDRSTRLEN];

		hipd_drop_count(d->stats, HIPD_DROP_SEND_FAILED);
		log_ratelimited(&d->engine->drop_log, LOG_WARNING, "sending %s to %s: %s",
				hip_packet_type_name(type),
				hip_addr_to_str(dst, a, sizeof(a)), strerror(-ret));
		return ret;
	}
	if (type < sizeof(d->stats->tx_packets) / sizeof(d->stats->tx_packets[0]))
		d->stats->tx_packets[type]++;
	if (ha) {
		ha->pkts_out++;
		ha->t_last_sent_ns = hipd_now_ns();
	}
	return 0;
}

int eng_buf_keep(uint8_t **p, size_t *len, const uint8_t *pkt, size_t n)
{
	uint8_t *copy = malloc(n);

	if (!copy)
		return -ENOMEM;
	memcpy(copy, pkt, n);
	eng_buf_free(p, len);
	*p = copy;
	*len = n;
	return 0;
}

void eng_buf_free(uint8_t **p, size_t *len)
{
	if (*p) {
		hip_wipe(*p, *len);
		free(*p);
	}
	*p = NULL;
	*len = 0;
}

int eng_retx_store(struct hip_ha *ha, const uint8_t *pkt, size_t len)
{
	return eng_buf_keep(&ha->retx_pkt, &ha->retx_len, pkt, len);
}

void eng_retx_clear(struct hip_ha *ha)
{
	eng_buf_free(&ha->retx_pkt, &ha->retx_len);
}

int eng_retx_resend(struct hipd *d, struct hip_ha *ha)
{
	if (!ha->retx_pkt)
		return -ENOENT;
	return eng_send(d, ha, ha->retx_pkt, ha->retx_len, &ha->addr_local, &ha->addr_peer);
}

uint64_t eng_retx_delay_ns(unsigned first_ms, unsigned n)
{
	uint64_t ms = first_ms;

	while (n-- && ms < ENG_RETX_MAX_MS)
		ms *= 2;
	if (ms > ENG_RETX_MAX_MS)
		ms = ENG_RETX_MAX_MS;
	return ms * ENG_NS_PER_MS;
}

unsigned eng_retx_first_ms(const struct hipd *d, const struct hip_ha *ha)
{
	switch (ha->state) {
	case HIP_STATE_I1_SENT:
		return d->conf.i1_timeout_ms;
	case HIP_STATE_I2_SENT:
		return d->conf.i2_timeout_ms;
	default:
		return ENG_RETX_FIRST_MS;
	}
}
