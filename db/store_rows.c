/*
 * store_rows.c -- the statements a kept row runs in the open transaction:
 * the writer's prepared statements, a run's and a path result's rows (the
 * fields and their NULLs follow output.c field by field), the id caches of
 * targets and paths, and which row id a run's handle has now.  Called by
 * the batch (store_keep.c); calls only store_util.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "evidence.h"
#include "flow_branch.h"
#include "siphash.h"
#include "store_int.h"

static const char *const stmt_sql[SQL_COUNT] = {
	[SQL_BEGIN] = "BEGIN IMMEDIATE",
	[SQL_COMMIT] = "COMMIT",
	[SQL_ROLLBACK] = "ROLLBACK",
	[SQL_PATH_RESULT_DEL] = "DELETE FROM path_results WHERE id = ?1",
	[SQL_HOPS_DEL] = "DELETE FROM hops WHERE path_result_id = ?1",
	[SQL_TARGET_GET] = "SELECT id FROM targets WHERE spec = ?1",
	[SQL_TARGET_ADD] = "INSERT OR IGNORE INTO targets (spec) VALUES (?1)",
	[SQL_PATH_GET] = "SELECT id FROM paths WHERE address = ?1 AND port = ?2",
	[SQL_PATH_ADD] = "INSERT OR IGNORE INTO paths (address, port, family) VALUES (?1, ?2, ?3)",
	[SQL_RUN_ADD] = "INSERT INTO runs (started_ns, vantage, settings_digest, settings, "
	    "program, on_demand_uid, clock) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[SQL_PATH_RESULT_ADD] = "INSERT INTO path_results (run_id, target_id, path_id, "
	    "time_ns, control_reply, control_sa_present, control_wscale, control_mss, "
	    "control_sack, control_ts, traced, capture_drops, send_failures, capture_error) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
	[SQL_EVIDENCE_ADD] = "INSERT INTO evidence (path_result_id, packets, truncated, "
	    "bytes) VALUES (?1, ?2, ?3, ?4)",
};
/* The writer's statements, prepared once for the connection's life. */
int
store_rows_prepare(struct store *st)
{
	for (int i = 0; i < SQL_COUNT; i++)
		if (sqlite3_prepare_v3(st->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
		    &st->stmt[i], NULL) != SQLITE_OK)
			return store_fail(st, "prepare");
	return 0;
}

void
store_rows_finalize(struct store *st)
{
	for (int i = 0; i < SQL_COUNT; i++)
		sqlite3_finalize(st->stmt[i]);
	for (int i = 0; i <= STORE_SCALE_ROWS; i++)
		sqlite3_finalize(st->scale_multi[i]);
	for (int i = 0; i <= RESULT_MAX_HOPS; i++)
		sqlite3_finalize(st->hop_multi[i]);
	for (int i = 0; i <= STORE_FINDING_ROWS; i++)
		sqlite3_finalize(st->finding_multi[i]);
}

/* INSERT OR FAIL INTO table (cols) VALUES (?, ...), ... with rows rows of
 * ncols.  OR FAIL: a statement of several rows that may abort half way
 * otherwise opens a statement journal, and every page it changes is first
 * copied there (store_bench beside af432fa: 159,210 -> 167,857 scale rows
 * per writer CPU second, medians of 7 interleaved runs).  The rows a failed
 * one wrote need no journal: a failure of the scale rows or side findings
 * is the store's (the batch is rolled back, store_keep.c), and a result
 * whose hops fail has them deleted (store_exec_path's undo). */
static char *
multi_insert(const char *table, const char *cols, int ncols, int rows)
{
	size_t len = strlen(table) + strlen(cols) + 64 + (size_t)rows * ((size_t)ncols * 2 + 4);
	char *sql = malloc(len), *p = sql;

	if (sql == NULL)
		return NULL;
	p += sprintf(p, "INSERT OR FAIL INTO %s (%s) VALUES ", table, cols);
	for (int r = 0; r < rows; r++) {
		*p++ = r ? ',' : ' ';
		*p++ = '(';
		for (int c = 0; c < ncols; c++) {
			if (c)
				*p++ = ',';
			*p++ = '?';
		}
		*p++ = ')';
	}
	*p = '\0';
	return sql;
}
/* The statement inserting n rows of scale_results (kind 0), hops (1) or
 * side_findings (2) in one step: rows cost one statement, not one each.
 * Prepared when first needed. */
