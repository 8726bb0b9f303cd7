/*
 * fw_ctl.c - hipfw's control commands, served by hipd's control socket
 * code (hipd/control: framing, SO_PEERCRED, text or JSON answers):
 *
 *     show           verdict counters, drops by reason, per packet type; in
 *                    host mode the kernel's counters of each rule (fw_host.c)
 *     show rules     the rules in force with how many packets each decided
 *     show associations   the tracker's table (middlebox mode)
 *     reload         re-read the rules file (as SIGHUP)
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/control.h"
#include "fw_ipt.h"
#include "fw_main.h"

/* The tracker's counters: "track": {...} in JSON, lines of text otherwise. */
static void show_track(const struct hipfw *fw, struct control_reply *rep)
{
	const struct fw_track_ctr *c = &fw->track.ctr;
	bool json = control_reply_is_json(rep);
	uint64_t esp[FW_ESP_STATS];
	int d;

	fw_esp_rules_stats(fw->esp_rules, esp);
	if (json) {
		control_reply_printf(rep, ", \"track\": {\"enabled\": %s, \"strict\": %s, "
				     "\"associations\": %u, \"max\": %u, \"created\": %" PRIu64
				     ", \"established\": %" PRIu64 ", \"closed\": %" PRIu64
				     ", \"expired\": %" PRIu64 ", \"evicted\": %" PRIu64
				     ", \"updates\": %" PRIu64 ", \"moves\": %" PRIu64
				     ", \"rekeys\": %" PRIu64 ", \"unverified_accepted\": %" PRIu64
				     ", \"esp_accepted\": %" PRIu64 ", \"udp_keepalives\": %" PRIu64
				     ", \"esp_udp_other_port\": %" PRIu64 ", \"udp_rebinds\": %" PRIu64
				     ", \"esp_rules\": %" PRIu64
				     ", \"esp_rules_added\": %" PRIu64 ", \"esp_rules_removed\": %"
				     PRIu64 ", \"esp_rule_errors\": %" PRIu64
				     ", \"esp_rule_runs\": %" PRIu64 ", \"esp_rules_pending\": %"
				     PRIu64 ", \"esp_rule_hold_us\": %" PRIu64
				     ", \"esp_rule_hold_max_us\": %" PRIu64
				     ", \"restored\": %" PRIu64 ", \"confirmed\": %" PRIu64
				     ", \"unconfirmed\": %" PRIu64 ", \"state_saves\": %" PRIu64
				     ", \"state_save_errors\": %" PRIu64 ", \"dropped\": {",
				     fw->tracking ? "true" : "false",
				     fw->track.strict ? "true" : "false", fw->track.used,
				     fw->track.max, c->created, c->established, c->closed,
				     c->expired, c->evicted, c->updates, c->moves, c->rekeys,
				     c->unverified_accepted, fw->ctr.esp_accepted,
				     fw->ctr.udp_keepalives, c->esp_udp_other_port, c->udp_rebinds,
				     esp[0], esp[1],
				     esp[2], esp[3], esp[FW_ESP_RUNS], esp[FW_ESP_PENDING],
				     esp[FW_ESP_HOLD_NS] / 1000, esp[FW_ESP_HOLD_MAX_NS] / 1000,
				     c->restored, c->confirmed, c->unconfirmed,
				     fw->ctr.state_saves, fw->ctr.state_save_errors);
		for (d = FW_TRK_BAD_SIGNATURE; d < FW_TRK_DROP_MAX; d++)
			control_reply_printf(rep, "%s\"%s\": %" PRIu64,
					     d == FW_TRK_BAD_SIGNATURE ? "" : ", ",
					     fw_track_drop_name((enum fw_track_drop)d), c->drop[d]);
		control_reply_printf(rep, "}}");
		return;
	}
	if (!fw->tracking) {
		control_reply_printf(rep, "\ntracker off (--no-track): ESP not filtered");
		return;
	}
	control_reply_printf(rep, "\nassociations %u of %u%s: created %" PRIu64 ", established %"
			     PRIu64 ", closed %" PRIu64 ", expired %" PRIu64 ", evicted %" PRIu64
			     "\nupdates %" PRIu64 ", moves %" PRIu64 ", rekeys %" PRIu64
			     ", unverified accepted %" PRIu64 "\nESP rules %" PRIu64 " (added %"
			     PRIu64 ", removed %" PRIu64 ", runs %" PRIu64 ", failed %" PRIu64
			     ", waiting %" PRIu64 ", longest hold %" PRIu64 " us), ESP accepted "
			     "in userspace %" PRIu64 ", UDP keepalives %" PRIu64 "\nESP in UDP from or "
			     "to other ports than learnt %" PRIu64 ", UDP ports rebound %" PRIu64,
			     fw->track.used,
			     fw->track.max, fw->track.strict ? " (strict)" : "", c->created,
			     c->established, c->closed, c->expired, c->evicted, c->updates,
			     c->moves, c->rekeys, c->unverified_accepted, esp[0], esp[1], esp[2],
			     esp[FW_ESP_RUNS], esp[3], esp[FW_ESP_PENDING],
			     esp[FW_ESP_HOLD_MAX_NS] / 1000, fw->ctr.esp_accepted,
			     fw->ctr.udp_keepalives, c->esp_udp_other_port, c->udp_rebinds);
	if (fw->state_dir || c->restored)
		control_reply_printf(rep, "\nstate file in %s: written %" PRIu64 " times (%" PRIu64
				     " failed); restored %" PRIu64 ", confirmed %" PRIu64
				     ", unconfirmed and forgotten %" PRIu64,
				     fw->state_dir ? fw->state_dir : "(none)", fw->ctr.state_saves,
				     fw->ctr.state_save_errors, c->restored, c->confirmed,
				     c->unconfirmed);
	control_reply_printf(rep, "\ntracker dropped:");
	for (d = FW_TRK_BAD_SIGNATURE; d < FW_TRK_DROP_MAX; d++)
		control_reply_printf(rep, " %s %" PRIu64, fw_track_drop_name((enum fw_track_drop)d),
				     c->drop[d]);
}

