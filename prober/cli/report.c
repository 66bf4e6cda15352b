/*
 * report.c -- the report's numbers from the store's rows: paths per
 * verdict per day, the changes of state, the hops that damage most paths,
 * the side findings, the problems and their advice; per vantage when
 * there are several.  Pure (report.h says what is counted).
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

const enum verdict report_verdict_order[REPORT_NVERDICTS] = {
	VERDICT_OK, VERDICT_UNSUPPORTED, VERDICT_REWRITTEN, VERDICT_STRIPPED,
	VERDICT_SYN_DROPPED, VERDICT_CLOSED, VERDICT_FILTERED, VERDICT_UNREACHABLE,
	VERDICT_INCONCLUSIVE, VERDICT_NONE,
};

/* The one palette: the problems warm and far apart, the healthy green and
 * blue, what measured nothing in greys and browns. */
const char *
report_verdict_colour(enum verdict v)
{
	switch (v) {
	case VERDICT_OK:		return "#2e8b57";
	case VERDICT_UNSUPPORTED:	return "#4a90c8";
	case VERDICT_REWRITTEN:		return "#d62728";
	case VERDICT_STRIPPED:		return "#ff9f1c";
	case VERDICT_SYN_DROPPED:	return "#8e44ad";
	case VERDICT_CLOSED:		return "#8c6d46";
	case VERDICT_FILTERED:		return "#5d6d7e";
	case VERDICT_UNREACHABLE:	return "#e377c2";
	case VERDICT_INCONCLUSIVE:	return "#b0b0b0";
	case VERDICT_NONE:		return "#dcd6c8";
	}
	return "#dcd6c8";
}

const char *
report_verdict_label(enum verdict v)
{
	const char *name = verdict_name(v);

	return name != NULL ? name : "none";
}

const char *
report_finding_label(unsigned bit)
{
	if (bit == 16)
		return "raised-shift";
	if (bit <= FINDING_SYN_PROXY)
		return result_finding_name((enum finding_kind)bit);
	return NULL;
}

bool
report_is_problem(enum verdict v)
{
	return v == VERDICT_REWRITTEN || v == VERDICT_STRIPPED || v == VERDICT_SYN_DROPPED;
}

static bool
healthy(enum verdict v)
{
	return v == VERDICT_OK || v == VERDICT_UNSUPPORTED;
}

static int64_t
day_of(int64_t time_ns, report_utcoff_fn utcoff)
{
	int64_t t = time_ns >= 0 ? time_ns / 1000000000 : -((-time_ns + 999999999) / 1000000000);
	int64_t s = t + (utcoff != NULL ? utcoff(t) : 0);

	return s >= 0 ? s / 86400 : -((-s + 86399) / 86400);
}

/* Grows *v (n used, *cap allocated) by one element of size sz. */
static void *
grow(void *vp, size_t n, size_t *cap, size_t sz)
{
	void **v = vp;

	if (n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		void *p = realloc(*v, c * sz);

		if (p == NULL)
			return NULL;
		*v = p;
		*cap = c;
	}
	return (char *)*v + n * sz;
}

struct caps {
	size_t days, broken, fixed, hops, problems;
};

static struct report_day *
day_slot(struct report_section *s, struct caps *c, int64_t day)
{
	size_t lo = 0, hi = s->ndays;
	struct report_day *d;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->days[mid].day < day)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->ndays && s->days[lo].day == day)
		return &s->days[lo];
	if (grow(&s->days, s->ndays, &c->days, sizeof(*d)) == NULL)
		return NULL;
	memmove(&s->days[lo + 1], &s->days[lo], (s->ndays - lo) * sizeof(*d));
	s->ndays++;
	d = &s->days[lo];
	memset(d, 0, sizeof(*d));
	d->day = day;
	return d;
}

