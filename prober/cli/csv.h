/*
 * csv.h -- rows as RFC 4180 wants them: fields with a comma, a double
 * quote, CR or LF quoted, quotes doubled, every record ending CRLF.  Pure:
 * into a growing buffer the caller writes out.
 */
#ifndef SCALEPROBE_CSV_H
#define SCALEPROBE_CSV_H

#include <stdbool.h>
#include <stddef.h>

struct csv {
	char *p;
	size_t len, cap;
	bool failed;		/* sticky: no memory */
	bool row_open;		/* a field was written on the current row */
};

/* One field (NULL is an empty field). */
void csv_field(struct csv *c, const char *s);
/* Ends the row with CRLF. */
void csv_end_row(struct csv *c);
void csv_free(struct csv *c);

#endif
