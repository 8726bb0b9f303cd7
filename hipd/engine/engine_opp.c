/*
 * engine_opp.c - the hipconf side of opportunistic mode (D-27, exchange/
 * bex_opp.c): `trigger ADDRESS`, `show pins` (the known hosts, the
 * exchanges under way and their counters) and `del pin ADDRESS`.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "control/control.h"
#include "engine_int.h"
#include "engine/exchange/exchange.h"
#include "hit.h"
#include "net/net.h"

int eng_opp_cmd_trigger(struct hipd *d, const struct control_request *req,
			struct control_reply *rep, const struct hip_addr *addr)
{
	char a[INET6_ADDRSTRLEN], hit[HIP_HIT_STR_LEN] = "";
	struct hip_hit known;
	int ret;

	hip_addr_to_str(addr, a, sizeof(a));
	ret = eng_opp_trigger(d, addr, &known);
	if (ret == -EPERM)
		return control_reply_error(rep, CTL_EFAILED, "opportunistic mode is off for %s: "
					   "no base exchange without its HIT (allow it with "
					   "hipd.conf opportunistic_peers, or give the HIT)", a);
	if (ret == -EINVAL)
		return control_reply_error(rep, CTL_EUSAGE, "%s is %s", a,
					   hip_addr_locator_problem(addr) ?: "not usable");
	if (ret == -EBUSY)
		return control_reply_error(rep, CTL_EFAILED, "too many opportunistic exchanges "
					   "under way; try again in a few seconds");
	if (ret < 0)
		return control_reply_error(rep, CTL_EFAILED, "opportunistic exchange with %s: %s",
					   a, strerror(-ret));
	if (!hip_hit_is_null(&known))
		hip_hit_to_str(&known, hit, sizeof(hit));
	if (req->json) {
		control_reply_printf(rep, "{\"result\": \"opportunistic base exchange started or "
				     "running with\", \"address\": \"%s\", \"pinned_hit\": ", a);
		if (hit[0])
			control_reply_printf(rep, "\"%s\"}", hit);
		else
			control_reply_printf(rep, "null}");
	} else {
		control_reply_printf(rep, "opportunistic base exchange started or running with %s"
				     "%s%s", a, hit[0] ? ", pinned to " : " (HIT not known yet)",
				     hit);
	}
	return CTL_OK;
}

static int cmd_show_pins(const struct control_request *req, struct control_reply *rep,
			 void *arg)
{
	struct hipd *d = arg;
	struct eng_opp_counters c;
	const struct known_hosts *k = eng_opp_pins(d, &c);
	char a[INET6_ADDRSTRLEN], hit[HIP_HIT_STR_LEN], when[32];
	const struct known_host *p;
	size_t i;

	if (!k)
		return control_reply_error(rep, CTL_EFAILED, "the protocol engine is not running");
	if (req->json) {
		control_reply_printf(rep, "{\"file\": ");
		control_reply_json_str(rep, d->conf.known_hosts_file);
		control_reply_printf(rep, ", \"started\": %" PRIu64 ", \"learnt\": %" PRIu64
				     ", \"confirmed\": %" PRIu64 ", \"refused\": %" PRIu64
				     ", \"failed\": %" PRIu64 ", \"under_way\": %" PRIu64
				     ", \"pins\": [", c.started, c.learnt, c.confirmed, c.refused,
				     c.failed, c.under_way);
	} else {
		control_reply_printf(rep, "known hosts (%s): %zu\nopportunistic exchanges: "
				     "started %" PRIu64 " learnt %" PRIu64 " confirmed %" PRIu64
				     " refused %" PRIu64 " failed %" PRIu64 " under way %" PRIu64,
				     d->conf.known_hosts_file[0] ? d->conf.known_hosts_file
								 : "in memory only",
				     known_hosts_count(k), c.started, c.learnt, c.confirmed,
				     c.refused, c.failed, c.under_way);
	}
	for (i = 0; (p = known_hosts_at(k, i)); i++) {
		time_t t = (time_t)p->since;
		struct tm tm;

		hip_addr_to_str(&p->addr, a, sizeof(a));
		hip_hit_to_str(&p->hit, hit, sizeof(hit));
		if (!p->since || !gmtime_r(&t, &tm) ||
		    !strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm))
			snprintf(when, sizeof(when), "unknown");
		if (req->json)
			control_reply_printf(rep, "%s{\"address\": \"%s\", \"hit\": \"%s\", "
					     "\"since\": %" PRIu64 ", \"line\": %u}", i ? ", " : "",
					     a, hit, p->since, p->line);
		else
			control_reply_printf(rep, "\n%s %s since %s", a, hit, when);
	}
	if (req->json)
		control_reply_printf(rep, "]}");
	return CTL_OK;
}

static int cmd_del_pin(const struct control_request *req, struct control_reply *rep, void *arg)
{
	struct hipd *d = arg;
	char a[INET6_ADDRSTRLEN], hit[HIP_HIT_STR_LEN];
	struct hip_addr addr;
	struct hip_hit was;
	int ret;

	if (!d->engine)
		return control_reply_error(rep, CTL_EFAILED, "the protocol engine is not running");
	ret = control_arg_addr(rep, req->argv[0], &addr, hip_addr_locator_problem, "");
	if (ret != CTL_OK)
		return ret;
	hip_addr_to_str(&addr, a, sizeof(a));
	ret = eng_opp_unpin(d, &addr, &was);
	if (ret == -ENOENT)
		return control_reply_error(rep, CTL_ENOENT, "%s is not pinned", a);
	if (ret < 0)
		return control_reply_error(rep, CTL_EFAILED, "removing the pin of %s: %s", a,
					   strerror(-ret));
	hip_hit_to_str(&was, hit, sizeof(hit));
	log_notice("pin of %s for %s removed: its next opportunistic exchange learns anew",
		   hit, a);
	if (req->json)
		control_reply_printf(rep, "{\"result\": \"pin removed\", \"address\": \"%s\", "
				     "\"hit\": \"%s\"}", a, hit);
	else
		control_reply_printf(rep, "pin of %s for %s removed", hit, a);
	return CTL_OK;
}

static const struct control_cmd opp_cmds[] = {
	{ "show pins", "", 0, 0, true, cmd_show_pins,
	  "HITs learnt by opportunistic exchanges, pinned per address (known hosts)" },
	{ "del pin", "IP", 1, 1, false, cmd_del_pin,
	  "forget the HIT pinned for IP: the next opportunistic exchange learns anew" },
};

int eng_opp_control_register(struct hipd *d)
{
	if (!d->control)
		return 0;
	return control_register_table(d->control, opp_cmds, sizeof(opp_cmds) / sizeof(opp_cmds[0]),
				      d);
}
