#!/bin/sh
test_description='hpcviewer-tui: the data view (D, --view data): objects, kinds, shares of the attributed samples, code views unchanged'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/viewer-screen.sh"

# The synthetic measurement of tests/lib/data-synthetic.sh: 78 cycles with a
# data address: b 40, a 20, sarr 10, thread 0 stack 5, unknown 3.
test_expect_success 'databases with and without a data tree' '
	build_mkprofile &&
	sh "$TEST_DIRECTORY/lib/data-synthetic.sh" &&
	hpcprof -S prog.hpcstruct -o db data 2>/dev/null &&
	hpcprof -S prog.hpcstruct -o dbp plain 2>/dev/null
'

test_expect_success 'data view: each object with its share and the loop that touches it' '
	cat >expect <<-\EOT &&
	  cycles:Sum (I)    cycles:Sum (E)  Scope (data)
	 7.80e+01 100.0%   7.80e+01 100.0%  - Experiment Aggregate Metrics
	 4.00e+01  51.3%                      - alloc_b prog.c:31 < main prog.c:13 (16384 bytes in 4 blocks, 2 threads, offsets [0, 16384))
	 4.00e+01  51.3%                        - main
	 4.00e+01  51.3%                          - call at prog.c:14
	 4.00e+01  51.3%   4.00e+01  51.3%          - work
	 4.00e+01  51.3%   4.00e+01  51.3%            - loop at prog.c:42
	 4.00e+01  51.3%   4.00e+01  51.3%                prog.c:44
	 2.00e+01  25.6%                      - alloc_a prog.c:21 < main prog.c:12 (4096 bytes in 1 block, 1 thread, offsets [0, 4096))
	EOT
	hpcviewer-tui --stdio --width 0 --view data db | head -n 9 >out &&
	test_cmp expect out
'

test_expect_success 'CSV: the kind column names heap, static, stack, unknown; the code below keeps its kinds' '
	hpcviewer-tui --csv --view data --depth 1 db >csv &&
	cut -d, -f1,2 csv >kinds &&
	printf "%s\n" depth,kind 0,root 1,heap 1,heap 1,static 1,stack 1,unknown >expect &&
	test_cmp expect kinds &&
	grep "^1,heap,\"alloc_b prog.c:31 < main prog.c:13 (16384 bytes" csv &&
	grep "^1,static,\"sarr \[vars\] (8000 bytes in 1 block, 1 thread, offsets \[0, 8000))\",,,10,12.82," csv &&
	hpcviewer-tui --csv --view data db | sed 1d | grep -v "^[01]," | cut -d, -f2 | sort -u >below &&
	printf "%s\n" call line loop procedure >expect &&
	test_cmp expect below
'

test_expect_success 'percentages: 40/78, 20/78, 10/78, 5/78, 3/78 of the samples with an address' '
	hpcviewer-tui --csv --view data --depth 1 db | sed 1,2d | awk -F, "{ print \$(NF - 2) }" >actual &&
	printf "%s\n" 51.28 25.64 12.82 6.41 3.85 >expect &&
	test_cmp expect actual
'

test_expect_success 'sorting the data view by exclusive cost keeps the objects apart' '
	hpcviewer-tui --csv --view data --metric E --depth 1 db | sed 1,2d | cut -d, -f2 >actual &&
	printf "%s\n" heap heap static stack unknown >expect &&
	test_cmp expect actual
'

test_expect_success 'the code views are the ones without --data' '
	for v in top-down bottom-up flat functions; do
		hpcviewer-tui --stdio --view $v db >with.$v &&
		hpcviewer-tui --stdio --view $v dbp >without.$v &&
		test_cmp without.$v with.$v || exit 1
	done
'

test_expect_success 'no data tree: --view data says so in one line' '
	test_must_fail hpcviewer-tui --stdio --view data dbp >out 2>err &&
	echo "hpcviewer-tui: '"'"'dbp'"'"': no data-centric tree in this database (profiles of hpcrun --data)" >expect &&
	test_cmp expect err &&
	test ! -s out
'

test_expect_success 'a code frame after the data tree: one line, no crash' '
	mkdir bad &&
	sed "s|</SecCallPathProfileData>|<PF n=\"10\" lm=\"0\"/></SecCallPathProfileData>|" \
		db/experiment.xml >bad/experiment.xml &&
	test_must_fail hpcviewer-tui --stdio bad >out 2>err &&
	test_line_count = 1 err &&
	grep "experiment.xml.*a scope after the data tree" err
'

test_expect_success TMUX 'screen: D shows the data view, the same rows as --stdio; T gives an object its threads' '
	open_viewer 160 20 db &&
	keys D && wait_for "data view" &&
	screen | sed -n 4p | sed "s/.*%  *//" >row &&
	echo "+ alloc_b prog.c:31 < main prog.c:13 (16384 bytes in 4 blocks, 2 threads, offsets [0, 16384))" >expect &&
	test_cmp expect row &&
	keys "?" && wait_for "data: objects (heap, static, stack) and their accesses" &&
	keys x && wait_for "(? help, q quit)" &&
	keys j T && wait_for ": 2 threads" &&
	screen >s &&
	grep -qx "min 10  mean 20  max 30" s &&
	keys x && wait_for "(? help, q quit)" &&
	open_viewer 160 20 dbp &&
	keys D && wait_for "no data-centric tree in this database"
'

screen_done
test_done
