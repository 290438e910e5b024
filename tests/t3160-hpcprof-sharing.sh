#!/bin/sh
test_description='hpcprof labels the data objects of hand-written .hpcshare files: false sharing, producer-consumer, latent, NUMA remote shares, exact'
. "$(dirname "$0")/test-lib.sh"

# The truth is in tests/lib/share-synthetic.sh.
X() { xmllint --xpath "$1" db/experiment.xml; }
OBJ() { echo "//PF[@n=//Procedure[@n=\"$1\"]/@i]"; }
COL() { X "string(//Metric[@n=\"$1\"]/@i)"; }
V() { X "string($1/M[@n=\"$2\"]/@v)"; }
B="alloc_b prog.c:31 < main prog.c:13"
A="alloc_a prog.c:21 < main prog.c:12"

test_expect_success 'synthetic sharing files beside two data-centric profiles' '
	build_mkprofile &&
	sh "$TEST_DIRECTORY/lib/share-synthetic.sh" &&
	hpcprof -S prog.hpcstruct -o db --text report.txt data 2>err &&
	test_must_fail grep -i "sharing\|data-centric tree" err &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" db/experiment.xml
'

test_expect_success 'each object its label and remote share in experiment.xml' '
	S=$(COL DATA:sharing) && R=$(COL "DATA:remote%") &&
	for o in "sarr [vars]" "$B" "$A" "thread 0"; do
		echo "$(V "$(OBJ "$o")" $S) $(V "$(OBJ "$o")" $R)"
	done >actual &&
	printf "6 51.42857142857143\n3 41.86046511627907\n1 0\n \n" >expect &&
	test_cmp expect actual &&
	X "string(//Metric[@n=\"DATA:sharing\"]/@md)" | grep "6 false-sharing"
'

test_expect_success 'sharing.tsv: object rows' '
	grep "^object" db/sharing.tsv | cut -f3-14 >actual &&
	cat >expect <<-EOT &&
	private	-	1	18	9	9	0	0.0	17	0	local: no change	$A
	producer-consumer	16,32,48	2	45	9	36	8	41.9	43	0	initialize in parallel: let each thread first-touch the part it uses	$B
	false-sharing	-	2	36	0	36	16	51.4	35	0	initialize in parallel: let each thread first-touch the part it uses	sarr [vars]
	EOT
	test_cmp expect actual &&
	id=$(X "string($(OBJ "sarr [vars]")/@i)") &&
	grep "^object	$id	false-sharing	" db/sharing.tsv
'

test_expect_success 'sharing.tsv: line rows per thread, page rows per node' '
	grep "^line" db/sharing.tsv | cut -f3- >actual &&
	cat >expect <<-EOT &&
	0	0x10000	0	producer-consumer	1	9	0	-
	0	0x10000	0	producer-consumer	0	0	17	0-7
	0	0x20010	-16	private	0	8	9	24-31
	0	0x30000	0	private	0	0	8	48-63
	0	0x30000	64	private	1	0	9	0-15
	0	0x601000	0	false-sharing	1	0	9	8-15
	0	0x601000	0	false-sharing	0	0	8	0-7
	0	0x601000	128	private	0	0	9	0-7
	0	0x601000	192	private	1	0	9	0-7
	EOT
	test_cmp expect actual &&
	grep "^page" db/sharing.tsv | cut -f3- >actual &&
	cat >expect <<-EOT &&
	0	0x10000	producer-consumer	0	0	9	18,9
	0	0x20000	private	0	0	0	18,0
	0	0x30000	private	0	0	9	9,9
	0	0x601000	false-sharing	0	0	18	18,18
	EOT
	test_cmp expect actual
'

test_expect_success '--text: false sharing per word with threads, sources and a fix' '
	sed -n "/^False sharing/,/^Latent/p" report.txt >fs &&
	grep "^sarr \[vars\]: static, start 0x601000, 8000 bytes, alignment 0 (start % 64)$" fs &&
	grep "^  line 0x601000, offset 0 in the object: 18 sampled accesses, 2 threads" fs &&
	grep "^ *0 *0 *0 *0 *9  work prog.c:45$" fs &&
	grep "^ *1 *8 *1 *0 *9  work prog.c:45$" fs &&
	grep "fix: pad each thread.s part of .sarr. to 64 bytes" fs &&
	test $(grep -c "^  line" fs) = 1
'

test_expect_success '--text: the latent case is predicted, the labels listed' '
	grep "^  $B: false sharing at alignment 16,32,48 (start % 64)" report.txt &&
	sed -n "/^Sharing/,/^\$/p" report.txt | sed "1,2d;\$d" | awk "{print \$1, \$2}" >actual &&
	printf "false-sharing -\nproducer-consumer 16,32,48\nprivate -\n" >expect &&
	test_cmp expect actual
'

test_expect_success '--text: NUMA remote shares, first toucher, page x node matrix' '
	sed -n "/^NUMA/,\$p" report.txt >numa &&
	grep "^NUMA (virtual topology, 2 nodes" numa &&
	grep "^ *51.4% *35 *1 *thread 0  initialize in parallel.*  sarr \[vars\]$" numa &&
	grep "^ *0.0% *17 *1 *thread 0  local: no change" numa &&
	grep "^  0x601000 *0 *18 *18$" numa
'

test_expect_success HPCPROF_MPI 'hpcprof-mpi on 2 ranks writes the database of hpcprof, sharing.tsv included' '
	mpi_as_hpcprof -S prog.hpcstruct data &&
	test -s dbm/sharing.tsv
'

# Nine more lines of b, each written once by thread 0 (a cheap store,
# sampled once) and read 9 times by thread 1 right after: private by their
# evidence, with a transfer each, 9 in all against the 8 of b's
# producer-consumer line.  Such transfers are no evidence for private
# (hpcprof/sharing.h, invariant 3): b stays producer-consumer, costing 8.
test_expect_success 'lines whose writer was sampled once leave b producer-consumer' '
	mkdir thin && cp data/* thin/ &&
	for k in 4 5 6 7 8 9 10 11 12; do
		t=$((200000 + 1000 * k)) &&
		echo "access $t 0 2 $((64 * k)) 8 w 0 25" >>thin/prog-000000-000-00001234-10-0.hpcshare &&
		for i in 1 2 3 4 5 6 7 8 9; do
			echo "access $((t + 10 * i)) 1 2 $((64 * k)) 8 r 0 25" || exit 1
		done >>thin/prog-000000-001-00001234-10-0.hpcshare || exit 1
	done &&
	hpcprof -S prog.hpcstruct -o dbthin thin 2>err &&
	grep "^line" dbthin/sharing.tsv | awk -F"\t" "\$6 == \"private\" && \$4 == \"0x10000\"" >thin-lines &&
	test_line_count = 18 thin-lines &&
	grep "^object" dbthin/sharing.tsv | awk -F"\t" -v b="$B" "\$14 == b { print \$3, \$9 }" >actual &&
	echo "producer-consumer 8" >expect &&
	test_cmp expect actual
'

test_expect_success 'without .hpcshare files nothing of it appears' '
	rm data/*.hpcshare &&
	hpcprof -S prog.hpcstruct -o db2 --text plain.txt data 2>err &&
	test ! -e db2/sharing.tsv &&
	test_must_fail grep -i "sharing\|NUMA" plain.txt &&
	test "$(xmllint --xpath "count(//Metric[@n=\"DATA:sharing\"])" db2/experiment.xml)" = 0
'

test_done
