/*
 * cmd_show_live.c -- show --live: the host probed now through the run
 * API (cli_run.h, as `probe` does), each result printed beside the
 * history that follows it and stored, in a run of its own, in the store
 * being shown.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blocklist.h"
#include "cli.h"
#include "cli_run.h"
#include "cli_history.h"
#include "demand_client.h"
#include "json.h"
#include "log.h"
#include "output.h"
#include "paths.h"
#include "show.h"
#include "store.h"
#include "version.h"

struct live_out {
	bool json;
	const char *vantage;
	struct json j;
	struct store *st;
	int64_t run_id;
	size_t n;
};

static int
live_result(void *arg, struct path_result *res)
{
	struct live_out *out = arg;

	out->n++;
	if (out->json) {
		size_t len;
		const char *text;

		json_reset(&out->j);
		json_object_begin(&out->j);
		json_key(&out->j, "live");
		output_json(&out->j, res, out->vantage);
		json_object_end(&out->j);
		text = json_text(&out->j, &len);
		fwrite(text, 1, len, stdout);
		fputc('\n', stdout);
	} else {
		printf("live, now:\n");
		output_text(stdout, res);
	}
	if (store_add(out->st, out->run_id, res) != 0) {
		log_warnx("%s", store_error(out->st));
		return -1;
	}
	return 0;
}

static int
live_via_result(void *arg, const char *text, size_t len)
{
	const struct show_opts *o = arg;

	if (o->json)
		printf("{\"live\":%.*s}\n", (int)(len > 0 && text[len - 1] == '\n' ? len - 1 :
		    len), text);
	else
		printf("live, now:\n%s", text);
	return ferror(stdout) ? -1 : 0;
}

/* The live probe asked of the daemon, which stores it (with the uid). */
static int
live_via_daemon(const struct conf *c, const struct show_opts *o)
{
	struct demand_client q;
	char spec[TARGETS_TEXT_MAX + 16];
	const char *v[1] = { spec };
	int status;

	if (c->control == NULL) {
		log_warnx("show --live: probing needs root, or CAP_NET_RAW and CAP_NET_ADMIN, "
		    "or a daemon's control setting to ask it");
		return EXIT_USAGE;
	}
	if (o->port < 0)
		snprintf(spec, sizeof(spec), "%s", o->host);
	else if (strchr(o->host, ':') != NULL)
		snprintf(spec, sizeof(spec), "[%s]:%d", o->host, o->port);
	else
		snprintf(spec, sizeof(spec), "%s:%d", o->host, o->port);
	memset(&q, 0, sizeof(q));
	q.socket = c->control;
	q.targets = v;
	q.ntargets = 1;
	q.json = o->json;
	q.result = live_via_result;
	q.arg = (void *)o;
	status = demand_ask(&q);
	if (status == EXIT_USAGE)
		return EXIT_USAGE;
	if (!o->json)
		printf("\n");
	return EXIT_CLEAN;
}

int
show_live(struct conf *c, const struct show_opts *o, const char *db, struct history *h)
{
	struct targets t;
	struct blocklist *bl = NULL;
	struct paths paths;
	struct paths_opts po;
	struct cli_run_config rc;
	struct runner_stats stats;
	struct live_out out;
	char vantage[256], err[STORE_ERRLEN];
	uint16_t port1;
	int status = EXIT_CLEAN;

	(void)h;
	if (!cli_may_probe())
		return live_via_daemon(c, o);
	/* --vantage names the live run too: it is shown with its like */
	if (o->vantage != NULL)
		snprintf(vantage, sizeof(vantage), "%s", o->vantage);
	else if (c->vantage != NULL)
		snprintf(vantage, sizeof(vantage), "%s", c->vantage);
	else if (gethostname(vantage, sizeof(vantage)) != 0)
		snprintf(vantage, sizeof(vantage), "unknown");
	targets_init(&t);
	port1 = (uint16_t)o->port;
	if (conf_targets_spec(&t, o->host, c->allow_large, o->port >= 0 ? &port1 : c->ports,
	    o->port >= 0 ? 1 : c->nports) != 0 || t.nerrors > 0) {
		fputs(strbuf_str(&t.errors), stderr);
		targets_free(&t);
		return EXIT_USAGE;
	}
	bl = conf_blocklist(c);
	memset(&po, 0, sizeof(po));
	po.bl = bl;
	po.source4 = c->have_source4 ? &c->source4 : NULL;
	po.source6 = c->have_source6 ? &c->source6 : NULL;
	po.range4 = c->range4.first.family != 0 ? &c->range4 : NULL;
	po.range6 = c->range6.first.family != 0 ? &c->range6 : NULL;
	po.ifname = c->interface;
	if (paths_open(&paths, &t, &po) != 0) {
		status = EXIT_USAGE;
		goto done;
	}
	if (paths.n == 0 && paths.nnames == 0 && !paths.more_now) {
		log_warnx("show --live: nothing to probe");
		status = EXIT_USAGE;
		goto done;
	}
	memset(&out, 0, sizeof(out));
	out.json = o->json;
	out.vantage = vantage;
	if (cli_history_run_begin(c, db, vantage, "scaleprobe " SCALEPROBE_VERSION " show --live",
	    &out.st, &out.run_id) != 0) {
		status = EXIT_USAGE;
		goto done;
	}
	json_init(&out.j);
	memset(&rc, 0, sizeof(rc));
	rc.paths = &paths;
	rc.settings = &c->probe;
	rc.on_result = live_result;
	rc.arg = &out;
	if (cli_run(&rc, &stats) != 0 || stats.interrupted || stats.failed)
		status = EXIT_USAGE;
	else if (out.n == 0) {
		log_warnx("show --live: %s: no path could be probed", o->host);
		status = EXIT_USAGE;
	}
	/* committed before the history is read, so it is in it */
	if (store_flush(out.st, true) != 0) {
		log_warnx("%s", store_error(out.st));
		status = EXIT_USAGE;
	}
	if (store_close(out.st, err, sizeof(err)) != 0) {
		log_warnx("%s", err);
		status = EXIT_USAGE;
	}
	json_free(&out.j);
	if (status == EXIT_CLEAN && !o->json)
		printf("\n");
done:
	paths_free(&paths);
	blocklist_free(bl);
	targets_free(&t);
	return status;
}
