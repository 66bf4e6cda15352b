/*
 * upload_rows.c -- the rows of one upload batch (upload_int.h): read from
 * the local SQLite store, every cell checked against the type and NULL the
 * schema gives it (a file's bytes are hostile; a cell the shared store
 * would refuse would refuse the whole batch there, again at every retry),
 * then written into the shared store's runs, targets, paths,
 * path_results, scale_results, side_findings, hops and evidence in one
 * transaction.  The key table decides first: one INSERT INTO uploads ...
 * ON CONFLICT DO NOTHING RETURNING seq names the results it had not taken,
 * and only those are written, so a batch sent twice is stored once.  A
 * run is written once per (vantage, store, local run id) (runs_store).
 * A table's rows go as one JSON parameter of one INSERT ... SELECT FROM
 * json_populate_recordset: the server parses a document, not a statement
 * of thousands of parameters.  Texts go as printable ASCII
 * (upload_clean_text).  A result is read
 * only once its target finished its cycle (its state committed), so no
 * result the server took is discarded by a start after a crash.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "upload.h"
#include "upload_int.h"

/* A cell: text or binary (fmt 1) parameter; v NULL: SQL NULL. */
struct ucell {
	const char *v;
	int len;
	int fmt;
};

/* A column: its name and its kind, as a letter: i INTEGER, l BIGINT, t
 * TEXT, b BYTEA; upper case when NOT NULL. */
struct ucol {
	const char *name;
	char kind;
};

static const struct ucol run_cols[] = {
	{ "started_ns", 'L' }, { "vantage", 'T' }, { "settings_digest", 'T' },
	{ "settings", 'T' }, { "program", 'T' }, { "grp", 't' }, { "cycle", 'l' },
	{ "on_demand_uid", 'l' }, { "clock", 't' },
};
#define NRUN	(int)(sizeof(run_cols) / sizeof(run_cols[0]))
#define RUN_VANTAGE	1

/* the path result's own columns, after the target's spec and the path's
 * address, port and family */
static const struct ucol pr_cols[] = {
	{ "time_ns", 'L' }, { "control_reply", 'T' }, { "control_sa_present", 'I' },
	{ "control_wscale", 'i' }, { "control_mss", 'i' }, { "control_sack", 'i' },
	{ "control_ts", 'i' }, { "traced", 'I' }, { "capture_drops", 'L' },
	{ "send_failures", 'L' }, { "capture_error", 't' },
};
#define NPR	(int)(sizeof(pr_cols) / sizeof(pr_cols[0]))
#define PR_SPEC		0
#define PR_ADDRESS	1
#define PR_PORT		2
#define PR_FAMILY	3
#define PR_OWN		4	/* pr_cols from here */
#define PR_TIME		PR_OWN

static const struct ucol scale_cols[] = {
	{ "idx", 'I' }, { "time_ns", 'L' }, { "problem", 'I' }, { "scale_sent", 'I' },
	{ "reply", 'T' }, { "icmp_type", 'i' }, { "icmp_code", 'i' }, { "sa_present", 'I' },
	{ "sa_wscale", 'i' }, { "sa_mss", 'i' }, { "sa_sack", 'i' }, { "sa_ts", 'i' },
	{ "scale_quoted", 'i' }, { "scale_effective", 'i' }, { "scale_effective_min", 'i' },
	{ "flight_bytes", 'l' }, { "verdict", 't' }, { "reason", 't' }, { "hop_index", 'i' },
	{ "hop_address", 't' }, { "last_clean_index", 'i' }, { "last_clean_address", 't' },
	{ "hop_silent", 'l' }, { "flows", 'i' }, { "flows_affected", 'i' },
	{ "branch_hop", 'i' }, { "branch_problem", 't' }, { "branch_clean", 't' },
};
static const struct ucol finding_cols[] = {
	{ "scale_idx", 'I' }, { "idx", 'I' }, { "kind", 'T' }, { "detail", 't' },
	{ "hop_index", 'i' }, { "hop_address", 't' },
};
static const struct ucol hop_cols[] = {
	{ "ttl", 'I' }, { "address", 't' }, { "quote", 'T' }, { "rfc4884", 'i' },
	{ "rtt_us", 'l' },
};
static const struct ucol evidence_cols[] = {
	{ "packets", 'I' }, { "truncated", 'I' }, { "bytes", 'B' },
};

/* The tables under a path result, written in this order (a side finding
 * names its scale), each row keyed by path_result_id; scale_results also
 * carries the path's id. */
