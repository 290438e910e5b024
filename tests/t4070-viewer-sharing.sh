#!/bin/sh
test_description='hpcviewer-tui: the data view shows each object its sharing label (a CSV column named sharing) and, for the selected object, threads x lines and page x node'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/viewer-screen.sh"

test_lazy_prereq SHARING 'hpcrun --help 2>&1 | grep -q -- --sharing'

# The synthetic measurement of tests/lib/share-synthetic.sh (its truth there).
test_expect_success 'a database with sharing data and one without' '
	build_mkprofile &&
	sh "$TEST_DIRECTORY/lib/share-synthetic.sh" &&
	hpcprof -S prog.hpcstruct -o db data 2>/dev/null &&
	mkdir nosh && cp data/*.hpcrun nosh/ &&
	hpcprof -S prog.hpcstruct -o db0 nosh 2>/dev/null
'

test_expect_success 'CSV: the sharing column holds each object its label, empty elsewhere' '
	hpcviewer-tui --csv --view data --depth 1 db >csv &&
	head -n 1 csv | cut -d, -f1-6 >head &&
	echo depth,kind,scope,file,line,sharing >expect &&
	test_cmp expect head &&
	sed 1d csv | sed "s/\"[^\"]*\"/X/" | cut -d, -f2,6 >actual &&
	printf "%s\n" root, heap,producer-consumer heap,private \
		static,false-sharing stack, unknown, >expect &&
	test_cmp expect actual &&
	hpcviewer-tui --csv --view data db | sed 1d | grep -v "^[01]," |
		sed "s/\"[^\"]*\"/X/" | cut -d, -f6 | sort -u >below &&
	echo >expect &&
	test_cmp expect below
'

test_expect_success 'the label of an object ends with its label and remote share' '
	hpcviewer-tui --stdio --width 0 --view data --depth 1 db >out &&
	grep "sarr \[vars\] (8000 bytes in 1 block, 2 threads, offsets \[0, 8000), false-sharing, 51.4% remote)$" out &&
	grep "alloc_b prog.c:31 < main prog.c:13 (.*, producer-consumer, 41.9% remote)$" out
'

test_expect_success 'without sharing data the CSV and labels are as before' '
	hpcviewer-tui --csv --view data --depth 1 db0 >csv0 &&
	head -n 1 csv0 | cut -d, -f1-6 >head &&
	echo "depth,kind,scope,file,line,cycles:Sum (I)" >expect &&
	test_cmp expect head &&
	test_must_fail grep "sharing\|remote" csv0 &&
	hpcviewer-tui --csv db >top && hpcviewer-tui --csv db0 >top0 &&
	head -n 1 top >h && head -n 1 top0 >h0 && test_cmp h0 h
'

test_expect_success '--detail: threads x lines and page x node of one object' '
	hpcviewer-tui --detail "sarr [vars]" db >detail &&
	cat >expect <<-\EOT &&
	sharing: false-sharing, latent false sharing at alignment -, 2 threads, 36 accesses (0 reads, 36 writes), 16 transfers
	NUMA: 51.4% remote of 35 with a home, first toucher thread 0; initialize in parallel: let each thread first-touch the part it uses
	threads x lines (reads/writes):
	  block               offset  label                 thread 0     thread 1
	  0x601000                 0  false-sharing              0/8          0/9
	  0x601000               128  private                    0/9            -
	  0x601000               192  private                      -          0/9
	page x node (accesses by the CPU'"'"'s node):
	  page               label              home  remote  per node (0,1,...)
	  0x601000           false-sharing         0      18  18,18
	EOT
	test_cmp expect detail &&
	hpcviewer-tui --detail "alloc_b prog.c:31 < main prog.c:13" db >detail &&
	grep "^sharing: producer-consumer, latent false sharing at alignment 16,32,48," detail &&
	grep "^  0x10000 *0  producer-consumer *0/17 *9/0$" detail
'

test_expect_success '--detail takes the bare name of one object, and names every object that has it' '
	hpcviewer-tui --detail "sarr [vars]" db >full &&
	hpcviewer-tui --detail sarr db >bare &&
	test_cmp full bare &&
	hpcviewer-tui --detail alloc_b db >bare &&
	grep "^sharing: producer-consumer," bare &&
	cp -R db twice &&
	sed "s/alloc_a prog.c:21/alloc_b prog.c:21/" db/experiment.xml >twice/experiment.xml &&
	test_must_fail hpcviewer-tui --detail alloc_b twice 2>err &&
	echo "hpcviewer-tui: '"'"'alloc_b'"'"': ambiguous data object name ('"'"'alloc_b prog.c:21 < main prog.c:12'"'"', '"'"'alloc_b prog.c:31 < main prog.c:13'"'"')" >expect &&
	test_cmp expect err &&
	hpcviewer-tui --detail "alloc_b prog.c:31 < main prog.c:13" twice >full &&
	grep "^sharing: producer-consumer," full &&
	test_must_fail hpcviewer-tui --detail alloc twice 2>err &&
	grep "no data object of that name" err &&
	rm -r twice
'

test_expect_success '--detail: a label pooled from all its lines says so; a bad pooled row is refused' '
	cp -R db pooled &&
	id=$(awk -F"\t" "\$1 == \"object\" && \$14 == \"sarr [vars]\" { print \$2 }" db/sharing.tsv) &&
	printf "pooled\t%s\n" "$id" >>pooled/sharing.tsv &&
	hpcviewer-tui --detail sarr pooled >detail &&
	grep "^sharing: false-sharing (pooled from all its lines), latent" detail &&
	hpcviewer-tui --detail alloc_b pooled >detail &&
	grep "^sharing: producer-consumer, latent" detail &&
	printf "pooled\tx\n" >>pooled/sharing.tsv &&
	test_must_fail hpcviewer-tui --detail sarr pooled 2>err &&
	test_line_count = 1 err &&
	rm -r pooled
'

test_expect_success '--detail: an unknown object, a database without sharing data: one line' '
	test_must_fail hpcviewer-tui --detail nothing db 2>err &&
	echo "hpcviewer-tui: '"'"'nothing'"'"': no data object of that name" >expect &&
	test_cmp expect err &&
	test_must_fail hpcviewer-tui --detail "sarr [vars]" db0 2>err &&
	grep "no sharing data in this database" err &&
	test_line_count = 1 err &&
	printf "object\t1\n" >>db/sharing.tsv &&
	test_must_fail hpcviewer-tui --detail "sarr [vars]" db 2>err &&
	grep "sharing.tsv.: line [0-9]*: wrong number of fields" err
'

test_expect_success TMUX 'screen: v in the data view shows the selected object its sharing' '
	hpcprof -S prog.hpcstruct -o db2 data 2>/dev/null &&
	open_viewer 160 30 db2 &&
	keys D && wait_for "data view" &&
	keys v j && wait_for "sharing of the selected object" &&
	screen >s &&
	grep -q "^sharing: producer-consumer, latent false sharing at alignment 16,32,48" s &&
	keys j j && wait_for "sharing: false-sharing" &&
	screen >s &&
	grep -q "^  0x601000 *false-sharing *0 *18  18,18" s
'

# shared_counters: global-counters at 2 threads measured (retry_budget
# 400 ms of each thread's CPU time), its counters array false-sharing in
# the CSV data view and in --detail.  The label is statistical (t1103),
# so the test runs it under retry 3.
shared_counters() {
	rm -rf m dbr &&
	hpcrun -q --sharing -o m ./share-patterns global-counters 2 $(retry_budget 400) >/dev/null &&
	hpcstruct m >/dev/null 2>&1 &&
	hpcprof -o dbr m 2>/dev/null &&
	hpcviewer-tui --csv --view data --depth 1 dbr >csv &&
	grep -q "^1,static,\"counters \[share-patterns\] (.*)\",,,false-sharing," csv &&
	hpcviewer-tui --detail "counters [share-patterns]" dbr >detail &&
	grep "^  0x[0-9a-f]* *0  false-sharing  *[0-9]*/[0-9]*  *[0-9]*/[0-9]*$" detail
}

test_expect_success SHARING 'share-patterns: the CSV sharing column and --detail of a false-sharing array' '
	cc -O2 -g -fno-optimize-sibling-calls -pthread -o share-patterns "$TEST_PROGS/share-patterns.c" &&
	retry 3 shared_counters
'

screen_done
test_done
