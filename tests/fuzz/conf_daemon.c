/*
 * conf_daemon.c - see conf_daemon.h. A daemon as hipd_daemon_start makes
 * it (daemon.c), without pid file, signals or privileges, around an
 * in-process engine as tests/unit/bex_harness.c starts it: packets go to
 * a sink here, so no socket is opened and nothing leaves the process.
 *
 * Built anew for every input (a few milliseconds under ASAN: the R1s and
 * the rate-limit tables; only the host identity is kept): no mapping,
 * association, server, locator or puzzle setting of one input survives
 * into the next. The files it reads live in one
 * temporary directory made on the first call and removed at exit:
 * hipd.conf (what 'reload' reads again), the hosts file (one mapping, so
 * 'trigger' of its HIT reaches the exchange), the host key, the R1
 * counters.
 */
#include "conf_daemon.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/base.h"
#include "base/loop.h"
#include "control/control.h"
#include "control_proto.h"
#include "daemon.h"
#include "engine/assoc/hidb.h"
#include "engine/engine.h"
#include "hip_crypto.h"
#include "net/net.h"

/* The mapped peer of the hosts file (fuzz/corpus/conf seeds name it). */
#define PEER_HIT "2001:2a::7"
#define PEER_ADDR "192.0.2.7"

static volatile size_t fuzz_sink;
/* Set once, on the first input: the temporary directory and its files. */
static char tmp_dir[64];
static char conf_path[128];
/* The host identity, loaded once: reading the PEM is a third of an
 * engine's start. Each input's engine borrows it (and rebuilds its R1s). */
static struct hidb *kept_hidb;

static void tmp_remove(void)
{
	char path[sizeof(tmp_dir) + 300];
	struct dirent *de;
	DIR *dir;

	hidb_free(kept_hidb);
	kept_hidb = NULL;
	if (!tmp_dir[0] || !(dir = opendir(tmp_dir)))
		return;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmp_dir, de->d_name);
		unlink(path);
	}
	closedir(dir);
	rmdir(tmp_dir);
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int tmp_setup(void)
{
	char dir[] = "/tmp/fuzz_conf.XXXXXX", text[512], hosts[sizeof(tmp_dir) + 16];

	if (tmp_dir[0])
		return 0;
	/* 'reload' tells systemd (sdnotify.c): not from here */
	unsetenv("NOTIFY_SOCKET");
	if (!mkdtemp(dir))
		return -1;
	snprintf(tmp_dir, sizeof(tmp_dir), "%s", dir);
	atexit(tmp_remove);
	snprintf(conf_path, sizeof(conf_path), "%s/hipd.conf", tmp_dir);
	snprintf(hosts, sizeof(hosts), "%s/hosts", tmp_dir);
	/* one group and the fewest R1s (each input's engine builds them: the
	 * bulk of its start); both services offered, so 'show registrations'
	 * reaches the registrar */
	snprintf(text, sizeof(text), "config_dir = %s\nstate_dir = %s\nlog_level = err\n"
		 "dh_groups = 7\nr1_cache_size = 8\noffer_services = rendezvous relay\n"
		 "puzzle_auto = no\n", tmp_dir, tmp_dir);
	if (write_file(conf_path, text) != 0 || write_file(hosts, PEER_HIT " " PEER_ADDR "\n"))
		return -1;
	return 0;
}

static int sink_send(struct hipd *d, const uint8_t *pkt, size_t len,
		     const struct hip_addr *src, const struct hip_addr *dst)
{
	fuzz_sink += len + (pkt[0] ^ src->in6.s6_addr[15] ^ dst->in6.s6_addr[15]);
	return 0;
}

/* Instead of a route lookup: a source of the destination's family (one of
 * the own locators of daemon_build). */
static int fixed_source(struct hipd *d, const struct hip_addr *dst, struct hip_addr *src)
{
	return hip_addr_from_str(hip_addr_is_v4(dst) ? "192.0.2.1" : "2001:db8::1", src);
}

static int own_locator(struct hip_locset *ls, const char *s)
{
	struct hip_addr a;

	if (hip_addr_from_str(s, &a) != 0)
		return -EINVAL;
	return locset_add(ls, &a, 1, false);
}

