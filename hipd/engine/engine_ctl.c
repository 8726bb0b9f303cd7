/*
 * engine_ctl.c - the engine's hipconf commands: show hi, show associations,
 * show stats, trigger, close, set puzzle. Text for people, one JSON value
 * with --json. Never any key material: identities are shown by HIT and the
 * SHA-256 fingerprint of the public key. LSIs (ours and the peers') are
 * handed out by the hosts map on first use (docs/decisions.md D-20).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/control.h"
#include "datapath/datapath.h"
#include "engine_int.h"
#include "engine/exchange/exchange.h"
#include "hit.h"
#include "engine/assoc/assoc.h"
#include "engine/update/update.h"
#include "net/net.h"

static const char *dh_group_name(uint8_t g)
{
	switch (g) {
	case HIP_DH_MODP_1536: return "MODP-1536";
	case HIP_DH_MODP_3072: return "MODP-3072";
	case HIP_DH_NIST_P256: return "NIST-P256";
	case HIP_DH_NIST_P384: return "NIST-P384";
	case 0:                return "-";
	default:               return "unknown";
	}
}

static const char *hip_cipher_name(uint16_t c)
{
	switch (c) {
	case HIP_CIPHER_NULL:        return "NULL";
	case HIP_CIPHER_AES_128_CBC: return "AES-128-CBC";
	case HIP_CIPHER_AES_256_CBC: return "AES-256-CBC";
	case 0:                      return "-";
	default:                     return "unknown";
	}
}

static const char *esp_suite_name(uint16_t s)
{
	switch (s) {
	case HIP_ESP_AES128_CBC_SHA1:   return "AES-128-CBC/HMAC-SHA1";
	case HIP_ESP_NULL_SHA256:       return "NULL/HMAC-SHA256";
	case HIP_ESP_AES128_CBC_SHA256: return "AES-128-CBC/HMAC-SHA256";
	case HIP_ESP_AES256_CBC_SHA256: return "AES-256-CBC/HMAC-SHA256";
	case HIP_ESP_AES_GCM_8:         return "AES-GCM-8";
	case HIP_ESP_AES_GCM_16:        return "AES-GCM-16";
	case 0:                         return "-";
	default:                        return "unknown";
	}
}

static int engine_gone(struct hipd *d, struct control_reply *rep)
{
	if (d->engine)
		return 0;
	return control_reply_error(rep, CTL_EFAILED, "the protocol engine is not running");
}

/* hit's LSI as text (D-20), "-" if it has none (the range was full). A
 * look-up only: LSIs are given at engine start (ours), when the hosts file
 * loads and when an association starts, never by a show command. */
static const char *lsi_text(struct hipd *d, const struct hip_hit *hit, char *buf, size_t len)
{
	struct in_addr a;

	if (!d->hosts || hosts_lsi_find(d->hosts, hit, &a, NULL) != 0 ||
	    !inet_ntop(AF_INET, &a, buf, len))
		snprintf(buf, len, "-");
	return buf;
}

/* ---- show hi ------------------------------------------------------------- */

static int cmd_show_hi(const struct control_request *req, struct control_reply *rep, void *arg)
{
	struct hipd *d = arg;
	char hit[HIP_HIT_STR_LEN], fp_hex[65], ls[INET_ADDRSTRLEN];
	uint8_t fp[32];
	struct hidb_entry *me;
	size_t i, j;

	if (engine_gone(d, rep))
		return CTL_EFAILED;
	if (req->json)
		control_reply_printf(rep, "{\"identities\": [");
	for (i = 0; (me = hidb_at(d->hidb, i)); i++) {
		hip_hit_to_str(&me->hit, hit, sizeof(hit));
		if (hip_hi_fingerprint(me->hi, fp) < 0)
			memset(fp, 0, sizeof(fp));
		for (j = 0; j < sizeof(fp); j++)
			snprintf(fp_hex + 2 * j, 3, "%02x", fp[j]);
		lsi_text(d, &me->hit, ls, sizeof(ls));
		if (req->json)
			control_reply_printf(rep, "%s{\"hit\": \"%s\", \"algorithm\": \"%s\", "
					     "\"hit_suite\": %u, \"fingerprint_sha256\": \"%s\", "
					     "\"lsi\": \"%s\"}", i ? ", " : "", hit,
					     hip_hi_kind_name(hip_hi_kind(me->hi)),
					     (unsigned)me->suite, fp_hex, ls);
		else
			control_reply_printf(rep, "%s%s  %s  suite %u  sha256:%s  lsi %s",
					     i ? "\n" : "", hit,
					     hip_hi_kind_name(hip_hi_kind(me->hi)),
					     (unsigned)me->suite, fp_hex, ls);
	}
	if (req->json)
		control_reply_printf(rep, "]}");
	return CTL_OK;
}

