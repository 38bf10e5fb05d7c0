#!/bin/sh
# test/sim/traces.t - two TAP tests per trace.  First, the properties of
# traces/NAME.trace (its "expect" directives and those every trace is held
# to) hold: the simulator checks them and exits 1 when one fails.  Second,
# its summary equals expected/NAME.out, so that any change of behaviour
# shows up for review.  make sim runs it:
#
#   prove --exec sh test/sim/traces.t :: SIMULATOR OUTPUT_DIR
#
# Failing properties, a difference, or the simulator's own failure are
# shown as "# " diagnostics; prove -v also shows the properties that held.
simulator=$1 output_dir=$2
here=$(dirname "$0")

set -- "$here"/traces/*.trace
echo "1..$(($# * 2))"
n=0
for trace; do
	name=$(basename "$trace" .trace)
	out=$output_dir/$name.out verdicts=$output_dir/$name.verdicts
	diff=$output_dir/$name.diff
	"$simulator" -v "$trace" >"$out" 2>"$verdicts"
	status=$?

	n=$((n + 1))
	if [ "$status" -eq 0 ]; then
		echo "ok $n - sim/$name properties"
		sed 's/^/# /' "$verdicts"
	else
		echo "not ok $n - sim/$name properties"
		grep -v ': holds' "$verdicts" | sed 's/^/# /' >&2
	fi

	n=$((n + 1))
	if [ "$status" -gt 1 ]; then
		echo "not ok $n - sim/$name expected output (the simulator exited with $status)"
	elif diff -u "$here/expected/$name.out" "$out" >"$diff"; then
		echo "ok $n - sim/$name expected output"
	else
		echo "not ok $n - sim/$name expected output"
		sed 's/^/# /' "$diff" >&2
	fi
done
