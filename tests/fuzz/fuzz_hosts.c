/*
 * fuzz_hosts.c - libFuzzer target for the hosts file with names and LSIs
 * (D-19): the input is a hosts file,
 *   - loaded into hipd's map (hipd/net/hosts.c): accepted, every entry has
 *     1..8 locators, at most 8 names each valid, an LSI in the default
 *     range; refused, the message says "fuzz.hosts:LINE: ..." with a line
 *     the input has (or names no line);
 *   - scanned by the NSS module (nss/hip_file.c) from a file, by name and
 *     by address: an answer has 1..8 valid names.
 * Seeds: fuzz/corpus/hosts/. No crash, no sanitizer report, whatever the
 * input.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hip_file.h"
#include "net/hosts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An unlinked temporary file, opened by the module through /proc. */
static char path[64];
static int fd = -1;

static int check_entry(const struct hosts_entry *e, void *arg)
{
	const char *p = e->names;
	size_t i;

	(void)arg;
	if (e->n_loc == 0 || e->n_loc > HOSTS_MAX_LOCATORS || e->n_names > HIP_HOSTS_MAX_WORDS)
		abort();
	for (i = 0; i < e->n_names; i++, p += strlen(p) + 1)
		if (hip_hosts_name_problem(p))
			abort();
	if (e->has_lsi && hip_hosts_lsi_problem((const uint8_t *)&e->lsi, NULL))
		abort();
	return 0;
}

static void check_match(enum hip_file_result r, const struct hip_file_match *m)
{
	size_t i;

	if (r != HIP_FILE_FOUND)
		return;
	if (m->n_names > HIP_HOSTS_MAX_WORDS)
		abort();
	for (i = 0; i < m->n_names; i++)
		if (hip_hosts_name_problem(m->name[i]))
			abort();
}

static void fuzz_map(const uint8_t *data, size_t size)
{
	struct hosts *h;
	char err[512];
	size_t lines = 1, i;
	unsigned line;

	if (hosts_create(&h) != 0)
		return;
	if (hosts_load_buf(h, "fuzz.hosts", (const char *)data, size, err, sizeof(err),
			   NULL) == 0) {
		hosts_foreach(h, check_entry, NULL);
	} else {
		for (i = 0; i < size; i++)
			lines += data[i] == '\n';
		if (strncmp(err, "fuzz.hosts:", 11) != 0)
			abort();
		if (err[11] != ' ' && (sscanf(err + 11, "%u", &line) != 1 || line > lines))
			abort();
	}
	hosts_free(h);
}

static void fuzz_module(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "tablet", "tablet.hip", "a", "A.HIP.", "x.y" };
	struct hip_file_match m;
	uint8_t hit[16], lsi[4];
	size_t i;

	if (fd < 0) {
		char tmpl[] = "/tmp/fuzz_hosts.XXXXXX";

		fd = mkstemp(tmpl);
		if (fd < 0)
			abort();
		unlink(tmpl);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		check_match(hip_file_find_name(path, names[i], &m), &m);
	inet_pton(AF_INET6, "2001:2a::1", hit);
	inet_pton(AF_INET, "198.18.0.1", lsi);
	check_match(hip_file_find_addr(path, AF_INET6, hit, &m), &m);
	check_match(hip_file_find_addr(path, AF_INET, lsi, &m), &m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_map(data, size);
	fuzz_module(data, size);
	return 0;
}
