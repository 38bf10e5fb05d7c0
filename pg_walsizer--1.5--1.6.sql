/* pg_walsizer--1.5--1.6.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION pg_walsizer UPDATE TO '1.6'" to load this file. \quit

-- 1.6: walsizer.status tells the WAL that replication slots,
-- wal_keep_size and the archiver keep in pg_wal behind the last
-- checkpoint, which the disk cap leaves out of the WAL volume, and which
-- of them holds the oldest.  As 1.5 planned: the function points at the
-- entry point of 1.6, and the view appends the columns; the view, what
-- depends on it and the privileges granted on it stay.

CREATE OR REPLACE FUNCTION walsizer.read_status()
RETURNS record
AS 'MODULE_PATHNAME', 'walsizer_status_1_6'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

CREATE OR REPLACE VIEW walsizer.status AS
  SELECT * FROM walsizer.read_status() AS r(
    enabled boolean,
    dry_run boolean,
    worker_pid integer,
    max_wal_size_mb bigint,
    cap_mb bigint,
    cap_source text,
    floor_mb bigint,
    needed_mb bigint,
    window_s double precision,
    sample_interval_ms integer,
    last_check_at timestamp with time zone,
    next_check_at timestamp with time zone,
    last_timed bigint,
    last_requested bigint,
    last_wal_forced bigint,
    last_requested_ratio double precision,
    last_wal_bytes bigint,
    last_wal_bytes_per_s double precision,
    last_fpi bigint,
    last_fpi_share double precision,
    total_timed bigint,
    total_requested bigint,
    total_wal_forced bigint,
    total_requested_ratio double precision,
    total_wal_bytes bigint,
    wal_rate_bytes_per_s double precision,
    peak_wal_rate_bytes_per_s double precision,
    wal_since_redo_bytes bigint,
    trigger_bytes bigint,
    projected_bytes bigint,
    projected_fill double precision,
    blocked boolean,
    pending_mb bigint,
    decisions_total bigint,
    last_action text,
    last_reason text,
    next_action text,
    next_reason text,
    last_cycle_s double precision,
    last_cycle_wal_bytes bigint,
    last_cycle_fpi_bytes bigint,
    last_cycle_timed boolean,
    fpi_bytes_source text,
    record_rate_bytes_per_s double precision,
    estimated_recovery_s double precision,
    replay_rate_bytes_per_s double precision,
    replay_rate_source text,
    role text,
    max_wal_size_source text,
    shadowed_max_wal_size_mb bigint,
    failing_since timestamp with time zone,
    wal_held_bytes bigint,
    wal_held_by text);

COMMENT ON COLUMN walsizer.status.wal_held_bytes IS 'WAL that replication slots, wal_keep_size or the archiver keep in pg_wal behind the last checkpoint''s redo pointer, in bytes: space max_wal_size cannot have, left out of the disk cap; NULL before the worker measured it';
COMMENT ON COLUMN walsizer.status.wal_held_by IS 'which of them keeps the oldest WAL: slot, wal_keep_size or archiver; NULL when none holds any';
COMMENT ON COLUMN walsizer.status.cap_mb IS 'largest max_wal_size pg_walsizer may set now, in MB: the lowest of walsizer.max, the WAL volume''s share (without the WAL held for slots, wal_keep_size and archiving) and the recovery-time bound';
