# test-lib.sh - the shell test library, in the style of git's t/test-lib.sh.
#
# A test script sets test_description, sources this file, calls
# test_expect_success for each test and ends with test_done:
#
#   test_description='hpcstruct finds loop nests'
#   . "$(dirname "$0")/test-lib.sh"
#   test_expect_success 'the 3-deep nest in mm' '
#       cc -O2 -g -o mm "$TEST_PROGS/mm.c" &&
#       hpcstruct -o mm.s mm && grep -c "<L " mm.s >count && ...
#   '
#   test_expect_success TMUX 'needs tmux' '...'   # skipped without prereq
#   test_done
#
# Each test body runs in a subshell with 'set -e' inside the trash directory
# $TRASH (fresh per script, under the build directory).  Output is TAP.
# A script whose tests all pass removes its trash directory at the end, so
# the suite's disk use stays that of one script (some leave hundreds of
# megabytes); a failing script's stays for a look, as does every script's
# with HPC_KEEP_TRASH=1.
# Every program runs from $HPC_BUILD/bin (PATH is set); set HPC_WRAPPER
# (e.g. "valgrind -q --error-exitcode=99") to run the tools under a checker:
# hpcstruct, hpcprof, hpcprof-mpi and hpcviewer-tui found through PATH then
# run as "$HPC_WRAPPER PROGRAM ARGS...", as elfutils' test-subr.sh runs its
# programs through $VALGRIND_CMD.  hpcrun is not wrapped: it only launches
# the measured program (exec with libhpcrun.so preloaded), which a checker
# would follow or change.  A test naming "$BIN/PROGRAM" runs it unwrapped.

TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
SRC_ROOT=$(cd "$TEST_DIRECTORY/.." && pwd)
TEST_PROGS=$TEST_DIRECTORY/progs
# Everything the tests read lives in the tree (tests/data/README.md):
# nothing outside the clone is needed.
TEST_DATA=$TEST_DIRECTORY/data
FIXTURES=$TEST_DATA/hpctoolkit
DTD_DIR=$TEST_DATA/dtd
HPC_BUILD=${HPC_BUILD:-$SRC_ROOT/build}
BIN=$HPC_BUILD/bin
PATH=$BIN:$PATH
export TEST_DIRECTORY SRC_ROOT TEST_PROGS TEST_DATA FIXTURES DTD_DIR HPC_BUILD BIN PATH
LC_ALL=C
export LC_ALL
# Sanitizer builds (make check SANITIZE=1): fail hard on undefined behaviour;
# leak checking stays off (LeakSanitizer needs ptrace, not always allowed).
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=0}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS UBSAN_OPTIONS
unset HPCRUN_EVENT_LIST HPCRUN_OUT_PATH

this_test=$(basename "$0" .sh)
TRASH=$HPC_BUILD/trash/$this_test
rm -rf "$TRASH"
mkdir -p "$TRASH" || exit 1

# HPC_WRAPPER: a script per wrapped program, in a directory first in PATH
# (beside the trash directory, so the tests' own listings do not see it).
if test -n "$HPC_WRAPPER"; then
	wrapped=$HPC_BUILD/trash/$this_test.wrapped
	rm -rf "$wrapped"
	mkdir -p "$wrapped" || exit 1
	for prog in hpcstruct hpcprof hpcprof-mpi hpcviewer-tui; do
		test -x "$BIN/$prog" || continue
		printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$HPC_WRAPPER" "$BIN/$prog" \
			>"$wrapped/$prog" && chmod +x "$wrapped/$prog" || exit 1
	done
	PATH=$wrapped:$PATH
	export PATH
fi
cd "$TRASH" || exit 1

test_count=0
test_failed=0
test_skipped=0
test_prereqs=" "
skip_all=

say() { printf '%s\n' "$*"; }

test_set_prereq() { test_prereqs="$test_prereqs$1 "; }

# test_lazy_prereq NAME 'script': NAME holds when script succeeds (cached).
test_lazy_prereq() {
	eval "lazy_prereq_$1=\$2"
}

test_have_prereq() {
	local p script
	for p in $(echo "$1" | tr ',' ' '); do
		case "$test_prereqs" in *" $p "*) continue ;; esac
		case "$test_prereqs" in *" !$p "*) return 1 ;; esac
		eval "script=\${lazy_prereq_$p-}"
		if [ -n "$script" ] && (eval "$script") >/dev/null 2>&1; then
			test_set_prereq "$p"
		else
			test_prereqs="$test_prereqs!$p "
			return 1
		fi
	done
	return 0
}

