#include "unit.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "hip_crypto.h"

int unit_run(Suite *s)
{
	SRunner *sr;
	int failed;

	if (hip_crypto_init() != 0) {
		fprintf(stderr, "hip_crypto_init failed\n");
		return EXIT_FAILURE;
	}
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

long unit_hex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;
	int hi = -1;

	for (; *hex; hex++) {
		int v;

		if (isspace((unsigned char)*hex) || *hex == ':')
			continue;
		v = hexval((unsigned char)*hex);
		if (v < 0)
			return -1;
		if (hi < 0) {
			hi = v;
			continue;
		}
		if (n >= cap)
			return -1;
		out[n++] = (uint8_t)(hi << 4 | v);
		hi = -1;
	}
	return hi < 0 ? (long)n : -1;
}

const char *unit_srcpath(const char *rel)
{
	static char buf[4096];
	const char *top = getenv("top_srcdir");

	snprintf(buf, sizeof(buf), "%s/%s", top ? top : ".", rel);
	return buf;
}

void unit_write_seed(const char *name, const void *head, size_t head_len, const void *buf,
		     size_t len)
{
	const char *dir = getenv("HIP_SEED_DIR");
	char path[4096];
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s.bin", dir, name);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	if (head_len)
		ck_assert_uint_eq(fwrite(head, 1, head_len, f), head_len);
	ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}
