--
-- The SQL interface: schema, views, functions, columns, and that the
-- worker runs.  The views are the API; the functions of 1.4 and before
-- stay beside them, with the same rows.
--
CREATE EXTENSION pg_walsizer;

-- polls a condition, so the expected output does not depend on timing
CREATE FUNCTION pg_temp.wait_until(condition text, timeout_s int DEFAULT 60)
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    ok boolean;
BEGIN
    FOR i IN 1 .. timeout_s * 10 LOOP
        EXECUTE 'SELECT (' || condition || ')' INTO ok;
        IF ok THEN
            RETURN true;
        END IF;
        PERFORM pg_sleep(0.1);
    END LOOP;
    RETURN false;
END
$$;

SELECT n.nspname AS schema
  FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
 WHERE e.extname = 'pg_walsizer';

SELECT p.proname, pg_get_function_result(p.oid) AS result
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname = 'walsizer'
 ORDER BY p.proname;
SELECT c.relname, c.relkind
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'walsizer'
 ORDER BY c.relname;

-- the view status: every column, in order
SELECT a.attnum, a.attname, format_type(a.atttypid, a.atttypmod) AS type
  FROM pg_attribute a
 WHERE a.attrelid = 'walsizer.status'::regclass AND a.attnum > 0
 ORDER BY a.attnum;

-- every column of every view says what it means (\d+ shows it)
SELECT c.relname, a.attname
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0
 WHERE n.nspname = 'walsizer' AND col_description(c.oid, a.attnum) IS NULL;
SELECT col_description('walsizer.status'::regclass, 5) AS cap_mb_comment;

-- each view starts with the columns of the function of 1.4 it replaces,
-- names, types and order (status has one more: failing_since)
CREATE FUNCTION pg_temp.view_columns(view regclass) RETURNS text
LANGUAGE sql AS $$
  SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, NULL), ', '
                    ORDER BY a.attnum)
    FROM pg_attribute a WHERE a.attrelid = view AND a.attnum > 0 $$;
CREATE FUNCTION pg_temp.function_columns(function regproc) RETURNS text
LANGUAGE sql AS $$
  SELECT string_agg(u.name || ' ' || format_type(u.type, NULL), ', ' ORDER BY u.ord)
    FROM pg_proc p, unnest(p.proargnames, p.proallargtypes)
         WITH ORDINALITY AS u(name, type, ord)
   WHERE p.oid = function $$;
SELECT v AS view,
       starts_with(pg_temp.view_columns(v::regclass), pg_temp.function_columns(f::regproc))
           AS starts_with_its_columns,
       substr(pg_temp.view_columns(v::regclass),
              length(pg_temp.function_columns(f::regproc)) + 1) AS added
  FROM (VALUES ('walsizer.status', 'walsizer.status'),
               ('walsizer.decisions', 'walsizer.decisions'),
               ('walsizer.decision_counts', 'walsizer.decision_counts'),
               ('walsizer.recommendation', 'walsizer.recommend')) AS pair(v, f);

-- a view's function takes its columns from the caller, and refuses any
-- the library does not return, with a clear error rather than a wrong value
SELECT walsizer.read_status();
SELECT * FROM walsizer.read_status() AS r(enabled boolean);
SELECT * FROM walsizer.read_decision_counts() AS r(action text, total integer);
SELECT * FROM walsizer.read_recommendation()
    AS r(action text, max_wal_size_mb bigint, recommended_mb bigint,
         needed_mb bigint, cap_mb bigint, floor_mb bigint, reason text,
         cap_source text, estimated_recovery_s double precision, extra text);
SELECT walsizer.read_decisions();

-- the worker is running and reports the server's settings
SELECT pg_temp.wait_until('(SELECT worker_pid IS NOT NULL AND next_action IS NOT NULL FROM walsizer.status)');
SELECT worker_pid = (SELECT pid FROM pg_stat_activity
                      WHERE backend_type = 'pg_walsizer') AS pid_matches,
       enabled, dry_run,
       max_wal_size_mb = (SELECT setting::bigint FROM pg_settings
                           WHERE name = 'max_wal_size') AS size_matches,
       cap_mb, cap_source IN ('walsizer.max', 'disk') AS cap_source_known,
       cap_mb <= 4096 AS under_max,
       window_s, sample_interval_ms,
       trigger_bytes > 0 AS has_trigger,
       blocked, pending_mb, role,
       max_wal_size_source ~ '^postgresql\.conf:[0-9]+$' AS from_postgresql_conf,
       shadowed_max_wal_size_mb
  FROM walsizer.status;

-- no change has failed here
SELECT failing_since FROM walsizer.status;