test_lazy_prereq TMUX 'command -v tmux'
test_lazy_prereq XMLLINT 'command -v xmllint'
test_lazy_prereq CLANG 'command -v clang'
test_lazy_prereq FIXTURES 'test -d "$FIXTURES/loops-perf.m"'
test_lazy_prereq PERF_EVENTS 'test "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 2'
test_lazy_prereq NOT_ROOT 'test "$(id -u)" != 0'
# A new PID namespace that keeps its parent's /proc (needs root).
test_lazy_prereq PIDNS 'unshare -pf true'

test_expect_success() {
	local prereq= desc body out status
	if [ $# = 3 ]; then prereq=$1; shift; fi
	desc=$1 body=$2
	test_count=$((test_count + 1))
	if [ -n "$prereq" ] && ! test_have_prereq "$prereq"; then
		test_skipped=$((test_skipped + 1))
		say "ok $test_count # SKIP $desc (missing $prereq)"
		return 0
	fi
	out=$TRASH/.test-output
	(set -e; eval "$body") >"$out" 2>&1 </dev/null
	status=$?
	if [ $status = 0 ]; then
		say "ok $test_count - $desc"
	else
		test_failed=$((test_failed + 1))
		say "not ok $test_count - $desc"
		sed -e 's/^/#   /' "$out" | tail -n 40
		say "#   (exit status $status; body:)"
		printf '%s\n' "$body" | sed -e 's/^/#   /'
	fi
}

# Every database a script leaves in its trash directory is checked by
# hpcviewer-tui --check-views (hpcviewer-tui/check.h: the views add up to
# the totals): one more TAP line each, a skip for one the viewer refuses
# to load (a bad-input test's), naming why.
test_check_views() {
	local xml db out status
	find "$TRASH" -name experiment.xml -type f | sort >"$TRASH/.check-views"
	out=$TRASH/.check-views-output
	while read -r xml; do
		db=${xml%/experiment.xml}
		test_count=$((test_count + 1))
		status=0
		hpcviewer-tui --check-views "$db" >"$out" 2>&1 </dev/null ||
			status=$?
		case $status in
		0)	say "ok $test_count - views add up in ${db#"$TRASH"/}" ;;
		1)	test_skipped=$((test_skipped + 1))
			say "ok $test_count # SKIP views add up in ${db#"$TRASH"/} ($(head -n 1 "$out"))" ;;
		*)	test_failed=$((test_failed + 1))
			say "not ok $test_count - views add up in ${db#"$TRASH"/}"
			sed -e 's/^/#   /' "$out" | tail -n 40
			say "#   (exit status $status of hpcviewer-tui --check-views)" ;;
		esac
	done <"$TRASH/.check-views"
}

test_done() {
	if [ -n "$skip_all" ] && [ $test_count = 0 ]; then
		say "1..0 # SKIP $skip_all"
		exit 0
	fi
	test_check_views
	say "1..$test_count"
	[ $test_failed = 0 ] || exit 1
	if [ -z "$HPC_KEEP_TRASH" ]; then
		cd "$HPC_BUILD" && rm -rf "$TRASH" ${wrapped:+"$wrapped"}
	fi
	exit 0
}

# test_must_fail CMD...: CMD must exit non-zero, but not die of a signal
# (so a crash is never mistaken for a clean refusal).
test_must_fail() {
	local status=0
	"$@" || status=$?
	if [ $status = 0 ]; then
		echo "test_must_fail: '$*' succeeded" >&2
		return 1
	fi
	if [ $status -gt 128 ] && [ $status -lt 160 ]; then
		echo "test_must_fail: '$*' died of signal $((status - 128))" >&2
		return 1
	fi
	return 0
}

