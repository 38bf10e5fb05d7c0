--
-- The SQL interface: schema, functions, columns, and that the worker runs.
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

-- status(): every column, in order
SELECT u.ord, u.name, u.type
  FROM pg_proc p,
       unnest(p.proargnames, p.proallargtypes::regtype[]::text[])
       WITH ORDINALITY AS u(name, type, ord)
 WHERE p.oid = 'walsizer.status'::regproc
 ORDER BY u.ord;

-- the worker is running and reports the server's settings
SELECT pg_temp.wait_until('(SELECT worker_pid IS NOT NULL AND next_action IS NOT NULL FROM walsizer.status())');
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
  FROM walsizer.status();

-- a window ends on its own within its length (2 s here)
SELECT pg_temp.wait_until('(SELECT last_check_at IS NOT NULL FROM walsizer.status())');
SELECT next_check_at > last_check_at AS next_after_last
  FROM walsizer.status();

-- check_now() ends the window at once
CREATE TEMP TABLE before AS SELECT last_check_at FROM walsizer.status();
SELECT walsizer.check_now();
SELECT pg_temp.wait_until('(SELECT s.last_check_at > b.last_check_at FROM walsizer.status() s, before b)');

-- decisions(): a set of rows with the documented columns.  The DBA's own
-- change of max_wal_size makes one, and the change back another.
ALTER SYSTEM SET max_wal_size = '2GB';
SELECT pg_reload_conf();
SELECT pg_temp.wait_until($$EXISTS (SELECT FROM walsizer.decisions()
                                    WHERE action = 'adopt' AND new_mb = 2048)$$);
-- the running value now comes from the DBA's ALTER SYSTEM, which shadows
-- the 1GB initdb wrote into postgresql.conf
SELECT pg_temp.wait_until($$(SELECT max_wal_size_source = 'postgresql.auto.conf:3'
                                    AND shadowed_max_wal_size_mb = 1024
                               FROM walsizer.status())$$);
ALTER SYSTEM RESET max_wal_size;
SELECT pg_reload_conf();
SELECT pg_temp.wait_until($$EXISTS (SELECT FROM walsizer.decisions()
                                    WHERE action = 'adopt' AND old_mb = 2048
                                      AND new_mb = 1024)$$);
SELECT action, old_mb, new_mb, requested >= 0 AND timed >= 0 AND wal_forced >= 0
           AND wal_bytes >= 0 AND window_s >= 0 AS counted,
       confirmed, reason <> '' AS explained, role
  FROM walsizer.decisions()
 WHERE action = 'adopt'
 ORDER BY at;
SELECT array_agg(name ORDER BY ord) AS decision_columns
  FROM pg_proc p, unnest(p.proargnames) WITH ORDINALITY AS u(name, ord)
 WHERE p.oid = 'walsizer.decisions'::regproc;

-- decision_counts(): one row per action, in the order of the actions,
-- those never taken included; each total at least what decisions() still
-- lists of its action, and all of them together every decision made (this
-- state began with 1.4, so none was made before counting began)
SELECT action, total >= (SELECT count(*) FROM walsizer.decisions() d
                          WHERE d.action = c.action) AS covers_history
  FROM walsizer.decision_counts() c;
SELECT pg_temp.wait_until($$(SELECT sum(total) FROM walsizer.decision_counts())
                            = (SELECT decisions_total FROM walsizer.status())$$);
SELECT total >= 2 AS both_adoptions_counted
  FROM walsizer.decision_counts() WHERE action = 'adopt';
SELECT array_agg(name ORDER BY ord) AS decision_count_columns
  FROM pg_proc p, unnest(p.proargnames) WITH ORDINALITY AS u(name, ord)
 WHERE p.oid = 'walsizer.decision_counts'::regproc;

-- recommend(): what would happen now, explained
SELECT action IN ('none', 'grow', 'capped', 'shrink', 'protect') AS known_action,
       max_wal_size_mb = (SELECT max_wal_size_mb FROM walsizer.status()) AS same_size,
       recommended_mb BETWEEN floor_mb AND greatest(cap_mb, max_wal_size_mb)
           AS within_bounds,
       length(reason) > 0 AS explained
  FROM walsizer.recommend();

-- dropping the extension removes its objects but not the worker
DROP EXTENSION pg_walsizer;
SELECT count(*) AS functions_left FROM pg_proc WHERE proname = 'check_now';
SELECT count(*) AS workers FROM pg_stat_activity WHERE backend_type = 'pg_walsizer';
SELECT count(*) AS schema_left FROM pg_namespace WHERE nspname = 'walsizer';
CREATE EXTENSION pg_walsizer;
