#!/bin/sh
# test/fuzz/fuzzers.t - one TAP test per libFuzzer harness: it passes when
# the harness finds nothing.  make fuzz-smoke and fuzz-long run it:
#
#   prove --exec sh test/fuzz/fuzzers.t :: BUILD_DIR 'LIBFUZZER_OPTIONS' TARGET...
#
# Each harness starts from a copy of its checked-in corpus, so runs never
# write into the source tree; logs and crash reproducers land in BUILD_DIR.
build_dir=$1 options=$2
shift 2
corpus=$(dirname "$0")/corpus

# The harnesses run side by side (they are independent and single-threaded:
# on two cores this halves the suite's time); results are printed in
# order once all have finished.
run_one() {
	target=$1 work=$build_dir/$1.corpus log=$build_dir/$1.log
	rm -rf "$work" && mkdir -p "$work" && cp "$corpus/$target"/* "$work"/ 2>/dev/null
	# shellcheck disable=SC2086 # $options is a list of flags: split it
	"$build_dir/$target" $options -artifact_prefix="$build_dir/$target-" \
		"$work" >"$log" 2>&1
	echo $? >"$build_dir/$target.status"
}

echo "1..$#"
for target; do
	rm -f "$build_dir/$target.status"
	run_one "$target" &
done
wait
n=0
for target; do
	n=$((n + 1))
	log=$build_dir/$target.log
	if [ "$(cat "$build_dir/$target.status" 2>/dev/null)" = 0 ]; then
		echo "ok $n - fuzz/$target"
		echo "# $(grep -E '^#[0-9]+.*(DONE|pulse)' "$log" | tail -n 1)"
	else
		echo "not ok $n - fuzz/$target (log: $log)"
		tail -n 40 "$log" | sed 's/^/# /' >&2
	fi
done
