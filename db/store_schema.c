/*
 * store_schema.c -- the schema as ordered migrations, one per version of
 * PRAGMA user_version.  A released migration is never edited: a change is
 * a new migration, and a fixture of the version before it is committed in
 * tests/db/fixtures/ so the test migrates it.
 *
 * The tables follow the NDJSON output (prober/design-notes.md "Output"):
 * one path_results row per run and path (the object printed per path),
 * one scale_results row per scale sent (the "scales" array), its side
 * findings, the path's hops as printed, and the raw packets that prove a
 * result (evidence).  NULL where the JSON prints null.  Times are ns since the epoch, UTC.
 */
#include "store_int.h"

static const char schema_v1[] =
	/* targets as the user wrote them */
	"CREATE TABLE targets ("
	"  id INTEGER PRIMARY KEY,"
	"  spec TEXT NOT NULL UNIQUE);"
	/* one address and port, whatever target named it */
	"CREATE TABLE paths ("
	"  id INTEGER PRIMARY KEY,"
	"  address TEXT NOT NULL,"
	"  port INTEGER NOT NULL CHECK (port BETWEEN 0 AND 65535),"
	"  family TEXT NOT NULL CHECK (family IN ('ipv4', 'ipv6')),"
	"  UNIQUE (address, port));"
	/* a CLI run or a daemon cycle, from one vantage with one setting */
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  started_ns INTEGER NOT NULL,"
	"  vantage TEXT NOT NULL,"
	"  settings_digest TEXT NOT NULL,"
	"  settings TEXT NOT NULL,"
	"  program TEXT NOT NULL);"
	"CREATE INDEX runs_vantage ON runs (vantage, started_ns);"
	/* the printed object's path-level fields */
	"CREATE TABLE path_results ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
	"  target_id INTEGER NOT NULL REFERENCES targets (id),"
	"  path_id INTEGER NOT NULL REFERENCES paths (id),"
	"  time_ns INTEGER NOT NULL,"
	"  control_reply TEXT NOT NULL,"
	"  control_sa_present INTEGER NOT NULL,"
	"  control_wscale INTEGER,"
	"  control_mss INTEGER,"
	"  control_sack INTEGER,"
	"  control_ts INTEGER,"
	"  traced INTEGER NOT NULL,"		/* 0: "hops" is null */
	"  capture_drops INTEGER NOT NULL,"
	"  send_failures INTEGER NOT NULL,"
	"  capture_error TEXT,"
	"  UNIQUE (run_id, target_id, path_id));"
	/* the history of one host: by address (paths) or as written */
	"CREATE INDEX path_results_path ON path_results (path_id, time_ns);"
	"CREATE INDEX path_results_target ON path_results (target_id, time_ns);"
	/* one per scale sent, in the order printed (idx); clustered by its
	 * key, so a path result's scales are one seek and a row costs one
	 * b-tree (no rowid) */
	"CREATE TABLE scale_results ("
	"  path_result_id INTEGER NOT NULL REFERENCES path_results (id) ON DELETE CASCADE,"
	"  idx INTEGER NOT NULL,"
	"  path_id INTEGER NOT NULL REFERENCES paths (id),"	/* copies, for */
	"  time_ns INTEGER NOT NULL,"				/* the indexes */
	"  problem INTEGER NOT NULL,"	/* rewritten, stripped, syn-dropped */
	"  scale_sent INTEGER NOT NULL,"
	"  reply TEXT NOT NULL,"
	"  icmp_type INTEGER,"
	"  icmp_code INTEGER,"
	"  sa_present INTEGER NOT NULL,"
	"  sa_wscale INTEGER,"
	"  sa_mss INTEGER,"
	"  sa_sack INTEGER,"
	"  sa_ts INTEGER,"
	"  scale_quoted INTEGER,"
	"  scale_effective INTEGER,"
	"  scale_effective_min INTEGER,"
	"  flight_bytes INTEGER,"
	"  verdict TEXT,"
	"  reason TEXT,"
	"  hop_index INTEGER,"
	"  hop_address TEXT,"
	"  last_clean_index INTEGER,"
	"  last_clean_address TEXT,"
	"  PRIMARY KEY (path_result_id, idx)) WITHOUT ROWID;"
	/* every broken path since T */
	"CREATE INDEX scale_results_problems ON scale_results (time_ns) WHERE problem;"
	"CREATE TABLE side_findings ("
	"  path_result_id INTEGER NOT NULL,"
	"  scale_idx INTEGER NOT NULL,"
	"  idx INTEGER NOT NULL,"
	"  kind TEXT NOT NULL,"
	"  detail TEXT,"
	"  hop_index INTEGER,"
	"  hop_address TEXT,"
	"  PRIMARY KEY (path_result_id, scale_idx, idx),"
	"  FOREIGN KEY (path_result_id, scale_idx) REFERENCES scale_results (path_result_id, idx)"
	"    ON DELETE CASCADE) WITHOUT ROWID;"
	/* the "hops" array as printed */
	"CREATE TABLE hops ("
	"  path_result_id INTEGER NOT NULL REFERENCES path_results (id) ON DELETE CASCADE,"
	"  ttl INTEGER NOT NULL,"
	"  address TEXT,"
	"  quote TEXT NOT NULL,"
	"  rfc4884 INTEGER,"
	"  rtt_us INTEGER,"
	"  PRIMARY KEY (path_result_id, ttl)) WITHOUT ROWID;"
	/* the packets that prove a result, one row per path result: packets
	 * records packed as evidence.h's evidence_pack() writes them (each
	 * packet with its variant, TTL, kind and fields), a row per packet
	 * cost 28 inserts per traced path */
	"CREATE TABLE evidence ("
	"  path_result_id INTEGER PRIMARY KEY REFERENCES path_results (id) ON DELETE CASCADE,"
	"  packets INTEGER NOT NULL,"
	"  truncated INTEGER NOT NULL,"
	"  bytes BLOB NOT NULL);";

