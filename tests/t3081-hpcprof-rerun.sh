#!/bin/sh
test_description='hpcprof re-runs lose nothing; a database is complete or absent; write errors name the file'
. "$(dirname "$0")/test-lib.sh"

M=hpctoolkit-testmeas-loops-measurements
D=hpctoolkit-testmeas-loops-database
# A small tmpfs for the full-disk tests (we may be root in a container that
# may not mount): unmounted however the script ends.
test_lazy_prereq TMPFS 'mkdir -p probe && mount -t tmpfs -o size=64k tmpfs probe && umount probe'
trap 'umount "$TRASH/mnt" 2>/dev/null' EXIT

test_expect_success FIXTURES 'the README sequence run three times keeps every database' '
	cp -r "$FIXTURES/loops-perf.m" $M &&
	hpcprof $M 2>err1 &&
	grep -x "hpcprof: wrote '"'"'$D'"'"' (1 process, 4 threads, 227 scopes)" err1 &&
	! grep moved err1 &&
	echo first >$D/marker &&
	hpcprof $M 2>err2 &&
	grep -x "hpcprof: moved the previous '"'"'$D'"'"' to '"'"'$D.1'"'"'" err2 &&
	grep -x "hpcprof: wrote '"'"'$D'"'"' (1 process, 4 threads, 227 scopes)" err2 &&
	hpcprof $M/ 2>err3 &&
	grep -x "hpcprof: moved the previous '"'"'$D'"'"' to '"'"'$D.2'"'"'" err3 &&
	test "$(cat $D.1/marker)" = first &&
	! test -e $D.2/marker && ! test -e $D/marker &&
	test_cmp $D.1/experiment.xml $D/experiment.xml &&
	test_cmp $D.2/experiment.xml $D/experiment.xml &&
	! ls -A | grep "\\.tmp-"
'

test_expect_success FIXTURES 'hpcrun'"'"'s -measurements-N gives -database-N' '
	cp -r $M $M-2 &&
	hpcprof $M-2 2>err &&
	grep -x "hpcprof: wrote '"'"'$D-2'"'"' (1 process, 4 threads, 227 scopes)" err &&
	test -f $D-2/experiment.xml
'

test_expect_success FIXTURES '-o an empty directory fills it; a file or another directory is refused' '
	mkdir empty &&
	hpcprof -o empty $M 2>err &&
	test -f empty/experiment.xml &&
	echo keep >file &&
	test_must_fail hpcprof -o file $M 2>err &&
	grep -x "hpcprof: '"'"'file'"'"': exists and is not a database (no experiment.xml); not replaced, choose another -o" err &&
	test "$(cat file)" = keep &&
	mkdir other && echo keep >other/notes &&
	test_must_fail hpcprof -o other $M 2>err &&
	test "$(ls -A other)" = notes &&
	ln -s empty link &&
	test_must_fail hpcprof -o link $M 2>err &&
	grep "'"'"'link'"'"': exists and is not a database" err
'

test_expect_success FIXTURES '-o DIR/ is DIR' '
	hpcprof -o slash/ $M 2>err &&
	hpcprof -o slash/ $M 2>err &&
	grep -x "hpcprof: moved the previous '"'"'slash'"'"' to '"'"'slash.1'"'"'" err &&
	test "$(ls -A slash | sort | tr "\n" " ")" = "experiment.xml thread-values.tsv threads.tsv "
'

test_expect_success FIXTURES 'a killed run'"'"'s temporary directory goes on the next run, a live one stays' '
	mkdir .dbk.tmp-AAAAAA .dbk.tmp-BBBBBB .dbk.tmp-CCCCCC &&
	echo partial >.dbk.tmp-AAAAAA/threads.tsv &&
	touch -d "1 minute ago" .dbk.tmp-AAAAAA .dbk.tmp-BBBBBB &&
	{ flock .dbk.tmp-BBBBBB sleep 30 & } &&
	holder=$! &&
	sleep 0.5 &&
	hpcprof -o dbk $M 2>err &&
	kill $holder &&
	grep -x "hpcprof: warning: '"'"'.dbk.tmp-AAAAAA'"'"': removed, left by an hpcprof that did not finish" err &&
	test $(grep -c removed err) = 1 &&
	! test -e .dbk.tmp-AAAAAA &&
	test -d .dbk.tmp-BBBBBB && test -d .dbk.tmp-CCCCCC &&
	test "$(ls -A dbk | sort | tr "\n" " ")" = "experiment.xml thread-values.tsv threads.tsv "
'

test_expect_success FIXTURES '--text does not write through a symbolic link' '
	echo precious >target &&
	ln -s target report-link &&
	test_must_fail hpcprof --text report-link -o dbl $M 2>err &&
	grep -x "hpcprof: '"'"'report-link'"'"': is a symbolic link; not written through" err &&
	test "$(cat target)" = precious &&
	! test -e dbl
'

test_expect_success FIXTURES '--text on a full device: the error names it' '
	test_must_fail hpcprof --text /dev/full -o dbf $M 2>err &&
	grep -x "hpcprof: '"'"'/dev/full'"'"': write error: No space left on device" err
'

test_expect_success FIXTURES,TMPFS 'a full disk: the file is named, no database and no temporary directory left' '
	mkdir mnt && mount -t tmpfs -o size=32k tmpfs mnt &&
	test_must_fail hpcprof -o mnt/db $M 2>err &&
	grep -x "hpcprof: '"'"'mnt/db/experiment.xml'"'"': write error: No space left on device" err &&
	! grep wrote err &&
	test "$(ls -A mnt)" = ""
'

# -j 3 writes thread-values.tsv in pieces, with pwrite (parallel.c).
test_expect_success FIXTURES,TMPFS 'a disk full while -j 3 writes thread-values.tsv in pieces: named, nothing left' '
	umount mnt && mount -t tmpfs -o size=8k tmpfs mnt &&
	test_must_fail hpcprof -j 3 -o mnt/db $M 2>err &&
	grep -x "hpcprof: '"'"'mnt/db/thread-values.tsv'"'"': write error: No space left on device" err &&
	! grep wrote err &&
	test "$(ls -A mnt)" = ""
'

test_expect_success FIXTURES,TMPFS 'a full disk keeps the previous database as it was' '
	umount mnt && mount -t tmpfs -o size=256k tmpfs mnt &&
	hpcprof -o mnt/db $M 2>err &&
	cp mnt/db/experiment.xml before.xml &&
	{ cat /dev/zero >mnt/filler 2>/dev/null || :; } &&
	truncate -s -40K mnt/filler &&
	test_must_fail hpcprof -o mnt/db $M 2>err &&
	grep -x "hpcprof: '"'"'mnt/db/experiment.xml'"'"': write error: No space left on device" err &&
	test "$(ls -A mnt | sort | tr "\n" " ")" = "db filler " &&
	test_cmp before.xml mnt/db/experiment.xml
'

test_done
