/*
 * vantage_filter.h -- the --vantage option of show, export and report:
 * names given repeated or as a comma list, and whether a row's vantage is
 * one of them.  Pure.
 */
#ifndef SCALEPROBE_VANTAGE_FILTER_H
#define SCALEPROBE_VANTAGE_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#define VANTAGE_FILTER_MAX	64	/* names, over every --vantage */

struct vantage_filter {
	char *names[VANTAGE_FILTER_MAX];	/* owned */
	size_t n;				/* 0: every vantage */
};

/* The names of arg ("a" or "a,b,c") added to vf; -1 after saying why in
 * one line (an empty name, too many names, no memory). */
int vantage_filter_add(struct vantage_filter *vf, const char *arg);
/* Whether rows of vantage v are kept (every one when vf holds no name). */
bool vantage_filter_match(const struct vantage_filter *vf, const char *v);
/* The one name when vf holds exactly one (a store can filter on it),
 * else NULL. */
const char *vantage_filter_one(const struct vantage_filter *vf);
void vantage_filter_free(struct vantage_filter *vf);

#endif