static const struct utable {
	const char *name;
	const struct ucol *cols;
	int ncol;
	bool path_id;
	const char *order;
} tables[] = {
#define T(n, c, p, o) { n, c, (int)(sizeof(c) / sizeof(c[0])), p, o }
	T("scale_results", scale_cols, true, "idx"),
	T("side_findings", finding_cols, false, "scale_idx, idx"),
	T("hops", hop_cols, false, "ttl"),
	T("evidence", evidence_cols, false, "path_result_id"),
#undef T
};
#define NTAB	(int)(sizeof(tables) / sizeof(tables[0]))
#define TAB_SCALES	0
#define TAB_FINDINGS	1

struct urun {
	int64_t local;
	int64_t pg;			/* 0: not yet known in this send */
	struct ucell c[NRUN];
};

struct ures {
	int64_t id;
	struct urun *run;
	struct ucell pr[PR_OWN + NPR];
	int n[NTAB];			/* rows of each table */
	struct ucell *rows[NTAB];	/* n[t] * tables[t].ncol */
	bool fresh;			/* the server had not taken it */
	int64_t target, path, run_pg;	/* the shared store's ids */
	char num[3][24];		/* run_pg, target, path as sent */
	char prid[24];			/* its path result's id there */
};

struct arena {
	struct arena *next;
	size_t used, cap;
	char b[];
};

struct ubatch {
	int n, nruns;
	struct ures r[UPLOAD_BATCH];
	struct urun runs[UPLOAD_BATCH];
	struct arena *a;
	bool oom;
};

