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
    shadowed_max_wal_size_mb bigint,
    failing_since timestamp with time zone);

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

-- The last change of max_wal_size pg_walsizer made (the DBA's own, the
-- 'adopt' rows, are not its changes): when, from what to what, and why.
-- No row until it has changed anything.  The actions are those
-- walsizer_changes_size() names (src/common/policy.c).
CREATE VIEW walsizer.last_change AS
  SELECT d.at, now() - d.at AS ago, d.action, d.old_mb, d.new_mb,
         d.confirmed, d.reason, d.role
    FROM walsizer.decisions d
   WHERE d.action IN ('grow', 'capped', 'shrink', 'protect')
     AND d.new_mb <> d.old_mb
   ORDER BY d.at DESC
   LIMIT 1;

COMMENT ON VIEW walsizer.last_change IS
'the last change of max_wal_size pg_walsizer made: when, from what to what, and why';

REVOKE ALL ON walsizer.last_change FROM PUBLIC;
GRANT SELECT ON walsizer.last_change TO pg_monitor;

-- What each column means, for \d+ and for tools that show column comments.
COMMENT ON COLUMN walsizer.status.enabled IS 'walsizer.enable as the worker runs it: when false it measures and reports but changes nothing';
COMMENT ON COLUMN walsizer.status.dry_run IS 'walsizer.dry_run as the worker runs it: when true it records advise decisions instead of changing anything';
COMMENT ON COLUMN walsizer.status.worker_pid IS 'process ID of the pg_walsizer background worker; NULL when none runs';
COMMENT ON COLUMN walsizer.status.max_wal_size_mb IS 'max_wal_size the server runs, in MB, as the worker last saw it';
COMMENT ON COLUMN walsizer.status.cap_mb IS 'largest max_wal_size pg_walsizer may set now, in MB: the lowest of walsizer.max, the WAL volume''s share and the recovery-time bound';
COMMENT ON COLUMN walsizer.status.cap_source IS 'which limit cap_mb is: walsizer.max, disk or recovery_time';
COMMENT ON COLUMN walsizer.status.floor_mb IS 'smallest max_wal_size pg_walsizer shrinks to, in MB: walsizer.min, or the DBA''s own value';
COMMENT ON COLUMN walsizer.status.needed_mb IS 'max_wal_size the measured load needs, in MB, before the cap and the floor';
COMMENT ON COLUMN walsizer.status.window_s IS 'length of the decision window, in seconds (walsizer.interval, or checkpoint_timeout)';
COMMENT ON COLUMN walsizer.status.sample_interval_ms IS 'time between two samples of the WAL position and the redo pointer, in milliseconds';
COMMENT ON COLUMN walsizer.status.last_check_at IS 'when the last decision window ended; NULL before the first';
COMMENT ON COLUMN walsizer.status.next_check_at IS 'when the current decision window ends';
COMMENT ON COLUMN walsizer.status.last_timed IS 'checkpoints started by checkpoint_timeout in the last window';
COMMENT ON COLUMN walsizer.status.last_requested IS 'checkpoints requested in the last window (by WAL volume, CHECKPOINT commands and others)';
COMMENT ON COLUMN walsizer.status.last_wal_forced IS 'checkpoints forced by WAL volume (max_wal_size) in the last window';
COMMENT ON COLUMN walsizer.status.last_requested_ratio IS 'share of the last window''s checkpoints that were requested; NULL when there were none';
COMMENT ON COLUMN walsizer.status.last_wal_bytes IS 'WAL written in the last window, in bytes';
COMMENT ON COLUMN walsizer.status.last_wal_bytes_per_s IS 'WAL written per second in the last window';
COMMENT ON COLUMN walsizer.status.last_fpi IS 'full-page images written in the last window';
COMMENT ON COLUMN walsizer.status.last_fpi_share IS 'share of the last window''s WAL that full-page images took, at most one page each; NULL without WAL';
COMMENT ON COLUMN walsizer.status.total_timed IS 'checkpoints started by checkpoint_timeout since the worker started';
COMMENT ON COLUMN walsizer.status.total_requested IS 'checkpoints requested since the worker started';
COMMENT ON COLUMN walsizer.status.total_wal_forced IS 'checkpoints forced by WAL volume since the worker started';
COMMENT ON COLUMN walsizer.status.total_requested_ratio IS 'share of the checkpoints since the worker started that were requested; NULL when there were none';
COMMENT ON COLUMN walsizer.status.total_wal_bytes IS 'WAL written since the worker started, in bytes';
COMMENT ON COLUMN walsizer.status.wal_rate_bytes_per_s IS 'WAL written per second, recently (the last few samples)';
COMMENT ON COLUMN walsizer.status.peak_wal_rate_bytes_per_s IS 'the highest WAL rate over a whole checkpoint_timeout within the horizon pg_walsizer keeps';
COMMENT ON COLUMN walsizer.status.wal_since_redo_bytes IS 'WAL written since the last checkpoint''s redo pointer, in bytes';
COMMENT ON COLUMN walsizer.status.trigger_bytes IS 'WAL since the redo pointer at which the server forces a checkpoint, in bytes';
COMMENT ON COLUMN walsizer.status.projected_bytes IS 'WAL since the redo pointer projected at the next timed checkpoint, at the recent rate, in bytes';
COMMENT ON COLUMN walsizer.status.projected_fill IS 'projected_bytes / trigger_bytes: above 1, a checkpoint will be forced before the timed one';
COMMENT ON COLUMN walsizer.status.blocked IS 'true while ALTER SYSTEM is not allowed (allow_alter_system = off) or the command line sets max_wal_size';
COMMENT ON COLUMN walsizer.status.pending_mb IS 'a change written but not yet seen in effect, in MB; NULL when none';
COMMENT ON COLUMN walsizer.status.decisions_total IS 'decisions ever recorded, kept across restarts';
COMMENT ON COLUMN walsizer.status.last_action IS 'action of the last recorded decision; NULL before the first';
COMMENT ON COLUMN walsizer.status.last_reason IS 'reason of the last recorded decision';
COMMENT ON COLUMN walsizer.status.next_action IS 'what pg_walsizer would do if its window ended now';
COMMENT ON COLUMN walsizer.status.next_reason IS 'why, with the figures; starts with "postponed until the configuration is reloaded" while a DBA change awaits a reload';
COMMENT ON COLUMN walsizer.status.last_cycle_s IS 'length of the last complete checkpoint cycle (redo pointer to redo pointer), in seconds; NULL until one was seen';
COMMENT ON COLUMN walsizer.status.last_cycle_wal_bytes IS 'WAL written in the last complete checkpoint cycle, in bytes';
COMMENT ON COLUMN walsizer.status.last_cycle_fpi_bytes IS 'of which full-page images, in bytes';
COMMENT ON COLUMN walsizer.status.last_cycle_timed IS 'whether the last complete cycle ended with a timed checkpoint';
COMMENT ON COLUMN walsizer.status.fpi_bytes_source IS 'measured (from pg_stat_wal) or estimated: how full-page image bytes are counted';
COMMENT ON COLUMN walsizer.status.record_rate_bytes_per_s IS 'the recent WAL rate without full-page images, per second';
COMMENT ON COLUMN walsizer.status.estimated_recovery_s IS 'a crash recovery now, at its worst, in seconds, at replay_rate_bytes_per_s';
COMMENT ON COLUMN walsizer.status.replay_rate_bytes_per_s IS 'WAL replayed per second of crash recovery that pg_walsizer plans with';
COMMENT ON COLUMN walsizer.status.replay_rate_source IS 'where replay_rate_bytes_per_s comes from: setting (walsizer.replay_rate), measured (0.8 x the slowest recovery seen here) or assumed';
COMMENT ON COLUMN walsizer.status.role IS 'primary, or standby while the server is in recovery';
COMMENT ON COLUMN walsizer.status.max_wal_size_source IS 'where the running max_wal_size comes from: pg_walsizer, a file and line, default or command line; NULL before the worker read the files';
COMMENT ON COLUMN walsizer.status.shadowed_max_wal_size_mb IS 'the max_wal_size the other files set where postgresql.auto.conf overrides it with another, in MB; NULL when none';
COMMENT ON COLUMN walsizer.status.failing_since IS 'when the first of the changes of max_wal_size that failed since the last one that succeeded failed; NULL when the last change attempted succeeded. Kept across restarts';

