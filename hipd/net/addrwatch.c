/*
 * addrwatch.c - the host's addresses from rtnetlink (addrwatch.h), raw
 * NETLINK_ROUTE: the groups RTMGRP_LINK, RTMGRP_IPV4_IFADDR,
 * RTMGRP_IPV6_IFADDR, RTMGRP_IPV4_ROUTE and RTMGRP_IPV6_ROUTE, and
 * RTM_GETLINK / RTM_GETADDR / RTM_GETROUTE dumps at start, after ENOBUFS
 * (events were lost) and when a link comes back up (IPv4 addresses
 * survive a link down without a new RTM_NEWADDR). Route messages go to
 * defroute.c, which keeps the default routes.
 *
 * A dump is a mark-and-sweep: what the kernel lists is (re)added, and at
 * NLMSG_DONE every learnt locator it did not list is removed. Only one dump
 * runs at a time; a request meanwhile is remembered and run after it.
 *
 * Kernel input, parsed like any other: every header and attribute length is
 * checked before it is read, values are copied out with memcpy.
 */
#include <errno.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "addrwatch.h"
#include "defroute.h"
#include "hipd.h"
#include "locset.h"
#include "lsi_derive.h"
#include "base/base.h"

enum {
	AW_RCVBUF       = 1 << 20,     /* asked for; the kernel may clamp it */
	AW_BUF          = 32768,       /* one recvmsg: a dump part or events */
	AW_READ_BUDGET  = 64,          /* recvmsg calls per readable event */
	AW_SYNC_WAIT_MS = 3000,        /* start: the first dump must finish */
	AW_DOWN_MAX     = 64,          /* links we know to be down */
	AW_NAMES_MAX    = 64,          /* link names kept (show locators) */
};

struct aw_ifname {
	int ifindex;
	char name[IFNAMSIZ];
};

enum aw_dump { AW_DUMP_NONE, AW_DUMP_LINK, AW_DUMP_ADDR, AW_DUMP_ROUTE };

struct addrwatch {
	struct hipd *d;
	struct hip_locset *own_locset;  /* created here (d->locset was NULL) */
	int fd;
	uint32_t portid;                /* ours, from getsockname */
	uint32_t seq;                   /* of the running dump */
	enum aw_dump dump;
	bool dump_again;                /* another dump was asked for meanwhile */
	int dump_error;                 /* the kernel's answer to a refused dump */
	/* the sweep: addresses the running address dump has listed */
	struct hip_addr seen[HIP_LOCSET_MAX];
	size_t n_seen;
	bool seen_overflow;             /* more than fit: no sweep this time */
	int down[AW_DOWN_MAX];          /* ifindexes without IFF_UP|IFF_RUNNING */
	size_t n_down;
	/* names from RTM_NEWLINK: the engine may not ask the kernel (seccomp) */
	struct aw_ifname names[AW_NAMES_MAX];
	size_t n_names;
	uint64_t reported_gen;          /* locset generation UPDATE last heard of */
	struct defroute routes;         /* the default routes (defroute.h) */
	struct log_ratelimit log;
	uint8_t buf[AW_BUF];            /* one datagram */
};

static bool link_is_down(const struct addrwatch *aw, int ifindex)
{
	size_t i;

	for (i = 0; i < aw->n_down; i++)
		if (aw->down[i] == ifindex)
			return true;
	return false;
}

/* Record the link's state; true if it changed. */
static bool link_set_down(struct addrwatch *aw, int ifindex, bool down)
{
	size_t i;

	for (i = 0; i < aw->n_down; i++)
		if (aw->down[i] == ifindex)
			break;
	if (down == (i < aw->n_down))
		return false;
	if (down) {
		if (aw->n_down == AW_DOWN_MAX)
			return true;    /* its addresses still go; we just forget it */
		aw->down[aw->n_down++] = ifindex;
	} else {
		aw->down[i] = aw->down[--aw->n_down];
	}
	return true;
}

static void seen_add(struct addrwatch *aw, const struct hip_addr *a)
{
	size_t i;

	for (i = 0; i < aw->n_seen; i++)
		if (memcmp(&aw->seen[i], a, sizeof(*a)) == 0)
			return;
	if (aw->n_seen == HIP_LOCSET_MAX)
		aw->seen_overflow = true;
	else
		aw->seen[aw->n_seen++] = *a;
}

