--
-- walsizer.what_if(): its columns, its errors, and a table whose rows
-- hang together, on the load of one real checkpoint cycle.
--
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

-- the function, its argument and its columns, units in their names
SELECT u.ord, u.name, u.mode, format_type(u.type, NULL) AS type
  FROM pg_proc p,
       unnest(p.proargnames, p.proallargtypes, p.proargmodes)
           WITH ORDINALITY AS u(name, type, mode, ord)
 WHERE p.oid = 'walsizer.what_if'::regproc
 ORDER BY u.ord;
SELECT pg_get_function_arguments('walsizer.what_if'::regproc) LIKE 'sizes text[] DEFAULT NULL%'
           AS sizes_optional,
       pg_get_function_result('walsizer.what_if'::regproc) AS result;
SELECT obj_description('walsizer.what_if'::regproc, 'pg_proc') IS NOT NULL AS explained;

-- sizes as max_wal_size takes them, or a clear error
SELECT * FROM walsizer.what_if(sizes => '{banana}');
SELECT * FROM walsizer.what_if(sizes => '{2GBX}');
SELECT * FROM walsizer.what_if(sizes => '{0}');
SELECT * FROM walsizer.what_if(sizes => '{-64MB}');
SELECT * FROM walsizer.what_if(sizes => '{99999999GB}');
SELECT * FROM walsizer.what_if(sizes => ARRAY['1GB', NULL]);
SELECT * FROM walsizer.what_if(sizes => '{{1GB},{2GB}}');
SELECT * FROM walsizer.what_if(sizes => '{1,2,3,4,5,6,7,8,9}');

-- one whole checkpoint cycle with WAL in it: the worker sees the redo
-- pointer move twice
CHECKPOINT;
SELECT pg_sleep(0.5);
CREATE TABLE what_if_load AS SELECT g AS id, repeat('x', 100) AS filler
  FROM generate_series(1, 50000) g;
UPDATE what_if_load SET filler = repeat('y', 100);
CHECKPOINT;
SELECT pg_temp.wait_until('(SELECT last_cycle_s > 0 FROM walsizer.status)');

CREATE TEMP TABLE t AS
  SELECT * FROM walsizer.what_if(sizes => '{64MB,3GB,2048,1.5TB,10TB}');
-- the running size once, the recommendation once, the sizes asked for,
-- each size once, in order
SELECT count(*) FILTER (WHERE kind LIKE '%running%') AS running_rows,
       count(*) FILTER (WHERE kind LIKE '%recommended%') AS recommended_rows,
       (SELECT size_mb FROM t WHERE kind LIKE '%running%')
           = (SELECT setting::bigint FROM pg_settings WHERE name = 'max_wal_size')
           AS running_is_max_wal_size,
       (SELECT size_mb FROM t WHERE kind LIKE '%recommended%')
           = (SELECT recommended_mb FROM walsizer.recommendation) AS recommended_is_it,
       count(DISTINCT size_mb) = count(*) AS each_size_once
  FROM t;
SELECT size_mb, kind LIKE '%asked%' AS asked FROM t
 WHERE size_mb IN (64, 2048, 3072, 1572864, 10485760) ORDER BY size_mb;
-- a larger size: no more checkpoints, no more WAL, no quicker recovery
SELECT bool_and(checkpoints_per_hour <= prev_checkpoints + 1e-9) AS fewer_checkpoints,
       bool_and(wal_mb_per_hour <= prev_wal + 1e-9) AS less_wal,
       bool_and(recovery_s >= prev_recovery - 1e-9) AS longer_recovery,
       bool_and(peak_pg_wal_mb >= prev_peak) AS more_pg_wal
  FROM (SELECT *, lag(checkpoints_per_hour) OVER w AS prev_checkpoints,
               lag(wal_mb_per_hour) OVER w AS prev_wal,
               lag(recovery_s) OVER w AS prev_recovery,
               lag(peak_pg_wal_mb) OVER w AS prev_peak
          FROM t WINDOW w AS (ORDER BY size_mb)) s
 WHERE prev_wal IS NOT NULL;
-- every row's figures: a cycle no longer than checkpoint_timeout, as many
-- checkpoints an hour as cycles fit, forced ones among them, the replay
-- rate named, pg_wal against its volume's room, said why when not allowed
SELECT bool_and(cycle_s > 0 AND cycle_s <= 300) AS cycle_within_timeout,
       bool_and(abs(checkpoints_per_hour - 3600 / cycle_s) < 1e-6) AS cycles_per_hour,
       bool_and(forced_per_hour IN (0, checkpoints_per_hour)) AS forced_all_or_none,
       bool_and(replay_rate_source IN ('assumed', 'measured', 'setting')) AS rate_named,
       bool_and(recovery_s > 0) AS recovery_known,
       bool_and(wal_room_mb > 0) AS room_known,
       bool_and(allowed = (why_not IS NULL)) AS why_not_when_refused,
       bool_and(basis LIKE 'the last checkpoint cycle: %') AS basis_given
  FROM t;
-- 10TB is past every cap, and its pg_wal past the volume
SELECT allowed, why_not LIKE 'above the cap of % MB (%' AS above_the_cap
  FROM t WHERE size_mb = 10485760;
-- sizes given without a unit are MB, as for max_wal_size
SELECT count(*) AS rows_of_2048 FROM t WHERE size_mb = 2048;
-- without sizes: the running size, the recommendation and its ladder
SELECT count(*) BETWEEN 2 AND 6 AS ladder_rows,
       bool_and(kind NOT LIKE '%asked%') AS none_asked
  FROM walsizer.what_if();
SELECT count(*) > 0 AS null_sizes_too FROM walsizer.what_if(NULL);
DROP TABLE what_if_load;
