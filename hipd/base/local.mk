# hipd/base: logging, event loop and timers, configuration, counters, rate
# limits, systemd notification, SipHash (public header: base/base.h)
hipd_libhipd_a_SOURCES += \
	hipd/base/base.h \
	hipd/base/log.h hipd/base/log.c \
	hipd/base/loop.h hipd/base/loop.c \
	hipd/base/conf.h hipd/base/conf_int.h hipd/base/conf.c hipd/base/conf_keys.c \
	hipd/base/conf_prefix.c \
	hipd/base/stats.h hipd/base/stats.c \
	hipd/base/ratelimit.h hipd/base/ratelimit.c \
	hipd/base/sdnotify.h hipd/base/sdnotify.c \
	hipd/base/siphash.h hipd/base/siphash.c