static void seen_del(struct addrwatch *aw, const struct hip_addr *a)
{
	size_t i;

	for (i = 0; i < aw->n_seen; i++) {
		if (memcmp(&aw->seen[i], a, sizeof(*a)) == 0) {
			aw->seen[i] = aw->seen[--aw->n_seen];
			return;
		}
	}
}

/* ---- requests ------------------------------------------------------------ */

static int dump_request(struct addrwatch *aw, enum aw_dump what)
{
	struct {
		struct nlmsghdr nh;
		union {
			struct ifinfomsg ifi;
			struct ifaddrmsg ifa;
			struct rtmsg rtm;
		} u;
	} req;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	size_t body = what == AW_DUMP_LINK ? sizeof(req.u.ifi) :
		      what == AW_DUMP_ADDR ? sizeof(req.u.ifa) : sizeof(req.u.rtm);

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(body);
	req.nh.nlmsg_type = what == AW_DUMP_LINK ? RTM_GETLINK :
			    what == AW_DUMP_ADDR ? RTM_GETADDR : RTM_GETROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nh.nlmsg_seq = ++aw->seq;
	/* ifi_family / ifa_family AF_UNSPEC (0): every family */
	if (sendto(aw->fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0)
		return -errno;
	aw->dump = what;
	if (what == AW_DUMP_ADDR) {
		aw->n_seen = 0;
		aw->seen_overflow = false;
	}
	if (what == AW_DUMP_ROUTE)
		defroute_dump_begin(&aw->routes);
	return 0;
}

/* A full resync: links first (who is down), then addresses, then routes. */
static void resync(struct addrwatch *aw)
{
	int r;

	if (aw->dump != AW_DUMP_NONE) {
		aw->dump_again = true;
		return;
	}
	aw->dump_again = false;
	r = dump_request(aw, AW_DUMP_LINK);
	if (r < 0) {
		/* EBUSY: the kernel still runs an old dump; retried at its end */
		aw->dump_again = true;
		log_ratelimited(&aw->log, LOG_WARNING, "rtnetlink dump request: %s",
				strerror(-r));
	}
}

/* ---- messages ----------------------------------------------------------- */

static void name_set(struct addrwatch *aw, int ifindex, const char *name)
{
	size_t i;

	for (i = 0; i < aw->n_names; i++)
		if (aw->names[i].ifindex == ifindex)
			break;
	if (!name) {
		if (i < aw->n_names)
			aw->names[i] = aw->names[--aw->n_names];
		return;
	}
	if (i == aw->n_names) {
		if (aw->n_names == AW_NAMES_MAX)
			return;
		aw->n_names++;
	}
	aw->names[i].ifindex = ifindex;
	snprintf(aw->names[i].name, sizeof(aw->names[i].name), "%s", name);
}

/* IFLA_IFNAME of an RTM_NEWLINK body (after the ifinfomsg), into out. */
static bool link_name(const uint8_t *body, size_t len, char *out, size_t cap)
{
	size_t off = NLMSG_ALIGN(sizeof(struct ifinfomsg));

	while (off + sizeof(struct rtattr) <= len) {
		struct rtattr rta;
		size_t plen;

		memcpy(&rta, body + off, sizeof(rta));
		if (rta.rta_len < sizeof(rta) || rta.rta_len > len - off)
			return false;
		plen = rta.rta_len - RTA_LENGTH(0);
		if (rta.rta_type == IFLA_IFNAME && plen > 0 && plen <= cap) {
			memcpy(out, body + off + RTA_LENGTH(0), plen);
			out[plen - 1] = '\0';   /* NUL-terminated by the kernel */
			return true;
		}
		off += RTA_ALIGN(rta.rta_len);
	}
	return false;
}

static void on_link(struct addrwatch *aw, const struct nlmsghdr *nh, const uint8_t *body,
		    size_t len)
{
	struct ifinfomsg ifi;
	char name[IFNAMSIZ];
	bool down;
	int n;

	if (len < sizeof(ifi))
		return;
	memcpy(&ifi, body, sizeof(ifi));
	if (ifi.ifi_index <= 0)
		return;
	if (nh->nlmsg_type == RTM_DELLINK)
		name_set(aw, ifi.ifi_index, NULL);
	else if (link_name(body, len, name, sizeof(name)))
		name_set(aw, ifi.ifi_index, name);
	/* RTM_DELLINK: the device is gone (its addresses too) */
	down = nh->nlmsg_type == RTM_DELLINK ||
	       (ifi.ifi_flags & (IFF_UP | IFF_RUNNING)) != (IFF_UP | IFF_RUNNING);
	if (!link_set_down(aw, ifi.ifi_index, down))
		return;
	if (down) {
		n = locset_del_ifindex(aw->d->locset, ifi.ifi_index);
		if (n > 0)
			log_info("link %d down: %d locator%s gone", ifi.ifi_index, n,
				 n == 1 ? "" : "s");
		if (nh->nlmsg_type == RTM_DELLINK)
			link_set_down(aw, ifi.ifi_index, false);   /* forget the index */
	} else if (aw->dump == AW_DUMP_NONE || aw->dump == AW_DUMP_ADDR) {
		/* back up, outside a link dump: list its addresses again */
		log_info("link %d up: rereading the addresses", ifi.ifi_index);
		resync(aw);
	}
}

/* The address of an RTM_NEWADDR/DELADDR (IFA_LOCAL, else IFA_ADDRESS) and
 * its flags (IFA_FLAGS overrides the 8-bit ifa_flags). 0, or -EINVAL. */
static int parse_addr(const uint8_t *body, size_t len, struct ifaddrmsg *ifa,
		      struct hip_addr *out, uint32_t *flags)
{
	const uint8_t *local = NULL, *address = NULL;
	size_t off, alen;

	if (len < sizeof(*ifa))
		return -EINVAL;
	memcpy(ifa, body, sizeof(*ifa));
	if (ifa->ifa_family == AF_INET)
		alen = 4;
	else if (ifa->ifa_family == AF_INET6)
		alen = 16;
	else
		return -EINVAL;
	*flags = ifa->ifa_flags;
	off = NLMSG_ALIGN(sizeof(*ifa));
	while (off + sizeof(struct rtattr) <= len) {
		struct rtattr rta;
		size_t plen;

		memcpy(&rta, body + off, sizeof(rta));
		if (rta.rta_len < sizeof(rta) || rta.rta_len > len - off)
			return -EINVAL;
		plen = rta.rta_len - RTA_LENGTH(0);
		if (rta.rta_type == IFA_LOCAL && plen == alen)
			local = body + off + RTA_LENGTH(0);
		else if (rta.rta_type == IFA_ADDRESS && plen == alen)
			address = body + off + RTA_LENGTH(0);
		else if (rta.rta_type == IFA_FLAGS && plen == sizeof(uint32_t))
			memcpy(flags, body + off + RTA_LENGTH(0), sizeof(uint32_t));
		off += RTA_ALIGN(rta.rta_len);
	}
	/* IFA_LOCAL is our own end (point-to-point); IFA_ADDRESS otherwise */
	if (!local)
		local = address;
	if (!local)
		return -EINVAL;
	if (alen == 4) {
		struct in_addr v4;

		memcpy(&v4, local, 4);
		hip_addr_from_v4(out, &v4);
	} else {
		struct in6_addr v6;

		memcpy(&v6, local, 16);
		hip_addr_from_v6(out, &v6);
	}
	return 0;
}

static void on_addr(struct addrwatch *aw, const struct nlmsghdr *nh, const uint8_t *body,
		    size_t len, bool in_dump)
{
	const uint32_t unusable = IFA_F_TENTATIVE | IFA_F_DADFAILED | IFA_F_DEPRECATED;
	struct ifaddrmsg ifa;
	struct hip_addr a;
	char s[INET6_ADDRSTRLEN];
	uint32_t flags;
	bool gone;
	int r;

	if (parse_addr(body, len, &ifa, &a, &flags) != 0)
		return;
	if (locset_addr_problem(&a))
		return;                 /* loopback, link-local, HIT, ... */
	/* our LSIs on hip0 (D-22): inner addresses, never locators */
	if (hip_addr_is_v4(&a) && aw->d->conf.lsi_range.prefix > 0 &&
	    hip_lsi_prefix_overlap(a.in6.s6_addr + 12, 32, aw->d->conf.lsi_range.net,
				   aw->d->conf.lsi_range.prefix))
		return;
	hip_addr_to_str(&a, s, sizeof(s));
	/* still in DAD, failed it, or deprecated (RFC 4862): not for new use */
	gone = nh->nlmsg_type == RTM_DELADDR || (flags & unusable) ||
	       link_is_down(aw, (int)ifa.ifa_index);
	if (in_dump && gone)
		return;                 /* not seen: the sweep removes it */
	if (gone) {
		if (aw->dump == AW_DUMP_ADDR)
			seen_del(aw, &a);
		if (locset_del(aw->d->locset, &a, false) == 0)
			log_info("address %s removed", s);
		return;
	}
	if (aw->dump == AW_DUMP_ADDR)
		seen_add(aw, &a);
	r = locset_add(aw->d->locset, &a, (int)ifa.ifa_index, false);
	if (r == 0)
		log_info("address %s on link %u", s, ifa.ifa_index);
	else if (r == -ENOSPC)
		log_ratelimited(&aw->log, LOG_WARNING, "address %s ignored: already %d locators",
				s, HIP_LOCSET_MAX);
}

/* A route, from an event or our dump: only default routes are kept. */
static void on_route(struct addrwatch *aw, const struct nlmsghdr *nh, const uint8_t *body,
		     size_t len, bool in_dump)
{
	struct defroute_entry e;
	int r = defroute_parse(body, len, &e);

	if (r < 0)
		log_ratelimited(&aw->log, LOG_WARNING, "rtnetlink: malformed route message");
	if (r <= 0)
		return;
	if (in_dump)
		defroute_dump_add(&aw->routes, &e);
	else
		defroute_event(&aw->routes, nh->nlmsg_type == RTM_NEWROUTE,
			       (nh->nlmsg_flags & NLM_F_REPLACE) != 0, &e);
}

/* End of the address dump: learnt locators it did not list are gone. */
static void sweep(struct addrwatch *aw)
{
	struct hip_local_locator e[HIP_LOCSET_MAX];
	size_t n, i, j;

	if (aw->seen_overflow)
		return;
	n = locset_entries(aw->d->locset, e, HIP_LOCSET_MAX);
	for (i = 0; i < n; i++) {
		if (e[i].manual)
			continue;
		for (j = 0; j < aw->n_seen; j++)
			if (memcmp(&aw->seen[j], &e[i].addr, sizeof(e[i].addr)) == 0)
				break;
		if (j == aw->n_seen)
			locset_del(aw->d->locset, &e[i].addr, false);
	}
}

static void dump_done(struct addrwatch *aw)
{
	enum aw_dump was = aw->dump;
	int r;

	aw->dump = AW_DUMP_NONE;
	if (was == AW_DUMP_LINK) {
		r = dump_request(aw, AW_DUMP_ADDR);
		if (r < 0) {
			aw->dump_again = true;
			log_ratelimited(&aw->log, LOG_WARNING, "rtnetlink address dump: %s",
					strerror(-r));
		}
		return;
	}
	if (was == AW_DUMP_ADDR) {
		sweep(aw);
		r = dump_request(aw, AW_DUMP_ROUTE);
		if (r == 0)
			return;
		aw->dump_again = true;
		log_ratelimited(&aw->log, LOG_WARNING, "rtnetlink route dump: %s", strerror(-r));
		return;
	}
	defroute_settle(&aw->routes);
	if (aw->dump_again)
		resync(aw);
}

/* The kernel refused our dump. No immediate retry (it would spin if the
 * refusal lasts): the next overrun or link-up event asks again. */
static void dump_failed(struct addrwatch *aw, const uint8_t *body, size_t len)
{
	struct nlmsgerr e;

	if (len < sizeof(e))
		return;
	memcpy(&e, body, sizeof(e));
	if (e.error == 0)
		return;         /* an ACK, not a failure */
	if (aw->dump == AW_DUMP_ROUTE) {
		/* the addresses are complete; only route following is lost */
		aw->dump = AW_DUMP_NONE;
		log_ratelimited(&aw->log, LOG_WARNING, "rtnetlink route dump refused: %s",
				strerror(e.error < 0 ? -e.error : EIO));
		return;
	}
	aw->dump = AW_DUMP_NONE;
	aw->dump_again = false;
	aw->dump_error = e.error < 0 ? e.error : -EIO;
	log_ratelimited(&aw->log, LOG_WARNING, "rtnetlink dump refused: %s",
			strerror(-aw->dump_error));
}

/* One datagram: a sequence of netlink messages. */
static void parse_datagram(struct addrwatch *aw, const uint8_t *buf, size_t len)
{
	size_t off = 0;

	while (off + sizeof(struct nlmsghdr) <= len) {
		struct nlmsghdr nh;
		const uint8_t *body;
		size_t blen;
		bool ours;

		memcpy(&nh, buf + off, sizeof(nh));
		if (nh.nlmsg_len < sizeof(nh) || nh.nlmsg_len > len - off)
			return;
		body = buf + off + NLMSG_HDRLEN;
		blen = nh.nlmsg_len - NLMSG_HDRLEN;
		/* a reply to our dump, not an event (events carry the pid and
		 * seq of whoever caused them, e.g. ip(8)) */
		ours = aw->dump != AW_DUMP_NONE && nh.nlmsg_seq == aw->seq &&
		       nh.nlmsg_pid == aw->portid;
		if (ours && (nh.nlmsg_flags & NLM_F_DUMP_INTR))
			aw->dump_again = true;
		switch (nh.nlmsg_type) {
		case NLMSG_DONE:
			if (ours)
				dump_done(aw);
			break;
		case NLMSG_ERROR:
			if (ours)
				dump_failed(aw, body, blen);
			break;
		case RTM_NEWLINK:
		case RTM_DELLINK:
			on_link(aw, &nh, body, blen);
			break;
		case RTM_NEWADDR:
		case RTM_DELADDR:
			on_addr(aw, &nh, body, blen, ours);
			break;
		case RTM_NEWROUTE:
		case RTM_DELROUTE:
			on_route(aw, &nh, body, blen, ours && aw->dump == AW_DUMP_ROUTE);
			break;
		default:
			break;
		}
		off += NLMSG_ALIGN(nh.nlmsg_len);
	}
}

/* Read what is queued; -EAGAIN when empty, 0 after a datagram. */
static int read_one(struct addrwatch *aw)
{
	struct sockaddr_nl from;
	struct iovec iov = { aw->buf, sizeof(aw->buf) };
	struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof(from),
			     .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n = recvmsg(aw->fd, &mh, MSG_DONTWAIT);

	if (n < 0) {
		if (errno == EINTR)
			return 0;
		if (errno == ENOBUFS) {
			/* the kernel dropped events: the set is stale, read it again */
			log_ratelimited(&aw->log, LOG_NOTICE, "rtnetlink overrun: resynchronising");
			if (aw->dump != AW_DUMP_NONE) {
				aw->dump_again = true;   /* this dump may be incomplete */
				return 0;
			}
			resync(aw);
			return 0;
		}
		return -errno;
	}
	if (mh.msg_namelen < sizeof(from) || from.nl_pid != 0 || (mh.msg_flags & MSG_TRUNC))
		return 0;       /* not from the kernel, or cut: ignored */
	parse_datagram(aw, aw->buf, (size_t)n);
	return 0;
}

static void report_change(struct addrwatch *aw)
{
	static const int fams[] = { AF_INET, AF_INET6 };
	uint64_t g = locset_generation(aw->d->locset);
	struct defroute_entry e;
	bool have;
	size_t i;

	/* mid-dump the set is half-built: tell UPDATE once it is complete */
	if (aw->dump != AW_DUMP_NONE)
		return;
	if (g != aw->reported_gen) {
		aw->reported_gen = g;
		if (aw->d->addrs_changed)
			aw->d->addrs_changed(aw->d);
	}
	/* after the addresses, so a move to a new uplink finds its address */
	for (i = 0; i < sizeof(fams) / sizeof(fams[0]); i++)
		if (defroute_take_changed(&aw->routes, fams[i], &e, &have) &&
		    aw->d->route_changed)
			aw->d->route_changed(aw->d, fams[i], have ? &e : NULL);
}

static void aw_readable(struct hip_loop *loop, int fd, uint32_t events, void *arg)
{
	struct addrwatch *aw = arg;
	int i, r;

	(void)loop;
	(void)fd;
	(void)events;
	for (i = 0; i < AW_READ_BUDGET; i++) {
		r = read_one(aw);
		if (r == -EAGAIN)
			break;
		if (r < 0) {
			log_ratelimited(&aw->log, LOG_WARNING, "rtnetlink: %s", strerror(-r));
			break;
		}
	}
	/* a dump request refused earlier (EBUSY): try again now */
	if (aw->dump == AW_DUMP_NONE && aw->dump_again)
		resync(aw);
	report_change(aw);
}

/* ---- start / stop --------------------------------------------------------- */

/* The first dump, before the loop runs: the set is complete at start. */
static int initial_sync(struct addrwatch *aw)
{
	uint64_t deadline = hipd_now_ns() + (uint64_t)AW_SYNC_WAIT_MS * 1000000;
	int r = 0;

	resync(aw);
	while ((aw->dump != AW_DUMP_NONE || aw->dump_again) && !aw->dump_error) {
		struct pollfd p = { .fd = aw->fd, .events = POLLIN };
		uint64_t now = hipd_now_ns();

		if (aw->dump == AW_DUMP_NONE)
			resync(aw);
		if (now >= deadline) {
			r = -ETIMEDOUT;
			break;
		}
		if (poll(&p, 1, (int)((deadline - now) / 1000000) + 1) < 0 && errno != EINTR) {
			r = -errno;
			break;
		}
		r = read_one(aw);
		if (r == -EAGAIN)
			r = 0;
		if (r < 0)
			break;
	}
	return r < 0 ? r : aw->dump_error;
}

int addrwatch_start(struct hipd *d, struct addrwatch **out)
{
	struct sockaddr_nl local = {
		.nl_family = AF_NETLINK,
		.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR |
			     RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE,
	};
	struct addrwatch *aw = calloc(1, sizeof(*aw));
	socklen_t alen = sizeof(local);
	int rcvbuf = AW_RCVBUF, r;

	if (!aw)
		return -ENOMEM;
	aw->d = d;
	aw->fd = -1;
	log_ratelimit_init(&aw->log, 1000, 10);
	if (!d->locset) {
		r = locset_create(&aw->own_locset);
		if (r < 0)
			goto fail;
		d->locset = aw->own_locset;
	}
	aw->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
	if (aw->fd < 0) {
		r = -errno;
		goto fail;
	}
	/* best effort: a bigger queue makes overruns rarer (they are handled) */
	setsockopt(aw->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(aw->fd, (struct sockaddr *)&local, sizeof(local)) != 0 ||
	    getsockname(aw->fd, (struct sockaddr *)&local, &alen) != 0) {
		r = -errno;
		goto fail;
	}
	aw->portid = local.nl_pid;
	r = initial_sync(aw);
	if (r < 0)
		goto fail;
	aw->reported_gen = locset_generation(d->locset);
	/* the routes at start are the baseline, not a change */
	(void)defroute_take_changed(&aw->routes, AF_INET, &(struct defroute_entry){ 0 },
				    &(bool){ false });
	(void)defroute_take_changed(&aw->routes, AF_INET6, &(struct defroute_entry){ 0 },
				    &(bool){ false });
	r = hip_loop_fd_add(d->loop, aw->fd, EPOLLIN, aw_readable, aw);
	if (r < 0)
		goto fail;
	*out = aw;
	return 0;
fail:
	addrwatch_stop(aw);
	return r;
}

const char *addrwatch_ifname(const struct addrwatch *aw, int ifindex)
{
	size_t i;

	for (i = 0; aw && i < aw->n_names; i++)
		if (aw->names[i].ifindex == ifindex)
			return aw->names[i].name;
	return NULL;
}

void addrwatch_stop(struct addrwatch *aw)
{
	if (!aw)
		return;
	if (aw->fd >= 0) {
		hip_loop_fd_remove(aw->d->loop, aw->fd);   /* -ENOENT if never added */
		close(aw->fd);
	}
	if (aw->own_locset) {
		if (aw->d->locset == aw->own_locset)
			aw->d->locset = NULL;
		locset_free(aw->own_locset);
	}
	free(aw);
}
