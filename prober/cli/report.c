/*
 * report.c -- the report's numbers from the store's rows: paths per
 * verdict per day, the changes of state, the hops that damage most paths,
 * the side findings, the problems and their advice; per vantage when
 * there are several, folded from the rows one at a time in bounded memory
 * (the changes of state held and spilled by report_changes.c).
 * Pure (report.h says what is counted).
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_changes.h"

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
	size_t days, hops, problems;
};

/* What report_add keeps between rows. */
struct report_fold {
	/* every string a kept row points to, once (open addressing): its
	 * size follows the distinct paths, hops and vantages */
	char **slot;
	size_t nslots, used;
	struct caps all_caps, cur_caps;
	struct report_section cur;	/* the vantage being read */
	bool cur_window;		/* it has a result in the window */
	size_t capvantages;
	size_t capside;
	/* the path being read: its name, its state (the last result that
	 * measured something), its last result in the window and the day
	 * that result stands for */
	bool open;
	const char *vantage, *address;
	unsigned port;
	bool have_state, state_baseline;
	enum verdict state;
	bool have_last;
	struct report_row last;
	bool day_open;
	int64_t day;
	enum verdict day_verdict;
	bool failed;
};

static uint64_t
str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int
pool_grow(struct report_fold *f)
{
	size_t n = f->nslots ? f->nslots * 2 : 1024;
	char **slot = calloc(n, sizeof(*slot));

	if (slot == NULL)
		return -1;
	for (size_t i = 0; i < f->nslots; i++) {
		size_t k;

		if (f->slot[i] == NULL)
			continue;
		for (k = str_hash(f->slot[i]) & (n - 1); slot[k] != NULL; k = (k + 1) & (n - 1))
			;
		slot[k] = f->slot[i];
	}
	free(f->slot);
	f->slot = slot;
	f->nslots = n;
	return 0;
}

/* The pool's copy of s (NULL for NULL); *oom on failure. */
static const char *
pool_str(struct report_fold *f, const char *s, bool *oom)
{
	size_t k;

	if (s == NULL)
		return NULL;
	if (2 * (f->used + 1) > f->nslots && pool_grow(f) != 0) {
		*oom = true;
		return NULL;
	}
	for (k = str_hash(s) & (f->nslots - 1); f->slot[k] != NULL; k = (k + 1) & (f->nslots - 1))
		if (strcmp(f->slot[k], s) == 0)
			return f->slot[k];
	if ((f->slot[k] = strdup(s)) == NULL) {
		*oom = true;
		return NULL;
	}
	f->used++;
	return f->slot[k];
}

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

	/* an interval with silent hops names no box: it is counted apart
	 * from the exact hop at its end, per interval */
	for (size_t i = 0; i < s->nhops; i++)
		if (s->hops[i].address == r->hop_address &&	/* pooled */
		    s->hops[i].silent == r->hop_silent &&
		    (r->hop_silent == 0 || (s->hops[i].clean_address == r->clean_address &&
		    s->hops[i].clean_index == r->clean_index))) {
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
	h->silent = r->hop_silent;
	h->paths = 1;
	return 0;
}

/* The path's day (its last result that day) counted in s. */
static int
sect_day(struct report_section *s, struct caps *c, int64_t day, enum verdict v)
{
	struct report_day *d = day_slot(s, c, day);

	if (d == NULL)
		return -1;
	d->count[v]++;
	return 0;
}

/* A change of the path (from f's state to to) into s. */
static int
sect_change(struct report_section *s, bool broken, const struct report_fold *f,
    const struct report_row *to)
{
	if (report_changes_add(broken ? &s->broken : &s->fixed, f->state, f->state_baseline,
	    to) != 0)
		return -1;
	if (broken)
		s->nbroken++;
	else
		s->nfixed++;
	return 0;
}

/* The path's last result in the window, into s: a path, its findings,
 * and when a problem, its box and the problem itself. */
static int
sect_path(struct report_section *s, struct caps *c, const struct report_row *last)
{
	struct report_problem *p;

	s->paths++;
	for (unsigned b = 0; b < REPORT_NFINDINGS; b++)
		if (last->findings & (1u << b))
			s->findings[b]++;
	if (!report_is_problem(last->verdict))
		return 0;
	if (last->hop_address != NULL && add_hop(s, c, last) != 0)
		return -1;
	if ((p = grow(&s->problems, s->nproblems, &c->problems, sizeof(*p))) == NULL)
		return -1;
	memset(p, 0, sizeof(*p));
	p->row = *last;
	p->seq = s->nproblems++;
	return 0;
}

