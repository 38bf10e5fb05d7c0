--
-- Version 1.0 of the SQL objects works with this library, and ALTER
-- EXTENSION UPDATE brings it to 1.4 with the new status() and decisions()
-- columns, decision_counts() and the same privileges.
--
DROP EXTENSION IF EXISTS pg_walsizer;
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

-- the update scripts match a fresh install, OUT columns and all (the
-- result type of either function is just "record")
CREATE TEMP TABLE updated AS
  SELECT pg_get_function_arguments('walsizer.status'::regproc) AS status_columns,
         pg_get_function_arguments('walsizer.decisions'::regproc) AS decision_columns,
         pg_get_function_arguments('walsizer.decision_counts'::regproc) AS count_columns,
         obj_description('walsizer.decision_counts'::regproc, 'pg_proc') AS count_comment;
DROP EXTENSION pg_walsizer;
CREATE EXTENSION pg_walsizer;
SELECT extversion FROM pg_extension WHERE extname = 'pg_walsizer';
SELECT pg_get_function_arguments('walsizer.status'::regproc) = status_columns
           AS status_same_as_fresh,
       pg_get_function_arguments('walsizer.decisions'::regproc) = decision_columns
           AS decisions_same_as_fresh,
       decision_columns LIKE '%, OUT role text' AS decisions_end_in_role,
       pg_get_function_arguments('walsizer.decision_counts'::regproc) = count_columns
           AS counts_same_as_fresh,
       obj_description('walsizer.decision_counts'::regproc, 'pg_proc') = count_comment
           AS counts_comment_same
  FROM updated;

-- 1.1 keeps working with this library (44 status() columns, 7 of
-- recommend()), and ALTER EXTENSION UPDATE brings it to 1.4
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
-- decisions()), and ALTER EXTENSION UPDATE brings it to 1.4, where 1.3
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
-- ALTER EXTENSION UPDATE brings it to 1.4, which adds decision_counts()
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