/* ---- show associations ------------------------------------------------------ */

struct ha_list_ctx {
	struct hipd *d;
	struct control_reply *rep;
	bool json;
	unsigned n;
	uint64_t now;
};

/* How the peer is reached: "checking" (ICE-HIP-UDP, RFC 9028 §4.6: no
 * SAs yet), "relayed" (HIP through our control relay), "data-relay" (HIP
 * and ESP through a data relay server, §4.12), else "direct". */
static const char *ha_path(const struct hip_ha *ha)
{
	return ha->ice_pending ? "checking" : ha->relay_port ? "relayed" :
	       ha->data_relayed ? "data-relay" : "direct";
}

/* The inbound SA's drops (RFC 4303 §3.4.3 replays, §3.4.4 ICVs), from the
 * datapath; zero when it has none. */
static void ha_esp_drops(struct hipd *d, const struct hip_ha *ha, struct hip_esp_sa_stats *st)
{
	struct datapath *dp = d->engine->dp;

	memset(st, 0, sizeof(*st));
	if (dp && ha->dp_spi_in && dp->ops->sa_stats(dp, ha->dp_spi_in, true, st) < 0)
		memset(st, 0, sizeof(*st));
}

/* The connectivity checks' pairs (RFC 9028 §4.6), while they run and
 * after: JSON "ice_pairs" (strings, so that an association stays one flat
 * object), text one line each. */
static void ha_ice_pairs(struct control_reply *rep, bool json, const struct hip_ha *ha)
{
	struct upd_ice_pair_info p[UPD_ICE_PAIRS_MAX];
	char la[INET6_ADDRSTRLEN], pa[INET6_ADDRSTRLEN];
	size_t i, n = upd_ice_pairs(ha, p, UPD_ICE_PAIRS_MAX);

	if (json)
		control_reply_printf(rep, ", \"ice\": \"%s\", \"ice_pairs\": [",
				     upd_ice_state(ha) ? upd_ice_state(ha) : "none");
	else if (n)
		control_reply_printf(rep, "\n  connectivity checks: %s", upd_ice_state(ha));
	for (i = 0; i < n; i++) {
		hip_addr_to_str(&p[i].local, la, sizeof(la));
		hip_addr_to_str(&p[i].peer, pa, sizeof(pa));
		control_reply_printf(rep, json ? "%s\"%s -> %s port %u %s %s checks %u%s\"" :
				     "%s\n    %s -> %s port %u (%s): %s, %u checks%s",
				     json && i ? ", " : "", la, pa, p[i].port, p[i].kind, p[i].state,
				     p[i].checks, p[i].nominated ? json ? " nominated" :
				     ", nominated" : "");
	}
	if (json)
		control_reply_printf(rep, "]");
}

