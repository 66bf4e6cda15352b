/*
 * cycle.c -- the daemon's cycles: a configuration's groups made units
 * (one target as written, every port of it), armed in the scheduler;
 * each due unit walked as one batch of the runner (names resolved anew),
 * its results stored as they come, and at its end a state for the cycle
 * with its next due time, in the batch after its results.  Due units
 * wait their turn (startq.h): at most max-inflight of them are in the
 * runner at once, the next started as one ends, whatever made them due
 * (--once's whole cycle, a schedule's, a restart's recovery).
 */
#include <sys/random.h>

#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blocklist.h"
#include "clockwatch.h"
#include "daemon.h"
#include "demand.h"
#include "infer.h"
#include "log.h"
#include "schedule.h"
#include "store.h"
#include "version.h"

#define DUE_BATCH 64

/* The unit of spec in group g, made when new. */
static struct unit *
unit_of(struct dgroup *g, struct config_gen *config_gen, size_t gi, const char *spec)
{
	struct unit *u;

	for (size_t i = 0; i < g->n; i++)
		if (strcmp(g->u[i].spec, spec) == 0)
			return &g->u[i];
	g->u = xreallocarray(g->u, g->n + 1, sizeof(*g->u));
	u = &g->u[g->n];
	memset(u, 0, sizeof(*u));
	u->config_gen = config_gen;
	u->group = gi;
	u->index = g->n++;
	u->spec = xstrdup(spec);
	targets_init(&u->t);
	return u;
}

struct config_gen *
config_gen_new(struct conf *c, uint64_t now)
{
	struct config_gen *config_gen = xcalloc(1, sizeof(*config_gen));
	uint8_t key[SCHED_KEY_LEN];
	uint64_t seed;

	config_gen->c = *c;
	memset(c, 0, sizeof(*c));
	config_gen->bl = conf_blocklist(&config_gen->c);
	if (getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key) ||
	    getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
		fatal("getrandom");
	/* epoch 0: cycles counted on the wall clock, so a restart knows
	 * which cycle's work is already stored */
	config_gen->sched = sched_new(key, seed, 0);
	config_gen->ng = config_gen->c.ngroups;
	config_gen->g = xcalloc(config_gen->ng + 1, sizeof(*config_gen->g));
	for (size_t gi = 0; gi < config_gen->ng; gi++) {
		const struct conf_group *cg = &config_gen->c.groups[gi];
		struct dgroup *g = &config_gen->g[gi];
		const char **names;

		g->name = cg->name;
		g->interval_ns = (uint64_t)cg->interval * 1000000000ull;
		g->jitter_ns = (uint64_t)cg->jitter * 1000000000ull;
		for (size_t k = 0; k < cg->targets.n; k++) {
			const struct target *tg = &cg->targets.v[k];
			struct targets_opts o = { config_gen->c.allow_large, tg->port };
			struct unit *u;

			/* another vantage's of a sharded group: no unit, no state */
			if (cg->mine != NULL && !cg->mine[k])
				continue;
			u = unit_of(g, config_gen, gi, tg->as_given);
			if (targets_parse_spec(&u->t, tg->as_given, &o) != 0)
				log_warnx("%s: %s", g->name, strbuf_str(&u->t.errors));
		}
		/* a long file is one unit, streamed as each cycle walks it */
		for (size_t k = 0; k < cg->nfiles; k++)
			if (cg->files[k].streamed) {
				struct unit *u = unit_of(g, config_gen, gi, cg->files[k].path);

				if (u->files.n == 0) {
					paths_files_add(&u->files, cg->files[k].path,
					    config_gen->c.allow_large, cg->ports, cg->nports,
					    &cg->files[k].scan);
					/* a sharded group's: cut to this vantage's
					 * share as the walk reads it */
					if (cg->mine != NULL)
						u->files.v[u->files.n - 1].shard = &cg->sel;
				}
			}
		names = xcalloc(g->n + 1, sizeof(*names));
		for (size_t i = 0; i < g->n; i++)
			names[i] = g->u[i].spec;
		/* added even with no unit (a shard that gives this vantage none),
		 * so that the scheduler's group indexes stay the configuration's */
		if (sched_group_add(config_gen->sched, g->name, g->interval_ns,
		    g->jitter_ns, names, g->n, now) != (int)gi)
			fatalx("group %s: cannot be scheduled", g->name);
		free(names);
	}
	return config_gen;
}

size_t
config_gen_units(const struct config_gen *g)
{
	size_t n = 0;

	for (size_t i = 0; i < g->ng; i++)
		n += g->g[i].n;
	return n;
}

