/*
 * store_fault.h -- scaleprobe db check's fault lines, for both engines'
 * checks (store_check.c, store_pg_check.c): each one line of printable
 * ASCII to the caller's function, counted.
 */
#ifndef SCALEPROBE_STORE_FAULT_H
#define SCALEPROBE_STORE_FAULT_H

#include "store.h"

struct store_fault_sink {
	store_fault_fn fn;		/* NULL: counted only */
	void *arg;
	int n;
};

void store_fault(struct store_fault_sink *k, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
