#!/bin/bash
# test/mutation.sh - mutation check of pg_walsizer's pure modules.
#
#   make mutation                          (or: test/mutation.sh [LIST])
#   test/mutation.sh --check [LIST]        only check that the list applies
#   test/mutation.sh --list [LIST]         the same, and print where each
#                                          mutation applies
#
# Applies each mutation of test/mutations.txt, one at a time, to a fresh
# copy of the tree (src/common/, the advisor's pure files, test/pure.mk,
# test/unit, test/sim, test/fuzz),
# builds it and runs the unit tests, sim and fuzz-smoke there.  A mutant is
# killed when one of them fails (or hangs past MUTATION_TIMEOUT); it
# survives when all pass, which means no test notices that change of
# behaviour.  Prints the score (killed / killed + survived) of each pure
# module, the file its mutants were found in, and the overall one, then
# every survivor; exits 1 when the overall score or that of any module
# with mutants run is below MUTATION_MIN_SCORE, e.g.
#
#	mutation score per module (at least 90 % needed):
#	  advisor/options.c             8/8 killed (100 %)
#	  src/common/measure_rates.c    1/3 killed (33 %)  BELOW 90 %
#	mutation score: 17/21 killed (80 %, at least 90 % needed)
#
# Every pure module must have mutations in the list: one that has none is
# an ERROR (exit 2, --check and --list included), named in the output.
#
# A mutation is found by its function and its pattern, not by its place:
# "function" names the C function (or macro) whose definition holds the
# text, looked up in whichever of the pure modules (pure_modules below)
# defines it now, and "from" is replaced within that function's body only.
# So moving a function to another pure module, or reordering a file, keeps
# the list valid.  "file", when given, is a hint: it chooses between
# static functions of the same name in several files, and when the
# function is no longer there the other pure modules are searched (the
# output names the file actually used).
#
# A function's definition is found by PostgreSQL's layout, no C parser: a
# line starting with "name(" (the return type on the line before), its
# body from the next line that is exactly "{" to the next line that is
# exactly "}"; a line ending with ";" before the "{" makes it a prototype,
# not a definition.  A macro's definition is its "#define name" line, with
# the lines a trailing backslash continues.
#
# A mutation whose function is defined in no pure module (or in several,
# with no file to choose), or whose original text is no longer in that
# function (or is there more than once with no occurrence given) is an
# ERROR, and one that does not compile is INVALID: both make the run exit
# 2, because the list needs fixing, not the tests.  Before any mutant, the
# unmutated copy must pass.
#
# Adding a mutation: append a block to test/mutations.txt (its header
# describes the fields), e.g.
#
#	id: P99
#	function: policy_in_cooldown
#	file: src/common/policy_utils.c
#	what: the cooldown is one window shorter
#	from: return c->d->state.windows_since_change < c->cooldown;
#	to: return c->d->state.windows_since_change + 1 < c->cooldown;
#
# then run MUTATION_ONLY=P99 make mutation.  Prefer mutations that change
# behaviour a user could see; one that cannot (an equivalent mutant) only
# lowers the score, so replace it.  A survivor calls for a test that
# kills it, not for deleting the mutation.
#
# Environment:
#   MUTATION_JOBS       mutants built and tested at once (2)
#   MUTATION_MIN_SCORE  lowest passing score, in percent (90)
#   MUTATION_FUZZ_RUNS  FUZZ_RUNS for each mutant's fuzz-smoke (10000)
#   MUTATION_TIMEOUT    seconds one suite may run before the mutant counts
#                       as killed by a hang (300)
#   MUTATION_ONLY       a Perl regular expression: only the ids it matches
#   MUTATION_KEEP       set: keep the scratch directory
#   CC, FUZZ_CC, PROVE  as make passes them (test/pure.mk's defaults else)
#
# Unit and sim tests run without sanitizers, for speed; the fuzzers keep
# theirs.  Each mutant's copy starts from the unmutated tree's build, so
# that only the mutated module is compiled again and what links it relinked
# (the mutation is applied after the copy, so its file is the newest),
# and only the unit programs it runs are linked.

set -u
# make mutation's own flags and variables must not reach the copies' makes
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

script=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
top=$(dirname "$(dirname "$script")")
check_only='' list_only=''
case ${1:-} in
	--check) check_only=1; shift ;;
	--list) check_only=1 list_only=1; shift ;;
