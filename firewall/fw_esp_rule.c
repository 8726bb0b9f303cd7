/*
 * fw_esp_rule.c - the text of the ESP fast-path rules, in one place: what
 * fw_esp.c hands to iptables-restore for a learnt (source, destination,
 * SPI) and what `hipfw --flush-fast-path` (fw_ipt.c) recognises as one of
 * them in iptables-save's output. Both sides use the parts below, so the
 * two cannot drift apart (tests/unit/check_fw.c feeds one to the other).
 *
 *     -s SRC -d DST -p esp -m esp --espspi SPI -j ACCEPT            (HIPFW_ESP)
 *     -s SRC -d DST -p udp [-m udp --sport SP --dport DP] \
 *         -m u32 --u32 "0>>22&0x3C@8=SPI" -j ACCEPT                (HIPFW_UDP, IPv4)
 *     ... -m u32 --u32 "48=SPI" -j ACCEPT                         (HIPFW_UDP, IPv6)
 *
 * iptables-save prints the u32 test in its own hexadecimal spelling and the
 * addresses as given: the matcher looks at the chain, the match module and
 * the target, never at the numbers.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "fw_ipt.h"
#include "fw_track.h"

#define RULE_ESP_MATCH " -p esp -m esp --espspi "
#define RULE_U32_MATCH " -m u32 --u32 "
#define RULE_ACCEPT " -j ACCEPT"

/* How each kind starts: "-I CHAIN 1", "-D CHAIN", "-A CHAIN". */
static const char *const verbs[] = {
	[FW_ESP_RULE_ADD] = "-I", [FW_ESP_RULE_DEL] = "-D", [FW_ESP_RULE_SAVED] = "-A",
};

size_t fw_esp_rule_text(char *buf, size_t cap, enum fw_esp_rule_kind kind, bool udp,
			const struct fw_esp_triple *x)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN], ports[48] = "";
	const char *at = kind == FW_ESP_RULE_ADD ? " 1" : "";
	bool v4 = hip_addr_is_v4(&x->src);
	size_t len;
	int n;

	hip_addr_to_str(&x->src, s, sizeof(s));
	hip_addr_to_str(&x->dst, d, sizeof(d));
	n = snprintf(buf, cap, "%s " FW_IPT_ESP_CHAIN "%s -s %s/%u -d %s/%u" RULE_ESP_MATCH
		     "%u" RULE_ACCEPT "\n", verbs[kind], at, s, v4 ? 32 : 128, d,
		     v4 ? 32 : 128, x->spi);
	if (n < 0 || (size_t)n >= cap)
		return 0;
	len = (size_t)n;
	if (!udp)
		return len;
	if (x->sport && x->dport)
		snprintf(ports, sizeof(ports), " -m udp --sport %u --dport %u", x->sport, x->dport);
	else if (x->sport || x->dport)
		snprintf(ports, sizeof(ports), " -m udp --%s %u", x->sport ? "sport" : "dport",
			 x->sport ? x->sport : x->dport);
	n = snprintf(buf + len, cap - len, "%s " FW_IPT_UDP_CHAIN "%s -s %s/%u -d %s/%u "
		     "-p udp%s" RULE_U32_MATCH "\"%s=0x%08x\"" RULE_ACCEPT "\n", verbs[kind], at,
		     s, v4 ? 32 : 128, d, v4 ? 32 : 128, ports, v4 ? "0>>22&0x3C@8" : "48",
		     x->spi);
	if (n < 0 || (size_t)n >= cap - len)
		return 0;
	return len + (size_t)n;
}

/* Whether needle occurs in the len bytes at hay. */
static bool contains(const char *hay, size_t len, const char *needle)
{
	size_t n = strlen(needle), i;

	for (i = 0; n <= len && i <= len - n; i++)
		if (memcmp(hay + i, needle, n) == 0)
			return true;
	return false;
}

static bool starts(const char *line, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(line, prefix, n) == 0;
}

bool fw_esp_rule_is_ours(const char *line, size_t len)
{
	static const char accept[] = RULE_ACCEPT;
	size_t a = sizeof(accept) - 1;

	if (len < a || memcmp(line + len - a, accept, a) != 0)
		return false;
	if (starts(line, len, "-A " FW_IPT_ESP_CHAIN " "))
		return contains(line, len, RULE_ESP_MATCH);
	if (starts(line, len, "-A " FW_IPT_UDP_CHAIN " "))
		return contains(line, len, RULE_U32_MATCH);
	return false;
}
