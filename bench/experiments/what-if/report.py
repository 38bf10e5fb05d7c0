#!/usr/bin/env python3
"""bench/experiments/what-if/report.py - REPORT.md from the runs in raw/.

For each run (raw/NAME/, written by run.sh): what walsizer.what_if()
predicted at the end of the predict phase for the three sizes, against
what each size's own phase measured:

  checkpoints per hour  from the log's "checkpoint starting" lines in the
                        measured part: the intervals between starts
  forced per hour       those of them the log says WAL started ("wal")
  WAL per hour          the insert position's advance over the measured part
  recovery              pg_ctl start to the first accepted connection,
                        after a SIGKILL at the worst point of the cycle

    python3 bench/experiments/what-if/report.py [RAW_DIR] > REPORT.md
"""
import csv
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PHASES = (("small", "small_mb"), ("predict", "recommended_mb"), ("four", "four_mb"))
START = re.compile(r"^(\d+\.\d+) \[\d+\] LOG:  checkpoint starting: (.*)$")


def key_values(path):
    with open(path) as f:
        return {row[0]: row[1] for row in csv.reader(f) if len(row) >= 2}


KINDS = {"running", "recommended", "ladder", "asked"}


def unquoted_what_if_row(header, line):
    """A what_if() row psql -A -F, printed without quoting: kind, why_not
    and basis may hold commas.  Kind is its words; after it, ten fields of
    no comma; then why_not (empty when allowed) and basis, which starts
    with "the last checkpoint cycle"."""
    f = line.split(",")
    kind = []
    i = 1
    while f[i] in KINDS:
        kind.append(f[i])
        i += 1
    fixed = f[i:i + 10]
    rest = ",".join(f[i + 10:])
    at = rest.index("the last checkpoint cycle")
    values = [f[0], ",".join(kind)] + fixed + [rest[:at].rstrip(","), rest[at:]]
    return dict(zip(header, values))


def table(path):
    """psql output, --csv or -A -F, (a header, rows, and "(N rows)")."""
    with open(path) as f:
        lines = [l for l in f.read().splitlines() if l and not l.startswith("(")]
    rows = list(csv.reader(lines))
    header = rows[0]
    if all(len(r) == len(header) for r in rows[1:]):
        return [dict(zip(header, r)) for r in rows[1:]]
    return [unquoted_what_if_row(header, l) for l in lines[1:]]


def checkpoints(path):
    """(checkpoints per hour, forced per hour) from the log's starts."""
    starts = []
    with open(path) as f:
        for line in f:
            m = START.match(line.rstrip("\n"))
            if m:
                starts.append((float(m.group(1)), "wal" in m.group(2).split()))
    if len(starts) < 2:
        return None, None
    span = starts[-1][0] - starts[0][0]
    per_hour = (len(starts) - 1) * 3600.0 / span
    forced = sum(1 for _, wal in starts[1:] if wal) / (len(starts) - 1)
    return per_hour, per_hour * forced


def off(predicted, measured):
    if measured in (None, 0) or predicted is None:
        return "n/a"
    return "%+.0f %%" % (100.0 * (predicted - measured) / measured)


EXAMPLE_COLUMNS = (("size_mb", 0), ("kind", None), ("cycle_s", 1), ("checkpoints_per_hour", 1),
                   ("forced_per_hour", 1), ("wal_mb_per_hour", 0), ("recovery_s", 1),
                   ("peak_pg_wal_mb", 0), ("allowed", None))


def example(run_dir, out):
    """The prediction as psql prints the columns of the worked example."""
    rows = table(os.path.join(run_dir, "prediction.csv"))
    cells = [[c for c, _ in EXAMPLE_COLUMNS]]
    for r in rows:
        cells.append([r[c] if digits is None else "%.*f" % (digits, float(r[c]))
                      for c, digits in EXAMPLE_COLUMNS])
    widths = [max(len(row[i]) for row in cells) for i in range(len(EXAMPLE_COLUMNS))]
    out.write("```\n")
    for n, row in enumerate(cells):
        out.write(" " + " | ".join(v.rjust(w) if n and EXAMPLE_COLUMNS[i][1] is not None
                                     else v.ljust(w) for i, (v, w) in enumerate(zip(row, widths))).rstrip() + "\n")
        if n == 0:
            out.write("-" + "-+-".join("-" * w for w in widths) + "-\n")
    out.write("(%d rows)\n```\n\n" % len(rows))


