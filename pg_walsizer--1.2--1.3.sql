/* pg_walsizer--1.2--1.3.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION pg_walsizer UPDATE TO '1.3'" to load this file. \quit

-- 1.3: the worker runs on standbys too.  status() says whether the server
-- is a primary or a standby, and decisions() on which of the two each
-- decision was made.  status() also says where max_wal_size comes from
-- and which value of postgresql.conf postgresql.auto.conf shadows.  A function's OUT columns cannot change in place:
-- drop and create them again, with their grants.
DROP FUNCTION walsizer.status();
DROP FUNCTION walsizer.decisions();

CREATE FUNCTION walsizer.status(
    OUT enabled boolean,
    OUT dry_run boolean,
    OUT worker_pid integer,
    OUT max_wal_size_mb bigint,
    OUT cap_mb bigint,
    OUT cap_source text,
    OUT floor_mb bigint,
    OUT needed_mb bigint,
    OUT window_s double precision,
    OUT sample_interval_ms integer,
    OUT last_check_at timestamp with time zone,
    OUT next_check_at timestamp with time zone,
    OUT last_timed bigint,
    OUT last_requested bigint,
    OUT last_wal_forced bigint,
    OUT last_requested_ratio double precision,
    OUT last_wal_bytes bigint,
    OUT last_wal_bytes_per_s double precision,
    OUT last_fpi bigint,
    OUT last_fpi_share double precision,
    OUT total_timed bigint,
    OUT total_requested bigint,
    OUT total_wal_forced bigint,
    OUT total_requested_ratio double precision,
    OUT total_wal_bytes bigint,
    OUT wal_rate_bytes_per_s double precision,
    OUT peak_wal_rate_bytes_per_s double precision,
    OUT wal_since_redo_bytes bigint,
    OUT trigger_bytes bigint,
    OUT projected_bytes bigint,
    OUT projected_fill double precision,
    OUT blocked boolean,
    OUT pending_mb bigint,
    OUT decisions_total bigint,
    OUT last_action text,
    OUT last_reason text,
    OUT next_action text,
    OUT next_reason text,
    OUT last_cycle_s double precision,
    OUT last_cycle_wal_bytes bigint,
    OUT last_cycle_fpi_bytes bigint,
    OUT last_cycle_timed boolean,
    OUT fpi_bytes_source text,
    OUT record_rate_bytes_per_s double precision,
    OUT estimated_recovery_s double precision,
    OUT replay_rate_bytes_per_s double precision,
    OUT replay_rate_source text,
    OUT role text,
    OUT max_wal_size_source text,
    OUT shadowed_max_wal_size_mb bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'walsizer_status'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION walsizer.status() IS
'what pg_walsizer measured in its last window and sample, and what it would do next';

REVOKE ALL ON FUNCTION walsizer.status() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION walsizer.status() TO pg_monitor;

CREATE FUNCTION walsizer.decisions(
    OUT at timestamp with time zone,
    OUT action text,
    OUT old_mb bigint,
    OUT new_mb bigint,
    OUT requested bigint,
    OUT timed bigint,
    OUT wal_forced bigint,
    OUT wal_bytes bigint,
    OUT window_s double precision,
    OUT confirmed boolean,
    OUT reason text,
    OUT role text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walsizer_decisions'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION walsizer.decisions() IS
'the last decisions of pg_walsizer, oldest first, kept across restarts';

REVOKE ALL ON FUNCTION walsizer.decisions() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION walsizer.decisions() TO pg_monitor;
