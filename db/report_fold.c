/*
 * report_fold.c -- a path result's rows (its scales, and their side
 * findings) folded into the one summary row the report aggregates: the
 * worst verdict over its scales, where the damage sits, the largest
 * scale that came through, side findings as bits.  The same for every
 * engine (report_fold.h); the cells are already read defensively.
 */
#include <stdlib.h>
#include <string.h>

#include "flow_branch.h"
#include "report_fold.h"
#include "silent_hops.h"

/* How bad a verdict is for the path: the damage first, then what keeps it
 * from being measured, then the clean ones. */
static int
severity(enum verdict v)
{
	switch (v) {
	case VERDICT_SYN_DROPPED:	return 9;
	case VERDICT_REWRITTEN:		return 8;
	case VERDICT_STRIPPED:		return 7;
	case VERDICT_UNREACHABLE:	return 6;
	case VERDICT_FILTERED:		return 5;
	case VERDICT_CLOSED:		return 4;
	case VERDICT_INCONCLUSIVE:	return 3;
	case VERDICT_UNSUPPORTED:	return 2;
	case VERDICT_OK:		return 1;
	case VERDICT_NONE:		return 0;
	}
	return 0;
}

/* s (NULL: none) into b, a string cell's copy kept while the row is
 * folded (the cell's own text lasts only until the next row); its copy,
 * or NULL (for s NULL or no memory: *oom tells). */
static const char *
qstr_set(struct report_qstr *b, const char *s, bool *oom)
{
	size_t len;

	if (s == NULL)
		return NULL;
	len = strlen(s);
	if (len + 1 > b->cap) {
		size_t cap = len + 1 < 64 ? 64 : len + 1;
		char *p = realloc(b->p, cap);

		if (p == NULL) {
			*oom = true;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p, s, len + 1);
	return b->p;
}

static int
finding_kind(const char *name)
{
	for (int k = FINDING_MSS_CLAMPED; k <= FINDING_SYN_PROXY; k++)
		if (strcmp(name, result_finding_name((enum finding_kind)k)) == 0)
			return k;
	return FINDING_OPTIONS_CHANGED;
}

/* Folds one scale, and one of its findings, into its path result's row. */
static void
fold_scale(struct report_fold *f, const struct report_cells *c)
{
	struct report_row *r = &f->r;
	enum verdict v;
	int applied;

	if (!c->has_scale)
		return;
	if (c->finding != NULL) {
		int k = finding_kind(c->finding);

		r->findings |= 1u << k;
		if (k == FINDING_MSS_CLAMPED && c->detail != NULL)
			r->mss = atoi(c->detail);
	}
	v = verdict_from_name(c->verdict);
	applied = c->scale_effective;
	if (applied < 0)
		applied = c->scale_quoted;	/* -1 absent, -2 no quote */
	if (applied < 0)
		applied = -1;
	if (v == VERDICT_OK && c->scale_sent > r->ok_scale)
		r->ok_scale = c->scale_sent;
	if (v == VERDICT_REWRITTEN && applied > c->scale_sent)
		r->findings |= REPORT_RAISED_BIT;
	if (severity(v) <= severity(r->verdict))
		return;
	r->verdict = v;
	r->scale_sent = c->scale_sent;
	r->scale_applied = applied;
	r->hop_index = c->hop_index;
	r->clean_index = c->clean_index;
	r->hop_address = qstr_set(&f->hop, c->hop_address, &f->oom);
	r->clean_address = qstr_set(&f->clean, c->clean_address, &f->oom);
	r->hop_silent = c->has_silent ? silent_hops_from_i64(c->silent) : 0;
	/* several flows: both counts sane or neither; the branch whole or
	 * none (flow_branch_from_cells zeroes it) */
	r->flows = r->flows_affected = 0;
	if (c->flows >= 2 && c->flows <= RESULT_MAX_FLOWS && c->flows_affected >= 0 &&
	    c->flows_affected <= c->flows) {
		r->flows = c->flows;
		r->flows_affected = c->flows_affected;
	}
	(void)flow_branch_from_cells(c->branch_hop, c->branch_problem, c->branch_clean,
	    &r->branch);
}

/* A new path result's row from c. */
static void
row_begin(struct report_fold *f, const struct report_cells *c)
{
	struct report_row *r = &f->r;

	memset(r, 0, sizeof(*r));
	r->id = c->id;
	r->vantage = qstr_set(&f->vantage, c->vantage, &f->oom);
	r->address = qstr_set(&f->address, c->address, &f->oom);
	if (r->vantage == NULL || r->address == NULL)
		f->oom = true;
	r->port = c->port;
	r->v6 = c->family != NULL && strcmp(c->family, "ipv6") == 0;
	r->time_ns = c->time_ns;
	r->baseline = c->baseline;
	r->verdict = VERDICT_NONE;
	r->scale_sent = r->scale_applied = r->ok_scale = -1;
	r->hop_index = r->clean_index = -1;
	r->mss = -1;
}

int
report_fold_add(struct report_fold *f, const struct report_cells *c, report_row_fn fn,
    void *arg)
{
	int r;

	if (!f->have || f->r.id != c->id) {
		if (f->have && (r = fn(arg, &f->r)) != 0)
			return r;
		row_begin(f, c);
		f->have = true;
	}
	fold_scale(f, c);
	return f->oom ? -1 : 0;
}

int
report_fold_end(struct report_fold *f, report_row_fn fn, void *arg)
{
	bool have = f->have;

	f->have = false;
	return have ? fn(arg, &f->r) : 0;
}

void
report_fold_reset(struct report_fold *f)
{
	f->have = false;
}

void
report_fold_free(struct report_fold *f)
{
	free(f->vantage.p);
	free(f->address.p);
	free(f->hop.p);
	free(f->clean.p);
}
