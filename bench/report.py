#!/usr/bin/env python3
"""bench/report.py OUT [--check] - the benchmark's report from its raw data.

Reads OUT/raw/<scenario>/<config>-r<repeat>/ as bench/lib.sh writes it and
writes OUT/REPORT.md, OUT/runs.csv (one row of derived figures per run) and
the plots OUT/*.png (through gnuplot).  Every figure is computed here from
the raw files, so a report can be rebuilt or changed without rerunning the
load.  Python's standard library only: the numbers are medians and ratios,
nothing that needs more.

With --check (the smoke test) it also verifies that every scenario ran for
every configuration and left the files and columns the report needs, and
exits non-zero if not.  It checks presence, not values: a few seconds of
load prove nothing about sizes.
"""

import csv
import gzip
import math
import os
import statistics
import subprocess
import sys

MB = 1024 * 1024
KB_PER_MB = 1024
# The size a load needs, judged from PostgreSQL's own log rather than from
# pg_walsizer: (1 + checkpoint_completion_target) times the largest WAL
# distance of a timed checkpoint cycle, plus this headroom (the same 25 %
# walsizer adds), rounded up to whole WAL segments of this size.
NEED_HEADROOM = 1.25
NEED_ROUND_MB = 16

STEADY_TEXT = ("pgbench tpcb-like, scale {scale}, {clients} clients, "
               "checkpoint_timeout 30s.")
SCENARIOS = {
    "steady": ("Steady OLTP", STEADY_TEXT),
    "steady100": ("Steady OLTP, larger tables",
                  STEADY_TEXT + "  The load of `steady` on larger tables, so "
                  "more of its updates cost a full-page image: a second, "
                  "heavier load level."),
    "bulk": ("Bulk load next to OLTP",
             "pgbench -i at scale {bulk_scale} (tables, COPY, primary keys) "
             "into a second database while a light pgbench (2 clients, 200 "
             "TPS) runs; work_s is the load's duration and the latency is "
             "the light OLTP's."),
    "updates": ("Full-table UPDATEs",
                "Repeated UPDATEs of all 500k rows of an indexed table, then "
                "a VACUUM; work_s is the time the UPDATEs took."),
    "quiet": ("Quiet after busy",
              "A pgbench burst (4 clients), then no load.  walsizer.interval = "
              "5s and walsizer.shrink_after = 2 so that the shrink shows "
              "within the run."),
    "overhead": ("Overhead",
                 "pgbench tpcb-like at max_wal_size 4GB (no forced "
                 "checkpoints), library not loaded (tuned) or loaded "
                 "(walsizer4g), alternated A B A B."),
}
CONFIGS = {
    "stock": "max_wal_size 64MB, no pg_walsizer",
    "tuned": "max_wal_size 4GB by hand, no pg_walsizer",
    "walsizer": "64MB to start, pg_walsizer preloaded (window = checkpoint_timeout, 1 s samples)",
    "dryrun": "as walsizer, walsizer.dry_run = on",
    "walsizer4g": "max_wal_size 4GB, pg_walsizer preloaded",
}
SCENARIO_CONFIGS = {
    "steady": ["stock", "tuned", "walsizer", "dryrun"],
    "steady100": ["stock", "tuned", "walsizer", "dryrun"],
    "bulk": ["stock", "tuned", "walsizer", "dryrun"],
    "updates": ["stock", "tuned", "walsizer", "dryrun"],
    "quiet": ["walsizer", "dryrun"],
    "overhead": ["tuned", "walsizer4g"],
}
# what --check requires of every run
META_KEYS = ["scenario", "config", "repeat", "lsn_start", "lsn_end", "t_end",
             "requested", "timed", "wal_fpi", "final_max_wal_size_mb",
             "checkpoint_timeout_s", "checkpoint_completion_target"]
CSV_HEADERS = {
    "samples.csv": ["t", "max_wal_size_mb", "lsn_bytes"],
    "checkpoints.csv": ["t", "kind", "distance_kb"],
    "progress.csv": ["t", "tps", "lat_ms"],
    "decisions.csv": ["t", "action", "old_mb", "new_mb", "requested",
                      "timed", "wal_forced", "reason"],
}
# the files each scenario writes besides meta.csv and the samples
PGBENCH_SCENARIOS = {"steady", "steady100", "bulk", "quiet", "overhead"}
STEADY_SCENARIOS = ["steady", "steady100"]
# the throttled-storage scenario (bench/scenarios/storage.sh): its own
# section, one table per load level (clients); its run directories are
# <config>-c<clients>-r<repeat>
STORAGE = "storage"
STORAGE_CONFIGS = {
    "stock": "max_wal_size 1GB (PostgreSQL's default), no pg_walsizer",
    "tuned": "max_wal_size 4GB by hand, as in the article, no pg_walsizer",
    "walsizer": "1GB to start, pg_walsizer preloaded with its defaults",
}
STORAGE_META_KEYS = ["clients", "scale", "sampling_rate", "run_t0", "pgbench_tps",
                     "storage_rate_bits", "storage_write_delay", "storage_read_delay",
                     "storage_data_direct_8k_iops", "storage_wal_direct_8k_iops",
                     "storage_data_dsync_8k_ms", "storage_wal_dsync_8k_ms",
                     "storage_data_dd_direct_8k", "storage_wal_dd_direct_8k",
                     "database_size_mb", "shared_buffers", "wal_bytes_stat"]
STORAGE_RUN_KEYS = ["tps_median_1s", "worst10_tps", "worst10_over_median", "lat_p50_ms",
                    "lat_p99_ms", "first_forced_s", "tps_before", "tps_after", "tps_rest"]
# the window of the worst-throughput figure, seconds
WORST_WINDOW_S = 10
# the seconds either side of the first forced checkpoint whose per-second
# TPS are compared: the drop at that moment, not the first minute's
# full-page images after the run's own CHECKPOINT
SPLIT_WINDOW_S = 30
# the runs.csv columns of the need, which --check requires
NEED_KEYS = ["cycle_mb", "need_mb", "final_over_need"]
WORK_SCENARIOS = {"bulk", "updates"}


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read_meta(path):
    meta = {}
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if len(row) >= 2:
                meta[row[0]] = row[1]
    return meta


