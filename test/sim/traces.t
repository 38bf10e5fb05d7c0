#!/bin/sh
# test/sim/traces.t - one TAP test per trace: the simulator's summary of
# traces/NAME.trace must equal expected/NAME.out.  make sim runs it:
#
#   prove --exec sh test/sim/traces.t :: SIMULATOR OUTPUT_DIR
#
# A difference, or the simulator's failure, is shown as "# " diagnostics.
simulator=$1 output_dir=$2
here=$(dirname "$0")

set -- "$here"/traces/*.trace
echo "1..$#"
n=0
for trace; do
	n=$((n + 1))
	name=$(basename "$trace" .trace)
	out=$output_dir/$name.out diag=$output_dir/$name.diag
	if "$simulator" "$trace" >"$out" 2>"$diag" &&
		diff -u "$here/expected/$name.out" "$out" >"$diag"; then
		echo "ok $n - sim/$name"
	else
		echo "not ok $n - sim/$name"
		sed 's/^/# /' "$diag" >&2
	fi
done
