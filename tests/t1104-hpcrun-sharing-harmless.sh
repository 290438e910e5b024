#!/bin/sh
test_description='hpcrun --sharing never harms the program: the hottest heap block handed to the kernel, a heap signal stack'
. "$(dirname "$0")/test-lib.sh"

# Runs of each program, native and measured; each must match.
N=${HPC_HARMLESS_RUNS:-20}

test_expect_success 'setup: the hostile program and its native output' '
	cc -O2 -g -pthread -o share-hostile "$TEST_PROGS/share-hostile.c" &&
	printf "%s\n" 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef >input &&
	./share-hostile input >plain &&
	! grep FAILED plain
'

test_expect_success "$N runs under hpcrun --sharing: output and exit status as native" '
	i=0 &&
	while test $i -lt $N; do
		rm -rf m &&
		hpcrun -q --sharing -o m ./share-hostile input >out &&
		test_cmp plain out || return 1
		i=$((i + 1))
	done &&
	ls m/share-hostile-*.hpcshare >files &&
	test_line_count = 3 files
'

test_expect_success 'the hammered block is in the records, and nothing dropped' '
	grep -q "^object [0-9]* heap .* 65536 " m/share-hostile-*.hpcshare &&
	grep -q "^sharing-records: [1-9]" m/share-hostile-*.log &&
	grep -q "^sharing-records-dropped: 0" m/share-hostile-*.log
'

test_done