def num(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def peak_rate(samples, span_s):
    """Highest WAL rate (bytes/s) over any span_s of the samples; over the
    whole run if it is shorter than span_s."""
    points = [(num(s["t"]), num(s["lsn_bytes"])) for s in samples]
    points = [p for p in points if p[0] is not None and p[1] is not None]
    if len(points) < 2:
        return None
    if points[-1][0] - points[0][0] < span_s:
        t0, l0 = points[0]
        t1, l1 = points[-1]
        return (l1 - l0) / (t1 - t0) if t1 > t0 else None
    best = 0.0
    j = 0
    for t, lsn in points:
        # the latest sample at least span_s before this one
        while j + 1 < len(points) and points[j + 1][0] <= t - span_s:
            j += 1
        tj, lj = points[j]
        if t - tj >= span_s:
            best = max(best, (lsn - lj) / (t - tj))
    return best


def is_timed(kind):
    """a checkpoint started by checkpoint_timeout alone: "time", not
    "wal time" (a WAL request merged into it) nor a manual one"""
    flags = kind.split("+")
    return "time" in flags and "wal" not in flags


def load_need(checkpoints, has_distances, cct):
    """(largest timed cycle MB, need MB) from the run's checkpoints, or
    ("n/a", "n/a") without two completed timed checkpoints, or (None, None)
    for raw data from before lib.sh recorded distances.

    The first timed checkpoint is left out: its cycle began at the run's
    own CHECKPOINT, when every page's first change costs a full-page image,
    and for walsizer at a size it had not chosen yet."""
    if not has_distances:
        return None, None
    distances_kb = [num(c["distance_kb"]) for c in checkpoints
                    if is_timed(c["kind"]) and num(c["distance_kb"]) is not None]
    if len(distances_kb) < 2:
        return "n/a", "n/a"
    cycle_mb = max(distances_kb[1:]) / KB_PER_MB
    need_mb = math.ceil((1 + cct) * cycle_mb * NEED_HEADROOM / NEED_ROUND_MB) * NEED_ROUND_MB
    return cycle_mb, max(need_mb, NEED_ROUND_MB)


def load_run(rundir):
    meta = read_meta(os.path.join(rundir, "meta.csv"))
    samples = read_csv(os.path.join(rundir, "samples.csv"))
    progress_path = os.path.join(rundir, "progress.csv")
    progress = read_csv(progress_path) if os.path.exists(progress_path) else []
    # the worst second: a stall of one or two seconds hides in the mean
    per_second_lat = [num(p["lat_ms"]) for p in progress if num(p["lat_ms"]) is not None]
    checkpoints_path = os.path.join(rundir, "checkpoints.csv")
    checkpoints = read_csv(checkpoints_path)
    with open(checkpoints_path) as f:
        has_distances = "distance_kb" in f.readline().strip().split(",")
    decisions_path = os.path.join(rundir, "decisions.csv")
    decisions = read_csv(decisions_path) if os.path.exists(decisions_path) else []
    timeout_s = num(meta.get("checkpoint_timeout_s")) or 30
    cct = num(meta.get("checkpoint_completion_target")) or 0.9
    forced = [num(c["t"]) for c in checkpoints if c["kind"].split("+")[0] == "wal"]
    sizes = [num(s["max_wal_size_mb"]) for s in samples if num(s["max_wal_size_mb"])]
    peak = peak_rate(samples, timeout_s)
    cycle_mb, need_mb = load_need(checkpoints, has_distances, cct)
    final_mb = num(meta.get("final_max_wal_size_mb"))
    if isinstance(need_mb, (int, float)) and final_mb is not None:
        final_over_need = final_mb / need_mb
    else:
        final_over_need = need_mb
    run = {
        "scenario": meta.get("scenario"),
        "config": meta.get("config"),
        "repeat": int(meta.get("repeat", 0)),
        "seconds": num(meta.get("t_end")),
        "lsn_start": int(meta["lsn_start"]),
        "wal_mb": (int(meta["lsn_end"]) - int(meta["lsn_start"])) / MB,
        "requested": num(meta.get("requested")),
        "wal_forced": len(forced),
        "timed": num(meta.get("timed")),
        "fpi": num(meta.get("wal_fpi")),
        "tps": num(meta.get("pgbench_tps")),
        "lat_ms": num(meta.get("pgbench_lat_ms")),
        "lat_stddev_ms": num(meta.get("pgbench_lat_stddev_ms")),
        "worst_second_lat_ms": max(per_second_lat) if per_second_lat else None,
        "work_s": num(meta.get("work_s")),
        "start_mb": num(meta.get("start_max_wal_size_mb")),
        "final_mb": final_mb,
        "cycle_mb": cycle_mb,
        "need_mb": need_mb,
        "final_over_need": final_over_need,
        "max_mb": max(sizes) if sizes else None,
        "last_forced_s": max(forced) if forced else None,
        "peak_mb_s": peak / MB if peak is not None else None,
        # the size that forces no checkpoint at the measured peak rate
        "formula_mb": (1 + cct) * peak * timeout_s / MB if peak is not None else None,
        "ws_peak_mb_s": (num(meta["walsizer_peak_rate_bytes_per_s"]) / MB
                         if num(meta.get("walsizer_peak_rate_bytes_per_s")) is not None else None),
        "ws_needed_mb": num(meta.get("walsizer_needed_mb")),
        "first_change_s": None,
        "first_shrink_s": None,
        "burst_end_s": num(meta.get("burst_end_s")),
        "bulk_scale": meta.get("bulk_scale"),
        "scale": meta.get("scale"),
        "clients": meta.get("clients"),
        "changes": 0,
    }
    for d in decisions:
        if d["action"] in ("grow", "capped", "shrink", "protect"):
            run["changes"] += 1
            if run["first_change_s"] is None:
                run["first_change_s"] = num(d["t"])
        if d["action"] in ("shrink",) and run["first_shrink_s"] is None:
            run["first_shrink_s"] = num(d["t"])
    # forced checkpoints once walsizer had made its first change: what it
    # did not prevent, or prevented too late
    run["forced_after_change"] = (len([t for t in forced if t > run["first_change_s"]])
                                  if run["first_change_s"] is not None else None)
    run["dir"] = rundir
    run["decisions"] = decisions
    run["meta"] = meta
    run["progress"] = progress
    run["checkpoints"] = checkpoints
    if run["scenario"] == STORAGE:
        storage_figures(run, rundir, meta, progress, forced)
    return run


def percentile(sorted_values, q):
    """the q-quantile (0..1) of sorted values, nearest rank"""
    if not sorted_values:
        return None
    k = max(0, min(len(sorted_values) - 1, math.ceil(q * len(sorted_values)) - 1))
    return sorted_values[k]


def read_txlog(path, t0):
    """pgbench's per-transaction log (-l, PostgreSQL 15 format: client,
    transaction, latency us, script, epoch s, us, ...) as (completion time
    on the run's clock, latency ms) pairs"""
    rows = []
    if not os.path.exists(path):
        return rows
    with gzip.open(path, "rt") as f:
        for line in f:
            fields = line.split()
            if len(fields) < 6 or fields[2] in ("skipped", "failed"):
                continue
            rows.append((int(fields[4]) + int(fields[5]) / 1e6 - t0, int(fields[2]) / 1000.0))
    return rows


def storage_figures(run, rundir, meta, progress, forced):
    """per-second TPS median, the worst WAL_WINDOW_S window, latency
    percentiles from the sampled per-transaction log, TPS before and after
    the first checkpoint forced by WAL"""
    tps = [(num(p["t"]), num(p["tps"])) for p in progress if num(p["tps"]) is not None]
    values = [v for _, v in tps]
    run["tps_median_1s"] = statistics.median(values) if values else None
    windows = [sum(values[i:i + WORST_WINDOW_S]) / WORST_WINDOW_S
               for i in range(0, len(values) - WORST_WINDOW_S + 1)]
    run["worst10_tps"] = min(windows) if windows else None
    run["worst10_at_s"] = (tps[windows.index(min(windows))][0] - 1) if windows else None
    run["worst10_over_median"] = (run["worst10_tps"] / run["tps_median_1s"]
                                  if windows and run["tps_median_1s"] else None)
    t0 = num(meta.get("run_t0"))
    txlog = read_txlog(os.path.join(rundir, "txlog.gz"), t0) if t0 is not None else []
    lats = sorted(lat for _, lat in txlog)
    run["txlog"] = txlog
    run["lat_samples"] = len(lats)
    run["lat_p50_ms"] = percentile(lats, 0.50)
    run["lat_p99_ms"] = percentile(lats, 0.99)
    run["first_forced_s"] = min(forced) if forced else None
    run["clients"] = meta.get("clients")
    run["tps_before"] = run["tps_after"] = run["tps_rest"] = None


def split_tps(run, at):
    """median per-second TPS over the SPLIT_WINDOW_S seconds before second
    `at`, over those after it, and over the rest of the run after it"""
    if at is None:
        return None, None, None
    tps = [(num(p["t"]), num(p["tps"])) for p in run["progress"] if num(p["tps"]) is not None]
    before = [v for t, v in tps if at - SPLIT_WINDOW_S < t <= at]
    after = [v for t, v in tps if at + 1 < t <= at + 1 + SPLIT_WINDOW_S]
    rest = [v for t, v in tps if t > at + 1]
    return tuple(statistics.median(x) if x else None for x in (before, after, rest))


def load_all(out):
    runs = []
    rawdir = os.path.join(out, "raw")
    for scenario in sorted(os.listdir(rawdir)):
        sdir = os.path.join(rawdir, scenario)
        if not os.path.isdir(sdir):
            continue
        for name in sorted(os.listdir(sdir)):
            rundir = os.path.join(sdir, name)
            # a run that stopped half way has no end figures; --check
            # reports it, the report leaves it out
            if os.path.exists(os.path.join(rundir, "checkpoints.csv")):
                runs.append(load_run(rundir))
    return runs


def fmt(value, digits=0):
    if value is None:
        return "–"
    if digits == 0:
        return f"{value:,.0f}".replace(",", " ")
    return f"{value:.{digits}f}"


def cell(values, digits=0):
    """median (min–max) of the values that exist"""
    values = [v for v in values if v is not None]
    if not values:
        return "–"
    med = statistics.median(values)
    if len(values) == 1:
        return fmt(med, digits)
    return f"{fmt(med, digits)} ({fmt(min(values), digits)}–{fmt(max(values), digits)})"


def need_cell(values, digits=0):
    """cell() of the runs that measured a need; "n/a" when none could
    (fewer than two timed checkpoints), with a count of those that could
    not when only some did; "–" when the raw data predates the distances"""
    measured = [v for v in values if isinstance(v, (int, float))]
    unmeasured = sum(1 for v in values if v == "n/a")
    if not measured:
        return "n/a" if unmeasured else "–"
    text = cell(measured, digits)
    return f"{text}, {unmeasured} n/a" if unmeasured else text


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "–"
    return f"{a / b:.2f}"


def scenario_table(scenario, runs):
    configs = [c for c in SCENARIO_CONFIGS.get(scenario, []) if any(r["config"] == c for r in runs)]
    by = {c: [r for r in runs if r["config"] == c] for c in configs}
    columns = [
        ("runs", lambda rs: str(len(rs))),
        ("WAL MB", lambda rs: cell([r["wal_mb"] for r in rs])),
        ("FPI", lambda rs: cell([r["fpi"] for r in rs])),
        ("requested ckpts", lambda rs: cell([r["requested"] for r in rs])),
        ("WAL-forced ckpts", lambda rs: cell([r["wal_forced"] for r in rs])),
        ("timed ckpts", lambda rs: cell([r["timed"] for r in rs])),
        ("last forced at s", lambda rs: cell([r["last_forced_s"] for r in rs], 1)),
    ]
    if scenario != "updates":
        columns += [
            ("TPS", lambda rs: cell([r["tps"] for r in rs])),
            ("latency ms", lambda rs: cell([r["lat_ms"] for r in rs], 2)),
            ("worst 1 s latency ms", lambda rs: cell([r["worst_second_lat_ms"] for r in rs])),
        ]
    if scenario in WORK_SCENARIOS:
        columns.append(("work s", lambda rs: cell([r["work_s"] for r in rs], 1)))
    columns += [
        ("max_wal_size MB final", lambda rs: cell([r["final_mb"] for r in rs])),
        ("need MB (log)", lambda rs: need_cell([r["need_mb"] for r in rs])),
        ("final size / need", lambda rs: need_cell([r["final_over_need"] for r in rs], 2)),
        ("peak WAL MB/s (30 s)", lambda rs: cell([r["peak_mb_s"] for r in rs], 1)),
        ("formula MB", lambda rs: cell([r["formula_mb"] for r in rs])),
        ("walsizer needed MB", lambda rs: cell([r["ws_needed_mb"] for r in rs])),
    ]
    lines = ["| configuration | " + " | ".join(c[0] for c in columns) + " |",
             "|---" * (len(columns) + 1) + "|"]
    for c in configs:
        lines.append(f"| {c} | " + " | ".join(f(by[c]) for _, f in columns) + " |")
    return configs, by, "\n".join(lines)


def ratio_lines(scenario, configs, by):
    """ratios of medians: walsizer against stock and tuned"""
    lines = []
    subject = "walsizer4g" if scenario == "overhead" else "walsizer"
    if subject not in by:
        return lines
    figures = [("WAL", "wal_mb"), ("forced checkpoints", "wal_forced"), ("FPI", "fpi")]
    if scenario == "updates":
        figures.append(("time of the UPDATEs", "work_s"))
    else:
        figures += [("TPS", "tps"), ("latency", "lat_ms")]
    if scenario == "bulk":
        figures.append(("load time", "work_s"))
    for base in ("stock", "tuned"):
        if base not in by:
            continue
        parts = []
        for label, key in figures:
            a = median([r[key] for r in by[subject]])
            b = median([r[key] for r in by[base]])
            parts.append(f"{label} ×{ratio(a, b)}")
        lines.append(f"- {subject} / {base} (ratio of medians): " + ", ".join(parts))
    return lines


def need_lines(by):
    """for a configuration whose runs measured no need (every checkpoint
    forced), its size against the need the scenario's other runs measured:
    the load is the same, only the size differs"""
    measured = [r["need_mb"] for rs in by.values() for r in rs if isinstance(r["need_mb"], (int, float))]
    if not measured:
        return []
    load_need_mb = statistics.median(measured)
    lines = []
    for config, rs in by.items():
        if any(isinstance(r["need_mb"], (int, float)) for r in rs) or any(r["need_mb"] is None for r in rs):
            continue
        final_mb = median([r["final_mb"] for r in rs])
        lines.append(f"- {config}: no need of its own (fewer than two timed checkpoints); its final "
                     f"{fmt(final_mb)} MB is ×{ratio(final_mb, load_need_mb)} of the need the other "
                     f"configurations' runs measured (median {fmt(load_need_mb)} MB)")
    return lines


def overhead_lines(by):
    """TPS ratio per A B pair, so drift between pairs cancels"""
    a = {r["repeat"]: r["tps"] for r in by.get("tuned", [])}
    b = {r["repeat"]: r["tps"] for r in by.get("walsizer4g", [])}
    pairs = [b[k] / a[k] for k in sorted(a) if k in b and a[k] and b[k]]
    if not pairs:
        return []
    text = ", ".join(f"{p:.3f}" for p in pairs)
    return [f"- TPS with the library / without, per A B pair: {text}; "
            f"median {statistics.median(pairs):.3f}, spread {min(pairs):.3f}–{max(pairs):.3f}"]


def gnuplot(script):
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def steady_level(scenario, sruns):
    """the pgbench scale and clients of a steady scenario's runs; raw data
    from before steady.sh recorded them ran the one level it had then"""
    first = sruns[0]
    if first["scale"] or scenario != "steady":
        return first["scale"] or "?", first["clients"] or "?"
    return "20", "4"


def steady_timeline(out, scenario, runs, colors):
    """SCENARIO-timeline.png: TPS per second, WAL written so far and
    max_wal_size, repeat 1 of each configuration; the legend of the WAL
    panel counts forced checkpoints.  None if the scenario did not run."""
    steady = {r["config"]: r for r in runs if r["scenario"] == scenario and r["repeat"] == 1}
    shown = [c for c in ("stock", "tuned", "walsizer") if c in steady]
    if not shown:
        return None
    scale, clients = steady_level(scenario, list(steady.values()))
    png = os.path.join(out, f"{scenario}-timeline.png")
    tps_plot = ", ".join(
        f"'{steady[c]['dir']}/progress.csv' using 1:2 with lines lw 1.5 lc rgb '{colors[c]}' title '{c}'"
        for c in shown)
    wal_plot = ", ".join(
        f"'{steady[c]['dir']}/samples.csv' using 1:(($3 - {steady[c]['lsn_start']}) / {MB}) "
        f"with lines lw 2 lc rgb '{colors[c]}' "
        f"title '{c}: {steady[c]['wal_forced']} forced by WAL'"
        for c in shown)
    size_plot = ", ".join(
        f"'{steady[c]['dir']}/samples.csv' using 1:2 with steps lw 2 lc rgb '{colors[c]}' title '{c}'"
        for c in shown)
    gnuplot("set terminal pngcairo size 1100,1000 font 'DejaVu Sans,11'\n" + f"""
set output '{png}'
set datafile separator ','
set key autotitle columnhead
set multiplot layout 3,1 title 'Steady OLTP ({scenario}: pgbench scale {scale}, {clients} clients, checkpoint\\_timeout 30s), repeat 1'
set grid
set key outside right
# the same plot area and time axis in every panel, whatever the length of
# its legend or the last progress line
set lmargin at screen 0.08
set rmargin at screen 0.72
set xrange [0:{max(steady[c]['seconds'] or 0 for c in shown):.0f}]
set ylabel 'TPS (per second)'
set yrange [0:*]
plot {tps_plot}
set ylabel 'WAL written (MB)'
plot {wal_plot}
set xlabel 'seconds since the run began'
set ylabel 'max\\_wal\\_size (MB, log scale)'
set logscale y 2
set yrange [32:8192]
plot {size_plot}
unset multiplot
""")
    return png


def plots(out, runs):
    """PNGs: steady time lines, WAL per configuration, quiet time line"""
    made = []
    term = "set terminal pngcairo size 1100,750 font 'DejaVu Sans,11'\n"
    colors = {"stock": "#d62728", "tuned": "#2ca02c", "walsizer": "#1f77b4", "dryrun": "#9467bd"}

    # 1. steady, at each load level: TPS, WAL written, max_wal_size
    for scenario in STEADY_SCENARIOS:
        png = steady_timeline(out, scenario, runs, colors)
        if png:
            made.append(png)

    # 2. WAL written per configuration, median with min–max, per scenario
    bar_scenarios = [s for s in STEADY_SCENARIOS + ["bulk", "updates"] if any(r["scenario"] == s for r in runs)]
    bar_configs = ["stock", "tuned", "walsizer", "dryrun"]
    if bar_scenarios:
        dat = os.path.join(out, "wal-by-config.dat")
        with open(dat, "w") as f:
            f.write("# scenario, then per configuration: median, min, max of WAL MB\n")
            f.write("# scenario " + " ".join(f"{c} {c}_min {c}_max" for c in bar_configs) + "\n")
            for s in bar_scenarios:
                row = [s]
                for c in bar_configs:
                    values = [r["wal_mb"] for r in runs if r["scenario"] == s and r["config"] == c]
                    if values:
                        row += [f"{statistics.median(values):.1f}", f"{min(values):.1f}", f"{max(values):.1f}"]
                    else:
                        row += ["NaN"] * 3
                f.write(" ".join(row) + "\n")
        png = os.path.join(out, "wal-by-config.png")
        series = ", ".join(
            f"'{dat}' using {2 + 3 * i}:{3 + 3 * i}:{4 + 3 * i}:xtic(1) title '{c}' lc rgb '{colors[c]}'"
            for i, c in enumerate(bar_configs))
        gnuplot(term + f"""
set output '{png}'
set title 'WAL written per run (median; error bar: min–max over the repeats)'
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set ylabel 'WAL written (MB)'
set yrange [0:*]
set grid ytics
set key top right
plot {series}
""")
        made.append(png)

    # 3. quiet: max_wal_size and WAL rate over time, the walsizer run
    quiet = [r for r in runs if r["scenario"] == "quiet" and r["config"] == "walsizer" and r["repeat"] == 1]
    if quiet:
        q = quiet[0]
        png = os.path.join(out, "quiet-timeline.png")
        burst = q["burst_end_s"] or 0
        gnuplot(term + f"""
set output '{png}'
set datafile separator ','
set title 'Quiet after busy: walsizer, max\\_wal\\_size and WAL rate (burst ends at {burst:.0f} s)'
set xlabel 'seconds since the run began'
set ylabel 'max\\_wal\\_size (MB)'
set y2label 'WAL rate (MB/s, per sample)'
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set grid
set arrow from {burst},graph 0 to {burst},graph 1 nohead dt 2
prev_t = NaN; prev_l = NaN
rate(t, l) = (r = (prev_t == prev_t && t > prev_t) ? (l - prev_l) / (t - prev_t) / 1048576 : NaN, prev_t = t, prev_l = l, r)
plot '{q['dir']}/samples.csv' every ::1 using 1:2 with steps lw 2 lc rgb '#1f77b4' title 'max\\_wal\\_size', \\
     '' every ::1 using 1:(rate($1, $3)) axes x1y2 with lines lc rgb '#ff7f0e' title 'WAL rate'
""")
        made.append(png)
    return made


def storage_levels(runs):
    """the storage runs by load level (clients), lowest first"""
    levels = {}
    for r in runs:
        if r["scenario"] == STORAGE:
            levels.setdefault(int(r["clients"] or 0), []).append(r)
    return dict(sorted(levels.items()))


def storage_split(level_runs):
    """fill tps_before / tps_after: each run split at its own first forced
    checkpoint; a run without one at the median first forced checkpoint of
    the level's stock runs (the same seconds of the same load), if any"""
    stock_first = median([r["first_forced_s"] for r in level_runs if r["config"] == "stock"])
    for r in level_runs:
        at = r["first_forced_s"] if r["first_forced_s"] is not None else stock_first
        r["split_at_s"] = at
        r["tps_before"], r["tps_after"], r["tps_rest"] = split_tps(r, at)
        r["tps_after_over_before"] = (r["tps_after"] / r["tps_before"]
                                      if r["tps_before"] and r["tps_after"] is not None else None)
    return stock_first


def storage_timeline(out, clients, level_runs, colors):
    """storage-c<clients>-timeline.png: per-second TPS and p99 latency of
    repeat 1 of each configuration, checkpoint starts marked"""
    shown = {}
    for c in STORAGE_CONFIGS:
        rs = sorted((r for r in level_runs if r["config"] == c), key=lambda r: r["repeat"])
        if rs:
            shown[c] = rs[0]
    if not shown:
        return None
    png = os.path.join(out, f"storage-c{clients}-timeline.png")
    dat = os.path.join(out, f"storage-c{clients}-latency.dat")
    # per-second p99 of the sampled per-transaction log, one block per
    # configuration (gnuplot's index)
    with open(dat, "w") as f:
        f.write("# per configuration (blocks in the order " + " ".join(shown) + "): "
                "second since the run began, p50 ms, p99 ms of the sampled transactions "
                "completed in it\n")
        for c, r in shown.items():
            buckets = {}
            for t, lat in r["txlog"]:
                buckets.setdefault(int(math.floor(t)), []).append(lat)
            f.write(f"# {c}\n")
            for sec in sorted(buckets):
                lats = sorted(buckets[sec])
                f.write(f"{sec + 0.5} {percentile(lats, 0.5):.3f} {percentile(lats, 0.99):.3f}\n")
            f.write("\n\n")
    arrows = []
    for i, (c, r) in enumerate(shown.items()):
        for cp in r["checkpoints"]:
            t = num(cp["t"])
            if t is None:
                continue
            kind = cp["kind"].replace("+", " ")
            dash = 1 if kind.split()[0] == "wal" else 2
            arrows.append(f"set arrow from {t:.1f},graph 0 to {t:.1f},graph 1 nohead lw 2 dt {dash} "
                          f"lc rgb '{colors[c]}'")
    forced_text = ", ".join(f"{c}: {r['wal_forced']}" for c, r in shown.items())
    tps_plot = ", ".join(
        f"'{r['dir']}/progress.csv' using 1:2 with lines lw 1.5 lc rgb '{colors[c]}' "
        f"title '{c} ({fmt(r['start_mb'])} MB)'"
        for c, r in shown.items())
    lat_plot = ", ".join(
        f"'{dat}' index {i} using 1:3 with lines lw 1.2 lc rgb '{colors[c]}' title '{c} p99'"
        for i, c in enumerate(shown))
    first = next(iter(shown.values()))
    xmax = max(r["seconds"] or 0 for r in shown.values())
    wal_plot = ", ".join(
        f"'{r['dir']}/samples.csv' every ::1 using 1:(walrate($1, $3)) with lines lw 1.2 "
        f"lc rgb '{colors[c]}' title '{c}'"
        for c, r in shown.items())
    cap = rate_mib(first["meta"].get("storage_rate_bits"))
    cap_line = f"set arrow from 0,{cap:.2f} to {xmax:.0f},{cap:.2f} nohead dt 3 lc rgb 'black'\n" if cap else ""
    gnuplot("set terminal pngcairo size 1100,1100 font 'DejaVu Sans,11'\n" + f"""
set output '{png}'
set datafile separator ','
set multiplot layout 3,1 title "Throttled storage: pgbench scale {first['scale']}, {clients} clients, checkpoint\\\\_timeout 5min, repeat 1\\nvertical lines: checkpoint starts (solid: forced by WAL; {forced_text})"
set grid
set key outside right
set lmargin at screen 0.08
set rmargin at screen 0.78
set xrange [0:{xmax:.0f}]
{chr(10).join(arrows)}
set ylabel 'TPS (per second)'
set yrange [0:*]
plot {tps_plot}
set datafile separator whitespace
set xlabel 'seconds since the run began'
set ylabel 'latency p99 (ms, per second)'
set logscale y
set yrange [*:*]
plot {lat_plot}
unset logscale y
set datafile separator ','
set ylabel 'WAL written (MiB/s, per sample)'
set yrange [0:*]
{cap_line}prev_t = NaN; prev_l = NaN
walrate(t, l) = (r = (prev_t == prev_t && t > prev_t) ? (l - prev_l) / (t - prev_t) / 1048576 : NaN, prev_t = t, prev_l = l, r)
plot {wal_plot}
unset multiplot
""")
    return png


def rate_mib(rate):
    """nbdkit's rate (bits a second, K/M/G in powers of 1024) in MiB/s"""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    try:
        bits = float(rate[:-1]) * units[rate[-1].upper()] if rate[-1].upper() in units else float(rate)
    except (ValueError, TypeError, IndexError):
        return None
    return bits / 8 / MB


def rate_text(rate):
    """nbdkit's rate (bits a second, K/M/G in powers of 1024) as MiB/s and
    8 kB pages a second"""
    if not rate:
        return "?"
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    try:
        bits = float(rate[:-1]) * units[rate[-1].upper()] if rate[-1].upper() in units else float(rate)
    except ValueError:
        return "?"
    return f"{bits / 8 / MB:.0f} MiB/s, {bits / 8 / 8192:.0f} pages of 8 kB a second"


def storage_section(out, runs):
    """the report's section on throttled storage, or its skip"""
    skipped = read_text(os.path.join(out, "raw", STORAGE, "SKIPPED"))
    title = "## Throttled storage: the article's headline (`storage`)"
    if skipped:
        return [title, "", f"**SKIPPED**: {skipped}.  No run of this scenario was made.", ""]
    levels = storage_levels(runs)
    if not levels:
        return []
    first = next(iter(levels.values()))[0]
    m = first["meta"]
    repeats = len({r["repeat"] for rs in levels.values() for r in rs})
    lines = [title, "",
             "The drop the article reports (pgbench at 1000-1100 TPS until its WAL reached the default "
             "`max_wal_size = 1GB` at second 42, then a checkpoint forced by WAL and about 620 TPS, -40 %, "
             "to the end; 1200 TPS at 4 GB), rebuilt here: the data directory on one throttled volume and "
             "pg_wal on another (`bench/throttled_storage.sh`: nbdkit's `file` plugin over an ext4 image "
             "with its `cow`, `delay` and `rate` filters, served on a Unix socket, a file through "
             "`nbdfuse`, a loop device with direct I/O, ext4).  Each write request waits "
             f"{m.get('storage_write_delay')} (reads {m.get('storage_read_delay')}), and each volume "
             f"carries at most {m.get('storage_rate_bits')} bits a second each way "
             f"({rate_text(m.get('storage_rate_bits'))}; 2 s of burst), with the latency of a "
             "networked disk for a single writer (the `dd` figures below).", "",
             f"pgbench tpcb-like at full speed (no rate limit, like the article) on scale {first['scale']} "
             f"({fmt(num(m.get('database_size_mb')))} MB, shared_buffers {m.get('shared_buffers')}), "
             f"`checkpoint_timeout = 5min`, for {fmt(first['seconds'])} s after a `CHECKPOINT`, at "
             + " and ".join(f"{c} clients" for c in levels) + ".  Configurations:", ""]
    lines += [f"- **{c}**: {d}" for c, d in STORAGE_CONFIGS.items()]
    lines += ["",
              "Figures: *median TPS* = median of pgbench's per-second TPS (`--progress=1`); *worst "
              f"{WORST_WINDOW_S} s* = the lowest mean TPS over any {WORST_WINDOW_S} consecutive seconds; "
              "*p50, p99* = latency percentiles of the transactions in pgbench's per-transaction log "
              f"(`-l --sampling-rate={m.get('sampling_rate')}`: a random sample); *forced* = "
              "`checkpoint starting: wal` lines of the server log, *first at* the second of the first; "
              f"*TPS after / before* = median per-second TPS over the {SPLIT_WINDOW_S} s after the first "
              f"forced checkpoint over that of the {SPLIT_WINDOW_S} s before it, the drop at that moment "
              "(for a run that has none, split at the level's "
              "stock run's first forced checkpoint, the same seconds of the same load); WAL = "
              "difference of `pg_current_wal_lsn()`; FPI = `pg_stat_wal.wal_fpi`.  Cells: median "
              "(min–max) over the repeats."
              + ("  **A single repeat**: each cell is one run." if repeats == 1 else ""), ""]
    # the volumes' own figures, as measured before each run
    lines += ["The volumes, measured by `dd` before every run (one writer, 8 kB blocks; median "
              "(min–max) over the runs):", "",
              "| volume | O_DIRECT 8 kB writes, IOPS | O_DSYNC 8 kB writes, ms each | one run's dd line (O_DIRECT) |",
              "|---|---|---|---|"]
    all_runs = [r for rs in levels.values() for r in rs]
    for vol in ("data", "wal"):
        lines.append(f"| {vol} | " +
                     cell([num(r["meta"].get(f"storage_{vol}_direct_8k_iops")) for r in all_runs]) + " | " +
                     cell([num(r["meta"].get(f"storage_{vol}_dsync_8k_ms")) for r in all_runs], 2) + " | " +
                     f"{first['meta'].get(f'storage_{vol}_dd_direct_8k', '–')} |")
    lines.append("")
    colors = {"stock": "#d62728", "tuned": "#2ca02c", "walsizer": "#1f77b4"}
    for clients, level_runs in levels.items():
        stock_first = storage_split(level_runs)
        lines += [f"### {clients} clients", ""]
        columns = [
            ("runs", lambda rs: str(len(rs))),
            ("median TPS", lambda rs: cell([r["tps_median_1s"] for r in rs])),
            (f"worst {WORST_WINDOW_S} s TPS", lambda rs: cell([r["worst10_tps"] for r in rs])),
            ("worst / median", lambda rs: cell([r["worst10_over_median"] for r in rs], 2)),
            ("TPS after / before first forced", lambda rs: cell([r["tps_after_over_before"] for r in rs], 2)),
            ("TPS rest of run / before", lambda rs: cell([r["tps_rest"] / r["tps_before"]
                                                        if r["tps_rest"] is not None and r["tps_before"]
                                                        else None for r in rs], 2)),
            ("p50 ms", lambda rs: cell([r["lat_p50_ms"] for r in rs], 2)),
            ("p99 ms", lambda rs: cell([r["lat_p99_ms"] for r in rs], 1)),
            ("forced ckpts", lambda rs: cell([r["wal_forced"] for r in rs])),
            ("first forced at s", lambda rs: cell([r["first_forced_s"] for r in rs], 1)),
            ("WAL MB", lambda rs: cell([r["wal_mb"] for r in rs])),
            ("FPI", lambda rs: cell([r["fpi"] for r in rs])),
            ("max_wal_size MB final", lambda rs: cell([r["final_mb"] for r in rs])),
            ("load avg start, end", lambda rs: "; ".join(
                f"{r['meta'].get('loadavg_start', '?')}, {r['meta'].get('loadavg_end', '?')}" for r in rs)),
        ]
        lines += ["| configuration | " + " | ".join(c[0] for c in columns) + " |",
                  "|---" * (len(columns) + 1) + "|"]
        for c in STORAGE_CONFIGS:
            rs = [r for r in level_runs if r["config"] == c]
            if rs:
                lines.append(f"| {c} | " + " | ".join(f(rs) for _, f in columns) + " |")
        lines.append("")
        if stock_first is not None:
            stock = [r for r in level_runs if r["config"] == "stock"]
            lines.append(f"- stock's first checkpoint forced by WAL at second {fmt(stock_first, 1)} "
                         f"(median); its per-second TPS {cell([r['tps_before'] for r in stock])} over the "
                         f"{SPLIT_WINDOW_S} s before, {cell([r['tps_after'] for r in stock])} over the "
                         f"{SPLIT_WINDOW_S} s after, {cell([r['tps_rest'] for r in stock])} over the rest of "
                         "the run (medians of per-second TPS; "
                         "the columns' *after / before* is their ratio)")
            # the same seconds without a forced checkpoint: is the drop the
            # checkpoint's, or the machine's and the volumes' at that time?
            s_drop = median([r["tps_after_over_before"] for r in stock])
            t_drop = median([r["tps_after_over_before"] for r in level_runs if r["config"] == "tuned"])
            if s_drop is not None and t_drop is not None:
                if s_drop >= 0.9:
                    verdict = "stock shows no drop at its first forced checkpoint at this level"
                elif t_drop <= s_drop + 0.15:
                    verdict = ("tuned, with no checkpoint at all, drops as much over the same seconds: "
                               "the drop is not the forced checkpoint's")
                else:
                    verdict = ("tuned, with no checkpoint, holds up better over the same seconds: "
                               "the forced checkpoint accounts for the difference")
                lines.append(f"- TPS after / before at stock's first forced checkpoint: stock ×{s_drop:.2f}, "
                             f"tuned over the same seconds ×{t_drop:.2f}: {verdict}")
        else:
            lines.append("- stock had no checkpoint forced by WAL at this level: no drop to compare")
        for c in ("tuned", "walsizer"):
            a = median([r["tps_median_1s"] for r in level_runs if r["config"] == c])
            b = median([r["tps_median_1s"] for r in level_runs if r["config"] == "stock"])
            p = median([r["lat_p99_ms"] for r in level_runs if r["config"] == c])
            q = median([r["lat_p99_ms"] for r in level_runs if r["config"] == "stock"])
            if a is not None and b is not None:
                lines.append(f"- {c} / stock (ratio of medians): median TPS ×{ratio(a, b)}, p99 ×{ratio(p, q)}")
        for r in sorted((r for r in level_runs if r["config"] == "walsizer"), key=lambda r: r["repeat"]):
            lines.append(f"- walsizer repeat {r['repeat']}: {decisions_summary(r)}")
        for r in level_runs:
            if os.path.exists(os.path.join(r["dir"], "server-problems.txt")):
                lines.append(f"- server log of {r['config']} repeat {r['repeat']} has warnings or errors: "
                             f"`{os.path.relpath(os.path.join(r['dir'], 'server-problems.txt'), out)}`")
        png = storage_timeline(out, clients, level_runs, colors)
        if png:
            lines += ["", f"![{os.path.basename(png)}]({os.path.basename(png)})"]
        lines.append("")
    lines += storage_variants(out, runs)
    lines += ["What differs from the article: its machine had 4 GB of memory for 12 GB of data, so most "
              "reads went to the data volume; this one has far more memory than data, so the page cache "
              "serves the reads and the throttled volumes see mostly writes (WAL flushes at each commit, "
              "the kernel's writeback of checkpoints).  The kernel's writeback settings are in the "
              "machine description above (`kernel writeback`).  Raw data: `raw/storage/<configuration>-"
              "c<clients>-r<repeat>/` (as the other scenarios', plus `txlog.gz`, the sampled "
              "per-transaction log); per-second latency percentiles of the plots: "
              "`storage-c<clients>-latency.dat`.", ""]
    return lines


# exploratory runs of the storage scenario at other throttle settings, one
# BENCH_OUT directory each (bench/experiments/storage-throttle/README.md)
STORAGE_VARIANTS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "experiments", "storage-throttle")


