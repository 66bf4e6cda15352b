/*
 * report_changes.c -- a report's changes of state in bounded memory: the
 * last REPORT_RUN held, each full run before them sorted by time and
 * written to a temporary file, and read back merged in time order by
 * report_iter (report.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "report_changes.h"

int
report_change_by_time(const void *a, const void *b)
{
	const struct report_change *x = a, *y = b;

	if (x->to.time_ns != y->to.time_ns)
		return x->to.time_ns < y->to.time_ns ? -1 : 1;
	return x->to.id < y->to.id ? -1 : x->to.id > y->to.id;
}
/* The full run of l sorted and written after the others. */
static int
spill(struct report_changes *l)
{
	qsort(l->v, l->n, sizeof(*l->v), report_change_by_time);
	if (l->spill == NULL && (l->spill = tmpfile()) == NULL)
		return -1;
	if (fwrite(l->v, sizeof(*l->v), l->n, l->spill) != l->n)
		return -1;
	l->nruns++;
	l->n = 0;
	return 0;
}
int
report_changes_add(struct report_changes *l, enum verdict from, bool from_baseline,
    const struct report_row *to)
{
	struct report_change *ch;

	if (l->v == NULL && (l->v = malloc(REPORT_RUN * sizeof(*l->v))) == NULL)
		return -1;
	if (l->n == REPORT_RUN && spill(l) != 0)
		return -1;
	ch = &l->v[l->n++];
	ch->from = from;
	ch->from_baseline = from_baseline;
	ch->to = *to;
	return 0;
}

void
report_changes_free(struct report_changes *l)
{
	free(l->v);
	if (l->spill != NULL)
		fclose(l->spill);
}
int
report_iter_begin(struct report_iter *it, const struct report_changes *c)
{
	memset(it, 0, sizeof(*it));
	it->c = c;
	if (c->nruns == 0)
		return 0;
	if (fflush(c->spill) != 0 || (it->runs = calloc(c->nruns, sizeof(*it->runs))) == NULL)
		return -1;
	for (size_t r = 0; r < c->nruns; r++) {
		it->runs[r].left = REPORT_RUN;
		it->runs[r].off = (long long)(r * REPORT_RUN * sizeof(struct report_change));
	}
	return 0;
}
/* The next change of run r, read when its buffer is empty; NULL when the
 * run is done (or a read failed: it->failed). */
static const struct report_change *
run_head(struct report_iter *it, struct report_run_cursor *rc)
{
	if (rc->pos == rc->len && rc->left > 0) {
		size_t k = rc->left < REPORT_ITER_BUF ? rc->left : REPORT_ITER_BUF;
		size_t want = k * sizeof(struct report_change);
		ssize_t got = pread(fileno(it->c->spill), rc->buf, want, (off_t)rc->off);

		if (got < 0 || (size_t)got != want) {
			it->failed = true;
			rc->left = 0;
			return NULL;
		}
		rc->off += (long long)want;
		rc->left -= k;
		rc->pos = 0;
		rc->len = k;
	}
	return rc->pos < rc->len ? &rc->buf[rc->pos] : NULL;
}
const struct report_change *
report_iter_next(struct report_iter *it)
{
	const struct report_change *best = it->mem < it->c->n ? &it->c->v[it->mem] : NULL;
	struct report_run_cursor *from = NULL;

	if (it->failed)
		return NULL;
	for (size_t r = 0; r < it->c->nruns; r++) {
		const struct report_change *h = run_head(it, &it->runs[r]);

		if (h != NULL && (best == NULL || report_change_by_time(h, best) < 0)) {
			best = h;
			from = &it->runs[r];
		}
	}
	if (it->failed || best == NULL)
		return NULL;
	if (from != NULL)
		from->pos++;
	else
		it->mem++;
	return best;
}
void
report_iter_end(struct report_iter *it)
{
	free(it->runs);
	memset(it, 0, sizeof(*it));
}
