#!/bin/sh
test_description='make demo: the README quick start runs end to end and finds the hot loops'
. "$(dirname "$0")/test-lib.sh"

# demo.c: the main thread's matrix multiply (mm) and the worker's
# stencil + reduce run side by side.  The split is not fixed by the
# program: it depends on how the two threads share caches and cores (perf
# report has put mm anywhere from 51% to 60% on these VMs, and hpcrun
# agrees with perf within 2 points run for run), and another CPU's caches
# and cores move it further.  So this test asks for mm on top with 36-80%
# of the time; accuracy against a known split is t3050's job.
test_expect_success 'demo pipeline runs and ends with the viewer hint' '
	DEMO_DIR="$TRASH/demo" "$SRC_ROOT/tests/lib/demo.sh" >out 2>err &&
	grep -q "^Browse it interactively with:" out &&
	test -f demo/demo-database/experiment.xml
'

test_expect_success 'the hottest procedure is mm, with 36-80% of the time' '
	sed -n "/^Top procedures/,/^\$/p" out | sed -n 3p >top &&
	set -- $(cat top) &&
	test "$5" = mm &&
	test_within "${1%\%}" 58 22
'

test_expect_success 'mm, stencil and reduce hold nearly all of it' '
	sed -n "/^Top procedures/,/^\$/p" out | sed -n "3,5p" | awk "{ print \$5 }" | sort >names &&
	printf "mm\nreduce\nstencil\n" >expect &&
	test_cmp expect names &&
	sed -n "/^Top procedures/,/^\$/p" out | sed -n "3,5p" |
		awk "{ s += \$1 } END { print s }" >sum &&
	test_within "$(cat sum)" 99.5 1.5
'

test_expect_success 'the loop nest of mm is found three deep, innermost at line 25' '
	sed -n "/^Top loops/,/^\$/p" out >loops &&
	grep -q "loop at demo.c:23 \[mm\]" loops &&
	grep -q "loop at demo.c:24 \[mm\]" loops &&
	grep -q "loop at demo.c:25 \[mm\]" loops &&
	grep -q "loop at demo.c:76 \[main\]" loops
'

test_done