bool
upload_store_ok(const char *s)
{
	size_t i = 0;

	for (; s != NULL && s[i] != '\0'; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return i == UPLOAD_STORE_LEN;
}

static void *
alloc(struct ubatch *b, size_t n)
{
	struct arena *a = b->a;

	n = (n + 7) & ~(size_t)7;
	if (a == NULL || a->cap - a->used < n) {
		size_t cap = n > 65536 ? n : 65536;

		if ((a = malloc(sizeof(*a) + cap)) == NULL) {
			b->oom = true;
			return NULL;
		}
		a->cap = cap;
		a->used = 0;
		a->next = b->a;
		b->a = a;
	}
	a->used += n;
	return a->b + a->used - n;
}

static void
clear(struct ubatch *b)
{
	while (b->a != NULL) {
		struct arena *a = b->a;

		b->a = a->next;
		free(a);
	}
	b->n = b->nruns = 0;
	b->oom = false;
}

struct ubatch *
ubatch_new(void)
{
	return calloc(1, sizeof(struct ubatch));
}

void
ubatch_free(struct ubatch *b)
{
	if (b != NULL)
		clear(b);
	free(b);
}

/* Cell i of s as kind says into c; false when it is not that (or memory
 * ran out). */
static bool
cell(struct ubatch *b, sqlite3_stmt *s, int i, char kind, struct ucell *c)
{
	int t = sqlite3_column_type(s, i), n;
	char *p;

	c->v = NULL;
	c->len = 0;
	c->fmt = 0;
	if (t == SQLITE_NULL)
		return islower((unsigned char)kind);
	switch (tolower((unsigned char)kind)) {
	case 'i':
	case 'l': {
		int64_t v = sqlite3_column_int64(s, i);

		if (t != SQLITE_INTEGER ||
		    (tolower((unsigned char)kind) == 'i' && (v < INT32_MIN || v > INT32_MAX)) ||
		    (p = alloc(b, 24)) == NULL)
			return false;
		snprintf(p, 24, "%" PRId64, v);
		break;
	}
	case 't':
		n = sqlite3_column_bytes(s, i);
		if (t != SQLITE_TEXT || (p = alloc(b, (size_t)n + 1)) == NULL)
			return false;
		upload_clean_text((const char *)sqlite3_column_text(s, i), p, (size_t)n + 1);
		break;
	case 'b':
		n = sqlite3_column_bytes(s, i);
		if (t != SQLITE_BLOB || (p = alloc(b, (size_t)n + 1)) == NULL)
			return false;
		if (n > 0)
			memcpy(p, sqlite3_column_blob(s, i), (size_t)n);
		c->len = n;
		c->fmt = 1;
		break;
	default:
		return false;
	}
	c->v = p;
	return true;
}

static bool
cells(struct ubatch *b, sqlite3_stmt *s, int from, const struct ucol *cols, int n,
    struct ucell *out)
{
	for (int i = 0; i < n; i++)
		if (!cell(b, s, from + i, cols[i].kind, &out[i]))
			return false;
	return true;
}

/* The local run id's row, read once per batch; NULL when it is not what
 * the schema says. */
static struct urun *
run_of(struct ubatch *b, sqlite3_stmt *s, int64_t id)
{
	struct urun *u;
	bool ok;

	for (int i = 0; i < b->nruns; i++)
		if (b->runs[i].local == id)
			return &b->runs[i];
	if (b->nruns >= UPLOAD_BATCH)
		return NULL;
	u = &b->runs[b->nruns];
	sqlite3_reset(s);
	sqlite3_bind_int64(s, 1, id);
	ok = sqlite3_step(s) == SQLITE_ROW && cells(b, s, 0, run_cols, NRUN, u->c);
	sqlite3_reset(s);
	if (!ok)
		return NULL;
	u->local = id;
	u->pg = 0;
	b->nruns++;
	return u;
}

/* Table t's rows of the result r; false when one is not what the schema
 * says (the result is passed over whole). */
static bool
children(struct ubatch *b, sqlite3_stmt *s, int t, struct ures *r)
{
	const struct utable *tb = &tables[t];
	int n = 0, cap = 0, rc;
	struct ucell *rows = NULL;

	sqlite3_reset(s);
	sqlite3_bind_int64(s, 1, r->id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (n == cap) {
			struct ucell *more;

			cap = cap ? cap * 2 : 8;
			if ((more = alloc(b, (size_t)cap * (size_t)tb->ncol *
			    sizeof(*more))) == NULL)
				return false;
			if (n > 0)
				memcpy(more, rows, (size_t)n * (size_t)tb->ncol * sizeof(*more));
			rows = more;
		}
		if (!cells(b, s, 0, tb->cols, tb->ncol, &rows[n * tb->ncol]))
			return false;
		n++;
	}
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return false;
	r->n[t] = n;
	r->rows[t] = rows;
	return true;
}

/* A side finding names a scale of its result (the shared store's foreign
 * key): one that names none is left out, as no reader could show it. */
static void
drop_orphans(struct ures *r)
{
	int nf = tables[TAB_FINDINGS].ncol, ns = tables[TAB_SCALES].ncol, k = 0;

	for (int i = 0; i < r->n[TAB_FINDINGS]; i++) {
		const struct ucell *f = &r->rows[TAB_FINDINGS][i * nf];
		bool found = false;

		for (int j = 0; j < r->n[TAB_SCALES] && !found; j++)
			found = strcmp(r->rows[TAB_SCALES][j * ns].v, f[0].v) == 0;
		if (found) {
			if (k != i)
				memcpy(&r->rows[TAB_FINDINGS][k * nf], f, (size_t)nf * sizeof(*f));
			k++;
		}
	}
	r->n[TAB_FINDINGS] = k;
}

static sqlite3_stmt *
prep(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
		sqlite3_finalize(s);
		return NULL;
	}
	return s;
}

/* "a, b, c" of cols into buf, each after prefix */
static void
names(char *buf, size_t len, const struct ucol *cols, int n, const char *prefix)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s%s", i ? ", " : "",
		    prefix, cols[i].name);
}

