#!/usr/bin/env python3
"""bench/experiments/production-shape/report.py [RAW [REPORT]]

The production-shape experiment's report from its raw data: reads every
RAW/<run>/ that run.sh wrote (RAW is raw/ beside this script) and writes
REPORT (REPORT.md beside this script).  Every figure is computed here from
the raw files; nothing is written by hand.  Python's standard library only.

The need is PostgreSQL's, not pg_walsizer's: (1 + checkpoint_completion_target)
x 1.25 x the largest `distance=` of the whole timed cycles at the final
size, rounded up to 16 MB.  A whole timed cycle at the final size is a
timed checkpoint that started after the last change of max_wal_size (the
decision that made the final size) and whose log line has its distance,
whose cycle began (the checkpoint before it started) at most CHANGE_SLACK_S
seconds before that change.  With fewer than two such cycles the need is
n/a.
"""

import csv
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NEED_HEADROOM = 1.25
NEED_ROUND_MB = 16
FIRST_MINUTE_S = 60
RATE_HELD = 0.9
# pg_walsizer often changes the size at the start of a checkpoint (on the
# counters that checkpoint moves): a cycle that began this many seconds
# before the change still counts as one at the new size
CHANGE_SLACK_S = 5
# the targets
TARGET_FORCED = 1
TARGET_FINAL = (1.0, 1.3)
TARGET_PEAK = 2.0

PROGRESS = re.compile(r"^progress: ([0-9.]+) s, ([0-9.]+) tps, lat ([0-9.]+) ms"
                      r"(?: stddev ([0-9.NaN]+))?.*?(?:lag ([0-9.]+) ms)?.*?(?:([0-9]+) skipped)?$")


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read_meta(path):
    meta = {}
    with open(path) as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition(",")
            meta[key] = value
    return meta


