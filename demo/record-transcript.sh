#!/usr/bin/env bash
# demo/record-transcript.sh - runs demo/run-demo.sh and writes everything it
# printed, unabridged, to docs/demo.md, with the machine and the commit it
# ran on: the transcript in the docs is always a run of the code as
# committed, never written or trimmed by hand.  As root, like the demo.
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
srcdir=$(dirname "$here")
out=$srcdir/docs/demo.md
log=$(mktemp)
trap 'rm -f "$log"' EXIT

commit=$(git -C "$srcdir" describe --always --dirty 2>/dev/null || echo 'no git')
"$here/run-demo.sh" >"$log" 2>&1
server=$(/usr/lib/postgresql/15/bin/postgres --version)

{
    cat <<EOF_HEAD
# The demo

\`demo/run-demo.sh\` (see the [README](../README.md#try-it)) runs a
throwaway cluster through a pgbench write load, first in dry run, then
with pg_walsizer in charge. Below is everything it printed in one run,
recorded by \`demo/record-transcript.sh\` (not edited): commit $commit,
$server, $(nproc) cores, $(date -u +%Y-%m-%d). Figures such as TPS and the
WAL rate depend on the machine; what to look for is the count of
checkpoints forced by WAL before and after pg_walsizer's first change, at
the end.

\`\`\`
EOF_HEAD
    cat "$log"
    printf '```\n'
} >"$out"
printf 'record-transcript: wrote %s\n' "$out"
