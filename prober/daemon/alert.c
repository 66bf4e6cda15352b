/*
 * alert.c -- N of the last M runs confirm a path's new state (alert.h).
 */
#include <stddef.h>

#include "alert.h"
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
