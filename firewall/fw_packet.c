/*
 * fw_packet.c - the IP and HIP headers of a packet netfilter queued to
 * hipfw. IPv4 (RFC 791): IHL checked against the length, fragments
 * refused; IPv6 (RFC 8200 §4): hop-by-hop, routing and destination
 * options headers skipped, fragments refused. The HIP packet must parse
 * (libhipcore's hip_packet_parse: header, lengths, parameter order) and
 * its checksum verify (RFC 7401 §5.1.1) before any rule looks at it. ESP
 * (protocol 50) gives its addresses and SPI to the tracker (fw_track.c).
 * Over UDP (RFC 9028 §5.1, hipd/net/udp.c's hip_udp_classify): a 32-bit
 * zero marker then HIP, one 0xFF byte a NAT keepalive, else ESP.
 */
#include <netinet/in.h>
#include <string.h>

#include "byteorder.h"
#include "fw_packet.h"
#include "packet.h"

enum {
	IP4_HDR_MIN = 20,
	IP6_HDR_LEN = 40,
	IP6_EXT_MIN = 8,
	IP6_NEXT_MAX = 8,        /* extension headers we walk at most */
	IPPROTO_HIP_NUM = 139,   /* RFC 7401 §5.1 */
	ESP_HDR_MIN = 8,         /* SPI and sequence number */
	UDP_HDR_LEN = 8,
	UDP_MARKER = 4,          /* 32 zero bits before a HIP header over UDP */
	UDP_KEEPALIVE = 0xff,    /* RFC 3948 §2.3: the whole payload */
};

static const char *const bad_names[FW_BAD_MAX] = {
	[FW_OK] = "ok",
	[FW_BAD_IP] = "bad_ip",
	[FW_BAD_FRAGMENT] = "fragment",
	[FW_NOT_HIP] = "not_hip",
	[FW_BAD_HIP] = "bad_hip",
	[FW_BAD_CHECKSUM] = "bad_checksum",
	[FW_BAD_HIT] = "bad_hit",
	[FW_BAD_SIGNATURE] = "bad_signature",
};

const char *fw_bad_name(enum fw_bad why)
{
	return why < FW_BAD_MAX ? bad_names[why] : "?";
}

static enum fw_bad ip4_parse(const uint8_t *buf, size_t len, struct fw_packet *out,
			     size_t *off, uint8_t *proto)
{
	struct in_addr a;
	size_t ihl, total;

	if (len < IP4_HDR_MIN)
		return FW_BAD_IP;
	ihl = (size_t)(buf[0] & 0x0f) * 4;
	total = hip_rd16(buf + 2);
	if (ihl < IP4_HDR_MIN || total < ihl || total > len)
		return FW_BAD_IP;
	/* MF set or a fragment offset: a fragment */
	if (hip_rd16(buf + 6) & 0x3fff)
		return FW_BAD_FRAGMENT;
	*proto = buf[9];
	memcpy(&a, buf + 12, sizeof(a));
	hip_addr_from_v4(&out->src, &a);
	memcpy(&a, buf + 16, sizeof(a));
	hip_addr_from_v4(&out->dst, &a);
	*off = ihl;
	out->hip_len = total - ihl;
	return FW_OK;
}

static enum fw_bad ip6_parse(const uint8_t *buf, size_t len, struct fw_packet *out,
			     size_t *off, uint8_t *proto)
{
	struct in6_addr a;
	size_t pos = IP6_HDR_LEN, end, ext;
	uint8_t next;
	int i;

	if (len < IP6_HDR_LEN)
		return FW_BAD_IP;
	end = IP6_HDR_LEN + (size_t)hip_rd16(buf + 4);
	if (end > len)
		return FW_BAD_IP;
	next = buf[6];
	for (i = 0; i < IP6_NEXT_MAX; i++) {
		if (next == IPPROTO_FRAGMENT)
			return FW_BAD_FRAGMENT;
		if (next != IPPROTO_HOPOPTS && next != IPPROTO_ROUTING && next != IPPROTO_DSTOPTS)
			break;
		if (end - pos < IP6_EXT_MIN)
			return FW_BAD_IP;
		ext = ((size_t)buf[pos + 1] + 1) * 8;
		if (end - pos < ext)
			return FW_BAD_IP;
		next = buf[pos];
		pos += ext;
	}
	if (i == IP6_NEXT_MAX)
		return FW_BAD_IP;
	*proto = next;
	memcpy(&a, buf + 8, sizeof(a));
	hip_addr_from_v6(&out->src, &a);
	memcpy(&a, buf + 24, sizeof(a));
	hip_addr_from_v6(&out->dst, &a);
	*off = pos;
	out->hip_len = end - pos;
	return FW_OK;
}

/* The IP header: addresses, the upper protocol, where its payload starts
 * (*off) and its length (out->hip_len). */