/* Host mode's counters, from the kernel: NULL when off or unreadable
 * (logged); the caller frees. */
static struct fw_host_counts *host_counts(const struct hipfw *fw)
{
	struct fw_host_counts *hc;
	int ret;

	if (!fw->host || !fw->host_prog)
		return NULL;
	hc = malloc(sizeof(*hc));
	if (!hc)
		return NULL;
	ret = fw_ipt_host_counts(fw->host_prog, &fw->host_map, hc);
	if (ret < 0) {
		log_warn("host mode: counters not read from %s-save: %s", fw->host_prog,
			 strerror(-ret));
		free(hc);
		return NULL;
	}
	return hc;
}

/* "host": {...} in JSON: per rule (by line) the packets the kernel's
 * chains decided; lines of text otherwise. */
static void show_host(const struct hipfw *fw, struct control_reply *rep)
{
	bool json = control_reply_is_json(rep);
	struct fw_host_counts *hc = host_counts(fw);
	const struct fw_rules *r = fw->rules;
	bool first = true;
	size_t i;

	if (json) {
		control_reply_printf(rep, ", \"host\": {\"enabled\": %s", fw->host ? "true" :
				     "false");
		if (fw->host)
			control_reply_printf(rep, ", \"kernel_rules\": %zu, \"counters\": %s",
					     fw->host_map.n[0] + fw->host_map.n[1],
					     hc ? "true" : "false");
		if (hc) {
			control_reply_printf(rep, ", \"established\": %" PRIu64 ", \"default\": %"
					     PRIu64 ", \"rules\": [", hc->established, hc->policy);
			for (i = 0; i < r->n; i++) {
				const struct fw_rule *x = &r->rule[i];

				if (x->hip_only)
					continue;
				control_reply_printf(rep, "%s{\"line\": %u, \"action\": \"%s\", "
						     "\"packets\": %" PRIu64 "}", first ? "" : ", ",
						     x->line, x->action == FW_ALLOW ? "allow" :
						     "deny", hc->rule[i]);
				first = false;
			}
			control_reply_printf(rep, "]");
		}
		control_reply_printf(rep, "}");
		free(hc);
		return;
	}
	if (!fw->host)
		return;
	control_reply_printf(rep, "\nhost mode: %zu kernel rules in %s and %s",
			     fw->host_map.n[0] + fw->host_map.n[1], FW_HOST_IN_CHAIN,
			     FW_HOST_OUT_CHAIN);
	if (!hc) {
		control_reply_printf(rep, " (counters not readable, see the log)");
		return;
	}
	control_reply_printf(rep, "; of connections allowed before %" PRIu64 ", by the default %"
			     PRIu64 " packets", hc->established, hc->policy);
	for (i = 0; i < r->n; i++)
		if (!r->rule[i].hip_only)
			control_reply_printf(rep, "\n  line %u (%s): %" PRIu64 " packets",
					     r->rule[i].line, r->rule[i].action == FW_ALLOW ?
					     "allow" : "deny", hc->rule[i]);
	free(hc);
}

