/*
 * fuzz_conf.c - libFuzzer target for hipd's text and framing parsers. The
 * first byte picks the parser, the rest is its input:
 *   0: hipd.conf (parse, finalize, print every key back)
 *   1: hosts file (load twice, so the reload merge runs, then runtime edits)
 *   2: a control request body (ctl_request_decode)
 *   3: a byte stream into a live control connection (framing, dispatch)
 *      of a daemon built for the input (tests/fuzz/conf_daemon.c) with an
 *      in-process engine: the real hipconf handlers, parsing what users
 *      type: add/del/show map(s), set loglevel, show config, reload
 *      (hipd/control_cmds.c); add/del/hide/unhide/show locator(s), rekey
 *      (mobility_ctl.c); show hi/associations/stats, trigger, close, set
 *      puzzle (engine_ctl.c); show/add/del server(s), show registrations
 *      (engine_reg.c); and two commands of its own, echo and show echo.
 *      Packets go to a sink, 'reload' reads a file of a temporary
 *      directory; the hosts file maps 2001:2a::7 (for 'trigger').
 * Seeds: fuzz/corpus/conf/. No crash, no sanitizer report, whatever the
 * input.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "conf_daemon.h"
#include "control/control.h"
#include "control_proto.h"
#include "net/net.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t fuzz_sink;

static void fuzz_conf(const char *buf, size_t len)
{
	char err[HIPD_CONF_ERR_MAX], val[HIPD_PATH_MAX];
	enum hipd_conf_vtype t;
	struct hipd_conf c;
	const char *key;
	size_t i;

	hipd_conf_defaults(&c);
	if (hipd_conf_parse(&c, "fuzz.conf", buf, len, err, sizeof(err)) == 0)
		hipd_conf_finalize(&c, err, sizeof(err));
	fuzz_sink += strlen(err);
	for (i = 0; (key = hipd_conf_get(&c, i, val, sizeof(val), &t)); i++)
		fuzz_sink += strlen(val) + (size_t)t;
}

static int touch_entry(const struct hosts_entry *e, void *arg)
{
	fuzz_sink += e->n_loc;
	return 0;
}

static void fuzz_hosts(const char *buf, size_t len)
{
	struct hip_hit hit = { { 0x20, 0x01, 0x00, 0x2a } };
	struct hip_addr a;
	struct hosts *h;
	char err[512];
	size_t n;

	if (hosts_create(&h) != 0)
		return;
	hip_addr_from_str("192.0.2.1", &a);
	hosts_add(h, &hit, &a);
	if (hosts_load_buf(h, "fuzz", buf, len, err, sizeof(err), &n) == 0) {
		hosts_load_buf(h, "fuzz", buf, len / 2, err, sizeof(err), &n);
		hosts_foreach(h, touch_entry, NULL);
		hosts_del(h, &hit, NULL);
	}
	hosts_free(h);
}

static void fuzz_request(const uint8_t *buf, size_t len)
{
	const char *argv[CTL_ARGS_MAX];
	uint8_t flags;
	int argc, i;

	if (ctl_request_decode(buf, len, &flags, argv, &argc) != 0)
		return;
	for (i = 0; i < argc; i++)
		fuzz_sink += strlen(argv[i]);
}

static int echo_cmd(const struct control_request *req, struct control_reply *rep, void *arg)
{
	int i;

	for (i = 0; i < req->argc; i++) {
		control_reply_json_str(rep, req->argv[i]);
		control_reply_printf(rep, "%d", i);
	}
	return req->argc ? CTL_OK : control_reply_error(rep, CTL_EFAILED, "none");
}

static const struct control_cmd fuzz_cmds[] = {
	{ "echo", "WORD...", 0, CTL_ARGS_MAX - 1, false, echo_cmd, "echo" },
	{ "show echo", "[WORD]", 0, 1, true, echo_cmd, "echo" },
};

static void fuzz_stream(const uint8_t *buf, size_t len)
{
	conf_daemon_stream(buf, len, fuzz_cmds, sizeof(fuzz_cmds) / sizeof(fuzz_cmds[0]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	log_set_level(LOG_ERR);   /* quiet */
	switch (data[0] & 3) {
	case 0:
		fuzz_conf((const char *)data + 1, size - 1);
		break;
	case 1:
		fuzz_hosts((const char *)data + 1, size - 1);
		break;
	case 2:
		fuzz_request(data + 1, size - 1);
		break;
	case 3:
		fuzz_stream(data + 1, size - 1);
		break;
	}
	return 0;
}
