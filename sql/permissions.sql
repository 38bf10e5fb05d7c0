--
-- Who may read and who may act, and a hostile search_path.
--
CREATE ROLE walsizer_nobody LOGIN;
CREATE ROLE walsizer_watcher LOGIN IN ROLE pg_monitor;

-- a plain role can read nothing and change nothing
SET ROLE walsizer_nobody;
SELECT count(*) FROM walsizer.status;
SELECT count(*) FROM walsizer.decisions;
SELECT count(*) FROM walsizer.decision_counts;
SELECT count(*) FROM walsizer.recommendation;
SELECT walsizer.check_now();
SELECT count(*) FROM walsizer.what_if();
RESET ROLE;

-- pg_monitor members can read, but not wake the worker.  Something to read:
-- the DBA's own change of max_wal_size, which walsizer adopts.
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
ALTER SYSTEM SET max_wal_size = '1536MB';
SELECT pg_reload_conf();
SELECT pg_temp.wait_until($$(SELECT max_wal_size_mb = 1536 FROM walsizer.status)
                            AND EXISTS (SELECT FROM walsizer.decisions
                                         WHERE action = 'adopt' AND new_mb = 1536)$$);
SET ROLE walsizer_watcher;
SELECT max_wal_size_mb, worker_pid IS NOT NULL AS sees_worker FROM walsizer.status;
SELECT action, old_mb, new_mb FROM walsizer.decisions WHERE new_mb = 1536;
SELECT total > 0 AS adoption_counted FROM walsizer.decision_counts WHERE action = 'adopt';
SELECT max_wal_size_mb, length(reason) > 0 AS explained FROM walsizer.recommendation;
SELECT count(*) <= 1 AS reads_last_change FROM walsizer.last_change;
SELECT count(*) > 0 AS reads_what_if FROM walsizer.what_if(sizes => '{2GB}');
SELECT walsizer.check_now();
RESET ROLE;
ALTER SYSTEM RESET max_wal_size;
SELECT pg_reload_conf();
SELECT pg_temp.wait_until($$(SELECT max_wal_size_mb = 1024 FROM walsizer.status)
                            AND EXISTS (SELECT FROM walsizer.decisions
                                         WHERE action = 'adopt' AND old_mb = 1536
                                           AND new_mb = 1024)$$);

-- the functions of 1.4 too: pg_monitor reads them, a plain role does not
SET ROLE walsizer_watcher;
SELECT max_wal_size_mb FROM walsizer.status();
SELECT count(*) > 0 AS has_decisions FROM walsizer.decisions();
RESET ROLE;
SET ROLE walsizer_nobody;
SELECT count(*) FROM walsizer.status();
SELECT count(*) FROM walsizer.read_status() AS r(enabled boolean);
RESET ROLE;

-- exactly the documented privileges, nothing for PUBLIC
SELECT p.proname,
       has_function_privilege('walsizer_nobody', p.oid, 'EXECUTE') AS nobody,
       has_function_privilege('walsizer_watcher', p.oid, 'EXECUTE') AS watcher
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname = 'walsizer'
 ORDER BY p.proname;
SELECT c.relname,
       has_table_privilege('walsizer_nobody', c.oid, 'SELECT') AS nobody,
       has_table_privilege('walsizer_watcher', c.oid, 'SELECT') AS watcher,
       has_table_privilege('walsizer_watcher', c.oid, 'INSERT,UPDATE,DELETE') AS watcher_writes
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'walsizer'
 ORDER BY c.relname;

-- a hostile search_path at install time cannot redirect the script
DROP EXTENSION pg_walsizer;
CREATE SCHEMA hostile;
CREATE FUNCTION hostile.status() RETURNS int LANGUAGE sql AS 'SELECT 666';
CREATE FUNCTION hostile.read_status() RETURNS record LANGUAGE sql AS 'SELECT ROW(false)';
SET search_path = hostile, public;
CREATE EXTENSION pg_walsizer;
SELECT n.nspname, p.proname
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE p.proname IN ('status', 'read_status', 'decisions', 'recommend', 'check_now')
 ORDER BY 1, 2;
-- and at call time the schema-qualified functions are the extension's
SELECT worker_pid IS NOT NULL AS from_extension FROM walsizer.status;
SELECT worker_pid IS NOT NULL AS from_extension FROM walsizer.status();
RESET search_path;
DROP SCHEMA hostile CASCADE;

DROP ROLE walsizer_nobody;
DROP ROLE walsizer_watcher;
