/*
 * conf_daemon.h - the real hipconf command handlers for fuzz/fuzz_conf.c's
 * stream selector: a daemon and an in-process engine (conf_daemon.c).
 */
#ifndef FUZZ_CONF_DAEMON_H
#define FUZZ_CONF_DAEMON_H

#include <stddef.h>
#include <stdint.h>

struct control_cmd;

/* Feed buf into a fresh control connection of a daemon built for this
 * input, with every real command registered (control_cmds.c,
 * mobility_ctl.c, engine_ctl.c, engine_reg.c) and the n_extra commands
 * of extra (arg NULL); run the loop until the connection is gone; free
 * everything. */
void conf_daemon_stream(const uint8_t *buf, size_t len, const struct control_cmd *extra,
			size_t n_extra);

#endif
