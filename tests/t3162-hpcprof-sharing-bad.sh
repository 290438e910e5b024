#!/bin/sh
test_description='hpcprof says in one line what is wrong with a .hpcshare file and uses the rest'
. "$(dirname "$0")/test-lib.sh"

T1=data/prog-000000-001-00001234-10-0

test_expect_success 'synthetic sharing files' '
	build_mkprofile &&
	sh "$TEST_DIRECTORY/lib/share-synthetic.sh" &&
	cp $T1.hpcshare good.hpcshare
'

test_expect_success 'a malformed file: one line naming it, the database without it' '
	sed "s/^access 1100 1 2 0 8 r 0 25$/access 1100 1 2 9000 8 r 0 25/" good.hpcshare >$T1.hpcshare &&
	test_must_fail hpcprof -S prog.hpcstruct -o db --text report.txt data 2>err &&
	grep "^hpcprof: warning: .$T1.hpcshare.: line 12: access offset beyond its object; sharing data of this thread ignored$" err &&
	test $(grep -c hpcshare err) = 1 &&
	test -f db/sharing.tsv &&
	test_must_fail grep "	1	[0-9]*	[0-9]*	[^	]*$" db/sharing.tsv &&
	grep "^object.*	sarr \[vars\]$" db/sharing.tsv | cut -f3 >actual &&
	echo private >expect &&
	test_cmp expect actual
'

test_expect_success HPCPROF_MPI 'hpcprof-mpi, the file on rank 1 of 2: the same line, the same database' '
	mpi_as_hpcprof -S prog.hpcstruct data
'

test_expect_success 'an object naming no data node of its profile is left out in one line' '
	sed "s/^object 2 heap 0x10000 8192 22$/object 2 heap 0x10000 8192 77/" good.hpcshare >$T1.hpcshare &&
	test_must_fail hpcprof -S prog.hpcstruct -o db --text report.txt data 2>err &&
	grep "^hpcprof: warning: .$T1.hpcshare.: object 2 names node 77, no allocation path or variable of the profile; those objects are left out$" err &&
	grep "^object.*	sarr \[vars\]$" db/sharing.tsv | cut -f3 >actual &&
	echo false-sharing >expect &&
	test_cmp expect actual
'

test_expect_success HPCPROF_MPI 'hpcprof-mpi: rank 1 finds it, rank 0 says it, the same database' '
	mpi_as_hpcprof -S prog.hpcstruct data
'

test_expect_success 'a FIFO, an empty file, binary data are refused, hpcprof goes on' '
	rm $T1.hpcshare && mkfifo $T1.hpcshare &&
	test_must_fail hpcprof -S prog.hpcstruct -o db data 2>err &&
	grep "not a regular file" err && rm $T1.hpcshare &&
	: >$T1.hpcshare &&
	test_must_fail hpcprof -S prog.hpcstruct -o db data 2>err &&
	grep "$T1.hpcshare.: empty sharing file" err &&
	printf "hpcshare: 1\n\000\n" >$T1.hpcshare &&
	test_must_fail hpcprof -S prog.hpcstruct -o db data 2>err &&
	grep "not a sharing file (binary data)" err
'

test_done
