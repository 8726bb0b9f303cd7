/*
 * fuzz_reg_allow.c - libFuzzer target for the registrar's allow-list file
 * (hipd.conf registration_allow_file; hipd/engine/reg/reg_allow.c). The
 * first byte sets the error buffer's size (so truncated messages are
 * covered), the rest is the file. Accepted lists must find each HIT they
 * were given and nothing else that the input does not name; rejected ones
 * leave no list and a message naming the file. Seeds:
 * fuzz/corpus/reg_allow/. No crash, no sanitizer report, whatever the
 * input.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/reg/reg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t fuzz_sink;

/* Each line's first word that parses as a HIT must be in the list. */
static void check_listed(const struct reg_allow *a, const char *buf, size_t len)
{
	size_t pos = 0;

	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - (buf + pos)) : len - pos, i = 0, n = 0;
		char tok[64];
		struct hip_hit h;

		while (i < ll && (buf[pos + i] == ' ' || buf[pos + i] == '\t' || buf[pos + i] == '\r'))
			i++;
		while (i < ll && n + 1 < sizeof(tok) && buf[pos + i] != ' ' && buf[pos + i] != '\t' &&
		       buf[pos + i] != '\r' && buf[pos + i] != '#')
			tok[n++] = buf[pos + i++];
		tok[n] = '\0';
		if (n && hip_hit_from_str(tok, &h) == 0 && !reg_allow_has(a, &h))
			abort();
		pos += ll + (nl ? 1 : 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reg_allow *a = (struct reg_allow *)&fuzz_sink;
	static const struct hip_hit probe = { { 0x20, 0x01, 0x00, 0x2f, 0xfe, 0xed } };
	char err[300];
	size_t errlen;
	int ret;

	if (size < 1)
		return 0;
	errlen = 1 + data[0] % sizeof(err);
	memset(err, 0x55, sizeof(err));
	ret = reg_allow_parse(&a, "fuzz", (const char *)data + 1, size - 1, err, errlen);
	if (ret < 0) {
		/* no list; a message within errlen that names the file */
		if (a || (ret != -EINVAL && ret != -ENOMEM) || memchr(err, '\0', errlen) == NULL)
			abort();
		if (errlen > 5 && strncmp(err, "fuzz:", 5) != 0)
			abort();
		fuzz_sink += strlen(err);
		return 0;
	}
	if (!a || reg_allow_count(a) > REG_ALLOW_MAX)
		abort();
	check_listed(a, (const char *)data + 1, size - 1);
	fuzz_sink += reg_allow_has(a, &probe);
	reg_allow_free(a);
	return 0;
}
