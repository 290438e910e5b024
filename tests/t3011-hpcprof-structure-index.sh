#!/bin/sh
test_description='hpcprof parses only the sampled procedures of indexed structure files'
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'hpcstruct writes an index beside each structure file' '
	cc -O2 -g -o split "$TEST_PROGS/pf-split.c" &&
	hpcrun -o m ./split 2000000 >/dev/null &&
	hpcstruct --all m &&
	ls m/structs/*.hpcstruct >structs &&
	ls m/structs/*.hpcstruct.idx >idx &&
	test_line_count = $(wc -l <structs) idx &&
	mkdir idx-before && cp m/structs/*.idx idx-before/
'

test_expect_success 'the first hpcprof uses those indexes as they are and parses a part of each file' '
	HPCPROF_STRUCT_INDEX=stats hpcprof -o db --text report m 2>err &&
	for f in m/structs/*.idx; do
		cmp "$f" "idx-before/${f##*/}" || exit 1
	done &&
	grep "split\.hpcstruct'"'"': [0-9]* of [0-9]* procedures parsed" err >n &&
	awk "{ if (\$(NF - 4) + 0 >= \$(NF - 2) + 0) exit 1 }" n
'

test_expect_success 'the database is the one whole files give, with and without the cache' '
	HPCPROF_STRUCT_INDEX=0 hpcprof -o db0 --text report0 m 2>err0 &&
	! grep "procedures parsed" err0 &&
	test_cmp report0 report &&
	test_cmp db0/experiment.xml db/experiment.xml &&
	hpcprof -o db1 --text report1 m &&
	test_cmp report0 report1 &&
	test_cmp db0/experiment.xml db1/experiment.xml
'

test_expect_success 'a stale index (structure file changed) is made again' '
	s=$(grep split.hpcstruct structs) &&
	cp "$s.idx" old.idx &&
	touch -d "2001-01-01" "$s" &&
	hpcprof -o db2 --text report2 m &&
	! cmp -s old.idx "$s.idx" &&
	test_cmp report0 report2
'

test_expect_success 'an index of another file or of garbage is not used' '
	s=$(grep split.hpcstruct structs) &&
	cp "$s" other.hpcstruct &&
	hpcprof -o dbo -S other.hpcstruct m &&
	cp other.hpcstruct.idx "$s.idx" &&
	hpcprof -o db3 --text report3 m &&
	test_cmp report0 report3 &&
	head -c 100 /dev/urandom >"$s.idx" &&
	hpcprof -o db4 --text report4 m &&
	test_cmp report0 report4 &&
	! cmp -s other.hpcstruct.idx "$s.idx"
'

test_expect_success 'an index that no longer matches its file: the file is read whole' '
	s=$(grep split.hpcstruct structs) &&
	cp "$s" saved &&
	sed "s/^<P /<P  /" saved >"$s" && touch -r saved "$s" &&
	hpcprof -o db5 --text report5 m 2>err5 &&
	test_cmp report0 report5 &&
	cp saved "$s"
'

test_expect_success 'an index that is a FIFO is not waited on' '
	s=$(grep split.hpcstruct structs) &&
	rm -f "$s.idx" && mkfifo "$s.idx" &&
	timeout 60 hpcprof -o db6 --text report6 m &&
	test_cmp report0 report6 &&
	rm -f "$s.idx"
'

test_expect_success 'hpcstruct -o FILE and a structure reused from the cache get an index too' '
	hpcstruct -o one.hpcstruct split &&
	test -s one.hpcstruct.idx &&
	rm -r m/structs &&
	hpcstruct m 2>err &&
	grep -q "reused cached structure" err &&
	ls m/structs/*.hpcstruct.idx >idx2 &&
	test_cmp idx idx2 &&
	hpcprof -o db8 --text report8 m &&
	test_cmp report0 report8
'

test_expect_success NOT_ROOT 'a read-only directory: the index serves from memory' '
	cp -r m ro && rm ro/structs/*.idx && chmod a-w ro/structs &&
	HPCPROF_STRUCT_INDEX=stats hpcprof -o db6 --text report6 ro 2>err6 &&
	chmod u+w ro/structs &&
	grep "procedures parsed" err6 &&
	test_cmp report0 report6
'

test_expect_success FIXTURES 'HPCToolkit structure files are read whole, never indexed' '
	cp -r "$FIXTURES/loops-perf.m" lp &&
	HPCPROF_STRUCT_INDEX=stats hpcprof -o db7 lp 2>err7 &&
	! grep "procedures parsed" err7 &&
	! ls lp/structs/*.idx
'

test_done
