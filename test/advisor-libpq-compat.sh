#!/usr/bin/env bash
# test/advisor-libpq-compat.sh - the advisor built against the host's
# PostgreSQL 15 libpq, run against a newer major's server.
#
#   test/advisor-libpq-compat.sh MAJOR ADVISOR
#
# Starts a throwaway cluster of MAJOR (17, 18 or 19) in its chroot
# (test/chroot.sh), listening on 127.0.0.1, with a role that has only
# pg_monitor; runs ADVISOR (the host's build) against it over TCP for a few
# seconds; checks that it measured the server and names its major. The
# chroot shares the host's network, not its libraries: the host binary runs
# with the host's libpq. Prints "PG MAJOR advisor-libpq: ok" or the
# reason it failed; exits non-zero on failure. Needs root.
set -euo pipefail

major=${1:?usage: advisor-libpq-compat.sh MAJOR ADVISOR}
advisor=${2:?usage: advisor-libpq-compat.sh MAJOR ADVISOR}
here=$(dirname "$(readlink -f "$0")")
root=$(bash "$here/chroot.sh" root "$major")
port=$((54300 + major))
dir=/tmp/advisor-libpq-compat-$major
fail() { echo "PG $major advisor-libpq: FAILED: $*"; exit 1; }

[[ -x $advisor ]] || fail "no advisor at $advisor"
rm -rf "$root$dir"
mkdir -p "$root$dir"

# The server lives as long as this chroot command: until "done" appears.
bash "$here/chroot.sh" run "$major" -- bash -c "
    set -e
    bin=/usr/lib/postgresql/$major/bin
    chown postgres $dir
    runuser -u postgres -- \$bin/initdb -D $dir/data -A trust >/dev/null
    runuser -u postgres -- \$bin/pg_ctl -D $dir/data -l $dir/log -w \
        -o '-c listen_addresses=127.0.0.1 -p $port -k $dir' start >/dev/null
    runuser -u postgres -- \$bin/psql -X -q -h $dir -p $port -d postgres \
        -c 'CREATE ROLE monitor LOGIN IN ROLE pg_monitor'
    touch $dir/ready
    for _ in \$(seq 1 240); do [ -e $dir/done ] && break; sleep 0.5; done
    runuser -u postgres -- \$bin/pg_ctl -D $dir/data -m fast stop >/dev/null
" &
server=$!
trap 'touch "$root$dir/done"; wait "$server" 2>/dev/null || true' EXIT

for _ in $(seq 1 120); do
    [[ -e $root$dir/ready ]] && break
    kill -0 "$server" 2>/dev/null || fail "the $major server did not start"
    sleep 0.5
done
[[ -e $root$dir/ready ]] || fail "the $major server did not start within 60 s"

out=$("$advisor" --duration=3s --sample-interval=500ms --json \
    "host=127.0.0.1 port=$port user=monitor dbname=postgres" 2>&1) ||
    fail "the advisor exited with status $?: $out"
grep -q "\"major\": $major," <<<"$out" || fail "the report does not name major $major: $out"
grep -q '"verdict": "keep"' <<<"$out" || fail "an idle server was not kept as it is: $out"
echo "PG $major advisor-libpq: ok ($(ldd "$advisor" | awk '/libpq/ { print $3 }') against $major)"
