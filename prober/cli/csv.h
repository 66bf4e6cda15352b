/*
 * csv.h -- rows as RFC 4180 wants them: fields with a comma, a double
 * quote, CR or LF quoted, quotes doubled, every record ending CRLF.  Pure:
 * into a growing buffer the caller writes out.
 *
 * A text field a spreadsheet would take for a formula (its first byte one
 * of = + - @, tab or CR: "=HYPERLINK(...)", "@SUM(...)", "-2+3") is written
 * with a single quote before it, as OWASP's CSV injection advice has it:
 * Excel, LibreOffice and Google Sheets then show it as text.  The quote is
 * in the bytes (a program reading the file sees it); numbers go through
 * csv_number, so that a negative one stays a number.  A text field's
 * control characters but the line break are escaped as textsafe.h writes
 * them (backslashes kept): a CSV file is also shown with cat.
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

/* The first bytes that make a spreadsheet read a cell as a formula. */
#define CSV_FORMULA_LEADS "=+-@\t\r"

/* One text field (NULL is an empty field), neutralised as above. */
void csv_field(struct csv *c, const char *s);
/* One field as it is: a number the caller formatted. */
void csv_number(struct csv *c, const char *s);
/* Ends the row with CRLF. */
void csv_end_row(struct csv *c);
/* Drops the rows so far, keeping the buffer: a long file written out a
 * row at a time. */
void csv_clear(struct csv *c);
void csv_free(struct csv *c);

#endif
