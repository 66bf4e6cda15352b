/*
 * when.h -- points in time as users write them and as machines read them:
 * RFC 3339 ("2026-12-01T10:00:00Z", an offset, fractions; a bare date is
 * its midnight UTC) or relative to now ("7d", "24h", "90m", "30s", "2w",
 * meaning that long ago).  Pure: now is handed in, no time zone is read.
 */
#ifndef SCALEPROBE_WHEN_H
#define SCALEPROBE_WHEN_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define WHEN_RFC3339_LEN 21	/* "YYYY-MM-DDTHH:MM:SSZ" and its NUL */

/* Seconds since the epoch (UTC) into *out; 0, or -1 with a one-line
 * reason in err ("'7x': expected a date (2026-12-01T10:00:00Z) or an age
 * (7d, 24h, 90m, 30s, 2w)"). */
int when_parse(const char *s, int64_t now, int64_t *out, char *err, size_t errlen);

/* t as RFC 3339 UTC, "2026-12-01T10:00:00Z"; years 0..9999 only (others
 * give "-"). */
void when_format_utc(int64_t t, char buf[WHEN_RFC3339_LEN]);

/* ns since the epoch as a timespec, tv_nsec in 0..999999999 also before
 * 1970 (the store keeps ns; JSON and the clocks take timespecs). */
struct timespec when_ns_timespec(int64_t ns);

/* A capture's packet timestamp (CLOCK_REALTIME: stamp_sec, stamp_usec, as
 * libpcap gives the kernel's receive time) on the monotonic clock, by the
 * offset the two clocks show now (real_now_ns, mono_now_ns, read together
 * by the caller).  Never later than mono_now_ns: a stamp in the future
 * (the wall clock stepped back), none (0), or older than WHEN_STAMP_MAX_AGE
 * (the wall clock stepped forward) reads as mono_now_ns, the time the
 * packet was read. */
#define WHEN_STAMP_MAX_AGE 1000000000ll	/* 1 s */
uint64_t when_stamp_mono(int64_t stamp_sec, int64_t stamp_usec, int64_t real_now_ns,
    uint64_t mono_now_ns);

/* Days since 1970-01-01 of a civil date (proleptic Gregorian). */
int64_t when_days_from_civil(int64_t y, unsigned m, unsigned d);

#endif
