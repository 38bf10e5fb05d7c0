#!/usr/bin/env bash
# test/monitoring-check.sh - check the files of monitoring/ without a server.
#
#   test/monitoring-check.sh
#
# Speaks TAP, one line per check:
#   - promtool check rules: monitoring/pg_walsizer.rules.yml is valid
#   - promtool test rules: monitoring/pg_walsizer.rules.test.yml, each
#     alert firing where it must, with its labels and text, and not where
#     it must not
#   - each alert rule's test is sensitive: a few wrong variants of the
#     rules (an expression, a "for" or a label changed) must each fail
#     promtool test rules; a variant that passes means the tests would not
#     notice that mistake
#   - every alert has a runbook_url annotation, docs/monitoring.md#anchor,
#     whose anchor is the alert's own section of docs/monitoring.md; and
#     that check fails on wrong variants (an annotation missing, an anchor
#     misspelt or another alert's, a section missing)
#   - the exporter's queries file: YAML that parses, each query with query,
#     master and metrics, each metric a GAUGE, COUNTER or LABEL with a
#     description, every column the SQL selects described, and the metric
#     names the rules use all defined
#   - monitoring/sql_exporter.yml (prometheus-sql-exporter): the same
#     queries word for word, a metric per column, named and described as
#     in the queries file, the metrics the rules use all defined; and
#     promtool check config on monitoring/sql_exporter.scrape.yml
# promtool is Debian's prometheus package. Exits 1 if anything failed.
set -uo pipefail

here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
mon=$here/../monitoring
rules=$mon/pg_walsizer.rules.yml
rule_tests=$mon/pg_walsizer.rules.test.yml
queries=$mon/postgres_exporter_queries.yaml
doc=$here/../docs/monitoring.md
promtool=${PROMTOOL:-promtool}

n=0 failed=0
result() { # OK DESCRIPTION [DETAIL]
    n=$((n + 1))
    if (($1)); then
        echo "ok $n - $2"
    else
        failed=$((failed + 1))
        echo "not ok $n - $2"
        [[ -z ${3:-} ]] || sed 's/^/# /' <<<"$3"
    fi
}

if ! command -v "$promtool" >/dev/null; then
    echo "1..1"
    result 0 "promtool is installed (Debian: apt-get install prometheus)"
    exit 1
fi

out=$("$promtool" check rules "$rules" 2>&1) && ok=1 || ok=0
result $ok "promtool check rules ${rules##*/}" "$out"

# promtool test rules reads rule_files relative to the test file: run it
# from the test file's directory.
out=$(cd "$mon" && "$promtool" test rules "${rule_tests##*/}" 2>&1) && ok=1 || ok=0
result $ok "promtool test rules ${rule_tests##*/}" "$out"

