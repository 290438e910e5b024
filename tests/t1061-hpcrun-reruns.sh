#!/bin/sh
test_description='hpcrun: run again, the newest measurement has the plain name, the earlier one is moved aside and said; where it writes is said'
. "$(dirname "$0")/test-lib.sh"

D=hpctoolkit-rt-signals-measurements

# pid_of DIR: the launch pid its marker records.
pid_of() {
	sed -n "s/^pid //p" $1/.hpcrun-launch
}

# launched_by DIR PID: DIR is the measurement of the launch PID.
launched_by() {
	test "$(pid_of $1 2>/dev/null)" = $2
}

test_expect_success 'setup: test program' '
	cc -O2 -pthread -o rt-signals "$TEST_PROGS/rt-signals.c"
'

test_expect_success 'the first run says where it writes, in one line' '
	hpcrun ./rt-signals rtmin8 2 >out 2>err &
	p1=$! && wait $p1 &&
	echo "hpcrun: writing the measurements to '\''$D'\''" >expect &&
	test_cmp expect err &&
	test "$(pid_of $D)" = $p1 &&
	echo $p1 >p1 &&
	ls $D/*.hpcrun
'

test_expect_success 'the second run takes the plain name and moves the first to -2, saying so' '
	hpcrun ./rt-signals rtmin8 2 >out 2>err &
	p2=$! && wait $p2 &&
	cat >expect <<-EOT &&
	hpcrun: moved the earlier '\''$D'\'' to '\''$D-2'\''
	hpcrun: writing the measurements to '\''$D'\''
	EOT
	test_cmp expect err &&
	test "$(pid_of $D)" = $p2 &&
	test "$(pid_of $D-2)" = "$(cat p1)" &&
	ls $D/*.log $D-2/*.log >logs && test_line_count = 2 logs
'

test_expect_success 'hpcstruct and hpcprof on the plain name read the newest run' '
	hpcstruct $D >/dev/null 2>&1 &&
	hpcprof -o db $D >/dev/null 2>&1 &&
	test -s db/experiment.xml &&
	grep -c "^" db/threads.tsv >n &&
	test "$(cat n)" -ge 2
'

test_expect_success '-q says nothing; the third run moves the second to -3' '
	hpcrun -q ./rt-signals rtmin8 2 >out 2>err &&
	test_must_fail test -s err &&
	ls -d $D $D-2 $D-3
'

test_expect_success 'a measurement still running is never moved: the new run takes the next free name' '
	hpcrun -q ./rt-signals blockall 200 >bg.out &
	bg=$! &&
	eventually launched_by $D $bg &&
	hpcrun ./rt-signals rtmin8 1 >out 2>err &&
	echo "hpcrun: writing the measurements to '\''$D-5'\''" >expect &&
	test_cmp expect err &&
	wait $bg &&
	test "$(pid_of $D)" = $bg &&
	test "$(pid_of $D-4)" != $bg &&
	ls $D/*.log $D-5/*.log >logs && test_line_count = 2 logs
'

test_expect_success 'an empty directory of the plain name is used as it is' '
	mkdir empty && (cd empty && mkdir $D &&
	hpcrun ./../rt-signals rtmin8 1 >out 2>err &&
	echo "hpcrun: writing the measurements to '\''$D'\''" >expect &&
	test_cmp expect err &&
	ls $D/*.log)
'

test_expect_success '-o DIR: the user'\''s name, new or empty; a non-empty one is refused as before' '
	hpcrun -q -o mine ./rt-signals rtmin8 1 >out &&
	ls mine/*.log &&
	test_must_fail hpcrun -o mine ./rt-signals rtmin8 1 2>err &&
	echo "hpcrun: '\''mine'\'': exists and is not empty (hpcrun never mixes two runs in one directory)" >expect &&
	test_cmp expect err &&
	mkdir empty2 && hpcrun -q -o empty2 ./rt-signals rtmin8 1 >out && ls empty2/*.log
'

test_expect_success 'a file of the directory'\''s name is an error, not moved' '
	mkdir filecase && (cd filecase && echo x >$D &&
	test_must_fail hpcrun ../rt-signals rtmin8 1 2>err &&
	echo "hpcrun: '\''$D'\'': exists and is not a directory" >expect &&
	test_cmp expect err)
'

test_done
