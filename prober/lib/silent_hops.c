/*
 * silent_hops.c -- naming and reading a set of silent TTLs (silent_hops.h).
 */
#include <stdio.h>
#include <string.h>

#include "silent_hops.h"

uint32_t
silent_hops_from_i64(int64_t v)
{
	if (v <= 0 || v > (int64_t)SILENT_HOPS_MASK)
		return 0;
	return (uint32_t)v & SILENT_HOPS_MASK;
}

/* Appends to buf, truncating. */
static void
app(char *buf, size_t len, const char *s)
{
	size_t n = strlen(buf);

	if (n + 1 < len)
		snprintf(buf + n, len - n, "%s", s);
}

const char *
silent_hops_name(uint32_t set, char *buf, size_t len)
{
	int runs = 0, count = 0;
	char item[24];

	if (len == 0)
		return buf;
	buf[0] = '\0';
	set &= SILENT_HOPS_MASK;
	for (int k = 1; k <= 30; k++)
		if (set & (1u << k))
			count++;
	if (count == 0)
		return buf;
	app(buf, len, count == 1 ? "hop " : "hops ");
	for (int k = 1; k <= 30; k++) {
		int end = k;

		if (!(set & (1u << k)))
			continue;
		while (end < 30 && (set & (1u << (end + 1))))
			end++;
		if (end == k)
			snprintf(item, sizeof(item), "%s%d", runs > 0 ? ", " : "", k);
		else
			snprintf(item, sizeof(item), "%s%d-%d", runs > 0 ? ", " : "", k, end);
		app(buf, len, item);
		runs++;
		k = end;
	}
	return buf;
}

const char *
silent_hops_list(uint32_t set, char *buf, size_t len)
{
	char item[8];

	if (len == 0)
		return buf;
	buf[0] = '\0';
	for (int k = 1; k <= 30; k++)
		if (set & SILENT_HOPS_MASK & (1u << k)) {
			snprintf(item, sizeof(item), "%s%d", buf[0] != '\0' ? " " : "", k);
			app(buf, len, item);
		}
	return buf;
}

void
silent_hops_json(struct json *j, const char *key, uint32_t set)
{
	json_key(j, key);
	json_array_begin(j);
	for (int k = 1; k <= 30; k++)
		if (set & SILENT_HOPS_MASK & (1u << k))
			json_int(j, k);
	json_array_end(j);
}
