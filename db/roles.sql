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
-- sslrootcert), and may insert only rows that name itself: row-level
-- security checks vantage = current_user on every row it inserts.  Rows
-- sent again are not inserted (ON CONFLICT DO NOTHING) and need no other
-- privilege.  Readers read and write nothing.  Idempotent: run it again
-- after a migration adds a table (readers then read it too).

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
GRANT SELECT ON scaleprobe_schema TO scaleprobe_vantage;
GRANT INSERT ON vantage_results TO scaleprobe_vantage;

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