def kernel_writeback(machine_text):
    for line in machine_text.splitlines():
        if line.startswith("kernel writeback: "):
            return line.split(": ", 1)[1].strip()
    return "?"


def storage_variant_rows(label, out_dir, runs):
    """one table row per (throttle, clients) of the stock runs under out_dir"""
    rows = []
    machine = read_text(os.path.join(out_dir, "raw", STORAGE, "machine.txt"))
    for clients, level_runs in storage_levels(runs).items():
        storage_split(level_runs)
        for r in sorted(level_runs, key=lambda r: (r["config"] != "stock", r["config"], r["repeat"])):
            if r["config"] != "stock":
                continue
            m = r["meta"]
            rows.append("| " + " | ".join([
                label, m.get("storage_rate_bits", "?"), m.get("storage_write_delay", "?"),
                m.get("storage_read_delay", "?"),
                f"{m.get('storage_data_direct_8k_iops', '?')} / {m.get('storage_wal_direct_8k_iops', '?')}",
                f"{m.get('storage_data_dsync_8k_ms', '?')} / {m.get('storage_wal_dsync_8k_ms', '?')}",
                f"{m.get('scale', '?')} ({m.get('database_size_mb', '?')} MB)",
                str(clients), fmt(r["seconds"]), fmt(r["tps_median_1s"]),
                fmt(r["first_forced_s"], 1), fmt(r["tps_before"]), fmt(r["tps_after"]), fmt(r["tps_rest"]),
                fmt(r["tps_after_over_before"], 2) if r["tps_after_over_before"] is not None else "–",
                fmt(r["worst10_over_median"], 2) if r["worst10_over_median"] is not None else "–",
                f"{m.get('loadavg_start', '?')}, {m.get('loadavg_end', '?')}",
                kernel_writeback(machine)]) + " |")
    return rows


