/*
 * xfrm_nl.c - NETLINK_XFRM requests for the kernel datapath (xfrm_int.h):
 * built in a bounded stack buffer, sent with NLM_F_ACK, the errno and the
 * kernel's extended-ACK text reported, every buffer wiped.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hip_crypto.h"
#include "xfrm_int.h"

const char *xfrm_msg_name(uint16_t type)
{
	switch (type) {
	case XFRM_MSG_NEWSA:        return "XFRM_MSG_NEWSA";
	case XFRM_MSG_DELSA:        return "XFRM_MSG_DELSA";
	case XFRM_MSG_GETSA:        return "XFRM_MSG_GETSA";
	case XFRM_MSG_UPDSA:        return "XFRM_MSG_UPDSA";
	case XFRM_MSG_NEWPOLICY:    return "XFRM_MSG_NEWPOLICY";
	case XFRM_MSG_DELPOLICY:    return "XFRM_MSG_DELPOLICY";
	case XFRM_MSG_GETPOLICY:    return "XFRM_MSG_GETPOLICY";
	case XFRM_MSG_UPDPOLICY:    return "XFRM_MSG_UPDPOLICY";
	case XFRM_MSG_ALLOCSPI:     return "XFRM_MSG_ALLOCSPI";
	case XFRM_MSG_ACQUIRE:      return "XFRM_MSG_ACQUIRE";
	case XFRM_MSG_EXPIRE:       return "XFRM_MSG_EXPIRE";
	default:                    return "XFRM message";
	}
}
/* ---- building ------------------------------------------------------------ */

struct nlmsghdr *xfrm_req_init(struct xfrm_req *r, uint16_t type, const void *body,
			       size_t len)
{
	memset(r, 0, sizeof(*r));
	r->n.nlmsg_type = type;
	r->n.nlmsg_len = (uint32_t)NLMSG_LENGTH(len);
	memcpy(r->b + NLMSG_HDRLEN, body, len);
	return &r->n;
}

/* Append an attribute made of two parts (a struct and key bytes);
 * -EMSGSIZE past the buffer, never a partial write. */
int xfrm_req_put2(struct xfrm_req *r, uint16_t type, const void *a, size_t alen,
		  const void *b, size_t blen)
{
	size_t at = NLMSG_ALIGN(r->n.nlmsg_len), len = NLA_HDRLEN + alen + blen;
	struct nlattr hdr = { .nla_type = type };

	if (len > UINT16_MAX || at + NLA_ALIGN(len) > sizeof(r->b))
		return -EMSGSIZE;
	hdr.nla_len = (uint16_t)len;
	memcpy(r->b + at, &hdr, sizeof(hdr));
	if (alen)
		memcpy(r->b + at + NLA_HDRLEN, a, alen);
	if (blen)
		memcpy(r->b + at + NLA_HDRLEN + alen, b, blen);
	r->n.nlmsg_len = (uint32_t)(at + NLA_ALIGN(len));
	return 0;
}

int xfrm_req_put(struct xfrm_req *r, uint16_t type, const void *a, size_t alen)
{
	return xfrm_req_put2(r, type, a, alen, NULL, 0);
}

/* ---- talking --------------------------------------------------------------- */

/* Text of NLMSGERR_ATTR_MSG after a capped nlmsgerr, if the kernel sent one. */
static void ext_ack_msg(const struct nlmsghdr *h, char *why, size_t whylen)
{
	size_t off = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct nlmsgerr)), end = h->nlmsg_len;
	struct nlattr a;

	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	while (off + NLA_HDRLEN <= end) {
		memcpy(&a, (const uint8_t *)h + off, sizeof(a));
		if (a.nla_len < NLA_HDRLEN || off + a.nla_len > end)
			return;
		if (a.nla_type == NLMSGERR_ATTR_MSG) {
			size_t n = a.nla_len - NLA_HDRLEN;

			if (n >= whylen)
				n = whylen - 1;
			memcpy(why, (const uint8_t *)h + off + NLA_HDRLEN, n);
			why[n] = '\0';
			why[strnlen(why, n)] = '\0';
			return;
		}
		off += NLA_ALIGN(a.nla_len);
	}
}

