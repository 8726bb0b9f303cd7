/*
 * fw_esp.c - the kernel ESP fast path of hipfw's middlebox mode: for every
 * (source, destination, SPI) the tracker allows (fw_track.c), one rule at
 * the top of the HIPFW_ESP chain
 *
 *     -s SRC -d DST -p esp -m esp --espspi SPI -j ACCEPT
 *
 * and with a HIP UDP port (RFC 9028 §5.1) and the u32 match, one at the top
 * of HIPFW_UDP for the same triple as ESP in UDP, the SPI being the first 32
 * bits of the UDP payload (IPv4: after IHL words; IPv6: at 48, no extension
 * headers expected), from and to the UDP ports the tracker learnt for the
 * two locators (D-24; a port not known, 0, is not matched),
 *
 *     -s SRC -d DST -p udp -m udp --sport SP --dport DP \
 *         -m u32 --u32 "0>>22&0x3C@8=SPI" -j ACCEPT
 *     -s SRC -d DST -p udp -m udp --sport SP --dport DP -m u32 --u32 "48=SPI" -j ACCEPT
 *
 * (ESP in UDP of a known SPI from another port is queued: hipfw passes it,
 * counted, fw_track_esp_udp)
 *
 * (only UDP of the port jumps to HIPFW_UDP; a HIP packet's zero marker never
 * equals an SPI), so ESP of a known association never leaves the kernel; what matches none
 * falls through to the chain's NFQUEUE rule and is dropped in userspace as
 * an unknown SPI. Each change of an association is one iptables-restore
 * run per family (--noflush: nothing else is touched), rules removed first,
 * then added. What was installed is remembered per association, so the
 * difference is all that is run; a clean stop flushes the whole chain
 * (fw_ipt.c), a start removes what a crashed run left.
 *
 * The tracker's callback only marks the association; the rules are changed
 * after the verdicts of the packets read with it have gone out
 * (fw_esp_rules_flush), so the R2 that completes an exchange is not held
 * while iptables-restore runs. ESP that arrives in between reaches hipfw,
 * whose tracker already knows the triple (fw_track_esp), and passes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "fw_ipt.h"
#include "fw_track.h"

enum {
	ESP_SLOT_MAX = 2 * FW_TRACK_ESP_MAX,
	SCRIPT_MAX = 8192,
};

struct esp_slot {
	size_t n;
	bool dirty;               /* on the dirty list */
	struct fw_esp_triple tr[ESP_SLOT_MAX];
};

struct fw_esp_rules {
	const struct fw_ipt_conf *ipt;
	const struct fw_track *t;
	struct esp_slot *slot;    /* one per tracker pool entry */
	uint32_t *dirty;          /* pool indices to sync */
	uint32_t ndirty;
	uint64_t installed, added, removed, errors;
};

int fw_esp_rules_create(struct fw_esp_rules **out, const struct fw_ipt_conf *ipt,
			const struct fw_track *t)
{
	struct fw_esp_rules *e = calloc(1, sizeof(*e));

	*out = NULL;
	if (!e)
		return -ENOMEM;
	e->slot = calloc(t->max, sizeof(*e->slot));
	e->dirty = calloc(t->max, sizeof(*e->dirty));
	if (!e->slot || !e->dirty) {
		fw_esp_rules_free(e);
		return -ENOMEM;
	}
	e->ipt = ipt;
	e->t = t;
	*out = e;
	return 0;
}

void fw_esp_rules_free(struct fw_esp_rules *e)
{
	if (!e)
		return;
	free(e->slot);
	free(e->dirty);
	free(e);
}

static bool triple_eq(const struct fw_esp_triple *a, const struct fw_esp_triple *b)
{
	return a->spi == b->spi && a->sport == b->sport && a->dport == b->dport &&
	       memcmp(&a->src, &b->src, sizeof(a->src)) == 0 &&
	       memcmp(&a->dst, &b->dst, sizeof(a->dst)) == 0;
}

static bool holds(const struct fw_esp_triple *set, size_t n, const struct fw_esp_triple *x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (triple_eq(&set[i], x))
			return true;
	return false;
}

/* The rule lines of a triple in an iptables-restore file: "-I HIPFW_ESP 1
 * ..." or "-D HIPFW_ESP ...", and with udp the ESP in UDP one in HIPFW_UDP. */
static void rule_line(char *script, size_t cap, size_t *len, bool add, bool udp,
		      const struct fw_esp_triple *x)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN], ports[48] = "";
	bool v4 = hip_addr_is_v4(&x->src);
	int n;

	hip_addr_to_str(&x->src, s, sizeof(s));
	hip_addr_to_str(&x->dst, d, sizeof(d));
	n = snprintf(script + *len, cap - *len,
		     "%s HIPFW_ESP%s -s %s/%u -d %s/%u -p esp -m esp --espspi %u -j ACCEPT\n",
		     add ? "-I" : "-D", add ? " 1" : "", s, v4 ? 32 : 128, d, v4 ? 32 : 128,
		     x->spi);
	if (n > 0 && (size_t)n < cap - *len)
		*len += (size_t)n;
	if (!udp)
		return;
	if (x->sport && x->dport)
		snprintf(ports, sizeof(ports), " -m udp --sport %u --dport %u", x->sport, x->dport);
	else if (x->sport || x->dport)
		snprintf(ports, sizeof(ports), " -m udp --%s %u", x->sport ? "sport" : "dport",
			 x->sport ? x->sport : x->dport);
	n = snprintf(script + *len, cap - *len,
		     "%s HIPFW_UDP%s -s %s/%u -d %s/%u -p udp%s -m u32 --u32 \"%s=0x%08x\""
		     " -j ACCEPT\n",
		     add ? "-I" : "-D", add ? " 1" : "", s, v4 ? 32 : 128, d, v4 ? 32 : 128,
		     ports, v4 ? "0>>22&0x3C@8" : "48", x->spi);
	if (n > 0 && (size_t)n < cap - *len)
		*len += (size_t)n;
}

