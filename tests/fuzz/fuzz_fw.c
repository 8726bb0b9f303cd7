/*
 * fuzz_fw.c - libFuzzer target for hipfw's parsers (firewall/): the first
 * byte chooses, the rest is the input.
 *   even: a rules file (fw_rules_parse): accepted files have at most
 *         FW_RULES_MAX rules, each line at most FW_LINE_MAX bytes; refused
 *         ones say "fw.rules:LINE: ..." with a line the input has. An
 *         accepted file becomes host mode's ip6tables-restore script
 *         (fw_host.c): one "-A" line per kernel rule its map counts, or
 *         -E2BIG. The same input is read as `ip6tables-save -c` text
 *         against the fixed rule set's map (fw_host_counts_parse).
 *   1, 5, ...: a queued IP packet (fw_packet_parse_udp with UDP port 10500,
 *         fw_verify_host_id) and its verdict
 *         under a fixed rule set: a packet that passes the checks has a HIP
 *         length inside the input and the type of its header; then the
 *         association tracker (fw_track.c) or, for ESP, its SPI check; the
 *         verification caches of fw_verify.c are kept from input to input.
 *   3, 7, ...: a sequence of IP packets, each behind its 16-bit length, into one
 *         tracker of 8 entries (firewall/fw_track.c): it never holds more,
 *         only an ESTABLISHED association allows ESP triples, at most
 *         2 * FW_TRACK_ESP_MAX of them.
 * Seeds: fuzz/corpus/fw/ (written with HIP_SEED_DIR, see below). No crash,
 * no sanitizer report, whatever the input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "fw_host.h"
#include "fw_packet.h"
#include "fw_rules.h"
#include "fw_track.h"
#include "hip_crypto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fw_rules *rules, *fixed;
static struct fw_verify_cache verified;
static struct fw_host_map fixed_map;
static struct fw_host_counts counts;

/* Host mode's script of an accepted file matches its map. */
static void fuzz_host_script(void)
{
	struct fw_host_map map = { { 0, 0 }, { NULL, NULL } };
	size_t lines[2] = { 0, 0 };
	char *script = NULL, *p;
	int ret;

	ret = fw_host_script(rules, true, &script, &map);
	if (ret == -E2BIG && !script && !map.n[0] && !map.n[1])
		return;
	if (ret != 0 || !script || map.n[0] < 2 || map.n[1] < 2)
		abort();
	for (p = strstr(script, "\n-A "); p; p = strstr(p + 1, "\n-A "))
		lines[strncmp(p + 4, FW_HOST_IN_CHAIN " ", strlen(FW_HOST_IN_CHAIN) + 1) != 0]++;
	if (lines[0] != map.n[0] || lines[1] != map.n[1] ||
	    strcmp(script + strlen(script) - 7, "COMMIT\n") != 0)
		abort();
	free(script);
	fw_host_map_free(&map);
}

static void fuzz_rules(const uint8_t *data, size_t size)
{
	char err[FW_ERR_MAX];
	size_t lines = 1, i;
	unsigned line;

	(void)fw_host_counts_parse((const char *)data, size, &fixed_map, &counts);
	if (fw_rules_parse((const char *)data, size, "fw.rules", rules, err, sizeof(err)) == 0) {
		if (rules->n > FW_RULES_MAX)
			abort();
		fuzz_host_script();
		return;
	}
	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	if (strncmp(err, "fw.rules:", 9) != 0 || sscanf(err + 9, "%u", &line) != 1 ||
	    line > lines)
		abort();
}

/* One packet into the tracker t (HIP or ESP), at time now. */
static void fuzz_packet(struct fw_track *t, const uint8_t *data, size_t size, uint64_t now)
{
	struct fw_esp_triple tr[2 * FW_TRACK_ESP_MAX + 1];
	struct hip_hi *hi = NULL;
	const struct fw_assoc *a;
	struct fw_packet p;
	struct fw_esp esp;
	struct fw_match m;
	enum fw_action act;
	uint32_t i = 0;

	/* UDP on hipd's port too (RFC 9028 §5.1): HIP behind a zero marker,
	 * keepalives, ESP in UDP */
	if (fw_esp_parse_udp(data, size, 10500, &esp) == FW_OK) {
		if (esp.keepalive != (esp.spi == 0 && esp.dport + esp.sport != 0))
			abort();
		if (!esp.keepalive)
			(void)fw_track_esp(t, &esp.src, &esp.dst, esp.spi);
		return;
	}
	/* the caches of fw_verify.c live across inputs, as in hipfw */
	if (fw_packet_parse_udp(data, size, 10500, &p) != FW_OK ||
	    fw_verify_host_id_cached(&p, &verified, &hi) != FW_OK)
		return;
	if (p.hip < data || p.hip + p.hip_len > data + size || p.hip_len < 40 ||
	    p.type != (p.hip[2] & 0x7f))
		abort();
	m = (struct fw_match){ .sender = &p.sender, .receiver = &p.receiver, .type = p.type,
			       .dir = FW_DIR_FWD };
	(void)fw_rules_decide(fixed, &m, &act);
	(void)fw_track_hip(t, &p, hi, now);
	hip_hi_free(hi);
	if (t->used > t->max)
		abort();
	while ((a = fw_track_at(t, &i)) != NULL) {
		size_t n = fw_track_triples(a, tr, sizeof(tr) / sizeof(tr[0]));

		if (n > 2 * FW_TRACK_ESP_MAX || (n && a->state != FW_TS_ESTABLISHED))
			abort();
	}
}

static void fuzz_track(const uint8_t *data, size_t size, bool sequence)
{
	struct fw_track t;
	uint64_t now = 1000000000ull;
	size_t len;

	if (fw_track_init(&t, 8, size & 1, NULL, NULL) < 0)
		abort();
	if (!sequence) {
		fuzz_packet(&t, data, size, now);
		goto out;
	}
	while (size >= 2) {
		len = hip_rd16(data);
		data += 2;
		size -= 2;
		if (len > size)
			len = size;
		fuzz_packet(&t, data, len, now);
		data += len;
		size -= len;
		now += 7000000000ull;   /* some entries expire on the way */
		fw_track_expire(&t, now);
	}
out:
	fw_track_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char fixed_text[] =
		"allow from 2001:2f:5a4b:21c0:ad9:f7e1:13e2:9a10 type i1,i2 dir forward\n"
		"deny type update,17,18 dir in,forward\n"
		"allow to any type r1,r2\n"
		"allow from 2001:2f:5a4b:21c0:ad9:f7e1:13e2:9a10 proto tcp,udp port 22,1000-2000\n"
		"default deny\n";
	char err[FW_ERR_MAX], *script = NULL;

	if (!rules) {
		if (hip_crypto_init() != 0)
			abort();
		rules = malloc(sizeof(*rules));
		fixed = malloc(sizeof(*fixed));
		if (!rules || !fixed ||
		    fw_rules_parse(fixed_text, strlen(fixed_text), "fixed", fixed, err,
				   sizeof(err)) < 0 ||
		    fw_host_script(fixed, false, &script, &fixed_map) < 0)
			abort();
		free(script);
	}
	if (size < 1)
		return 0;
	if (data[0] & 1)
		fuzz_track(data + 1, size - 1, data[0] & 2);
	else
		fuzz_rules(data + 1, size - 1);
	return 0;
}
