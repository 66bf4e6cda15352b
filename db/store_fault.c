/*
 * store_fault.c -- one fault line of scaleprobe db check (store_fault.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "store_fault.h"
#include "textsafe.h"

/* A fault line holds names and the database's messages, which quote its
 * own bytes (a schema's token, a table's name): escaped here into one line
 * of printable ASCII, since db check prints the lines as they are. */
void
store_fault(struct store_fault_sink *k, const char *fmt, ...)
{
	char line[1024], safe[TEXTSAFE_SIZE(sizeof(line))];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	k->n++;
	if (k->fn != NULL)
		k->fn(k->arg, textsafe(safe, sizeof(safe), line, strlen(line), TEXTSAFE_ASCII));
}