def storage_variants(out, runs):
    """the throttle settings tried, from the raw data: the experiments'
    and this report's own stock runs"""
    rows = []
    if os.path.isdir(STORAGE_VARIANTS_DIR) and \
            os.path.realpath(out) != os.path.realpath(STORAGE_VARIANTS_DIR):
        for name in sorted(os.listdir(STORAGE_VARIANTS_DIR)):
            vdir = os.path.join(STORAGE_VARIANTS_DIR, name)
            sdir = os.path.join(vdir, "raw", STORAGE)
            if os.path.realpath(vdir) == os.path.realpath(out) or not os.path.isdir(sdir):
                continue
            vruns = [load_run(os.path.join(sdir, d)) for d in sorted(os.listdir(sdir))
                     if os.path.exists(os.path.join(sdir, d, "checkpoints.csv"))]
            rows += storage_variant_rows(f"experiment `{name}`", vdir, vruns)
    rows += storage_variant_rows("this report", out, [r for r in runs if r["scenario"] == STORAGE])
    if not rows:
        return []
    return ["### Throttle settings tried", "",
            "Every throttle setting the scenario ran with, stock (1GB) runs only, from the raw data of "
            "this report and of `bench/experiments/storage-throttle/` (one directory per setting, with "
            "its own report).  dd: one writer, 8 kB O_DIRECT writes (IOPS) and O_DSYNC writes (ms "
            "each), data / WAL volume.  *TPS before, after, rest*: median per-second TPS "
            f"over the {SPLIT_WINDOW_S} s before the first checkpoint forced by WAL, the {SPLIT_WINDOW_S} s "
            "after it, and the rest of the run after it.", "",
            "| run | rate (bits/s each way) | write delay | read delay | dd IOPS data / WAL | dd O_DSYNC ms "
            "data / WAL | scale (database) | clients | s | median TPS | first forced at s | TPS before | "
            "TPS after | TPS rest | after / before | worst 10 s / median | load avg start, end | kernel writeback |",
            "|---" * 18 + "|"] + rows + [""]


