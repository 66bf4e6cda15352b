/*
 * conf_shard.c -- a configuration's sharded groups seen from one vantage:
 * the vantage checked against each group's shard names, and each target
 * as written marked this vantage's or another's by rendezvous hashing
 * (shard.h) over the shard names; the daemon's cycles probe only the
 * marked ones, and cut a streamed file to its share (sel) as they read
 * it (its count: conf_file.c's conf_shard_files).  Pure: the names in,
 * the marks and errors out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "log.h"
#include "shard.h"

/* The owners a group's targets have: replicas, capped at the shard's
 * vantages (a site shrunk below K keeps probing every target). */
unsigned
conf_shard_replicas(const struct conf_group *g)
{
	return g->replicas < g->nshard ? g->replicas : (unsigned)g->nshard;
}

static size_t
shard_index(const struct conf_group *g, const char *vantage)
{
	for (size_t i = 0; i < g->nshard; i++)
		if (strcmp(g->shard[i], vantage) == 0)
			return i;
	return g->nshard;
}

int
conf_shard_apply(struct conf *c, const char *vantage, const char *fname,
    struct conf_errors *e)
{
	size_t first = e->n;

	for (size_t gi = 0; gi < c->ngroups; gi++) {
		struct conf_group *g = &c->groups[gi];
		size_t self = shard_index(g, vantage);
		unsigned k = conf_shard_replicas(g);
		const char *prev = NULL;
		bool owned = false;

		free(g->mine);
		g->mine = NULL;
		g->shard_total = g->shard_owned = 0;
		if (g->nshard == 0)
			continue;
		if (self == g->nshard) {
			conf_errors_add(e, fname, g->shard_line[0], "shard: this vantage, '%s', is "
			    "not one of group '%s''s shard names (expected it among them, or "
			    "vantage NAME)", vantage, g->name);
			continue;
		}
		g->sel = (struct shard_sel){ (const char *const *)g->shard, g->nshard, k, self };
		g->mine = xcalloc(g->targets.n + 1, sizeof(*g->mine));
		/* a target as written is owned whole: every port and address of
		 * it, one decision (its entries are adjacent) */
		for (size_t t = 0; t < g->targets.n; t++) {
			const char *spec = g->targets.v[t].as_given;

			if (prev == NULL || strcmp(prev, spec) != 0) {
				owned = shard_owns(spec, (const char *const *)g->shard, g->nshard, k,
				    self);
				g->shard_total++;
				g->shard_owned += owned;
				prev = spec;
			}
			g->mine[t] = owned;
		}
	}
	return e->n > first ? -1 : 0;
}

/* n with a comma every three digits: 10,000 */
static void
grouped(struct strbuf *b, size_t n)
{
	char d[32];
	size_t len;

	len = (size_t)snprintf(d, sizeof(d), "%zu", n);
	for (size_t i = 0; i < len; i++)
		strbuf_printf(b, "%s%c", i > 0 && (len - i) % 3 == 0 ? "," : "", d[i]);
}

void
conf_shard_summary(struct strbuf *b, const struct conf *c)
{
	for (size_t gi = 0; gi < c->ngroups; gi++) {
		const struct conf_group *g = &c->groups[gi];

		if (g->mine == NULL)
			continue;
		strbuf_printf(b, "# group %s: ", g->name);
		grouped(b, g->shard_owned);
		strbuf_printf(b, " of ");
		grouped(b, g->shard_total);
		strbuf_printf(b, " targets are this vantage's (shard of %zu, replicas %u)\n",
		    g->nshard, conf_shard_replicas(g));
	}
}