/* v2, the daemon's: a run is one group's cycle, and every target of a
 * cycle leaves a state, so "no data" is never read as "path fine"; its
 * next due time is written with it. */
static const char schema_v2[] =
	"ALTER TABLE runs ADD COLUMN grp TEXT;"
	"ALTER TABLE runs ADD COLUMN cycle INTEGER;"
	"CREATE TABLE target_states ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER REFERENCES runs (id) ON DELETE CASCADE,"	/* NULL: missed */
	"  target_id INTEGER NOT NULL REFERENCES targets (id),"
	"  grp TEXT NOT NULL,"
	"  cycle INTEGER NOT NULL,"
	"  state TEXT NOT NULL CHECK (state IN "
	"    ('measured', 'missed', 'blocked', 'unresolved', 'failed')),"
	"  reason TEXT,"
	"  paths INTEGER NOT NULL,"
	"  time_ns INTEGER NOT NULL,"
	"  next_due_ns INTEGER,"
	"  UNIQUE (grp, target_id, cycle));"
	"CREATE INDEX target_states_time ON target_states (target_id, time_ns);";

/* v3: the daemon's open alerts, one row per path (or incident) with a
 * problem raised and not yet cleared, written with the batch that holds
 * the result that raised it: a restart reads them back, so it neither
 * raises them again nor forgets to clear them.  kind 'incident': address
 * is the hop's, port 0, paths its paths; a path of an incident names
 * that hop's address in incident. */
static const char schema_v3[] =
	"CREATE TABLE open_alerts ("
	"  id INTEGER PRIMARY KEY,"
	"  vantage TEXT NOT NULL,"
	"  kind TEXT NOT NULL CHECK (kind IN ('path', 'incident')),"
	"  address TEXT NOT NULL,"
	"  port INTEGER NOT NULL CHECK (port BETWEEN 0 AND 65535),"
	"  target TEXT,"
	"  state TEXT NOT NULL,"			/* the worst verdict */
	"  scales TEXT NOT NULL,"			/* "7:rewritten,14:stripped" */
	"  hop_index INTEGER,"
	"  hop_address TEXT,"
	"  incident TEXT,"
	"  paths INTEGER,"
	"  reason TEXT,"
	"  raised_ns INTEGER NOT NULL,"
	"  changed_ns INTEGER NOT NULL,"
	"  UNIQUE (vantage, kind, address, port));";

