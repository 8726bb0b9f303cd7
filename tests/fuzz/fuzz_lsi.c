/*
 * fuzz_lsi.c - libFuzzer target for the LSI code (docs/decisions.md D-20):
 *   - the input as an rtnetlink dump reply (hipd/net/lsi_host.c): every
 *     route or address parsed has a prefix of 0..32, never more than the
 *     room given;
 *   - the input as an lsi_range value (libhipcore/lsi_derive.c): accepted,
 *     the prefix is 8..30 and a HIT made of the input's first bytes gets an
 *     LSI inside the range, neither its network nor its broadcast address,
 *     and the table (hipd/net/lsi.c) hands it out again unchanged.
 * Seeds: fuzz/corpus/lsi/. No crash, no sanitizer report, whatever the
 * input.
 */
#include <stdlib.h>
#include <string.h>

#include "net/lsi.h"
#include "net/lsi_host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_dump(const uint8_t *data, size_t size)
{
	struct hip_lsi_route rt[8];
	size_t n = 0, i;

	(void)lsi_host_parse_dump(data, size, rt, 8, &n);
	if (n > 8)
		abort();
	for (i = 0; i < n; i++)
		if (rt[i].prefix > 32 || memchr(rt[i].dev, '\0', sizeof(rt[i].dev)) == NULL)
			abort();
}

static void fuzz_range(const uint8_t *data, size_t size)
{
	struct hip_lsi_range r;
	struct lsi_table *t;
	struct hip_hit hit;
	struct in_addr a, b;
	char text[64], err[256];
	uint32_t off;

	if (size >= sizeof(text))
		size = sizeof(text) - 1;
	memcpy(text, data, size);
	text[size] = '\0';
	if (hip_lsi_range_parse(text, &r, err, sizeof(err)) != 0)
		return;
	if (r.prefix < HIP_LSI_PREFIX_MIN || r.prefix > HIP_LSI_PREFIX_MAX)
		abort();
	memset(&hit, 0, sizeof(hit));
	memcpy(hit.b, data, size < sizeof(hit.b) ? size : sizeof(hit.b));
	if (hip_lsi_derive_offset(hit.b, &r, &off) != 0)
		return;
	if (off < 1 || off > hip_lsi_usable(&r))
		abort();
	if (lsi_table_create(&t, &r) != 0)
		return;
	if (lsi_table_get(t, &hit, &a, NULL) == 0 && (lsi_table_get(t, &hit, &b, NULL) != 0 ||
	    a.s_addr != b.s_addr || hip_lsi_offset(&r, (const uint8_t *)&a.s_addr) != off))
		abort();
	lsi_table_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	/* the first byte chooses: the rest is a dump or a range */
	if (data[0] & 1)
		fuzz_dump(data + 1, size - 1);
	else
		fuzz_range(data + 1, size - 1);
	return 0;
}
