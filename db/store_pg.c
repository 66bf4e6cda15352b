/*
 * store_pg.c -- the PostgreSQL engine (store_engine.h): a store at a
 * connection URI, through libpq.  Opening (the schema created or checked
 * under an advisory lock, so two writers starting at once do not both
 * create it; a database with tables of its own, another application's
 * or a newer schema refused), the batched transactions, the statements'
 * plumbing and the defensive reading of cells; the rows are
 * store_pg_write.c's, the readers store_pg_read.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pq_lazy.h"
#include "store_engine.h"
#include "store_pg_int.h"

/* pg_type's OIDs of the types this engine reads (catalog/pg_type.h's,
 * stable across releases) */
#define OID_BYTEA	17
#define OID_INT8	20
#define OID_INT2	21
#define OID_INT4	23
#define OID_TEXT	25
#define OID_VARCHAR	1043

static _Thread_local bool refused;

uint64_t
pg_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* msg as one line of printable ASCII (libpq's run over several) */
static void
one_line(char *out, size_t len, const char *msg)
{
	size_t n = 0;

	for (const char *p = msg; *p != '\0' && n + 1 < len; p++) {
		unsigned char ch = (unsigned char)*p;

		if (ch == '\n' || ch == '\r' || ch == '\t')
			ch = ' ';
		else if (ch < 0x20 || ch > 0x7e)
			ch = '?';
		if (ch == ' ' && (n == 0 || out[n - 1] == ' '))
			continue;
		out[n++] = (char)ch;
	}
	while (n > 0 && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
}

static int
fail_msg(struct pg_store *st, const char *what, const char *msg)
{
	char line[STORE_ERRLEN];

	one_line(line, sizeof(line), msg != NULL ? msg : "");
	snprintf(st->err, sizeof(st->err), "%.200s: %s: %.240s", st->where, what,
	    line[0] != '\0' ? line : "failed");
	return -1;
}

int
pg_fail(struct pg_store *st, const char *what)
{
	return fail_msg(st, what, PQerrorMessage(st->c));
}

int
pg_failres(struct pg_store *st, PGresult *r, const char *what)
{
	const char *m = r != NULL ? PQresultErrorMessage(r) : NULL;

	fail_msg(st, what, m != NULL && m[0] != '\0' ? m : PQerrorMessage(st->c));
	PQclear(r);
	return -1;
}

PGresult *
pg_run(struct pg_store *st, const char *sql, const struct pg_params *p, ExecStatusType want,
    const char *what)
{
	PGresult *r = PQexecParams(st->c, sql, p != NULL ? p->n : 0, NULL,
	    p != NULL ? p->v : NULL, p != NULL ? p->len : NULL, p != NULL ? p->fmt : NULL, 0);

	if (r == NULL || PQresultStatus(r) != want) {
		pg_failres(st, r, what);
		return NULL;
	}
	return r;
}

int
pg_cmd(struct pg_store *st, const char *sql, const struct pg_params *p, const char *what)
{
	PGresult *r = pg_run(st, sql, p, PGRES_COMMAND_OK, what);

	if (r == NULL)
		return -1;
	PQclear(r);
	return 0;
}

void
pgp_init(struct pg_params *p)
{
	p->n = 0;
}

static int
slot(struct pg_params *p)
{
	int i = p->n < PG_MAXP ? p->n++ : PG_MAXP - 1;	/* callers stay below */

	p->len[i] = 0;
	p->fmt[i] = 0;
	p->v[i] = NULL;
	return i;
}

void
pgp_null(struct pg_params *p)
{
	slot(p);
}

void
pgp_int(struct pg_params *p, int64_t v)
{
	int i = slot(p);

	snprintf(p->num[i], sizeof(p->num[i]), "%" PRId64, v);
	p->v[i] = p->num[i];
}

void
pgp_opt(struct pg_params *p, bool present, int64_t v)
{
	if (present)
		pgp_int(p, v);
	else
		pgp_null(p);
}

void
pgp_text(struct pg_params *p, const char *s)
{
	p->v[slot(p)] = s;
}

void
pgp_bin(struct pg_params *p, const uint8_t *b, size_t len)
{
	int i = slot(p);

	p->v[i] = (const char *)b;
	p->len[i] = (int)len;
	p->fmt[i] = 1;
}

bool
pg_cell_int(const PGresult *r, int row, int col, int64_t lo, int64_t hi, int64_t *v)
{
	Oid t;
	const char *s;
	char *end;
	long long x;

	if (r == NULL || row < 0 || row >= PQntuples(r) || col < 0 || col >= PQnfields(r) ||
	    PQgetisnull(r, row, col) || PQfformat(r, col) != 0)
		return false;
	t = PQftype(r, col);
	if (t != OID_INT8 && t != OID_INT4 && t != OID_INT2)
		return false;
	s = PQgetvalue(r, row, col);
	if (PQgetlength(r, row, col) < 1 || PQgetlength(r, row, col) > 20 ||
	    strlen(s) != (size_t)PQgetlength(r, row, col))
		return false;
	errno = 0;
	x = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0' || end == s || x < lo || x > hi)
		return false;
	*v = x;
	return true;
}

const char *
pg_cell_text(const PGresult *r, int row, int col)
{
	Oid t;
	const char *s;

	if (r == NULL || row < 0 || row >= PQntuples(r) || col < 0 || col >= PQnfields(r) ||
	    PQgetisnull(r, row, col) || PQfformat(r, col) != 0)
		return NULL;
	t = PQftype(r, col);
	if (t != OID_TEXT && t != OID_VARCHAR)
		return NULL;
	s = PQgetvalue(r, row, col);
	/* text holds no NUL: a shorter string than said is not this column */
	if (strlen(s) != (size_t)PQgetlength(r, row, col))
		return NULL;
	return s;
}

/* A bytea cell (the result asked in binary): its bytes and length. */
static bool
cell_bytes(const PGresult *r, int row, int col, const uint8_t **b, size_t *len)
{
	if (r == NULL || row < 0 || row >= PQntuples(r) || col < 0 || col >= PQnfields(r) ||
	    PQgetisnull(r, row, col) || PQfformat(r, col) != 1 || PQftype(r, col) != OID_BYTEA ||
	    PQgetlength(r, row, col) < 0)
		return false;
	*b = (const uint8_t *)PQgetvalue(r, row, col);
	*len = (size_t)PQgetlength(r, row, col);
	return true;
}

static void
quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;	/* NOTICEs (IF NOT EXISTS, ...) are not the user's */
}

int
pg_batch_begin(struct pg_store *st)
{
	if (st->in_batch)
		return 0;
	/* a connection the server or the network closed is made again at
	 * the next batch (what was not committed on it is gone, counted) */
	if (PQstatus(st->c) == CONNECTION_BAD) {
		PQreset(st->c);
		if (PQstatus(st->c) != CONNECTION_OK)
			return pg_fail(st, "reconnect");
		PQsetNoticeProcessor(st->c, quiet, NULL);
	}
	if (pg_cmd(st, "BEGIN", NULL, "begin batch") != 0)
		return -1;
	st->in_batch = true;
	st->batch_n = 0;
	st->batch_start = pg_now_ns();
	return 0;
}

int
pg_batch_lost(struct pg_store *st)
{
	if (st->in_batch) {
		PQclear(PQexec(st->c, "ROLLBACK"));	/* may fail: the link is gone */
		st->in_batch = false;
		st->stats.failed_writes++;
		st->stats.dropped += st->batch_n;
		st->batch_n = 0;
	}
	st->failing = true;
	return -1;
}

int
pg_batch_commit(struct pg_store *st)
{
	uint64_t t0 = pg_now_ns(), took;
	unsigned n = st->batch_n;

	if (!st->in_batch)
		return 0;
	st->in_batch = false;
	st->batch_n = 0;
	if (pg_cmd(st, "COMMIT", NULL, "commit") != 0) {
		/* the server rolled it back: its rows are gone, and counted */
		st->stats.failed_writes++;
		st->stats.dropped += n;
		st->failing = true;
		return -1;
	}
	st->failing = false;
	st->stats.batches++;
	took = pg_now_ns() - t0;
	if (took > st->stats.commit_ns_max)
		st->stats.commit_ns_max = took;
	return 0;
}

/* --- opening -------------------------------------------------------------- */

static int
refuse(struct pg_store *st, const char *what)
{
	snprintf(st->err, sizeof(st->err), "%.200s: %s", st->where, what);
	refused = true;
	return -1;
}

/* The version in scaleprobe_schema; 0 when the table is missing (and the
 * database holds none of the store's tables), -1 refused or failed. */
static int64_t
schema_version(struct pg_store *st)
{
	PGresult *r = pg_run(st, "SELECT to_regclass('scaleprobe_schema')::text,"
	    " to_regclass('runs')::text", NULL, PGRES_TUPLES_OK, "read the schema");
	int64_t app = 0, v = 0;
	bool have, other;

	if (r == NULL)
		return -1;
	have = PQntuples(r) == 1 && !PQgetisnull(r, 0, 0);
	other = PQntuples(r) == 1 && !PQgetisnull(r, 0, 1);
	PQclear(r);
	if (!have)
		return other ? refuse(st, "not a scaleprobe store (tables without "
		    "scaleprobe_schema)") : 0;
	if ((r = pg_run(st, "SELECT application_id, version FROM scaleprobe_schema", NULL,
	    PGRES_TUPLES_OK, "read the schema")) == NULL)
		return -1;
	if (PQntuples(r) != 1 || !pg_cell_int(r, 0, 0, INT64_MIN, INT64_MAX, &app) ||
	    !pg_cell_int(r, 0, 1, 1, INT64_MAX, &v)) {
		PQclear(r);
		return refuse(st, "scaleprobe_schema is not one row of two integers");
	}
	PQclear(r);
	if (app != STORE_APPLICATION_ID)
		return refuse(st, "not a scaleprobe store (another application_id)");
	if (v > PG_SCHEMA_VERSION) {
		char n[96];

		snprintf(n, sizeof(n), "schema version %" PRId64 " is newer than this "
		    "binary's (%d)", v, PG_SCHEMA_VERSION);
		return refuse(st, n);
	}
	if (v < PG_SCHEMA_BASE)
		return refuse(st, "a schema version this engine never wrote");
	return v;
}

/* A writer's open: the schema created when missing, in one transaction
 * under the store's advisory lock. */
static int
setup_writer(struct pg_store *st)
{
	struct pg_params p;
	PGresult *r;
	int64_t v;
	bool created = false;

	if (pg_cmd(st, "BEGIN", NULL, "begin") != 0)
		return -1;
	pgp_init(&p);
	pgp_int(&p, STORE_APPLICATION_ID);
	if ((r = pg_run(st, "SELECT pg_advisory_xact_lock($1::bigint)", &p, PGRES_TUPLES_OK,
	    "lock the schema")) == NULL)
		goto fail;
	PQclear(r);
	if ((v = schema_version(st)) < 0)
		goto fail;
	if (v > 0 && v < PG_SCHEMA_VERSION)
		st->migrated_from = v;
	if (v == 0) {
		/* several statements: the simple protocol's PQexec */
		if ((r = PQexec(st->c, pg_schema_full)) == NULL ||
		    PQresultStatus(r) != PGRES_COMMAND_OK) {
			pg_failres(st, r, "create the schema");
			goto fail;
		}
		PQclear(r);
		pgp_init(&p);
		pgp_int(&p, STORE_APPLICATION_ID);
		pgp_int(&p, PG_SCHEMA_VERSION);
		if (pg_cmd(st, "INSERT INTO scaleprobe_schema (application_id, version)"
		    " VALUES ($1, $2)", &p, "create the schema") != 0)
			goto fail;
		/* pg_schema_full is version PG_SCHEMA_BASE; the migrations follow */
		v = PG_SCHEMA_BASE;
		created = true;
	}
	/* the migrations since, in this transaction: all or none */
	for (; v < PG_SCHEMA_VERSION; v++) {
		if ((r = PQexec(st->c, pg_migrations[v - PG_SCHEMA_BASE])) == NULL ||
		    PQresultStatus(r) != PGRES_COMMAND_OK) {
			pg_failres(st, r, "migrate the schema");
			goto fail;
		}
		PQclear(r);
	}
	/* written only when it changed: a vantage's role (db/roles.sql) may
	 * read the version, not write it */
	pgp_init(&p);
	pgp_int(&p, PG_SCHEMA_VERSION);
	if ((created || st->migrated_from != 0) && pg_cmd(st, "UPDATE scaleprobe_schema SET version = $1",
	    &p, "migrate the schema") != 0)
		goto fail;
	return pg_cmd(st, "COMMIT", NULL, "commit the schema");
fail:
	PQclear(PQexec(st->c, "ROLLBACK"));
	return -1;
}

int
pg_connect(struct pg_store *st, const char *where)
{
	static const char *const keys[] = { "connect_timeout", "fallback_application_name",
	    "dbname", NULL };
	const char *vals[] = { "10", "scaleprobe", where, NULL };

	store_where_safe(where, st->where, sizeof(st->where));
	st->c = PQconnectdbParams(keys, vals, 1);
	if (st->c == NULL || PQstatus(st->c) != CONNECTION_OK) {
		if (st->c != NULL)
			return pg_fail(st, "connect");
		snprintf(st->err, sizeof(st->err), "%s: connect: %s", st->where, pq_lazy_error());
		return -1;
	}
	PQsetNoticeProcessor(st->c, quiet, NULL);
	return pg_cmd(st, "SET client_min_messages = warning", NULL, "set up");
}

static void *
pg_open(const char *where, enum store_mode mode, const struct store_opts *o, char *err,
    size_t errlen)
{
	struct pg_store *st = calloc(1, sizeof(*st));

	refused = false;
	if (st == NULL) {
		snprintf(err, errlen, "store: out of memory");
		return NULL;
	}
	st->mode = mode;
	/* of store_opts only the batch's bounds are this engine's */
	st->o.batch_rows = o != NULL && o->batch_rows > 0 ? o->batch_rows : 1000;
	st->o.batch_ns = o != NULL && o->batch_ns > 0 ? o->batch_ns : 1000000000u;
	if (pg_connect(st, where) != 0)
		goto fail;
	if (mode == STORE_WRITE) {
		if (setup_writer(st) != 0)
			goto fail;
	} else {
		int64_t v = schema_version(st);

		if (v == 0)
			refuse(st, "no scaleprobe store here (no scaleprobe_schema)");
		else if (v > 0 && v < PG_SCHEMA_VERSION) {
			char n[128];

			snprintf(n, sizeof(n), "schema version %" PRId64 " is older than this "
			    "binary's (%d): a writer (scaleprobed) upgrades it", v,
			    PG_SCHEMA_VERSION);
			v = refuse(st, n);
		}
		if (v <= 0 || pg_cmd(st, "SET default_transaction_read_only = on", NULL,
		    "set up") != 0)
			goto fail;
	}
	return st;
fail:
	snprintf(err, errlen, "%s", st->err);
	PQfinish(st->c);
	free(st);
	return NULL;
}

static bool
pg_open_refused(void)
{
	return refused;
}

static int
pg_flush(void *e, bool force)
{
	struct pg_store *st = e;

	if (!st->in_batch)
		return 0;
	if (!force && st->batch_n < st->o.batch_rows &&
	    pg_now_ns() - st->batch_start < st->o.batch_ns)
		return 0;
	return pg_batch_commit(st);
}

static int
pg_close(void *e, char *err, size_t errlen)
{
	struct pg_store *st = e;
	int rc = 0;

	if (st->in_batch && pg_batch_commit(st) != 0) {
		if (err != NULL)
			snprintf(err, errlen, "%s", st->err);
		rc = -1;
	}
	PQfinish(st->c);
	free(st);
	return rc;
}

static const char *
pg_error(const void *e)
{
	return ((const struct pg_store *)e)->err;
}

static bool
pg_failing(const void *e)
{
	return ((const struct pg_store *)e)->failing;
}

static uint64_t
pg_pending(const void *e)
{
	const struct pg_store *st = e;

	return st->in_batch ? st->batch_n : 0;
}

static const struct store_stats *
pg_stats(const void *e)
{
	return &((const struct pg_store *)e)->stats;
}

static int64_t
pg_migrated_from(const void *e)
{
	return ((const struct pg_store *)e)->migrated_from;
}

static int
pg_exec(void *e, const char *sql)
{
	struct pg_store *st = e;
	PGresult *r = PQexec(st->c, sql);
	ExecStatusType s = r != NULL ? PQresultStatus(r) : PGRES_FATAL_ERROR;

	if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK)
		return pg_failres(st, r, "exec");
	PQclear(r);
	return 0;
}