/* v4: the TTLs inside a box's interval (last_clean_index .. hop_index)
 * that never answered the scale's trace, as bits (bit k: TTL k;
 * prober/lib/silent_hops.h); NULL when the hop is exact (every TTL
 * between answered) or there is no hop.  Rows stored before it keep
 * what the stored hops tell: the path's hops table holds, per TTL, the
 * fullest answer any variant drew, so a TTL quoted 'none' there inside
 * the interval was silent for this scale too and is marked.  A TTL that
 * another scale heard but this one did not cannot be told from those
 * rows: such an old row reads as exact, as it did before; an untraced
 * one (no hops rows) too. */
static const char schema_v4[] =
	"ALTER TABLE scale_results ADD COLUMN hop_silent INTEGER;"
	"UPDATE scale_results SET hop_silent = ("
	"  SELECT sum(1 << h.ttl) FROM hops h"
	"  WHERE h.path_result_id = scale_results.path_result_id"
	"    AND h.quote = 'none' AND h.ttl BETWEEN 1 AND 30"
	"    AND h.ttl > coalesce(scale_results.last_clean_index, 0)"
	"    AND h.ttl < scale_results.hop_index)"
	" WHERE hop_index IS NOT NULL AND typeof(hop_index) = 'integer';";

/* v5: a run the daemon made because a user asked on its control socket
 * (probe --via-daemon): who asked, by uid from the socket's peer
 * credentials; NULL for scheduled cycles and CLI runs. */
static const char schema_v5[] =
	"ALTER TABLE runs ADD COLUMN on_demand_uid INTEGER;";

/* v6: a path probed over several flows (--flows N, N > 1): per scale the
 * flows probed and on how many the verdict was a problem (the verdict is
 * the worst any flow saw); NULL for one flow, as every row before it. */
static const char schema_v6[] =
	"ALTER TABLE scale_results ADD COLUMN flows INTEGER;"
	"ALTER TABLE scale_results ADD COLUMN flows_affected INTEGER;";

/* v7: the upload of results to a shared PostgreSQL store (upload.c,
 * scaleprobed's "upload"): upload_cursor is the last path result, by id,
 * the shared store has taken, and when; no row while nothing was ever
 * uploaded.  Retention (store_prune.c) removes no result past it.  And a
 * run's clock: whether the vantage's clock was synchronised when it
 * measured ('synchronised', 'unsynchronised', 'unknown'); NULL for runs
 * stored before. */
static const char schema_v7[] =
	"CREATE TABLE upload_cursor ("
	"  id INTEGER PRIMARY KEY CHECK (id = 1),"
	"  last_id INTEGER NOT NULL,"
	"  last_ok_ns INTEGER);"
	"ALTER TABLE runs ADD COLUMN clock TEXT;";

/* v8: where a scale's flows part (--flows): the branch, the first TTL at
 * which the routers heard by the flows that saw the problem and by those
 * that answered without it differ, and those routers, each side's
 * addresses joined by commas (flow_branch.h); NULL where no branch was
 * found, as every row before it. */
static const char schema_v8[] =
	"ALTER TABLE scale_results ADD COLUMN branch_hop INTEGER;"
	"ALTER TABLE scale_results ADD COLUMN branch_problem TEXT;"
	"ALTER TABLE scale_results ADD COLUMN branch_clean TEXT;";

/* v9: the store's identity, 128 random bits made once when the store is
 * made (or brought to this version): part of the key of every result it
 * uploads (upload.c), so a store made again, whose ids start over, is not
 * taken for the one before it by the shared store. */
static const char schema_v9[] =
	"CREATE TABLE store_identity ("
	"  id INTEGER PRIMARY KEY CHECK (id = 1),"
	"  store TEXT NOT NULL);"
	"INSERT INTO store_identity (id, store) VALUES (1, lower(hex(randomblob(16))));";

/* v10: target_states by run, for retention: a run deleted (store_prune.c)
 * finds its states, by its cascade or by name, with a seek rather than a
 * scan of the table per run. */
static const char schema_v10[] =
	"CREATE INDEX target_states_run ON target_states (run_id);";

const char *const store_migrations[STORE_SCHEMA_VERSION] = {
	schema_v1,
	schema_v2,
	schema_v3,
	schema_v4,
	schema_v5,
	schema_v6,
	schema_v7,
	schema_v8,
	schema_v9,
	schema_v10,
};
