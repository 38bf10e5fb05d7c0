#!/usr/bin/env bash
# test/pgxn-check.sh - the PGXN distribution: META.json against the PGXN
# Meta Spec, and the distribution installed and loaded by the real PGXN
# client (Debian's pgxnclient).
#
#   test/pgxn-check.sh --pg-config PATH [--user USER]
#
# Run as root (pgxn install writes into PostgreSQL's directories), with
# pgxnclient and the major's server and headers installed. Takes about
# 30 seconds. Steps, one TAP line each:
#   - test/pgxn/check_meta.pl accepts META.json, and rejects each of a set
#     of broken copies with the right message (so a rule that cannot fail
#     would show here);
#   - "pgxn install" of a copy of the tree, as a PGXN user would, puts the
#     library and the install script of META.json's version in place;
#   - "pgxn load" creates the extension META.json names in a throwaway
#     cluster (run as USER, default postgres), at the control file's
#     default_version, and "pgxn unload" drops it;
#   - "pgxn uninstall" removes the files again.
# The caller reinstalls the tree it tests afterwards (test/run-suites.sh
# does). Ends with "N passed, N failed"; exits 1 if anything failed.
set -euo pipefail

say() { printf 'pgxn-check: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 2; }

pg_config= user=postgres
while (($#)); do
    case $1 in
        --pg-config) pg_config=$2; shift 2 ;;
        --user) user=$2; shift 2 ;;
        *) die "unknown argument '$1'" ;;
    esac
done
[[ -x $pg_config ]] || die "--pg-config PATH is required"
((EUID == 0)) || die "must run as root (pgxn install writes into PostgreSQL's directories)"
command -v pgxn >/dev/null || die "pgxn not found: install Debian's pgxnclient"

srcdir=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
bindir=$("$pg_config" --bindir)
pkglibdir=$("$pg_config" --pkglibdir)
sharedir=$("$pg_config" --sharedir)
default_version=$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" "$srcdir/pg_walsizer.control")

passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok - $*"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $*"; }

scratch=$(mktemp -d /tmp/walsizer-pgxn.XXXXXX)
cleanup() {
    [[ ! -e $scratch/data/postmaster.pid ]] ||
        runuser -u "$user" -- "$bindir/pg_ctl" -D "$scratch/data" stop -m immediate >/dev/null 2>&1 || true
    rm -rf "$scratch"
}
trap cleanup EXIT

echo "# META.json against the PGXN Meta Spec 1.0.0 and the tree"
if out=$(perl "$srcdir/test/pgxn/check_meta.pl" "$srcdir/META.json" "$srcdir" 2>&1); then
    ok "META.json is valid and agrees with the tree"
else
    not_ok "META.json: $out"
fi

