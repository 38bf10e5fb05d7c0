--
-- Dry run: decisions are computed and recorded as "advise"; nothing changes.
-- Also: a max_wal_size set by the DBA is adopted, not fought.
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

ALTER SYSTEM SET walsizer.dry_run = on;
SELECT pg_reload_conf();
SELECT pg_temp.wait_until('(SELECT dry_run FROM walsizer.status)');

-- the DBA makes max_wal_size small: walsizer adopts it as its baseline
ALTER SYSTEM SET max_wal_size = '32MB';
SELECT pg_reload_conf();
SELECT pg_temp.wait_until($$(SELECT max_wal_size_mb = 32 FROM walsizer.status)$$);
SELECT pg_temp.wait_until($$EXISTS (SELECT FROM walsizer.decisions
                                    WHERE action = 'adopt' AND new_mb = 32)$$);
SELECT floor_mb FROM walsizer.status;

-- write far more WAL than 32MB allows between checkpoints
CREATE TABLE churn (id int PRIMARY KEY, payload text);
INSERT INTO churn SELECT g, repeat('x', 200) FROM generate_series(1, 100000) g;
UPDATE churn SET payload = repeat('y', 200);
UPDATE churn SET payload = repeat('z', 200);
SELECT walsizer.check_now();

-- walsizer advises growth...
SELECT pg_temp.wait_until($$EXISTS (SELECT FROM walsizer.decisions
                                    WHERE action = 'advise' AND old_mb = 32
                                      AND new_mb > 32)$$);
SELECT action, old_mb, new_mb > old_mb AS would_grow,
       reason ~ '^dry run \((grow|capped)\): .*(forced by WAL|projected)' AS explained,
       confirmed
  FROM walsizer.decisions WHERE action = 'advise' AND old_mb = 32 LIMIT 1;

-- ...and changes nothing
SELECT max_wal_size_mb, pending_mb FROM walsizer.status;
SELECT setting FROM pg_file_settings
 WHERE name = 'max_wal_size' AND sourcefile LIKE '%postgresql.auto.conf';

-- a dry run keeps the cooldown, although checkpoints go on being forced at
-- the size it does not change: advice changes at most once a window, never
-- from one sample to the next
UPDATE churn SET payload = repeat('v', 200);
UPDATE churn SET payload = repeat('w', 200);
UPDATE churn SET payload = repeat('u', 200);
SELECT count(*) FILTER (WHERE gap < interval '1 second') AS advice_within_a_second
  FROM (SELECT at - lag(at) OVER (ORDER BY at) AS gap
          FROM walsizer.decisions WHERE action = 'advise') AS advice;

ALTER SYSTEM RESET walsizer.dry_run;
ALTER SYSTEM RESET max_wal_size;
SELECT pg_reload_conf();
DROP TABLE churn;
