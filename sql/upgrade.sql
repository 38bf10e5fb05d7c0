--
-- Every released version of the SQL objects works with this library, and
-- ALTER EXTENSION UPDATE brings it to 1.7.  From 1.4 on an update keeps
-- what a DBA built on the documented objects: views and GRANTs.
--
DROP EXTENSION IF EXISTS pg_walsizer;

-- one install script, 1.0's: a new install runs the whole update chain,
-- so it is made by the same statements as an updated one
SELECT version FROM pg_available_extension_versions
 WHERE name = 'pg_walsizer' ORDER BY version;
SELECT path FROM pg_extension_update_paths('pg_walsizer')
 WHERE source = '1.0' AND target = '1.7';

-- Version 1.0 of the SQL objects works with this library, and ALTER
-- EXTENSION UPDATE brings it to 1.7 with the new status() and decisions()
-- columns, decision_counts(), the views and the same privileges.
CREATE EXTENSION pg_walsizer VERSION '1.0';

SELECT extversion FROM pg_extension WHERE extname = 'pg_walsizer';
SELECT array_length(p.proallargtypes, 1) AS status_columns
  FROM pg_proc p WHERE p.oid = 'walsizer.status'::regproc;
-- the library fills the 38 columns 1.0 knows
SELECT enabled, cap_mb > 0 AS has_cap, next_reason IS NOT NULL AS has_reason
  FROM walsizer.status();

ALTER EXTENSION pg_walsizer UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'pg_walsizer';
SELECT u.ord, u.name, u.type
  FROM pg_proc p,
       unnest(p.proargnames, p.proallargtypes::regtype[]::text[])
       WITH ORDINALITY AS u(name, type, ord)
 WHERE p.oid = 'walsizer.status'::regproc AND u.ord > 38
 ORDER BY u.ord;
SELECT fpi_bytes_source IN ('measured', 'estimated') AS source_known,
       record_rate_bytes_per_s >= 0 AS rate_not_negative,
       (last_cycle_s IS NULL) = (last_cycle_wal_bytes IS NULL) AS cycle_consistent,
       coalesce(last_cycle_fpi_bytes <= last_cycle_wal_bytes, true) AS images_within_cycle
  FROM walsizer.status();

-- the update keeps status() for monitoring roles only
SELECT has_function_privilege('pg_monitor', 'walsizer.status()', 'EXECUTE') AS monitor_may,
       has_function_privilege('public', 'walsizer.status()', 'EXECUTE') AS public_may;

-- 1.1 keeps working with this library (44 status() columns, 7 of
-- recommend()), and ALTER EXTENSION UPDATE brings it to 1.7
DROP EXTENSION pg_walsizer;
CREATE EXTENSION pg_walsizer VERSION '1.1';
SELECT array_length(p.proallargtypes, 1) AS status_columns
  FROM pg_proc p WHERE p.oid = 'walsizer.status'::regproc;
SELECT record_rate_bytes_per_s >= 0 AS has_1_1_columns FROM walsizer.status();
SELECT action IS NOT NULL AS recommends FROM walsizer.recommend();
ALTER EXTENSION pg_walsizer UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'pg_walsizer';
SELECT estimated_recovery_s > 0 AS has_estimate,
       replay_rate_bytes_per_s > 0 AS has_rate,
       replay_rate_source IN ('assumed', 'measured', 'setting') AS source_known
  FROM walsizer.status();
SELECT cap_source IN ('walsizer.max', 'disk', 'recovery_time') AS cap_source_known,
       estimated_recovery_s > 0 AS has_estimate
  FROM walsizer.recommend();
SELECT has_function_privilege('pg_monitor', 'walsizer.recommend()', 'EXECUTE') AS monitor_may,
       has_function_privilege('public', 'walsizer.recommend()', 'EXECUTE') AS public_may;

-- 1.2 keeps working with this library (47 status() columns, 11 of
-- decisions()), and ALTER EXTENSION UPDATE brings it to 1.7, where 1.3
-- the role the server has and the one each decision was made on
DROP EXTENSION pg_walsizer;
CREATE EXTENSION pg_walsizer VERSION '1.2';
SELECT array_length(p.proallargtypes, 1) AS status_columns
  FROM pg_proc p WHERE p.oid = 'walsizer.status'::regproc;
SELECT array_length(p.proallargtypes, 1) AS decision_columns
  FROM pg_proc p WHERE p.oid = 'walsizer.decisions'::regproc;
SELECT replay_rate_source IS NOT NULL AS has_1_2_columns FROM walsizer.status();
SELECT count(*) > 0 AS has_decisions, bool_and(reason <> '') AS explained
  FROM walsizer.decisions();
ALTER EXTENSION pg_walsizer UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'pg_walsizer';
SELECT p.proname, u.ord, u.name, u.type
  FROM pg_proc p,
       unnest(p.proargnames, p.proallargtypes::regtype[]::text[])
       WITH ORDINALITY AS u(name, type, ord)
 WHERE (p.oid = 'walsizer.status'::regproc AND u.ord > 47)
    OR (p.oid = 'walsizer.decisions'::regproc AND u.ord > 11)
 ORDER BY p.proname, u.ord;