static int
add_hop(struct report_section *s, struct caps *c, const struct report_row *r)
{
	struct report_hop *h;

	for (size_t i = 0; i < s->nhops; i++)
		if (strcmp(s->hops[i].address, r->hop_address) == 0) {
			s->hops[i].paths++;
			return 0;
		}
	if ((h = grow(&s->hops, s->nhops, &c->hops, sizeof(*h))) == NULL)
		return -1;
	s->nhops++;
	h->address = r->hop_address;
	h->clean_address = r->clean_address;
	h->hop_index = r->hop_index;
	h->clean_index = r->clean_index;
	h->paths = 1;
	return 0;
}

static bool
same_path(const struct report_row *a, const struct report_row *b)
{
	return strcmp(a->vantage, b->vantage) == 0 && strcmp(a->address, b->address) == 0 &&
	    a->port == b->port;
}

/* One path's rows, rows[0..n), in time order, into s. */
static int
add_path(struct report_section *s, struct caps *c, const struct report_row *rows, size_t n,
    report_utcoff_fn utcoff)
{
	const struct report_row *state = NULL, *last = NULL;
	struct report_change *ch;

	for (size_t i = 0; i < n; i++) {
		const struct report_row *r = &rows[i];

		if (!r->baseline) {
			int64_t day = day_of(r->time_ns, utcoff);

			s->results++;
			last = r;
			/* the day's last result stands for the day */
			if (i + 1 == n || day_of(rows[i + 1].time_ns, utcoff) != day) {
				struct report_day *d = day_slot(s, c, day);

				if (d == NULL)
					return -1;
				d->count[r->verdict]++;
			}
			if (state != NULL && healthy(state->verdict) && report_is_problem(r->verdict)) {
				if ((ch = grow(&s->broken, s->nbroken, &c->broken, sizeof(*ch))) == NULL)
					return -1;
				s->nbroken++;
				ch->from = state;
				ch->to = r;
			}
			if (state != NULL && report_is_problem(state->verdict) && healthy(r->verdict)) {
				if ((ch = grow(&s->fixed, s->nfixed, &c->fixed, sizeof(*ch))) == NULL)
					return -1;
				s->nfixed++;
				ch->from = state;
				ch->to = r;
			}
		}
		if (healthy(r->verdict) || report_is_problem(r->verdict))
			state = r;
	}
	if (last == NULL)
		return 0;
	s->paths++;
	for (unsigned b = 0; b < REPORT_NFINDINGS; b++)
		if (last->findings & (1u << b))
			s->findings[b]++;
	if (report_is_problem(last->verdict)) {
		struct report_problem *p;

		if (last->hop_address != NULL && add_hop(s, c, last) != 0)
			return -1;
		if ((p = grow(&s->problems, s->nproblems, &c->problems, sizeof(*p))) == NULL)
			return -1;
		s->nproblems++;
		memset(p, 0, sizeof(*p));
		p->row = last;
	}
	return 0;
}

static int
by_paths(const void *a, const void *b)
{
	const struct report_hop *x = a, *y = b;

	if (x->paths != y->paths)
		return x->paths > y->paths ? -1 : 1;
	return strcmp(x->address, y->address);
}

static int
by_time(const void *a, const void *b)
{
	const struct report_change *x = a, *y = b;

	if (x->to->time_ns != y->to->time_ns)
		return x->to->time_ns < y->to->time_ns ? -1 : 1;
	return x->to->id < y->to->id ? -1 : x->to->id > y->to->id;
}

/* the problems that break connections first, then the others, each kind
 * in the rows' order */
static int
problem_rank(enum verdict v)
{
	return v == VERDICT_SYN_DROPPED ? 0 : v == VERDICT_REWRITTEN ? 1 : 2;
}

