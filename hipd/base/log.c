/*
 * log.c - syslog / stderr logging with levels and rate limiting.
 */
#include "log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { LOG_LINE_MAX = 1024 };

/* Process-wide, like syslog's own state (see log.h). */
static struct {
	enum log_dest dest;
	bool pri_prefix;      /* "<N>" in front of stderr lines (journald) */
	bool syslog_open;
	int level;
	char ident[32];
} log_state = { .dest = LOG_DEST_STDERR, .level = LOG_INFO, .ident = "hipd" };

static const struct {
	const char *name;
	int level;
} log_levels[] = {
	{ "err", LOG_ERR }, { "warning", LOG_WARNING }, { "notice", LOG_NOTICE },
	{ "info", LOG_INFO }, { "debug", LOG_DEBUG },
	/* accepted spellings, never printed */
	{ "error", LOG_ERR }, { "warn", LOG_WARNING },
};

/* systemd.exec(5): JOURNAL_STREAM="DEV:INODE" of the stream connected to
 * stdout/stderr. Only trust it when it really describes our stderr (a child
 * may inherit the variable with stderr redirected elsewhere). */
static bool stderr_is_journal(void)
{
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!env || sscanf(env, "%llu:%llu", &dev, &ino) != 2)
		return false;
	if (fstat(STDERR_FILENO, &st) != 0)
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void log_open(const char *ident, enum log_dest dest)
{
	if (log_state.syslog_open) {
		closelog();
		log_state.syslog_open = false;
	}
	if (ident)
		snprintf(log_state.ident, sizeof(log_state.ident), "%s", ident);
	log_state.dest = dest;
	log_state.pri_prefix = dest == LOG_DEST_STDERR_PRI ||
			       (dest == LOG_DEST_STDERR && stderr_is_journal());
	if (dest == LOG_DEST_SYSLOG) {
		/* openlog keeps the pointer: log_state.ident lives forever */
		openlog(log_state.ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
		log_state.syslog_open = true;
	}
}

void log_close(void)
{
	if (log_state.syslog_open)
		closelog();
	log_state.syslog_open = false;
	log_state.dest = LOG_DEST_STDERR;
	log_state.pri_prefix = false;
}

void log_set_level(int level)
{
	if (level < LOG_ERR)
		level = LOG_ERR;
	if (level > LOG_DEBUG)
		level = LOG_DEBUG;
	log_state.level = level;
}

int log_get_level(void)
{
	return log_state.level;
}

bool log_enabled(int level)
{
	return level <= log_state.level;
}

int log_level_from_name(const char *name, int *level)
{
	size_t i;

	if (!name)
		return -EINVAL;
	for (i = 0; i < sizeof(log_levels) / sizeof(log_levels[0]); i++) {
		if (strcmp(name, log_levels[i].name) == 0) {
			*level = log_levels[i].level;
			return 0;
		}
	}
	return -EINVAL;
}

const char *log_level_name(int level)
{
	size_t i;

	for (i = 0; i < sizeof(log_levels) / sizeof(log_levels[0]); i++)
		if (log_levels[i].level == level)
			return log_levels[i].name;
	return level < LOG_ERR ? "err" : "debug";
}

/* One event, one line: control characters (from peer-supplied text, say)
 * become '?', so nothing can forge or split log lines. */
static void sanitize_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

static void write_stderr(int level, const char *line)
{
	char out[LOG_LINE_MAX + 64];
	int n;

	if (log_state.pri_prefix)
		n = snprintf(out, sizeof(out), "<%d>%s\n", level, line);
	else
		n = snprintf(out, sizeof(out), "%s: %s: %s\n", log_state.ident,
			     log_level_name(level), line);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(out))
		n = sizeof(out) - 1;
	/* one write(2) per line, so concurrent writers do not interleave */
	if (write(STDERR_FILENO, out, (size_t)n) < 0)
		return;
}

void log_vmsg(int level, const char *fmt, va_list ap)
{
	char line[LOG_LINE_MAX];
	int saved_errno = errno;
	int n;

	if (!log_enabled(level))
		return;
	n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n < 0)
		goto out;
	if ((size_t)n >= sizeof(line))
		memcpy(line + sizeof(line) - 4, "...", 4);
	sanitize_line(line);
	if (log_state.dest == LOG_DEST_SYSLOG)
		syslog(level, "%s", line);
	else
		write_stderr(level, line);
out:
	errno = saved_errno; /* callers may log between a call and its errno */
}

void log_msg(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}

void log_ratelimit_init(struct log_ratelimit *rl, unsigned interval_ms, unsigned burst)
{
	memset(rl, 0, sizeof(*rl));
	rl->interval_ns = (uint64_t)interval_ms * 1000000u;
	rl->burst = burst;
}

bool log_ratelimit_check(struct log_ratelimit *rl, uint64_t now_ns, unsigned *report)
{
	*report = 0;
	if (rl->window_start == 0 || now_ns - rl->window_start >= rl->interval_ns) {
		rl->window_start = now_ns ? now_ns : 1;
		rl->printed = 0;
	}
	if (rl->printed >= rl->burst) {
		if (rl->suppressed < UINT32_MAX)
			rl->suppressed++;
		return false;
	}
	rl->printed++;
	*report = rl->suppressed;
	rl->suppressed = 0;
	return true;
}

void log_ratelimited(struct log_ratelimit *rl, int level, const char *fmt, ...)
{
	struct timespec ts;
	unsigned report;
	va_list ap;

	/* Suppressed lines are not formatted either: that is the point. */
	if (!log_enabled(level))
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (!log_ratelimit_check(rl, (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec,
				 &report))
		return;
	if (report)
		log_msg(level, "... %u similar messages suppressed", report);
	va_start(ap, fmt);
	log_vmsg(level, fmt, ap);
	va_end(ap);
}