sqlite3_stmt *
store_multi(struct store *st, int kind, int n)
{
	static const char scale_cols[] = "path_result_id, idx, path_id, time_ns, problem, "
	    "scale_sent, reply, icmp_type, icmp_code, sa_present, sa_wscale, sa_mss, sa_sack, "
	    "sa_ts, scale_quoted, scale_effective, scale_effective_min, flight_bytes, verdict, "
	    "reason, hop_index, hop_address, last_clean_index, last_clean_address, hop_silent, "
	    "flows, flows_affected, branch_hop, branch_problem, branch_clean";
	static const char hop_cols[] = "path_result_id, ttl, address, quote, rfc4884, rtt_us";
	static const char finding_cols[] = "path_result_id, scale_idx, idx, kind, detail, "
	    "hop_index, hop_address";
	sqlite3_stmt **s = kind == 0 ? &st->scale_multi[n] : kind == 1 ? &st->hop_multi[n] :
	    &st->finding_multi[n];
	char *sql;
	int rc;

	if (*s != NULL)
		return *s;
	sql = kind == 0 ? multi_insert("scale_results", scale_cols, STORE_SCALE_COLS, n) :
	    kind == 1 ? multi_insert("hops", hop_cols, STORE_HOP_COLS, n) :
	    multi_insert("side_findings", finding_cols, STORE_FINDING_COLS, n);
	if (sql == NULL) {
		snprintf(st->err, sizeof(st->err), "%s: out of memory", st->file);
		return NULL;
	}
	rc = sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, s, NULL);
	free(sql);
	if (rc != SQLITE_OK) {
		store_fail(st, "prepare");
		return NULL;
	}
	return *s;
}
int64_t
keep_run_id(const struct store *st, int64_t handle)
{
	for (size_t i = 0; i < st->nruns; i++)
		if (st->runs[i].handle == handle)
			return st->runs[i].id;
	return handle;
}
/* The run of handle is row id now. */
static int
run_map_set(struct store *st, int64_t handle, int64_t id)
{
	struct run_map *m;

	for (size_t i = 0; i < st->nruns; i++)
		if (st->runs[i].handle == handle) {
			if (id == handle)
				st->runs[i] = st->runs[--st->nruns];
			else
				st->runs[i].id = id;
			return 0;
		}
	if (id == handle)
		return 0;
	if ((m = realloc(st->runs, (st->nruns + 1) * sizeof(*m))) == NULL) {
		snprintf(st->err, sizeof(st->err), "%s: out of memory", st->file);
		return -1;
	}
	st->runs = m;
	st->runs[st->nruns++] = (struct run_map){ handle, id };
	return 0;
}
int
keep_run_inserted(struct store *st, struct keep *k, int64_t id)
{
	if (k->run == 0) {
		k->run = id;		/* the handle its caller is given */
		return 0;
	}
	return run_map_set(st, k->run, id);
}
/* binds v, or leaves it NULL when absent: every statement's parameters
 * are NULL until bound (step_stmt and get_id clear them after each step),
 * and a bind_null was 2 % of the writer's instructions */
static void
bind_opt(sqlite3_stmt *s, int i, bool present, int64_t v)
{
	if (present)
		sqlite3_bind_int64(s, i, v);
}

static void
bind_text(sqlite3_stmt *s, int i, const char *t)
{
	if (t != NULL)
		sqlite3_bind_text(s, i, t, -1, SQLITE_TRANSIENT);
}

/* Text that outlives the step (static names, the result's own strings):
 * bound without a copy. */
static void
bind_static(sqlite3_stmt *s, int i, const char *t)
{
	if (t != NULL)
		sqlite3_bind_text(s, i, t, -1, SQLITE_STATIC);
}

/* An IPv4 address as inet_ntop writes it, without its locale-aware
 * printf: a result binds several, and inet_ntop was 5 % of the writer's
 * instructions.  Returns the length. */
static int
format_v4(const uint8_t *b, char *buf)
{
	char *p = buf;

	for (int i = 0; i < 4; i++) {
		unsigned v = b[i];

		if (i)
			*p++ = '.';
		if (v >= 100)
			*p++ = (char)('0' + v / 100);
		if (v >= 10)
			*p++ = (char)('0' + v / 10 % 10);
		*p++ = (char)('0' + v % 10);
	}
	*p = '\0';
	return (int)(p - buf);
}

