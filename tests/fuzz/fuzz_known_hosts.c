/*
 * fuzz_known_hosts.c - libFuzzer target for the opportunistic pins
 * (hipd/net/known_hosts.c): the input is a known_hosts file, loaded over a
 * table holding one pin.
 *   - accepted: at most KNOWN_HOSTS_MAX pins, each usable (address, ORCHID
 *     HIT, since in range), found by its address, lines ascending; when
 *     there are pins, saved to a file and loaded back the same, then
 *     deleted one by one while the others stay found;
 *   - refused: the message says "fuzz.kh:LINE: ..." with a line the input
 *     has, and the old pin is still the only one.
 * Seeds: fuzz/corpus/known_hosts/. No crash, no sanitizer report,
 * whatever the input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net/known_hosts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A directory for the round trip, made once (libFuzzer runs one process). */
static char dir[64];

static void check_pins(const struct known_hosts *k, size_t lines)
{
	size_t i, n = known_hosts_count(k);
	unsigned prev = 0;

	if (n > KNOWN_HOSTS_MAX || known_hosts_at(k, n))
		abort();
	for (i = 0; i < n; i++) {
		const struct known_host *p = known_hosts_at(k, i);

		if (hip_addr_locator_problem(&p->addr) || !hip_hit_is_orchid(&p->hit) ||
		    p->since > KNOWN_HOSTS_SINCE_MAX || p->line <= prev || p->line > lines ||
		    known_hosts_find(k, &p->addr) != p)
			abort();
		prev = p->line;
	}
}

static void remove_dir(void)
{
	rmdir(dir);
}

static void round_trip(struct known_hosts *k)
{
	struct known_hosts *k2;
	char path[96], err[512];
	size_t i, n = known_hosts_count(k);

	if (!dir[0]) {
		strcpy(dir, "/tmp/fuzz_known_hosts.XXXXXX");
		if (!mkdtemp(dir))
			abort();
		atexit(remove_dir);
	}
	snprintf(path, sizeof(path), "%s/known_hosts", dir);
	if (known_hosts_save(k, path) != 0 || known_hosts_create(&k2) != 0 ||
	    known_hosts_load_file(k2, path, err, sizeof(err)) != 0 || known_hosts_count(k2) != n)
		abort();
	for (i = 0; i < n; i++) {
		const struct known_host *x = known_hosts_at(k, i), *y = known_hosts_at(k2, i);

		if (memcmp(&x->addr, &y->addr, sizeof(x->addr)) != 0 ||
		    memcmp(&x->hit, &y->hit, sizeof(x->hit)) != 0 || x->since != y->since)
			abort();
	}
	known_hosts_free(k2);
	unlink(path);
	/* delete from the front: the rest stays found */
	while (known_hosts_count(k) > 0) {
		struct hip_addr a = known_hosts_at(k, 0)->addr;

		if (known_hosts_del(k, &a) != 0 || known_hosts_find(k, &a))
			abort();
		for (i = 0; i < known_hosts_count(k); i++) {
			const struct known_host *p = known_hosts_at(k, i);

			if (known_hosts_find(k, &p->addr) != p)
				abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct known_hosts *k;
	struct hip_addr a;
	struct hip_hit h;
	char err[512];
	size_t lines = 1, i;
	unsigned line;

	if (known_hosts_create(&k) != 0)
		return 0;
	if (hip_addr_from_str("203.0.113.1", &a) != 0 || hip_hit_from_str("2001:2a::1", &h) != 0 ||
	    known_hosts_add(k, &a, &h, 5) != 0)
		abort();
	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	if (known_hosts_load_buf(k, "fuzz.kh", (const char *)data, size, err, sizeof(err)) == 0) {
		check_pins(k, lines);
		if (known_hosts_count(k) > 0)
			round_trip(k);
	} else {
		if (strncmp(err, "fuzz.kh:", 8) != 0 || sscanf(err + 8, "%u", &line) != 1 ||
		    line == 0 || line > lines)
			abort();
		if (known_hosts_count(k) != 1 || known_hosts_find(k, &a) != known_hosts_at(k, 0))
			abort();
	}
	known_hosts_free(k);
	return 0;
}