/* Apply to one family: removals (what is installed and not wanted), then
 * additions (what is wanted and not installed); next gets what stays. A
 * family nobody filters (--no-ipv4, --no-ipv6) has no rules. */
static void sync_family(struct fw_esp_rules *e, bool v4, struct esp_slot *slot,
			const struct fw_esp_triple *want, size_t nwant, struct esp_slot *next)
{
	const char *prog = v4 ? e->ipt->iptables : e->ipt->ip6tables;
	bool udp = e->ipt->udp_port && (v4 ? e->ipt->u32_v4 : e->ipt->u32_v6);
	char *script = malloc(SCRIPT_MAX);
	size_t len, i, ndel = 0, nadd = 0;
	int ret;

	if (!script) {
		e->errors++;
		return;
	}
	/* removals */
	len = (size_t)snprintf(script, SCRIPT_MAX, "*filter\n");
	for (i = 0; i < slot->n; i++) {
		if (hip_addr_is_v4(&slot->tr[i].src) != v4)
			continue;
		if (holds(want, nwant, &slot->tr[i])) {
			next->tr[next->n++] = slot->tr[i];
			continue;
		}
		rule_line(script, SCRIPT_MAX, &len, false, udp, &slot->tr[i]);
		ndel++;
	}
	if (ndel && prog) {
		snprintf(script + len, SCRIPT_MAX - len, "COMMIT\n");
		ret = fw_ipt_restore(prog, script);
		if (ret != 0) {
			e->errors++;
			log_warn("ESP fast path: %s-restore could not remove %zu rules", prog, ndel);
		}
		e->removed += ndel;
		e->installed -= ndel;
	}
	/* additions */
	len = (size_t)snprintf(script, SCRIPT_MAX, "*filter\n");
	for (i = 0; i < nwant; i++) {
		if (hip_addr_is_v4(&want[i].src) != v4 || holds(slot->tr, slot->n, &want[i]))
			continue;
		rule_line(script, SCRIPT_MAX, &len, true, udp, &want[i]);
		nadd++;
	}
	if (nadd && prog) {
		snprintf(script + len, SCRIPT_MAX - len, "COMMIT\n");
		ret = fw_ipt_restore(prog, script);
		if (ret != 0) {
			/* ESP of these triples comes to userspace, where the
			 * tracker still lets it through (fw_track_esp) */
			e->errors++;
			log_warn("ESP fast path: %s-restore could not add %zu rules", prog, nadd);
		} else {
			for (i = 0; i < nwant; i++)
				if (hip_addr_is_v4(&want[i].src) == v4 &&
				    !holds(slot->tr, slot->n, &want[i]) && next->n < ESP_SLOT_MAX)
					next->tr[next->n++] = want[i];
			e->added += nadd;
			e->installed += nadd;
		}
	}
	free(script);
}

void fw_esp_rules_sync(const struct fw_assoc *a, void *arg)
{
	struct fw_esp_rules *e = arg;
	uint32_t idx;

	if (a < e->t->pool || a >= e->t->pool + e->t->max)
		return;
	idx = (uint32_t)(a - e->t->pool);
	if (!e->slot[idx].dirty) {
		e->slot[idx].dirty = true;
		e->dirty[e->ndirty++] = idx;
	}
}

/* One pool entry's rules to what its association (whatever holds the entry
 * now: a freed or reused one wants none of the old triples) allows. */
static void sync_one(struct fw_esp_rules *e, uint32_t idx)
{
	struct fw_esp_triple want[ESP_SLOT_MAX];
	struct esp_slot *slot = &e->slot[idx], next = { 0 };
	size_t nwant;

	nwant = fw_track_triples(&e->t->pool[idx], want, ESP_SLOT_MAX);
	sync_family(e, true, slot, want, nwant, &next);
	sync_family(e, false, slot, want, nwant, &next);
	*slot = next;
}

void fw_esp_rules_flush(struct fw_esp_rules *e)
{
	uint32_t i;

	if (!e)
		return;
	for (i = 0; i < e->ndirty; i++)
		sync_one(e, e->dirty[i]);
	e->ndirty = 0;
}

void fw_esp_rules_stats(const struct fw_esp_rules *e, uint64_t out[4])
{
	out[0] = e ? e->installed : 0;
	out[1] = e ? e->added : 0;
	out[2] = e ? e->removed : 0;
	out[3] = e ? e->errors : 0;
}