int
ubatch_read(struct ubatch *b, sqlite3 *db, int64_t cursor, int max, int64_t *last, char *err,
    size_t errlen)
{
	sqlite3_stmt *main = NULL, *run = NULL, *child[NTAB] = { NULL };
	char sql[2048], cols[700];
	int rc, out = -1;

	clear(b);
	*last = cursor;
	names(cols, sizeof(cols), pr_cols, NPR, "pr.");
	/* the last column: whether the result's target finished its cycle
	 * (its state committed; a run of no cycle always has) -- exactly the
	 * results store_discard_unfinished never deletes at a start */
	snprintf(sql, sizeof(sql), "SELECT pr.id, pr.run_id, t.spec, p.address, p.port,"
	    " p.family, %s, (SELECT r.cycle IS NULL OR EXISTS (SELECT 1 FROM target_states s"
	    " WHERE s.grp = r.grp AND s.target_id = pr.target_id AND s.cycle = r.cycle"
	    " AND s.run_id = pr.run_id) FROM runs r WHERE r.id = pr.run_id)"
	    " FROM path_results pr JOIN targets t ON t.id = pr.target_id"
	    " JOIN paths p ON p.id = pr.path_id WHERE pr.id > ?1 ORDER BY pr.id LIMIT ?2",
	    cols);
	if ((main = prep(db, sql)) == NULL)
		goto fail;
	names(cols, sizeof(cols), run_cols, NRUN, "");
	snprintf(sql, sizeof(sql), "SELECT %s FROM runs WHERE id = ?1", cols);
	if ((run = prep(db, sql)) == NULL)
		goto fail;
	for (int t = 0; t < NTAB; t++) {
		names(cols, sizeof(cols), tables[t].cols, tables[t].ncol, "");
		snprintf(sql, sizeof(sql), "SELECT %s FROM %s WHERE path_result_id = ?1"
		    " ORDER BY %s", cols, tables[t].name, tables[t].order);
		if ((child[t] = prep(db, sql)) == NULL)
			goto fail;
	}
	sqlite3_bind_int64(main, 1, cursor);
	sqlite3_bind_int(main, 2, max < UPLOAD_BATCH ? max : UPLOAD_BATCH);
	while ((rc = sqlite3_step(main)) == SQLITE_ROW && b->n < UPLOAD_BATCH) {
		struct ures *r = &b->r[b->n];
		int64_t id = sqlite3_column_int64(main, 0);
		bool ok;

		if (sqlite3_column_type(main, 0) != SQLITE_INTEGER)
			continue;
		/* an unfinished target's result waits, and every later one
		 * with it (one cursor): a start may still discard it */
		if (sqlite3_column_type(main, 6 + NPR) == SQLITE_INTEGER &&
		    sqlite3_column_int64(main, 6 + NPR) == 0)
			break;
		if (id > *last)
			*last = id;
		memset(r, 0, sizeof(*r));
		r->id = id;
		ok = sqlite3_column_type(main, 1) == SQLITE_INTEGER &&
		    (r->run = run_of(b, run, sqlite3_column_int64(main, 1))) != NULL &&
		    cell(b, main, 2, 'T', &r->pr[PR_SPEC]) &&
		    cell(b, main, 3, 'T', &r->pr[PR_ADDRESS]) &&
		    cell(b, main, 4, 'I', &r->pr[PR_PORT]) &&
		    cell(b, main, 5, 'T', &r->pr[PR_FAMILY]) &&
		    cells(b, main, 6, pr_cols, NPR, &r->pr[PR_OWN]);
		/* the shared store's CHECKs, met here or the batch is refused */
		ok = ok && sqlite3_column_int64(main, 4) >= 0 &&
		    sqlite3_column_int64(main, 4) <= 65535 &&
		    (strcmp(r->pr[PR_FAMILY].v, "ipv4") == 0 ||
		    strcmp(r->pr[PR_FAMILY].v, "ipv6") == 0);
		for (int t = 0; ok && t < NTAB; t++)
			ok = children(b, child[t], t, r);
		if (b->oom)
			break;
		if (!ok)
			continue;	/* passed over: not a row this program wrote */
		drop_orphans(r);
		b->n++;
	}
	if (b->oom)
		snprintf(err, errlen, "out of memory");
	else if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
	else
		out = b->n;
	goto done;
fail:
	snprintf(err, errlen, "%s", sqlite3_errmsg(db));
done:
	sqlite3_finalize(main);
	sqlite3_finalize(run);
	for (int t = 0; t < NTAB; t++)
		sqlite3_finalize(child[t]);
	return out;
}

/* --- the shared store ----------------------------------------------------- */

/* A statement being built: its text and its parameters. */
struct ustmt {
	char *sql;
	size_t len, cap;
	int n, pcap;
	const char **v;
	int *len_p, *fmt;
	bool oom;
};

static void
st_reset(struct ustmt *s)
{
	s->len = 0;
	s->n = 0;
	if (s->sql != NULL)
		s->sql[0] = '\0';
}

static void
st_free(struct ustmt *s)
{
	free(s->sql);
	free(s->v);
	free(s->len_p);
	free(s->fmt);
}

/* fmt's arguments checked as printf's */
static __attribute__((format(printf, 2, 3))) void
st_sql(struct ustmt *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(s->sql != NULL ? s->sql + s->len : NULL,
		    s->sql != NULL ? s->cap - s->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			s->oom = true;
			return;
		}
		if (s->sql != NULL && (size_t)n < s->cap - s->len) {
			s->len += (size_t)n;
			return;
		}
		{
			size_t cap = (s->cap + (size_t)n + 1) * 2;
			char *p = realloc(s->sql, cap);

			if (p == NULL) {
				s->oom = true;
				return;
			}
			s->sql = p;
			s->cap = cap;
		}
	}
}

