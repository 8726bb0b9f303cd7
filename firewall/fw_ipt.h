/*
 * fw_ipt.h - the packet filter rules that send HIP to hipfw's queue: its
 * own chain HIPFW in the filter table of iptables-legacy and
 * ip6tables-legacy, jumped to from INPUT, OUTPUT and FORWARD for protocol
 * 139 only; nothing else is touched.
 */
#ifndef HIPFW_IPT_H
#define HIPFW_IPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fw_ipt_conf {
	const char *iptables;     /* program for IPv4, NULL = not filtered */
	const char *ip6tables;    /* program for IPv6, NULL = not filtered */
	uint16_t queue;
	bool fail_open;           /* --queue-bypass: accept while nobody reads */
};

/* Remove what a previous run left, then install. 0 or -errno (err says
 * which command failed). */
int fw_ipt_install(const struct fw_ipt_conf *c, char *err, size_t err_len);
/* Remove our chain and the jumps to it (what is missing is no error). */
void fw_ipt_remove(const struct fw_ipt_conf *c);

#endif
