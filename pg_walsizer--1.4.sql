/* pg_walsizer--1.4.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION pg_walsizer" to load this file. \quit

-- The functions live in their own schema, created here so that it belongs
-- to the extension and goes away with DROP EXTENSION.  Every name is
-- schema-qualified, so a hostile search_path cannot redirect anything.
CREATE SCHEMA walsizer;

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

CREATE FUNCTION walsizer.decision_counts(
    OUT action text,
    OUT total bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walsizer_decision_counts'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION walsizer.decision_counts() IS
'how many decisions of each action pg_walsizer ever made, kept across restarts: counters for monitoring';

CREATE FUNCTION walsizer.recommend(
    OUT action text,
    OUT max_wal_size_mb bigint,
    OUT recommended_mb bigint,
    OUT needed_mb bigint,
    OUT cap_mb bigint,
    OUT floor_mb bigint,
    OUT reason text,
    OUT cap_source text,
    OUT estimated_recovery_s double precision)
RETURNS record
AS 'MODULE_PATHNAME', 'walsizer_recommend'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION walsizer.recommend() IS
'what pg_walsizer would do if its window ended now, without doing it';

CREATE FUNCTION walsizer.check_now()
RETURNS boolean
AS 'MODULE_PATHNAME', 'walsizer_check_now'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION walsizer.check_now() IS
'ends pg_walsizer''s current window now, so it measures and decides immediately';

-- Reading is for monitoring roles; only superusers may prod the worker.
-- Everyone may look into the schema, so that a role without pg_monitor is
-- told it lacks permission on the function rather than on the schema.
GRANT USAGE ON SCHEMA walsizer TO PUBLIC;
REVOKE ALL ON FUNCTION walsizer.status() FROM PUBLIC;
REVOKE ALL ON FUNCTION walsizer.decisions() FROM PUBLIC;
REVOKE ALL ON FUNCTION walsizer.decision_counts() FROM PUBLIC;
REVOKE ALL ON FUNCTION walsizer.recommend() FROM PUBLIC;
REVOKE ALL ON FUNCTION walsizer.check_now() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION walsizer.status() TO pg_monitor;
GRANT EXECUTE ON FUNCTION walsizer.decisions() TO pg_monitor;
GRANT EXECUTE ON FUNCTION walsizer.decision_counts() TO pg_monitor;
GRANT EXECUTE ON FUNCTION walsizer.recommend() TO pg_monitor;