static void
bind_addr(sqlite3_stmt *s, int i, const struct addr *a)
{
	char buf[ADDR_STRLEN];

	if (a->family == 0)
		return;
	else if (a->family == ADDR_V4)
		sqlite3_bind_text(s, i, buf, format_v4(a->bytes, buf), SQLITE_TRANSIENT);
	else
		bind_text(s, i, addr_format(a, buf, sizeof(buf)));
}

/* Runs a bound insert or statement without rows; resets it and clears
 * its bindings (a NULL is a parameter left unbound). */
static int
step_stmt(struct store *st, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return store_fail(st, what);
	return 0;
}

static int
step(struct store *st, enum store_stmt k, const char *what)
{
	return step_stmt(st, st->stmt[k], what);
}

int
store_batch_begin(struct store *st, bool cascade)
{
	if (st->in_batch)
		return 0;
	if (store_fk(st, cascade) != 0 || step(st, SQL_BEGIN, "begin batch") != 0)
		return -1;
	st->in_batch = true;
	st->batch_n = 0;
	st->batch_start = store_now_ns();
	return 0;
}

/* The id of the row the bound insert add made (OR IGNORE: 0 when its key
 * was there already, -1 failed). */
static int64_t
add_new(struct store *st, enum store_stmt add)
{
	if (step(st, add, "insert") != 0)
		return -1;
	return sqlite3_changes(st->db) == 1 ? sqlite3_last_insert_rowid(st->db) : 0;
}

/* The id the bound lookup get finds; -1 (err set) when none. */
static int64_t
get_id(struct store *st, enum store_stmt get)
{
	sqlite3_stmt *g = st->stmt[get];
	int64_t id = -1;
	int rc = sqlite3_step(g);

	if (rc == SQLITE_ROW)
		id = sqlite3_column_int64(g, 0);
	sqlite3_reset(g);
	sqlite3_clear_bindings(g);
	if (rc != SQLITE_ROW)
		store_fail(st, "lookup");
	return id;
}

/* The key a writer cache's tags are drawn under, the first member of each
 * cache: without one drawn (getrandom failed), the cache keeps nothing
 * whose tag is a hash. */
struct cache_key {
	uint8_t b[SIPHASH_KEY_LEN];
	bool drawn;
};

/* A cache of size bytes whose first member is its cache_key, its key
 * drawn; NULL (err set) when out of memory. */
static void *
cache_new(struct store *st, size_t size)
{
	struct cache_key *k = calloc(1, size);

	if (k == NULL) {
		snprintf(st->err, sizeof(st->err), "%s: out of memory", st->file);
		return NULL;
	}
	k->drawn = getrandom(k->b, sizeof(k->b), 0) == (ssize_t)sizeof(k->b);
	return k;
}

/* Target ids the writer has seen, as path ids below: a daemon's cycles
 * name the same targets again.  As many slots as the path cache, and as
 * small: a slot is a tag and an id, 16 bytes, 1 MiB resident once a few
 * thousand targets were seen (a slot's page is touched when it is used).
 * The tag is a SipHash of the spec under a key drawn for the cache, so two
 * specs share a tag with a chance of 2^-64 a lookup and none can be made
 * to; without a key drawn, nothing is cached.  A spec kept in its slot
 * (64 bytes) cost 4 MiB, a tenth of a million-target daemon's peak;
 * 4,096 slots of strdup'd specs missed most of a group of 50,000 targets,
 * each miss two statements. */
#define TARGET_CACHE_SIZE 65536
struct target_cache {
	struct cache_key k;		/* first: cache_new */
	struct {
		uint64_t tag;
		int64_t id;		/* 0: empty */
	} e[TARGET_CACHE_SIZE];
};

