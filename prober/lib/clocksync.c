/*
 * clocksync.c -- the readings of clocksync.h: pure, on bytes given.
 */
#include <string.h>

#include "clocksync.h"

const char *
clock_sync_name(enum clock_sync c)
{
	switch (c) {
	case CLOCK_SYNC_YES:
		return "synchronised";
	case CLOCK_SYNC_NO:
		return "unsynchronised";
	case CLOCK_SYNC_UNKNOWN:
		return "unknown";
	case CLOCK_SYNC_NONE:
		break;
	}
	return NULL;
}

enum clock_sync
clocksync_timesyncd(bool present, int64_t age_s)
{
	return present && age_s >= -60 && age_s <= CLOCKSYNC_TIMESYNCD_MAX_AGE_S ?
	    CLOCK_SYNC_YES : CLOCK_SYNC_UNKNOWN;
}

/* chronyc -c tracking's fields: reference id, name, stratum, reference
 * time, system time, last offset, RMS offset, frequency, residual
 * frequency, skew, root delay, root dispersion, update interval, leap */
#define CHRONY_FIELDS	14

enum clock_sync
clocksync_chrony(const char *out, size_t len)
{
	static const struct { const char *s; enum clock_sync c; } leap[] = {
		{ "Normal", CLOCK_SYNC_YES },
		{ "Insert second", CLOCK_SYNC_YES },
		{ "Delete second", CLOCK_SYNC_YES },
		{ "Not synchronised", CLOCK_SYNC_NO },
	};
	size_t fields = 1, last = 0, end = len;

	if (out == NULL)
		return CLOCK_SYNC_UNKNOWN;
	/* one line: a final newline allowed, nothing after it */
	if (end > 0 && out[end - 1] == '\n')
		end--;
	for (size_t i = 0; i < end; i++) {
		if (out[i] == '\n' || out[i] == '\0')
			return CLOCK_SYNC_UNKNOWN;
		if (out[i] == ',') {
			fields++;
			last = i + 1;
		}
	}
	if (fields != CHRONY_FIELDS)
		return CLOCK_SYNC_UNKNOWN;
	for (size_t i = 0; i < sizeof(leap) / sizeof(leap[0]); i++)
		if (end - last == strlen(leap[i].s) && memcmp(out + last, leap[i].s, end - last) == 0)
			return leap[i].c;
	return CLOCK_SYNC_UNKNOWN;
}