static int cmd_show(const struct control_request *req, struct control_reply *rep, void *arg)
{
	const struct hipfw *fw = arg;
	const struct hipfw_counters *c = &fw->ctr;
	const char *tn;
	char key[16];
	bool first = true;
	unsigned t;
	int b;

	if (control_reply_is_json(rep)) {
		control_reply_printf(rep, "{\"accepted\": %" PRIu64 ", \"denied\": %" PRIu64
				     ", \"dropped\": {", c->accepted, c->denied);
		for (b = FW_BAD_IP; b < FW_BAD_MAX; b++)
			control_reply_printf(rep, "%s\"%s\": %" PRIu64, b == FW_BAD_IP ? "" : ", ",
					     fw_bad_name((enum fw_bad)b), c->bad[b]);
		control_reply_printf(rep, "}, \"types\": {");
		for (t = 0; t < FW_TYPES; t++) {
			if (!c->by_type_accepted[t] && !c->by_type_denied[t])
				continue;
			tn = fw_type_name((uint8_t)t);
			if (tn)
				snprintf(key, sizeof(key), "%s", tn);
			else
				snprintf(key, sizeof(key), "type %u", t);
			control_reply_printf(rep, "%s\"%s\": {\"accepted\": %" PRIu64
					     ", \"denied\": %" PRIu64 ", \"us\": %" PRIu64 "}",
					     first ? "" : ", ", key, c->by_type_accepted[t],
					     c->by_type_denied[t], c->ns_by_type[t] / 1000);
			first = false;
		}
		control_reply_printf(rep, "}, \"rules\": %zu, \"reloads\": %" PRIu64
				     ", \"reload_errors\": %" PRIu64 ", \"verify_cache\": "
				     "{\"r1_verified\": %" PRIu64 ", \"r1_hits\": %" PRIu64
				     ", \"host_id_hits\": %" PRIu64 "}",
				     fw->rules->n, c->reloads, c->reload_errors,
				     fw->r1_verified.misses, fw->r1_verified.hits,
				     fw->r1_verified.hi_hits);
		control_reply_printf(rep, ", \"queues\": {\"first\": %u, \"last\": %u}",
				     fw->queue_first, fw_queue_last(fw->queue_first, fw->queues));
		control_reply_printf(rep, ", \"busy_poll\": {\"max_us\": %" PRIu64
				     ", \"polls\": %" PRIu64 ", \"found\": %" PRIu64
				     ", \"us\": %" PRIu64 ", \"over_budget\": %" PRIu64 "}",
				     fw->busy_poll_ns / 1000, c->busy_polls, c->busy_poll_found,
				     c->busy_poll_ns / 1000, c->busy_poll_over_budget);
		show_track(fw, rep);
		show_host(fw, rep);
		control_reply_printf(rep, "}");
		return CTL_OK;
	}
	control_reply_printf(rep, "accepted %" PRIu64 ", denied %" PRIu64 "\ndropped:", c->accepted,
			     c->denied);
	for (b = FW_BAD_IP; b < FW_BAD_MAX; b++)
		control_reply_printf(rep, " %s %" PRIu64, fw_bad_name((enum fw_bad)b), c->bad[b]);
	for (t = 0; t < FW_TYPES; t++) {
		if (!c->by_type_accepted[t] && !c->by_type_denied[t])
			continue;
		tn = fw_type_name((uint8_t)t);
		if (tn)
			control_reply_printf(rep, "\n%-10s accepted %" PRIu64 ", denied %" PRIu64, tn,
					     c->by_type_accepted[t], c->by_type_denied[t]);
		else
			control_reply_printf(rep, "\ntype %-5u accepted %" PRIu64 ", denied %" PRIu64,
					     t, c->by_type_accepted[t], c->by_type_denied[t]);
		control_reply_printf(rep, ", %.1f us each",
				     (double)c->ns_by_type[t] / 1000.0 /
				     (double)(c->by_type_accepted[t] + c->by_type_denied[t]));
	}
	control_reply_printf(rep, "\nrules %zu, reloads %" PRIu64 " (%" PRIu64 " refused)"
			     "\nR1s verified %" PRIu64 ", found verified before %" PRIu64
			     ", HOST_IDs found decoded before %" PRIu64,
			     fw->rules->n, c->reloads, c->reload_errors, fw->r1_verified.misses,
			     fw->r1_verified.hits, fw->r1_verified.hi_hits);
	if (fw->queues > 1)
		control_reply_printf(rep, "\nqueues %u-%u", fw->queue_first, fw_queue_last(fw->queue_first, fw->queues));
	else
		control_reply_printf(rep, "\nqueue %u", fw->queue_first);
	if (fw->busy_poll_ns)
		control_reply_printf(rep, "\nbusy poll up to %" PRIu64 " us: %" PRIu64
				     " polls found %" PRIu64 " packets in %" PRIu64
				     " us, %" PRIu64 " not made (over budget)",
				     fw->busy_poll_ns / 1000, c->busy_polls, c->busy_poll_found,
				     c->busy_poll_ns / 1000, c->busy_poll_over_budget);
	else
		control_reply_printf(rep, "\nbusy poll off");
	show_track(fw, rep);
	show_host(fw, rep);
	return CTL_OK;
}