-- a window ends on its own within its length (2 s here)
SELECT pg_temp.wait_until('(SELECT last_check_at IS NOT NULL FROM walsizer.status)');
SELECT next_check_at > last_check_at AS next_after_last
  FROM walsizer.status;

-- check_now() ends the window at once
CREATE TEMP TABLE before AS SELECT last_check_at FROM walsizer.status;
SELECT walsizer.check_now();
SELECT pg_temp.wait_until('(SELECT s.last_check_at > b.last_check_at FROM walsizer.status s, before b)');

-- decisions(): a set of rows with the documented columns.  The DBA's own
-- change of max_wal_size makes one, and the change back another.
ALTER SYSTEM SET max_wal_size = '2GB';
SELECT pg_reload_conf();
SELECT pg_temp.wait_until($$EXISTS (SELECT FROM walsizer.decisions
                                    WHERE action = 'adopt' AND new_mb = 2048)$$);
-- the running value now comes from the DBA's ALTER SYSTEM, which shadows
-- the 1GB initdb wrote into postgresql.conf
SELECT pg_temp.wait_until($$(SELECT max_wal_size_source = 'postgresql.auto.conf:3'
                                    AND shadowed_max_wal_size_mb = 1024
                               FROM walsizer.status)$$);
ALTER SYSTEM RESET max_wal_size;
SELECT pg_reload_conf();
SELECT pg_temp.wait_until($$EXISTS (SELECT FROM walsizer.decisions
                                    WHERE action = 'adopt' AND old_mb = 2048
                                      AND new_mb = 1024)$$);
SELECT action, old_mb, new_mb, requested >= 0 AND timed >= 0 AND wal_forced >= 0
           AND wal_bytes >= 0 AND window_s >= 0 AS counted,
       confirmed, reason <> '' AS explained, role
  FROM walsizer.decisions
 WHERE action = 'adopt'
 ORDER BY at;
SELECT array_agg(attname ORDER BY attnum) AS decision_columns
  FROM pg_attribute WHERE attrelid = 'walsizer.decisions'::regclass AND attnum > 0;
-- the function of 1.4 lists the same decisions
SELECT (SELECT array_agg(d::text ORDER BY d.at) FROM walsizer.decisions() d)
       = (SELECT array_agg(d::text ORDER BY d.at) FROM walsizer.decisions d) AS same_rows;

-- last_change: the DBA's own changes (the adopt rows above) are not
-- pg_walsizer's, so it has none yet
SELECT count(*) AS changes_by_walsizer FROM walsizer.last_change;
SELECT array_agg(attname ORDER BY attnum) AS last_change_columns
  FROM pg_attribute WHERE attrelid = 'walsizer.last_change'::regclass AND attnum > 0;

-- decision_counts(): one row per action, in the order of the actions,
-- those never taken included; each total at least what decisions() still
-- lists of its action, and all of them together every decision made (this
-- state began with 1.4, so none was made before counting began)
SELECT action, total >= (SELECT count(*) FROM walsizer.decisions d
                          WHERE d.action = c.action) AS covers_history
  FROM walsizer.decision_counts c;
SELECT pg_temp.wait_until($$(SELECT sum(total) FROM walsizer.decision_counts)
                            = (SELECT decisions_total FROM walsizer.status)$$);
SELECT total >= 2 AS both_adoptions_counted
  FROM walsizer.decision_counts WHERE action = 'adopt';
SELECT array_agg(attname ORDER BY attnum) AS decision_count_columns
  FROM pg_attribute WHERE attrelid = 'walsizer.decision_counts'::regclass AND attnum > 0;
SELECT (SELECT array_agg(c::text ORDER BY c.action) FROM walsizer.decision_counts() c)
       = (SELECT array_agg(c::text ORDER BY c.action) FROM walsizer.decision_counts c)
           AS same_rows;

-- recommend(): what would happen now, explained
SELECT action IN ('none', 'grow', 'capped', 'shrink', 'protect') AS known_action,
       max_wal_size_mb = (SELECT max_wal_size_mb FROM walsizer.status) AS same_size,
       recommended_mb BETWEEN floor_mb AND greatest(cap_mb, max_wal_size_mb)
           AS within_bounds,
       length(reason) > 0 AS explained
  FROM walsizer.recommendation;

-- dropping the extension removes its objects but not the worker
DROP EXTENSION pg_walsizer;
SELECT count(*) AS functions_left FROM pg_proc WHERE proname = 'check_now';
SELECT count(*) AS views_left FROM pg_class WHERE relname = 'recommendation';
SELECT count(*) AS workers FROM pg_stat_activity WHERE backend_type = 'pg_walsizer';
SELECT count(*) AS schema_left FROM pg_namespace WHERE nspname = 'walsizer';
CREATE EXTENSION pg_walsizer;