def check_storage(out, runs):
    """--check for the storage scenario: skipped by name, or each level and
    configuration with its files and columns"""
    skipped = read_text(os.path.join(out, "raw", STORAGE, "SKIPPED"))
    if skipped:
        print(f"SKIP storage: {skipped}")
        return []
    problems = []
    levels = storage_levels(runs)
    sdir = os.path.join(out, "raw", STORAGE)
    if not levels:
        return [f"{sdir}: no run and no SKIPPED"]
    for clients, level_runs in levels.items():
        for config in STORAGE_CONFIGS:
            rs = [r for r in level_runs if r["config"] == config]
            if not rs:
                problems.append(f"{sdir}: no {config} run at {clients} clients")
            for r in rs:
                problems += [f"{r['dir']}/meta.csv: no {k}" for k in STORAGE_META_KEYS + META_KEYS
                             if not r["meta"].get(k)]
                if not r["progress"]:
                    problems.append(f"{r['dir']}/progress.csv: missing or no rows")
                if not r["lat_samples"]:
                    problems.append(f"{r['dir']}/txlog.gz: missing or no transactions")
                if config == "walsizer" and not os.path.exists(os.path.join(r["dir"], "decisions.csv")):
                    problems.append(f"{r['dir']}/decisions.csv: missing")
        png = os.path.join(out, f"storage-c{clients}-timeline.png")
        if not os.path.exists(png) or os.path.getsize(png) == 0:
            problems.append(f"{png}: missing or empty")
    path = os.path.join(out, "runs.csv")
    if os.path.exists(path):
        with open(path, newline="") as f:
            header = next(csv.reader(f), [])
        problems += [f"{path}: no column {k}" for k in STORAGE_RUN_KEYS if k not in header]
    if "| worst / median |" not in read_text(os.path.join(out, "REPORT.md")):
        problems.append(f"{os.path.join(out, 'REPORT.md')}: no storage table")
    return problems