static int nl_send(struct xfrm_dp *x, struct nlmsghdr *n)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	ssize_t r;

	n->nlmsg_seq = ++x->seq;
	n->nlmsg_pid = 0;
	do {
		r = sendto(x->fd, n, n->nlmsg_len, 0, (struct sockaddr *)&kernel,
			   sizeof(kernel));
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return r == (ssize_t)n->nlmsg_len ? 0 : -EIO;
}

/* One datagram into x->rx: its length, or -errno. */
static ssize_t nl_recv(struct xfrm_dp *x)
{
	ssize_t r;

	do {
		r = recv(x->fd, x->rx, XFRM_RX_MAX, MSG_TRUNC);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno == EAGAIN ? -ETIMEDOUT : -errno;
	/* No answer comes in an empty datagram: read as the end of the
	 * socket (a stand-in's), not as a message to wait on after. */
	if (r == 0)
		return -EPIPE;
	if (r > XFRM_RX_MAX) {
		hip_wipe(x->rx, XFRM_RX_MAX);
		return -EMSGSIZE;
	}
	return r;
}


/*
 * Send r (wiped afterwards whatever happens) and read the answers to it:
 * with dump, every message until NLMSG_DONE goes to cb; otherwise the
 * request carries NLM_F_ACK and the answer messages before the ACK go to
 * cb (GETSA, GETPOLICY). Returns the kernel's -errno; its extended-ACK text
 * goes to why.
 */
int xfrm_nl_talk(struct xfrm_dp *x, struct xfrm_req *r, bool dump, xfrm_msg_cb cb, void *arg,
		 char *why, size_t whylen)
{
	bool done = false;
	ssize_t len;
	int ret, cret = 0;

	if (why && whylen)
		why[0] = '\0';
	r->n.nlmsg_flags |= NLM_F_REQUEST | (dump ? NLM_F_DUMP : NLM_F_ACK);
	ret = nl_send(x, &r->n);
	hip_wipe(r, sizeof(*r));
	if (ret < 0)
		return ret;
	while (!done) {
		const struct nlmsghdr *h;
		/* signed: NLMSG_NEXT past a last message whose length is not
		 * aligned goes below zero, where NLMSG_OK stops (a size_t
		 * would wrap and walk off the buffer) */
		ssize_t left;

		len = nl_recv(x);
		if (len < 0)
			return (int)len;
		left = len;
		for (h = (const struct nlmsghdr *)x->rx; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_seq != x->seq || h->nlmsg_pid != x->portid)
				continue;        /* a late answer to an older request */
			if (h->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr e;

				done = true;
				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(e))) {
					ret = -EBADMSG;
					break;
				}
				memcpy(&e, NLMSG_DATA(h), sizeof(e));
				/* 0 or -errno; anything else (INT_MIN: its
				 * negation for strerror() overflows) is none */
				ret = e.error > 0 || e.error < -4095 ? -EBADMSG : e.error;
				if (ret < 0 && why)
					ext_ack_msg(h, why, whylen);
				break;
			}
			if (cb && cret == 0)
				cret = cb(x, h, arg);
		}
		hip_wipe(x->rx, (size_t)len);
	}
	return ret < 0 ? ret : cret;
}

/* A request refused before it was sent (our own check). */
int xfrm_log_bad(uint16_t type, const char *what, int err, const char *check)
{
	log_err("xfrm: %s (%s) not sent: %s: %s", xfrm_msg_name(type), what, check,
		strerror(-err));
	return err;
}

/* Log a failed request once, with the message, the object and the cause. */
int xfrm_log_fail(uint16_t type, const char *what, int err, const char *why)
{
	log_err("xfrm: %s (%s): %s%s%s%s", xfrm_msg_name(type), what, strerror(-err),
		why && why[0] ? " (kernel: " : "", why && why[0] ? why : "",
		why && why[0] ? ")" : "");
	return err;
}

int xfrm_nl_open(int groups, uint32_t *portid)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = (uint32_t)groups };
	socklen_t len = sizeof(sa);
	int one = 1, fd, ret;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_XFRM);
	if (fd < 0)
		return -errno;
	/* An error ACK without the request in it (it may hold keys), and the
	 * kernel's reason as text. */
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if (portid)
		*portid = sa.nl_pid;
	return fd;
}