/* ---- the oracle: a reply that starts like a JSON object is one ----------
 * (RFC 8259's grammar; every JSON reply and error is an object, no text
 * reply starts with '{'). Not the unit tests' validator: that one is
 * built on Check. */

static const char *json_value(const char *p, const char *end, int depth);

static const char *json_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static const char *json_string(const char *p, const char *end)
{
	if (p >= end || *p++ != '"')
		return NULL;
	while (p < end && *p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			if (++p >= end)
				return NULL;
			if (*p == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (p + i >= end || !strchr("0123456789abcdefABCDEF", p[i]) ||
					    !p[i])
						return NULL;
				p += 4;
			} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
				return NULL;
			}
		}
		p++;
	}
	return p < end ? p + 1 : NULL;
}

static const char *json_digits(const char *p, const char *end)
{
	const char *s = p;

	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p > s ? p : NULL;
}

static const char *json_number(const char *p, const char *end)
{
	if (p < end && *p == '-')
		p++;
	if (p < end && *p == '0')
		p++;
	else if (!(p = json_digits(p, end)))
		return NULL;
	if (p < end && *p == '.' && !(p = json_digits(p + 1, end)))
		return NULL;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		p = json_digits(p, end);
	}
	return p;
}

static const char *json_seq(const char *p, const char *end, char close, bool members,
			    int depth)
{
	p = json_ws(p + 1, end);
	if (p < end && *p == close)
		return p + 1;
	for (;;) {
		if (members) {
			p = json_string(json_ws(p, end), end);
			if (!p || (p = json_ws(p, end)) >= end || *p != ':')
				return NULL;
			p++;
		}
		p = json_value(p, end, depth + 1);
		if (!p || (p = json_ws(p, end)) >= end)
			return NULL;
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static bool json_word(const char *p, const char *end, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(end - p) >= n && memcmp(p, w, n) == 0;
}

static const char *json_value(const char *p, const char *end, int depth)
{
	if (depth > 64 || (p = json_ws(p, end)) >= end)
		return NULL;
	switch (*p) {
	case '{': return json_seq(p, end, '}', true, depth);
	case '[': return json_seq(p, end, ']', false, depth);
	case '"': return json_string(p, end);
	case 't': return json_word(p, end, "true") ? p + 4 : NULL;
	case 'f': return json_word(p, end, "false") ? p + 5 : NULL;
	case 'n': return json_word(p, end, "null") ? p + 4 : NULL;
	default: return json_number(p, end);
	}
}

static bool json_valid(const char *p, const char *end)
{
	p = json_value(p, end, 0);
	return p && json_ws(p, end) == end;
}

/* Each response frame of out[0..len) (the last may be cut short by the
 * end of the loop): status byte, text. */
static void check_replies(const uint8_t *out, size_t len)
{
	while (len >= CTL_HDR_LEN) {
		uint32_t blen = ctl_len_get(out);
		const char *text = (const char *)out + CTL_HDR_LEN + 1, *end;

		if (blen < 1 || blen > len - CTL_HDR_LEN)
			return;
		end = text + blen - 1;
		if (text < end && *text == '{' && !json_valid(text, end)) {
			fprintf(stderr, "conf_daemon: a reply is not JSON: %.*s\n",
				(int)(end - text), text);
			abort();
		}
		out += CTL_HDR_LEN + blen;
		len -= CTL_HDR_LEN + blen;
	}
}

/* What the daemon answered, kept for check_replies. */
struct replies {
	uint8_t *buf;
	size_t len, cap;
	bool full;      /* the rest is not kept: check_replies sees a prefix */
};

enum { REPLIES_MAX = 8 << 20 };

static void out_append(struct replies *r, const uint8_t *p, size_t n)
{
	uint8_t *nb;

	fuzz_sink += n;
	if (r->full)
		return;
	if (r->len + n > r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16384;

		while (cap < r->len + n)
			cap *= 2;
		if (cap > REPLIES_MAX || !(nb = realloc(r->buf, cap))) {
			r->full = true;
			return;
		}
		r->buf = nb;
		r->cap = cap;
	}
	memcpy(r->buf + r->len, p, n);
	r->len += n;
}

static const struct hipd_engine_hooks engine_hooks = { .reload = hipd_engine_reload };

static int daemon_build(struct hipd_daemon *hd, struct hip_loop *loop, struct control *ctl)
{
	char err[HIPD_CONF_ERR_MAX];
	struct hipd *d = &hd->d;
	size_t n;
	int r;

	memset(hd, 0, sizeof(*hd));
	hd->pid_fd = -1;
	hd->opts.config_file = conf_path;
	hd->opts.config_explicit = true;
	d->raw4 = d->raw6 = d->udp4 = d->udp6 = d->priv_fd = -1;
	d->loop = loop;
	d->control = ctl;
	d->send_packet = sink_send;
	d->pick_source = fixed_source;
	r = hipd_conf_build(&d->conf, &hd->opts, err, sizeof(err));
	if (r == 0)
		r = hosts_create(&d->hosts);
	/* own locators as the address watcher would report them (no netlink):
	 * the locator commands work on this set */
	if (r == 0)
		r = locset_create(&d->locset);
	if (r == 0)
		r = own_locator(d->locset, "192.0.2.1");
	if (r == 0)
		r = own_locator(d->locset, "2001:db8::1");
	if (r == 0)
		r = hosts_load_file(d->hosts, d->conf.hosts_file, err, sizeof(err), &n);
	/* the algorithms are cached before any key work (engine.c) */
	if (r == 0 && !kept_hidb && hip_crypto_init() >= 0)
		r = hidb_open(&kept_hidb, d->conf.hi_file, d->conf.hi_algorithm);
	if (r < 0 || !kept_hidb)
		return r < 0 ? r : -EINVAL;
	d->hidb = kept_hidb;
	r = hipd_engine_start(d);
	if (r < 0) {
		kept_hidb = NULL;   /* freed by the failed start */
		return r;
	}
	hd->engine = &engine_hooks;
	hd->engine_started = true;
	return hipd_control_register(hd, hipd_daemon_reload);
}

void conf_daemon_stream(const uint8_t *buf, size_t len, const struct control_cmd *extra,
			size_t n_extra)
{
	struct hipd_daemon hd = { .pid_fd = -1 };
	struct hip_loop *loop = NULL;
	struct control *ctl = NULL;
	int lsv[2] = { -1, -1 }, sv[2] = { -1, -1 }, rounds;
	struct replies out = { 0 };
	uint8_t sink[4096];

	if (tmp_setup() != 0 || hip_loop_create(&loop) != 0)
		goto out;
	/* the "listening" socket is never readable: only the adopted one talks */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, lsv) != 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) != 0)
		goto out;
	if (control_create(&ctl, loop, lsv[0], NULL, NULL) != 0)
		goto out;
	lsv[0] = -1;   /* owned by ctl */
	if (daemon_build(&hd, loop, ctl) != 0 ||
	    control_register_table(ctl, extra, n_extra, NULL) != 0)
		goto out;
	if (control_adopt(ctl, sv[0]) != 0)
		close(sv[0]);
	sv[0] = -1;
	if (len && write(sv[1], buf, len) < 0)
		goto out;
	shutdown(sv[1], SHUT_WR);
	for (rounds = 0; rounds < 64 && control_connection_count(ctl) > 0; rounds++) {
		ssize_t n;

		hip_loop_run_once(loop, 0);
		while ((n = read(sv[1], sink, sizeof(sink))) > 0)
			out_append(&out, sink, (size_t)n);
	}
	check_replies(out.buf, out.len);
out:
	/* the engine first: it unregisters its commands from ctl; it would
	 * free the host identity, which stays for the next input */
	hd.d.hidb = NULL;
	hipd_engine_stop(&hd.d);
	control_free(ctl);
	hosts_free(hd.d.hosts);
	locset_free(hd.d.locset);
	for (rounds = 0; rounds < 2; rounds++) {
		if (lsv[rounds] >= 0)
			close(lsv[rounds]);
		if (sv[rounds] >= 0)
			close(sv[rounds]);
	}
	hip_loop_free(loop);
	free(out.buf);
}