/* The open path's end: its last day and its last result counted. */
static int
path_end(struct report *rep)
{
	struct report_fold *f = rep->fold;

	if (f->day_open && (sect_day(&rep->all, &f->all_caps, f->day, f->day_verdict) != 0 ||
	    sect_day(&f->cur, &f->cur_caps, f->day, f->day_verdict) != 0))
		return -1;
	if (f->have_last && (sect_path(&rep->all, &f->all_caps, &f->last) != 0 ||
	    sect_path(&f->cur, &f->cur_caps, &f->last) != 0))
		return -1;
	if (f->have_last) {
		struct report_row *c = grow(&rep->side, rep->nside, &f->capside, sizeof(*c));

		if (c == NULL)
			return -1;
		*c = f->last;
		rep->nside++;
	}
	f->open = f->have_state = f->have_last = f->day_open = false;
	return 0;
}

static void
section_free(struct report_section *s)
{
	free(s->days);
	report_changes_free(&s->broken);
	report_changes_free(&s->fixed);
	free(s->hops);
	free(s->problems);
	memset(s, 0, sizeof(*s));
}

/* The vantage read so far made a section of its own when it has a result
 * in the window (a vantage known only from its baseline, before --since,
 * would be a section of nothing). */
static int
vantage_end(struct report *rep)
{
	struct report_fold *f = rep->fold;
	struct report_section *v;

	if (!f->cur_window)
		section_free(&f->cur);
	else {
		if ((v = grow(&rep->vantages, rep->nvantages, &f->capvantages,
		    sizeof(*v))) == NULL)
			return -1;
		*v = f->cur;
		rep->nvantages++;
	}
	memset(&f->cur, 0, sizeof(f->cur));
	memset(&f->cur_caps, 0, sizeof(f->cur_caps));
	f->cur_window = false;
	return 0;
}

int
report_begin(struct report *rep, int64_t since_ns, int64_t until_ns, report_utcoff_fn utcoff)
{
	memset(rep, 0, sizeof(*rep));
	rep->since_ns = since_ns;
	rep->until_ns = until_ns;
	rep->utcoff = utcoff;
	if ((rep->fold = calloc(1, sizeof(*rep->fold))) == NULL)
		return -1;
	return 0;
}

/* One row into the open path (a new one when it names another). */
static int
fold_row(struct report *rep, const struct report_row *row)
{
	struct report_fold *f = rep->fold;
	struct report_row r = *row;
	bool oom = false;

	r.vantage = pool_str(f, row->vantage, &oom);
	r.address = pool_str(f, row->address, &oom);
	r.hop_address = pool_str(f, row->hop_address, &oom);
	r.clean_address = pool_str(f, row->clean_address, &oom);
	if (oom || r.vantage == NULL || r.address == NULL)
		return -1;
	/* pooled: the same name is the same pointer */
	if (!f->open || r.vantage != f->vantage || r.address != f->address || r.port != f->port) {
		if (f->open && path_end(rep) != 0)
			return -1;
		if (f->vantage != NULL && r.vantage != f->vantage && vantage_end(rep) != 0)
			return -1;
		f->cur.vantage = r.vantage;
		f->open = true;
		f->vantage = r.vantage;
		f->address = r.address;
		f->port = r.port;
	}
	if (!r.baseline) {
		int64_t day = day_of(r.time_ns, rep->utcoff);

		rep->all.results++;
		f->cur.results++;
		f->cur_window = true;
		/* the day's last result stands for the day */
		if (f->day_open && day != f->day &&
		    (sect_day(&rep->all, &f->all_caps, f->day, f->day_verdict) != 0 ||
		    sect_day(&f->cur, &f->cur_caps, f->day, f->day_verdict) != 0))
			return -1;
		f->day_open = true;
		f->day = day;
		f->day_verdict = r.verdict;
		f->last = r;
		f->have_last = true;
		if (f->have_state) {
			bool broken = healthy(f->state) && report_is_problem(r.verdict);
			bool fixed = report_is_problem(f->state) && healthy(r.verdict);

			if ((broken || fixed) && (sect_change(&rep->all, broken, f, &r) != 0 ||
			    sect_change(&f->cur, broken, f, &r) != 0))
				return -1;
		}
	}
	/* what measured nothing leaves the state as it was */
	if (healthy(r.verdict) || report_is_problem(r.verdict)) {
		f->have_state = true;
		f->state = r.verdict;
		f->state_baseline = r.baseline;
	}
	return 0;
}

