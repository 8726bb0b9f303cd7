/*
 * lsi_host.c - the host's IPv4 routes and addresses, read by rtnetlink
 * dumps, against an LSI range (lsi_host.h).
 */
#include "lsi_host.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

enum { LSI_HOST_MAX_ROUTES = 65536, LSI_HOST_BUF = 32768 };

/* The attributes of one message body after its fixed header. */
static void parse_attrs(const uint8_t *p, size_t len, struct hip_lsi_route *r, int want_dst,
			int want_local, uint32_t *table, uint32_t *oif)
{
	bool have_local = false;

	while (len >= sizeof(struct rtattr)) {
		struct rtattr a;
		size_t alen, step;

		memcpy(&a, p, sizeof(a));
		if (a.rta_len < sizeof(a) || a.rta_len > len)
			return;
		alen = a.rta_len - sizeof(a);
		if (a.rta_type == want_dst && alen == 4 && !have_local)
			memcpy(r->dst, p + sizeof(a), 4);
		if (a.rta_type == want_local && alen == 4) {
			memcpy(r->dst, p + sizeof(a), 4);
			have_local = true;
		}
		if (table && a.rta_type == RTA_TABLE && alen == 4)
			memcpy(table, p + sizeof(a), 4);
		if (oif && a.rta_type == RTA_OIF && alen == 4)
			memcpy(oif, p + sizeof(a), 4);
		step = RTA_ALIGN(a.rta_len);
		if (step >= len)
			return;
		p += step;
		len -= step;
	}
}

static void dev_name(unsigned index, char *out, size_t len)
{
	char name[IF_NAMESIZE];

	if (index && if_indextoname(index, name))
		snprintf(out, len, "%s", name);
	else
		out[0] = '\0';
}

/* One RTM_NEWROUTE body: 1 if it is a route that counts. */
static int route_of(const uint8_t *body, size_t blen, struct hip_lsi_route *r)
{
	struct rtmsg rm;
	uint32_t table, oif = 0;

	if (blen < sizeof(rm))
		return -EBADMSG;
	memcpy(&rm, body, sizeof(rm));
	table = rm.rtm_table;
	if (rm.rtm_family != AF_INET || rm.rtm_dst_len > 32)
		return 0;
	memset(r, 0, sizeof(*r));
	r->prefix = rm.rtm_dst_len;
	parse_attrs(body + NLMSG_ALIGN(sizeof(rm)), blen > NLMSG_ALIGN(sizeof(rm)) ?
		    blen - NLMSG_ALIGN(sizeof(rm)) : 0, r, RTA_DST, -1, &table, &oif);
	/* the local table repeats the addresses (checked as such) and their
	 * broadcast addresses */
	if (table == RT_TABLE_LOCAL || (rm.rtm_type != RTN_UNICAST &&
	    rm.rtm_type != RTN_BLACKHOLE && rm.rtm_type != RTN_UNREACHABLE &&
	    rm.rtm_type != RTN_PROHIBIT))
		return 0;
	dev_name(oif, r->dev, sizeof(r->dev));
	return 1;
}

static int addr_of(const uint8_t *body, size_t blen, struct hip_lsi_route *r)
{
	struct ifaddrmsg im;

	if (blen < sizeof(im))
		return -EBADMSG;
	memcpy(&im, body, sizeof(im));
	if (im.ifa_family != AF_INET || im.ifa_prefixlen > 32)
		return 0;
	memset(r, 0, sizeof(*r));
	r->prefix = im.ifa_prefixlen;
	r->is_addr = true;
	parse_attrs(body + NLMSG_ALIGN(sizeof(im)), blen > NLMSG_ALIGN(sizeof(im)) ?
		    blen - NLMSG_ALIGN(sizeof(im)) : 0, r, IFA_ADDRESS, IFA_LOCAL, NULL, NULL);
	dev_name(im.ifa_index, r->dev, sizeof(r->dev));
	return 1;
}

