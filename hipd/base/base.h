/*
 * base.h - the public face of hipd/base/: what every part of the daemon
 * uses and none of it owns: logging (log.h), the event loop and its timers
 * (loop.h), the configuration (conf.h), counters (stats.h), per-source
 * rate limits (ratelimit.h), systemd notification (sdnotify.h), SipHash
 * (siphash.h). Nothing in base/ includes another folder of hipd/.
 */
#ifndef HIPD_BASE_H
#define HIPD_BASE_H

#include "conf.h"
#include "log.h"
#include "loop.h"
#include "ratelimit.h"
#include "sdnotify.h"
#include "siphash.h"
#include "stats.h"

#endif