# Wrong variants of the rules: "from" replaced by "to" (Perl regex and
# replacement, on the whole file). Each must fail the rule tests.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp "$rule_tests" "$scratch/"
variants=(
    'capped without its size at the cap|\n\s*and \(walsizer_max_wal_size_bytes >= walsizer_cap_bytes\)|'
    'capped for 10 minutes, not an hour|(WalsizerCappedForAnHour\n(?:.*\n){3}\s*for:) 1h|$1 10m'
    'blocked when ALTER SYSTEM is allowed|walsizer_alter_system_blocked == 1|walsizer_alter_system_blocked == 0'
    'an unconfirmed change counted from every action|action="unconfirmed"|action=~".+"'
    'failing changes alerted only while the error decision is recent|walsizer_change_failing_since_timestamp_seconds > 0|increase(walsizer_decisions_total{action="error"}[1h]) > 0'
    'a failed change alerted without its severity|(WalsizerChangeFailed\n(?:.*\n){1}\s*labels:\n\s*)severity: warning|${1}severity: info'
    'the worker down when it runs|walsizer_worker_up == 0|walsizer_worker_up == 1'
    'metrics missing matched on the server label too|on \(job, instance\) walsizer_worker_up|on (job, instance, server) walsizer_worker_up'
    'not measuring after one window|3 \* walsizer_window_seconds \+ 300|walsizer_window_seconds'
    'the recovery bound 0 taken as a bound|\n\s*and \(walsizer_max_recovery_time_seconds > 0\)|'
    'forced checkpoints at any time, not still rising|increase\(walsizer_checkpoints_wal_forced_total\[30m\]\) > 0|walsizer_checkpoints_wal_forced_total > 0'
    'the worker down paged as critical|(WalsizerWorkerDown\n(?:.*\n){2}\s*labels:\n\s*)severity: warning|${1}severity: critical'
    'metrics missing for every target, not the labelled ones|pg_up\{walsizer="expected"\} == 1|pg_up == 1'
    'a protect counted from every action|action="protect"|action=~".+"'
    'a protect alerted forever, not for an hour|increase\(walsizer_decisions_total\{action="protect"\}\[1h\]\) > 0|walsizer_decisions_total{action="protect"} > 0'
    'dry run alerted after an hour, not a day|(WalsizerDryRunForADay\n(?:.*\n){1}\s*for:) 1d|$1 1h'
    'dry run restarted by a failed scrape|min_over_time\(walsizer_dry_run\[15m\]\) == 1|walsizer_dry_run == 1'
    'disabled alerted when enabled|max_over_time\(walsizer_enabled\[15m\]\) == 0|max_over_time(walsizer_enabled[15m]) == 1'
    'disabled restarted by a failed scrape|max_over_time\(walsizer_enabled\[15m\]\) == 0|walsizer_enabled == 0'
)
for v in "${variants[@]}"; do
    IFS='|' read -r what from to <<<"${v//\\|/$'\x01'}"
    from=${from//$'\x01'/\\|} to=${to//$'\x01'/|}
    FROM=$from TO=$to perl -0pe 's/$ENV{FROM}/"qq{$ENV{TO}}"/ee or die "no match\n"' \
        "$rules" >"$scratch/${rules##*/}" 2>"$scratch/err"
    if [[ -s $scratch/err ]]; then
        result 0 "the rule tests notice: $what" "the variant no longer applies: $(cat "$scratch/err")"
        continue
    fi
    # a variant that does not even load would fail the tests for that
    # reason alone: it must be a valid rules file that the tests reject
    if ! "$promtool" check rules "$scratch/${rules##*/}" >"$scratch/out" 2>&1; then
        result 0 "the rule tests notice: $what" "the variant is not a valid rules file: $(tail -n 3 "$scratch/out")"
        continue
    fi
    if (cd "$scratch" && "$promtool" test rules "${rule_tests##*/}" >"$scratch/out" 2>&1); then
        result 0 "the rule tests notice: $what" "promtool test rules passed with the variant"
    else
        result 1 "the rule tests notice: $what"
    fi
done

# Every alert's runbook_url is its own section of docs/monitoring.md: the
# annotation is there, it is docs/monitoring.md#anchor, and the anchor is
# that of a heading (as GitHub makes it: lower case, punctuation but - and
# _ dropped, spaces as -) that names the alert.
runbooks() { # RULES DOC
    RULES=$1 DOC=$2 python3 - <<'EOF'
import os, re, sys
import yaml

rules = yaml.safe_load(open(os.environ["RULES"]))
doc = open(os.environ["DOC"]).read()
sections = {}
for heading in re.findall(r"^#+ (.*)$", doc, re.M):
    anchor = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
    sections[anchor] = heading
problems, alerts = [], 0
for group in rules["groups"]:
    for rule in group["rules"]:
        if "alert" not in rule:
            continue
        alerts += 1
        name = rule["alert"]
        url = rule.get("annotations", {}).get("runbook_url")
        if url is None:
            problems.append(f"{name}: no runbook_url annotation")
            continue
        path, _, anchor = url.partition("#")
        if path != "docs/monitoring.md":
            problems.append(f"{name}: runbook_url {url} is not docs/monitoring.md#...")
        elif anchor not in sections:
            problems.append(f"{name}: runbook_url {url}: docs/monitoring.md has no section #{anchor}")
        elif name not in sections[anchor]:
            problems.append(f"{name}: runbook_url {url} is the section of {sections[anchor]!r}")
print("\n".join(problems) or f"{alerts} alerts, each with its section")
sys.exit(1 if problems else 0)
EOF
}
out=$(runbooks "$rules" "$doc" 2>&1) && ok=1 || ok=0
result $ok "every alert's runbook_url is its section of docs/monitoring.md" "$out"

# Wrong variants of the rules or of the document ("from" replaced by "to",
# as above): each must fail that check.
runbook_variants=(
    'an alert without its runbook_url|rules|(- alert: WalsizerWalVolumeShort\n(?:.*\n)*?)\s*runbook_url: .*\n|$1'
    'a runbook_url with a misspelt anchor|rules|#walsizerworkerdown"|#walsizer-worker-down"'
    'a runbook_url pointing to another alert|rules|#walsizerdisabledforaday"|#walsizerdryrunforaday"'
    'the document without a section of an alert|doc|\n### WalsizerNotMeasuring\n|\n### Not measuring\n'
)
for v in "${runbook_variants[@]}"; do
    IFS='|' read -r what which from to <<<"$v"
    if [[ $which == rules ]]; then src=$rules; else src=$doc; fi
    FROM=$from TO=$to perl -0pe 's/$ENV{FROM}/"qq{$ENV{TO}}"/ee or die "no match\n"' \
        "$src" >"$scratch/variant" 2>"$scratch/err"
    if [[ -s $scratch/err ]]; then
        result 0 "the runbook check notices: $what" "the variant no longer applies: $(cat "$scratch/err")"
        continue
    fi
    if [[ $which == rules ]]; then
        out=$(runbooks "$scratch/variant" "$doc" 2>&1) && ok=0 || ok=1
    else
        out=$(runbooks "$rules" "$scratch/variant" 2>&1) && ok=0 || ok=1
    fi
    result $ok "the runbook check notices: $what" "$out"
done

# The queries file, as the exporter reads it (its format: a map of metric
# prefixes, each with query, master and metrics, each metric a one-key
# map of column to usage and description).
out=$(QUERIES=$queries RULES=$rules python3 - <<'EOF' 2>&1
import os, re, sys
import yaml

queries = yaml.safe_load(open(os.environ["QUERIES"]))
problems = []
defined = set()
for prefix, spec in queries.items():
    for key in ("query", "master", "metrics"):
        if key not in spec:
            problems.append(f"{prefix}: no {key}")
    if spec.get("master") is not True:
        problems.append(f"{prefix}: master is not true (the state is the server's)")
    described = set()
    for metric in spec.get("metrics", []):
        (column, m), = metric.items()
        described.add(column)
        if m.get("usage") not in ("GAUGE", "COUNTER", "LABEL"):
            problems.append(f"{prefix}_{column}: usage {m.get('usage')!r}")
        if len(m.get("description", "")) < 10:
            problems.append(f"{prefix}_{column}: no description")
        # Prometheus names a counter, and only a counter, ..._total
        if m.get("usage") != "LABEL" and \
                (m.get("usage") == "COUNTER") != f"{prefix}_{column}".endswith("_total"):
            problems.append(f"{prefix}_{column}: a {m.get('usage')} (only a counter's name ends in _total)")
        if m.get("usage") != "LABEL":
            defined.add(f"{prefix}_{column}")
    # the columns of the SELECT list: an item's AS name, else its column
    select = re.split(r"\bFROM walsizer\.", spec.get("query", ""), 1)[0]
    select = re.sub(r"^\s*SELECT\s", "", select)
    items, depth, item = [], 0, ""
    for ch in select:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            items.append(item)
            item = ""
        else:
            item += ch
    items.append(item)
    columns = set()
    for item in items:
        named = re.search(r"\bAS (\w+)\s*$", item.strip())
        columns.add(named.group(1) if named else item.strip().split(".")[-1])
    for c in sorted(columns - described):
        problems.append(f"{prefix}: column {c} is selected but not described")
    for c in sorted(described - columns):
        problems.append(f"{prefix}: {c} is described but not selected")
rules = open(os.environ["RULES"]).read()
for name in sorted(set(re.findall(r"\b(walsizer_\w+)", rules))):
    if name not in defined:
        problems.append(f"the rules use {name}, which the queries file does not define")
print("\n".join(problems) or f"{len(defined)} metrics")
sys.exit(1 if problems else 0)
EOF
) && ok=1 || ok=0
result $ok "the queries file ${queries##*/} is well-formed and defines what the rules use" "$out"

# monitoring/sql_exporter.yml (prometheus-sql-exporter's config): the
# queries file's queries word for word, one metric per column that is not
# a label, named prefix_column (the exporter adds sql_), with the queries
# file's description and labels, every metric the rules use defined; and
# the Prometheus scrape job that takes the sql_ off is a valid config.
sql_exporter=$mon/sql_exporter.yml
out=$(QUERIES=$queries SQLEXP=$sql_exporter RULES=$rules python3 - <<'EOF' 2>&1
import os, re, sys
import yaml

queries = yaml.safe_load(open(os.environ["QUERIES"]))
conf = yaml.safe_load(open(os.environ["SQLEXP"]))
problems = []
wanted = {}
for prefix, spec in queries.items():
    if conf.get("queries", {}).get(prefix) != spec["query"]:
        problems.append(f"queries.{prefix} is not the queries file's {prefix} query word for word")
    labels = [c for m in spec["metrics"] for c, d in m.items() if d["usage"] == "LABEL"]
    for m in spec["metrics"]:
        (column, d), = m.items()
        if d["usage"] != "LABEL":
            wanted[f"{prefix}_{column}"] = (prefix, column, labels, d["description"])
jobs = conf.get("jobs", [])
if len(jobs) != 1:
    problems.append(f"{len(jobs)} jobs, not one")
defined = set()
for job in jobs:
    if not job.get("interval"):
        problems.append(f"job {job.get('name')}: no interval (the exporter would run it without a pause)")
    for q in job.get("queries", []):
        name = q.get("name")
        if name not in wanted:
            problems.append(f"{name}: not a metric of the queries file")
            continue
        prefix, column, labels, description = wanted[name]
        defined.add(name)
        if q.get("query_ref") != prefix or "query" in q:
            problems.append(f"{name}: not query_ref: {prefix}")
        if q.get("values") != [column]:
            problems.append(f"{name}: values {q.get('values')}, not [{column}]")
        if (q.get("labels") or []) != labels:
            problems.append(f"{name}: labels {q.get('labels')}, not {labels}")
        if q.get("help") != description:
            problems.append(f"{name}: help is not the queries file's description")
for name in sorted(set(wanted) - defined):
    problems.append(f"{name} is not defined")
rules = open(os.environ["RULES"]).read()
for name in sorted(set(re.findall(r"\b(walsizer_\w+)", rules))):
    if name not in defined:
        problems.append(f"the rules use {name}, which {os.path.basename(os.environ['SQLEXP'])} does not define")
print("\n".join(problems) or f"{len(defined)} metrics")
sys.exit(1 if problems else 0)
EOF
) && ok=1 || ok=0
result $ok "${sql_exporter##*/} runs the queries file's queries and defines its metrics" "$out"
out=$("$promtool" check config "$mon/sql_exporter.scrape.yml" 2>&1) && ok=1 || ok=0
result $ok "promtool check config ${mon##*/}/sql_exporter.scrape.yml" "$out"

echo "1..$n"
((failed == 0))