int lsi_host_parse_dump(const uint8_t *buf, size_t len, struct hip_lsi_route *rt, size_t max,
			size_t *n)
{
	size_t off = 0;

	while (off + sizeof(struct nlmsghdr) <= len) {
		struct nlmsghdr nh;
		const uint8_t *body;
		size_t blen;
		int r = 0;

		memcpy(&nh, buf + off, sizeof(nh));
		if (nh.nlmsg_len < sizeof(nh) || nh.nlmsg_len > len - off)
			return -EBADMSG;
		body = buf + off + NLMSG_HDRLEN;
		blen = nh.nlmsg_len - NLMSG_HDRLEN;
		if (nh.nlmsg_type == NLMSG_DONE)
			return 1;
		if (nh.nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr e;

			if (blen < sizeof(e))
				return -EBADMSG;
			memcpy(&e, body, sizeof(e));
			return e.error < 0 ? e.error : -EPROTO;
		}
		if (*n < max && nh.nlmsg_type == RTM_NEWROUTE)
			r = route_of(body, blen, &rt[*n]);
		else if (*n < max && nh.nlmsg_type == RTM_NEWADDR)
			r = addr_of(body, blen, &rt[*n]);
		if (r < 0)
			return r;
		*n += (size_t)r;
		if (NLMSG_ALIGN(nh.nlmsg_len) >= len - off)
			break;
		off += NLMSG_ALIGN(nh.nlmsg_len);
	}
	return 0;
}

/* One dump (RTM_GETROUTE or RTM_GETADDR, AF_INET) appended to rt. */
static int dump(int fd, uint16_t type, uint32_t seq, struct hip_lsi_route *rt, size_t max,
		size_t *n)
{
	struct {
		struct nlmsghdr nh;
		struct rtmsg rm;   /* as large as ifaddrmsg; family first in both */
	} req;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	uint8_t *buf = malloc(LSI_HOST_BUF);
	int r = 0;

	if (!buf)
		return -ENOMEM;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(type == RTM_GETROUTE ? sizeof(struct rtmsg) :
					sizeof(struct ifaddrmsg));
	req.nh.nlmsg_type = type;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nh.nlmsg_seq = seq;
	req.rm.rtm_family = AF_INET;
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0) {
		r = -errno;
		goto out;
	}
	while (r == 0) {
		ssize_t got = recv(fd, buf, LSI_HOST_BUF, 0);

		if (got < 0) {
			r = errno == EINTR ? 0 : -errno;
			if (r)
				goto out;
			continue;
		}
		if (got == 0) {
			r = -EPROTO;
			goto out;
		}
		r = lsi_host_parse_dump(buf, (size_t)got, rt, max, n);
	}
	if (r == 1)
		r = 0;
out:
	free(buf);
	return r;
}

static const char *in4(const uint8_t a[4], char *buf, size_t len)
{
	return inet_ntop(AF_INET, a, buf, (socklen_t)len) ? buf : "?";
}

int lsi_host_check_range(const struct hip_lsi_range *range, const char *own_dev, char *err,
			 size_t errlen)
{
	struct hip_lsi_route *rt = calloc(LSI_HOST_MAX_ROUTES, sizeof(*rt));
	char rs[INET_ADDRSTRLEN], ds[INET_ADDRSTRLEN];
	size_t n = 0;
	int fd = -1, r, i;

	if (!rt) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot read the routing tables: %s", strerror(-r));
		goto out;
	}
	r = dump(fd, RTM_GETROUTE, 1, rt, LSI_HOST_MAX_ROUTES, &n);
	if (r == 0)
		r = dump(fd, RTM_GETADDR, 2, rt, LSI_HOST_MAX_ROUTES, &n);
	if (r) {
		snprintf(err, errlen, "cannot read the routing tables: %s", strerror(-r));
		goto out;
	}
	i = hip_lsi_range_conflict(range, rt, n, own_dev);
	if (i >= 0) {
		const struct hip_lsi_route *c = &rt[i];

		snprintf(err, errlen, "lsi_range %s/%u overlaps the %s %s/%u%s%s: choose another "
			 "range (hipd.conf(5), lsi_range)", in4(range->net, rs, sizeof(rs)),
			 range->prefix, c->is_addr ? "address" : "route",
			 in4(c->dst, ds, sizeof(ds)), c->prefix, c->dev[0] ? " dev " : "", c->dev);
		r = -EADDRINUSE;
	}
out:
	if (fd >= 0)
		close(fd);
	free(rt);
	return r;
}