-- this server is no standby, and neither was it when it decided
SELECT role FROM walsizer.status();
SELECT count(*) > 0 AS has_decisions, bool_and(role = 'primary') AS made_on_primary
  FROM walsizer.decisions();
SELECT f AS function,
       has_function_privilege('pg_monitor', f, 'EXECUTE') AS monitor_may,
       has_function_privilege('public', f, 'EXECUTE') AS public_may
  FROM unnest(ARRAY['walsizer.status()', 'walsizer.decisions()']) AS f;

-- 1.3 keeps working with this library (it has no decision_counts()), and
-- ALTER EXTENSION UPDATE brings it to 1.7, which adds decision_counts()
-- for monitoring roles only
DROP EXTENSION pg_walsizer;
CREATE EXTENSION pg_walsizer VERSION '1.3';
SELECT count(*) AS decision_counts_functions
  FROM pg_proc WHERE proname = 'decision_counts';
SELECT role IS NOT NULL AS has_1_3_columns FROM walsizer.status();
SELECT count(*) > 0 AS has_decisions FROM walsizer.decisions();
ALTER EXTENSION pg_walsizer UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'pg_walsizer';
SELECT pg_get_function_arguments('walsizer.decision_counts'::regproc) AS arguments,
       pg_get_function_result('walsizer.decision_counts'::regproc) AS result;
SELECT count(*) AS actions, count(DISTINCT action) AS distinct_actions,
       bool_and(total >= 0) AS not_negative,
       sum(total) > 0 AS decisions_counted
  FROM walsizer.decision_counts();
SELECT has_function_privilege('pg_monitor', 'walsizer.decision_counts()', 'EXECUTE') AS monitor_may,
       has_function_privilege('public', 'walsizer.decision_counts()', 'EXECUTE') AS public_may;