int64_t
store_target_id(struct store *st, const char *spec)
{
	static const uint8_t key[SIPHASH_KEY_LEN];
	size_t len = strlen(spec);
	size_t k = (size_t)(siphash24(key, spec, len) & (TARGET_CACHE_SIZE - 1));
	uint64_t tag;
	int64_t id;

	if (st->targets == NULL && (st->targets = cache_new(st, sizeof(*st->targets))) == NULL)
		return -1;
	tag = siphash24(st->targets->k.b, spec, len);
	if (st->targets->k.drawn && st->targets->e[k].id > 0 && st->targets->e[k].tag == tag)
		return st->targets->e[k].id;
	/* new rows cost one statement, known ones two */
	bind_static(st->stmt[SQL_TARGET_ADD], 1, spec);
	if ((id = add_new(st, SQL_TARGET_ADD)) == 0) {
		bind_static(st->stmt[SQL_TARGET_GET], 1, spec);
		id = get_id(st, SQL_TARGET_GET);
	}
	if (id < 0)
		return -1;
	if (st->targets->k.drawn) {
		st->targets->e[k].tag = tag;
		st->targets->e[k].id = id;
	}
	return id;
}

void
store_caches_free(struct store *st)
{
	free(st->targets);
	free(st->paths);
	st->targets = NULL;
	st->paths = NULL;
}

/* Path ids the writer has seen, so a daemon's every cycle over the same
 * paths costs no lookup.  A direct-mapped cache: a collision only costs
 * the lookup again.  Rows of paths are never deleted, so a committed id stays true; the ids
 * of a transaction that failed are dropped with it (keep_fail).  An entry
 * is 16 bytes (it was 32, 2 MiB of a daemon's memory): a tag for the path
 * and its id.  An IPv4 path's tag is its address and port, exactly; an
 * IPv6 path's a SipHash of them under a key drawn for the cache, so two
 * paths share a tag with a chance of 2^-64 a lookup, and none can be made
 * to (without a key drawn, IPv6 paths are not cached). */
#define PATH_CACHE_SIZE 65536
#define PATH_TAG_V4	(1ull << 63)	/* an IPv6 tag never has it */
struct path_cache {
	struct cache_key k;		/* first: cache_new */
	struct {
		uint64_t tag;
		int64_t id;		/* 0: empty */
	} e[PATH_CACHE_SIZE];
};

/* The slot and tag of (a, port); false when it is not cached. */
static bool
path_slot(const struct path_cache *c, const struct addr *a, uint16_t port, size_t *k,
    uint64_t *tag)
{
	static const uint8_t key[SIPHASH_KEY_LEN];
	uint8_t b[19];

	b[0] = a->family;
	memcpy(b + 1, a->bytes, 16);
	b[17] = (uint8_t)(port >> 8);
	b[18] = (uint8_t)port;
	*k = (size_t)(siphash24(key, b, sizeof(b)) & (PATH_CACHE_SIZE - 1));
	if (a->family == ADDR_V4) {
		*tag = PATH_TAG_V4 | (uint64_t)a->bytes[0] << 40 | (uint64_t)a->bytes[1] << 32 |
		    (uint64_t)a->bytes[2] << 24 | (uint64_t)a->bytes[3] << 16 | port;
		return true;
	}
	*tag = siphash24(c->k.b, b, sizeof(b)) & ~PATH_TAG_V4;
	return c->k.drawn;
}

static int64_t
path_id(struct store *st, const struct kept_path *res)
{
	uint64_t tag;
	size_t k;
	bool cached;
	int64_t id;

	if (st->paths == NULL && (st->paths = cache_new(st, sizeof(*st->paths))) == NULL)
		return -1;
	cached = path_slot(st->paths, &res->dst, res->port, &k, &tag);
	if (cached && st->paths->e[k].id > 0 && st->paths->e[k].tag == tag)
		return st->paths->e[k].id;
	bind_addr(st->stmt[SQL_PATH_ADD], 1, &res->dst);
	sqlite3_bind_int(st->stmt[SQL_PATH_ADD], 2, res->port);
	bind_static(st->stmt[SQL_PATH_ADD], 3, res->dst.family == ADDR_V4 ? "ipv4" : "ipv6");
	if ((id = add_new(st, SQL_PATH_ADD)) == 0) {
		bind_addr(st->stmt[SQL_PATH_GET], 1, &res->dst);
		sqlite3_bind_int(st->stmt[SQL_PATH_GET], 2, res->port);
		id = get_id(st, SQL_PATH_GET);
	}
	if (id > 0 && cached) {
		st->paths->e[k].tag = tag;
		st->paths->e[k].id = id;
	}
	return id;
}

