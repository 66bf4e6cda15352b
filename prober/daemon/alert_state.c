/*
 * alert_state.c -- N of the last M runs confirm a path's new state, a path's
 * scales make one alert, and raises at one hop make an incident (alert_state.h).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alert_state.h"
#include "infer.h"

bool
alert_cfg_valid(const struct alert_cfg *cfg)
{
	return cfg->n >= 1 && cfg->n <= cfg->m && cfg->m <= ALERT_M_MAX;
}

static int
count(const struct alert_track *t, uint8_t v)
{
	int c = 0;

	for (int i = 0; i < t->nhist; i++)
		if (t->hist[i] == v)
			c++;
	return c;
}

enum alert_event
alert_observe(struct alert_track *t, const struct alert_cfg *cfg, enum verdict v,
    enum verdict *from, enum verdict *to)
{
	enum verdict old = (enum verdict)t->confirmed;
	bool was, is;

	*from = *to = old;
	if (!alert_cfg_valid(cfg) || !infer_is_measured(v))
		return ALERT_NONE;
	t->hist[t->head] = (uint8_t)v;
	t->head = (uint8_t)((t->head + 1) % cfg->m);
	if (t->nhist < cfg->m)
		t->nhist++;
	if ((uint8_t)v == t->confirmed || count(t, (uint8_t)v) < cfg->n)
		return ALERT_NONE;
	/* v is confirmed in place of the old state */
	t->confirmed = (uint8_t)v;
	*to = v;
	was = t->open;
	is = infer_is_problem(v) != 0;
	t->open = is;
	if (is)
		return was ? ALERT_CHANGE : ALERT_RAISE;
	return was ? ALERT_CLEAR : ALERT_NONE;
}

bool
alert_track_idle(const struct alert_track *t)
{
	if (t->open)
		return false;
	for (int i = 0; i < t->nhist && i < ALERT_M_MAX; i++)
		if (infer_is_problem((enum verdict)t->hist[i]))
			return false;
	return true;
}

const char *
alert_event_name(enum alert_event e)
{
	switch (e) {
	case ALERT_RAISE:
		return "raise";
	case ALERT_CHANGE:
		return "change";
	case ALERT_CLEAR:
		return "clear";
	case ALERT_NONE:
		break;
	}
	return "none";
}

int
alert_severity(enum verdict v)
{
	switch (v) {
	case VERDICT_REWRITTEN:
		return 1;
	case VERDICT_STRIPPED:
		return 2;
	case VERDICT_SYN_DROPPED:
		return 3;
	default:
		return 0;
	}
}

void
alert_path_summary(const struct alert_track *t, int n, const int *scale,
    const struct hop_loc *const *hop, const struct alert_path *prev, struct alert_path *out)
{
	int worst_i = -1;

	memset(out, 0, sizeof(*out));
	if (n > RESULT_MAX_SCALES)
		n = RESULT_MAX_SCALES;
	for (int i = 0; i < n; i++) {
		enum verdict v = (enum verdict)t[i].confirmed;

		if (alert_severity(v) == 0)
			continue;
		out->bad = true;
		out->scale[out->nscales] = scale[i];
		out->verdict[out->nscales++] = (uint8_t)v;
		/* the first scale of the worst state names the hop */
		if (worst_i < 0 || alert_severity(v) > alert_severity((enum verdict)out->worst)) {
			worst_i = i;
			out->worst = (uint8_t)v;
		}
	}
	if (!out->bad)
		return;
	/* a hop with silent TTLs before it is where the trace saw the damage,
	 * not where the box is: the alert and its incident do not name it */
	if (hop != NULL && hop[worst_i] != NULL && hop[worst_i]->present &&
	    hop[worst_i]->silent == 0) {
		out->hop = hop[worst_i]->index;
		out->hop_address = hop[worst_i]->address;
	} else if (prev != NULL && prev->bad) {
		out->hop = prev->hop;
		out->hop_address = prev->hop_address;
	}
}

void
alert_path_seed(struct alert_track *t, int n, const int *scale, const struct alert_path *open)
{
	for (int i = 0; i < n && i < RESULT_MAX_SCALES; i++)
		for (int k = 0; k < open->nscales; k++)
			if (open->scale[k] == scale[i] && t[i].confirmed == VERDICT_NONE) {
				t[i].confirmed = open->verdict[k];
				t[i].open = true;
			}
}

static bool
same_scales(const struct alert_path *a, const struct alert_path *b)
{
	if (a->nscales != b->nscales)
		return false;
	for (int i = 0; i < a->nscales; i++)
		if (a->scale[i] != b->scale[i] || a->verdict[i] != b->verdict[i])
			return false;
	return true;
}

enum alert_event
alert_path_decide(const struct alert_path *prev, const struct alert_path *now, bool *update)
{
	*update = false;
	if (!prev->bad && !now->bad)
		return ALERT_NONE;
	*update = true;
	if (!prev->bad)
		return ALERT_RAISE;
	if (!now->bad)
		return ALERT_CLEAR;
	if (prev->worst != now->worst)
		return ALERT_CHANGE;
	if (prev->hop > 0 && now->hop > 0 && !addr_equal(&prev->hop_address, &now->hop_address))
		return ALERT_CHANGE;
	*update = !same_scales(prev, now) || prev->hop != now->hop;
	return ALERT_NONE;
}

const char *
alert_path_scales(const struct alert_path *p, char *buf, size_t len)
{
	size_t off = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	for (int i = 0; i < p->nscales && off < len; i++) {
		int k = snprintf(buf + off, len - off, "%s%d", i > 0 ? "," : "", p->scale[i]);

		if (k < 0)
			break;
		off += (size_t)k;
	}
	return buf;
}

/* the raises' indices ordered by hop address */
static const struct addr *sort_hops;

static int
by_hop(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = addr_compare(&sort_hops[x], &sort_hops[y]);

	return c != 0 ? c : (x > y) - (x < y);
}

size_t
alert_incidents(const struct addr *hops, size_t n, unsigned threshold, long *incident)
{
	size_t *ord, found = 0;

	for (size_t i = 0; i < n; i++)
		incident[i] = -1;
	if (n == 0 || threshold == 0)
		return 0;
	ord = calloc(n, sizeof(*ord));
	if (ord == NULL)
		return 0;		/* every raise alone: nothing is lost */
	for (size_t i = 0; i < n; i++)
		ord[i] = i;
	sort_hops = hops;
	qsort(ord, n, sizeof(*ord), by_hop);
	for (size_t a = 0, b; a < n; a = b) {
		for (b = a + 1; b < n && addr_equal(&hops[ord[a]], &hops[ord[b]]); b++)
			;
		if (hops[ord[a]].family == 0 || b - a < threshold)
			continue;
		/* ord is by index within a run of one hop: ord[a] is the first */
		for (size_t k = a; k < b; k++)
			incident[ord[k]] = (long)ord[a];
		found++;
	}
	free(ord);
	return found;
}