void
config_gen_free(struct config_gen *config_gen)
{
	if (config_gen == NULL)
		return;
	for (size_t gi = 0; gi < config_gen->ng; gi++) {
		for (size_t i = 0; i < config_gen->g[gi].n; i++) {
			/* abandoned in flight at a stop (the runner is closed) */
			if (config_gen->g[gi].u[i].busy)
				paths_free(&config_gen->g[gi].u[i].paths);
			free(config_gen->g[gi].u[i].spec);
			free(config_gen->g[gi].u[i].files.v);
			targets_free(&config_gen->g[gi].u[i].t);
		}
		free(config_gen->g[gi].u);
	}
	free(config_gen->g);
	sched_free(config_gen->sched);
	blocklist_free(config_gen->bl);
	conf_free(&config_gen->c);
	free(config_gen);
}

/* A run of the group begun in the store: of cycle, or of no cycle when
 * cycle is NULL.  0, or -1 said. */
static int
begin_run(struct daemon *d, struct dgroup *g, const uint64_t *cycle, int64_t *id)
{
	struct store_run run;

	memset(&run, 0, sizeof(run));
	clock_gettime(CLOCK_REALTIME, &run.start);
	run.vantage = d->vantage;
	run.settings = d->settings;
	run.program = "scaleprobed " SCALEPROBE_VERSION;
	run.clock = clockwatch_now();
	if (store_run_begin(d->st, &run, id) != 0 || (cycle != NULL &&
	    store_run_cycle(d->st, *id, g->name, (int64_t)*cycle) != 0)) {
		log_warnx("%s", store_error(d->st));
		daemon_store_alert(d);
		return -1;
	}
	daemon_store_alert(d);
	return 0;
}

/* The store's run of the group's cycle, begun with its first unit. */
static int64_t
group_run(struct daemon *d, struct dgroup *g, uint64_t cycle)
{
	if (g->have_run && g->run_cycle == cycle)
		return g->run_id;
	if (begin_run(d, g, &cycle, &g->run_id) != 0)
		return -1;
	g->have_run = true;
	g->run_cycle = cycle;
	return g->run_id;
}

/* --once over targets an earlier run of this cycle measured: a run of
 * no cycle of its own (as a probe's), so that its results keep and are
 * sent, and the cycle keeps one result per path and scale. */
static int64_t
again_run(struct daemon *d, struct dgroup *g, uint64_t cycle)
{
	if (g->have_again)
		return g->again_run_id;
	if (begin_run(d, g, NULL, &g->again_run_id) != 0)
		return -1;
	g->have_again = true;
	log_info("group %s: cycle %llu already measured by an earlier run; its targets "
	    "measured again are stored as a run of no cycle", g->name,
	    (unsigned long long)cycle);
	return g->again_run_id;
}

/* A target's end is logged unless it was measured (its results say it):
 * when is "cycle N", or that it ran in a run of no cycle. */
static void
log_end(const char *group, const char *spec, const char *when, const char *state,
    const char *reason)
{
	if (strcmp(state, "measured") != 0)
		log_info("%s %s %s: %s%s%s", group, spec, when, state, reason ? ": " : "",
		    reason ? reason : "");
}

static void
unit_state(struct daemon *d, struct unit *u, uint64_t cycle, int64_t run_id,
    const char *state, const char *reason, uint64_t next_due)
{
	char when[32];

	struct store_state s;

	memset(&s, 0, sizeof(s));
	s.group = u->config_gen->g[u->group].name;
	s.target = u->spec;
	s.cycle = (int64_t)cycle;
	s.state = state;
	s.reason = reason;
	s.paths = u->results;
	s.time_ns = (int64_t)daemon_wall_ns();
	s.next_due_ns = next_due == UINT64_MAX ? 0 : (int64_t)next_due;
	if (store_state_add(d->st, run_id, &s) != 0) {
		if (!store_failing(d->st))
			log_warnx("%s", store_error(d->st));
	} else
		d->n.states++;
	daemon_store_alert(d);
	snprintf(when, sizeof(when), "cycle %llu", (unsigned long long)cycle);
	log_end(s.group, u->spec, when, state, reason);
}

static void daemon_maybe_done(struct daemon *d);
static void daemon_admit(struct daemon *d);
static void unit_start(struct daemon *d, struct unit *u, uint64_t cycle);

/* Units in the runner, of the configuration in force and of retired ones
 * still finishing. */
static size_t
daemon_busy(const struct daemon *d)
{
	size_t n = d->cur->busy;

	for (const struct config_gen *g = d->retired; g != NULL; g = g->next)
		n += g->busy;
	return n;
}

