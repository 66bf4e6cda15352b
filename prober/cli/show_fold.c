/*
 * show_fold.c -- rows into series of states (show_fold.h).
 */
#include <stdlib.h>
#include <string.h>

#include "show_fold.h"

bool
show_is_problem(const char *v)
{
	return v != NULL && (strcmp(v, "rewritten") == 0 || strcmp(v, "stripped") == 0 ||
	    strcmp(v, "syn-dropped") == 0);
}

const char *
show_change_name(enum show_change c)
{
	switch (c) {
	case SHOW_FIRST:	return "first seen";
	case SHOW_BROKEN:	return "broken";
	case SHOW_BROKEN_AGAIN:	return "broken again";
	case SHOW_FIXED:	return "fixed";
	case SHOW_CHANGED:	return "changed";
	}
	return "?";
}

const char *
show_change_token(enum show_change c)
{
	switch (c) {
	case SHOW_FIRST:	return "first-seen";
	case SHOW_BROKEN:	return "broken";
	case SHOW_BROKEN_AGAIN:	return "broken-again";
	case SHOW_FIXED:	return "fixed";
	case SHOW_CHANGED:	return "changed";
	}
	return "?";
}

static bool
str_eq(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

bool
show_same_series(const struct history_row *a, const struct history_row *b)
{
	return str_eq(a->address, b->address) && a->port == b->port &&
	    str_eq(a->vantage, b->vantage) && a->scale_sent == b->scale_sent;
}

/* A copy of s (NULL stays NULL); *failed on no memory. */
static char *
sdup(const char *s, bool *failed)
{
	char *d;

	if (s == NULL)
		return NULL;
	if ((d = strdup(s)) == NULL)
		*failed = true;
	return d;
}

static void
row_free(struct history_row *r)
{
	free((char *)r->target);
	free((char *)r->address);
	free((char *)r->family);
	free((char *)r->vantage);
	free((char *)r->reply);
	free((char *)r->verdict);
	free((char *)r->reason);
	free((char *)r->hop_address);
	free((char *)r->last_clean_address);
	memset(r, 0, sizeof(*r));
}

static void
row_copy(struct history_row *d, const struct history_row *s, bool *failed)
{
	*d = *s;
	d->target = sdup(s->target, failed);
	d->address = sdup(s->address, failed);
	d->family = sdup(s->family, failed);
	d->vantage = sdup(s->vantage, failed);
	d->reply = sdup(s->reply, failed);
	d->verdict = sdup(s->verdict, failed);
	d->reason = sdup(s->reason, failed);
	d->hop_address = sdup(s->hop_address, failed);
	d->last_clean_address = sdup(s->last_clean_address, failed);
}

static bool
grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap * 2 : 8;
	void *q;

	if (need <= *cap)
		return true;
	if ((q = realloc(*p, n * size)) == NULL)
		return false;
	*p = q;
	*cap = n;
	return true;
}

static void
add_event(struct show_fold *f, struct show_series *s, enum show_change c,
    const struct history_row *row)
{
	struct show_event *e;

	if (!grow((void **)&s->ev, &s->evcap, s->nev + 1, sizeof(*s->ev))) {
		f->failed = true;
		return;
	}
	e = &s->ev[s->nev++];
	e->change = c;
	e->verdict = sdup(row->verdict, &f->failed);
	e->time_ns = e->last_ns = row->time_ns;
	e->results = 1;
}

/* row, asked for on demand, as s's latest such */
static void
on_demand(struct show_fold *f, struct show_series *s, const struct history_row *row)
{
	if (!row->on_demand)
		return;
	s->od_results++;
	s->od_ns = row->time_ns;
	s->od_uid = row->on_demand_uid;
	free(s->od_verdict);
	s->od_verdict = sdup(row->verdict, &f->failed);
}

