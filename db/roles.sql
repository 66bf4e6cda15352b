-- db/roles.sql -- who may write what in the shared PostgreSQL store that
-- vantages upload to (scaleprobe.conf(5) "upload"): run once by the
-- database's owner after the schema exists (a vantage's first upload, or
-- scaleprobed with "database URI", creates it), then a role per vantage.
--
--   psql "postgresql://owner@db/scaleprobe" -f roles.sql
--   CREATE ROLE "vantage-a" LOGIN IN ROLE scaleprobe_vantage;
--   CREATE ROLE "alice" LOGIN IN ROLE scaleprobe_reader;
--
-- A vantage logs in with a TLS client certificate whose CN is its role's
-- name, which is its "vantage" setting (pg_hba.conf: hostssl scaleprobe
-- all 0.0.0.0/0 cert; its URI: sslmode=verify-full, sslcert, sslkey,
-- sslrootcert).  Its results land in the store's own tables (runs,
-- path_results and the tables under them), which show, export and report
-- read, and uploads holds their keys.  Row-level security lets it insert
-- only rows that name itself: a run or a key whose vantage is
-- current_user, a path result of such a run, a scale, side finding, hop or
-- evidence row of such a path result; it reads back only its own (what
-- RETURNING and those checks need).  Targets and paths name no vantage:
-- it may add to them, change none.  Rows sent again are not inserted (ON
-- CONFLICT DO NOTHING).  Readers read every row and write none.
-- Idempotent: run it again after a migration adds a table.

DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'scaleprobe_vantage') THEN
		CREATE ROLE scaleprobe_vantage NOLOGIN;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'scaleprobe_reader') THEN
		CREATE ROLE scaleprobe_reader NOLOGIN;
	END IF;
END
$$;

GRANT USAGE ON SCHEMA public TO scaleprobe_vantage, scaleprobe_reader;

-- a vantage checks the store's version (read) and inserts its results
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM scaleprobe_vantage;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM scaleprobe_vantage;
GRANT SELECT ON scaleprobe_schema TO scaleprobe_vantage;
GRANT INSERT ON vantage_results TO scaleprobe_vantage;
GRANT SELECT, INSERT ON uploads, runs, targets, paths, path_results, scale_results,
	side_findings, hops, evidence TO scaleprobe_vantage;
-- the ids of runs, targets, paths and path results
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO scaleprobe_vantage;

-- a reader reads every table, writes none
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM scaleprobe_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO scaleprobe_reader;

ALTER TABLE vantage_results ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS vantage_inserts_itself ON vantage_results;
CREATE POLICY vantage_inserts_itself ON vantage_results FOR INSERT TO scaleprobe_vantage
	WITH CHECK (vantage = current_user);
DROP POLICY IF EXISTS readers_read ON vantage_results;
CREATE POLICY readers_read ON vantage_results FOR SELECT TO scaleprobe_reader
	USING (true);

-- per table: whose rows a vantage may insert and read back (the owner,
-- a daemon writing here directly, is not held by row-level security)
DO $$
DECLARE
	t record;
BEGIN
	FOR t IN SELECT * FROM (VALUES
		('uploads', 'vantage = current_user'),
		('runs', 'vantage = current_user'),
		('path_results', 'EXISTS (SELECT 1 FROM runs r WHERE r.id = run_id'
		    ' AND r.vantage = current_user)'),
		('scale_results', 'EXISTS (SELECT 1 FROM path_results pr JOIN runs r'
		    ' ON r.id = pr.run_id WHERE pr.id = path_result_id AND r.vantage = current_user)'),
		('side_findings', 'EXISTS (SELECT 1 FROM path_results pr JOIN runs r'
		    ' ON r.id = pr.run_id WHERE pr.id = path_result_id AND r.vantage = current_user)'),
		('hops', 'EXISTS (SELECT 1 FROM path_results pr JOIN runs r'
		    ' ON r.id = pr.run_id WHERE pr.id = path_result_id AND r.vantage = current_user)'),
		('evidence', 'EXISTS (SELECT 1 FROM path_results pr JOIN runs r'
		    ' ON r.id = pr.run_id WHERE pr.id = path_result_id AND r.vantage = current_user)'))
	    AS v (tab, own)
	LOOP
		EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t.tab);
		EXECUTE format('DROP POLICY IF EXISTS vantage_inserts_itself ON %I', t.tab);
		EXECUTE format('CREATE POLICY vantage_inserts_itself ON %I FOR INSERT'
		    ' TO scaleprobe_vantage WITH CHECK (%s)', t.tab, t.own);
		EXECUTE format('DROP POLICY IF EXISTS vantage_reads_itself ON %I', t.tab);
		EXECUTE format('CREATE POLICY vantage_reads_itself ON %I FOR SELECT'
		    ' TO scaleprobe_vantage USING (%s)', t.tab, t.own);
		EXECUTE format('DROP POLICY IF EXISTS readers_read ON %I', t.tab);
		EXECUTE format('CREATE POLICY readers_read ON %I FOR SELECT'
		    ' TO scaleprobe_reader USING (true)', t.tab);
	END LOOP;
END
$$;