esac
list=${1:-$top/test/mutations.txt}
jobs=${MUTATION_JOBS:-2}
min_score=${MUTATION_MIN_SCORE:-90}
fuzz_runs=${MUTATION_FUZZ_RUNS:-10000}
suite_timeout=${MUTATION_TIMEOUT:-300}

# The files mutations may change: the pure modules only (every file of
# src/common/ and the advisor's four pure ones).  Each needs mutations.
pure_modules="$(cd "$top" && echo src/common/*.c) advisor/advice.c advisor/sample_trace.c
	advisor/options.c advisor/report.c"

# make in a copy: test/pure.mk alone, sanitizer-free unit and sim builds.
pure_make=(make -s -f test/pure.mk srcdir=. PURE_SANITIZE= FUZZ_RUNS="$fuzz_runs"
	${CC:+CC="$CC"} ${FUZZ_CC:+FUZZ_CC="$FUZZ_CC"} ${PROVE:+PROVE="$PROVE"})

# Copies what the pure tests need from directory $1 into directory $2.
copy_tree() {
	mkdir -p "$2" &&
		(cd "$1" && tar -cf - --exclude=test/build \
			src/common advisor/advice.c advisor/advice.h advisor/sample_trace.c \
			advisor/sample_trace.h advisor/options.c advisor/options.h \
			advisor/report.c advisor/report.h pg_walsizer.control \
			test/pure.mk test/unit test/sim test/fuzz) |
		tar -C "$2" -xf -
}

# The unit test programs, those likeliest to notice a change of function
# $1 in module $2 first: the ones that name the function, then the
# module's own (test_MODULE.c), then the rest.  Most mutants fail the
# first, so each then costs one link and one run, not seventeen.
unit_programs_in_order() {
	local function=$1 module base test first='' second='' rest=''
	module=$(basename "$2" .c)
	for test in test/unit/test_*.c; do
		base=test/build/unit/$(basename "$test" .c)
		if grep -qw -- "$function" "$test"; then first="$first $base"
		elif [ "$(basename "$test" .c)" = "test_$module" ]; then second="$second $base"
		else rest="$rest $base"; fi
	done
	echo $first $second $rest
}

# Builds and tests the copy in the current directory, one suite after the
# other, stopping at the first that fails: unit one program at a time
# (unit_programs_in_order), then sim and fuzz-smoke.  A mutant is killed
# by the same tests either way; the order only makes the kill cheaper.
# Prints "pass", "invalid" (it does not build) or the suite that failed;
# logs to $1.  $2 and $3: the mutated function and module ("" for the
# unmutated tree).
build_and_test() {
	local log=$1 function=${2:-} module=${3:-} suite programs program

	for program in $(unit_programs_in_order "$function" "$module"); do
		if ! "${pure_make[@]}" "$program" >>"$log" 2>&1; then
			echo invalid
			return
		fi
		timeout --kill-after=10 "$suite_timeout" "$program" >>"$log" 2>&1
		case $? in
			0) ;;
			124 | 137) echo "unit (timeout)"; return ;;
			*) echo unit; return ;;
		esac
	done
	for suite in sim fuzz-smoke; do
		case $suite in
			sim) programs=test/build/sim/walsizer_sim ;;
			fuzz-smoke)
				programs="test/build/fuzz/fuzz_policy test/build/fuzz/fuzz_state"
				copy_baseline_build fuzz
				;;
		esac
		# shellcheck disable=SC2086 # a list of make targets
		if ! "${pure_make[@]}" $programs >>"$log" 2>&1; then
			echo invalid
			return
		fi
		timeout --kill-after=10 "$suite_timeout" "${pure_make[@]}" "$suite" \
			>>"$log" 2>&1
		case $? in
			0) ;;
			124 | 137) echo "$suite (timeout)"; return ;;
			*) echo "$suite"; return ;;
		esac
	done
	echo pass
}

# Copies the parts $@ (paths under test/build) of the unmutated tree's
# build into the copy in the current directory, timestamps kept, when
# there is one ($baseline_build): the objects and the programs a mutant
# needs, not the seventeen linked unit programs (each mutant links only
# those it runs) nor the fuzzers until it gets that far.
copy_baseline_build() {
	[ -n "${baseline_build:-}" ] || return 0
	local part
	for part; do
		mkdir -p "test/build/$(dirname "$part")"
		# shellcheck disable=SC2086 # a glob
		cp -a $baseline_build/$part "test/build/$(dirname "$part")/"
	done
}