/* A unit's work is over: its state, its re-arming (missed cycles told),
 * its walk freed. */
static void
unit_end(struct daemon *d, struct unit *u, const char *state, const char *reason)
{
	struct config_gen *config_gen = u->config_gen;
	uint64_t missed = 0, next = UINT64_MAX, now = daemon_wall_ns();

	if (!config_gen->retired && !d->once) {
		missed = sched_finished(config_gen->sched, u->group, u->index, now);
		next = sched_when(config_gen->sched, u->group, u->index);
		/* re-armed: it may be due before whatever the timer waits for */
		if (d->timer != NULL && !d->stopping)
			daemon_reschedule(d);
	}
	if (!u->off_cycle)
		unit_state(d, u, u->cycle, u->run_id, state, reason, next);
	else	/* no state of its own (the cycle's is the earlier run's) */
		log_end(config_gen->g[u->group].name, u->spec, "(a run of no cycle)", state,
		    reason);
	for (uint64_t k = 1; k <= missed; k++)
		unit_state(d, u, u->cycle + k, 0, "missed", "the cycle before overran it",
		    next);
	d->n.cycles_missed += missed;
	d->n.done_cycle++;
	daemon_alerts_unit_end(d, u);
	if (u->cycle == config_gen->g[u->group].st_cycle &&
	    ++config_gen->g[u->group].ended >= config_gen->g[u->group].n)
		daemon_alerts_flush(d);	/* the cycle's raises, incidents counted */
	if (u->busy) {
		paths_free(&u->paths);
		u->busy = false;
		config_gen->busy--;
	}
	if (u->queued && !config_gen->retired && !d->stopping) {
		u->queued = false;
		unit_start(d, u, u->queued_cycle);
	}
	/* its room goes to the next unit waiting */
	daemon_admit(d);
	daemon_maybe_done(d);
}

/* Unit u is due for cycle: it waits for room in the runner (or, while
 * its last cycle still runs or waits, follows that one). */
static void
unit_start(struct daemon *d, struct unit *u, uint64_t cycle)
{
	if (u->busy || u->pending) {
		u->queued = true;
		u->queued_cycle = cycle;
		return;
	}
	u->pending = true;
	startq_push(&d->pending, u, u->config_gen, cycle);
	daemon_admit(d);
}

/* Starts unit u for cycle: its walk opened and handed to the runner, or
 * its state now when there is nothing to walk. */
static void
unit_begin(struct daemon *d, struct unit *u, uint64_t cycle)
{
	struct config_gen *config_gen = u->config_gen;
	struct dgroup *g = &config_gen->g[u->group];
	struct paths_opts po;
	int has;

	u->cycle = cycle;
	u->results = u->problems = 0;
	u->run_id = 0;
	u->off_cycle = false;
	d->n.due++;
	if (cycle > g->st_cycle || g->started == 0) {
		g->st_cycle = cycle;
		g->started = g->ended = 0;
	}
	if (cycle == g->st_cycle)
		g->started++;
	/* a restart in the cycle: what was stored is not probed again;
	 * --once probes it now all the same, in a run of no cycle (the
	 * cycle's one state is taken: results of the cycle without it
	 * would be discarded at the next start as unfinished, never sent) */
	if ((has = store_state_has(d->st, g->name, u->spec, (int64_t)cycle)) < 0)
		log_warnx("%s", store_error(d->st));
	if (d->once)
		u->off_cycle = has > 0;
	else if (has != 0) {
		d->n.skipped++;
		if (cycle == g->st_cycle)
			g->ended++;
		if (!config_gen->retired)
			(void)sched_finished(config_gen->sched, u->group, u->index, daemon_wall_ns());
		return;
	}
	if ((u->run_id = u->off_cycle ? again_run(d, g, cycle) :
	    group_run(d, g, cycle)) < 0) {
		u->run_id = 0;
		unit_end(d, u, "failed", "the store refused the run");
		return;
	}
	if (u->t.n == 0 && u->files.n == 0) {
		unit_end(d, u, "failed", "the target does not parse");
		return;
	}
	memset(&po, 0, sizeof(po));
	po.bl = config_gen->bl;
	po.source4 = config_gen->c.have_source4 ? &config_gen->c.source4 : NULL;
	po.source6 = config_gen->c.have_source6 ? &config_gen->c.source6 : NULL;
	po.range4 = config_gen->c.range4.first.family != 0 ? &config_gen->c.range4 : NULL;
	po.range6 = config_gen->c.range6.first.family != 0 ? &config_gen->c.range6 : NULL;
	po.ifname = config_gen->c.interface;
	po.rt = d->rt;
	po.files = &u->files;
	if (paths_open(&u->paths, &u->t, &po) != 0) {
		paths_free(&u->paths);
		unit_end(d, u, "failed", "its paths cannot be walked");
		return;
	}
	if (u->paths.n == 0 && u->paths.nnames == 0 && !u->paths.more_now) {
		const char *st = u->paths.blocked_targets > 0 ? "blocked" : "failed";
		const char *why = u->paths.blocked_targets > 0 ? "every address is blocked" :
		    u->paths.unrouted > 0 ? "no route" : "nothing to probe";

		paths_free(&u->paths);
		unit_end(d, u, st, why);
		return;
	}
	u->busy = true;
	config_gen->busy++;
	if (runner_add(d->runner, &u->paths, u) != 0) {
		unit_end(d, u, "failed", "the name resolver cannot start");
		return;
	}
}

