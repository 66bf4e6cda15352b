/*
 * when.c -- RFC 3339 and ages, both ways (when.h).  Civil dates by Howard
 * Hinnant's days_from_civil / civil_from_days, so no tm, no TZ, no locale.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "when.h"

#define DAY 86400

int64_t
when_days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3u : 9u)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static void
civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t era;
	unsigned doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static bool
leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static unsigned
month_days(int64_t y, unsigned m)
{
	static const unsigned days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return m == 2 && leap(y) ? 29 : days[m - 1];
}

/* n digits at *p into *v; advances *p. */
static bool
digits(const char **p, int n, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < n; i++) {
		if ((*p)[i] < '0' || (*p)[i] > '9')
			return false;
		*v = *v * 10 + (unsigned)((*p)[i] - '0');
	}
	*p += n;
	return true;
}

static bool
rfc3339(const char *s, int64_t *out)
{
	const char *p = s;
	unsigned y, mo, d, h = 0, mi = 0, sec = 0, oh, om;
	int64_t t, sign;

	if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) || *p++ != '-' ||
	    !digits(&p, 2, &d))
		return false;
	if (mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo))
		return false;
	t = when_days_from_civil(y, mo, d) * DAY;
	if (*p == '\0') {
		*out = t;
		return true;
	}
	if ((*p != 'T' && *p != 't' && *p != ' ') || (p++, !digits(&p, 2, &h)) ||
	    *p++ != ':' || !digits(&p, 2, &mi) || *p++ != ':' || !digits(&p, 2, &sec))
		return false;
	/* a leap second is the last second of its minute here */
	if (h > 23 || mi > 59 || sec > 60)
		return false;
	if (sec == 60)
		sec = 59;
	if (*p == '.') {
		if (p[1] < '0' || p[1] > '9')
			return false;
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	}
	t += h * 3600 + mi * 60 + sec;
	if ((*p == 'Z' || *p == 'z') && p[1] == '\0') {
		*out = t;
		return true;
	}
	if (*p != '+' && *p != '-')
		return false;
	sign = *p++ == '+' ? 1 : -1;
	if (!digits(&p, 2, &oh) || *p++ != ':' || !digits(&p, 2, &om) || *p != '\0' ||
	    oh > 23 || om > 59)
		return false;
	/* local time = UTC + offset */
	*out = t - sign * (int64_t)(oh * 3600 + om * 60);
	return true;
}

static bool
age(const char *s, int64_t now, int64_t *out)
{
	uint64_t n = 0;
	const char *p = s;
	int64_t unit;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		n = n * 10 + (uint64_t)(*p - '0');
		if (n > 100000000)	/* beyond any history: refuse, not wrap */
			return false;
	}
	switch (*p) {
	case 's': unit = 1; break;
	case 'm': unit = 60; break;
	case 'h': unit = 3600; break;
	case 'd': unit = DAY; break;
	case 'w': unit = 7 * DAY; break;
	default: return false;
	}
	if (p[1] != '\0')
		return false;
	*out = now - (int64_t)n * unit;
	return true;
}

int
when_parse(const char *s, int64_t now, int64_t *out, char *err, size_t errlen)
{
	if (s != NULL && (age(s, now, out) || rfc3339(s, out)))
		return 0;
	snprintf(err, errlen, "'%s': expected a date (2026-12-01T10:00:00Z, or with an "
	    "offset) or an age (7d, 24h, 90m, 30s, 2w)", s != NULL ? s : "");
	return -1;
}

void
when_format_utc(int64_t t, char buf[WHEN_RFC3339_LEN])
{
	int64_t days = t >= 0 ? t / DAY : -((-t + DAY - 1) / DAY), y;
	int64_t rem = t - days * DAY;
	unsigned m, d;

	civil_from_days(days, &y, &m, &d);
	if (y < 0 || y > 9999) {
		snprintf(buf, WHEN_RFC3339_LEN, "-");
		return;
	}
	/* every field in range by construction; written digit by digit so
	 * the compiler need not prove it */
	unsigned v[6] = { (unsigned)y, m, d, (unsigned)(rem / 3600),
	    (unsigned)(rem % 3600 / 60), (unsigned)(rem % 60) };
	memcpy(buf, "0000-00-00T00:00:00Z", WHEN_RFC3339_LEN);
	for (int i = 3; i >= 0; i--, v[0] /= 10)
		buf[i] = (char)('0' + v[0] % 10);
	for (int f = 1; f < 6; f++) {
		buf[2 + 3 * f] = (char)('0' + v[f] / 10 % 10);
		buf[3 + 3 * f] = (char)('0' + v[f] % 10);
	}
}

uint64_t
when_stamp_mono(int64_t stamp_sec, int64_t stamp_usec, int64_t real_now_ns,
    uint64_t mono_now_ns)
{
	int64_t age;

	/* out of any range a kernel gives: no stamp (and no overflow below) */
	if (stamp_sec <= 0 || stamp_sec > INT64_MAX / 1000000000 - 1 ||
	    stamp_usec < 0 || stamp_usec > 999999 || real_now_ns <= 0)
		return mono_now_ns;
	age = real_now_ns - (stamp_sec * 1000000000 + stamp_usec * 1000);
	if (age <= 0 || age > WHEN_STAMP_MAX_AGE || (uint64_t)age > mono_now_ns)
		return mono_now_ns;
	return mono_now_ns - (uint64_t)age;
}

struct timespec
when_ns_timespec(int64_t ns)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(ns / 1000000000);
	ts.tv_nsec = (long)(ns % 1000000000);
	if (ts.tv_nsec < 0) {
		ts.tv_sec--;
		ts.tv_nsec += 1000000000;
	}
	return ts;
}