static int show_one_ha(struct hip_ha *ha, void *arg)
{
	struct ha_list_ctx *c = arg;
	struct hip_esp_sa_stats in;
	char lh[HIP_HIT_STR_LEN], ph[HIP_HIT_STR_LEN];
	char la[INET6_ADDRSTRLEN], pa[INET6_ADDRSTRLEN];
	char ll[INET_ADDRSTRLEN], pl[INET_ADDRSTRLEN];
	uint64_t age_s = (c->now - ha->t_created_ns) / ENG_NS_PER_S;
	uint64_t bex_us = ha->initiator && ha->t_established_ns > ha->t_i1_ns ?
			  (ha->t_established_ns - ha->t_i1_ns) / 1000 : 0;

	hip_hit_to_str(&ha->hit_local, lh, sizeof(lh));
	hip_hit_to_str(&ha->hit_peer, ph, sizeof(ph));
	hip_addr_to_str(&ha->addr_local, la, sizeof(la));
	hip_addr_to_str(&ha->addr_peer, pa, sizeof(pa));
	ha_esp_drops(c->d, ha, &in);
	lsi_text(c->d, &ha->hit_local, ll, sizeof(ll));
	lsi_text(c->d, &ha->hit_peer, pl, sizeof(pl));
	if (c->json) {
		control_reply_printf(c->rep, "%s{\"state\": \"%s\", \"role\": \"%s\", "
				     "\"local_hit\": \"%s\", \"peer_hit\": \"%s\", "
				     "\"local_locator\": \"%s\", \"peer_locator\": \"%s\", "
				     "\"spi_in\": %" PRIu32 ", \"spi_out\": %" PRIu32 ", "
				     "\"dh_group\": %u, \"hip_cipher\": \"%s\", "
				     "\"esp_suite\": \"%s\", \"age_s\": %" PRIu64 ", "
				     "\"packets_in\": %" PRIu64 ", \"packets_out\": %" PRIu64
				     ", \"bex_us\": %" PRIu64 ", \"update\": \"%s\", "
				     "\"transport\": \"%s\", \"peer_port\": %u, "
				     "\"keepalive_age_s\": %" PRId64 ", \"path\": \"%s\", "
				     "\"nat_mode\": %u, \"liveness\": \"%s\", "
				     "\"esp_replay_drops\": %" PRIu64 ", \"esp_auth_drops\": %" PRIu64
				     ", \"lsi\": \"%s\", \"local_lsi\": \"%s\", \"lsi_spi_in\": %"
				     PRIu32 ", \"lsi_spi_out\": %" PRIu32,
				     c->n ? ", " : "", hip_state_name(ha->state),
				     ha->initiator ? "initiator" : "responder", lh, ph, la, pa,
				     ha->spi_in, ha->spi_out, ha->dh_group,
				     hip_cipher_name(ha->hip_cipher), esp_suite_name(ha->esp_suite),
				     age_s, ha->pkts_in, ha->pkts_out, bex_us,
				     upd_activity(ha), ha->peer_port ? "udp" : "ip", ha->peer_port,
				     ha->t_keepalive_ns ? (int64_t)((c->now - ha->t_keepalive_ns) /
								    ENG_NS_PER_S) : (int64_t)-1,
				     ha_path(ha), ha->nat_mode, upd_liveness(ha), in.replay_drops,
				     in.auth_drops, pl, ll, ha->lsi ? ha->lsi->dp_spi_in : 0,
				     ha->lsi ? ha->lsi->dp_spi_out : 0);
		ha_ice_pairs(c->rep, true, ha);
		control_reply_printf(c->rep, "}");
	} else {
		control_reply_printf(c->rep, "%s%s %s\n  local %s at %s\n  peer  %s at %s\n"
				     "  spi in 0x%08" PRIx32 " out 0x%08" PRIx32 "  dh %s  "
				     "cipher %s  esp %s\n  age %" PRIu64 " s  packets in %" PRIu64
				     " out %" PRIu64, c->n ? "\n" : "", hip_state_name(ha->state),
				     ha->initiator ? "(initiator)" : "(responder)", lh, la, ph, pa,
				     ha->spi_in, ha->spi_out, dh_group_name(ha->dh_group),
				     hip_cipher_name(ha->hip_cipher), esp_suite_name(ha->esp_suite),
				     age_s, ha->pkts_in, ha->pkts_out);
		if (bex_us)
			control_reply_printf(c->rep, "  bex %" PRIu64 ".%03" PRIu64 " ms",
					     bex_us / 1000, bex_us % 1000);
		control_reply_printf(c->rep, "\n  lsi local %s peer %s", ll, pl);
		if (ha->lsi && ha->lsi->dp_spi_out)   /* D-22: IPv4 has its SA pair */
			control_reply_printf(c->rep, "  spi in 0x%08" PRIx32 " out 0x%08" PRIx32,
					     ha->lsi->dp_spi_in, ha->lsi->dp_spi_out);
		if (ha->peer_port)
			control_reply_printf(c->rep, "\n  over UDP to port %u (NAT traversal, %s), "
					     "keepalive %s", ha->peer_port, ha_path(ha),
					     ha->t_keepalive_ns ? "sent" : "not needed yet");
		ha_ice_pairs(c->rep, false, ha);
		if (strcmp(upd_liveness(ha), "ok") != 0)
			control_reply_printf(c->rep, "\n  liveness: %s", upd_liveness(ha));
		if (in.replay_drops || in.auth_drops)
			control_reply_printf(c->rep, "\n  ESP dropped: %" PRIu64 " replayed, %" PRIu64
					     " failed the ICV", in.replay_drops, in.auth_drops);
		if (ha->upd && strcmp(upd_activity(ha), "idle") != 0)
			control_reply_printf(c->rep, "\n  update: %s", upd_activity(ha));
	}
	c->n++;
	return 0;
}

