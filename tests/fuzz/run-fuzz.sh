#!/bin/sh
# run-fuzz.sh HARNESS SECONDS - fuzz hpcstruct for SECONDS (make fuzz).
#
# Runs the libFuzzer HARNESS (tests/fuzz/fuzz-hpcstruct.c) with one job on
# a copy of the checked-in corpus, so the corpus in git only changes when
# someone adds a seed on purpose.  Everything goes under the harness's
# build directory: work/corpus (the copy, grown by the run), work/tmp
# (the harness's files), artifacts/ (crash-*, leak-*, timeout-*, oom-*,
# kept across runs).
# Exit status: 0 when the run found nothing, else non-zero, with the
# report and a reproducer command.  Extra libFuzzer options can be given in
# FUZZ_OPTIONS, e.g. FUZZ_OPTIONS=-use_value_profile=1.
set -eu

if [ $# != 2 ]; then
	echo "usage: $0 HARNESS SECONDS" >&2
	exit 2
fi
harness=$1
seconds=$2
src=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$(dirname "$harness")/.." && pwd)
work=$build/work
artifacts=$build/artifacts

rm -rf "$work"
mkdir -p "$work/corpus" "$work/tmp" "$artifacts"
cp "$src"/corpus-hpcstruct/* "$work/corpus/"
touch "$work/start"

# Leaks are checked after each input (LeakSanitizer); undefined behaviour
# stops the run like a crash does.  LeakSanitizer stops the world with
# ptrace: where that is not allowed it cannot run at all, so one input is
# tried first and, if it cannot, the run goes on without leak checks and
# says so.
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
TMPDIR=$work/tmp
export UBSAN_OPTIONS TMPDIR
if [ -z "${ASAN_OPTIONS:-}" ]; then
	ASAN_OPTIONS=detect_leaks=1
	export ASAN_OPTIONS
	seed=$(ls "$work/corpus" | head -n 1)
	if ! "$harness" "$work/corpus/$seed" >"$work/probe" 2>&1 &&
	   grep -q "LeakSanitizer has encountered a fatal error" "$work/probe"; then
		echo "fuzz: LeakSanitizer cannot run here (ptrace not allowed); leaks are not checked" >&2
		ASAN_OPTIONS=detect_leaks=0
	fi
fi
export ASAN_OPTIONS

status=0
# -close_fd_mask=2: hpcstruct's own warnings go nowhere; libFuzzer and
# sanitizer reports still reach stderr.
"$harness" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 \
	-max_len=65536 -close_fd_mask=2 -print_final_stats=1 \
	-artifact_prefix="$artifacts/" ${FUZZ_OPTIONS:-} \
	"$work/corpus" || status=$?
if [ $status != 0 ]; then
	echo "fuzz: the harness found a problem (exit status $status); reproduce with:" >&2
	find "$artifacts" -type f -newer "$work/start" | sed "s|^|  $harness |" >&2
	exit 1
fi
echo "fuzz: $seconds seconds, nothing found; corpus grew from $(ls "$src/corpus-hpcstruct" | wc -l) to $(ls "$work/corpus" | wc -l) inputs"
