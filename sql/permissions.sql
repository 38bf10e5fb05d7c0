--
-- Who may read and who may act, and a hostile search_path.
--
CREATE ROLE walsizer_nobody LOGIN;
CREATE ROLE walsizer_watcher LOGIN IN ROLE pg_monitor;

-- a plain role can read nothing and change nothing
SET ROLE walsizer_nobody;
SELECT count(*) FROM walsizer.status();
SELECT count(*) FROM walsizer.decisions();
SELECT count(*) FROM walsizer.recommend();
SELECT walsizer.check_now();
RESET ROLE;

-- pg_monitor members can read, but not wake the worker
SET ROLE walsizer_watcher;
SELECT count(*) FROM walsizer.status();
SELECT count(*) >= 0 AS readable FROM walsizer.decisions();
SELECT count(*) FROM walsizer.recommend();
SELECT walsizer.check_now();
RESET ROLE;

-- exactly the documented privileges, nothing for PUBLIC
SELECT p.proname,
       has_function_privilege('walsizer_nobody', p.oid, 'EXECUTE') AS nobody,
       has_function_privilege('walsizer_watcher', p.oid, 'EXECUTE') AS watcher
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname = 'walsizer'
 ORDER BY p.proname;

-- a hostile search_path at install time cannot redirect the script
DROP EXTENSION pg_walsizer;
CREATE SCHEMA hostile;
CREATE FUNCTION hostile.status() RETURNS int LANGUAGE sql AS 'SELECT 666';
SET search_path = hostile, public;
CREATE EXTENSION pg_walsizer;
SELECT n.nspname, p.proname
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE p.proname IN ('status', 'decisions', 'recommend', 'check_now')
 ORDER BY 1, 2;
-- and at call time the schema-qualified functions are the extension's
SELECT worker_pid IS NOT NULL AS from_extension FROM walsizer.status();
RESET search_path;
DROP SCHEMA hostile CASCADE;

DROP ROLE walsizer_nobody;
DROP ROLE walsizer_watcher;