COMMENT ON COLUMN walsizer.decisions.at IS 'when the decision was made';
COMMENT ON COLUMN walsizer.decisions.action IS 'grow, capped, shrink, protect, advise (dry run), adopt (the DBA''s change), error, blocked or unconfirmed';
COMMENT ON COLUMN walsizer.decisions.old_mb IS 'max_wal_size before, in MB';
COMMENT ON COLUMN walsizer.decisions.new_mb IS 'max_wal_size after (or advised), in MB';
COMMENT ON COLUMN walsizer.decisions.requested IS 'checkpoints requested in the window the decision ended';
COMMENT ON COLUMN walsizer.decisions.timed IS 'checkpoints started by checkpoint_timeout in that window';
COMMENT ON COLUMN walsizer.decisions.wal_forced IS 'checkpoints forced by WAL volume in that window';
COMMENT ON COLUMN walsizer.decisions.wal_bytes IS 'WAL written in that window, in bytes';
COMMENT ON COLUMN walsizer.decisions.window_s IS 'length of that window, in seconds';
COMMENT ON COLUMN walsizer.decisions.confirmed IS 'whether the server was seen running new_mb; NULL for actions that change nothing';
COMMENT ON COLUMN walsizer.decisions.reason IS 'why, with the figures';
COMMENT ON COLUMN walsizer.decisions.role IS 'primary or standby: the role the server had when it decided';