static void end_json(struct control_reply *rep, const char *name, const struct fw_track_end *e)
{
	char s[INET6_ADDRSTRLEN];

	control_reply_printf(rep, "\"%s\": {\"hit\": \"%s\", \"hi_known\": %s, \"locator\": ",
			     name, hip_hit_to_str(&e->hit, s, sizeof(s)), e->hi ? "true" : "false");
	control_reply_json_str(rep, e->have_loc ? hip_addr_to_str(&e->loc, s, sizeof(s)) : "");
	control_reply_printf(rep, ", \"locator_next\": ");
	control_reply_json_str(rep, e->have_loc_next ? hip_addr_to_str(&e->loc_next, s, sizeof(s))
			       : "");
	control_reply_printf(rep, ", \"udp_port\": %u, \"udp_port_next\": %u, \"spi\": %u, "
			     "\"spi_next\": %u, \"lsi_spi\": %u, \"lsi_spi_offered\": %u, "
			     "\"packets\": %" PRIu64 "}", e->udp_port, e->udp_port_next, e->spi,
			     e->spi_next, e->lsi_spi, e->lsi_spi_offer, e->packets);
}

static void end_text(struct control_reply *rep, const char *name, const struct fw_track_end *e)
{
	char h[HIP_HIT_STR_LEN], l[INET6_ADDRSTRLEN], n[INET6_ADDRSTRLEN];

	control_reply_printf(rep, "\n  %s %s at %s%s%s, SPI 0x%08x", name,
			     hip_hit_to_str(&e->hit, h, sizeof(h)),
			     e->have_loc ? hip_addr_to_str(&e->loc, l, sizeof(l)) : "?",
			     e->have_loc_next ? " (moving to " : "",
			     e->have_loc_next ? hip_addr_to_str(&e->loc_next, n, sizeof(n)) : "",
			     e->spi);
	if (e->have_loc_next && e->udp_port_next)
		control_reply_printf(rep, " port %u)", e->udp_port_next);
	else if (e->have_loc_next)
		control_reply_printf(rep, ")");
	if (e->udp_port)
		control_reply_printf(rep, " (UDP port %u)", e->udp_port);
	if (e->spi_next)
		control_reply_printf(rep, " (next 0x%08x)", e->spi_next);
	if (e->lsi_spi)
		control_reply_printf(rep, ", LSI SPI 0x%08x", e->lsi_spi);
	if (e->lsi_spi_offer)
		control_reply_printf(rep, ", LSI SPI 0x%08x offered", e->lsi_spi_offer);
	control_reply_printf(rep, ", HI %s, %" PRIu64 " packets", e->hi ? "known" : "unknown",
			     e->packets);
}

