/* pg_walsizer--1.3--1.4.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION pg_walsizer UPDATE TO '1.4'" to load this file. \quit

-- 1.4: decision_counts(), the decisions ever made by action.  decisions()
-- keeps the last ones only, so its count of an action can fall; these
-- totals only grow, and a monitoring system can take them as counters.
CREATE FUNCTION walsizer.decision_counts(
    OUT action text,
    OUT total bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walsizer_decision_counts'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION walsizer.decision_counts() IS
'how many decisions of each action pg_walsizer ever made, kept across restarts: counters for monitoring';

REVOKE ALL ON FUNCTION walsizer.decision_counts() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION walsizer.decision_counts() TO pg_monitor;
