/* pg_walsizer--1.6--1.7.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION pg_walsizer UPDATE TO '1.7'" to load this file. \quit

-- 1.7: walsizer.what_if(), the trade-off of other sizes laid out: for the
-- running size, the recommendation, a ladder around it and the sizes the
-- caller passes, what each would do under the load measured.  A new
-- function; nothing of 1.6 changes.  Its columns are the entry point's
-- (walsizer_what_if_1_7): a later version that adds one names a new
-- entry point and replaces the function, as for the views.

CREATE FUNCTION walsizer.what_if(
    sizes text[] DEFAULT NULL,
    OUT size_mb bigint,
    OUT kind text,
    OUT cycle_s double precision,
    OUT checkpoints_per_hour double precision,
    OUT forced_per_hour double precision,
    OUT wal_mb_per_hour double precision,
    OUT recovery_s double precision,
    OUT replay_rate_source text,
    OUT peak_pg_wal_mb bigint,
    OUT wal_room_mb bigint,
    OUT working_set_mb bigint,
    OUT allowed boolean,
    OUT why_not text,
    OUT basis text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walsizer_what_if_1_7'
LANGUAGE C VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION walsizer.what_if(text[]) IS 'for the running max_wal_size, the recommendation, a ladder around it and the sizes given (as max_wal_size takes them, at most 8): the checkpoints, WAL, crash recovery and pg_wal each would give under the load of the last checkpoint cycle, and whether pg_walsizer would allow it';

REVOKE ALL ON FUNCTION walsizer.what_if(text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION walsizer.what_if(text[]) TO pg_monitor;