static int cmd_show_assoc(const struct control_request *req, struct control_reply *rep,
			  void *arg)
{
	const struct hipfw *fw = arg;
	const struct fw_assoc *a;
	bool json = control_reply_is_json(rep);
	uint32_t i = 0;
	unsigned k = 0;

	if (json)
		control_reply_printf(rep, "[");
	while (fw->tracking && (a = fw_track_at(&fw->track, &i)) != NULL) {
		if (json) {
			control_reply_printf(rep, "%s{\"state\": \"%s\", \"unverified\": %s, "
					     "\"probation\": %s, ", k ? ", " : "",
					     fw_track_state_name(a->state),
					     a->unverified ? "true" : "false",
					     a->probation_ns ? "true" : "false");
			end_json(rep, "initiator", &a->end[0]);
			control_reply_printf(rep, ", ");
			end_json(rep, "responder", &a->end[1]);
			control_reply_printf(rep, "}");
		} else {
			control_reply_printf(rep, "%s%s%s%s", k ? "\n" : "",
					     fw_track_state_name(a->state),
					     a->unverified ? " (an I2 not verified)" : "",
					     a->probation_ns ? " (restored, not yet confirmed)" :
					     "");
			end_text(rep, "initiator", &a->end[0]);
			end_text(rep, "responder", &a->end[1]);
		}
		k++;
	}
	if (json)
		control_reply_printf(rep, "]");
	else if (!k)
		control_reply_printf(rep, "no associations");
	return CTL_OK;
}

static void rule_hit(struct control_reply *rep, const char *label, bool any,
		     const struct hip_hit *hit)
{
	char s[HIP_HIT_STR_LEN];

	control_reply_printf(rep, " %s %s", label, any ? "any" : hip_hit_to_str(hit, s, sizeof(s)));
}

static int cmd_show_rules(const struct control_request *req, struct control_reply *rep,
			  void *arg)
{
	const struct hipfw *fw = arg;
	const struct fw_rules *r = fw->rules;
	char s[HIP_HIT_STR_LEN];
	size_t i;

	if (control_reply_is_json(rep)) {
		control_reply_printf(rep, "{\"default\": \"%s\", \"default_hits\": %" PRIu64
				     ", \"rules\": [", r->policy == FW_ALLOW ? "allow" : "deny",
				     r->policy_hits);
		for (i = 0; i < r->n; i++) {
			const struct fw_rule *x = &r->rule[i];

			control_reply_printf(rep, "%s{\"line\": %u, \"action\": \"%s\", \"from\": ",
					     i ? ", " : "", x->line,
					     x->action == FW_ALLOW ? "allow" : "deny");
			control_reply_json_str(rep, x->any_from ? "any" :
					       hip_hit_to_str(&x->from, s, sizeof(s)));
			control_reply_printf(rep, ", \"to\": ");
			control_reply_json_str(rep, x->any_to ? "any" :
					       hip_hit_to_str(&x->to, s, sizeof(s)));
			control_reply_printf(rep, ", \"dirs\": %u, \"for\": \"%s\", \"hits\": %"
					     PRIu64 "}", x->dirs, x->hip_only ? "hip" :
					     x->data_only ? "traffic" : "both", x->hits);
		}
		control_reply_printf(rep, "]}");
		return CTL_OK;
	}
	control_reply_printf(rep, "default %s (%" PRIu64 " packets)",
			     r->policy == FW_ALLOW ? "allow" : "deny", r->policy_hits);
	for (i = 0; i < r->n; i++) {
		const struct fw_rule *x = &r->rule[i];

		control_reply_printf(rep, "\nline %u: %s", x->line,
				     x->action == FW_ALLOW ? "allow" : "deny");
		rule_hit(rep, "from", x->any_from, &x->from);
		rule_hit(rep, "to", x->any_to, &x->to);
		if (x->data_only)
			control_reply_printf(rep, " (traffic between HITs: its packets in show)");
		else
			control_reply_printf(rep, " (%" PRIu64 " HIP packets)", x->hits);
	}
	return CTL_OK;
}

static int cmd_reload(const struct control_request *req, struct control_reply *rep, void *arg)
{
	struct hipfw *fw = arg;

	if (hipfw_reload(fw) < 0)
		return control_reply_error(rep, CTL_EFAILED, "rules not reloaded (see the log); "
					   "the old rules stay");
	control_reply_printf(rep, "%zu rules", fw->rules->n);
	return CTL_OK;
}

static const struct control_cmd fw_cmds[] = {
	{ "show", "", 0, 0, true, cmd_show, "verdict counters" },
	{ "show rules", "", 0, 0, true, cmd_show_rules, "the rules and their packet counts" },
	{ "show associations", "", 0, 0, true, cmd_show_assoc, "the associations tracked" },
	{ "reload", "", 0, 0, false, cmd_reload, "re-read the rules file" },
};

int hipfw_ctl_register(struct control *c, struct hipfw *fw)
{
	return control_register_table(c, fw_cmds, sizeof(fw_cmds) / sizeof(fw_cmds[0]), fw);
}