def run_report(run_dir, out):
    meta = key_values(os.path.join(run_dir, "meta.csv"))
    prediction = {int(r["size_mb"]): r for r in table(os.path.join(run_dir, "prediction.csv"))}
    any_row = next(iter(prediction.values()))
    out.write("## %s: PostgreSQL %s\n\n" % (os.path.basename(run_dir), meta["server_version"]))
    out.write("pgbench scale %s at %s TPS (`-R`), checkpoint_timeout %s s, shared_buffers %s, "
              "%s s measured per size after one cycle at it; %s; load average %s at the start, %s at the end; "
              "commit %s.\n\n" % (meta["scale"], meta["rate"], meta["checkpoint_timeout_s"],
                                  meta["shared_buffers"], meta["seconds"], meta["machine"],
                                  meta["loadavg_start"], meta.get("loadavg_end", "?"),
                                  meta["source_commit"]))
    out.write("Prediction: `walsizer.what_if()` at the end of the run at the recommendation "
              "(working set %s MB, replay rate %s), one table for all three sizes. Basis: %s\n\n"
              % (any_row["working_set_mb"] or "unknown", any_row["replay_rate_source"],
                 any_row["basis"]))
    example(run_dir, out)
    out.write("| size | | checkpoints/h | forced/h | WAL MB/h | recovery s |\n")
    out.write("|---|---|---|---|---|---|\n")
    for phase, key in PHASES:
        size = int(meta[key])
        p = prediction.get(size)
        ph = key_values(os.path.join(run_dir, "phase_%s.csv" % phase))
        cph, fph = checkpoints(os.path.join(run_dir, "log_%s.txt" % phase))
        wal = float(ph["wal_bytes"]) / float(ph["measured_s"]) * 3600 / 1048576
        rec = float(ph["recovery_s"])
        pc, pf, pw, pr = (float(p[k]) for k in ("checkpoints_per_hour", "forced_per_hour",
                                                   "wal_mb_per_hour", "recovery_s"))
        label = {"small": "small", "predict": "recommended", "four": "4x"}[phase]
        out.write("| %d MB (%s) | predicted | %.0f | %.0f | %.0f | %.1f |\n" % (size, label, pc, pf, pw, pr))
        out.write("| | measured | %.0f | %.0f | %.0f | %.1f (%.0f MB pending at the kill) |\n"
                  % (cph, fph, wal, rec, float(ph["killed_pending_bytes"]) / 1048576))
        out.write("| | predicted - measured | %s | %s | %s | %s |\n"
                  % (off(pc, cph), "none vs none" if pf == 0 and fph == 0 else
                     "some vs some" if pf > 0 and fph > 0 else
                     "**%s vs %s**" % ("none" if pf == 0 else "some", "none" if fph == 0 else "some"),
                     off(pw, wal), off(pr, rec)))
    small = prediction[int(meta["small_mb"])]
    rec = prediction[int(meta["recommended_mb"])]
    out.write("\nWAL per hour, small size over the recommendation: predicted %.2fx"
              % (float(small["wal_mb_per_hour"]) / float(rec["wal_mb_per_hour"])))
    ms = key_values(os.path.join(run_dir, "phase_small.csv"))
    mr = key_values(os.path.join(run_dir, "phase_predict.csv"))
    out.write(", measured %.2fx.\n\n" % ((float(ms["wal_bytes"]) / float(ms["measured_s"])) /
                                        (float(mr["wal_bytes"]) / float(mr["measured_s"]))))


def main():
    raw = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "raw")
    out = sys.stdout
    out.write("# What-if table against runs at each size\n\n"
              "Generated by `report.py` from `raw/` (written by `run.sh`); do not edit.\n\n")
    for name in sorted(os.listdir(raw)):
        run_dir = os.path.join(raw, name)
        if os.path.exists(os.path.join(run_dir, "phase_four.csv")):
            run_report(run_dir, out)


if __name__ == "__main__":
    main()