COMMENT ON COLUMN walsizer.decision_counts.action IS 'an action (every one is listed, those never taken included)';
COMMENT ON COLUMN walsizer.decision_counts.total IS 'decisions of this action ever made, kept across restarts: only ever grows';

COMMENT ON COLUMN walsizer.recommendation.action IS 'what pg_walsizer would do if its window ended now';
COMMENT ON COLUMN walsizer.recommendation.max_wal_size_mb IS 'max_wal_size the server runs, in MB';
COMMENT ON COLUMN walsizer.recommendation.recommended_mb IS 'max_wal_size it would set, in MB';
COMMENT ON COLUMN walsizer.recommendation.needed_mb IS 'max_wal_size the measured load needs, in MB, before the cap and the floor';
COMMENT ON COLUMN walsizer.recommendation.cap_mb IS 'largest max_wal_size it may set now, in MB';
COMMENT ON COLUMN walsizer.recommendation.floor_mb IS 'smallest max_wal_size it shrinks to, in MB';
COMMENT ON COLUMN walsizer.recommendation.reason IS 'why, with the figures';
COMMENT ON COLUMN walsizer.recommendation.cap_source IS 'which limit cap_mb is: walsizer.max, disk or recovery_time';
COMMENT ON COLUMN walsizer.recommendation.estimated_recovery_s IS 'a crash recovery at recommended_mb, at its worst, in seconds';

COMMENT ON COLUMN walsizer.last_change.at IS 'when pg_walsizer last changed max_wal_size';
COMMENT ON COLUMN walsizer.last_change.ago IS 'how long ago';
COMMENT ON COLUMN walsizer.last_change.action IS 'grow, capped, shrink or protect (lowered to protect the WAL volume)';
COMMENT ON COLUMN walsizer.last_change.old_mb IS 'max_wal_size before, in MB';
COMMENT ON COLUMN walsizer.last_change.new_mb IS 'max_wal_size after, in MB';
COMMENT ON COLUMN walsizer.last_change.confirmed IS 'whether the server was seen running new_mb';
COMMENT ON COLUMN walsizer.last_change.reason IS 'why, with the figures';
COMMENT ON COLUMN walsizer.last_change.role IS 'primary or standby: the role the server had';
