/*
 * fw_verdict.c - one queued packet, one verdict: the IP and HIP headers
 * are checked (fw_packet.c), a HOST_ID in the clear against the sender's
 * HIT and the signature (fw_verify.c), then the rules decide (fw_rules.c). What
 * fails a check is dropped whatever the rules say, counted by reason and
 * logged at most a few lines a second (the sender chooses how many).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fw_main.h"

static const char *dir_name(enum fw_dir dir)
{
	return dir == FW_DIR_IN ? "in" : dir == FW_DIR_OUT ? "out" : "forward";
}

bool hipfw_decide(struct hipfw *fw, const uint8_t *pkt, size_t len, enum fw_dir dir)
{
	char a[HIP_HIT_STR_LEN], b[HIP_HIT_STR_LEN];
	const struct fw_rule *rule;
	struct fw_packet p;
	struct fw_match m;
	enum fw_action action;
	enum fw_bad why;
	const char *tn;

	why = fw_packet_parse(pkt, len, &p);
	if (why == FW_OK)
		why = fw_verify_host_id(&p);
	if (why != FW_OK) {
		fw->ctr.bad[why]++;
		log_ratelimited(&fw->drop_log, LOG_INFO, "dropped (%s): %s packet of %zu bytes",
				fw_bad_name(why), dir_name(dir), len);
		return false;
	}
	m = (struct fw_match){ .sender = &p.sender, .receiver = &p.receiver, .type = p.type,
			       .dir = dir };
	rule = fw_rules_decide(fw->rules, &m, &action);
	if (action == FW_ALLOW) {
		fw->ctr.accepted++;
		fw->ctr.by_type_accepted[p.type % FW_TYPES]++;
	} else {
		fw->ctr.denied++;
		fw->ctr.by_type_denied[p.type % FW_TYPES]++;
	}
	if (action == FW_DENY || log_enabled(LOG_DEBUG)) {
		tn = fw_type_name(p.type);
		log_ratelimited(&fw->drop_log, action == FW_DENY ? LOG_INFO : LOG_DEBUG,
				"%s %s %s (type %u) %s -> %s by %s%u",
				action == FW_ALLOW ? "allowed" : "denied", dir_name(dir),
				tn ? tn : "HIP", p.type, hip_hit_to_str(&p.sender, a, sizeof(a)),
				hip_hit_to_str(&p.receiver, b, sizeof(b)),
				rule ? "line " : "the default policy, line ",
				rule ? rule->line : fw->rules->policy_line);
	}
	return action == FW_ALLOW;
}

int hipfw_reload(struct hipfw *fw)
{
	char err[FW_ERR_MAX + 64];
	struct fw_rules *fresh;
	int ret;

	fresh = malloc(sizeof(*fresh));
	if (!fresh)
		return -ENOMEM;
	ret = fw_rules_load(fw->rules_path, fresh, err, sizeof(err));
	if (ret < 0) {
		fw->ctr.reload_errors++;
		log_err("rules not reloaded, the old ones stay: %s", err);
		free(fresh);
		return ret;
	}
	free(fw->rules);
	fw->rules = fresh;
	fw->ctr.reloads++;
	log_notice("rules reloaded from %s: %zu rules, default %s", fw->rules_path, fresh->n,
		   fresh->policy == FW_ALLOW ? "allow" : "deny");
	return 0;
}
