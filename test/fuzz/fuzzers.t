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

echo "1..$#"
n=0
for target; do
	n=$((n + 1))
	work=$build_dir/$target.corpus log=$build_dir/$target.log
	rm -rf "$work" && mkdir -p "$work" && cp "$corpus/$target"/* "$work"/ 2>/dev/null
	# shellcheck disable=SC2086 # $options is a list of flags: split it
	if "$build_dir/$target" $options -artifact_prefix="$build_dir/$target-" \
		"$work" >"$log" 2>&1; then
		echo "ok $n - fuzz/$target"
		echo "# $(grep -E '^#[0-9]+.*(DONE|pulse)' "$log" | tail -n 1)"
	else
		echo "not ok $n - fuzz/$target (log: $log)"
		tail -n 40 "$log" | sed 's/^/# /' >&2
	fi
done
