#!/bin/sh
test_description='hpcrun: programs that close every fd (hpcrun'\''s included) keep their behaviour and their samples'
. "$(dirname "$0")/test-lib.sh"

# share LEAF FOLDED: percentage of the metric total whose leaf frame is LEAF.
share() {
	awk -v leaf="$1" '!/^#/ { n = split($1, f, ";"); t += $NF; if (f[n] == leaf) s += $NF }
		END { printf "%.2f\n", t ? 100 * s / t : -1 }' "$2"
}

# folded DIR FILE-GLOB: the folded paths of the profiles matching the glob.
folded() {
	for f in $1/$2; do ./rt-folded "$f" "$TRASH/rt-fds" rt-fds.nm || return 1; done
}

# same_as_without MODE DIR [ULIMIT [EVENT]]: runs "rt-fds MODE 60" without
# and with hpcrun -o DIR $OPTS [-e EVENT] (under ulimit -n ULIMIT, "-" for
# none); stdout, exit status and the file it wrote are the same; hpcrun's
# stderr is in DIR.err.
same_as_without() {
	(test "${3:--}" = - || ulimit -n $3; ./rt-fds $1 60 >plain.out; echo "exit $?" >>plain.out) &&
	cp rt-fds.out plain.file &&
	(test "${3:--}" = - || ulimit -n $3; hpcrun -o $2 $OPTS ${4:+-e $4} ./rt-fds $1 60 >$2.out 2>$2.err;
	 echo "exit $?" >>$2.out) &&
	test_cmp plain.out $2.out &&
	test_cmp plain.file rt-fds.out &&
	echo "exit 0" >exit0 && tail -n 1 $2.out >st && test_cmp exit0 st
}

test_expect_success 'setup: test program, nm listing, profile reader' '
	cc -O2 -pthread -o rt-fds "$TEST_PROGS/rt-fds.c" &&
	nm -S --defined-only rt-fds >rt-fds.nm &&
	build_rt_folded
'

# One signal per sample: each thread's perf event holds a fd, which the
# program can close (the fd gate, hpcrun/rt/fd-gate.c).
OPTS=--no-stack-copy

test_expect_success PERF_EVENTS 'hpcrun keeps its perf fd above the numbers the program uses' '
	hpcrun -o lo $OPTS ./rt-fds close 3 >out &&
	grep -q "^file on fd 3: written after the close$" out &&
	grep -q "^sampling-rearmed: 0$" lo/*.log
'

for mode in close range closefrom dup2; do
	test_expect_success PERF_EVENTS "$mode: output, exit status and file unchanged; sampling re-armed" '
		same_as_without '$mode' '$mode' 1024 &&
		test ! -s '$mode'.err &&
		grep -q "^sampling-rearmed: 1$" '$mode'/*.log &&
		grep -q "^sampling-stopped: 0$" '$mode'/*.log &&
		folded '$mode' "*.hpcrun" >f &&
		test_within "$(share after f)" 75 15 &&
		test_within "$(share before f)" 25 15
	'
done

test_expect_success PERF_EVENTS 'threads: every thread re-armed, each samples on after the close' '
	same_as_without threads thr &&
	test ! -s thr.err &&
	grep -q "^sampling-rearmed: 3$" thr/*.log &&
	grep -q "^threads: 3$" thr/*.log &&
	folded thr "*-000-*.hpcrun" >main &&
	test_within "$(share after main)" 75 15 &&
	for t in 001 002; do
		folded thr "*-$t-*.hpcrun" >w$t &&
		share thread_after w$t >s$t &&
		test "$(awk "{ print (\$1 >= 40) }" s$t)" = 1 || exit 1
	done
'

# No sample is lost to the re-arming; a signal of a closed event still
# queued when its thread has ended arrives after the end (dropped-after-end),
# as at any thread's end.
test_expect_success PERF_EVENTS '500 close_range calls while three threads are sampled' '
	same_as_without churn churn &&
	test ! -s churn.err &&
	grep -q "^sampling-rearmed: 1500$" churn/*.log &&
	dropped=$(sed -n "s/^samples-dropped: //p" churn/*.log) &&
	after=$(sed -n "s/^dropped-after-end: //p" churn/*.log) &&
	test "$dropped" = "$after" &&
	folded churn "*-000-*.hpcrun" >cf &&
	test_within "$(share after cf)" 70 20
'

test_expect_success PERF_EVENTS 'no fd left to re-open on: sampling stops, said once on stderr and in the log' '
	same_as_without full full 64 &&
	grep -c "^hpcrun: warning: the program closed the fd on which hpcrun samples thread 0 .*(EMFILE)" full.err >n &&
	echo 1 >one && test_cmp one n &&
	test_line_count = 1 full.err &&
	grep -q "^sampling-rearmed: 0$" full/*.log &&
	grep -q "^sampling-stopped: 1$" full/*.log &&
	folded full "*.hpcrun" >ff &&
	test_within "$(share after ff)" 0 5
'

# Stack copies (the default): the events live in their ring buffers, with
# no fd for the program to close.
OPTS=

for mode in close range threads; do
	test_expect_success PERF_EVENTS "stack copies, $mode: no fd to lose, output unchanged, samples on" '
		same_as_without '$mode' ring-'$mode' 1024 &&
		test ! -s ring-'$mode'.err &&
		grep -q "^stack-copy: 8192$" ring-'$mode'/*.log &&
		grep -q "^sampling-rearmed: 0$" ring-'$mode'/*.log &&
		grep -q "^sampling-stopped: 0$" ring-'$mode'/*.log &&
		grep -q "^dropped-outside-modules: 0$" ring-'$mode'/*.log &&
		folded ring-'$mode' "*-000-*.hpcrun" >rf &&
		test_within "$(share after rf)" 75 15
	'
done

test_expect_success PERF_EVENTS 'stack copies with no fd left: sampling goes on' '
	same_as_without full ring-full 64 &&
	test ! -s ring-full.err &&
	grep -q "^sampling-stopped: 0$" ring-full/*.log &&
	folded ring-full "*.hpcrun" >rff &&
	test_within "$(share after rff)" 75 15
'

test_expect_success 'CPUTIME (a timer, no fd): nothing to re-arm, nothing lost' '
	same_as_without range tim - CPUTIME &&
	test ! -s tim.err &&
	grep -q "^sampling-rearmed: 0$" tim/*.log &&
	grep -q "^sampling-stopped: 0$" tim/*.log &&
	folded tim "*.hpcrun" >tf &&
	test_within "$(share after tf)" 75 15
'

test_done
