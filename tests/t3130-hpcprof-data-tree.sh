#!/bin/sh
test_description='hpcprof builds the data-centric tree of hpcrun --data profiles: objects, exact values, code views unchanged'
. "$(dirname "$0")/test-lib.sh"

X() { xmllint --xpath "$1" db/experiment.xml; }
# The data object PF named $1 (a Procedure name).
OBJ() { echo "//PF[@n=//Procedure[@n=\"$1\"]/@i]"; }
# Column id of the metric named $1.
COL() { X "string(//Metric[@n=\"$1\"]/@i)"; }
# Value of column $2 at the node(s) $1 selects.
V() { X "string($1/M[@n=\"$2\"]/@v)"; }

test_expect_success 'synthetic data-centric profiles and a database' '
	build_mkprofile &&
	sh "$TEST_DIRECTORY/lib/data-synthetic.sh" &&
	hpcprof -S prog.hpcstruct -o db --text report.txt data 2>err &&
	test_must_fail grep -i "data-centric tree" err &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" db/experiment.xml
'

test_expect_success 'code views are the ones without --data' '
	hpcprof -S prog.hpcstruct -o dbp --text plain.txt plain 2>/dev/null &&
	sed -n "/^Data coverage/q;p" report.txt | sed "\$d" >code.txt &&
	test_cmp plain.txt code.txt &&
	test "$(X "string(/HPCToolkitExperiment/SecCallPathProfile/SecCallPathProfileData/M[@n=0]/@v)")" = 84 &&
	xmllint --xpath "//SecFlatProfileData" dbp/experiment.xml | sed "s/ i=\"[0-9]*\"//g" >flat.plain &&
	X "//SecFlatProfileData" | sed "s/ i=\"[0-9]*\"//g" >flat.data &&
	test_cmp flat.plain flat.data
'

test_expect_success 'the data root is a root-type frame (f=2) holding the kinds' '
	root=$(X "string(//Procedure[@f=2]/@n)") &&
	test "$root" = "<data objects>" &&
	test "$(X "count(//Procedure[@f=2])")" = 1 &&
	X "$(OBJ "<data objects>")/PF/@n" | tr " " "\n" | sed "s/n=//" >ids &&
	for i in $(cat ids); do X "string(//Procedure[@i=$i]/@n)"; done >kinds &&
	printf "<heap>\n<static>\n<stack>\n<unknown data>\n" >expect &&
	test_cmp expect kinds &&
	test "$(V "$(OBJ "<data objects>")" 0)" = 78 &&
	test "$(V "$(OBJ "<heap>")" 0)" = 60
'

test_expect_success 'objects: names, sampled values, bytes, blocks, threads, offsets' '
	B="$(OBJ "alloc_b prog.c:31 < main prog.c:13")" &&
	A="$(OBJ "alloc_a prog.c:21 < main prog.c:12")" &&
	S="$(OBJ "sarr [vars]")" &&
	echo "$(V "$B" 0) $(V "$B" $(COL DATA:bytes)) $(V "$B" $(COL DATA:blocks)) $(V "$B" $(COL DATA:threads)) $(V "$B" $(COL DATA:offset-lo)) $(V "$B" $(COL DATA:offset-hi))" >actual &&
	echo "$(V "$A" 0) $(V "$A" $(COL DATA:bytes)) $(V "$A" $(COL DATA:blocks)) $(V "$A" $(COL DATA:threads)) $(V "$A" $(COL DATA:offset-lo)) $(V "$A" $(COL DATA:offset-hi))" >>actual &&
	echo "$(V "$S" 0) $(V "$S" $(COL DATA:bytes)) $(V "$S" $(COL DATA:blocks)) $(V "$S" $(COL DATA:threads)) $(V "$S" $(COL DATA:offset-lo)) $(V "$S" $(COL DATA:offset-hi))" >>actual &&
	echo "$(V "$(OBJ "thread 0")" 0) $(V "$(OBJ unknown)" 0)" >>actual &&
	printf "40 16384 4 2 0 16384\n20 4096 1 1 0 4096\n10 8000 1 1 0 8000\n5 3\n" >expect &&
	test_cmp expect actual &&
	test "$(X "string(//Metric[@n=\"DATA:bytes\"]/@show)")" = 4
'

test_expect_success 'under each object the loop and line that touch it' '
	test "$(V "$(OBJ "alloc_b prog.c:31 < main prog.c:13")//L[@l=42]/S[@l=44]" 0)" = 40 &&
	test "$(V "$(OBJ "alloc_a prog.c:21 < main prog.c:12")//L[@l=42]/S[@l=43]" 0)" = 20 &&
	test "$(V "$(OBJ "sarr [vars]")//L[@l=42]/S[@l=45]" 0)" = 10 &&
	test "$(X "count($(OBJ "alloc_a prog.c:21 < main prog.c:12")//S[@l=44])")" = 0
'

test_expect_success 'per-thread values of an object: 30 and 10 cycles' '
	id=$(X "string($(OBJ "alloc_b prog.c:31 < main prog.c:13")/@i)") &&
	awk -v n=$id "\$1 == n && \$3 == 0 { print \$2, \$4 }" db/thread-values.tsv | sort >actual &&
	printf "0 30\n1 10\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'hpcprof --text: coverage and the top data objects' '
	grep "^Data coverage" report.txt >actual &&
	grep "^Of the samples" report.txt >>actual &&
	cat >expect <<-\EOT &&
	Data coverage of cycles: 92.86% with a data address, 2.38% at memory instructions whose address was not computed, 4.76% at instructions without a memory operand.
	Of the samples with an address: 96.15% on named objects (heap 76.92%, static 12.82%, stack 6.41%), 0.00% on small heap blocks, 3.85% unknown.
	EOT
	test_cmp expect actual &&
	sed -n "/^Top data objects/,\$p" report.txt | tail -n +3 |
		awk "{ print \$1, \$3, \$4, \$5, \$6, \$7 }" >actual &&
	cat >expect <<-\EOT &&
	51.28% 40 heap 16384 4 2
	25.64% 20 heap 4096 1 1
	12.82% 10 static 8000 1 1
	6.41% 5 stack 0 0 1
	3.85% 3 unknown 0 0 1
	EOT
	test_cmp expect actual &&
	grep -q "alloc_b prog.c:31 < main prog.c:13$" report.txt &&
	grep -q "\[0, 16384)" report.txt
'

test_expect_success 'hpcprof -j 2 writes the database of -j 1, byte for byte' '
	hpcprof -j 1 -S prog.hpcstruct -o db1 --text j1.txt data 2>err1 &&
	hpcprof -j 2 -S prog.hpcstruct -o db2 --text j2.txt data 2>err2 &&
	for f in experiment.xml thread-values.tsv threads.tsv; do
		test_cmp db1/$f db2/$f || exit 1
	done &&
	test_cmp j1.txt j2.txt &&
	test_cmp j1.txt report.txt
'

test_expect_success HPCPROF_MPI 'hpcprof-mpi: data-centric measurements, the database of hpcprof' '
	mpi_as_hpcprof -S prog.hpcstruct data
'

test_done
