/*
 * xfrm_nosa.c - ESP for no SA of ours on the kernel datapath (declared in
 * xfrm_int.h).
 *
 * The kernel drops ESP whose SPI it has no state for without a word
 * (XfrmInNoStates). After our restart that is every packet of a peer
 * that still holds the association, which then notices only by its
 * liveness probe (D-13, about 7 s). A raw IPPROTO_ESP socket gets a copy
 * of every ESP packet delivered here (raw sockets see a protocol's packets
 * before its handler); a classic BPF filter on it keeps only those whose
 * SPI is not one of our inbound SAs, so the ESP the kernel decrypts never
 * reaches userspace. What passes goes to the engine's no_sa event, as on
 * the userspace datapath (RFC 7401 §4.3, §4.5.4; D-14): an ICMP Parameter
 * Problem to the sender, or a base exchange when it is a mapped peer.
 *
 * Raw IPv4 sockets read the IP header, raw IPv6 ones start at the ESP
 * header: the filter reads the SPI at the header length (BPF_MSH) or at 0.
 * Without CAP_NET_RAW there is no tap (logged at start); with more
 * inbound SAs than one filter can list, every ESP packet passes and the
 * rate limit below holds.
 */
#include <errno.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xfrm_int.h"

/* The SPI's offset in what the socket reads. */
static void prog_head(struct sock_filter *f, size_t *n, bool v4)
{
	if (v4) {
		/* X = 4 * IHL; A = the word at X (the SPI) */
		f[(*n)++] = (struct sock_filter)BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0);
		f[(*n)++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_IND, 0);
	} else {
		f[(*n)++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0);
	}
}

int xfrm_nosa_filter(const uint32_t *spi, size_t n_spi, bool v4, struct sock_filter *out,
		     size_t cap, size_t *len)
{
	size_t n = 0, i;

	if (n_spi > XFRM_NOSA_SPIS_MAX || cap < n_spi + 4)
		return -ENOSPC;
	prog_head(out, &n, v4);
	/* one test per SPI: equal jumps to the drop at the end */
	for (i = 0; i < n_spi; i++)
		out[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, spi[i],
							(uint8_t)(n_spi - i), 0);
	out[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, XFRM_NOSA_SNAP);
	out[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
	*len = n;
	return 0;
}

static int attach(int fd, const uint32_t *spi, size_t n_spi, bool v4)
{
	struct sock_filter f[XFRM_NOSA_SPIS_MAX + 4];
	struct sock_fprog prog;
	size_t len;

	if (fd < 0)
		return 0;
	/* too many to list: everything passes (the rate limit holds) */
	if (xfrm_nosa_filter(spi, n_spi > XFRM_NOSA_SPIS_MAX ? 0 : n_spi, v4, f,
			     sizeof(f) / sizeof(f[0]), &len) < 0)
		return -ENOSPC;
	prog.len = (unsigned short)len;
	prog.filter = f;
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0)
		return -errno;
	return 0;
}

static void refilter(struct xfrm_nosa *t)
{
	int r4 = attach(t->fd4, t->spi, t->n, true), r6 = attach(t->fd6, t->spi, t->n, false);

	if (r4 < 0 || r6 < 0)
		log_ratelimited(&t->log, LOG_WARNING, "xfrm: ESP filter: %s",
				strerror(-(r4 < 0 ? r4 : r6)));
}

static int raw_open(int family)
{
	int fd = socket(family, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_ESP);
	int on = 1;

	if (fd < 0)
		return -errno;
	if (family == AF_INET6)
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on, sizeof(on));
	return fd;
}

int xfrm_nosa_open(struct xfrm_nosa *t)
{
	memset(t, 0, sizeof(*t));
	t->fd4 = t->fd6 = -1;
	log_ratelimit_init(&t->log, 1000, 5);
	log_ratelimit_init(&t->rate, 1000, XFRM_NOSA_PER_S);
	t->fd4 = raw_open(AF_INET);
	t->fd6 = raw_open(AF_INET6);
	if (t->fd4 < 0 && t->fd6 < 0) {
		int r = t->fd4;

		t->fd4 = t->fd6 = -1;
		return r;
	}
	if (t->fd4 < 0)
		t->fd4 = -1;
	if (t->fd6 < 0)
		t->fd6 = -1;
	refilter(t);
	return 0;
}

