--
-- Settings: defaults, limits, units, and that they reload with SIGHUP.
--
SELECT name, setting, unit, context, min_val, max_val, boot_val
  FROM pg_settings
 WHERE name LIKE 'walsizer.%'
 ORDER BY name;

-- all of them are reload-only: a session cannot change them
SET walsizer.max = '1GB';
SET walsizer.enable = off;

-- values beyond their limits are rejected with the server's own messages
ALTER SYSTEM SET walsizer.max = 0;
ALTER SYSTEM SET walsizer.max = '3000TB';
ALTER SYSTEM SET walsizer.max = 'lots';
ALTER SYSTEM SET walsizer.min = -1;
ALTER SYSTEM SET walsizer.threshold = 0;
ALTER SYSTEM SET walsizer.ratio = 1.5;
ALTER SYSTEM SET walsizer.ratio = -0.1;
ALTER SYSTEM SET walsizer.headroom = -1;
ALTER SYSTEM SET walsizer.headroom = 11;
ALTER SYSTEM SET walsizer.interval = -1;
ALTER SYSTEM SET walsizer.interval = '8 days';
ALTER SYSTEM SET walsizer.sample_interval = '10ms';
ALTER SYSTEM SET walsizer.shrink_after = -1;
ALTER SYSTEM SET walsizer.cooldown = 0;
ALTER SYSTEM SET walsizer.disk_fraction = 0;
ALTER SYSTEM SET walsizer.disk_fraction = -0.5;
ALTER SYSTEM SET walsizer.disk_fraction = 1.01;
ALTER SYSTEM SET walsizer.enable = 'maybe';
-- the prefix is reserved: a misspelt setting is an error, not a silent no-op
ALTER SYSTEM SET walsizer.maxx = '1GB';

-- nothing above reached the configuration file
SELECT count(*) AS walsizer_lines
  FROM pg_file_settings
 WHERE name LIKE 'walsizer.%' AND sourcefile LIKE '%postgresql.auto.conf';

-- a valid change reaches the worker on reload
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

ALTER SYSTEM SET walsizer.max = '2GB';
ALTER SYSTEM SET walsizer.sample_interval = '300ms';
SELECT pg_reload_conf();
SELECT pg_temp.wait_until('(SELECT cap_mb = 2048 AND sample_interval_ms = 300 FROM walsizer.status)');

-- units are accepted as for any size (the recovery-time bound, lower than
-- a terabyte at the assumed replay rate, is lifted to see it)
ALTER SYSTEM SET walsizer.max = '1TB';
ALTER SYSTEM SET walsizer.max_recovery_time = 0;
SELECT pg_reload_conf();
SELECT pg_temp.wait_until('(SELECT cap_mb = 1048576 OR cap_source = ''disk'' FROM walsizer.status)');

-- the recovery-time bound: 10 s at a replay rate of 30 MB/s is 300 MB,
-- 288 MB in whole 16 MB segments
ALTER SYSTEM SET walsizer.max_recovery_time = '10s';
ALTER SYSTEM SET walsizer.replay_rate = 30;
SELECT pg_reload_conf();
SELECT pg_temp.wait_until('(SELECT cap_mb = 288 AND cap_source = ''recovery_time'' AND replay_rate_source = ''setting'' AND replay_rate_bytes_per_s = 30 * 1048576 FROM walsizer.status)');
SELECT cap_mb, cap_source, estimated_recovery_s > 0 AS has_estimate
  FROM walsizer.recommendation;

ALTER SYSTEM RESET walsizer.max_recovery_time;
ALTER SYSTEM RESET walsizer.replay_rate;
ALTER SYSTEM RESET walsizer.max;
ALTER SYSTEM RESET walsizer.sample_interval;
SELECT pg_reload_conf();
SELECT pg_temp.wait_until('(SELECT sample_interval_ms = 200 FROM walsizer.status)');