# Each broken copy: a Perl expression on the decoded META ($m), and the
# message the checker must give for it.
broken=(
    'delete $m->{name}'                                      'required key "name" is missing'
    '$m->{version} = "1.3"'                                  'version: "1.3" is not a semantic version'
    '$m->{license} = "PostgreSQL License"'                   'is not one of the spec'"'"'s license names'
    '$m->{provides}{pg_walsizer}{version} = "01.3.0"'        'provides.pg_walsizer.version: "01.3.0" is not a semantic version'
    '$m->{provides}{pg_walsizer}{file} = "pg_walsizer.sql"'  'does not exist in'
    '$m->{version} = "0.9.0"'                                "is not the control file's default_version"
    '$m->{homepage} = "x"'                                   'unknown key "homepage"'
    '$m->{prereqs}{runtime}{requires}{PostgreSQL} = ">= 15"' 'is not a version range'
    '$m->{prereqs}{install} = {}'                            'prereqs: unknown key "install"'
    '$m->{release_status} = "final"'                         'is not stable, testing or unstable'
    '$m->{"meta-spec"}{version} = "2.0.0"'                   'meta-spec.version: "2.0.0" is not 1.0.0'
    '$m->{tags} = ["a/b"]'                                   'tags: "a/b" is not a tag'
    '$m->{name} = "pg walsizer"'                             'is not a term'
    '$m->{maintainer} = []'                                  'maintainer: not a string'
    '$m->{no_index} = { directory => ["nope"] }'             'no_index.directory: "nope" does not exist'
)
mkdir -p "$scratch/broken"
# the broken copies sit in a copy of the tree's files they refer to
cp "$srcdir/Makefile" "$srcdir"/*.control "$srcdir"/*.sql "$srcdir/README.md" "$scratch/broken/"
for ((i = 0; i < ${#broken[@]}; i += 2)); do
    edit=${broken[i]} want=${broken[i + 1]}
    perl -MJSON::PP -e 'my $j = JSON::PP->new->canonical->pretty;
        open my $f, "<", $ARGV[0] or die; local $/; my $m = $j->decode(<$f>);
        delete $m->{no_index}; eval $ARGV[1]; die $@ if $@; print $j->encode($m)' \
        "$srcdir/META.json" "$edit" >"$scratch/broken/META.json"
    if out=$(perl "$srcdir/test/pgxn/check_meta.pl" "$scratch/broken/META.json" "$scratch/broken" 2>&1); then
        not_ok "the checker accepted a META.json with: $edit"
    elif [[ $out != *"$want"* ]]; then
        not_ok "with $edit the checker said '$out', not '$want'"
    else
        ok "rejected ($edit): $want"
    fi
done
printf '{ "name": "pg_walsizer", ' >"$scratch/broken/META.json"
if out=$(perl "$srcdir/test/pgxn/check_meta.pl" "$scratch/broken/META.json" "$scratch/broken" 2>&1); then
    not_ok "the checker accepted a truncated META.json"
elif [[ $out == *"not valid JSON"* ]]; then ok "rejected: a truncated META.json is not valid JSON"
else not_ok "a truncated META.json gave '$out'"; fi

echo "# pgxn install, load, unload and uninstall with the PGXN client"
dist=$scratch/pg_walsizer-$default_version
# the update script that ends the chain at default_version: installed by
# pgxn install, removed by pgxn uninstall
newest_script=$(cd "$srcdir" && echo pg_walsizer--*--"$default_version".sql)
mkdir -p "$dist"
# what a release archive holds: the tree without VCS data or build outputs
tar -C "$srcdir" --exclude=./.git --exclude='*.o' --exclude='*.so' --exclude=./test/build \
    --exclude=./tmp_check --exclude=./tmp_check_regress --exclude=./results -cf - . | tar -C "$dist" -xf -
rm -f "$pkglibdir/pg_walsizer.so" "$sharedir/extension/$newest_script"
if pgxn install --pg_config "$pg_config" --make make --nosudo "$dist/" >"$scratch/install.log" 2>&1 &&
    [[ -f $pkglibdir/pg_walsizer.so && -f $sharedir/extension/$newest_script ]]; then
    ok "pgxn install put pg_walsizer.so and $newest_script in place"
else
    not_ok "pgxn install: $(tail -n 20 "$scratch/install.log")"
fi

chown -R "$user:" "$scratch"
as_user=(runuser -u "$user" -- env PATH="$bindir:$PATH")
port=$((20000 + RANDOM % 10000))
"${as_user[@]}" initdb -A trust -D "$scratch/data" >"$scratch/initdb.log" 2>&1
"${as_user[@]}" pg_ctl -D "$scratch/data" -l "$scratch/server.log" -w \
    -o "-p $port -k $scratch -c listen_addresses=''" start >/dev/null
conn=(-h "$scratch" -p "$port")
if "${as_user[@]}" pgxn load --pg_config "$pg_config" "${conn[@]}" -d postgres "$dist/" \
    >"$scratch/load.log" 2>&1; then
    v=$("${as_user[@]}" psql "${conn[@]}" -d postgres -XAtc \
        "SELECT extversion FROM pg_extension WHERE extname = 'pg_walsizer'")
    if [[ $v == "$default_version" ]]; then
        ok "pgxn load created pg_walsizer $v"
    else
        not_ok "after pgxn load the extension's version is '$v', not $default_version"
    fi
else
    not_ok "pgxn load: $(tail -n 20 "$scratch/load.log")"
fi
if "${as_user[@]}" pgxn unload --pg_config "$pg_config" "${conn[@]}" -d postgres --yes "$dist/" \
    >"$scratch/unload.log" 2>&1 &&
    [[ -z $("${as_user[@]}" psql "${conn[@]}" -d postgres -XAtc \
        "SELECT 1 FROM pg_extension WHERE extname = 'pg_walsizer'") ]]; then
    ok "pgxn unload dropped the extension"
else
    not_ok "pgxn unload: $(tail -n 20 "$scratch/unload.log")"
fi
"${as_user[@]}" pg_ctl -D "$scratch/data" -m fast stop >/dev/null

if pgxn uninstall --pg_config "$pg_config" --make make --nosudo "$dist/" >"$scratch/uninstall.log" 2>&1 &&
    [[ ! -e $pkglibdir/pg_walsizer.so && ! -e $sharedir/extension/$newest_script ]]; then
    ok "pgxn uninstall removed pg_walsizer.so and $newest_script"
else
    not_ok "pgxn uninstall: $(tail -n 20 "$scratch/uninstall.log")"
fi

echo "$passed passed, $failed failed"
((failed == 0))