void xfrm_nosa_close(struct xfrm_nosa *t)
{
	if (t->fd4 >= 0)
		close(t->fd4);
	if (t->fd6 >= 0)
		close(t->fd6);
	t->fd4 = t->fd6 = -1;
}

void xfrm_nosa_spi(struct xfrm_nosa *t, uint32_t spi, bool add)
{
	size_t i;

	for (i = 0; i < t->n && t->spi[i] != spi; i++)
		;
	if (add == (i < t->n))
		return;
	if (add) {
		if (t->n == XFRM_NOSA_SPIS_MAX) {
			t->overflow++;
			return;            /* not listed: its ESP passes, rate-limited */
		}
		t->spi[t->n++] = spi;
	} else {
		t->spi[i] = t->spi[--t->n];
	}
	refilter(t);
}

void xfrm_nosa_clear(struct xfrm_nosa *t)
{
	t->n = 0;
	refilter(t);
}

/* One packet from a raw socket: the ESP and its addresses. */
static int parse(bool v4, const uint8_t *buf, size_t len, const struct sockaddr_in6 *from,
		 const struct msghdr *mh, struct hip_addr *src, struct hip_addr *dst,
		 bool *have_dst, size_t *esp_off)
{
	if (v4) {
		struct in_addr a;
		size_t ihl;

		if (len < 20 || (buf[0] >> 4) != 4)
			return -EINVAL;
		ihl = (size_t)(buf[0] & 0x0f) * 4;
		if (ihl < 20 || len < ihl + 8)
			return -EINVAL;
		memcpy(&a, buf + 12, sizeof(a));
		hip_addr_from_v4(src, &a);
		memcpy(&a, buf + 16, sizeof(a));
		hip_addr_from_v4(dst, &a);
		*have_dst = true;
		*esp_off = ihl;
		return 0;
	}
	if (len < 8)
		return -EINVAL;
	hip_addr_from_v6(src, &from->sin6_addr);
	*have_dst = false;
	for (const struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR((struct msghdr *)mh,
									  (struct cmsghdr *)c)) {
		struct in6_pktinfo pi;

		if (c->cmsg_level != IPPROTO_IPV6 || c->cmsg_type != IPV6_PKTINFO ||
		    c->cmsg_len < CMSG_LEN(sizeof(pi)))
			continue;
		memcpy(&pi, CMSG_DATA(c), sizeof(pi));
		hip_addr_from_v6(dst, &pi.ipi6_addr);
		*have_dst = true;
	}
	*esp_off = 0;
	return 0;
}

void xfrm_nosa_read(struct xfrm_nosa *t, int fd, const struct datapath_events *ev)
{
	uint8_t buf[XFRM_NOSA_SNAP], ctl[CMSG_SPACE(sizeof(struct in6_pktinfo))];
	bool v4 = fd == t->fd4;
	int i;

	for (i = 0; i < XFRM_NOSA_BUDGET; i++) {
		struct sockaddr_in6 from;
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof(from),
				     .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = ctl, .msg_controllen = sizeof(ctl) };
		struct hip_addr src, dst;
		bool have_dst;
		size_t off;
		ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		t->seen++;
		if (parse(v4, buf, (size_t)n, &from, &mh, &src, &dst, &have_dst, &off) < 0) {
			t->malformed++;
			continue;
		}
		/* the kernel may have got the SA meanwhile: the filter lags an
		 * install by one system call, the engine checks the SPI again */
		if (!ev->no_sa || !log_ratelimit_check(&t->rate, hipd_now_ns(), &(unsigned){ 0 }))
			continue;
		ev->no_sa(ev->arg, &src, have_dst ? &dst : NULL, 0, buf + off, (size_t)n - off);
	}
}
