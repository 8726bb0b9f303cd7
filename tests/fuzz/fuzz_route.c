/*
 * fuzz_route.c - libFuzzer target for the default routes hipd follows
 * (hipd/net/defroute.c): the input is a datagram of rtnetlink messages as
 * addrwatch.c reads them; RTM_NEWROUTE / RTM_DELROUTE bodies go through
 * defroute_parse() and, when they count, into the table as events (or as
 * a dump when the message's NLM_F_MULTI flag is set, ended by
 * NLMSG_DONE). After each one: never more than DEFROUTE_MAX routes, and
 * the active route of a family is in the table with the lowest metric.
 * Seeds: fuzz/corpus/route/. No crash, no sanitizer report, whatever the
 * input.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "net/defroute.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_table(struct defroute *dr)
{
	static const int fams[] = { AF_INET, AF_INET6 };
	size_t f, i;

	if (dr->n > DEFROUTE_MAX)
		abort();
	for (f = 0; f < 2; f++) {
		struct defroute_entry a;
		bool have, found = false;

		(void)defroute_take_changed(dr, fams[f], &a, &have);
		if (defroute_take_changed(dr, fams[f], &a, &have))
			abort();        /* told once */
		for (i = 0; i < dr->n; i++) {
			if (dr->e[i].family != fams[f])
				continue;
			if (!have || dr->e[i].metric < a.metric)
				abort();
			if (!memcmp(&dr->e[i], &a, sizeof(a)))
				found = true;
		}
		if (have && !found)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct defroute dr;
	bool in_dump = false;
	size_t off = 0;

	memset(&dr, 0, sizeof(dr));
	while (off + sizeof(struct nlmsghdr) <= size) {
		struct nlmsghdr nh;
		struct defroute_entry e;
		const uint8_t *body;
		size_t blen;

		memcpy(&nh, data + off, sizeof(nh));
		if (nh.nlmsg_len < NLMSG_HDRLEN || nh.nlmsg_len > size - off)
			break;
		body = data + off + NLMSG_HDRLEN;
		blen = nh.nlmsg_len - NLMSG_HDRLEN;
		if (nh.nlmsg_type == NLMSG_DONE && in_dump) {
			defroute_settle(&dr);
			in_dump = false;
		} else if (nh.nlmsg_type == RTM_NEWROUTE || nh.nlmsg_type == RTM_DELROUTE) {
			int r = defroute_parse(body, blen, &e);

			if (r > 1 || r < -EINVAL)
				abort();
			if (r == 1 && (e.family != AF_INET && e.family != AF_INET6))
				abort();
			if (r == 1 && (nh.nlmsg_flags & NLM_F_MULTI)) {
				if (!in_dump)
					defroute_dump_begin(&dr);
				in_dump = true;
				defroute_dump_add(&dr, &e);
			} else if (r == 1) {
				defroute_event(&dr, nh.nlmsg_type == RTM_NEWROUTE,
					       (nh.nlmsg_flags & NLM_F_REPLACE) != 0, &e);
				check_table(&dr);
			}
		}
		off += NLMSG_ALIGN(nh.nlmsg_len);
		if (!in_dump)
			check_table(&dr);
	}
	return 0;
}