int
daemon_on_result(void *arg, void *tag, struct path_result *res)
{
	struct daemon *d = arg;
	struct unit *u = tag;

	if (demand_owns(d, tag))
		return demand_on_result(d, tag, res);
	if (store_add(d->st, u->run_id, res) != 0) {
		/* while the store fails, its alert says so and the drops are
		 * counted: no line per result */
		if (!store_failing(d->st))
			log_warnx("%s", store_error(d->st));
		daemon_store_alert(d);
		return 0;
	}
	daemon_store_alert(d);
	u->results++;
	d->n.results++;
	for (int i = -1; i < res->nscales; i++) {
		/* the control SYN and each scale's: metrics_reply's order */
		static const int slot[] = { [REPLY_SYNACK] = 0, [REPLY_RST] = 1,
		    [REPLY_ICMP_UNREACH] = 2, [REPLY_NONE] = 3 };
		enum reply_kind k = i < 0 ? res->control.reply : res->scales[i].reply;

		if ((unsigned)k < sizeof(slot) / sizeof(slot[0]))
			d->n.probes[slot[k]]++;
		if (i >= 0 && (unsigned)res->verdicts[i].verdict <= VERDICT_INCONCLUSIVE)
			d->n.verdicts[res->verdicts[i].verdict]++;
	}
	for (int i = 0; i < res->nscales; i++)
		if (infer_is_problem(res->verdicts[i].verdict)) {
			u->problems++;
			d->n.problems++;
			break;
		}
	daemon_alerts(d, u, res);
	return 0;
}

void
daemon_on_batch(void *arg, void *tag)
{
	struct daemon *d = arg;
	struct unit *u = tag;
	char why[128];

	if (demand_owns(d, tag)) {
		demand_on_batch(d, tag);
		return;
	}
	if (u->results > 0)
		unit_end(d, u, "measured", NULL);
	else if (u->paths.unresolved > 0)
		unit_end(d, u, "unresolved", "the name gave no address");
	else if (u->paths.blocked_targets > 0)
		unit_end(d, u, "blocked", "every address is blocked");
	else {
		snprintf(why, sizeof(why), "%s", u->paths.unrouted > 0 ? "no route" :
		    "no path gave a result");
		unit_end(d, u, "failed", why);
	}
}

/* Waiting units started while the runner has room for them: the loop
 * here, not recursion, when a unit ends as it starts (nothing to walk). */
static void
daemon_admit(struct daemon *d)
{
	struct startq_item it;

	if (d->admitting)
		return;
	d->admitting = true;
	while (!d->stopping && startq_admit(&d->pending, daemon_busy(d), d->unit_limit, &it)) {
		struct unit *u = it.unit;

		u->pending = false;
		unit_begin(d, u, it.cycle);
	}
	d->admitting = false;
}

void
daemon_retire(struct daemon *d, struct config_gen *old)
{
	size_t dropped = startq_drop(&d->pending, old);

	if (dropped > 0)
		log_info("%zu targets waiting for room dropped: the new configuration "
		    "schedules its own", dropped);
	old->retired = true;
	old->next = d->retired;
	d->retired = old;
	/* the old groups' schedule is gone; their batches in flight are
	 * stored and end without re-arming */
	if (old->busy == 0) {
		d->retired = old->next;
		config_gen_free(old);
	}
}

/* Retired configurations go when their last batch is done; --once ends
 * when every unit has its state. */
static void
daemon_maybe_done(struct daemon *d)
{
	struct config_gen **pp = &d->retired, *g;

	while ((g = *pp) != NULL) {
		if (g->busy > 0) {
			pp = &g->next;
			continue;
		}
		*pp = g->next;
		config_gen_free(g);
	}
	if (d->once && d->once_left > 0 && --d->once_left == 0)
		runner_finish(d->runner);
}