static int64_t
ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

int
store_exec_run(struct store *st, struct keep *k)
{
	sqlite3_stmt *s = st->stmt[SQL_RUN_ADD];
	static const uint8_t key[SIPHASH_KEY_LEN];	/* a digest, not a secret */
	const char *settings = k->u.run.settings;
	char digest[17];

	snprintf(digest, sizeof(digest), "%016llx",
	    (unsigned long long)siphash24(key, settings, strlen(settings)));
	sqlite3_bind_int64(s, 1, ts_ns(&k->u.run.start));
	bind_static(s, 2, k->u.run.vantage);
	bind_text(s, 3, digest);
	bind_static(s, 4, settings);
	bind_static(s, 5, k->u.run.program);
	if (k->u.run.on_demand)
		sqlite3_bind_int64(s, 6, k->u.run.uid);
	else
		sqlite3_bind_null(s, 6);
	if (clock_sync_name(k->u.run.clock) != NULL)
		bind_static(s, 7, clock_sync_name(k->u.run.clock));
	else
		sqlite3_bind_null(s, 7);
	if (step(st, SQL_RUN_ADD, "insert run") != 0)
		return -1;
	return keep_run_inserted(st, k, sqlite3_last_insert_rowid(st->db));
}

/* A scale's branch as parameters i .. i + 2 (hop, problem side, clean
 * side); NULL each without one. */
static void
bind_branch(sqlite3_stmt *s, int i, const struct flow_branch *b)
{
	char t[FLOW_BRANCH_TEXT];

	bind_opt(s, i, b->hop_index > 0, b->hop_index);
	if (b->hop_index < 1) {
		sqlite3_bind_null(s, i + 1);
		sqlite3_bind_null(s, i + 2);
		return;
	}
	flow_branch_side_format(b->problem, b->nproblem, t, sizeof(t));
	bind_text(s, i + 1, t);
	flow_branch_side_format(b->clean, b->nclean, t, sizeof(t));
	bind_text(s, i + 2, t);
}

/* Scale i's row as parameters base+1 .. base+STORE_SCALE_COLS of s. */
static void
bind_scale(sqlite3_stmt *s, int base, int64_t pr, int64_t pid, const struct kept_path *res,
    int i)
{
	const struct kept_scale *o = &res->scales[i], *v = o;
	const char *vname = verdict_name(v->verdict);
	bool sa = o->sa.present;

	sqlite3_bind_int64(s, base + 1, pr);
	sqlite3_bind_int(s, base + 2, i);
	sqlite3_bind_int64(s, base + 3, pid);
	sqlite3_bind_int64(s, base + 4, ts_ns(&res->time));
	sqlite3_bind_int(s, base + 5, verdict_is_problem(v->verdict));
	sqlite3_bind_int(s, base + 6, o->scale);
	bind_static(s, base + 7, reply_kind_name(o->reply));
	bind_opt(s, base + 8, o->reply == REPLY_ICMP_UNREACH, o->icmp_type);
	bind_opt(s, base + 9, o->reply == REPLY_ICMP_UNREACH, o->icmp_code);
	sqlite3_bind_int(s, base + 10, sa);
	bind_opt(s, base + 11, sa && o->sa.wscale >= 0, o->sa.wscale);
	bind_opt(s, base + 12, sa && o->sa.mss >= 0, o->sa.mss);
	bind_opt(s, base + 13, sa, o->sa.sack);
	bind_opt(s, base + 14, sa, o->sa.ts);
	bind_opt(s, base + 15, v->scale_quoted >= 0, v->scale_quoted);
	bind_opt(s, base + 16, o->w_ran && !o->w_inconclusive && o->scale_effective >= 0,
	    o->scale_effective);
	bind_opt(s, base + 17, o->w_ran && !o->w_inconclusive && o->scale_effective_min >= 0,
	    o->scale_effective_min);
	bind_opt(s, base + 18, o->w_ran && o->flight_bytes >= 0, o->flight_bytes);
	bind_static(s, base + 19, vname);
	bind_static(s, base + 20, vname != NULL ? v->reason : NULL);
	bind_opt(s, base + 21, v->hop.present, v->hop.index);
	if (v->hop.present)
		bind_addr(s, base + 22, &v->hop.address);
	bind_opt(s, base + 23, v->hop.present, v->hop.last_clean_index);
	if (v->hop.present)
		bind_addr(s, base + 24, &v->hop.last_clean_address);
	bind_opt(s, base + 25, v->hop.present && v->hop.silent != 0, v->hop.silent);
	bind_opt(s, base + 26, o->flows > 1, o->flows);
	bind_opt(s, base + 27, o->flows > 1, o->flows_affected);
	bind_branch(s, base + 28, &o->branch);
}