def write_runs_csv(out, runs):
    keys = ["scenario", "config", "repeat", "scale", "clients", "seconds", "wal_mb", "fpi", "requested",
            "wal_forced", "timed", "last_forced_s", "tps", "lat_ms", "lat_stddev_ms",
            "worst_second_lat_ms", "work_s", "start_mb", "final_mb"] + NEED_KEYS + [
            "max_mb", "peak_mb_s", "formula_mb",
            "ws_peak_mb_s", "ws_needed_mb", "changes", "first_change_s", "forced_after_change",
            "first_shrink_s"] + STORAGE_RUN_KEYS
    with open(os.path.join(out, "runs.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(keys)
        for r in runs:
            w.writerow(["" if r.get(k) is None else (f"{r[k]:.3f}" if isinstance(r[k], float) else r[k])
                        for k in keys])


def read_text(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return ""


def decisions_summary(run):
    """the changes walsizer made in one run, in a line"""
    parts = []
    for d in run["decisions"]:
        if d["action"] in ("grow", "capped", "shrink", "protect", "adopt", "error", "unconfirmed"):
            parts.append(f"{d['action']} {d['old_mb']}→{d['new_mb']} MB at {num(d['t']):.0f} s")
    if not parts:
        return f"no change; {run['wal_forced']} WAL-forced checkpoints"
    return ("; ".join(parts) + f"; WAL-forced checkpoints: {run['wal_forced'] - run['forced_after_change']} "
            f"before its first change, {run['forced_after_change']} after it")


def report(out, runs, pngs):
    how = how_it_was_run(out, runs)
    lines = ["# pg_walsizer benchmark", "",
             "What pg_walsizer does to checkpoints forced by WAL, to the WAL written and to "
             "throughput, against PostgreSQL's default `max_wal_size` (stock) and a generous "
             "hand-tuned one.  Every run is a fresh copy of the same template cluster "
             "(shared_buffers 128MB, checkpoint_timeout 30s, checkpoint_completion_target 0.9, "
             "autovacuum off so it adds no WAL at random moments), and the configurations "
             "alternate within each repeat.", "",
             f"**The machine is shared with other test runs ({machine_cores(out, runs)}): single "
             "runs are noisy.** Read the medians and ratios; the min–max shows the spread.", "",
             "## How it was run", ""] + how + ["Configurations:", ""]
    lines += [f"- **{c}**: {d}" for c, d in CONFIGS.items()]
    lines += ["", "Figures per run: WAL written = difference of `pg_current_wal_lsn()`; FPI = "
              "`pg_stat_wal.wal_fpi` (reset at the start; PostgreSQL 15 does not count FPI bytes); "
              "requested and timed checkpoints from `pg_stat_bgwriter` (reset at the start); "
              "WAL-forced = `checkpoint starting: wal` lines in the server log; TPS and latency from "
              "pgbench's final report; *worst 1 s latency* = the highest of pgbench's per-second "
              "(`--progress=1`) mean latencies; *last forced at* = seconds from the start to the last "
              "WAL-forced checkpoint; *peak WAL MB/s* = highest rate over any 30 s of the one-second "
              "LSN samples; *formula* = (1 + checkpoint_completion_target) × peak × checkpoint_timeout, "
              "the size that forces no checkpoint at that rate (walsizer adds its headroom, 25 %, on top: "
              "*walsizer needed*).  "
              "*need (log)* = what the load needs judged from PostgreSQL's own log, not from "
              "pg_walsizer: (1 + checkpoint_completion_target) × the largest `distance` of the run's "
              "`checkpoint complete` lines among its timed checkpoints, leaving out the first (its cycle "
              f"starts at the run's own CHECKPOINT) × {NEED_HEADROOM} headroom, rounded up to "
              f"{NEED_ROUND_MB} MB; *final size / need* = the `max_wal_size` the run ended with over "
              "that need.  n/a: fewer than two timed checkpoints completed in the run, as when every "
              "checkpoint is forced by WAL (stock and dryrun at 64 MB); – in these two columns: raw data "
              "from before the distances were recorded.  Cells: median (min–max) over the "
              "repeats.", ""]
    for scenario in SCENARIOS:
        sruns = [r for r in runs if r["scenario"] == scenario]
        if not sruns:
            continue
        title, text = SCENARIOS[scenario]
        scale, clients = steady_level(scenario, sruns) if scenario in STEADY_SCENARIOS else (None, None)
        text = text.format(bulk_scale=sruns[0]["bulk_scale"] or "?", scale=scale, clients=clients)
        repeats = len({r["repeat"] for r in sruns})
        if repeats == 1:
            text += ("  **A single repeat**: each cell is one run, with no spread to show "
                     "how far it is from typical.")
        configs, by, table = scenario_table(scenario, sruns)
        lines += [f"## {title} (`{scenario}`)", "", text, "", table, ""]
        lines += ratio_lines(scenario, configs, by)
        lines += need_lines(by)
        if scenario == "overhead":
            lines += overhead_lines(by)
        for c in ("walsizer", "dryrun", "walsizer4g"):
            for r in sorted(by.get(c, []), key=lambda r: r["repeat"]):
                if c == "dryrun":
                    advice = [d for d in r["decisions"] if d["action"] == "advise"]
                    last = f"; last advice {advice[-1]['old_mb']}→{advice[-1]['new_mb']} MB" if advice else ""
                    lines.append(f"- {c} repeat {r['repeat']}: {len(advice)} advise decisions{last}")
                else:
                    lines.append(f"- {c} repeat {r['repeat']}: {decisions_summary(r)}")
        problems = [r for r in sruns if os.path.exists(os.path.join(r["dir"], "server-problems.txt"))]
        for r in problems:
            lines.append(f"- server log of {r['config']} repeat {r['repeat']} has warnings or errors: "
                         f"`{os.path.relpath(os.path.join(r['dir'], 'server-problems.txt'), out)}`")
        lines.append("")
    lines += storage_section(out, runs)
    lines += ["## Plots", ""]
    for png in pngs:
        name = os.path.basename(png)
        lines += [f"![{name}]({name})", ""]
    lines += ["Raw data: `raw/<scenario>/<configuration>-r<repeat>/` (meta.csv, samples.csv, "
              "progress.csv, checkpoints.csv, decisions.csv); derived figures per run: `runs.csv`.", ""]
    with open(os.path.join(out, "REPORT.md"), "w") as f:
        f.write("\n".join(lines))


def machine_cores(out, runs):
    """"N cores" from the machine descriptions of the raw data"""
    cores = set()
    for scenario in {r["scenario"] for r in runs}:
        for line in read_text(os.path.join(out, "raw", scenario, "machine.txt")).splitlines():
            if line.startswith("cores (nproc): "):
                cores.add(line.split(": ", 1)[1])
    if not cores:
        return "cores unknown"
    return "/".join(sorted(cores)) + (" core" if cores == {"1"} else " cores")


def how_it_was_run(out, runs):
    """the command and machine of each invocation that left raw data: one
    block when a single run of the driver made them all"""
    groups = {}
    for scenario in list(SCENARIOS) + [STORAGE]:
        if not any(r["scenario"] == scenario for r in runs):
            continue
        sdir = os.path.join(out, "raw", scenario)
        key = (read_text(os.path.join(sdir, "run-info.txt")),
               read_text(os.path.join(sdir, "machine.txt")))
        groups.setdefault(key, []).append(scenario)
    lines = []
    for (info, machine), scenarios in groups.items():
        if len(groups) > 1:
            lines += [("Scenario " if len(scenarios) == 1 else "Scenarios ") +
                      ", ".join(f"`{s}`" for s in scenarios) + ":", ""]
        lines += ["```", info or "(no run information)", "```", "", "Machine:", "",
                  "```", machine or "(no machine description)", "```", ""]
    return lines


def check(out, runs):
    """the smoke test: every run present, with its files and columns"""
    problems = []
    repeats = {r["repeat"] for r in runs} or {1}
    for scenario, configs in SCENARIO_CONFIGS.items():
        for config in configs:
            for repeat in sorted(repeats):
                if scenario == "quiet" and repeat > 1:
                    continue
                rundir = os.path.join(out, "raw", scenario, f"{config}-r{repeat}")
                meta_path = os.path.join(rundir, "meta.csv")
                if not os.path.exists(meta_path):
                    problems.append(f"{rundir}: missing")
                    continue
                meta = read_meta(meta_path)
                problems += [f"{meta_path}: no {k}" for k in META_KEYS if k not in meta or meta[k] == ""]
                wanted = ["samples.csv", "checkpoints.csv"]
                if scenario in PGBENCH_SCENARIOS:
                    wanted.append("progress.csv")
                    problems += [f"{meta_path}: no pgbench_tps"] if not meta.get("pgbench_tps") else []
                if scenario in STEADY_SCENARIOS:
                    problems += [f"{meta_path}: no {k}" for k in ("scale", "clients") if not meta.get(k)]
                if scenario in WORK_SCENARIOS and not meta.get("work_s"):
                    problems.append(f"{meta_path}: no work_s")
                if config in ("walsizer", "dryrun", "walsizer4g"):
                    wanted.append("decisions.csv")
                    if not meta.get("walsizer_needed_mb"):
                        problems.append(f"{meta_path}: no walsizer_needed_mb")
                for name in wanted:
                    path = os.path.join(rundir, name)
                    if not os.path.exists(path):
                        problems.append(f"{path}: missing")
                        continue
                    with open(path, newline="") as f:
                        rows = list(csv.reader(f))
                    if not rows or rows[0] != CSV_HEADERS[name]:
                        problems.append(f"{path}: header {rows[0] if rows else None}, "
                                        f"expected {CSV_HEADERS[name]}")
                    elif name in ("samples.csv", "progress.csv") and len(rows) < 2:
                        problems.append(f"{path}: no rows")
    for name in ["REPORT.md", "runs.csv", "wal-by-config.png", "quiet-timeline.png"] + \
            [f"{s}-timeline.png" for s in STEADY_SCENARIOS]:
        path = os.path.join(out, name)
        if not os.path.exists(path) or os.path.getsize(path) == 0:
            problems.append(f"{path}: missing or empty")
    # the need is n/a after a few seconds; what is checked is that every
    # table and runs.csv have its columns
    path = os.path.join(out, "runs.csv")
    if os.path.exists(path):
        with open(path, newline="") as f:
            header = next(csv.reader(f), [])
        problems += [f"{path}: no column {k}" for k in NEED_KEYS if k not in header]
    path = os.path.join(out, "REPORT.md")
    tables = read_text(path).count("| final size / need |")
    if tables != len(SCENARIOS):
        problems.append(f"{path}: {tables} tables with a final size / need column, expected {len(SCENARIOS)}")
    return problems + check_storage(out, runs)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        sys.exit("usage: report.py OUT [--check]")
    out = args[0]
    runs = load_all(out)
    write_runs_csv(out, runs)
    pngs = plots(out, runs)
    report(out, runs, pngs)
    print(f"report.py: {len(runs)} runs, {os.path.join(out, 'REPORT.md')}")
    if "--check" in sys.argv:
        problems = check(out, runs)
        for p in problems:
            print(f"check: {p}", file=sys.stderr)
        if problems:
            sys.exit(f"check: {len(problems)} problems")
        skipped = read_text(os.path.join(out, "raw", STORAGE, "SKIPPED"))
        if skipped:
            print("check: every scenario and configuration left the expected files and columns, "
                  f"but for storage, SKIPPED ({skipped}): not run, not passed")
        else:
            print("check: every scenario and configuration left the expected files and columns")


if __name__ == "__main__":
    main()
