/*
 * json.h -- a small JSON writer into a growable buffer, for the NDJSON
 * output: one object per path, one line each.
 *
 * The writer places commas and colons itself; the caller says what comes
 * next.  Strings may come from the network: every byte sequence is turned
 * into valid JSON and valid UTF-8 (control characters escaped, invalid
 * UTF-8 replaced by U+FFFD, one per bad byte).  Misuse (a value where a key
 * is due, an unbalanced end, nesting beyond JSON_MAX_DEPTH) marks the
 * document broken instead of writing invalid JSON; json_ok() tells.
 *
 *	struct json j;
 *	json_init(&j);
 *	json_object_begin(&j);
 *	json_kstring(&j, "target", "example.org");
 *	json_key(&j, "port"); json_int(&j, 80);
 *	json_object_end(&j);
 *	if (json_ok(&j)) fwrite(json_text(&j, &len), 1, len, stdout);
 *	json_reset(&j);		-- the next line, same buffer
 */
#ifndef SCALEPROBE_JSON_H
#define SCALEPROBE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define JSON_MAX_DEPTH 32

/* "2024-05-01T12:34:56.789Z" and its NUL. */
#define JSON_TIME_LEN 25

struct json {
	char *buf;
	size_t len, cap;
	int depth;
	bool first[JSON_MAX_DEPTH];	/* nothing written yet at this level */
	bool object[JSON_MAX_DEPTH];	/* level is an object (else an array) */
	bool key_done;			/* a key was written, its value is due */
	bool top_done;			/* the top-level value is complete */
	bool broken;			/* misuse seen: the text is not JSON */
};

void json_init(struct json *j);
void json_free(struct json *j);
/* Empties the document, keeping the buffer. */
void json_reset(struct json *j);
/* Drops the text so far but keeps the writer's place in the document: a
 * long document is written out piece by piece (json_text, then this), in
 * the memory of one piece. */
void json_clear_text(struct json *j);

void json_object_begin(struct json *j);
void json_object_end(struct json *j);
void json_array_begin(struct json *j);
void json_array_end(struct json *j);

/* The key of the next member (inside an object only). */
void json_key(struct json *j, const char *key);

/* s NUL-terminated; NULL writes null. */
void json_string(struct json *j, const char *s);
/* len bytes, any values (NUL too). */
void json_string_len(struct json *j, const void *s, size_t len);
void json_int(struct json *j, int64_t v);
void json_uint(struct json *j, uint64_t v);
/* Three decimals (milliseconds with microseconds); NaN and infinity: null. */
void json_double(struct json *j, double v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* RFC 3339 UTC time with milliseconds, as a string; null when ts is NULL
 * or outside years 0000..9999. */
void json_time(struct json *j, const struct timespec *ts);

/* Key and value at once. */
void json_kstring(struct json *j, const char *key, const char *s);
void json_kint(struct json *j, const char *key, int64_t v);
/* v, or null when v < 0: a count, port or index the data lacks. */
void json_kint_or_null(struct json *j, const char *key, int64_t v);
void json_kuint(struct json *j, const char *key, uint64_t v);
void json_kbool(struct json *j, const char *key, bool v);
void json_knull(struct json *j, const char *key);
void json_ktime(struct json *j, const char *key, const struct timespec *ts);

/* True when the document is one complete, well-formed value. */
bool json_ok(const struct json *j);
/* The text so far (NUL-terminated), its length in *len (len may be NULL). */
const char *json_text(const struct json *j, size_t *len);

/*
 * "YYYY-MM-DDTHH:MM:SS.mmmZ" for ts (UTC; milliseconds truncated, never
 * rounded up into the next second).  Pure: the caller passes the time.
 * Returns 0, or -1 when len < JSON_TIME_LEN, tv_nsec is not 0..999999999
 * or the year is outside 0000..9999.
 */
int json_format_time(char *buf, size_t len, const struct timespec *ts);

#endif