/* Finding k of scale i of result pr as parameters base+1 .. base+7 of s. */
static void
bind_finding(sqlite3_stmt *s, int base, int64_t pr, int i, int k, const struct side_finding *f)
{
	sqlite3_bind_int64(s, base + 1, pr);
	sqlite3_bind_int(s, base + 2, i);
	sqlite3_bind_int(s, base + 3, k);
	bind_static(s, base + 4, result_finding_name(f->kind));
	bind_static(s, base + 5, f->detail[0] != '\0' ? f->detail : NULL);
	bind_opt(s, base + 6, f->hop_index >= 0, f->hop_index);
	if (f->hop_index >= 0)
		bind_addr(s, base + 7, &f->hop_address);
}

/* The side findings of the first n pending results, STORE_FINDING_ROWS a
 * statement (after the scale rows they name). */
static int
add_findings(struct store *st, int n)
{
	sqlite3_stmt *s = NULL;
	int left = 0, row = 0;

	for (int r = 0; r < n; r++)
		for (int i = 0; i < st->pending[r].res->nscales; i++)
			left += st->pending[r].res->scales[i].nfindings;
	for (int r = 0; r < n; r++) {
		const struct kept_path *res = st->pending[r].res;

		for (int i = 0; i < res->nscales; i++)
			for (int k = 0; k < res->scales[i].nfindings; k++) {
				if (s == NULL && (s = store_multi(st, 2, left < STORE_FINDING_ROWS ?
				    left : STORE_FINDING_ROWS)) == NULL)
					return -1;
				bind_finding(s, row * STORE_FINDING_COLS, st->pending[r].pr, i, k,
				    &res->scales[i].findings[k]);
				left--;
				if (++row < sqlite3_bind_parameter_count(s) / STORE_FINDING_COLS)
					continue;
				if (step_stmt(st, s, "insert side findings") != 0)
					return -1;
				s = NULL;
				row = 0;
			}
	}
	return 0;
}

/* The pending results' scale rows in one statement, then their side
 * findings (which name them). */
int
store_scales_flush(struct store *st)
{
	int rows = st->pending_rows, n = st->npending, base = 0;
	sqlite3_stmt *s;

	if (n == 0)
		return 0;
	st->npending = 0;
	st->pending_rows = 0;
	if ((s = store_multi(st, 0, rows)) == NULL)
		return -1;
	for (int r = 0; r < n; r++) {
		const struct scale_pending *p = &st->pending[r];

		for (int i = 0; i < p->res->nscales; i++, base += STORE_SCALE_COLS)
			bind_scale(s, base, p->pr, p->pid, p->res, i);
	}
	if (step_stmt(st, s, "insert scale results") != 0)
		return -1;
	st->stats.scales += (uint64_t)rows;
	return add_findings(st, n);
}

void
store_scales_drop(struct store *st)
{
	st->npending = 0;
	st->pending_rows = 0;
}

/* A result's scale rows wait for those of the next results: a statement
 * of up to STORE_SCALE_ROWS rows costs less than one a result (11 % of the
 * writer's instructions).  Nothing can refuse them (their key is a new
 * result's, their parents this transaction's rows, every NOT NULL column
 * bound), so their failure is the store's, and the batch is retried. */
static int
add_scales(struct store *st, int64_t pr, int64_t pid, const struct kept_path *res)
{
	int n = res->nscales;

	if (n <= 0)
		return 0;
	/* keep_exec wrote the pending ones when these would not fit */
	st->pending[st->npending++] = (struct scale_pending){ pr, pid, res };
	st->pending_rows += n;
	return 0;
}