def num(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def fmt_mb(mb):
    return "n/a" if mb is None else f"{mb:.0f}"


def fmt_ratio(x):
    return "n/a" if x is None else f"{x:.2f}"


def fmt_t(t):
    """seconds on the run's clock as m:ss"""
    sign = "-" if t < 0 else ""
    t = abs(t)
    return f"{sign}{int(t // 60)}:{int(t % 60):02d}"


def src_tree(commit):
    """the tree of src/ at the commit the run was made from, so that runs from
    different commits with the same source show as such"""
    try:
        return subprocess.run(["git", "-C", HERE, "rev-parse", "--short", f"{commit}:src"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def load_run(rundir):
    meta = read_meta(os.path.join(rundir, "meta.csv"))
    run = {"dir": rundir, "meta": meta, "name": meta["name"]}
    run["src_tree"] = src_tree(meta.get("source_commit", ""))
    run["start_mb"] = num(meta["start_mb"])
    run["rate"] = num(meta["rate"])
    run["init20"] = meta.get("init20") == "1"
    run["complete"] = "finished_utc" in meta

    settings = {r["name"]: r for r in read_csv(os.path.join(rundir, "settings.csv"))}
    run["settings"] = settings
    cct = num(settings.get("checkpoint_completion_target", {}).get("setting"))
    run["cct"] = cct if cct is not None else 0.9
    run["timeout"] = settings.get("checkpoint_timeout", {}).get("setting")

    # sizes over time
    samples = [(num(r["t"]), num(r["max_wal_size_mb"])) for r in read_csv(os.path.join(rundir, "samples.csv"))
               if num(r["t"]) is not None and num(r["max_wal_size_mb"]) is not None]
    run["samples"] = samples
    changes = []
    for t, mb in samples:
        if not changes or changes[-1][1] != mb:
            changes.append((t, mb))
    run["changes"] = changes
    decisions = read_csv(os.path.join(rundir, "decisions.csv"))
    run["decisions"] = decisions
    final = num(meta.get("final_max_wal_size_mb"))
    if final is None and samples:
        final = samples[-1][1]
    run["final_mb"] = final
    peaks = [mb for _, mb in samples] + [num(d["new_mb"]) for d in decisions if num(d["new_mb"]) is not None]
    run["peak_mb"] = max(peaks) if peaks else None
    # the last change to the final size: the time of the decision that made
    # it, or, without one, the first sample that showed it
    final_from = None
    if changes and changes[-1][1] == final:
        final_from = changes[-1][0] if len(changes) > 1 else -math.inf
        made = [num(d["t"]) for d in decisions
                if num(d["t"]) is not None and d["old_mb"] != d["new_mb"] and num(d["new_mb"]) == final]
        if made and len(changes) > 1:
            final_from = min(final_from, made[-1])
    run["final_from"] = final_from

    # checkpoints
    cps = []
    for r in read_csv(os.path.join(rundir, "checkpoints.csv")):
        cps.append({"t": num(r["t"]), "kind": r["kind"].replace("+", " "),
                    "distance_kb": num(r["distance_kb"])})
    run["checkpoints"] = cps
    run["forced"] = [c for c in cps if c["kind"].split()[0] == "wal"]
    run["forced_after"] = [c for c in run["forced"] if c["t"] > FIRST_MINUTE_S]
    whole = []
    for prev, cur in zip(cps, cps[1:]):
        if (cur["kind"].split()[0] == "time" and cur["distance_kb"] is not None
                and final_from is not None and cur["t"] > final_from
                and prev["t"] >= final_from - CHANGE_SLACK_S):
            whole.append(cur)
    run["whole_cycles"] = whole
    if len(whole) >= 2:
        cycle_mb = max(c["distance_kb"] for c in whole) / 1024
        need = math.ceil((1 + run["cct"]) * NEED_HEADROOM * cycle_mb / NEED_ROUND_MB) * NEED_ROUND_MB
        run["cycle_mb"] = cycle_mb
        run["need_mb"] = max(need, NEED_ROUND_MB)
    else:
        run["cycle_mb"] = None
        run["need_mb"] = None
    # for context only (not the measure): the need from every whole
    # timed cycle of the run but the first, at whatever size, as
    # bench/report.py computes it
    timed_all = [c for c in cps if c["kind"].split()[0] == "time" and c["distance_kb"] is not None][1:]
    if len(timed_all) >= 2:
        run["need_all_mb"] = max(NEED_ROUND_MB, math.ceil(
            (1 + run["cct"]) * NEED_HEADROOM * max(c["distance_kb"] for c in timed_all) / 1024
            / NEED_ROUND_MB) * NEED_ROUND_MB)
    else:
        run["need_all_mb"] = None
    need = run["need_mb"]
    run["final_over_need"] = final / need if need and final else None
    run["peak_over_need"] = run["peak_mb"] / need if need and run["peak_mb"] else None

    # the load: pgbench's -P 5 lines and summary
    progress = []
    summary = {}
    out = os.path.join(rundir, "pgbench.out")
    if os.path.exists(out):
        with open(out) as f:
            for line in f:
                m = PROGRESS.match(line.strip())
                if m:
                    progress.append({"t": float(m.group(1)), "tps": float(m.group(2)),
                                     "lat": float(m.group(3)),
                                     "lag": num(m.group(5)), "skipped": int(m.group(6) or 0)})
                for key, pattern in (("tps", r"^tps = ([0-9.]+)"),
                                     ("processed", r"^number of transactions actually processed: ([0-9]+)"),
                                     ("skipped", r"^number of transactions skipped: ([0-9]+)"),
                                     ("late", r"^number of transactions above the [0-9.]+ ms latency limit: ([0-9]+)"),
                                     ("lat", r"^latency average = ([0-9.]+) ms"),
                                     ("lag", r"^rate limit schedule lag: avg ([0-9.]+)")):
                    m = re.match(pattern, line.strip())
                    if m:
                        summary[key] = float(m.group(1))
    run["progress"] = progress
    run["summary"] = summary
    run["mean_tps"] = sum(p["tps"] for p in progress) / len(progress) if progress else None
    run["held"] = run["mean_tps"] is not None and run["mean_tps"] >= RATE_HELD * run["rate"]
    run["worst5_lat"] = max((p["lat"] for p in progress), default=None)
    run["min5_tps"] = min((p["tps"] for p in progress), default=None)
    lsn0, lsn1 = num(meta.get("lsn_start")), num(meta.get("lsn_end"))
    run["wal_mb"] = (lsn1 - lsn0) / 2**20 if lsn0 is not None and lsn1 is not None else None
    return run


def size_at(run, t):
    size = run["start_mb"]
    for ct, mb in run["changes"]:
        if ct <= t:
            size = mb
    return size


def sizes_text(run):
    return " → ".join(f"{fmt_mb(mb)} MB at {fmt_t(t)}" if i else f"{fmt_mb(mb)} MB"
                      for i, (t, mb) in enumerate(run["changes"]))


def met(ok):
    return "yes" if ok else "**no**"


def targets(run):
    forced_ok = len(run["forced_after"]) <= TARGET_FORCED
    f = run["final_over_need"]
    p = run["peak_over_need"]
    final_ok = None if f is None else TARGET_FINAL[0] <= f <= TARGET_FINAL[1]
    peak_ok = None if p is None else p <= TARGET_PEAK
    return forced_ok, final_ok, peak_ok


def describe(run):
    what = f"start {fmt_mb(run['start_mb'])} MB, {run['rate']:.0f} TPS"
    if run["init20"]:
        what += ", `pgbench -i -s 20` first"
    return what


def main():
    raw = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "raw")
    report = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "REPORT.md")
    runs = []
    for entry in sorted(os.listdir(raw)):
        if os.path.exists(os.path.join(raw, entry, "meta.csv")):
            runs.append(load_run(os.path.join(raw, entry)))
    runs.sort(key=lambda r: (r["meta"].get("started_utc", ""), r["name"]))

    L = []
    L.append("# Production-shaped settings: results")
    L.append("")
    L.append("Generated by `report.py` from `raw/`; see [README.md](README.md) for the "
             "question and the commands.  Times are m:ss on each run's clock (0:00 "
             "just after the run's own `CHECKPOINT`).  *need* = (1 + "
             "checkpoint_completion_target) × 1.25 × the largest `distance=` of the "
             "whole timed cycles at the final size (timed checkpoints after the last "
             f"change of size whose cycle began at most {CHANGE_SLACK_S} s before that change: "
             "pg_walsizer often changes the size as a checkpoint starts), rounded up to "
             "16 MB; n/a with fewer than two such cycles.  *Rate held*: the mean of pgbench's 5-second "
             f"TPS lines is at least {RATE_HELD} × the rate.  Targets of issue 29: "
             f"forced after the first minute ≤ {TARGET_FORCED}, final / need within "
             f"{TARGET_FINAL[0]}-{TARGET_FINAL[1]}, peak / need ≤ {TARGET_PEAK}.")
    L.append("")
    L.append("## Summary")
    L.append("")
    L.append("| run | setup | commit (src tree) | forced by WAL (after 1st minute) | final MB | peak MB | "
             "need MB (cycles) | final / need | peak / need | mean TPS (rate held) | WAL MB | targets met |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in runs:
        m = r["meta"]
        forced_ok, final_ok, peak_ok = targets(r)
        tgt = []
        tgt.append(f"forced {met(forced_ok)}")
        tgt.append("final n/a" if final_ok is None else f"final {met(final_ok)}")
        tgt.append("peak n/a" if peak_ok is None else f"peak {met(peak_ok)}")
        held = "n/a" if r["mean_tps"] is None else (
            f"{r['mean_tps']:.1f} ({'held' if r['held'] else '**DISTURBED**'})")
        need = "n/a" if r["need_mb"] is None else f"{r['need_mb']} ({len(r['whole_cycles'])})"
        status = "" if r["complete"] else " (**incomplete**)"
        L.append(f"| {r['name']}{status} | {describe(r)} | {m.get('source_commit', '?')} ({r['src_tree']}) | "
                 f"{len(r['forced'])} ({len(r['forced_after'])}) | {fmt_mb(r['final_mb'])} | "
                 f"{fmt_mb(r['peak_mb'])} | {need} | {fmt_ratio(r['final_over_need'])} | "
                 f"{fmt_ratio(r['peak_over_need'])} | {held} | "
                 f"{fmt_mb(r['wal_mb'])} | {', '.join(tgt)} |")
    L.append("")

    for r in runs:
        m = r["meta"]
        L.append(f"## {r['name']}: {describe(r)}")
        L.append("")
        L.append(f"- started {m.get('started_utc', '?')} UTC, finished {m.get('finished_utc', 'not')} UTC; "
                 f"PostgreSQL {m.get('server_version', '?')}; checkpoint_timeout {r['timeout']} s, "
                 f"completion target {r['cct']}, shared_buffers 1GB, autovacuum {m.get('autovacuum')}; "
                 f"pgbench scale {m.get('scale')}, `-R {m.get('rate')} --latency-limit={m.get('latency_limit_ms')} "
                 f"-P 5 -c {m.get('clients')} -j {m.get('threads')} -T {m.get('seconds')}`")
        L.append(f"- library: built from commit {m.get('source_commit')} (src tree {r['src_tree']}), installed "
                 f"{m.get('library_mtime_utc')} UTC, md5 {m.get('library_md5')}; load average "
                 f"{m.get('loadavg_start')} at start, {m.get('loadavg_end', '?')} at end")
        if r["init20"]:
            L.append(f"- `pgbench -i -s 20` from {fmt_t(num(m.get('init20_start_t')) or 0)} to "
                     f"{fmt_t(num(m.get('init20_end_t')) or 0)}; the fixed-rate load from "
                     f"{fmt_t(num(m.get('load_start_t')) or 0)}")
        s = r["summary"]
        if r["mean_tps"] is not None:
            L.append(f"- load: mean of the 5 s lines {r['mean_tps']:.1f} TPS against {r['rate']:.0f} "
                     f"({r['mean_tps'] / r['rate']:.3f}: {'held' if r['held'] else 'DISTURBED'}), lowest "
                     f"5 s line {r['min5_tps']:.1f}; pgbench's own tps {s.get('tps', 'n/a')}, "
                     f"latency average {s.get('lat', 'n/a')} ms, worst 5 s mean {r['worst5_lat']:.1f} ms, "
                     f"schedule lag {s.get('lag', 'n/a')} ms, skipped {s.get('skipped', 0):.0f}, "
                     f"above the latency limit {s.get('late', 0):.0f}")
        L.append(f"- WAL written {fmt_mb(r['wal_mb'])} MB; checkpoints "
                 f"forced by WAL: {len(r['forced'])}, after the first minute {len(r['forced_after'])}"
                 + (" (at " + ", ".join(fmt_t(c['t']) for c in r['forced_after']) + ")" if r['forced_after'] else ""))
        L.append(f"- sizes (max_wal_size sampled every {m.get('sample_s')} s; each change): {sizes_text(r)}")
        L.append(f"- final {fmt_mb(r['final_mb'])} MB, peak {fmt_mb(r['peak_mb'])} MB, need "
                 + ("n/a (fewer than two whole timed cycles at the final size)" if r["need_mb"] is None else
                    f"{r['need_mb']} MB from {len(r['whole_cycles'])} whole timed cycles at the final size "
                    f"(largest {r['cycle_mb']:.0f} MB)")
                 + f"; final / need {fmt_ratio(r['final_over_need'])}, peak / need {fmt_ratio(r['peak_over_need'])}")
        if r["need_all_mb"] is not None:
            L.append(f"- for context (not the issue's measure): the need from all timed cycles of the run but "
                     f"the first, at any size, is {r['need_all_mb']} MB; final / that "
                     f"{fmt_ratio(r['final_mb'] / r['need_all_mb'])}, peak / that "
                     f"{fmt_ratio(r['peak_mb'] / r['need_all_mb'])}")
        L.append("")
        L.append("Sizes at each minute (the last sample at or before it):")
        L.append("")
        t_end = r["samples"][-1][0] if r["samples"] else 0
        spans = []  # [first minute, last minute, size]
        for minute in range(0, int(t_end // 60) + 1):
            mb = size_at(r, minute * 60)
            if spans and spans[-1][2] == mb:
                spans[-1][1] = minute
            else:
                spans.append([minute, minute, mb])
        L.append("`" + " · ".join(f"{a}′ {fmt_mb(mb)}" if a == b else f"{a}′-{b}′ {fmt_mb(mb)}"
                                  for a, b, mb in spans) + "`")
        L.append("")
        L.append("Checkpoints (from the server log):")
        L.append("")
        L.append("| start | kind | distance MB | max_wal_size at start | whole timed cycle at the final size |")
        L.append("|---|---|---|---|---|")
        whole = {id(c) for c in r["whole_cycles"]}
        for c in r["checkpoints"]:
            d = "" if c["distance_kb"] is None else f"{c['distance_kb'] / 1024:.0f}"
            L.append(f"| {fmt_t(c['t'])} | {c['kind']} | {d} | {fmt_mb(size_at(r, c['t']))} | "
                     f"{'yes' if id(c) in whole else ''} |")
        L.append("")
        L.append("`SELECT * FROM walsizer.decisions` at the end (run.sh writes a reason's commas as `;`):")
        L.append("")
        L.append("| t | action | old MB | new MB | requested | timed | wal_forced | window s | confirmed | reason |")
        L.append("|---|---|---|---|---|---|---|---|---|---|")
        for d in r["decisions"]:
            t = num(d["t"])
            L.append(f"| {fmt_t(t) if t is not None else ''} | {d['action']} | {d['old_mb']} | {d['new_mb']} | "
                     f"{d['requested']} | {d['timed']} | {d['wal_forced']} | {d['window_s']} | {d['confirmed']} | "
                     f"{d['reason'].replace('|', '/')} |")
        if not r["decisions"]:
            L.append("| | (none) | | | | | | | | |")
        L.append("")
        problems = []
        log = os.path.join(r["dir"], "server.log")
        if os.path.exists(log):
            with open(log, errors="replace") as f:
                problems = [line.strip() for line in f if re.search(r"WARNING|ERROR|PANIC|FATAL", line)]
        if problems:
            L.append(f"Server log warnings and errors ({len(problems)}; the first 5):")
            L.append("")
            L.extend(f"    {p}" for p in problems[:5])
            L.append("")

    with open(report, "w") as f:
        f.write("\n".join(L) + "\n")
    print(f"wrote {report} ({len(runs)} runs)")


if __name__ == "__main__":
    main()
