/*
 * labcases.h -- tests/lab/cases.tsv read into memory for the verdict
 * tests: each row as the lab path it describes (labpath.h) and what a
 * correct prober reports for it.  Test code only.
 */
#ifndef LABCASES_H
#define LABCASES_H

#include <stdbool.h>

#include "labpath.h"

#define LC_MAX_ROWS 128

struct lc_row {
	char name[40];
	char kind[16];
	char seen_by[48];
	char v4[48], v6[48];
	struct lp_path path;		/* family and dst set per family by lc_path */
	char action[32];		/* path.action points here */
	const char *verdict[3];		/* scales 0, 7, 14 */
	char vbuf[3][16];
	int quoted[3];			/* -1: "null" */
	int hop, clean;			/* -1: "-" */
	char side[96];
};

/* Reads the table at path into rows; returns how many, or -1 with a
 * message in err (a line the model does not know is an error too). */
int lc_read(const char *path, struct lc_row *rows, int max, char *err, size_t errlen);

/* The row's path for one family (ADDR_V4 or ADDR_V6). */
void lc_path(const struct lc_row *r, int family, struct lp_path *p);

#endif