static int
by_damage(const void *a, const void *b)
{
	const struct report_problem *x = a, *y = b;
	int rx = problem_rank(x->row->verdict), ry = problem_rank(y->row->verdict);

	if (rx != ry)
		return rx < ry ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

static int
section(struct report_section *s, const struct report_row *rows, size_t n,
    report_utcoff_fn utcoff)
{
	struct caps c = { 0, 0, 0, 0, 0 };

	for (size_t i = 0; i < n;) {
		size_t j = i + 1;

		while (j < n && same_path(&rows[i], &rows[j]))
			j++;
		if (add_path(s, &c, rows + i, j - i, utcoff) != 0)
			return -1;
		i = j;
	}
	if (s->nhops > 1)
		qsort(s->hops, s->nhops, sizeof(*s->hops), by_paths);
	if (s->nbroken > 1)
		qsort(s->broken, s->nbroken, sizeof(*s->broken), by_time);
	if (s->nfixed > 1)
		qsort(s->fixed, s->nfixed, sizeof(*s->fixed), by_time);
	if (s->nproblems > 1)
		qsort(s->problems, s->nproblems, sizeof(*s->problems), by_damage);
	return 0;
}

static void
section_free(struct report_section *s)
{
	free(s->days);
	free(s->broken);
	free(s->fixed);
	free(s->hops);
	free(s->problems);
	memset(s, 0, sizeof(*s));
}

void
report_free(struct report *rep)
{
	section_free(&rep->all);
	for (size_t i = 0; i < rep->nvantages; i++)
		section_free(&rep->vantages[i]);
	free(rep->vantages);
	memset(rep, 0, sizeof(*rep));
}

/* The run of rows from i with rows->v[i]'s vantage ends before *end;
 * whether it holds a result in the window. */
static bool
vantage_run(const struct report_rows *rows, size_t i, size_t *end)
{
	bool in_window = !rows->v[i].baseline;
	size_t j = i + 1;

	while (j < rows->n && strcmp(rows->v[j].vantage, rows->v[i].vantage) == 0)
		in_window |= !rows->v[j++].baseline;
	*end = j;
	return in_window;
}

int
report_build(const struct report_rows *rows, int64_t since_ns, int64_t until_ns,
    report_utcoff_fn utcoff, struct report *rep)
{
	size_t nv = 0;

	memset(rep, 0, sizeof(*rep));
	rep->since_ns = since_ns;
	rep->until_ns = until_ns;
	rep->utcoff = utcoff;
	if (section(&rep->all, rows->v, rows->n, utcoff) != 0)
		goto fail;
	/* rows come by vantage first: one section per run of them that has
	 * a result in the window (a vantage known only from its baseline,
	 * before --since, would be a section of nothing) */
	for (size_t i = 0, j; i < rows->n; i = j)
		if (vantage_run(rows, i, &j))
			nv++;
	if (nv < 2)
		return 0;
	if ((rep->vantages = calloc(nv, sizeof(*rep->vantages))) == NULL)
		goto fail;
	rep->nvantages = nv;
	for (size_t i = 0, j, k = 0; i < rows->n; i = j) {
		if (!vantage_run(rows, i, &j))
			continue;
		rep->vantages[k].vantage = rows->v[i].vantage;
		if (section(&rep->vantages[k++], rows->v + i, j - i, utcoff) != 0)
			goto fail;
	}
	return 0;
fail:
	report_free(rep);
	return -1;
}

void
report_problem_advice(const struct report_problem *p, enum advice_side side, struct advice *out)
{
	const struct report_row *r = p->row;
	struct advice_in in = {
		.verdict = r->verdict,
		.raised = (r->findings & REPORT_RAISED_BIT) != 0 && r->scale_applied > r->scale_sent,
		.scale_sent = r->scale_sent,
		.scale_applied = r->scale_applied,
		.ok_scale = r->ok_scale,
		.address = r->address,
		.v6 = r->v6,
		.port = r->port,
		.gw = p->gw[0] != '\0' ? p->gw : NULL,
		.dev = p->dev[0] != '\0' ? p->dev : NULL,
		.hop_address = r->hop_address,
		.hop_index = r->hop_index,
		.clean_address = r->clean_address,
		.clean_index = r->clean_index,
	};

	if (advice_for(&in, side, out) != 0)
		memset(out, 0, sizeof(*out));
}