/* a parameter, named in the text as $k */
static void
st_param(struct ustmt *s, const struct ucell *c, const char *sep)
{
	if (s->n == s->pcap) {
		int cap = s->pcap ? s->pcap * 2 : 256;
		const char **v = realloc(s->v, (size_t)cap * sizeof(*v));
		int *l = v != NULL ? realloc(s->len_p, (size_t)cap * sizeof(*l)) : NULL;
		int *f = l != NULL ? realloc(s->fmt, (size_t)cap * sizeof(*f)) : NULL;

		if (v != NULL)
			s->v = v;
		if (l != NULL)
			s->len_p = l;
		if (f == NULL) {
			s->oom = true;
			return;
		}
		s->fmt = f;
		s->pcap = cap;
	}
	s->v[s->n] = c->v;
	s->len_p[s->n] = c->len;
	s->fmt[s->n] = c->fmt;
	s->n++;
	st_sql(s, "%s$%d", sep, s->n);
}

static void
st_int(struct ustmt *s, int64_t v, char *buf, const char *sep)
{
	struct ucell c = { buf, 0, 0 };

	snprintf(buf, 24, "%" PRId64, v);
	st_param(s, &c, sep);
}

/* The statement run: its result when its status is want, else NULL with
 * err set naming what. */
static PGresult *
st_run(struct ustmt *s, PGconn *pg, ExecStatusType want, const char *what, char *err,
    size_t errlen)
{
	PGresult *r;

	if (s->oom) {
		snprintf(err, errlen, "%s: out of memory", what);
		return NULL;
	}
	r = PQexecParams(pg, s->sql, s->n, NULL, s->v, s->len_p, s->fmt, 0);
	if (r == NULL || PQresultStatus(r) != want) {
		const char *m = r != NULL ? PQresultErrorMessage(r) : NULL;

		snprintf(err, errlen, "%s: %.300s", what, m != NULL && m[0] != '\0' ? m :
		    PQerrorMessage(pg));
		PQclear(r);
		return NULL;
	}
	return r;
}

/* The id in the first cell of a one-row result; -1 (err set). */
static int64_t
st_id(struct ustmt *s, PGconn *pg, const char *what, char *err, size_t errlen)
{
	PGresult *r = st_run(s, pg, PGRES_TUPLES_OK, what, err, errlen);
	int64_t id = -1;
	char *end;

	if (r == NULL)
		return -1;
	if (PQntuples(r) < 1 || PQgetisnull(r, 0, 0) ||
	    (id = strtoll(PQgetvalue(r, 0, 0), &end, 10)) <= 0 || *end != '\0') {
		snprintf(err, errlen, "%s: no id returned", what);
		id = -1;
	}
	PQclear(r);
	return id;
}

