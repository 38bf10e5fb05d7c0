/* pg_walsizer--1.4--1.5.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION pg_walsizer UPDATE TO '1.5'" to load this file. \quit

-- 1.5: the views walsizer.status, walsizer.decisions,
-- walsizer.decision_counts and walsizer.recommendation, the API from now
-- on.  Up to 1.4 each new column meant dropping and recreating a function,
-- which fails for a DBA with a view on it and loses the GRANTs made on it.
-- A view can grow instead: CREATE OR REPLACE VIEW may append columns, and
-- it keeps the objects that depend on it and the privileges granted on it.
--
-- Each view reads a function that returns "record": its columns are given
-- by the view (the column definition list), not by the function, so the
-- function never changes its result type.  The function calls a C entry
-- point named for the version (walsizer_status_1_5), which fills exactly
-- that version's columns and checks the list.  A later version that adds a
-- column keeps every object below: it points the function at its own entry
-- point (CREATE OR REPLACE FUNCTION ... AS 'MODULE_PATHNAME',
-- 'walsizer_status_1_6') and appends the column to the view's list
-- (CREATE OR REPLACE VIEW), in one script; the library keeps the older
-- entry points for the SQL objects of older versions.
--
-- The functions of 1.4 (walsizer.status() and the others) stay as they
-- are, with the columns they have, for the objects built on them.

CREATE FUNCTION walsizer.read_status()
RETURNS record
AS 'MODULE_PATHNAME', 'walsizer_status_1_5'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION walsizer.read_status() IS
'the rows of the view walsizer.status, which gives their columns';

CREATE VIEW walsizer.status AS
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
    shadowed_max_wal_size_mb bigint);

COMMENT ON VIEW walsizer.status IS
'what pg_walsizer measured in its last window and sample, and what it would do next';

CREATE FUNCTION walsizer.read_decisions()
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walsizer_decisions_1_5'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION walsizer.read_decisions() IS
'the rows of the view walsizer.decisions, which gives their columns';

CREATE VIEW walsizer.decisions AS
  SELECT * FROM walsizer.read_decisions() AS r(
    at timestamp with time zone,
    action text,
    old_mb bigint,
    new_mb bigint,
    requested bigint,
    timed bigint,
    wal_forced bigint,
    wal_bytes bigint,
    window_s double precision,
    confirmed boolean,
    reason text,
    role text);

COMMENT ON VIEW walsizer.decisions IS
'the last decisions of pg_walsizer, oldest first, kept across restarts';

CREATE FUNCTION walsizer.read_decision_counts()
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walsizer_decision_counts_1_5'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION walsizer.read_decision_counts() IS
'the rows of the view walsizer.decision_counts, which gives their columns';

CREATE VIEW walsizer.decision_counts AS
  SELECT * FROM walsizer.read_decision_counts() AS r(
    action text,
    total bigint);

COMMENT ON VIEW walsizer.decision_counts IS
'how many decisions of each action pg_walsizer ever made, kept across restarts: counters for monitoring';

CREATE FUNCTION walsizer.read_recommendation()
RETURNS record
AS 'MODULE_PATHNAME', 'walsizer_recommend_1_5'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION walsizer.read_recommendation() IS
'the rows of the view walsizer.recommendation, which gives their columns';

CREATE VIEW walsizer.recommendation AS
  SELECT * FROM walsizer.read_recommendation() AS r(
    action text,
    max_wal_size_mb bigint,
    recommended_mb bigint,
    needed_mb bigint,
    cap_mb bigint,
    floor_mb bigint,
    reason text,
    cap_source text,
    estimated_recovery_s double precision);

COMMENT ON VIEW walsizer.recommendation IS
'what pg_walsizer would do if its window ended now, without doing it';

-- As the functions of 1.4: monitoring roles read, nobody else.  A view's
-- functions run with the privileges of the role that queries it, so
-- pg_monitor may execute them too.
REVOKE ALL ON walsizer.status FROM PUBLIC;
REVOKE ALL ON FUNCTION walsizer.read_status() FROM PUBLIC;
REVOKE ALL ON walsizer.decisions FROM PUBLIC;
REVOKE ALL ON FUNCTION walsizer.read_decisions() FROM PUBLIC;
REVOKE ALL ON walsizer.decision_counts FROM PUBLIC;
REVOKE ALL ON FUNCTION walsizer.read_decision_counts() FROM PUBLIC;
REVOKE ALL ON walsizer.recommendation FROM PUBLIC;
REVOKE ALL ON FUNCTION walsizer.read_recommendation() FROM PUBLIC;
GRANT SELECT ON walsizer.status TO pg_monitor;
GRANT EXECUTE ON FUNCTION walsizer.read_status() TO pg_monitor;
GRANT SELECT ON walsizer.decisions TO pg_monitor;
GRANT EXECUTE ON FUNCTION walsizer.read_decisions() TO pg_monitor;
GRANT SELECT ON walsizer.decision_counts TO pg_monitor;
GRANT EXECUTE ON FUNCTION walsizer.read_decision_counts() TO pg_monitor;
GRANT SELECT ON walsizer.recommendation TO pg_monitor;
GRANT EXECUTE ON FUNCTION walsizer.read_recommendation() TO pg_monitor;
