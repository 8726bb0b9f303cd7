/*
 * nfq-delay - hold every packet of a netfilter queue for a constant time,
 * then let it go: link delay for the benchmarks (bench/bex-relay.sh), where
 * the kernel has no netem. Packets keep their order (one FIFO, one delay).
 *
 *   nfq-delay -q QUEUE -d MICROSECONDS [-s SECONDS]
 *
 * Feed it with `iptables-legacy -A FORWARD -o WAN -j NFQUEUE --queue-num
 * QUEUE` in a router's namespace. Only the metadata is copied to us (the
 * verdict needs the packet id alone). Exits after SECONDS (default: never)
 * or on SIGTERM, letting everything it holds go; prints the packets held.
 * The delay it adds is at least the asked one plus a wakeup (tens of
 * microseconds on a VM): the benchmarks print the RTT they see.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

enum { HOLD_MAX = 65536, DELAY_MAX_US = 10000000 };

struct held {
	uint32_t id;
	uint64_t due_ns;
};

struct delay {
	struct nfq_q_handle *qh;
	struct held ring[HOLD_MAX];
	unsigned head, n;
	uint64_t delay_ns, held_total, dropped_full;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int on_packet(struct nfq_q_handle *qh, struct nfgenmsg *msg, struct nfq_data *nfa,
		     void *arg)
{
	struct delay *dl = arg;
	struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(nfa);
	uint32_t id;

	(void)msg;
	if (!ph)
		return 0;
	id = ntohl(ph->packet_id);
	if (dl->n == HOLD_MAX) {          /* full: let it go at once */
		dl->dropped_full++;
		return nfq_set_verdict(qh, id, NF_ACCEPT, 0, NULL);
	}
	dl->ring[(dl->head + dl->n) % HOLD_MAX] = (struct held){ id, now_ns() + dl->delay_ns };
	dl->n++;
	dl->held_total++;
	return 0;
}

/* Lets go what is due (all of it with force). */
static void release(struct delay *dl, int force)
{
	uint64_t now = now_ns();

	while (dl->n) {
		struct held *h = &dl->ring[dl->head];

		if (!force && h->due_ns > now)
			return;
		(void)nfq_set_verdict(dl->qh, h->id, NF_ACCEPT, 0, NULL);
		dl->head = (dl->head + 1) % HOLD_MAX;
		dl->n--;
	}
}

/* The time until the next packet is due (ppoll: no rounding to ms). */
static struct timespec timeout_ts(const struct delay *dl)
{
	uint64_t now = now_ns(), due, left = 200000000u;

	if (dl->n) {
		due = dl->ring[dl->head].due_ns;
		left = due > now ? due - now : 0;
	}
	return (struct timespec){ .tv_sec = (time_t)(left / 1000000000u),
				  .tv_nsec = (long)(left % 1000000000u) };
}

int main(int argc, char **argv)
{
	static struct delay dl;
	struct nfq_handle *h = NULL;
	unsigned long queue = 0, delay_us = 0, secs = 0;
	char buf[65536] __attribute__((aligned));
	uint64_t end = 0;
	int opt, fd, rc = 1;

	while ((opt = getopt(argc, argv, "q:d:s:")) != -1) {
		char *e;

		errno = 0;
		switch (opt) {
		case 'q': queue = strtoul(optarg, &e, 10); break;
		case 'd': delay_us = strtoul(optarg, &e, 10); break;
		case 's': secs = strtoul(optarg, &e, 10); break;
		default: goto usage;
		}
		if (errno || *e || !*optarg)
			goto usage;
	}
	if (optind != argc || queue > 65535 || delay_us > DELAY_MAX_US)
		goto usage;
	dl.delay_ns = (uint64_t)delay_us * 1000u;
	/* wake when asked, not up to 50 us later (the default timer slack) */
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	h = nfq_open();
	if (!h || nfq_bind_pf(h, AF_INET) < 0) {
		fprintf(stderr, "nfq-delay: netfilter queue: %s\n", strerror(errno));
		goto out;
	}
	dl.qh = nfq_create_queue(h, (uint16_t)queue, on_packet, &dl);
	if (!dl.qh || nfq_set_mode(dl.qh, NFQNL_COPY_META, 0) < 0) {
		fprintf(stderr, "nfq-delay: queue %lu: %s\n", queue, strerror(errno));
		goto out;
	}
	(void)nfq_set_queue_maxlen(dl.qh, HOLD_MAX);
	fd = nfq_fd(h);
	if (secs)
		end = now_ns() + (uint64_t)secs * 1000000000u;
	printf("nfq-delay: queue %lu, %lu us\n", queue, delay_us);
	fflush(stdout);
	while (!stop && (!end || now_ns() < end)) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct timespec ts = timeout_ts(&dl);
		int n = ppoll(&p, 1, &ts, NULL);

		if (n < 0 && errno != EINTR)
			break;
		if (n > 0) {
			ssize_t len;

			while ((len = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
				nfq_handle_packet(h, buf, (int)len);
		}
		release(&dl, 0);
	}
	release(&dl, 1);
	printf("nfq-delay: %llu packets held, %llu let go at once (full)\n",
	       (unsigned long long)dl.held_total, (unsigned long long)dl.dropped_full);
	rc = 0;
out:
	if (dl.qh)
		nfq_destroy_queue(dl.qh);
	if (h)
		nfq_close(h);
	return rc;
usage:
	fprintf(stderr, "usage: nfq-delay -q QUEUE -d MICROSECONDS [-s SECONDS]\n");
	return 2;
}
