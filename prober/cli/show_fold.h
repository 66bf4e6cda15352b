/*
 * show_fold.h -- one host's rows folded into what `scaleprobe show`
 * tells: per path, vantage and scale sent, the latest result and the
 * changes of state (first seen, broken, fixed, broken again), not the
 * rows themselves.  Pure: rows in, series out.
 */
#ifndef SCALEPROBE_SHOW_FOLD_H
#define SCALEPROBE_SHOW_FOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "history.h"

enum show_change {
	SHOW_FIRST,		/* the first result of the series */
	SHOW_BROKEN,		/* a problem after none */
	SHOW_BROKEN_AGAIN,	/* a problem after a fix */
	SHOW_FIXED,		/* no problem after one */
	SHOW_CHANGED,		/* another verdict of the same kind */
};

/* A state: the verdict from time_ns on, until the next event. */
struct show_event {
	enum show_change change;
	char *verdict;		/* NULL: not inferred */
	int64_t time_ns;	/* first result in this state */
	int64_t last_ns;	/* last result in this state */
	int64_t results;
};

/* A side finding of the latest result, its strings owned. */
struct show_finding {
	char *kind, *detail, *hop_address;
	int hop_index;
};

/* One path, vantage and scale sent. */
struct show_series {
	struct history_row last;	/* the latest row, its strings owned */
	struct show_event *ev;
	size_t nev, evcap;
	int64_t results;
	struct show_finding *fi;	/* the latest row's side findings */
	size_t nfi, ficap;
	/* its latest result asked for on the daemon's control socket (the
	 * schedule's may have come since): when, by whom, what it said */
	int64_t od_results;		/* 0: none */
	int64_t od_ns;
	uint32_t od_uid;
	char *od_verdict;
};

/* An open alert of the daemon (the store's open_alerts) on a path of the
 * fold, its strings owned: show marks the path with it. */
struct show_alert {
	char *address, *vantage, *state, *scales, *hop_address, *incident;
	int port, hop_index;
	int64_t raised_ns;
};

struct show_fold {
	struct show_series *v;
	size_t n, cap;
	bool failed;			/* sticky: no memory */
	struct show_alert *al;
	size_t nal;
};

/* Adds a row; rows come ordered by address, port, vantage, scale sent,
 * time (history_show's order): a row of another key opens a series. */
void show_fold_add(struct show_fold *f, const struct history_row *row);
void show_fold_free(struct show_fold *f);
/* A side finding of s's latest row (history_findings reads them). */
void show_fold_finding(struct show_fold *f, struct show_series *s,
    const struct history_finding *hf);

/* An open alert on (address, port, vantage), kept when a series of the
 * fold is on that path and vantage (after the rows are added).  Strings
 * may be NULL but address and vantage. */
void show_fold_alert(struct show_fold *f, const char *address, int port, const char *vantage,
    const char *state, const char *scales, int hop_index, const char *hop_address,
    const char *incident, int64_t raised_ns);
/* The alert open on r's path and vantage, or NULL. */
const struct show_alert *show_fold_alert_of(const struct show_fold *f,
    const struct history_row *r);

/* rewritten, stripped, syn-dropped: the verdicts that are path problems. */
bool show_is_problem(const char *verdict);
/* "first seen", "broken", "broken again", "fixed", "changed". */
const char *show_change_name(enum show_change c);
/* The same as a JSON token: "first-seen", "broken-again", ... */
const char *show_change_token(enum show_change c);

/* Whether a and b are one series (address, port, vantage, scale sent). */
bool show_same_series(const struct history_row *a, const struct history_row *b);

#endif