static int cmd_show_associations(const struct control_request *req, struct control_reply *rep,
				 void *arg)
{
	struct hipd *d = arg;
	struct ha_list_ctx c = { .d = d, .rep = rep, .json = req->json, .now = hipd_now_ns() };

	if (engine_gone(d, rep))
		return CTL_EFAILED;
	if (c.json)
		control_reply_printf(rep, "{\"associations\": [");
	hadb_foreach(d->hadb, show_one_ha, &c);
	if (c.json)
		control_reply_printf(rep, "]}");
	else if (c.n == 0)
		control_reply_printf(rep, "no associations");
	return CTL_OK;
}

/* ---- show stats ---------------------------------------------------------------- */

static void stats_packets(struct control_reply *rep, bool json, const char *what,
			  const uint64_t *v, size_t n)
{
	size_t i;
	unsigned k = 0;

	control_reply_printf(rep, json ? ", \"%s\": {" : "\n%s:", what);
	for (i = 1; i < n; i++) {
		const char *name = hip_packet_type_name((uint8_t)i);

		if (!strcmp(name, "UNKNOWN"))
			continue;
		control_reply_printf(rep, json ? "%s\"%s\": %" PRIu64 : "%s %s %" PRIu64,
				     json && k ? ", " : "", name, v[i]);
		k++;
	}
	if (json)
		control_reply_printf(rep, "}");
}

/* The datapath's own counters (datapath_ops.counters): an object by name
 * in JSON, null where it keeps none in this process (the kernel's, or
 * none at all). */
static void stats_datapath(struct control_reply *rep, bool json, struct datapath *dp)
{
	struct datapath_counter c[DATAPATH_COUNTERS_MAX];
	size_t i, n;

	if (!dp || !dp->ops->counters) {
		if (json)
			control_reply_printf(rep, ", \"datapath\": null");
		return;
	}
	n = dp->ops->counters(dp, c, DATAPATH_COUNTERS_MAX);
	control_reply_printf(rep, json ? ", \"datapath\": {\"name\": \"%s\"" : "\ndatapath %s:",
			     dp->ops->name);
	for (i = 0; i < n; i++)
		control_reply_printf(rep, json ? ", \"%s\": %" PRIu64 : " %s %" PRIu64, c[i].name,
				     c[i].value);
	if (json)
		control_reply_printf(rep, "}");
}

