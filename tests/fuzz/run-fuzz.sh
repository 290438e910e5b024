#!/bin/sh
# run-fuzz.sh SECONDS HARNESS... - fuzz each reader for SECONDS (make fuzz).
#
# Runs each libFuzzer HARNESS (BUILD/bin/fuzz-NAME, from
# tests/fuzz/fuzz-NAME.c), one after the other, with one job on a copy of
# its checked-in corpus (corpus-NAME/) plus the files of tests/data it
# reads (seeds_of below), so the corpus in git only changes when someone
# adds a seed on purpose.  Everything goes under the harnesses' build
# directory: work/NAME/corpus (the copy, grown by the run), work/NAME/tmp
# (the harness's files), artifacts/NAME-crash-*, -leak-*, -timeout-*,
# -oom-* (kept across runs).  A harness that finds something does not stop
# the others.
# Exit status: 0 when no run found anything, else 1, with each report and
# the command that reproduces it.  Extra libFuzzer options can be given in
# FUZZ_OPTIONS, e.g. FUZZ_OPTIONS=-use_value_profile=1.
set -eu

if [ $# -lt 2 ]; then
	echo "usage: $0 SECONDS HARNESS..." >&2
	exit 2
fi
seconds=$1
shift
src=$(cd "$(dirname "$0")" && pwd)
data=$src/../data
# the caller's sanitizer options, if any, for every run
user_asan=${ASAN_OPTIONS:-}
user_ubsan=${UBSAN_OPTIONS:-}

# seeds_of NAME: files of tests/data that are inputs of harness NAME.
seeds_of() {
	case $1 in
	hpcrun-fmt) ls "$data"/hpctoolkit/*/*.hpcrun ;;
	structfile) ls "$data"/hpctoolkit/loops-perf.m/structs/testmeas-loops.hpcstruct \
		"$data"/hpctoolkit/loops-perf.m/structs/*.vdso.hpcstruct ;;
	experiment) ls "$data"/viewer/small-db/experiment.xml ;;
	esac
}

# fuzz_one HARNESS: one run; 0 when it found nothing.
fuzz_one() {
	harness=$1
	name=$(basename "$harness" | sed 's/^fuzz-//')
	build=$(cd "$(dirname "$harness")/.." && pwd)
	work=$build/work/$name
	artifacts=$build/artifacts
	timeout=10 max_len=65536
	case $name in
	hpcstruct) timeout=30 ;;	# analysis of a whole binary
	formula) max_len=4096 ;;
	esac

	rm -rf "$work"
	mkdir -p "$work/corpus" "$work/tmp" "$artifacts"
	cp "$src/corpus-$name"/* "$work/corpus/"
	for f in $(seeds_of "$name"); do
		cp "$f" "$work/corpus/data-$(basename "$f")"
	done
	touch "$work/start"

	# Leaks are checked after each input (LeakSanitizer); undefined
	# behaviour stops the run like a crash does.  LeakSanitizer stops the
	# world with ptrace: where that is not allowed it cannot run at all, so
	# one input is tried first and, if it cannot, the run goes on without
	# leak checks and says so.
	UBSAN_OPTIONS=${user_ubsan:-print_stacktrace=1:halt_on_error=1}
	TMPDIR=$work/tmp
	ASAN_OPTIONS=${user_asan:-detect_leaks=1}
	export UBSAN_OPTIONS TMPDIR ASAN_OPTIONS
	if [ -z "$user_asan" ]; then
		seed=$(ls "$work/corpus" | head -n 1)
		if ! "$harness" "$work/corpus/$seed" >"$work/probe" 2>&1 &&
		   grep -q "LeakSanitizer has encountered a fatal error" "$work/probe"; then
			echo "fuzz: $name: LeakSanitizer cannot run here (ptrace not allowed); leaks are not checked" >&2
			ASAN_OPTIONS=detect_leaks=0
		fi
	fi

	dict=
	if [ -f "$src/$name.dict" ]; then
		dict=-dict=$src/$name.dict
	fi
	status=0
	# -close_fd_mask=2: the readers' own messages go nowhere; libFuzzer
	# and sanitizer reports still reach stderr.
	"$harness" -max_total_time="$seconds" -timeout=$timeout \
		-rss_limit_mb=2048 -max_len=$max_len -close_fd_mask=2 \
		-print_final_stats=1 -artifact_prefix="$artifacts/$name-" \
		$dict ${FUZZ_OPTIONS:-} "$work/corpus" || status=$?
	if [ $status != 0 ]; then
		echo "fuzz: $name: the harness found a problem (exit status $status); reproduce with:" >&2
		find "$artifacts" -type f -newer "$work/start" | sed "s|^|  $harness |" >&2
		return 1
	fi
	echo "fuzz: $name: $seconds seconds, nothing found; corpus grew from $(($(ls "$src/corpus-$name" | wc -l) + $(seeds_of "$name" | wc -l))) to $(ls "$work/corpus" | wc -l) inputs"
}

failed=
for harness in "$@"; do
	fuzz_one "$harness" || failed="$failed $(basename "$harness")"
done
if [ -n "$failed" ]; then
	echo "fuzz: found problems with:$failed" >&2
	exit 1
fi