-- A DBA's view on status() of 1.0 stops the update: the update to 1.1
-- drops status() to add columns (the released scripts stay as they were
-- released).  The update fails, says why, and changes nothing.
DROP EXTENSION pg_walsizer;
CREATE EXTENSION pg_walsizer VERSION '1.0';
CREATE VIEW public.dba_status_1_0 AS SELECT max_wal_size_mb FROM walsizer.status();
-- (newer majors add the script's line as CONTEXT)
\set SHOW_CONTEXT never
ALTER EXTENSION pg_walsizer UPDATE;
\set SHOW_CONTEXT errors
SELECT extversion FROM pg_extension WHERE extname = 'pg_walsizer';
SELECT max_wal_size_mb > 0 AS still_reads FROM public.dba_status_1_0;
DROP VIEW public.dba_status_1_0;

-- From 1.4, the released version, an update keeps a DBA's view and GRANT
-- on each documented object
CREATE ROLE walsizer_reporter;
DROP EXTENSION pg_walsizer;
CREATE EXTENSION pg_walsizer VERSION '1.4';
CREATE VIEW public.dba_status AS
  SELECT max_wal_size_mb, next_action, role FROM walsizer.status();
CREATE VIEW public.dba_decisions AS SELECT at, action, role FROM walsizer.decisions();
CREATE VIEW public.dba_decision_counts AS
  SELECT action, total FROM walsizer.decision_counts();
CREATE VIEW public.dba_recommend AS
  SELECT action, recommended_mb FROM walsizer.recommend();
GRANT EXECUTE ON FUNCTION walsizer.status(), walsizer.decisions(),
    walsizer.decision_counts(), walsizer.recommend(), walsizer.check_now()
    TO walsizer_reporter;
ALTER EXTENSION pg_walsizer UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'pg_walsizer';
SELECT max_wal_size_mb > 0 AS reads, role FROM public.dba_status;
SELECT count(*) >= 0 AS reads FROM public.dba_decisions;
SELECT count(*) AS actions FROM public.dba_decision_counts;
SELECT recommended_mb > 0 AS reads FROM public.dba_recommend;
SELECT f AS function,
       has_function_privilege('walsizer_reporter', f, 'EXECUTE') AS reporter_may
  FROM unnest(ARRAY['walsizer.status()', 'walsizer.decisions()',
                    'walsizer.decision_counts()', 'walsizer.recommend()',
                    'walsizer.check_now()']) AS f;
-- the views of 1.5 read the same as the functions of 1.4
SELECT (SELECT max_wal_size_mb FROM walsizer.status)
       = (SELECT max_wal_size_mb FROM public.dba_status) AS same_size;

-- From 1.5 on a version adds a column as below: the view's function is
-- pointed at the new version's entry point and the column is appended to
-- the view.  A DBA's view and GRANT on the view survive it.
CREATE VIEW public.dba_counts_1_5 AS SELECT action, total FROM walsizer.decision_counts;
-- a role outside pg_monitor needs the view and its function (a view's
-- functions run with the privileges of the role that queries it)
GRANT SELECT ON walsizer.decision_counts, public.dba_counts_1_5 TO walsizer_reporter;
GRANT EXECUTE ON FUNCTION walsizer.read_decision_counts() TO walsizer_reporter;
SET ROLE walsizer_reporter;
SELECT count(*) AS actions_the_reporter_reads FROM public.dba_counts_1_5;
RESET ROLE;
CREATE OR REPLACE FUNCTION walsizer.read_decision_counts()
RETURNS SETOF record
AS '$libdir/pg_walsizer', 'walsizer_decision_counts_1_5'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;
CREATE OR REPLACE VIEW walsizer.decision_counts AS
  SELECT r.*, r.total > 0 AS ever_taken
    FROM walsizer.read_decision_counts() AS r(action text, total bigint);
SELECT count(*) AS actions FROM public.dba_counts_1_5;
SELECT array_agg(attname ORDER BY attnum) AS columns
  FROM pg_attribute WHERE attrelid = 'walsizer.decision_counts'::regclass AND attnum > 0;
SELECT has_table_privilege('walsizer_reporter', 'walsizer.decision_counts', 'SELECT')
           AS reporter_may;
SET ROLE walsizer_reporter;
SELECT count(*) AS actions_the_reporter_still_reads, bool_and(ever_taken = (total > 0)) AS new_column
  FROM walsizer.decision_counts;
SELECT count(*) AS through_its_view FROM public.dba_counts_1_5;
RESET ROLE;

DROP VIEW public.dba_status, public.dba_decisions, public.dba_decision_counts,
    public.dba_recommend, public.dba_counts_1_5;

-- 1.5 to 1.6, the first update of the views: 1.5's view reads with this
-- library; the update appends wal_held_bytes and wal_held_by to
-- walsizer.status and keeps a DBA's view and GRANT on it, and the
-- comments of its columns
DROP EXTENSION pg_walsizer;
CREATE EXTENSION pg_walsizer VERSION '1.5';
SELECT count(*) AS status_1_5_columns
  FROM pg_attribute WHERE attrelid = 'walsizer.status'::regclass AND attnum > 0;
SELECT max_wal_size_mb > 0 AS reads_1_5 FROM walsizer.status;
CREATE VIEW public.dba_status_1_5 AS SELECT max_wal_size_mb, cap_mb FROM walsizer.status;
GRANT SELECT ON walsizer.status, public.dba_status_1_5 TO walsizer_reporter;
GRANT EXECUTE ON FUNCTION walsizer.read_status() TO walsizer_reporter;
ALTER EXTENSION pg_walsizer UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'pg_walsizer';
SELECT a.attnum, a.attname, format_type(a.atttypid, a.atttypmod) AS type
  FROM pg_attribute a
 WHERE a.attrelid = 'walsizer.status'::regclass AND a.attnum > 50
 ORDER BY a.attnum;
SELECT col_description('walsizer.status'::regclass, 1) IS NOT NULL AS old_comment_kept,
       col_description('walsizer.status'::regclass, 52) IS NOT NULL AS new_comment;
SET ROLE walsizer_reporter;
SELECT max_wal_size_mb > 0 AS reads, cap_mb > 0 AS has_cap FROM public.dba_status_1_5;
SELECT wal_held_bytes >= 0 AS held_measured,
       wal_held_by IS NULL OR wal_held_by IN ('slot', 'wal_keep_size', 'archiver') AS holder_known
  FROM walsizer.status;
RESET ROLE;
DROP VIEW public.dba_status_1_5;

-- 1.6 to 1.7 adds walsizer.what_if(), which pg_monitor may call and no one
-- else; the views of 1.6 and a DBA's view on them stay as they were
DROP EXTENSION pg_walsizer;
CREATE EXTENSION pg_walsizer VERSION '1.6';
SELECT to_regprocedure('walsizer.what_if(text[])') IS NULL AS no_what_if_in_1_6;
CREATE VIEW public.dba_status_1_6 AS SELECT max_wal_size_mb, wal_held_bytes FROM walsizer.status;
ALTER EXTENSION pg_walsizer UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'pg_walsizer';
SELECT has_function_privilege('pg_monitor', 'walsizer.what_if(text[])', 'EXECUTE') AS monitor_may,
       has_function_privilege('walsizer_reporter', 'walsizer.what_if(text[])', 'EXECUTE') AS reporter_may,
       count(*) AS status_columns
  FROM pg_attribute WHERE attrelid = 'walsizer.status'::regclass AND attnum > 0;
SELECT count(*) AS reads_its_view FROM public.dba_status_1_6;
DROP VIEW public.dba_status_1_6;
DROP EXTENSION pg_walsizer;
DROP ROLE walsizer_reporter;
CREATE EXTENSION pg_walsizer;