# run_until_report DIR TIMEOUT PROGRAM ARGS...: starts hpcrun -o DIR
# --hang-timeout TIMEOUT on a program that hangs (its output in out and
# err), waits (20 s at most) until its hang report is complete, checks
# that the program still runs a second later, then kills it.
run_until_report() {
	local dir=$1 timeout=$2 pid n=0
	shift 2
	hpcrun -o "$dir" --hang-timeout "$timeout" "$@" >out 2>err &
	pid=$!
	while ! grep -q "^end$" "$dir"/*.hang 2>/dev/null && test $n -lt 200; do
		sleep 0.1
		n=$((n + 1))
	done
	sleep 1
	kill -0 $pid && kill -9 $pid && ! wait $pid
}

# test_cmp EXPECTED ACTUAL: identical files, or a diff on stderr.
test_cmp() {
	diff -u "$1" "$2" >&2
}

# test_line_count OP N FILE: e.g. test_line_count = 3 out
test_line_count() {
	local n
	n=$(wc -l <"$3")
	if ! [ "$n" "$1" "$2" ]; then
		echo "test_line_count: $3 has $n lines, expected $1 $2" >&2
		return 1
	fi
}

# only_hpcrun_said FILE: FILE, the stderr of a measured run, holds no line
# but hpcrun's own: where the measurements went, where kernel time is not
# counted (a user perf_event_paranoid >= 2 refuses it, or --no-kernel:
# hpcrun(1)) the share of CPU time in the kernel it did not measure, and
# the share in threads that ended before their first sample (a churning
# program's threads can all be that short).
only_hpcrun_said() {
	! grep -v -e "^hpcrun: measurements in " \
		-e "^hpcrun: [0-9]*% of CPU time was in the kernel (.*), not measured: " \
		-e "^hpcrun: [0-9]*% of CPU time was in [0-9]* threads\{0,1\} that ended before" "$1"
}

# test_within VALUE EXPECTED TOLERANCE: |VALUE - EXPECTED| <= TOLERANCE.
test_within() {
	if ! awk -v v="$1" -v e="$2" -v t="$3" \
		'BEGIN { d = v - e; if (d < 0) d = -d; exit !(d <= t) }'; then
		echo "test_within: $1 is not within $3 of $2" >&2
		return 1
	fi
}

# true_share NAME FILE: the number after NAME in FILE, where a test program
# printed the split of work it really had ("heavy 75.10 light 24.90").
true_share() {
	awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$2"
}

# retry N COMMAND...: COMMAND succeeds in one of N runs; retry_run is the
# number of the run (1 to N) while it runs, retry_runs is N.  Every statistical test goes
# through it, for the evidence a run may lack on a machine it does not
# know, busy or idle:
#  - a measurement held to the CPU time a program reports (retry 2): on a
#    VM the kernel's cpu-clock timer misses its periods while the host
#    holds the CPU, though the thread's CPU clock runs on (1 run in 80 of
#    137 ms lost 9-28 ms of samples so, under perf record as under
#    hpcrun); a second such stall in the same place is what would fail
#    it, where an error of hpcrun's fails every run;
#  - a label or share drawn from samples (retry 3): COMMAND gathers more
#    evidence in a later run, a program running longer in CPU time
#    (retry_budget), so a machine whose threads seldom run at once gets
#    more of the samples a label needs.
retry() {
	retry_runs=$1
	shift
	retry_run=1
	while :; do
		"$@" && return 0
		test $retry_run -lt $retry_runs || return 1
		echo "retry: run $retry_run of $retry_runs failed, once more: $*" >&2
		retry_run=$((retry_run + 1))
	done
}

# retry_budget MS: MS doubled for each run of retry after the first (MS in
# run 1, 2 MS in run 2, 4 MS in run 3), the CPU time a test program is to
# run for.
retry_budget() {
	echo $(($1 << (${retry_run:-1} - 1)))
}

# eventually COMMAND...: COMMAND succeeds within 20 s (tried every 0.1 s);
# for what a key changes on a terminal screen (tmux tests; the sanitizer
# build on a loaded machine is slow to draw).
eventually() {
	_i=0
	while [ $_i -lt 200 ]; do
		"$@" && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	echo "timed out waiting for: $*" >&2
	return 1
}

# test_valid_xml DTD FILE: FILE validates against DTD (needs XMLLINT).
test_valid_xml() {
	xmllint --noout --nonet --dtdvalid "$1" "$2"
}

# bounded_viewer COMMAND...: COMMAND with a 256 KiB stack (a tree walk
# that recurses once per level fails), 60 s of CPU and 1 GiB (quadratic
# work fails on the viewer's 200,000-deep paths, tests/lib/viewer-deep-db.sh);
# the wall clock only stops a hang.  Sanitizer builds reserve terabytes of
# address space and run slower: time alone, and more.
bounded_viewer() {
	if nm "$HPC_BUILD/bin/hpcviewer-tui" 2>/dev/null | grep -q __asan_report; then
		(ulimit -s 256 && ulimit -t 600 && timeout 1200 "$@")
	else
		(ulimit -s 256 && ulimit -v 1048576 && ulimit -t 60 &&
		 timeout 300 "$@")
	fi
}

# build_rt_folded: ./rt-folded, the profile reader of the hpcrun tests
# (tests/progs/rt-folded.c), linked against libhpc.a like build_mkprofile.
build_rt_folded() {
	san=
	if nm "$HPC_BUILD/obj/libhpc.a" 2>/dev/null | grep -q __asan_report; then
		san="-fsanitize=address,undefined"
	fi
	cc $san -I"$SRC_ROOT/lib" -o rt-folded "$TEST_PROGS/rt-folded.c" \
		"$HPC_BUILD/obj/libhpc.a" -lm
}

# structure_file MODULE SOURCE <PROCEDURES (tests/lib/structure.sh).
. "$TEST_DIRECTORY/lib/structure.sh"

# set_section_size FILE NAME SIZE: rewrites the sh_size of the section NAME
# of the ELF64 file FILE (malformed binaries).
set_section_size() {
	idx=$(readelf -S -W "$1" | sed -n "s/^ *\[ *\([0-9]*\)\] $2 .*/\1/p") &&
	shoff=$(readelf -h "$1" | sed -n "s/.*Start of section headers: *\([0-9]*\).*/\1/p") &&
	printf "$(printf "\\%03o\\%03o\\%03o\\%03o" $(($3 & 255)) $(($3 >> 8 & 255)) \
		$(($3 >> 16 & 255)) $(($3 >> 24 & 255)))" |
		dd of="$1" bs=1 seek=$((shoff + 64 * idx + 32)) conv=notrunc 2>/dev/null
}

