/*
 * store_where.c -- what a database setting names: a PostgreSQL connection
 * URI or a SQLite file, and the name messages may carry (a URI's password
 * cut out, so a log line or an error never shows it).
 */
#include <stdio.h>
#include <string.h>

#include "store_engine.h"

bool
store_is_uri(const char *where)
{
	return where != NULL && (strncmp(where, "postgresql://", 13) == 0 ||
	    strncmp(where, "postgres://", 11) == 0);
}

/* Appends s[0..n) to out (len bytes, *used taken), cut when full. */
static void
put(char *out, size_t len, size_t *used, const char *s, size_t n)
{
	if (*used + 1 >= len)
		return;
	if (n > len - 1 - *used)
		n = len - 1 - *used;
	memcpy(out + *used, s, n);
	*used += n;
	out[*used] = '\0';
}

void
store_where_safe(const char *where, char *out, size_t len)
{
	const char *p, *auth, *end, *at, *colon;
	size_t used = 0;

	if (len == 0)
		return;
	out[0] = '\0';
	if (where == NULL)
		return;
	if (!store_is_uri(where)) {
		snprintf(out, len, "%s", where);
		return;
	}
	auth = strstr(where, "://") + 3;
	end = auth + strcspn(auth, "/?#");
	/* the user info ends at the authority's last '@' */
	for (at = NULL, p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	put(out, len, &used, where, (size_t)(auth - where));
	if (at != NULL) {
		colon = memchr(auth, ':', (size_t)(at - auth));
		put(out, len, &used, auth, (size_t)((colon != NULL ? colon : at) - auth));
		auth = at;
	}
	/* the rest, with every password= parameter's value cut */
	for (p = auth; *p != '\0';) {
		const char *q = strstr(p, "password=");

		if (q == NULL || (q != where && q[-1] != '?' && q[-1] != '&')) {
			if (q == NULL) {
				put(out, len, &used, p, strlen(p));
				break;
			}
			put(out, len, &used, p, (size_t)(q + 9 - p));
			p = q + 9;
			continue;
		}
		put(out, len, &used, p, (size_t)(q + 9 - p));
		put(out, len, &used, "***", 3);
		p = q + 9 + strcspn(q + 9, "&#");
	}
}
