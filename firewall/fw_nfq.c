/*
 * fw_nfq.c - the netfilter queue of hipfw (libnetfilter_queue, the
 * nfnetlink_queue subsystem). Packets are copied whole (HIP packets are at
 * most a few KiB: RFC 7401 §5.1 limits them to what one IP packet holds);
 * verdicts of consecutive packets that agree go out as one batch verdict
 * (NFQNL_MSG_VERDICT_BATCH: every packet id up to the last), so a burst of
 * packets costs a few system calls, not one per packet.
 */
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libnetfilter_queue/libnetfilter_queue.h>

#include "fw_nfq.h"

enum {
	NFQ_COPY_MAX = 0xffff,       /* the largest IP packet */
	NFQ_QUEUE_MAXLEN = 4096,     /* packets the kernel holds for us */
	NFQ_RECV_BUDGET = 256,       /* messages per readable event */
	NFQ_RCVBUF = 4 << 20,        /* room for a burst */
	NFQ_HOOK_IN = 1,             /* NF_INET_LOCAL_IN */
	NFQ_HOOK_FWD = 2,            /* NF_INET_FORWARD */
	NFQ_HOOK_OUT = 3,            /* NF_INET_LOCAL_OUT */
};

struct fw_nfq {
	struct nfq_handle *h;
	struct nfq_q_handle *qh[FW_NFQ_QUEUES_MAX];   /* queues first.. first+n-1 */
	unsigned n;
	int fd;
	fw_nfq_decide decide;
	void *arg;
	/* the batch being built: verdict for every id up to pending_id of
	 * queue pending_qh (packet ids are per queue) */
	bool pending;
	struct nfq_q_handle *pending_qh;
	uint32_t pending_id;
	uint32_t pending_verdict;
	int handled;
	uint8_t buf[NFQ_COPY_MAX + 4096];
};

static void flush(struct fw_nfq *q)
{
	if (q->pending)
		nfq_set_verdict_batch(q->pending_qh, q->pending_id, q->pending_verdict);
	q->pending = false;
}

static enum fw_dir hook_dir(uint8_t hook)
{
	switch (hook) {
	case NFQ_HOOK_IN:
		return FW_DIR_IN;
	case NFQ_HOOK_OUT:
		return FW_DIR_OUT;
	case NFQ_HOOK_FWD:
		return FW_DIR_FWD;
	default:
		return 0;
	}
}

static int packet_cb(struct nfq_q_handle *qh, struct nfgenmsg *msg, struct nfq_data *nfa,
		     void *arg)
{
	struct fw_nfq *q = arg;
	struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(nfa);
	unsigned char *data = NULL;
	uint32_t id, verdict;
	enum fw_dir dir;
	int len;

	(void)msg;
	if (!ph)
		return 0;
	id = ntohl(ph->packet_id);
	len = nfq_get_payload(nfa, &data);
	dir = hook_dir(ph->hook);
	verdict = NF_DROP;
	if (len > 0 && data && dir && q->decide(data, (size_t)len, dir, q->arg))
		verdict = NF_ACCEPT;
	if (q->pending && (q->pending_verdict != verdict || q->pending_qh != qh))
		flush(q);
	q->pending = true;
	q->pending_qh = qh;
	q->pending_id = id;
	q->pending_verdict = verdict;
	q->handled++;
	return 0;
}

/* Queue number queue of q->h: copy mode, length, fail-open flag. */
static int queue_bind(struct fw_nfq *q, unsigned i, uint16_t queue, bool fail_open, char *err,
		      size_t err_len)
{
	int ret;

	q->qh[i] = nfq_create_queue(q->h, queue, packet_cb, q);
	if (!q->qh[i]) {
		ret = errno ? -errno : -EBUSY;
		snprintf(err, err_len, "netfilter queue %u: %s (another program on it, or no "
			 "CAP_NET_ADMIN)", queue, strerror(-ret));
		return ret;
	}
	q->n = i + 1;
	if (nfq_set_mode(q->qh[i], NFQNL_COPY_PACKET, NFQ_COPY_MAX) < 0 ||
	    nfq_set_queue_maxlen(q->qh[i], NFQ_QUEUE_MAXLEN) < 0) {
		ret = errno ? -errno : -EIO;
		snprintf(err, err_len, "netfilter queue %u: set mode: %s", queue, strerror(-ret));
		return ret;
	}
	if (nfq_set_queue_flags(q->qh[i], NFQA_CFG_F_FAIL_OPEN,
				fail_open ? NFQA_CFG_F_FAIL_OPEN : 0) < 0) {
		ret = errno ? -errno : -EIO;
		snprintf(err, err_len, "netfilter queue %u: fail-open flag: %s", queue,
			 strerror(-ret));
		return ret;
	}
	return 0;
}

int fw_nfq_open(struct fw_nfq **out, uint16_t first, unsigned count, bool fail_open,
		fw_nfq_decide decide, void *arg, char *err, size_t err_len)
{
	struct fw_nfq *q;
	int rcvbuf = NFQ_RCVBUF, ret;
	unsigned i;

	*out = NULL;
	if (count < 1 || count > FW_NFQ_QUEUES_MAX || first + count - 1u > 65535u) {
		snprintf(err, err_len, "netfilter queues %u-%u: 1 to %u queues, numbers up to "
			 "65535", first, first + count - 1u, FW_NFQ_QUEUES_MAX);
		return -EINVAL;
	}
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->decide = decide;
	q->arg = arg;
	q->h = nfq_open();
	if (!q->h) {
		ret = errno ? -errno : -EIO;
		snprintf(err, err_len, "netfilter queue: %s", strerror(-ret));
		goto fail;
	}
	/* one netlink socket for all: one event loop reads them in turn */
	for (i = 0; i < count; i++) {
		ret = queue_bind(q, i, (uint16_t)(first + i), fail_open, err, err_len);
		if (ret < 0)
			goto fail;
	}
	q->fd = nfq_fd(q->h);
	(void)setsockopt(q->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (fcntl(q->fd, F_SETFL, fcntl(q->fd, F_GETFL) | O_NONBLOCK) < 0) {
		ret = -errno;
		snprintf(err, err_len, "netfilter queue: %s", strerror(errno));
		goto fail;
	}
	*out = q;
	return 0;
fail:
	fw_nfq_close(q);
	return ret;
}

void fw_nfq_close(struct fw_nfq *q)
{
	if (!q)
		return;
	while (q->n)
		nfq_destroy_queue(q->qh[--q->n]);
	if (q->h)
		nfq_close(q->h);
	free(q);
}

int fw_nfq_fd(const struct fw_nfq *q)
{
	return q->fd;
}

int fw_nfq_read(struct fw_nfq *q)
{
	ssize_t n;
	int i, err = 0;

	q->handled = 0;
	for (i = 0; i < NFQ_RECV_BUDGET; i++) {
		n = recv(q->fd, q->buf, sizeof(q->buf), 0);
		if (n < 0) {
			/* ENOBUFS: the kernel dropped messages (queue overrun):
			 * those packets got the kernel's verdict, we go on. */
			if (errno != EAGAIN && errno != EINTR && errno != ENOBUFS)
				err = -errno;
			break;
		}
		nfq_handle_packet(q->h, (char *)q->buf, (int)n);
	}
	flush(q);
	return err ? err : q->handled;
}