# build_mkprofile: ./mkprofile, the synthetic-profile writer
# (tests/progs/pf-mkprofile.c); it links libhpc.a, which is instrumented in
# SANITIZE=1 builds.
build_mkprofile() {
	cc -I"$SRC_ROOT/lib" -o mkprofile "$TEST_PROGS/pf-mkprofile.c" "$HPC_BUILD/obj/libhpc.a" 2>/dev/null ||
	cc -fsanitize=address,undefined -I"$SRC_ROOT/lib" -o mkprofile "$TEST_PROGS/pf-mkprofile.c" "$HPC_BUILD/obj/libhpc.a"
}

# Open MPI refuses root without these (harmless otherwise); MPIRUN N ...
# runs N ranks however many CPUs there are.
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
# Ranks may use every CPU: Open MPI binds each rank to a core otherwise
# (two ranks or fewer), and hpcprof-mpi's -j threads would share it.
MPIRUN="mpirun --oversubscribe --bind-to none -np"
test_lazy_prereq HPCPROF_MPI 'command -v mpirun && test -x "$HPC_BUILD/bin/hpcprof-mpi"'
# What hpcprof-mpi says when -j is more than a rank's CPUs: a machine of
# one CPU says it in every run.
MPI_CPU_NOTICE="but a rank may run on"

# mpi_as_hpcprof HPCPROF-ARGS...: hpcprof (into dbh, report h.txt) and
# hpcprof-mpi on $MPI_RANKS ranks (default 2; dbm, mpi.txt) end with the
# same status, 0 or 1, write the same database and report, and say the
# same (mpirun's own lines and MPI_CPU_NOTICE aside; prerequisite
# HPCPROF_MPI).
mpi_as_hpcprof() {
	rm -rf dbh dbm &&
	sh=0 && hpcprof -o dbh --text h.txt "$@" 2>errh || sh=$? &&
	sm=0 && $MPIRUN ${MPI_RANKS:-2} hpcprof-mpi -j 2 -o dbm --text mpi.txt "$@" 2>errm.all || sm=$? &&
	test "$sh" -le 1 && test "$sh" = "$sm" &&
	grep "^hpcprof-mpi: " errm.all | grep -v "$MPI_CPU_NOTICE" >errm &&
	diff -r dbh dbm &&
	test_cmp h.txt mpi.txt &&
	sed "s/^hpcprof-mpi:/hpcprof:/" errm >errm.hpcprof &&
	sed s/dbh/dbm/ errh >errh.m &&
	test_cmp errh.m errm.hpcprof
}

# same_db STATUS J...: hpcprof -j J -S prog.hpcstruct on the measurement
# $IN for each J (into db-$IN-J, report $IN-J.txt), each exiting with
# STATUS, each database, report and message the first's; DB the first.
same_db() {
	status=$1 && shift &&
	for j in "$@"; do
		rc=0 &&
		hpcprof -j $j -S prog.hpcstruct -o db-$IN-$j \
			--text $IN-$j.txt $IN 2>err-$IN-$j || rc=$? &&
		test $rc = $status &&
		sed "s/db-$IN-$j/DB/" err-$IN-$j >msg-$IN-$j &&
		test_cmp msg-$IN-$1 msg-$IN-$j &&
		test_cmp $IN-$1.txt $IN-$j.txt &&
		diff -r db-$IN-$1 db-$IN-$j || return 1
	done
	DB=db-$IN-$1
}
