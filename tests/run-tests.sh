#!/bin/sh
# run-tests.sh - runs unit-test binaries and tests/t*.sh scripts, prints
# their TAP output, and ends with "N passed, M failed[, K skipped]".
# Exit status is non-zero when any test failed.  HPC_BUILD names the build
# directory; HPC_WRAPPER (a command and its options, e.g. "valgrind -q")
# runs hpcstruct, hpcprof and hpcviewer-tui through it in every
# tests/t*.sh (test-lib.sh says how; hpcrun is not wrapped).

passed=0 failed=0 skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for t in "$@"; do
	echo "# $(basename "$t")"
	case "$t" in
	*.sh) sh "$t" >"$log" 2>&1 ;;
	*) "$t" >"$log" 2>&1 ;;
	esac
	status=$?
	cat "$log"
	ok=$(grep -c '^ok ' "$log")
	notok=$(grep -c '^not ok ' "$log")
	skip=$(grep -c '^ok .*# SKIP' "$log")
	skipall=$(grep -c '^1\.\.0 # SKIP' "$log")
	passed=$((passed + ok - skip))
	failed=$((failed + notok))
	skipped=$((skipped + skip + skipall))
	if [ $status != 0 ] && [ "$notok" = 0 ]; then
		echo "not ok - $(basename "$t") exited with status $status"
		failed=$((failed + 1))
	fi
done

if [ $skipped -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ $failed = 0 ]