void
show_fold_add(struct show_fold *f, const struct history_row *row)
{
	struct show_series *s = f->n > 0 ? &f->v[f->n - 1] : NULL;
	struct show_event *cur;
	bool was, is, broken_before;

	if (f->failed)
		return;
	if (s == NULL || !show_same_series(&s->last, row)) {
		if (!grow((void **)&f->v, &f->cap, f->n + 1, sizeof(*f->v))) {
			f->failed = true;
			return;
		}
		s = &f->v[f->n++];
		memset(s, 0, sizeof(*s));
		row_copy(&s->last, row, &f->failed);
		s->results = 1;
		add_event(f, s, SHOW_FIRST, row);
		on_demand(f, s, row);
		return;
	}
	s->results++;
	on_demand(f, s, row);
	cur = &s->ev[s->nev - 1];
	if (str_eq(cur->verdict, row->verdict)) {
		cur->last_ns = row->time_ns;
		cur->results++;
	} else {
		was = show_is_problem(cur->verdict);
		is = show_is_problem(row->verdict);
		broken_before = false;
		for (size_t i = 0; i < s->nev; i++)
			broken_before |= show_is_problem(s->ev[i].verdict);
		if (is && !was)
			add_event(f, s, broken_before ? SHOW_BROKEN_AGAIN : SHOW_BROKEN, row);
		else if (was && !is)
			add_event(f, s, SHOW_FIXED, row);
		else
			add_event(f, s, SHOW_CHANGED, row);
	}
	row_free(&s->last);
	row_copy(&s->last, row, &f->failed);
}

void
show_fold_finding(struct show_fold *f, struct show_series *s, const struct history_finding *hf)
{
	struct show_finding *d;

	if (!grow((void **)&s->fi, &s->ficap, s->nfi + 1, sizeof(*s->fi))) {
		f->failed = true;
		return;
	}
	d = &s->fi[s->nfi++];
	d->kind = sdup(hf->kind, &f->failed);
	d->detail = sdup(hf->detail, &f->failed);
	d->hop_address = sdup(hf->hop_address, &f->failed);
	d->hop_index = hf->hop_index;
}

void
show_fold_free(struct show_fold *f)
{
	for (size_t i = 0; i < f->n; i++) {
		for (size_t k = 0; k < f->v[i].nfi; k++) {
			free(f->v[i].fi[k].kind);
			free(f->v[i].fi[k].detail);
			free(f->v[i].fi[k].hop_address);
		}
		free(f->v[i].fi);
		free(f->v[i].od_verdict);
		for (size_t k = 0; k < f->v[i].nev; k++)
			free(f->v[i].ev[k].verdict);
		free(f->v[i].ev);
		row_free(&f->v[i].last);
	}
	free(f->v);
	for (size_t i = 0; i < f->nal; i++) {
		free(f->al[i].address);
		free(f->al[i].vantage);
		free(f->al[i].state);
		free(f->al[i].scales);
		free(f->al[i].hop_address);
		free(f->al[i].incident);
	}
	free(f->al);
	memset(f, 0, sizeof(*f));
}

static char *
dup_opt(const char *s, bool *failed)
{
	char *d;

	if (s == NULL)
		return NULL;
	if ((d = strdup(s)) == NULL)
		*failed = true;
	return d;
}

void
show_fold_alert(struct show_fold *f, const char *address, int port, const char *vantage,
    const char *state, const char *scales, int hop_index, const char *hop_address,
    const char *incident, int64_t raised_ns)
{
	struct show_alert *a, *al;
	bool ours = false;

	for (size_t i = 0; i < f->n && !ours; i++)
		ours = f->v[i].last.port == port && strcmp(f->v[i].last.address, address) == 0 &&
		    strcmp(f->v[i].last.vantage, vantage) == 0;
	if (!ours)
		return;
	if ((al = realloc(f->al, (f->nal + 1) * sizeof(*al))) == NULL) {
		f->failed = true;
		return;
	}
	f->al = al;
	a = &f->al[f->nal++];
	memset(a, 0, sizeof(*a));
	a->port = port;
	a->hop_index = hop_index;
	a->raised_ns = raised_ns;
	a->address = dup_opt(address, &f->failed);
	a->vantage = dup_opt(vantage, &f->failed);
	a->state = dup_opt(state, &f->failed);
	a->scales = dup_opt(scales, &f->failed);
	a->hop_address = dup_opt(hop_address, &f->failed);
	a->incident = dup_opt(incident, &f->failed);
}

const struct show_alert *
show_fold_alert_of(const struct show_fold *f, const struct history_row *r)
{
	for (size_t i = 0; i < f->nal; i++)
		if (f->al[i].port == r->port && f->al[i].address != NULL &&
		    f->al[i].vantage != NULL && strcmp(f->al[i].address, r->address) == 0 &&
		    strcmp(f->al[i].vantage, r->vantage) == 0)
			return &f->al[i];
	return NULL;
}
