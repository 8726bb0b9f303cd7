/*
 * fw_nfq.h - hipfw's netfilter queue (libnetfilter_queue): packets in,
 * verdicts out, several per system call.
 */
#ifndef HIPFW_NFQ_H
#define HIPFW_NFQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_rules.h"

struct fw_nfq;

/* Decide one packet (its IP header first), seen at dir: true = accept. */
typedef bool (*fw_nfq_decide)(const uint8_t *pkt, size_t len, enum fw_dir dir, void *arg);

enum { FW_NFQ_QUEUES_MAX = 16 };   /* -q FIRST:LAST binds at most this many */

/* Bind queue numbers first .. first+count-1 on one netlink socket (hipfw
 * must hold CAP_NET_ADMIN); the packet filter spreads packets over them
 * (NFQUEUE --queue-balance, fw_ipt.c). fail_open: when a queue is full the
 * kernel accepts instead of dropping (NFQA_CFG_F_FAIL_OPEN). 0 or -errno,
 * with err saying why. */
int fw_nfq_open(struct fw_nfq **out, uint16_t first, unsigned count, bool fail_open,
		fw_nfq_decide decide, void *arg, char *err, size_t err_len);
void fw_nfq_close(struct fw_nfq *q);
int fw_nfq_fd(const struct fw_nfq *q);
/* Read what is queued (non-blocking), decide each packet, send the verdicts
 * (runs of the same verdict as one batch verdict). Returns the number of
 * packets handled or -errno. */
int fw_nfq_read(struct fw_nfq *q);

#endif
