/*
 * stats.c - names of the drop counters (hipconf show stats, logs).
 */
#include "stats.h"

static const char *const drop_names[HIPD_DROP_COUNT_] = {
#define X(id, name) [HIPD_DROP_##id] = name,
	HIPD_DROP_COUNTERS(X)
#undef X
};

const char *hipd_drop_name(enum hipd_drop d)
{
	if ((unsigned)d >= HIPD_DROP_COUNT_)
		return "unknown";
	return drop_names[d];
}