static int64_t
pg_query_int(void *e, const char *sql)
{
	struct pg_store *st = e;
	PGresult *r = pg_run(st, sql, NULL, PGRES_TUPLES_OK, "query");
	int64_t v = -1;

	if (r != NULL && !pg_cell_int(r, 0, 0, INT64_MIN, INT64_MAX, &v))
		v = -1;
	PQclear(r);
	return v;
}

/* The database's size (all of it: the store owns its database) and the
 * oldest result's time. */
static int
pg_size(void *e, int64_t *bytes, int64_t *oldest_ns)
{
	struct pg_store *st = e;
	PGresult *r = pg_run(st, "SELECT pg_database_size(current_database()),"
	    " (SELECT min(time_ns) FROM path_results)", NULL, PGRES_TUPLES_OK, "size");

	if (r == NULL)
		return -1;
	if (!pg_cell_int(r, 0, 0, 0, INT64_MAX, bytes))
		*bytes = 0;
	if (oldest_ns != NULL && !pg_cell_int(r, 0, 1, 0, INT64_MAX, oldest_ns))
		*oldest_ns = 0;
	PQclear(r);
	return 0;
}

int
pg_cell_bytes(const PGresult *r, int row, int col, const uint8_t **b, size_t *len)
{
	return cell_bytes(r, row, col, b, len) ? 0 : -1;
}

const struct store_engine store_engine_pg = {
	.name = "PostgreSQL",
	.open = pg_open,
	.open_refused = pg_open_refused,
	.close = pg_close,
	.migrated_from = pg_migrated_from,
	.run_begin = pg_run_begin,
	.add = pg_add,
	.flush = pg_flush,
	.error = pg_error,
	.failing = pg_failing,
	.pending = pg_pending,
	.stats = pg_stats,
	.prune_step = pg_prune_step,
	.check = pg_check,
	.size = pg_size,
	.run_cycle = pg_run_cycle,
	.state_add = pg_state_add,
	.state_has = pg_state_has,
	.last_cycle = pg_last_cycle,
	.discard_unfinished = pg_discard_unfinished,
	.alert_put = pg_alert_put,
	.alert_each = pg_alert_each,
	.exec = pg_exec,
	.query_int = pg_query_int,
	.h_open = pg_history_open,
	.h_close = pg_history_close,
	.h_error = pg_history_error,
	.h_show = pg_history_show,
	.h_export = pg_history_export,
	.h_findings = pg_history_findings,
	.h_evidence = pg_history_evidence,
	.report = pg_report,
};