static const char *const bex_stage_names[HIPD_BEX_STAGE_COUNT_] = {
	[HIPD_BEX_T1] = "t1", [HIPD_BEX_T2] = "t2", [HIPD_BEX_T3] = "t3",
	[HIPD_BEX_T4] = "t4", [HIPD_BEX_TOTAL] = "total",
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile pct of the n sorted values, in us. */
static double percentile_us(const uint32_t *sorted, size_t n, unsigned pct)
{
	size_t rank = (n * pct + 99) / 100;

	return n ? sorted[rank ? rank - 1 : 0] / 1000.0 : 0;
}

/* Stage times (stats.h): percentiles of the kept samples; with --json also
 * the samples themselves, oldest first, for benchmarks (bench/). */
static void stats_bex_stages(struct control_reply *rep, bool json, const struct hipd_stats *s)
{
	uint32_t sorted[HIPD_BEX_SAMPLES];
	size_t st, i, n, first;

	control_reply_printf(rep, json ? ", \"bex_stages\": {" : "\nbex stages (us):");
	for (st = 0; st < HIPD_BEX_STAGE_COUNT_; st++) {
		const struct hipd_bex_samples *b = &s->bex_stage[st];

		n = b->n < HIPD_BEX_SAMPLES ? (size_t)b->n : HIPD_BEX_SAMPLES;
		first = b->n < HIPD_BEX_SAMPLES ? 0 : (size_t)(b->n % HIPD_BEX_SAMPLES);
		memcpy(sorted, b->ns, n * sizeof(sorted[0]));
		qsort(sorted, n, sizeof(sorted[0]), cmp_u32);
		if (!json) {
			control_reply_printf(rep, "\n  %-5s n %-8" PRIu64 " median %.1f p95 %.1f "
					     "p99 %.1f", bex_stage_names[st], b->n,
					     percentile_us(sorted, n, 50),
					     percentile_us(sorted, n, 95),
					     percentile_us(sorted, n, 99));
			continue;
		}
		control_reply_printf(rep, "%s\"%s\": {\"count\": %" PRIu64 ", \"p50_us\": %.1f, "
				     "\"p95_us\": %.1f, \"p99_us\": %.1f, \"samples_us\": [",
				     st ? ", " : "", bex_stage_names[st], b->n,
				     percentile_us(sorted, n, 50), percentile_us(sorted, n, 95),
				     percentile_us(sorted, n, 99));
		for (i = 0; i < n; i++)
			control_reply_printf(rep, "%s%.1f", i ? ", " : "",
					     b->ns[(first + i) % HIPD_BEX_SAMPLES] / 1000.0);
		control_reply_printf(rep, "]}");
	}
	if (json)
		control_reply_printf(rep, "}");
}

/* The engine's heap as glibc's malloc sees it (mallinfo2): bytes in use
 * against bytes held free, so that a soak tells a leak (in_use grows) from
 * fragmentation (free grows) -- bench/soak.sh. */
static void stats_memory(struct control_reply *rep, bool json)
{
	struct mallinfo2 mi = mallinfo2();

	control_reply_printf(rep, json ? ", \"memory\": {\"heap_in_use\": %zu, \"heap_free\": %zu"
			     ", \"heap_mmapped\": %zu}"
			     : "\nmemory: heap in use %zu bytes, free %zu, mmapped %zu",
			     mi.uordblks, mi.fordblks, mi.hblkhd);
}

static int cmd_show_stats(const struct control_request *req, struct control_reply *rep,
			  void *arg)
{
	struct hipd *d = arg;
	const struct hipd_stats *s = d->stats;
	const struct hipd_engine *e = d->engine;
	uint64_t mean_us, by_thread, by_engine;
	bool json = req->json;
	size_t i;

	if (engine_gone(d, rep))
		return CTL_EFAILED;
	mean_us = s->bex_completed ? s->bex_total_ns / s->bex_completed / 1000 : 0;
	control_reply_printf(rep, json ? "{\"drops\": {" : "drops:");
	for (i = 0; i < HIPD_DROP_COUNT_; i++)
		control_reply_printf(rep, json ? "%s\"%s\": %" PRIu64 : "%s\n  %-18s %" PRIu64,
				     json && i ? ", " : "", hipd_drop_name((enum hipd_drop)i),
				     s->drop[i]);
	if (json)
		control_reply_printf(rep, "}");
	stats_packets(rep, json, "rx", s->rx_packets,
		      sizeof(s->rx_packets) / sizeof(s->rx_packets[0]));
	stats_packets(rep, json, "tx", s->tx_packets,
		      sizeof(s->tx_packets) / sizeof(s->tx_packets[0]));
	stats_bex_stages(rep, json, s);
	control_reply_printf(rep, json ? ", \"associations\": %zu" : "\nassociations %zu",
			     hadb_count(d->hadb));
	/* UPDATE (hipd/update*.c) */
	control_reply_printf(rep, json ? ", \"update\": {\"sent\": %" PRIu64 ", \"received\": %"
			     PRIu64 ", \"retransmitted\": %" PRIu64 ", \"reacked\": %" PRIu64
			     ", \"failed\": %" PRIu64 ", \"readdressed\": %" PRIu64
			     ", \"verified\": %" PRIu64 ", \"rekeyed\": %" PRIu64
			     ", \"via_rvs\": %" PRIu64 "}, \"liveness\": {\"probes\": %" PRIu64
			     ", \"answered\": %" PRIu64 ", \"dead_peers\": %" PRIu64
			     ", \"lost_state_exchanges\": %" PRIu64 "}"
			     : "\nupdate: sent %" PRIu64 " received %" PRIu64 " retransmitted %"
			     PRIu64 " re-ACKed %" PRIu64 " failed %" PRIu64 "; readdressed %" PRIu64
			     " verified %" PRIu64 " rekeyed %" PRIu64 "; via the peer's rendezvous "
			     "server %" PRIu64 "\nliveness: probes %" PRIu64 " answered %" PRIu64
			     " peers found gone %" PRIu64 "; exchanges for ESP without SA %" PRIu64,
			     s->upd_sent, s->upd_received, s->upd_retransmitted, s->upd_reacked,
			     s->upd_failed, s->upd_readdressed, s->upd_verified, s->upd_rekeyed,
			     s->upd_via_rvs, s->live_probes, s->live_answered, s->live_dead,
			     e->lost_state_exchanges);
	/* ICMP Parameter Problems (engine_icmp.c, D-14) */
	control_reply_printf(rep, json ? ", \"icmp\": {\"sent\": %" PRIu64 ", \"received\": %"
			     PRIu64 ", \"peers_found_gone\": %" PRIu64 ", \"probes_started\": %"
			     PRIu64 ", \"ignored\": %" PRIu64 "}"
			     : "\nicmp: sent %" PRIu64 " received %" PRIu64 " peers found gone %"
			     PRIu64 " probes started %" PRIu64 " ignored %" PRIu64,
			     e->icmp_sent, e->icmp_received, e->icmp_verdicts, e->icmp_probes,
			     e->icmp_ignored);
	control_reply_printf(rep, json ? ", \"nat\": {\"keepalives_sent\": %" PRIu64
			     ", \"keepalives_received\": %" PRIu64 ", \"udp_esp_dropped\": %"
			     PRIu64 ", \"relay_forwarded\": %" PRIu64 ", \"relay_failed\": %" PRIu64
			     ", \"relay_received\": %" PRIu64 ", \"ice_started\": %" PRIu64
			     ", \"ice_checks_sent\": %" PRIu64 ", \"ice_failed\": %" PRIu64
			     ", \"ice_restarts\": %" PRIu64 ", \"ice_restarts_done\": %" PRIu64
			     ", \"rebinds\": %" PRIu64 ", \"mappings_followed\": %" PRIu64
			     ", \"mappings_ignored\": %" PRIu64 ", \"route_moves\": %" PRIu64 "}"
			     : "\nnat: keepalives sent %" PRIu64 " received %" PRIu64
			     ", ESP over UDP dropped %" PRIu64 "; relay: forwarded %" PRIu64
			     " failed %" PRIu64 " received %" PRIu64 "; connectivity checks: "
			     "started %" PRIu64 " sent %" PRIu64 " failed %" PRIu64
			     ", restarts %" PRIu64 " (new pair %" PRIu64 ")"
			     "; rebinds %" PRIu64 ", mapping changes reported: followed %" PRIu64
			     " ignored %" PRIu64 "; re-announced after a route change %" PRIu64,
			     e->nat_keepalives_out, e->nat_keepalives_in, e->udp_esp_dropped,
			     e->relay_forwarded, e->relay_failed, e->relay_received, e->ice_started,
			     e->ice_checks_sent, e->ice_failed, s->ice_restarts,
			     s->ice_restarts_done, e->nat_rebinds,
			     s->nat_mappings_followed, s->nat_mappings_ignored, s->upd_route_moves);
	control_reply_printf(rep, json ? ", \"lsi\": {\"pairs\": %" PRIu64 ", \"refused\": %"
			     PRIu64 ", \"acquires\": %" PRIu64 ", \"unknown\": %" PRIu64 "}"
			     : "\nlsi: SA pairs %" PRIu64 " refused %" PRIu64 "; exchanges started "
			     "by IPv4 %" PRIu64 ", to no known LSI %" PRIu64,
			     s->lsi_pairs, s->lsi_refused, s->lsi_acquires, s->lsi_unknown);
	stats_datapath(rep, json, e->dp);
	stats_memory(rep, json);
	by_thread = by_engine = 0;
	if (e->puzzle_worker)
		puzzle_worker_counts(e->puzzle_worker, &by_thread, &by_engine);
	if (json && e->puzzle_worker)
		control_reply_printf(rep, ", \"puzzle_thread\": {\"solved_by_thread\": %" PRIu64
				     ", \"solved_by_engine\": %" PRIu64 "}", by_thread, by_engine);
	else if (json)
		control_reply_printf(rep, ", \"puzzle_thread\": null");
	else if (e->puzzle_worker)
		control_reply_printf(rep, "\npuzzle thread: %" PRIu64 " solved by it, %" PRIu64
				     " by the engine's thread", by_thread, by_engine);
	if (json)
		control_reply_printf(rep, ", \"bex\": {\"started\": %" PRIu64 ", \"completed\": %"
				     PRIu64 ", \"failed\": %" PRIu64 ", \"last_us\": %" PRIu64
				     ", \"mean_us\": %" PRIu64 "}, \"puzzle_k\": %u, "
				     "\"i1_per_s\": %" PRIu64 ", \"r1_sent\": %" PRIu64
				     ", \"i2_without_r1_counter\": %" PRIu64 ", \"notify_sent\": %"
				     PRIu64 ", \"notify_received\": %" PRIu64
				     ", \"peer_hi_cache\": {\"hits\": %" PRIu64 ", \"imports\": %"
				     PRIu64 "}}",
				     s->bex_started, s->bex_completed, s->bex_failed,
				     s->bex_last_ns / 1000, mean_us, d->puzzle_k, s->i1_rate_per_s,
				     s->r1_sent, e->i2_no_r1_counter, e->notify_sent,
				     e->notify_received, e->hi_cache_hits, e->hi_cache_misses);
	else
		control_reply_printf(rep, "\nbex: started %" PRIu64 " completed %" PRIu64
				     " failed %" PRIu64 " last %" PRIu64 ".%03" PRIu64 " ms mean %"
				     PRIu64 ".%03" PRIu64 " ms\npuzzle K %u, %" PRIu64 " I1/s, %"
				     PRIu64 " R1 sent\nI2 without R1_COUNTER %" PRIu64
				     ", NOTIFY sent %" PRIu64 " received %" PRIu64
				     "\npeer HI cache: %" PRIu64 " hits, %" PRIu64 " imports",
				     s->bex_started, s->bex_completed, s->bex_failed,
				     s->bex_last_ns / 1000000, s->bex_last_ns / 1000 % 1000,
				     mean_us / 1000, mean_us % 1000, d->puzzle_k, s->i1_rate_per_s,
				     s->r1_sent, e->i2_no_r1_counter, e->notify_sent,
				     e->notify_received, e->hi_cache_hits, e->hi_cache_misses);
	return CTL_OK;
}

/* ---- trigger / close / set puzzle -------------------------------------------- */

static int parse_hit_arg(const char *s, struct hip_hit *hit, struct control_reply *rep)
{
	int ret = hip_hit_from_str(s, hit);

	if (ret == -EDOM)
		return control_reply_error(rep, CTL_EUSAGE, "'%s' is not a HIT "
					   "(not in 2001:20::/28)", s);
	if (ret < 0)
		return control_reply_error(rep, CTL_EUSAGE, "'%s' is not a HIT", s);
	return CTL_OK;
}

static int reply_done(const struct control_request *req, struct control_reply *rep,
		      const char *what, const char *hit)
{
	if (req->json) {
		control_reply_printf(rep, "{\"result\": ");
		control_reply_json_str(rep, what);
		control_reply_printf(rep, ", \"hit\": \"%s\"}", hit);
	} else {
		control_reply_printf(rep, "%s %s", what, hit);
	}
	return CTL_OK;
}

static int cmd_trigger(const struct control_request *req, struct control_reply *rep, void *arg)
{
	struct hipd *d = arg;
	struct hip_hit peer;
	int ret;

	struct hip_addr addr;

	if (engine_gone(d, rep))
		return CTL_EFAILED;
	/* a plain address: opportunistic mode (D-27), where allowed */
	if (hip_hit_from_str(req->argv[0], &peer) != 0 &&
	    hip_addr_from_str(req->argv[0], &addr) == 0)
		return eng_opp_cmd_trigger(d, req, rep, &addr);
	ret = parse_hit_arg(req->argv[0], &peer, rep);
	if (ret != CTL_OK)
		return ret;
	ret = hipd_engine_trigger(d, &peer);
	if (ret == -ENOENT)
		return control_reply_error(rep, CTL_ENOENT, "no locator is mapped for %s "
					   "(add one with 'hipconf add map')", req->argv[0]);
	if (ret == -EINVAL)
		return control_reply_error(rep, CTL_EUSAGE, "%s is one of our own HITs",
					   req->argv[0]);
	if (ret < 0)
		return control_reply_error(rep, CTL_EFAILED, "base exchange with %s: %s",
					   req->argv[0], strerror(-ret));
	return reply_done(req, rep, "base exchange started or running with", req->argv[0]);
}

static int cmd_close(const struct control_request *req, struct control_reply *rep, void *arg)
{
	struct hipd *d = arg;
	struct hip_hit peer;
	int ret;

	if (engine_gone(d, rep))
		return CTL_EFAILED;
	ret = parse_hit_arg(req->argv[0], &peer, rep);
	if (ret != CTL_OK)
		return ret;
	ret = hipd_engine_close(d, &peer);
	if (ret == -ENOENT)
		return control_reply_error(rep, CTL_ENOENT, "no association with %s",
					   req->argv[0]);
	if (ret < 0)
		return control_reply_error(rep, CTL_EFAILED, "closing %s: %s", req->argv[0],
					   strerror(-ret));
	return reply_done(req, rep, "closing the association with", req->argv[0]);
}

static int cmd_set_puzzle(const struct control_request *req, struct control_reply *rep,
			  void *arg)
{
	struct hipd *d = arg;
	unsigned long k;
	char *end;

	if (engine_gone(d, rep))
		return CTL_EFAILED;
	if (!strcmp(req->argv[0], "auto")) {
		/* Back to load-driven difficulty, from the current base. */
		d->conf.puzzle_auto = true;
		if (req->json)
			control_reply_printf(rep, "{\"puzzle_k\": %u, \"auto\": true}",
					     d->puzzle_k);
		else
			control_reply_printf(rep, "puzzle K %u, automatic under load",
					     d->puzzle_k);
		return CTL_OK;
	}
	errno = 0;
	k = strtoul(req->argv[0], &end, 10);
	if (errno || end == req->argv[0] || *end || req->argv[0][0] == '-' ||
	    k > HIP_PUZZLE_K_MAX)
		return control_reply_error(rep, CTL_EUSAGE, "'%s' is not a puzzle difficulty "
					   "(0..%d or auto)", req->argv[0], HIP_PUZZLE_K_MAX);
	/* A fixed K: no automatic raising until 'set puzzle auto'. */
	d->conf.puzzle_auto = false;
	eng_puzzle_k_set(d, (unsigned)k);
	if (req->json)
		control_reply_printf(rep, "{\"puzzle_k\": %lu, \"auto\": false}", k);
	else
		control_reply_printf(rep, "puzzle K set to %lu (fixed)", k);
	return CTL_OK;
}

static const struct control_cmd engine_cmds[] = {
	{ "show hi", "", 0, 0, true, cmd_show_hi,
	  "local host identities: HIT, algorithm, key fingerprint, LSI" },
	{ "show associations", "", 0, 0, true, cmd_show_associations,
	  "host associations: state, HITs, LSIs, locators, SPIs, suites, counters" },
	{ "show stats", "", 0, 0, true, cmd_show_stats,
	  "drop counters, packets per type, base exchange counts and times" },
	{ "trigger", "HIT|IP", 1, 1, false, cmd_trigger, "start a base exchange with HIT now; "
	  "with IP, an opportunistic one (hipd.conf opportunistic_peers)" },
	{ "close", "HIT", 1, 1, false, cmd_close, "close the association with HIT" },
	{ "set puzzle", "K|auto", 1, 1, false, cmd_set_puzzle,
	  "fix the puzzle difficulty (0..28), or let load raise it (auto)" },
};

int eng_control_register(struct hipd *d)
{
	if (!d->control)
		return 0;
	/* Once per control server: the table must outlive it, handlers check
	 * that the engine runs. */
	int ret = control_register_table(d->control, engine_cmds,
					 sizeof(engine_cmds) / sizeof(engine_cmds[0]), d);

	if (ret == 0)
		ret = eng_reg_control_register(d);
	return ret ? ret : eng_opp_control_register(d);
}

/* The control server has no unregister: the handlers check d->engine. */
void eng_control_unregister(struct hipd *d)
{
	(void)d;
}