# Applies mutation directory $1 (file, from, to, offset) to the copy in
# the current directory; perl does the exact, literal replacement at the
# offset the parser found in the snapshot, of which the copy is a copy.
apply_mutation() {
	perl -e '
		my ($dir) = @ARGV;
		sub slurp { local $/; open(my $f, "<", $_[0]) or die "$_[0]: $!\n"; my $s = <$f>; return $s; }
		my ($file, $from, $to, $at) = map { slurp("$dir/$_") } qw(file from to offset);
		my $text = slurp($file);
		die "gone\n" if substr($text, $at, length($from)) ne $from;
		substr($text, $at, length($from)) = $to;
		open(my $out, ">", $file) or die "$file: $!\n";
		print $out $text;
		close($out) or die "$file: $!\n";
	' "$1"
}

# --- one mutant (run by xargs) ---------------------------------------------

if [ "${1:-}" = "--run-one" ]; then
	mutant=$2 work=$3
	id=$(basename "$mutant")
	copy=$work/trees/$id
	copy_tree "$work/snapshot" "$copy" || { echo error >"$work/results/$id"; exit 0; }
	cd "$copy" || exit 0
	# the unmutated build, timestamps kept: the mutation below is newer
	baseline_build=$work/baseline-build
	copy_baseline_build obj unit/*.o sim/walsizer_sim
	if ! apply_mutation "$mutant" 2>"$work/logs/$id.log"; then
		result=error
	else
		result=$(build_and_test "$work/logs/$id.log" "$(cat "$mutant/function")" \
			"$(cat "$mutant/file")")
	fi
	echo "$result" >"$work/results/$id"
	# where it applied: the file it was found in, not the list's hint
	where="$(cat "$mutant/file") $(cat "$mutant/function")"
	case $result in
		pass) printf '  survived  %-5s %s\n' "$id" "$where" ;;
		invalid | error)
			printf '  %-8s  %-5s %s\n' "$result" "$id" "$where"
			grep -m 3 -E 'error|gone' "$work/logs/$id.log" | sed 's/^/            /'
			;;
		*) printf '  killed    %-5s %s by %s\n' "$id" "$where" "$result" ;;
	esac
	[ -n "${MUTATION_KEEP:-}" ] || rm -rf "$copy"
	exit 0
fi

# --- the whole run -----------------------------------------------------------

start=$(date +%s)
work=$(mktemp -d "${TMPDIR:-/tmp}/walsizer-mutation.XXXXXX") || exit 2
mkdir -p "$work/mutants" "$work/trees" "$work/results" "$work/logs"
[ -n "${MUTATION_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT

# One snapshot of the tree for the whole run: edits made meanwhile do not
# reach some mutants and not others.
copy_tree "$top" "$work/snapshot" || exit 2

# Parse the list into one directory per mutation, checking that each
# applies to the snapshot: a stale mutation is an error.  Each function
# (and macro) defined in a pure module is indexed first, with its file and
# the extent of its body; a mutation then looks its function up there.
perl -e '
	my ($list, $out, $top, $only, $show, @modules) = @ARGV;
	my %module = map { $_ => 1 } @modules;
	my %known = map { $_ => 1 } qw(id function file what from to occurrence);
	my (@blocks, $block, %seen, $errors, %mutated);
	open(my $in, "<", $list) or die "mutation: $list: $!\n";
	while (my $line = <$in>) {
		chomp $line;
		next if $line =~ /^#/;
		if ($line =~ /^\s*$/) { undef $block; next; }
		my ($key, $value) = $line =~ /^(\w+): ?(.*?)\s*$/
			or die "mutation: $list:$.: not \"key: value\": $line\n";
		die "mutation: $list:$.: unknown key $key\n" unless $known{$key};
		push @blocks, ($block = { line => $. }) unless $block;
		die "mutation: $list:$.: $key given twice\n" if exists $block->{$key};
		$block->{$key} = $value;
	}

	# name => the definitions of that name: { file, line, start, end }, the
	# body being substr(text of file, start, end - start)
	my (%text, %defs);
	for my $m (@modules) {
		open(my $src, "<", "$top/$m") or die "mutation: $m: $!\n";
		my $text = $text{$m} = do { local $/; <$src> };
		my @lines = split /\n/, $text, -1;
		my ($pos, @off) = (0);
		for (@lines) { push @off, $pos; $pos += length($_) + 1; }
		for my $i (0 .. $#lines) {
			if ($lines[$i] =~ /^([A-Za-z_]\w*)\(/) {
				# a definition when a line "{" comes before any line
				# ending with ";" (a prototype), "}" or blank
				my ($name, $j) = ($1, $i);
				$j++ while $j < @lines && $lines[$j] ne "{" &&
					$lines[$j] !~ /;\s*$/ && $lines[$j] ne "}" && $lines[$j] =~ /\S/;
				next unless $j < @lines && $lines[$j] eq "{";
				my $k = $j + 1;
				$k++ while $k < @lines && $lines[$k] ne "}";
				next unless $k < @lines;
				push @{$defs{$name}}, { file => $m, line => $i + 1,
					start => $off[$j], end => $off[$k] + 1 };
			} elsif ($lines[$i] =~ /^#\s*define\s+([A-Za-z_]\w*)/) {
				my ($name, $k) = ($1, $i);
				$k++ while $k < $#lines && $lines[$k] =~ /\\$/;
				push @{$defs{$name}}, { file => $m, line => $i + 1,
					start => $off[$i], end => $off[$k] + length($lines[$k]) };
			}
		}
	}

	sub unescape { my $s = shift; $s =~ s/\\(.)/$1 eq "t" ? "\t" : $1 eq "n" ? "\n" : $1/ge; return $s; }
	sub error { my ($b, $msg) = @_; print "ERROR ", ($b->{id} // "line $b->{line}"), ": $msg\n"; $errors++; }
	for my $b (@blocks) {
		my @missing = grep { !exists $b->{$_} } qw(id function what from to);
		if (@missing) { error($b, "no " . join(", ", @missing)); next; }
		if ($seen{$b->{id}}++) { error($b, "id used twice"); next; }
		if ($b->{id} !~ /^[\w.-]+$/) { error($b, "id has odd characters"); next; }
		my ($fn, $hint) = ($b->{function}, $b->{file});
		if (defined $hint && !$module{$hint}) { error($b, "$hint is not a pure module"); next; }
		my ($from, $to) = (unescape($b->{from}), unescape($b->{to}));
		if ($from eq "" || $from eq $to) { error($b, "from is empty or equal to to"); next; }

		# the definition: in the hinted file if it is there, else in
		# whichever pure module has it, which must be only one
		my @all = @{$defs{$fn} // []};
		if (!@all) { error($b, "$fn is defined in no pure module"); next; }
		my @here = defined $hint ? grep { $_->{file} eq $hint } @all : ();
		my @found = @here ? @here : @all;
		my %files = map { $_->{file} => 1 } @found;
		if (keys %files > 1) {
			error($b, "$fn is defined in " . join(", ", sort keys %files) .
				(defined $hint ? " but not in $hint" : "") . ": give the file");
			next;
		}
		if (@found > 1) {
			error($b, "$fn is defined " . scalar(@found) . " times in $found[0]{file}, lines " .
				join(", ", map { $_->{line} } @found));
			next;
		}
		my $def = $found[0];
		my $file = $def->{file};

		# the occurrences of from within its body
		my $text = $text{$file};
		my ($at, @at) = ($def->{start} - 1);
		while (($at = index($text, $from, $at + 1)) >= 0 &&
			   $at + length($from) <= $def->{end}) {
			push @at, $at;
		}
		my $count = @at;
		my $nth = $b->{occurrence} // ($count == 1 ? 1 : 0);
		if ($count == 0) { error($b, "the original text is no longer in $fn ($file): $b->{from}"); next; }
		if ($nth !~ /^[1-9]\d*$/) { error($b, "the original text occurs $count times in $fn ($file): give an occurrence"); next; }
		if ($nth > $count) { error($b, "occurrence $nth, but the original text occurs $count times in $fn ($file)"); next; }
		$at = $at[$nth - 1];
		$mutated{$file}++;
		if ($show) {
			my $line = 1 + (substr($text, 0, $at) =~ tr/\n//);
			printf "  %-5s %s:%d %s%s\n", $b->{id}, $file, $line, $fn,
				defined $hint && $hint ne $file ? " (not in $hint, the file it names)" : "";
		}
		next if $only ne "" && $b->{id} !~ /$only/;
		my $dir = "$out/$b->{id}";
		mkdir $dir or die "mutation: $dir: $!\n";
		for (["file", $file], ["function", $fn], ["what", $b->{what}], ["from", $from],
			 ["to", $to], ["offset", $at]) {
			open(my $f, ">", "$dir/$_->[0]") or die "mutation: $dir: $!\n";
			print $f $_->[1];
			close($f);
		}
	}
	# every pure module is mutated (its score is checked), at least once
	for my $m (@modules) {
		next if $mutated{$m};
		print "ERROR $m: a pure module with no mutations in $list; add some\n";
		$errors++;
	}
	exit($errors ? 2 : 0);
' "$list" "$work/mutants" "$work/snapshot" "${MUTATION_ONLY:-}" "$list_only" $pure_modules
parsed=$?
if [ $parsed -ne 0 ]; then
	echo "mutation: fix test/mutations.txt first" >&2
	exit 2
fi
total=$(find "$work/mutants" -mindepth 1 -maxdepth 1 | wc -l)
if [ -n "$check_only" ]; then
	echo "mutation: $total mutations apply"
	exit 0
fi
if [ "$total" -eq 0 ]; then
	echo "mutation: no mutations selected" >&2
	exit 2
fi

echo "mutation: the unmutated tree"
(
	copy_tree "$work/snapshot" "$work/trees/baseline" && cd "$work/trees/baseline" &&
		build_and_test "$work/logs/baseline.log"
) >"$work/results/baseline"
if [ "$(cat "$work/results/baseline")" != pass ]; then
	echo "mutation: the unmutated tree fails ($(cat "$work/results/baseline")); see:" >&2
	tail -n 30 "$work/logs/baseline.log" >&2
	trap - EXIT
	echo "mutation: scratch directory kept: $work" >&2
	exit 2
fi
# Its build seeds every mutant's copy: make then recompiles only the
# mutated module (newer than its object) and relinks what uses it, instead
# of every module and test (test/pure.mk's rules say what depends on what).
mv "$work/trees/baseline/test/build" "$work/baseline-build"
rm -rf "$work/trees/baseline"

echo "mutation: $total mutants, $jobs at a time, FUZZ_RUNS=$fuzz_runs"
find "$work/mutants" -mindepth 1 -maxdepth 1 | sort |
	xargs -P "$jobs" -I{} bash "$script" --run-one {} "$work"

killed=0 survived=0 broken=0
survivors=""
# per module (the file each mutant was found in): killed and scored
declare -A module_killed module_scored
for mutant in $(find "$work/mutants" -mindepth 1 -maxdepth 1 | sort); do
	id=$(basename "$mutant")
	module=$(cat "$mutant/file")
	result=$(cat "$work/results/$id" 2>/dev/null || echo error)
	case $result in
		pass)
			survived=$((survived + 1))
			module_scored[$module]=$((${module_scored[$module]:-0} + 1))
			survivors="$survivors$(printf '  %-6s %-20s %-28s %s' "$id" "$module" "$(cat "$mutant/function")" "$(cat "$mutant/what")")
"
			;;
		invalid | error) broken=$((broken + 1)) ;;
		*)
			killed=$((killed + 1))
			module_killed[$module]=$((${module_killed[$module]:-0} + 1))
			module_scored[$module]=$((${module_scored[$module]:-0} + 1))
			;;
	esac
done

scored=$((killed + survived))
failed=''
echo
echo "mutation: $((($(date +%s) - start))) s"
if [ $scored -gt 0 ]; then
	echo "mutation score per module (at least $min_score % needed):"
	for module in $(printf '%s\n' "${!module_scored[@]}" | sort); do
		k=${module_killed[$module]:-0} n=${module_scored[$module]}
		below=''
		if [ $((k * 100)) -lt $((min_score * n)) ]; then
			below="  BELOW $min_score %"
			failed=1
		fi
		printf '  %-28s %4s killed (%d %%)%s\n' "$module" "$k/$n" $((k * 100 / n)) "$below"
	done
	echo "mutation score: $killed/$scored killed ($((killed * 100 / scored)) %, at least $min_score % needed)"
fi
if [ $survived -gt 0 ]; then
	echo "surviving mutants (no test noticed them):"
	printf '%s' "$survivors"
fi
if [ $broken -gt 0 ]; then
	echo "mutation: $broken mutants did not apply or did not build; fix test/mutations.txt" >&2
	[ -z "${MUTATION_KEEP:-}" ] || echo "mutation: logs in $work/logs" >&2
	exit 2
fi
if [ $((killed * 100)) -lt $((min_score * scored)) ]; then
	echo "mutation: the overall score is below $min_score %" >&2
	exit 1
fi
if [ -n "$failed" ]; then
	echo "mutation: a module's score is below $min_score % (BELOW above)" >&2
	exit 1
fi
exit 0