/* The keys of b's results: fresh set on those the server had not taken. */
static int
keys(struct ubatch *b, struct ustmt *s, PGconn *pg, const char *store, char *err,
    size_t errlen)
{
	struct ucell st = { store, 0, 0 };
	char (*num)[24] = alloc(b, (size_t)b->n * 2 * 24);
	PGresult *r;

	if (num == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	st_reset(s);
	st_sql(s, "INSERT INTO uploads (vantage, store, run_id, seq, time_ns) VALUES ");
	for (int i = 0; i < b->n; i++) {
		st_param(s, &b->r[i].run->c[RUN_VANTAGE], i ? ",(" : "(");
		st_param(s, &st, ",");
		st_int(s, b->r[i].run->local, num[2 * i], ",");
		st_int(s, b->r[i].id, num[2 * i + 1], ",");
		st_param(s, &b->r[i].pr[PR_TIME], ",");
		st_sql(s, ")");
	}
	st_sql(s, " ON CONFLICT DO NOTHING RETURNING seq");
	if ((r = st_run(s, pg, PGRES_TUPLES_OK, "insert the keys", err, errlen)) == NULL)
		return -1;
	/* b is ordered by id: each returned seq found by bisection */
	for (int k = 0; k < PQntuples(r); k++) {
		int64_t seq = strtoll(PQgetvalue(r, k, 0), NULL, 10);
		int lo = 0, hi = b->n - 1;

		while (lo <= hi) {
			int mid = lo + (hi - lo) / 2;

			if (b->r[mid].id == seq) {
				b->r[mid].fresh = true;
				break;
			}
			if (b->r[mid].id < seq)
				lo = mid + 1;
			else
				hi = mid - 1;
		}
	}
	PQclear(r);
	return 0;
}

/* The shared store's id of the run of r: the row written the first time
 * any batch names it, read after. */
static int64_t
run_id(struct ustmt *s, PGconn *pg, struct urun *u, const char *store, char *err,
    size_t errlen)
{
	struct ucell st = { store, 0, 0 };
	char cols[300], num[24];
	int base;

	if (u->pg > 0)
		return u->pg;
	names(cols, sizeof(cols), run_cols, NRUN, "");
	st_reset(s);
	st_sql(s, "WITH i AS (INSERT INTO runs (%s, store, store_run) VALUES (", cols);
	for (int c = 0; c < NRUN; c++)
		st_param(s, &u->c[c], c ? "," : "");
	base = s->n;
	st_param(s, &st, ",");
	st_int(s, u->local, num, ",");
	st_sql(s, ") ON CONFLICT (vantage, store, store_run) DO NOTHING RETURNING id)"
	    " SELECT id FROM i UNION ALL SELECT id FROM runs WHERE vantage = $%d"
	    " AND store = $%d AND store_run = $%d", RUN_VANTAGE + 1, base + 1, base + 2);
	return u->pg = st_id(s, pg, "insert run", err, errlen);
}

static const struct ubatch *sort_b;	/* qsort's: the batch sorted */
static int sort_col;

static int
by_cell(const void *x, const void *y)
{
	const struct ures *r = &sort_b->r[*(const int *)x], *o = &sort_b->r[*(const int *)y];
	int c = strcmp(r->pr[sort_col].v, o->pr[sort_col].v);

	if (c == 0 && sort_col == PR_ADDRESS)
		c = strcmp(r->pr[PR_PORT].v, o->pr[PR_PORT].v);
	return c;
}

/* The fresh results' targets (path false) or paths, inserted when new (a
 * vantage's role may insert, not update) in one statement, in one order
 * (two vantages inserting the same wait on each other, never deadlock),
 * then their ids read in another: a statement of its own sees a row
 * another vantage committed while this one waited on it. */
static int
dicts(struct ubatch *b, struct ustmt *s, PGconn *pg, bool path, char *err, size_t errlen)
{
	int *ix = alloc(b, (size_t)b->n * sizeof(int)), m = 0, k = 0;
	int col = path ? PR_ADDRESS : PR_SPEC;
	PGresult *r;

	if (ix == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < b->n; i++)
		if (b->r[i].fresh)
			ix[m++] = i;
	if (m == 0)
		return 0;
	sort_b = b;
	sort_col = col;
	qsort(ix, (size_t)m, sizeof(*ix), by_cell);
	/* each once */
	for (int i = 0; i < m; i++)
		if (k == 0 || by_cell(&ix[k - 1], &ix[i]) != 0)
			ix[k++] = ix[i];
	for (int pass = 0; pass < 2; pass++) {
		st_reset(s);
		if (pass == 0)
			st_sql(s, path ? "INSERT INTO paths (address, port, family) VALUES " :
			    "INSERT INTO targets (spec) VALUES ");
		else
			st_sql(s, path ? "SELECT id, address, port FROM paths WHERE"
			    " (address, port) IN (" : "SELECT id, spec, 0 FROM targets WHERE spec IN (");
		for (int i = 0; i < k; i++) {
			const struct ures *u = &b->r[ix[i]];

			st_sql(s, "%s", i ? "," : "");
			if (path) {
				st_param(s, &u->pr[PR_ADDRESS], "(");
				st_param(s, &u->pr[PR_PORT], ",");
				if (pass == 0)
					st_param(s, &u->pr[PR_FAMILY], ",");
				st_sql(s, ")");
			} else
				st_param(s, &u->pr[PR_SPEC], pass == 0 ? "(" : "");
			if (!path && pass == 0)
				st_sql(s, ")");
		}
		st_sql(s, "%s", pass == 0 ? " ON CONFLICT DO NOTHING" : ")");
		if ((r = st_run(s, pg, pass == 0 ? PGRES_COMMAND_OK : PGRES_TUPLES_OK,
		    path ? "insert paths" : "insert targets", err, errlen)) == NULL)
			return -1;
		if (pass == 0) {
			PQclear(r);
			continue;
		}
		for (int t = 0; t < PQntuples(r); t++) {
			int64_t id = strtoll(PQgetvalue(r, t, 0), NULL, 10);

			for (int i = 0; i < b->n; i++) {
				struct ures *u = &b->r[i];

				if (u->fresh && strcmp(u->pr[col].v, PQgetvalue(r, t, 1)) == 0 &&
				    (!path || strcmp(u->pr[PR_PORT].v, PQgetvalue(r, t, 2)) == 0))
					*(path ? &u->path : &u->target) = id;
			}
		}
		PQclear(r);
	}
	for (int i = 0; i < b->n; i++)
		if (b->r[i].fresh && (path ? b->r[i].path : b->r[i].target) <= 0) {
			snprintf(err, errlen, "%s: no id returned", path ? "insert paths" :
			    "insert targets");
			return -1;
		}
	return 0;
}

static void st_json(struct ustmt *s, const struct ucell *c, char kind);

/* The fresh results' path_results rows in one statement, as one JSON
 * parameter (as rows' tables); each id found by the row's unique
 * (run_id, target_id, path_id). */
static int
results(struct ubatch *b, struct ustmt *s, struct ustmt *j, PGconn *pg, const char *store,
    char *err, size_t errlen)
{
	char cols[700];
	PGresult *r;
	struct ucell doc;
	bool any = false;

	for (int i = 0; i < b->n; i++) {
		struct ures *u = &b->r[i];

		if (u->fresh && (u->run_pg = run_id(s, pg, u->run, store, err, errlen)) < 0)
			return -1;
	}
	st_reset(j);
	st_sql(j, "[");
	for (int i = 0; i < b->n; i++) {
		struct ures *u = &b->r[i];

		if (!u->fresh)
			continue;
		snprintf(u->num[0], sizeof(u->num[0]), "%" PRId64, u->run_pg);
		snprintf(u->num[1], sizeof(u->num[1]), "%" PRId64, u->target);
		snprintf(u->num[2], sizeof(u->num[2]), "%" PRId64, u->path);
		st_sql(j, "%s{\"run_id\":%s,\"target_id\":%s,\"path_id\":%s", any ? "," : "",
		    u->num[0], u->num[1], u->num[2]);
		for (int c = 0; c < NPR; c++) {
			st_sql(j, ",\"%s\":", pr_cols[c].name);
			st_json(j, &u->pr[PR_OWN + c], pr_cols[c].kind);
		}
		st_sql(j, "}");
		any = true;
	}
	st_sql(j, "]");
	if (!any)
		return 0;
	if (j->oom) {
		snprintf(err, errlen, "insert path results: out of memory");
		return -1;
	}
	names(cols, sizeof(cols), pr_cols, NPR, "");
	st_reset(s);
	st_sql(s, "INSERT INTO path_results (run_id, target_id, path_id, %s) SELECT run_id,"
	    " target_id, path_id, %s FROM json_populate_recordset(NULL::path_results, ", cols,
	    cols);
	doc = (struct ucell){ j->sql, 0, 0 };
	st_param(s, &doc, "");
	st_sql(s, "::json) RETURNING id, run_id, target_id, path_id");
	if ((r = st_run(s, pg, PGRES_TUPLES_OK, "insert path results", err, errlen)) == NULL)
		return -1;
	for (int t = 0; t < PQntuples(r); t++)
		for (int i = 0; i < b->n; i++) {
			struct ures *u = &b->r[i];

			if (u->fresh && strcmp(u->num[0], PQgetvalue(r, t, 1)) == 0 &&
			    strcmp(u->num[1], PQgetvalue(r, t, 2)) == 0 &&
			    strcmp(u->num[2], PQgetvalue(r, t, 3)) == 0)
				snprintf(u->prid, sizeof(u->prid), "%s", PQgetvalue(r, t, 0));
		}
	PQclear(r);
	for (int i = 0; i < b->n; i++)
		if (b->r[i].fresh && b->r[i].prid[0] == '\0') {
			snprintf(err, errlen, "insert path results: no id returned");
			return -1;
		}
	return 0;
}

/* c as a JSON value: a number, a string (texts are printable ASCII
 * already: only " and \\ escaped), bytea as its "\\x..." hex, null. */
static void
st_json(struct ustmt *s, const struct ucell *c, char kind)
{
	static const char hex[] = "0123456789abcdef";
	char buf[256];
	size_t k = 0;

	if (c->v == NULL) {
		st_sql(s, "null");
		return;
	}
	kind = (char)tolower((unsigned char)kind);
	if (kind == 'i' || kind == 'l') {
		st_sql(s, "%s", c->v);
		return;
	}
	st_sql(s, "\"%s", kind == 'b' ? "\\\\x" : "");
	for (int i = 0; kind == 'b' ? i < c->len : c->v[i] != '\0'; i++) {
		unsigned char ch = (unsigned char)c->v[i];

		if (k + 4 >= sizeof(buf)) {
			st_sql(s, "%.*s", (int)k, buf);
			k = 0;
		}
		if (kind == 'b') {
			buf[k++] = hex[ch >> 4];
			buf[k++] = hex[ch & 15];
		} else {
			if (ch == '"' || ch == '\\')
				buf[k++] = '\\';
			buf[k++] = (char)ch;
		}
	}
	st_sql(s, "%.*s\"", (int)k, buf);
}

/* Table t's rows of every fresh result in one statement: the rows as one
 * JSON parameter (json_populate_recordset), not a VALUES list of
 * parameters -- the server parses and plans one small statement, not one
 * of thousands of parameters. */
static int
rows(struct ubatch *b, int t, struct ustmt *s, struct ustmt *j, PGconn *pg, char *err,
    size_t errlen)
{
	const struct utable *tb = &tables[t];
	char cols[700];
	struct ucell doc;
	PGresult *r;
	int n = 0;

	st_reset(j);
	st_sql(j, "[");
	for (int i = 0; i < b->n; i++) {
		const struct ures *u = &b->r[i];

		for (int k = 0; u->fresh && k < u->n[t]; k++) {
			st_sql(j, "%s{\"path_result_id\":%s", n++ ? "," : "", u->prid);
			if (tb->path_id)
				st_sql(j, ",\"path_id\":%s", u->num[2]);
			for (int c = 0; c < tb->ncol; c++) {
				st_sql(j, ",\"%s\":", tb->cols[c].name);
				st_json(j, &u->rows[t][k * tb->ncol + c], tb->cols[c].kind);
			}
			st_sql(j, "}");
		}
	}
	st_sql(j, "]");
	if (n == 0)
		return 0;
	if (j->oom) {
		snprintf(err, errlen, "%s: out of memory", tb->name);
		return -1;
	}
	names(cols, sizeof(cols), tb->cols, tb->ncol, "");
	st_reset(s);
	st_sql(s, "INSERT INTO %s (path_result_id, %s%s) SELECT path_result_id, %s%s FROM"
	    " json_populate_recordset(NULL::%s, ", tb->name, tb->path_id ? "path_id, " : "",
	    cols, tb->path_id ? "path_id, " : "", cols, tb->name);
	doc = (struct ucell){ j->sql, 0, 0 };
	st_param(s, &doc, "");
	st_sql(s, "::json)");
	if ((r = st_run(s, pg, PGRES_COMMAND_OK, tb->name, err, errlen)) == NULL)
		return -1;
	PQclear(r);
	return 0;
}

int
ubatch_send(struct ubatch *b, PGconn *pg, const char *store, uint64_t *stored, char *err,
    size_t errlen)
{
	struct ustmt s = { 0 }, j = { 0 };
	PGresult *r;
	uint64_t n = 0;
	int rc = -1;

	*stored = 0;
	if (b->n == 0)
		return 0;
	if ((r = PQexec(pg, "BEGIN")) == NULL || PQresultStatus(r) != PGRES_COMMAND_OK) {
		snprintf(err, errlen, "begin: %.300s", PQerrorMessage(pg));
		PQclear(r);
		return -1;
	}
	PQclear(r);
	if (keys(b, &s, pg, store, err, errlen) != 0 || dicts(b, &s, pg, false, err, errlen) != 0 ||
	    dicts(b, &s, pg, true, err, errlen) != 0 ||
	    results(b, &s, &j, pg, store, err, errlen) != 0)
		goto done;
	for (int t = 0; t < NTAB; t++)
		if (rows(b, t, &s, &j, pg, err, errlen) != 0)
			goto done;
	for (int i = 0; i < b->n; i++)
		n += b->r[i].fresh;
	if ((r = PQexec(pg, "COMMIT")) == NULL || PQresultStatus(r) != PGRES_COMMAND_OK) {
		snprintf(err, errlen, "commit: %.300s", r != NULL ? PQresultErrorMessage(r) :
		    PQerrorMessage(pg));
		PQclear(r);
		goto done;
	}
	PQclear(r);
	*stored = n;
	rc = 0;
done:
	if (rc != 0)
		PQclear(PQexec(pg, "ROLLBACK"));	/* may fail: the link is gone */
	st_free(&s);
	st_free(&j);
	return rc;
}