static int
add_hops(struct store *st, int64_t pr, const struct kept_path *p)
{
	int last = p->last;
	sqlite3_stmt *s;

	if (last <= 0)
		return 0;
	if ((s = store_multi(st, 1, last)) == NULL)
		return -1;
	for (int k = 1; k <= last; k++) {
		const struct hop_quote *h = p->hop_present[k] ? &p->hops[k] : NULL;
		int base = (k - 1) * STORE_HOP_COLS;

		sqlite3_bind_int64(s, base + 1, pr);
		sqlite3_bind_int(s, base + 2, k);
		if (h != NULL) {
			bind_addr(s, base + 3, &h->from);
			bind_static(s, base + 4, result_quote_name(h->quote));
			sqlite3_bind_int(s, base + 5, h->rfc4884);
			sqlite3_bind_int64(s, base + 6, h->rtt_us);
		} else
			bind_static(s, base + 4, "none");
	}
	return step_stmt(st, s, "insert hops");
}

/* The packets that prove it (packed when kept: keep_path() says which
 * results carry them). */
static int
add_evidence(struct store *st, int64_t pr, const struct kept_path *p)
{
	sqlite3_stmt *s = st->stmt[SQL_EVIDENCE_ADD];

	if (p->ev == NULL)
		return 0;
	sqlite3_bind_int64(s, 1, pr);
	sqlite3_bind_int(s, 2, p->ev_packets);
	sqlite3_bind_int(s, 3, p->ev_truncated);
	sqlite3_bind_blob(s, 4, p->ev, (int)p->evlen, SQLITE_STATIC);
	if (step(st, SQL_EVIDENCE_ADD, "insert evidence") != 0)
		return -1;
	st->stats.evidence += (uint64_t)p->ev_packets;
	st->stats.evidence_bytes += p->evlen;
	return 0;
}

int
store_exec_path(struct store *st, struct keep *k)
{
	static const enum store_stmt undo[] = { SQL_HOPS_DEL, SQL_PATH_RESULT_DEL };
	sqlite3_stmt *s = st->stmt[SQL_PATH_RESULT_ADD];
	const struct kept_path *res = &k->u.path;
	bool sa = res->control.sa.present;
	int64_t tid, pid, pr;

	if ((tid = store_target_id(st, res->target)) < 0 || (pid = path_id(st, res)) < 0)
		return -1;
	sqlite3_bind_int64(s, 1, keep_run_id(st, k->run));
	sqlite3_bind_int64(s, 2, tid);
	sqlite3_bind_int64(s, 3, pid);
	sqlite3_bind_int64(s, 4, ts_ns(&res->time));
	bind_text(s, 5, reply_kind_name(res->control.reply));
	sqlite3_bind_int(s, 6, sa);
	bind_opt(s, 7, sa && res->control.sa.wscale >= 0, res->control.sa.wscale);
	bind_opt(s, 8, sa && res->control.sa.mss >= 0, res->control.sa.mss);
	bind_opt(s, 9, sa, res->control.sa.sack);
	bind_opt(s, 10, sa, res->control.sa.ts);
	sqlite3_bind_int(s, 11, res->last >= 0);
	sqlite3_bind_int64(s, 12, (int64_t)res->capture_drops);
	sqlite3_bind_int64(s, 13, (int64_t)res->send_failures);
	bind_text(s, 14, res->capture_error);
	if (step(st, SQL_PATH_RESULT_ADD, "insert path result") != 0)
		return -1;
	pr = sqlite3_last_insert_rowid(st->db);
	if (add_scales(st, pr, pid, res) != 0)
		goto undo;
	if (res->last >= 0 && add_hops(st, pr, res) != 0)
		goto undo;
	if (add_evidence(st, pr, res) != 0)
		goto undo;
	return 0;
undo:
	/* a result is stored whole or not at all: what went in of it goes
	 * (its hops; no cascade in a batch: store_batch_begin), the batch
	 * keeps the others; the error said is the insert's; its scale rows
	 * wait no more (nothing else of it was written: the evidence is
	 * the last) */
	if (st->npending > 0 && st->pending[st->npending - 1].pr == pr)
		st->pending_rows -= st->pending[--st->npending].res->nscales;
	for (size_t d = 0; d < sizeof(undo) / sizeof(undo[0]); d++) {
		sqlite3_bind_int64(st->stmt[undo[d]], 1, pr);
		sqlite3_step(st->stmt[undo[d]]);
		sqlite3_reset(st->stmt[undo[d]]);
	}
	return -1;
}
