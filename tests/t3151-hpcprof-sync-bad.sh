#!/bin/sh
test_description='hpcprof refuses a bad .hpcsync file in one line, and uses the rest'
. "$(dirname "$0")/test-lib.sh"

T0=prog-000000-000-0-42-0
T1=prog-000000-001-0-42-0

test_expect_success 'setup: the hand-made barrier loop' '
	build_mkprofile &&
	sh "$TEST_DIRECTORY/lib/sync-meas.sh" good
'

# bad_case: hpcprof on a copy of good/ whose thread 1 file is ./$T1.hpcsync
bad_case() {
	rm -rf m db && mkdir m && cp good/*.hpcrun good/$T0.hpcsync m/ &&
	cp $T1.hpcsync m/ &&
	test_must_fail hpcprof -S good/prog.hpcstruct -o db m 2>err &&
	grep "$T1.hpcsync" err >lines &&
	test_line_count = 1 lines &&
	test -f db/phases.tsv &&
	grep "^thread	1	0	10	0.500000000" db/phases.tsv &&
	! grep "^thread	1	1	" db/phases.tsv
}

test_expect_success 'a site the file never defined' '
	sed "s/^sync 1 /sync 7 /" good/$T1.hpcsync >$T1.hpcsync &&
	bad_case &&
	grep -x "hpcprof: warning: .*$T1.hpcsync.: line 5: sync names unknown site 7; synchronization data of this thread ignored" err
'

test_expect_success 'a truncated file, binary data, a negative wait' '
	head -c 100 good/$T1.hpcsync >$T1.hpcsync &&
	bad_case &&
	grep "$T1.hpcsync.: line 6: truncated" err &&
	rm -rf db && printf "hpcsync: 1\n\000\n" >m/$T1.hpcsync &&
	test_must_fail hpcprof -S good/prog.hpcstruct -o db m 2>err &&
	grep "$T1.hpcsync.: not a synchronization file (binary data)" err &&
	rm -rf db && sed "s/ 0.100000000 / -0.1 /" good/$T1.hpcsync >m/$T1.hpcsync &&
	test_must_fail hpcprof -S good/prog.hpcstruct -o db m 2>err &&
	grep "$T1.hpcsync.: line 5: expected seconds" err
'

test_expect_success 'a site at a node its profile lacks: refused, not a second site' '
	sed "s/^site 1 barrier 0x7f00 6 2/site 1 barrier 0x7f00 99 2/" \
		good/$T1.hpcsync >$T1.hpcsync &&
	bad_case &&
	grep -x "hpcprof: warning: .*$T1.hpcsync.: site 1 names node 99, which its profile lacks; synchronization data of this thread ignored" err &&
	test $(grep -c "^site	" db/phases.tsv) = 2
'

test_expect_success 'a wait of 1e308 s and a barrier of 4e9 threads: no measurement' '
	sed "s/ 0.100000000 / 1e308 /" good/$T1.hpcsync >$T1.hpcsync &&
	bad_case &&
	grep -x "hpcprof: warning: .*$T1.hpcsync.: line 5: more seconds than any measurement (over 1e7); synchronization data of this thread ignored" err &&
	sed "s/^site 1 barrier 0x7f00 6 2/site 1 barrier 0x7f00 6 4000000000/" \
		good/$T1.hpcsync >$T1.hpcsync &&
	bad_case &&
	grep "$T1.hpcsync.: line 4: more threads than any measurement (over 2^24);" err
'

test_expect_success 'a thread number other than the file name'"'"'s or the profile'"'"'s' '
	sed "s/^thread: 1/thread: 0/" good/$T1.hpcsync >$T1.hpcsync &&
	bad_case &&
	grep "$T1.hpcsync.: line 2: thread 0, but the file name says thread 1;" err &&
	rm -rf m db && mkdir m && cp good/$T0.hpcrun good/$T0.hpcsync m/ &&
	cp good/$T0.hpcrun m/$T1.hpcrun && cp good/$T1.hpcsync m/ &&
	test_must_fail hpcprof -S good/prog.hpcstruct -o db m 2>err &&
	grep "$T1.hpcsync" err >lines &&
	test_line_count = 1 lines &&
	grep -x "hpcprof: warning: .*$T1.hpcsync.: thread 1, but its profile.s is thread 0; synchronization data of this thread ignored" err &&
	! grep "^thread	1	1	" db/phases.tsv
'

test_expect_success 'a FIFO or a directory in place of the file: refused, no hang' '
	rm -rf m db && mkdir m && cp good/*.hpcrun good/$T0.hpcsync m/ &&
	mkfifo m/$T1.hpcsync &&
	test_must_fail hpcprof -S good/prog.hpcstruct -o db m 2>err &&
	grep "not a regular file (a FIFO), not a synchronization file" err &&
	rm -rf db m/$T1.hpcsync && mkdir m/$T1.hpcsync &&
	test_must_fail hpcprof -S good/prog.hpcstruct -o db m 2>err &&
	grep "is a directory, not a synchronization file" err
'

test_expect_success 'a line longer than any record is refused' '
	rm -rf m db && mkdir m && cp good/*.hpcrun good/$T0.hpcsync m/ &&
	{ echo "hpcsync: 1"; printf "x%05000d\n" 0; } >m/$T1.hpcsync &&
	test_must_fail hpcprof -S good/prog.hpcstruct -o db m 2>err &&
	grep "$T1.hpcsync.: line 2: line too long" err
'

test_expect_success 'per-phase samples of a profile without a .hpcsync still stay out of the totals' '
	rm -rf m db && mkdir m && cp good/*.hpcrun m/ &&
	hpcprof -S good/prog.hpcstruct -o db m &&
	xmllint --xpath "//SecCallPathProfileData/M[@n=0]/@v" db/experiment.xml >actual &&
	echo " v=\"61\"" >expect &&
	test_cmp expect actual
'

test_done