static enum fw_bad ip_parse(const uint8_t *buf, size_t len, struct fw_packet *out, size_t *off,
			    uint8_t *proto)
{
	if (len < 1)
		return FW_BAD_IP;
	switch (buf[0] >> 4) {
	case 4:
		return ip4_parse(buf, len, out, off, proto);
	case 6:
		return ip6_parse(buf, len, out, off, proto);
	default:
		return FW_BAD_IP;
	}
}

/* The UDP header at *off of an IP payload of *plen bytes: FW_OK when one
 * of its ports is port (0: never), its length inside the payload; *off and
 * *plen then give the UDP payload. */
static enum fw_bad udp_parse(const uint8_t *buf, size_t *off, size_t *plen, uint16_t port,
			     uint16_t *sport, uint16_t *dport)
{
	size_t ulen;

	if (!port)
		return FW_NOT_HIP;
	if (*plen < UDP_HDR_LEN)
		return FW_BAD_IP;
	*sport = hip_rd16(buf + *off);
	*dport = hip_rd16(buf + *off + 2);
	if (*sport != port && *dport != port)
		return FW_NOT_HIP;
	ulen = hip_rd16(buf + *off + 4);
	if (ulen < UDP_HDR_LEN || ulen > *plen)
		return FW_BAD_IP;
	*off += UDP_HDR_LEN;
	*plen = ulen - UDP_HDR_LEN;
	return FW_OK;
}

static bool is_marker(const uint8_t *p)
{
	return (p[0] | p[1] | p[2] | p[3]) == 0;
}

enum fw_bad fw_esp_parse(const uint8_t *buf, size_t len, struct fw_esp *out)
{
	return fw_esp_parse_udp(buf, len, 0, out);
}

enum fw_bad fw_esp_parse_udp(const uint8_t *buf, size_t len, uint16_t udp_port,
			     struct fw_esp *out)
{
	struct fw_packet p;
	enum fw_bad why;
	uint8_t proto = 0;
	size_t off = 0;

	memset(&p, 0, sizeof(p));
	memset(out, 0, sizeof(*out));
	why = ip_parse(buf, len, &p, &off, &proto);
	if (why != FW_OK)
		return why;
	if (proto == IPPROTO_UDP) {
		why = udp_parse(buf, &off, &p.hip_len, udp_port, &out->sport, &out->dport);
		if (why != FW_OK)
			return why;
		out->src = p.src;
		out->dst = p.dst;
		if (p.hip_len == 1 && buf[off] == UDP_KEEPALIVE) {
			out->keepalive = true;
			return FW_OK;
		}
		if (p.hip_len < UDP_MARKER)
			return FW_BAD_IP;
		if (is_marker(buf + off))
			return FW_NOT_HIP;
	} else if (proto != IPPROTO_ESP) {
		return FW_NOT_HIP;
	}
	/* SPI and sequence number at least (RFC 4303 §2) */
	if (p.hip_len < ESP_HDR_MIN)
		return FW_BAD_IP;
	out->src = p.src;
	out->dst = p.dst;
	out->spi = hip_rd32(buf + off);
	return FW_OK;
}

enum fw_bad fw_packet_parse(const uint8_t *buf, size_t len, struct fw_packet *out)
{
	return fw_packet_parse_udp(buf, len, 0, out);
}

enum fw_bad fw_packet_parse_udp(const uint8_t *buf, size_t len, uint16_t udp_port,
				struct fw_packet *out)
{
	struct hip_packet *pkt = &out->pkt;
	enum fw_bad why;
	uint8_t proto = 0;
	size_t off = 0;
	bool udp;

	memset(out, 0, sizeof(*out));
	why = ip_parse(buf, len, out, &off, &proto);
	if (why != FW_OK)
		return why;
	udp = proto == IPPROTO_UDP;
	if (udp) {
		why = udp_parse(buf, &off, &out->hip_len, udp_port, &out->sport, &out->dport);
		if (why != FW_OK)
			return why;
		/* ESP or a keepalive: fw_esp_parse_udp's */
		if (out->hip_len < UDP_MARKER || !is_marker(buf + off))
			return FW_NOT_HIP;
		off += UDP_MARKER;
		out->hip_len -= UDP_MARKER;
	} else if (proto != IPPROTO_HIP_NUM) {
		return FW_NOT_HIP;
	}
	out->hip = buf + off;
	if (hip_packet_parse(out->hip, out->hip_len, pkt) < 0)
		return FW_BAD_HIP;
	/* the packet's own length (the IP payload may carry padding) */
	out->hip_len = pkt->len;
	/* over UDP a zero checksum is not computed (RFC 9028 §5.1); a set one must be right */
	if ((!udp || out->hip[4] || out->hip[5]) &&
	    hip_packet_verify_checksum(out->hip, out->hip_len, &out->src, &out->dst) < 0)
		return FW_BAD_CHECKSUM;
	out->type = pkt->type;
	out->sender = pkt->hit_sender;
	out->receiver = pkt->hit_receiver;
	return FW_OK;
}