int
report_add(void *arg, const struct report_row *row)
{
	struct report *rep = arg;

	if (rep->fold->failed || fold_row(rep, row) != 0) {
		rep->fold->failed = true;
		return 1;
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
	int rx = problem_rank(x->row.verdict), ry = problem_rank(y->row.verdict);

	if (rx != ry)
		return rx < ry ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void
section_sort(struct report_section *s)
{
	if (s->nhops > 1)
		qsort(s->hops, s->nhops, sizeof(*s->hops), by_paths);
	/* the run being filled: the full ones were sorted when written */
	if (s->broken.n > 1)
		qsort(s->broken.v, s->broken.n, sizeof(*s->broken.v), report_change_by_time);
	if (s->fixed.n > 1)
		qsort(s->fixed.v, s->fixed.n, sizeof(*s->fixed.v), report_change_by_time);
	if (s->nproblems > 1)
		qsort(s->problems, s->nproblems, sizeof(*s->problems), by_damage);
}

static int
by_path_vantage(const void *a, const void *b)
{
	const struct report_row *x = a, *y = b;
	int c = strcmp(x->address, y->address);

	if (c == 0)
		c = x->port != y->port ? (x->port < y->port ? -1 : 1) :
		    strcmp(x->vantage, y->vantage);
	return c;
}

size_t
report_side_next(const struct report *rep, size_t from, bool *split)
{
	bool broken = false, fine = false;
	size_t i;

	for (i = from; i < rep->nside; i++) {
		const struct report_row *r = &rep->side[i];

		if (i > from && (strcmp(r->address, rep->side[from].address) != 0 ||
		    r->port != rep->side[from].port))
			break;
		broken |= report_is_problem(r->verdict);
		fine |= healthy(r->verdict);
	}
	*split = broken && fine;
	return i;
}

int
report_end(struct report *rep)
{
	struct report_fold *f = rep->fold;

	if (f->failed || (f->open && path_end(rep) != 0) ||
	    (f->vantage != NULL && vantage_end(rep) != 0)) {
		f->failed = true;
		return -1;
	}
	/* one vantage: the whole is its section */
	if (rep->nvantages < 2) {
		for (size_t i = 0; i < rep->nvantages; i++)
			section_free(&rep->vantages[i]);
		free(rep->vantages);
		rep->vantages = NULL;
		rep->nvantages = 0;
		free(rep->side);
		rep->side = NULL;
		rep->nside = 0;
	} else if (rep->nside > 1)
		qsort(rep->side, rep->nside, sizeof(*rep->side), by_path_vantage);
	section_sort(&rep->all);
	for (size_t i = 0; i < rep->nvantages; i++)
		section_sort(&rep->vantages[i]);
	return 0;
}

void
report_free(struct report *rep)
{
	struct report_fold *f = rep->fold;

	section_free(&rep->all);
	for (size_t i = 0; i < rep->nvantages; i++)
		section_free(&rep->vantages[i]);
	free(rep->vantages);
	free(rep->side);
	if (f != NULL) {
		section_free(&f->cur);
		for (size_t i = 0; i < f->nslots; i++)
			free(f->slot[i]);
		free(f->slot);
		free(f);
	}
	memset(rep, 0, sizeof(*rep));
}

int
report_build(const struct report_rows *rows, int64_t since_ns, int64_t until_ns,
    report_utcoff_fn utcoff, struct report *rep)
{
	if (report_begin(rep, since_ns, until_ns, utcoff) != 0)
		goto fail;
	for (size_t i = 0; i < rows->n; i++)
		if (report_add(rep, &rows->v[i]) != 0)
			goto fail;
	if (report_end(rep) != 0)
		goto fail;
	return 0;
fail:
	report_free(rep);
	return -1;
}

void
report_problem_advice(const struct report_problem *p, enum advice_side side, struct advice *out)
{
	const struct report_row *r = &p->row;
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
		.silent = r->hop_address != NULL ? r->hop_silent : 0,
	};

	if (advice_for(&in, side, out) != 0)
		memset(out, 0, sizeof(*out));
}
