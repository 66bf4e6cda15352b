/*
 * json.c -- the JSON writer: structure (commas, nesting, misuse), string
 * escaping that makes any bytes valid JSON and UTF-8, numbers, and RFC
 * 3339 time stamps computed without the C library's time zone machinery.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "log.h"

void
json_init(struct json *j)
{
	memset(j, 0, sizeof(*j));
	j->cap = 256;
	j->buf = xmalloc(j->cap);
	j->buf[0] = '\0';
}

void
json_free(struct json *j)
{
	free(j->buf);
	memset(j, 0, sizeof(*j));
}

void
json_reset(struct json *j)
{
	char *buf = j->buf;
	size_t cap = j->cap;

	memset(j, 0, sizeof(*j));
	j->buf = buf;
	j->cap = cap;
	j->buf[0] = '\0';
}

void
json_clear_text(struct json *j)
{
	j->len = 0;
	j->buf[0] = '\0';
}

static void
json_put(struct json *j, const char *s, size_t n)
{
	if (j->cap - j->len <= n) {
		while (j->cap - j->len <= n)
			j->cap *= 2;
		j->buf = xrealloc(j->buf, j->cap);
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

static void
json_putc(struct json *j, char c)
{
	json_put(j, &c, 1);
}

/* Is a value allowed here?  Writes the comma before an array element. */
static bool
json_value_begin(struct json *j)
{
	if (j->broken)
		return false;
	if (j->depth == 0) {
		if (j->top_done)
			j->broken = true;
		return !j->broken;
	}
	if (j->object[j->depth - 1]) {
		if (!j->key_done)
			j->broken = true;
		j->key_done = false;
		return !j->broken;
	}
	if (!j->first[j->depth - 1])
		json_putc(j, ',');
	j->first[j->depth - 1] = false;
	return true;
}

static void
json_value_end(struct json *j)
{
	if (j->depth == 0)
		j->top_done = true;
}

static void
json_open(struct json *j, char c, bool object)
{
	if (!json_value_begin(j))
		return;
	if (j->depth == JSON_MAX_DEPTH) {
		j->broken = true;
		return;
	}
	json_putc(j, c);
	j->first[j->depth] = true;
	j->object[j->depth] = object;
	j->depth++;
}

static void
json_close(struct json *j, char c, bool object)
{
	if (j->broken)
		return;
	if (j->depth == 0 || j->object[j->depth - 1] != object || j->key_done) {
		j->broken = true;
		return;
	}
	json_putc(j, c);
	j->depth--;
	json_value_end(j);
}

void
json_object_begin(struct json *j)
{
	json_open(j, '{', true);
}

void
json_object_end(struct json *j)
{
	json_close(j, '}', true);
}

void
json_array_begin(struct json *j)
{
	json_open(j, '[', false);
}

void
json_array_end(struct json *j)
{
	json_close(j, ']', false);
}

/* Length of the valid UTF-8 sequence at s (2..4), or 0 when s[0] does not
 * start one: overlong forms, surrogates and code points past U+10FFFF
 * are invalid (RFC 3629). */
static size_t
json_utf8_len(const uint8_t *s, size_t n)
{
	uint8_t c = s[0], lo = 0x80, hi = 0xbf;
	size_t need;

	if (c >= 0xc2 && c <= 0xdf)
		need = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		need = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (n < need || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < need; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return need;
}

/* The escaped string, quotes included. */
static void
json_put_string(struct json *j, const void *str, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *s = str;
	size_t i = 0;

	json_putc(j, '"');
	while (i < len) {
		uint8_t c = s[i];
		size_t run = i, n;

		/* copy plain ASCII in runs */
		while (run < len && s[run] >= 0x20 && s[run] < 0x7f &&
		    s[run] != '"' && s[run] != '\\')
			run++;
		if (run > i) {
			json_put(j, (const char *)s + i, run - i);
			i = run;
			continue;
		}
		switch (c) {
		case '"':  json_put(j, "\\\"", 2); i++; continue;
		case '\\': json_put(j, "\\\\", 2); i++; continue;
		case '\b': json_put(j, "\\b", 2); i++; continue;
		case '\f': json_put(j, "\\f", 2); i++; continue;
		case '\n': json_put(j, "\\n", 2); i++; continue;
		case '\r': json_put(j, "\\r", 2); i++; continue;
		case '\t': json_put(j, "\\t", 2); i++; continue;
		default:
			break;
		}
		if (c < 0x80) {
			/* other controls and DEL: never raw on a terminal */
			char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf] };

			json_put(j, esc, sizeof(esc));
			i++;
		} else if ((n = json_utf8_len(s + i, len - i)) == 0) {
			json_put(j, "\\ufffd", 6);
			i++;
		} else if (n == 3 && c == 0xe2 && s[i + 1] == 0x80 &&
		    (s[i + 2] == 0xa8 || s[i + 2] == 0xa9)) {
			/* U+2028, U+2029: valid JSON, but line breaks to
			 * JavaScript and to some line-oriented readers */
			json_put(j, s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029", 6);
			i += 3;
		} else {
			json_put(j, (const char *)s + i, n);
			i += n;
		}
	}
	json_putc(j, '"');
}

