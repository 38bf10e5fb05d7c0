#!/usr/bin/env bash
# test/makefile-check.sh - what the shipped Makefile promises a user or a
# packager who builds pg_walsizer, checked against the real make and
# pg_config:
#   - the default build passes no -Werror to the compiler (a newer
#     compiler's new warning must not break their build), and COPT=-Werror,
#     which this project's own test runs use, does reach it;
#   - without a usable pg_config, or with a pg_config whose server headers
#     are missing (a client-only install), make stops at once with a
#     message naming the package to install, not a compiler error;
#   - make layout-check passes, and fails, naming the file, when a pure
#     module of src/common/ includes a PostgreSQL header.
#
#   test/makefile-check.sh --pg-config PATH
#
# Needs no root and no server; a few seconds. One TAP-like line per check,
# then "N passed, N failed"; exits 1 if anything failed.
set -euo pipefail

pg_config=
while (($#)); do
    case $1 in
        --pg-config) pg_config=$2; shift 2 ;;
        *) echo "makefile-check: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[[ -x $pg_config ]] || { echo "makefile-check: --pg-config PATH is required" >&2; exit 2; }
srcdir=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)

passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok - $*"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $*"; }
scratch=$(mktemp -d /tmp/walsizer-makefile.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

# The compiler command lines make would run for a clean build (-n: nothing
# is built). -B: as if nothing were built yet.
compile_lines() {
    make -C "$srcdir" -n -B PG_CONFIG="$pg_config" "$@" all 2>&1 | grep -E '(^| )-c ' || true
}
# A bare -Werror; PostgreSQL's own flags carry only -Werror=SPECIFIC ones.
bare_werror() { grep -Eq '(^|[[:space:]])-Werror([[:space:]]|$)'; }

lines=$(compile_lines)
if [[ -z $lines ]]; then
    not_ok "make -n printed no compiler command: $(make -C "$srcdir" -n -B PG_CONFIG="$pg_config" all 2>&1 | tail -n 5)"
elif bare_werror <<<"$lines"; then
    not_ok "the default build compiles with -Werror: $(grep -m1 -E -- '-Werror( |$)' <<<"$lines")"
else
    ok "the default build compiles without -Werror ($(wc -l <<<"$lines") compiler commands)"
fi
lines=$(compile_lines COPT=-Werror)
n_all=$(grep -c . <<<"$lines" || true)
n_werror=$(grep -Ec -- '(^|[[:space:]])-Werror([[:space:]]|$)' <<<"$lines" || true)
if ((n_all > 0 && n_werror == n_all)); then
    ok "COPT=-Werror reaches every compiler command, the extension's and the advisor's ($n_all)"
else
    not_ok "COPT=-Werror reached $n_werror of $n_all compiler commands"
fi

# No pg_config at all.
rc=0
out=$(make -C "$srcdir" PG_CONFIG="$scratch/no-such-pg_config" 2>&1) || rc=$?
if ((rc != 0)) && [[ $out == *'pg_config "'"$scratch"'/no-such-pg_config" not found'* &&
    $out == *postgresql-server-dev-* ]] && [[ $out != *'.c:'* ]]; then
    ok "without pg_config make stops and names postgresql-server-dev-NN"
else
    not_ok "without pg_config (exit $rc): $out"
fi

# A pg_config whose PGXS exists but whose server headers do not: what a
# client-only install can look like.
mkdir -p "$scratch/include-server"
cat >"$scratch/pg_config" <<EOF
#!/bin/sh
case "\$1" in
    --includedir-server) echo "$scratch/include-server" ;;
    *) exec "$pg_config" "\$@" ;;
esac
EOF
chmod +x "$scratch/pg_config"
rc=0
out=$(make -C "$srcdir" PG_CONFIG="$scratch/pg_config" 2>&1) || rc=$?
if ((rc != 0)) && [[ $out == *"no PostgreSQL server headers"* && $out == *postgresql-server-dev-* ]] &&
    [[ $out != *'.c:'* ]]; then
    ok "without server headers make stops and names postgresql-server-dev-NN"
else
    not_ok "without server headers (exit $rc): $out"
fi

# The split between src/common/ (pure) and src/server/ is enforced: the
# tree passes make layout-check, and a copy whose pure module includes
# postgres.h fails it.
rc=0
out=$(make -C "$srcdir" -s PG_CONFIG="$pg_config" layout-check 2>&1) || rc=$?
if ((rc == 0)); then
    ok "make layout-check: src/common/ includes nothing from PostgreSQL"
else
    not_ok "make layout-check fails on the tree (exit $rc): $out"
fi
mkdir -p "$scratch/tree"
tar -C "$srcdir" -cf - Makefile test/pure.mk bench/bench.mk src | tar -C "$scratch/tree" -xf -
victim=$(cd "$scratch/tree" && ls src/common/*.c | head -n 1)
sed -i '0,/^#include/s//#include "postgres.h"\n#include/' "$scratch/tree/$victim"
rc=0
out=$(make -C "$scratch/tree" -s PG_CONFIG="$pg_config" layout-check 2>&1) || rc=$?
if ((rc != 0)) && [[ $out == *"$victim:"*'"postgres.h"'* ]]; then
    ok "make layout-check fails when $victim includes postgres.h"
else
    not_ok "make layout-check with postgres.h in $victim (exit $rc): $out"
fi

echo "$passed passed, $failed failed"
((failed == 0))
