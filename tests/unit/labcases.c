/*
 * labcases.c -- tests/lab/cases.tsv as lab paths and expectations
 * (labcases.h).  Every column the model uses is checked against the values
 * it knows, so a new kind of row fails the test instead of passing as
 * something else.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "labcases.h"

#define LC_MAX_COLS 32

struct lc_cols {
	int n;
	char *col[LC_MAX_COLS];
};

static int
lc_split(char *line, struct lc_cols *c)
{
	c->n = 0;
	for (char *p = line; c->n < LC_MAX_COLS; ) {
		char *tab = strchr(p, '\t');

		c->col[c->n++] = p;
		if (tab == NULL)
			break;
		*tab = '\0';
		p = tab + 1;
	}
	return c->n;
}

static const char *
lc_get(const struct lc_cols *hdr, const struct lc_cols *c, const char *name)
{
	for (int i = 0; i < hdr->n && i < c->n; i++)
		if (strcmp(hdr->col[i], name) == 0)
			return c->col[i];
	return NULL;
}

/* "r3" -> 3; "-" -> 0; anything else -> -1. */
static int
lc_router(const char *s)
{
	if (strcmp(s, "-") == 0)
		return 0;
	if (s[0] == 'r' && s[1] >= '1' && s[1] <= '9' && s[2] == '\0')
		return s[1] - '0';
	return -1;
}

/* "r2" or "r2,r4" -> bit mask; -1 for anything else. */
static long
lc_routers(const char *s)
{
	char buf[64], *save = NULL;
	long mask = 0;

	if (strcmp(s, "-") == 0)
		return 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		int k = lc_router(t);

		if (k <= 0)
			return -1;
		mask |= 1L << k;
	}
	return mask;
}

static int
lc_int(const char *s, int null_value)
{
	if (strcmp(s, "-") == 0 || strcmp(s, "null") == 0)
		return null_value;
	return atoi(s);
}

static int
lc_row(const struct lc_cols *h, const struct lc_cols *c, struct lc_row *r,
    char *err, size_t errlen)
{
	const char *need[] = { "name", "kind", "v4", "v6", "port", "server", "dist",
		"box", "hook", "action", "arg", "quote8", "silent", "nat", "natq",
		"v0", "v7", "v14", "q0", "q7", "q14", "hop", "clean", "side", "seen_by" };
	const char *f[sizeof(need) / sizeof(need[0])];
	struct lp_path *p = &r->path;
	long q8, si;

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if ((f[i] = lc_get(h, c, need[i])) == NULL) {
			snprintf(err, errlen, "a row without column %s", need[i]);
			return -1;
		}
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", f[0]);
	snprintf(r->kind, sizeof(r->kind), "%s", f[1]);
	snprintf(r->v4, sizeof(r->v4), "%s", f[2]);
	snprintf(r->v6, sizeof(r->v6), "%s", f[3]);
	snprintf(r->seen_by, sizeof(r->seen_by), "%s", f[24]);
	snprintf(r->side, sizeof(r->side), "%s", f[23]);
	p->dist = atoi(f[6]);
	p->closed = atoi(f[4]) == 9;	/* nothing listens on 9 */
	if (strcmp(f[5], "srv") == 0)
		p->server = LP_SRV;
	else if (strcmp(f[5], "srv-nows") == 0)
		p->server = LP_SRV_NOWS;
	else if (strcmp(f[5], "srv-synp") == 0)
		p->server = LP_SRV;		/* a default Linux server */
	else if (strcmp(f[5], "srv-cookie") == 0 || strcmp(f[5], "anyip") == 0)
		p->server = LP_SRV_COOKIE;	/* anyip: tcp_syncookies=2 too */
	else
		goto unknown;
	if (strcmp(f[9], "drop") == 0 && strcmp(f[7], "srv") == 0) {
		p->filtered = true;
	} else if (strcmp(f[9], "synproxy") == 0 && strcmp(f[7], "synp") == 0) {
		/* netfilter SYNPROXY on router synp: it answers the SYN with
		 * its own SYN-ACK, which the model does not build; the quotes
		 * see a clean path, and only the window test (not modelled)
		 * tells the proxy */
	} else if (strcmp(f[9], "reject-admin") == 0) {
		if ((p->reject_at = lc_router(f[7])) <= 0 || strcmp(f[8], "egress") != 0)
			goto unknown;
	} else if (strcmp(f[9], "-") != 0) {
		if ((p->box = lc_router(f[7])) <= 0)
			goto unknown;
		if (strcmp(f[8], "egress") == 0)
			p->box_egress = true;
		else if (strcmp(f[8], "ingress") != 0)
			goto unknown;
		snprintf(r->action, sizeof(r->action), "%s%s%s", f[9],
		    strcmp(f[10], "-") != 0 ? " " : "", strcmp(f[10], "-") != 0 ? f[10] : "");
	}
	if ((q8 = lc_routers(f[11])) < 0 || (si = lc_routers(f[12])) < 0)
		goto unknown;
	p->quote8 = (unsigned)q8;
	p->silent = (unsigned)si;
	if ((p->nat = lc_router(f[13])) < 0)
		goto unknown;
	if (p->nat != 0) {
		if (strcmp(f[14], "leaked") == 0)
			p->nat_leaked = true;
		else if (strcmp(f[14], "translated") != 0)
			goto unknown;
	}
	for (int s = 0; s < 3; s++) {
		snprintf(r->vbuf[s], sizeof(r->vbuf[s]), "%s", f[15 + s]);
		r->verdict[s] = r->vbuf[s];
		r->quoted[s] = lc_int(f[18 + s], -1);
	}
	r->hop = lc_int(f[21], -1);
	r->clean = lc_int(f[22], -1);
	return 0;
unknown:
	snprintf(err, errlen, "%s: a row the lab model does not know", f[0]);
	return -1;
}

int
lc_read(const char *path, struct lc_row *rows, int max, char *err, size_t errlen)
{
	static char hline[1024];
	char line[1024];
	struct lc_cols h = { 0 }, c;
	FILE *fp = fopen(path, "r");
	int n = 0;

	if (fp == NULL) {
		snprintf(err, errlen, "%s: cannot open", path);
		return -1;
	}
	while (fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (h.n == 0) {
			snprintf(hline, sizeof(hline), "%s", line);
			lc_split(hline, &h);
			continue;
		}
		if (n >= max) {
			snprintf(err, errlen, "%s: more than %d rows", path, max);
			n = -1;
			break;
		}
		lc_split(line, &c);
		if (lc_row(&h, &c, &rows[n], err, errlen) != 0) {
			n = -1;
			break;
		}
		n++;
	}
	fclose(fp);
	return n;
}

void
lc_path(const struct lc_row *r, int family, struct lp_path *p)
{
	char text[48];

	*p = r->path;
	p->family = family;
	p->action = r->action[0] != '\0' ? r->action : NULL;
	/* a range row names a prefix: any address in it answers */
	snprintf(text, sizeof(text), "%s", family == ADDR_V4 ? r->v4 : r->v6);
	text[strcspn(text, "/")] = '\0';
	if (addr_parse(text, &p->dst) != 0)
		abort();
	if (strchr(family == ADDR_V4 ? r->v4 : r->v6, '/') != NULL)
		p->dst.bytes[addr_len(&p->dst) - 1] = 7;
}
