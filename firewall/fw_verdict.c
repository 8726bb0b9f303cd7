/*
 * fw_verdict.c - one queued packet, one verdict: the IP and HIP headers
 * are checked (fw_packet.c), a HOST_ID in the clear against the sender's
 * HIT and the signature (fw_verify.c), then the rules decide (fw_rules.c),
 * then the tracker (fw_track.c, middlebox mode) follows the association. What
 * fails a check is dropped whatever the rules say, counted by reason and
 * logged at most a few lines a second (the sender chooses how many). ESP
 * reaches us only when no kernel rule of a learnt SPI matched it (fw_esp.c).
 * On the HIP UDP port (RFC 9028 §5.1) the payload says which: HIP behind a
 * zero marker is judged as raw HIP, a keepalive passes, the rest is ESP in
 * UDP judged by its SPI as raw ESP.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "fw_main.h"

static const char *dir_name(enum fw_dir dir)
{
	return dir == FW_DIR_IN ? "in" : dir == FW_DIR_OUT ? "out" : "forward";
}

static bool decide_esp(struct hipfw *fw, const struct fw_esp *e, enum fw_dir dir)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];

	if (e->keepalive) {
		fw->ctr.udp_keepalives++;
		return true;
	}
	if (!fw->tracking || fw_track_esp_udp(&fw->track, &e->src, &e->dst, e->spi, e->sport,
					      e->dport) == FW_TRK_OK) {
		fw->ctr.esp_accepted++;
		return true;
	}
	log_ratelimited(&fw->drop_log, LOG_INFO, "dropped (%s): %s ESP%s SPI 0x%08x %s -> %s",
			fw_track_drop_name(FW_TRK_ESP_UNKNOWN), dir_name(dir),
			e->dport ? " in UDP" : "", e->spi,
			hip_addr_to_str(&e->src, a, sizeof(a)), hip_addr_to_str(&e->dst, b, sizeof(b)));
	return false;
}

/* The tracker's word on a packet the rules allowed. */
static bool tracked(struct hipfw *fw, const struct fw_packet *p, struct hip_hi *hi,
		    enum fw_dir dir)
{
	char a[HIP_HIT_STR_LEN], b[HIP_HIT_STR_LEN];
	enum fw_track_drop why;

	if (!fw->tracking)
		return true;
	why = fw_track_hip(&fw->track, p, hi, hipd_now_ns());
	if (why == FW_TRK_OK)
		return true;
	log_ratelimited(&fw->drop_log, LOG_INFO, "dropped (%s): %s %s %s -> %s",
			fw_track_drop_name(why), dir_name(dir), hip_packet_type_name(p->type),
			hip_hit_to_str(&p->sender, a, sizeof(a)),
			hip_hit_to_str(&p->receiver, b, sizeof(b)));
	return false;
}

bool hipfw_decide(struct hipfw *fw, const uint8_t *pkt, size_t len, enum fw_dir dir)
{
	char a[HIP_HIT_STR_LEN], b[HIP_HIT_STR_LEN];
	const struct fw_rule *rule;
	struct hip_hi *hi = NULL;
	struct fw_packet p;
	struct fw_esp esp;
	struct fw_match m;
	enum fw_action action;
	enum fw_bad why;
	const char *tn;
	uint64_t t0 = hipd_now_ns();

	why = fw_esp_parse_udp(pkt, len, fw->udp_port, &esp);
	if (why == FW_OK)
		return decide_esp(fw, &esp, dir);
	if (why == FW_NOT_HIP)
		why = fw_packet_parse_udp(pkt, len, fw->udp_port, &p);
	if (why == FW_OK)
		why = fw_verify_host_id_cached(&p, &fw->r1_verified, &hi);
	if (why != FW_OK) {
		fw->ctr.bad[why]++;
		log_ratelimited(&fw->drop_log, LOG_INFO, "dropped (%s): %s packet of %zu bytes",
				fw_bad_name(why), dir_name(dir), len);
		return false;
	}
	m = (struct fw_match){ .sender = &p.sender, .receiver = &p.receiver, .type = p.type,
			       .dir = dir };
	rule = fw_rules_decide(fw->rules, &m, &action);
	if (action == FW_ALLOW && !tracked(fw, &p, hi, dir)) {
		hip_hi_free(hi);
		return false;
	}
	hip_hi_free(hi);
	fw->ctr.ns_by_type[p.type % FW_TYPES] += hipd_now_ns() - t0;
	if (action == FW_ALLOW) {
		fw->answer_awaited |= p.type == HIP_I1 || p.type == HIP_R1 || p.type == HIP_I2 ||
				      p.type == HIP_UPDATE || p.type == HIP_CLOSE;
		fw->answer_last |= p.type == HIP_R2 || p.type == HIP_CLOSE_ACK;
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
	/* host mode: the kernel's chains first; refused, nothing changes */
	if (fw->host_apply && fw->host_apply(fw, fresh) != 0) {
		fw->ctr.reload_errors++;
		log_err("rules not reloaded, the old ones stay: %s refused the host mode rules",
			fw->host_prog ? fw->host_prog : "ip6tables");
		free(fresh);
		return -EIO;
	}
	free(fw->rules);
	fw->rules = fresh;
	fw->ctr.reloads++;
	log_notice("rules reloaded from %s: %zu rules, default %s", fw->rules_path, fresh->n,
		   fresh->policy == FW_ALLOW ? "allow" : "deny");
	return 0;
}