static void
daemon_tick(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;
	struct sched_due_item due[DUE_BATCH];
	uint64_t now = daemon_wall_ns();
	size_t n;

	(void)fd;
	(void)what;
	if (d->stopping)
		return;
	while ((n = sched_due(d->cur->sched, now, due, DUE_BATCH)) > 0)
		for (size_t i = 0; i < n; i++) {
			struct unit *u = &d->cur->g[due[i].group].u[due[i].target];

			d->n.lag_ns = now > due[i].due ? now - due[i].due : 0;
			unit_start(d, u, due[i].cycle);
		}
	daemon_reschedule(d);
}

/* The timer set to the scheduler's next due time: nothing runs between
 * (no polling while idle). */
void
daemon_reschedule(struct daemon *d)
{
	uint64_t next, now = daemon_wall_ns(), wait;
	struct timeval tv;

	if (d->timer == NULL && (d->timer = evtimer_new(d->base, daemon_tick, d)) == NULL)
		fatalx("evtimer_new");
	evtimer_del(d->timer);
	if ((next = sched_next(d->cur->sched)) == UINT64_MAX)
		return;
	wait = next > now ? next - now : 0;
	tv.tv_sec = (time_t)(wait / 1000000000ull);
	tv.tv_usec = (suseconds_t)(wait % 1000000000ull / 1000);
	evtimer_add(d->timer, &tv);
}

/* --once: every unit of every group due now, in the cycle of now; they
 * start as the runner has room. */
void
daemon_start_all(struct daemon *d)
{
	struct config_gen *config_gen = d->cur;
	uint64_t now = daemon_wall_ns();
	size_t total = config_gen_units(config_gen);

	d->once_left = total + 1;	/* held until all started */
	for (size_t gi = 0; gi < config_gen->ng; gi++)
		for (size_t i = 0; i < config_gen->g[gi].n; i++)
			unit_start(d, &config_gen->g[gi].u[i], now / config_gen->g[gi].interval_ns);
	daemon_maybe_done(d);
}

/* Starts the units of group gi without a state in cycle; with passed,
 * only those the schedule has armed for a later cycle (their time in it
 * passed while no daemon ran).  Returns how many. */
static size_t
recover_cycle(struct daemon *d, size_t gi, uint64_t cycle, bool passed)
{
	struct config_gen *config_gen = d->cur;
	struct dgroup *g = &config_gen->g[gi];
	size_t n = 0;

	for (size_t i = 0; i < g->n; i++) {
		uint64_t armed = sched_armed_cycle(config_gen->sched, gi, i);

		if (passed && (armed == UINT64_MAX || armed <= cycle))
			continue;
		if (store_state_has(d->st, g->name, g->u[i].spec, (int64_t)cycle) == 0) {
			unit_start(d, &g->u[i], cycle);
			n++;
		}
	}
	return n;
}

size_t
daemon_recover(struct daemon *d)
{
	struct config_gen *config_gen = d->cur;
	uint64_t now = daemon_wall_ns();
	size_t total = 0;

	for (size_t gi = 0; gi < config_gen->ng; gi++) {
		struct dgroup *g = &config_gen->g[gi];
		int64_t last = store_last_cycle(d->st, g->name);
		uint64_t cur = now / g->interval_ns;
		bool redo, catch_up;
		size_t n;

		if (g->n == 0)
			continue;
		sched_recovery(last, cur, &redo, &catch_up);
		if (redo && (n = recover_cycle(d, gi, (uint64_t)last, false)) > 0) {
			log_info("group %s: %zu targets of cycle %lld left unfinished; "
			    "probed again now", g->name, n, (long long)last);
			total += n;
		}
		if (catch_up && (n = recover_cycle(d, gi, cur, true)) > 0) {
			log_info("group %s: %zu targets of cycle %llu due while no daemon "
			    "ran; probed now", g->name, n, (unsigned long long)cur);
			total += n;
		}
	}
	return total;
}

void
daemon_cycle_counts(const struct daemon *d, uint64_t *due, uint64_t *running, uint64_t *done)
{
	const struct config_gen *config_gen = d->cur;

	*due = *running = *done = 0;
	for (size_t gi = 0; gi < config_gen->ng; gi++) {
		const struct dgroup *g = &config_gen->g[gi];

		*due += g->n - (g->started < g->n ? g->started : g->n);
		*running += g->started - (g->ended < g->started ? g->ended : g->started);
		*done += g->ended;
	}
}
