/*
 * fw_ctl.c - hipfw's control commands, served by hipd's control socket
 * code (hipd/control: framing, SO_PEERCRED, text or JSON answers):
 *
 *     show           verdict counters, drops by reason, per packet type
 *     show rules     the rules in force with how many packets each decided
 *     reload         re-read the rules file (as SIGHUP)
 */
#include <inttypes.h>
#include <stdio.h>

#include "control/control.h"
#include "fw_main.h"

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
					     ", \"denied\": %" PRIu64 "}", first ? "" : ", ", key,
					     c->by_type_accepted[t], c->by_type_denied[t]);
			first = false;
		}
		control_reply_printf(rep, "}, \"rules\": %zu, \"reloads\": %" PRIu64
				     ", \"reload_errors\": %" PRIu64 "}", fw->rules->n, c->reloads,
				     c->reload_errors);
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
	}
	control_reply_printf(rep, "\nrules %zu, reloads %" PRIu64 " (%" PRIu64 " refused)",
			     fw->rules->n, c->reloads, c->reload_errors);
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
			control_reply_printf(rep, ", \"dirs\": %u, \"hits\": %" PRIu64 "}", x->dirs,
					     x->hits);
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
		control_reply_printf(rep, " (%" PRIu64 " packets)", x->hits);
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
	{ "reload", "", 0, 0, false, cmd_reload, "re-read the rules file" },
};

int hipfw_ctl_register(struct control *c, struct hipfw *fw)
{
	return control_register_table(c, fw_cmds, sizeof(fw_cmds) / sizeof(fw_cmds[0]), fw);
}