void
json_key(struct json *j, const char *key)
{
	if (j->broken)
		return;
	if (j->depth == 0 || !j->object[j->depth - 1] || j->key_done) {
		j->broken = true;
		return;
	}
	if (!j->first[j->depth - 1])
		json_putc(j, ',');
	j->first[j->depth - 1] = false;
	json_put_string(j, key, strlen(key));
	json_putc(j, ':');
	j->key_done = true;
}

void
json_string_len(struct json *j, const void *s, size_t len)
{
	if (!json_value_begin(j))
		return;
	json_put_string(j, s, len);
	json_value_end(j);
}

void
json_string(struct json *j, const char *s)
{
	if (s == NULL)
		json_null(j);
	else
		json_string_len(j, s, strlen(s));
}

/* A literal token: a number, true, false, null. */
static void
json_token(struct json *j, const char *tok)
{
	if (!json_value_begin(j))
		return;
	json_put(j, tok, strlen(tok));
	json_value_end(j);
}

void
json_int(struct json *j, int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	json_token(j, buf);
}

void
json_uint(struct json *j, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	json_token(j, buf);
}

void
json_double(struct json *j, double v)
{
	char buf[40];

	/* JSON has no NaN or infinity: they are not measurements */
	if (!isfinite(v)) {
		json_token(j, "null");
		return;
	}
	snprintf(buf, sizeof(buf), "%.3f", v);
	json_token(j, buf);
}

void
json_bool(struct json *j, bool v)
{
	json_token(j, v ? "true" : "false");
}

void
json_null(struct json *j)
{
	json_token(j, "null");
}

void
json_time(struct json *j, const struct timespec *ts)
{
	char buf[JSON_TIME_LEN];

	if (ts == NULL || json_format_time(buf, sizeof(buf), ts) == -1)
		json_null(j);
	else
		json_string(j, buf);
}

void
json_kstring(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

void
json_kint(struct json *j, const char *key, int64_t v)
{
	json_key(j, key);
	json_int(j, v);
}

void
json_kint_or_null(struct json *j, const char *key, int64_t v)
{
	json_key(j, key);
	if (v < 0)
		json_null(j);
	else
		json_int(j, v);
}

void
json_kuint(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_uint(j, v);
}

void
json_kbool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}

void
json_knull(struct json *j, const char *key)
{
	json_key(j, key);
	json_null(j);
}

void
json_ktime(struct json *j, const char *key, const struct timespec *ts)
{
	json_key(j, key);
	json_time(j, ts);
}

bool
json_ok(const struct json *j)
{
	return !j->broken && j->depth == 0 && j->top_done;
}

const char *
json_text(const struct json *j, size_t *len)
{
	if (len != NULL)
		*len = j->len;
	return j->buf;
}

/* Civil date of a day count from 1970-01-01 (H. Hinnant's days_from_civil
 * inverted): proleptic Gregorian, valid for any int64 day count here. */
static void
json_civil(int64_t days, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);			/* 0..146096 */
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);		/* 0..365 */
	unsigned mp = (5 * doy + 2) / 153;				/* 0..11, from March */

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

int
json_format_time(char *buf, size_t len, const struct timespec *ts)
{
	/* 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z */
	const int64_t lo = -62167219200LL, hi = 253402300799LL;
	int64_t s = (int64_t)ts->tv_sec, days, secs, y;
	unsigned m, d;

	if (len < JSON_TIME_LEN || ts->tv_nsec < 0 || ts->tv_nsec > 999999999 ||
	    s < lo || s > hi)
		return -1;
	days = s >= 0 ? s / 86400 : -((-s + 86399) / 86400);
	secs = s - days * 86400;
	json_civil(days, &y, &m, &d);
	snprintf(buf, len, "%04d-%02u-%02uT%02d:%02d:%02d.%03ldZ", (int)y, m, d,
	    (int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60),
	    (long)(ts->tv_nsec / 1000000));
	return 0;
}
