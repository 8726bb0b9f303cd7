/*
 * log.h - hipd logging: syslog (LOG_DAEMON) or stderr, one line per event.
 *
 * Levels are syslog's: LOG_ERR, LOG_WARNING, LOG_NOTICE, LOG_INFO, LOG_DEBUG.
 * Messages above the current level are not even formatted.
 *
 * Never log secrets: no private keys, DH private values, shared secrets,
 * KEYMAT or MAC/ESP keys, at any level. HITs, addresses, SPIs and algorithm
 * names are fine.
 *
 * The logger is process-wide state, like syslog's own (openlog/setlogmask):
 * the one mutable static besides libcrypto-wrap's algorithm cache.
 */
#ifndef HIPD_LOG_H
#define HIPD_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <syslog.h>

enum log_dest {
	LOG_DEST_SYSLOG,     /* openlog(ident, LOG_PID, LOG_DAEMON) */
	LOG_DEST_STDERR,     /* "ident: level: text"; "<N>text" for the journal */
	LOG_DEST_STDERR_PRI, /* always "<N>text" (--log-stderr) */
};

/* Open the log. ident is copied. LOG_DEST_STDERR switches to the "<N>"
 * prefixed form by itself when stderr is the journal (JOURNAL_STREAM names
 * stderr's device:inode, see systemd.exec(5)). Can be called again to switch
 * destination (after daemonizing). */
void log_open(const char *ident, enum log_dest dest);
void log_close(void);

/* Current level: messages with level <= it are written. */
void log_set_level(int level);
int log_get_level(void);
bool log_enabled(int level);
/* "err" | "warning" | "notice" | "info" | "debug" (also "error", "warn"). */
int log_level_from_name(const char *name, int *level);
const char *log_level_name(int level);

void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_vmsg(int level, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

#define log_err(...)    log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...)   log_msg(LOG_WARNING, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_info(...)   log_msg(LOG_INFO, __VA_ARGS__)
/* Debug lines name their function: they are for developers. */
#define log_debug(fmt, ...) \
	do { \
		if (log_enabled(LOG_DEBUG)) \
			log_msg(LOG_DEBUG, "%s: " fmt, __func__, ##__VA_ARGS__); \
	} while (0)

/*
 * Rate limiting for the packet path, where a peer (or an attacker) decides
 * how often a line would be written. One struct per call site, owned by the
 * caller (a module's context), at most `burst` lines per `interval_ns`. The
 * first line let through after some were suppressed is preceded by
 * "N similar messages suppressed".
 */
struct log_ratelimit {
	uint64_t interval_ns;
	unsigned burst;
	uint64_t window_start;   /* monotonic ns, 0 = no window yet */
	unsigned printed;        /* lines in the current window */
	unsigned suppressed;     /* lines dropped since the last report */
};

#define LOG_RATELIMIT_INIT(interval_ms, burst_) \
	{ .interval_ns = (uint64_t)(interval_ms) * 1000000u, .burst = (burst_) }

void log_ratelimit_init(struct log_ratelimit *rl, unsigned interval_ms, unsigned burst);
/* The decision alone, at time now_ns: true if a line may be written now;
 * *report receives the count of suppressed lines to announce first (0 if
 * none). Exposed for tests and for callers with their own clock. */
bool log_ratelimit_check(struct log_ratelimit *rl, uint64_t now_ns, unsigned *report);
void log_ratelimited(struct log_ratelimit *rl, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
