/*
 * fuzz_fw.c - libFuzzer target for hipfw's parsers (firewall/): the first
 * byte chooses, the rest is the input.
 *   even: a rules file (fw_rules_parse): accepted files have at most
 *         FW_RULES_MAX rules, each line at most FW_LINE_MAX bytes; refused
 *         ones say "fw.rules:LINE: ..." with a line the input has.
 *   odd:  a queued IP packet (fw_packet_parse, fw_verify_host_id) and its verdict under a
 *         fixed rule set: a packet that passes the checks has a HIP length
 *         inside the input and the type of its header.
 * Seeds: fuzz/corpus/fw/ (written with HIP_SEED_DIR, see below). No crash,
 * no sanitizer report, whatever the input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_packet.h"
#include "fw_rules.h"
#include "hip_crypto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fw_rules *rules, *fixed;

static void fuzz_rules(const uint8_t *data, size_t size)
{
	char err[FW_ERR_MAX];
	size_t lines = 1, i;
	unsigned line;

	if (fw_rules_parse((const char *)data, size, "fw.rules", rules, err, sizeof(err)) == 0) {
		if (rules->n > FW_RULES_MAX)
			abort();
		return;
	}
	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	if (strncmp(err, "fw.rules:", 9) != 0 || sscanf(err + 9, "%u", &line) != 1 ||
	    line > lines)
		abort();
}

static void fuzz_packet(const uint8_t *data, size_t size)
{
	struct fw_packet p;
	struct fw_match m;
	enum fw_action act;

	if (fw_packet_parse(data, size, &p) != FW_OK || fw_verify_host_id(&p) != FW_OK)
		return;
	if (p.hip < data || p.hip + p.hip_len > data + size || p.hip_len < 40 ||
	    p.type != (p.hip[2] & 0x7f))
		abort();
	m = (struct fw_match){ .sender = &p.sender, .receiver = &p.receiver, .type = p.type,
			       .dir = FW_DIR_FWD };
	(void)fw_rules_decide(fixed, &m, &act);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char fixed_text[] =
		"allow from 2001:2f:5a4b:21c0:ad9:f7e1:13e2:9a10 type i1,i2 dir forward\n"
		"deny type update,17,18 dir in,forward\n"
		"allow to any type r1,r2\n"
		"default deny\n";
	char err[FW_ERR_MAX];

	if (!rules) {
		if (hip_crypto_init() != 0)
			abort();
		rules = malloc(sizeof(*rules));
		fixed = malloc(sizeof(*fixed));
		if (!rules || !fixed ||
		    fw_rules_parse(fixed_text, strlen(fixed_text), "fixed", fixed, err,
				   sizeof(err)) < 0)
			abort();
	}
	if (size < 1)
		return 0;
	if (data[0] & 1)
		fuzz_packet(data + 1, size - 1);
	else
		fuzz_rules(data + 1, size - 1);
	return 0;
}
